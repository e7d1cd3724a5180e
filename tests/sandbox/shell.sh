#!/usr/bin/env bash
# moat shell: $SHELL under one profile for the whole session, started
# without the user's rc files (no error noise) and with a sandboxed prompt.
. "$(dirname "$0")/../lib.sh"

# The user's startup files exist and would announce themselves if read.
echo 'echo BASHRC-RAN' >"$HOME/.bashrc"
echo 'echo PROFILE-RAN' >"$HOME/.bash_profile"
echo 'echo PROFILE-RAN' >"$HOME/.profile"
echo 'echo SHRC-RAN' >"$HOME/.shrc"
echo 'set bell-style none' >"$HOME/.inputrc"
echo "PROJECT-FILE" >"$PROJ/readme"

# piped SHELL SCRIPT: moat shell with SCRIPT on stdin (not a terminal).
piped() {
	printf '%s\n' "$2" >"$T/cmds"
	SHELL=$1 timeout 30 "$MOAT" shell <"$T/cmds" >"$T/.out" 2>"$T/.err"
	rc=$?
}

# interactive SHELL SCRIPT: moat shell on a pseudo-terminal, typed SCRIPT.
interactive() {
	printf '%s\n' "$2" >"$T/cmds"
	SHELL=$1 ENV="$HOME/.shrc" timeout 30 script -qec "'$MOAT' shell" /dev/null <"$T/cmds" >"$T/.out" 2>"$T/.err"
	rc=$?
}

piped /bin/bash 'echo "root=$MOAT_ROOT"; echo "tmp=$TMPDIR"; cat readme; cat "$HOME/.ssh/id_rsa"; exit 3'
[ "$rc" -eq 3 ] && ok "moat shell exits with the shell's status" || { not_ok "moat shell exits with the shell's status" && _show moat shell; }
expect_out "the shell runs in the root" "^root=$PROJ\$"
expect_out "with TMPDIR in the root" "^tmp=$PROJ/.moat/tmp\$"
expect_out "the project is readable" '^PROJECT-FILE$'
expect_out "~/.ssh/id_rsa is denied" "id_rsa: Permission denied"
expect_no_out "and its content never shows" 3 'DECOY-SSH-KEY'
expect_no_out "no rc file was read" 3 'BASHRC-RAN|PROFILE-RAN|SHRC-RAN'

piped /bin/bash "echo PWNED >>\"\$HOME/.bashrc\"; ls \"\$HOME\"; cat '$SIBLING/secret'; cat '$TMPDECOY'; echo SESSION-RAN; exit 0"
# The host's /tmp is not even there: the session has its own.
[ "$rc" -eq 0 ] && grep -q '^SESSION-RAN$' "$T/.out" && [ "$(grep -c 'Permission denied' "$T/.err")" -ge 3 ] &&
	grep -q "$(re_quote "$TMPDECOY"): No such file" "$T/.err" &&
	! grep -qE 'PWNED|\.ssh|SIBLING-SECRET|TMP-DECOY' "$T/.out" &&
	ok "nothing outside the root leaks in a session" || { not_ok "nothing outside the root leaks in a session" && _show shell; }
[ "$(cat "$HOME/.bashrc")" = "echo BASHRC-RAN" ] && ok "~/.bashrc is unchanged" || not_ok "~/.bashrc is unchanged"

piped /bin/bash 'sh -c "cat \"\$HOME/.aws/credentials\""; bash -c "cat readme"'
expect_out "children of the shell are confined too" 'credentials: Permission denied'
expect_out "and can work in the root" '^PROJECT-FILE$'
expect_no_out "and never see the decoy" 0 'DECOY-AWS'

piped "" 'echo "shell=$0"'
expect_out "with SHELL empty, /bin/sh runs" '^shell=/bin/sh$'
echo 'echo "shell=$0"' | env -u SHELL "$MOAT" shell >"$T/.out" 2>"$T/.err"
expect_out "with SHELL unset, /bin/sh runs" '^shell=/bin/sh$'
piped "bash" 'echo "shell=$0"'
expect_out "a relative SHELL is not looked up: /bin/sh runs" '^shell=/bin/sh$'

if command -v script >/dev/null; then
	interactive /bin/bash 'echo "ps1=[$PS1]"; echo "sandbox=$MOAT_SANDBOX"
stty size >/dev/null && echo STTY-OK
echo TTY-OK >/dev/tty
exit 0'
	[ "$rc" -eq 0 ] && ok "interactive bash on a terminal" || { not_ok "interactive bash on a terminal" && _show script; }
	expect_out "the prompt says moat" '\(moat\) [^ ]* [#$] '
	expect_out "PS1 is the sandboxed one" 'ps1=\[\(moat\)'
	expect_out "MOAT_SANDBOX names the root" "sandbox=$PROJ"
	expect_out "the terminal's ioctls work" 'STTY-OK'
	expect_out "/dev/tty is writable" 'TTY-OK'
	expect_no_out "no rc file was read" 0 'BASHRC-RAN|PROFILE-RAN'
	expect_no_out "no permission noise at start or exit" 0 'Permission denied|Operation not permitted|No such file'
	expect_no_out "no error lines from bash" 0 'bash: '

	interactive /bin/sh 'echo "ps1=[$PS1]"; cat "$HOME/.ssh/id_rsa"
exit 5'
	[ "$rc" -eq 5 ] && ok "interactive sh on a terminal passes its status" || { not_ok "interactive sh passes its status" && _show script; }
	expect_out "sh's prompt says moat" '\(moat\) \$ '
	expect_no_out "\$ENV (~/.shrc) was not read" 5 'SHRC-RAN'
	expect_out "and it is confined" 'id_rsa: Permission denied'
	expect_no_out "without leaking" 5 'DECOY-SSH-KEY'
else
	skip "script(1) is not installed: no pseudo-terminal tests"
fi

# A wrapped tool is usable inside a session with its shell named.
expect_ok "moat wrap a shell" "$MOAT" wrap tools --env WRAPPED=yes /usr/bin/env /usr/bin/cat
printf '%s\n' 'command -v env; env | grep "^WRAPPED="; cat "$HOME/.ssh/id_rsa"' >"$T/cmds"
SHELL=/bin/bash "$MOAT" shell tools <"$T/cmds" >"$T/.out" 2>"$T/.err"
shells=$(cd "$XDG_DATA_HOME/moat/shells" && pwd -P)
expect_out "the shell's tools come first on PATH" "^$shells/tools/bin/env\$"
expect_out "and run through the wrapper" '^WRAPPED=yes$'
expect_out "a wrapped cat is still denied ~/.ssh" 'Permission denied'
expect_no_out "without leaking" 0 'DECOY-SSH-KEY'

expect_status "an unknown option is a usage error" 2 "$MOAT" shell --bogus
expect_status "an unknown shell name is moat's failure (125)" 125 "$MOAT" shell no-such-shell

done_testing
