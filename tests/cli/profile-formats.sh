# `moat profile` and `moat profile --format=sbpl` render one profile: every
# grant in one is in the other with the same access. A grant on a path that
# does not exist yet is kept in both (Seatbelt rules on it, as the original
# tool does; Landlock cannot, so the listing says "absent, no rule"), in the
# canonical form it will have; a planted link on its existing part is still
# refused in both.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$HOME/.cache/there" "$HOME/real-dots" "$HOME/area"
ln -s real-dots "$HOME/dots"
ln -s "$HOME/.ssh" "$HOME/area/planted"
[ ! -e "$HOME/.config/nvim" ] && ok "control: ~/.config/nvim does not exist yet" ||
	not_ok "~/.config/nvim exists already"

expect_ok "grant a path not there yet" "$MOAT" allow '*' "$HOME/.config/nvim"
expect_ok "grant an existing path" "$MOAT" allow '*' "$HOME/.cache/there" --write
expect_ok "grant a path not there yet below the user's own link" "$MOAT" allow '*' "$HOME/dots/new/x" --exec
expect_ok "grant a write area" "$MOAT" allow '*' "$HOME/area" --write
expect_ok "grant a path not there yet below a link planted in it" "$MOAT" allow '*' "$HOME/area/planted/new"

run "$MOAT" profile
expect_out "the listing shows the missing grant, without a rule" \
	"^$(re_quote "$HOME/.config/nvim") +read +grant for \* \(absent, no rule\)$"
expect_out "canonical: the link's target, the missing rest appended" \
	"^$(re_quote "$HOME/real-dots/new/x") +read/exec +grant for \* \(absent, no rule\)$"
expect_out "an existing grant has its rule" "^$(re_quote "$HOME/.cache/there") +read/write +grant for \*$"
expect_out "the planted link is refused, the grant skipped" "refusing to grant .*area/planted/new.*skipped"
rules=$out

run "$MOAT" profile --format=sbpl
[ "$rc" = 0 ] && ok "the sbpl rendering succeeds" || not_ok "moat profile --format=sbpl exited $rc"
expect_out "sbpl rules on the missing grant" "^	\(subpath \"$(re_quote "$HOME/.config/nvim")\"\)\)? ; grant for every binary$"
expect_out "the planted link is refused there too" "refusing to grant .*area/planted/new.*skipped"
expect_no_out "and nothing under ~/.ssh is ruled on" 0 '\.ssh'
sbpl=$out

# The grants of each rendering as "path access", sorted. In the SBPL, a
# rule's access is that of the (allow ...) block its line is in.
listing_grants() {
	printf '%s\n' "$1" | sed -n 's/^\(\/[^ ]*\) *\([a-z/]*\) *grant for .*/\1 \2/p' | sort
}
sbpl_grants() {
	printf '%s\n' "$1" | awk '
		/^\(allow / {
			ops = $0
			sub(/^\(allow /, "", ops); sub(/ *\(subpath.*| *\(literal.*/, "", ops)
			if (ops == "file-read*") access = "read"
			else if (ops == "file*") access = "read/write"
			else if (ops == "file-read* process-exec file-map-executable") access = "read/exec"
			else if (ops == "file* process-exec file-map-executable") access = "read/write/exec"
			else access = "?" ops
		}
		/; grant for / && match($0, /\(subpath "[^"]*"\)/) {
			print substr($0, RSTART + 10, RLENGTH - 12), access
		}' | sort
}
a=$(listing_grants "$rules")
b=$(sbpl_grants "$sbpl")
[ "$(printf '%s\n' "$a" | wc -l)" = 4 ] && ok "the listing has the 4 grants kept" ||
	not_ok "the listing's grants: $a"
[ -n "$a" ] && [ "$a" = "$b" ] && ok "both renderings carry the same grants with the same access" ||
	not_ok "the renderings differ: listing [$a] sbpl [$b]"

# Linux: the missing grant gets no rule, and the run is not refused for it.
expect_ok "a run with a missing grant works" "$MOAT" run -- true
expect_denied "the planted link leads nowhere" "$MOAT" run -- cat "$HOME/area/planted/id_rsa"
mkdir -p "$HOME/.config/nvim" && echo NVIM-INIT >"$HOME/.config/nvim/init.lua"
run "$MOAT" profile
expect_out "once it exists, the listing shows its rule" "^$(re_quote "$HOME/.config/nvim") +read +grant for \*$"
expect_ok "and the next run reads it" "$MOAT" run -- cat "$HOME/.config/nvim/init.lua"
expect_out "its content" NVIM-INIT

done_testing
