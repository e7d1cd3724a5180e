#!/usr/bin/env bash
# docs/recipes.md, coding agents: a stand-in agent that keeps its state the
# way Claude Code, Codex and aider do (a config directory named by a
# variable, or dotfiles in HOME, rewritten by temp-file-and-rename). A grant
# of the dotfile alone fails; a granted directory named through MOAT_ENV_,
# or MOAT_ENV_HOME in the project, works, and the real HOME stays refused.
# A grant limited with --dirs (the recipes' credentials) reaches only the
# projects under its directories.
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
done_testing
