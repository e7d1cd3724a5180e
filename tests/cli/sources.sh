# What docs/HACKING.md says of the source holds (issue 41): no source file
# over 800 lines; environment variable names spelled in base/envvars.h
# alone; XDG directories looked up in base/xdg.c alone; a failed system
# call's message made by error_errno(), not by hand. Each check has a
# control: the same search finds a planted offence.
. "$(dirname "$0")/../lib.sh"
SRC=${MOAT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}

# Files whose owners are changing them now (issue 41, item 1: cmd_check.c,
# cmd_wrap.c, approvals/confirm.c); what they still spell by hand is theirs.
LEFT='src/cli/cmd_check\.c|src/cli/cmd_wrap\.c|src/approvals/confirm\.c'

# long_files DIR: the .c and .h files under DIR/src over 800 lines.
long_files() { (cd "$1" && wc -l src/*/*.[ch] | awk '$2 != "total" && $1 > 800'); }

# code FILE:LINE:TEXT lines on stdin: those whose TEXT is code, with a
# comment on the line dropped (a comment may name a variable).
code() {
	awk '{ c = $0; sub(/^[^:]*:[^:]*:/, "", c); if (c ~ /^[ \t]*(\*|\/\*)/) next
		gsub(/\/\*.*(\*\/|$)/, "", c); if (c ~ /"/) print }'
}

# moat_literals DIR: a "MOAT_..." string outside base/envvars.h.
moat_literals() {
	(cd "$1" && grep -nE '"MOAT_' src/*/*.[ch] | code | grep -E '"MOAT_' |
		grep -v '^src/base/envvars\.h:' | grep -Ev "^($LEFT):")
}

# xdg_lookups DIR: an XDG variable read, or a moat directory spelled, outside base/xdg.c.
xdg_lookups() {
	(cd "$1" && grep -nE 'getenv\("XDG_|"[^"]*(\.config|\.local/state|\.local/share)/moat' src/*/*.[ch] |
		grep -v '^src/base/xdg\.c:' | grep -Ev "^($LEFT):")
}

# errno_by_hand DIR: error_set(..., strerror(errno)), which error_errno() says.
errno_by_hand() {
	(cd "$1" && for f in src/*/*.c; do
		perl -0ne 'while (/error_set\([^;]*?,\s*strerror\(errno\)\)/gs) { print "$ARGV\n" }' "$f"
	done | grep -Ev "^($LEFT)$")
}

# A copy of the tree's src with one offence of each kind planted.
mkdir -p "$T/planted/src/base" "$T/planted/src/x"
cp "$SRC"/src/base/envvars.h "$SRC"/src/base/xdg.c "$T/planted/src/base/"
seq 801 | sed 's/.*/;/' >"$T/planted/src/x/long.c"
cat >"$T/planted/src/x/bad.c" <<'C'
static const char *a(void) { return getenv("MOAT_ROOT"); }
static const char *b(void) { return getenv("XDG_STATE_HOME"); }
static int c(struct error *err) { return error_set(err, "cannot open '%s': %s", "x",
	strerror(errno)); }
C

for check in long_files moat_literals xdg_lookups errno_by_hand; do
	case $check in
	long_files) what="no source file is over 800 lines" ;;
	moat_literals) what="every MOAT_ variable is named through base/envvars.h" ;;
	xdg_lookups) what="every XDG directory comes from base/xdg.c" ;;
	errno_by_hand) what="every failed call's message is made by error_errno()" ;;
	esac
	found=$($check "$T/planted")
	[ -n "$found" ] && ok "control: the search finds a planted offence ($check)" ||
		not_ok "control: the search finds a planted offence ($check)"
	found=$($check "$SRC")
	if [ -z "$found" ]; then ok "$what"; else
		not_ok "$what" && printf '%s\n' "$found" | sed 's/^/#   /'
	fi
done

done_testing
