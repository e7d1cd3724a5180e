#!/usr/bin/env bash
# Repositories already inside the root, other than the root's own (a clone,
# a vendored project, one a past session made), below a root in a
# repository and below one in none: git runs their hooks for the user who
# later commits in them, outside. Sandboxed code must not plant a hook in
# one, nor move the repository aside and put one of its own in its place;
# git still works in them inside. The controls plant the same without moat
# and see it run. Deeper than moat looks (two levels below the root) a
# repository stays writable: a known breakage (docs/security.md).
. "$(dirname "$0")/../lib.sh"

need git
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1
PWNED=$T/pwned # outside the root and every grant: only unconfined code writes it

newrepo() {
	rm -rf "$1" && mkdir -p "$1" && git -C "$1" init -q && echo one >"$1/f" &&
		git -C "$1" add f && git -C "$1" commit -qm one
}

# plant REPO: a pre-commit hook in REPO (relative to the root).
plant() { echo "printf '#!/bin/sh\ntouch $PWNED\n' >$1/.git/hooks/pre-commit && chmod +x $1/.git/hooks/pre-commit"; }
# move REPO: the repository moved aside, one with a hook in its place.
move() { echo "mv $1 $1.aside && git init -q $1 && $(plant "$1")"; }

# commit_runs ROOT REPO: does a git commit outside, in ROOT/REPO, run a
# planted hook?
commit_runs() {
	rm -f "$PWNED"
	(cd "$1/$2" && echo "$RANDOM" >>f && git add f && git commit -qm outside) >/dev/null 2>&1
	[ -e "$PWNED" ]
}

newrepo "$PROJ" && cd "$PROJ"
PLAIN=$HOME/plain # a root in no repository
mkdir -p "$PLAIN"
for root in "$PROJ" "$PLAIN"; do
	newrepo "$root/a"
	newrepo "$root/x/b"
done
"$MOAT" wrap tools /bin/sh /usr/bin/git >/dev/null
SH=$XDG_DATA_HOME/moat/shells/tools

# --- controls: the same plants, without moat, run at the next commit -------
for repo in a x/b; do
	(cd "$PROJ" && sh -c "$(plant "$repo")")
	commit_runs "$PROJ" "$repo" && ok "control: a hook planted in $repo without moat runs at the next commit" ||
		not_ok "control: a hook planted in $repo without moat runs at the next commit"
	rm -f "$PROJ/$repo/.git/hooks/pre-commit"
done
newrepo "$T/ctl/a"
(cd "$T/ctl" && sh -c "$(move a)")
commit_runs "$T/ctl" a && ok "control: a repository moved aside and replaced without moat runs the new one's hook" ||
	not_ok "control: a repository moved aside and replaced without moat runs the new one's hook"

# attempt ROOT HOW WHAT REPO: the plant WHAT (plant, move) on ROOT/REPO
# through HOW (moat run, a wrapped shell) is refused, the hook is absent,
# and a commit outside runs nothing.
attempt() {
	local root=$1 how=$2 what=$3 repo=$4 name="$3 $4 below a root ${1##*/} through moat $2"
	cd "$root"
	case $how in
	run) run "$MOAT" run -- sh -c "$($what "$repo")" ;;
	wrapper) run env MOAT_ROOT="$root" "$SH/bin/sh" -c "$($what "$repo")" ;;
	esac
	cd "$PROJ"
	# Refused by the sandbox (a read-only hooks/, a pinned directory), not
	# a tool that could not start.
	if ran_and_failed && grep -qE 'Read-only file system|Device or resource busy' "$T/.err" &&
		[ ! -e "$root/$repo/.git/hooks/pre-commit" ] && ! commit_runs "$root" "$repo"; then
		ok "refused: $name"
	else
		not_ok "refused: $name" && _show "$how $what $repo"
	fi
	rm -rf "${root:?}/$repo.aside"
}

for root in "$PROJ" "$PLAIN"; do
	for how in run wrapper; do
		for repo in a x/b; do
			attempt "$root" "$how" plant "$repo"
			attempt "$root" "$how" move "$repo"
		done
	done
done

# --- moat profile lists them ----------------------------------------------
for root in "$PROJ" "$PLAIN"; do
	cd "$root" && run "$MOAT" profile
	for repo in a x/b; do
		expect_out "moat profile below ${root##*/} lists $repo's hooks as protected" \
			"$(re_quote "$root/$repo/.git/hooks") +read +protected"
	done
done
cd "$PROJ"

# --- git works in them inside ---------------------------------------------
for repo in a x/b; do
	newrepo "$PROJ/$repo"
	run "$MOAT" run -- sh -c "cd $repo && echo in >>f && git commit -qam inside && git checkout -qb topic && git status --short && git log -1 --format=%s"
	expect_out "git commit, checkout and status work inside in $repo" '^inside$'
done

# --- deeper than moat looks: a documented gap ------------------------------
newrepo "$PROJ/p/q/deep"
deep_planted() {
	run "$MOAT" run -- sh -c "$(plant p/q/deep)"
	commit_runs "$PROJ" p/q/deep
}
known_breakage "a hook planted in a repository three levels below the root runs at the next commit" \
	"moat looks for repositories two levels below the root; docs/security.md, Persistence" \
	deep_planted
newrepo "$PROJ/node_modules/pkg"
modules_planted() {
	run "$MOAT" run -- sh -c "$(plant node_modules/pkg)"
	commit_runs "$PROJ" node_modules/pkg
}
known_breakage "a hook planted in a repository in node_modules runs at the next commit there" \
	"moat does not look in node_modules; docs/security.md, Persistence" \
	modules_planted

done_testing
