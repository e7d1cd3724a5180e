# Grants on paths that do not exist yet: a write grant's directory under
# HOME is made (mode 0700, owned by the user, never below a directory
# sandboxed code can write) when a session or a wrapped tool starts, said
# under -v; a read grant on a missing path is "absent, no rule" in moat
# profile and moat check. And npm install into a fresh HOME works after
# `moat allow npm ~/.npm --write --exec` and nothing else.
. "$(dirname "$0")/../lib.sh"

expect_denied "control: without a grant, ~/.npm cannot be made" "$MOAT" run -- mkdir "$HOME/.npm"
[ ! -e "$HOME/.npm" ] && ok "and it was not" || not_ok "~/.npm was made without a grant"

expect_ok "grant a missing path --write" "$MOAT" allow '*' '~/.npm' --write
expect_ok "grant a missing path read-only" "$MOAT" allow '*' '~/.missing-ro'
expect_ok "moat check passes" "$MOAT" check
expect_out "noting the write grant's directory is made" "grant of '~/.npm' to \\*: absent, made \\(mode 0700\\)"
expect_out "noting the read grant has no rule" "grant of '~/.missing-ro' to \\*: absent, no rule"
expect_ok "moat profile" "$MOAT" profile
expect_out "lists the write grant as made at start" "$(re_quote "$HOME/.npm") .*grant for \\* \\(absent, made when the session starts\\)"
expect_out "lists the read grant as absent, no rule" "$(re_quote "$HOME/.missing-ro") .*grant for \\* \\(absent, no rule\\)"
expect_ok "moat profile --json" "$MOAT" profile --json
expect_out "exists false in JSON" "\"path\":\"$(re_quote "$HOME/.npm")\"[^}]*\"exists\":false"
[ ! -e "$HOME/.npm" ] && ok "moat profile and check make nothing" || not_ok "~/.npm was made by profile/check"

expect_ok "a session starts and writes into the made directory" "$MOAT" run -v -- sh -c "echo cached >'$HOME/.npm/x'"
expect_out "-v says what was made" "moat: made '$(re_quote "$HOME/.npm")' \\(mode 0700\\) for the write grant to \\*"
expect_out "-v notes the missing read grant" "grant of $(re_quote "$HOME/.missing-ro") to \\*: absent, no rule"
[ "$(stat -c '%a %u' "$HOME/.npm")" = "700 $(id -u)" ] && ok "mode 0700, owned by the user" ||
	not_ok "mode/owner $(stat -c '%a %u' "$HOME/.npm")"
[ "$(cat "$HOME/.npm/x")" = cached ] && ok "the write landed" || not_ok "the write did not land"
expect_ok "the next start makes nothing and says nothing of it" "$MOAT" run -v -- true
expect_no_out "no 'made' line" 0 "moat: made "
expect_denied "the read grant's sibling stays denied" "$MOAT" run -- cat "$HOME/.ssh/id_rsa"

# Nested: every missing level is made, each 0700.
expect_ok "grant a nested missing path --write" "$MOAT" allow '*' '~/.cache/a/b' --write
expect_ok "a session makes it" "$MOAT" run -q -- sh -c "echo y >'$HOME/.cache/a/b/y'"
[ "$(stat -c '%a' "$HOME/.cache/a")" = 700 ] && [ "$(stat -c '%a' "$HOME/.cache/a/b")" = 700 ] &&
	ok "each missing level is 0700" || not_ok "modes $(stat -c '%a' "$HOME/.cache/a" "$HOME/.cache/a/b" | tr '\n' ' ')"

# Below a directory sandboxed code can write (another write grant), a
# directory moat made could be replaced by a link: nothing is made there.
mkdir -p "$HOME/.shared"
expect_ok "grant a writable parent" "$MOAT" allow '*' '~/.shared' --write
expect_ok "control: sandboxed code can write into it" "$MOAT" run -q -- sh -c "mkdir '$HOME/.shared/probe' && rmdir '$HOME/.shared/probe'"
expect_ok "grant a missing path under it" "$MOAT" allow '*' '~/.shared/sub' --write
run "$MOAT" run -- true
[ "$rc" = 0 ] && [ ! -e "$HOME/.shared/sub" ] && ok "it is not made there" || not_ok "made under a writable directory"
expect_out "with a warning saying why" "not making '$(re_quote "$HOME/.shared/sub")' .*where sandboxed code could plant a link"

# Outside HOME nothing is made.
expect_ok "grant a missing path outside HOME" "$MOAT" allow '*' "$T/outside/dir" --write
expect_ok "a session starts" "$MOAT" run -q -- true
[ ! -e "$T/outside" ] && ok "nothing outside HOME is made" || not_ok "$T/outside was made"

# A wrapped tool started outside a session makes its grant's directory too.
rm -f "$XDG_CONFIG_HOME/moat/config.zon"
"$MOAT" wrap tools /bin/sh >/dev/null 2>&1
"$MOAT" allow sh '~/.tool-cache' --write >/dev/null 2>&1
run env MOAT_ROOT="$PROJ" "$XDG_DATA_HOME/moat/shells/tools/bin/sh" -c "echo z >'$HOME/.tool-cache/z'"
[ "$rc" = 0 ] && [ "$(stat -c '%a' "$HOME/.tool-cache")" = 700 ] && ok "the wrapper makes its write grant's directory" ||
	{ not_ok "wrapper grant dir"; _show "(wrapper)"; }

# npm install into a fresh HOME, with the one grant the issue names.
if command -v npm >/dev/null; then
	rm -rf "$HOME/.npm" "$XDG_CONFIG_HOME/moat/config.zon"
	mkdir -p "$T/dep" && printf '{"name":"dep","version":"1.0.0"}\n' >"$T/dep/package.json"
	(cd "$T" && npm pack ./dep >/dev/null 2>&1 && mv dep-1.0.0.tgz "$PROJ/")
	rm -rf "$HOME/.npm"
	printf '{"name":"app","version":"1.0.0"}\n' >package.json
	run timeout 120 "$MOAT" run -- npm install --offline --no-audit --no-fund ./dep-1.0.0.tgz
	[ "$rc" -ne 0 ] && [ ! -d node_modules/dep ] && ok "control: without a grant npm install fails" ||
		{ not_ok "control: npm install without a grant (status $rc)"; _show "(npm)"; }
	rm -rf node_modules package-lock.json
	"$MOAT" wrap nodetools "$(command -v npm)" >/dev/null 2>&1
	expect_ok "moat allow npm ~/.npm --write --exec" "$MOAT" allow npm '~/.npm' --write --exec
	expect_ok "npm install then works" timeout 120 "$MOAT" run nodetools -- npm install --offline --no-audit --no-fund ./dep-1.0.0.tgz
	[ -f node_modules/dep/package.json ] && [ -d "$HOME/.npm/_cacache" ] &&
		ok "the package is installed, through the cache" || not_ok "no node_modules/dep or no cache"
else
	skip "prerequisite: npm missing"
fi

done_testing
