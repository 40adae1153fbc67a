#!/usr/bin/env bash
# The install test of the packages: builds them (scripts/package.sh), then
#  - the .deb: its control fields, installed with dpkg into a throwaway root (this machine's
#    own dpkg database is not touched), its files (binary built with the dist profile, desktop
#    entry, icons); the installed docs-mcp-app launched `--minimized` under Xvfb with a data
#    directory and port of its own answers GET /health; its process tree's memory after
#    20 s idle is printed; removed with dpkg, it leaves no file behind;
#  - the .rpm: its fields and files (rpm -qp);
#  - the .mcpb: unpacked, validated by `mcpb validate`, its manifest checked, and its server
#    started as Claude Desktop would: it answers tools/list itself, and relays to the app
#    while the app runs.
# Usage: scripts/package-test.sh [--no-build]   (--no-build: test the packages already built)
# Fails on the first missing piece. (`grep -q` reads captured output, never a pipe: it stops
# at the first match, and the writer's SIGPIPE would fail the pipeline under pipefail.)
set -euo pipefail
cd "$(dirname "$0")/.."

[ "${1:-}" = "--no-build" ] || scripts/package.sh

fail() {
  echo "package-test: FAILED: $*" >&2
  exit 1
}
# Each step is a check that passed once the next one starts (the first failure stops all).
steps=0
step() {
  steps=$((steps + 1))
  echo "== package-test: $*"
}

for program in dpkg dpkg-deb rpm Xvfb dbus-run-session curl node objdump; do
  command -v "$program" >/dev/null || fail "$program is missing: run scripts/setup.sh --test"
done
metadata=$(cargo metadata --no-deps --format-version 1 --locked)
read -r version target_dir < <(node -e '
  const m = JSON.parse(process.argv[1]);
  console.log(m.packages.find((p) => p.name === "docs-mcp-app").version, m.target_directory);
' "$metadata")
out="$target_dir/packages"
deb="$out/docs-mcp_${version}_amd64.deb"
rpm="$out/docs-mcp-${version}-1.x86_64.rpm"
mcpb="$out/docs-mcp-${version}-linux-x86_64.mcpb"
for file in "$deb" "$rpm" "$mcpb"; do
  [ -s "$file" ] || fail "$file was not built"
done

work=$(mktemp -d /tmp/docs-mcp-package-test.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

step "the .deb's control fields"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = docs-mcp ] || fail "Package is '$(field Package)', not docs-mcp"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', not $version"
depends=$(field Depends)
[ -n "$depends" ] || fail "no Depends"
echo "Depends: $depends"
for needed in libwebkit2gtk-4.1-0 libgtk-3-0 libayatana-appindicator3-1; do
  [[ ", $depends," == *", $needed"[\ ,]* ]] || fail "Depends lacks $needed"
done
# The C library's floor: the newest glibc symbol version the installed binary needs.
dpkg-deb -x "$deb" "$work/deb-files"
needs=$(objdump -T "$work/deb-files/usr/bin/docs-mcp-app" | grep -o 'GLIBC_[0-9][0-9.]*' |
  sed 's/GLIBC_//' | sort -uV | tail -n 1)
[[ "$depends" == "libc6 (>= $needs), "* ]] || fail "Depends does not start with libc6 (>= $needs): $depends"
# Every dependency is a package this machine knows (setup.sh installed them).
for dependency in $(tr ',' '\n' <<<"$depends" | sed 's/(.*//; s/|.*//' | tr -d ' '); do
  grep -q "install ok installed" <<<"$(dpkg-query -W -f '${Status}' "$dependency" 2>/dev/null)" ||
    fail "Depends names $dependency, which is not installed here"
done
grep -q 'La Suite Docs' <<<"$(field Description)" || fail "no Description"

step "installing the .deb into a throwaway root"
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# Its dependencies are this machine's, not the throwaway root's: --force-depends.
dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" >"$work/dpkg-install.log" 2>&1 ||
  { cat "$work/dpkg-install.log" >&2; fail "dpkg -i"; }
app="$root/usr/bin/docs-mcp-app"
[ -x "$app" ] || fail "no executable /usr/bin/docs-mcp-app"
# The dist build, but for the few bytes where the bundler writes the package type.
dist_app="$target_dir/dist/docs-mcp-app"
if [ "$(stat -c %s "$app")" != "$(stat -c %s "$dist_app")" ] ||
  [ "$(cmp -l "$app" "$dist_app" | wc -l)" -gt 16 ]; then
  fail "/usr/bin/docs-mcp-app is not the binary built with the dist profile ($dist_app)"
fi
grep -q ', stripped' <<<"$(file "$app")" || fail "/usr/bin/docs-mcp-app is not stripped: $(file "$app")"
desktop=$(find "$root/usr/share/applications" -name '*.desktop' | head -n 1)
[ -n "$desktop" ] || fail "no desktop entry in /usr/share/applications"
echo "desktop entry: ${desktop#"$root"}"
grep -qx 'Exec=docs-mcp-app' "$desktop" || fail "the desktop entry's Exec is not docs-mcp-app: $(grep Exec= "$desktop")"
grep -qx 'Icon=docs-mcp-app' "$desktop" || fail "the desktop entry's Icon is not docs-mcp-app"
grep -qx 'Name=Docs MCP' "$desktop" || fail "the desktop entry's Name is not Docs MCP"
grep -q '^Categories=.*Office' "$desktop" || fail "the desktop entry has no Office category"
for size in 32x32 128x128 256x256@2; do
  icon="$root/usr/share/icons/hicolor/$size/apps/docs-mcp-app.png"
  [ -s "$icon" ] || fail "no icon ${icon#"$root"}"
done
grep -q -- '--minimized' <<<"$("$app" --help)" || fail "docs-mcp-app --help does not offer --minimized"

step "the .rpm's fields and files"
rpm_field() { rpm -qp --queryformat "%{$1}" "$rpm" 2>/dev/null; }
[ "$(rpm_field NAME)" = docs-mcp ] || fail "rpm Name is '$(rpm_field NAME)'"
[ "$(rpm_field VERSION)" = "$version" ] || fail "rpm Version is '$(rpm_field VERSION)'"
requires=$(rpm -qp --requires "$rpm" 2>/dev/null)
for needed in libwebkit2gtk-4.1.so.0 libgtk-3.so.0 libayatana-appindicator3.so.1; do
  grep -qxF "$needed()(64bit)" <<<"$requires" || fail "rpm Requires lacks $needed: $requires"
done
rpm_files=$(rpm -qlp "$rpm" 2>/dev/null)
for needed in /usr/bin/docs-mcp-app /usr/share/icons/hicolor/128x128/apps/docs-mcp-app.png \
  "${desktop#"$root"}"; do
  grep -qxF "$needed" <<<"$rpm_files" || fail "the rpm lacks $needed"
done

step "the .mcpb: unpacked, validated, its manifest"
mcpb_bin=packaging/node_modules/.bin/mcpb
bundle="$work/mcpb"
"$mcpb_bin" unpack "$mcpb" "$bundle" >/dev/null
"$mcpb_bin" validate "$bundle/manifest.json"
node -e '
  const [file, version] = process.argv.slice(1);
  const m = JSON.parse(require("fs").readFileSync(file, "utf8"));
  const check = (ok, what) => { if (!ok) { console.error("manifest: " + what); process.exit(1); } };
  check(m.manifest_version === "0.3", "manifest_version is not 0.3");
  check(m.version === version, `version ${m.version} is not ${version}`);
  check(m.server?.type === "binary", "server.type is not binary");
  check(m.server.entry_point === "server/docs-mcp", "entry_point is not server/docs-mcp");
  check(m.server.mcp_config.command === "${__dirname}/server/docs-mcp", "command is not the entry point");
  check(JSON.stringify(m.server.mcp_config.args) ===
    JSON.stringify(["serve", "--stdio", "--instance", "${user_config.instance_url}"]), "args");
  check(m.user_config?.instance_url?.type === "string", "no instance_url user_config");
  check(m.tools?.length > 0, "no tools");
' "$bundle/manifest.json" "$version" || fail "the .mcpb's manifest"
server="$bundle/server/docs-mcp"
[ -x "$server" ] || fail "server/docs-mcp is not executable in the bundle"
cmp -s "$server" "$target_dir/dist/docs-mcp" || fail "server/docs-mcp is not the dist build"
manifest_tools=$(node -e '
  const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(JSON.stringify(m.tools.map((t) => t.name).sort()));
' "$bundle/manifest.json")

free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
    console.log(s.address().port); s.close(); });'
}
# The bundle's command line as Claude Desktop runs it, on a port of the test's own; then
# environment assignments of the desktop session it runs in.
run_bundle() {
  local log=$1
  shift
  node packaging/mcp-stdio-check.mjs "$log" env -u DBUS_SESSION_BUS_ADDRESS -u DOCS_MCP_TOKEN \
    -u DOCS_INSTANCE_URL HOME="$work/home" DOCS_MCP_DATA_DIR="$work/data" "$@" \
    "$server" serve --stdio --instance http://127.0.0.1:9 --listen "127.0.0.1:$(free_port)"
}

step "the .mcpb's server, no app running: it serves itself"
mkdir -p "$work/home"
tools=$(run_bundle "$work/bundle-alone.log") || fail "the bundle's server alone"
[ "$tools" = "$manifest_tools" ] || fail "tools/list gave $tools; the manifest says $manifest_tools"
grep -q relaying "$work/bundle-alone.log" && fail "the bundle relayed with no app running"

step "the .mcpb's server holds the data directory before the app starts"
# Claude Desktop may start before the app at login: its session is kept open meanwhile.
first_port=$(free_port)
MCP_CHECK_AGAIN_AFTER="$work/app-started" node packaging/mcp-stdio-check.mjs "$work/bundle-first.log" \
  env -u DBUS_SESSION_BUS_ADDRESS -u DOCS_MCP_TOKEN -u DOCS_INSTANCE_URL HOME="$work/home" \
  DOCS_MCP_DATA_DIR="$work/data" RUST_LOG=info "$server" serve --stdio \
  --instance http://127.0.0.1:9 --listen "127.0.0.1:$first_port" >"$work/bundle-first.tools" &
first_client=$!
pids+=("$first_client")
for _ in $(seq 1 120); do
  [ -s "$work/bundle-first.tools" ] && break
  kill -0 "$first_client" 2>/dev/null || fail "the bundle's server did not start: $(cat "$work/bundle-first.log")"
  sleep 0.25
done
[ "$(cat "$work/bundle-first.tools")" = "$manifest_tools" ] || fail "tools/list of the first client gave $(cat "$work/bundle-first.tools")"

step "the installed app, --minimized under Xvfb, in a session bus of its own: it takes the data directory over"
exec {xvfb_fd}< <(exec Xvfb -displayfd 1 -screen 0 1280x900x24 -nolisten tcp 2>/dev/null)
pids+=($!)
read -r -t 30 display <&"$xvfb_fd" || fail "Xvfb did not start"
port=$(free_port)
mkdir -m 700 "$work/run"
# dbus-run-session: a desktop's session bus, ended with the app, so that nothing the app or
# WebKit starts through it (portals, the accessibility bus) outlives the test; without a
# bus, libdbus would autolaunch one that does.
env -u DBUS_SESSION_BUS_ADDRESS -u DOCS_MCP_TOKEN -u DOCS_INSTANCE_URL \
  DISPLAY=":$display" HOME="$work/home" XDG_RUNTIME_DIR="$work/run" \
  XDG_CONFIG_HOME="$work/home/config" XDG_DATA_HOME="$work/home/data" \
  XDG_CACHE_HOME="$work/home/cache" DOCS_MCP_LOG_DIR="$work/logs" \
  DOCS_MCP_DATA_DIR="$work/data" DOCS_MCP_LISTEN="127.0.0.1:$port" \
  dbus-run-session -- "$app" --minimized >"$work/app.log" 2>&1 &
session_pid=$!
pids=("$session_pid" "${pids[@]}")
tree() {
  local pid=$1 child
  echo "$pid"
  for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do tree "$child"; done
}
app_pid=""
health=""
for _ in $(seq 1 120); do
  kill -0 "$session_pid" 2>/dev/null || { cat "$work/app.log" >&2; fail "the app exited"; }
  if [ -z "$app_pid" ]; then
    for pid in $(tree "$session_pid"); do
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = docs-mcp-app ] && app_pid=$pid
    done
  fi
  status=$(curl -s -o "$work/health.json" -w '%{http_code}' "http://127.0.0.1:$port/health" || true)
  if [ "$status" = 200 ]; then
    health=$(cat "$work/health.json")
    break
  fi
  sleep 0.5
done
[ -n "$health" ] || { cat "$work/app.log" >&2; fail "GET /health did not answer 200 within 60 s"; }
[ -n "$app_pid" ] || fail "no docs-mcp-app process under dbus-run-session"
echo "GET /health: $health"
grep -q "\"version\":\"$version\"" <<<"$health" || fail "/health does not report version $version"
grep -q "hands the data directory over" "$work/app.log" || fail "the app did not take the directory over: $(cat "$work/app.log")"

step "the first client's session carries on at the app"
touch "$work/app-started"
wait "$first_client" || fail "the first client's second tools/list: $(cat "$work/bundle-first.log")"
grep -q "relaying this stdio client to http://127.0.0.1:$port/mcp\|the client's session continues at this service" "$work/bundle-first.log" ||
  fail "the bundle's server did not relay its client to the app: $(cat "$work/bundle-first.log")"

step "the .mcpb's server while the app runs: it relays to the app"
# In the app's desktop session: its session bus (and keyring, where there is one).
bus=$(tr '\0' '\n' <"/proc/$app_pid/environ" | grep '^DBUS_SESSION_BUS_ADDRESS=') ||
  fail "the app has no session bus"
tools=$(run_bundle "$work/bundle-relay.log" "$bus" XDG_RUNTIME_DIR="$work/run") || fail "the bundle's server beside the app"
[ "$tools" = "$manifest_tools" ] || fail "tools/list through the app gave $tools"
grep -q "relaying this stdio client to http://127.0.0.1:$port/mcp" "$work/bundle-relay.log" ||
  fail "the bundle's server did not relay to the app: $(cat "$work/bundle-relay.log")"

step "idle memory of the app's process tree (20 s idle)"
sleep 20
total_rss=0
total_pss=0
for pid in $(tree "$app_pid"); do
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
  pss=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)
  echo "  $pid $(tr -d '\0' <"/proc/$pid/comm"): RSS ${rss:-0} kB, PSS ${pss:-0} kB"
  total_rss=$((total_rss + ${rss:-0}))
  total_pss=$((total_pss + ${pss:-0}))
done
echo "idle memory, whole process tree: RSS $((total_rss / 1024)) MiB, PSS $((total_pss / 1024)) MiB"

# The desktop's part, started through the session bus: not counted above.
for pid in $(tree "$session_pid"); do
  case " $(tree "$app_pid" | tr '\n' ' ') " in *" $pid "*) continue ;; esac
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
  echo "  (session, not counted) $pid $(tr -d '\0' <"/proc/$pid/comm" 2>/dev/null): RSS ${rss:-0} kB"
done

step "stopping the app"
session_tree=$(tree "$session_pid")
kill "$app_pid"
for _ in $(seq 1 40); do
  alive=""
  for pid in $session_tree; do kill -0 "$pid" 2>/dev/null && alive+=" $pid"; done
  [ -z "$alive" ] && break
  sleep 0.25
done
[ -z "$alive" ] || fail "processes of the app or its session still run 10 s after it was stopped:$alive"
! grep -q " $work/" /proc/mounts || fail "a mount under the test's home is left: $(grep " $work/" /proc/mounts)"

step "removing the .deb from the throwaway root"
dpkg --root="$root" --force-depends --force-script-chrootless -r docs-mcp >"$work/dpkg-remove.log" 2>&1 ||
  { cat "$work/dpkg-remove.log" >&2; fail "dpkg -r"; }
left=$(find "$root" -path "$root/var/lib/dpkg" -prune -o -type f -print)
[ -z "$left" ] || fail "files left after removal: $left"

ls -l "$deb" "$rpm" "$mcpb"
echo "package-test: the .deb, .rpm and .mcpb passed every check"
echo "package-test: $steps passed, 0 failed"
