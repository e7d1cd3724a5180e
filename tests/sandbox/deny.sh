#!/usr/bin/env bash
# What `moat run` must refuse: the decoy HOME, /tmp, the host's /dev/shm and the project
# next door. Every denial has a control: the same access works without moat,
# so no test can pass because the file is missing or unreadable anyway.
. "$(dirname "$0")/../lib.sh"

SHMDECOY=
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SHMDECOY=$(mktemp /dev/shm/moat-decoy.XXXXXX)
	echo "SHM-DECOY" >"$SHMDECOY"
fi
WRITTEN="/tmp/moat-written.$$" SHMWRITTEN="/dev/shm/moat-written.$$"
eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'rm -f \"\$SHMDECOY\" \"\$WRITTEN\" \"\$SHMWRITTEN\"; /")"

# control NAME PATTERN CMD...: without moat, CMD succeeds and shows PATTERN.
control() {
	local name=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" -eq 0 ] && { [ -z "$want" ] || grep -q -- "$want" "$T/.out"; }; then
		ok "control: $name"
	else
		not_ok "control: $name (want status 0 and /$want/)" && _show "$@"
	fi
}

# denied NAME LEAK CMD...: inside moat run, CMD starts (the sandbox is up),
# fails with a permission error, and LEAK appears nowhere in its output.
denied() {
	local name=$1 leak=$2
	shift 2
	run "$MOAT" run -- sh -c 'echo MOAT-STARTED; "$@"' sh "$@"
	if [ "$rc" -ne 0 ] && grep -q MOAT-STARTED "$T/.out" &&
		grep -qiE 'permission denied|operation not permitted' "$T/.err" &&
		! grep -q -- "$leak" "$T/.out" "$T/.err"; then
		ok "denied: $name"
	else
		not_ok "denied: $name (want it started, a permission error, no /$leak/)" &&
			_show moat run -- "$@"
	fi
}

# The sandbox works at all: a file in the root is readable.
echo "PROJECT-FILE" >"$PROJ/readme"
run "$MOAT" run -- cat "$PROJ/readme"
if [ "$rc" -eq 0 ] && [ "$out" = PROJECT-FILE ]; then ok "a file in the root is readable"; else
	not_ok "a file in the root is readable" && _show moat run -- cat readme; fi

control "cat ~/.ssh/id_rsa" DECOY-SSH-KEY cat "$HOME/.ssh/id_rsa"
denied "cat ~/.ssh/id_rsa" DECOY-SSH-KEY cat "$HOME/.ssh/id_rsa"
denied "cat ~/.aws/credentials" DECOY-AWS cat "$HOME/.aws/credentials"

ln -s "$HOME/.ssh/id_rsa" "$PROJ/key"
control "cat through a symlink in the root" DECOY-SSH-KEY cat "$PROJ/key"
denied "cat through a symlink in the root" DECOY-SSH-KEY cat "$PROJ/key"
ln -s "$HOME/.ssh" "$PROJ/sshdir"
denied "cat through a symlinked directory in the root" DECOY-SSH-KEY cat "$PROJ/sshdir/id_rsa"

control "cat via /proc/self/root" DECOY-SSH-KEY cat "/proc/self/root$HOME/.ssh/id_rsa"
denied "cat via /proc/self/root" DECOY-SSH-KEY cat "/proc/self/root$HOME/.ssh/id_rsa"
denied "cat via /proc/self/cwd/.." DECOY-SSH-KEY cat "/proc/self/cwd/../.ssh/id_rsa"
denied "cat via ../ from the root" DECOY-SSH-KEY cat ../.ssh/id_rsa

control "ls \$HOME" '\.ssh' ls -a "$HOME"
denied "ls \$HOME" '\.ssh' ls -a "$HOME"
denied "ls ~/.ssh" 'id_rsa' ls "$HOME/.ssh"

cp "$HOME/.bashrc" "$T/bashrc.before"
control "append to ~/.bashrc" '' sh -c 'echo >>"$1"' sh "$HOME/.bashrc"
cp "$T/bashrc.before" "$HOME/.bashrc"
denied "append to ~/.bashrc" PWNED sh -c 'echo PWNED >>"$1"' sh "$HOME/.bashrc"
denied "replace ~/.bashrc" PWNED sh -c 'echo PWNED >"$1"' sh "$HOME/.bashrc"
denied "create a file in \$HOME" PWNED sh -c 'echo PWNED >"$1"' sh "$HOME/.profile"
if cmp -s "$T/bashrc.before" "$HOME/.bashrc" && [ ! -e "$HOME/.profile" ]; then
	ok "~/.bashrc unchanged and nothing created in \$HOME"
else
	not_ok "~/.bashrc unchanged and nothing created in \$HOME"
fi

control "read /tmp" TMP-DECOY cat "$TMPDECOY"
denied "read /tmp" TMP-DECOY cat "$TMPDECOY"
denied "list /tmp" "$(basename "$TMPDECOY")" ls /tmp
control "write /tmp" '' sh -c 'echo x >"$1" && rm "$1"' sh "$WRITTEN"
denied "write /tmp" PWNED sh -c 'echo PWNED >"$1"' sh "$WRITTEN"
if [ ! -e "$WRITTEN" ]; then ok "nothing was written to /tmp"; else not_ok "nothing was written to /tmp"; fi
denied "write /var/tmp" PWNED sh -c 'echo PWNED >"$1"' sh "/var/tmp/moat-written.$$"
rm -f "/var/tmp/moat-written.$$"

# A session gets its own empty /dev/shm (docs/security.md): the host's
# objects are not there to read, and what it writes stays in its tmpfs.
if [ -n "$SHMDECOY" ]; then
	control "read /dev/shm" SHM-DECOY cat "$SHMDECOY"
	run "$MOAT" run -- sh -c 'echo MOAT-STARTED; cat "$1"' sh "$SHMDECOY"
	[ "$rc" -ne 0 ] && grep -q MOAT-STARTED "$T/.out" && ! grep -q SHM-DECOY "$T/.out" "$T/.err" &&
		ok "hidden: an object in the host's /dev/shm" ||
		{ not_ok "hidden: an object in the host's /dev/shm" && _show "cat $SHMDECOY"; }
	run "$MOAT" run -- ls -a /dev/shm
	[ "$rc" -eq 0 ] && ! grep -qF "$(basename "$SHMDECOY")" "$T/.out" &&
		ok "hidden: the host's /dev/shm listing" ||
		{ not_ok "hidden: the host's /dev/shm listing" && _show "ls -a /dev/shm"; }
	control "write /dev/shm" '' sh -c 'echo x >"$1" && rm "$1"' sh "$SHMWRITTEN"
	run "$MOAT" run -- sh -c 'echo PWNED >"$1" && cat "$1"' sh "$SHMWRITTEN"
	expect_out "a session writes its own /dev/shm" '^PWNED$'
	if [ ! -e "$SHMWRITTEN" ]; then ok "nothing was written to the host's /dev/shm"; else not_ok "nothing was written to the host's /dev/shm"; fi
else
	skip "prerequisite: a writable /dev/shm"
fi

control "read the sibling project" SIBLING-SECRET cat "$SIBLING/secret"
denied "read the sibling project" SIBLING-SECRET cat "$SIBLING/secret"
denied "write the sibling project" PWNED sh -c 'echo PWNED >"$1"' sh "$SIBLING/secret"
grep -q '^SIBLING-SECRET$' "$SIBLING/secret" && ok "the sibling's secret is unchanged" ||
	not_ok "the sibling's secret is unchanged"

# Moving or linking an outside file into the root must not work either.
# Landlock refuses links that would widen access with EXDEV, not EACCES.
run "$MOAT" run -- ln "$HOME/.ssh/id_rsa" "$PROJ/hl"
if [ "$rc" -ne 0 ] && grep -qiE 'cross-device|permission denied' "$T/.err" && [ ! -e "$PROJ/hl" ]; then
	ok "denied: hard link ~/.ssh/id_rsa into the root"
else
	not_ok "denied: hard link ~/.ssh/id_rsa into the root" && _show moat run -- ln
fi
run "$MOAT" run -- mv "$SIBLING/secret" "$PROJ/stolen"
if [ "$rc" -ne 0 ] && [ ! -e "$PROJ/stolen" ] && [ -e "$SIBLING/secret" ]; then
	ok "denied: mv a sibling's file into the root"
else
	not_ok "denied: mv a sibling's file into the root" && _show moat run -- mv
fi

done_testing
