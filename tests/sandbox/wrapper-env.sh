#!/usr/bin/env bash
# moat-wrapper's environment: share/moat/env with $MOAT_ROOT expanded,
# MOAT_ENV_<NAME>, MOAT_ENV_HOME (checked, created) and MOAT_JAILBREAK.
# kernel-independent: the environment moat-wrapper builds before exec.
. "$(dirname "$0")/../lib.sh"

expect_ok "moat wrap a shell with an env file" "$MOAT" wrap tools --env GREETING=hello \
	--env 'PLAIN=$MOAT_ROOT/sub' --env 'BRACED=${MOAT_ROOT}x' --env 'LONGER=$MOAT_ROOTS' \
	/usr/bin/env /usr/bin/cat /bin/sh
SH=$(cd "$XDG_DATA_HOME/moat/shells/tools" && pwd -P)
export MOAT_ROOT=$PROJ

run "$SH/bin/env"
expect_out "share/moat/env is applied" '^GREETING=hello$'
expect_out '$MOAT_ROOT is expanded' "^PLAIN=$PROJ/sub\$"
expect_out '${MOAT_ROOT} is expanded' "^BRACED=${PROJ}x\$"
expect_out '$MOAT_ROOTS is another variable, left alone' '^LONGER=\$MOAT_ROOTS$'
expect_out "MOAT_ROOT is the canonical root" "^MOAT_ROOT=$PROJ\$"
expect_out "TMPDIR is \$MOAT_ROOT/.moat/tmp" "^TMPDIR=$PROJ/.moat/tmp\$"
[ -d "$PROJ/.moat/tmp" ] && [ "$(cat "$PROJ/.moat/.gitignore")" = "*" ] &&
	ok "the wrapper made .moat/tmp and .moat/.gitignore" || not_ok "the wrapper made .moat/tmp and .moat/.gitignore"
run env MOAT_ROOT="$HOME/proj/./" "$SH/bin/env"
expect_out "a non-canonical MOAT_ROOT is canonicalized" "^MOAT_ROOT=$PROJ\$"

run env MOAT_ENV_FOO=bar "$SH/bin/env"
expect_out "MOAT_ENV_FOO=bar sets FOO" '^FOO=bar$'
[ "$rc" -eq 0 ] && ! grep -q '^MOAT_ENV_FOO=' "$T/.out" && ok "and removes MOAT_ENV_FOO" ||
	{ not_ok "and removes MOAT_ENV_FOO" && _show env; }
run env MOAT_ENV_GREETING=override "$SH/bin/env"
expect_out "MOAT_ENV_ wins over the env file" '^GREETING=override$'
run env MOAT_ENV_EMPTY= "$SH/bin/env"
expect_out "an empty value is set" '^EMPTY=$'
expect_status "MOAT_ENV_MOAT_ROOT is refused" 125 env MOAT_ENV_MOAT_ROOT=/ "$SH/bin/env"
expect_out "it says why" "MOAT_ENV_MOAT_ROOT"

# An env file that would steer moat or the loader is refused.
mkdir -p "$T/evil/bin" "$T/evil/share/moat"
ln -s "$WRAPPER" "$T/evil/bin/env"
printf 'env\t/usr/bin/env\n' >"$T/evil/share/moat/manifest"
for line in LD_PRELOAD=/x.so MOAT_ROOT=/ HOME=/ '  LD_PRELOAD = /x.so'; do
	echo "$line" >"$T/evil/share/moat/env"
	expect_status "an env file with '$line' is refused" 125 "$T/evil/bin/env"
	expect_out "naming the file and line" "share/moat/env:1"
done
# A malformed or padded line stops nothing: padding is trimmed, a line that
# is not KEY=VALUE is skipped (as in the original tool), the rest applies.
printf '  PADDED = yes  \nno equals sign\n1BAD=x\nAFTER=ok\n' >"$T/evil/share/moat/env"
run "$T/evil/bin/env"
[ "$rc" -eq 0 ] && grep -q '^PADDED=yes$' "$T/.out" && grep -q '^AFTER=ok$' "$T/.out" && ! grep -q '^1BAD=' "$T/.out" &&
	ok "an env file's malformed lines are skipped and padding trimmed" ||
	{ not_ok "an env file's malformed lines are skipped and padding trimmed" && _show env; }
grep -q "^moat-wrapper: warning: $(re_quote "$T")/evil/share/moat/env:2: expected KEY=VALUE; line skipped\$" "$T/.err" &&
	ok "and the skipped line is named in a warning" ||
	{ not_ok "and the skipped line is named in a warning" && _show env; }

# moat wrap --env: what the user typed is checked strictly; a line of the
# file that the wrapper would skip is dropped, with a warning naming it.
expect_status "moat wrap --env with a bad name is refused" 1 "$MOAT" wrap tools --env '1BAD=x'
expect_out "naming it" "--env '1BAD=x': expected KEY=VALUE"
printf 'junk line\n' >>"$SH/share/moat/env"
run "$MOAT" wrap tools --env LATE=1
[ "$rc" -eq 0 ] && grep -q "^moat: warning: $SH/share/moat/env:[0-9]*: expected KEY=VALUE; line skipped\$" "$T/.err" &&
	! grep -q junk "$SH/share/moat/env" && grep -q '^LATE=1$' "$SH/share/moat/env" &&
	ok "moat wrap drops a malformed line of the env file, saying which" ||
	{ not_ok "moat wrap drops a malformed line of the env file, saying which" && _show wrap; }

# MOAT_ENV_HOME: writable in the sandbox or refused, and created if missing.
run env MOAT_ENV_HOME="$PROJ/.moat/home" "$SH/bin/sh" -c 'echo "home=$HOME"; echo x >"$HOME/.toolrc" && echo WROTE'
expect_out "MOAT_ENV_HOME under the root becomes HOME" "^home=$PROJ/.moat/home\$"
expect_out "and the tool can write there" '^WROTE$'
[ -d "$PROJ/.moat/home" ] && ok "it was created" || not_ok "it was created"
expect_ok "a deeper MOAT_ENV_HOME is created too" env MOAT_ENV_HOME="$PROJ/a/b/home" "$SH/bin/env"
[ -d "$PROJ/a/b/home" ] && ok "with its parents" || not_ok "with its parents"
run env MOAT_ENV_HOME="$T/elsewhere" "$SH/bin/cat" "$PROJ/.moat/.gitignore"
[ "$rc" -eq 125 ] && ok "MOAT_ENV_HOME outside the root is refused with 125" || { not_ok "MOAT_ENV_HOME outside is refused" && _show cat; }
expect_out "it says it is not writable" "MOAT_ENV_HOME=$T/elsewhere is not writable in the sandbox"
expect_out "way out 1: in the project, its real path pasteable" "put it in the project: MOAT_ENV_HOME=$PROJ/\\.moat/home\$"
expect_out "way out 2: moat allow ... --write" "moat allow cat $T/elsewhere --write"
expect_no_out "the tool did not run" 125 '^\*$'
[ ! -e "$T/elsewhere" ] && ok "and it was not created" || not_ok "and it was not created"
ln -s "$T" "$PROJ/out"
expect_status "MOAT_ENV_HOME through a symlink out of the root is refused" 125 \
	env MOAT_ENV_HOME="$PROJ/out/home2" "$SH/bin/env"
[ ! -e "$T/home2" ] && ok "and nothing was created outside" || not_ok "and nothing was created outside"
expect_status "MOAT_ENV_HOME with .. out of the root is refused" 125 env MOAT_ENV_HOME="$PROJ/../home3" "$SH/bin/env"
expect_status "MOAT_ENV_HOME=\$HOME is refused" 125 env MOAT_ENV_HOME="$HOME" "$SH/bin/env"
expect_status "a relative MOAT_ENV_HOME is refused" 125 env MOAT_ENV_HOME=rel/home "$SH/bin/env"
run "$MOAT" run tools -- sh -c 'MOAT_ENV_HOME="$MOAT_ROOT/.moat/home-s" env'
expect_out "inside moat run, MOAT_ENV_HOME still applies to a wrapped tool" "^HOME=$PROJ/.moat/home-s\$"
[ -d "$PROJ/.moat/home-s" ] && ok "and is created there" || not_ok "and is created there"

# MOAT_JAILBREAK: named tools run unsandboxed, others stay confined. A
# refusal is cat's own (status 1, "Permission denied"), never the wrapper
# failing for another reason.
confined_cat() { # NAME: the last run was cat of ~/.ssh/id_rsa, confined
	[ "$rc" -eq 1 ] && grep -q "cat: $HOME/.ssh/id_rsa: Permission denied" "$T/.err" &&
		! grep -q DECOY "$T/.out" && ok "$1" || { not_ok "$1" && _show cat; }
}
run "$SH/bin/cat" "$HOME/.ssh/id_rsa"
confined_cat "not jailbroken: ~/.ssh is denied"
# A jailbroken tool is never handed a value naming the root (issue 19): the
# env file's PLAIN=$MOAT_ROOT/sub refuses the jailbreak; a shell without it
# jailbreaks.
run env MOAT_JAILBREAK=cat "$SH/bin/cat" "$HOME/.ssh/id_rsa"
[ "$rc" -eq 125 ] && grep -q "refusing to hand jailbroken cat PLAIN" "$T/.err" && ! grep -q DECOY "$T/.out" &&
	ok "a jailbreak with an env file value in the root is refused" ||
	{ not_ok "a jailbreak with an env file value in the root is refused" && _show cat; }
expect_ok "moat wrap a shell with no env file" "$MOAT" wrap free /usr/bin/env /usr/bin/cat
SH=$(cd "$XDG_DATA_HOME/moat/shells/free" && pwd -P)
run env MOAT_JAILBREAK=cat "$SH/bin/cat" "$HOME/.ssh/id_rsa"
expect_out "MOAT_JAILBREAK=cat: cat reads ~/.ssh" '^DECOY-SSH-KEY$'
run env MOAT_JAILBREAK=/usr/bin/env:/usr/bin/cat "$SH/bin/cat" "$HOME/.ssh/id_rsa"
expect_out "an absolute path in a colon list jailbreaks too" '^DECOY-SSH-KEY$'
run env MOAT_JAILBREAK=env:sh "$SH/bin/cat" "$HOME/.ssh/id_rsa"
confined_cat "jailbreaking other tools leaves cat confined"
run env MOAT_JAILBREAK=env "$SH/bin/env"
[ "$rc" -eq 0 ] && grep -q "^MOAT_ROOT=$PROJ\$" "$T/.out" && ! grep -q '^MOAT_SANDBOX=' "$T/.out" &&
	ok "a jailbroken tool is not told it is sandboxed" || { not_ok "a jailbroken tool is not told it is sandboxed" && _show env; }
printf '#!/bin/sh\ncat "$@"\n' >"$PROJ/peek"
chmod +x "$PROJ/peek"
expect_ok "wrap a tool that lives in the root" "$MOAT" wrap free "$PROJ/peek"
run env MOAT_JAILBREAK=peek "$SH/bin/peek" "$HOME/.ssh/id_rsa"
[ "$rc" -eq 125 ] && grep -q "refusing to jailbreak peek: .*$PROJ/peek' lies under the sandbox root" "$T/.err" &&
	! grep -q DECOY "$T/.out" && ok "a bare-name jailbreak of a binary under the root is refused" ||
	{ not_ok "a bare-name jailbreak of a binary under the root is refused" && _show peek; }
run "$SH/bin/peek" "$HOME/.ssh/id_rsa"
confined_cat "and without the jailbreak it runs confined"

# A shell inside the root can be rewritten by sandboxed code: "git" pointed at
# bash, with BASH_ENV in its env file, would run the attacker's script
# unconfined the next time the user's jailbroken git runs. Never jailbreak it.
mkdir -p "$PROJ/.shell/bin" "$PROJ/.shell/share/moat"
ln -s "$WRAPPER" "$PROJ/.shell/bin/git"
printf 'git	/bin/bash
' >"$PROJ/.shell/share/moat/manifest"
printf 'BASH_ENV=$MOAT_ROOT/evil.sh
' >"$PROJ/.shell/share/moat/env"
printf 'cat "$HOME/.ssh/id_rsa"
' >"$PROJ/evil.sh"
# The script runs (BASH_ENV), confined: its cat is refused and bash goes on.
run env MOAT_JAILBREAK=git "$PROJ/.shell/bin/git" -c true
[ "$rc" -eq 0 ] && grep -q "cat: $HOME/.ssh/id_rsa: Permission denied" "$T/.err" && ! grep -q DECOY "$T/.out" &&
	ok "a jailbreak never applies to a shell under the root" ||
	{ not_ok "a jailbreak never applies to a shell under the root" && _show git; }
run env MOAT_JAILBREAK=/bin/bash "$PROJ/.shell/bin/git" -c true
[ "$rc" -eq 0 ] && grep -q "cat: $HOME/.ssh/id_rsa: Permission denied" "$T/.err" && ! grep -q DECOY "$T/.out" &&
	ok "not even by the real binary's path" || { not_ok "not even by the real binary's path" && _show git; }

done_testing
