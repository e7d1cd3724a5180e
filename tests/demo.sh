#!/bin/sh
# make demo: moat's main job on a real command, in a throw-away project with
# a decoy HOME. One access is allowed (the project), one is denied (~/.ssh).
set -u
B=${1:-build}
moat=$(cd "$B" && pwd)/moat
# Not under /tmp: a session has a /tmp of its own, where the decoy would
# be absent rather than denied, which would show nothing of the sandbox.
cache=${XDG_CACHE_HOME:-$HOME/.cache}
mkdir -p "$cache"
demo=$(mktemp -d "$cache/moat-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
export HOME="$demo/home"
mkdir -p "$HOME/.ssh" "$HOME/project"
echo "-----BEGIN DECOY PRIVATE KEY-----" >"$HOME/.ssh/id_rsa"
cd "$HOME/project" || exit 1

echo "\$ cd ~/project && moat run -- sh -c '...'"
"$moat" run -- sh -c '
	echo "inside the sandbox, as $(id -un), root $MOAT_ROOT"
	echo "hello from the sandbox" > notes.txt &&
		echo "allowed: wrote and read back project/notes.txt: $(cat notes.txt)"
	if cat "$HOME/.ssh/id_rsa" 2>/dev/null; then
		echo "NOT DENIED: the sandbox let ~/.ssh/id_rsa through" >&2; exit 1
	fi
	echo "denied:  cat ~/.ssh/id_rsa -> $(cat "$HOME/.ssh/id_rsa" 2>&1 >/dev/null)"
'
status=$?
echo
if [ "$status" -eq 0 ]; then
	echo "demo ok: the project was writable and ~/.ssh/id_rsa was not readable"
else
	echo "demo FAILED (status $status)" >&2
fi
exit "$status"
