#!/usr/bin/env bash
# The project's own flake.nix, offline: flake.lock is committed and pins
# nixpkgs, so the flake locks and lib.<system>.sandbox.wrap evaluates without
# fetching anything; for the rest (nix flake check, packages, shells) its
# nixpkgs input is overridden with a small fake (tools that are shell
# scripts, a stdenv that runs make with the host's compiler), never edited
# into flake.nix, so lib.<system>.sandbox.wrap, packages.<system>.moat and the
# example shells are exercised for real, from the repository and from
# `make install`'s copy.
. "$(dirname "$0")/common"

# The sources: a checkout (.git is a directory, or a file in a linked
# worktree), or a copy of its tracked files (tests/run-all's stage for uid
# 65534).
[ -f "$MOAT_SRC/flake.nix" ] && [ -f "$MOAT_SRC/Makefile" ] || { skip "needs the source tree"; done_testing; exit; }
command -v python3 >/dev/null || { skip "needs python3"; done_testing; exit; }
command -v make >/dev/null && command -v cc >/dev/null || { skip "needs make and cc"; done_testing; exit; }

FAKE=$T/fakepkgs
mkdir -p "$FAKE"
cat >"$FAKE/flake.nix" <<'NIX'
{
  outputs = { self }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "aarch64-darwin" ];
      genAttrs = names: f: builtins.listToAttrs (map (n: { name = n; value = f n; }) names);
      pkgsFor = system:
        let
          sh = name: script: builtins.derivation {
            inherit system name;
            builder = "/bin/sh";
            PATH = "/usr/local/bin:/usr/bin:/bin";
            args = [ "-c" script ];
          };
          tool = name: bins: sh name ''
            mkdir -p $out/bin
            for b in ${bins}; do
              printf '#!/bin/sh\necho "fake %s $*"\n' $b >$out/bin/$b
              chmod +x $out/bin/$b
            done
          '';
        in {
          lib = { inherit genAttrs; };
          bash = sh "bash" "mkdir -p $out/bin; ln -s /bin/sh $out/bin/bash";
          coreutils = sh "coreutils" "mkdir -p $out/bin; for t in mkdir ln; do ln -s /bin/$t $out/bin/$t; done";
          zig = tool "zig" "zig";
          rustc = tool "rustc" "rustc";
          cargo = tool "cargo" "cargo";
          rustfmt = tool "rustfmt" "rustfmt";
          clippy = tool "clippy" "cargo-clippy";
          go = tool "go" "go gofmt";
          nodejs = tool "nodejs" "node npm npx";
          gnumake = tool "gnumake" "make";
          gcc = tool "gcc" "gcc";
          clang = tool "clang" "clang";
          git = tool "git" "git";
          mkShell = a: sh "shell" "mkdir $out";
          callPackage = fn: args:
            (if builtins.isFunction fn then fn else import fn) ({
              lib = { };
              stdenv.mkDerivation = a: sh "${a.pname}-${a.version}" ''
                cp -r ${a.src} src && chmod -R u+w src && cd src &&
                make -j4 ${builtins.concatStringsSep " " a.makeFlags} install
              '';
            } // args);
        };
    in {
      lib.genAttrs = genAttrs;
      legacyPackages = genAttrs systems pkgsFor;
    };
}
NIX

# The project's tracked files, as a flake.
REPO=$T/repo
mkdir -p "$REPO"
if [ -e "$MOAT_SRC/.git" ] && command -v git >/dev/null; then
	(cd "$MOAT_SRC" && git ls-files -z | xargs -0 tar -cf - 2>/dev/null) | tar -C "$REPO" -xf - 2>/dev/null
else
	(cd "$MOAT_SRC" && tar --exclude=./build --exclude='./build-*' --exclude=./nix-daemon -cf - .) | tar -C "$REPO" -xf -
fi
[ -f "$REPO/flake.lock" ] && ok "flake.lock is committed" || not_ok "no flake.lock in the repository"

# Offline and unmodified: it locks, and wrap is reachable, fetching nothing.
run nix flake metadata --json --no-update-lock-file "path:$REPO"
[ "$rc" -eq 0 ] && ok "flake.nix locks offline with the committed flake.lock" || { not_ok "flake metadata" && _show nix flake metadata; }
locked=$(printf '%s' "$out" | python3 -c 'import json,sys; n=json.load(sys.stdin)["locks"]["nodes"]["nixpkgs"]["locked"]; print(n["owner"], n["repo"], n["rev"], n["narHash"])' 2>/dev/null)
case $locked in "NixOS nixpkgs "[0-9a-f]*" sha256-"*) ok "nixpkgs is pinned to a revision and hash ($locked)" ;; *) not_ok "nixpkgs lock: '$locked'" ;; esac
run nix eval --raw "path:$REPO#lib.x86_64-linux.sandbox.wrap" --apply builtins.typeOf
[ "$rc" -eq 0 ] && [ "$out" = lambda ] && ok "lib.<system>.sandbox.wrap evaluates offline, without the fake" || { not_ok "sandbox.wrap offline" && _show nix eval; }
expect_no_out "and fetches nothing" 0 'unable to download|download'

# From here, the fake nixpkgs stands in for the real one.
OVERRIDE=(--override-input nixpkgs "path:$FAKE")
run nix flake check --no-write-lock-file "${OVERRIDE[@]}" "path:$REPO"
[ "$rc" -eq 0 ] && ok "nix flake check passes" || { not_ok "nix flake check" && _show nix flake check; }
run nix flake show --json --no-write-lock-file "${OVERRIDE[@]}" "path:$REPO"
[ "$rc" -eq 0 ] && ok "flake.nix evaluates" || { not_ok "flake.nix evaluates" && _show nix flake show; }
# moat runs nix without options: lock the copy to the fake for it.
run nix flake lock "${OVERRIDE[@]}" "path:$REPO"
grep -q "$FAKE" "$REPO/flake.lock" && ok "the copy's flake.lock points at the fake nixpkgs" || { not_ok "cannot lock the copy to the fake" && _show nix flake lock; }

run nix eval --raw "path:$REPO#packages" --apply 'p: builtins.concatStringsSep " " (builtins.concatMap (s: map (a: "${s}.${a}") (builtins.attrNames p.${s})) (builtins.attrNames p))'
missing=
for sys in x86_64-linux aarch64-linux aarch64-darwin; do
	for attr in moat default zig rust go node; do
		case " $out " in *" $sys.$attr "*) ;; *) missing="$missing $sys.$attr" ;; esac
	done
done
[ "$rc" -eq 0 ] && [ -z "$missing" ] && ok "packages for three systems: moat, default, zig, rust, go, node" || not_ok "missing packages:$missing ($out)"
run nix eval --raw "path:$REPO#lib.x86_64-linux.sandbox.wrap" --apply 'w: builtins.typeOf w'
[ "$out" = lambda ] && ok "lib.<system>.sandbox.wrap is a function" || { not_ok "sandbox.wrap" && _show nix eval; }

# Build through moat: packages.moat (make, with the host's cc) and a shell
# whose tools link to that moat-wrapper.
export MOAT_FLAKE=path:$REPO
run timeout 600 "$MOAT" run go -- go version
[ "$rc" -eq 0 ] && ok "moat run go builds the go shell from flake.nix" || { not_ok "moat run go" && _show moat run go; }
expect_out "and runs its tool" '^fake go version$'
store=$(pinned_store go)
target=$(readlink "$store/bin/go" 2>/dev/null)
case $target in /nix/store/*-moat-0.1.0/bin/moat-wrapper) ok "through the flake's own moat-wrapper" ;; *) not_ok "wrapper is '$target'" ;; esac
grep -q '^GOCACHE=\$MOAT_ROOT/.moat/go-cache$' "$store/share/moat/env" && ok "with its env file" || not_ok "go env file"
run "$MOAT" run rust -- cargo build
expect_out "the rust shell" '^fake cargo build$'

# make install: the installed flake is moat's default, with the installed
# moat-wrapper.
INST=$T/inst
run make -s -C "$MOAT_SRC" install B="$MOAT_BUILD" PREFIX="$INST"
[ "$rc" -eq 0 ] && [ -f "$INST/share/moat/flake.nix" ] && [ -f "$INST/share/moat/nix/wrap.nix" ] &&
	ok "make install puts the flake under PREFIX/share/moat" || { not_ok "make install" && _show make install; }
[ -f "$INST/share/moat/flake.lock" ] && ok "with its flake.lock" || not_ok "make install left out flake.lock"
nix flake lock --override-input nixpkgs "path:$FAKE" "path:$INST/share/moat" >/dev/null 2>&1
unset MOAT_FLAKE
run timeout 600 "$INST/bin/moat" run zig -- zig build
[ "$rc" -eq 0 ] && ok "with MOAT_FLAKE unset, the installed flake is used" || { not_ok "installed flake" && _show moat run zig; }
expect_out "its zig shell runs" '^fake zig build$'
[ "$(readlink "$(pinned_store zig)/bin/zig")" = "$INST/bin/moat-wrapper" ] && ok "through the installed moat-wrapper" ||
	not_ok "installed wrapper: $(readlink "$(pinned_store zig)/bin/zig")"
awk -F'\t' '$1 == "zig" { exit !($2 == "'"$INST/share/moat"'") }' "$PINS" && ok "pinned to the installed flake" || not_ok "zig pin: $(grep ^zig "$PINS")"

done_testing
