{ pkgs ? import <nixpkgs> { }, lib ? pkgs.lib, withDocs ? false }:

let
  version = "1.4.0";
  pname = "inventory";
  deps = with pkgs; [ go gopls git ];
  docDeps = lib.optionals withDocs [ pkgs.mdbook pkgs.graphviz ];
  mkScript = name: body: pkgs.writeShellScriptBin name ''
    set -eu
    ${body}
  '';
  inherit (pkgs) stdenv;
in
pkgs.mkShell {
  name = "${pname}-${version}";
  buildInputs = deps ++ docDeps ++ [
    (mkScript "check" "go vet ./...")
    (mkScript "run-tests" "go test ./...")
  ];
  shellHook = ''
    echo "entering ${pname}"
  '';
  env = {
    GOFLAGS = "-mod=mod";
    CGO_ENABLED = if stdenv.isLinux then "1" else "0";
  };
  passthru = rec {
    tests = import ./tests.nix { inherit pkgs; };
    all = tests // { inherit version; };
  };
  meta = with lib; {
    description = "Stock keeping";
    license = licenses.mit;
    platforms = platforms.unix;
  };
}
