#!/usr/bin/env bash
# A short run of moat's main commands, as a user would type them, for
# make check-kernel (tests/kernel/inside runs it in the guest; it runs on any
# kernel). The suites test each in depth; this shows they work end to end on
# the kernel at hand and that moat says what this kernel leaves open.
. "$(dirname "$0")/../lib.sh"

ABI=$("$HELPERS/landlock_abi")
echo "PROJECT-FILE" >"$PROJ/readme"

expect_ok "moat --help" "$MOAT" --help
run "$MOAT" profile
expect_out "moat profile reports the ABI" "^kernel: Landlock ABI $ABI\$"
if [ "$ABI" -ge 6 ]; then
	expect_out "and that this kernel enforces everything" '^not enforced: nothing$'
else
	expect_out "and what this kernel leaves open" '^not enforced: .*ioctls on device files'
	expect_no_out "but not signals, which a session's own PID namespace covers" 0 '^not enforced: .*signals'

fi

run "$MOAT" run -- sh -c 'echo made >new.txt && cat readme new.txt'
[ "$rc" -eq 0 ] && ok "moat run works in the project" || { not_ok "moat run works in the project" && _show moat run; }
expect_out "and reads and writes there" '^made$'
if [ "$ABI" -lt 6 ]; then
	expect_out "moat run says what is not enforced" "^moat: not enforced by this kernel \\(Landlock ABI $ABI\\): "
fi
expect_ok "control: the decoy key is readable without moat" cat "$HOME/.ssh/id_rsa"
expect_denied "moat run: ~/.ssh/id_rsa is denied" "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
expect_no_out "and its content never shows" failed DECOY-SSH-KEY

printf 'cat readme\ncat "$HOME/.ssh/id_rsa"\nexit 4\n' >"$T/cmds"
SHELL=/bin/sh timeout 60 "$MOAT" shell <"$T/cmds" >"$T/.out" 2>"$T/.err"
rc=$?
[ "$rc" -eq 4 ] && ok "moat shell passes the shell's status" || { not_ok "moat shell passes the shell's status" && _show moat shell; }
expect_out "moat shell reads the project" '^PROJECT-FILE$'
expect_no_out "and not the key" 4 DECOY-SSH-KEY

expect_ok "moat wrap makes a shell" "$MOAT" wrap tools /bin/cat
W=$XDG_DATA_HOME/moat/shells/tools/bin/cat
run env MOAT_ROOT="$PROJ" "$W" readme
[ "$rc" -eq 0 ] && [ "$out" = PROJECT-FILE ] && ok "a wrapped tool reads the project" ||
	{ not_ok "a wrapped tool reads the project" && _show cat; }
expect_denied "a wrapped tool is denied the key" env MOAT_ROOT="$PROJ" "$W" "$HOME/.ssh/id_rsa"
mkdir -p "$HOME/.npm" && echo NPM-CACHE >"$HOME/.npm/entry"
expect_ok "moat allow grants a path" "$MOAT" allow cat "$HOME/.npm"
run env MOAT_ROOT="$PROJ" "$W" "$HOME/.npm/entry"
[ "$rc" -eq 0 ] && [ "$out" = NPM-CACHE ] && ok "the wrapped tool reads its grant" ||
	{ not_ok "the wrapped tool reads its grant" && _show cat; }
expect_ok "moat check accepts the config" "$MOAT" check
expect_ok "moat unallow removes it" "$MOAT" unallow cat "$HOME/.npm"
expect_denied "and the grant is gone" env MOAT_ROOT="$PROJ" "$W" "$HOME/.npm/entry"
expect_ok "moat link" "$MOAT" link "$PROJ" tools
run "$MOAT" detect "$PROJ"
expect_out "moat detect shows the linked shell" tools

done_testing
