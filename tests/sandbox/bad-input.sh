#!/usr/bin/env bash
# Bad input around the sandbox: a deleted current directory, paths with
# control characters or longer than PATH_MAX, shell directories without bin/
# and unknown shell names. Each: a clear error, the right status, and the
# command never runs unconfined.
# kernel-independent: errors for bad paths and names, given before the sandbox starts.
. "$(dirname "$0")/../lib.sh"

expect_ok "moat wrap a shell" "$MOAT" wrap tools /usr/bin/cat /usr/bin/env /usr/bin/true
SH=$(cd "$XDG_DATA_HOME/moat/shells/tools" && pwd -P)
echo "PROJECT-FILE" >"$PROJ/readme"

# A current directory that was deleted.
mkdir "$PROJ/gone"
cd "$PROJ/gone" && rmdir "$PROJ/gone"
expect_status "moat run in a deleted directory: 125" 125 "$MOAT" run -- true
expect_out "it says the directory is gone" 'current directory no longer exists'
expect_out "with a hint" '^hint: cd '
expect_status "moat shell in a deleted directory: 125" 125 "$MOAT" shell
run env MOAT_ROOT="$PROJ" "$SH/bin/cat" "$PROJ/readme"
[ "$rc" -eq 0 ] && [ "$out" = PROJECT-FILE ] && ok "a wrapper by absolute path does not need the cwd" ||
	{ not_ok "a wrapper by absolute path does not need the cwd" && _show cat; }
rm -rf "$PROJ/.moat" # that run was meant to work; the rest must leave no trace
run env MOAT_ROOT="$PROJ" bash -c 'exec -a bin/cat "$0" "$@"' "$SH/bin/cat" "$PROJ/readme"
[ "$rc" -eq 125 ] && grep -q 'current directory no longer exists' "$T/.err" && [ -z "$out" ] &&
	ok "a wrapper by relative path in a deleted directory: 125" ||
	{ not_ok "a wrapper by relative path in a deleted directory: 125" && _show exec -a bin/cat; }
expect_status "a relative MOAT_ROOT in a deleted directory: 125" 125 env MOAT_ROOT=. "$SH/bin/cat" "$PROJ/readme"
expect_out "naming MOAT_ROOT" "MOAT_ROOT='\\.'"
cd "$PROJ" || exit 1

# Control characters.
nl=$'\n'
mkdir "$HOME/new${nl}line" "$HOME/tab	bed"
for d in "$HOME/new${nl}line" "$HOME/tab	bed"; do
	cd "$d" || exit 1
	expect_status "a root with a control character is refused: 125" 125 "$MOAT" run -- true
	expect_out "it says why" 'control character'
	[ ! -e "$d/.moat" ] && ok "nothing was created in it" || not_ok "nothing was created in it"
	expect_status "a MOAT_ROOT with a control character is refused: 125" 125 env MOAT_ROOT="$d" "$SH/bin/true"
	expect_out "it says why" 'control character'
done
cd "$PROJ" || exit 1
cp -r "$SH" "$T/shell${nl}x"
expect_status "a shell directory with a control character is refused: 125" 125 "$MOAT" run "$T/shell${nl}x" -- true
expect_out "it says why" 'control character'
rm -rf "$PROJ/.moat" # if that ran anyway, it is counted above, not below
run "$MOAT" profile "$T/shell${nl}x"
[ "$rc" -eq 1 ] && grep -q 'control character' "$T/.err" && ! grep -qE '^x +read' "$T/.out" &&
	ok "moat profile refuses it too, never printing a rule split over two lines" ||
	{ not_ok "moat profile refuses it too, never printing a rule split over two lines" && _show profile; }
expect_status "a shell name with a control character is refused: 125" 125 "$MOAT" run "bad${nl}name" -- true
expect_out "it says why" 'control character'
ln -s "$WRAPPER" "$SH/bin/ca${nl}t"
expect_status "a tool name with a control character is refused: 125" 125 env MOAT_ROOT="$PROJ" "$SH/bin/ca${nl}t" readme
expect_out "it says why" 'control character'
rm "$SH/bin/ca${nl}t"

# Longer than PATH_MAX (4096): a root, MOAT_ROOT, and a tool reached through one.
long=$PROJ/long
mkdir "$long"
cd "$long" || exit 1
seg=$(head -c 200 /dev/zero | tr '\0' d)
for _ in $(seq 22); do mkdir "$seg" && cd "$seg" || exit 1; done
deep=$(pwd)
[ "${#deep}" -gt 4096 ] && ok "made a directory deeper than PATH_MAX" || not_ok "made a directory deeper than PATH_MAX"
expect_status "moat run with a root longer than PATH_MAX: 125" 125 "$MOAT" run -- true
expect_out "it says the name is too long" 'too long|PATH_MAX'
expect_status "a MOAT_ROOT longer than PATH_MAX: 125" 125 env MOAT_ROOT="$deep" "$SH/bin/true"
expect_out "it says the name is too long" 'too long|PATH_MAX'
mkdir -p bin share/moat
ln -s "$WRAPPER" bin/cat
printf 'cat\t/usr/bin/cat\n' >share/moat/manifest
run env MOAT_ROOT="$PROJ" ./bin/cat "$PROJ/readme"
[ "$rc" -eq 125 ] && [ -z "$out" ] && ok "a wrapper in a shell deeper than PATH_MAX: 125" ||
	{ not_ok "a wrapper in a shell deeper than PATH_MAX: 125" && _show ./bin/cat; }
expect_out "it says the name is too long" 'too long|PATH_MAX'
cd "$PROJ" || exit 1
huge=$PROJ/$(head -c 5000 /dev/zero | tr '\0' x)
expect_status "a MOAT_ROOT string longer than PATH_MAX: 125" 125 env MOAT_ROOT="$huge" "$SH/bin/true"
expect_out "it says the name is too long" 'too long|PATH_MAX'
expect_status "a shell path longer than PATH_MAX: 125" 125 "$MOAT" run "$huge" -- true
expect_out "it says the name is too long" 'too long|PATH_MAX'
rm -rf "$long"

# Shell directories that are not shells.
mkdir -p "$T/nobin/share/moat"
expect_status "a shell directory without bin/: 125" 125 "$MOAT" run "$T/nobin" -- true
expect_out "it says so" "'$T/nobin' has no bin/ directory"
: >"$T/afile"
expect_status "a shell that is a file: 125" 125 "$MOAT" run "$T/afile" -- true
expect_out "it says so" "is not a directory"
expect_status "a missing shell path: 125" 125 "$MOAT" run "$T/missing-shell" -- true
expect_out "naming it" "$T/missing-shell"
mkdir -p "$XDG_DATA_HOME/moat/shells/hollow"
expect_status "a named shell without bin/: 125" 125 "$MOAT" run hollow -- true
expect_out "it says so" "has no bin/ directory"
expect_status "an unknown shell name: 125" 125 "$MOAT" run no-such-shell -- true
expect_out "it names the shell" "shell 'no-such-shell'"
expect_out "says where it looked" "looked .*in $XDG_DATA_HOME/moat/shells"
expect_out "and how to make one" 'moat wrap no-such-shell'
expect_status "with MOAT_SHELLS_PATH" 125 env MOAT_SHELLS_PATH="$T/a:$T/b" "$MOAT" run no-such-shell -- true
expect_out "it says where it looked" "looked .*in $T/a:$T/b"
expect_status "moat profile with an unknown shell fails" 1 "$MOAT" profile no-such-shell
[ ! -e "$PROJ/.moat" ] && ok "no refused run created .moat in the root" || not_ok "no refused run created .moat in the root"

done_testing
