{
  description = "moat: run developer tools in a sandbox that denies file access by default";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixpkgs-unstable";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "aarch64-darwin" ];
      # builtins only: listing the outputs, or reaching lib.<system>.sandbox.wrap,
      # needs no nixpkgs (flake.lock pins it, and nix fetches it only when a
      # package from it is used).
      forAll = f: builtins.listToAttrs (map
        (system: { name = system; value = f system nixpkgs.legacyPackages.${system}; })
        systems);
      # `make install` copies this flake to $PREFIX/share/moat and writes
      # nix/installed.nix naming the moat-wrapper it installed, so shells built
      # from the installed flake use that wrapper; from a checkout (or as a
      # flake input) the wrapper is this flake's own moat package.
      installed = ./nix/installed.nix;
      wrapperFor = system:
        if builtins.pathExists installed then (import installed).wrapper
        else "${self.packages.${system}.moat}/bin/moat-wrapper";
    in
    {
      # moat.lib.<system>.sandbox.wrap { name; paths; env ? {}; }: a shell
      # whose tools are symlinks to this flake's moat-wrapper.
      lib = forAll (system: pkgs: {
        sandbox.wrap = import ./nix/wrap.nix {
          inherit system;
          wrapper = wrapperFor system;
          shell = "${pkgs.bash}/bin/bash";
          coreutils = pkgs.coreutils;
        };
      });

      packages = forAll (system: pkgs:
        import ./nix/shells.nix { inherit pkgs; wrap = self.lib.${system}.sandbox.wrap; } // {
          moat = pkgs.callPackage ./nix/moat.nix { src = self; };
          default = self.packages.${system}.moat;
        });

      devShells = forAll (system: pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.gnumake pkgs.gcc pkgs.clang pkgs.git ];
        };
      });
    };
}
