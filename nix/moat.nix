# moat itself: moat and moat-wrapper, the man page, and the flake under
# share/moat (make install). The tests need Landlock and a throw-away HOME,
# which a nix build sandbox does not give, so they are not run here.
{ lib, stdenv, src }:
stdenv.mkDerivation {
  pname = "moat";
  version = "0.1.0";
  inherit src;
  makeFlags = [ "PREFIX=${placeholder "out"}" ];
  enableParallelBuilding = true;
  doCheck = false;
  meta = {
    description = "Run developer tools in a sandbox that denies file access by default";
    platforms = [ "x86_64-linux" "aarch64-linux" "aarch64-darwin" ];
    mainProgram = "moat";
  };
}
