#!/bin/sh
# make demo: moat's main job on a real command, in a throw-away project with
# a decoy HOME. One access is allowed (the project), one is denied (~/.ssh).
set -u
B=${1:-build}
moat=$(cd "$B" && pwd)/moat

# below_session_tmp DIR: is DIR (made if missing) below /tmp, /var/tmp or
# /dev/shm? A session has its own of each, where a decoy there would be
# absent rather than denied, which would show nothing of the sandbox.
below_session_tmp() {
	mkdir -p "$1" 2>/dev/null || return 0
	case $(cd "$1" && pwd -P)/ in
	/tmp/* | /var/tmp/* | /dev/shm/*) return 0 ;;
	esac
	return 1
}

# The decoy HOME goes to the cache, or beside moat (the build directory)
# when the cache is below /tmp (as HOME often is in CI containers).
parent=${XDG_CACHE_HOME:-$HOME/.cache}
if below_session_tmp "$parent"; then
	parent=$(cd "$B" && pwd -P)
	if below_session_tmp "$parent" || ! [ -w "$parent" ]; then
		echo "make demo: cannot show a denial here: ${XDG_CACHE_HOME:-$HOME/.cache} is below" \
			"/tmp (or /var/tmp, /dev/shm), which a session replaces by its own, so a decoy" \
			"there would be absent, not denied; and $B is too, or not writable" >&2
		echo "hint: name a directory elsewhere:  XDG_CACHE_HOME=/some/dir make demo" >&2
		exit 1
	fi
fi
demo=$(mktemp -d "$parent/moat-demo.XXXXXX") || exit 1
trap 'rm -rf "$demo"' EXIT
export HOME="$demo/home"
mkdir -p "$HOME/.ssh" "$HOME/project"
echo "-----BEGIN DECOY PRIVATE KEY-----" >"$HOME/.ssh/id_rsa"
cd "$HOME/project" || exit 1

# The refusal is shown only as what it is: a file that is absent inside
# the sandbox is no denial, and the demo says so rather than pass.
echo "\$ cd ~/project && moat run -- sh -c '...'"
"$moat" run -- sh -c '
	echo "inside the sandbox, as $(id -un), root $MOAT_ROOT"
	echo "hello from the sandbox" > notes.txt &&
		echo "allowed: wrote and read back project/notes.txt: $(cat notes.txt)"
	if cat "$HOME/.ssh/id_rsa" 2>/dev/null; then
		echo "NOT DENIED: the sandbox let ~/.ssh/id_rsa through" >&2; exit 1
	fi
	why=$(LC_ALL=C cat "$HOME/.ssh/id_rsa" 2>&1 >/dev/null)
	case $why in
	*"Permission denied"*) echo "denied:  cat ~/.ssh/id_rsa -> $why" ;;
	*) echo "NOT SHOWN: ~/.ssh/id_rsa is not there inside the sandbox ($why), so nothing was denied" >&2; exit 1 ;;
	esac
'
status=$?
echo
if [ "$status" -eq 0 ]; then
	echo "demo ok: the project was writable and ~/.ssh/id_rsa was not readable"
else
	echo "demo FAILED (status $status)" >&2
fi
exit "$status"
