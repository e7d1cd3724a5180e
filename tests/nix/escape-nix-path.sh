#!/usr/bin/env bash
# Escape: moat runs nix outside the sandbox, so a `nix` that sandboxed code
# planted must never be the one it runs. With a project directory on PATH
# (an activated .venv, direnv's PATH_add), the sandbox writes a `nix` there;
# moat skips PATH entries under the root, a write grant or a past root (and
# relative ones), or uses MOAT_NIX. Which nix it uses is shown by moat -v and
# moat check. Control: the planted nix is first on PATH and runs when called.
. "$(dirname "$0")/common"

REALNIX=$(command -v nix)
MARK=$T/planted-nix-ran
# The sandboxed tool plants bin/nix in the project (the root is writable).
printf '#!/bin/sh\necho "planted nix ran: $*" >>%s\nexec %s "$@"\n' "$MARK" "$REALNIX" >"$PROJ/payload"
run "$MOAT" run hello -- sh -c 'mkdir -p .venv/bin && cp payload .venv/bin/nix && chmod +x .venv/bin/nix'
[ "$rc" -eq 0 ] && [ -x "$PROJ/.venv/bin/nix" ] && ok "attack: sandboxed code planted .venv/bin/nix" || { not_ok "could not plant nix" && _show moat run; }
rm -f "$PINS" # no pins: nix is needed
export PATH="$PROJ/.venv/bin:$PATH"

# Control: it is the nix a shell would run.
[ "$(command -v nix)" = "$PROJ/.venv/bin/nix" ] && ok "control: the planted nix is first on PATH" || not_ok "control: nix is $(command -v nix)"
nix --version >/dev/null 2>&1
[ -s "$MARK" ] && ok "control: and runs when called" || not_ok "control: planted nix did not run"
rm -f "$MARK"

run "$MOAT" run hello -- fixture-hello
[ "$rc" -eq 0 ] && ok "moat resolves a flake shell with the planted nix on PATH" || { not_ok "run with planted nix" && _show moat run; }
[ ! -e "$MARK" ] && ok "and never runs the planted nix" || not_ok "planted nix ran: $(cat "$MARK")"
rm -f "$PINS" # no pins: nix is needed
run "$MOAT" -v run hello -- true
expect_out "moat -v shows the nix it uses" "^moat: nix: $(re_quote "$REALNIX") \\(first on PATH\\)\$"
expect_out "and the one it skipped, and why" "^moat: nix: skipped, as sandboxed code could have put it there: $(re_quote "$PROJ/.venv/bin/nix") \\(under the sandbox root $(re_quote "$PROJ")\\)\$"
run "$MOAT" update
[ ! -e "$MARK" ] && ok "moat update never runs it" || not_ok "moat update ran the planted nix"
mkdir -p "$XDG_CONFIG_HOME/moat"
printf '.{ .default = .{ "hello" } }\n' >"$XDG_CONFIG_HOME/moat/config.zon"
run "$MOAT" check
[ ! -e "$MARK" ] && ok "nor moat check" || not_ok "moat check ran the planted nix"
expect_out "moat check shows the nix it uses" "^nix: $(re_quote "$REALNIX") \\(first on PATH\\)\$"
expect_out "and the planted one it skipped" "^nix: skipped $(re_quote "$PROJ/.venv/bin/nix") \\(under the sandbox root $(re_quote "$PROJ")\\): sandboxed code could have put it there\$"
rm -f "$XDG_CONFIG_HOME/moat/config.zon"

# From another directory the project is a past root (it has .moat/ now).
mkdir -p "$HOME/elsewhere"
(cd "$HOME/elsewhere" && rm -f "$PINS"; "$MOAT" run hello -- true >/dev/null 2>&1)
[ ! -e "$MARK" ] && ok "from another project, a past root's nix is skipped too" || not_ok "past root's nix ran"

# A relative PATH entry is never used, whatever it holds.
mkdir -p "$PROJ/rel"
cp "$PROJ/payload" "$PROJ/rel/nix"
chmod +x "$PROJ/rel/nix"
rm -f "$PINS" # no pins: nix is needed
run env PATH="rel:$PATH" "$MOAT" -v run hello -- true
[ ! -e "$MARK" ] && ok "a relative PATH entry is skipped" || not_ok "relative nix ran"
expect_out "and says so" "skipped, as sandboxed code could have put it there: rel/nix \\(a relative PATH entry\\)"

# MOAT_NIX: an absolute path of the user's choosing.
rm -f "$PINS" # no pins: nix is needed
run env MOAT_NIX="$REALNIX" "$MOAT" -v run hello -- fixture-hello
[ "$rc" -eq 0 ] && ok "MOAT_NIX names the nix to run" || { not_ok "MOAT_NIX" && _show moat run; }
expect_out "and -v says so" "^moat: nix: $(re_quote "$REALNIX") \\(MOAT_NIX\\)\$"
run env MOAT_NIX="$REALNIX" "$MOAT" check
expect_out "moat check too" "^nix: $(re_quote "$REALNIX") \\(MOAT_NIX\\)\$"
rm -f "$PINS" # no pins: nix is needed
run env MOAT_NIX=nix "$MOAT" run hello -- true
[ "$rc" -eq 125 ] && ok "a relative MOAT_NIX is refused" || not_ok "relative MOAT_NIX status $rc"
expect_out "saying so" "^moat: MOAT_NIX=nix is not an absolute path\$"
run env MOAT_NIX="$PROJ/.venv/bin/nix" "$MOAT" run hello -- true
[ "$rc" -eq 125 ] && [ ! -e "$MARK" ] && ok "a MOAT_NIX under the root is refused, not run" || not_ok "MOAT_NIX in the root: status $rc, ran: $(cat "$MARK" 2>/dev/null)"
expect_out "saying why" "^moat: refusing MOAT_NIX=$(re_quote "$PROJ/.venv/bin/nix"): it lies where sandboxed code can write \\(under the sandbox root $(re_quote "$PROJ")\\)\$"
run env MOAT_NIX="$PROJ/.venv/bin/nix" "$MOAT" check
[ "$rc" -eq 1 ] && [ ! -e "$MARK" ] && ok "moat check reports it as a problem" || not_ok "check with a planted MOAT_NIX: status $rc"

# A symlink outside the root pointing at the planted one is no way round.
mkdir -p "$T/linkdir"
ln -s "$PROJ/.venv/bin/nix" "$T/linkdir/nix"
rm -f "$PINS" # no pins: nix is needed
run env PATH="$T/linkdir:$PATH" "$MOAT" run hello -- true
[ ! -e "$MARK" ] && ok "a link to the planted nix is skipped as well" || not_ok "linked planted nix ran"

done_testing
