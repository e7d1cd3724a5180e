# moat allow in a real sandbox: a grant lets exactly that path through, read
# only unless --write, exec only with --exec; its sibling stays denied.
# Also: dirs-scoped rules, per-binary grants in moat-wrapper, and config.zon
# inside the root refused.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$HOME/.cache/tool" "$HOME/.cache/sibling" "$HOME/.tools/bin"
echo "CACHED" >"$HOME/.cache/tool/data"
echo "SIBLING" >"$HOME/.cache/sibling/data"
printf '#!/bin/sh\necho ran-granted-tool\n' >"$HOME/.tools/bin/hello"
chmod +x "$HOME/.tools/bin/hello"

expect_denied "before any grant, the cache is unreadable" "$MOAT" run -- cat "$HOME/.cache/tool/data"

expect_ok "moat allow records a read grant" "$MOAT" allow '*' "$HOME/.cache/tool"
expect_out "the grant is stored with ~ unexpanded" 'granted \* read access to ~/.cache/tool'
run cat "$XDG_CONFIG_HOME/moat/config.zon"
expect_out "config.zon holds the portable form" '"~/.cache/tool"'

expect_ok "a read grant lets the path be read" "$MOAT" run -- cat "$HOME/.cache/tool/data"
expect_out "and the content is the file's" CACHED
expect_denied "a read grant does not allow writing" "$MOAT" run -- sh -c "echo x >'$HOME/.cache/tool/new'"
[ ! -e "$HOME/.cache/tool/new" ] && ok "no file was created" || not_ok "a file was created through a read grant"
expect_denied "the sibling directory stays denied" "$MOAT" run -- cat "$HOME/.cache/sibling/data"

expect_ok "re-granting with --write widens the rule" "$MOAT" allow '*' "$HOME/.cache/tool" --write
run grep -c '\.bin' "$XDG_CONFIG_HOME/moat/config.zon"
[ "$out" = 1 ] && ok "widening kept one rule" || not_ok "widening added a second rule ($out)"
expect_ok "a write grant allows writing" "$MOAT" run -- sh -c "echo x >'$HOME/.cache/tool/new'"
[ -f "$HOME/.cache/tool/new" ] && ok "the file was written" || not_ok "the write did not land"

expect_ok "grant read on the tools dir" "$MOAT" allow '*' "$HOME/.tools"
expect_denied "without --exec a granted binary cannot run" "$MOAT" run -- "$HOME/.tools/bin/hello"
expect_ok "grant --exec" "$MOAT" allow '*' "$HOME/.tools" --exec
expect_ok "with --exec it runs" "$MOAT" run -- "$HOME/.tools/bin/hello"
expect_out "and prints" ran-granted-tool

# A grant on a single file: Landlock refuses a directory's rights on it, so
# it gets the file's share of them (read and write), and no more.
echo "NOTE" >"$HOME/.cache/sibling/note"
expect_denied "before a grant, a file in a sibling is unreadable" "$MOAT" run -- cat "$HOME/.cache/sibling/note"
expect_ok "moat allow --write on a single file" "$MOAT" allow '*' "$HOME/.cache/sibling/note" --write
expect_ok "the granted file is readable" "$MOAT" run -- cat "$HOME/.cache/sibling/note"
expect_out "with its content" '^NOTE$'
expect_ok "and writable" "$MOAT" run -- sh -c "echo CHANGED >'$HOME/.cache/sibling/note'"
[ "$(cat "$HOME/.cache/sibling/note")" = CHANGED ] && ok "the write landed" || not_ok "the write landed"
expect_denied "the file beside it stays unreadable" "$MOAT" run -- cat "$HOME/.cache/sibling/data"
# Writing it is not replacing it: its directory is not granted, so the
# sandbox can neither move the granted file aside nor make one beside it.
echo spare >"$HOME/.cache/sibling/spare"
mv "$HOME/.cache/sibling/spare" "$HOME/.cache/sibling/spare2" && rm "$HOME/.cache/sibling/spare2" &&
	ok "control: without moat a file there can be moved and removed" ||
	not_ok "control: without moat a file there can be moved and removed"
expect_denied "the granted file cannot be moved aside" "$MOAT" run -- mv "$HOME/.cache/sibling/note" "$HOME/.cache/sibling/moved"
expect_denied "nor removed" "$MOAT" run -- rm -f "$HOME/.cache/sibling/note"
expect_denied "nor a file made beside it" "$MOAT" run -- sh -c "echo x >'$HOME/.cache/sibling/planted'"
[ -f "$HOME/.cache/sibling/note" ] && [ ! -e "$HOME/.cache/sibling/moved" ] && [ ! -e "$HOME/.cache/sibling/planted" ] &&
	ok "the granted file is still there, and nothing beside it" ||
	not_ok "the granted file is still there, and nothing beside it"
expect_ok "unallow the file" "$MOAT" unallow '*' "$HOME/.cache/sibling/note"

expect_ok "unallow removes the grant" "$MOAT" unallow '*' "$HOME/.cache/tool"
expect_denied "after unallow the path is denied again" "$MOAT" run -- cat "$HOME/.cache/tool/data"
expect_status "unallow of a missing grant fails" 1 "$MOAT" unallow '*' "$HOME/.cache/tool"

# dirs: a rule only in force when the root is under one of its dirs.
mkdir -p "$HOME/work/a" "$HOME/play/b"
cat >"$XDG_CONFIG_HOME/moat/config.zon" <<ZON
.{
    // only for work projects
    .allow = .{ .{ .bin = "*", .paths = .{ "~/.cache/tool" }, .dirs = .{ "~/work" } } },
}
ZON
cd "$HOME/work/a" && expect_ok "a dirs rule applies under its dir" "$MOAT" run -- cat "$HOME/.cache/tool/data"
cd "$HOME/play/b" && expect_denied "and not elsewhere" "$MOAT" run -- cat "$HOME/.cache/tool/data"
cd "$PROJ" || exit 1
expect_status "moat allow leaves dirs rules alone (unallow finds nothing)" 1 "$MOAT" unallow '*' "$HOME/.cache/tool"
run grep -c 'only for work projects' "$XDG_CONFIG_HOME/moat/config.zon"
[ "$out" = 1 ] && ok "the user's comment survived" || not_ok "the comment was lost"

# Per-binary grants in moat-wrapper: cat gets the grant, head does not.
rm "$XDG_CONFIG_HOME/moat/config.zon"
"$MOAT" wrap tools /bin/cat /usr/bin/head >/dev/null
"$MOAT" allow cat "$HOME/.cache/tool" >/dev/null 2>&1
SHELLBIN=$XDG_DATA_HOME/moat/shells/tools/bin
expect_ok "a wrapped binary gets its own grant" env MOAT_ROOT="$PROJ" "$SHELLBIN/cat" "$HOME/.cache/tool/data"
expect_denied "another wrapped binary does not" env MOAT_ROOT="$PROJ" "$SHELLBIN/head" "$HOME/.cache/tool/data"
expect_ok "in a session grants are unioned" "$MOAT" run tools -- head "$HOME/.cache/tool/data"

# A config.zon that sandboxed code could write would let it grant itself.
mkdir -p "$PROJ/.cfg/moat"
printf '.{ .allow = .{ .{ .bin = "*", .paths = .{ "~/.ssh" } } } }\n' >"$PROJ/.cfg/moat/config.zon"
expect_status "config.zon inside the root is refused" 125 env XDG_CONFIG_HOME="$PROJ/.cfg" "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
expect_out "with the reason" "inside the sandbox root"
expect_no_out "and the key did not leak" 125 DECOY-SSH-KEY

# A relative path in a hand-written grant would be resolved against the
# current directory and grant something else: refused, with its position.
mkdir -p "$PROJ/sub" && echo "SUB" >"$PROJ/sub/f"
printf '.{\n    .allow = .{ .{ .bin = "*", .paths = .{ "../.ssh" } } },\n}\n' >"$XDG_CONFIG_HOME/moat/config.zon"
expect_status "a relative grant in config.zon is refused" 125 "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
expect_out "at its line and column" "config.zon:2:[0-9]+: refusing to grant '\.\./\.ssh'"
expect_no_out "and the key did not leak" 125 DECOY-SSH-KEY

# What a grant costs a start: one lookup, which the plan's check of its
# path opens and the rule is then made on (and one for the directory
# siblings share), and one rule; no stat, no close, and no mapping a grant
# (what is left is the allocator's growth, fewer than one in five grants).
# Counted with strace against the same run with no grant, so what the
# machine adds cancels out.
if command -v strace >/dev/null && strace -f -c -o /dev/null true 2>/dev/null; then
	mkdir -p "$T/none/moat" "$T/many/moat"
	echo '.{}' >"$T/none/moat/config.zon"
	{
		echo '.{ .allow = .{ .{ .bin = "*", .paths = .{'
		for i in $(seq 100 399); do
			mkdir -p "$HOME/many/$i" && echo "\"$HOME/many/$i\","
		done
		echo '} } } }'
	} >"$T/many/moat/config.zon"
	echo MANY >"$HOME/many/399/f"
	expect_ok "control: with 300 grants, the last one is readable" env XDG_CONFIG_HOME="$T/many" "$MOAT" run -- cat "$HOME/many/399/f"
	expect_out "with its content" '^MANY$'
	# calls NAME: how many NAME calls the last count made.
	calls() { awk -v c="$1" '$NF == c { n = $4 } END { print n + 0 }' "$T/strace.$2"; }
	for c in none many; do
		# No LeakSanitizer under ptrace (the sanitizer pass's build).
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" XDG_CONFIG_HOME="$T/$c" \
			strace -f -c -o "$T/strace.$c" "$MOAT" run -- true || not_ok "moat run under strace ($c)"
	done
	# The mappings are musl's allocator's; a sanitizer build has its own.
	sanitized=
	grep -qa __asan_init "$MOAT" && sanitized=yes
	for call in openat2:302 landlock_add_rule:300 close:2 stat:0 mmap:60 munmap:60; do
		name=${call%%:*} want=${call#*:}
		if [ -n "$sanitized" ] && [[ $name == *map ]]; then
			skip "prerequisite: musl's allocator for counting $name (this build has the sanitizer's)"
			continue
		fi
		more=$(($(calls "$name" many) - $(calls "$name" none)))
		[ "$more" -le "$want" ] && ok "300 grants add $more $name calls (at most $want)" ||
			{ not_ok "300 grants add $more $name calls (at most $want)" && cat "$T/strace.many" | sed 's/^/# /'; }
	done
	expect_denied "a path beside the grants stays denied" env XDG_CONFIG_HOME="$T/many" "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
else
	skip "prerequisite: strace, to count what grants cost"
fi

# A hosts session keeps a descriptor of its own past the close of all from
# 3 (the proxy's record of refusals): with the grants' held ones beside it,
# every grant still has its rule, and the record still reports.
if command -v curl >/dev/null; then
	mkdir -p "$T/few/moat" "$HOME/few/a" "$HOME/few/z"
	echo FIRST >"$HOME/few/a/f" && echo LAST >"$HOME/few/z/f"
	printf '.{ .allow = .{ .{ .bin = "*", .paths = .{ "%s", "%s" } } } }\n' "$HOME/few/a" "$HOME/few/z" >"$T/few/moat/config.zon"
	run env XDG_CONFIG_HOME="$T/few" "$MOAT" run --trace --net allowed.invalid -- sh -c \
		"cat '$HOME/few/a/f' '$HOME/few/z/f'; curl -sS -m 5 -o /dev/null http://other.invalid/"
	grep -qx FIRST "$T/.out" && grep -qx LAST "$T/.out" && grep -q "other.invalid port 80, refused by moat's proxy" "$T/.err" &&
		ok "a hosts session with grants: both grants read, and the proxy's refusal reported" ||
		{ not_ok "a hosts session with grants: both grants read, and the proxy's refusal reported" && _show hosts-grants; }
else
	skip "prerequisite: curl, to meet the proxy"
fi

# A grant at a protected file that has a second name outside: before the
# tool starts, moat gives the file an inode of its own (launch/hardlinks.c),
# so the grant's rule must follow the path, not the descriptor held since
# planning, which by then names only the other name.
if command -v git >/dev/null && git init -q "$HOME/hl" && ln "$HOME/hl/.git/config" "$HOME/other-name"; then
	grep -q repositoryformatversion "$HOME/other-name" && ok "control: the other name reads as .git/config" ||
		not_ok "control: the other name reads as .git/config"
	expect_ok "grant the protected file" env XDG_CONFIG_HOME="$T/hl-cfg" "$MOAT" allow '*' "$HOME/hl/.git/config"
	(cd "$HOME/hl" && env XDG_CONFIG_HOME="$T/hl-cfg" "$MOAT" run -- cat "$HOME/other-name") >"$T/.out" 2>"$T/.err"
	! grep -q repositoryformatversion "$T/.out" && grep -q 'Permission denied' "$T/.err" &&
		ok "the other name is not readable through the grant" ||
		{ not_ok "the other name is not readable through the grant" && _show hl; }
	(cd "$HOME/hl" && env XDG_CONFIG_HOME="$T/hl-cfg" "$MOAT" run -- cat "$HOME/hl/.git/config") >"$T/.out" 2>"$T/.err"
	grep -q repositoryformatversion "$T/.out" && ok "the granted path itself is" ||
		{ not_ok "the granted path itself is" && _show hl-path; }
else
	skip "prerequisite: git, and a hard link in HOME"
fi

# A broken config fails every command that needs it, and is never rewritten.
printf '.{ .allow = .{ .{ .bin = "*", .pathz = .{ "~/x" } } } }\n' >"$XDG_CONFIG_HOME/moat/config.zon"
cp "$XDG_CONFIG_HOME/moat/config.zon" "$T/broken"
expect_status "run fails on a config with an unknown key" 125 "$MOAT" run -- true
expect_out "naming file:line:col" 'config.zon:1:[0-9]+: '
expect_status "allow refuses to edit it" 1 "$MOAT" allow '*' "$HOME/.cache/tool"
cmp -s "$T/broken" "$XDG_CONFIG_HOME/moat/config.zon" && ok "the broken file is untouched" || not_ok "the broken file was rewritten"

done_testing
