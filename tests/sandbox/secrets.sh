#!/usr/bin/env bash
# Secrets in the caller's environment (GITHUB_TOKEN, NPM_TOKEN, cloud and
# API keys, agent sockets) stay out of tools that are not handed them, in
# moat run, moat shell and wrapped tools; a name passed to one tool
# (config.zon's .env, moat allow --env) reaches that tool and its children
# only; values never show in anything moat prints.
# kernel-independent: which variables reach a tool is moat's choice before exec.
. "$(dirname "$0")/../lib.sh"
CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"
PTY=$MOAT_SRC/tests/pty-run.py
have_pty() { command -v python3 >/dev/null; }

# The decoys: each value holds DECOYVAL, which must show nowhere.
SECRETS="GITHUB_TOKEN GH_TOKEN NPM_TOKEN NODE_AUTH_TOKEN AWS_SECRET_ACCESS_KEY AWS_ACCESS_KEY_ID
AWS_SESSION_TOKEN ANTHROPIC_API_KEY OPENAI_API_KEY DATABASE_URL PGPASSWORD SSH_AUTH_SOCK
GPG_AGENT_INFO DOCKER_HOST HF_TOKEN gitlab_token npm_config__authToken"
for v in $SECRETS; do export "$v=DECOYVAL-$v"; done
# Not secrets: these pass unchanged, however close their names come.
BUILD="PATH HOME LANG LC_ALL TERM EDITOR VISUAL PAGER SHELL USER LOGNAME CC CXX CFLAGS CXXFLAGS
CPPFLAGS LDFLAGS MAKEFLAGS PKG_CONFIG_PATH CARGO_HOME RUSTUP_HOME RUSTFLAGS GOPATH GOFLAGS
JAVA_HOME NODE_ENV NODE_OPTIONS PYTHONPATH VIRTUAL_ENV SOURCE_DATE_EPOCH TZ CI AWS_REGION
AWS_PROFILE TOKENIZERS_PARALLELISM KEYTIMEOUT SSH_AGENT_PID GPG_TTY PASSWORD_STORE_DIR
NPM_CONFIG_REGISTRY GIT_AUTHOR_NAME"
for v in $BUILD; do
	case $v in PATH | HOME | LANG | LC_ALL | TERM | SHELL) ;; *) export "$v=build-value-$v" ;; esac
done
export LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color SHELL=/bin/sh
nbuild=$(echo $BUILD | wc -w)

# Control: without moat the decoys are in a tool's environment.
run sh -c 'env; tr "\0" "\n" </proc/self/environ; sh -c env'
[ "$(grep -c DECOYVAL "$T/.out")" -ge 40 ] && ok "control: without moat every decoy reaches the tool" ||
	{ not_ok "control: decoys without moat" && _show env; }

# moat run: the tool's environ, /proc/self/environ and a child's.
run "$MOAT" run -- sh -c 'echo started; env; tr "\0" "\n" </proc/self/environ; sh -c "env; cat /proc/\$\$/environ | tr \"\\0\" \"\\n\""'
[ "$rc" = 0 ] && grep -q '^started$' "$T/.out" && ! grep -q DECOYVAL "$T/.out" "$T/.err" &&
	ok "moat run: no decoy in environ, /proc/self/environ or a child's" ||
	{ not_ok "moat run: no decoy" && _show moat run; }
env_inside=$(grep -E "^($(echo $BUILD | tr ' ' '|'))=" "$T/.out" | sort -u)
env_outside=$(env | grep -E "^($(echo $BUILD | tr ' ' '|'))=" | sort -u)
[ "$(echo "$env_inside" | wc -l)" -ge 30 ] && [ "$env_inside" = "$env_outside" ] &&
	ok "moat run: $nbuild build variables pass unchanged (PATH, HOME, CC, TOKENIZERS_PARALLELISM, AWS_REGION, ...)" ||
	{ not_ok "build variables changed"; diff <(echo "$env_outside") <(echo "$env_inside") | sed 's/^/#   /'; }

# The set is decided from names: a credential under one it does not know
# (bundler's per-host BUNDLE_<HOST>=user:password) is inherited.
known_breakage "a credential under a name the set does not know reaches the tool" \
	"docs/security.md: the set is decided from names; .secrets adds one" \
	sh -c 'BUNDLE_GEMS__EXAMPLE__COM=user:DECOYVAL-bundler "$0" run -- env | grep -q DECOYVAL-bundler' "$MOAT"

# Nothing moat prints holds a value: -v, --trace (text and JSON), profile.
for cmd in "-v run -- sh -c true" "run --trace -- sh -c 'cat ~/.ssh/id_rsa; exit 1'" \
	"run --trace --json -- sh -c 'cat ~/.ssh/id_rsa'" "-v profile" "profile --json"; do
	eval "run \"\$MOAT\" $cmd"
	! grep -q DECOYVAL "$T/.out" "$T/.err" && [ "$rc" != 125 ] &&
		ok "moat $cmd: no value printed" || { not_ok "moat $cmd prints a value" && _show "$cmd"; }
done
run "$MOAT" profile
expect_out "moat profile names the removed secrets" '^secrets removed: .*GITHUB_TOKEN.*NPM_TOKEN'
run "$MOAT" profile --json
python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["secrets"]; sys.exit(not ("GH_TOKEN" in s["removed"] and s["passed"] == []))' <"$T/.out" &&
	ok "moat profile --json lists them under secrets.removed" || { not_ok "profile --json secrets" && _show profile; }

# Stand-ins for gh and npm, wrapped: each prints its environment and a
# child's, prefixed with its name.
mkdir -p "$PROJ/standin"
cat >"$PROJ/standin/gh" <<'EOF'
#!/bin/sh
n=${0##*/}
env | sed "s/^/$n:/"
sh -c env | sed "s/^/$n-child:/"
# STANDIN_RUN: a tool to run, once (not passed on); STANDIN_CAT: a file to print.
r=${STANDIN_RUN:-}
unset STANDIN_RUN
[ -z "$r" ] || "$r" | sed "s/^/via-$n:/"
[ -z "${STANDIN_CAT:-}" ] || tr '\0' '\n' <"$STANDIN_CAT"
EOF
cp "$PROJ/standin/gh" "$PROJ/standin/npm"
chmod +x "$PROJ/standin/gh" "$PROJ/standin/npm"
expect_ok "moat wrap the stand-ins" "$MOAT" wrap tools --env GITHUB_TOKEN=from-env-file \
	--env FROM_FILE=yes "$PROJ/standin/gh" "$PROJ/standin/npm"
SH=$(cd "$XDG_DATA_HOME/moat/shells/tools" && pwd -P)

run env MOAT_ROOT="$PROJ" "$SH/bin/gh"
[ "$rc" = 0 ] && grep -q '^gh:FROM_FILE=yes$' "$T/.out" && ! grep -q DECOYVAL "$T/.out" "$T/.err" &&
	ok "wrapped tool: no decoy in it or its child" || { not_ok "wrapped tool: no decoy" && _show gh; }
! grep -q '^gh:GITHUB_TOKEN=' "$T/.out" && ok "share/moat/env cannot reintroduce a removed secret" ||
	{ not_ok "env file reintroduced GITHUB_TOKEN" && _show gh; }
expect_out "and says so, with the line that passes it" "sets GITHUB_TOKEN, a secret gh is not passed.*moat allow --env gh GITHUB_TOKEN"

expect_ok "moat allow --env gh GH_TOKEN" "$MOAT" allow --env gh GH_TOKEN
grep -q '.bin = "gh", .names = .{ "GH_TOKEN" }' "$CFG" && ok "it is written to config.zon's .env" ||
	{ not_ok "config.zon's .env"; sed 's/^/#   /' "$CFG"; }
run env MOAT_ROOT="$PROJ" "$SH/bin/gh"
expect_out "a name passed to gh reaches gh" '^gh:GH_TOKEN=DECOYVAL-GH_TOKEN$'
expect_out "and gh's children" '^gh-child:GH_TOKEN=DECOYVAL-GH_TOKEN$'
[ "$(grep -c DECOYVAL "$T/.out")" = 2 ] && ok "and nothing else" || { not_ok "gh got more" && _show gh; }
run env MOAT_ROOT="$PROJ" "$SH/bin/npm"
[ "$rc" = 0 ] && grep -q '^npm:PATH=' "$T/.out" && ! grep -q DECOYVAL "$T/.out" &&
	ok "the name passed to gh does not reach npm" || { not_ok "npm got gh's name" && _show npm; }
# The attacker in npm runs gh, which is handed GH_TOKEN: gh inside npm's
# sandbox gets no more than npm has.
run env MOAT_ROOT="$PROJ" STANDIN_RUN="$SH/bin/gh" "$SH/bin/npm"
[ "$rc" = 0 ] && grep -q '^via-npm:gh:PATH=' "$T/.out" && ! grep -q DECOYVAL "$T/.out" &&
	ok "npm running gh gets no GH_TOKEN through it" || { not_ok "npm got GH_TOKEN through gh" && _show npm; }
# Or reads another process's environment, say its caller's (control first).
env GITHUB_TOKEN=DECOYVAL-caller sleep 60 &
caller=$!
for _ in $(seq 100); do # until env has exec'd sleep
	tr '\0' '\n' </proc/$caller/environ | grep -q DECOYVAL && break
	sleep 0.05
done
tr '\0' '\n' </proc/$caller/environ | grep -q DECOYVAL && ok "control: another process's environ is readable" ||
	not_ok "control: another process's environ"
run env MOAT_ROOT="$PROJ" STANDIN_CAT=/proc/$caller/environ "$SH/bin/npm"
! grep -q DECOYVAL "$T/.out" && grep -qiE 'permission denied|operation not permitted' "$T/.err" &&
	ok "the wrapped tool cannot read it in /proc" || { not_ok "read another process's environ" && _show npm; }
kill $caller
wait $caller 2>/dev/null
expect_ok "moat allow --env '*' NODE_AUTH_TOKEN" "$MOAT" allow --env '*' NODE_AUTH_TOKEN
run env MOAT_ROOT="$PROJ" "$SH/bin/npm"
expect_out "a name passed to '*' reaches npm" '^npm:NODE_AUTH_TOKEN=DECOYVAL-NODE_AUTH_TOKEN$'
run env MOAT_ROOT="$PROJ" "$SH/bin/gh"
expect_out "and gh" '^gh:NODE_AUTH_TOKEN=DECOYVAL-NODE_AUTH_TOKEN$'
run "$MOAT" run -- sh -c env
expect_out "and a session's command" '^NODE_AUTH_TOKEN=DECOYVAL-NODE_AUTH_TOKEN$'

# A session decides once: its command's names and '*', nothing more for
# the wrapped tools inside it.
run "$MOAT" run tools -- gh
expect_out "moat run -- gh: the session gets gh's names" '^gh:GH_TOKEN=DECOYVAL-GH_TOKEN$'
run "$MOAT" run tools -- sh -c 'gh; npm'
[ "$rc" = 0 ] && grep -q '^gh:NODE_AUTH_TOKEN=' "$T/.out" && ! grep -q 'GH_TOKEN=DECOY' "$T/.out" &&
	ok "a session started for sh: gh inside it gets nothing more" || { not_ok "session union" && _show session; }

# A gh the sandbox could have planted (in the root, or first on a PATH
# there) is not the user's gh: it gets no secrets of gh's (the control is
# moat run tools -- gh above).
mkdir -p "$PROJ/planted" && cp "$PROJ/standin/gh" "$PROJ/planted/gh"
run "$MOAT" run -- ./planted/gh
[ "$rc" = 0 ] && grep -q '^gh:PATH=' "$T/.out" && ! grep -q 'GH_TOKEN=DECOY' "$T/.out" &&
	ok "a gh in the root gets no GH_TOKEN" || { not_ok "a planted gh got gh's token" && _show planted; }
expect_out "and moat says why" "gh gets no secrets of its own: .*/planted/gh lies under the sandbox root"
run env PATH="$PROJ/planted:$PATH" "$MOAT" run -- gh
[ "$rc" = 0 ] && grep -q '^gh:PATH=' "$T/.out" && ! grep -q 'GH_TOKEN=DECOY' "$T/.out" &&
	ok "nor one first on PATH" || { not_ok "a planted gh on PATH got gh's token" && _show planted; }

# MOAT_ENV_<NAME> is the explicit way to set one.
run env MOAT_ROOT="$PROJ" MOAT_ENV_NPM_TOKEN=explicit "$SH/bin/npm"
expect_out "MOAT_ENV_NPM_TOKEN sets NPM_TOKEN" '^npm:NPM_TOKEN=explicit$'
expect_no_out "and is no removed secret itself" 0 'MOAT_ENV_NPM_TOKEN'

# config.zon: additions to the set, an opt-out.
printf '.{\n    .secrets = .{ "CORP_VAULT" },\n    .not_secrets = .{ "DATABASE_URL" },\n}\n' >"$CFG"
run env CORP_VAULT=DECOYVAL-corp "$MOAT" run -- sh -c 'env'
[ "$rc" = 0 ] && ! grep -q 'CORP_VAULT' "$T/.out" && grep -q '^DATABASE_URL=DECOYVAL-DATABASE_URL$' "$T/.out" &&
	ok ".secrets adds a name, .not_secrets takes one out" || { not_ok ".secrets/.not_secrets" && _show run; }

# Bad input: an error at file:line:col, moat run refuses to start.
printf '.{\n    .env = .{ .{ .bin = "gh", .names = .{ "GH-TOKEN" } } },\n}\n' >"$CFG"
run "$MOAT" check
[ "$rc" = 1 ] && grep -q "config.zon:2:43: '.names' entry 'GH-TOKEN' is not a variable name" "$T/.out" "$T/.err" &&
	ok "moat check: a malformed name is an error at file:line:col" || { not_ok "moat check" && _show check; }
expect_status "moat run refuses that config" 125 "$MOAT" run -- true
printf '.{ .secrets = .{ "" } }\n' >"$CFG"
run "$MOAT" check
expect_out "an empty pattern too" "config.zon:1:18: empty string in '.secrets'"
printf '.{ .not_secrets = .{ "9LIVES" } }\n' >"$CFG"
run "$MOAT" check
expect_out "a leading digit too" "config.zon:1:22: '.not_secrets' entry '9LIVES' .*starts with a digit"
printf '.{ .env = .{ .{ .bin = "gh", .names = .{ "GH_TOKEN", "EDITOR" } } } }\n' >"$CFG"
run "$MOAT" check
[ "$rc" = 0 ] && grep -q "config.zon:1:14: note: EDITOR, passed to gh, is not a secret moat removes" "$T/.out" &&
	! grep -q "GH_TOKEN, passed" "$T/.out" && ok "moat check notes a passed name that is no secret" ||
	{ not_ok "moat check: a passed name that is no secret" && _show check; }
rm -f "$CFG"
expect_status "moat allow --env refuses a bad name" 1 "$MOAT" allow --env gh 'GH TOKEN'
expect_status "moat allow --env wants BIN and NAME" 2 "$MOAT" allow --env gh
expect_status "moat allow --env takes no --write" 2 "$MOAT" allow --env gh GH_TOKEN --write
expect_status "moat allow -r --env of a name not passed fails" 1 "$MOAT" allow -r --env gh NPM_TOKEN

# A name the caller's environment holds with an escape sequence in it: shown
# escaped, and never handed over, even when a pattern passes it.
printf '.{ .env = .{ .{ .bin = "*", .names = .{ "*_TOKEN" } } } }\n' >"$CFG"
run env "$(printf 'EVIL\033]0;pwned\007_TOKEN')=DECOYVAL-evil" "$MOAT" run --trace -- sh -c 'env; exit 1'
[ "$rc" = 1 ] && ! grep -q DECOYVAL-evil "$T/.out" && grep -q '^GH_TOKEN=DECOYVAL' "$T/.out" &&
	ok "a name with control characters is removed although a pattern passes it" ||
	{ not_ok "a name with control characters" && _show run; }
! grep -q "$(printf '\033')" "$T/.err" && grep -q 'EVIL\\x1b' "$T/.err" &&
	ok "and shown escaped" || { not_ok "the name is shown raw" && _show run; }
rm -f "$CFG"

if have_pty; then
	# moat shell, through a pseudo-terminal.
	printf 'env; tr "\\0" "\\n" </proc/self/environ; sh -c env; echo shell-done; exit\n' >"$T/cmds"
	SHELL=/bin/sh timeout 30 script -qec "'$MOAT' shell" /dev/null <"$T/cmds" >"$T/.out" 2>"$T/.err"
	grep -q shell-done "$T/.out" && grep -q '^CARGO_HOME=build-value-CARGO_HOME' "$T/.out" &&
		! grep -q DECOYVAL "$T/.out" "$T/.err" && ok "moat shell: no decoy in the shell or its children" ||
		{ rc=$? && not_ok "moat shell: decoys" && _show shell; }

	# The hint after a failing command names the removed names.
	run python3 "$PTY" -- "$MOAT" run -- sh -c 'exit 3'
	[ "$rc" = 3 ] && ok "the failing command's status is kept" || not_ok "status $rc"
	expect_out "the hint names what was removed" '^moat: secrets removed from its environment: .*GITHUB_TOKEN.*NPM_TOKEN'
	expect_out "and the line that passes one" "; to pass one:  moat allow --env sh [A-Za-z_]+"
	expect_no_out "never a value" 3 DECOYVAL
	run python3 "$PTY" -- "$MOAT" run -- true
	expect_no_out "no hint after a success" 0 'secrets removed'
	run env -i PATH="$PATH" HOME="$HOME" python3 "$PTY" -- "$MOAT" run -- false
	expect_no_out "no hint when nothing was removed" 1 'secrets removed'
	run "$MOAT" run --trace -- sh -c 'exit 4'
	expect_out "--trace says it too" '^moat: secrets removed from its environment: .*GITHUB_TOKEN'
	expect_no_out "with no value" 4 DECOYVAL

	# Approvals: a tool confirmed without NPM_TOKEN is asked again once it
	# would receive it; the prompt lists the names it receives, no value.
	printf '.{ .confirm = .{ "npm" } }\n' >"$CFG"
	expect_ok "approve npm without secrets" python3 "$PTY" --answer y -- env MOAT_ROOT="$PROJ" "$SH/bin/npm"
	expect_ok "approved: it runs without asking" setsid env MOAT_ROOT="$PROJ" "$SH/bin/npm"
	"$MOAT" allow --env npm NPM_TOKEN >/dev/null 2>&1
	expect_status "once it would receive NPM_TOKEN it asks again" 125 setsid env MOAT_ROOT="$PROJ" "$SH/bin/npm"
	expect_ok "approve with NPM_TOKEN" python3 "$PTY" --answer y -- env MOAT_ROOT="$PROJ" "$SH/bin/npm"
	expect_out "the prompt lists the secret it receives" '^  secret +NPM_TOKEN'
	expect_no_out "by name only" 0 'secret +NPM_TOKEN.*DECOYVAL'
	expect_ok "then it runs without asking" setsid env MOAT_ROOT="$PROJ" "$SH/bin/npm"
	expect_ok "and without the variable set it does not ask either" setsid env -u NPM_TOKEN MOAT_ROOT="$PROJ" "$SH/bin/npm"
	grep -q 'secret=NPM_TOKEN' "$XDG_STATE_HOME/moat/approvals" && ! grep -q DECOYVAL "$XDG_STATE_HOME/moat/approvals" &&
		ok "the store keeps the name, not the value" || not_ok "approvals store"
	run "$MOAT" approvals
	expect_out "moat approvals lists it" '^  secret +NPM_TOKEN$'
else
	skip "prerequisite: python3 missing (pseudo-terminal driver)"
fi

done_testing
