#!/usr/bin/env bash
# bench/nix.sh [BUILD_DIR]: what a pinned nix shell costs `moat run` next to a
# local shell (issue 7). Both variants run `moat run <shell> -- /bin/true`; the
# nix one resolves through the lock file (the fast path: no nix process), the
# local one through the shells directory. The fixture is a local (path:)
# flake, so the nix variant also pays for noticing edits to it (stat of its
# files, compared with the pin's fingerprint). Runs interleaved round by round
# (bench/timeit.c when it is there, else a bash loop), medians, and the ratio.
# It needs nix to build the shell once (the test fixture, offline, as root);
# after that nix is taken off PATH, so a nix process would fail the run.
#
# Knobs: BENCH_ROUNDS (default 500).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$repo/$B ;; esac
ROUNDS=${BENCH_ROUNDS:-500}

die() {
	echo "bench/nix: $*" >&2
	exit 1
}
[ -x "$B/moat" ] && [ -x "$B/moat-wrapper" ] || die "$B/moat is missing; run 'make' first"
command -v nix >/dev/null || die "nix is not installed (apt-get install nix-bin)"

T=$(mktemp -d "${TMPDIR:-/tmp}/moat-bench-nix.XXXXXX")
trap 'rm -rf "$T"' EXIT
home=$T/home
proj=$home/proj
mkdir -p "$proj" "$T/nix-conf" "$T/fixture" "$T/nonix"
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^MOAT_' || true)
export HOME=$home XDG_CONFIG_HOME=$home/.config XDG_STATE_HOME=$home/.local/state \
	XDG_DATA_HOME=$home/.local/share

# The nix test suite's offline setup and fixture (tests/nix/common).
echo '{"flakes":[],"version":2}' >"$T/nix-conf/registry.json"
printf 'experimental-features = nix-command flakes\nsubstituters =\nflake-registry = %s\nbuild-users-group =\nsandbox = false\n' \
	"$T/nix-conf/registry.json" >"$T/nix-conf/nix.conf"
export NIX_CONF_DIR=$T/nix-conf NIX_USER_CONF_FILES=$T/nix-conf/nix.conf
cp -r "$repo/tests/nix/fixture/." "$T/fixture/"
cp "$repo/nix/wrap.nix" "$T/fixture/"
echo "{ wrapper = \"$B/moat-wrapper\"; }" >"$T/fixture/config.nix"
echo "$T" >"$T/fixture/nonce"
export MOAT_FLAKE=path:$T/fixture
cd "$proj"

"$B/moat" run hello -- /bin/true || die "cannot build the fixture's shell (nix as root?)"
"$B/moat" wrap local true >/dev/null || die "moat wrap failed"
# Both variants run with a PATH that has no nix (and no true: /bin/true is
# given by path), so the pinned one cannot quietly fall back to nix.
nopath=$T/nonix
PATH=$nopath "$B/moat" run hello -- /bin/true || die "the pinned shell does not run without nix"

if [ -f "$repo/bench/timeit.c" ] && cc -std=c17 -D_GNU_SOURCE -O2 -o "$T/timeit" "$repo/bench/timeit.c" 2>/dev/null; then
	out=$("$T/timeit" -n "$ROUNDS" -w 20 \
		::: local PATH="$nopath" "$B/moat" run local -- /bin/true \
		::: nix-pinned PATH="$nopath" "$B/moat" run hello -- /bin/true)
	local_med=$(awk -F'\t' '$1 == "local" { print $2 }' <<<"$out")
	nix_med=$(awk -F'\t' '$1 == "nix-pinned" { print $2 }' <<<"$out")
	paired=$(awk -F'\t' '$1 == "nix-pinned" { print $5 }' <<<"$out")
	how="bench/timeit.c (fork/exec/wait)"
	diff_label="pinned - local (paired)"
else
	# Fallback: a bash loop, alternating the order each round.
	: >"$T/local.t"
	: >"$T/nix.t"
	one() { # FILE SHELL
		local s e
		s=$(date +%s%N)
		PATH=$nopath "$B/moat" run "$2" -- /bin/true
		e=$(date +%s%N)
		echo $(((e - s) / 1000)) >>"$1"
	}
	for ((i = 0; i < ROUNDS; i++)); do
		if ((i % 2)); then one "$T/local.t" local; one "$T/nix.t" hello; else one "$T/nix.t" hello; one "$T/local.t" local; fi
	done
	median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
	local_med=$(median "$T/local.t")
	nix_med=$(median "$T/nix.t")
	paired=$((nix_med - local_med))
	how="bash loop with date(1) (bench/timeit.c not found)"
	diff_label="pinned - local (medians)"
fi

echo "moat run SHELL -- /bin/true, $ROUNDS rounds interleaved, $how; medians in microseconds:"
printf '  %-28s %8s us\n' "local shell (moat wrap)" "$local_med" "nix shell, pinned (no nix)" "$nix_med"
printf '  %-28s %8s us\n' "$diff_label" "$paired"
awk -v a="$nix_med" -v b="$local_med" 'BEGIN { printf "  ratio pinned/local: %.2f\n", a / b }'
