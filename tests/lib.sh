# Shared by the shell test suites (tests/cli, tests/sandbox, tests/escape).
# Source it, then call the assertions; finish with `done_testing`.
#
# Every script gets a throw-away world:
#   $T        a private temp dir, removed at exit
#   $HOME     $T/home, with decoys: ~/.ssh/id_rsa, ~/.bashrc, ~/.aws/credentials
#   $PROJ     $HOME/proj, the project root tests run in (cwd)
#   $SIBLING  $HOME/other, a sibling project with a secret
#   $TMPDECOY a file in /tmp that must stay unreadable
#   $MOAT, $WRAPPER  the binaries under test
set -u

MOAT_BUILD=${MOAT_BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../build" && pwd)}
MOAT_SRC=${MOAT_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
MOAT=$MOAT_BUILD/moat
WRAPPER=$MOAT_BUILD/moat-wrapper
HELPERS=$MOAT_BUILD/tests/helpers

# Not under /tmp, /var/tmp or /dev/shm: a session has its own of each, in
# which a world under the host's would be absent rather than denied (and a
# write beside the root would land there, and succeed). tests/run-all says
# where (MOAT_TEST_TMPDIR); a suite run alone uses the caller's cache.
test_tmpdir=${MOAT_TEST_TMPDIR:-${XDG_CACHE_HOME:-$HOME/.cache}}
mkdir -p "$test_tmpdir" && T=$(mktemp -d "$test_tmpdir/moat-test.XXXXXX") && T=$(cd "$T" && pwd -P) ||
	exit 1
case $T/ in
/tmp/* | /var/tmp/* | /dev/shm/*)
	rmdir "$T"
	echo "tests/lib.sh: $T is under a directory a session replaces with its own" \
		"(/tmp, /var/tmp, /dev/shm); set MOAT_TEST_TMPDIR to one elsewhere" >&2
	exit 1
	;;
esac
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T" "${TMPDECOY:-}"' EXIT

export HOME=$T/home
export XDG_CONFIG_HOME=$HOME/.config XDG_STATE_HOME=$HOME/.local/state XDG_DATA_HOME=$HOME/.local/share
unset MOAT_ROOT MOAT_SANDBOX MOAT_JAILBREAK MOAT_SHELLS_PATH MOAT_FLAKE MOAT_CONFIRM
for v in $(env | sed -n 's/^\(MOAT_ENV_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
export TMPDIR=$T/tmp
mkdir -p "$HOME/.ssh" "$HOME/.aws" "$HOME/.cache" "$TMPDIR"
echo "DECOY-SSH-KEY" >"$HOME/.ssh/id_rsa"
echo "Host *" >"$HOME/.ssh/config"
echo "# DECOY-BASHRC" >"$HOME/.bashrc"
echo "DECOY-AWS" >"$HOME/.aws/credentials"
PROJ=$HOME/proj
SIBLING=$HOME/other
mkdir -p "$PROJ" "$SIBLING"
echo "SIBLING-SECRET" >"$SIBLING/secret"
TMPDECOY=$(mktemp /tmp/moat-decoy.XXXXXX)
echo "TMP-DECOY" >"$TMPDECOY"
cd "$PROJ" || exit 1

_n=0 _failed=0

ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)) _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
# skip REASON: a test that cannot be run here; REASON says which prerequisite
# is missing ("prerequisite: ..."), never that a result was not as hoped.
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $*"; }

# known_breakage NAME WHY CMD...: a gap docs/security.md documents. CMD
# succeeds while the attack (or the breakage) still works, which is reported
# as TODO: tests/run-all counts it as neither passed nor failed, and lists
# it. Once CMD fails, the gap is closed and the test fails, so that the test
# and docs/security.md are brought up to date.
known_breakage() {
	local name=$1 why=$2
	shift 2
	_n=$((_n + 1))
	if "$@"; then
		echo "not ok $_n - $name # TODO known breakage: $why"
	else
		_failed=$((_failed + 1))
		echo "not ok $_n - $name: this gap is closed, update the test and docs/security.md"
		_show "(last command)"
	fi
}

# Run a command, keeping its status in $rc and its output in $out / $err.
run() {
	"$@" >"$T/.out" 2>"$T/.err" </dev/null
	rc=$?
	out=$(cat "$T/.out")
	err=$(cat "$T/.err")
}

_show() {
	echo "#   command: $*"
	echo "#   status: $rc"
	sed 's/^/#   stdout: /' "$T/.out" | head -20
	sed 's/^/#   stderr: /' "$T/.err" | head -20
}

# expect_ok NAME CMD...: the command must succeed.
expect_ok() {
	local name=$1
	shift
	run "$@"
	if [ "$rc" -eq 0 ]; then ok "$name"; else not_ok "$name" && _show "$@"; fi
}

# expect_status NAME STATUS CMD...: the command must exit with STATUS.
expect_status() {
	local name=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$want" ]; then ok "$name"; else not_ok "$name (want status $want)" && _show "$@"; fi
}

# expect_denied NAME CMD...: the command must fail with a permission error
# (EACCES/EPERM), which is how Landlock's refusals surface.
expect_denied() {
	local name=$1
	shift
	run "$@"
	if [ "$rc" -ne 0 ] && grep -qiE 'permission denied|operation not permitted|EACCES|EPERM' "$T/.err" "$T/.out"; then
		ok "$name"
	else
		not_ok "$name (want a permission error)" && _show "$@"
	fi
}

# expect_refused NAME SECRET: the last run's command started and was refused
# by the sandbox (it failed with a permission error, so it is not moat failing
# for some other reason before it ran), and SECRET never showed on stdout.
expect_refused() {
	if [ "$rc" -ne 0 ] && grep -qiE 'permission denied|operation not permitted' "$T/.err" &&
		! grep -q -- "$2" "$T/.out"; then
		ok "$1"
	else
		not_ok "$1 (want a permission error, and no $2)" && _show "(last command)"
	fi
}

# ran_and_failed: the last run's command started and failed by itself: status
# 1-124, not moat's own failure (125), a command that could not run (126,
# 127) or a signal. For refusals whose error is not a permission error.
ran_and_failed() { [ "$rc" -ge 1 ] && [ "$rc" -le 124 ]; }

# expect_out NAME PATTERN: the last run's stdout+stderr must match PATTERN (grep -E).
expect_out() {
	if grep -qE -- "$2" "$T/.out" "$T/.err"; then ok "$1"; else not_ok "$1 (want /$2/)" && _show "(last command)"; fi
}

# re_quote TEXT: TEXT as an extended regex matching itself, for patterns
# built from data such as base64 hashes, whose '+' would be a quantifier.
re_quote() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'; }

# status_is WANT: the last run's status is WANT: a number; "failed", the
# command's own failure (1-124, as ran_and_failed); or "ran", whatever the
# command itself returned (0-124: not moat failing before it, 125, nor a
# command that could not run, 126/127, nor a signal).
status_is() {
	case $1 in
	failed) ran_and_failed ;;
	ran) [ "$rc" -ge 0 ] && [ "$rc" -le 124 ] ;;
	*) [ "$rc" -eq "$1" ] ;;
	esac
}

# expect_no_out NAME STATUS PATTERN: the last run ended with STATUS
# (status_is) and its output does not match PATTERN. The status comes
# first: output that is absent proves nothing of a command that never ran
# (moat refusing to start, a wrong path), and so passes for the wrong reason.
expect_no_out() {
	if [ $# -ne 3 ] || ! [[ $2 =~ ^([0-9]+|failed|ran)$ ]]; then
		not_ok "$1 (expect_no_out wants NAME STATUS PATTERN, got: $*)"
	elif ! status_is "$2"; then
		not_ok "$1 (status $rc, want $2)" && _show "(last command)"
	elif grep -qE -- "$3" "$T/.out" "$T/.err"; then
		not_ok "$1 (unexpected /$3/)" && _show "(last command)"
	else ok "$1"; fi
}

is_root() { [ "$(id -u)" = 0 ]; }

# need TOOL...: the whole program is skipped, naming the prerequisite,
# unless every TOOL is on PATH.
need() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		skip "prerequisite: $tool is not installed"
		done_testing
		exit
	done
}

# left_behind PATTERN: the processes whose command line matches, once
# moat's own are gone: a session's supervisor, which has moat's command
# line, exits just after moat returns. One of moat's still there after a
# second is listed with the rest.
left_behind() {
	local _
	for _ in $(seq 50); do
		pgrep -af "$1" | grep -q "^[0-9]* $(re_quote "$MOAT") " || break
		sleep 0.02
	done
	pgrep -af "$1"
}

# outer_shell KEYS...: an interactive bash on a new pty, the user's shell.
# Each KEYS is "DELAY_MS TEXT", typed in order, or "=MAX_MS TEXT", a wait
# for TEXT in the output (tests/helpers/pty_session.c). Output in $T/.out,
# status in $rc.
outer_shell() {
	printf '%s\n' "$@" >"$T/keys"
	env PS1='$ ' "$HELPERS/pty_session" -t 15 -- bash --norc --noprofile -i <"$T/keys" >"$T/.out" 2>"$T/.err"
	rc=$?
}
# A command line typed as "CMD; $ECHO_RETURNED" prints "returned-mark" once
# CMD has returned; its echo as typed does not match, so "=MAX_MS
# returned-mark" types on only then. Keys typed while a sandbox still runs
# are the sandbox's to read, and a test of what it reads afterwards would
# race the machine's speed.
ECHO_RETURNED='echo "returned-"mark'
RETURNED=returned-mark

# have_i386_gate: can this machine make i386 system calls (int $0x80)? Some
# hypervisors fault on the gate although the kernel has IA32 emulation; then
# the i386 attacks are impossible here and their tests are not run.
have_i386_gate() { "$HELPERS/i386_gate" >/dev/null 2>&1; }

done_testing() {
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
}
