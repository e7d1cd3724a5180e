#!/usr/bin/env bash
# JSON output (issue 14, item 6): `moat profile --json`, validated against
# docs/json-schema.json, and agreeing with what the text says.
. "$(dirname "$0")/trace-lib.bash"
SCHEMA=$MOAT_SRC/docs/json-schema.json
VALIDATE=$MOAT_SRC/tests/json-validate.py
command -v python3 >/dev/null || { skip "python3 missing: no validator"; done_testing; exit; }

# valid NAME DEF FILE: FILE is a DEF document of the schema.
valid() {
	local problems
	if problems=$(python3 "$VALIDATE" "$SCHEMA" "$2" "$3" 2>&1); then ok "$1"; else
		not_ok "$1" && printf '%s\n' "$problems" | head -20 | sed 's/^/#   /'
	fi
}
# jq-free field access: py FILE EXPR prints EXPR evaluated on the document d.
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# The validator itself refuses what it must.
printf '{"version":1,"kind":"profile"}\n' >"$T/bad.json"
python3 "$VALIDATE" "$SCHEMA" profile "$T/bad.json" >"$T/bad.out" 2>&1
grep -q "missing 'root'" "$T/bad.out" && ok "control: the validator refuses a document missing fields" ||
	{ not_ok "control: the validator refuses a document missing fields" && sed 's/^/#   /' "$T/bad.out"; }
printf '{"version":1,"kind":"profile","x":"\xc2\x9b"}\n' >"$T/raw.json"
python3 "$VALIDATE" "$SCHEMA" profile "$T/raw.json" >"$T/raw.out"
grep -q 'raw U+009B' "$T/raw.out" && ok "control: and a raw C1 control in the text" ||
	not_ok "control: and a raw C1 control in the text"

# --- moat profile --json ------------------------------------------------------
mkdir -p "$XDG_CONFIG_HOME/moat" "$HOME/.npm"
serve_dir=$T/run && mkdir -p "$serve_dir" && touch "$serve_dir/agent.sock"
cat >"$XDG_CONFIG_HOME/moat/config.zon" <<EOF
.{
    .jailbreak = .{ "git" },
    .sockets = .{ "$serve_dir/agent.sock" },
    .allow = .{ .{ .bin = "npm", .paths = .{ "~/.npm" }, .write = true } },
}
EOF
run "$MOAT" profile --json
printf '%s\n' "$out" >"$T/profile.json"
[ "$rc" = 0 ] && ok "moat profile --json succeeds" || { not_ok "moat profile --json succeeds" && _show profile; }
valid "it matches the schema" profile "$T/profile.json"
[ "$(py "$T/profile.json" 'd["root"]')" = "$PROJ" ] && ok "the root" || not_ok "the root"
[ "$(py "$T/profile.json" '[ (r["access"], r["bin"]) for r in d["rules"] if r["origin"] == "grant" and r["path"].endswith("/.npm") ]')" = "[(['read', 'write'], 'npm')]" ] &&
	ok "a grant: its path, access and bin" || not_ok "a grant: its path, access and bin"
[ "$(py "$T/profile.json" '[ r["access"] for r in d["rules"] if r["origin"] == "socket" ]')" = "[['connect']]" ] &&
	ok "a socket: connect" || not_ok "a socket: connect"
[ "$(py "$T/profile.json" 'd["kernel"]["landlock_abi"]')" = "$("$MOAT" profile 2>/dev/null | sed -n 's/^kernel: Landlock ABI //p')" ] &&
	ok "the same ABI as the text" || not_ok "the same ABI as the text"
[ "$(py "$T/profile.json" 'len(d["rules"]) + len(d["jailbreaks"])')" = "$("$MOAT" profile 2>/dev/null | grep -c '^/')" ] &&
	ok "as many rules and jailbreaks as the text lists" || not_ok "as many rules and jailbreaks as the text lists"
if [ "$(py "$T/profile.json" 'len(d["jailbreaks"])')" = 1 ]; then
	[ "$(py "$T/profile.json" 'd["jailbreaks"][0]["in_session"]')" = confined ] &&
		ok "a jailbreak is confined in a session" || not_ok "a jailbreak is confined in a session"
	run "$MOAT" profile
	expect_out "the text says so too, not UNSANDBOXED" '^/.*git +jailbreak +confined in moat run and moat shell; unsandboxed when its wrapper runs outside a session$'
	expect_no_out "UNSANDBOXED is gone from moat profile" 'UNSANDBOXED'
else
	skip "git not found on PATH: no jailbreak to list"
	skip "git not found"
	skip "git not found"
fi
run "$MOAT" profile --format=json
[ "$out" = "$(cat "$T/profile.json")" ] && ok "--format=json is the same" || not_ok "--format=json is the same"
rm "$XDG_CONFIG_HOME/moat/config.zon"

done_testing
