#!/usr/bin/env bash
# Shell completions (completions/): the candidates moat __complete computes
# from the command table (commands, options and their values, local shell
# names, grants and links from config.zon), and the bash, zsh and fish
# scripts that ask it, run in those shells.
. "$(dirname "$0")/../lib.sh"
COMP=$MOAT_SRC/completions
export PATH="$MOAT_BUILD:$PATH"

# cands WORD...: moat's candidates for the last WORD, words only.
# CANDS_PATH: the PATH moat __complete gets, when not the test's.
cands() { env PATH="${CANDS_PATH:-$PATH}" "$MOAT" __complete -- moat "$@" | cut -f1 | sort | tr '\n' ' ' | sed 's/ $//'; }
# expect_cands NAME WANT WORD...
expect_cands() {
	local name=$1 want=$2 got
	shift 2
	got=$(cands "$@")
	[ "$got" = "$want" ] && ok "$name" || { not_ok "$name" && echo "#   moat $*: want '$want', got '$got'"; }
}

"$MOAT" wrap alpha /bin/cat >/dev/null
"$MOAT" wrap beta /bin/cat >/dev/null
"$MOAT" wrap alpine /bin/cat >/dev/null
mkdir -p "$T/more/gamma/bin" "$T/more/not-a-shell"
mkdir -p "$HOME/.cargo" "$HOME/.npm" "$HOME/.gitconfig.d"
"$MOAT" allow cargo "$HOME/.cargo" --write >/dev/null 2>&1
"$MOAT" allow cargo "$HOME/.npm" >/dev/null 2>&1
"$MOAT" allow git "$HOME/.gitconfig.d" >/dev/null 2>&1
"$MOAT" link "$PROJ" alpha >/dev/null 2>&1

# --- what moat offers -----------------------------------------------------
run "$MOAT" --help
commands=$(sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p' "$T/.out" | sort | tr '\n' ' ' | sed 's/ $//')
expect_cands "every command of --help, and only those" "$commands" ''
expect_cands "commands by prefix" "unallow unapprove unlink unpin" un
expect_cands "moat's own options" "--help --quiet --verbose --version" --
expect_cands "a command after moat's options" "run" -v r
missing=
for c in $commands; do
	"$MOAT" "$c" --help >"$T/help"
	want=$(sed -n 's/^  \(-., \|    \)\(--[a-z-]*\)\( [A-Z][A-Z=]*\)\?.*/\2\3/p' "$T/help" | sed 's/ .*/=/' | sort | tr '\n' ' ' | sed 's/ $//')
	got=$(cands "$c" -- | tr ' ' '\n' | grep -vx -- -- | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || missing="$missing $c(want '$want', got '$got')"
done
[ -z "$missing" ] && ok "every command's options, as its --help lists them" || not_ok "every command's options:$missing"
expect_cands "an option's values after it" "json rules sbpl" profile --format ''
expect_cands "and after =" "--format=json --format=rules --format=sbpl" profile --format=
expect_cands "by prefix" "--format=sbpl" profile --format=s
expect_cands "local shell names" "alpha alpine beta" run ''
expect_cands "by prefix" "alpha alpine" shell al
MOAT_SHELLS_PATH=$XDG_DATA_HOME/moat/shells:$T/more expect_cands "from every MOAT_SHELLS_PATH directory, only those with bin/" \
	"alpha alpine beta gamma" profile ''
expect_cands "run: a command after --" ":commands" run alpha -- ''
expect_cands "run: then files" ":files" run alpha -- make ''
expect_cands "unallow: the binaries granted" "cargo git" unallow ''
expect_cands "unallow BIN: its granted paths" "~/.cargo ~/.npm" unallow cargo ''
expect_cands "allow -r is unallow" "~/.cargo ~/.npm" allow -r cargo ''
# allow's BIN is a program's name (or '*'), its PATH absolute or under ~:
# shell keywords and builtins, and relative paths, are refused there.
mkdir -p "$T/bin/adir" && touch "$T/bin/notexec" "$T/bin/.hidden" && chmod +x "$T/bin/.hidden"
printf '#!/bin/sh\n' >"$T/bin/ifprog" && cp "$T/bin/ifprog" "$T/bin/gitfoo" && chmod +x "$T/bin/ifprog" "$T/bin/gitfoo"
CANDS_PATH=$T/bin expect_cands "allow: '*' and the programs on PATH, nothing else there" "* gitfoo ifprog" allow ''
mkdir -p "$PROJ/relbin" && cp "$T/bin/gitfoo" "$PROJ/relbin/gitrel"
CANDS_PATH=$T/bin:$T/bin:relbin expect_cands "each once, none from a relative PATH entry" "gitfoo" allow g
expect_cands "allow BIN: '/' and '~/' to start a path" "/ ~/" allow cargo ''
expect_cands "allow BIN ~...: the shell's own file completion" ":files" allow cargo '~/.c'
expect_cands "allow BIN /...: likewise" ":files" allow cargo /us
expect_cands "allow BIN: no relative path" "" allow cargo re
expect_cands "allow --env BIN: a variable's name, no path" "" allow --env cargo ''
expect_cands "allow --net BIN: a policy, no path" "off open" allow --net cargo ''
expect_cands "unlink: the linked directories" "$PROJ :dirs" unlink ''
expect_cands "link -r likewise" "$PROJ :dirs" link -r ''
expect_cands "link DIR: shells" "alpha alpine beta" link . ''
expect_cands "detect: a directory" ":dirs" detect ''
expect_cands "help: a command" "unallow unapprove unlink unpin" help un
expect_cands "check: nothing" "" check ''
expect_cands "a shell given as a path" ":dirs" run ./sh
run "$MOAT" __complete -- moat profile --f
[ "$rc" -eq 0 ] && grep -q $'^--format=\trules (default)' "$T/.out" && ok "options come with their help as a description" ||
	{ not_ok "options come with their help as a description" && _show __complete; }
run "$MOAT" __complete -- moat ''
! grep -q __complete "$T/.out" && ok "the helper itself is not offered" || not_ok "the helper itself is not offered"

# --- bash ------------------------------------------------------------------
# bash_complete LINE: what bash offers at the end of LINE, with COMP_WORDS
# split as bash splits them (whitespace, then '=' and ':' as words of their own).
bash_complete() {
	bash -c '
		. "$1"
		COMP_LINE=$2 COMP_POINT=${#2} COMP_WORDS=()
		for w in $2; do
			while [[ $w =~ ^([^=:]*)([=:]+)(.*)$ ]]; do
				[ -n "${BASH_REMATCH[1]}" ] && COMP_WORDS+=("${BASH_REMATCH[1]}")
				COMP_WORDS+=("${BASH_REMATCH[2]}")
				w=${BASH_REMATCH[3]}
			done
			[ -n "$w" ] && COMP_WORDS+=("$w")
		done
		[[ $2 == *" " || $2 == *[=:] ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		PATH=${COMP_PATH:-$PATH} _moat
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"' bash "$COMP/moat.bash" "$1"
}
expect_bash() { # NAME WANT LINE
	local got
	got=$(bash_complete "$3")
	[ "$got" = "$2" ] && ok "bash: $1" || { not_ok "bash: $1" && echo "#   '$3': want '$2', got '$got'"; }
}
expect_bash "a command" "profile" "moat pro"
expect_bash "after -v" "run" "moat -v ru"
expect_bash "an option" "--format=" "moat profile --fo"
expect_bash "its value after =" "sbpl" "moat profile --format=s"
expect_bash "its value after a space" "json rules sbpl" "moat profile --format "
expect_bash "shell names" "alpha alpine" "moat run al"
expect_bash "a command after --" "truncate" "moat run alpha -- trunca"
echo x >"$PROJ/readme"
expect_bash "files after the command" "readme" "moat run alpha -- cat rea"
expect_bash "granted paths for unallow" "~/.cargo ~/.npm" "moat unallow cargo "
mkdir -p "$PROJ/subdir"
expect_bash "directories for detect" "subdir" "moat detect sub"
run bash -c 'compgen -c -- if'
grep -qx if "$T/.out" && ok "control: bash's command completion offers the keyword if" || not_ok "control: bash's command completion offers the keyword if"
COMP_PATH=$T/bin:$MOAT_BUILD expect_bash "allow: programs, no shell keyword" "ifprog" "moat allow if"
COMP_PATH=$T/bin:$MOAT_BUILD expect_bash "allow: '*' too" "* gitfoo ifprog moat moat-wrapper" "moat allow "
expect_bash "allow BIN: '/' and '~/', not the files here" "/ ~/" "moat allow cargo "
expect_bash "allow BIN: no relative path" "" "moat allow cargo rea"
expect_bash "allow BIN ~/...: paths under ~" "~/.cargo" "moat allow cargo ~/.car"
expect_bash "allow BIN /...: absolute paths" "/usr" "moat allow cargo /us"
run bash -c '. "$1" && complete -p moat' bash "$COMP/moat.bash"
expect_out "bash: the script registers the completion" '^complete -F _moat moat$'

# --- zsh: the script's handling of moat's answer, with zsh's completion
# functions replaced by stubs that print what they were given --------------
if command -v zsh >/dev/null; then
	expect_ok "zsh: the script parses" zsh -n "$COMP/_moat"
	zsh_complete() { # WORD...: what _moat adds for the last WORD
		zsh -fc '
			_files() { print -r -- ":files $*"; }
			_command_names() { print -r -- ":commands"; }
			_describe() { local a; for a in "${(@P)4}"; do print -r -- "${a%%:*}"; done; }
			compadd() {
				local arr
				while (( $# )); do case $1 in (-a) arr=$2; shift 2 ;; (-S) shift 2 ;; (*) shift ;; esac; done
				print -rl -- "${(@P)arr}"
			}
			words=("$@"); CURRENT=$#
			source "$COMP/_moat"' zsh "$@" | sort | tr '\n' ' ' | sed 's/ $//'
	}
	expect_zsh() { # NAME WANT WORD...
		local name=$1 want=$2 got
		shift 2
		got=$(COMP=$COMP zsh_complete "$@")
		[ "$got" = "$want" ] && ok "zsh: $name" || { not_ok "zsh: $name" && echo "#   $*: want '$want', got '$got'"; }
	}
	expect_zsh "a command" "profile" moat pro
	expect_zsh "an option with its value" "--format=json --format=rules --format=sbpl" moat profile --format=
	expect_zsh "shell names" "alpha alpine" moat run al
	expect_zsh "a command after --" ":commands" moat run -- ''
	expect_zsh "granted paths" "~/.cargo ~/.npm" moat unallow cargo ''
	expect_zsh "directories" ":files -/" moat detect ''
	expect_zsh "allow BIN: '/' and '~/'" "/ ~/" moat allow cargo ''
	PATH=$T/bin:$PATH expect_zsh "allow: programs from moat" "ifprog" moat allow ifpr
else
	skip "prerequisite: zsh (apt-get install zsh)"
fi

# --- fish: its own completion engine, on the installed script ---------------
if command -v fish >/dev/null; then
	expect_ok "fish: the script parses" fish -n "$COMP/moat.fish"
	expect_fish() { # NAME WANT LINE
		local got
		got=$(fish -c 'source $argv[1]; complete -C $argv[2]' "$COMP/moat.fish" "$3" | cut -f1 | sort | tr '\n' ' ' | sed 's/ $//')
		[ "$got" = "$2" ] && ok "fish: $1" || { not_ok "fish: $1" && echo "#   '$3': want '$2', got '$got'"; }
	}
	expect_fish "a command" "profile" "moat pro"
	expect_fish "an option's values" "--format=json --format=rules --format=sbpl" "moat profile --format="
	expect_fish "shell names" "alpha alpine" "moat run al"
	expect_fish "granted paths" "~/.cargo ~/.npm" "moat unallow cargo "
	expect_fish "directories" "subdir/" "moat detect sub"
	expect_fish "allow BIN: '/' and '~/'" "/ ~/" "moat allow cargo "
	PATH=$T/bin:$PATH expect_fish "allow: programs from moat" "ifprog" "moat allow ifpr"
else
	skip "prerequisite: fish (apt-get install fish)"
fi

done_testing
