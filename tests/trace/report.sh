#!/usr/bin/env bash
# moat run --trace: the report's shape and its suggestions (issue 5). A
# script that reads ~/.ssh/config, writes ~/.cache/x, runs a binary from a
# denied directory and lists /tmp gets exactly those four entries, each
# with the grant that allows it; pasting the grants makes the run clean.
. "$(dirname "$0")/trace-lib.bash"

mkdir -p "$HOME/bin"
cp /bin/true "$HOME/bin/tool"
cat >"$PROJ/four.sh" <<'EOF'
cat ~/.ssh/config
echo x >~/.cache/x
~/bin/tool
ls /var/log >/dev/null
exit 5
EOF

trace sh four.sh
[ "$rc" = 5 ] && ok "the script's exit status passes through --trace" ||
	not_ok "the script's exit status passes through --trace (got $rc)"
expect_report "the header counts four paths" '^moat: 4 path\(s\) denied by the sandbox$'
expect_lines "exactly those four entries, in order, with process and operation" \
	'path\(s\) denied' '^$' "$(
		cat <<EOF
 cat[N] read $HOME/.ssh/config
 sh[N] create $HOME/.cache/x
 sh[N] exec $HOME/bin/tool
 ls[N] list /var/log
EOF
	)"
expect_lines "one grant per path: read, --write on the directory for a create, --exec" \
	'^to grant, pick the ones you actually need:$' '^hint:' "$(
		cat <<EOF
 moat allow cat ~/.ssh/config
 moat allow sh ~/.cache --write
 moat allow sh ~/bin/tool --exec
 moat allow ls /var/log
EOF
	)"
expect_report "a write under \$HOME hints at MOAT_ENV_HOME" '^hint: .*MOAT_ENV_HOME'

failed=$(apply_suggestions)
[ -z "$failed" ] && ok "moat allow accepts every suggestion" || not_ok "moat allow accepts every suggestion: $failed"
trace sh four.sh
expect_nothing_denied "after the grants nothing is denied"
[ -f "$HOME/.cache/x" ] && ok "and the write landed" || not_ok "and the write landed"
forget_grants

trace true
expect_nothing_denied "a clean run says nothing was denied"
[ "$rc" = 0 ] && ok "with status 0" || not_ok "with status 0 (got $rc)"

trace sh -c 'cat ~/.ssh/id_rsa; kill -TERM $$'
[ "$rc" = 143 ] && ok "death by a signal is 128+N" || not_ok "death by a signal is 128+N (got $rc)"
expect_report "and the report still comes" "read $HOME/.ssh/id_rsa$"

# Repeats group into one line: three reads by two programs, three processes.
trace sh -c 'cat ~/.aws/credentials; cat ~/.aws/credentials; head ~/.aws/credentials'
expect_report "repeats are one path" '^moat: 1 path\(s\) denied'
expect_report "with the count and the other processes" "^ cat\[N\] \+2 read $HOME/.aws/credentials \(3 times\)$"
expect_lines "one grant per program" '^to grant' '^$' "$(
	cat <<EOF
 moat allow cat ~/.aws/credentials
 moat allow head ~/.aws/credentials
EOF
)"

# Never a path moat allow refuses: $HOME and what contains it have no grant.
trace sh -c 'ls ~ >/dev/null; echo x >~/.profile; ls "$1" >/dev/null' sh "$T"
expect_report "listing \$HOME: no grant exists" "^ none for $HOME: it is your home directory, and moat allow refuses that$"
expect_report "creating in \$HOME: no grant exists either" \
	"^ none for $HOME/.profile: it needs a grant on $HOME, which is your home directory, and moat allow refuses that$"
expect_report "a directory containing \$HOME: none" "^ none for $T: it contains your home directory, and moat allow refuses that$"
expect_report "the header says no grant would allow them" '^no grant would allow them:$'
expect_no_report "and no moat allow line is offered" '^ moat allow'

# A quote or a control character in the path: the nearest directory moat
# allow accepts, said so; the control character shown escaped.
mkdir -p "$HOME/docs/it's"
echo q >"$HOME/docs/it's/f"
nl=$'\n'
echo n >"$HOME/docs/new${nl}line"
trace cat "$HOME/docs/it's/f" "$HOME/docs/new${nl}line"
expect_report "a quote is shown as is" "^ cat\[N\] read $HOME/docs/it's/f$"
expect_report "a newline is shown escaped, not as a second line" "^ cat\[N\] read $HOME/docs/new\\\\x0aline$"
expect_report "the grant is the nearest acceptable directory, with why" \
	"^ moat allow cat ~/docs # the path itself is refused \(it contains a quote\); this is the nearest directory that is not$"
[ "$(printf '%s\n' "$report" | grep -c 'moat allow')" = 1 ] && ok "both paths share that grant" ||
	not_ok "both paths share that grant"
failed=$(apply_suggestions)
trace cat "$HOME/docs/it's/f" "$HOME/docs/new${nl}line"
expect_nothing_denied "the offered grant works"
forget_grants

# The process name is argv[0]'s basename, as BIN is matched: quoted when it
# needs it, '*' when moat allow would refuse it, a login shell's '-' dropped.
ln -s /bin/cat "$PROBE_DIR/my tool"
ln -s /bin/cat "$PROBE_DIR/bad${nl}name"
trace env PATH="$PROBE_DIR:/usr/bin:/bin" bash -c '"my tool" ~/.ssh/id_rsa; "bad${1}name" ~/.ssh/config
	(exec -a -sh cat ~/.aws/credentials)' sh "$nl"
expect_report "a name with a space is quoted" "^ moat allow 'my tool' ~/.ssh/id_rsa$"
expect_report "a name moat allow refuses gets '\*'" "^ moat allow '\*' ~/.ssh/config$"
expect_report "and is shown escaped" "^ bad\\\\x0aname\[N\] read $HOME/.ssh/config$"
expect_report "a login shell's '-' is dropped" "^ moat allow sh ~/.aws/credentials$"

# The command itself in a denied place, right in $HOME: 126, and the one
# grant that works (the file), not a hint at $HOME, which moat allow refuses.
cp /bin/true "$HOME/tool"
trace "$HOME/tool"
[ "$rc" = 126 ] && ok "a command the sandbox will not run is 126" || not_ok "a command the sandbox will not run is 126 (got $rc)"
expect_report "its exec is reported" "^ tool\[N\] exec $HOME/tool$"
expect_report "the grant is the file" "^ moat allow tool ~/tool --exec$"
expect_no_out "and no hint suggests \$HOME" 126 "^hint: .*moat allow tool $HOME --exec"
# The command is named before its first exec: a process of the session
# whose spawn the tracer takes after its failed exec (stops come in any
# order) keeps that name, never /proc's "moat". A race: tried 20 times.
named=0
for _ in $(seq 20); do
	trace "$HOME/tool"
	grep -q "^ tool\[N\] exec $HOME/tool$" <<<"$shape" && named=$((named + 1))
done
[ "$named" = 20 ] && ok "the failed exec is the command's, every time (20 of 20)" ||
	not_ok "the failed exec is the command's, every time ($named of 20)"

# 8-bit controls (issue 19, item 3): a sandboxed process names itself with
# C1 and bidi controls; they reach the report as text, in the denial line
# and in the suggestion, never raw. CSI is \xc2\x9b in UTF-8, 0x9b raw.
evil=$'ev\xc2\x9b31m\xe2\x80\xaeil\x9b'
run bash -c 'exec -a "$0" cat /proc/self/cmdline' "$evil"
grep -qF "$evil" "$T/.out" && ok "control: argv[0] holds the raw bytes" || not_ok "control: argv[0] holds the raw bytes"
mkdir -p "$HOME/.cache/c1"$'\xc2\x9b'"dir"
echo x >"$HOME/.cache/c1"$'\xc2\x9b'"dir/f"
trace bash -c 'exec -a "$0" cat ~/.ssh/id_rsa "$1"' "$evil" "$HOME/.cache/c1"$'\xc2\x9b'"dir/f"
if printf '%s' "$report" | LC_ALL=C grep -q $'[\x80-\x9f\x1b]\|\xe2\x80\xae'; then
	not_ok "no C1, bidi or raw 0x9b byte reaches the report" && _show_report
else ok "no C1, bidi or raw 0x9b byte reaches the report"; fi
expect_raw "the process name is shown escaped" '^  ev\\xc2\\x9b31m\\xe2\\x80\\xaeil\\x9b\[[0-9]+\] +read +'
expect_raw "so is a path" 'read +.*/\.cache/c1\\xc2\\x9bdir/f$'
expect_report "the suggestion's BIN is '*', never the raw name" "^ moat allow '\*' ~/.ssh/id_rsa$"
expect_report "a path that cannot be shown as typed: its nearest directory that can" \
	"^ moat allow '\*' ~/.cache # the path itself is refused \(it contains a control or invisible character\)"
for l in C C.UTF-8; do
	LC_ALL=$l trace bash -c 'exec -a "$0" cat ~/.ssh/id_rsa' "$evil"
	# Only a report that names the refused read counts: an empty one has no
	# raw byte either.
	if ! printf '%s' "$report" | grep -qF 'id_rsa'; then
		not_ok "LC_ALL=$l: the report names the refused read" && _show_report
	elif printf '%s' "$report" | LC_ALL=C grep -q $'[\x80-\x9f]'; then
		not_ok "LC_ALL=$l: still no raw control byte" && _show_report
	else
		ok "LC_ALL=$l: the report names the refused read, with no raw control byte"
	fi
done

# --trace is an option of run, before the shells.
run "$MOAT" run --tracee -- true
[ "$rc" = 2 ] && ok "an unknown option is still a usage error" || not_ok "an unknown option is still a usage error (got $rc)"

done_testing
