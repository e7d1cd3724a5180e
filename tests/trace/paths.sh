#!/usr/bin/env bash
# moat run --trace names the file the sandbox judged, however the process
# named it (symlinks, /proc/self, .., a cwd outside the root), and for each
# kind of operation suggests the grant that allows it: pasting the grant
# makes the operation work.
. "$(dirname "$0")/trace-lib.bash"

# Every way to name ~/.ssh/id_rsa is that one canonical path.
ln -s "$HOME/.ssh/id_rsa" "$PROJ/key"
ln -s "$HOME/.ssh" "$PROJ/sshdir"
trace sh -c 'cat key; cat sshdir/id_rsa; cat "/proc/self/root$HOME/.ssh/id_rsa"; cat ../.ssh/id_rsa
	cat /proc/self/cwd/../.ssh/id_rsa; cd ~/.ssh && cat id_rsa' 2>/dev/null
expect_report "six spellings, one path" '^moat: 1 path\(s\) denied'
expect_report "the canonical one, six times" "^ cat\[N\] \+5 read $HOME/.ssh/id_rsa \(6 times\)$"

# Writes: an existing file gets a write grant on itself ...
trace sh -c 'echo x >>~/.bashrc'
expect_report "appending to a file is a write" "^ sh\[N\] write $HOME/.bashrc$"
expect_report "granted on the file, --write" "^ moat allow sh ~/.bashrc --write$"
apply_suggestions >/dev/null
trace sh -c 'echo x >>~/.bashrc'
expect_nothing_denied "and then it works"
forget_grants

# ... making, removing and linking need the directory.
mkdir -p "$HOME/.cache/sub"
trace sh -c 'mkdir ~/.cache/newdir; mkfifo ~/.cache/fifo; ln -s x ~/.cache/sym; rm ~/.ssh/config; rmdir ~/.cache/sub'
expect_lines "each operation by its name" 'path\(s\) denied' '^$' "$(
	cat <<EOF
 mkdir[N] mkdir $HOME/.cache/newdir
 mkfifo[N] create $HOME/.cache/fifo
 ln[N] symlink $HOME/.cache/sym
 rm[N] remove $HOME/.ssh/config
 rmdir[N] remove $HOME/.cache/sub
EOF
)"
expect_lines "each grant on the directory, --write" '^to grant' '^hint' "$(
	cat <<EOF
 moat allow mkdir ~/.cache --write
 moat allow mkfifo ~/.cache --write
 moat allow ln ~/.cache --write
 moat allow rm ~/.ssh --write
 moat allow rmdir ~/.cache --write
EOF
)"
apply_suggestions >/dev/null
trace sh -c 'mkdir ~/.cache/newdir; mkfifo ~/.cache/fifo; ln -s x ~/.cache/sym; rm ~/.ssh/config; rmdir ~/.cache/sub'
expect_nothing_denied "and then they work"
[ -d "$HOME/.cache/newdir" ] && [ ! -e "$HOME/.ssh/config" ] && ok "the directory was made, the file removed" ||
	not_ok "the directory was made, the file removed"
forget_grants

# A write through a dangling symlink in the root creates its target outside.
ln -s "$HOME/.cache/made" "$PROJ/dangling"
trace sh -c 'echo x >dangling'
expect_report "a create through a dangling link names its target" "^ sh\[N\] create $HOME/.cache/made$"

# A hard link or rename into the root: Landlock answers EXDEV when the file
# would gain rights there (the root has exec), EACCES without write.
echo "L" >"$HOME/.cache/linkme"
trace ln "$HOME/.cache/linkme" "$PROJ/hl"
grep -qi 'cross-device' "$T/.err" && ok "control: Landlock refused the link with EXDEV" ||
	not_ok "control: Landlock refused the link with EXDEV"
expect_report "a link is reported with its destination" "^ ln\[N\] link $HOME/.cache/linkme \(to $PROJ/hl\)$"
expect_report "the source directory needs write and exec" "^ moat allow ln ~/.cache --write --exec$"
apply_suggestions >/dev/null
trace ln "$HOME/.cache/linkme" "$PROJ/hl"
expect_nothing_denied "and with it the link is made"
forget_grants

if command -v perl >/dev/null; then
	echo "R" >"$HOME/.cache/moveme"
	"$MOAT" allow '*' "$HOME/.cache" --write >/dev/null 2>&1
	trace perl -e 'rename($ARGV[0], $ARGV[1]) or die "rename: $!\n"' "$HOME/.cache/moveme" "$PROJ/moved"
	grep -qi 'cross-device' "$T/.err" && ok "control: a write grant alone: rename into the root is EXDEV" ||
		not_ok "control: a write grant alone: rename into the root is EXDEV"
	expect_report "the rename is reported" "^ perl\[N\] rename $HOME/.cache/moveme \(to $PROJ/moved\)$"
	expect_report "exec is what the source lacks" "^ moat allow perl ~/.cache --write --exec$"
	apply_suggestions >/dev/null
	trace perl -e 'rename($ARGV[0], $ARGV[1]) or die "rename: $!\n"' "$HOME/.cache/moveme" "$PROJ/moved"
	expect_nothing_denied "and with it the rename works"
	forget_grants
else
	skip "prerequisite: perl, for a plain rename(2)"
fi

# A script may run, but its #! interpreter lives in a denied directory.
mkdir -p "$HOME/bin"
cp /bin/sh "$HOME/bin/interp"
printf '#!%s\necho via-interp\n' "$HOME/bin/interp" >"$PROJ/script"
chmod +x "$PROJ/script"
trace ./script
expect_report "the interpreter is named, with the script" "^ script\[N\] exec $HOME/bin/interp \(interpreter of $PROJ/script\)$"
expect_report "and granted --exec" "^ moat allow script ~/bin/interp --exec$"
apply_suggestions >/dev/null
trace ./script
expect_out "with it the script runs" via-interp
forget_grants

# /proc of a process outside the sandbox: Landlock's ptrace rules, no grant.
if is_root; then
	trace cat /proc/1/environ
	expect_report "another process's /proc entry is reported" '^ cat\[N\] read /proc/1/environ$'
	expect_report "with why no grant helps" '^ none for /proc/1/environ: Landlock keeps processes outside the sandbox out of reach'
else
	skip "prerequisite: root, the only one who can read /proc/1/environ without moat"
	skip "prerequisite: root, the only one who can read /proc/1/environ without moat"
fi

done_testing
