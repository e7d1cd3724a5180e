#!/usr/bin/env bash
# docs/recipes.md, git: everything in the project works with no grant; the
# identity comes from ~/.gitconfig once it is granted read-only, and the
# grant gives nothing else under HOME.
. "$(dirname "$0")/../lib.sh"
need git
export GIT_CONFIG_NOSYSTEM=1
printf '[user]\n\tname = Recipe User\n\temail = recipe@example.com\n' >"$HOME/.gitconfig"
git init -q "$PROJ" && echo one >"$PROJ/f" && git -C "$PROJ" add f

# Control: outside moat git finds the identity; inside, before the grant,
# it cannot read ~/.gitconfig at all.
run git -C "$PROJ" config user.name
[ "$out" = "Recipe User" ] && ok "control: git reads ~/.gitconfig outside moat" || not_ok "control: git reads ~/.gitconfig outside moat"
run "$MOAT" run -- cat "$HOME/.gitconfig"
expect_refused "without the grant ~/.gitconfig is refused" "Recipe User"

expect_ok "moat allow git ~/.gitconfig" "$MOAT" allow git "$HOME/.gitconfig"
run "$MOAT" run -- sh -euc 'git commit -qm "from moat" && git log --format="%an %s"'
[ "$rc" -eq 0 ] && [ "$out" = "Recipe User from moat" ] && ok "git commit takes the granted identity" ||
	{ not_ok "git commit takes the granted identity" && _show git commit; }
expect_ok "branch, stash and gc work" "$MOAT" run -- sh -euc \
	'git checkout -qb topic; echo two >>f; git stash -q; git stash pop -q; git commit -qam two; git gc -q'
run "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
expect_refused "the grant gives nothing else: ~/.ssh stays refused" DECOY-SSH-KEY
run "$MOAT" run -- sh -c 'echo x >>"$HOME/.gitconfig"'
expect_refused "and ~/.gitconfig is read-only" "never"
done_testing
