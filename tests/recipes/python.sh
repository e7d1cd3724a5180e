#!/usr/bin/env bash
# docs/recipes.md, pip and venv: a virtual environment in the project and
# a pip install into it need no grant; pip's cache in HOME is refused and
# pip carries on; multiprocessing works on the session's own /dev/shm.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || { skip "prerequisite: /usr/bin/python3"; done_testing; exit; }
"$PY" -c 'import ensurepip' 2>/dev/null || { skip "prerequisite: python3-venv"; done_testing; exit; }

# A wheel made by hand (a zip with the package and its dist-info), so that
# the install needs neither the network nor the venv's build tools.
"$PY" - "$PROJ/recipe_pkg-1.0-py3-none-any.whl" <<'PYEOF'
import sys, zipfile
files = {
    "recipe_pkg/__init__.py": 'def hello(): return "RECIPE-PKG"\n',
    "recipe_pkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: recipe-pkg\nVersion: 1.0\n",
    "recipe_pkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
files["recipe_pkg-1.0.dist-info/RECORD"] = "".join(f"{n},,\n" for n in files) + "recipe_pkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for n, body in files.items():
        z.writestr(n, body)
PYEOF

expect_ok "python3 -m venv .venv" "$MOAT" run -- "$PY" -m venv .venv
[ -x "$PROJ/.venv/bin/pip" ] && ok "the venv is in the project" || not_ok "the venv is in the project"
run "$MOAT" run -- .venv/bin/pip install -q --no-index ./recipe_pkg-1.0-py3-none-any.whl
[ "$rc" -eq 0 ] && ok "pip install into the venv" || { not_ok "pip install into the venv" && _show pip install; }
[ ! -e "$HOME/.cache/pip" ] && ok "pip's cache in HOME was not written" || not_ok "pip's cache in HOME was not written"
run "$MOAT" run -- .venv/bin/python -c 'import recipe_pkg; print(recipe_pkg.hello())'
expect_out "the installed package imports" '^RECIPE-PKG$'
run "$MOAT" run -- .venv/bin/python -c '
import multiprocessing as mp
def sq(x): return x * x
if __name__ == "__main__":
    with mp.Pool(2) as p: print(sum(p.map(sq, range(10))))'
[ "$rc" -eq 0 ] && [ "$out" = 285 ] && ok "multiprocessing.Pool works" || { not_ok "multiprocessing.Pool works" && _show Pool; }
done_testing
