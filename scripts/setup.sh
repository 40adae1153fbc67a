#!/usr/bin/env bash
# Installs what building and testing need on Debian/Ubuntu, and only what is missing.
# Usage: scripts/setup.sh [--test]   (--test also installs the Node packages of the tests)
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=false
[ "${1:-}" = "--test" ] && want_tests=true

packages=(build-essential pkg-config ca-certificates)
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

if $want_tests; then
  # The Docs-like test server (real @hocuspocus/server and BlockNote), and the scripted agent
  # on the official TypeScript MCP SDK; each pinned by its lock file.
  for project in tests/docs-server tests/mcp-client-ts; do
    stamp="$project/node_modules/.installed-lock"
    if ! cmp -s "$project/package-lock.json" "$stamp" 2>/dev/null; then
      echo "setup: npm ci in $project"
      npm ci --prefix "$project" --no-audit --no-fund --loglevel=error
      cp "$project/package-lock.json" "$stamp"
    fi
  done
fi
