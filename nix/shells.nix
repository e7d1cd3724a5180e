# The example shells moat ships, built from nixpkgs with sandbox.wrap. Tools
# keep their caches under the project root (.moat/ is git-ignored there),
# since the sandbox denies $HOME.
{ pkgs, wrap }:
{
  zig = wrap {
    name = "zig";
    paths = [ "${pkgs.zig}/bin" ];
    env = {
      ZIG_GLOBAL_CACHE_DIR = "$MOAT_ROOT/.moat/zig-cache";
    };
  };
  rust = wrap {
    name = "rust";
    paths = [ "${pkgs.rustc}/bin" "${pkgs.cargo}/bin" "${pkgs.rustfmt}/bin" "${pkgs.clippy}/bin" ];
    env = {
      CARGO_HOME = "$MOAT_ROOT/.moat/cargo";
    };
  };
  go = wrap {
    name = "go";
    paths = [ "${pkgs.go}/bin" ];
    env = {
      GOPATH = "$MOAT_ROOT/.moat/go";
      GOCACHE = "$MOAT_ROOT/.moat/go-cache";
      GOMODCACHE = "$MOAT_ROOT/.moat/go/pkg/mod";
    };
  };
  node = wrap {
    name = "node";
    paths = [ "${pkgs.nodejs}/bin" ];
    env = {
      npm_config_cache = "$MOAT_ROOT/.moat/npm-cache";
    };
  };
}
