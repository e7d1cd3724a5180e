#!/usr/bin/env bash
# make demo (tests/demo.sh) shows one access allowed and one denied, and
# says only what it shows: with HOME below /tmp (issue 39, common in CI
# containers) its decoy HOME went below /tmp too, where a session has a
# /tmp of its own, and it printed "denied: ... No such file or directory"
# for a file that was absent, not denied. Now the decoy goes beside moat
# then, and where no place outside /tmp is at hand it says so and fails.
#
# Part of this world lives below /tmp on purpose (lib.sh keeps the rest out).
# kernel-independent: what make demo prints.
. "$(dirname "$0")/../lib.sh"

DEMO=$MOAT_SRC/tests/demo.sh
W=$(mktemp -d /tmp/moat-demo-test.XXXXXX) && W=$(cd "$W" && pwd -P) || exit 1
trap 'chmod -R u+rwX "$T" "$W" 2>/dev/null; rm -rf "$T" "$W" "${TMPDECOY:-}"' EXIT
# beside DIR: a copy of moat and moat-wrapper in DIR, the demo's build directory.
beside() { mkdir -p "$1" && cp "$MOAT" "$WRAPPER" "$1/"; }
beside "$T/b"
beside "$W/b"
mkdir -p "$W/home"

run sh "$DEMO" "$T/b"
[ "$rc" -eq 0 ] && ok "HOME outside /tmp: the demo passes" || { not_ok "demo with HOME outside /tmp" && _show demo; }
expect_out "and shows the key denied" '^denied:  cat ~/\.ssh/id_rsa -> .*Permission denied'

run env -u XDG_CACHE_HOME HOME="$W/home" sh "$DEMO" "$T/b"
[ "$rc" -eq 0 ] && ok "HOME below /tmp: the demo passes" || { not_ok "demo with HOME below /tmp" && _show demo; }
expect_out "with the key denied, not missing" '^denied:  cat ~/\.ssh/id_rsa -> .*Permission denied'
expect_no_out "and no absent file taken for a denial" 0 'No such file'
[ -z "$(ls -A "$T/b" | grep -v '^moat')" ] && ok "its world, beside moat, is gone after it" ||
	not_ok "left beside moat: $(ls -A "$T/b")"

run env -u XDG_CACHE_HOME HOME="$W/home" sh "$DEMO" "$W/b"
[ "$rc" -eq 1 ] && ok "HOME and the build directory below /tmp: the demo fails" ||
	{ not_ok "demo below /tmp (status $rc)" && _show demo; }
expect_out "saying why" '^make demo: cannot show a denial here: .* below /tmp'
expect_out "and how out" '^hint: name a directory elsewhere:  XDG_CACHE_HOME=/some/dir make demo$'
expect_no_out "claiming no denial" 1 '^denied:'

run env HOME="$W/home" XDG_CACHE_HOME="$T/cache" sh "$DEMO" "$W/b"
[ "$rc" -eq 0 ] && ok "the hint's way out works" || { not_ok "demo with XDG_CACHE_HOME outside /tmp" && _show demo; }
expect_out "the key denied" '^denied:  cat ~/\.ssh/id_rsa -> .*Permission denied'

done_testing
