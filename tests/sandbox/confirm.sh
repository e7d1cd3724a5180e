# Confirm before widening access (.confirm in config.zon), answered through
# a real pseudo-terminal, remembered per root and access set.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || { skip "python3 missing: no pseudo-terminal driver"; done_testing; exit; }
PTY=$MOAT_SRC/tests/pty-run.py
CFG=$XDG_CONFIG_HOME/moat/config.zon
STORE=$XDG_STATE_HOME/moat/approvals
mkdir -p "$(dirname "$CFG")" "$HOME/.npm"
printf '.{ .confirm = .{ "cat" } }\n' >"$CFG"
echo content >"$PROJ/file"

# The exact prompt text (golden), after what this kernel leaves open, if
# anything (tests/sandbox/abi.sh checks that line for every ABI).
abi=$("$MOAT" profile 2>/dev/null | sed -n 's/^kernel: Landlock ABI //p')
open=$("$MOAT" profile 2>/dev/null | sed -n 's/^not enforced: //p')
: >"$T/want"
[ "$open" = nothing ] || echo "moat: not enforced by this kernel (Landlock ABI $abi): $open" >"$T/want"
run python3 "$PTY" --answer n -- "$MOAT" run -- cat file
cat >>"$T/want" <<EOF
moat: about to run cat in $PROJ
  read/write/exec  $PROJ
  none             $HOME  HOME
  network          allowed
nothing else is readable but system directories (/usr, /etc, ...)
continue? [y/N] n
moat: cat was not started: not confirmed
EOF
if [ "$out" = "$(cat "$T/want")" ]; then ok "the prompt text is exactly the golden one"; else
	not_ok "prompt text differs"; diff <(echo "$out") "$T/want" | sed 's/^/#   /'; fi
[ "$rc" = 125 ] && ok "no: the command does not start (125)" || not_ok "no: status $rc"
{ [ ! -e "$STORE" ] || ! grep -q approval "$STORE"; } && ok "no: nothing remembered" || not_ok "a refusal was stored"

# What the prompt says of HOME and of the rest is what the sandbox does
# (issue 39): HOME gets no access, a system directory is readable.
expect_ok "control: without moat HOME is listable" ls "$HOME"
expect_denied "HOME: none, as the prompt says" env MOAT_CONFIRM=never "$MOAT" run -- ls "$HOME"
expect_ok "/etc: readable, as the prompt says" env MOAT_CONFIRM=never "$MOAT" run -- cat /etc/passwd
run env MOAT_ENV_HOME="$PROJ/.moat/home" python3 "$PTY" --answer n -- "$MOAT" run -- cat file
expect_out "a HOME in the project gets the project's access" "^  read/write/exec  $PROJ/.moat/home  HOME"

expect_status "empty answer is no" 125 python3 "$PTY" --answer "" -- "$MOAT" run -- cat file
expect_status "EOF is no" 125 python3 "$PTY" --eof -- "$MOAT" run -- cat file
expect_status "no terminal: refused" 125 setsid "$MOAT" run -- cat file
expect_out "saying how to skip the prompt" "MOAT_CONFIRM=never"

run python3 "$PTY" --answer y --stdin "piped-input" -- "$MOAT" run -- cat
[ "$rc" = 0 ] && ok "yes: the command runs" || not_ok "yes: status $rc"
expect_out "stdin is untouched: the piped input reaches the tool" "piped-input"
[ "$(stat -c %a "$STORE")" = 600 ] && ok "the store is mode 0600" || not_ok "store mode $(stat -c %a "$STORE")"
expect_ok "approved: no prompt (no terminal needed)" setsid "$MOAT" run -- cat file

# Widening asks again: a new grant, a wider level, another HOME.
"$MOAT" allow cat "$HOME/.npm" >/dev/null 2>&1
expect_status "a new grant asks again" 125 setsid "$MOAT" run -- cat file
expect_ok "approve the read grant" python3 "$PTY" --answer y -- "$MOAT" run -- cat file
expect_out "the prompt listed the grant" "read +$HOME/.npm"
"$MOAT" allow cat "$HOME/.npm" --write >/dev/null 2>&1
expect_status "a wider level asks again" 125 setsid "$MOAT" run -- cat file
expect_ok "approve read/write" python3 "$PTY" --answer y -- "$MOAT" run -- cat file
"$MOAT" unallow cat "$HOME/.npm" >/dev/null 2>&1
"$MOAT" allow cat "$HOME/.npm" >/dev/null 2>&1
expect_ok "narrowing does not ask" setsid "$MOAT" run -- cat file
expect_status "another MOAT_ENV_HOME asks again" 125 env MOAT_ENV_HOME="$PROJ/.moat/home" setsid "$MOAT" run -- cat file

# MOAT_CONFIRM.
expect_ok "MOAT_CONFIRM=never skips the prompt" env MOAT_CONFIRM=never MOAT_ENV_HOME="$PROJ/.moat/h2" setsid "$MOAT" run -- cat file
cp "$STORE" "$T/before"
expect_status "MOAT_CONFIRM=always asks for an approved set" 125 env MOAT_CONFIRM=always setsid "$MOAT" run -- cat file
expect_ok "always + yes runs" env MOAT_CONFIRM=always python3 "$PTY" --answer y -- "$MOAT" run -- cat file
cmp -s "$T/before" "$STORE" && ok "a review does not change the store" || not_ok "review changed the store"
expect_status "MOAT_CONFIRM=bogus is an error" 125 env MOAT_CONFIRM=bogus "$MOAT" run -- cat file

# Wrapped tools ask before they start too, and a jailbreak shows as UNSANDBOXED.
"$MOAT" wrap tools /bin/cat >/dev/null
W=$XDG_DATA_HOME/moat/shells/tools/bin/cat
expect_ok "a wrapped tool approved for this root runs" env MOAT_ROOT="$PROJ" setsid "$W" file
mkdir -p "$HOME/other-proj" && echo x >"$HOME/other-proj/file"
cd "$HOME/other-proj" || exit 1
expect_status "in another project it asks" 125 env MOAT_ROOT="$HOME/other-proj" setsid "$W" file
run env MOAT_ROOT="$HOME/other-proj" MOAT_JAILBREAK=cat python3 "$PTY" --answer n -- "$W" file
expect_out "a jailbreak is shown UNSANDBOXED" "jailbreak +/bin/cat  UNSANDBOXED"
cd "$PROJ" || exit 1

# Listing and forgetting.
run "$MOAT" approvals
expect_out "approvals lists the project and binary" "^$PROJ  cat  [0-9]{4}-"
expect_out "and the access approved" "read/write +$HOME/.npm"
expect_ok "unapprove forgets this project" "$MOAT" unapprove
expect_out "and says so" "^moat: forgot [1-9][0-9]* approval\(s\) for $PROJ\$"
expect_status "so it asks again" 125 setsid "$MOAT" run -- cat file
expect_status "unapprove with nothing to drop fails" 1 "$MOAT" unapprove
expect_out "saying so" "^moat: no approvals for $PROJ\$"
python3 "$PTY" --answer y -- "$MOAT" run -- cat file >/dev/null
expect_ok "approvals -r is unapprove" "$MOAT" approvals -r "$PROJ"
expect_status "(so it asks again)" 125 setsid "$MOAT" run -- cat file
expect_status "approvals --all without -r is a usage error" 2 "$MOAT" approvals --all
python3 "$PTY" --answer y -- "$MOAT" run -- cat file >/dev/null
expect_ok "approvals -r --all" "$MOAT" approvals -r --all
run "$MOAT" approvals
[ "$rc" -eq 0 ] && [ -z "$out" ] && grep -q '^moat: no approvals remembered$' "$T/.err" &&
	ok "nothing is left" || { not_ok "nothing is left" && _show approvals; }
expect_status "unapprove --all with nothing to drop fails" 1 "$MOAT" unapprove --all
expect_out "saying so" "^moat: no approvals for any project\$"

# A damaged store: warned about, kept, never counted as approval.
python3 "$PTY" --answer y -- "$MOAT" run -- cat file >/dev/null
printf 'garbage line\napproval\tnot-a-time\t/x\tcat\n' >>"$STORE"
run "$MOAT" approvals
expect_out "damaged lines are reported" "2 damaged line"
"$MOAT" allow cat "$HOME/.cache" >/dev/null 2>&1
python3 "$PTY" --answer y -- "$MOAT" run -- cat file >/dev/null
grep -q '^garbage line$' "$STORE" && ok "a rewrite keeps the damaged line" || not_ok "damaged line dropped"
if is_root; then skip "prerequisite: not root (root reads a mode-000 store); the [nobody] run checks it"; else
	chmod 000 "$STORE"
	expect_status "an unreadable store is not approval" 125 setsid "$MOAT" run -- cat file
	chmod 600 "$STORE"
fi

"$MOAT" unapprove --all >/dev/null 2>&1
# Sockets belong to the access set (issue 19, item 1). The attack: a tool
# approved once, then .sockets gains the ssh-agent's socket; the next run
# must ask again, since through it the sandbox could use the agent.
cp "$HELPERS/sock" "$PROJ/sock"
mkdir -p "$HOME/.ssh/agent"
AGENT=$HOME/.ssh/agent/agent.sock
"$HELPERS/sock" serve "$AGENT" >"$T/agent.log" 2>&1 &
agent=$!
eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'kill $agent 2>\/dev\/null; /")"
for _ in $(seq 50); do grep -q listening "$T/agent.log" 2>/dev/null && break; sleep 0.05; done
printf '.{ .confirm = .{ "sock" } }\n' >"$CFG"
run python3 "$PTY" --answer y -- "$MOAT" run -- ./sock connect "$AGENT"
grep -q "	sock	" "$STORE" && ok "approve sock once" || { not_ok "approve sock once" && _show pty; }
expect_status "approved: it starts without a prompt" 1 setsid "$MOAT" run -- ./sock connect "$AGENT"
expect_no_out "control: and without a listed socket the agent is out of reach" 1 'HELLO-FROM-SERVER'
printf '.{ .confirm = .{ "sock" }, .sockets = .{ "%s" } }\n' "$AGENT" >"$CFG"
run env MOAT_CONFIRM=never "$MOAT" run -- ./sock connect "$AGENT"
expect_out "control: with the socket listed the sandbox reaches the agent" 'HELLO-FROM-SERVER'
run setsid "$MOAT" run -- ./sock connect "$AGENT"
[ "$rc" = 125 ] && grep -q 'needs confirmation' "$T/.err" && ! grep -q HELLO-FROM-SERVER "$T/.out" &&
	ok "a socket added to .sockets asks again: without a terminal the tool does not start" ||
	{ not_ok "a socket added to .sockets asks again" && _show setsid moat run -- ./sock; }
run python3 "$PTY" --answer n -- "$MOAT" run -- ./sock connect "$AGENT"
expect_out "the prompt lists the socket" "^  connect +$AGENT"
ABI=$("$HELPERS/landlock_abi")
if [ "$ABI" -lt 9 ]; then
	expect_out "ABI $ABI: and what listing it really opens" "^  connect +every pathname unix socket( and abstract socket)?: Landlock ABI $ABI cannot confine them by path"
	expect_out "and no longer claims nothing else is reachable" '^nothing else is readable but system directories \(/usr, /etc, \.\.\.\), and any unix socket can be connected to'
else
	expect_out "ABI $ABI: only that socket" '^nothing else is readable but system directories \(/usr, /etc, \.\.\.\); no other socket can be connected to'
	skip "ABI $ABI: sockets are confined by path"
fi
expect_no_out "the old claim is gone" 125 '^nothing else (outside those paths )?is readable$'
run python3 "$PTY" --answer y -- "$MOAT" run -- ./sock connect "$AGENT"
expect_out "approved with the socket, the sandbox reaches it" 'HELLO-FROM-SERVER'
grep -q "	socket=$AGENT" "$STORE" && ok "the store remembers the socket" || not_ok "the store remembers the socket"
expect_ok "then it starts without a prompt" setsid "$MOAT" run -- ./sock connect "$AGENT"
run "$MOAT" approvals
expect_out "moat approvals lists it" "^  connect +$AGENT\$"
# A store written before sockets were in the set still parses and approves
# what it approved, and asks for a listed socket.
"$MOAT" unapprove --all >/dev/null 2>&1
printf 'approval\t1700000000\t%s\tsock\thome=%s\n' "$PROJ" "$HOME" >"$STORE"
printf '.{ .confirm = .{ "sock" } }\n' >"$CFG"
expect_status "an old store's approval covers sock without sockets" 1 setsid "$MOAT" run -- ./sock connect "$AGENT"
printf '.{ .confirm = .{ "sock" }, .sockets = .{ "%s" } }\n' "$AGENT" >"$CFG"
expect_status "and asks once a socket is listed" 125 setsid "$MOAT" run -- ./sock connect "$AGENT"
kill "$agent" 2>/dev/null
printf '.{ .confirm = .{ "cat" } }\n' >"$CFG"
"$MOAT" unapprove --all >/dev/null 2>&1

# A project named with C1 and bidi controls (issue 19, item 3): the prompt
# shows the name, it does not obey it (CSI could hide the grant lines and
# the question on a terminal that acts on 8-bit controls).
EVIL=$HOME/proj$'\xc2\x9b'"2J"$'\xe2\x80\xae'"x"$'\x9b'"1A"
mkdir -p "$EVIL" && echo content >"$EVIL/file"
[ -d "$EVIL" ] && ls "$HOME" | grep -q $'\xc2\x9b' && ok "control: the directory name holds the raw bytes" ||
	not_ok "control: the directory name holds the raw bytes"
cd "$EVIL" || exit 1
for l in C C.UTF-8; do
	run env LC_ALL=$l python3 "$PTY" --answer n -- "$MOAT" run -- cat file
	if LC_ALL=C grep -q $'[\x80-\x9f]\|\xe2\x80\xae' "$T/.out"; then
		not_ok "LC_ALL=$l: no C1, bidi or raw 0x9b byte reaches the prompt" && _show prompt
	else ok "LC_ALL=$l: no C1, bidi or raw 0x9b byte reaches the prompt"; fi
	grep -qF 'moat: about to run cat in '"$HOME"'/proj\xc2\x9b2J\xe2\x80\xaex\x9b1A' "$T/.out" &&
		ok "LC_ALL=$l: the name is shown as \\xNN" || { not_ok "LC_ALL=$l: the name is shown as \\xNN" && _show prompt; }
done
python3 "$PTY" --answer y -- "$MOAT" run -- cat file >/dev/null
run "$MOAT" approvals
if LC_ALL=C grep -q $'[\x80-\x9f]\|\xe2\x80\xae' "$T/.out"; then not_ok "moat approvals shows it escaped too"; else
	ok "moat approvals shows it escaped too"; fi
run "$MOAT" unapprove
if LC_ALL=C grep -q $'[\x80-\x9f]' "$T/.err"; then not_ok "and moat unapprove"; else ok "and moat unapprove"; fi
cd "$PROJ" || exit 1

# A jailbreak listed for a session (issue 14, item 8): inside moat run the
# binary runs confined, so the prompt must not call it UNSANDBOXED.
printf '.{ .confirm = .{ "cat" }, .jailbreak = .{ "cat" } }\n' >"$CFG"
run python3 "$PTY" --answer n -- "$MOAT" run -- cat file
if grep -q 'jailbreak .*not in this session: runs confined here' "$T/.out"; then
	ok "moat run's prompt says a jailbreak does not apply in the session"
	! grep -q UNSANDBOXED "$T/.out" && ok "and does not call it UNSANDBOXED" || not_ok "and does not call it UNSANDBOXED"
else
	not_ok "moat run's prompt says a jailbreak does not apply in the session" && _show prompt
fi
printf '.{ .confirm = .{ "cat" } }\n' >"$CFG"

done_testing
