# Shared by tests/trace/*.sh (not a test itself: run-all runs only *.sh).

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# The probe (tests/trace/probe.c) must sit in the root to be runnable there.
PROBE_DIR=$PROJ/.probe
mkdir -p "$PROBE_DIR"
PROBE=$PROBE_DIR/probe
PROBE_STATIC=
build_probes() {
	cc -O2 -o "$PROBE" "$MOAT_SRC/tests/trace/probe.c" -pthread || return 1
	if cc -O2 -static -o "$PROBE_DIR/probe-static" "$MOAT_SRC/tests/trace/probe.c" -pthread 2>/dev/null; then
		PROBE_STATIC=$PROBE_DIR/probe-static
	fi
}

# The report in a file of stderr: from its first header on.
report_of() {
	sed -En '/^moat: [0-9]+ (path\(s\) denied by the sandbox|system call\(s\) refused by the sandbox.s seccomp filter)$/,$p; /^moat: nothing was denied/p' "$1"
}

# trace CMD...: moat run --trace -- CMD. Status in $rc; the report (stderr
# from its first line on) in $report, with pids replaced by [N] in $shape.
trace() {
	run "$MOAT" run --trace -- "$@"
	report=$(report_of "$T/.err")
	shape=$(printf '%s\n' "$report" | sed -E 's/\[[0-9]+\]/[N]/g; s/  +/ /g')
}

# trace_in SHELL CMD...: the same, with the named shell's wrapped tools.
trace_in() {
	local shell=$1
	shift
	run "$MOAT" run --trace "$shell" -- "$@"
	report=$(report_of "$T/.err")
	shape=$(printf '%s\n' "$report" | sed -E 's/\[[0-9]+\]/[N]/g; s/  +/ /g')
}

_show_report() {
	sed 's/^/#   stderr: /' "$T/.err" | head -40
}

# expect_report NAME PATTERN: a line of the report matches PATTERN (grep -E,
# on $shape: pids as [N], runs of spaces as one).
expect_report() {
	if printf '%s\n' "$shape" | grep -qE -- "$2"; then ok "$1"; else
		not_ok "$1 (want /$2/ in the report)" && _show_report
	fi
}

# expect_raw NAME PATTERN: as expect_report, on the report as printed.
expect_raw() {
	if printf '%s\n' "$report" | grep -qE -- "$2"; then ok "$1"; else
		not_ok "$1 (want /$2/ in the report)" && _show_report
	fi
}

expect_no_report() {
	if printf '%s\n' "$shape" | grep -qE -- "$2"; then
		not_ok "$1 (unexpected /$2/ in the report)" && _show_report
	else ok "$1"; fi
}

# expect_lines NAME FROM TO WANT: the lines of $shape strictly between the
# first one matching FROM and the next one matching TO (or the end), both
# grep -E patterns, are exactly WANT.
expect_lines() {
	local got
	got=$(printf '%s\n' "$shape" | awk -v from="$2" -v to="$3" '
		on && $0 ~ to { exit }
		on { print }
		!on && $0 ~ from { on = 1 }')
	if [ "$got" = "$4" ]; then ok "$1"; else
		not_ok "$1" && {
			printf '%s\n' "$4" | sed 's/^/#   want: /'
			printf '%s\n' "$got" | sed 's/^/#   got:  /'
		}
	fi
}

expect_nothing_denied() {
	if [ "$report" = "moat: nothing was denied by the sandbox" ]; then ok "$1"; else
		not_ok "$1 (want 'nothing was denied')" && _show_report
	fi
}

# Run the report's `moat allow` lines, as a user would paste them.
apply_suggestions() {
	local line
	printf '%s\n' "$report" | sed -n 's/^  moat allow /allow /p' | sed 's/   # .*//' |
		while IFS= read -r line; do
			eval "\"\$MOAT\" $line" >/dev/null 2>&1 || echo "failed: moat $line"
		done
}

# Drop the grants earlier cases made: in a session every grant applies.
forget_grants() { rm -f "$XDG_CONFIG_HOME/moat/config.zon"; }

# The pid a probe printed as KEY=N.
printed() { sed -n "s/^$1=//p" "$T/.out" | head -1; }
