#!/usr/bin/env bash
# A long run of the differential convergence test (crates/docs-mcp/tests/convergence): many
# seeded scenarios of our peer beside BlockNote browsers on Yjs 13 and a browser on Yjs 14
# (suggestions accepted and rejected one at a time), then its figures — scenarios run, actions
# made, divergences found and their seeds (each other than yrs' known panic and Yjs 14's own
# throws is printed minimized, to be kept as a regression case in `REGRESSIONS`).
#   SEEDS=<count> (default 200), FROM=<first seed> (default 1000)
#   YJS14=<browsers on Yjs 14> (default 1)
#   TOPOLOGY=star (default: every peer connected to the room only, over ordered sockets, as
#            in Docs) or mesh (browsers also exchange updates among themselves, reordered)
# Exits non-zero when a scenario diverged.
set -euo pipefail
cd "$(dirname "$0")/.."
CONVERGENCE_SOAK="${SEEDS:-200}" CONVERGENCE_FROM="${FROM:-1000}" \
    CONVERGENCE_YJS14="${YJS14:-1}" CONVERGENCE_TOPOLOGY="${TOPOLOGY:-star}" \
    cargo test --locked -p docs-mcp --test convergence
