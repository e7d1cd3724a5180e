#!/usr/bin/env bash
# The sandbox and the user's other processes and terminal (issue 12).
#
# Landlock confines files, not what one process does to another of the same
# user. Sessions (moat run, moat shell) therefore run in their own PID
# namespace, session and pseudo-terminal, with a private /tmp; moat-wrapper,
# which makes no namespaces, relies on seccomp argument filters instead.
# Every attack is written as the attacker would, with a control showing it
# works without moat and a check on its proof (stolen keystrokes, a core
# file, a changed victim, a setuid file) after every attempt.
. "$(dirname "$0")/../lib.sh"

PTY=$HELPERS/pty_session
for h in xproc ttyprobe setid; do cp "$HELPERS/$h" "$PROJ/$h"; done
cp "$HELPERS/sock" "$T/sock"
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
pids=()
cleanups=()
eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'for c in \"\${cleanups[@]}\"; do eval \"\$c\"; done; kill \${pids[*]} 2>\/dev\/null; /")"

# A project-local shell whose tools go through moat-wrapper (MOAT_ROOT=$PROJ).
TOOLS=$PROJ/.tools/bin
mkdir -p "$TOOLS" "$PROJ/.tools/share/moat"
for h in xproc ttyprobe setid; do
	ln -s "$WRAPPER" "$TOOLS/$h"
	printf '%s\t%s\n' "$h" "$PROJ/$h" >>"$PROJ/.tools/share/moat/manifest"
done
ln -s "$WRAPPER" "$TOOLS/sh"
printf 'sh\t/bin/sh\n' >>"$PROJ/.tools/share/moat/manifest"
wrapped() { env MOAT_ROOT="$PROJ" "$TOOLS/$@"; }
label() { [ "$1" = run ] && echo "moat run" || echo "moat-wrapper"; }

# The victims of the process attacks belong to the same user; as root, to
# a user of their own (uid 65533, so no other test of uid 65534 is touched),
# which root in the sandbox can become (it keeps CAP_SETUID).
if is_root; then
	VUID=65533
	AS=(--as "$VUID")
	VICTIM=(setpriv --reuid="$VUID" --regid="$VUID" --clear-groups)
else
	VUID=$(id -u)
	AS=()
	VICTIM=()
fi
# start_victim [setsid]: a sleeping victim outside the sandbox; $victim is its
# pid, $victim_addr a page of its memory.
start_victim() {
	rm -f "$T/victim.out"
	"${VICTIM[@]}" ${1:+setsid} "$HELPERS/xproc" victim-sleep </dev/null >"$T/victim.out" 2>/dev/null &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$T/victim.out" ] && break; sleep 0.02; done
	read -r victim victim_addr <"$T/victim.out"
}
alive() { kill -0 "$1" 2>/dev/null; }

# --- the session is its own world: PID namespace, leftovers ----------------
start_victim
run "$MOAT" run -- sh -c "ls /proc; readlink /proc/self/ns/pid; kill -0 $victim"
outside_ns=$(readlink /proc/self/ns/pid)
grep -qx "$victim" "$T/.out" && not_ok "moat run: a process outside is not in /proc" || ok "moat run: a process outside is not in /proc"
[ "$rc" -ne 0 ] && grep -q 'No such process' "$T/.err" && ok "and kill -0 of its pid finds no such process" ||
	{ not_ok "and kill -0 of its pid finds no such process" && _show "kill -0"; }
grep -q '^pid:\[' "$T/.out" && ! grep -Fqx "$outside_ns" "$T/.out" && ok "the tool is in a PID namespace of its own" ||
	{ not_ok "the tool is in a PID namespace of its own (outside: $outside_ns)" && _show ns; }
n=$(grep -c '^[0-9][0-9]*$' "$T/.out")
[ "$n" -le 5 ] && ok "/proc inside shows only the sandbox's processes ($n)" ||
	not_ok "/proc inside shows only the sandbox's processes (it shows $n)"
expect_ok "ps works inside" "$MOAT" run -- ps -e
expect_no_out "and lists no process from outside" 0 'xproc|pty_session'

# Left behind as a daemon would: SIGHUP ignored, off the terminal, one of
# them in a session of its own.
tag=moat-leftover-$$-$RANDOM
leave() { # NAME: the bash script a tool runs to leave NAME-bg and NAME-daemon
	echo "(trap '' HUP; exec -a $1-bg sleep 300) </dev/null >/dev/null 2>&1 &
	setsid -f bash -c \"trap '' HUP; exec -a $1-daemon sleep 300\" </dev/null >/dev/null 2>&1; sleep 0.3; echo STARTED"
}
run bash -c "$(leave "$tag-control")"
sleep 0.3
[ "$(pgrep -fc "$tag-control")" = 2 ] && ok "control: without moat, both outlive the tool that started them" ||
	not_ok "control: without moat, both outlive the tool that started them ($(pgrep -fc "$tag-control"))"
pkill -f "$tag-control"
run "$MOAT" run -- bash -c "$(leave "$tag")"
expect_out "moat run: the tool started a background job and a daemon" '^STARTED$'
# gone_on_return NAME: nothing tagged is left now that moat has returned
# (no grace period); what is, is killed. moat's own processes carry the
# tag in their command line too: the session's supervisor exits just after
# moat (left_behind).
gone_on_return() {
	if [ -z "$(left_behind "$tag")" ]; then
		ok "$1"
	else
		not_ok "$1 ($(pgrep -fc "$tag") left)"
		pkill -f "$tag-spawner"
		pkill -f "$tag"
	fi
}
gone_on_return "moat run: what the tool left behind is gone once moat returns"
# One that forks as fast as it can while the session ends, so that a
# process is being born as the leftovers are killed: none may survive.
spawner() { # NAME: a loop, NAME-spawner, leaving a NAME-spawn a turn
	echo "(trap '' HUP; exec -a $1-spawner bash -c 'for i in \$(seq 3000); do (exec -a $1-spawn sleep 300 &); done') </dev/null >/dev/null 2>&1 &
	sleep 0.2; echo STARTED"
}
run bash -c "$(spawner "$tag-control")"
pgrep -f "$tag-control-spawn" >/dev/null && ok "control: without moat, a loop left behind goes on forking" ||
	not_ok "control: without moat, a loop left behind goes on forking"
pkill -f "$tag-control-spawner"
sleep 0.1
pkill -f "$tag-control-spawn"
run "$MOAT" run -- bash -c "$(spawner "$tag")"
expect_out "moat run: the tool left a loop forking behind" '^STARTED$'
gone_on_return "moat run: a loop forking as the session ends leaves nothing once moat returns"
printf '%s\n' "(trap '' HUP; exec -a $tag-shell sleep 300) </dev/null >/dev/null 2>&1 &" 'echo SHELL-BG' 'exit' >"$T/cmds"
SHELL=/bin/bash "$MOAT" shell <"$T/cmds" >"$T/.out" 2>"$T/.err"
sleep 0.3
grep -q SHELL-BG "$T/.out" && ! pgrep -f "$tag-shell" >/dev/null && ok "moat shell: a background job is gone when the shell exits" ||
	{ not_ok "moat shell: a background job is gone when the shell exits" && pkill -f "$tag-shell"; }

# --- a tool with no terminal on its descriptors has no terminal at all ------
outer_shell "300 ./ttyprobe devtty </dev/null >'$T/devtty-control' 2>&1" \
	"400 '$MOAT' run -- ./ttyprobe devtty </dev/null >'$T/devtty-run' 2>&1" \
	"600 MOAT_ROOT='$PROJ' '$TOOLS/ttyprobe' devtty </dev/null >'$T/devtty-wrapper' 2>&1" \
	"600 MOAT_ROOT='$PROJ' '$TOOLS/ttyprobe' devtty </dev/null >'$T/devtty-wrapper-tty' 2>&1 2>/dev/tty" \
	"600 exit"
grep -q '^devtty: ok' "$T/devtty-control" && ok "control: a process with no terminal on 0, 1, 2 still opens /dev/tty" ||
	not_ok "control: a process with no terminal on 0, 1, 2 still opens /dev/tty ($(cat "$T/devtty-control"))"
for how in run wrapper; do
	grep -qE '^devtty: (No such device or address|Permission denied)$' "$T/devtty-$how" &&
		ok "$(label "$how"): a tool with no terminal on 0, 1, 2 has no controlling terminal (own session)" ||
		not_ok "$(label "$how"): a tool with no terminal on 0, 1, 2 has no controlling terminal ($(cat "$T/devtty-$how"))"
done

grep -q '^devtty: ok' "$T/devtty-wrapper-tty" &&
	ok "moat-wrapper: a tool with the terminal on stderr keeps it (/dev/tty opens)" ||
	not_ok "moat-wrapper: a tool with the terminal on stderr keeps it ($(cat "$T/devtty-wrapper-tty"))"

# --- terminal hijack: a process left behind reads what the user types ------
# The user's interactive bash runs a tool that leaves ./ttyprobe behind; it
# joins the shell's process group (setpgid(0, getsid(0))) or whatever group
# is in the foreground (tcgetpgrp), or leaves the session (setsid) so that
# the terminal, no longer its controlling one, is read without job control,
# through the descriptors it inherited or by opening its path; it reads the
# terminal for 4 s. Once moat has returned, the user runs `sleep 2` and types
# the next command ahead while it runs, then a password at a `read -s`
# prompt. The typed-ahead line is what makes the control certain: the shell
# is not reading then, so a reader outside job control gets it without a
# race. The loot is a file only the attacker writes. (The last "exit" comes
# after the attacker is done, so a control shell whose first "exit" was
# stolen still ends.)
# The sessions run side by side (each mostly waits), each in files of its own.
PASSWORD=PASSWORD-SECRET-1
sessions=()
hijack() { # LABEL VARIANT COMMAND [KEYS...]: the user's COMMAND, then KEYS
	local label=$1-$2 command=$3 h
	shift 3
	h=$T/hijack-$label
	rm -f "$PROJ/loot-$label" "$PROJ/loot-$label.log" "$h".*
	# The user types on once the command has returned: on a slow machine,
	# keys typed while moat still runs are the tool's to read, and a theft
	# of those would prove nothing.
	printf '%s\n' "$command; $ECHO_RETURNED" "$@" "=8000 $RETURNED" \
		"1200 sleep 2" "300 touch '$h.ran'" \
		"2200 read -rs -p 'Password: ' pw; echo \"pwlen=\${#pw}\"" "600 $PASSWORD" "600 exit" \
		"1500 exit" "500 exit" >"$h.keys"
	env PS1='$ ' "$PTY" -t 30 -- bash --norc --noprofile -i <"$h.keys" >"$h.out" 2>&1 &
	sessions+=($!)
}
# judge LABEL: sets $loot_text (what the attacker got), $user_ran, $started,
# $returned (the user's command returned before the wait for it ran out).
judge() {
	local h=$T/hijack-$1
	cp "$h.out" "$T/.out"
	: >"$T/.err"
	loot_text=$(tr -d '\r' 2>/dev/null <"$PROJ/loot-$1" | tr '\n' ' ')
	[ -e "$h.ran" ] && user_ran=yes || user_ran=no
	grep -q 'hijack: left [0-9]* behind' "$h.out" && started=yes || started=no
	grep -q "$RETURNED" "$h.out" && returned=yes || returned=no
}
# attack_known LABEL NAME WHY: a hijack the design leaves open (docs/security.md):
# TODO while it steals, a failure once it no longer does. The attacker races
# the user's shell for what is typed, so it is tried three times side by
# side (LABEL, LABEL-2, LABEL-3): one theft shows the gap, and a lost race
# alone cannot pass for a closed one.
attack_known() {
	local stolen= label
	for label in "$1" "$1-2" "$1-3"; do
		judge "$label"
		stolen=$stolen$loot_text
	done
	known_breakage "$2" "$3" test -n "$stolen"
}
attack_fails() { # LABEL NAME
	judge "$1"
	if [ "$started" = no ]; then
		not_ok "$2 (the attacker did not even start)" && _show hijack "$1"
	elif [ "$returned" = no ]; then
		not_ok "$2 (the user's command did not return within 8 s)" && _show hijack "$1"
	elif [ -z "$loot_text" ] && [ "$user_ran" = yes ] && grep -q "pwlen=${#PASSWORD}" "$T/.out"; then
		ok "$2"
	else
		not_ok "$2 (stolen: '$loot_text'; the user's line ran: $user_ran)" &&
			sed 's/^/#   attacker: /' "$PROJ/loot-$1.log" 2>/dev/null
	fi
}
for variant in session follow setsid path; do
	hijack control "$variant" "300 ./ttyprobe hijack-$variant '$PROJ/loot-control-$variant' 4"
	hijack run "$variant" "300 '$MOAT' run -- ./ttyprobe hijack-$variant '$PROJ/loot-run-$variant' 4"
	if [ "$variant" = setsid ]; then
		# The gap left open (below): a slow machine (Debian 12's kernel
		# under emulation) must not let the user's keys come before the
		# attacker reads, or a lost race would pass for a closed gap.
		for n in "" -2 -3; do
			hijack wrapper "$variant$n" "300 MOAT_ROOT='$PROJ' '$TOOLS/ttyprobe' hijack-$variant '$PROJ/loot-wrapper-$variant$n' 6" "2500 "
		done
	else
		hijack wrapper "$variant" "300 MOAT_ROOT='$PROJ' '$TOOLS/ttyprobe' hijack-$variant '$PROJ/loot-wrapper-$variant' 4"
	fi
done
for variant in session setsid setsid-2 setsid-3; do
	# The user types "exit" ahead while `sleep 3` runs, once the attacker
	# has started: bash is not reading then, so no race decides the theft.
	# (Typed at bash's prompt, bash won all three races under emulation,
	# Debian 12's kernel as root, and a lost race passed for a closed gap.)
	hijack shell "$variant" "300 SHELL=/bin/bash '$MOAT' shell" "2000 ./ttyprobe hijack-${variant%-[23]} '$PROJ/loot-shell-$variant' 6; sleep 3" \
		"=8000 hijack: left" "1000 exit"
done
wait "${sessions[@]}"
for variant in session follow setsid path; do
	judge "control-$variant"
	if [ -z "$loot_text" ]; then
		# The attacker races the user's shell for the keys, and under
		# emulation it can lose once (Debian 12's kernel, as uid 65534):
		# a second try, alone, settles the control.
		hijack control "$variant" "300 ./ttyprobe hijack-$variant '$PROJ/loot-control-$variant' 4"
		wait "${sessions[-1]}"
		judge "control-$variant"
	fi
	[ -n "$loot_text" ] &&
		ok "control: without moat, a process left behind ($variant) steals what the user types next ('$loot_text')" ||
		{ not_ok "control: without moat, a process left behind ($variant) steals what the user types next" && _show hijack; }
	attack_fails "run-$variant" "moat run: a process left behind ($variant) gets nothing the user types after moat returns"
	if [ "$variant" = setsid ]; then
		attack_known "wrapper-$variant" "moat-wrapper: a process left behind ($variant) gets nothing the user types after the tool returns" \
			"a wrapped tool is on the user's terminal itself: after setsid() its descriptors read the terminal without job control (docs/security.md)"
	else
		attack_fails "wrapper-$variant" "moat-wrapper: a process left behind ($variant) gets nothing the user types after the tool returns"
	fi
done
# Joining the session leader's group gets a process nothing: the leader is
# moat's supervisor, whose group is never the terminal's foreground.
attack_fails "shell-session" "moat shell: a process left behind (session) gets nothing the user types after the shell exits"
attack_known "shell-setsid" "moat shell: a process left behind (setsid) gets nothing the user types after the shell exits" \
	"inside moat shell a process that leaves the session still holds the sandbox's terminal and reads what is typed into it, 'exit' too, so the session never ends (docs/security.md)"


# --- setpgid into the user's groups, asked directly -------------------------
# From a job of the user's interactive bash (its own group, the shell's
# session): joining the shell's group is what the hijack above starts with.
i386=
have_i386_gate && i386=1
outer_shell "300 ./xproc setpgid-session >'$T/spg-control' 2>&1" \
	"400 MOAT_ROOT='$PROJ' '$TOOLS/xproc' setpgid-session >'$T/spg-wrapper' 2>&1" \
	"400 MOAT_ROOT='$PROJ' '$TOOLS/xproc' setpgid \$\$ >'$T/spg-wrapper-pid' 2>&1" \
	${i386:+"400 MOAT_ROOT='$PROJ' '$TOOLS/xproc' setpgid-session-i386 >'$T/spg-wrapper-i386' 2>&1"} \
	"400 MOAT_ROOT='$PROJ' '$TOOLS/xproc' self >'$T/spg-self' 2>&1" \
	"400 MOAT_ROOT='$PROJ' '$TOOLS/xproc' child-pgid >'$T/spg-child' 2>&1" "500 exit"
grep -q '^setpgid-session: ok' "$T/spg-control" && ok "control: a job joins the process group of the user's shell" ||
	not_ok "control: a job joins the process group of the user's shell ($(cat "$T/spg-control"))"
for f in wrapper wrapper-pid ${i386:+wrapper-i386}; do
	grep -q 'setpgid: Operation not permitted' "$T/spg-$f" && ok "moat-wrapper: refused: setpgid into the user's shell's group ($f)" ||
		not_ok "moat-wrapper: refused: setpgid into the user's shell's group ($f: $(cat "$T/spg-$f"))"
done
[ -n "$i386" ] || skip "prerequisite: the i386 syscall gate faults on this machine, so the i386 twins of setpgid, prlimit64, setpriority and ioprio_set cannot be tried"
grep -q '^self: ok' "$T/spg-self" && ok "moat-wrapper: prlimit, setpriority, ioprio_set and setpgid on itself work" ||
	not_ok "moat-wrapper: prlimit, setpriority, ioprio_set and setpgid on itself work ($(cat "$T/spg-self"))"
grep -q '^child-pgid: ok' "$T/spg-child" && ok "moat-wrapper: a job-control shell's setpgid(child, child) works" ||
	not_ok "moat-wrapper: a job-control shell's setpgid(child, child) works ($(cat "$T/spg-child"))"
run "$MOAT" run -- ./xproc self
expect_out "moat run: calls on itself keep working (pid 0 and its own pid)" '^self: ok$'
run "$MOAT" run -- ./xproc threads
expect_out "moat run: threads set their own affinity and priority" '^threads: ok$'
run wrapped xproc threads
expect_out "moat-wrapper: threads set their own affinity and priority (sched_setaffinity, pthread_setaffinity_np)" '^threads: ok$'

# What these seccomp rules cannot tell apart: a classic filter compares with
# the pid and group it was built with, never the caller's own pid, so a
# child of the tool is refused calls on itself by pid, and dash's job control
# (setpgid(0, getpid()) in every job) is refused in a wrapped dash.
PIDWHY="docs/security.md: a classic seccomp filter compares with the pid it was built with, never the caller's own"
known_breakage "moat run: a child of the tool is refused prlimit/setpriority/ioprio_set on itself by its pid" "$PIDWHY" \
	sh -c "! '$MOAT' run -- ./xproc child-self >/dev/null 2>&1"
known_breakage "moat-wrapper: a child of a wrapped tool is refused prlimit/setpriority/ioprio_set on itself by its pid" "$PIDWHY" \
	sh -c "! env MOAT_ROOT='$PROJ' '$TOOLS/xproc' child-self >/dev/null 2>&1"
known_breakage "moat-wrapper: a child's setpgid(0, getpid()) (dash's job control) is refused" "$PIDWHY" \
	sh -c "! env MOAT_ROOT='$PROJ' '$TOOLS/xproc' child-pgid-dash >/dev/null 2>&1"

# ^C at the user's terminal, while a tool runs with 0, 1 and 2 redirected:
# a tool in a session of its own is out of reach of the terminal's signals.
ctrlc=$(printf '\003')
sleeper="sleep 2; touch $PROJ/survived-NAME"
outer_shell "300 sh -c '${sleeper/NAME/control}' </dev/null >/dev/null 2>&1" "500 $ctrlc" \
	"300 '$MOAT' run -- sh -c '${sleeper/NAME/run}' </dev/null >/dev/null 2>&1" "500 $ctrlc" \
	"300 MOAT_ROOT='$PROJ' '$TOOLS/sh' -c '${sleeper/NAME/wrapper}' </dev/null >/dev/null 2>&1" "500 $ctrlc" \
	"300 sh -c '${sleeper/NAME/uninterrupted}' </dev/null >/dev/null 2>&1" "2500 exit"
sleep 0.5
[ -e "$PROJ/survived-uninterrupted" ] && [ ! -e "$PROJ/survived-control" ] &&
	ok "control: ^C stops a job whose descriptors are all redirected (left alone, it leaves its file)" ||
	not_ok "control: ^C stops a job whose descriptors are all redirected (left alone, it leaves its file)"
[ ! -e "$PROJ/survived-run" ] && ok "moat run: ^C stops the tool when none of 0, 1, 2 is the terminal" ||
	not_ok "moat run: ^C stops the tool when none of 0, 1, 2 is the terminal (it ran on)"
[ ! -e "$PROJ/survived-wrapper" ] &&
	ok "moat-wrapper: ^C stops a wrapped tool none of whose 0, 1, 2 is the terminal (it left the terminal with TIOCNOTTY, not its job)" ||
	not_ok "moat-wrapper: ^C stops a wrapped tool none of whose 0, 1, 2 is the terminal (it ran on)"

# --- killing and starving processes outside --------------------------------
# The victims run from a directory every user can read (the checkout may not be).
VDIR=$(mktemp -d /tmp/moat-victim.XXXXXX)
cleanups+=("rm -rf '$VDIR'")
cp "$HELPERS/xproc" "$VDIR/xproc"
chmod 755 "$VDIR" "$VDIR/xproc"
# start_victim [setsid]: a sleeping victim outside the sandbox; $victim is its
# pid (and, with setsid, its process group), $victim_addr a page of its memory.
start_victim() {
	rm -f "$T/victim.out"
	"${VICTIM[@]}" ${1:+setsid} "$VDIR/xproc" victim-sleep </dev/null >"$T/victim.out" 2>/dev/null &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$T/victim.out" ] && break; sleep 0.02; done
	read -r victim victim_addr <"$T/victim.out"
}
nice_of() { awk '{print "nice=" $19}' "/proc/$1/stat"; }
policy_of() { awk '{print "policy=" $41}' "/proc/$1/stat"; }
cpus_of() { grep Cpus_allowed_list "/proc/$1/status" | tr -d '\t'; }
ioprio_of() { "$HELPERS/xproc" ioprio-get "$1" | sed 's/.*ok/class/'; }
cpulimit_of() { grep 'Max cpu time' "/proc/$1/limits" | tr -s ' '; }
corelimit_of() { grep 'Max core file size' "/proc/$1/limits" | tr -s ' '; }

# attack NAME CHECK MODE [ARG] [gap]: CHECK prints a victim's state; MODE
# (on ARG, VICTIM standing for the victim's pid) changes it unconfined (the
# control) but neither through moat run nor through moat-wrapper, which must
# fail too. With "gap", the wrapper's result is a known breakage.
victim_setsid=
attack() {
	local name=$1 check=$2 mode=$3 arg=${4:-VICTIM} gap=${5:-} how before after
	start_victim $victim_setsid
	before=$($check "$victim")
	run ./xproc "${AS[@]}" "$mode" "${arg//VICTIM/$victim}"
	after=$($check "$victim")
	[ "$rc" -eq 0 ] && [ "$before" != "$after" ] && ok "control: $name changes an outside process ($before -> $after)" ||
		{ not_ok "control: $name changes an outside process ($before -> $after)" && _show "$mode"; }
	kill "$victim"
	start_victim $victim_setsid
	for how in run wrapper; do
		before=$($check "$victim")
		if [ "$how" = run ]; then run "$MOAT" run -- ./xproc "${AS[@]}" "$mode" "${arg//VICTIM/$victim}"; else
			run wrapped xproc "${AS[@]}" "$mode" "${arg//VICTIM/$victim}"; fi
		after=$($check "$victim")
		if [ "$how" = wrapper ] && [ -n "$gap" ]; then
			known_breakage "moat-wrapper: $name still reaches an outside process" \
				"docs/security.md: a wrapped tool has no PID namespace, and seccomp does not filter this call" \
				test "$before" != "$after"
		elif [ "$rc" -ne 0 ] && [ "$before" = "$after" ]; then
			ok "$(label "$how"): refused: $name ($(sed 's/.*: //' "$T/.err" | head -1))"
		else
			not_ok "$(label "$how"): refused: $name ($before -> $after)" && _show "$how" "$mode"
		fi
		if [ "$before" != "$after" ]; then # a fresh victim for the next attempt
			kill "$victim"
			start_victim $victim_setsid
		fi
	done
	kill "$victim"
}
attack "setpriority(PRIO_PROCESS) to nice 19" nice_of nice
attack "ioprio_set(IOPRIO_WHO_PROCESS) to the idle class" ioprio_of ioprio
attack "prlimit64(RLIMIT_CPU 1 s hard), the kernel's own SIGKILL" cpulimit_of prlimit-kill
attack "sched_setscheduler(SCHED_IDLE)" policy_of sched-idle VICTIM gap
attack "sched_setaffinity to one CPU" cpus_of affinity VICTIM gap
victim_setsid=1
attack "setpriority(PRIO_PGRP) to nice 19" nice_of nice-pgrp
attack "ioprio_set(IOPRIO_WHO_PGRP) to the idle class" ioprio_of ioprio-pgrp
victim_setsid=
if is_root; then
	# Every process of the victim's user at once: uid 65533 is the victims' own.
	attack "setpriority(PRIO_USER) to nice 19" nice_of nice-user "$VUID"
	attack "ioprio_set(IOPRIO_WHO_USER) to the idle class" ioprio_of ioprio-user "$VUID"
else
	skip "prerequisite: PRIO_USER/IOPRIO_WHO_USER are tried as root only, on a victim user of their own (here they would renice this very test)"
fi
if [ -n "$i386" ]; then
	for mode in nice ioprio prlimit-kill; do
		check=nice_of
		[ "$mode" = ioprio ] && check=ioprio_of
		[ "$mode" = prlimit-kill ] && check=cpulimit_of
		attack "$mode through the i386 gate" "$check" "$mode-i386"
	done
fi

# The CPU limit really kills: a busy victim dies of SIGKILL about a second later.
"${VICTIM[@]}" "$VDIR/xproc" victim BUSY </dev/null >/dev/null 2>&1 &
busy=$!
pids+=("$busy")
sleep 0.1
run ./xproc "${AS[@]}" prlimit-kill "$busy"
# A second of CPU can take many seconds on a loaded machine; one still
# alive after 20 s is killed here, so the test cannot hang on it.
for _ in $(seq 200); do alive "$busy" || break; sleep 0.1; done
if alive "$busy"; then
	kill -KILL "$busy" && wait "$busy" 2>/dev/null
	st="still running after 20 s"
else
	wait "$busy" 2>/dev/null
	st=$?
fi
[ "$st" = 137 ] && ok "control: with that CPU limit the kernel SIGKILLs a busy outside process" ||
	not_ok "control: with that CPU limit the kernel SIGKILLs a busy outside process (status: $st)"

# As root, the sandbox may become another user (CAP_SETUID is kept) and
# signal that user's processes; the signal scope (Landlock ABI 6) and the
# PID namespace must still keep it in.
if is_root; then
	start_victim
	run ./xproc "${AS[@]}" kill "$victim"
	sleep 0.2
	! alive "$victim" && ok "control: root, as uid $VUID, kills that user's process" || not_ok "control: root, as uid $VUID, kills that user's process"
	for how in run wrapper; do
		start_victim
		if [ "$how" = wrapper ] && [ "$("$HELPERS/landlock_abi")" -lt 6 ]; then
			# No signal scope below ABI 6 and no PID namespace for a wrapped
			# tool: docs/security.md, "Signals on ABI < 6, from wrapped tools".
			kill_as_other() {
				run wrapped xproc "${AS[@]}" kill "$victim"
				sleep 0.2
				! alive "$victim"
			}
			known_breakage "$(label "$how"): setuid to uid $VUID, then kill its outside process" \
				"no signal scope below Landlock ABI 6 for a wrapped tool (docs/security.md)" kill_as_other
			kill "$victim" 2>/dev/null
			continue
		fi
		if [ "$how" = run ]; then run "$MOAT" run -- ./xproc "${AS[@]}" kill "$victim"; else
			run wrapped xproc "${AS[@]}" kill "$victim"; fi
		sleep 0.2
		[ "$rc" -ne 0 ] && alive "$victim" && ok "$(label "$how"): refused: setuid to uid $VUID, then kill its outside process" ||
			{ not_ok "$(label "$how"): refused: setuid to uid $VUID, then kill its outside process" && _show "$how" kill; }
		kill "$victim" 2>/dev/null
	done
else
	skip "prerequisite: setuid to another user and kill its process needs root"
fi

# --- reading another process's memory: a core dump in the project ---------
# A busy process of the user (a dev server) whose cwd is the project holds a
# key. Raising its core limit and giving it a 1 s CPU limit makes the kernel
# dump it (SIGXCPU) where the sandbox reads it.
pattern=$(cat /proc/sys/kernel/core_pattern)
cores=
case $pattern in
/* | \|*)
	if is_root && [ -w /proc/sys/kernel/core_pattern ]; then
		echo core >/proc/sys/kernel/core_pattern && cores=1
		cleanups+=("echo '$pattern' >/proc/sys/kernel/core_pattern")
	fi
	;;
*) cores=1 ;;
esac
[ "$(ulimit -Hc)" = 0 ] && cores=
# core_attack LABEL [MOAT...]: $cored is yes when a core holding the key appeared.
core_attack() {
	local label=$1 dir=$PROJ/victim-$1 key=CORE-DECOY-KEY-$1-$$ v
	shift
	mkdir -p "$dir"
	(cd "$dir" && ulimit -S -c 0 && exec "$HELPERS/xproc" victim "$key") </dev/null >"$T/core-victim" 2>&1 &
	v=$!
	pids+=("$v")
	for _ in $(seq 100); do [ -s "$T/core-victim" ] && break; sleep 0.02; done
	local before
	before=$(corelimit_of "$v")
	if [ $# -eq 0 ]; then run ./xproc prlimit-core "$v"; else run "$@" prlimit-core "$v"; fi
	core_limit_changed=no
	[ "$before" != "$(corelimit_of "$v" 2>/dev/null)" ] && core_limit_changed=yes
	if [ "$core_limit_changed" = yes ]; then
		for _ in $(seq 50); do alive "$v" || break; sleep 0.1; done
	else
		sleep 1.2 # it would take a second of CPU
	fi
	kill -KILL "$v" 2>/dev/null
	wait "$v" 2>/dev/null
	cored=no
	grep -lqa "$key" "$dir"/core* 2>/dev/null && cored=yes
}
if [ -n "$cores" ]; then
	core_attack control
	if [ "$cored" = yes ]; then
		run "$MOAT" run -- sh -c 'grep -ac CORE-DECOY-KEY victim-control/core*'
		ok "control: unconfined, the victim dumps a core holding its key into the project (readable inside: $out)"
	else
		not_ok "control: unconfined, the victim dumps a core holding its key into the project" && _show control
	fi
	core_attack run "$MOAT" run -- ./xproc
	[ "$cored" = no ] && [ "$core_limit_changed" = no ] && [ "$rc" -ne 0 ] &&
		ok "moat run: refused: prlimit64 on an outside process; no core, no key" ||
		{ not_ok "moat run: refused: prlimit64 on an outside process (core: $cored, limit changed: $core_limit_changed)" && _show run; }
	core_attack wrapper env MOAT_ROOT="$PROJ" "$TOOLS/xproc"
	[ "$cored" = no ] && [ "$core_limit_changed" = no ] && grep -q 'Operation not permitted' "$T/.err" &&
		ok "moat-wrapper: refused (EPERM): prlimit64 on an outside process; no core, no key" ||
		{ not_ok "moat-wrapper: refused (EPERM): prlimit64 on an outside process (core: $cored, limit changed: $core_limit_changed)" && _show wrapper; }
	# A sandboxed process crashing where it may not write: no core there.
	mkdir -p "$T/outside-core"
	run ./xproc chdir-core "$T/outside-core" CHDIR-CORE-KEY
	ls "$T/outside-core"/core* >/dev/null 2>&1 && ok "control: a crash after chdir leaves a core in that directory" ||
		{ not_ok "control: a crash after chdir leaves a core in that directory" && _show chdir-core; }
	rm -f "$T/outside-core"/core*
	for how in run wrapper; do
		if [ "$how" = run ]; then run "$MOAT" run -- ./xproc chdir-core "$T/outside-core" CHDIR-CORE-KEY; else
			run wrapped xproc chdir-core "$T/outside-core" CHDIR-CORE-KEY; fi
		! ls "$T/outside-core"/core* >/dev/null 2>&1 && grep -q 'dumping in' "$T/.out" &&
			ok "$(label "$how"): a crash after chdir outside the root leaves no core there" ||
			{ not_ok "$(label "$how"): a crash after chdir outside the root leaves no core there" && _show "$how"; }
		rm -f "$T/outside-core"/core*
	done
else
	skip "prerequisite: core_pattern is '$pattern' (not a file in the cwd) and cannot be set here, or core dumps are off"
fi


# --- set-id files made at creation -----------------------------------------
# chmod's set-id bits are refused already; these calls take a mode too. As
# root the file is root's: run by uid 65534 it must not become euid 0.
# setid_made FILE: "setuid-root" when FILE has a set-id bit and, run by
# 65534 (as root), shows euid or egid 0; "setid" when it has the bit, or had
# it when made (the last run's "mode=" line: a writer without CAP_FSETID
# clears the bit again when it copies the program in); else "no".
if is_root; then
	chmod o+x "$T" "$HOME" "$PROJ"
fi
setid_made() {
	if [ -e "$1" ] && { [ -u "$1" ] || [ -g "$1" ]; }; then
		if is_root && [ "$("${NOBODY[@]}" "$1" -u 2>/dev/null)$("${NOBODY[@]}" "$1" -g 2>/dev/null)" != 6553465534 ]; then
			echo setuid-root
		else
			echo setid
		fi
	elif grep -qE 'ok mode=[2467][0-7]{3}$' "$T/.out"; then
		echo setid
	else
		echo no
	fi
}
ways="open openat creat mknod mknodat openat2 o_tmpfile"
[ -n "$i386" ] && ways="$ways open-i386 openat-i386 creat-i386 mknod-i386 mknodat-i386"
want_made=setid
is_root && want_made=setuid-root
for way in $ways; do
	run ./setid "$way" "$PROJ/ctl-$way"
	made=$(setid_made "$PROJ/ctl-$way")
	[ "$made" = "$want_made" ] && ok "control: $way(04755) makes a $made file ($(sed 's/.*ok //' "$T/.out"))" ||
		{ not_ok "control: $way(04755) makes a $want_made file (got: $made)" && _show "$way"; }
	for how in run wrapper; do
		f=$PROJ/$how-$way
		if [ "$how" = run ]; then run "$MOAT" run -- ./setid "$way" "$f"; else run wrapped setid "$way" "$f"; fi
		made=$(setid_made "$f")
		why='Operation not permitted'
		[ "$way" = openat2 ] && why='Function not implemented'
		[ "$rc" -ne 0 ] && [ "$made" = no ] && grep -q "$why" "$T/.err" &&
			ok "$(label "$how"): refused: $way with mode 04755 ($why)" ||
			{ not_ok "$(label "$how"): refused: $way with mode 04755 (made: $made)" && _show "$how" "$way"; }
	done
done
run ./setid open "$PROJ/ctl-setgid" 02755
[ "$(setid_made "$PROJ/ctl-setgid")" = "$want_made" ] && ok "control: open(02755) makes a setgid file" ||
	{ not_ok "control: open(02755) makes a setgid file" && _show setgid; }
run "$MOAT" run -- ./setid open "$PROJ/run-setgid" 02755
[ "$rc" -ne 0 ] && [ "$(setid_made "$PROJ/run-setgid")" = no ] && ok "moat run: refused: open with mode 02755" ||
	{ not_ok "moat run: refused: open with mode 02755" && _show setgid; }
[ -n "$i386" ] || skip "prerequisite: no i386 gate here, so open/openat/creat/mknod/mknodat with a set-id mode through it cannot be tried"

# What keeps working: plain modes, and the tools that create files.
run "$MOAT" run -- ./setid open plain-open 0755
expect_out "moat run: open(O_CREAT, 0755) works" '^open: ok mode=0755$'
run wrapped setid mknod plain-mknod 0644
expect_out "moat-wrapper: mknod(S_IFREG|0644) works" '^mknod: ok mode=0644$'
run ./setid openat2-read /etc/hostname
expect_out "control: openat2 works unconfined" '^openat2-read: ok$'
run "$MOAT" run -- ./setid openat2-read /etc/hostname
expect_out "moat run: openat2 is answered ENOSYS (its mode cannot be inspected), so glibc falls back" 'Function not implemented'
printf '#include <stdio.h>\nint main(void) { puts("HELLO-FROM-GCC"); return 0; }\n' >"$PROJ/hello.c"
mkdir -p "$T/tarsrc/d" && echo TARRED >"$T/tarsrc/d/f" && chmod 755 "$T/tarsrc/d/f"
tar -C "$T/tarsrc" -cf "$PROJ/plain.tar" d
run "$MOAT" run -- sh -c 'mkdir -p untar && tar -C untar -xf plain.tar && cat untar/d/f &&
	cp /usr/bin/id ./id-copy && ./id-copy -u >/dev/null && echo CP-OK &&
	install -m 0755 hello.c ./installed && test -x installed && echo INSTALL-OK &&
	/usr/bin/python3 -c "open(\"py-out\", \"w\").write(\"x\"); print(\"PY-WRITE-OK\")"'
expect_out "moat run: tar x works" '^TARRED$'
expect_out "moat run: cp works" '^CP-OK$'
expect_out "moat run: install -m 0755 works" '^INSTALL-OK$'
expect_out "moat run: python file writes work" '^PY-WRITE-OK$'
if command -v gcc >/dev/null; then
	run "$MOAT" run -- sh -c 'gcc -o hello hello.c && ./hello'
	expect_out "moat run: gcc writes its output and it runs" '^HELLO-FROM-GCC$'
else
	skip "prerequisite: no gcc"
fi

# --- a private /tmp in sessions --------------------------------------------
# The host's /tmp holds $TMPDECOY; inside, /tmp and /var/tmp are empty
# tmpfs (apart from the way to a root that lies under /tmp, as here).
decoy=${TMPDECOY##*/}
run "$MOAT" run -- sh -c 'ls -A /tmp && echo LS-OK'
expect_out "moat run: /tmp can be listed inside" '^LS-OK$'
expect_no_out "and the host's decoy is not there" 0 "$decoy"
# What may show: the first step of the way to each path of the profile under
# /tmp (the root, a shell, moat-wrapper), which stay where they are.
"$MOAT" profile 2>/dev/null | awk '{print $1}' | sed -n 's|^/tmp/\([^/]*\).*|\1|p' | sort -u >"$T/tmp-ways"
cp "$T/.out" "$T/tmp-listing"
extra=$(grep -vx -e LS-OK -f "$T/tmp-ways" "$T/tmp-listing" | tr '\n' ' ')
[ "$rc" -eq 0 ] && [ -z "$extra" ] && ok "moat run: /tmp inside is empty but for the way to the profile's paths ($(tr '\n' ' ' <"$T/tmp-ways"))" ||
	not_ok "moat run: /tmp inside is empty but for the way to the profile's paths (status $rc, also: $extra)"
run "$MOAT" run -- cat "$TMPDECOY"
expect_out "moat run: the decoy's path does not exist inside (a tmpfs, not a denial)" 'No such file or directory'
expect_no_out "and its content never shows" failed 'TMP-DECOY'
inside=moat-inside-$$-$RANDOM
run "$MOAT" run -- sh -c "echo IN >/tmp/$inside && cat /tmp/$inside && echo IN >/var/tmp/$inside && cat /var/tmp/$inside"
[ "$rc" -eq 0 ] && [ "$(grep -c '^IN$' "$T/.out")" = 2 ] && ok "moat run: /tmp and /var/tmp are writable inside" ||
	{ not_ok "moat run: /tmp and /var/tmp are writable inside" && _show tmp-write; }
[ ! -e "/tmp/$inside" ] && [ ! -e "/var/tmp/$inside" ] && ok "and nothing written there appears on the host" ||
	{ not_ok "and nothing written there appears on the host" && rm -f "/tmp/$inside" "/var/tmp/$inside"; }
printf '%s\n' "ls -A /tmp; cat '$TMPDECOY'; echo SHELL-IN >/tmp/$inside-shell && cat /tmp/$inside-shell" | SHELL=/bin/sh "$MOAT" shell >"$T/.out" 2>"$T/.err"
grep -q '^SHELL-IN$' "$T/.out" && ! grep -q "$decoy" "$T/.out" && [ ! -e "/tmp/$inside-shell" ] &&
	ok "moat shell: its own /tmp, writable, without the host's decoy" ||
	{ not_ok "moat shell: its own /tmp, writable, without the host's decoy" && rm -f "/tmp/$inside-shell" && _show shell; }
run env -u TMPDIR "$MOAT" run -- sh -c 'unset TMPDIR; ./setid tmpfile; f=$(mktemp) && echo "$f" && test -f "$f" && echo MKTEMP-OK;
	/usr/bin/python3 -c "import tempfile; print(\"gettempdir=\" + tempfile.gettempdir()); f = tempfile.NamedTemporaryFile(); f.write(b\"x\"); f.flush(); print(\"PY-TMP-OK\")"'
expect_out "moat run: glibc tmpfile() works (it ignores TMPDIR)" '^tmpfile: ok$'
expect_out "moat run: mktemp with TMPDIR unset works, in /tmp" '^MKTEMP-OK$'
expect_out "moat run: python's tempfile with TMPDIR unset uses /tmp" '^gettempdir=/tmp$'
expect_out "and writes there" '^PY-TMP-OK$'
lua=$(command -v lua lua5.4 lua5.3 lua5.2 lua5.1 luajit 2>/dev/null | head -1)
if [ -n "$lua" ]; then
	run "$MOAT" run -- "$lua" -e 'local n = os.tmpname(); local f = assert(io.open(n, "w")); f:write("x"); f:close(); print("LUA-TMP-OK " .. n)'
	expect_out "moat run: Lua's os.tmpname() works" '^LUA-TMP-OK /tmp/'
else
	skip "prerequisite: no lua installed, so os.tmpname() cannot be tried"
fi
run "$MOAT" profile
expect_out "moat profile shows the private /tmp" '^/tmp +.*private'
expect_out "and the private /var/tmp" '^/var/tmp +.*private'
# A root and a grant that themselves lie under /tmp keep working.
troot=$(mktemp -d /tmp/moat-iso-root.XXXXXX)
tgrant=$(mktemp -d /tmp/moat-iso-grant.XXXXXX)
cleanups+=("rm -rf '$troot' '$tgrant'")
echo GRANTED-UNDER-TMP >"$tgrant/data"
"$MOAT" allow '*' "$tgrant" >/dev/null 2>&1
run sh -c "cd '$troot' && '$MOAT' run -- sh -c 'echo ROOT-UNDER-TMP >f && cat f && cat \"$tgrant/data\"'"
expect_out "a root under /tmp stays the root inside" '^ROOT-UNDER-TMP$'
[ -f "$troot/f" ] && ok "and its files land on the host" || not_ok "and its files land on the host"
expect_out "a grant under /tmp stays readable" '^GRANTED-UNDER-TMP$'
"$MOAT" unallow '*' "$tgrant" >/dev/null 2>&1

# --- shared system directories are no root ----------------------------------
# HOME (and moat's own state) is elsewhere here, so the refusal is not the one
# for HOME's ancestors or for config.zon inside the root.
NOHOME=/nonexistent-moat-home-$$
nohome() { env -u XDG_CONFIG_HOME -u XDG_STATE_HOME -u XDG_DATA_HOME HOME=$NOHOME "$@"; }
shared_root() { # DIR
	local d=$1 had=no
	[ -e "$d/.moat" ] && had=yes
	run nohome sh -c "cd '$d' && '$MOAT' run -- true"
	if [ "$rc" -eq 125 ] && grep -q "refusing to use '$d' as the sandbox root" "$T/.err" &&
		{ [ "$d" = / ] || ! grep -q 'home directory' "$T/.err"; }; then
		ok "moat run in $d is refused (125)"
	else
		not_ok "moat run in $d is refused (125, \"refusing to use '$d' as the sandbox root\")" && _show "cd $d && moat run"
	fi
	run nohome MOAT_ROOT="$d" "$TOOLS/xproc" self
	if [ "$rc" -eq 125 ] && grep -q "refusing to use '$d' as the sandbox root" "$T/.err" && ! grep -q 'self: ok' "$T/.out"; then
		ok "moat-wrapper with MOAT_ROOT=$d is refused (125)"
	else
		not_ok "moat-wrapper with MOAT_ROOT=$d is refused (125)" && _show "MOAT_ROOT=$d"
	fi
	if [ "$had" = no ] && [ -e "$d/.moat" ]; then
		rm -rf "$d/.moat"
		not_ok "nothing is created in $d (a $d/.moat appeared, removed again)"
	elif [ "$d" = /tmp ]; then
		[ "$had" = no ] && ok "cd /tmp && moat run creates no /tmp/.moat" ||
			skip "cannot tell whether /tmp/.moat is created: one exists already"
	fi
}
for d in / /tmp /var/tmp /dev/shm /etc /usr /usr/local /usr/share /var /opt /srv /run /run/lock /mnt /media \
	/proc /sys /boot /nix /nix/store /home; do
	if [ -d "$d" ]; then shared_root "$d"; else skip "prerequisite: no $d on this machine"; fi
done
# Project directories below them stay roots.
accepted() { # DIR
	run nohome sh -c "cd '$1' && '$MOAT' run -- sh -c 'echo ACCEPTED >f && cat f'"
	[ "$rc" -eq 0 ] && grep -q '^ACCEPTED$' "$T/.out" && [ -f "$1/f" ] && ok "a project in $1 is accepted" ||
		{ not_ok "a project in $1 is accepted" && _show "cd $1"; }
}
accepted "$troot"
if is_root; then
	for base in /opt /srv /var/lib; do
		[ -d "$base" ] || continue
		d=$(mktemp -d "$base/moat-iso.XXXXXX" 2>/dev/null) ||
			{ skip "prerequisite: $base is not writable here"; continue; }
		cleanups+=("rm -rf '$d'")
		[ "$base" = /srv ] && mkdir -p "$d/www/app" && d=$d/www/app
		accepted "$d"
	done
else
	skip "prerequisite: making a project under /opt, /srv and /var/lib needs root"
fi

# --- regressions: what must stay blocked ------------------------------------
# A datagram socketpair end, its peer closed, re-pointed at a socket outside.
"$T/sock" serve-dgram "$T/repoint.sock" >"$T/repoint.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$T/repoint.log" 2>/dev/null && break; sleep 0.05; done
run ./xproc repoint dgram "$T/repoint.sock"
sleep 0.1
grep -q MESSAGE-FROM-SANDBOX "$T/repoint.log" && ok "control: a datagram socketpair end, its peer closed, reaches a socket outside" ||
	{ not_ok "control: a datagram socketpair end, its peer closed, reaches a socket outside" && _show repoint; }
for how in run wrapper; do
	: >"$T/repoint.log"
	if [ "$how" = run ]; then run "$MOAT" run -- ./xproc repoint dgram "$T/repoint.sock"; else
		run wrapped xproc repoint dgram "$T/repoint.sock"; fi
	sleep 0.1
	[ "$rc" -ne 0 ] && ! grep -q MESSAGE-FROM-SANDBOX "$T/repoint.log" &&
		ok "$(label "$how"): refused: re-pointing a socketpair end after its peer closed" ||
		{ not_ok "$(label "$how"): refused: re-pointing a socketpair end after its peer closed" && _show "$how" repoint; }
done

# regress NAME same|userns|root-only MODE [ADDR]: xproc MODE on an outside
# victim (in a user namespace of its own with userns) works unconfined and
# fails through moat run and moat-wrapper. root-only: the control needs
# CAP_SYS_NICE, so it runs as root itself.
regress() {
	local name=$1 kind=$2 mode=$3 how as=("${AS[@]}")
	if [ "$kind" = userns ]; then
		rm -f "$T/victim.out"
		"${VICTIM[@]}" unshare -U "$VDIR/xproc" victim-sleep </dev/null >"$T/victim.out" 2>/dev/null &
		pids+=($!)
		for _ in $(seq 100); do [ -s "$T/victim.out" ] && break; sleep 0.02; done
		read -r victim victim_addr <"$T/victim.out"
	else
		start_victim
	fi
	[ "$kind" = root-only ] && as=()
	local args=("$mode" "$victim")
	[ "${4:-}" = ADDR ] && args+=("$victim_addr")
	run ./xproc "${as[@]}" "${args[@]}"
	if [ "$kind" = root-only ] && ! is_root; then
		skip "prerequisite: $name needs CAP_SYS_NICE even unconfined ($(cat "$T/.err"))"
		kill "$victim"
		return
	fi
	grep -q "^$mode: ok" "$T/.out" && ok "control: $name on an outside process works unconfined" ||
		{ not_ok "control: $name on an outside process works unconfined" && _show "$mode"; }
	for how in run wrapper; do
		if [ "$how" = run ]; then run "$MOAT" run -- ./xproc "${as[@]}" "${args[@]}"; else
			run wrapped xproc "${as[@]}" "${args[@]}"; fi
		[ "$rc" -ne 0 ] && ! grep -q "^$mode: ok" "$T/.out" &&
			ok "$(label "$how"): refused: $name on an outside process ($(sed 's/.*: //' "$T/.err" | head -1))" ||
			{ not_ok "$(label "$how"): refused: $name on an outside process" && _show "$how" "$mode"; }
	done
	kill "$victim"
}
regress kcmp same kcmp
regress "process_madvise(MADV_COLD)" root-only madvise ADDR
regress "move_pages (where its memory is)" same move_pages ADDR
if unshare -U true 2>/dev/null; then
	regress "setns into its user namespace (/proc/PID/ns/user)" userns setns
	regress "setns into its user namespace (pidfd)" userns setns-pidfd
else
	skip "prerequisite: user namespaces are not available to $(id -un), so no victim has one to join"
fi

# /proc/PID files an owner may write: the OOM killer's choice, what a core holds.
for f in oom_score_adj:500 coredump_filter:0x3f; do
	file=${f%%:*} value=${f#*:}
	start_victim
	before=$(cat "/proc/$victim/$file")
	run "${VICTIM[@]}" sh -c "echo $value >/proc/$victim/$file"
	[ "$(cat "/proc/$victim/$file")" != "$before" ] && ok "control: writing /proc/PID/$file of an outside process works" ||
		{ not_ok "control: writing /proc/PID/$file of an outside process works" && _show "$file"; }
	kill "$victim"
	for how in run wrapper; do
		start_victim
		before=$(cat "/proc/$victim/$file")
		if [ "$how" = run ]; then run "$MOAT" run -- sh -c "echo $value >/proc/$victim/$file"; else
			run wrapped sh -c "echo $value >/proc/$victim/$file"; fi
		[ "$rc" -ne 0 ] && [ "$(cat "/proc/$victim/$file")" = "$before" ] &&
			ok "$(label "$how"): refused: writing /proc/PID/$file of an outside process" ||
			{ not_ok "$(label "$how"): refused: writing /proc/PID/$file of an outside process" && _show "$how" "$file"; }
		kill "$victim"
	done
done

# The user's POSIX message queues: mq_open opens the queue on the IPC
# namespace's internal mount, where Landlock judges it like any file; a
# session also has an IPC namespace of its own.
mq=moat-iso-$$
if "$HELPERS/xproc" mq-send "$mq" MQ-SECRET >/dev/null 2>&1; then
	cleanups+=("'$HELPERS/xproc' mq-unlink '$mq' >/dev/null 2>&1")
	run ./xproc mq-read "$mq"
	expect_out "control: the user's message queue is readable unconfined" 'mq-read: ok MQ-SECRET'
	"$HELPERS/xproc" mq-send "$mq" MQ-SECRET >/dev/null 2>&1
	for how in run wrapper; do
		if [ "$how" = run ]; then run "$MOAT" run -- ./xproc mq-read "$mq"; else run wrapped xproc mq-read "$mq"; fi
		[ "$rc" -ne 0 ] && ! grep -q MQ-SECRET "$T/.out" && ok "$(label "$how"): refused: the user's POSIX message queue" ||
			{ not_ok "$(label "$how"): refused: the user's POSIX message queue" && _show "$how" mq; }
	done
	run "$MOAT" run -- sh -c 'ls -A /dev/mqueue 2>&1'
	expect_no_out "moat run: and /dev/mqueue inside does not list it" ran "$mq"
else
	skip "prerequisite: no POSIX message queues here"
fi

# Mounts from a user namespace made inside: the key bound or moved into view.
cat >"$PROJ/mounts.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def check(r, what):
    if r < 0:
        print(f"{what}: {os.strerror(ctypes.get_errno())}"); sys.exit(1)
    return r
check(libc.unshare(0x10000000 | 0x00020000), "unshare")  # CLONE_NEWUSER | CLONE_NEWNS
key_dir = (os.environ["HOME"] + "/.ssh").encode()
if sys.argv[1] == "move_mount":  # open_tree(OPEN_TREE_CLONE|AT_RECURSIVE) + move_mount onto mnt
    fd = check(libc.syscall(428, -100, key_dir, 1 | 0x8000 | 0x80000), "open_tree")
    check(libc.syscall(429, fd, b"", -100, b"mnt", 4), "move_mount")  # MOVE_MOUNT_F_EMPTY_PATH
    print(open("mnt/id_rsa").read().strip())
elif sys.argv[1] == "fsmount":  # a new tmpfs attached with move_mount
    fs = check(libc.syscall(430, b"tmpfs", 1), "fsopen")
    check(libc.syscall(431, fs, 6, None, None, 0), "fsconfig")  # FSCONFIG_CMD_CREATE
    m = check(libc.syscall(432, fs, 1, 0), "fsmount")
    check(libc.syscall(429, m, b"", -100, b"mnt", 4), "move_mount")
    print("MOUNTED")
PY
mkdir -p "$PROJ/mnt"
if unshare -Urm true 2>/dev/null; then
	run unshare -Urm sh -c "mount --bind '$HOME/.ssh' mnt && cat mnt/id_rsa"
	expect_out "control: unshare -Urm + mount --bind shows the key unconfined" DECOY-SSH-KEY
	run "$MOAT" run -- unshare -Urm sh -c "mount --bind '$HOME/.ssh' mnt && cat mnt/id_rsa"
	[ "$rc" -ne 0 ] && ! grep -q DECOY-SSH-KEY "$T/.out" && ok "moat run: refused: unshare -Urm + mount --bind" ||
		{ not_ok "moat run: refused: unshare -Urm + mount --bind" && _show unshare; }
	for m in move_mount fsmount; do
		run /usr/bin/python3 mounts.py "$m"
		grep -qE 'DECOY-SSH-KEY|MOUNTED' "$T/.out" && ok "control: $m from a new user namespace works unconfined" ||
			{ not_ok "control: $m from a new user namespace works unconfined" && _show "$m"; }
		for how in run wrapper; do
			if [ "$how" = run ]; then run "$MOAT" run -- /usr/bin/python3 mounts.py "$m"; else
				run wrapped sh -c "/usr/bin/python3 mounts.py $m"; fi
			[ "$rc" -ne 0 ] && ! grep -qE 'DECOY-SSH-KEY|MOUNTED' "$T/.out" && grep -q 'Operation not permitted' "$T/.out" &&
				ok "$(label "$how"): refused: $m from a new user namespace" ||
				{ not_ok "$(label "$how"): refused: $m from a new user namespace" && _show "$how" "$m"; }
		done
	done
else
	skip "prerequisite: user namespaces are not available to $(id -un)"
fi

done_testing
