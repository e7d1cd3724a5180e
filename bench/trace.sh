#!/usr/bin/env bash
# bench/trace.sh [BUILD_DIR]: what `moat run --trace` costs against plain
# `moat run`, on file-heavy commands over a generated tree (issue 5).
#
#   find    find . -type f: walks the tree; opens only the directories
#           (getdents and fstatat are not watched), so few traced stops
#   grep    grep -r: opens and reads every file, the worst case for the
#           tracer: each open costs a seccomp stop and an exit stop
#
# Runs are interleaved (plain, trace, trace, plain, ...) so machine noise
# hits both alike; the figures are medians of wall-clock times and the ratio
# is of the medians. Nothing here is a pass/fail threshold.
#
# Knobs: BENCH_FILES (files in the tree, default 20000), BENCH_ROUNDS
# (runs per variant, default 11).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$repo/$B ;; esac
FILES=${BENCH_FILES:-20000}
ROUNDS=${BENCH_ROUNDS:-11}
MOAT=$B/moat
[ -x "$MOAT" ] || {
	echo "bench: $MOAT is missing; run 'make' first" >&2
	exit 1
}

# The project root: under the build directory, never $HOME or above it.
proj=$B/bench/trace-project
per_dir=100
dirs=$(((FILES + per_dir - 1) / per_dir))
if [ "$(cat "$proj/.files" 2>/dev/null)" != "$FILES" ]; then
	rm -rf "$proj"
	mkdir -p "$proj/tree"
	(
		cd "$proj/tree"
		n=0
		for d in $(seq 1 "$dirs"); do
			mkdir "d$d"
			for f in $(seq 1 "$per_dir"); do
				[ "$n" -lt "$FILES" ] || break
				echo "file $n of the --trace benchmark" >"d$d/f$f"
				n=$((n + 1))
			done
		done
	)
	echo "$FILES" >"$proj/.files"
fi
cd "$proj"

now_us() {
	local t=${EPOCHREALTIME/./}
	echo "${t#0}"
}

# time_us VARIANT CMD...: one run, its wall time in microseconds on stdout.
time_us() {
	local variant=$1 start end
	shift
	start=$(now_us)
	if [ "$variant" = trace ]; then
		"$MOAT" run --trace -- "$@" >/dev/null 2>"$B/bench/trace.err" || true
	else
		"$MOAT" run -- "$@" >/dev/null 2>/dev/null || true
	fi
	end=$(now_us)
	echo $((end - start))
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

bench() { # NAME CMD...
	local name=$1 plain=() traced=() r
	shift
	time_us plain "$@" >/dev/null # warm the page cache and the binaries
	time_us trace "$@" >/dev/null
	grep -q 'nothing was denied' "$B/bench/trace.err" ||
		echo "bench: --trace reported refusals for $name; see $B/bench/trace.err" >&2
	for r in $(seq 1 "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then
			plain+=("$(time_us plain "$@")") traced+=("$(time_us trace "$@")")
		else
			traced+=("$(time_us trace "$@")") plain+=("$(time_us plain "$@")")
		fi
	done
	local mp mt
	mp=$(printf '%s\n' "${plain[@]}" | median)
	mt=$(printf '%s\n' "${traced[@]}" | median)
	awk -v n="$name" -v p="$mp" -v t="$mt" 'BEGIN {
		printf "%-6s %10.1f ms %10.1f ms %8.2fx %10.1f ms\n", n, p / 1000, t / 1000, t / p, (t - p) / 1000 }'
}

echo "moat run --trace vs moat run: $FILES files in $dirs directories, $ROUNDS interleaved runs each, medians"
echo "($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r))"
echo
printf '%-6s %13s %13s %9s %13s\n' "" "moat run" "--trace" "ratio" "added"
bench find find . -type f
bench grep grep -r -c needle tree
