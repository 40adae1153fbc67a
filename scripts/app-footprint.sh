#!/usr/bin/env bash
# The desktop app's memory as a person keeps it running all day: PSS and RSS of its whole
# process tree (the app and WebKit's processes), started in the tray only (as at login: no
# window, no web view), then with its window open. Under Xvfb, with a data directory and a
# port of its own; nothing of the person's is touched.
#   APP=<path>      the app (default: target/release/docs-mcp-app if built, else the debug one)
#   SETTLE=<s>      seconds to wait before measuring (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${APP:-}" ]]; then
    APP=target/release/docs-mcp-app
    [[ -x "$APP" ]] || APP=target/debug/docs-mcp-app
fi
[[ -x "$APP" ]] || { echo "no app at $APP: build it (cargo build -p docs-mcp-app)" >&2; exit 2; }
command -v Xvfb >/dev/null || { echo "Xvfb is missing: scripts/setup.sh --test installs it" >&2; exit 2; }
SETTLE="${SETTLE:-10}"
home="$(mktemp -d)"
display=":$((100 + RANDOM % 400))"
Xvfb "$display" -screen 0 1280x800x24 >/dev/null 2>&1 &
xvfb=$!
app=""
cleanup() {
    [[ -n "$app" ]] && kill "$app" 2>/dev/null && wait "$app" 2>/dev/null || true
    kill "$xvfb" 2>/dev/null || true
    rm -rf "$home" 2>/dev/null || true
}
trap cleanup EXIT

# The process and its descendants.
tree() {
    echo "$1"
    local child
    for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree "$child"; done
}

# PSS and RSS (MiB) of the tree, and how many processes.
measure() {
    local pss=0 rss=0 count=0 pid kb
    for pid in $(tree "$1"); do
        [[ -r /proc/$pid/smaps_rollup ]] || continue
        kb=$(awk '/^Pss:/ {print $2}' /proc/"$pid"/smaps_rollup)
        pss=$((pss + kb))
        kb=$(awk '/^Rss:/ {print $2}' /proc/"$pid"/smaps_rollup)
        rss=$((rss + kb))
        count=$((count + 1))
    done
    printf '%d MiB PSS, %d MiB RSS, %d processes' $((pss / 1024)) $((rss / 1024)) "$count"
}

run() {
    local label="$1"
    shift
    env -u DBUS_SESSION_BUS_ADDRESS DISPLAY="$display" HOME="$home" \
        XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_CACHE_HOME="$home/cache" \
        DOCS_MCP_DATA_DIR="$home/docs-mcp" DOCS_MCP_LISTEN="127.0.0.1:$((20000 + RANDOM % 20000))" \
        DOCS_MCP_TOKEN="footprint-token-0123456789abcdefghijklmnopqrstuv" \
        "$APP" "$@" >"$home/$label.log" 2>&1 &
    app=$!
    sleep "$SETTLE"
    if ! kill -0 "$app" 2>/dev/null; then
        echo "the app exited: $(tail -3 "$home/$label.log")" >&2
        exit 1
    fi
    echo "$label: $(measure "$app")"
    kill "$app"
    wait "$app" 2>/dev/null || true
    app=""
}

echo "app: $APP"
run "tray only (as started at login)" --minimized
run "window open" 
