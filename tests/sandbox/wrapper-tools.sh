#!/usr/bin/env bash
# Real tools through moat-wrapper: multi-call binaries that dispatch on
# argv[0] (clang++, busybox, python3 -> python3.X), compilers that find their
# helpers from argv[0], and wrapped tools calling wrapped tools 20 deep.
# kernel-independent: argv[0] dispatch, wrapped tools calling wrapped tools.
. "$(dirname "$0")/../lib.sh"

export MOAT_ROOT=$PROJ
shells=$XDG_DATA_HOME/moat/shells
printf '#include <iostream>\nint main() { std::cout << "CXX-OK" << std::endl; }\n' >"$PROJ/hello.cpp"
printf '#include <stdio.h>\nint main(void) { puts("C-OK"); return 0; }\n' >"$PROJ/hello.c"

# compiles NAME TOOL SRC: the wrapped TOOL builds SRC in the root and it runs.
compiles() {
	local name=$1 tool=$2 src=$3
	rm -f "$PROJ/a.out"
	run "$shells/cc/bin/$tool" -o "$PROJ/a.out" "$PROJ/$src"
	if [ "$rc" -eq 0 ] && [ -x "$PROJ/a.out" ]; then ok "$name: builds"; else not_ok "$name: builds" && _show "$tool" "$src"; fi
	run "$PROJ/a.out"
	expect_out "$name: runs" '^(CXX|C)-OK$'
}
for tool in clang++ clang g++ gcc c++ cc; do
	if [ -x "/usr/bin/$tool" ]; then
		"$MOAT" wrap cc "/usr/bin/$tool" >/dev/null || not_ok "moat wrap cc /usr/bin/$tool"
		case $tool in *++) src=hello.cpp ;; *) src=hello.c ;; esac
		compiles "wrapped $tool" "$tool" "$src"
	else
		skip "/usr/bin/$tool is not installed"
	fi
done
if [ -x /usr/bin/clang++ ]; then
	run env PATH="$shells/cc/bin:/usr/bin:/bin" clang++ -o "$PROJ/b.out" "$PROJ/hello.cpp"
	[ "$rc" -eq 0 ] && [ "$("$PROJ/b.out")" = CXX-OK ] && ok "clang++ by bare name through PATH" ||
		{ not_ok "clang++ by bare name through PATH" && _show clang++; }
fi

# busybox: one binary, many names; the applet comes from argv[0].
if [ -x /usr/bin/busybox ]; then
	mkdir -p "$T/bb/bin" "$T/bb/share/moat"
	for a in ls wc cat sh; do
		ln -s "$WRAPPER" "$T/bb/bin/$a"
		printf '%s\t/usr/bin/busybox\n' "$a" >>"$T/bb/share/moat/manifest"
	done
	run "$T/bb/bin/ls" --help
	expect_out "busybox ls: the applet is chosen from argv[0]" 'BusyBox'
	expect_out "and it is ls" 'Usage: ls'
	printf 'a\nb\nc\n' >"$PROJ/three"
	run "$T/bb/bin/wc" -l "$PROJ/three"
	expect_out "busybox wc counts" '^ *3 '
	run "$T/bb/bin/sh" -c 'echo "$MOAT_SANDBOX"; cat "$HOME/.ssh/id_rsa"'
	expect_out "busybox sh runs confined" "^$PROJ\$"
	expect_out "busybox cat is denied ~/.ssh" 'Permission denied'
	expect_no_out "without leaking" failed DECOY
	mkdir "$T/applets" && ln -s /usr/bin/busybox "$T/applets/wc"
	run "$MOAT" wrap bb2 "$T/applets/wc"
	run "$shells/bb2/bin/wc" -l "$PROJ/three"
	expect_out "moat wrap of an applet symlink keeps the applet" '^ *3 '
else
	skip "busybox is not installed (apt-get install busybox)"
fi

# python3 -> python3.11: the symlink the manifest names keeps working.
if [ -x /usr/bin/python3 ]; then
	"$MOAT" wrap py /usr/bin/python3 >/dev/null
	run "$shells/py/bin/python3" -c 'import sys, os; print(sys.prefix); print(sys.version_info[0]); print(os.environ["MOAT_SANDBOX"])'
	[ "$rc" -eq 0 ] && [ "$out" = "/usr
3
$PROJ" ] && ok "wrapped python3 runs with its own prefix" || { not_ok "wrapped python3 runs with its own prefix" && _show python3; }
	expect_no_out "without warnings" 0 'Could not find|Permission denied'
	run "$shells/py/bin/python3" -m venv --without-pip "$PROJ/venv"
	[ "$rc" -eq 0 ] && ok "python3 -m venv in the root" || { not_ok "python3 -m venv in the root" && _show venv; }
	run "$PROJ/venv/bin/python" -c 'import sys; print(sys.prefix)'
	[ "$rc" -eq 0 ] && [ "$out" = "$PROJ/venv" ] && ok "the venv's python runs (through the wrapper's symlink)" ||
		{ not_ok "the venv's python runs (through the wrapper's symlink)" && _show venv/bin/python; }
else
	skip "no /usr/bin/python3"
fi

# Twenty deep: t1 calls t2 ... calls t20, each a wrapped tool found on PATH.
# Landlock allows 16 layers, so this passes only if the wrapper does not stack.
mkdir "$PROJ/levels"
for i in $(seq 1 20); do
	if [ "$i" -lt 20 ]; then next="t$((i + 1))"; else next=":"; fi
	cat >"$PROJ/levels/t$i" <<EOF
#!/bin/sh
echo "t$i sandbox=\${MOAT_SANDBOX:-none}"
$next || exit \$?
if [ $i -eq 20 ]; then
	cat "\$HOME/.ssh/id_rsa" && exit 99
	echo deepest >"\$MOAT_ROOT/deepest" || exit 98
fi
EOF
	chmod +x "$PROJ/levels/t$i"
done
expect_ok "wrap twenty scripts in one shell" "$MOAT" wrap nest "$PROJ"/levels/t*
run env PATH="$shells/nest/bin:/usr/bin:/bin" t1
[ "$rc" -eq 0 ] && [ "$(grep -c "sandbox=$PROJ\$" "$T/.out")" = 20 ] && ok "twenty wrapped tools deep, all confined" ||
	{ not_ok "twenty wrapped tools deep, all confined" && _show t1; }
expect_out "the deepest is denied ~/.ssh" 'id_rsa: Permission denied'
[ -f "$PROJ/deepest" ] && ok "and can write the root" || not_ok "and can write the root"
rm -f "$PROJ/deepest"
unset MOAT_ROOT
run "$MOAT" run nest -- t1
[ "$rc" -eq 0 ] && [ "$(grep -c "sandbox=$PROJ\$" "$T/.out")" = 20 ] && [ -f "$PROJ/deepest" ] &&
	ok "twenty deep inside moat run" || { not_ok "twenty deep inside moat run" && _show moat run nest -- t1; }

# Control: stacking really does stop at 16, so the test above can fail.
# moat run adds one layer a level: the first from the build tree (moat
# refuses to run from where sandboxed code can write), the nested ones from
# a copy in the root, which they can run.
cp "$MOAT" "$PROJ/moat-copy"
printf '#!/bin/sh\n[ "$1" -ge "$2" ] && exit 0\nm=./moat-copy; [ "$1" = 0 ] && m=%s\nexec "$m" run -- ./stack $(($1 + 1)) "$2"\n' "$MOAT" >"$PROJ/stack"
chmod +x "$PROJ/stack"
expect_ok "control: 16 nested moat runs (16 layers) work" ./stack 0 16
expect_status "control: a 17th layer fails" 125 ./stack 0 17
expect_out "because Landlock refuses it" 'Argument list too long'

done_testing
