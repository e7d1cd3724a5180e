# moat run, moat profile, moat check and moat wrap agree on where a run
# started here is confined (its root) and where sandboxed code can write
# (the root and the write grants): in a subdirectory of a git work tree, in
# a linked work tree, with --here and with .root = "here". Each asks the launch layer (launch_project_root) rather
# than working the root out its own way.
#
# The attack that disagreement made possible: moat wrap, started in a
# subdirectory, judged the current directory as the root, so it put the
# moat-wrapper copy every local shell runs (unconfined until it confines
# itself) in the work tree's top, which every run started in that
# subdirectory can rewrite.
# kernel-independent: run, wrap, check and profile agree on one plan, made before the sandbox starts.
. "$(dirname "$0")/../lib.sh"
need git
export GIT_AUTHOR_NAME=moat GIT_AUTHOR_EMAIL=moat@test GIT_COMMITTER_NAME=moat GIT_COMMITTER_EMAIL=moat@test
export GIT_CONFIG_NOSYSTEM=1
CFG=$XDG_CONFIG_HOME/moat/config.zon
GRANT=$HOME/wgrant
mkdir -p "$GRANT"
expect_ok "a write grant to agree on" "$MOAT" allow '*' "$GRANT" --write

git init -q "$PROJ" && mkdir -p "$PROJ/sub" && echo one >"$PROJ/sub/f" &&
	git -C "$PROJ" add . && git -C "$PROJ" commit -qm init &&
	git -C "$PROJ" worktree add -q "$HOME/linked" 2>/dev/null && mkdir -p "$HOME/linked/sub" || {
	not_ok "setting up a repository and a linked work tree"
	done_testing
	exit
}

# agree LABEL DIR ROOT [OPTION...]: in DIR, moat run and moat profile (with
# OPTION, e.g. --here) confine to ROOT, with ROOT and the grant writable.
agree_run() {
	local label=$1 dir=$2 root=$3
	shift 3
	cd "$dir" || return
	run "$MOAT" run -q "$@" -- sh -c \
		'echo "$MOAT_ROOT"; echo x >"$MOAT_ROOT/.agree" && echo x >"$1/.agree" && echo wrote' sh "$GRANT"
	[ "$rc" = 0 ] && [ "$(head -n 1 "$T/.out")" = "$root" ] && grep -qx wrote "$T/.out" &&
		ok "$label: moat run confines to $root, writable with the grant" ||
		{ not_ok "$label: moat run confines to $root, writable with the grant" && _show "run $*"; }
	run "$MOAT" profile "$@"
	grep -Eq "^$(re_quote "$root") +read/write/exec +root" "$T/.out" &&
		grep -Eq "^$(re_quote "$GRANT") +read/write" "$T/.out" &&
		ok "$label: moat profile shows the same root and the grant writable" ||
		{ not_ok "$label: moat profile shows the same root and the grant writable" && _show "profile $*"; }
}

# agree_judges LABEL DIR ROOT [OPTION...]: moat check (with OPTION, e.g.
# --here) judges against ROOT and the grant, and moat wrap refuses to put
# its moat-wrapper copy under ROOT. wrap takes no --here: it judges with
# the wider root, which holds ROOT (below).
agree_judges() {
	local label=$1 dir=$2 root=$3
	shift 3
	cd "$dir" || return
	run "$MOAT" check "$@"
	grep -qx "root $(re_quote "$root") (as moat run here)" "$T/.out" &&
		grep -qx "writable in a run here: $(re_quote "$root") $(re_quote "$GRANT")" "$T/.out" &&
		ok "$label: moat check judges with the same root and writable areas" ||
		{ not_ok "$label: moat check judges with the same root and writable areas" && _show "check $*"; }
	run env XDG_DATA_HOME="$root/.data" "$MOAT" wrap agree /bin/true
	[ "$rc" = 125 ] && grep -q 'refusing to link shells there' "$T/.err" && [ ! -e "$root/.data/moat/moat-wrapper" ] &&
		ok "$label: moat wrap refuses a moat-wrapper copy under that root" ||
		{ not_ok "$label: moat wrap refuses a moat-wrapper copy under that root" && _show "wrap, data under the root"; }
	run env XDG_DATA_HOME="$GRANT/.data" "$MOAT" wrap agree /bin/true
	[ "$rc" = 125 ] && grep -q 'refusing to link shells there' "$T/.err" &&
		ok "$label: and one under the write grant" ||
		{ not_ok "$label: and one under the write grant" && _show "wrap, data under the grant"; }
}

# Control: started outside the work tree, a copy in the work tree is fine
# (no run there can write it), so the refusals below come from the root.
mkdir -p "$HOME/elsewhere"
cd "$HOME/elsewhere" || exit 1
run env XDG_DATA_HOME="$PROJ/.data" "$MOAT" wrap agree /bin/true
[ "$rc" = 0 ] && [ -x "$PROJ/.data/moat/moat-wrapper" ] &&
	ok "control: from outside the work tree, moat wrap copies its moat-wrapper into it" ||
	{ not_ok "control: from outside the work tree, moat wrap copies its moat-wrapper into it" && _show control; }
rm -rf "$PROJ/.data"

# Where no run can start (HOME), moat check judges as the run that
# refuses it: no root, the write grant alone writable.
cd "$HOME" || exit 1
run "$MOAT" run -- true
[ "$rc" = 125 ] && grep -q "refusing to use '$(re_quote "$HOME")' as the sandbox root" "$T/.err" &&
	ok "HOME: moat run refuses it as the root" ||
	{ not_ok "HOME: moat run refuses it as the root" && _show "run in HOME"; }
run "$MOAT" check
grep -qx "root: none, moat run refuses this directory" "$T/.out" &&
	grep -qx "writable in a run here: $(re_quote "$GRANT")" "$T/.out" &&
	ok "HOME: moat check judges with no root and the grant" ||
	{ not_ok "HOME: moat check judges with no root and the grant" && _show "check in HOME"; }

# Judged first: a directory a run has used is a past root, which moat wrap
# refuses on its own (context/pastroots.h), whatever root it works out.
agree_judges "a git subdirectory" "$PROJ/sub" "$PROJ"
agree_judges "--here" "$PROJ/sub" "$PROJ/sub" --here
agree_run "a git subdirectory" "$PROJ/sub" "$PROJ"
agree_judges "a linked work tree" "$HOME/linked/sub" "$HOME/linked"
agree_run "a linked work tree" "$HOME/linked/sub" "$HOME/linked"
agree_run "--here" "$PROJ/sub" "$PROJ/sub" --here

# moat wrap takes no --here: a shell serves runs with and without it, so
# it judges with the wider root. In a work tree no run has used, a
# moat-wrapper copy in the git top is under the root of a plain run
# started in its subdirectory: refused, and --here cannot narrow that.
git init -q "$HOME/narrow" && mkdir -p "$HOME/narrow/sub" && cd "$HOME/narrow/sub" || exit 1
run env XDG_DATA_HOME="$HOME/narrow/.data" "$MOAT" wrap agree /bin/true
[ "$rc" = 125 ] && grep -q 'refusing to link shells there' "$T/.err" && [ ! -e "$HOME/narrow/.data/moat/moat-wrapper" ] &&
	ok "moat wrap refuses a copy in the git top, the root of a run here" ||
	{ not_ok "moat wrap refuses a copy in the git top, the root of a run here" && _show "wrap top"; }
run env XDG_DATA_HOME="$HOME/narrow/.data" "$MOAT" wrap --here agree /bin/true
[ "$rc" = 2 ] && grep -q "here" "$T/.err" && [ ! -e "$HOME/narrow/.data/moat/moat-wrapper" ] &&
	ok "and takes no --here, which would let a run without it write the copy" ||
	{ not_ok "and takes no --here, which would let a run without it write the copy" && _show "wrap --here top"; }

# .root = "here" is what every command reads. In a work tree no run has
# used: beside the root it chooses, a moat-wrapper copy is out of a run's
# reach, and accepted.
printf '.{ .root = "here", .allow = .{ .{ .bin = "*", .paths = .{ "%s" }, .write = true } } }\n' "$GRANT" >"$CFG"
git init -q "$HOME/fresh" && mkdir -p "$HOME/fresh/sub" && cd "$HOME/fresh/sub" || exit 1
run env XDG_DATA_HOME="$HOME/fresh/.data" "$MOAT" wrap agree /bin/true
[ "$rc" = 0 ] && [ -x "$HOME/fresh/.data/moat/moat-wrapper" ] &&
	ok '.root = "here": moat wrap accepts a copy beside the root, which no run here can write' ||
	{ not_ok '.root = "here": moat wrap accepts a copy beside the root, which no run here can write' && _show "wrap beside"; }
agree_judges '.root = "here"' "$HOME/fresh/sub" "$HOME/fresh/sub"
agree_run '.root = "here"' "$HOME/fresh/sub" "$HOME/fresh/sub"

done_testing
