#!/usr/bin/env bash
# Builds the headless `docs-mcp.exe` and the app `docs-mcp-app.exe` for Windows
# (x86_64-pc-windows-gnu) on a Linux machine, in
# a Debian sid chroot: sid's rustc with its std sources (`-Zbuild-std`, as the host's rustup has
# no std for that target), MinGW-w64 to link, and Wine to run it. Not part of `.ci/run`.
#
# Usage (as root): scripts/windows.sh [--check]
#   builds target/x86_64-pc-windows-gnu/<profile>/docs-mcp.exe inside the chroot, copies it
#   to $WINDOWS_OUT (default: target/windows/ of the checkout), and packs the Windows MCP
#   Bundle beside it (docs-mcp-VERSION-windows-x86_64.mcpb: `compatibility.platforms` win32);
#   --check then runs it under Wine: `--help`, `token`, `serve` answering an MCP `initialize`
#   over HTTP on 127.0.0.1, `serve --stdio` as the .mcpb starts it (relaying to that service,
#   then serving alone), and against the repository's Docs-like server (started here): a read,
#   an insert applied in the room and saved, a restart that takes the journal up, an edit
#   waiting under review; one PASS/FAIL line each (exit 1 on any FAIL).
# Environment: WINDOWS_CHROOT (default /work/win-sid), WINDOWS_PROFILE (cargo profile,
# default dev), WINDOWS_OUT, WINDOWS_APP (0: the headless exe only).
# Idempotent: the chroot is made once (debootstrap) and packages are installed when missing;
# cargo's registry and target directory stay inside the chroot (/build) between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
started=$(date +%s)

check=false
[ "${1:-}" = "--check" ] && check=true

root=${WINDOWS_CHROOT:-/work/win-sid}
profile=${WINDOWS_PROFILE:-dev}
out=${WINDOWS_OUT:-$repo/target/windows}
target=x86_64-pc-windows-gnu
mirror=http://deb.debian.org/debian
packages=(rustc cargo rust-src gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine wine64 nsis ca-certificates curl)

if [ "$(id -u)" != 0 ]; then
  echo "windows: run as root (debootstrap, mount, chroot)" >&2
  exit 1
fi

if [ ! -x "$root/usr/bin/apt-get" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
  echo "windows: debootstrap sid into $root"
  debootstrap --variant=minbase sid "$root" "$mirror" >/dev/null
fi

# Everything mounted below is unmounted on exit, last mounted first.
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${mounted[$i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT
mount_at() { # mount_at WHERE mount-arguments...
  local where=$1
  shift
  mkdir -p "$where"
  if ! mountpoint -q "$where"; then
    mount "$@" "$where"
    mounted+=("$where")
  fi
}
mount_at "$root/proc" -t proc proc
mount_at "$root/dev" --bind /dev
mount_at "$root/dev/pts" --bind /dev/pts
mount_at "$root/src" --bind "$repo"
# The checkout is read only in there: the build writes only under /build.
mount -o remount,bind,ro "$root/src"

in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 CARGO_HTTP_CAINFO=/etc/ssl/host-ca-certificates.crt "$@"; }

# sid's Release files may be older than their Valid-Until on a machine whose clock is ahead.
echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99no-check-valid-until"
# The host's CA bundle (cargo reaches crates.io with it, as the host does).
mkdir -p "$root/etc/ssl"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/host-ca-certificates.crt"

missing=()
for p in "${packages[@]}"; do
  in_root dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "windows: installing ${missing[*]}"
  in_root apt-get update -qq
  in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
echo "windows: $(in_root rustc --version), $(in_root wine --version 2>/dev/null || echo 'no wine')"

build_started=$(date +%s)
in_root sh -c "cd /src && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=/build/target \
  cargo build --locked -Zbuild-std --target $target --profile $profile -p docs-mcp --bin docs-mcp"
build_seconds=$(($(date +%s) - build_started))
dir=$profile
[ "$profile" = dev ] && dir=debug
mkdir -p "$out"
cp "$root/build/target/$target/$dir/docs-mcp.exe" "$out/docs-mcp.exe"
echo "windows: built $out/docs-mcp.exe ($(du -h "$out/docs-mcp.exe" | cut -f1)) in ${build_seconds}s"

# The Windows MCP Bundle, made on this machine as scripts/package.sh makes Linux's.
stamp=packaging/node_modules/.installed-lock
if ! cmp -s packaging/package-lock.json "$stamp" 2>/dev/null; then
  npm ci --prefix packaging --no-audit --no-fund --loglevel=error
  cp packaging/package-lock.json "$stamp"
fi
version=$(cargo metadata --no-deps --format-version 1 --locked |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () =>
    console.log(JSON.parse(s).packages.find((p) => p.name === "docs-mcp").version))')
staging="$out/mcpb"
rm -rf "$staging"
mkdir -p "$staging/server"
cp "$out/docs-mcp.exe" "$staging/server/docs-mcp.exe"
cp icons/icon.png "$staging/icon.png"
node packaging/mcpb-manifest.mjs "$version" "$staging" win32
packaging/node_modules/.bin/mcpb validate "$staging/manifest.json"
mcpb="$out/docs-mcp-${version}-windows-x86_64.mcpb"
packaging/node_modules/.bin/mcpb pack "$staging" "$mcpb" >/dev/null
rm -rf "$staging"
echo "windows: packed $mcpb ($(du -h "$mcpb" | cut -f1))"

# The app, docs-mcp-app.exe: tauri-build writes into its crate (src-tauri/gen), so it is built
# from a copy of the checkout under /build (sources only; the UI built on this machine, which
# the app embeds). WINDOWS_APP=0 skips it.
if [ "${WINDOWS_APP:-1}" != 0 ]; then
  [ -f ui/dist/index.html ] || { npm ci --prefix ui --no-audit --no-fund --loglevel=error && npm run build --prefix ui; }
  rm -rf "$root/build/src" && mkdir -p "$root/build/src"
  tar -C "$repo" --exclude=./target --exclude=node_modules --exclude=./.git --exclude=./src-tauri/gen \
    -cf - . | tar -C "$root/build/src" -xf -
  app_started=$(date +%s)
  in_root sh -c "cd /build/src && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=/build/target \
    cargo build --locked -Zbuild-std --target $target --profile $profile -p docs-mcp-app --bin docs-mcp-app"
  app_seconds=$(($(date +%s) - app_started))
  cp "$root/build/target/$target/$dir/docs-mcp-app.exe" "$out/docs-mcp-app.exe"
  # webview2-com's loader, which a windows-gnu build loads at start: shipped beside the app.
  cp "$root/build/target/$target/$dir/WebView2Loader.dll" "$out/WebView2Loader.dll"
  echo "windows: built $out/docs-mcp-app.exe ($(du -h "$out/docs-mcp-app.exe" | cut -f1)) in ${app_seconds}s"

  # Its installer (packaging/windows/installer.nsi), with both executables and the icon.
  rm -rf "$root/build/installer" && mkdir -p "$root/build/installer"
  cp "$out/docs-mcp-app.exe" "$out/docs-mcp.exe" "$out/WebView2Loader.dll" icons/icon.ico \
    packaging/windows/installer.nsi \
    "$root/build/installer/"
  in_root makensis -V2 -DVERSION="$version" -DAPP_EXE=/build/installer/docs-mcp-app.exe \
    -DCLI_EXE=/build/installer/docs-mcp.exe -DWEBVIEW2_LOADER=/build/installer/WebView2Loader.dll \
    -DICON=/build/installer/icon.ico \
    -DOUT=/build/installer/docs-mcp-installer.exe /build/installer/installer.nsi
  installer="$out/docs-mcp-${version}-windows-x86_64-setup.exe"
  cp "$root/build/installer/docs-mcp-installer.exe" "$installer"
  echo "windows: made $installer ($(du -h "$installer" | cut -f1))"
fi

if $check; then
  cp "$out/docs-mcp.exe" "$root/build/docs-mcp.exe"
  # The repository's Docs-like server (real Hocuspocus, BlockNote's parser) on this machine's
  # loopback, which the chroot shares: a user signed in, and a document only it may read.
  [ -d tests/docs-server/node_modules ] ||
    npm ci --prefix tests/docs-server --no-audit --no-fund --loglevel=error
  server_out=$(mktemp)
  # (it ends at the end of its stdin: this script's descriptor 7, closed when the script ends)
  exec 7> >(exec node tests/docs-server/src/main.mjs --port 0 --collaboration hocuspocus \
    >"$server_out" 2>/dev/null)
  for _ in $(seq 1 150); do
    grep -q '^LISTENING ' "$server_out" && break
    sleep 0.2
  done
  docs_url=$(sed -n 's/^LISTENING //p' "$server_out" | head -1)
  [ -n "$docs_url" ] || { echo "windows: the Docs-like server did not start" >&2; exit 1; }
  control() { curl -sf -X POST "$docs_url/__test__/$1" -H 'Content-Type: application/json' --data "$2"; }
  field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$1" "$2"; }
  user=$(control users '{"email":"wine@example.org","full_name":"Wine Check"}')
  document=$(control documents "{\"title\":\"Under Wine\",\"markdown\":\"# Under Wine\\n\\nA paragraph read from Windows.\",
    \"link_reach\":\"restricted\",\"link_role\":\"reader\",
    \"accesses\":[{\"user_id\":\"$(field "$user" id)\",\"role\":\"owner\"}]}")
  # A display for the app's tray (Wine's), shared with the chroot.
  command -v Xvfb >/dev/null || apt-get install -y -qq xvfb >/dev/null
  Xvfb :97 -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb=$!
  mount_at "$root/tmp/.X11-unix" --bind /tmp/.X11-unix
  in_root env DOCS_URL="$docs_url" DOCUMENT="$(field "$document" id)" DISPLAY=:97 \
    COOKIE="$(field "$user" session_cookie)" CSRF="$(field "$user" csrf_token)" \
    bash -s <<'CHECK' || status=$?
set -uo pipefail
export WINEPREFIX=/build/wine WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
exe=/build/docs-mcp.exe
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
listening() { # listening PORT: whether a service answers /health there within 30 s
  for _ in $(seq 1 150); do
    curl -s -o /dev/null "http://127.0.0.1:$1/health" && return 0
    sleep 0.2
  done
  return 1
}
stop() { # stop PID: Ctrl-C (Wine turns SIGINT into the console's), then up to 20 s to end
  kill -INT "$1"
  for _ in $(seq 1 100); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.2
  done
  return 1
}
wineserver=$(command -v wineserver || ls /usr/lib/*/wine/wineserver 2>/dev/null | head -1)
wine wineboot --init >/dev/null 2>&1

if wine "$exe" --help >/tmp/help.txt 2>&1 && grep -q '^Usage: docs-mcp' /tmp/help.txt; then
  pass "docs-mcp.exe --help: $(head -1 /tmp/help.txt | tr -d '\r')"
else
  fail "docs-mcp.exe --help: $(head -5 /tmp/help.txt)"
fi

port=17658
wine "$exe" serve --instance http://127.0.0.1:9 --listen 127.0.0.1:$port >/tmp/serve.log 2>&1 &
serve=$!
if listening $port; then
  pass "serve listens on 127.0.0.1:$port"
else
  fail "serve does not listen on 127.0.0.1:$port: $(tail -5 /tmp/serve.log)"
fi

token=$(wine "$exe" token --show 2>/tmp/token.err | tr -d '\r' | tail -1)
where=$(wine "$exe" token 2>&1 | tr -d '\r' | head -1)
if [ "${#token}" = 43 ]; then
  pass "token: ${where}"
else
  fail "token --show: '$token' $(cat /tmp/token.err)"
fi

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"windows-check","version":"0"}}}'
post() {
  curl -s -o /tmp/answer.txt -w '%{http_code}' -X POST "http://127.0.0.1:$port/mcp" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' "$@" \
    --data "$init"
}
code=$(post)
if [ "$code" = 401 ]; then pass "initialize without the token: 401"; else fail "initialize without the token: $code"; fi
code=$(post -H "Authorization: Bearer $token")
if [ "$code" = 200 ] && grep -q '"protocolVersion"' /tmp/answer.txt; then
  pass "initialize with the token: 200, $(grep -o '"serverInfo":{[^}]*}' /tmp/answer.txt)"
else
  fail "initialize with the token: $code $(head -c 400 /tmp/answer.txt)"
fi

# `serve --stdio` as Claude Desktop starts the .mcpb's server: the handshake and the tool list,
# here relayed to the service holding the data directory, and below served alone.
tools_expected=$(awk '/^## /{exit} /^\| `[a-z_]+` \|/{n++} END{print n}' /src/docs/tools.md)
stdio_check() { # stdio_check WHAT
  local initialized='{"jsonrpc":"2.0","method":"notifications/initialized"}'
  local list='{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
  { printf '%s\n' "$init"; sleep 5; printf '%s\n%s\n' "$initialized" "$list"; sleep 15; } |
    timeout 120 wine "$exe" serve --stdio --instance http://127.0.0.1:9 2>/tmp/stdio.err |
    tr -d '\r' >/tmp/stdio.out
  local tools
  tools=$(grep '"id":2' /tmp/stdio.out | grep -o '"inputSchema"' | wc -l)
  # (an answer relayed from the HTTP service has its keys in another order)
  if grep '"id":1[,}]' /tmp/stdio.out | grep -q '"serverInfo"' && [ "$tools" = "$tools_expected" ]; then
    pass "serve --stdio, $1: initialize answered, $tools tools listed"
  else
    fail "serve --stdio, $1: $tools tools of $tools_expected; $(head -c 300 /tmp/stdio.out) $(tail -3 /tmp/stdio.err)"
  fi
}
stdio_check "relayed to the running service"

# A second service on the same data directory is refused, and names the one holding it (what
# it reads from the lock file the first one holds locked).
second=$(timeout 120 wine "$exe" serve --instance http://127.0.0.1:9 --listen 127.0.0.1:$((port + 1)) 2>&1 | tr -d '\r')
if grep -q "MCP endpoint http://127.0.0.1:$port/mcp" <<<"$second"; then
  pass "a second serve is refused: $(grep -o 'another Docs MCP service.*' <<<"$second" | head -1)"
else
  fail "a second serve: $(tail -3 <<<"$second")"
fi

# Ctrl-C: the service saves and ends.
if stop "$serve" && grep -q 'shutting down: saving pending work' /tmp/serve.log; then
  pass "Ctrl-C: $(grep -o 'shutting down: saving pending work' /tmp/serve.log), ended"
else
  fail "Ctrl-C: $(tail -3 /tmp/serve.log)"
  kill -KILL "$serve" 2>/dev/null
fi

stdio_check "serving alone"

# Against the Docs-like server, signed in: a read, an insert applied live (in the room) and
# saved (in the content the server stores), then a restart that takes the journal up again.
lport=17660
live_serve() { # live_serve APPROVAL
  DOCS_SESSION_COOKIE="$COOKIE" DOCS_CSRF_TOKEN="$CSRF" DOCS_MCP_SAVE_INTERVAL=1 \
    wine "$exe" serve --instance "$DOCS_URL" --listen 127.0.0.1:$lport --approval "$1" \
    >>/tmp/live.log 2>&1 &
  live=$!
  listening $lport
}
mcp() { # mcp JSON: the answer (a JSON body, or the data of an event stream)
  curl -s -X POST "http://127.0.0.1:$lport/mcp" -D /tmp/headers.txt \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Authorization: Bearer $token" ${session:+-H "Mcp-Session-Id: $session"} --data "$1" |
    sed -n 's/^data: //p; /^{/p'
}
call() { # call TOOL ARGUMENTS
  mcp "{\"jsonrpc\":\"2.0\",\"id\":$((++calls)),\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":$2}}"
}
calls=1
connect() {
  session=
  mcp "$init" >/dev/null
  session=$(grep -i '^mcp-session-id:' /tmp/headers.txt | cut -d' ' -f2 | tr -d '\r')
  mcp '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
}
if live_serve auto; then
  connect
  read=$(call read_document "{\"document\":\"$DOCUMENT\"}")
  if grep -q 'A paragraph read from Windows.' <<<"$read"; then
    pass "read_document over HTTP: the document's text, from $DOCS_URL"
  else
    fail "read_document: $(head -c 400 <<<"$read") $(tail -3 /tmp/live.log)"
  fi
  inserted=$(call insert_blocks "{\"document\":\"$DOCUMENT\",\"position\":{\"at\":\"end\"},\"markdown\":\"Written from Windows.\"}")
  edit=$(grep -o '"edit_id":"[^"]*"' <<<"$inserted" | head -1 | cut -d'"' -f4)
  room=$(curl -s "$DOCS_URL/__test__/documents/$DOCUMENT/live")
  if grep -q '"status":"applied"' <<<"$inserted" && grep -q 'Written from Windows.' <<<"$room"; then
    pass "insert_blocks: applied, and in the room's document (what every browser in it gets)"
  else
    fail "insert_blocks: $(head -c 400 <<<"$inserted"); the room: $(head -c 200 <<<"$room")"
  fi
  for _ in $(seq 1 100); do
    curl -s "$DOCS_URL/__test__/documents/$DOCUMENT/stored" | grep -q 'Written from Windows.' && break
    sleep 0.3
  done
  if curl -s "$DOCS_URL/__test__/documents/$DOCUMENT/stored" | grep -q 'Written from Windows.'; then
    pass "the insert is saved: in the content Docs stores"
  else
    fail "the insert is not in the stored content: $(tail -3 /tmp/live.log)"
  fi
  stop "$live"
  if live_serve review; then
    listed=$(wine "$exe" edits list --json 2>&1 | tr -d '\r')
    if [ -n "$edit" ] && grep -q "$edit" <<<"$listed" && grep -qE '"saved_at": ?[0-9]' <<<"$listed"; then
      pass "restarted: the journal has edit $edit, applied and saved"
    else
      fail "restarted: edit '$edit' not listed as saved: $(head -c 400 <<<"$listed")"
    fi
    # Under review (the default), an agent's edit waits for the person. (Their approval with
    # `edits approve` needs the code it shows typed back in a terminal: under Wine, in a
    # pseudo-terminal from `script`, the typed line never reached the program — not checked.)
    connect
    pending=$(call insert_blocks "{\"document\":\"$DOCUMENT\",\"position\":{\"at\":\"end\"},\"markdown\":\"Waiting for a person.\"}")
    room=$(curl -s "$DOCS_URL/__test__/documents/$DOCUMENT/live")
    if grep -q '"status":"pending"' <<<"$pending" && ! grep -q 'Waiting for a person.' <<<"$room"; then
      pass "under review, an insert waits for the person: pending, not in the room"
    else
      fail "insert_blocks under review: $(head -c 400 <<<"$pending")"
    fi
    stop "$live"
  else
    fail "restarted: serve does not listen: $(tail -3 /tmp/live.log)"
  fi
else
  fail "serve against the Docs-like server does not listen: $(tail -5 /tmp/live.log)"
fi

# The installer, silent (/S), as a person without administrator rights: the files, the Start
# menu shortcut, the uninstall entry; the installed CLI and app; then its uninstaller. (The
# app's window is not opened: it needs the WebView2 runtime, which Wine lacks.)
if [ -f /build/installer/docs-mcp-installer.exe ]; then
  home=/build/wine/drive_c/users/$(whoami)
  installed="$home/AppData/Local/Programs/Docs MCP"
  shortcut="$home/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Docs MCP.lnk"
  key='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\org.lasuite.docs-mcp'
  wine /build/installer/docs-mcp-installer.exe /S >/tmp/setup.log 2>&1
  entry=$(wine reg query "$key" 2>/dev/null | tr -d '\r')
  if [ -f "$installed/docs-mcp-app.exe" ] && [ -f "$installed/docs-mcp.exe" ] &&
    [ -f "$installed/uninstall.exe" ] && [ -f "$shortcut" ] &&
    grep -q 'DisplayName.*Docs MCP' <<<"$entry" && grep -q 'UninstallString' <<<"$entry"; then
    pass "installer: $(ls "$installed" | tr '\n' ' ')in %LOCALAPPDATA%\\Programs\\Docs MCP, Start menu shortcut, uninstall entry"
  else
    fail "installer: $(ls "$installed" 2>&1 | tr '\n' ' ') shortcut $([ -f "$shortcut" ] && echo yes || echo no), entry: $entry"
  fi
  installed_exe=$(wine "$installed/docs-mcp.exe" --version 2>&1 | tr -d '\r')
  if grep -q '^docs-mcp ' <<<"$installed_exe"; then
    pass "the installed docs-mcp.exe runs: $installed_exe"
  else
    fail "the installed docs-mcp.exe: $installed_exe"
  fi
  # The installed app, started as at login (--minimized: the tray, no window, so no WebView2
  # needed), hosts the service: the MCP endpoint answers with the agents' token.
  wine "$installed/docs-mcp-app.exe" --minimized >/tmp/app.log 2>&1 &
  app=$!
  if listening 7658 && [ "$(port=7658 post -H "Authorization: Bearer $token")" = 200 ] &&
    grep -q '"serverInfo"' /tmp/answer.txt; then
    pass "the installed app starts in the tray and hosts the service: initialize with the token, 200"
  else
    fail "the installed app: $(tail -5 /tmp/app.log)"
  fi
  # (It quits from its tray menu; Wine's processes are ended instead.)
  "$wineserver" -k 2>/dev/null
  wait "$app" 2>/dev/null
  wine "$installed/uninstall.exe" /S >/tmp/uninstall.log 2>&1
  for _ in $(seq 1 100); do [ -e "$installed" ] || break; sleep 0.2; done
  if [ ! -e "$installed" ] && [ ! -e "$shortcut" ] && ! wine reg query "$key" >/dev/null 2>&1; then
    pass "uninstalled: no files, no shortcut, no uninstall entry"
  else
    fail "uninstall left: $(ls "$installed" 2>&1 | tr '\n' ' ') shortcut $([ -f "$shortcut" ] && echo yes || echo no)"
  fi
fi

"$wineserver" -k 2>/dev/null
wait
exit $failed
CHECK
fi

[ -n "${xvfb:-}" ] && kill "$xvfb" 2>/dev/null
echo "windows: done in $(($(date +%s) - started))s"
exit "${status:-0}"
