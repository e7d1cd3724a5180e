#!/usr/bin/env bash
# docs/recipes.md, coding agents: a stand-in agent that keeps its state the
# way Claude Code, Codex and aider do (a config directory named by a
# variable, or dotfiles in HOME, rewritten by temp-file-and-rename). A grant
# of the dotfile alone fails; a granted directory named through MOAT_ENV_,
# or MOAT_ENV_HOME in the project, works, and the real HOME stays refused.
# A grant limited with --dirs (the recipes' credentials) reaches only the
# projects under its directories. An agent installed under npm's user
# prefix in HOME runs with the prefix granted --exec, and not without. An
# agent's own sandbox needing a user namespace with id maps (Codex's
# bubblewrap; `unshare -Ur` here) cannot start inside moat, which the
# recipe says, with the way to turn it off.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || { skip "prerequisite: /usr/bin/python3"; done_testing; exit; }
cat >"$PROJ/agent.py" <<'PYEOF'
import json, os, sys
d = os.environ.get("AGENT_CONFIG_DIR") or os.path.expanduser("~")
path = os.path.join(d, ".agent.json" if d == os.path.expanduser("~") else "state.json")
state = {"runs": 0}
if os.path.exists(path):
    state = json.load(open(path))
state["runs"] += 1
tmp = path + ".tmp"
with open(tmp, "w") as f:
    json.dump(state, f)
os.replace(tmp, path)
print("AGENT-RUNS", state["runs"], path)
PYEOF

# Control: outside moat the agent keeps its state in HOME.
run "$PY" "$PROJ/agent.py"
expect_out "control: outside moat the agent writes ~/.agent.json" "^AGENT-RUNS 1 $HOME/.agent.json$"
rm -f "$HOME/.agent.json"

# A grant of the dotfile alone: the rename into HOME is refused.
: >"$HOME/.agent.json"
echo '{"runs": 0}' >"$HOME/.agent.json"
expect_ok "moat allow '*' ~/.agent.json --write" "$MOAT" allow '*' "$HOME/.agent.json" --write
run "$MOAT" run -- "$PY" agent.py
expect_refused "a grant of the dotfile alone fails: the rename needs HOME" AGENT-RUNS

# Its own directory, named by its variable and granted.
mkdir -p "$HOME/.agent-moat"
expect_ok "moat allow '*' ~/.agent-moat --write" "$MOAT" allow '*' "$HOME/.agent-moat" --write
run env MOAT_ENV_AGENT_CONFIG_DIR="$HOME/.agent-moat" "$MOAT" run -- "$PY" agent.py
expect_out "a granted config directory through MOAT_ENV_ works" "^AGENT-RUNS 1 $HOME/.agent-moat/state.json$"
run env MOAT_ENV_AGENT_CONFIG_DIR="$HOME/.agent-moat" "$MOAT" run -- "$PY" agent.py
expect_out "and keeps its state across runs" "^AGENT-RUNS 2 "

# The credentials' grant limited with --dirs, as the recipe does: in force
# for projects under the directory, refused in any other.
mkdir -p "$HOME/work/agentproj" "$HOME/.agent-creds"
echo AGENT-CREDENTIAL >"$HOME/.agent-creds/token"
expect_ok "moat allow '*' ~/.agent-creds --write --dirs ~/work" "$MOAT" allow '*' '~/.agent-creds' --write --dirs '~/work'
expect_out "saying where it applies" "granted \\* read/write access to ~/.agent-creds in projects under ~/work$"
expect_ok "moat allow lists it with its scope" "$MOAT" allow
expect_out "listed" "~/.agent-creds  \\(only in ~/work\\)"
run sh -c "cd '$HOME/work/agentproj' && '$MOAT' run --here -- cat '$HOME/.agent-creds/token'"
expect_out "a session under ~/work reads the credentials" "^AGENT-CREDENTIAL$"
run "$MOAT" run -- cat "$HOME/.agent-creds/token"
expect_refused "a session in another project cannot" AGENT-CREDENTIAL
expect_ok "control: without --dirs the grant is made for every project" "$MOAT" allow '*' '~/.agent-creds'
expect_out "and says so" "in every project$"
run "$MOAT" run -- cat "$HOME/.agent-creds/token"
expect_out "then another project reads them" "^AGENT-CREDENTIAL$"

# A home in the project.
run env MOAT_ENV_HOME="$PROJ/.moat/home" "$MOAT" run -- "$PY" agent.py
expect_out "MOAT_ENV_HOME in the project works" "^AGENT-RUNS 1 $PROJ/.moat/home/.agent.json$"
run env MOAT_ENV_HOME="$PROJ/.moat/home" "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
expect_refused "and the real HOME stays refused" DECOY-SSH-KEY
# An agent installed under npm's user prefix: bin/agent a link to the
# package's script, as npm makes them.
PREFIX=$HOME/.npm-global
mkdir -p "$PREFIX/bin" "$PREFIX/lib/node_modules/agent"
printf '#!%s\nprint("AGENT-STARTED")\n' "$PY" >"$PREFIX/lib/node_modules/agent/cli.py"
chmod +x "$PREFIX/lib/node_modules/agent/cli.py"
ln -s ../lib/node_modules/agent/cli.py "$PREFIX/bin/agent"
export PATH="$PREFIX/bin:$PATH"
expect_ok "control: outside moat the agent from the prefix runs" agent
run "$MOAT" run -- agent
expect_no_out "without a grant of the prefix it cannot run (status 126)" 126 AGENT-STARTED
expect_out "moat says it cannot run it" "cannot run '$(re_quote "$PREFIX/bin/agent")': Permission denied"
expect_ok "moat allow agent ~/.npm-global (read alone)" "$MOAT" allow agent '~/.npm-global'
run "$MOAT" run -- agent
expect_no_out "a read grant alone is not enough (status 126)" 126 AGENT-STARTED
expect_ok "moat allow agent ~/.npm-global --exec, as the recipe says" "$MOAT" allow agent '~/.npm-global' --exec
run "$MOAT" run -- agent
expect_out "then the agent runs from the prefix" "^AGENT-STARTED$"
grep -q "moat allow claude ~/.npm-global --exec" "$MOAT_SRC/docs/recipes.md" &&
	ok "docs/recipes.md gives the --exec grant of the prefix" || not_ok "docs/recipes.md gives the --exec grant of the prefix"

# An agent's own namespace sandbox inside moat, as bubblewrap makes one.
if unshare -Ur true 2>/dev/null; then
	ok "control: outside moat a user namespace with id maps can be made"
	run "$MOAT" run -- unshare -Ur true
	ran_and_failed && grep -q 'uid_map: Permission denied' "$T/.err" &&
		ok "inside moat it cannot: an agent's own sandbox does not nest" ||
		{ not_ok "inside moat it cannot: an agent's own sandbox does not nest" && _show "unshare -Ur"; }
else
	skip "prerequisite: unshare -Ur (user namespaces) outside moat"
fi
grep -q 'codex --sandbox danger-full-access' "$MOAT_SRC/docs/recipes.md" &&
	! tr '\n' ' ' <"$MOAT_SRC/docs/recipes.md" | grep -q 'its own sandbox can be run inside moat' &&
	ok "docs/recipes.md says to run Codex with its own sandbox off inside moat" ||
	not_ok "docs/recipes.md says to run Codex with its own sandbox off inside moat"
done_testing
