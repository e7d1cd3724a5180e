#!/usr/bin/env bash
# Names moat did not choose are shown, never obeyed (issue 19, item 3):
# errors, warnings, `moat profile` and `moat approvals` print C0 and C1
# controls, the Unicode bidirectional controls and bytes that are not
# UTF-8 as \xNN, whatever the locale. (The confirm prompt: confirm.sh; the
# --trace report: tests/trace/report.sh.) Each case has a control showing
# the raw bytes are really in the name.
# kernel-independent: how moat prints names it did not choose.
. "$(dirname "$0")/../lib.sh"

C1=$'\xc2\x9b'   # CSI, U+009B, in UTF-8
RAW=$'\x9b'      # CSI as one raw byte
RLO=$'\xe2\x80\xae'
# raw_in FILE: does FILE hold a C1 byte, ESC, or U+202E?
raw_in() { LC_ALL=C grep -q $'[\x80-\x9f\x1b]\|\xe2\x80\xae' "$1"; }

# An error quoting a planted name (a shell path sandboxed code chose).
mkdir -p "$PROJ/real-shell/bin"
name="x${C1}2J${RLO}y${RAW}"
run "$MOAT" run -- ln -s real-shell "$PROJ/$name"
ls "$PROJ" | LC_ALL=C grep -q $'\xc2\x9b' && ok "control: the planted name holds the raw bytes" ||
	not_ok "control: the planted name holds the raw bytes"
for l in C C.UTF-8; do
	run env LC_ALL=$l "$MOAT" run "./$name" -- true
	[ "$rc" -ne 0 ] && ! raw_in "$T/.err" && grep -qF 'x\xc2\x9b2J\xe2\x80\xaey\x9b' "$T/.err" &&
		ok "LC_ALL=$l: an error shows the name as \\xNN" ||
		{ not_ok "LC_ALL=$l: an error shows the name as \\xNN" && _show "run ./<name>"; }
done
rm -rf "$PROJ/$name" "$PROJ/real-shell"

# A warning quoting one: a grant through a link planted in the project.
mkdir -p "$XDG_CONFIG_HOME/moat" "$HOME/.cache/t"
ln -s "$HOME/.cache/t" "$PROJ/l${C1}nk"
printf '.{ .allow = .{ .{ .bin = "*", .paths = .{ "%s" } } } }\n' "$PROJ/l${C1}nk" >"$XDG_CONFIG_HOME/moat/config.zon"
run "$MOAT" run -- true
grep -q 'warning' "$T/.err" && ! raw_in "$T/.err" && grep -qF 'l\xc2\x9bnk' "$T/.err" &&
	ok "a warning shows it as \\xNN too" || { not_ok "a warning shows it as \\xNN too" && _show warning; }
rm -f "$XDG_CONFIG_HOME/moat/config.zon" "$PROJ/l${C1}nk"

# moat profile in a project so named: the root, TMPDIR, MOAT_ROOT.
EVIL=$HOME/p${C1}2J${RLO}q${RAW}
mkdir -p "$EVIL"
cd "$EVIL" || exit 1
for l in C C.UTF-8; do
	run env LC_ALL=$l "$MOAT" profile
	[ "$rc" = 0 ] && ! raw_in "$T/.out" && grep -qF 'p\xc2\x9b2J\xe2\x80\xaeq\x9b' "$T/.out" &&
		ok "LC_ALL=$l: moat profile shows the root as \\xNN" || { not_ok "LC_ALL=$l: moat profile shows the root as \\xNN" && _show profile; }
done
run "$MOAT" -v profile
[ "$rc" = 0 ] && grep -q '^moat: root ' "$T/.err" && ! raw_in "$T/.err" &&
	ok "moat -v says where the root is, escaped too" || { not_ok "moat -v says where the root is, escaped too" && _show -v; }
run "$MOAT" profile --json
[ "$rc" = 0 ] && ! raw_in "$T/.out" && grep -qF 'p\u009b2J\u202eq\ufffd' "$T/.out" &&
	ok "moat profile --json: \\u escapes, the raw byte as U+FFFD" || { not_ok "moat profile --json: \\u escapes" && _show json; }
# A name that is plain UTF-8 is left alone where the locale is UTF-8.
mkdir -p "$HOME/caf"$'\xc3\xa9'
cd "$HOME/caf"$'\xc3\xa9' || exit 1
run env LC_ALL=C.UTF-8 "$MOAT" profile
grep -q "^$HOME/caf"$'\xc3\xa9'" " "$T/.out" && ok "UTF-8 names print as they are in a UTF-8 locale" ||
	not_ok "UTF-8 names print as they are in a UTF-8 locale"
run env LC_ALL=C "$MOAT" profile
grep -qF "$HOME/caf\\xc3\\xa9 " "$T/.out" && ok "and as \\xNN in the C locale, where a terminal may read 8-bit controls" ||
	not_ok "and as \\xNN in the C locale"
cd "$PROJ" || exit 1

done_testing
