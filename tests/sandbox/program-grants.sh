# Write grants where programs the user runs unconfined live (issue 39,
# item 3): a system directory, or a directory on PATH, is refused with why
# and the user-level way; --unsafe-write grants it anyway, loudly, at the
# grant and at every session; moat check flags it; --trace never suggests
# it. A PATH directory below a write grant stays read-only in the sandbox:
# the attack, planting a program there for the user's next shell, fails.
. "$(dirname "$0")/../lib.sh"

export PATH="$HOME/.local/bin:$HOME/.tools/bin:$PATH"
mkdir -p "$HOME/.local/bin"

for g in "node /usr/lib/node_modules" "sh /etc" "* /usr" "* /nix" "* /opt/tool" "x $HOME/.local/bin" "x $HOME/.local/bin/sub"; do
	set -f
	set -- $g
	set +f
	expect_status "moat allow $1 $2 --write is refused" 1 "$MOAT" allow "$1" "$2" --write
	expect_out "saying why" "refusing to grant write access to .*(system directory|directory on your PATH).*could replace a program you run outside the sandbox"
done
expect_out "with the user-level way" "hint: install at user level and grant that: npm config set prefix ~/.npm-global"
expect_out "and the override" "hint: or, knowing that, --unsafe-write grants it anyway"
expect_ok "a read grant there is fine" "$MOAT" allow node /usr/lib/node_modules
expect_ok "an exec grant of a PATH directory too" "$MOAT" allow x '~/.local/bin' --exec
expect_ok "a write grant of a directory not on PATH too" "$MOAT" allow x '~/.cache/x' --write
expect_ok "moat check: all ok" "$MOAT" check

# The attack: plant a program in a PATH directory below a write grant.
mkdir -p "$HOME/.tools/lib"
expect_ok "a write grant holding a PATH directory is accepted" "$MOAT" allow '*' '~/.tools' --write
expect_ok "control: without moat, a program can be planted there" sh -c "mkdir -p '$HOME/.tools/bin' && echo x >'$HOME/.tools/bin/probe' && rm -r '$HOME/.tools/bin'"
expect_ok "the grant works beside it" "$MOAT" run -- sh -c "echo lib >'$HOME/.tools/lib/x'"
run "$MOAT" run -- sh -c "echo 'echo PWNED' >'$HOME/.tools/bin/ls' && chmod +x '$HOME/.tools/bin/ls'"
ran_and_failed && grep -qi 'read-only' "$T/.err" && ok "planting in the PATH directory is refused (read-only)" ||
	{ not_ok "planting in the PATH directory is refused" && _show plant; }
[ -d "$HOME/.tools/bin" ] && [ -z "$(ls -A "$HOME/.tools/bin")" ] && ok "it was made empty, and stays so" ||
	not_ok "~/.tools/bin: $(ls -A "$HOME/.tools/bin" 2>&1)"
expect_ok "moat profile lists it protected" "$MOAT" profile
expect_out "read-only" "$(re_quote "$HOME/.tools/bin") +read +protected"

# --trace names no grant for a PATH directory.
run "$MOAT" run --trace -- sh -c "echo x >'$HOME/.local/bin/y'"
expect_out "--trace reports the refusal" "create +$(re_quote "$HOME/.local/bin/y")"
expect_no_out "but suggests no grant of it" failed "moat allow .*\\.local/bin"
expect_out "the user-level way instead" "a write grant on .*\\.local/bin is refused: .*install at user level"
# The control: /usr/lib is writable without moat (root, and no read-only
# file system, which a test VM's may be).
if is_root && echo x 2>/dev/null >/usr/lib/moat-probe; then
	rm -f /usr/lib/moat-probe
	run "$MOAT" run --trace -- sh -c 'echo x >/usr/lib/moat-probe'
	expect_no_out "nor of a system directory" failed "moat allow .*/usr/lib"
	expect_out "it says why" "a write grant on /usr/lib is refused: it is in the system directory /usr"
	[ ! -e /usr/lib/moat-probe ] && ok "and nothing was written" || { rm -f /usr/lib/moat-probe; not_ok "/usr/lib/moat-probe written"; }
else
	skip "prerequisite: a /usr/lib writable without moat (root, on a writable file system)"
	skip "prerequisite: the same"
	skip "prerequisite: the same"
fi

# --unsafe-write: loud, at the grant and at every session.
expect_ok "--unsafe-write grants it anyway" "$MOAT" allow x '~/.local/bin' --unsafe-write
expect_out "with a warning" "warning: granting write access to '~/.local/bin' \\(--unsafe-write\\): it is in a directory on your PATH"
expect_ok "moat allow lists it read/write" "$MOAT" allow
expect_out "listed" "x +read/write/exec +~/.local/bin"
expect_ok "a session applies it" "$MOAT" run -- sh -c "echo y >'$HOME/.local/bin/y'"
expect_out "and warns" "warning: the write grant of $(re_quote "$HOME/.local/bin") to x is unsafe"
expect_ok "again the next time" "$MOAT" run -- true
expect_out "warns again" "warning: the write grant of $(re_quote "$HOME/.local/bin") to x is unsafe"
expect_status "moat check flags it" 1 "$MOAT" check
expect_out "naming it" "write grant of '~/.local/bin' to x is unsafe: it is in a directory on your PATH"

done_testing
