#!/usr/bin/env bash
# Runs every check and test of the project. Does all set-up first (system packages,
# the Node packages of the tests), so it works on a fresh Debian/Ubuntu machine.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --test
# The free disk at each phase, so that a run stopped by a full disk says which phase filled it.
disk() { echo "   (disk: $(df -h --output=avail . | tail -1 | tr -d ' ') free)"; }
disk

# A test run: its output as it comes, and, when it fails, each failing test's own output
# repeated at the very end, where a long log's tail shows it.
tests() {
  local log status=0
  log=$(mktemp)
  "$@" 2>&1 | tee "$log" || status=$?
  if [ "$status" != 0 ]; then
    echo
    echo "== what failed in: $*"
    awk '/^---- .* stdout ----$/ { shown = 1 } /^failures:$/ { shown = 0 } shown' "$log" | tail -n 400
    # Each panic's place and message last: a cut log (backtraces and logs are long) keeps them.
    echo "== the panics, where and why"
    grep -E -A3 "^thread '.*' panicked at|^---- .* stdout ----$" "$log" | grep -v -E '^(stack backtrace:|note: run with)' | tail -n 60 || true
    grep -E '^error: ([0-9]+ targets? failed|test failed)|^    `|process didn.t exit successfully' "$log" || true
    rm -f "$log"
    exit "$status"
  fi
  rm -f "$log"
}

# The property tests (proptest) draw the same cases on every run, so that the result of a run
# says what changed in the code; scripts/soak-properties.sh draws new ones.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261202}"

echo "== UI unit tests (Vitest, Tauri IPC mocks)"
npm test --prefix ui --silent
echo "== cargo fmt"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test (live tests against Hocuspocus, as Docs 5 runs)"
tests cargo test --workspace --locked --no-fail-fast
disk
echo "== live tests again, against yhub (Docs' next collaboration server)"
export DOCS_TEST_COLLABORATION=yhub
tests cargo test --locked --no-fail-fast -p docs-client --test live --test lifecycle --test comments
tests cargo test --locked --no-fail-fast -p docs-mcp --test approvals --test comments --test handover \
    --test parts --test sign_in --test tools --test transport --test ts_sdk --test words
unset DOCS_TEST_COLLABORATION
disk
echo "== packages (.deb, .rpm, .mcpb): built, installed into a throwaway root, launched"
scripts/package-test.sh
disk
