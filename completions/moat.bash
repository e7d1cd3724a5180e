# bash completion for moat. 'make install' puts it where bash-completion
# looks ($(PREFIX)/share/bash-completion/completions/moat); or source it.
# The candidates come from 'moat __complete', which reads moat's own command
# table (options, their values, shell names, grants), so this stays thin.

# _moat_words: the words up to the cursor as moat will get them. bash splits
# COMP_WORDS at COMP_WORDBREAKS ('--format=sbpl' is three words); join
# what no whitespace separates. The last word ends at the cursor.
_moat_words() {
	local line=${COMP_LINE:0:COMP_POINT} i w rest
	_moat_w=()
	for ((i = 0; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		rest=${line#"${line%%[![:space:]]*}"}
		((i == COMP_CWORD)) && w=$rest
		if ((i > 0)) && [[ $rest == "$line" ]]; then
			_moat_w[${#_moat_w[@]} - 1]+=$w
		else
			_moat_w+=("$w")
		fi
		line=${rest#"$w"}
	done
}

_moat() {
	local _moat_w cur strip want line
	local -a words
	_moat_words
	cur=${_moat_w[${#_moat_w[@]} - 1]}
	words=("${_moat_w[@]:0:${#_moat_w[@]}-1}")
	# bash replaces only what follows the last word break ('=' or ':').
	want=${cur##*[=:]}
	strip=${cur%"$want"}
	COMPREPLY=()
	while IFS= read -r line; do
		case $line in
		:files | :dirs)
			compopt -o filenames 2>/dev/null
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -"${line:1:1}" -- "$want")
			;;
		:commands) mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -c -- "$want" | sort -u) ;;
		*)
			line=${line%%$'\t'*}
			[[ $line == "$strip"* ]] && COMPREPLY+=("${line#"$strip"}")
			;;
		esac
	done < <("${words[0]}" __complete -- "${words[@]}" "$cur" 2>/dev/null)
	# '--format=' wants its value right after it, and allow's '~/' the rest
	# of its path.
	if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *[=/] ]]; then
		compopt -o nospace 2>/dev/null
	fi
	return 0
}
complete -F _moat moat
