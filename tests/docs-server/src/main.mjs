#!/usr/bin/env node
// A La Suite Docs-like test server: fake Docs backend (REST /api/v1.0/) + the real
// Hocuspocus collaboration server (/collaboration/ws/) + sign-in through a fake identity
// provider and the frontend's pages (login.mjs) + a test control API (/__test__/).
//
//   node src/main.mjs [--port 0] [--docs-version 5.7.0 | --legacy-content] [--throttle-rate 80]
//                     [--collaboration hocuspocus|yhub] [--latency-ms 0] [--stay] [--demo]
//
// --collaboration: the collaboration server Docs runs. `hocuspocus` (default): today's Docs
// (collab.mjs). `yhub`: Docs' next major (collab-yhub.mjs: the y-websocket server at
// /collaboration/ws/v1/docs/<id>, REST /collaboration/ydoc/v1/docs/<id>, the server persists
// the content: no documents/<id>/content/ endpoint).
//
// --latency-ms: every REST answer (/api/v1.0/) waits this long first, as a backend one round
// trip away over a network would; for benchmarks (the collaboration socket is not delayed).
//
// --docs-version: the Docs release to behave as (5.7.0 by default; below 5.0.0, the content is
// a field of the document, as --legacy-content says; below 5.7.0, favorites at favorite_list/).
//
// Prints exactly one line `LISTENING http://127.0.0.1:<port>` (`https://` with --tls-cert and
// --tls-key) on stdout when ready (with
// --demo, then the sample documents: see demo.mjs). Exits when stdin reaches EOF or the
// parent process goes away (unless --stay).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { versionAtLeast } from './version.mjs';

// Keep stdout for the LISTENING line only: anything a library logs goes to stderr.
const writeStdout = process.stdout.write.bind(process.stdout);
console.log = console.error;
console.info = console.error;
console.debug = console.error;

function parseArgs(argv) {
  const opts = {
    port: 0,
    legacyContent: false,
    docsVersion: null,
    throttleRate: 80,
    latencyMs: 0,
    collaboration: 'hocuspocus',
    stay: false,
    demo: false,
    // With both: HTTPS and WSS (PEM files), as a real instance serves.
    tlsCert: null,
    tlsKey: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`missing value for ${a}`);
      return v;
    };
    if (a === '--port') opts.port = Number.parseInt(value(), 10);
    else if (a.startsWith('--port=')) opts.port = Number.parseInt(a.slice(7), 10);
    else if (a === '--legacy-content') opts.legacyContent = true;
    else if (a === '--docs-version') opts.docsVersion = value();
    else if (a === '--throttle-rate') opts.throttleRate = Number.parseInt(value(), 10);
    else if (a.startsWith('--throttle-rate=')) opts.throttleRate = Number.parseInt(a.slice(16), 10);
    else if (a === '--latency-ms') opts.latencyMs = Number.parseInt(value(), 10);
    else if (a === '--collaboration') opts.collaboration = value();
    else if (a.startsWith('--collaboration=')) opts.collaboration = a.slice(16);
    else if (a === '--stay') opts.stay = true;
    else if (a === '--demo') opts.demo = true;
    else if (a === '--tls-cert') opts.tlsCert = value();
    else if (a === '--tls-key') opts.tlsKey = value();
    else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new Error('bad --port');
  if ((opts.tlsCert === null) !== (opts.tlsKey === null)) throw new Error('--tls-cert and --tls-key go together');
  if (!Number.isInteger(opts.throttleRate) || opts.throttleRate < 0) throw new Error('bad --throttle-rate');
  if (!Number.isInteger(opts.latencyMs) || opts.latencyMs < 0) throw new Error('bad --latency-ms');
  // The Docs release the server behaves as: 5.7 by default, 4.8 with the pre-5.0 content field.
  opts.docsVersion ??= opts.legacyContent ? '4.8.0' : '5.7.0';
  if (!/^\d+\.\d+\.\d+$/.test(opts.docsVersion)) throw new Error('bad --docs-version (X.Y.Z)');
  if (opts.legacyContent && versionAtLeast(opts.docsVersion, '5.0.0')) {
    throw new Error('--legacy-content is Docs before 5.0: --docs-version must be below 5.0.0');
  }
  opts.legacyContent = !versionAtLeast(opts.docsVersion, '5.0.0');
  if (!['hocuspocus', 'yhub'].includes(opts.collaboration)) throw new Error('bad --collaboration (hocuspocus|yhub)');
  if (opts.collaboration === 'yhub' && opts.legacyContent) {
    throw new Error('--collaboration yhub is Docs after 5.x: not with a --docs-version below 5.0.0');
  }
  return opts;
}

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (e) {
  console.error(`docs-server: ${e.message}`);
  process.exit(2);
}

// Loaded after the console redirection so that nothing they print reaches stdout.
const { Store } = await import('./store.mjs');
const { createApi } = await import('./api.mjs');
const { createControl } = await import('./control.mjs');
const { createLogin } = await import('./login.mjs');
const { Typists } = await import('./typist.mjs');
const { notFoundPage, send } = await import('./http.mjs');

const state = {
  port: 0,
  origin: '',
  allowedOrigins: [],
  forcedThrottle: { count: 0, retryAfter: 0 },
  // Documents whose stored content is held back (`hold-content`): id → { held, release }.
  heldContent: new Map(),
  // Email the next /api/v1.0/authenticate/ signs in without showing the login form.
  autoSignIn: null,
};
const stats = {
  collaboration: opts.collaboration,
  requests: 0,
  content_patches: {},
  saves_off_websocket: {},
  ydoc_patches: {},
  throttled: 0,
  ws_accepted: 0,
  // Hocuspocus: connections that asked to join each room (the server checked their rights).
  room_joins: {},
  // Bytes of the WebSocket messages received in each room, from all its clients (what a
  // change costs on the wire: the benchmarks' one-word change).
  ws_bytes_in: {},
};
const yhub = opts.collaboration === 'yhub';
// Under yhub the content endpoint is gone, and so are its abilities.
const store = new Store({ contentAbilities: !yhub });
// Each mode loads only its own server's packages.
const collab = yhub
  ? (await import('./collab-yhub.mjs')).createYhubCollab({ store, state, stats })
  : (await import('./collab.mjs')).createCollab({ store, state, stats });
const typists = new Typists({ state, opts });
const api = createApi({ store, opts, state, stats, collab });
const control = createControl({ store, state, stats, collab, typists });
const login = createLogin({ store, state });

const handler = async (req, res) => {
  let url;
  try {
    url = new URL(req.url, state.origin || 'http://127.0.0.1');
  } catch {
    send(res, 400, { detail: 'bad request' });
    return;
  }
  try {
    if (await login(req, res, url)) return;
    if (url.pathname.startsWith('/api/v1.0/')) await api(req, res, url);
    else if (url.pathname.startsWith('/__test__/')) await control(req, res, url);
    else if (url.pathname.startsWith('/collaboration/') && collab.handleHttp) await collab.handleHttp(req, res, url);
    else notFoundPage(res);
  } catch (err) {
    console.error('[docs-server] unhandled', err);
    if (!res.headersSent) send(res, 500, { detail: 'Internal server error.' });
  }
};
const scheme = opts.tlsCert ? 'https' : 'http';
const server = opts.tlsCert
  ? https.createServer({ cert: readFileSync(opts.tlsCert), key: readFileSync(opts.tlsKey) }, handler)
  : http.createServer(handler);
// Keep idle HTTP connections like the nginx in front of Docs (75 s), not Node's 5 s: a client
// reusing a pooled connection must not race the server closing it after a long seed.
server.keepAliveTimeout = 75_000;
server.headersTimeout = 80_000;
server.on('upgrade', (req, socket, head) => collab.handleUpgrade(req, socket, head));
server.on('clientError', (_err, socket) => socket.destroy());

let exiting = false;
function shutdown(code = 0) {
  if (exiting) return;
  exiting = true;
  try {
    typists.destroyAll();
    collab.close();
    server.closeAllConnections?.();
    server.close();
  } catch {
    /* ignore */
  }
  setTimeout(() => process.exit(code), 50).unref();
}

process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
process.on('unhandledRejection', (err) => console.error('[docs-server] unhandled rejection', err));

server.listen(opts.port, '127.0.0.1', () => {
  const { port } = server.address();
  state.port = port;
  state.origin = `${scheme}://127.0.0.1:${port}`;
  state.allowedOrigins = [`${scheme}://127.0.0.1:${port}`, `${scheme}://localhost:${port}`];
  writeStdout(`LISTENING ${state.origin}\n`);
  if (opts.demo) {
    import('./demo.mjs')
      .then(({ seedDemo }) => seedDemo(store))
      .then((documents) => {
        for (const { id, title } of documents) writeStdout(`DEMO_DOCUMENT ${id} ${title}\n`);
        writeStdout('DEMO_READY\n');
      })
      .catch((e) => {
        console.error('[docs-server] demo documents', e);
        shutdown(1);
      });
  }

  if (!opts.stay) {
    // Exit when the parent goes away: stdin EOF (the parent holds the pipe) ...
    process.stdin.on('end', () => shutdown(0));
    process.stdin.on('close', () => shutdown(0));
    process.stdin.on('error', () => shutdown(0));
    process.stdin.resume();
    // ... or the parent process changes (re-parented to init / a subreaper).
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent || process.ppid === 1) shutdown(0);
    }, 1000).unref();
  }
});
