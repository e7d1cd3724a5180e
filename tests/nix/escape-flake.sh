#!/usr/bin/env bash
# Escape: a flake in the project is something sandboxed code can rewrite,
# and nix builds it outside the sandbox. Written as the attacker would: code
# in the sandbox rewrites ./flake/flake.nix so that its build reads $HOME and
# writes outside the root. The next `moat run ./flake#hello`, `moat update`,
# and an ordinary run after the pinned store path was collected must not
# build it without the user agreeing to that exact content on the terminal
# (with no terminal: refused with a hint). Control: nix building the same
# flake directly does read $HOME and write there.
#
# Also the consent itself: the prompt shows the path and nix's hash of the
# content, a yes is remembered for that content (in the approvals store), a
# change asks again, a no refuses; flakes elsewhere work as before.
. "$(dirname "$0")/common"

command -v python3 >/dev/null || { skip "python3 is not installed: no terminal to approve on"; done_testing; exit; }

F=$PROJ/flake
mkdir -p "$F"
cp "$FIX"/flake.nix "$FIX"/wrap.nix "$FIX"/config.nix "$FIX"/message "$FIX"/nonce "$F/"
PWNED=$T/pwned # outside the root: the sandbox cannot write here

# --- the consent, on the benign flake ---------------------------------------------
run "$MOAT" run ./flake#hello -- fixture-hello
[ "$rc" -eq 125 ] && ok "a flake in the project, no terminal: refused (125)" || { not_ok "no-tty status $rc" && _show moat run; }
expect_out "saying why, and the content it would have had to confirm" "^moat: refusing to evaluate flake '$(re_quote "$F")' for '\\./flake#hello': it lies where sandboxed code can write \\(under the sandbox root $(re_quote "$PROJ")\\), and there is no terminal to confirm its content sha256-"
expect_out "hint: approve it from a terminal" '^hint: run moat once from a terminal to approve this content'
[ -z "$(pinned_store "$F#hello")" ] && ok "nothing was pinned" || not_ok "pinned without consent"

ask n "$MOAT" run ./flake#hello -- fixture-hello
[ "$rc" -eq 125 ] && ok "answered no: refused" || { not_ok "answer no status $rc" && _show moat run; }
expect_out "the prompt names the flake" "^  flake    $(re_quote "$F")\r?\$"
expect_out "where sandboxed code can write" "^  where    under the sandbox root $(re_quote "$PROJ")\r?\$"
hash=$(sed -n 's/^  content  \(sha256-[^ ]*\).*/\1/p' "$T/.out" | tr -d '\r' | head -1)
want=$(nix hash path "$F" 2>/dev/null)
[ -n "$hash" ] && [ "$hash" = "$want" ] && ok "and the hash of its exact content ($hash, as nix hash path gives it)" || not_ok "hash '$hash', nix hash path '$want'"
expect_out "refusal after no" "was not evaluated: its content sha256-.* was not approved"

ask y "$MOAT" run ./flake#hello -- fixture-hello
[ "$rc" -eq 0 ] && ok "answered yes: built and run" || { not_ok "answer yes status $rc" && _show moat run; }
expect_out "the tool ran" 'fixture says: version one'
grep -q "^approval	[0-9]*	$F	flake:" "$XDG_STATE_HOME/moat/approvals" && ok "the answer is in the approvals store" || not_ok "approvals: $(cat "$XDG_STATE_HOME/moat/approvals" 2>/dev/null)"
run "$MOAT" approvals
expect_out "moat approvals lists it, with the hash as shown" "^$(re_quote "$F")  flake $(re_quote "$hash")  [0-9-]+ [0-9:]+\$"
rm -f "$PINS"
run "$MOAT" run ./flake#hello -- fixture-hello
[ "$rc" -eq 0 ] && ok "the same content again: no question, no terminal needed" || { not_ok "approved content refused" && _show moat run; }
echo "version two" >"$F/message"
rm -f "$PINS"
run "$MOAT" run ./flake#hello -- fixture-hello
[ "$rc" -eq 125 ] && ok "changed content asks again (refused without a terminal)" || { not_ok "changed content status $rc" && _show moat run; }
ask y "$MOAT" run ./flake#hello -- fixture-hello
expect_out "approved again, the new content runs" 'fixture says: version two'
[ "$(grep -c "	$F	flake:" "$XDG_STATE_HOME/moat/approvals")" -eq 1 ] && ok "one approval per flake: the new answer replaced the old" || not_ok "approvals: $(cat "$XDG_STATE_HOME/moat/approvals")"

# A flake elsewhere works as before: no question.
run env -u MOAT_FLAKE "$MOAT" run "path:$FIX#hello" -- fixture-hello
[ "$rc" -eq 0 ] && ok "a flake outside writable places needs no consent" || { not_ok "outside flake" && _show moat run; }
# A past root: a directory that was a sandbox root (it has .moat/).
OLD=$HOME/oldproj
mkdir -p "$OLD/.moat"
cp -r "$FIX" "$OLD/shells"
run "$MOAT" run "path:$OLD/shells#hello" -- true
[ "$rc" -eq 125 ] && ok "a flake under a past root is refused without a terminal" || { not_ok "past root status $rc" && _show moat run; }
expect_out "and says so" "under $(re_quote "$OLD"), a past sandbox root"
mkdir -p "$XDG_CONFIG_HOME/moat"
printf '.{ .allow = .{ .{ .bin = "*", .paths = .{ "%s" }, .write = true } } }\n' "$HOME/granted" >"$XDG_CONFIG_HOME/moat/config.zon"
cp -r "$FIX" "$HOME/granted"
run "$MOAT" run "path:$HOME/granted#hello" -- true
[ "$rc" -eq 125 ] && ok "a flake under a write grant is refused without a terminal" || { not_ok "write grant status $rc" && _show moat run; }
expect_out "and says so" "under the write grant $(re_quote "$HOME/granted")"
rm -f "$XDG_CONFIG_HOME/moat/config.zon"

# --- the attack --------------------------------------------------------------------
sys=$(nix eval --raw --impure --expr builtins.currentSystem 2>/dev/null || echo x86_64-linux)
cat >"$PROJ/payload.nix" <<NIX
{
  outputs = { self }: {
    packages.$sys.hello = builtins.derivation {
      system = "$sys";
      name = "hello";
      nonce = "$T";
      builder = "/bin/sh";
      args = [ "-c" "/bin/cat $HOME/.ssh/id_rsa >$PWNED; /bin/mkdir -p \$out/bin" ];
    };
  };
}
NIX
# The sandboxed tool rewrites the flake (the project is writable to it).
run "$MOAT" run ./flake#hello -- cp payload.nix flake/flake.nix
[ "$rc" -eq 0 ] && cmp -s "$PROJ/payload.nix" "$F/flake.nix" && ok "attack: sandboxed code rewrote flake/flake.nix" || { not_ok "could not plant the flake" && _show moat run; }
run "$MOAT" run ./flake#hello -- sh -c "cat $HOME/.ssh/id_rsa; echo x >$PWNED"
[ ! -e "$PWNED" ] && ok "(inside the sandbox itself, HOME and the marker stay out of reach)" || not_ok "sandbox wrote $PWNED"

# 1. The next moat run: the pin holds (and says the flake changed); nothing built.
run "$MOAT" run ./flake#hello -- fixture-hello
[ "$rc" -eq 0 ] && [ ! -e "$PWNED" ] && ok "moat run ./flake#hello: the pinned build runs, the new flake is not built" || { not_ok "run after the rewrite (status $rc, pwned: $(cat "$PWNED" 2>/dev/null))" && _show moat run; }
expect_out "it says the flake changed" "the flake '$(re_quote "$F")' changed since it was pinned"
run "$MOAT" run ./flake#other -- true
[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && ok "moat run ./flake#other (no pin): refused, nothing built" || { not_ok "unpinned attr (status $rc)" && _show moat run; }
# 2. moat update.
run "$MOAT" update
[ "$rc" -eq 1 ] && [ ! -e "$PWNED" ] && ok "moat update: refused for that flake, nothing built" || { not_ok "moat update (status $rc, pwned: $(cat "$PWNED" 2>/dev/null))" && _show moat update; }
expect_out "and says why" "refusing to evaluate flake '$(re_quote "$F")'"
ask n "$MOAT" update
[ ! -e "$PWNED" ] && ok "moat update answered no: nothing built" || not_ok "update after no built it"
# 3. An ordinary run after the pinned store path is collected.
collect "$(pinned_store "$F#hello")" && ok "the pinned store path is collected" || not_ok "collect"
run "$MOAT" run ./flake#hello -- fixture-hello
[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && ok "moat run after the collection: refused, nothing built" || { not_ok "run after collection (status $rc, pwned: $(cat "$PWNED" 2>/dev/null))" && _show moat run; }
MOAT_FLAKE=path:$F run "$MOAT" run hello -- true
[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && ok "MOAT_FLAKE naming it: refused too" || { not_ok "MOAT_FLAKE (status $rc)" && _show moat run hello; }
run "$MOAT" check
[ ! -e "$PWNED" ] && ok "moat check evaluates nothing of it either" || not_ok "moat check built it"

# 4. A relative reference with a query (issue 38, item 5): still the
# project's flake, still asked about. (nix 2.8 looks for a flake.nix at the
# path itself before it honours dir=: the project has one.)
cp "$FIX/flake.nix" "$PROJ/flake.nix"
for ref in '.?dir=flake' './flake?dir=.' 'flake?dir=.'; do
	run "$MOAT" run "$ref#hello" -- fixture-hello
	[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && grep -q "refusing to evaluate flake '$(re_quote "$PROJ")" "$T/.err" &&
		ok "moat run '$ref#hello': refused without a terminal, nothing built" ||
		{ not_ok "moat run '$ref#hello' (status $rc, pwned: $(cat "$PWNED" 2>/dev/null))" && _show moat run; }
done
rm -f "$PROJ/flake.nix"
run "$MOAT" run 'foo:bar#hello' -- true
[ "$rc" -eq 125 ] && grep -q "refusing flake 'foo:bar': moat does not know its scheme" "$T/.err" &&
	ok "a reference moat cannot classify is refused, not passed to nix" || { not_ok "foo:bar" && _show moat run; }
# 5. A flake in a past root whose .moat/ the sandbox removed (item 3).
OLD2=$HOME/oldproj2
mkdir -p "$OLD2"
cp "$PROJ/payload.nix" "$OLD2/"
(cd "$OLD2" && "$MOAT" run -- sh -c 'mkdir -p shells && cp payload.nix shells/flake.nix && rm -rf "$MOAT_ROOT/.moat"' >/dev/null 2>&1)
[ -f "$OLD2/shells/flake.nix" ] && [ ! -e "$OLD2/.moat" ] && ok "attack: a session wrote a flake and removed its .moat/" || not_ok "could not plant in $OLD2"
run "$MOAT" run "path:$OLD2/shells#hello" -- true
[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && grep -q "under $(re_quote "$OLD2"), a past sandbox root" "$T/.err" &&
	ok "its flake is still asked about (refused without a terminal), nothing built" || { not_ok "flake in a past root without .moat/" && _show moat run; }

# Control: without moat's check, nix builds what the sandbox wrote.
run nix build --no-link "path:$F#hello"
[ "$rc" -eq 0 ] && grep -q DECOY-SSH-KEY "$PWNED" 2>/dev/null && ok "control: nix building it directly reads HOME and writes outside the root" ||
	{ not_ok "control: the planted flake did not do its thing" && _show nix build; }

done_testing
