#!/usr/bin/env bash
# Broken shells: a missing, unreadable or malformed manifest, a name not in
# it, entries that point nowhere or back at moat-wrapper, and moat wrap's own
# refusals. Each: a clear error, the right status, nothing run or left over.
# kernel-independent: broken manifests and moat wrap's refusals, judged before the sandbox starts.
. "$(dirname "$0")/../lib.sh"

export MOAT_ROOT=$PROJ
S=$T/shell
mkdir -p "$S/bin" "$S/share/moat"
ln -s "$WRAPPER" "$S/bin/tool"
MF=$S/share/moat/manifest
echo "PROJECT-FILE" >"$PROJ/readme"

# broken NAME STATUS PATTERN [late]: $S/bin/tool fails with STATUS and says
# PATTERN, before anything ran (no output from cat) and, unless the failure
# comes at exec time (late), before the wrapper set up .moat in the root.
broken() {
	run "$S/bin/tool" "$PROJ/readme"
	if [ "$rc" -eq "$2" ] && grep -qE -- "$3" "$T/.err" && [ -z "$out" ] &&
		{ [ "${4:-}" = late ] || [ ! -e "$PROJ/.moat" ]; }; then
		ok "$1"
	else
		not_ok "$1 (want status $2, /$3/, no output, no .moat)" && _show tool
	fi
	rm -rf "$PROJ/.moat"
}

broken "a missing manifest" 125 "^moat-wrapper: cannot open '$MF': No such file"
mkdir "$MF"
broken "a manifest that is a directory" 125 "'$MF' is not a regular file"
rmdir "$MF"
printf 'tool /usr/bin/cat\n' >"$MF"
broken "a line without a tab" 125 "$MF:1: expected '<name><TAB>/path/to/binary'"
printf '# comment\n\ntool\tusr/bin/cat\n' >"$MF"
broken "a relative path (line numbers count comments)" 125 "$MF:3: 'usr/bin/cat' is not an absolute path"
printf 'tool\t/usr/bin/cat\ntool\t/usr/bin/env\n' >"$MF"
broken "a name listed twice" 125 "$MF:2: 'tool' is listed twice"
printf 'tool\t/usr/bin/cat\001\n' >"$MF"
broken "a control character in the path" 125 "$MF:1: .*control character"
printf 'tool\t/usr/bin/cat\0\n' >"$MF"
broken "a NUL byte" 125 "$MF: contains a NUL byte"
printf 'tool\t/%s\n' "$(head -c 5000 /dev/zero | tr '\0' x)" >"$MF"
broken "a path longer than PATH_MAX" 125 "$MF:1: the path is longer than PATH_MAX"
head -c 2000000 /dev/zero | tr '\0' '#' >"$MF"
broken "a manifest too large to be one" 125 "larger than"
printf 'other\t/usr/bin/cat\n' >"$MF"
broken "a name not in the manifest" 125 "'tool' is not in the manifest of shell '$S'"
expect_out "with a hint to add it" "^hint: .*moat wrap"
if ! is_root; then
	printf 'tool\t/usr/bin/cat\n' >"$MF"
	chmod 000 "$MF"
	broken "an unreadable manifest" 125 "cannot open '$MF': Permission denied"
	chmod 644 "$MF"
else
	skip "prerequisite: not root (root reads a mode 000 manifest anyway; the sandbox case below covers root)"
fi

printf 'tool\t/nonexistent/bin/tool\n' >"$MF"
broken "an entry pointing at a missing binary is 127" 127 "'/nonexistent/bin/tool': No such file"
printf 'tool\t%s\n' "$WRAPPER" >"$MF"
broken "an entry pointing back at moat-wrapper is 126" 126 "points back at moat-wrapper"
expect_out "with a hint" '^hint: .*real binary'
expect_ok "moat wrap a real shell" "$MOAT" wrap real /usr/bin/cat
printf 'tool\t%s\n' "$XDG_DATA_HOME/moat/shells/real/bin/cat" >"$MF"
broken "an entry pointing at another shell's wrapper (a loop) is 126" 126 "points back at moat-wrapper"
printf 'tool\t%s\n' "$S/bin/tool" >"$MF"
broken "an entry pointing at itself is 126" 126 "points back at moat-wrapper"
printf 'tool\t/usr/bin\n' >"$MF"
broken "an entry that is a directory is 126" 126 "/usr/bin" late
expect_no_out "with no hint to grant exec on it" 126 'moat allow'
echo 'echo hi' >"$T/noexec"
printf 'tool\t%s\n' "$T/noexec" >"$MF"
broken "an entry that is not executable is 126" 126 "$T/noexec" late
expect_no_out "with no hint to grant exec (it has no x bit)" 126 'moat allow'
printf '#!/bin/sh\necho RAN\n' >"$T/outside-tool"
chmod 755 "$T/outside-tool"
printf 'tool\t%s\n' "$T/outside-tool" >"$MF"
run "$S/bin/tool"
[ "$rc" -eq 126 ] && ! grep -q RAN "$T/.out" && ok "an executable outside the allowed dirs is refused by the sandbox (126)" ||
	{ not_ok "an executable outside the allowed dirs is refused by the sandbox (126)" && _show tool; }
expect_out "with a hint to grant it" "^hint: .*moat allow tool .*--exec"

# Inside moat run, a shell that was not named is unreadable: clear error.
run "$MOAT" run -- "$XDG_DATA_HOME/moat/shells/real/bin/cat" readme
[ "$rc" -eq 125 ] && grep -q "manifest.*Permission denied" "$T/.err" && ! grep -q PROJECT-FILE "$T/.out" &&
	ok "a shell not named in the session: its manifest is unreadable (125)" ||
	{ not_ok "a shell not named in the session: its manifest is unreadable (125)" && _show moat run -- real/bin/cat; }

# moat wrap refuses bad binaries before it creates anything.
expect_status "moat wrap: a missing binary" 1 "$MOAT" wrap fresh /usr/bin/cat /nonexistent/tool
expect_out "names it" "/nonexistent/tool"
expect_status "moat wrap: a name not on PATH" 1 "$MOAT" wrap fresh moat-no-such-tool
expect_out "says so" "cannot find 'moat-no-such-tool' on PATH"
expect_status "moat wrap: a non-executable file" 1 "$MOAT" wrap fresh "$T/noexec"
expect_out "says so" "is not an executable file"
expect_status "moat wrap: a directory" 1 "$MOAT" wrap fresh /usr/bin
expect_status "moat wrap: moat-wrapper itself" 1 "$MOAT" wrap fresh "$WRAPPER"
expect_out "says so" "moat-wrapper itself"
expect_status "moat wrap: another shell's wrapper" 1 "$MOAT" wrap fresh "$XDG_DATA_HOME/moat/shells/real/bin/cat"
nl=$'\n'
expect_status "moat wrap: a shell name with a control character" 1 "$MOAT" wrap "bad${nl}name" /usr/bin/cat
[ ! -e "$XDG_DATA_HOME/moat/shells/fresh" ] && ! ls "$XDG_DATA_HOME/moat/shells" | grep -q bad &&
	ok "no refused binary left a shell behind" || not_ok "no refused binary left a shell behind"
expect_status "moat wrap: an env file line moat refuses" 1 "$MOAT" wrap fresh --env LD_PRELOAD=/x.so /usr/bin/cat
expect_out "says why" "LD_PRELOAD"
[ ! -e "$XDG_DATA_HOME/moat/shells/fresh" ] && ok "a refused --env left no shell behind" ||
	{ not_ok "a refused --env left no shell behind" && find "$XDG_DATA_HOME/moat/shells/fresh" | sed 's/^/#   /'; }
expect_status "moat wrap without a name is a usage error" 2 "$MOAT" wrap
expect_status "moat wrap with no binary is a usage error" 2 "$MOAT" wrap fresh
expect_status "moat wrap --env without = is a usage error" 2 "$MOAT" wrap fresh --env NOEQUALS /usr/bin/cat
expect_status "moat wrap with an unknown option is a usage error" 2 "$MOAT" wrap --bogus fresh /usr/bin/cat

done_testing
