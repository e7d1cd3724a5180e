#!/usr/bin/env bash
# docs/recipes.md, cargo and rustup: with ~/.rustup granted read+exec and
# ~/.cargo read/write/exec, cargo builds and runs a crate in the project.
# Uses the machine's rustup installation where there is one this user can
# read (its homes are granted as the recipe grants ~/.rustup and ~/.cargo).
. "$(dirname "$0")/../lib.sh"
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
