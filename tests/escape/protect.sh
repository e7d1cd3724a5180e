#!/usr/bin/env bash
# Protected paths (issue 13, item 6): git runs what .git/hooks and
# .git/config say, outside the sandbox too, so sandboxed code must not
# write them, through `moat run`, `moat shell` or a wrapped tool, nor move
# .git aside and put a copy of its own in its place; a `git commit` outside
# afterwards runs nothing planted. Git itself still works inside. The
# controls plant the same things without moat and see them run.
. "$(dirname "$0")/../lib.sh"

need git
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1
PWNED=$T/pwned
PLANT="printf '#!/bin/sh\ntouch $PWNED\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
FSMON="git config core.fsmonitor 'touch $PWNED; false'"
HOOKSPATH="mkdir -p evil && printf '#!/bin/sh\ntouch $PWNED\n' >evil/pre-commit && chmod +x evil/pre-commit && git config core.hooksPath evil"
SWAP="cp -a .git .git-copy && mv .git .git-aside && mv .git-copy .git && $PLANT"

newrepo() {
	rm -rf "$1" && mkdir -p "$1" && git -C "$1" init -q && echo one >"$1/f" &&
		git -C "$1" add f && git -C "$1" commit -qm one
}

# nothing_planted NAME: a git commit outside moat runs no hook, no fsmonitor.
nothing_planted() {
	rm -f "$PWNED"
	echo "$RANDOM" >>"$PROJ/f"
	git -C "$PROJ" commit -qam outside >/dev/null 2>&1
	[ ! -e "$PWNED" ] && ok "$1: a git commit outside runs nothing planted" ||
		not_ok "$1: a git commit outside runs nothing planted"
}

# --- controls: the same plants, without moat, run at the next commit -------
for what in PLANT FSMON HOOKSPATH SWAP; do
	newrepo "$T/ctl"
	rm -f "$PWNED"
	(cd "$T/ctl" && sh -c "${!what}" >/dev/null 2>&1 && echo 2 >>f && git commit -qam two >/dev/null 2>&1)
	[ -e "$PWNED" ] && ok "control: $what without moat runs at the next git commit" ||
		not_ok "control: $what without moat runs at the next git commit"
done

newrepo "$PROJ" && cd "$PROJ"
"$MOAT" wrap tools /bin/sh /usr/bin/git >/dev/null
SH=$XDG_DATA_HOME/moat/shells/tools

# attempt HOW WHAT: run the plant WHAT through HOW; it must fail.
attempt() {
	local how=$1 what=$2
	case $how in
	run) run "$MOAT" run -- sh -c "${!what}" ;;
	shell)
		echo "${!what}; echo status=\$?" >"$T/cmds"
		SHELL=/bin/sh timeout 60 "$MOAT" shell <"$T/cmds" >"$T/.out" 2>"$T/.err"
		rc=$(sed -n 's/^status=//p' "$T/.out")
		rc=${rc:-999}
		;;
	wrapper) run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c "${!what}" ;;
	esac
	[ "$rc" -ne 0 ] && ok "refused: $what through moat $how (status $rc)" ||
		{ not_ok "refused: $what through moat $how" && _show "$how $what"; }
}

for how in run shell wrapper; do
	for what in PLANT FSMON HOOKSPATH SWAP; do
		attempt "$how" "$what"
		rm -rf "$PROJ/.git-aside" "$PROJ/.git-copy" "$PROJ/evil"
	done
	nothing_planted "after moat $how"
	grep -q fsmonitor "$PROJ/.git/config" && not_ok "moat $how: .git/config has no core.fsmonitor" ||
		ok "moat $how: .git/config has no core.fsmonitor"
done

grep -qF "$PROJ/.git" /proc/self/mountinfo && not_ok "no protecting mount shows on the host" ||
	ok "no protecting mount shows on the host"
run "$MOAT" run -- sh -c "$FSMON"
expect_out "git says it could not write its config" "could not write config file"

# --- absent: no hooks directory, no config; the sandbox cannot make them ---
rm -rf "$PROJ/.git/hooks"
attempt run PLANT
[ -d "$PROJ/.git/hooks" ] && [ -z "$(ls -A "$PROJ/.git/hooks")" ] &&
	ok "an absent .git/hooks is made empty, and stays empty" ||
	not_ok "an absent .git/hooks is made empty, and stays empty"
rm -rf "$PROJ/.git/hooks"
attempt wrapper PLANT
nothing_planted "hooks absent"

# --- a submodule's git directory, and a linked worktree's common dir ------
newrepo "$T/subsrc"
git -C "$PROJ" -c protocol.file.allow=always submodule add -q "$T/subsrc" sub >/dev/null 2>&1
git -C "$PROJ" commit -qm sub
[ -d "$PROJ/.git/modules/sub/hooks" ] || mkdir -p "$PROJ/.git/modules/sub/hooks"
run "$MOAT" run -- sh -c "cd sub && $PLANT"
[ "$rc" -ne 0 ] && [ ! -e "$PROJ/.git/modules/sub/hooks/pre-commit" ] &&
	ok "refused: a hook in a submodule's git directory" || { not_ok "refused: a hook in a submodule's git directory" && _show submodule; }
run "$MOAT" run -- sh -c "cd sub && $FSMON"
[ "$rc" -ne 0 ] && ! grep -q fsmonitor "$PROJ/.git/modules/sub/config" &&
	ok "refused: core.fsmonitor in a submodule's config" || { not_ok "refused: core.fsmonitor in a submodule's config" && _show submodule; }

newrepo "$T/main"
git -C "$T/main" worktree add -q "$T/wt" 2>/dev/null
"$MOAT" allow '*' "$T/main/.git" --write >/dev/null 2>&1
cd "$T/wt" && run "$MOAT" run -- sh -c "$PLANT"
[ "$rc" -ne 0 ] && [ ! -e "$T/main/.git/hooks/pre-commit" ] &&
	ok "refused: a hook in a linked worktree's common git directory (under a write grant)" ||
	{ not_ok "refused: a hook in a linked worktree's common git directory" && _show worktree; }
run "$MOAT" run -- sh -c 'echo x >g && git add g && git commit -qm wt' && cd "$PROJ"
[ "$rc" -eq 0 ] && ok "git commit works in that linked worktree" || { not_ok "git commit works in that linked worktree" && _show worktree; }
"$MOAT" unallow '*' "$T/main/.git" >/dev/null 2>&1
# That work tree's own submodule: its git directory lies in the work tree's
# git directory (.git/worktrees/wt/modules/sub), which the sandbox writes.
newrepo "$T/libsrc" && newrepo "$T/main2"
(cd "$T/main2" && git -c protocol.file.allow=always submodule -q add "$T/libsrc" lib >/dev/null 2>&1 && git commit -qm lib &&
	git worktree add -q "$T/wt2" 2>/dev/null && cd "$T/wt2" && git -c protocol.file.allow=always submodule -q update --init >/dev/null 2>&1)
WTMOD=$T/main2/.git/worktrees/wt2/modules/lib
[ -f "$WTMOD/config" ] && ok "control: the work tree's submodule keeps its git directory in $WTMOD" ||
	not_ok "control: the work tree's submodule keeps its git directory in the work tree's"
cd "$T/wt2" && run "$MOAT" run -- sh -c "git -C lib config core.fsmonitor 'touch $PWNED; false'"
cd "$PROJ"
[ "$rc" -ne 0 ] && ! grep -q fsmonitor "$WTMOD/config" && ok "refused: core.fsmonitor in a linked work tree's submodule" ||
	{ not_ok "refused: core.fsmonitor in a linked work tree's submodule" && _show wt-submodule; }
cd "$T/wt2" && run "$MOAT" run -- sh -c 'cd lib && echo y >y && git add y && git commit -qm y'
cd "$PROJ"
[ "$rc" -eq 0 ] && ok "git commit works in that submodule" || { not_ok "git commit works in that submodule" && _show wt-submodule-commit; }

# --- what the config names: core.hooksPath, include.path -----------------
# Set outside (the user's own setup, as husky does), then attacked inside.
mkdir -p "$PROJ/.githooks"
printf '[core]\n\thooksPath = .githooks ; husky\n[include]\n\tpath = "../shared.gitconfig"\n[includeIf "gitdir:~/"]\n\tpath = ~/proj/more.gitconfig\n' >>"$PROJ/.git/config"
printf '[user]\n\tname = t\n' >"$PROJ/shared.gitconfig"
: >"$PROJ/more.gitconfig"
run "$MOAT" run -- sh -c "printf '#!/bin/sh\ntouch $PWNED\n' >.githooks/pre-commit && chmod +x .githooks/pre-commit"
[ "$rc" -ne 0 ] && [ ! -e "$PROJ/.githooks/pre-commit" ] && ok "refused: a hook in core.hooksPath's directory" ||
	{ not_ok "refused: a hook in core.hooksPath's directory" && _show hooksPath; }
run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c "printf '[core]\n\tfsmonitor = touch $PWNED\n' >>shared.gitconfig"
[ "$rc" -ne 0 ] && ! grep -q fsmonitor "$PROJ/shared.gitconfig" && ok "refused: core.fsmonitor in a config file include.path names" ||
	{ not_ok "refused: core.fsmonitor in a config file include.path names" && _show include; }
run "$MOAT" run -- sh -c "echo '[core] fsmonitor = x' >more.gitconfig"
[ "$rc" -ne 0 ] && ! grep -q fsmonitor "$PROJ/more.gitconfig" && ok "refused: core.fsmonitor in a file includeIf names (~/ expanded)" ||
	{ not_ok "refused: core.fsmonitor in a file includeIf names" && _show includeIf; }
nothing_planted "after hooksPath and include plants"
rm -rf "$PROJ/.githooks"
run "$MOAT" run -- sh -c "mkdir .githooks && printf '#!/bin/sh\ntouch $PWNED\n' >.githooks/pre-commit && chmod +x .githooks/pre-commit"
[ "$rc" -ne 0 ] && [ ! -e "$PROJ/.githooks/pre-commit" ] && ok "refused: an absent core.hooksPath directory cannot be made and filled" ||
	{ not_ok "refused: an absent core.hooksPath directory cannot be made and filled" && _show hooksPath-absent; }
nothing_planted "after an absent hooksPath"
rm -f "$PROJ/more.gitconfig"
run "$MOAT" run -- sh -c "printf '[core]\\n\\tfsmonitor = touch $PWNED\\n' >more.gitconfig"
[ "$rc" -ne 0 ] && ! grep -q fsmonitor "$PROJ/more.gitconfig" && ok "refused: making a config file an include names but is absent" ||
	{ not_ok "refused: making a config file an include names but is absent" && _show include-absent; }
nothing_planted "after an absent include"
# Absent with absent parents: tools/hooks and conf/local.cfg, neither
# tools/ nor conf/ there yet. The wrapper and a session alike.
git -C "$PROJ" config core.hooksPath tools/hooks
git -C "$PROJ" config include.path ../conf/local.cfg
DEEP="mkdir -p conf tools/hooks; printf '[core]\n\tfsmonitor = touch $PWNED\n' >conf/local.cfg; printf '#!/bin/sh\ntouch $PWNED\n' >tools/hooks/pre-commit && chmod +x tools/hooks/pre-commit"
for how in run wrapper; do
	rm -rf "$PROJ/tools" "$PROJ/conf"
	case $how in
	run) run "$MOAT" run -- sh -c "$DEEP" ;;
	wrapper) run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c "$DEEP" ;;
	esac
	[ ! -e "$PROJ/tools/hooks/pre-commit" ] && [ ! -s "$PROJ/conf/local.cfg" ] &&
		ok "moat $how: neither hooksPath nor an include with absent parents can be made and filled" ||
		{ not_ok "moat $how: neither hooksPath nor an include with absent parents can be made and filled" && _show "$how"; }
	nothing_planted "moat $how: absent parents"
done
rm -rf "$PROJ/tools" "$PROJ/conf"
(cd "$PROJ" && sh -c "$DEEP")
rm -f "$PWNED" && echo "$RANDOM" >>"$PROJ/f" && git -C "$PROJ" commit -qam ctl >/dev/null 2>&1
[ -e "$PWNED" ] && ok "control: without moat that plant runs at the next commit" ||
	not_ok "control: without moat that plant runs at the next commit"
git -C "$PROJ" config --unset core.hooksPath
git -C "$PROJ" config --remove-section include
git -C "$PROJ" config --remove-section 'includeIf.gitdir:~/'
rm -rf "$PROJ/.githooks" "$PROJ/shared.gitconfig" "$PROJ/more.gitconfig" "$PROJ/tools" "$PROJ/conf"
# A relative core.hooksPath in the user's own ~/.gitconfig names a
# directory in every work tree, this one's too.
printf '[core]\n\thooksPath = .ghooks\n' >"$HOME/.gitconfig"
GLOBALHP="mkdir -p .ghooks; printf '#!/bin/sh\ntouch $PWNED\n' >.ghooks/pre-commit && chmod +x .ghooks/pre-commit"
for how in run wrapper; do
	rm -rf "$PROJ/.ghooks"
	case $how in
	run) run "$MOAT" run -- sh -c "$GLOBALHP" ;;
	wrapper) run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c "$GLOBALHP" ;;
	esac
	[ ! -e "$PROJ/.ghooks/pre-commit" ] && ok "moat $how: a hooks directory ~/.gitconfig names relatively cannot be filled" ||
		{ not_ok "moat $how: a hooks directory ~/.gitconfig names relatively cannot be filled" && _show "$how"; }
done
nothing_planted "after a relative hooksPath in ~/.gitconfig"
rm -rf "$PROJ/.ghooks" && (cd "$PROJ" && sh -c "$GLOBALHP")
rm -f "$PWNED" && echo "$RANDOM" >>"$PROJ/f" && git -C "$PROJ" commit -qam ctl >/dev/null 2>&1
[ -e "$PWNED" ] && ok "control: without moat that hook runs at the next commit" ||
	not_ok "control: without moat that hook runs at the next commit"
rm -rf "$PROJ/.ghooks" "$HOME/.gitconfig"
# A root 40 directories below the work tree's top (past a re-base of the
# wrapper's walk up for .git, every 32 levels): the repository's
# core.hooksPath names a directory in that root, and is protected there.
deep=$(printf 'd/%.0s' $(seq 40))hooks
mkdir -p "$PROJ/$deep"
git -C "$PROJ" config core.hooksPath "$deep"
DEEPROOT="printf '#!/bin/sh\ntouch $PWNED\n' >hooks/pre-commit && chmod +x hooks/pre-commit"
(cd "$PROJ/${deep%hooks}" && run env MOAT_ROOT="$PROJ/${deep%/hooks}" "$SH/bin/sh" -c "$DEEPROOT")
[ ! -e "$PROJ/$deep/pre-commit" ] && ok "moat wrapper: a root 40 levels below the repository's top cannot fill its hooksPath" ||
	{ not_ok "moat wrapper: a root 40 levels below the repository's top cannot fill its hooksPath" && _show deep-root; }
nothing_planted "after a root 40 levels deep"
(cd "$PROJ/${deep%hooks}" && sh -c "$DEEPROOT")
rm -f "$PWNED" && echo "$RANDOM" >>"$PROJ/f" && git -C "$PROJ" commit -qam ctl >/dev/null 2>&1
[ -e "$PWNED" ] && ok "control: without moat that hook runs at the next commit" ||
	not_ok "control: without moat that hook runs at the next commit"
git -C "$PROJ" config --unset core.hooksPath
rm -rf "$PROJ/d"

# --- moat profile lists them ----------------------------------------------
run "$MOAT" profile
expect_out "moat profile lists .git/hooks as protected" "$(re_quote "$PROJ/.git/hooks") +read +protected"
expect_out "moat profile lists .git/config as protected" "$(re_quote "$PROJ/.git/config") +read +protected"
expect_out "moat profile lists the submodule's hooks" "$(re_quote "$PROJ/.git/modules/sub/hooks") +read +protected"

# --- --trace names the refusal "protected", and suggests no grant ---------
run "$MOAT" run --trace -- sh -c "$PLANT; $FSMON; mv .git .git-aside"
expect_out "--trace reports the hook write as protected" "none for $(re_quote "$PROJ/.git/hooks"): protected"
expect_out "--trace reports the config rewrite as protected" "none for $(re_quote "$PROJ/.git/config"): protected"
expect_out "--trace reports moving .git as protected" "none for $(re_quote "$PROJ/.git"): protected"
expect_no_out "--trace suggests no moat allow for them" failed "moat allow"
run "$MOAT" run --trace --json -- sh -c "$PLANT"
expect_out "--trace --json says EROFS and protected" '"errno":"EROFS".*"why":"protected:'

# --- git works inside -----------------------------------------------------
git init -q --bare "$T/remote.git" && git -C "$PROJ" push -q "$T/remote.git" HEAD:refs/heads/up 2>/dev/null
git -C "$T/remote.git" update-ref refs/heads/extra refs/heads/up
git -C "$PROJ" remote add origin "$T/remote.git" 2>/dev/null
"$MOAT" allow git "$T/remote.git" >/dev/null 2>&1
cat >"$T/flow" <<'FLOW'
set -e
echo a >>f && git commit -qam a
git checkout -qb topic && echo b >b && git add b && git commit -qm b
git checkout -q - && echo c >c && git add c && git commit -qm c
git rebase -q topic
git merge -q --no-edit topic
echo s >>f && git stash -q && git stash pop -q && git commit -qam s
git fetch -q origin
git rev-parse -q --verify refs/remotes/origin/extra >/dev/null
git worktree add -q wt2 topic && git -C wt2 log -1 --format=%s
git gc -q
echo flow-ok
FLOW
cp "$T/flow" "$PROJ/flow.sh"
run "$MOAT" run -- sh flow.sh
expect_out "git works inside moat run: commit, branch, checkout, rebase, merge, stash, fetch, worktree add, gc" '^flow-ok$'

# git submodule init writes the superproject's config: outside. A
# submodule cloned inside is the sandbox's own until the next run; once
# there, its config is protected, and git submodule update rewrites
# core.worktree in it every time: that fails inside (moat(1), PROTECTED PATHS).
git clone -q "$PROJ" "$PROJ/clone" 2>/dev/null
"$MOAT" allow '*' "$T/subsrc" >/dev/null 2>&1
cd "$PROJ/clone" && run "$MOAT" run -- git -c protocol.file.allow=always submodule update -q --init
[ "$rc" -ne 0 ] && grep -q "could not write config file" "$T/.err" &&
	ok "git submodule update --init inside fails on the read-only .git/config" ||
	{ not_ok "git submodule update --init inside fails on the read-only .git/config" && _show submodule update; }
git submodule init -q
run "$MOAT" run -- git -c protocol.file.allow=always submodule update -q
[ "$rc" -eq 0 ] && [ -e "$PROJ/clone/sub/.git" ] && ok "git submodule update from a local path works inside (init outside)" ||
	{ not_ok "git submodule update from a local path works inside (init outside)" && _show submodule update; }
run "$MOAT" run -- git -c protocol.file.allow=always submodule update -q
[ "$rc" -ne 0 ] && grep -q "could not write config file" "$T/.err" &&
	ok "a second git submodule update inside fails on the submodule's read-only config" ||
	{ not_ok "a second git submodule update inside fails on the submodule's read-only config" && _show submodule update; }
cd "$PROJ" && rm -rf "$PROJ/clone"
git -C "$PROJ" worktree remove --force wt2 >/dev/null 2>&1
run env MOAT_ROOT="$PROJ" "$SH/bin/git" -c protocol.file.allow=always fetch -q origin
[ "$rc" -eq 0 ] && ok "a wrapped git fetches from a local remote" || { not_ok "a wrapped git fetches from a local remote" && _show wrapped fetch; }
run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c 'echo w >>f && git commit -qam w && git stash list && git gc -q'
[ "$rc" -eq 0 ] && ok "a wrapped git commits and gcs" || { not_ok "a wrapped git commits and gcs" && _show wrapped commit; }
nothing_planted "after every workflow"

# --- config.zon: .protect adds paths, .unprotected opts a project out -------
mkdir -p "$XDG_CONFIG_HOME/moat" "$PROJ/.vscode"
echo 'export A=1' >"$PROJ/.envrc"
echo '{}' >"$PROJ/.vscode/tasks.json"
printf '.{ .protect = .{ ".envrc", ".vscode/tasks.json" } }\n' >"$XDG_CONFIG_HOME/moat/config.zon"
for how in run wrapper; do
	case $how in
	run) run "$MOAT" run -- sh -c 'echo evil >>.envrc' ;;
	wrapper) run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c 'echo evil >>.vscode/tasks.json' ;;
	esac
	[ "$rc" -ne 0 ] && ! grep -q evil "$PROJ/.envrc" "$PROJ/.vscode/tasks.json" &&
		ok "refused: a write to a .protect path through moat $how" ||
		{ not_ok "refused: a write to a .protect path through moat $how" && _show protect; }
done
run "$MOAT" profile
expect_out "moat profile lists a .protect path" "$(re_quote "$PROJ/.envrc") +read +protected"
# Absent at the start (an empty .envrc or tasks.json would not be
# harmless, so none is made): a session moves what the tool made aside;
# a wrapped tool has no end to do it at (known breakage).
rm -rf "$PROJ/.envrc" "$PROJ/.vscode"
run "$MOAT" run -- sh -c 'echo evil >.envrc; mkdir .vscode && echo evil >.vscode/tasks.json'
[ ! -e "$PROJ/.envrc" ] && [ ! -e "$PROJ/.vscode/tasks.json" ] && grep -q evil "$PROJ/.envrc.moat-planted" &&
	ok "moat run: absent .protect paths the tool made are moved aside when it ends" ||
	{ not_ok "moat run: absent .protect paths the tool made are moved aside when it ends" && _show protect-absent; }
expect_out "and moat says so" "made '$(re_quote "$PROJ/.vscode/tasks.json")', which .protect .*moved it to tasks.json.moat-planted"
rm -rf "$PROJ/.envrc.moat-planted" "$PROJ/.vscode"
run "$MOAT" run -- sh -c 'mkdir .vscode-real && ln -s .vscode-real .vscode && echo evil >.vscode/tasks.json'
expect_out "moat run: one made through a link it planted above is named" "made '$(re_quote "$PROJ/.vscode/tasks.json")'.*remove it"
rm -rf "$PROJ/.vscode" "$PROJ/.vscode-real"
run "$MOAT" run -- sh -c 'echo fine >.envrc.txt'
expect_no_out "control: a session making nothing there says nothing" 0 "which .protect"
rm -f "$PROJ/.envrc.txt"
plant_envrc_wrapped() {
	env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c 'echo evil >.envrc' >/dev/null 2>&1
	local planted=1
	grep -q evil "$PROJ/.envrc" 2>/dev/null && planted=0
	rm -f "$PROJ/.envrc"
	return $planted
}
known_breakage "a .protect path absent at the start is made by a wrapped tool" \
	"a wrapped tool has no end at which moat could move it aside; docs/security.md, Persistence" \
	plant_envrc_wrapped
echo 'export A=1' >"$PROJ/.envrc"
run "$MOAT" run -- sh -c 'echo fine >other && cat other'
expect_out "the rest of the root stays writable" '^fine$'
printf '.{ .unprotected = .{ "~/proj" } }\n' >"$XDG_CONFIG_HOME/moat/config.zon"
run "$MOAT" run -- sh -c "$PLANT"
[ "$rc" -eq 0 ] && [ -e "$PROJ/.git/hooks/pre-commit" ] &&
	ok ".unprotected opts the project out: its hooks are writable" ||
	{ not_ok ".unprotected opts the project out" && _show unprotected; }
run "$MOAT" profile
expect_no_out "moat profile lists nothing protected there" 0 "protected$"
rm -f "$PROJ/.git/hooks/pre-commit" "$XDG_CONFIG_HOME/moat/config.zon"
printf '.{ .protect = .{ "../x" } }\n' >"$XDG_CONFIG_HOME/moat/config.zon"
run "$MOAT" run -- true
[ "$rc" -eq 125 ] && grep -q "not a path inside the project root" "$T/.err" &&
	ok "a .protect path out of the root is refused" || { not_ok "a .protect path out of the root is refused" && _show protect-dotdot; }
rm -f "$XDG_CONFIG_HOME/moat/config.zon"

# --- the parents of protected paths (a hostile review's attacks) -----------
# A protected path is a mount point, which cannot be renamed; its parent
# could be, and a fresh one put in its place (husky's .husky/_, a
# submodule's .git/modules). Every writable directory between a protected
# path and the root is pinned.
HUSKY="mv .husky .husky-old && mkdir -p .husky/_ && printf '#!/bin/sh\ntouch $PWNED\n' >.husky/_/pre-commit && chmod +x .husky/_/pre-commit"
MODULES="mv .git/modules .git/modules-old && mkdir .git/modules && cp -a .git/modules-old/sub .git/modules/sub && printf '[core]\n\tfsmonitor = \"touch $PWNED; false\"\n' >>.git/modules/sub/config"
husky_repo() {
	newrepo "$1" && mkdir -p "$1/.husky/_" && git -C "$1" config core.hooksPath .husky/_
}
husky_repo "$T/ctl"
rm -f "$PWNED"
(cd "$T/ctl" && sh -c "$HUSKY" >/dev/null 2>&1 && echo 2 >>f && git commit -qam two >/dev/null 2>&1)
[ -e "$PWNED" ] && ok "control: HUSKY (the hooks directory's parent swapped) without moat runs at the next git commit" ||
	not_ok "control: HUSKY without moat runs at the next git commit"
git -C "$PROJ" config core.hooksPath .husky/_ && mkdir -p "$PROJ/.husky/_"
for how in run wrapper; do
	attempt "$how" HUSKY
	rm -rf "$PROJ/.husky-old"
	nothing_planted "HUSKY through moat $how"
done
git -C "$PROJ" config --unset core.hooksPath
rm -rf "$PROJ/.husky"
newrepo "$T/ctl" && git -C "$T/ctl" -c protocol.file.allow=always submodule add -q "$T/subsrc" sub >/dev/null 2>&1 &&
	git -C "$T/ctl" commit -qm sub
rm -f "$PWNED"
(cd "$T/ctl" && sh -c "$MODULES" >/dev/null 2>&1 && git status >/dev/null 2>&1)
[ -e "$PWNED" ] && ok "control: MODULES (.git/modules swapped) without moat runs at the next git status" ||
	not_ok "control: MODULES without moat runs at the next git status"
for how in run wrapper; do
	attempt "$how" MODULES
	rm -rf "$PROJ/.git/modules-old"
	rm -f "$PWNED"
	git -C "$PROJ" status >/dev/null 2>&1
	[ ! -e "$PWNED" ] && ok "MODULES through moat $how: a git status outside runs nothing planted" ||
		not_ok "MODULES through moat $how: a git status outside runs nothing planted"
done

# .git/commondir redirects git's common directory (config and hooks) to
# any directory. git dies on an empty or non-file commondir, so it cannot
# be made in advance, and .git stays writable for git to work: a session
# moves a new one aside when it ends; a wrapped tool has no end to do it.
COMMONDIR="mkdir -p evil && cp -r .git/. evil/ && rm -rf evil/hooks && mkdir evil/hooks && printf '#!/bin/sh\ntouch $PWNED\n' >evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit && echo ../evil >.git/commondir"
# commondir_runs: after the plant, does a git commit outside run the hook?
commondir_runs() {
	rm -f "$PWNED"
	echo "$RANDOM" >>f
	git commit -qam outside >/dev/null 2>&1
	local got=1
	[ -e "$PWNED" ] && got=0
	rm -rf .git/commondir .git/commondir.moat-planted evil
	return $got
}
newrepo "$T/ctl" && cd "$T/ctl"
sh -c "$COMMONDIR" >/dev/null 2>&1
commondir_runs && ok "control: COMMONDIR without moat runs at the next git commit" ||
	not_ok "control: COMMONDIR without moat runs at the next git commit"
cd "$PROJ"
run "$MOAT" run -- sh -c "$COMMONDIR"
expect_out "moat run: the planted commondir is reported" "made '$(re_quote "$PROJ/.git")/commondir'"
[ -e "$PROJ/.git/commondir.moat-planted" ] && [ ! -e "$PROJ/.git/commondir" ] &&
	ok "moat run: and moved aside when the session ends" || not_ok "moat run: and moved aside when the session ends"
commondir_runs && not_ok "moat run: a git commit outside then runs nothing planted" ||
	ok "moat run: a git commit outside then runs nothing planted"
plant_commondir_wrapped() {
	run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c "$COMMONDIR"
	commondir_runs
}
# A wrapped tool's plant meets the next tool moat starts, before it runs: a
# jailbroken git (no sandbox at all) reads no planted config or hook.
mkdir -p "$XDG_CONFIG_HOME/moat"
printf '.{ .jailbreak = .{ "git" } }\n' >"$XDG_CONFIG_HOME/moat/config.zon"
run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c "$COMMONDIR"
[ -e "$PROJ/.git/commondir" ] && ok "control: a wrapped tool can plant .git/commondir" ||
	not_ok "control: a wrapped tool can plant .git/commondir"
rm -f "$PWNED" && echo "$RANDOM" >>f
run env MOAT_ROOT="$PROJ" "$SH/bin/git" commit -qam jailbroken
[ ! -e "$PWNED" ] && [ -e "$PROJ/.git/commondir.moat-planted" ] && [ "$rc" -eq 0 ] &&
	ok "a jailbroken git started next runs nothing planted: the commondir is moved aside first" ||
	{ not_ok "a jailbroken git started next runs nothing planted" && _show jailbroken-git; }
expect_out "and moat says so" "there is '$(re_quote "$PROJ/.git")/commondir'.*moved it to commondir.moat-planted"
rm -rf .git/commondir.moat-planted evil "$XDG_CONFIG_HOME/moat/config.zon"
# The session fills commondir.moat-planted first, so no rename can take it.
run "$MOAT" run -- sh -c "$COMMONDIR && mkdir .git/commondir.moat-planted && touch .git/commondir.moat-planted/x"
[ ! -e "$PROJ/.git/commondir" ] && ls "$PROJ/.git" | grep -q '^commondir\.moat-planted\.' &&
	ok "moat run: a commondir whose usual place aside is taken is moved to another" ||
	{ not_ok "moat run: a commondir whose usual place aside is taken is moved to another" && _show blocked; }
commondir_runs && not_ok "moat run: and a git commit outside runs nothing planted" ||
	ok "moat run: and a git commit outside runs nothing planted"
rm -rf .git/commondir.moat-planted*
# A root under the host's /tmp: a session carries it into its private
# /tmp, and the tool must start in the carried-over tree, where the
# protecting mounts are, not in the host's /tmp below it.
TMPROOT=$(mktemp -d /tmp/moat-protect.XXXXXX)
newrepo "$TMPROOT/p"
[ "$(id -u)" = 0 ] || chmod 755 "$TMPROOT"
cd "$TMPROOT/p" && run "$MOAT" run -- sh -c "$PLANT"
cd "$PROJ"
[ "$rc" -ne 0 ] && [ ! -e "$TMPROOT/p/.git/hooks/pre-commit" ] && ok "refused: PLANT in a root under /tmp" ||
	{ not_ok "refused: PLANT in a root under /tmp" && _show tmp-root; }
# A linked work tree there, its repository beside it under /tmp: the
# session carries both into its private /tmp, the work tree's own git
# directory writable below the common one's read-only worktrees/.
newrepo "$TMPROOT/m" && git -C "$TMPROOT/m" worktree add -q "$TMPROOT/w" 2>/dev/null
cd "$TMPROOT/w" && run "$MOAT" run -- sh -c 'echo x >x && git add x && git commit -qm x && echo COMMITTED'
cd "$PROJ"
expect_out "git commit works in a linked work tree under /tmp whose repository is there too" '^COMMITTED$'
rm -rf "$TMPROOT"

# A linked work tree outside the root: its commondir and gitdir lie in the
# root's .git/worktrees/ and say where its git reads config and hooks.
git -C "$PROJ" worktree add -q "$T/wt3" 2>/dev/null
WTDIR=$PROJ/.git/worktrees/wt3
cp "$WTDIR/commondir" "$T/commondir.before"
run "$MOAT" run -- sh -c 'echo /tmp/evil >.git/worktrees/wt3/commondir'
[ "$rc" -ne 0 ] && cmp -s "$WTDIR/commondir" "$T/commondir.before" &&
	ok "refused: rewriting a linked work tree's commondir in .git/worktrees" ||
	{ not_ok "refused: rewriting a linked work tree's commondir in .git/worktrees" && _show worktree-commondir; }
run "$MOAT" run -- sh -c 'echo /tmp/evil >.git/worktrees/wt3/gitdir'
[ "$rc" -ne 0 ] && ok "refused: rewriting its gitdir" || { not_ok "refused: rewriting its gitdir" && _show worktree-gitdir; }
(echo x >"$WTDIR/commondir.probe") && ok "control: .git/worktrees/wt3 is writable outside moat" ||
	not_ok "control: .git/worktrees/wt3 is writable outside moat"
rm -f "$WTDIR/commondir.probe"
git -C "$PROJ" worktree remove --force "$T/wt3" >/dev/null 2>&1
# --- no mount namespace: the paths stay writable, and moat says so --------
# no_namespaces refuses unshare and namespace clones, as a kernel with user
# namespaces off or a container's seccomp profile does. The plant then
# works (Landlock cannot take write away below the root): a known gap,
# which every start must name rather than pass over.
NONS=$HELPERS/no_namespaces
# Every run above had namespaces, and once they have worked moat refuses
# to go on without them (tests/escape/failclosed.sh): the runs below are of
# an environment that never gave any, so moat is made to forget first.
never_had_namespaces() { rm -f "$XDG_STATE_HOME/moat/namespaces-worked"; }
if "$NONS" unshare -m true 2>/dev/null || "$NONS" unshare -Ur true 2>/dev/null; then
	not_ok "control: no_namespaces refuses a mount namespace"
else
	ok "control: no_namespaces refuses a mount namespace"
fi
unshare -m true 2>/dev/null || unshare -Ur true 2>/dev/null && ok "control: without it one is made" ||
	not_ok "control: without it one is made"
UNPROTECTED="no mount namespace here .* protected paths stay writable in the sandbox"
# plant_via HOW [PREFIX...]: PLANT through moat HOW, run by PREFIX.
plant_via() {
	local how=$1 && shift
	rm -f "$PROJ/.git/hooks/pre-commit"
	case $how in
	run) run "$@" "$MOAT" run -- sh -c "$PLANT" ;;
	wrapper) run env MOAT_ROOT="$PROJ" "$@" "$SH/bin/sh" -c "$PLANT" ;;
	esac
}
for how in run wrapper; do
	never_had_namespaces && plant_via "$how" "$NONS"
	expect_out "no mount namespace: moat $how warns that the protected paths stay writable" \
		"$UNPROTECTED"
	[ -e "$PROJ/.git/hooks/pre-commit" ] && ok "and it is true: the hook was planted (moat $how)" ||
		not_ok "and it is true: the hook was planted (moat $how)"
	plant_via "$how"
	expect_no_out "control: with namespaces, moat $how gives no such warning" failed "$UNPROTECTED"
	[ ! -e "$PROJ/.git/hooks/pre-commit" ] && ok "and refuses the hook" || not_ok "and refuses the hook"
done
rm -f "$PROJ/.git/hooks/pre-commit"
never_had_namespaces && run "$NONS" "$MOAT" run -- sh -c 'echo x >f'
[ "$(grep -c "no mount namespace here" "$T/.err")" = 1 ] && ok "a session warns once" ||
	{ not_ok "a session warns once" && _show once; }
# A directory of no git project that moat accepts as a root ($T holds
# HOME, and a root above HOME is refused, which said nothing either).
mkdir -p "$T/nogit" && cd "$T/nogit" && never_had_namespaces && run "$NONS" "$MOAT" run -- true && cd "$PROJ"
expect_no_out "outside a git project nothing is protected, so no warning" 0 "$UNPROTECTED"
run "$NONS" "$MOAT" check
[ "$rc" -eq 1 ] && ok "moat check: not 'all ok' (status 1)" || { not_ok "moat check: not 'all ok'" && _show check; }
expect_out "moat check names the gap" "^protected paths: not enforced here"
run "$MOAT" check
expect_no_out "control: with namespaces, moat check does not" 0 "^protected paths"

# --- a hard link made while nothing was protected --------------------------
# An unprotected run (no namespaces) leaves a second name for .git/config
# and for a hook; a later, protected run writes through those names. Before
# it starts, moat gives each protected file an inode of its own.
printf '#!/bin/sh\nexit 0\n' >"$PROJ/.git/hooks/pre-push" && chmod +x "$PROJ/.git/hooks/pre-push"
run "$MOAT" run -- sh -c 'mkdir -p docs && ln .git/config docs/.keep3'
[ "$rc" -ne 0 ] && [ ! -e "$PROJ/docs/.keep3" ] && ok "control: a protected run cannot make such a link" ||
	not_ok "control: a protected run cannot make such a link"
never_had_namespaces && run "$NONS" "$MOAT" run -- sh -c 'mkdir -p docs && ln .git/config docs/.keep && ln .git/hooks/pre-push docs/.keep2'
[ "$(stat -c %h "$PROJ/.git/config")" = 2 ] && ok "control: an unprotected run can link .git/config" ||
	{ not_ok "control: an unprotected run can link .git/config" && _show link; }
cp "$PROJ/.git/config" "$T/config.before"
cp "$PROJ/.git/hooks/pre-push" "$T/pre-push.before"
for how in run wrapper; do
	run_via() {
		case $how in
		run) run "$MOAT" run -- sh -c "$1" ;;
		wrapper) run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c "$1" ;;
		esac
	}
	run_via "printf '[core]\n\tfsmonitor = \"touch $PWNED; false\"\n' >>docs/.keep; printf 'touch $PWNED\n' >>docs/.keep2"
	cmp -s "$PROJ/.git/config" "$T/config.before" && cmp -s "$PROJ/.git/hooks/pre-push" "$T/pre-push.before" &&
		ok "moat $how: writing through an old hard link changes neither .git/config nor the hook" ||
		{ not_ok "moat $how: writing through an old hard link changes neither .git/config nor the hook" && _show "$how"; }
	[ "$how" = run ] && expect_out "and moat says it gave them files of their own" \
		"'$PROJ/.git/config' had 2 names \(hard links\).*file of its own now"
	[ -x "$PROJ/.git/hooks/pre-push" ] && [ "$(stat -c %h "$PROJ/.git/config")" = 1 ] &&
		ok "moat $how: the hook stays executable, .git/config has one name" ||
		not_ok "moat $how: the hook stays executable, .git/config has one name"
	nothing_planted "moat $how after a hard link"
	ln -f "$PROJ/.git/config" "$PROJ/docs/.keep" && ln -f "$PROJ/.git/hooks/pre-push" "$PROJ/docs/.keep2"
done
rm -rf "$PROJ/docs" "$PROJ/.git/hooks/pre-push"
# Below a protected directory: a hook that sources .githooks/lib/common.sh.
mkdir -p "$PROJ/.githooks/lib" && echo ': ok' >"$PROJ/.githooks/lib/common.sh"
never_had_namespaces && run "$NONS" "$MOAT" run -- sh -c 'ln .githooks/lib/common.sh deep-link'
git -C "$PROJ" config core.hooksPath .githooks
cp "$PROJ/.githooks/lib/common.sh" "$T/common.before"
run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c 'echo "touch $PWNED" >>deep-link'
cmp -s "$PROJ/.githooks/lib/common.sh" "$T/common.before" &&
	ok "moat wrapper: a file below a protected directory is not written through an old hard link" ||
	{ not_ok "moat wrapper: a file below a protected directory is not written through an old hard link" && _show deep-link; }
git -C "$PROJ" config --unset core.hooksPath
rm -rf "$PROJ/.githooks" "$PROJ/deep-link"
# One its owner cannot read (a mode 000 name, which root reads anyway), and
# one moat cannot replace: the start is refused, never protection that can
# be written around.
if is_root; then
	skip "prerequisite: not root (root reads a mode 000 file anyway); the [nobody] run checks it"
	skip "prerequisite: the same"
else
	never_had_namespaces && run "$NONS" "$MOAT" run -- sh -c 'ln .git/config cfg-link && chmod 000 cfg-link'
	cp "$PROJ/.git/config" "$T/config.before"
	run env MOAT_ROOT="$PROJ" "$SH/bin/sh" -c 'chmod 644 cfg-link; echo "[core] fsmonitor = x" >>cfg-link'
	cmp -s "$PROJ/.git/config" "$T/config.before" && ok "an unreadable old hard link to .git/config is given no way in" ||
		{ not_ok "an unreadable old hard link to .git/config is given no way in" && _show cfg-link; }
	rm -f "$PROJ/cfg-link"
	printf '#!/bin/sh\nexit 0\n' >"$PROJ/.git/hooks/pre-push" && chmod +x "$PROJ/.git/hooks/pre-push"
	ln "$PROJ/.git/hooks/pre-push" "$PROJ/push-link" && chmod 555 "$PROJ/.git/hooks"
	run "$MOAT" run -- true
	[ "$rc" -eq 125 ] && grep -q "moat cannot protect it" "$T/.err" &&
		ok "a hard-linked hook that cannot be copied (hooks/ not writable) refuses the start" ||
		{ not_ok "a hard-linked hook that cannot be copied refuses the start" && _show refuse; }
	chmod 755 "$PROJ/.git/hooks" && rm -f "$PROJ/push-link" "$PROJ/.git/hooks/pre-push"
fi

# --- a .git/hooks that is a symlink (.git/hooks -> ../githooks) -------------
# The target is protected; the link lies in the writable .git. A session
# puts it back when it ends; a wrapped tool has no end (known breakage).
newrepo "$T/hl" && mkdir "$T/hl/githooks" && rm -rf "$T/hl/.git/hooks" && ln -s ../githooks "$T/hl/.git/hooks"
RELINK="rm .git/hooks && mkdir .git/hooks && printf '#!/bin/sh\ntouch $PWNED\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
# hooklink_runs: does a git commit in $T/hl outside run a planted hook? Resets.
hooklink_runs() {
	rm -f "$PWNED"
	(cd "$T/hl" && echo "$RANDOM" >>f && git commit -qam x >/dev/null 2>&1)
	local ran=1
	[ -e "$PWNED" ] && ran=0
	rm -rf "$T/hl/.git/hooks" "$T/hl/.git/hooks.moat-planted" && ln -s ../githooks "$T/hl/.git/hooks"
	return $ran
}
(cd "$T/hl" && sh -c "$RELINK")
hooklink_runs && ok "control: replacing the hooks link without moat runs at the next commit" ||
	not_ok "control: replacing the hooks link without moat runs at the next commit"
cd "$T/hl" && run "$MOAT" run -- sh -c "$RELINK" && cd "$PROJ"
expect_out "moat run: the replaced hooks link is reported" "replaced the link '$(re_quote "$T/hl/.git")/hooks'"
[ -L "$T/hl/.git/hooks" ] && [ "$(readlink "$T/hl/.git/hooks")" = ../githooks ] && [ -e "$T/hl/.git/hooks.moat-planted/pre-commit" ] &&
	ok "moat run: the link is put back, what replaced it moved aside" ||
	not_ok "moat run: the link is put back, what replaced it moved aside"
hooklink_runs && not_ok "moat run: a git commit outside then runs nothing planted" ||
	ok "moat run: a git commit outside then runs nothing planted"
"$MOAT" wrap hltools /bin/sh >/dev/null 2>&1
relink_wrapped() {
	(cd "$T/hl" && env MOAT_ROOT="$T/hl" "$XDG_DATA_HOME/moat/shells/hltools/bin/sh" -c "$RELINK") >/dev/null 2>&1
	hooklink_runs
}
known_breakage "a .git/hooks link replaced by a wrapped tool runs a planted hook" \
	"a wrapped tool has no end at which moat could put the link back; docs/security.md, Persistence" \
	relink_wrapped

# --- a repository made in a session, in a root that had none ---------------
rm -rf "$T/norepo" && mkdir "$T/norepo" && echo hello >"$T/norepo/README"
NEWREPO="git init -q . && printf '#!/bin/sh\ntouch $PWNED\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
cd "$T/norepo" && run "$MOAT" run -- sh -c "$NEWREPO" && cd "$PROJ"
expect_out "moat run: a repository made in the session is reported" \
	"made the git repository '$(re_quote "$T/norepo")/.git'.*moved aside its hooks \(pre-commit\)"
rm -f "$PWNED"
(cd "$T/norepo" && git add README && git commit -qm first >/dev/null 2>&1)
[ ! -e "$PWNED" ] && [ -e "$T/norepo/.git/hooks.moat-planted/pre-commit" ] &&
	ok "moat run: the user's first commit there runs nothing planted" ||
	not_ok "moat run: the user's first commit there runs nothing planted"
rm -rf "$T/norepo" && mkdir "$T/norepo" && (cd "$T/norepo" && sh -c "$NEWREPO" && git commit -q --allow-empty -m x >/dev/null 2>&1)
[ -e "$PWNED" ] && ok "control: without moat that first commit runs the hook" ||
	not_ok "control: without moat that first commit runs the hook"
rm -f "$PWNED"
# The same with the hooks behind a link, and with .git a file sending git
# to a git directory of the session's making.
for plant in "git init -q . && mkdir evilhooks && printf '#!/bin/sh\ntouch $PWNED\n' >evilhooks/pre-commit && chmod +x evilhooks/pre-commit && rm -rf .git/hooks && ln -s ../evilhooks .git/hooks" \
	"git init -q --separate-git-dir=evilgit . && printf '#!/bin/sh\ntouch $PWNED\n' >evilgit/hooks/pre-commit && chmod +x evilgit/hooks/pre-commit" \
	"$NEWREPO && mkdir .git/hooks.moat-planted && touch .git/hooks.moat-planted/x"; do
	rm -rf "$T/norepo" && mkdir "$T/norepo" && echo hello >"$T/norepo/README"
	(cd "$T/norepo" && sh -c "$plant" && git init -q . >/dev/null 2>&1; git add README && git commit -qm first >/dev/null 2>&1)
	[ -e "$PWNED" ] && ok "control: without moat that plant runs at the first commit" ||
		not_ok "control: without moat that plant runs at the first commit"
	rm -rf "$PWNED" "$T/norepo" && mkdir "$T/norepo" && echo hello >"$T/norepo/README"
	cd "$T/norepo" && run "$MOAT" run -- sh -c "$plant" && cd "$PROJ"
	(cd "$T/norepo" && git init -q . >/dev/null 2>&1; git add README && git commit -qm first >/dev/null 2>&1)
	[ ! -e "$PWNED" ] && ok "moat run: a new repository's hooks behind a link or a .git file run nothing" ||
		{ not_ok "moat run: a new repository's hooks behind a link or a .git file run nothing" && _show "$plant"; }
	rm -f "$PWNED"
done
cd "$T/hl" && run "$MOAT" run -- true && cd "$PROJ"
expect_no_out "control: a session in an existing repository says nothing of the kind" 0 "made the git repository|replaced the link"

# --- the root replaced while moat starts ----------------------------------
# moat looks the root up, mounts the protected paths by path, then grants
# the root. A root renamed away with a new repository made in its place
# between those steps must leave no .git/hooks, old or new, to the tool:
# the user's next git runs whatever is planted there. strace holds one
# system call for some seconds once it has returned (each process counts
# its own calls), and the swap starts when strace's log shows the Nth call
# held, so the race is no timing guess.
RACE=$T/race
# LeakSanitizer cannot run under ptrace (an ASan build aborts at exit).
NO_LSAN="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
PLANT_BOTH="echo evil >$RACE/.git/hooks/pre-commit; echo evil >$RACE.old/.git/hooks/pre-commit"
# swap_during N SECONDS STRACE_ARGS... -- CMD...: CMD with MOAT_ROOT=$RACE
# under strace holding the call STRACE_ARGS name for SECONDS (times
# MOAT_TEST_SLOW, as in an emulated guest, where making the new repository
# takes seconds); $RACE is swapped for a new repository once N calls were
# held.
swap_during() {
	local slow=${MOAT_TEST_SLOW:-1}
	slow=${slow%%.*}
	local n=$1 delay=$(($2 * 1000000 * slow)) args=()
	shift 2
	while [ "$1" != -- ]; do args+=("$1") && shift; done
	shift
	rm -rf "$RACE" "$RACE.old" "$T/race.st" && newrepo "$RACE"
	(
		for _ in $(seq $((600 * slow))); do
			held=$(grep -c DELAYED "$T/race.st" 2>/dev/null)
			[ "${held:-0}" -ge "$n" ] && break
			sleep 0.1
		done
		mv "$RACE" "$RACE.old" && newrepo "$RACE"
	) &
	cd "$RACE" && run env "$NO_LSAN" MOAT_ROOT="$RACE" strace -qq -o "$T/race.st" -f "${args[@]}" \
		-e "inject=${args[-1]#trace=}:delay_exit=$delay:when=1" "$@"
	wait
	cd "$PROJ"
}
# nothing_planted_in_either NAME: the swap happened, and neither tree's
# hooks were written.
nothing_planted_in_either() {
	[ -d "$RACE.old" ] && [ ! -e "$RACE/.git/hooks/pre-commit" ] && [ ! -e "$RACE.old/.git/hooks/pre-commit" ] &&
		ok "$1" || { not_ok "$1" && _show race; }
}
if strace -qq -o /dev/null -f -P / -e trace=openat2 -e inject=openat2:delay_exit=1:when=1 true 2>/dev/null; then
	# The wrapper looks its root up once (openat2) and grants that.
	swap_during 1 3 -P "$RACE" -e trace=openat2 -- "$SH/bin/sh" -c "$PLANT_BOTH"
	nothing_planted_in_either "moat-wrapper: a root swapped after its lookup gets no hook planted"
	[ "$rc" = 125 ] && grep -q "was moved or replaced while moat started" "$T/.err" &&
		ok "moat-wrapper: the swap is seen and the tool refused" ||
		{ not_ok "moat-wrapper: the swap is seen and the tool refused" && _show race; }
	run sh -c "$PLANT_BOTH"
	[ -e "$RACE/.git/hooks/pre-commit" ] && [ -e "$RACE.old/.git/hooks/pre-commit" ] &&
		ok "control: without moat both trees' hooks are written" ||
		{ not_ok "control: without moat both trees' hooks are written" && _show race-control; }
	# A session: swapped after the mounts, as the tool makes its ruleset
	# (the second landlock_create_ruleset; moat's first asks the ABI).
	swap_during 2 3 -e trace=landlock_create_ruleset -- "$MOAT" run -- sh -c "$PLANT_BOTH"
	nothing_planted_in_either "moat run: a root swapped after the mounts gets no hook planted"
	# A session: swapped before the mounts (the supervisor's first mount).
	swap_during 1 3 -e trace=mount -- "$MOAT" run -- sh -c "$PLANT_BOTH"
	nothing_planted_in_either "moat run: a root swapped before the mounts gets no hook planted"
	[ "$rc" = 125 ] && grep -q "was moved or replaced while moat started" "$T/.err" &&
		ok "moat run: the swap is seen and the tool refused" ||
		{ not_ok "moat run: the swap is seen and the tool refused" && _show race; }
	# The same slow starts with the root left alone run the tool.
	rm -rf "$RACE" "$RACE.old" && newrepo "$RACE"
	cd "$RACE" && run env "$NO_LSAN" MOAT_ROOT="$RACE" strace -qq -o "$T/race.st" -f -P "$RACE" -e trace=openat2 \
		-e inject=openat2:delay_exit=1000000:when=1 "$SH/bin/sh" -c "echo x >$RACE/f2"
	[ "$rc" = 0 ] && [ -e "$RACE/f2" ] && grep -q DELAYED "$T/race.st" &&
		ok "moat-wrapper: the same slow start with the root left alone runs the tool" ||
		{ not_ok "moat-wrapper: the same slow start with the root left alone runs the tool" && _show slow-start; }
	run env "$NO_LSAN" MOAT_ROOT="$RACE" strace -qq -o "$T/race.st" -f -e trace=landlock_create_ruleset \
		-e inject=landlock_create_ruleset:delay_exit=1000000:when=1 "$MOAT" run -- sh -c "echo x >$RACE/f3"
	cd "$PROJ"
	[ "$rc" = 0 ] && [ -e "$RACE/f3" ] && [ "$(grep -c DELAYED "$T/race.st")" -ge 2 ] &&
		ok "moat run: the same slow start with the root left alone runs the tool" ||
		{ not_ok "moat run: the same slow start with the root left alone runs the tool" && _show slow-start; }
else
	skip "prerequisite: strace with -P and fault injection, to hold moat's lookups while the root is swapped"
fi

known_breakage "a .git/commondir planted by a wrapped tool redirects the user's git to a planted hook" \
	"a wrapped tool has no end at which moat could move it aside; docs/security.md, Persistence" \
	plant_commondir_wrapped

done_testing
