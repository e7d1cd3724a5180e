#!/usr/bin/env bash
# docs/recipes.md, npm and npx: with `moat allow npm ~/.npm --write --exec`
# (and the same for npx) and nothing else, npm install from a local tarball
# runs its install script and fills node_modules, npx runs a package's bin,
# and the cache lands in the granted ~/.npm. Offline: no registry is used.
. "$(dirname "$0")/../lib.sh"
command -v npm >/dev/null && command -v npx >/dev/null || { skip "prerequisite: npm"; done_testing; exit; }
NPM=$(command -v npm) NPX=$(command -v npx)
case $(readlink -f "$NPM") in
/usr/* | /bin/*) ;;
*) skip "prerequisite: npm from a system directory (this one is $NPM)"; done_testing; exit ;;
esac
export npm_config_offline=true npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

mkdir -p "$T/src/recipe-tool/bin"
cat >"$T/src/recipe-tool/package.json" <<'JSON'
{ "name": "recipe-tool", "version": "1.0.0", "bin": { "recipe-tool": "bin/cli.js" },
  "scripts": { "install": "node -e \"require('fs').writeFileSync('installed.txt','INSTALL-RAN')\"" } }
JSON
printf '#!/usr/bin/env node\nconsole.log("RECIPE-TOOL-RAN")\n' >"$T/src/recipe-tool/bin/cli.js"
(cd "$T/src" && npm pack -q ./recipe-tool >/dev/null 2>&1) && TGZ=$T/src/recipe-tool-1.0.0.tgz
[ -f "${TGZ:-}" ] || { skip "prerequisite: npm pack works here"; done_testing; exit; }
cp "$TGZ" "$PROJ/"
echo '{ "name": "proj", "version": "1.0.0" }' >"$PROJ/package.json"

# Control: outside moat, the same install works (in a copy of the project).
mkdir -p "$T/ctl" && cp "$PROJ/package.json" "$PROJ/recipe-tool-1.0.0.tgz" "$T/ctl/"
run sh -c 'cd "$1" && npm install ./recipe-tool-1.0.0.tgz' sh "$T/ctl"
[ "$rc" -eq 0 ] && [ -f "$T/ctl/node_modules/recipe-tool/installed.txt" ] && ok "control: npm install works outside moat" ||
	{ not_ok "control: npm install works outside moat" && _show npm install; }
rm -rf "$HOME/.npm"

# Without the grant npm cannot even make its cache.
run "$MOAT" run -- "$NPM" install ./recipe-tool-1.0.0.tgz
[ "$rc" -ne 0 ] && grep -q EACCES "$T/.err" && ok "without a grant npm install fails (its cache in ~/.npm)" || { not_ok "without a grant npm install fails (its cache in ~/.npm)" && _show npm install; }

mkdir -p "$HOME/.npm"
expect_ok "moat allow npm ~/.npm --write --exec" "$MOAT" allow npm "$HOME/.npm" --write --exec
expect_ok "moat allow npx ~/.npm --write --exec" "$MOAT" allow npx "$HOME/.npm" --write --exec
run "$MOAT" run -- "$NPM" install ./recipe-tool-1.0.0.tgz
[ "$rc" -eq 0 ] && ok "npm install with the grant" || { not_ok "npm install with the grant" && _show npm install; }
[ "$(cat "$PROJ/node_modules/recipe-tool/installed.txt" 2>/dev/null)" = INSTALL-RAN ] &&
	ok "the install script ran, inside the project" || not_ok "the install script ran, inside the project"
[ -d "$HOME/.npm/_cacache" ] && ok "the cache is in the granted ~/.npm" || not_ok "the cache is in the granted ~/.npm"
run "$MOAT" run -- "$NPX" --no-install recipe-tool
expect_out "npx runs the package's bin" '^RECIPE-TOOL-RAN$'
run "$MOAT" run -- "$NPM" install -g ./recipe-tool-1.0.0.tgz
[ "$rc" -ne 0 ] && grep -q EACCES "$T/.err" && ok "a global install (outside the project) fails" || { not_ok "a global install (outside the project) fails" && _show npm -g; }
run "$MOAT" run -- node -e 'console.log(require("fs").readFileSync(process.env.HOME + "/.ssh/id_rsa", "utf8"))'
expect_refused "~/.ssh stays refused" DECOY-SSH-KEY
done_testing
