#!/usr/bin/env bash
# A command that tries to change a protected path (issue 39): git writes
# .git/config as config.lock renamed over it, and on the read-only bind
# the rename fails with "Device or resource busy", which does not point at
# moat; husky's init then exits 0 with its hooks unconfigured. moat names
# the protected file once the session ends, and says to run the command
# outside moat (a lock written and not renamed: never for a change git
# gave up, nor where nothing was protected); --trace reports it as
# protected, with no grant to suggest.
# The controls make the same changes without moat.
. "$(dirname "$0")/../lib.sh"

need git
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1
SAID="^moat: cannot change '%s' in the sandbox: moat protects it"
HINT='^hint: to change it, run the command outside moat$'
# said PATH: the pattern of moat's line naming PATH.
said() { printf "$SAID" "$(re_quote "$1")"; }

git init -q && echo one >f && git add f && git commit -qm one
mkdir "$T/sub" && git -C "$T/sub" init -q && echo s >"$T/sub/s" && git -C "$T/sub" add s &&
	git -C "$T/sub" commit -qm s
git -c protocol.file.allow=always submodule add -q "$T/sub" sub >/dev/null 2>&1 && git commit -qm sub
git -C sub config user.name before

# --- controls: the same changes without moat ---------------------------------
expect_ok "control: git config works without moat" git config user.name outside
[ "$(git config user.name)" = outside ] && ok "control: and changes .git/config" ||
	not_ok "control: and changes .git/config"

# --- git config in moat run ---------------------------------------------------
run "$MOAT" run -- git config user.name inside
ran_and_failed && grep -q 'Device or resource busy' "$T/.err" &&
	ok "git config fails on the read-only bind (EBUSY)" || { not_ok "git config fails on the read-only bind (EBUSY)" && _show "moat run -- git config"; }
expect_out "moat names .git/config as protected" "$(said .git/config)"
expect_out "and says to run the command outside moat" "$HINT"
[ "$(tail -n1 "$T/.err")" = "hint: to change it, run the command outside moat" ] &&
	ok "as the last line" || not_ok "as the last line"
[ "$(git config user.name)" = outside ] && ok ".git/config is unchanged" || not_ok ".git/config is unchanged"

# As husky's init: git config fails, the command exits 0.
run "$MOAT" run -- sh -c 'git config core.hooksPath .husky/_; exit 0'
[ "$rc" = 0 ] && ok "a command that ignores the failure exits 0" || not_ok "status $rc"
expect_out "moat names .git/config even then" "$(said .git/config)"
[ -z "$(git config core.hooksPath)" ] && ok "core.hooksPath is not set" || not_ok "core.hooksPath is set"

# A submodule's own config, and the superproject's from submodule update.
run "$MOAT" run -- git -C sub config user.name inside
expect_out "moat names a submodule's config" "$(said .git/modules/sub/config)"
[ "$(git -C sub config user.name)" = before ] && ok "and it is unchanged" || not_ok "the submodule's config changed"
git submodule deinit -q -f sub
run "$MOAT" run -- git -c protocol.file.allow=always submodule update --init
[ "$rc" = 128 ] && ok "git submodule update fails in moat (git's fatal)" || { not_ok "git submodule update fails in moat" && _show "submodule update"; }
expect_out "moat names .git/config after submodule update" "$(said .git/config)"
run git -c protocol.file.allow=always submodule update --init -q
[ "$rc" = 0 ] && [ -e sub/s ] && ok "control: git submodule update works outside" ||
	{ not_ok "control: git submodule update works outside" && _show "submodule update"; }

# --- nothing said when nothing protected was changed ---------------------------
run "$MOAT" run -- sh -c 'git config --get user.name && echo two >>f && git commit -qam two'
expect_no_out "reading the config and committing says nothing" 0 '^moat: cannot change|^hint:'
run "$MOAT" -q run -- git config user.name inside
expect_no_out "nor with -q" failed '^moat: cannot change|^hint:'
# git locks the config, finds nothing to unset and removes the lock
# unwritten: no change was refused.
expect_status "control: git config --unset of an absent key fails outside (5)" 5 git config --unset no.such
run "$MOAT" run -- git config --unset no.such
expect_no_out "nor when git gave up before changing the config" 5 '^moat: cannot change|^hint:'
# Where the kernel gives no mount namespace nothing is protected: the
# change is made, and moat must not say otherwise.
NONS=$HELPERS/no_namespaces
rm -f "$XDG_STATE_HOME/moat/namespaces-worked"
run "$NONS" "$MOAT" run -- git config user.name unprotected
if grep -q 'no mount namespace here' "$T/.err"; then
	[ "$rc" = 0 ] && [ "$(git config user.name)" = unprotected ] &&
		ok "without a mount namespace git config changes .git/config" ||
		{ not_ok "without a mount namespace git config changes .git/config" && _show "no_namespaces"; }
	expect_no_out "and moat does not say it could not" 0 '^moat: cannot change|^hint:'
	git config user.name outside
else
	skip "prerequisite: tests/helpers/no_namespaces refusing moat its namespaces"
fi

# --- moat shell ---------------------------------------------------------------
printf 'git config user.name inside\nexit 0\n' >"$T/cmds"
SHELL=/bin/sh timeout 30 "$MOAT" shell <"$T/cmds" >"$T/.out" 2>"$T/.err"
rc=$?
[ "$rc" = 0 ] && ok "moat shell keeps the shell's status" || not_ok "moat shell status $rc"
expect_out "moat shell names .git/config when it ends" "$(said .git/config)"

# --- --trace: a refusal of a protected path, never a grant --------------------
run "$MOAT" run --trace -- git config user.name inside
expect_out "--trace reports the rename over .git/config" "rename .*$(re_quote "$PROJ/.git/config")"
expect_out "as protected" "none for $(re_quote "$PROJ/.git/config"): protected"
expect_no_out "with no grant to suggest, and the report alone" failed 'moat allow|^moat: cannot change'

done_testing
