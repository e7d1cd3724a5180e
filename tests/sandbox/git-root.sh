# The root of a session started in a subdirectory of a git work tree is the
# top of that work tree, so git works there; --here and .root = "here" keep
# the current directory. A linked work tree (`git worktree add`) whose git
# directory lives in another repository gets what git needs there, never
# that repository's hooks, config or work tree.
# kernel-independent: where the root is, worked out from git's files before the sandbox starts.
. "$(dirname "$0")/../lib.sh"
need git
export GIT_AUTHOR_NAME=moat GIT_AUTHOR_EMAIL=moat@test GIT_COMMITTER_NAME=moat GIT_COMMITTER_EMAIL=moat@test
export GIT_CONFIG_NOSYSTEM=1
CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"

git init -q "$PROJ" && mkdir -p "$PROJ/sub/deeper" && echo one >"$PROJ/sub/f" &&
	git -C "$PROJ" add . && git -C "$PROJ" commit -qm init || {
	not_ok "setting up a repository"
	done_testing
	exit
}
cd "$PROJ/sub/deeper" || exit 1

# Control: rooted here, git cannot see the repository above.
run "$MOAT" run --here -- git status
[ "$rc" = 128 ] && grep -q 'not a git repository' "$T/.err" &&
	ok "control: with --here the subdirectory is the root and git finds no repository" ||
	{ not_ok "control: --here"; _show "moat run --here -- git status"; }

expect_ok "from a subdirectory, git status works" "$MOAT" run -- git status
expect_out "the root is announced as the work tree's top" "moat: root $(re_quote "$PROJ"), the top of the git work tree"
expect_ok "the command runs in the directory it was started in" "$MOAT" run -q -- pwd
[ "$out" = "$PROJ/sub/deeper" ] && ok "pwd is the subdirectory" || not_ok "pwd is '$out'"
expect_ok "moat profile names the top as the root" "$MOAT" profile
expect_out "root line" "^root: $(re_quote "$PROJ")$|$(re_quote "$PROJ") +read/write/exec +root"

echo two >>"$PROJ/sub/f"
expect_ok "git commit from a subdirectory" "$MOAT" run -- git commit -qam two
run git -C "$PROJ" log --format=%s -1
[ "$out" = two ] && ok "the commit landed" || not_ok "last commit is '$out'"

expect_denied "a sibling project stays unreadable" "$MOAT" run -- cat "$SIBLING/secret"
expect_denied "HOME stays unreadable" "$MOAT" run -- cat "$HOME/.ssh/id_rsa"

printf '.{ .root = "here" }\n' >"$CFG"
run "$MOAT" run -- git status
[ "$rc" = 128 ] && ok '.root = "here" keeps the current directory' ||
	{ not_ok '.root = "here"'; _show "moat run -- git status"; }
printf '.{ .root = "git" }\n' >"$CFG"
expect_ok '.root = "git" is the default' "$MOAT" run -- git status
printf '.{ .root = "top" }\n' >"$CFG"
expect_status "a bad .root is refused" 125 "$MOAT" run -- true
expect_out "naming the values" '.root. is "top", not "git" or "here"'
rm "$CFG"

# A repository at HOME (dotfiles) is no project: the search stops below it.
mkdir -p "$HOME/plain/sub"
git init -q "$HOME" 2>/dev/null
cd "$HOME/plain/sub" || exit 1
expect_ok "under a repository at HOME, the current directory stays the root" "$MOAT" run -q -- true
expect_ok "profile there" "$MOAT" profile
expect_out "root is the directory" "$(re_quote "$HOME/plain/sub") +read/write/exec +root"
expect_denied "and HOME is not opened" "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
rm -rf "$HOME/.git"

# A linked work tree whose git directory is in $PROJ/.git/worktrees/.
git -C "$PROJ" worktree add -q "$HOME/linked" 2>/dev/null || git -C "$PROJ" worktree add "$HOME/linked"
mkdir -p "$HOME/linked/sub"
cd "$HOME/linked/sub" || exit 1
echo three >new
expect_ok "git add and commit in a linked work tree" "$MOAT" run -- sh -c 'git add new && git commit -qm three'
expect_out "saying what the git directory gets" "git work tree linked to $(re_quote "$PROJ/.git"): its objects, refs and logs are writable, never its hooks or config"
run git -C "$HOME/linked" log --format=%s -1
[ "$out" = three ] && ok "the commit landed in the shared repository" || not_ok "last commit is '$out'"
expect_ok "git log there" "$MOAT" run -- git log --oneline

run "$MOAT" profile --json
echo "$out" >"$T/profile.json"
grep -q '"origin":"git"' "$T/profile.json" && ok "moat profile --json lists the git rules (origin git)" || not_ok "no origin git in the JSON"
if problems=$(python3 "$MOAT_SRC/tests/json-validate.py" "$MOAT_SRC/docs/json-schema.json" profile "$T/profile.json" 2>&1); then
	ok "and the document validates against docs/json-schema.json"
else
	not_ok "the profile JSON does not validate"
	echo "$problems" | sed 's/^/#   /'
fi
run "$MOAT" profile
expect_out "moat profile names the hooks-free git rules" "$(re_quote "$PROJ/.git/objects") +read/write +git"
expect_no_out "and never the hooks" 0 "$(re_quote "$PROJ/.git/hooks")"

# What the linked work tree must not reach; each with a control outside moat.
expect_ok "control: the hooks directory is writable without moat" sh -c "echo : >'$PROJ/.git/hooks/x' && rm '$PROJ/.git/hooks/x'"
expect_denied "the common directory's hooks are not writable" "$MOAT" run -- sh -c "echo 'touch /pwned' >'$PROJ/.git/hooks/post-commit'"
[ ! -e "$PROJ/.git/hooks/post-commit" ] && ok "no hook was planted" || not_ok "a hook was planted"
expect_denied "its config is not writable" "$MOAT" run -- sh -c "echo '[core]hooksPath=/x' >>'$PROJ/.git/config'"
run grep -c hooksPath "$PROJ/.git/config"
[ "$out" = 0 ] && ok "the config is unchanged" || not_ok "the config was changed"
expect_denied "the main work tree's files stay unreadable" "$MOAT" run -- cat "$PROJ/sub/f"
wtdir=$(cd "$PROJ/.git/worktrees" && echo */)
wtdir=$PROJ/.git/worktrees/${wtdir%/}
run "$MOAT" run -- sh -c "echo /x >'$wtdir/commondir'"
[ "$rc" = 2 ] && grep -qE 'Read-only file system|Permission denied' "$T/.err" &&
	ok "the linked git directory's commondir is read-only" ||
	{ not_ok "commondir written"; _show "(last command)"; }
run cat "$wtdir/commondir"
[ "$out" = ../.. ] && ok "commondir is unchanged" || not_ok "commondir is now '$out'"

# With extensions.worktreeConfig on, git reads the linked git directory's
# config.worktree: a missing one is made empty, so the sandbox cannot plant
# one (core.hooksPath) for git run later outside it.
git -C "$PROJ" config extensions.worktreeConfig true
rm -f "$wtdir/config.worktree"
run "$MOAT" run -- sh -c "printf '[core]\\n\\thooksPath = /x\\n' >'$wtdir/config.worktree'"
[ "$rc" = 2 ] && grep -qE 'Read-only file system|Permission denied' "$T/.err" &&
	ok "a missing config.worktree cannot be created by the sandbox" ||
	{ not_ok "config.worktree planted"; _show "(last command)"; }
[ -f "$wtdir/config.worktree" ] && [ ! -s "$wtdir/config.worktree" ] &&
	ok "moat made it empty" || not_ok "config.worktree: $(cat "$wtdir/config.worktree" 2>&1)"
expect_ok "git still works there" "$MOAT" run -- git status
git -C "$PROJ" config --unset extensions.worktreeConfig

# A .git file the sandbox could rewrite names another repository: refused.
git init -q "$SIBLING"
git -C "$SIBLING" commit -q --allow-empty -m s
cp "$HOME/linked/.git" "$T/dotgit.saved"
echo "gitdir: $SIBLING/.git" >"$HOME/linked/.git"
run "$MOAT" run -- cat "$SIBLING/.git/HEAD"
[ "$rc" -ne 0 ] && grep -q "not a linked work tree's git directory" "$T/.err" &&
	ok "a .git file naming another repository's git directory grants nothing" ||
	{ not_ok "a forged .git file"; _show "moat run -- cat $SIBLING/.git/HEAD"; }
cp "$T/dotgit.saved" "$HOME/linked/.git"

# A submodule: its .git is a file naming its git directory under the
# superproject's .git/modules/, which git uses as a linked work tree's.
SUPER=$HOME/super
git init -q "$T/libsrc" && echo lib >"$T/libsrc/lib.c" && git -C "$T/libsrc" add . &&
	git -C "$T/libsrc" commit -qm lib && git init -q "$SUPER" &&
	git -C "$SUPER" -c protocol.file.allow=always submodule add -q "$T/libsrc" libsub >/dev/null 2>&1 &&
	git -C "$SUPER" commit -qm sub || not_ok "setting up a submodule"
MODDIR=$SUPER/.git/modules/libsub
for how in "" --here; do
	cd "$SUPER/libsub" || exit 1
	echo "change$how" >>lib.c
	expect_ok "git status in a submodule's work tree ${how:-from its top}" "$MOAT" run $how -- git status
	expect_out "saying what its git directory gets" "git submodule whose git directory is $(re_quote "$MODDIR"): writable, its hooks and config kept read-only"
	expect_ok "git commit there ${how:+with $how}" "$MOAT" run $how -- git commit -qam "sub$how"
	run git -C "$SUPER/libsub" log --format=%s -1
	[ "$out" = "sub$how" ] && ok "the commit landed in the submodule's repository" || not_ok "last commit is '$out'"
done
mkdir -p "$SUPER/libsub/deep" && cd "$SUPER/libsub/deep" || exit 1
expect_ok "git log from a directory below the submodule's top" "$MOAT" run -- git log --oneline
# What the submodule must not reach, each with its control without moat.
expect_ok "control: the module's hooks are writable without moat" sh -c "echo : >'$MODDIR/hooks/x' && rm '$MODDIR/hooks/x'"
run "$MOAT" run -- sh -c "echo 'touch /pwned' >'$MODDIR/hooks/post-commit'"
[ "$rc" -ne 0 ] && [ ! -e "$MODDIR/hooks/post-commit" ] && ok "refused: a hook in the submodule's git directory" ||
	{ not_ok "a hook was planted in the submodule's git directory" && _show "(last command)"; }
run "$MOAT" run -- sh -c "echo '[core]hooksPath=/x' >>'$MODDIR/config'"
[ "$rc" -ne 0 ] && ! grep -q hooksPath "$MODDIR/config" && ok "refused: the submodule's config" ||
	{ not_ok "the submodule's config was changed" && _show "(last command)"; }
expect_denied "the superproject's other files stay unreadable" "$MOAT" run -- cat "$SUPER/.gitmodules"
# A .git file rewritten by the sandbox to name a git directory under some
# modules/ that is not this work tree's: nothing is granted.
git init -q "$T/othersrc" && git -C "$T/othersrc" commit -q --allow-empty -m o &&
	git -C "$SUPER" -c protocol.file.allow=always submodule add -q "$T/othersrc" other >/dev/null 2>&1
cp "$SUPER/libsub/.git" "$T/subgit.saved"
echo "gitdir: ../.git/modules/other" >"$SUPER/libsub/.git"
cd "$SUPER/libsub" || exit 1
run "$MOAT" run -- cat "$SUPER/.git/modules/other/HEAD"
[ "$rc" -ne 0 ] && grep -q "nor a submodule's" "$T/.err" &&
	ok "a .git file naming another submodule's git directory grants nothing" ||
	{ not_ok "a forged submodule .git file"; _show "(last command)"; }
cp "$T/subgit.saved" "$SUPER/libsub/.git"
cd "$PROJ" || exit 1

done_testing
