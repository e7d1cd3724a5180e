# moat run inside a moat session (issue 39): the inner session is nested
# whatever its root (the same, a subdirectory with --here, a repository
# inside the outer root, one deeper than the outer session protects), and what it says of the protected paths is true:
# those the outer session keeps read-only are not warned about, and those
# it does not are said to be as writable as they are there, never blamed
# on a kernel that refused a mount namespace, nor refused for it.
. "$(dirname "$0")/../lib.sh"
need git

git init -q "$PROJ" && git init -q "$PROJ/inner" && git init -q "$PROJ/d/e/deep" && mkdir -p "$PROJ/sub" || exit 1
expect_ok "grant moat's own directory, so that moat runs inside" "$MOAT" allow '*' "$MOAT_BUILD" --exec
# Inside, the inner moat reads no config.zon (HOME's is refused to it).
NOCFG=$HOME/.no-config
NESTED_WARNING='nested in another moat session'
WRONG_CAUSE='kernel refused|none ever worked|cannot give this session its namespaces'
# read_only NAME: the last run's command failed writing to a read-only mount.
read_only() {
	if [ "$rc" -ne 0 ] && grep -q 'Read-only file system' "$T/.err"; then ok "$1"; else
		not_ok "$1 (want a read-only refusal)" && _show "(last command)"; fi
}

# With config.zon refused to it, the inner moat says why.
run "$MOAT" run -- "$MOAT" run -- true
[ "$rc" = 125 ] && ok "config.zon refused inside: moat's own failure (125)" || not_ok "status $rc"
expect_out "and the hint says it is the outer session's sandbox" \
	"^hint: this moat runs inside a moat session, whose sandbox refuses it config.zon"

# The same root: every protected path is the outer session's, read-only.
expect_ok "control: without moat the hooks are writable" sh -c 'echo x >.git/hooks/probe && rm .git/hooks/probe'
run "$MOAT" run -- env XDG_CONFIG_HOME="$NOCFG" "$MOAT" run -- sh -c 'echo x >.git/hooks/pre-commit'
read_only "the same root: the hooks are read-only inside the inner session"
expect_no_out "and no warning says otherwise" failed "$NESTED_WARNING|$WRONG_CAUSE|stays? writable"
[ ! -e .git/hooks/pre-commit ] && ok "nothing was planted" || not_ok "a hook was planted"

# A subdirectory with --here: another root, nested all the same.
run "$MOAT" run -- sh -c 'cd sub && env XDG_CONFIG_HOME="$1" "$0" run --here -- sh -c "echo ran-here; echo x >../.git/hooks/pre-commit"' "$MOAT" "$NOCFG"
expect_out "--here in a subdirectory runs nested" '^ran-here'
read_only "the outer root's hooks stay read-only from it"
expect_no_out "with no warning, no refusal and no record of the root" failed "$NESTED_WARNING|$WRONG_CAUSE|cannot record"

# A repository inside the root, two levels down at most: the outer
# session protects it too (tests/escape/nested-repos.sh), so no warning.
run "$MOAT" run -- sh -c 'cd inner && env XDG_CONFIG_HOME="$1" "$0" run -- sh -c "echo ran-inner; echo x >.git/hooks/pre-commit"' "$MOAT" "$NOCFG"
expect_out "a repository inside the root runs nested" '^ran-inner'
read_only "its hooks are read-only, kept so by the outer session"
expect_no_out "and no warning says otherwise" failed "$NESTED_WARNING|$WRONG_CAUSE|stays? writable"
[ ! -e inner/.git/hooks/pre-commit ] && ok "nothing was planted in the inner hooks" || not_ok "a hook was planted"

# One deeper than the outer session looks: its hooks are not the outer
# session's to protect, and the warning says that, not that the kernel
# refused.
run "$MOAT" run -- sh -c 'cd d/e/deep && env XDG_CONFIG_HOME="$1" "$0" run -- sh -c "echo ran-deep; echo x >$2/.git/hooks/pre-commit"' "$MOAT" "$NOCFG" "$PROJ"
expect_out "a repository deep inside the root runs nested" '^ran-deep'
expect_out "the warning names the deep repository's hooks, left writable by the outer session" \
	"^moat: warning: this session is $NESTED_WARNING, .*'$(re_quote "$PROJ/d/e/deep/.git/hooks")'.* which that session does not bind read-only, stay as writable as they are there$"
expect_no_out "and blames no kernel" failed "$WRONG_CAUSE"
read_only "the outer root's hooks stay read-only from it"
[ ! -e .git/hooks/pre-commit ] && ok "nothing was planted in the outer hooks" || not_ok "a hook was planted"

# On a terminal, as moat run inside moat shell: the inner session keeps
# the outer session's pseudo-terminal (whose sandbox refuses a new one's).
if command -v python3 >/dev/null; then
	run python3 "$MOAT_SRC/tests/pty-run.py" -- "$MOAT" run -- env XDG_CONFIG_HOME="$NOCFG" \
		"$MOAT" run -- sh -c '[ -t 0 ] && [ -t 1 ] && echo inner-on-a-terminal'
	[ "$rc" = 0 ] && grep -q '^inner-on-a-terminal' "$T/.out" &&
		ok "on a terminal the inner session starts, on the outer one's terminal" ||
		{ not_ok "on a terminal the inner session starts, on the outer one's terminal" && _show pty; }
	# (Below Landlock ABI 6 a nested session also says, truly, that it can
	# signal the user's other processes: not this check's business.)
	expect_no_out "no pseudo-terminal refused, no warning of protected paths" 0 \
		"/dev/pts|$NESTED_WARNING|$WRONG_CAUSE"
else
	skip "prerequisite: python3 missing (pseudo-terminal driver)"
fi

done_testing
