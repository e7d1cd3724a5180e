#!/usr/bin/env bash
# moat wrap and moat-wrapper: the shell layout, every way of invoking a
# wrapped tool, the refusals, and a forged MOAT_SANDBOX outside a sandbox.
. "$(dirname "$0")/../lib.sh"

echo "PROJECT-FILE" >"$PROJ/readme"
wrapper_real=$(readlink -f "$WRAPPER")

# moat wrap: bin/<tool> -> moat-wrapper, the manifest, the env file.
run "$MOAT" wrap tools --env GREETING=hello /usr/bin/cat /usr/bin/env
[ "$rc" -eq 0 ] && ok "moat wrap creates a shell" || { not_ok "moat wrap creates a shell" && _show moat wrap; }
SH=$(cd "$XDG_DATA_HOME/moat/shells/tools" 2>/dev/null && pwd -P)
expect_out "it prints where the shell is" "^$XDG_DATA_HOME/moat/shells/tools\$"
# The shells link to a copy of moat-wrapper in moat's data directory, which
# outlives the build tree (issue 13).
copy=$XDG_DATA_HOME/moat/moat-wrapper
for t in cat env; do
	[ -L "$SH/bin/$t" ] && [ "$(readlink -f "$SH/bin/$t")" = "$(readlink -f "$copy")" ] &&
		cmp -s "$copy" "$wrapper_real" &&
		ok "bin/$t is a symlink to a copy of moat-wrapper" || not_ok "bin/$t is a symlink to a copy of moat-wrapper"
done
printf 'cat\t/usr/bin/cat\nenv\t/usr/bin/env\n' >"$T/manifest.want"
cmp -s "$T/manifest.want" "$SH/share/moat/manifest" && ok "share/moat/manifest lists name<TAB>path" ||
	{ not_ok "share/moat/manifest lists name<TAB>path" && sed 's/^/#   /' "$SH/share/moat/manifest"; }
[ "$(cat "$SH/share/moat/env")" = "GREETING=hello" ] && ok "share/moat/env holds the --env" ||
	not_ok "share/moat/env holds the --env"
run "$MOAT" wrap tools --env GREETING=bye /usr/bin/cat /usr/bin/true
[ "$rc" -eq 0 ] && [ "$(grep -c '^cat	' "$SH/share/moat/manifest")" = 1 ] &&
	grep -qx 'true	/usr/bin/true' "$SH/share/moat/manifest" && grep -qx 'env	/usr/bin/env' "$SH/share/moat/manifest" &&
	ok "wrapping again adds without duplicates and keeps the rest" || not_ok "wrapping again adds without duplicates"
[ "$(cat "$SH/share/moat/env")" = "GREETING=bye" ] && ok "a repeated --env replaces the old value" ||
	{ not_ok "a repeated --env replaces the old value" && sed 's/^/#   /' "$SH/share/moat/env"; }
ls -a "$SH/bin" "$SH/share/moat" | grep -q 'moat-new\|^\.manifest\|^\.env' &&
	not_ok "no temporary files left behind" || ok "no temporary files left behind"
run "$MOAT" wrap bare cat
[ "$rc" -eq 0 ] && grep -qE '^cat	/.*/cat$' "$XDG_DATA_HOME/moat/shells/bare/share/moat/manifest" &&
	ok "moat wrap finds a bare name on PATH" || { not_ok "moat wrap finds a bare name on PATH" && _show moat wrap bare cat; }

export MOAT_ROOT=$PROJ
# confined NAME CMD...: CMD reads the project but not ~/.ssh/id_rsa.
confined() {
	local name=$1
	shift
	run "$@" "$PROJ/readme"
	if [ "$rc" -eq 0 ] && [ "$out" = PROJECT-FILE ]; then ok "$name: runs"; else not_ok "$name: runs" && _show "$@"; fi
	run "$@" "$HOME/.ssh/id_rsa"
	if [ "$rc" -ne 0 ] && grep -q 'Permission denied' "$T/.err" && ! grep -q DECOY "$T/.out"; then
		ok "$name: confined"
	else
		not_ok "$name: confined" && _show "$@" ~/.ssh/id_rsa
	fi
}
run cat "$HOME/.ssh/id_rsa"
expect_out "control: plain cat reads the key" DECOY-SSH-KEY
confined "absolute argv[0]" "$SH/bin/cat"
confined "relative argv[0] from bin/" sh -c 'cd "$0" && exec ./cat "$@"' "$SH/bin"
confined "relative argv[0] with ../" sh -c 'cd "$0" && exec ../bin/cat "$@"' "$SH/share"
confined "relative argv[0] from the root" sh -c 'exec "$0" "$@"' "$(realpath --relative-to="$PROJ" "$SH")/bin/cat"
confined "bare name through PATH" env PATH="$SH/bin:/usr/bin:/bin" cat
ln -s "$SH" "$T/shell-link"
confined "a symlink to the shell directory" "$T/shell-link/bin/cat"
ln -s "$SH/bin" "$T/tools-bin"
confined "a symlink to the shell's bin directory" "$T/tools-bin/cat"
confined "bare name through a symlinked bin on PATH" env PATH="$T/tools-bin:/usr/bin:/bin" cat
# A bin/ symlink whose manifest does not list the tool is passed over.
mkdir -p "$T/decoy/bin" "$T/decoy/share/moat"
printf 'env\t/usr/bin/env\n' >"$T/decoy/share/moat/manifest"
ln -s "$WRAPPER" "$T/decoy/bin/cat"
confined "bare name: the first shell whose manifest lists it" env PATH="$T/decoy/bin:$SH/bin:/usr/bin:/bin" cat
# Symlinks to a wrapped tool (venvs, alternatives) lead to its shell.
ln -s "$SH/bin/cat" "$PROJ/mycat"
confined "a symlink to a wrapped tool" "$PROJ/mycat"

# Refusals before anything runs.
expect_status "without MOAT_ROOT: 125" 125 env -u MOAT_ROOT "$SH/bin/cat" "$PROJ/readme"
expect_out "it says MOAT_ROOT is not set" 'MOAT_ROOT is not set'
expect_out "with a hint to use moat run or shell" "^hint: .*moat run"
expect_no_out "and the tool did not run" 125 PROJECT-FILE
expect_status "an empty MOAT_ROOT: 125" 125 env MOAT_ROOT= "$SH/bin/cat" "$PROJ/readme"
expect_status "without HOME: 125" 125 env -u HOME "$SH/bin/cat" "$PROJ/readme"
expect_out "with a hint" '^hint: .*HOME'
expect_status "MOAT_ROOT=\$HOME: 125" 125 env MOAT_ROOT="$HOME" "$SH/bin/cat" "$HOME/.ssh/id_rsa"
expect_out "with the seed's reason" 'home is meant to withhold'
expect_no_out "without leaking" 125 DECOY
expect_status "MOAT_ROOT=/: 125" 125 env MOAT_ROOT=/ "$SH/bin/cat" "$HOME/.ssh/id_rsa"
expect_status "a missing MOAT_ROOT directory: 125" 125 env MOAT_ROOT="$T/nope" "$SH/bin/cat" "$PROJ/readme"
[ ! -e "$T/nope" ] && ok "and it was not created" || not_ok "and it was not created"

# MOAT_SANDBOX forged outside any sandbox must not switch confinement off.
confined "forged MOAT_SANDBOX" env MOAT_SANDBOX="$PROJ" "$SH/bin/cat"
confined "forged MOAT_SANDBOX with no_new_privs" setpriv --no-new-privs env MOAT_SANDBOX="$PROJ" "$SH/bin/cat"
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	# no_new_privs plus an allow-all seccomp filter: everything but Landlock.
	forge='import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0
ins = struct.pack("HBBI", 0x06, 0, 0, 0x7fff0000)
buf = ctypes.create_string_buffer(ins)
prog = struct.pack("HxxxxxxP", 1, ctypes.addressof(buf))
pbuf = ctypes.create_string_buffer(prog)
assert libc.prctl(22, 2, pbuf, 0, 0) == 0, ctypes.get_errno()
os.execv(sys.argv[1], sys.argv[1:])'
	confined "forged MOAT_SANDBOX with no_new_privs and seccomp" env MOAT_SANDBOX="$PROJ" "$PY" -c "$forge" "$SH/bin/cat"
else
	skip "no $PY to forge a seccomp filter"
fi

# Inside moat run with the shell named, wrapped tools work and stay confined.
unset MOAT_ROOT
confined "inside moat run" "$MOAT" run tools -- cat
run "$MOAT" run tools -- env
expect_out "inside moat run the shell's env file applies" '^GREETING=bye$'
# A tool inside a session that names another root only ever narrows access.
mkdir -p "$PROJ/sub"
run "$MOAT" run tools -- sh -c 'cd sub && MOAT_ROOT="$PWD" cat ../readme'
[ "$rc" -ne 0 ] && grep -q "readme: Permission denied" "$T/.err" && ! grep -q PROJECT-FILE "$T/.out" && ok "in a session, MOAT_ROOT=a subdirectory confines further" ||
	{ not_ok "in a session, MOAT_ROOT=a subdirectory confines further" && _show MOAT_ROOT=sub; }
run "$MOAT" run tools -- sh -c 'MOAT_ROOT="$1" MOAT_SANDBOX="$1" cat "$1/secret"' sh "$SIBLING"
[ "$rc" -ne 0 ] && grep -q "Permission denied" "$T/.err" && ! grep -q SIBLING-SECRET "$T/.out" && ok "in a session, MOAT_ROOT=the sibling does not open it" ||
	{ not_ok "in a session, MOAT_ROOT=the sibling does not open it" && _show MOAT_ROOT=sibling; }

done_testing
