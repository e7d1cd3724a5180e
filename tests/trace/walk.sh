# Issue 14's walk: clone a C project, `moat run -- make` in a subdirectory,
# `moat run --trace -- git commit`, paste the suggestions, rerun: it works
# in two rounds.
. "$(dirname "$0")/../lib.sh"
for t in git make cc; do
	command -v "$t" >/dev/null || { skip "prerequisite: $t missing"; done_testing; exit; }
done
export GIT_CONFIG_NOSYSTEM=1
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL EMAIL
printf '[user]\n\tname = Walker\n\temail = walker@test\n' >"$HOME/.gitconfig"
mkdir -p "$T/upstream/src"
printf 'hello: src/hello.c\n\t$(CC) -o $@ src/hello.c\n' >"$T/upstream/Makefile"
printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' >"$T/upstream/src/hello.c"
git -C "$T/upstream" init -q && git -C "$T/upstream" add . &&
	git -C "$T/upstream" -c user.name=u -c user.email=u@test commit -qm init
git clone -q "$T/upstream" "$PROJ/hello"
cd "$PROJ/hello/src" || exit 1

expect_ok "moat run -- make, from a subdirectory" "$MOAT" run -- make -C ..
expect_ok "the program built runs" "$MOAT" run -- ../hello
expect_out "and prints" '^hello$'

echo '# changed' >>../Makefile
run "$MOAT" run --trace -- git commit -qam change
[ "$rc" = 128 ] && ok "round 1: git commit fails (no identity: ~/.gitconfig is refused)" || { not_ok "round 1 status $rc"; _show "(trace)"; }
expect_out "the trace suggests the grant" '^  moat allow git ~/.gitconfig$'
n=0
while IFS= read -r line; do
	n=$((n + 1))
	PATH=$MOAT_BUILD:$PATH sh -c "$line" >/dev/null 2>&1 || not_ok "pasting '$line' failed"
done < <(sed -n 's/^  \(moat allow .*\)$/\1/p' "$T/.err")
[ "$n" -ge 1 ] && ok "pasted $n suggestion(s) as printed" || not_ok "no suggestion to paste"
expect_ok "round 2: git commit works" "$MOAT" run -- git commit -qam change
run git -C "$PROJ/hello" log --format='%an %s' -1
[ "$out" = "Walker change" ] && ok "the commit is there, with the identity from ~/.gitconfig" || not_ok "log says '$out'"
expect_denied "the rest of HOME stays unreadable" "$MOAT" run -- cat "$HOME/.ssh/id_rsa"

done_testing
