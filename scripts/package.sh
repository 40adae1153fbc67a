#!/usr/bin/env bash
# Builds the installable packages into target/packages/ (or $CARGO_TARGET_DIR/packages/):
#   docs-mcp_VERSION_amd64.deb, docs-mcp-VERSION-1.x86_64.rpm   the desktop app, Docs MCP
#   docs-mcp-VERSION-linux-x86_64.mcpb                          the MCP Bundle for Claude Desktop
# with the `dist` cargo profile (Cargo.toml says why). The Tauri bundler's CLI and the MCPB CLI
# come from npm, pinned by packaging/package-lock.json. AppImage is not built: its bundler
# downloads tools from outside the package registries; a release pipeline can add it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

stamp=packaging/node_modules/.installed-lock
if ! cmp -s packaging/package-lock.json "$stamp" 2>/dev/null; then
  echo "package: npm ci in packaging"
  npm ci --prefix packaging --no-audit --no-fund --loglevel=error
  cp packaging/package-lock.json "$stamp"
fi
bin=packaging/node_modules/.bin

metadata=$(cargo metadata --no-deps --format-version 1 --locked)
read -r version target_dir < <(node -e '
  const m = JSON.parse(process.argv[1]);
  console.log(m.packages.find((p) => p.name === "docs-mcp-app").version, m.target_directory);
' "$metadata")
profile_dir="$target_dir/dist"
out="$target_dir/packages"
rm -rf "$out"
mkdir -p "$out"

echo "== package: the app (.deb, .rpm) and docs-mcp, cargo profile dist"
# Everything after `--` goes to `cargo build`; the bundler takes the app's binary from the
# profile's directory ($target_dir/dist). docs-mcp (the .mcpb's server) is built by the same
# cargo run: built apart, the dependencies' features differ and a hundred crates compile twice.
"$bin/tauri" build --ci --bundles deb,rpm -- --profile dist --locked -p docs-mcp-app -p docs-mcp
[ -x "$profile_dir/docs-mcp" ] || { echo "package: no $profile_dir/docs-mcp" >&2; exit 1; }
bundle="$profile_dir/bundle"
deb=$(find "$bundle/deb" -maxdepth 1 -name "*_${version}_*.deb" | head -n 1)
rpm=$(find "$bundle/rpm" -maxdepth 1 -name "*-${version}-*.rpm" | head -n 1)
[ -f "$deb" ] || { echo "package: no .deb of version $version in $bundle/deb" >&2; exit 1; }
[ -f "$rpm" ] || { echo "package: no .rpm of version $version in $bundle/rpm" >&2; exit 1; }
# The bundler lists the libraries' packages but not the C library: the binaries need the
# newest glibc symbol version they were linked against (what this build machine had), and
# an older system must refuse the package instead of failing at start.
glibc=$(objdump -T "$profile_dir/docs-mcp-app" "$profile_dir/docs-mcp" |
  grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
[ -n "$glibc" ] || { echo "package: no glibc symbol version found in the binaries" >&2; exit 1; }
unpacked="$out/deb-root"
rm -rf "$unpacked"
dpkg-deb -R "$deb" "$unpacked"
sed -i "s/^Depends: \(.*\)$/Depends: libc6 (>= $glibc), \1/" "$unpacked/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz --build "$unpacked" "$out/docs-mcp_${version}_amd64.deb" >/dev/null
rm -rf "$unpacked"
cp "$rpm" "$out/docs-mcp-${version}-1.x86_64.rpm"

echo "== package: the MCP Bundle (.mcpb)"
staging="$out/mcpb"
mkdir -p "$staging/server"
cp "$profile_dir/docs-mcp" "$staging/server/docs-mcp"
cp icons/icon.png "$staging/icon.png"
node packaging/mcpb-manifest.mjs "$version" "$staging"
"$bin/mcpb" validate "$staging/manifest.json"
"$bin/mcpb" pack "$staging" "$out/docs-mcp-${version}-linux-x86_64.mcpb"
rm -rf "$staging"

echo "== package: done"
ls -l "$out"
