#!/usr/bin/env bash
# A long run of the differential convergence test (crates/docs-mcp/tests/convergence): many
# seeded scenarios of our peer and BlockNote browsers on Yjs 13, then its figures — scenarios
# run, actions made, divergences found and their seeds (each other than yrs' known panic is
# printed minimized, to be kept as a regression case in `REGRESSIONS`).
#   SEEDS=<count> (default 200), FROM=<first seed> (default 1000)
# Exits non-zero when a scenario diverged.
set -euo pipefail
cd "$(dirname "$0")/.."
CONVERGENCE_SOAK="${SEEDS:-200}" CONVERGENCE_FROM="${FROM:-1000}" \
    cargo test --locked -p docs-mcp --test convergence
