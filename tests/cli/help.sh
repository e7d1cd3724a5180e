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
if [ -f "$MOAT_SRC/docs/moat.1" ]; then
	missing=
	# main.c: "Help text per command lives in docs/moat.1 too; keep them in step."
	for c in $commands; do grep -qE "^\.B (moat )?$c( |\$)" "$MOAT_SRC/docs/moat.1" || missing="$missing $c"; done
	[ -z "$missing" ] && ok "docs/moat.1 has an entry for every command" ||
		not_ok "docs/moat.1 has an entry for every command (missing:$missing)"
else
	skip "no docs/moat.1 in $MOAT_SRC"
fi

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
# The usage line advertises --trace: it must not be rejected as unknown.
run "$MOAT" run --trace -- true
[ "$rc" -ne 2 ] && ok "run accepts the --trace its usage advertises" ||
	{ not_ok "run accepts the --trace its usage advertises" && _show moat run --trace -- true; }

# Output that cannot be written is an error, not a silent success.
if [ -w /dev/full ]; then
	run sh -c '"$0" --help >/dev/full' "$MOAT"
	[ "$rc" -ne 0 ] && grep -q 'cannot write' "$T/.err" && ok "--help to a full disk fails" || { not_ok "--help to a full disk fails" && _show --help; }
	run sh -c '"$0" profile >/dev/full' "$MOAT"
	[ "$rc" -ne 0 ] && grep -q 'cannot write' "$T/.err" && ok "profile to a full disk fails" || { not_ok "profile to a full disk fails" && _show profile; }
else
	skip "no writable /dev/full"
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
expect_no_out "HOME is not in the rules" "^$HOME +"
expect_out "/tmp is the session's own" '^/tmp +read/write +private$'
expect_out "and says how the session is isolated" '^isolation: '
expect_out "and that its terminal is its own" '^terminal: its own pseudo-terminal'
expect_no_out "the caller's terminal is in no rule" '^/dev/pts/[0-9]+ '
[ ! -e "$PROJ/.moat" ] && ok "moat profile changes nothing on disk" || not_ok "moat profile changes nothing on disk"
"$MOAT" wrap tools /usr/bin/true >/dev/null
run "$MOAT" profile tools
expect_out "a named shell is listed read/exec" "/moat/shells/tools +read/exec +shell\$"
cd "$HOME" || exit 1
expect_status "moat profile in \$HOME is refused" 1 "$MOAT" profile
expect_out "with the seed's reason" 'home is meant to withhold'

done_testing
