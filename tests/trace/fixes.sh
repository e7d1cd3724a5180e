#!/usr/bin/env bash
# A trace that fixes things in one round (issue 14, item 3): suggestions
# collapse to the directory a tool owns, name the wrapped tool rather than
# the interpreter running it, cover the seccomp filter's refusals (a unix
# socket) with the setting that allows them, and every hint works pasted
# as printed.
. "$(dirname "$0")/trace-lib.bash"
PY=/usr/bin/python3

# --- a pyenv-like tree: one grant on the directory the tool owns ----------
mkdir -p "$HOME/.pyenv/versions/3.12/bin" "$HOME/.pyenv/versions/3.12/lib" "$HOME/.pyenv/shims"
echo 3.12 >"$HOME/.pyenv/version"
echo "print" >"$HOME/.pyenv/versions/3.12/lib/os.py"
printf '#!/bin/sh\nread x <~/.pyenv/versions/3.12/lib/os.py && echo "python ran: $x"\n' \
	>"$HOME/.pyenv/versions/3.12/bin/python"
chmod +x "$HOME/.pyenv/versions/3.12/bin/python"
# What pyenv does on a run, in sh: read the version, look at the library,
# run the interpreter, write a shim lock. Each step goes on when refused, so
# one trace sees them all.
cat >"$PROJ/pyenv.sh" <<'EOF'
st=0
read v <~/.pyenv/version || { v=3.12; st=1; }
for f in ~/.pyenv/versions/$v/lib/*; do :; done
{ read line <~/.pyenv/versions/$v/lib/os.py; } 2>/dev/null || st=2
~/.pyenv/versions/$v/bin/python || st=3
: >~/.pyenv/shims/.pyenv-lock || st=4
exit $st
EOF
expect_ok "control: the pyenv-like script works without moat" sh "$PROJ/pyenv.sh"
rm -f "$HOME/.pyenv/shims/.pyenv-lock"
trace sh pyenv.sh
[ "$rc" -ne 0 ] && ok "inside, it fails (status $rc)" || not_ok "inside, it fails"
expect_report "five refusals under ~/.pyenv" '^moat: 5 path\(s\) denied'
expect_lines "collapse into one grant on ~/.pyenv, with write and exec as they need" \
	'^to grant, pick the ones you actually need:$' '^(hint|$)' " moat allow sh ~/.pyenv --write --exec"
apply_suggestions >/dev/null
trace sh pyenv.sh
[ "$rc" = 0 ] && ok "pasted, the rerun passes" || { not_ok "pasted, the rerun passes (status $rc)" && _show_report; }
expect_nothing_denied "and nothing is denied"
expect_out "even what the first run never reached (the interpreter's own reads)" '^python ran: print$'
forget_grants

# Directories of secrets are never widened, whatever was read there.
trace sh -c 'cat ~/.ssh/config; cat ~/.ssh/known_hosts; cat ~/.aws/credentials ~/.aws/config' 2>/dev/null
expect_lines "~/.ssh and ~/.aws keep one grant per file" '^to grant' '^(hint|$)' "$(
	cat <<'EOF'
 moat allow cat ~/.ssh/config
 moat allow cat ~/.aws/credentials
EOF
)"
# (known_hosts and ~/.aws/config do not exist: a missing file is no refusal)
echo x >"$HOME/.ssh/known_hosts"
trace sh -c 'cat ~/.ssh/config ~/.ssh/known_hosts' 2>/dev/null
expect_no_report "no grant on ~/.ssh itself" 'moat allow cat ~/.ssh( |$)'
expect_report "the two files, each" '^ moat allow cat ~/.ssh/known_hosts$'
rm -f "$HOME/.ssh/known_hosts"

# A single refusal keeps its exact grant.
mkdir -p "$HOME/.cargo/bin"
echo "[x]" >"$HOME/.cargo/config.toml"
trace cat "$HOME/.cargo/config.toml"
expect_report "one file read: the file, not the directory" '^ moat allow cat ~/.cargo/config.toml$'

# --- a version manager's shim on PATH: one exec grant on its tree ----------
# (issue 39) pyenv's shims on PATH run, under whatever shell, the real
# program elsewhere in ~/.pyenv: the grant is for every binary, on the
# tree, never for the shell doing the exec nor the shim alone.
mkdir -p "$HOME/.pyenv/shims" "$HOME/.pyenv/versions/3.11/bin"
printf '#!/bin/sh\nexec "$HOME/.pyenv/versions/3.11/bin/pyx" "$@"\n' >"$HOME/.pyenv/shims/pyx"
printf '#!/bin/sh\necho "real pyx ran: $*"\n' >"$HOME/.pyenv/versions/3.11/bin/pyx"
chmod +x "$HOME/.pyenv/shims/pyx" "$HOME/.pyenv/versions/3.11/bin/pyx"
SAVED_PATH=$PATH
PATH=$HOME/.pyenv/shims:$PATH
expect_ok "control: without moat the shim runs the real program" pyx -V
expect_out "(its output)" '^real pyx ran: -V$'
trace pyx -V
[ "$rc" -ne 0 ] && ! grep -q 'real pyx ran' "$T/.out" && ok "inside, the shim is refused" ||
	not_ok "inside, the shim is refused (status $rc)"
expect_lines "one grant on ~/.pyenv, for every binary, with exec" '^to grant' '^(hint|$)' \
	" moat allow '*' ~/.pyenv --exec"
apply_suggestions >/dev/null
trace pyx -V
[ "$rc" = 0 ] && grep -q '^real pyx ran: -V' "$T/.out" && ok "pasted, the shim runs the real program" ||
	{ not_ok "pasted, the shim runs the real program (status $rc)" && _show_report; }
expect_nothing_denied "and nothing is denied"
run "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
expect_refused "the tree's grant gives nothing else of HOME: ~/.ssh stays refused" DECOY
forget_grants
# With the shim alone granted, the shell's exec of the real program.
"$MOAT" allow pyx "$HOME/.pyenv/shims/pyx" --exec >/dev/null 2>&1
trace pyx -V
expect_report "the refusal is the shell's exec of the real program" \
	"^ [a-z]+\[N\] (read,)?exec $(re_quote "$HOME/.pyenv/versions/3.11/bin/pyx")"
expect_lines "the grant is the tree's, not the shell's" '^to grant' '^(hint|$)' \
	" moat allow '*' ~/.pyenv --exec"
forget_grants
PATH=$SAVED_PATH

# --- a wrapped interpreter script: the grant names the wrapper's tool -------
mkdir -p "$PROJ/tool"
printf '#!%s\nimport os\nprint("read:", open(os.path.expanduser("~/.toolrc")).read().strip())\n' "$PY" \
	>"$PROJ/tool/mytool"
chmod +x "$PROJ/tool/mytool"
echo "TOOL-CONFIG" >"$HOME/.toolrc"
"$MOAT" wrap tools "$PROJ/tool/mytool" >/dev/null 2>&1
W=$XDG_DATA_HOME/moat/shells/tools/bin/mytool
expect_out_of() { if printf '%s\n' "$1" | grep -qE -- "$3"; then ok "$2"; else not_ok "$2 (want /$3/)"; fi; }
run "$PROJ/tool/mytool"
expect_out "control: the script reads its config without moat" 'read: TOOL-CONFIG'
run env MOAT_ROOT="$PROJ" "$W"
[ "$rc" -ne 0 ] && ! grep -q TOOL-CONFIG "$T/.out" && ok "control: its wrapper, run on its own, is refused" ||
	not_ok "control: its wrapper, run on its own, is refused"
trace_in tools mytool
expect_report "the refusal is python3's, run under the wrapped tool" "^ python3\[N\] \(mytool\) read $HOME/.toolrc$"
expect_lines "the grant names the wrapped tool, not the interpreter" '^to grant' '^(hint|$)' \
	" moat allow mytool ~/.toolrc"
"$MOAT" allow python3 "$HOME/.toolrc" >/dev/null 2>&1
run env MOAT_ROOT="$PROJ" "$W"
[ "$rc" -ne 0 ] && ok "control: a grant for the interpreter does not reach the wrapper" ||
	not_ok "control: a grant for the interpreter does not reach the wrapper"
forget_grants
apply_suggestions >/dev/null
run env MOAT_ROOT="$PROJ" "$W"
[ "$rc" = 0 ] && grep -q 'read: TOOL-CONFIG' "$T/.out" && ok "the suggested grant, pasted, works for the wrapper" ||
	{ not_ok "the suggested grant, pasted, works for the wrapper" && _show wrapper; }
trace_in tools mytool
expect_nothing_denied "and for the traced run"
forget_grants

# --- a unix socket refused by the seccomp filter ---------------------------
ABI=$("$MOAT" profile 2>/dev/null | sed -n 's/^kernel: Landlock ABI \([0-9]*\)$/\1/p')
manager='import multiprocessing; m = multiprocessing.Manager(); print("manager ok"); m.shutdown()'
run "$PY" -c "$manager"
expect_out "control: multiprocessing.Manager works without moat" '^manager ok$'
trace "$PY" -c "$manager"
if [ "${ABI:-0}" -lt 9 ]; then
	[ "$rc" -ne 0 ] && grep -q PermissionError "$T/.err" && ok "ABI $ABI: inside, it fails with a bare PermissionError" ||
		not_ok "ABI $ABI: inside, it fails with a bare PermissionError"
	expect_report "the trace says a system call was refused" \
		"^moat: 1 system call\(s\) refused by the sandbox's seccomp filter$"
	expect_report "which: a new AF_UNIX socket" '^ python3\[N\] socket AF_UNIX stream socket$'
	expect_report "with the config.zon setting that allows it" \
		"^ \.sockets = \.\{ \"$PROJ/\.moat/tmp\" \}$"
	expect_report "and what that costs on this kernel" 'any entry lets every unix socket through'
	expect_report "naming the file to add it to" '^to let unix sockets through, add to ~/.config/moat/config.zon:$'
	setting=$(printf '%s\n' "$report" | sed -n 's/^  \(\.sockets = .*\)$/\1/p')
	mkdir -p "$XDG_CONFIG_HOME/moat"
	printf '.{ %s }\n' "$setting" >"$XDG_CONFIG_HOME/moat/config.zon"
	trace "$PY" -c "$manager"
	[ "$rc" = 0 ] && grep -q '^manager ok$' "$T/.out" && ok "pasted into config.zon, the rerun passes" ||
		{ not_ok "pasted into config.zon, the rerun passes (status $rc)" && _show_report; }
	expect_nothing_denied "and nothing is refused"
	forget_grants
else
	[ "$rc" = 0 ] && ok "ABI $ABI: sockets in the root are allowed by path" || not_ok "ABI $ABI: Manager works"
	expect_nothing_denied "ABI $ABI: nothing refused"
	skip "ABI $ABI: no seccomp socket refusal to report"
	skip "ABI $ABI"
	skip "ABI $ABI"
	skip "ABI $ABI"
	skip "ABI $ABI"
	skip "ABI $ABI"
fi

# Other refusals of the filter are reported with why nothing allows them.
touch "$PROJ/setid"
trace sh -c 'chmod u+s setid'
expect_report "a set-id chmod is reported" "^ chmod\[N\] chmod mode 4644 $PROJ/setid$"
expect_report "with why no grant allows it" "^ none for chmod mode 4644 $PROJ/setid: set-user-ID and set-group-ID bits"
[ "$rc" -ne 0 ] && [ ! -u "$PROJ/setid" ] && ok "and it still fails, as without --trace" ||
	not_ok "and it still fails, as without --trace"
run "$MOAT" run -- sh -c 'chmod u+s setid'
[ "$rc" -ne 0 ] && grep -q 'Operation not permitted' "$T/.err" && ok "control: the same refusal (EPERM) without --trace" ||
	not_ok "control: the same refusal (EPERM) without --trace"
trace "$PY" -c 'import ctypes, os; r = ctypes.CDLL(None).syscall(250, 0); print("keyctl", r, ctypes.get_errno())'
expect_report "a keyring call (ENOSYS) is reported" '^ python3\[N\] syscall keyctl$'

# --- the MOAT_ENV_HOME hint names the real path and works pasted ------------
trace sh -c 'mkdir -p ~/.cache/tool && echo x >~/.cache/tool/state'
expect_report "a write under HOME gets the hint, with the project's real path" \
	"^hint: .*run it with MOAT_ENV_HOME=$PROJ/.moat/home$"
expect_no_report "never \$MOAT_ROOT, which is unset outside the sandbox" 'MOAT_ROOT'
hint=$(printf '%s\n' "$report" | sed -n 's/^hint: .*run it with \(MOAT_ENV_HOME=.*\)$/\1/p')
run env "$hint" "$MOAT" run --trace -- sh -c 'mkdir -p ~/.cache/tool && echo x >~/.cache/tool/state'
report=$(report_of "$T/.err")
[ "$rc" = 0 ] && [ -f "$PROJ/.moat/home/.cache/tool/state" ] && ok "pasted, the tool works with its home in the project" ||
	{ not_ok "pasted, the tool works with its home in the project (status $rc)" && _show_report; }
expect_nothing_denied "and nothing is denied"
# The mistake the old hint invited: $MOAT_ROOT/.moat/home pasted outside.
run env MOAT_ENV_HOME=/.moat/home "$MOAT" run -- true
[ "$rc" = 125 ] && ok "MOAT_ENV_HOME=/.moat/home is refused" || not_ok "MOAT_ENV_HOME=/.moat/home is refused (got $rc)"
expect_out "the hint names the project's real path" "MOAT_ENV_HOME=$PROJ/.moat/home"
expect_no_out "and never suggests granting /.moat/home" 125 'moat allow .* /\.moat/home'

done_testing
