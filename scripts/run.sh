#!/usr/bin/env bash
# Builds and runs the Docs MCP service (headless): the MCP endpoint on
# http://127.0.0.1:7658/mcp, agent edits held for review by default.
#   scripts/run.sh --instance https://docs.example.org [--approval auto|review|read-only]
# Signed-in access: export DOCS_SESSION_COOKIE=<value of the docs_sessionid cookie>
# (and DOCS_CSRF_TOKEN=<csrftoken>). Every `docs-mcp serve` flag is accepted.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cargo build --quiet --release --locked -p docs-mcp
exec target/release/docs-mcp serve "$@"
