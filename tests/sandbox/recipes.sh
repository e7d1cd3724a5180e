# docs/recipes.md, each recipe run where its tool is installed, with its
# control: the same command failing without the recipe.
. "$(dirname "$0")/../lib.sh"

if command -v git >/dev/null; then
	export GIT_CONFIG_NOSYSTEM=1
	unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL EMAIL
	printf '[user]\n\tname = Recipe\n\temail = recipe@test\n' >"$HOME/.gitconfig"
	git init -q "$PROJ/repo" && mkdir -p "$PROJ/repo/src" && echo a >"$PROJ/repo/src/a" && git -C "$PROJ/repo" add .
	cd "$PROJ/repo/src" || exit 1
	"$MOAT" wrap gittools "$(command -v git)" >/dev/null 2>&1
	run "$MOAT" run gittools -- git commit -qm one
	[ "$rc" = 128 ] && grep -q gitconfig "$T/.err" && ok "control: without the grant git cannot read ~/.gitconfig" ||
		{ not_ok "control: git commit without the grant"; _show "(git)"; }
	expect_ok "recipe: moat allow git ~/.gitconfig" "$MOAT" allow git '~/.gitconfig'
	expect_ok "git commit from a subdirectory then works" "$MOAT" run gittools -- git commit -qm one
	run git -C "$PROJ/repo" log --format='%an %s' -1
	[ "$out" = "Recipe one" ] && ok "with the identity from ~/.gitconfig" || not_ok "log says '$out'"
	expect_denied "the rest of HOME stays unreadable to git" "$MOAT" run gittools -- git config --file "$HOME/.ssh/config" --list
	cd "$PROJ" || exit 1
else
	skip "prerequisite: git missing"
fi

PY=/usr/bin/python3
if [ -x "$PY" ]; then
	expect_denied "control: a venv outside the project cannot be made" "$MOAT" run -- "$PY" -m venv --without-pip "$HOME/venv"
	expect_ok "recipe: a venv inside the project" "$MOAT" run -- "$PY" -m venv --without-pip .venv
	expect_ok "its python runs" "$MOAT" run -- .venv/bin/python -c 'import sys; print(sys.prefix)'
	expect_out "from the venv" "$(re_quote "$PROJ/.venv")"
else
	skip "prerequisite: /usr/bin/python3 missing"
fi

# npm: tests/sandbox/grant-dirs.sh runs the npm recipe into a fresh HOME.
done_testing
