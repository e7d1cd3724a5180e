# `moat profile` keeps its columns with a long path (issue 39): the path
# column is as wide as the longest path shown, so every row's access and
# origin start where every other row's do.
# kernel-independent: moat profile's layout.
. "$(dirname "$0")/../lib.sh"

LONG=$HOME/.local/share/a-rather-long-directory-name/with/levels/below/it
mkdir -p "$LONG" && echo LONG-CONTENT >"$LONG/file"
[ "${#LONG}" -gt 60 ] && ok "control: the path is longer than the old 40-column field" ||
	not_ok "control: the path is only ${#LONG} long"
expect_ok "grant the long path" "$MOAT" allow '*' "$LONG"
run "$MOAT" profile
expect_out "the long grant is listed" "^$(re_quote "$LONG") +read +grant for \*$"
expect_out "so is the root, with its access" "^$(re_quote "$PROJ") +read/write/exec +root$"
# Where the second column starts on each row: rules (a path) and network.
cols=$(printf '%s\n' "$out" | awk '/^(\/|network )/ { match($0, /^[^ ]+ +/); print RLENGTH }' | sort -u)
[ -n "$cols" ] && [ "$(printf '%s\n' "$cols" | wc -l)" = 1 ] &&
	ok "every row's access column starts at one place" ||
	{ not_ok "every row's access column starts at one place (at: $(echo $cols))" && _show profile; }
longest=$(printf '%s\n' "$out" | awk '/^\// && length($1) > m { m = length($1) } END { print m }')
[ "$cols" = "$((longest + 1))" ] && ok "right after the longest path" ||
	not_ok "the column starts at $cols, the longest path is $longest long"

# What the listing says is what a run gets: the grant reads, a sibling not.
expect_ok "the long grant is readable in a run" "$MOAT" run -- cat "$LONG/file"
expect_out "its content" LONG-CONTENT
echo SIBLING-SECRET >"$(dirname "$LONG")/secret"
expect_ok "control: without moat the sibling is readable" cat "$(dirname "$LONG")/secret"
run "$MOAT" run -- cat "$(dirname "$LONG")/secret"
expect_refused "beside it nothing is" SIBLING-SECRET

done_testing
