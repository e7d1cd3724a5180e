#!/usr/bin/env bash
# make install and make uninstall, into a DESTDIR: install puts down the
# binaries, the man page, the default flake and the completions; uninstall
# removes every file install made and nothing else.
. "$(dirname "$0")/../lib.sh"
command -v make >/dev/null || { skip "prerequisite: make"; done_testing; exit; }
[ -f "$MOAT_SRC/Makefile" ] || { skip "prerequisite: the source tree's Makefile"; done_testing; exit; }

DEST=$T/dest
# -o: install the build under test as it is. Relinking it here, without
# the flags it was built with (SANITIZE=...), would replace or delete the
# binaries every other suite is running.
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$MOAT_SRC" B="$MOAT_BUILD" \
		-o "$MOAT_BUILD/moat" -o "$MOAT_BUILD/moat-wrapper" DESTDIR="$DEST" PREFIX=/usr/local "$@"
}
mkdir -p "$DEST/usr/local/share/man/man1"
echo "NOT MOAT'S" >"$DEST/usr/local/share/man/man1/other.1"
expect_ok "make install DESTDIR=..." mk install
(cd "$DEST" && find . -type f | sort) >"$T/installed"
for f in usr/local/bin/moat usr/local/bin/moat-wrapper usr/local/share/man/man1/moat.1 \
	usr/local/share/moat/flake.nix usr/local/share/moat/nix/installed.nix \
	usr/local/share/bash-completion/completions/moat usr/local/share/zsh/site-functions/_moat \
	usr/local/share/fish/vendor_completions.d/moat.fish; do
	grep -qx "./$f" "$T/installed" && ok "installed: $f" || not_ok "installed: $f"
done
run "$DEST/usr/local/bin/moat" --version
expect_out "the installed moat runs" '^moat [0-9]'
run bash -c '. "$1" && complete -p moat' bash "$DEST/usr/local/share/bash-completion/completions/moat"
expect_out "the installed bash completion loads" '^complete -F _moat moat$'

expect_ok "make uninstall DESTDIR=..." mk uninstall
(cd "$DEST" && find . -type f | sort) >"$T/left"
[ "$(cat "$T/left")" = "./usr/local/share/man/man1/other.1" ] && ok "uninstall removed every file install made, and only those" ||
	{ not_ok "uninstall removed every file install made, and only those" && sed 's/^/#   left: /' "$T/left"; }
[ ! -e "$DEST/usr/local/share/moat" ] && ok "and share/moat itself" || not_ok "and share/moat itself"
expect_ok "uninstall twice is harmless" mk uninstall

done_testing
