#!/usr/bin/env bash
# Persistence (issue 13, items 1, 2, 5; issue 19, item 2): what sandboxed
# code writes must never run, or configure moat, outside the sandbox later.
# Each attack is written as the attacker would, with a control showing the
# thing it needs works without moat's refusal.
#   - moat's config through a write grant (moat allow '*' ~/.config --write)
#   - a jailbroken tool's link flipped by a leftover process while it is
#     called again and again
#   - a jailbroken tool handed a HOME the sandbox writes
#   - a shell whose moat-wrapper went away with its build tree
. "$(dirname "$0")/../lib.sh"

CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$XDG_CONFIG_HOME/moat"
PWNED=$T/pwned # outside the root and every grant: only unconfined code writes it
echo "PROJECT-FILE" >"$PROJ/readme"

# --- moat's config through a write grant -----------------------------------
run "$MOAT" allow '*' '~/.config' --write
[ "$rc" -eq 1 ] && grep -q "refusing to grant write access to '~/.config': it holds moat's config directory" "$T/.err" &&
	! grep -q '\.config"' "$CFG" 2>/dev/null && ok "moat allow '*' ~/.config --write is refused, saying why" ||
	{ not_ok "moat allow '*' ~/.config --write is refused, saying why" && _show allow; }
run "$MOAT" allow '*' '~/.local' --write
[ "$rc" -eq 1 ] && grep -q "it holds moat's state directory" "$T/.err" &&
	ok "moat allow '*' ~/.local --write is refused (approvals, pins, shells)" ||
	{ not_ok "moat allow '*' ~/.local --write is refused" && _show allow; }
run "$MOAT" allow cat '~/.local/share/moat/shells/x' --write
[ "$rc" -eq 1 ] && grep -q "it lies inside moat's data directory" "$T/.err" &&
	ok "a write grant inside moat's shells is refused" || { not_ok "a write grant inside moat's shells is refused" && _show allow; }
expect_ok "control: moat allow '*' ~/.config/gh --write (beside moat's) works" "$MOAT" allow '*' '~/.config/gh' --write
expect_ok "control: moat allow '*' ~/.config (read) works" "$MOAT" allow '*' '~/.config'
mkdir -p "$HOME/.config/gh"
run "$MOAT" run -- sh -c 'echo written >"$HOME/.config/gh/hosts" && cat "$HOME/.config/gh/hosts"'
expect_out "control: the sandbox writes through the ~/.config/gh write grant" '^written$'

# A config.zon that already has such a grant (written by an older moat, or
# by hand): sandboxed code rewrites it to grant itself ~/.ssh, and the next
# run would obey. moat refuses to run at all while it lies there.
printf '.{ .allow = .{ .{ .bin = "*", .paths = .{ "~/.config" }, .write = true } } }\n' >"$CFG"
cp "$CFG" "$T/cfg.before"
run "$MOAT" run -- sh -c 'printf ".{ .allow = .{ .{ .bin = \"*\", .paths = .{ \"~/.ssh\" } } } }\n" >"$XDG_CONFIG_HOME/moat/config.zon"'
[ "$rc" -eq 125 ] && grep -q "refusing to run: moat's config directory '$XDG_CONFIG_HOME/moat' lies under the write grant" "$T/.err" &&
	cmp -s "$T/cfg.before" "$CFG" && ok "refused: a run with config.zon under a write grant (config.zon untouched)" ||
	{ not_ok "refused: a run with config.zon under a write grant" && _show moat run; }
expect_out "it names the rule and the way out" "hint: that write grant is config.zon:1:.*moat unallow '\*' ~/.config"
run "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
[ "$rc" -eq 125 ] && ! grep -q DECOY "$T/.out" && ok "and the next run does not read ~/.ssh" ||
	{ not_ok "and the next run does not read ~/.ssh" && _show cat; }
"$MOAT" wrap tools /bin/cat >/dev/null 2>&1
run env MOAT_ROOT="$PROJ" "$XDG_DATA_HOME/moat/shells/tools/bin/cat" readme
[ "$rc" -eq 125 ] && grep -q "moat's config directory" "$T/.err" && ! grep -q PROJECT-FILE "$T/.out" &&
	ok "refused: a wrapped tool with config.zon under a write grant" ||
	{ not_ok "refused: a wrapped tool with config.zon under a write grant" && _show wrapped cat; }
run "$MOAT" check
[ "$rc" -eq 1 ] && grep -q "unsafe: moat's config directory '$XDG_CONFIG_HOME/moat' lies under the write grant" "$T/.out" &&
	ok "moat check flags config.zon under a write grant" || { not_ok "moat check flags config.zon under a write grant" && _show check; }
rm -f "$CFG"
expect_ok "control: with the grant gone, moat run works" "$MOAT" run -- cat readme
run "$MOAT" check
[ "$rc" -eq 0 ] && ok "control: and moat check is all ok" || { not_ok "control: and moat check is all ok" && _show check; }

# Config under the root (XDG_CONFIG_HOME pointed into the project).
mkdir -p "$PROJ/.cfg/moat"
echo '.{}' >"$PROJ/.cfg/moat/config.zon"
run env XDG_CONFIG_HOME="$PROJ/.cfg" "$MOAT" run -- true
[ "$rc" -eq 125 ] && grep -q "moat's config directory '$PROJ/.cfg/moat' lies inside the sandbox root" "$T/.err" &&
	ok "refused: config.zon inside the root" || { not_ok "refused: config.zon inside the root" && _show run; }
# moat's state under a past root (a project where a sandbox once ran).
mkdir -p "$SIBLING/.moat"
run env XDG_STATE_HOME="$SIBLING/state" "$MOAT" run -- true
[ "$rc" -eq 125 ] && grep -q "moat's state directory .* past sandbox root" "$T/.err" &&
	ok "refused: moat's state under a past root" || { not_ok "refused: moat's state under a past root" && _show run; }
rm -rf "$SIBLING/.moat"

# --trace never suggests a write grant over moat's own files.
run "$MOAT" run --trace -- sh -c 'echo x >"$XDG_CONFIG_HOME/moat/config.zon"; echo y >"$HOME/.config/gh/hosts"'
expect_no_out "--trace suggests no write grant holding moat's config" failed "moat allow [^ ]+ ~/\.config(/moat[^ ]*)? "
expect_out "and says why" "moat allow --write refuses that"
expect_out "control: --trace still suggests a write grant beside it" "moat allow sh ~/.config/gh.* --write"

# --- a jailbreak's link flipped by a leftover process ----------------------
# The README's own setup: cargo jailbroken, ~/.cargo writable. Sandboxed
# code left a process behind that flips ~/.cargo/bin/cargo between the real
# program and its own script; moat used to judge the link's target, then
# run the path, which by then could lead to the script.
# Both targets are scripts: the kernel and then sh open the path, and the
# one sh reads is what runs.
mkdir -p "$HOME/.cargo/bin" "$T/sys"
printf '#!/bin/sh\necho PWNED >"%s"\n' "$PWNED" >"$HOME/.cargo/evil"
printf '#!/bin/sh\nexit 0\n' >"$T/sys/good"
chmod +x "$HOME/.cargo/evil" "$T/sys/good"
ln -s "$T/sys/good" "$HOME/.cargo/bin/cargo"
printf '.{ .jailbreak = .{ "cargo" }, .allow = .{ .{ .bin = "cargo", .paths = .{ "~/.cargo" }, .write = true, .exec = true } } }\n' >"$CFG"
JB=$XDG_DATA_HOME/moat/shells/jb
mkdir -p "$JB/bin" "$JB/share/moat"
ln -s "$WRAPPER" "$JB/bin/cargo"
printf 'cargo\t%s\n' "$HOME/.cargo/bin/cargo" >"$JB/share/moat/manifest"
flipper() { # flip the link until killed
	exec /usr/bin/python3 -c '
import os, sys
link, a, b = sys.argv[1:4]
while True:
    for t in (a, b):
        os.symlink(t, link + ".new")
        os.rename(link + ".new", link)
' "$HOME/.cargo/bin/cargo" "$T/sys/good" "$HOME/.cargo/evil"
}
flipper &
FLIP=$!
# Wait until the flipper runs (python starts slowly on a busy machine).
for _ in $(seq 3000); do [ "$(readlink "$HOME/.cargo/bin/cargo")" = "$HOME/.cargo/evil" ] && break; sleep 0.01; done
for _ in $(seq 2000); do "$HOME/.cargo/bin/cargo" 2>/dev/null; [ -e "$PWNED" ] && break; done
[ -e "$PWNED" ] && ok "control: unconfined, the flipped link runs the attacker's script" ||
	skip "prerequisite: the flipper won no race in 2000 unconfined calls"
rm -f "$PWNED"
refused=0 ran=0
for _ in $(seq 60); do
	MOAT_ROOT=$PROJ "$JB/bin/cargo" >"$T/.out" 2>"$T/.err" </dev/null
	rc=$?
	[ "$rc" -eq 125 ] && grep -q "refusing to jailbreak cargo '$HOME/.cargo/bin/cargo': .* is a symlink inside '$HOME/.cargo'" "$T/.err" &&
		refused=$((refused + 1))
	[ "$rc" -eq 0 ] && ran=$((ran + 1))
done
kill "$FLIP" 2>/dev/null
wait "$FLIP" 2>/dev/null
[ ! -e "$PWNED" ] && ok "the attacker's script never ran unconfined in 60 jailbroken calls" ||
	not_ok "the attacker's script never ran unconfined in 60 jailbroken calls"
[ "$refused" = 60 ] && ok "every call was refused: the jailbreak goes through a writable place" ||
	{ not_ok "every call was refused (refused $refused, ran $ran)" && _show cargo; }
# A regular file under the write grant: refused too, and the hint says how out.
rm -f "$HOME/.cargo/bin/cargo" "$HOME/.cargo/bin/cargo.new"
cp "$HOME/.cargo/evil" "$HOME/.cargo/bin/cargo"
run env MOAT_ROOT="$PROJ" "$JB/bin/cargo"
[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && grep -q "lies under the write grant $HOME/.cargo" "$T/.err" &&
	grep -q "hint: run it confined: take 'cargo' out of config.zon's .jailbreak" "$T/.err" &&
	ok "refused: a jailbroken binary under a write grant" || { not_ok "refused: a jailbroken binary under a write grant" && _show cargo; }

# Control: a jailbreak through nothing writable still runs unconfined, a
# program through a link and a #! script (run by path: scripts keep working).
ln -s /bin/cat "$T/sys/cat"
printf '#!/bin/sh\nexec cat "$@"\n' >"$T/sys/peek"
chmod 755 "$T/sys/peek"
ln -s "$WRAPPER" "$JB/bin/cat"
ln -s "$WRAPPER" "$JB/bin/peek"
printf 'cargo\t%s\ncat\t%s\npeek\t%s\n' "$HOME/.cargo/bin/cargo" "$T/sys/cat" "$T/sys/peek" >"$JB/share/moat/manifest"
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=cat "$JB/bin/cat" "$HOME/.ssh/id_rsa"
expect_out "control: a jailbroken cat through a link outside writable places reads ~/.ssh" '^DECOY-SSH-KEY$'
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=peek "$JB/bin/peek" "$HOME/.ssh/id_rsa"
expect_out "control: a jailbroken #! script runs unconfined" '^DECOY-SSH-KEY$'
# Its interpreter under a writable place: refused.
printf '#!%s\ncat "$@"\n' "$PROJ/sh" >"$T/sys/peek"
cp /bin/sh "$PROJ/sh"
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=peek "$JB/bin/peek" "$HOME/.ssh/id_rsa"
[ "$rc" -eq 125 ] && ! grep -q DECOY "$T/.out" && grep -q "interpreter of jailbroken peek" "$T/.err" &&
	ok "refused: a jailbroken script whose interpreter lies in the root" ||
	{ not_ok "refused: a jailbroken script whose interpreter lies in the root" && _show peek; }
rm -f "$CFG"

# --- a jailbroken tool handed a HOME the sandbox writes (issue 19) ---------
mkdir -p "$PROJ/.moat/home"
printf '[core]\n\tpager = sh -c "echo PWNED >%s"\n' "$PWNED" >"$PROJ/.moat/home/.gitconfig"
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=cat MOAT_ENV_HOME="$PROJ/.moat/home" "$JB/bin/cat" "$HOME/.ssh/id_rsa"
[ "$rc" -eq 125 ] && ! grep -q DECOY "$T/.out" &&
	grep -q "refusing to hand jailbroken cat MOAT_ENV_HOME=$PROJ/.moat/home" "$T/.err" &&
	grep -q "hint: run cat confined" "$T/.err" && grep -q "hint: or do not hand it MOAT_ENV_HOME" "$T/.err" &&
	ok "refused: a jailbroken tool with MOAT_ENV_HOME in the root, naming both ways out" ||
	{ not_ok "refused: a jailbroken tool with MOAT_ENV_HOME in the root" && _show cat; }
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=cat MOAT_ENV_XDG_CONFIG_HOME="/usr/share:$PROJ/.moat/cfg" "$JB/bin/cat" "$HOME/.ssh/id_rsa"
[ "$rc" -eq 125 ] && ! grep -q DECOY "$T/.out" && ok "refused: any MOAT_ENV_* value (a colon list) naming the root" ||
	{ not_ok "refused: any MOAT_ENV_* value naming the root" && _show cat; }
mkdir -p "$T/cleanhome"
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=cat MOAT_ENV_HOME="$T/cleanhome" "$JB/bin/cat" "$HOME/.ssh/id_rsa"
expect_out "control: a jailbroken tool with a HOME outside writable places runs" '^DECOY-SSH-KEY$'
run env MOAT_ROOT="$PROJ" MOAT_ENV_HOME="$PROJ/.moat/home" "$JB/bin/cat" readme
expect_out "control: a confined tool may take its HOME from the root" '^PROJECT-FILE$'
[ ! -e "$PWNED" ] && ok "nothing planted ever ran" || not_ok "nothing planted ever ran"

# --- a shell whose moat-wrapper went away -----------------------------------
# moat wrap from a build tree, then make clean: the shell must still
# confine (it links to moat's own copy), never fall through to the real tool.
mkdir -p "$T/buildtree"
cp "$MOAT" "$WRAPPER" "$T/buildtree/"
run "$T/buildtree/moat" wrap dw /bin/cat
[ "$rc" -eq 0 ] && ok "moat wrap from a build tree" || { not_ok "moat wrap from a build tree" && _show wrap; }
rm -rf "$T/buildtree"
DW=$XDG_DATA_HOME/moat/shells/dw
run env MOAT_ROOT="$PROJ" PATH="$DW/bin:/usr/bin:/bin" sh -c 'cat "$HOME/.ssh/id_rsa"'
[ "$rc" -ne 0 ] && ! grep -q DECOY "$T/.out" && grep -q "Permission denied" "$T/.err" &&
	ok "with the build tree gone the shell's cat is still confined" ||
	{ not_ok "with the build tree gone the shell's cat is still confined" && _show cat; }
# A shell whose link dangles (as moat wrap used to make them): the PATH
# lookup skips it and the real cat runs unconfined (the control), so moat
# refuses the shell, naming the entry.
BR=$XDG_DATA_HOME/moat/shells/broken
mkdir -p "$BR/bin" "$BR/share/moat"
printf 'cat\t/bin/cat\ntrue\t/bin/true\n' >"$BR/share/moat/manifest"
ln -s "$T/gone/moat-wrapper" "$BR/bin/cat"
ln -s "$(readlink -f "$DW/bin/cat")" "$BR/bin/true"
run env PATH="$BR/bin:/usr/bin:/bin" sh -c 'cat "$HOME/.ssh/id_rsa"'
expect_out "control: a dangling bin/cat falls through to the real cat" '^DECOY-SSH-KEY$'
run "$MOAT" run broken -- cat "$HOME/.ssh/id_rsa"
[ "$rc" -eq 125 ] && ! grep -q DECOY "$T/.out" &&
	grep -q "shell '$BR' has 1 entry in bin/ that does not lead to moat-wrapper: cat (a link to $T/gone/moat-wrapper, which is not there)" "$T/.err" &&
	ok "moat run refuses the shell, naming the entry" || { not_ok "moat run refuses the shell, naming the entry" && _show run broken; }
run "$MOAT" shell broken
[ "$rc" -eq 125 ] && grep -q "does not lead to moat-wrapper: cat" "$T/.err" &&
	ok "moat shell refuses it too" || { not_ok "moat shell refuses it too" && _show shell broken; }
printf '.{ .default = .{ "broken" } }\n' >"$CFG"
run "$MOAT" check
[ "$rc" -eq 1 ] && grep -q "does not lead to moat-wrapper: cat" "$T/.out" &&
	ok "moat check flags it" || { not_ok "moat check flags it" && _show check; }
rm -f "$CFG"
ln -s /bin/sh "$BR/bin/sh"
rm "$BR/bin/cat"
run "$MOAT" run broken -- true
[ "$rc" -eq 125 ] && grep -q "sh (a link to /.*, not to moat-wrapper)" "$T/.err" &&
	ok "a link to a real program in bin/ is refused too" || { not_ok "a link to a real program in bin/ is refused too" && _show run broken; }
rm "$BR/bin/sh"
expect_ok "control: once every entry leads to moat-wrapper, moat run takes the shell" "$MOAT" run broken -- true
# moat wrap never links shells to a moat-wrapper sandboxed code could write.
mkdir -p "$PROJ/bt" "$T/bt2"
cp "$MOAT" "$WRAPPER" "$PROJ/bt/"
cp "$MOAT" "$WRAPPER" "$T/bt2/"
cd "$SIBLING" || exit 1
run "$PROJ/bt/moat" wrap fromroot /bin/cat
[ "$rc" -ne 0 ] && [ ! -e "$XDG_DATA_HOME/moat/shells/fromroot/bin/cat" ] &&
	grep -q "refusing to link shells to it: moat-wrapper '$PROJ/bt/moat-wrapper' lies .*past sandbox root" "$T/.err" &&
	ok "moat wrap refuses a moat-wrapper under a past root" || { not_ok "moat wrap refuses a moat-wrapper under a past root" && _show wrap; }
expect_ok "control: moat wrap with a moat-wrapper elsewhere works" "$T/bt2/moat" wrap fromelse /bin/cat
cd "$PROJ" || exit 1
# A local shell config.zon never names, its bin/sh led to a moat-wrapper in
# the root: `moat run NAME` refuses it, and so must moat check.
"$MOAT" wrap rootwrap /bin/sh >/dev/null 2>&1
ln -sfn "$PROJ/bt/moat-wrapper" "$XDG_DATA_HOME/moat/shells/rootwrap/bin/sh"
run "$MOAT" run rootwrap -- true
[ "$rc" -eq 125 ] && ok "control: moat run refuses a shell leading to a moat-wrapper in the root" ||
	{ not_ok "control: moat run refuses a shell leading to a moat-wrapper in the root" && _show run; }
run "$MOAT" check
[ "$rc" -eq 1 ] && grep -q "unsafe: moat-wrapper (of shell rootwrap) '$PROJ/bt/moat-wrapper' lies inside the sandbox root" "$T/.out" &&
	ok "moat check flags it too" || { not_ok "moat check flags it too" && _show check; }
ln -sfn "$T/gone/moat-wrapper" "$XDG_DATA_HOME/moat/shells/rootwrap/bin/sh"
run "$MOAT" check
[ "$rc" -eq 1 ] && grep -q "local shell rootwrap: .*sh (a link to $T/gone/moat-wrapper, which is not there); moat run refuses it" "$T/.out" &&
	ok "and a dangling entry in a shell config.zon does not name" || { not_ok "and a dangling entry in a shell config.zon does not name" && _show check; }
rm -rf "$XDG_DATA_HOME/moat/shells/rootwrap"
# A stale copy (moat upgraded since): moat check says so, moat wrap refreshes it.
printf 'x' >>"$XDG_DATA_HOME/moat/moat-wrapper"
run "$MOAT" check
[ "$rc" -eq 0 ] && grep -q "note: $XDG_DATA_HOME/moat/moat-wrapper differs from" "$T/.out" &&
	ok "moat check notes a copy of moat-wrapper that differs from moat's" || { not_ok "moat check notes a stale copy" && _show check; }
run "$MOAT" wrap dw /bin/cat
cmp -s "$XDG_DATA_HOME/moat/moat-wrapper" "$WRAPPER" && ok "moat wrap refreshes it" || { not_ok "moat wrap refreshes it" && _show wrap; }

done_testing
