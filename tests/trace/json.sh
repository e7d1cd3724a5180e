#!/usr/bin/env bash
# JSON output (issue 14, item 6): `moat profile --json` and `moat run --trace
# --json`, validated against docs/json-schema.json, and agreeing with what
# the text says; hostile names come out escaped and valid UTF-8.
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
printf '{"version":1,"kind":"trace"}\n' >"$T/bad.json"
python3 "$VALIDATE" "$SCHEMA" trace "$T/bad.json" >"$T/bad.out" 2>&1
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
	expect_no_out "UNSANDBOXED is gone from moat profile" 0 'UNSANDBOXED'
else
	skip "git not found on PATH: no jailbreak to list"
	skip "git not found"
	skip "git not found"
fi
run "$MOAT" profile --format=json
[ "$out" = "$(cat "$T/profile.json")" ] && ok "--format=json is the same" || not_ok "--format=json is the same"
rm "$XDG_CONFIG_HOME/moat/config.zon"

# --- moat run --trace --json=FILE -----------------------------------------
"$MOAT" wrap tools /bin/cat >/dev/null 2>&1
run "$MOAT" run --trace --json="$T/trace.json" tools -- sh -c 'cat ~/.ssh/id_rsa; echo x >~/.cache/x; exit 3'
[ "$rc" = 3 ] && ok "the command's status passes through" || not_ok "the command's status passes through (got $rc)"
expect_out "the text report is still on stderr" '^moat: 2 path\(s\) denied by the sandbox$'
valid "the trace document matches the schema" trace "$T/trace.json"
[ "$(py "$T/trace.json" 'd["status"]')" = 3 ] && ok "with the status" || not_ok "with the status"
[ "$(py "$T/trace.json" '[(r["program"], r["tool"], r["operation"], r["path"], r["errno"]) for r in d["refusals"] if r["operation"] == "read"]')" = \
	"[('cat', 'cat', 'read', '$HOME/.ssh/id_rsa', 'EACCES')]" ] &&
	ok "a refusal: program, the wrapped tool, operation, path, errno" ||
	{ not_ok "a refusal: program, tool, operation, path, errno" && sed 's/^/#   /' "$T/trace.json"; }
[ "$(py "$T/trace.json" '[r["suggestions"] for r in d["refusals"]]')" = "[['moat allow cat ~/.ssh/id_rsa'], ['moat allow sh ~/.cache --write']]" ] &&
	ok "each refusal carries its suggestion" || { not_ok "each refusal carries its suggestion" && sed 's/^/#   /' "$T/trace.json"; }
py "$T/trace.json" '"\n".join("  " + s["text"] for s in d["suggestions"])' >"$T/json-sugg"
report=$(report_of "$T/.err")
printf '%s\n' "$report" | grep '^  moat allow' >"$T/text-sugg"
cmp -s "$T/json-sugg" "$T/text-sugg" && ok "the suggestions are the text report's, word for word" ||
	{ not_ok "the suggestions are the text report's" && diff "$T/json-sugg" "$T/text-sugg" | sed 's/^/#   /'; }
[ "$(py "$T/trace.json" 'd["hints"][0]["value"]')" = "$PROJ/.moat/home" ] && ok "the MOAT_ENV_HOME hint, real path" ||
	not_ok "the MOAT_ENV_HOME hint, real path"

# --json alone: the document is the last line of stderr, in place of the text.
run "$MOAT" run --trace --json -- sh -c 'cat ~/.ssh/id_rsa 2>/dev/null; echo "tool says" >&2'
tail -n 1 "$T/.err" >"$T/stderr.json"
valid "--json: the last line of stderr is the document" trace "$T/stderr.json"
expect_no_out "and the text report is not printed" 0 '^moat: [0-9]+ path\(s\) denied'
expect_out "the tool's own stderr comes first" '^tool says$'
run "$MOAT" run --trace --json -- true
tail -n 1 "$T/.err" >"$T/empty.json"
valid "a clean run is a document with no refusals" trace "$T/empty.json"
[ "$(py "$T/empty.json" 'len(d["refusals"])')" = 0 ] && ok "and it has none" || not_ok "and it has none"

# Hostile names: control bytes, C1, bidi, invalid UTF-8 in argv[0] and a path.
evil=$'x\x1b]0;t\x07\xc2\x9b\xe2\x80\xae\xff\x9b"\\'
mkdir -p "$HOME/.cache/$evil"
echo s >"$HOME/.cache/$evil/f"
run "$MOAT" run --trace --json="$T/evil.json" -- bash -c 'exec -a "$0" cat "$1"' "$evil" "$HOME/.cache/$evil/f"
valid "hostile names still give a valid, escaped document" trace "$T/evil.json"
# The refusal of the file read: with no USER in the environment, bash's
# getpwuid asks nscd over a unix socket first, and that is refused too.
[ "$(py "$T/evil.json" '[r for r in d["refusals"] if (r["path"] or "").endswith("/f")][0]["program"].encode("utf-8", "surrogatepass").hex()')" = \
	"$(printf '%s' $'x\x1b]0;t\x07\xc2\x9b\xe2\x80\xae\xef\xbf\xbd\xef\xbf\xbd"\\' | od -An -tx1 | tr -d ' \n')" ] &&
	ok "the name decodes to its bytes, invalid ones as U+FFFD" || not_ok "the name decodes to its bytes, invalid ones as U+FFFD"

# Options.
expect_status "--json without --trace is a usage error" 2 "$MOAT" run --json -- true
# FILE is opened before the command runs, never through a link: a link
# planted there (by an earlier run, say) does not steer moat's write.
ln -s "$HOME/.bashrc" "$PROJ/out.json"
cp "$HOME/.bashrc" "$T/bashrc.before"
run "$MOAT" run --trace --json=out.json -- true
[ "$rc" = 125 ] && ok "--json=FILE refuses a symlink (125)" || not_ok "--json=FILE refuses a symlink (got $rc)"
cmp -s "$HOME/.bashrc" "$T/bashrc.before" && ok "and the link's target is untouched" || not_ok "and the link's target is untouched"
rm -f "$PROJ/out.json"
run "$MOAT" run --trace --json=out.json -- sh -c 'rm -f out.json; ln -s ~/.bashrc out.json'
cmp -s "$HOME/.bashrc" "$T/bashrc.before" && ok "a link the command plants meanwhile is not written through" ||
	not_ok "a link the command plants meanwhile is not written through"

done_testing
