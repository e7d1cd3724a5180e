#!/usr/bin/env bash
# Shells from a flake: the first use builds and pins, later uses take the
# pinned store path without starting nix.
. "$(dirname "$0")/common"

echo PROJECT-FILE >"$PROJ/readme"

run "$MOAT" run hello -- fixture-hello
[ "$rc" -eq 0 ] && ok "moat run builds a shell from the flake" || { not_ok "moat run builds a shell from the flake" && _show moat run hello; }
expect_out "its tool runs" '^fixture says: version one$'
expect_out "one progress line while nix builds" '^moat: building hello\.\.\.$'
[ "$(grep -c . "$T/.err")" -eq 1 ] && ok "and nothing else on stderr" || { not_ok "and nothing else on stderr" && _show moat run; }
store=$(pinned_store hello)
case $store in /nix/store/*-hello) ok "the lock file pins the store path" ;; *) not_ok "the lock file pins the store path ($store)" ;; esac
awk -F'\t' '$1 == "hello" { exit !($2 == "path:'"$FIX"'" && $3 == "hello" && $4 == "-" && $5 ~ /^sha256-/) }' "$PINS" &&
	ok "with the flake, attribute and narHash (path: has no revision)" || { not_ok "pin fields" && cat "$PINS" | sed 's/^/#   /'; }
link=$(echo "$XDG_STATE_HOME"/moat/gcroots/hello-*)
[ -n "$link" ] && [ "$(readlink "$link")" = "$store" ] && ok "an out-link under XDG_STATE_HOME roots it" || not_ok "out-link ($link)"
[ -e "$store/share/moat/env" ] && [ -L "$store/bin/fixture-hello" ] && [ "$(readlink "$store/bin/fixture-hello")" = "$WRAPPER" ] &&
	ok "wrap.nix made the layout: bin symlinks to moat-wrapper, manifest, env" || not_ok "shell layout"

run "$MOAT" run hello -- fixture-env
expect_out "the shell's env file applies to its tools" '^greeting=from-the-env-file$'
run "$MOAT" run hello -- sh -c 'cat readme; cat "$HOME/.ssh/id_rsa"'
expect_out "the project is readable" '^PROJECT-FILE$'
expect_out "home stays denied" 'id_rsa: Permission denied'

# The fast path: the pin alone, no nix process.
run env PATH="$NOPATH" "$MOAT" run hello -- fixture-hello
[ "$rc" -eq 0 ] && ok "a pinned shell runs with nix removed from PATH" || { not_ok "a pinned shell runs with nix removed from PATH" && _show moat run; }
expect_out "the same tool" '^fixture says: version one$'
expect_no_out "without building" 0 'building'
rm -f "$T/spy.log"
run env PATH="$SPY" "$MOAT" run hello -- fixture-hello
[ "$rc" -eq 0 ] && [ ! -e "$T/spy.log" ] && ok "and starts no nix process while the pin holds" || not_ok "nix was started: $(cat "$T/spy.log" 2>/dev/null)"

printf '%s\n' 'echo "in=$MOAT_SANDBOX"; fixture-hello; exit 4' >"$T/cmds"
SHELL=/bin/sh timeout 30 "$MOAT" shell hello <"$T/cmds" >"$T/.out" 2>"$T/.err"
rc=$?
[ "$rc" -eq 4 ] && ok "moat shell with a nix shell" || { not_ok "moat shell with a nix shell (status $rc)" && _show moat shell hello; }
expect_out "its tools are on PATH inside" '^fixture says: version one$'

# The flake a name is looked up in is part of the pin.
run "$MOAT" run "path:$FIX#hello" -- fixture-hello
expect_out "FLAKE#ATTR names its own flake" '^fixture says: version one$'
grep -q "^path:$FIX#hello	" "$PINS" && ok "and is pinned under that name" || not_ok "FLAKE#ATTR pin"
run "$MOAT" run "path:../../fixture#legacy" -- fixture-hello
expect_out "a relative flake and the legacyPackages fallback" '^fixture says: version one$'
grep -q "^path:$FIX#legacy	" "$PINS" && ok "the relative flake is pinned as an absolute one" || not_ok "relative flake pin: $(cut -f1 "$PINS")"

# -v passes nix's own output through.
run "$MOAT" -v run legacy -- true
expect_out "-v shows nix's own output" "copying|building|evaluating|derivation|/nix/store"
expect_out "and how the shell resolved" "moat: shell legacy: /nix/store/"

# A pin whose store path is gone: rebuilt (path: has no revision, so from
# the current tree), and pinned again.
collect "$store" && ok "the pinned store path can be collected" || not_ok "nix store delete $store"
run "$MOAT" run hello -- fixture-hello
expect_out "a collected shell is rebuilt" '^fixture says: version one$'
expect_out "with the progress line" 'building hello\.\.\.'
[ -e "$(pinned_store hello)" ] && ok "and its store path is back" || not_ok "store path after rebuild"

# A damaged lock file line is skipped with a warning, the rest still used.
printf 'damaged line without tabs\nhello\tno\tfields\n' >>"$PINS"
run env PATH="$NOPATH" "$MOAT" run hello -- fixture-hello
[ "$rc" -eq 0 ] && ok "a damaged pin line does not stop moat" || { not_ok "damaged pins" && _show moat run; }
expect_out "it is skipped with a warning naming the line" "moat: warning: .*pins:[0-9]+: damaged pin skipped"
grep -q "^path:$FIX#hello	" "$PINS" && ok "the other pins survive" || not_ok "pins lost"

# A pin edited to point outside the store is not trusted.
sed -i "s|^hello\t\(.*\)\t[^\t]*\$|hello\t\1\t$T|" "$PINS"
run "$MOAT" run hello -- fixture-hello
expect_out "a pin outside the store is rebuilt, not used" '^fixture says: version one$'
[ "$(pinned_store hello)" != "$T" ] && ok "and replaced" || not_ok "pin outside the store kept"

done_testing
