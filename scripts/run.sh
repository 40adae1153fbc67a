#!/usr/bin/env bash
# Builds and launches the desktop app, Docs MCP (src-tauri, binary docs-mcp-app): a tray app
# hosting the MCP service on http://127.0.0.1:7658/mcp.
#   scripts/run.sh               # the window opens; closing it keeps the app in the tray
#   scripts/run.sh --minimized   # start in the tray only
#   scripts/run.sh --demo        # try it without a Docs instance: a local Docs-like server with
#                                # sample documents and a demo agent (its own data and port 7659)
# Headless (no desktop): cargo run --release -p docs-mcp -- serve --instance https://docs.example.org
set -euo pipefail
cd "$(dirname "$0")/.."

# --demo: also the demo's server, so the Connect screen can offer "Try with a demo document".
scripts/setup.sh --demo
exec cargo run --quiet --release --locked -p docs-mcp-app -- "$@"
