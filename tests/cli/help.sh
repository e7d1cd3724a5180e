#!/usr/bin/env bash
# The command line's own contract (like git's t0012): help for moat and for
# every command on stdout with status 0, usage errors with status 2, the
# version, write errors on stdout, and `moat profile`'s listing.
. "$(dirname "$0")/../lib.sh"

for opt in --help -h; do
	run "$MOAT" $opt
	[ "$rc" -eq 0 ] && [ -z "$err" ] && grep -q '^usage: moat ' "$T/.out" && ok "moat $opt: usage on stdout, status 0" ||
		{ not_ok "moat $opt: usage on stdout, status 0" && _show moat $opt; }
done
commands=$(sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p' "$T/.out")
for c in run shell profile wrap; do
	echo "$commands" | grep -qx "$c" && ok "moat --help lists '$c'" || not_ok "moat --help lists '$c'"
done
for c in $commands; do
	for opt in -h --help; do
		run "$MOAT" "$c" $opt
		[ "$rc" -eq 0 ] && [ -z "$err" ] && grep -q "^usage: moat $c" "$T/.out" &&
			ok "moat $c $opt: usage on stdout, status 0" || { not_ok "moat $c $opt: usage on stdout, status 0" && _show moat "$c" $opt; }
	done
done
# Help needs nothing from the environment: not HOME, not a current directory.
expect_ok "moat run -h without HOME" env -u HOME "$MOAT" run -h
mkdir "$PROJ/gone" && cd "$PROJ/gone" && rmdir "$PROJ/gone"
expect_ok "moat run -h in a deleted directory" "$MOAT" run -h
cd "$PROJ" || exit 1

# Every command's --help: synopsis, summary, each option, one example; the
# same as 'moat help COMMAND'; every option it lists is in the man page (in
# the command's section, or OPTIONS for moat's own) and in the README; and
# the man page's section lists no option --help does not.
MAN=$MOAT_SRC/docs/moat.1
README=$MOAT_SRC/README.md
man_section() { awk -v h="$1" '$0 == h { on = 1; next } /^\.S[HS] / { on = 0 } on' "$MAN"; }
# A line of text that starts with '.' is a macro call to groff, and the
# text vanishes from the page (lintian caught three: .listen, .secrets).
if command -v groff >/dev/null; then
	run groff -man -ww -z "$MAN"
	[ "$rc" = 0 ] && [ -z "$err" ] && ok "docs/moat.1: groff gives no warning" ||
		{ not_ok "docs/moat.1: groff gives no warning" && _show groff; }
else
	skip "prerequisite: groff, to check the man page"
fi
man_section ".SH OPTIONS" >"$T/man-options"
for c in $commands; do
	run "$MOAT" "$c" --help
	cp "$T/.out" "$T/help"
	grep -q "^usage: moat $c" "$T/help" && grep -qE '^[A-Z].*\.$' "$T/help" &&
		grep -q '^options:$' "$T/help" && grep -qE '^  -h, --help ' "$T/help" &&
		grep -A1 '^example:$' "$T/help" | grep -qE "^  moat $c( |\$)" &&
		ok "moat $c --help: synopsis, summary, options and an example" ||
		{ not_ok "moat $c --help: synopsis, summary, options and an example" && _show moat "$c" --help; }
	run "$MOAT" help "$c"
	cmp -s "$T/.out" "$T/help" && ok "moat help $c is moat $c --help" || not_ok "moat help $c is moat $c --help"
	man_section ".SS $c" >"$T/man-cmd"
	[ -s "$T/man-cmd" ] && ok "docs/moat.1 has a section for $c" || not_ok "docs/moat.1 has a section for $c"
	missing=
	for o in $(sed -n 's/^  \(-., \|    \)--\([a-z-]*\).*/\2/p' "$T/help"); do
		case $o in verbose | quiet | help) f=$T/man-options ;; *) f=$T/man-cmd ;; esac
		grep -qF -- "\\-\\-$o" "$f" || missing="$missing man:--$o"
		grep -qF -- "--$o" "$README" || missing="$missing README:--$o"
	done
	for o in $(sed -n 's/^  -\(.\), --.*/\1/p' "$T/help"); do
		case $o in v | q | h) f=$T/man-options ;; *) f=$T/man-cmd ;; esac
		grep -qF -- "\\-$o" "$f" || missing="$missing man:-$o"
	done
	for o in $(sed -n 's/^\.BR\? \\-\\-\([a-z-]*\).*/\1/p; s/^\.BR\? \\-.\(, \| "\)* \\-\\-\([a-z-]*\).*/\2/p; s/^\.BI \\-\\-\([a-z-]*\).*/\1/p' "$T/man-cmd"); do
		grep -qE -- "^  (-., |    )--$o( |\$)" "$T/help" || missing="$missing help:--$o"
	done
	[ -z "$missing" ] && ok "moat $c: --help, the man page and the README list the same options" ||
		not_ok "moat $c: --help, the man page and the README list the same options (missing:$missing)"
done
run "$MOAT" help
cmp -s "$T/.out" <("$MOAT" --help) && ok "moat help is moat --help" || not_ok "moat help is moat --help"
run "$MOAT" help frobnicate
[ "$rc" -eq 2 ] && grep -q "'frobnicate' is not a moat command" "$T/.err" && ok "moat help of an unknown command: status 2" ||
	{ not_ok "moat help of an unknown command: status 2" && _show moat help frobnicate; }
run "$MOAT" version
[ "$rc" -eq 0 ] && [ "$out" = "$("$MOAT" --version)" ] && ok "moat version is moat --version" || { not_ok "moat version is moat --version" && _show moat version; }

run "$MOAT" --version
[ "$rc" -eq 0 ] && echo "$out" | grep -qE '^moat [0-9]+\.[0-9]+\.[0-9]+' && ok "moat --version" || { not_ok "moat --version" && _show moat --version; }

# Usage errors: status 2, a message on stderr, nothing on stdout.
usage_error() {
	local name=$1 want=$2
	shift 2
	run "$MOAT" "$@"
	[ "$rc" -eq 2 ] && [ -z "$out" ] && grep -qE -- "$want" "$T/.err" && ok "$name: status 2" ||
		{ not_ok "$name: status 2 and /$want/ on stderr" && _show moat "$@"; }
}
usage_error "no command" '^usage: moat'
usage_error "only -v" '^usage: moat' -v
usage_error "an unknown command" "'frobnicate' is not a moat command" frobnicate
expect_out "with a hint" "^hint: see 'moat --help'"
usage_error "an unknown global option" "unknown option '--bogus'" --bogus
usage_error "run: an unknown option" "unknown option '--bogus'" run --bogus -- true
expect_out "run's usage follows" '^usage: moat run '
usage_error "run: no --" "missing '--'" run true
usage_error "run: nothing after --" "no command after '--'" run --
usage_error "shell: an unknown option" "unknown option" shell --bogus
usage_error "profile: an unknown option" "unknown option" profile --bogus
usage_error "profile: an unknown format" "unknown format 'bogus'" profile --format=bogus
usage_error "wrap: no name" 'usage: moat wrap' wrap
usage_error "wrap: no binary" 'usage: moat wrap' wrap name
usage_error "profile: --format without its value" "option '--format' needs FORMAT" profile --format
usage_error "a flag given a value" "option '--write' takes no value" allow --write=yes git "$HOME/.gitconfig"
usage_error "an unknown short option in a cluster" "unknown option '-x'" -vx check
usage_error "wrap: --env without =" "--env needs KEY=VALUE" wrap name --env FOO /bin/true
# The usage line advertises --trace: it must not be rejected as unknown.
run "$MOAT" run --trace -- true
[ "$rc" -eq 0 ] && ok "run accepts the --trace its usage advertises" ||
	{ not_ok "run accepts the --trace its usage advertises" && _show moat run --trace -- true; }

# One parser for every command: the conventions of git and GNU tools.
rm -rf "$PROJ/.moat"
run "$MOAT" profile --format sbpl
cp "$T/.out" "$T/sbpl-space"
[ "$rc" -eq 0 ] && grep -q '^(version 1)' "$T/sbpl-space" && ok "--format sbpl (value as the next argument)" ||
	{ not_ok "--format sbpl (value as the next argument)" && _show profile --format sbpl; }
run "$MOAT" profile --format=sbpl
[ "$rc" -eq 0 ] && cmp -s "$T/.out" "$T/sbpl-space" && ok "--format=sbpl gives the same" ||
	{ not_ok "--format=sbpl gives the same" && _show profile --format=sbpl; }
mkdir -p "$HOME/.g1" "$HOME/.g2" "$HOME/.g3" "$HOME/.g4"
run "$MOAT" allow git "$HOME/.g1"
[ "$rc" -eq 0 ] && grep -q "^moat: granted git read access to ~/.g1\$" "$T/.err" &&
	ok "control: allow says what it granted" || { not_ok "control: allow says what it granted" && _show allow; }
for q in "-q allow git ~/.g2" "allow -q git ~/.g3" "allow git ~/.g4 --quiet"; do
	run "$MOAT" $q # moat expands the literal ~/
	g=${q#*~/} g=${g%% *}
	[ "$rc" -eq 0 ] && [ -z "$err" ] && grep -qF "~/$g\"" "$XDG_CONFIG_HOME/moat/config.zon" &&
		ok "moat $q: granted, without the informational line" || { not_ok "moat $q: granted, without the informational line" && _show $q; }
done
run "$MOAT" -q allow git "$HOME/a\"b"
[ "$rc" -eq 1 ] && grep -q "refusing to grant" "$T/.err" && ok "-q keeps the errors" || { not_ok "-q keeps the errors" && _show -q allow; }
for v in "-v check" "check -v" "check --verbose"; do
	run "$MOAT" $v
	[ "$rc" -eq 0 ] && grep -q '^moat: flake' "$T/.err" &&
		ok "moat $v: verbose" || { not_ok "moat $v: verbose" && _show $v; }
done
run "$MOAT" check
[ "$rc" -eq 0 ] && ! grep -q '^moat: flake' "$T/.err" && ok "control: moat check is not verbose by itself" ||
	{ not_ok "control: moat check is not verbose by itself" && _show check; }
usage_error "an option-like operand is an option" "unknown option '-x'" detect -x
run "$MOAT" detect -- -x
[ "$rc" -eq 1 ] && grep -q "cannot use '-x'" "$T/.err" && ok "after --, '-x' is an operand" ||
	{ not_ok "after --, '-x' is an operand" && _show detect -- -x; }
run "$MOAT" run -- echo -v --trace -- -q
[ "$rc" -eq 0 ] && [ "$out" = "-v --trace -- -q" ] && ok "run: everything after -- is the command's" ||
	{ not_ok "run: everything after -- is the command's" && _show run -- echo; }
"$MOAT" wrap conv /usr/bin/true >/dev/null 2>&1
run "$MOAT" run conv -v -- sh -c 'echo "$PATH"'
[ "$rc" -eq 0 ] && grep -q "^moat: shell conv: " "$T/.err" && grep -q "/conv/bin:" "$T/.out" &&
	ok "run: shell names and moat's options before --" || { not_ok "run: shell names and moat's options before --" && _show run conv -v; }
run "$MOAT" -vq check
[ "$rc" -eq 0 ] && ! grep -q '^moat: flake' "$T/.err" && ok "-vq: short options group, the last wins" ||
	{ not_ok "-vq: short options group, the last wins" && _show -vq check; }
rm -f "$XDG_CONFIG_HOME/moat/config.zon"

# Output that cannot be written is an error, not a silent success.
if [ -w /dev/full ]; then
	run sh -c '"$0" --help >/dev/full' "$MOAT"
	[ "$rc" -ne 0 ] && grep -q 'cannot write' "$T/.err" && ok "--help to a full disk fails" || { not_ok "--help to a full disk fails" && _show --help; }
	run sh -c '"$0" profile >/dev/full' "$MOAT"
	[ "$rc" -ne 0 ] && grep -q 'cannot write' "$T/.err" && ok "profile to a full disk fails" || { not_ok "profile to a full disk fails" && _show profile; }
else
	skip "prerequisite: a writable /dev/full"
fi

# moat profile: the rules run and shell would apply here.
rm -rf "$PROJ/.moat" # made by the moat run above
run "$MOAT" profile
[ "$rc" -eq 0 ] && ok "moat profile" || { not_ok "moat profile" && _show moat profile; }
expect_out "the root: read/write/exec" "^$PROJ +read/write/exec +root\$"
expect_out "system dirs: read/exec" '^/usr +read/exec +system$'
expect_out "/etc: read only" '^/etc +read +system$'
expect_out "devices" '^/dev/null +read/write +device$'
expect_out "absent paths are marked" 'absent, no rule|^/nix/store'
expect_out "the network is open" '^network +open'
expect_out "TMPDIR" "^env TMPDIR=$PROJ/.moat/tmp\$"
expect_out "the kernel's Landlock ABI" '^kernel: Landlock ABI [0-9]+$'
expect_out "what is not enforced" '^not enforced: '
expect_no_out "HOME is not in the rules" 0 "^$HOME +"
expect_out "/tmp is the session's own" '^/tmp +read/write +private$'
expect_out "and says how the session is isolated" '^isolation: '
expect_out "and that its terminal is its own" '^terminal: its own pseudo-terminal'
expect_no_out "the caller's terminal is in no rule" 0 '^/dev/pts/[0-9]+ '
[ ! -e "$PROJ/.moat" ] && ok "moat profile changes nothing on disk" || not_ok "moat profile changes nothing on disk"
"$MOAT" wrap tools /usr/bin/true >/dev/null
run "$MOAT" profile tools
expect_out "a named shell is listed read/exec" "/moat/shells/tools +read/exec +shell\$"
cd "$HOME" || exit 1
expect_status "moat profile in \$HOME is refused" 1 "$MOAT" profile
expect_out "with the seed's reason" 'home is meant to withhold'

done_testing
