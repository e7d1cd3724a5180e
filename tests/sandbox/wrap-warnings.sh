#!/usr/bin/env bash
# moat wrap warns when a binary lies where the sandbox will not let it run
# (HOME outside the project, /tmp), and says how out; the warning is right:
# the wrapper cannot run it until the hinted grant is given.
# kernel-independent: moat wrap's warnings.
. "$(dirname "$0")/../lib.sh"
SH=$XDG_DATA_HOME/moat/shells/placed

mkdir -p "$HOME/.nvm/bin" "$T/scratch"
printf '#!/bin/sh\necho NODE-RAN\n' >"$HOME/.nvm/bin/fakenode"
printf '#!/bin/sh\necho TMP-RAN\n' >"$T/scratch/tmptool"
printf '#!/bin/sh\necho PROJ-RAN\n' >"$PROJ/projtool"
chmod +x "$HOME/.nvm/bin/fakenode" "$T/scratch/tmptool" "$PROJ/projtool"

run "$MOAT" wrap placed "$HOME/.nvm/bin/fakenode"
[ "$rc" -eq 0 ] && grep -q "^moat: warning: '$HOME/.nvm/bin/fakenode' lies in your home directory" "$T/.err" &&
	ok "a binary under HOME: wrapped, with a warning" || { not_ok "a binary under HOME: wrapped, with a warning" && _show wrap; }
expect_out "and the grant that fixes it" "^hint: grant it: moat allow fakenode ~/.nvm/bin --exec\$"
run env MOAT_ROOT="$PROJ" "$SH/bin/fakenode"
[ "$rc" -eq 126 ] && ! grep -q NODE-RAN "$T/.out" && ok "the warning is right: its wrapper cannot run it" ||
	{ not_ok "the warning is right: its wrapper cannot run it" && _show fakenode; }
expect_ok "the hinted grant, pasted" "$MOAT" allow fakenode '~/.nvm/bin' --exec
run env MOAT_ROOT="$PROJ" "$SH/bin/fakenode"
[ "$rc" -eq 0 ] && grep -q NODE-RAN "$T/.out" && ok "then it runs" || { not_ok "then it runs" && _show fakenode; }
run "$MOAT" wrap placed "$HOME/.nvm/bin/fakenode"
[ "$rc" -eq 0 ] && ! grep -q warning "$T/.err" && ok "and wrapping it again gives no warning" ||
	{ not_ok "and wrapping it again gives no warning" && _show wrap; }

case $T in
/tmp/*)
	run "$MOAT" wrap placed "$T/scratch/tmptool"
	[ "$rc" -eq 0 ] && grep -q "^moat: warning: '$T/scratch/tmptool' lies under /tmp, which the sandbox denies" "$T/.err" &&
		grep -q '^hint: install it outside /tmp' "$T/.err" &&
		ok "a binary under /tmp: wrapped, with a warning" || { not_ok "a binary under /tmp: wrapped, with a warning" && _show wrap; }
	run env MOAT_ROOT="$PROJ" "$SH/bin/tmptool"
	[ "$rc" -eq 126 ] && ! grep -q TMP-RAN "$T/.out" && ok "the warning is right: its wrapper cannot run it" ||
		{ not_ok "the warning is right: its wrapper cannot run it" && _show tmptool; }
	;;
*) skip "prerequisite: a test directory under /tmp (TMPDIR is ${TMPDIR:-unset})" && skip "prerequisite: the same" ;;
esac

run "$MOAT" wrap placed /bin/cat "$PROJ/projtool"
[ "$rc" -eq 0 ] && ! grep -q warning "$T/.err" && ok "no warning for a system binary or one in the project" ||
	{ not_ok "no warning for a system binary or one in the project" && _show wrap; }
run env MOAT_ROOT="$PROJ" "$SH/bin/projtool"
expect_out "(the one in the project runs)" '^PROJ-RAN$'

done_testing
