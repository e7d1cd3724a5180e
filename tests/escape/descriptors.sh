#!/usr/bin/env bash
# Inherited descriptors (issue 6, item 6). A descriptor opened before the
# sandbox is not checked again: Landlock judges opens, not reads. moat run and
# moat shell close every descriptor above 2 before confining; moat-wrapper
# keeps them by design, because make passes its jobserver that way, so a
# wrapped tool can use what its caller gave it (docs/security.md). Standard
# input and output are the user's own redirections and always pass.
. "$(dirname "$0")/../lib.sh"

KEY=$HOME/.ssh/id_rsa
PY=/usr/bin/python3
echo "PROJECT-FILE" >"$PROJ/readme"

# --- moat run and moat shell close them ------------------------------------
run sh -c 'cat <&7' 7<"$KEY"
expect_out "control: fd 7 open on the key is readable unconfined" DECOY-SSH-KEY
run "$MOAT" run -- sh -c 'cat <&7' 7<"$KEY"
[ "$rc" -ne 0 ] && ! grep -q DECOY-SSH-KEY "$T/.out" && grep -qi 'bad file descriptor' "$T/.err" &&
	ok "moat run: fd 7 on the key is closed" || { not_ok "moat run: fd 7 on the key is closed" && _show fd7; }
run "$MOAT" run -- sh -c 'echo PWNED >&8' 8>>"$HOME/.bashrc"
ran_and_failed && grep -qi 'bad file descriptor' "$T/.err" && ! grep -q PWNED "$HOME/.bashrc" &&
	ok "moat run: fd 8 open for writing on ~/.bashrc is closed" ||
	{ not_ok "moat run: fd 8 open for writing on ~/.bashrc is closed" && _show fd8; }
run "$MOAT" run -- ls /proc/self/fd/
[ "$(tr -s ' \n' ' ' <"$T/.out")" = "0 1 2 3 " ] && ok "moat run: only 0, 1, 2 (and ls's own) are open" ||
	{ not_ok "moat run: only 0, 1, 2 are open" && _show ls-fd; }
run "$PY" -c "
import os, sys
d = os.open('$HOME', os.O_PATH)             # O_PATH: never checked by Landlock
r = os.open('$HOME', os.O_RDONLY | os.O_DIRECTORY)
for fd in (d, r): os.set_inheritable(fd, True)
os.execv('$MOAT', ['moat', 'run', '--', 'sh', '-c', 'ls /proc/self/fd/%d/ /proc/self/fd/%d/ 2>&1; cat /proc/self/fd/%d/.ssh/id_rsa' % (d, r, d)])"
ran_and_failed && grep -q 'No such file' "$T/.out" && ! grep -qE 'DECOY-SSH-KEY|\.ssh' "$T/.out" &&
	ok "moat run: O_PATH and directory descriptors of HOME are closed" ||
	{ not_ok "moat run: O_PATH and directory descriptors of HOME are closed" && _show opath; }
printf '%s\n' 'cat <&7; echo "status=$?"' | "$MOAT" shell 7<"$KEY" >"$T/.out" 2>"$T/.err"
! grep -q DECOY-SSH-KEY "$T/.out" && grep -q 'status=[1-9]' "$T/.out" && ok "moat shell: fd 7 on the key is closed" ||
	{ not_ok "moat shell: fd 7 on the key is closed" && _show shell; }
"$MOAT" run -- cat <"$PROJ/readme" >"$T/.out" 2>"$T/.err" # (run would take stdin from /dev/null)
expect_out "standard input passes (the user's own redirection)" '^PROJECT-FILE$'

# --- with grants: their descriptors, held since planning, are no gap --------
# moat keeps each grant's descriptor from resolving its path to make its
# rule, and closes everything else from 3 up: the caller's descriptors
# between and above those are closed all the same.
mkdir -p "$HOME/granted"
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
	mkdir -p "$HOME/granted/$i" && echo "GRANTED-$i" >"$HOME/granted/$i/file"
	"$MOAT" allow '*' "$HOME/granted/$i" >/dev/null 2>&1 || not_ok "moat allow $HOME/granted/$i"
done
expect_ok "with 12 grants, a granted file is readable" "$MOAT" run -- cat "$HOME/granted/12/file"
expect_out "with its content" '^GRANTED-12$'
run bash -c 'cat <&5; cat <&250' 5<"$KEY" 250<"$KEY"
expect_out "control: fds 5 and 250 on the key are readable unconfined" DECOY-SSH-KEY
run "$MOAT" run -- bash -c 'cat <&5; cat <&250; ls /proc/self/fd/' 5<"$KEY" 250<"$KEY"
! grep -q DECOY-SSH-KEY "$T/.out" && [ "$(grep -c 'Bad file descriptor' "$T/.err")" = 2 ] &&
	ok "moat run with grants: fds 5 and 250 on the key are closed" ||
	{ not_ok "moat run with grants: fds 5 and 250 on the key are closed" && _show grants-fd; }
[ "$(tr -s ' \n' ' ' <"$T/.out")" = "0 1 2 3 " ] &&
	ok "moat run with grants: the tool gets no grant's descriptor" ||
	{ not_ok "moat run with grants: the tool gets no grant's descriptor" && _show grants-ls; }

# --- moat-wrapper keeps them, by design ------------------------------------
SHELLDIR=$XDG_DATA_HOME/moat/shells/fdtools
expect_ok "moat wrap a shell to test with" "$MOAT" wrap fdtools /bin/sh /bin/cat
command -v make >/dev/null && "$MOAT" wrap fdtools "$(command -v make)" >/dev/null 2>&1
if [ -x "$SHELLDIR/bin/sh" ]; then
	run env MOAT_ROOT="$PROJ" "$SHELLDIR/bin/sh" -c 'cat <&7' 7<"$KEY"
	expect_out "moat-wrapper: fd 7 passes through (by design: docs/security.md)" DECOY-SSH-KEY
	run env MOAT_ROOT="$PROJ" "$SHELLDIR/bin/cat" /proc/self/fd/7 7<"$KEY"
	expect_refused "moat-wrapper: but reopening it through /proc/self/fd/7 is judged by path and refused" DECOY-SSH-KEY
	expect_denied "moat-wrapper: and the key itself stays denied by path" env MOAT_ROOT="$PROJ" "$SHELLDIR/bin/cat" "$KEY"
	# What the wrapper opens for itself (the root's descriptor, the
	# ruleset) stays behind: the tool sees what it sees unwrapped.
	run sh -c 'ls /proc/self/fd/' 7<"$KEY"
	unwrapped=$(tr -s ' \n' ' ' <"$T/.out")
	run env MOAT_ROOT="$PROJ" "$SHELLDIR/bin/sh" -c 'ls /proc/self/fd/' 7<"$KEY"
	[ -n "$unwrapped" ] && [ "$(tr -s ' \n' ' ' <"$T/.out")" = "$unwrapped" ] &&
		ok "moat-wrapper: the tool gets no descriptor of the wrapper's own ($unwrapped)" ||
		{ not_ok "moat-wrapper: the tool gets no descriptor of the wrapper's own (unwrapped: $unwrapped)" && _show wrapper-fds; }
	run env MOAT_ROOT="$PROJ" "$SHELLDIR/bin/sh" -c "cat '$HOME/granted/01/file'; ls /proc/self/fd/" 7<"$KEY"
	[ "$(head -n 1 "$T/.out")" = GRANTED-01 ] && [ "$(tail -n +2 "$T/.out" | tr -s ' \n' ' ')" = "$unwrapped" ] &&
		ok "moat-wrapper: with 12 grants the tool reads one and gets no grant's descriptor" ||
		{ not_ok "moat-wrapper: with 12 grants the tool reads one and gets no grant's descriptor" && _show wrapper-grant-fds; }
	if [ -x "$SHELLDIR/bin/make" ]; then
		mkdir -p "$PROJ/sub"
		printf 'all: a b\na b:\n\t@echo sub-$@ $(findstring jobserver,$(MAKEFLAGS))\n' >"$PROJ/sub/Makefile"
		printf 'all:\n\t+@env MOAT_ROOT=%s %s -s -C sub\n' "$PROJ" "$SHELLDIR/bin/make" >"$PROJ/Makefile"
		run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2
		expect_out "moat-wrapper: a wrapped sub-make shares the caller's jobserver" '^sub-b jobserver$'
		expect_no_out "with no jobserver warning" 0 'jobserver unavailable|warning'
	else
		skip "prerequisite: make, to wrap"
	fi
fi

done_testing
