# moat's shell layout as a derivation, with builtins only (no nixpkgs), so the
# project's flake and the offline test fixture share it:
#
#   $out/bin/<tool>            symlink to moat-wrapper
#   $out/share/moat/manifest   "<tool>\t/absolute/real/path" per line
#   $out/share/moat/env        "KEY=VALUE" lines, when env is not empty
#
# First argument, the machine: system, the moat-wrapper to link to, and the
# builder's shell and coreutils (the project's flake passes nixpkgs' bash and
# coreutils; the fixture uses /bin/sh and the host's /usr/bin:/bin, which
# nix's sandbox = false allows).
#
# Second argument, the shell: name, paths (bin directories or single
# executables; the first of two tools with one name wins, as on PATH) and env.
{ system, wrapper, shell ? "/bin/sh", coreutils ? null }:
{ name, paths, env ? { } }:
let
  envText = builtins.concatStringsSep ""
    (map (k: "${k}=${toString env.${k}}\n") (builtins.attrNames env));
in
builtins.derivation {
  inherit system name wrapper envText;
  builder = shell;
  PATH = if coreutils == null then "/usr/bin:/bin" else "${coreutils}/bin";
  paths = map toString paths;
  args = [ "-c" ''
    set -eu
    mkdir -p "$out/bin" "$out/share/moat"
    : >"$out/share/moat/manifest"
    for p in $paths; do
      if [ -d "$p" ]; then set -- "$p"/*; elif [ -e "$p" ]; then set -- "$p"; else
        echo "moat wrap: '$p' does not exist" >&2; exit 1
      fi
      for f in "$@"; do
        [ -f "$f" ] && [ -x "$f" ] || continue
        n=''${f##*/}
        case $n in .*) continue ;; esac
        [ -e "$out/bin/$n" ] || [ -L "$out/bin/$n" ] && continue
        ln -s "$wrapper" "$out/bin/$n"
        printf '%s\t%s\n' "$n" "$f" >>"$out/share/moat/manifest"
      done
    done
    if [ -n "$envText" ]; then printf '%s' "$envText" >"$out/share/moat/env"; fi
  '' ];
}
