#!/usr/bin/env bash
# How people install moat, from clean clones of the commit under test (issue
# 40): the Debian package builds with Debian's tools and lintian passes it;
# `apt-get install ./moat_*.deb` puts moat on PATH, and as uid 65534 moat
# runs, prints its profile, shows its man page and confines a tool made by
# `moat wrap`; `apt-get remove` leaves none of the package's files and purge
# leaves the user's own. Then `make dist` twice, from two clones in two
# directories some seconds apart: byte-identical tarballs, whose moat passes
# the same smoke test.
#
# Run as root on a Debian machine that may install packages (.ci/run's last
# stage): it installs moat system-wide, and removes it again, even on
# failure. MOAT_DIST_ARCHS: the tarballs to build twice (default x86_64;
# .ci/run adds aarch64, whose zig it has installed, and runs that moat under
# qemu-user).
. "$(dirname "$0")/../lib.sh"

need() {
	command -v "$1" >/dev/null || { skip "prerequisite: $1 ($2)"; done_testing; exit; }
}
is_root || { skip "prerequisite: root (it installs a package)"; done_testing; exit; }
need dpkg-buildpackage "Debian's dpkg-dev"
need dh "Debian's debhelper"
need apt-get "Debian's apt"
need git "to clone the commit under test"
need setpriv "util-linux"
need man "man-db"
if dpkg -s moat >/dev/null 2>&1 || [ -e /usr/bin/moat ]; then
	skip "prerequisite: no moat installed already (this test installs and removes it)"
	done_testing
	exit
fi
[ -d "$MOAT_SRC/.git" ] || [ -f "$MOAT_SRC/.git" ] ||
	{ skip "prerequisite: a git checkout to clone"; done_testing; exit; }

# The package goes again however the test ends: add that to lib.sh's exit.
installed=
remove_package() {
	[ -z "$installed" ] || apt-get remove -y -q --purge moat >/dev/null 2>&1
	installed=
}
trap "remove_package; $(trap -p EXIT | sed "s/^trap -- '\(.*\)' EXIT\$/\1/")" EXIT
trap 'exit 130' INT TERM

export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
# uid 65534 walks into the clones, the tarball and its own world.
chmod 0711 "$T"

# clone DIR: a clean clone of the commit under test.
clone() {
	mkdir -p "$(dirname "$1")" && git clone -q "$MOAT_SRC" "$1" && git -C "$1" checkout -q "$(git -C "$MOAT_SRC" rev-parse HEAD)"
}

# as_nobody CMD...: CMD as uid 65534 in its project, with the PATH given in
# NPATH and nothing else of ours in its environment.
NH=$T/nobody
as_nobody() {
	(cd "$NH/proj" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -i PATH="$NPATH" HOME="$NH" LANG=C.UTF-8 "$@")
}

# smoke WHAT: the first things a user does with an installed moat (the one
# on NPATH), as uid 65534, in a fresh home with a decoy key.
smoke() {
	local what=$1 tools
	rm -rf "$NH" && mkdir -p "$NH/proj" "$NH/.ssh"
	echo "DECOY-SSH-KEY" >"$NH/.ssh/id_rsa"
	echo "PROJECT-FILE" >"$NH/proj/readme"
	chown -R 65534:65534 "$NH"
	run as_nobody sh -c 'command -v moat'
	[ "$out" = "$NPATH_MOAT" ] && ok "$what: moat on PATH is $NPATH_MOAT" ||
		{ not_ok "$what: moat on PATH is $NPATH_MOAT" && _show command -v moat; }
	expect_ok "$what: moat run -- true as uid 65534" as_nobody moat run -- true
	run as_nobody moat profile
	expect_out "$what: moat profile as uid 65534 names the root" "$NH/proj"
	expect_ok "$what: moat wrap tools cat" as_nobody moat wrap tools /usr/bin/cat
	tools=$NH/.local/share/moat/shells/tools/bin
	run as_nobody env MOAT_ROOT="$NH/proj" "$tools/cat" "$NH/proj/readme"
	[ "$rc" -eq 0 ] && [ "$out" = PROJECT-FILE ] && ok "$what: the wrapped cat reads the project" ||
		{ not_ok "$what: the wrapped cat reads the project" && _show cat; }
	run as_nobody cat "$NH/.ssh/id_rsa"
	[ "$out" = DECOY-SSH-KEY ] && ok "$what: control: plain cat reads the decoy key" ||
		{ not_ok "$what: control: plain cat reads the decoy key" && _show cat; }
	expect_denied "$what: the wrapped cat is denied the decoy key" \
		as_nobody env MOAT_ROOT="$NH/proj" "$tools/cat" "$NH/.ssh/id_rsa"
	expect_no_out "$what: and shows none of it" failed DECOY
}

# --- the Debian package ------------------------------------------------------
D=$T/deb
clone "$D/moat" || { not_ok "clone the commit under test"; done_testing; exit; }
(cd "$D/moat" && dpkg-buildpackage -us -uc -b) >"$T/deb.log" 2>&1 &&
	ok "dpkg-buildpackage -us -uc -b builds the package" ||
	{ not_ok "dpkg-buildpackage -us -uc -b builds the package" && tail -n 30 "$T/deb.log" | sed 's/^/#   /'; }
deb=$(ls "$D"/moat_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { not_ok "a moat_*.deb was written"; done_testing; exit; }
if command -v lintian >/dev/null; then
	# Root is how CI runs; lintian says it would rather not be.
	expect_ok "lintian: no errors or warnings (overrides each give a reason)" \
		lintian --fail-on error,warning "${deb%.deb}.changes"
else
	skip "prerequisite: lintian"
fi

installed=1
expect_ok "apt-get install ./moat_*.deb" apt-get install -y -q --no-install-recommends "$deb"
dpkg -L moat | sort >"$T/package-files"
for f in /usr/bin/moat /usr/bin/moat-wrapper /usr/share/man/man1/moat.1.gz \
	/usr/share/moat/flake.nix /usr/share/moat/nix/installed.nix /usr/share/doc/moat/README.md.gz \
	/usr/share/bash-completion/completions/moat /usr/share/zsh/vendor-completions/_moat \
	/usr/share/fish/vendor_completions.d/moat.fish; do
	[ -f "$f" ] && grep -qx "$f" "$T/package-files" && ok "installed: $f" || not_ok "installed: $f"
done
grep -qx '{ wrapper = "/usr/bin/moat-wrapper"; }' /usr/share/moat/nix/installed.nix &&
	ok "the default flake links shells to /usr/bin/moat-wrapper" ||
	not_ok "the default flake links shells to /usr/bin/moat-wrapper"
run /usr/bin/moat --version
version=$(dpkg-query -W -f '${Version}' moat)
[ "$out" = "moat ${version%-*}" ] && ok "moat --version says the package's version ($version)" ||
	{ not_ok "moat --version says the package's version ($version)" && _show moat --version; }
run bash -c '. /usr/share/bash-completion/completions/moat && complete -p moat'
expect_out "the bash completion loads" '^complete -F _moat moat$'

NPATH=/usr/bin:/bin NPATH_MOAT=/usr/bin/moat
smoke "package"
run as_nobody man -w moat
[ "$out" = /usr/share/man/man1/moat.1.gz ] && ok "package: man finds moat(1)" ||
	{ not_ok "package: man finds moat(1)" && _show man -w moat; }
run as_nobody env MANPAGER=cat MANWIDTH=80 man moat
expect_out "package: man moat shows it as uid 65534" '^ +moat shell'

user_files=$(cd "$NH" && find . -path ./proj -prune -o -type f -print | sort)
expect_ok "apt-get remove" apt-get remove -y -q moat
[ "$rc" -ne 0 ] || installed=
left=$(while read -r f; do
	if [ -L "$f" ] || { [ -e "$f" ] && [ ! -d "$f" ]; }; then echo "$f"; fi
done <"$T/package-files")
[ -z "$left" ] && ok "remove left none of the package's files" ||
	{ not_ok "remove left none of the package's files" && echo "$left" | sed 's/^/#   left: /'; }
for d in /usr/share/moat /usr/share/doc/moat; do
	[ ! -e "$d" ] && ok "and no $d" || not_ok "and no $d"
done
expect_ok "dpkg --purge moat" dpkg --purge moat
[ -n "$user_files" ] && [ "$(cd "$NH" && find . -path ./proj -prune -o -type f -print | sort)" = "$user_files" ] &&
	ok "purge left the user's own files (their shells, moat-wrapper copy) alone" ||
	not_ok "purge left the user's own files (their shells, moat-wrapper copy) alone"

# --- the release tarballs ----------------------------------------------------
# Two clones in directories of different names and depths, built a few
# seconds apart: the same bytes.
archs=${MOAT_DIST_ARCHS:-x86_64}
clone "$T/dist-a/moat" && clone "$T/dist-b/elsewhere/moat-2" || not_ok "clone twice"
for c in "$T/dist-a/moat" "$T/dist-b/elsewhere/moat-2"; do
	sleep 2
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$c" -j2 DIST_ARCHS="$archs" dist >"$T/dist.log" 2>&1 &&
		ok "make dist in ${c#"$T"/}" ||
		{ not_ok "make dist in ${c#"$T"/}" && tail -n 30 "$T/dist.log" | sed 's/^/#   /'; }
done
version=$(make -s -C "$MOAT_SRC" version)
for a in $archs; do
	tgz=moat-$version-$a-linux.tar.gz
	[ -s "$T/dist-a/moat/dist/$tgz" ] && cmp -s "$T/dist-a/moat/dist/$tgz" "$T/dist-b/elsewhere/moat-2/dist/$tgz" &&
		ok "$tgz: both builds byte-identical" || not_ok "$tgz: both builds byte-identical"
	(cd "$T/dist-a/moat/dist" && grep -F "  $tgz" SHA256SUMS | sha256sum -c --quiet -) &&
		ok "$tgz: SHA256SUMS verifies it" || not_ok "$tgz: SHA256SUMS verifies it"
	for bin in moat moat-wrapper; do
		tar -xzOf "$T/dist-a/moat/dist/$tgz" "moat-$version-$a-linux/bin/$bin" | grep -qa -e "$T/dist-a" -e "$MOAT_SRC" &&
			not_ok "$tgz: $bin holds no build path" || ok "$tgz: $bin holds no build path"
	done
done
cmp -s "$T/dist-a/moat/dist/SHA256SUMS" "$T/dist-b/elsewhere/moat-2/dist/SHA256SUMS" &&
	ok "SHA256SUMS: both builds identical" || not_ok "SHA256SUMS: both builds identical"

tgz=$T/dist-a/moat/dist/moat-$version-x86_64-linux.tar.gz
if [ "$(uname -m)" = x86_64 ] && [ -s "$tgz" ]; then
	mkdir -p "$T/opt" && tar -xzf "$tgz" -C "$T/opt"
	NPATH=$T/opt/moat-$version-x86_64-linux/bin:/usr/bin:/bin NPATH_MOAT=$T/opt/moat-$version-x86_64-linux/bin/moat
	smoke "tarball"
fi

# The aarch64 tarball's moat, run on emulated aarch64 (qemu-user): it
# starts, and since qemu-user passes no Landlock to its guest, it refuses
# to run a tool at all rather than run it unconfined.
tgz=$T/dist-a/moat/dist/moat-$version-aarch64-linux.tar.gz
qemu=$(command -v qemu-aarch64-static qemu-aarch64 2>/dev/null | head -1)
if [ -s "$tgz" ] && [ -n "$qemu" ]; then
	mkdir -p "$T/arm" && tar -xzf "$tgz" -C "$T/arm"
	arm=$T/arm/moat-$version-aarch64-linux/bin
	file -b "$arm/moat" | grep -q 'ARM aarch64' && ok "aarch64: the tarball's moat is an aarch64 binary" ||
		not_ok "aarch64: the tarball's moat is an aarch64 binary ($(file -b "$arm/moat"))"
	run "$qemu" "$arm/moat" --version
	expect_out "aarch64: moat --version runs under $(basename "$qemu")" "^moat $version\$"
	mkdir -p "$T/arm/home/proj"
	run sh -c "cd '$T/arm/home/proj' && HOME='$T/arm/home' '$qemu' '$arm/moat' run -- /bin/true"
	[ "$rc" -eq 125 ] && grep -q 'Landlock is not available' "$T/.err" &&
		ok "aarch64: without Landlock (qemu-user) moat run refuses (125) and says why" ||
		{ not_ok "aarch64: without Landlock (qemu-user) moat run refuses (125) and says why" && _show moat run; }
elif [[ " $archs " == *" aarch64 "* ]]; then
	skip "prerequisite: qemu-user (qemu-aarch64-static) to run the aarch64 binary"
fi

done_testing
