#!/usr/bin/env bash
# moat run --trace reports only the sandbox's refusals: what would fail
# without moat too (a missing file, one that permissions deny) is never
# reported. Each case has a control: the same access fails without moat,
# or, for root, which permissions do not stop, works and is reported.
. "$(dirname "$0")/trace-lib.bash"

# Missing files, in the root and outside it.
trace sh -c 'cat ~/.ssh/no-such-file; cat no-such-file; ls ~/.no-such-dir; exec ~/bin/no-such-tool'
[ "$rc" -ne 0 ] && grep -q 'No such file' "$T/.err" && ok "control: the files are missing" ||
	not_ok "control: the files are missing"
expect_nothing_denied "a missing file is not reported"

# No x bit: refused to everyone, root included, in the root and outside.
mkdir -p "$HOME/bin"
printf 'echo ran\n' >"$PROJ/noexec"
cp "$PROJ/noexec" "$HOME/bin/noexec"
chmod 644 "$PROJ/noexec" "$HOME/bin/noexec"
run "$HOME/bin/noexec"
[ "$rc" = 126 ] && ok "control: a file without x bit does not run without moat" ||
	not_ok "control: a file without x bit does not run without moat (got $rc)"
trace sh -c './noexec; ~/bin/noexec'
grep -q 'Permission denied' "$T/.err" && ok "inside, the exec fails too" || not_ok "inside, the exec fails too"
expect_nothing_denied "an exec that permissions refuse is not reported, in the root or outside"

# Mode 000: root reads it anyway, so only an unprivileged user is refused.
echo "zero" >"$PROJ/zero"
echo "zero" >"$HOME/.ssh/zero"
mkdir -p "$HOME/locked"
echo "behind" >"$HOME/locked/f"
chmod 000 "$PROJ/zero" "$HOME/.ssh/zero" "$HOME/locked"
if is_root; then
	expect_ok "control: root reads a mode 000 file" cat "$HOME/.ssh/zero"
	trace sh -c 'cat zero; cat ~/.ssh/zero; cat ~/locked/f'
	expect_report "root: the sandbox, not permissions, refused the one outside" "^ cat\[N\] read $HOME/.ssh/zero$"
	expect_report "root: and the one behind a mode 000 directory" "^ cat\[N\] read $HOME/locked/f$"
	expect_no_report "root: the one in the root was read" "read $PROJ/zero"
	skip "prerequisite: not root (root bypasses mode 000); the [nobody] run checks it"
else
	run cat "$HOME/.ssh/zero"
	[ "$rc" -ne 0 ] && ok "control: a mode 000 file is unreadable without moat" ||
		not_ok "control: a mode 000 file is unreadable without moat"
	trace sh -c 'cat zero; cat ~/.ssh/zero; cat ~/locked/f'
	[ "$(grep -c 'Permission denied' "$T/.err")" -ge 3 ] && ok "inside, all three reads fail" ||
		not_ok "inside, all three reads fail"
	expect_nothing_denied "files denied by permissions are not reported, in the root or outside"
fi
chmod 755 "$HOME/locked"

# Read-only for everyone but root: writing it is refused by permissions.
echo "ro" >"$PROJ/readonly"
chmod 444 "$PROJ/readonly"
if is_root; then
	skip "prerequisite: not root (root writes a mode 444 file anyway); the [nobody] run checks it"
else
	trace sh -c 'echo x >>readonly; rm -f /etc/hostname; echo x >/etc/moat-trace-test'
	[ "$(grep -c 'Permission denied' "$T/.err")" -ge 3 ] && ok "inside, the three writes fail" ||
		not_ok "inside, the three writes fail"
	expect_nothing_denied "writes that permissions refuse are not reported"
fi

# Immutable: refused even to root (EPERM), in the root where Landlock allows all.
echo "frozen" >"$PROJ/frozen"
if is_root && chattr +i "$PROJ/frozen" 2>/dev/null; then
	trace sh -c 'echo x >>frozen; rm -f frozen'
	chattr -i "$PROJ/frozen"
	grep -q 'Operation not permitted' "$T/.err" && ok "control: an immutable file refuses root's writes" ||
		not_ok "control: an immutable file refuses root's writes"
	expect_nothing_denied "EPERM from an immutable file is not reported"
else
	skip "prerequisite: root and a file system with chattr +i, for an immutable file"
fi

# A command that drops root inside the sandbox is judged with its own ids.
if is_root && command -v setpriv >/dev/null; then
	echo "private" >"$HOME/.ssh/private"
	echo "public" >"$HOME/.ssh/public"
	chmod 600 "$HOME/.ssh/private"
	chmod 644 "$HOME/.ssh/public"
	chmod 711 "$T" "$HOME" "$HOME/.ssh"
	trace setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		sh -c 'cat "$1/private"; cat "$1/public"' sh "$HOME/.ssh"
	chmod 700 "$T" "$HOME/.ssh"
	[ "$(grep -c 'Permission denied' "$T/.err")" = 2 ] && ok "control: as uid 65534 both reads fail inside" ||
		not_ok "control: as uid 65534 both reads fail inside"
	expect_report "the file uid 65534 could read without moat is reported" "^ cat\[N\] read $HOME/.ssh/public$"
	expect_no_report "the one it could not read is not" "private"
else
	skip "prerequisite: root and setpriv, for a command dropping root"
	skip "prerequisite: root and setpriv, for a command dropping root"
	skip "prerequisite: root and setpriv, for a command dropping root"
fi

# Refused by ordinary permissions *and* outside the sandbox: not reported
# unless the user could do it without moat.
if ! is_root; then
	mkdir -p "$HOME/.cache/ro"
	chmod 555 "$HOME/.cache/ro"
	trace sh -c 'echo x >~/.cache/ro/new; mkdir ~/.cache/ro/d; echo x >~/.cache/ok'
	chmod 755 "$HOME/.cache/ro"
	expect_report "only the create that permissions allow is reported" '^moat: 1 path\(s\) denied'
	expect_report "and it is that one" "^ sh\[N\] create $HOME/.cache/ok$"
else
	skip "prerequisite: not root (root writes a read-only directory anyway); the [nobody] run checks it"
fi

done_testing
