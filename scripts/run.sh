#!/usr/bin/env bash
# Opens a document of a Docs instance and prints its content.
#   scripts/run.sh https://docs.example.org/docs/<uuid>/
# Signed-in access: export DOCS_SESSION_COOKIE=<value of the docs_sessionid cookie>.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
exec cargo run --quiet --release --locked -p docs-client --example open_document -- "$@"
