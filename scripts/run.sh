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
# Say what the wait is: a first release build takes 10 to 30 minutes on 2 cores (later runs
# rebuild only what changed); cargo shows its progress meanwhile.
if [ ! -x "${CARGO_TARGET_DIR:-target}/release/docs-mcp-app" ]; then
  echo "run: building Docs MCP in release mode for the first time: 10 to 30 minutes on 2 cores (cargo's progress below); later runs take seconds."
else
  echo "run: building what changed, then starting Docs MCP"
fi
cargo build --release --locked -p docs-mcp-app
exec "${CARGO_TARGET_DIR:-target}/release/docs-mcp-app" "$@"
