# config.zon commands: link/unlink/detect drive run and shell; check reports
# what would not work; concurrent edits both land; refusals say why.
. "$(dirname "$0")/../lib.sh"
CFG=$XDG_CONFIG_HOME/moat/config.zon

"$MOAT" wrap alpha /bin/cat >/dev/null
"$MOAT" wrap beta /bin/cat /bin/echo >/dev/null
"$MOAT" wrap extra /bin/ls >/dev/null
DATA=$XDG_DATA_HOME/moat/shells

run "$MOAT" detect
expect_out "no config: no shells" '^shells: none$'

mkdir -p "$(dirname "$CFG")"
cat >"$CFG" <<'ZON'
.{
    .default = .{ "extra" },
    .detect = .{
        .{ .markers = .{ "alpha.marker" }, .shells = .{ "alpha" } },
        .{ .markers = .{ "beta.marker", "also" }, .shells = .{ "beta" } },
    },
}
ZON
touch alpha.marker beta.marker
run "$MOAT" detect
expect_out "a rule whose markers all exist matches" '^shells: alpha \(detected\)$'
expect_out "default shells are listed apart" '^default: extra$'
touch also
run "$MOAT" detect "$PROJ"
expect_out "matching rules stack in file order" '^shells: alpha beta \(detected\)$'
run "$MOAT" detect -v "$PROJ"
[ "$rc" -eq 0 ] && grep -q '^shells: alpha beta (detected)$' "$T/.out" && ok "detect -v DIR is accepted" ||
	{ not_ok "detect -v DIR is accepted" && _show detect -v; }

run "$MOAT" run -- sh -c 'command -v cat; command -v ls; echo "$PATH"'
expect_out "run says which shells it picked" 'using shells alpha, beta \(detected\)'
expect_out "the first detected shell wins for cat" "^$DATA/alpha/bin/cat$"
expect_out "default shells provide what others do not" "^$DATA/extra/bin/ls$"
expect_out "default shells come last among shells" "$DATA/alpha/bin:$DATA/beta/bin:$DATA/extra/bin:"

expect_ok "link replaces detection for a directory" "$MOAT" link . beta
run "$MOAT" detect
expect_out "a link wins over detection" '^shells: beta \(linked\)$'
run "$MOAT" run -- sh -c 'command -v cat'
expect_out "run uses the linked shell" "^$DATA/beta/bin/cat$"
expect_ok "relinking replaces the entry" "$MOAT" link "$PROJ" alpha
run grep -c '\.dir' "$CFG"
[ "$out" = 1 ] && ok "one links entry per directory" || not_ok "links entries: $out"
run "$MOAT" link
expect_out "link lists links" "^$PROJ alpha$"
printf 'echo "$PATH"\n' >"$T/cmds"
run sh -c "SHELL=/bin/sh '$MOAT' shell <'$T/cmds'"
expect_out "shell uses the linked shell too" "^$DATA/alpha/bin:"
expect_ok "unlink forgets it" "$MOAT" unlink .
run "$MOAT" detect
expect_out "and detection applies again" '^shells: alpha beta \(detected\)$'
run "$MOAT" unlink .
[ "$rc" -eq 0 ] && grep -q "^moat: no link to remove for $PROJ\$" "$T/.err" &&
	ok "unlink of a directory with no link: status 0, and says so" ||
	{ not_ok "unlink of a directory with no link: status 0, and says so" && _show unlink; }
expect_ok "link -r is unlink" "$MOAT" link "$PROJ" alpha
expect_ok "(linked again)" "$MOAT" link -r .
run "$MOAT" detect
expect_out "link -r forgot the link" '^shells: alpha beta \(detected\)$'
expect_status "link -r wants one DIR" 2 "$MOAT" link -r
run "$MOAT" link
[ "$rc" -eq 0 ] && [ -z "$out" ] && grep -q "^moat: no links in $CFG\$" "$T/.err" &&
	ok "link with no links says so" || { not_ok "link with no links says so" && _show link; }
run "$MOAT" run alpha -- sh -c 'echo "$PATH"'
[ "$rc" -eq 0 ] && grep -q "^$DATA/alpha/bin:" "$T/.out" && ! grep -q 'using shells' "$T/.err" &&
	ok "named shells skip detection" || { not_ok "named shells skip detection" && _show run alpha; }

# check: which file, findings with file:line:col, a count, exit 1.
cat >"$CFG" <<ZON
.{
    .links = .{ .{ .dir = "$T/gone", .shells = .{ "nosuch" } } },
    .allow = .{
        .{ .bin = "git", .paths = .{ "~/.config" } },
        .{ .bin = "git", .paths = .{ "~/.config/git" } },
        .{ .bin = "*", .paths = .{ "~" } },
    },
    .jailbreak = .{ "no-such-tool-xyz" },
}
ZON
run "$MOAT" check
[ "$rc" = 1 ] && ok "check exits 1 on issues" || not_ok "check exit $rc"
expect_out "it names the file it checked" "^checking $CFG\$"
expect_out "missing linked dir" "config.zon:2:[0-9]+: linked directory '$T/gone' does not exist"
expect_out "unresolvable shell" "config.zon:2:[0-9]+: shell 'nosuch' cannot be resolved"
expect_out "redundant rule, as a note" "config.zon:5:[0-9]+: note: grant of '~/.config/git' to git is redundant"
expect_out "refused path" "config.zon:6:[0-9]+: grant of '~' to \* is refused"
expect_out "unresolvable jailbreak" "jailbreak 'no-such-tool-xyz' is not found"
expect_out "a count, without the note" '^4 issue\(s\) found$'
printf '.{ .default = .{ "alpha" } }\n' >"$CFG"
expect_ok "a good config checks clean" "$MOAT" check
expect_out "and says so" '^all ok$'
rm -f "$CFG"
run "$MOAT" check
[ "$rc" -eq 0 ] && grep -q "^checking $CFG (missing: an empty config)\$" "$T/.out" &&
	ok "a missing config.zon is an empty one, and check says so" || { not_ok "a missing config.zon is an empty one" && _show check; }

# Redundant grants are noted, not counted: the config works as written.
mkdir -p "$HOME/work/app" "$HOME/.cache/x" "$HOME/.cache/y/z" "$HOME/.npm/sub"
cat >"$CFG" <<ZON
.{
    .allow = .{
        .{ .bin = "cargo", .paths = .{ "~/.cache/x" }, .dirs = .{ "~/work" } },
        .{ .bin = "cargo", .paths = .{ "~/.cache/x" }, .dirs = .{ "~/work/app" } },
        .{ .bin = "cargo", .paths = .{ "~/.cache/x" }, .dirs = .{ "~/other" } },
        .{ .bin = "git", .paths = .{ "~/.cache/y" } },
        .{ .bin = "git", .paths = .{ "~/.cache/y/z" }, .dirs = .{ "~/work" } },
        .{ .bin = "*", .paths = .{ "~/.npm" }, .write = true },
        .{ .bin = "*", .paths = .{ "~/.npm/sub" } },
    },
}
ZON
run "$MOAT" check
[ "$rc" -eq 0 ] && ok "redundant grants alone: status 0" || { not_ok "redundant grants alone: status 0" && _show check; }
expect_out "a rule for a directory covers the same rule for a subdirectory" \
	"config.zon:4:[0-9]+: note: grant of '~/.cache/x' to cargo is redundant: line 3 grants '~/.cache/x' to cargo already \(its .dirs cover this rule's\)"
expect_out "a rule for every project covers one for some" "config.zon:7:[0-9]+: note: grant of '~/.cache/y/z' to git is redundant: line 6"
expect_out "a broader path with wider access covers a narrower one" "config.zon:9:[0-9]+: note: grant of '~/.npm/sub' to \* is redundant: line 8"
expect_no_out "a rule for other directories is not covered" 0 "config.zon:[3568]:[0-9]+: note"
expect_out "and the summary says there are notes" '^all ok \(3 note\(s\) above\)$'

# A .dirs entry that is not absolute would never apply: reported, and no
# command runs with it (as the original tool).
printf '.{ .allow = .{ .{ .bin = "*", .paths = .{ "~/.cache" }, .dirs = .{ "work" } } } }\n' >"$CFG"
run "$MOAT" check
[ "$rc" -eq 1 ] && grep -q "config.zon:1:[0-9]*: '.dirs' entry 'work' is not an absolute path" "$T/.out" &&
	ok "check reports a relative .dirs entry" || { not_ok "check reports a relative .dirs entry" && _show check; }
expect_status "and run refuses to start" 125 "$MOAT" run -- true
expect_out "saying why" "'.dirs' entry 'work' is not an absolute path"
expect_out "and how to write it" "^hint: write it as /path/to/projects or ~/path/to/projects"
# A boolean written as in other formats gets the ZON spelling as its hint.
printf '.{ .allow = .{ .{ .bin = "*", .paths = .{ "~/.cache" }, .write = yes } } }\n' >"$CFG"
run "$MOAT" check
[ "$rc" -eq 1 ] && grep -q "found 'yes' (did you mean true?)" "$T/.out" && ! grep -q '"yes"' "$T/.out" &&
	ok ".write = yes: the hint is true, not \"yes\"" || { not_ok ".write = yes: the hint is true" && _show check; }
printf '.{ .default = .{ "alpha" } }\n' >"$CFG"
printf '.{ .default = .{ "alpha" }\n' >"$CFG"
expect_status "a parse error is an issue" 1 "$MOAT" check
expect_out "with its position" 'config.zon:2:1: '

# Concurrent edits: each must land (the file is locked while edited).
rm -f "$CFG"
for i in $(seq 1 12); do "$MOAT" allow "tool$i" "$HOME/.cache/t$i" 2>/dev/null & done
wait
run grep -c '\.bin' "$CFG"
[ "$out" = 12 ] && ok "12 concurrent allows all landed" || not_ok "only $out of 12 concurrent allows landed"
expect_ok "and the result parses" "$MOAT" check

# Refusals name the reason.
expect_status "relative path refused" 1 "$MOAT" allow git rel/x
expect_out "reason: not absolute" "not an absolute path"
expect_status ".. refused" 1 "$MOAT" allow git "$HOME/a/../b"
expect_out "reason: .." "'\.\.' component"
expect_status "home refused" 1 "$MOAT" allow git "$HOME"
expect_status "an ancestor of home refused" 1 "$MOAT" allow git "$(dirname "$HOME")"
expect_out "reason: home" "(is|contains) your home directory"
expect_status "a quote refused" 1 "$MOAT" allow git "$HOME/a\"b"
expect_status "a control character refused" 1 "$MOAT" allow git "$HOME/a$(printf '\t')b"
expect_status "a bad binary name refused" 1 "$MOAT" allow a/b "$HOME/x"
expect_status "allow with one argument is a usage error" 2 "$MOAT" allow git

# allow -r is unallow; a grant that is not there is an error.
expect_ok "allow a path to remove" "$MOAT" allow git "$HOME/.gitconfig" --write
expect_status "allow -r with --write is a usage error" 2 "$MOAT" allow -r git "$HOME/.gitconfig" --write
expect_ok "allow -r removes it" "$MOAT" allow -r git "$HOME/.gitconfig"
expect_out "and says so" "^moat: removed git's grant of ~/.gitconfig\$"
run grep -c gitconfig "$CFG"
[ "$out" = 0 ] && ok "the grant is gone from config.zon" || not_ok "the grant is gone from config.zon"
expect_status "allow -r of a grant that is not there fails" 1 "$MOAT" allow -r git "$HOME/.gitconfig"
expect_out "naming it" "no grant of ~/.gitconfig to git to remove"
expect_status "unallow likewise" 1 "$MOAT" unallow git "$HOME/.gitconfig"
run env XDG_CONFIG_HOME="$T/empty" "$MOAT" allow
[ "$rc" -eq 0 ] && [ -z "$out" ] && grep -q "^moat: no grants in $T/empty/moat/config.zon\$" "$T/.err" &&
	ok "allow with no grants says so" || { not_ok "allow with no grants says so" && _show allow; }

# A config.zon linked from a dotfiles repository stays a link when edited.
mkdir -p "$HOME/dotfiles"
mv "$CFG" "$HOME/dotfiles/moat.zon" && ln -s "$HOME/dotfiles/moat.zon" "$CFG"
run "$MOAT" allow git "$HOME/.gitconfig"
[ "$rc" -eq 0 ] && [ -L "$CFG" ] && grep -q '\.gitconfig' "$HOME/dotfiles/moat.zon" &&
	ok "an edit through a symlinked config.zon keeps the link and changes its target" ||
	{ not_ok "an edit through a symlinked config.zon keeps the link and changes its target" && _show allow; }
rm -f "$CFG" && mv "$HOME/dotfiles/moat.zon" "$CFG"

done_testing
