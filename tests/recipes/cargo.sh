#!/usr/bin/env bash
# docs/recipes.md, cargo and rustup: with ~/.rustup granted read+exec and
# ~/.cargo read/write/exec, cargo builds and runs a crate in the project,
# and ~/.cargo/bin, on PATH, stays read-only (a stand-in shows it).
# Uses the machine's rustup installation where there is one this user can
# read (its homes are granted as the recipe grants ~/.rustup and ~/.cargo).
. "$(dirname "$0")/../lib.sh"

# The recipe's `moat allow cargo ~/.cargo --write --exec`, with a stand-in
# cargo in ~/.cargo/bin on PATH: the registry is writable, the bin
# directory (on PATH) is not, so a build cannot replace cargo for the
# user's shell outside moat.
mkdir -p "$HOME/.cargo/bin"
printf '#!/bin/sh\nmkdir -p "$CARGO_HOME/registry" && echo crate >"$CARGO_HOME/registry/c" && echo "$1" >"$CARGO_HOME/bin/cargo"\n' >"$HOME/.cargo/bin/cargo"
chmod +x "$HOME/.cargo/bin/cargo"
expect_ok "stand-in: moat allow cargo ~/.cargo --write --exec" env PATH="$HOME/.cargo/bin:$PATH" "$MOAT" allow cargo '~/.cargo' --write --exec
run env PATH="$HOME/.cargo/bin:$PATH" CARGO_HOME="$HOME/.cargo" "$MOAT" run -- cargo replaced
[ "$(cat "$HOME/.cargo/registry/c" 2>/dev/null)" = crate ] && ok "stand-in: the registry is written" ||
	{ not_ok "stand-in: the registry is written" && _show cargo; }
ran_and_failed && grep -q '^#!/bin/sh' "$HOME/.cargo/bin/cargo" && ok "stand-in: ~/.cargo/bin (on PATH) stays read-only" ||
	{ not_ok "stand-in: ~/.cargo/bin stays read-only" && _show cargo; }
expect_status "stand-in: a write grant of ~/.cargo/bin itself is refused" 1 env PATH="$HOME/.cargo/bin:$PATH" "$MOAT" allow cargo '~/.cargo/bin' --write
"$MOAT" unallow cargo '~/.cargo' >/dev/null 2>&1
rm -rf "$HOME/.cargo"
for h in "${REAL_CARGO_HOME:-/root/.cargo}" /usr/local/cargo; do
	[ -x "$h/bin/cargo" ] && CH=$h && break
done
[ -n "${CH:-}" ] || { skip "prerequisite: a rustup installation (cargo)"; done_testing; exit; }
RH=$(dirname "$CH")/.rustup
[ -d "$RH" ] || RH=/usr/local/rustup
[ -d "$RH/toolchains" ] || { skip "prerequisite: rustup toolchains next to $CH"; done_testing; exit; }
export CARGO_HOME=$CH RUSTUP_HOME=$RH PATH=$CH/bin:$PATH
cargo --version >/dev/null 2>&1 || { skip "prerequisite: cargo runs here"; done_testing; exit; }

mkdir -p "$PROJ/hello/src"
printf '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n' >"$PROJ/hello/Cargo.toml"
printf 'fn main() { println!("CARGO-RAN"); }\n' >"$PROJ/hello/src/main.rs"

run "$MOAT" run -- cargo --version
ran_and_failed || [ "$rc" -eq 126 ] || [ "$rc" -eq 127 ] && ok "without the grants cargo cannot run" ||
	{ not_ok "without the grants cargo cannot run" && _show cargo; }
expect_ok "moat allow '*' RUSTUP_HOME --exec" "$MOAT" allow '*' "$RH" --exec
expect_ok "moat allow '*' CARGO_HOME --exec (read-only here: the machine's own)" "$MOAT" allow '*' "$CH" --exec
run "$MOAT" run -- sh -c 'cd hello && cargo run -q --offline'
[ "$rc" -eq 0 ] && [ "$out" = CARGO-RAN ] && ok "cargo builds and runs a crate in the project" ||
	{ not_ok "cargo builds and runs a crate in the project" && _show cargo run; }
[ -x "$PROJ/hello/target/debug/hello" ] && ok "the build is in the project" || not_ok "the build is in the project"
done_testing
