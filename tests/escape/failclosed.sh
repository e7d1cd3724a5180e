#!/usr/bin/env bash
# Fail closed (issue 38, items 1 and 2): sandboxed code must not be able to
# turn isolation off for the sessions after it, and what a session started
# must not outlive it.
#
# 1. The namespace quota is counted per user across every user namespace:
#    code that uses it up made every later `moat run`, `moat shell` and
#    wrapped tool fall back to no namespaces, .git/hooks writable. Now a
#    quota refusal stops moat (exit 125), and so does any refusal once
#    namespaces have worked for this user. The attacker's exhaustion runs
#    in a user namespace of the test's own (tests/helpers/ns_quota), whose
#    max_*_namespaces bind everything in it: the machine's quota is never
#    touched, and what the attacker holds dies with the test's processes.
# 2. Where there are no namespaces at all (tests/helpers/no_namespaces),
#    the documented fallback still runs tools, says truly why, and kills
#    every process the session started, grandchildren included, before its
#    end check: one that would plant a hook 1.5 s later is dead.
. "$(dirname "$0")/../lib.sh"

command -v git >/dev/null && command -v unshare >/dev/null || {
	skip "prerequisite: git and unshare are installed"
	done_testing
	exit
}
NSQ=$HELPERS/ns_quota
NONS=$HELPERS/no_namespaces
WORKED=$XDG_STATE_HOME/moat/namespaces-worked
git -C "$PROJ" init -q
PLANT="printf '#!/bin/sh\necho PWNED\n' >.git/hooks/pre-commit"
HOOK=$PROJ/.git/hooks/pre-commit
"$MOAT" wrap tools /bin/sh >/dev/null
SH=$XDG_DATA_HOME/moat/shells/tools

# forget_namespaces: this user's namespaces never worked, as far as moat
# knows: the environment a fallback is for.
forget_namespaces() { rm -f "$WORKED"; }

# plant_via HOW [PREFIX...]: the attacker's PLANT through moat HOW (run,
# shell, wrapper), started under PREFIX.
plant_via() {
	local how=$1 && shift
	rm -f "$HOOK"
	case $how in
	run) run "$@" "$MOAT" run -- sh -c "$PLANT" ;;
	shell)
		echo "$PLANT" >"$T/cmds"
		"$@" env SHELL=/bin/sh "$MOAT" shell <"$T/cmds" >"$T/.out" 2>"$T/.err"
		rc=$?
		;;
	wrapper) run env MOAT_ROOT="$PROJ" "$@" "$SH/bin/sh" -c "$PLANT" ;;
	esac
}

# --- 1. the attacker uses up the namespace quota -----------------------
# EXHAUST, run in ns_quota's namespace, holds namespaces until none is
# left (the limit is 6; twenty try; it waits until a namespace is refused,
# however long a loaded machine takes), runs what follows it, and lets go.
# A sleep of this test's own, to look for afterwards.
HOLD=47.$$
EXHAUST="for i in \$(seq 20); do unshare -Urm sleep $HOLD 2>/dev/null & held=\"\$held \$!\"; done;
for t in \$(seq 100); do unshare -Urm true 2>/dev/null || break; sleep 0.1; done;"
RELEASE='st=$?; kill $held 2>/dev/null; wait; exit $st'
run "$NSQ" 6 sh -c "unshare -Urm true"
[ "$rc" -eq 0 ] && ok "control: in the test's namespace, a namespace is made" ||
	{ not_ok "control: in the test's namespace, a namespace is made" && _show ns_quota; }
run "$NSQ" 6 sh -c "$EXHAUST unshare -Urm true; $RELEASE"
expect_out "control: there the attacker uses the quota up" "No space left on device"
rm -f "$HOOK" && (cd "$PROJ" && sh -c "$PLANT") && [ -e "$HOOK" ] &&
	ok "control: without moat the attacker plants the hook" ||
	not_ok "control: without moat the attacker plants the hook"
for how in run shell wrapper; do
	plant_via "$how" "$NSQ" 6
	[ "$rc" -ne 125 ] && [ ! -e "$HOOK" ] &&
		ok "control: in the test's namespace, moat $how runs and keeps .git/hooks read-only" ||
		{ not_ok "control: in the test's namespace, moat $how runs and keeps .git/hooks read-only" &&
			_show "$how"; }
	forget_namespaces
	plant_via "$how" "$NSQ" 6 sh -c "$EXHAUST \"\$@\"; $RELEASE" sh
	[ "$rc" -eq 125 ] && [ ! -e "$HOOK" ] &&
		ok "quota used up: moat $how refuses (125) rather than run with .git/hooks writable" ||
		{ not_ok "quota used up: moat $how refuses (125) rather than run with .git/hooks writable" &&
			_show "$how"; }
	expect_out "and names the cause and the fix" \
		"namespace quota is used up .*max_\*_namespaces.*end the processes that hold namespaces"
done
run "$NSQ" 6 sh -c "$EXHAUST \"\$@\"; $RELEASE" sh "$MOAT" check
[ "$rc" -eq 1 ] && ok "quota used up: moat check reports an issue (status 1)" ||
	{ not_ok "quota used up: moat check reports an issue (status 1)" && _show check; }
expect_out "and names the quota, not the environment" \
	"^protected paths: not enforced now: .*No space left on device.*namespace quota is used up"
# The same from inside a session: it can still make namespaces (a user
# namespace with no id maps, an IPC namespace) and hold them while it runs,
# and every other start is refused meanwhile: a denial of service, no
# longer an escape. Its namespaces go with its processes (the kernel
# frees a user namespace's count a moment after its last process: a few
# tries).
INSIDE="for i in \$(seq 20); do unshare -Ui sleep $HOLD 2>/dev/null & done
for t in \$(seq 100); do unshare -Ui true 2>/dev/null || break; sleep 0.1; done; touch $PROJ/.held; sleep 4"
SIEGE="rm -f '$PROJ/.held'; '$MOAT' run -- sh -c '$INSIDE' >/dev/null 2>&1 &
for t in \$(seq 200); do [ -e '$PROJ/.held' ] && break; sleep 0.1; done
'$MOAT' run -- true; echo \"during=\$?\"; wait; after=no
for i in \$(seq 50); do '$MOAT' run -- true 2>/dev/null && after=yes && break; sleep 0.1; done
echo \"after=\$after\""
run "$NSQ" 6 sh -c "$SIEGE"
expect_out "a session holding namespaces refuses other starts while it runs (125)" '^during=125$'
expect_out "and they start again once it has ended: its namespaces went with it" '^after=yes$'
pgrep -fx "sleep $HOLD" >/dev/null && not_ok "the attacker's namespaces are gone with the test" ||
	ok "the attacker's namespaces are gone with the test"

# --- 1b. namespaces worked before: any refusal stops moat ----------------
run "$MOAT" run -- true
[ -e "$WORKED" ] && ok "a session with namespaces is recorded in moat's state" ||
	not_ok "a session with namespaces is recorded in moat's state"
run "$MOAT" run -- sh -c "echo x >>'$WORKED'"
[ "$rc" -ne 0 ] && ! grep -q '^x' "$WORKED" && ok "the sandbox cannot write that record" ||
	{ not_ok "the sandbox cannot write that record" && _show record; }
run "$MOAT" run -- rm -f "$WORKED"
[ -e "$WORKED" ] && ok "nor erase it" || not_ok "nor erase it"
for how in run shell wrapper; do
	plant_via "$how" "$NONS"
	[ "$rc" -eq 125 ] && [ ! -e "$HOOK" ] &&
		ok "namespaces refused after they worked: moat $how refuses (125)" ||
		{ not_ok "namespaces refused after they worked: moat $how refuses (125)" && _show "$how"; }
	expect_out "and says why: they worked before" "moat had them for you before"
	expect_out "and what to do if they were switched off on purpose" "delete that file"
done

# --- 2. no namespaces ever: the fallback, true and leaving nothing ------
forget_namespaces
run "$NONS" "$MOAT" run -- sh -c 'echo RAN'
[ "$rc" -eq 0 ] && [ "$out" = RAN ] && ok "no namespaces ever: moat run still runs the tool" ||
	{ not_ok "no namespaces ever: moat run still runs the tool" && _show fallback; }
expect_out "and says truly why the paths stay writable" \
	"no mount namespace here \(the kernel refused one: Operation not permitted; none ever worked for you here\)"
expect_no_out "and blames nothing it does not know" 0 "user namespaces off|seccomp profile"
[ ! -e "$WORKED" ] && ok "and records nothing" || not_ok "and records nothing"
run "$NONS" "$MOAT" check
expect_out "moat check names the kernel's refusal" \
	"^protected paths: not enforced here: the kernel refuses moat a mount namespace \(Operation not permitted\)"
run "$NONS" env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c 'echo RAN'
[ "$rc" -eq 0 ] && [ "$out" = RAN ] && ok "no namespaces ever: a wrapped tool still runs" ||
	{ not_ok "no namespaces ever: a wrapped tool still runs" && _show fallback-wrapper; }

# A grandchild whose parent is still alive when the session ends, deaf to
# the hang-up, plants a hook 1.5 s later and leaves a marker.
MARK=$PROJ/leftover-ran
LATE="trap '' HUP; sleep 1.5; $PLANT; touch '$MARK'"
LEFTOVER="sh -c \"sh -c \\\"$LATE\\\" & wait\" & sleep 0.2; echo STARTED"
rm -f "$HOOK" "$MARK"
sh -c "$LEFTOVER" >/dev/null
sleep 2.5
[ -e "$MARK" ] && [ -e "$HOOK" ] && ok "control: without moat the grandchild plants the hook later" ||
	not_ok "control: without moat the grandchild plants the hook later"
rm -f "$HOOK" "$MARK"
run "$NONS" "$MOAT" run -- sh -c "$LEFTOVER"
[ "$rc" -eq 0 ] && [ "$out" = STARTED ] && ok "no namespaces: the session ran" ||
	{ not_ok "no namespaces: the session ran" && _show leftover; }
sleep 2.5
[ ! -e "$MARK" ] && [ ! -e "$HOOK" ] &&
	ok "no namespaces: the grandchild is dead when moat returns, nothing planted after the end check" ||
	{ not_ok "no namespaces: the grandchild is dead when moat returns, nothing planted after the end check" &&
		_show leftover; }
rm -f "$HOOK" "$MARK"

done_testing
