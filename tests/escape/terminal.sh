#!/usr/bin/env bash
# Keystroke injection into the terminal that started moat (issue 6, item 1).
#
# With dev.tty.legacy_tiocsti=1 a process may push bytes into its terminal's
# input queue (TIOCSTI); the shell that started moat reads them once moat
# returns and runs them unconfined. TIOCLINUX pastes the console selection and
# the VT keymap ioctls retype keys: same outcome. Every attempt runs on a
# real pseudo-terminal under an interactive bash, and the proof of escape is a
# file only that outer shell could create. The control runs the same attempt
# without moat, so no test passes because the probe itself is broken.
. "$(dirname "$0")/../lib.sh"

PTY=$HELPERS/pty_session
cp "$HELPERS/tiocsti" "$PROJ/tiocsti"

# inject NAME MODE [MOAT...]: type `[moat run --] ./tiocsti MODE 'touch FILE\n'`
# into an outer shell; FILE appears only if the outer shell ran the injected
# text. Leaves $injected set to yes or no.
inject() {
	local name=$1 mode=$2
	shift 2
	local file="$T/pwned-$name-$#"
	rm -f "$file"
	outer_shell "300 $* ./tiocsti $mode \$'touch $file\\n'; $ECHO_RETURNED" "=8000 $RETURNED" "300 exit"
	[ -e "$file" ] && injected=yes || injected=no
}

# --- TIOCSTI, in three encodings -------------------------------------------
inject sti sti
legacy=$injected
if [ "$legacy" = yes ]; then
	ok "control: without moat, TIOCSTI makes the outer shell run the text"
else
	skip "prerequisite: a kernel that allows TIOCSTI (dev.tty.legacy_tiocsti=1): the control did not inject"
fi
i386_modes=
have_i386_gate && i386_modes=sti-i386
for mode in sti sti-high $i386_modes; do
	inject "$mode" "$mode" "$MOAT" run --
	if [ "$injected" = no ] && grep -q "$mode: Operation not permitted" "$T/.out"; then
		ok "moat run: $mode is refused and the outer shell runs nothing"
	else
		not_ok "moat run: $mode is refused and the outer shell runs nothing (injected=$injected)" &&
			_show "$mode"
	fi
done
if [ "$legacy" = yes ]; then
	inject high-control sti-high
	[ "$injected" = yes ] && ok "control: bit 32 of the request is ignored by the kernel (so must be by the filter)" ||
		not_ok "control: TIOCSTI with bit 32 set still injects without moat"
	if [ -n "$i386_modes" ]; then
		inject i386-control sti-i386
		[ "$injected" = yes ] && ok "control: the i386 gate injects without moat" ||
			not_ok "control: the i386 gate injects without moat"
	fi
fi
[ -n "$i386_modes" ] || skip "prerequisite: the i386 syscall gate faults on this machine, so TIOCSTI/TIOCLINUX through it cannot be tried"

# --- the same through moat shell and a wrapped tool ------------------------
printf '%s\n' "./tiocsti sti \$'touch $T/pwned-shell\\n'" "exit" >"$T/shell-cmds"
outer_shell "300 SHELL=/bin/sh '$MOAT' shell <'$T/shell-cmds'" "2000 exit"
[ ! -e "$T/pwned-shell" ] && grep -q "Operation not permitted" "$T/.out" &&
	ok "moat shell: TIOCSTI is refused" || { not_ok "moat shell: TIOCSTI is refused" && _show shell; }

mkdir -p "$PROJ/.tools/bin" "$PROJ/.tools/share/moat"
ln -s "$WRAPPER" "$PROJ/.tools/bin/tiocsti"
printf 'tiocsti\t%s\n' "$PROJ/tiocsti" >"$PROJ/.tools/share/moat/manifest"
rm -f "$T/pwned-wrapper"
outer_shell "300 MOAT_ROOT='$PROJ' '$PROJ/.tools/bin/tiocsti' sti \$'touch $T/pwned-wrapper\\n'" "1500 exit"
[ ! -e "$T/pwned-wrapper" ] && grep -q "sti: Operation not permitted" "$T/.out" &&
	ok "moat-wrapper: TIOCSTI is refused" || { not_ok "moat-wrapper: TIOCSTI is refused" && _show wrapper; }

# --- TIOCLINUX and the VT keymap: on a pty the kernel answers ENOTTY, so
# EPERM can only come from the filter (there is no VT to test on here). ----
for mode in linux linux-high ${i386_modes:+linux-i386} keymap; do
	run "$PTY" -- "$PROJ/tiocsti" "$mode" </dev/null
	outside=$(tr -d '\r' <"$T/.out")
	run "$PTY" -- "$MOAT" run -- ./tiocsti "$mode" </dev/null
	if grep -q "$mode: Operation not permitted" "$T/.out" && ! grep -q "$mode: ok" "$T/.out"; then
		ok "moat run: $mode is refused by the filter (unconfined: ${outside#*: })"
	else
		not_ok "moat run: $mode is refused by the filter" && _show "$mode"
	fi
done

# --- the terminal keeps working --------------------------------------------
run "$PTY" -- "$MOAT" run -- ./tiocsti tcgets </dev/null
expect_out "the terminal answers TCGETS inside moat" 'tcgets: ok'
run "$PTY" -- "$MOAT" run -- ./tiocsti winsz </dev/null
expect_out "and TIOCGWINSZ (24x80, as the pty was made)" 'rows=24 cols=80'
run "$PTY" -- "$MOAT" run -- ./tiocsti write MOAT-WROTE-THIS </dev/null
expect_out "a sandboxed tool writes to the terminal" 'MOAT-WROTE-THIS'
printf '800 typed-line\n' | "$PTY" -- "$MOAT" run -- sh -c 'read -r x; echo "got=$x"' >"$T/.out" 2>"$T/.err"
expect_out "and reads what the user types" 'got=typed-line'
run "$PTY" -- "$MOAT" run -- sh -c 'stty -echo && stty echo && echo STTY-OK' </dev/null
expect_out "stty (TCSETS) works" 'STTY-OK'
run "$PTY" -- "$MOAT" run -- /bin/bash --norc --noprofile -ic 'sleep 0.1 & wait; echo JOBS-OK' </dev/null
expect_out "an interactive bash inside moat still runs" 'JOBS-OK'

# --- taking the terminal away from the user's session ----------------------
if is_root; then
	run "$PTY" -- "$PROJ/tiocsti" steal </dev/null
	grep -q 'steal: ok' "$T/.out" && ok "control: root steals a terminal from its session (TIOCSCTTY 1)" ||
		not_ok "control: root steals a terminal (TIOCSCTTY 1)"
fi
run "$PTY" -- "$MOAT" run -- ./tiocsti steal </dev/null
grep -q 'steal: Operation not permitted' "$T/.out" && ok "moat run: TIOCSCTTY 1 is refused" ||
	{ not_ok "moat run: TIOCSCTTY 1 is refused" && _show steal; }

# --- a process left behind makes itself the foreground and reads what the
# user types next into the outer shell: a key logger for sudo passwords. ---
hijack() { # STOLEN [MOAT...]
	local stolen=$1
	shift
	rm -f "$stolen" "$stolen.err" "$T/typed-by-user"
	outer_shell "300 $* ./tiocsti hijack $stolen; $ECHO_RETURNED" "=8000 $RETURNED" \
		"2500 touch $T/typed-by-user" "800 exit"
}
hijack "$PROJ/stolen-control"
if [ -s "$PROJ/stolen-control" ] && [ ! -e "$T/typed-by-user" ]; then
	ok "control: without moat, a leftover process steals the user's next line"
else
	skip "prerequisite: the terminal-takeover control reproducing here (it did not)"
fi
hijack "$PROJ/stolen" "$MOAT" run --
if [ ! -s "$PROJ/stolen" ] && [ -e "$T/typed-by-user" ]; then
	ok "moat run: a leftover process cannot take the terminal from the user's shell"
else
	not_ok "moat run: a leftover process cannot take the terminal from the user's shell" &&
		echo "#   stolen: $(cat "$PROJ/stolen" "$PROJ/stolen.err" 2>/dev/null | tr -d '\r')"
fi

# --- sequences that make the user's terminal act (issue 38) ----------------
# Decided, not filtered (docs/security.md, "The terminal's own escape
# sequences"): the relay passes a tool's output byte for byte, as sudo's
# use_pty and ssh do, so an OSC 52 clipboard write, a title and a query
# reach the user's terminal as they would from the tool run without moat.
# This shows that behaviour; a filter, if one is added, changes it here.
SEQS='\033]52;c;UFdORUQ=\007\033]2;moat-title\007\033[c'
run "$PTY" -- sh -c "printf '$SEQS'" </dev/null
grep -qF "$(printf "$SEQS")" "$T/.out" && ok "control: without moat the terminal gets OSC 52, a title and a query" ||
	{ not_ok "control: the sequences reach the terminal without moat" && _show sh; }
run "$PTY" -- "$MOAT" run -- sh -c "printf '$SEQS'" </dev/null
[ "$rc" -eq 0 ] && grep -qF "$(printf "$SEQS")" "$T/.out" &&
	ok "moat run passes them through unchanged (the documented decision)" ||
	{ not_ok "moat run passes OSC 52, a title and a query through unchanged" && _show moat run; }
# The terminal's answer to a query is input: it reaches the session's own
# terminal, the tool's stdin, not the user's shell (typed here as a
# terminal would answer a primary device attributes query).
printf '800 \033[?62;c\n' | "$PTY" -- "$MOAT" run -- sh -c 'printf "\033[c"; read -r x; printf "answer=%s\n" "$x" | od -c | head -2' >"$T/.out" 2>"$T/.err"
grep -q 'a   n   s   w   e   r   = 033   \[   ?   6   2   ;   c' "$T/.out" &&
	ok "a query's answer is read by the sandboxed tool, inside the session" ||
	{ not_ok "a query's answer is read by the sandboxed tool" && _show moat run; }

done_testing
