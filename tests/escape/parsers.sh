#!/usr/bin/env bash
# Parsers under attack (issue 6, item 8). A project-local shell lives under
# the root, so sandboxed code can rewrite its share/moat/manifest and
# share/moat/env, and moat-wrapper reads both *before* it confines itself,
# with the user's full rights. A damaged file must give an error (status
# 125), never a crash, a hang or a wider sandbox; and nothing written there
# may steer what the wrapper reads next or what runs unconfined.
# kernel-independent: moat-wrapper's parsers, attacked before it confines itself.
. "$(dirname "$0")/../lib.sh"

KEY=$HOME/.ssh/id_rsa
echo "PROJECT-FILE" >"$PROJ/readme"
printf 'STRIPE_KEY=sk_live_SIBLING_SECRET\nDATABASE_URL=postgres://app:SIBLING-PW@db/app\n' >"$SIBLING/.env"

SH=$PROJ/.shell
"$MOAT" wrap "$SH" /bin/cat /usr/bin/env >/dev/null 2>&1
MANIFEST=$SH/share/moat/manifest ENVFILE=$SH/share/moat/env
GOOD=$(cat "$MANIFEST" 2>/dev/null)
wrapped() { # TOOL ARGS...: the wrapped tool, as the user would start it
	local tool=$1
	shift
	run timeout 10 env MOAT_ROOT="$PROJ" "$SH/bin/$tool" "$@"
}
restore() {
	rm -rf "$MANIFEST" "$ENVFILE"
	printf '%s\n' "$GOOD" >"$MANIFEST"
}

wrapped cat readme
expect_out "the project-local shell works" '^PROJECT-FILE$'
run "$MOAT" run -- sh -c "echo '# rewritten from inside' >>'$MANIFEST' && echo WRITABLE"
expect_out "and sandboxed code can rewrite its manifest (so it is attacker input)" '^WRITABLE$'
restore

# refused NAME: the last wrapped run refused the damaged input cleanly.
refused() {
	if [ "$rc" -eq 124 ]; then
		not_ok "$1: refused (the wrapper hung)"
	elif [ "$rc" -ge 128 ] || grep -qE 'Sanitizer|runtime error|core dumped' "$T/.err"; then
		not_ok "$1: refused (the wrapper crashed: status $rc)" && _show "$1"
	elif [ "$rc" -eq 125 ] && grep -q '^moat-wrapper: ' "$T/.err" && ! grep -qE 'DECOY-SSH-KEY|PROJECT-FILE' "$T/.out"; then
		ok "$1: refused with an error"
	else
		not_ok "$1: refused with an error (want status 125 and a message)" && _show "$1"
	fi
}

# --- damaged manifests -----------------------------------------------------
damage_manifest() { # NAME: write stdin as the manifest, run cat
	cat >"$MANIFEST"
	wrapped cat readme
	refused "manifest: $1"
	restore
}
damage_manifest "a NUL byte" < <(printf 'cat\t/bin/cat\0\n')
damage_manifest "no tab" < <(printf 'cat /bin/cat\n')
damage_manifest "a relative path" < <(printf 'cat\tbin/cat\n')
damage_manifest "an empty name" < <(printf '\t/bin/cat\ncat\n')
damage_manifest "a control character in a name" < <(printf 'c\033at\t/bin/cat\ncat\t/bin/cat\n')
damage_manifest "a control character in the path" < <(printf 'cat\t/bin/\033cat\n')
damage_manifest "a path longer than PATH_MAX" < <(printf 'cat\t/%s\n' "$(head -c 5000 /dev/zero | tr '\0' a)")
damage_manifest "a name listed twice" < <(printf 'cat\t/bin/cat\ncat\t/bin/sh\n')
damage_manifest "binary garbage" < <(head -c 70000 /dev/urandom)
damage_manifest "more than 1 MiB" < <({ for i in $(seq 1 40000); do printf 'tool%d\t/usr/bin/tool%d\n' "$i" "$i"; done; })
printf 'cat\t/bin/cat\r\n' >"$MANIFEST"
wrapped cat readme
expect_out "manifest: CRLF line ends are accepted" '^PROJECT-FILE$'
restore
rm -f "$MANIFEST" && mkdir "$MANIFEST"
wrapped cat readme
refused "manifest: a directory"
restore
rm -f "$MANIFEST"
wrapped cat readme
refused "manifest: missing"
restore
ln -sf /dev/zero "$MANIFEST.tmp" && mv -f "$MANIFEST.tmp" "$MANIFEST"
wrapped cat readme
refused "manifest: a symlink to /dev/zero"
restore
printf 'cat\t%s\n' "$WRAPPER" >"$MANIFEST"
wrapped cat readme
[ "$rc" -eq 126 ] && grep -q 'points back at moat-wrapper' "$T/.err" && ok "manifest: an entry pointing at moat-wrapper is refused (126)" ||
	{ not_ok "manifest: an entry pointing at moat-wrapper is refused" && _show loop; }
restore
# A FIFO: open() would block until some writer comes, which none will.
rm -f "$MANIFEST" && mkfifo "$MANIFEST"
wrapped cat readme
refused "manifest: a FIFO (made by sandboxed code: every wrapped tool would hang)"
restore

# --- damaged env files -----------------------------------------------------
damage_env() { # NAME: write stdin as the env file, run env
	cat >"$ENVFILE"
	wrapped env true
	refused "env file: $1"
	rm -f "$ENVFILE"
}
damage_env "a NUL byte" < <(printf 'A=1\0\n')
# A line that is not KEY=VALUE is skipped, as the original tool does: the
# tool runs with the rest of the file, and the bad line sets nothing.
skipped_env() { # NAME LINE
	printf '%s\nAFTER=applied\n' "$2" >"$ENVFILE"
	wrapped env
	[ "$rc" -eq 0 ] && grep -q '^AFTER=applied$' "$T/.out" && ! grep -qF -- "$2" "$T/.out" &&
		ok "env file: $1: skipped, the rest applies" || { not_ok "env file: $1: skipped, the rest applies" && _show env; }
	rm -f "$ENVFILE"
}
skipped_env "no =" 'JUSTTEXT'
skipped_env "an empty name" '=value'
skipped_env "a name starting with a digit" '1ABC=x'
skipped_env "a name with a dash" 'A-B=x'
damage_env "a padded LD_PRELOAD" < <(printf '  LD_PRELOAD = %s/evil.so\n' "$PROJ")
damage_env "LD_PRELOAD" < <(printf 'LD_PRELOAD=%s/evil.so\n' "$PROJ")
damage_env "LD_LIBRARY_PATH" < <(printf 'LD_LIBRARY_PATH=%s\n' "$PROJ")
damage_env "MOAT_JAILBREAK" < <(printf 'MOAT_JAILBREAK=env\n')
damage_env "MOAT_ROOT" < <(printf 'MOAT_ROOT=/\n')
damage_env "HOME" < <(printf 'HOME=/\n')
damage_env "binary garbage" < <(head -c 70000 /dev/urandom)
damage_env "more than 1 MiB" < <({ for i in $(seq 1 60000); do printf 'V%d=%s\n' "$i" xxxxxxxxxx; done; })
rm -f "$ENVFILE" && mkfifo "$ENVFILE"
wrapped env true
refused "env file: a FIFO"
rm -f "$ENVFILE"
printf 'GREETING=in ${MOAT_ROOT} and $MOAT_ROOT/x, not $MOAT_ROOTS\n' >"$ENVFILE"
wrapped env sh -c 'echo "GREETING=$GREETING"'
expect_out "env file: \$MOAT_ROOT expands, and only as a whole name" "^GREETING=in $PROJ and $PROJ/x, not \\\$MOAT_ROOTS\$"
rm -f "$ENVFILE"

# --- what a rewritten shell must not achieve -------------------------------
# 1. Read a file the sandbox cannot: the unconfined wrapper follows a symlink
#    to another project's .env and hands its secrets to the sandboxed tool.
run "$MOAT" run -- ln -s "$SIBLING/.env" "$ENVFILE"
# (only these names are printed: a failure must not copy the machine's
# environment into a log)
wrapped env sh -c 'env | grep -aE "^(STRIPE_KEY|DATABASE_URL)="'
[ "$rc" -eq 125 ] && grep -q "leads out of its shell directory" "$T/.err" && ! grep -qE 'SIBLING_SECRET|SIBLING-PW' "$T/.out" &&
	ok "a symlinked env file does not carry another project's secrets into the sandbox" ||
	{ not_ok "a symlinked env file does not carry another project's secrets into the sandbox" && _show env; }
rm -f "$ENVFILE"

# 2. Steer where the wrapper reads config.zon: with any writable grant outside
#    the root, sandboxed code plants a config that grants itself ~/.ssh.
mkdir -p "$HOME/.cache/tool"
"$MOAT" allow '*' "$HOME/.cache/tool" --write >/dev/null 2>&1
wrapped env sh -c "mkdir -p '$HOME/.cache/tool/moat' &&
	printf '.{ .allow = .{ .{ .bin = \"*\", .paths = .{ \"~/.ssh\" } } } }\n' >'$HOME/.cache/tool/moat/config.zon' &&
	echo 'XDG_CONFIG_HOME=$HOME/.cache/tool' >'$ENVFILE' && echo PLANTED"
expect_out "(the sandbox may write its grant and the env file)" '^PLANTED$'
wrapped cat "$KEY"
[ "$rc" -eq 1 ] && grep -q "cat: $KEY: Permission denied" "$T/.err" && ! grep -q DECOY-SSH-KEY "$T/.out" &&
	ok "an env file cannot point the wrapper at a config.zon the sandbox wrote" ||
	{ not_ok "an env file cannot point the wrapper at a config.zon the sandbox wrote" && _show cat; }
rm -f "$ENVFILE"
"$MOAT" unallow '*' "$HOME/.cache/tool" >/dev/null 2>&1

# 3. Run unconfined: the user jailbreaks `cat` by name; sandboxed code points
#    that name at /bin/sh, which then runs a script from the root.
run "$MOAT" run -- sh -c "printf 'cat\t/bin/sh\n' >'$MANIFEST' && echo 'cat \"\$HOME/.ssh/id_rsa\" >stolen' >notes.txt"
rm -f "$PROJ/stolen"
run timeout 10 env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=cat "$SH/bin/cat" notes.txt
[ "$rc" -eq 1 ] && grep -q "cat: $KEY: Permission denied" "$T/.err" && ! grep -q DECOY-SSH-KEY "$PROJ/stolen" 2>/dev/null &&
	ok "a rewritten manifest cannot send a jailbroken name to another binary" ||
	not_ok "a rewritten manifest cannot send a jailbroken name to another binary (it ran /bin/sh unconfined)"
# ... nor when the wrapped tool is started with another project as its root.
run "$MOAT" run -- sh -c "printf 'cat\t/bin/sh\n' >'$MANIFEST'"
echo 'cat "$HOME/.ssh/id_rsa" >stolen' >"$SIBLING/notes.txt"
rm -f "$SIBLING/stolen"
run sh -c "cd '$SIBLING' && MOAT_ROOT='$SIBLING' MOAT_JAILBREAK=cat timeout 10 '$SH/bin/cat' notes.txt"
[ "$rc" -eq 1 ] && grep -q "cat: $KEY: Permission denied" "$T/.err" && ! grep -q DECOY-SSH-KEY "$SIBLING/stolen" 2>/dev/null &&
	ok "nor from another project, whose MOAT_ROOT does not cover the shell" ||
	not_ok "nor from another project, whose MOAT_ROOT does not cover the shell (it ran /bin/sh unconfined)"
rm -f "$SIBLING/stolen" "$SIBLING/notes.txt"
restore

# The same for a shell below a write grant rather than the root.
GSH=$XDG_DATA_HOME/moat/shells/granted
"$MOAT" wrap granted /bin/cat >/dev/null 2>&1
CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"
printf '.{ .jailbreak = .{ "cat" }, .allow = .{ .{ .bin = "*", .paths = .{ "%s" }, .write = true } } }\n' "$XDG_DATA_HOME" >"$CFG"
run "$MOAT" run -- sh -c "printf 'cat\t/bin/sh\n' >'$GSH/share/moat/manifest' && echo REWRITTEN"
[ "$rc" -eq 125 ] && grep -q "refusing to run: moat's data directory .* lies under the write grant" "$T/.err" &&
	! grep -q REWRITTEN "$T/.out" && ok "moat run refuses to start with moat's shells under a write grant (issue 13)" ||
	{ not_ok "moat run refuses to start with moat's shells under a write grant" && _show run; }
# What an older moat let the sandbox do: the manifest rewritten.
printf 'cat\t/bin/sh\n' >"$GSH/share/moat/manifest"
echo 'cat "$HOME/.ssh/id_rsa" >stolen2' >"$PROJ/notes2.txt"
rm -f "$PROJ/stolen2"
run timeout 10 env MOAT_ROOT="$PROJ" "$GSH/bin/cat" notes2.txt
[ "$rc" -eq 125 ] && grep -q "refusing to run: .* lies under the write grant" "$T/.err" && ! grep -q DECOY-SSH-KEY "$PROJ/stolen2" 2>/dev/null &&
	ok "a jailbroken name in a shell under a write grant never runs what the sandbox wrote" ||
	{ not_ok "a jailbroken name in a shell under a write grant never runs what the sandbox wrote (it ran /bin/sh unconfined)" && _show cat; }
rm -rf "$CFG" "$GSH" "$PROJ/stolen2" "$PROJ/notes2.txt"

# 4. Steer `moat wrap`, which runs unconfined when the user re-wraps the
#    shell: links planted inside it must not make moat read outside the shell
#    into the project, nor write outside the shell.
run "$MOAT" run -- ln -s "$SIBLING/.env" "$ENVFILE"
run "$MOAT" wrap "$SH" --env WRAPPED=1 /bin/cat
! { [ ! -L "$ENVFILE" ] && grep -aqE 'SIBLING_SECRET|SIBLING-PW' "$ENVFILE"; } &&
	ok "moat wrap does not copy a symlinked env file's target into the shell" ||
	not_ok "moat wrap does not copy a symlinked env file's target into the shell (the secrets are now in the project)"
grep -q 'sk_live_SIBLING_SECRET' "$SIBLING/.env" &&
	ok "and leaves the link's target alone" || not_ok "and leaves the link's target alone"
expect_out "it refuses, saying why" "'$ENVFILE': it is a symlink"
rm -rf "$ENVFILE" && restore
for dir in share/moat bin; do
	victim=$HOME/victim-${dir%%/*}
	mkdir -p "$victim"
	run "$MOAT" run -- sh -c "rm -rf '$SH/$dir' && ln -s '$victim' '$SH/$dir'"
	run "$MOAT" wrap "$SH" --env WRAPPED=1 /bin/cat
	[ -z "$(ls -A "$victim")" ] && ok "moat wrap writes nothing through a planted $dir link" ||
		not_ok "moat wrap writes nothing through a planted $dir link (wrote $(ls -A "$victim" | tr '\n' ' '))"
	expect_out "and says why" "'$SH/$dir': it is a symlink"
	rm -f "$SH/$dir" && "$MOAT" wrap "$SH" /bin/cat /usr/bin/env >/dev/null 2>&1
done
restore
# ... and the same for the shell directory itself.
run "$MOAT" run -- sh -c "mv '$SH' '$SH.real' && ln -s '$HOME' '$SH'"
run "$MOAT" wrap "$SH" /bin/cat
[ "$rc" -ne 0 ] && [ ! -e "$HOME/bin/cat" ] && [ ! -e "$HOME/share/moat" ] && grep -q "is a symlink inside" "$T/.err" &&
	ok "moat wrap refuses a shell directory that is a planted link" ||
	{ not_ok "moat wrap refuses a shell directory that is a planted link" && _show wrap; }
rm -f "$SH" && mv "$SH.real" "$SH"
run "$MOAT" wrap "$PROJ/new/shell" /bin/cat
[ "$rc" -eq 0 ] && [ -L "$PROJ/new/shell/bin/cat" ] && ok "moat wrap still makes a new shell, parents and all" ||
	{ not_ok "moat wrap still makes a new shell, parents and all" && _show wrap; }
rm -rf "$PROJ/new"
run env MOAT_SHELLS_PATH=rel-shells "$MOAT" wrap t /bin/cat
[ "$rc" -ne 0 ] && [ ! -e "$PROJ/rel-shells" ] && grep -q "not an absolute path" "$T/.err" &&
	ok "moat wrap refuses a relative MOAT_SHELLS_PATH" || { not_ok "moat wrap refuses a relative MOAT_SHELLS_PATH" && _show wrap; }
# From HOME (never a sandbox root), the user's own links there are fine.
mkdir -p "$HOME/elsewhere" && ln -sfn "$HOME/elsewhere" "$HOME/linked"
run sh -c "cd '$HOME' && MOAT_SHELLS_PATH='$HOME/linked' '$MOAT' wrap t /bin/cat"
[ "$rc" -eq 0 ] && [ -L "$HOME/elsewhere/t/bin/cat" ] && ok "moat wrap from HOME follows the user's own links" ||
	{ not_ok "moat wrap from HOME follows the user's own links" && _show wrap; }
rm -rf "$HOME/elsewhere" "$HOME/linked"

done_testing
