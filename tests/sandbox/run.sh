#!/usr/bin/env bash
# moat run's contract: statuses (the command's own, 125/126/127, 2 for
# usage), the refused roots, the environment inside, stdin and fd hygiene.
. "$(dirname "$0")/../lib.sh"

expect_status "the command's exit status passes through" 7 "$MOAT" run -- sh -c 'exit 7'
expect_status "status 0 passes through" 0 "$MOAT" run -- true
expect_status "death by a signal shows as 128+N" 141 "$MOAT" run -- sh -c 'kill -PIPE $$'
# A session's supervisor outlasts moat, so that moat's exit leaves the
# memory they share to the supervisor's: it exits once moat has, never
# lingers. Under a subreaper, what outlived moat comes to the test.
reaped=$("$HELPERS/reaper" -t 1 sh -c 'sleep 30 & exit 0')
case $reaped in
*"outlived: still running"*) ok "control: the reaper sees a process moat's caller would inherit, running" ;;
*) not_ok "control: the reaper sees a process left running ($reaped)" ;;
esac
bad=
for _ in 1 2 3; do
	reaped=$("$HELPERS/reaper" "$MOAT" run -- sh -c 'exit 3')
	case $reaped in "status 768"*) ;; *) bad="moat's status: $reaped" ;; esac
	case $reaped in *"still running"* | *"exited "[1-9]*) bad=$reaped ;; esac
done
[ -z "$bad" ] && ok "what outlives moat run exits 0, none left running, and moat's status is the command's (3 sessions)" ||
	not_ok "what outlives moat run exits 0, none left running ($bad)"

# And while it does, it holds none of the caller's stdin, stdout and
# stderr: `$(moat run ...)` and a pipeline get their end of file at moat's
# exit, not after the supervisor's. strace holds moat at its exit_group
# (the supervisor, not followed, runs on) while the test looks.
NO_LSAN="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # no LeakSanitizer under ptrace
slow=${MOAT_TEST_SLOW:-1} slow=${slow%%.*} # an emulated guest's factor
if strace -qq -o /dev/null -e trace=exit_group -e inject=exit_group:delay_enter=1 true 2>/dev/null; then
	env "$NO_LSAN" strace -qq -o /dev/null -e trace=exit_group -e inject=exit_group:delay_enter=$((3000000 * slow)) \
		"$MOAT" run -- true </dev/null >"$T/held.out" 2>&1 &
	tracer=$!
	fds=
	for _ in $(seq $((100 * slow))); do
		held=$(pgrep -P "$tracer")
		sup=${held:+$(pgrep -P "$held")}
		if [ -n "$sup" ] && [ "$(cut -d' ' -f3 "/proc/$held/stat" 2>/dev/null)" = t ]; then
			fds=$(ls "/proc/$sup/fd" 2>&1 | tr '\n' ' ')
			break
		fi
		sleep 0.05
	done
	[ -n "$fds" ] && [ "$fds" != "${fds#*[0-9]}" ] &&
		ok "control: the supervisor, outlasting moat, has descriptors the test can list ($fds)" ||
		not_ok "control: the supervisor, outlasting moat, has descriptors the test can list ('$fds')"
	case " $fds" in
	*" 0 "* | *" 1 "* | *" 2 "* | " ") not_ok "and none is the caller's stdin, stdout or stderr ('$fds')" ;;
	*) ok "and none is the caller's stdin, stdout or stderr" ;;
	esac
	wait "$tracer"
else
	skip "prerequisite: strace with fault injection, to hold moat at its exit"
fi

# A tool that cannot start sends its error with its event: a signal to
# moat while that message is on its way (a resize, ^C) must not lose it,
# and the tool's process killed as it sends it must not leave moat and its
# supervisor waiting for each other. strace holds each process's second
# write (the error's, when it took two), then the test signals.
printf '#!/nonexistent/interpreter\n' >"$PROJ/badinterp"
chmod +x "$PROJ/badinterp"
expect_status "control: a tool that cannot start is 127" 127 "$MOAT" run -- ./badinterp
expect_out "control: with its error" "cannot run './badinterp'"
# hold_start_error NAME SIGNAL WHOM: WHOM is moat or tool (the process
# that wrote the 'E'); sets rc, and says whether moat returned.
hold_start_error() {
	rm -f "$T/held.st"
	env "$NO_LSAN" strace -f -qq -o "$T/held.st" -e trace=write \
		-e inject=write:delay_enter=$((2000000 * slow)):when=2 \
		"$MOAT" run -- ./badinterp >"$T/.out" 2>"$T/.err" &
	local tracer=$! held writer line
	for _ in $(seq $((250 * slow))); do
		line=$(grep -m1 '^[0-9]* *write([0-9]*, "E' "$T/held.st" 2>/dev/null) && break
		sleep 0.02
	done
	held=$(pgrep -P "$tracer")
	writer=${line%% *}
	case $3 in moat) kill "-$2" "$held" 2>/dev/null ;; tool) kill "-$2" "$writer" 2>/dev/null ;; esac
	for _ in $(seq $((300 * slow))); do
		kill -0 "$tracer" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$tracer" 2>/dev/null; then
		not_ok "$1: moat returns (hung)"
		pkill -KILL -P "$held"
		kill -KILL "$held" "$tracer"
	else
		ok "$1: moat returns"
	fi
	wait "$tracer"
	rc=$?
}
if strace -qq -o /dev/null -e trace=write -e inject=write:delay_enter=1:when=2 true 2>/dev/null; then
	hold_start_error "a SIGWINCH as the tool's start error comes" WINCH moat
	[ "$rc" = 127 ] && grep -q "cannot run './badinterp'" "$T/.err" &&
		ok "and it says the tool's error, with its status" ||
		{ not_ok "and it says the tool's error, with its status" && _show "strace -e inject=write (SIGWINCH)"; }
	hold_start_error "the tool's process killed as it sends its start error" KILL tool
	[ "$rc" -ge 1 ] && [ "$rc" -le 137 ] && [ "$rc" != 125 ] &&
		ok "and it ends with the tool's status ($rc)" ||
		{ not_ok "and it ends with the tool's status" && _show "strace -e inject=write (SIGKILL)"; }
else
	skip "prerequisite: strace with fault injection, to hold the tool's error"
fi

expect_status "a missing command is 127" 127 "$MOAT" run -- moat-no-such-command
expect_out "it says the command was not found" 'moat-no-such-command.*not found'
expect_status "a missing path is 127" 127 "$MOAT" run -- ./no-such-file

echo 'echo hi' >"$PROJ/noexec"
expect_status "a non-executable file is 126" 126 "$MOAT" run -- ./noexec
expect_out "it names the file" "noexec"
# The file is in the root, where exec is allowed: it merely lacks its x bit,
# so a hint to widen the sandbox would send the user the wrong way.
expect_no_out "no 'moat allow' hint for a file in the root without x bit" 126 'moat allow'
mkdir "$PROJ/pathdir"
cp "$PROJ/noexec" "$PROJ/pathdir/moat-noexec-tool"
expect_status "a non-executable file found on PATH is 126" 126 \
	env PATH="$PROJ/pathdir:/usr/bin:/bin" "$MOAT" run -- moat-noexec-tool
expect_status "a directory is 126" 126 "$MOAT" run -- ./pathdir
expect_status "a directory outside the root is 126" 126 "$MOAT" run -- /usr/bin
expect_no_out "with no hint to grant exec on a directory" 126 'moat allow'

# moat's own failures before the command: 125, with the seed's reason.
cd "$HOME" || exit 1
expect_status "root = \$HOME is refused with 125" 125 "$MOAT" run -- true
expect_out "it says the root is home" "refusing to use '$HOME' as the sandbox root: it is your home directory"
expect_out "with the seed's reason" 'would grant access to everything home is meant to withhold'
[ ! -e "$HOME/.moat" ] && ok "nothing created in \$HOME" || not_ok "nothing created in \$HOME"
cd "$T" || exit 1
expect_status "an ancestor of \$HOME is refused with 125" 125 "$MOAT" run -- true
expect_out "it says the root contains home" "it contains your home directory"
cd / || exit 1
expect_status "/ is refused with 125" 125 "$MOAT" run -- true
ln -s "$HOME" "$T/homelink"
cd "$HOME" || exit 1
expect_status "root = \$HOME is refused when HOME is a symlink to it" 125 env HOME="$T/homelink" "$MOAT" run -- true
expect_status "root = \$HOME is refused when HOME has a trailing slash" 125 env HOME="$HOME/" "$MOAT" run -- true
cd "$PROJ" || exit 1
expect_status "no HOME is 125" 125 env -u HOME "$MOAT" run -- true
expect_out "with a hint" '^hint: .*HOME'
expect_status "a relative HOME is 125" 125 env HOME=relative "$MOAT" run -- true

# Usage errors: 2.
expect_status "missing '--' is a usage error" 2 "$MOAT" run true
expect_out "it says so" "missing '--'"
expect_status "nothing after '--' is a usage error" 2 "$MOAT" run --
expect_status "an unknown option is a usage error" 2 "$MOAT" run --bogus -- true

# The environment inside.
run "$MOAT" run -- sh -c 'echo "root=$MOAT_ROOT"; echo "tmp=$TMPDIR"'
expect_out "MOAT_ROOT is the root" "^root=$PROJ\$"
expect_out "TMPDIR is \$MOAT_ROOT/.moat/tmp" "^tmp=$PROJ/.moat/tmp\$"
[ -d "$PROJ/.moat/tmp" ] && ok "TMPDIR exists" || not_ok "TMPDIR exists"
ln -s "$PROJ" "$HOME/projlink"
mkdir -p "$PROJ/sub"
cd "$HOME/projlink/sub" || exit 1
run "$MOAT" run -- sh -c 'echo "root=$MOAT_ROOT"; touch ../outside'
expect_out "the root is the canonical current directory" "^root=$PROJ/sub\$"
[ "$rc" -ne 0 ] && [ ! -e "$PROJ/outside" ] && ok "the parent of the root is not writable" ||
	{ not_ok "the parent of the root is not writable" && _show touch ../outside; }
cd "$PROJ" || exit 1
run env MOAT_ROOT="$HOME" MOAT_SANDBOX="$HOME" "$MOAT" run -- sh -c 'echo "root=$MOAT_ROOT"; cat "$HOME/.ssh/id_rsa"'
if [ "$rc" -ne 0 ] && grep -q "^root=$PROJ\$" "$T/.out" && ! grep -q DECOY "$T/.out"; then
	ok "a MOAT_ROOT set by the caller changes nothing"
else
	not_ok "a MOAT_ROOT set by the caller changes nothing" && _show MOAT_ROOT=HOME moat run
fi
run env MOAT_ENV_FOO=bar "$MOAT" run -- env
expect_out "MOAT_ENV_FOO=bar sets FOO" '^FOO=bar$'
expect_no_out "and MOAT_ENV_FOO is gone" 0 '^MOAT_ENV_FOO='
run env MOAT_ENV_HOME="$PROJ/.moat/home" "$MOAT" run -- sh -c 'echo "home=$HOME"; echo x >"$HOME/f"'
expect_out "MOAT_ENV_HOME under the root becomes HOME" "^home=$PROJ/.moat/home\$"
[ -f "$PROJ/.moat/home/f" ] && ok "that HOME was created and is writable" || not_ok "that HOME was created and is writable"
expect_status "MOAT_ENV_HOME outside the root is refused" 125 env MOAT_ENV_HOME="$T/elsewhere" "$MOAT" run -- true
expect_out "naming both ways out" "moat allow .* $T/elsewhere --write"
[ ! -e "$T/elsewhere" ] && ok "and it was not created" || not_ok "and it was not created"

# Shells' bin directories come first on PATH, and the command is looked up there.
expect_ok "moat wrap a shell" "$MOAT" wrap first --env FROM=first /usr/bin/env
expect_ok "moat wrap another" "$MOAT" wrap second --env FROM=second /usr/bin/env /usr/bin/true
shells=$(cd "$XDG_DATA_HOME/moat/shells" && pwd -P)
run "$MOAT" run first second -- sh -c 'echo "$PATH"'
case $out in
"$shells/first/bin:$shells/second/bin:"*) ok "shells' bin first on PATH, in order" ;;
*) not_ok "shells' bin first on PATH, in order" && _show moat run first second ;;
esac
run "$MOAT" run first second -- env
expect_out "the command resolves to the first shell's wrapper" '^FROM=first$'
run "$MOAT" run second first -- env
expect_out "and the order decides" '^FROM=second$'

# stdin passes through; descriptors beyond 2 do not.
run_stdin() { printf 'line one\nline two\n' | "$MOAT" run -- "$@"; }
[ "$(run_stdin cat)" = "line one
line two" ] && ok "stdin passes through" || not_ok "stdin passes through"
[ "$(sh -c 'cat <&7' 7<"$HOME/.ssh/id_rsa")" = DECOY-SSH-KEY ] && ok "control: fd 7 reads the key without moat" ||
	not_ok "control: fd 7 reads the key without moat"
run "$MOAT" run -- sh -c 'cat <&7' 7<"$HOME/.ssh/id_rsa"
[ "$rc" -ne 0 ] && ! grep -q DECOY "$T/.out" && ok "an open fd 7 is not inherited" ||
	{ not_ok "an open fd 7 is not inherited" && _show "moat run -- cat <&7"; }
run "$MOAT" run -- ls /proc/self/fd 7<"$HOME/.ssh/id_rsa" 9>"$T/fd9"
[ "$(echo $out)" = "0 1 2 3" ] && ok "only 0, 1 and 2 are open inside (3 is ls's own)" ||
	{ not_ok "only 0, 1 and 2 are open inside (3 is ls's own)" && _show ls /proc/self/fd; }

# A session's start runs moat, the supervisor and the tool's process on one
# CPU, each waiting for the next; each gives the caller's CPUs back: the
# tool and what it starts, and moat and the supervisor for the session.
cpus_of() { grep Cpus_allowed_list "/proc/$1/status" 2>/dev/null | cut -f2; }
session_start() { # session_start [PREFIX...]: a session whose tool waits for ./go
	rm -f started go
	"$@" "$MOAT" run -- sh -c 'tail -f /dev/null & touch started
		while [ ! -e go ]; do sleep 0.05; done; kill $!' &
	moat=$!
	for _ in $(seq 200); do [ -e started ] && break; sleep 0.05; done
}
session_cpus() { # what moat, the supervisor, the tool and its child are allowed
	local sup tool child
	sup=$(pgrep -P "$moat") tool=$(pgrep -P "$sup")
	child=$(pgrep -P "$tool" -x tail)
	echo "moat $(cpus_of "$moat"), supervisor $(cpus_of "$sup"), tool $(cpus_of "$tool"), its child $(cpus_of "$child")"
}
session_shows() { # session_shows CPUS: polled, as moat gives its back at 'R'
	for _ in $(seq 100); do
		seen=$(session_cpus)
		[ "$seen" = "moat $1, supervisor $1, tool $1, its child $1" ] && return 0
		sleep 0.05
	done
	return 1
}
session_end() { touch go && wait "$moat"; rm -f started go; }
mine=$(cpus_of self)
last=${mine##*[,-]} first=${mine%%[,-]*}
if [ "$last" != "$mine" ] && command -v taskset >/dev/null; then
	[ "$(taskset -c "$last" grep Cpus_allowed_list /proc/self/status | cut -f2)" = "$last" ] &&
		ok "control: a process held to CPU $last shows it ($mine otherwise)" ||
		not_ok "control: a process held to CPU $last shows it"
	session_start
	session_shows "$mine" && ok "moat, the supervisor, the tool and its child keep the caller's CPUs ($seen)" ||
		not_ok "moat, the supervisor, the tool and its child keep the caller's CPUs ($mine): $seen"
	session_end
	session_start taskset -c "$last"
	session_shows "$last" && ok "and a caller held to CPU $last stays on it ($seen)" ||
		not_ok "and a caller held to CPU $last stays on it: $seen"
	session_end
else
	skip "prerequisite: two CPUs and taskset, to see a process held to one"
fi

# Since Linux 6.2 the kernel keeps the mask a process asked for, and a
# cpuset widened later widens it no further. A caller that asked for none
# must not be left with moat's: widened during the session, its cpuset
# widens the tool too, as it does a process started without moat.
cpuset=/sys/fs/cgroup/cpuset
if [ "$last" != "$mine" ] && is_root && [ -w "$cpuset/cgroup.procs" ] && [ -r "$cpuset/cpuset.mems" ] &&
	mkdir "$cpuset/moat-test.$$" 2>/dev/null; then
	cs=$cpuset/moat-test.$$
	cat "$cpuset/cpuset.mems" >"$cs/cpuset.mems"
	echo "$first" >"$cs/cpuset.cpus"
	in_cs() { echo "$BASHPID" >"$cs/cgroup.procs" && exec "$@"; }
	in_cs sleep 1000 &
	control=$!
	session_start in_cs
	session_shows "$first" && before=ok || before="not: $seen"
	echo "$mine" >"$cs/cpuset.cpus"
	for _ in $(seq 100); do [ "$(cpus_of "$control")" = "$mine" ] && break; sleep 0.05; done
	[ "$before" = ok ] && [ "$(cpus_of "$control")" = "$mine" ] &&
		ok "control: a cpuset of CPU $first holds the session, and widened to $mine widens a process in it" ||
		not_ok "control: a cpuset of CPU $first holds the session ($before), and widened widens a process in it ($(cpus_of "$control"))"
	session_shows "$mine" && ok "and moat's processes, the tool and its child with them ($seen)" ||
		not_ok "and moat's processes, the tool and its child with them ($mine): $seen"
	session_end
	kill "$control" && wait "$control"
	rmdir "$cs"
else
	skip "prerequisite: root, two CPUs and a cgroup v1 cpuset hierarchy at $cpuset, to widen a cpuset"
fi

done_testing
