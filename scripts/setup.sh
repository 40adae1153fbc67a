#!/usr/bin/env bash
# Installs what building and testing need on Debian/Ubuntu, and only what is missing, and
# builds the app's UI (ui/dist, which the Tauri app embeds) when its sources changed.
# Usage: scripts/setup.sh [--test | --demo]   (--test also installs the Node packages of the
# tests — the Docs-like server and the TypeScript SDK agent —, what the app's end-to-end
# test needs: Xvfb, WebKitWebDriver, tauri-driver, and rpm for the package test; --demo
# installs the Docs-like server, which the app's demo runs)
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=false
want_demo=false
[ "${1:-}" = "--test" ] && want_tests=true && want_demo=true
[ "${1:-}" = "--demo" ] && want_demo=true

packages=(build-essential pkg-config ca-certificates
  # Tauri 2 on Debian 12 (the desktop app, src-tauri)
  libwebkit2gtk-4.1-dev curl wget file libxdo-dev libssl-dev libayatana-appindicator3-dev librsvg2-dev)
if $want_tests; then
  # rpm: scripts/package-test.sh reads the .rpm's fields and files. openssl: the test
  # instance's certificates (the HTTPS/WSS test).
  packages+=(xvfb xauth webkit2gtk-driver dbus-x11 rpm openssl)
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: please install: ${missing[*]}" >&2
    exit 1
  fi
  if [ "$(id -u)" = 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo)
  else
    echo "setup: missing system packages. Run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: Rust is not installed. Install it with rustup (https://rustup.rs), then re-run." >&2
  exit 1
fi

if $want_tests && ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" ]; then
  # Drives the real app in tests (src-tauri/tests/app_e2e.rs), with Debian's WebKitWebDriver.
  echo "setup: cargo install tauri-driver"
  cargo install tauri-driver --version 2.1.0 --locked --quiet
fi

node_projects=()
# The Docs-like server (real @hocuspocus/server and BlockNote): the tests' and the demo's.
$want_demo && node_projects+=(tests/docs-server)
# The scripted agent on the official TypeScript MCP SDK.
$want_tests && node_projects+=(tests/mcp-client-ts)
if [ "${#node_projects[@]}" -gt 0 ]; then
  # Each pinned by its lock file.
  for project in "${node_projects[@]}"; do
    stamp="$project/node_modules/.installed-lock"
    if ! cmp -s "$project/package-lock.json" "$stamp" 2>/dev/null; then
      echo "setup: npm ci in $project"
      npm ci --prefix "$project" --no-audit --no-fund --loglevel=error
      cp "$project/package-lock.json" "$stamp"
    fi
  done
fi

# The app's UI (vanilla TypeScript + Vite), pinned by its lock file, built to ui/dist.
ui=ui
stamp="$ui/node_modules/.installed-lock"
if ! cmp -s "$ui/package-lock.json" "$stamp" 2>/dev/null; then
  echo "setup: npm ci in $ui"
  npm ci --prefix "$ui" --no-audit --no-fund --loglevel=error
  cp "$ui/package-lock.json" "$stamp"
fi
if [ ! -f "$ui/dist/index.html" ] ||
  [ -n "$(find "$ui/src" "$ui/index.html" "$ui/package-lock.json" "$ui/vite.config.ts" "$ui/tsconfig.json" -newer "$ui/dist/index.html" 2>/dev/null | head -n 1)" ]; then
  echo "setup: building the UI (npm run build --prefix $ui)"
  npm run build --prefix "$ui" --silent
fi
