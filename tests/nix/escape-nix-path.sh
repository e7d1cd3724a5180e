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

# From another directory the project is a past root, even once the sandbox
# removed its .moat/ (issue 38, item 3): moat's record says so.
run "$MOAT" run hello -- rm -rf "$PROJ/.moat"
[ "$rc" -eq 0 ] && [ ! -e "$PROJ/.moat" ] && ok "attack: the sandbox removed its own .moat/" || { not_ok "could not remove .moat" && _show moat run; }
mkdir -p "$HOME/elsewhere"
(cd "$HOME/elsewhere" && rm -f "$PINS"; "$MOAT" run hello -- true >/dev/null 2>&1)
[ ! -e "$MARK" ] && ok "from another project, a past root's nix is skipped too" || not_ok "past root's nix ran"

# --- what nix starts (issue 38, item 4) --------------------------------------
# nix runs git by name from PATH for a git flake: a git planted in the
# project's .venv/bin must not be the one. Control: it is first on PATH.
if command -v git >/dev/null; then
	REALGIT=$(command -v git)
	printf '#!/bin/sh\necho "planted git ran: $*" >>%s\nexec %s "$@"\n' "$MARK" "$REALGIT" >"$PROJ/payload-git"
	run "$MOAT" run hello -- sh -c 'cp payload-git .venv/bin/git && chmod +x .venv/bin/git'
	[ "$(command -v git)" = "$PROJ/.venv/bin/git" ] && ok "control: the planted git is first on PATH" || not_ok "control: git is $(command -v git)"
	G=$T/gitflake
	cp -r "$FIX" "$G"
	gitc() { "$REALGIT" -C "$G" -c user.email=t@example.com -c user.name=t "$@" >/dev/null 2>&1; }
	gitc init -q && gitc add -A && gitc commit -qm one
	rm -f "$MARK" "$PINS"
	run env MOAT_FLAKE="git+file://$G" "$MOAT" -v run hello -- fixture-hello
	[ "$rc" -eq 0 ] && [ ! -e "$MARK" ] && ok "a git flake builds, and nix never runs the planted git" ||
		{ not_ok "git flake with a planted git (status $rc, ran: $(cat "$MARK" 2>/dev/null))" && _show moat run; }
	expect_out "moat -v says the entry was left out of nix's PATH" "left out of its environment: .*PATH entry '$(re_quote "$PROJ/.venv/bin")' \\(under the sandbox root"
	rm -f "$MARK" "$PINS"
	run env MOAT_FLAKE="git+file://$G" GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0="$PROJ/.venv/bin/git" "$MOAT" run hello -- fixture-hello
	[ "$rc" -eq 0 ] && [ ! -e "$MARK" ] && ok "GIT_* variables never reach the git nix runs" ||
		{ not_ok "GIT_CONFIG_* reached git (status $rc, ran: $(cat "$MARK" 2>/dev/null))" && _show moat run; }
	rm -f "$MARK" "$PINS"
else
	skip "prerequisite: git is not installed"
fi
# A nix setting file the sandbox wrote: refused, never read.
printf 'post-build-hook = %s\n' "$PROJ/payload" >"$PROJ/nix.conf"
rm -f "$PINS"
run env NIX_USER_CONF_FILES="$NIXCONF/nix.conf:$PROJ/nix.conf" "$MOAT" run hello -- true
[ "$rc" -eq 125 ] && [ ! -e "$MARK" ] && grep -q "refusing to run nix with NIX_USER_CONF_FILES=.*under the sandbox root" "$T/.err" &&
	ok "a NIX_* variable naming a file in the root is refused" || { not_ok "NIX_USER_CONF_FILES in the root" && _show moat run; }

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
