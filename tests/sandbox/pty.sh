#!/usr/bin/env bash
# Sessions on their own pseudo-terminal (issue 12): when any of stdin,
# stdout or stderr is a terminal, moat run and moat shell put the tool on a
# new pty and relay it to the user's, as sudo's use_pty does. Everything a
# user does at a terminal must work as without moat: window sizes, ^C, ^Z and
# fg, job control in moat shell, raw mode, password prompts on /dev/tty, and
# the exit status, death by a signal included; pipes pass through untouched.
# Driven on a real pty by tests/helpers/pty_drive.py (a keyboard with a timeout).
. "$(dirname "$0")/../lib.sh"

DRIVE=(/usr/bin/python3 "$MOAT_SRC/tests/helpers/pty_drive.py")
cp "$HELPERS/ttyprobe" "$PROJ/ttyprobe"
ulimit -c 0 # a tool (or moat) dying of SIGSEGV leaves no core behind
# The user's interactive bash, without bracketed-paste escapes in its output.
echo 'set enable-bracketed-paste off' >"$T/inputrc"
USER_SHELL=(env PS1='$ ' INPUTRC="$T/inputrc" bash --norc --noprofile -i)

# drive STEP... -- CMD...: run CMD on a new pty, as the session leader, and
# play the steps (see pty_drive.py). Output in $T/.out, status in $rc.
drive() {
	: >"$T/steps"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		printf '%s\n' "$1" >>"$T/steps"
		shift
	done
	shift
	"${DRIVE[@]}" "$T/steps" -- "$@" >"$T/.out" 2>"$T/.err" </dev/null
	rc=$?
}
# drive_ok NAME: the last drive ran to its end and CMD exited 0.
drive_ok() {
	if [ "$rc" -eq 0 ] && grep -q '^pty_drive: exited 0$' "$T/.out"; then ok "$1"; else
		not_ok "$1" && _show pty_drive; fi
}
restored() { grep -q '^pty_drive: termios icanon=1 echo=1 isig=1$' "$T/.out"; }

# --- the tool's terminal is not the user's ---------------------------------
# A terminal is named by its path and told apart by (device of its devpts
# instance, major, minor): a private devpts inside could reuse a name.
ID='echo "$(tty) $(stat -L -c %d:%t:%T /dev/stdin)"'
drive wait -- sh -c "$ID; '$MOAT' run -- sh -c '$ID'; '$MOAT' run -- ./ttyprobe devtty"
# moat's own lines (on an older kernel, what it cannot enforce) share the
# terminal with the tool's output.
outer=$(grep -v '^moat: ' "$T/.out" | sed -n 1p)
inner=$(grep -v '^moat: ' "$T/.out" | sed -n 2p)
case $outer:$inner in
/dev/pts/*:/dev/pts/*) [ "${outer#* }" != "${inner#* }" ] ;;
*) false ;;
esac && ok "moat run: the tool's terminal is a pty of its own ($inner; the user's: $outer)" ||
	{ not_ok "moat run: the tool's terminal is a pty of its own (inside: '$inner', the user's: '$outer')" && _show tty; }
[ "${outer%% *}" != "${inner%% *}" ] && ok "and its name differs from the user's" || not_ok "and its name differs from the user's"
expect_out "and it is the tool's controlling terminal (/dev/tty opens)" '^devtty: ok'
drive wait -- sh -c "'$MOAT' run -- sh -c 'echo INTO-THE-USERS-PTY >\"\$1\" && echo WROTE' sh \"\$(tty)\"; echo \"status=\$?\""
expect_no_out "moat run: the user's pty cannot be opened by its path" 0 '^WROTE$'
expect_out "(refused: status 2 from sh)" '^status=[1-9]'
drive wait -- sh -c "stat -L -c %d:%t:%T /dev/stdin; '$MOAT' run -- sh -c 'for f in /proc/[0-9]*/fd/*; do stat -L -c %d:%t:%T \"\$f\"; done 2>/dev/null | sort -u'"
outer=$(sed -n 1p "$T/.out")
n=$(sed 1d "$T/.out" | grep -cx -- "$outer")
[ -n "$outer" ] && [ "$n" -eq 0 ] && ok "moat run: no descriptor of any process inside refers to the user's pty" ||
	{ not_ok "moat run: no descriptor of any process inside refers to the user's pty ($n do)" && _show fds; }

# --- window size ------------------------------------------------------------
drive 'expect size 24 80' 'resize 30 100' 'expect winch 30 100' 'resize 50 132' 'expect winch 50 132' 'line q' \
	-- "$MOAT" run -- ./ttyprobe winch
drive_ok "moat run: the tool starts with the user's size, and resizes reach it (SIGWINCH + the new size)"

# --- ^C ---------------------------------------------------------------------
drive 'expect READY' 'send \x03' wait -- "$MOAT" run -- sh -c 'echo READY; exec sleep 30'
expect_out "moat run: ^C kills the foreground tool, and moat's caller sees the same death (SIGINT)" '^pty_drive: killed by signal 2$'
drive 'expect sigint: waiting' 'send \x03' 'expect sigint: caught' wait -- "$MOAT" run -- ./ttyprobe sigint
drive_ok "moat run: a tool that handles SIGINT gets it, and moat itself lives on to pass its status"
drive 'expect \$ $' "line '$MOAT' run -- sleep 30" 'sleep 0.5' 'send \x03' 'expect \$ $' 'line echo "after=$?"' 'expect after=' \
	'expect \$ $' 'line exit' \
	-- "${USER_SHELL[@]}"
expect_out "in the user's shell, ^C during moat run gives 130, and the shell lives on" '^after=130'

# --- ^Z and fg --------------------------------------------------------------
drive 'expect \$ $' "line '$MOAT' run -- ./ttyprobe ticks" 'expect tick 3' 'send \x1a' 'expect Stopped' 'expect \$ $' \
	'line jobs' 'expect Stopped' 'sleep 0.6' 'absent tick [0-9]' 'line fg' 'expect tick [0-9]+' 'line q' 'expect \$ $' \
	'line echo "rc=$?"' 'expect rc=' 'expect \$ $' 'line exit' -- "${USER_SHELL[@]}"
expect_out "moat run: ^Z suspends the tool and gives the user's shell its prompt back; fg resumes it" '^rc=3$'
[ "$rc" -eq 0 ] || { not_ok "(the ^Z/fg session ran to its end)" && _show ctrl-z; }
# An editor suspends itself: raw mode, ^Z read as a key, SIGTSTP to its group.
drive 'expect \$ $' "line '$MOAT' run -- ./ttyprobe raw" 'expect raw: ready' 'send a' 'expect key 61' \
	'send \x1a' 'expect Stopped' 'expect \$ $' 'line fg' 'expect raw: resumed' 'send b' 'expect key 62' 'send q' 'expect key 71' \
	'expect \$ $' \
	'line echo "rc=$?"; stty -a | tr " " "\n" | grep -x -e -icanon -e icanon -e -echo -e echo | tr "\n" " "; echo' \
	'expect rc=' 'expect \$ $' 'line exit' -- "${USER_SHELL[@]}"
expect_out "moat run: an editor in raw mode suspends itself with ^Z and, after fg, reads single keys again" 'key 62'
expect_out "and the user's terminal is cooked again after moat returns" '^rc=0 *$'
expect_out "(icanon and echo on)" '^icanon echo $'

# In the background (stderr on the terminal, job control on): the relay must
# not read or set the terminal while it is not the foreground, or the job
# stops for the terminal (SIGTTIN, SIGTTOU) and never ends. One command line:
# waiting for the prompt in between raced moat's own warnings under emulation.
drive 'expect \$ $' "line '$MOAT' run -- sh -c 'sleep 1; echo BG-DONE >&2' </dev/null >/dev/null & wait; echo \"bg=\$?\"" \
	'expect bg=' 'line exit' -- "${USER_SHELL[@]}"
expect_out "moat run in the background, stderr on the terminal, runs to its end" '^bg=0$'
expect_out "and writes to the terminal" 'BG-DONE'
expect_no_out "without being stopped for the terminal" 0 'Stopped'

# --- raw mode ---------------------------------------------------------------
drive 'expect raw: ready' 'send a' 'expect key 61' 'send \x03' 'expect key 03' 'send \x1a' 'expect key 1a' 'send q' wait termios \
	-- "$MOAT" run -- ./ttyprobe raw
drive_ok "moat run: raw mode: single keys arrive without Enter, ^C and ^Z as bytes"
restored && ok "and the user's terminal is restored after moat exits" || { not_ok "and the user's terminal is restored" && _show raw; }
drive 'expect raw-die: ready' wait termios -- ./ttyprobe raw-die
grep -q 'termios icanon=0 echo=0' "$T/.out" && ok "control: a tool killed in raw mode leaves a terminal raw" ||
	{ not_ok "control: a tool killed in raw mode leaves a terminal raw" && _show raw-die; }
drive 'expect raw-die: ready' wait termios -- "$MOAT" run -- ./ttyprobe raw-die
restored && ok "moat run: the user's terminal is restored even when the tool dies in raw mode" ||
	{ not_ok "moat run: the user's terminal is restored even when the tool dies in raw mode" && _show raw-die; }
expect_out "and moat's caller sees the tool's death (SIGKILL)" '^pty_drive: killed by signal 9$'

# --- a password prompt on /dev/tty -------------------------------------------
drive 'expect Password: ' 'line hunter2-secret' 'expect password: terces-2retnuh' wait \
	-- "$MOAT" run -- ./ttyprobe password
drive_ok "moat run: a sudo-style prompt reads the password from /dev/tty"
expect_no_out "without echoing it" 0 'hunter2-secret'
drive 'expect Password: ' 'line hunter2-secret' 'expect password: terces-2retnuh' 'expect stdin: PIPED-STDIN' wait \
	-- sh -c "echo PIPED-STDIN | '$MOAT' run -- ./ttyprobe password"
drive_ok "moat run: with stdin a pipe, the prompt still reads the terminal and stdin stays the pipe"
expect_no_out "and the password is not echoed" 0 'hunter2-secret'

# --- pipes are passed through untouched ---------------------------------------
{
	head -c 100000 /dev/urandom
	printf '\000\001\003\004\032\r\n\r\377'
	head -c 100000 /dev/urandom
} >"$T/data"
"$MOAT" run -- cat <"$T/data" >"$T/copy" 2>"$T/.err"
cmp -s "$T/data" "$T/copy" && ok "moat run without a terminal: binary stdin to stdout byte for byte" || not_ok "moat run without a terminal: binary round trip"
drive wait -- sh -c "'$MOAT' run -- cat <'$T/data' >'$T/copy2'"
cmp -s "$T/data" "$T/copy2" && ok "moat run, stderr a terminal: binary stdin to stdout byte for byte" ||
	{ not_ok "moat run, stderr a terminal: binary round trip" && _show cat; }
drive wait -- sh -c "'$MOAT' run -- cat <'$T/data' | cat >'$T/copy3'"
cmp -s "$T/data" "$T/copy3" && ok "moat run, stderr a terminal: stdout a pipe passes byte for byte" ||
	{ not_ok "moat run, stderr a terminal: stdout a pipe passes byte for byte" && _show cat; }
drive wait -- sh -c "'$MOAT' run -- printf '\\000\\001\\r\\n\\377' | od -An -tx1"
expect_out "moat run, stdin the terminal: stdout a pipe gets its bytes as written (no LF made CR LF)" '^ *00 01 0d 0a ff *$'
drive wait -- sh -c "printf '\\003\\032x\\n' | '$MOAT' run -- od -An -tx1"
expect_out "moat run: ^C and ^Z bytes on a piped stdin are data, not signals" '^ *03 1a 78 0a *$'
drive wait -- sh -c "echo x | '$MOAT' run -- sh -c '[ -p /dev/stdin ] && echo STDIN-PIPE; [ -t 1 ] && echo STDOUT-TTY; cat >/dev/null; echo EOF-SEEN'"
expect_out "moat run: the tool sees a piped stdin as a pipe" '^STDIN-PIPE$'
expect_out "and the terminal as a terminal" '^STDOUT-TTY$'
expect_out "and the pipe's end of file" '^EOF-SEEN$'
printf 'abc' | "$MOAT" run -- sh -c 'cat; echo; echo EOF-SEEN' >"$T/.out" 2>"$T/.err"
expect_out "moat run without a terminal: end of file reaches the tool" '^EOF-SEEN$'
drive 'expect READY' 'line hello' 'expect hello' 'send \x04' 'expect CAT-DONE' wait \
	-- "$MOAT" run -- sh -c 'echo READY; cat; echo CAT-DONE'
drive_ok "moat run: ^D on the terminal is end of file for the tool"

# --- exit status and death by a signal --------------------------------------
drive wait -- "$MOAT" run -- sh -c 'exit 7'
expect_out "moat run on a terminal: the tool's exit status passes through" '^pty_drive: exited 7$'
for sig in TERM:15 SEGV:11; do
	drive wait termios -- "$MOAT" run -- sh -c "kill -${sig%:*} \$\$"
	expect_out "moat run on a terminal: death by SIG${sig%:*} reaches moat's caller (WIFSIGNALED)" "^pty_drive: killed by signal ${sig#*:}\$"
	restored && ok "and the user's terminal is restored" || not_ok "and the user's terminal is restored (SIG${sig%:*})"
	run /usr/bin/python3 -c "import subprocess, sys; print('returncode', subprocess.run(sys.argv[1:]).returncode)" \
		"$MOAT" run -- sh -c "kill -${sig%:*} \$\$"
	expect_out "moat run without a terminal: death by SIG${sig%:*} reaches moat's caller" "^returncode -${sig#*:}\$"
	run bash -c "'$MOAT' run -- sh -c 'kill -${sig%:*} \$\$'; echo \"status=\$?\""
	expect_out "and bash's \$? is 128+${sig#*:}" "^status=$((128 + ${sig#*:}))\$"
done

# --- nothing outlives the session -------------------------------------------
# Left behind as a daemon would: SIGHUP ignored, off the terminal, one of
# them in a session of its own.
tag=moat-pty-leftover-$$-$RANDOM
leave="(trap '' HUP; exec -a $tag sleep 300) </dev/null >/dev/null 2>&1 &
setsid -f bash -c \"trap '' HUP; exec -a $tag-daemon sleep 300\" </dev/null >/dev/null 2>&1
sleep 0.3; echo STARTED" # (before the session leader's exit hangs up its group)
drive wait -- bash -c "$leave"
sleep 0.3
[ "$(pgrep -fc "$tag")" = 2 ] && ok "control: without moat, both outlive the terminal session" ||
	not_ok "control: without moat, both outlive the terminal session ($(pgrep -fc "$tag"))"
pkill -f "$tag"
drive wait -- "$MOAT" run -- bash -c "$leave"
grep -q '^STARTED$' "$T/.out" && [ -z "$(left_behind "$tag")" ] &&
	ok "moat run on a terminal: what the tool left behind is gone when it exits" ||
	{ not_ok "moat run on a terminal: what the tool left behind is gone when it exits" && pkill -f "$tag"; }

# --- job control inside moat shell -------------------------------------------
# A job stopped with ^Z and brought back with fg, ^C of a foreground job,
# and pipelines (a job-control shell puts every member in the group of the
# first; the second reads the terminal).
for sh in /bin/bash /bin/sh; do
	[ -x "$sh" ] || continue
	P='expect \(moat\)'
	drive "$P" 'line sleep 30' 'sleep 0.5' 'send \x1a' 'expect Stopped' "$P" 'line jobs' 'expect Stopped +sleep 30' "$P" \
		'line fg' 'sleep 0.5' 'send \x03' "$P" 'line echo "rc=$?"' 'expect rc=130' "$P" \
		'line ./ttyprobe readline | cat' 'expect readline: ready' 'line PIPE-LINE' 'expect readline: got PIPE-LINE' "$P" \
		'line sleep 30 | cat' 'sleep 0.5' 'send \x1a' 'expect Stopped' "$P" 'line fg' 'sleep 0.5' 'send \x03' "$P" \
		'line echo "rc2=$?"' 'expect rc2=130' "$P" 'send \x03' "$P" 'line echo ALIVE-$((1+1))' 'expect ALIVE-2' "$P" \
		'line exit' wait \
		-- env SHELL="$sh" "$MOAT" shell
	drive_ok "moat shell ($sh): ^Z, jobs, fg, ^C and pipelines that read the terminal all work"
	expect_no_out "with no job-control complaint" 0 'no job control|cannot set terminal process group|setpgid|Operation not permitted'
done

done_testing
