#!/usr/bin/env bash
# moat update moves pins; a pinned revision is what a collected shell is
# rebuilt from; references without a revision say that they cannot be pinned.
. "$(dirname "$0")/common"

expect_ok "a first run pins the shell" "$MOAT" run hello -- fixture-hello
old_store=$(pinned_store hello)
old_rev=$(pinned_rev hello)

# The fixture changes: the pin holds until moat update.
echo "version two" >"$FIX/message"
run env PATH="$NOPATH" "$MOAT" run hello -- fixture-hello
expect_out "after the flake changes, the pin still holds" '^fixture says: version one$'

run "$MOAT" update
[ "$rc" -eq 0 ] && ok "moat update" || { not_ok "moat update" && _show moat update; }
expect_out "prints name: old -> new" "^hello: $(re_quote "${old_rev:0:19}") -> sha256-"
expect_out "says that a path: reference cannot be pinned" "hello: 'path:$FIX' cannot be pinned to a revision \(a path: reference has no revision\)"
expect_out "with one progress line" '^moat: updating hello\.\.\.$'
[ "$(pinned_store hello)" != "$old_store" ] && ok "the pin moved to a new store path" || not_ok "pin did not move"
run env PATH="$NOPATH" "$MOAT" run hello -- fixture-hello
expect_out "and the shell runs the new revision without nix" '^fixture says: version two$'

run "$MOAT" update hello
expect_out "an update with nothing new says unchanged" '^hello: sha256-[^ ]* \(unchanged\)$'
run "$MOAT" update nosuch
[ "$rc" -eq 1 ] && ok "updating a name that is not pinned fails" || not_ok "update nosuch status $rc"
expect_out "and says so" "moat: no pinned shell 'nosuch'"
expect_status "update -x is a usage error" 2 "$MOAT" update -x

# A git flake has revisions: the pin records one, and a collected store path
# is rebuilt from it, not from what the branch holds now.
if command -v git >/dev/null; then
	G=$T/gitflake
	cp -r "$FIX" "$G"
	gitc() { git -C "$G" -c user.email=t@example.com -c user.name=t "$@" >/dev/null 2>&1; }
	echo "git one" >"$G/message"
	gitc init -q && gitc add -A && gitc commit -qm one
	rev1=$(git -C "$G" rev-parse HEAD)
	export MOAT_FLAKE=git+file://$G
	run "$MOAT" run hello -- fixture-hello
	expect_out "a git+file flake builds" '^fixture says: git one$'
	[ "$(pinned_rev hello)" = "$rev1" ] && ok "its pin records the commit" || not_ok "git pin rev $(pinned_rev hello) want $rev1"
	awk -F'\t' '$1 == "hello" { exit !($4 ~ /rev='"$rev1"'/) }' "$PINS" && ok "and the locked URL to rebuild it from" || not_ok "locked url: $(grep ^hello "$PINS")"

	echo "git two" >"$G/message"
	gitc commit -qam two
	rev2=$(git -C "$G" rev-parse HEAD)
	collect "$(pinned_store hello)" && ok "the pinned store path is collected" || not_ok "collect"
	run "$MOAT" run hello -- fixture-hello
	expect_out "a collected shell is rebuilt from the pinned revision" '^fixture says: git one$'
	[ "$(pinned_rev hello)" = "$rev1" ] && ok "and stays pinned to it" || not_ok "rev moved on rebuild"

	run "$MOAT" update hello
	expect_out "moat update moves it to the new commit" "^hello: ${rev1:0:12} -> ${rev2:0:12}\$"
	expect_no_out "a clean git tree can be pinned" 0 'cannot be pinned'
	run "$MOAT" run hello -- fixture-hello
	expect_out "which then runs" '^fixture says: git two$'

	echo "dirty" >"$G/message"
	run "$MOAT" update hello
	expect_out "a dirty tree says it cannot be pinned" "'git\+file://$G' cannot be pinned to a revision \(the git tree has uncommitted changes\)"
	run env PATH="$NOPATH" "$MOAT" run hello -- fixture-hello
	expect_out "the pin holds the dirty tree's build" '^fixture says: dirty$'
	export MOAT_FLAKE=path:$FIX
else
	skip "git is not installed: no git+file flake"
fi

# Switching MOAT_FLAKE re-resolves a name pinned in another flake.
run "$MOAT" run hello -- fixture-hello
expect_out "a pin from another flake is not used for this one" '^fixture says: version two$'
awk -F'\t' '$1 == "hello" { exit !($2 == "path:'"$FIX"'") }' "$PINS" && ok "the pin follows MOAT_FLAKE" || not_ok "pin flake"

done_testing
