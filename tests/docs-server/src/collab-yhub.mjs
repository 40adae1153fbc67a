// The collaboration server of Docs' next major ("yhub", `--collaboration yhub`): plain
// y-websocket protocol, built on the REAL y-websocket server (`@y/websocket-server`'s utils:
// setupWSConnection, docs, getYDoc, setPersistence), with what yhub and Docs' yhub-server add
// on top of it:
//
// - WebSocket `/collaboration/ws/v1/docs/{docid}[?customAttributions=k:v,...]`; refusals are
//   HTTP statuses before the upgrade (401 Origin, 403 room/document/abilities, 503 down);
//   no cookie = the anonymous user.
// - On open the server sends SyncStep1 AND SyncStep2 (its full state), then awareness; it
//   ignores a client's SyncStep1; read-only connections have EVERY inbound message dropped.
// - The server persists: a room is loaded from the store's content and written back on every
//   update (the library unloads a room when its last connection leaves).
// - Close codes: 4401 "permission revoked" (re-check on reset-connections), 4404 "document
//   deleted".
// - REST `GET|PATCH /collaboration/ydoc/v1/docs/{docid}` (JSON with `Accept:
//   application/json`, lib0-any otherwise).
//
// Exposes the same interface as createCollab (collab.mjs), plus `handleHttp` and
// `attributions`.
import { STATUS_CODES } from 'node:http';

import { docs, getYDoc, setPersistence, setupWSConnection } from '@y/websocket-server/utils';
import * as awarenessProtocol from 'y-protocols/awareness';
import { WebSocketServer } from 'ws';
import * as Y from 'yjs';

import { parseCookies, readBody } from './http.mjs';
import { isUuid4 } from './store.mjs';
import { socketControls } from './sockets.mjs';

export const WS_PREFIX = '/collaboration/ws/v1/docs';
export const YDOC_PREFIX = '/collaboration/ydoc/v1/docs';

const SESSION_COOKIE = 'docs_sessionid';
const WS_RE = /^\/collaboration\/ws\/v1\/docs\/([^/]+)\/?$/;
const YDOC_RE = /^\/collaboration\/ydoc\/v1\/docs\/([^/]+)\/?$/;
const ACTIVITY_RE = /^\/collaboration\/activity\/v1\/docs\/([^/]+)\/?$/;
const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
const SYNC_STEP1 = 0;
const SYNC_STEP2 = 1;

/** Origin of the Y.Doc changes applied from the store or through REST (not a connection). */
const STORE_ORIGIN = { source: 'docs-server-store' };

/** A lowercase UUID v4, as yhub's UUID4 check wants it. */
const isLowerUuid4 = (s) => isUuid4(s) && s === s.toLowerCase();

/** `source:ai,tool:x` → [{k: 'source', v: 'ai'}, {k: 'tool', v: 'x'}] (malformed pairs skipped). */
export function parseCustomAttributions(raw) {
  if (!raw) return [];
  const out = [];
  for (const pair of raw.split(',')) {
    const i = pair.indexOf(':');
    if (i <= 0) continue;
    const k = pair.slice(0, i).trim();
    const v = pair.slice(i + 1).trim();
    if (k) out.push({ k, v });
  }
  return out;
}

// ---- lib0 varuint / any encoding (the wire format of y-websocket and of yhub's REST bodies) ----

function writeVarUint(out, n) {
  while (n > 0x7f) {
    out.push(0x80 | (n & 0x7f));
    n = Math.floor(n / 128);
  }
  out.push(n);
}

function writeVarUint8Array(out, bytes) {
  writeVarUint(out, bytes.length);
  for (const b of bytes) out.push(b);
}

/** lib0/encoding `writeAny`, for the values yhub answers with. */
function writeAny(out, v) {
  if (v === undefined) out.push(127);
  else if (v === null) out.push(126);
  else if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) <= 0x7fffffff && !Object.is(v, -0)) {
      out.push(125);
      let num = Math.abs(v);
      out.push((num > 0x3f ? 0x80 : 0) | (v < 0 ? 0x40 : 0) | (num & 0x3f));
      num = Math.floor(num / 64);
      while (num > 0) {
        out.push((num > 0x7f ? 0x80 : 0) | (num & 0x7f));
        num = Math.floor(num / 128);
      }
    } else {
      out.push(123);
      const b = Buffer.alloc(8);
      b.writeDoubleBE(v);
      for (const x of b) out.push(x);
    }
  } else if (typeof v === 'bigint') {
    out.push(122);
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    for (const x of b) out.push(x);
  } else if (typeof v === 'string') {
    out.push(119);
    writeVarUint8Array(out, Buffer.from(v, 'utf8'));
  } else if (typeof v === 'boolean') out.push(v ? 120 : 121);
  else if (v instanceof Uint8Array) {
    out.push(116);
    writeVarUint8Array(out, v);
  } else if (Array.isArray(v)) {
    out.push(117);
    writeVarUint(out, v.length);
    for (const x of v) writeAny(out, x);
  } else {
    const keys = Object.keys(v);
    out.push(118);
    writeVarUint(out, keys.length);
    for (const k of keys) {
      writeVarUint8Array(out, Buffer.from(k, 'utf8'));
      writeAny(out, v[k]);
    }
  }
}

export function encodeAny(v) {
  const out = [];
  writeAny(out, v);
  return Buffer.from(out);
}

/** lib0/decoding `readAny` (throws on malformed input). */
export function decodeAny(bytes) {
  let pos = 0;
  const byte = () => {
    if (pos >= bytes.length) throw new Error('unexpected end of lib0 data');
    return bytes[pos++];
  };
  const varUint = () => {
    let num = 0;
    let mult = 1;
    for (;;) {
      const r = byte();
      num += (r & 0x7f) * mult;
      mult *= 128;
      if (r < 0x80) return num;
      if (mult > 2 ** 53) throw new Error('varuint too long');
    }
  };
  const take = (n) => {
    if (pos + n > bytes.length) throw new Error('unexpected end of lib0 data');
    const s = bytes.subarray(pos, pos + n);
    pos += n;
    return s;
  };
  const any = () => {
    const t = byte();
    switch (t) {
      case 127:
        return undefined;
      case 126:
        return null;
      case 125: {
        let r = byte();
        let num = r & 0x3f;
        let mult = 64;
        const sign = r & 0x40 ? -1 : 1;
        while (r & 0x80) {
          r = byte();
          num += (r & 0x7f) * mult;
          mult *= 128;
        }
        return sign * num;
      }
      case 124:
        return Buffer.from(take(4)).readFloatBE(0);
      case 123:
        return Buffer.from(take(8)).readDoubleBE(0);
      case 122:
        return Buffer.from(take(8)).readBigInt64BE(0);
      case 121:
        return false;
      case 120:
        return true;
      case 119:
        return Buffer.from(take(varUint())).toString('utf8');
      case 118: {
        const o = {};
        const n = varUint();
        for (let i = 0; i < n; i++) {
          const k = Buffer.from(take(varUint())).toString('utf8');
          o[k] = any();
        }
        return o;
      }
      case 117: {
        const n = varUint();
        const a = [];
        for (let i = 0; i < n; i++) a.push(any());
        return a;
      }
      case 116:
        return new Uint8Array(take(varUint()));
      default:
        throw new Error(`unknown lib0 any type ${t}`);
    }
  };
  const v = any();
  return v;
}

/** `[messageSync, syncStep2, varUint8Array(full state)]`: what yhub sends right after step1. */
function syncStep2Message(ydoc) {
  const out = [MESSAGE_SYNC, SYNC_STEP2];
  writeVarUint8Array(out, Y.encodeStateAsUpdate(ydoc));
  return Uint8Array.from(out);
}

function toBytes(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export function createYhubCollab({ store, state, stats }) {
  const sockets = new Set();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  // docId -> { connections: [entry], patches: [entry] } (closed connections kept).
  const attributionLog = new Map();
  const logFor = (docId) => {
    let log = attributionLog.get(docId);
    if (!log) {
      log = { connections: [], patches: [] };
      attributionLog.set(docId, log);
    }
    return log;
  };
  let down = false;
  let refusedAgent = null;
  // docId -> [{at, by, customAttributions}]: each change the room took, as yhub attributes
  // it (the user, `anon:<hash>` for an anonymous one; the connection's or the PATCH's tags).
  const changes = new Map();
  const recordChange = (docId, origin) => {
    if (!origin || origin === STORE_ORIGIN) return;
    const by = origin.userId ?? `anon:${String(origin.sessionKey ?? 'anonymous').slice(0, 16)}`;
    const customAttributions = origin.attributions ?? [];
    let list = changes.get(docId);
    if (!list) changes.set(docId, (list = []));
    list.push({ at: Date.now(), by, customAttributions });
  };

  const persist = (docName, ydoc) => {
    const doc = store.documents.get(docName);
    if (!doc || doc.deleted_at) return;
    store.setContent(doc, Buffer.from(Y.encodeStateAsUpdate(ydoc)).toString('base64'));
  };

  // The server persists the rooms itself: loaded from the store's content when a room is
  // created, written back on every update (and once more when the last connection leaves).
  setPersistence({
    provider: null,
    bindState: (docName, ydoc) => {
      const doc = store.documents.get(docName);
      if (doc?.content) Y.applyUpdate(ydoc, Buffer.from(doc.content, 'base64'), STORE_ORIGIN);
      ydoc.on('update', (_update, origin) => {
        persist(docName, ydoc);
        recordChange(docName, origin);
      });
    },
    writeState: async (docName, ydoc) => persist(docName, ydoc),
  });

  /** Unloads a room nobody is connected to (what the library does when the last one leaves). */
  const unloadIfIdle = (docId) => {
    const room = docs.get(docId);
    if (room && room.conns.size === 0) {
      persist(docId, room);
      docs.delete(docId);
      room.destroy();
    }
  };

  const refuse = (socket, code, body = '') => {
    const text = body || STATUS_CODES[code] || '';
    socket.write(
      `HTTP/1.1 ${code} ${STATUS_CODES[code] || 'Error'}\r\nConnection: close\r\n` +
        `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
    socket.destroy();
  };

  /** Who the request is and what they may do with the document: {status?, user, doc, abilities}. */
  const authorize = (req, docId) => {
    const cookies = parseCookies(req.headers.cookie);
    const sessionKey = cookies[SESSION_COOKIE] || null;
    const user = store.userForSession(sessionKey);
    if (!isLowerUuid4(docId)) return { status: 403, sessionKey, user };
    const doc = store.documents.get(docId);
    if (!doc) return { status: 403, sessionKey, user };
    if (doc.deleted_at) return { status: 403, deleted: true, sessionKey, user, doc };
    const abilities = store.abilities(doc, user);
    if (!abilities.retrieve) return { status: 403, sessionKey, user, doc };
    return { sessionKey, user, doc, abilities };
  };

  function handleUpgrade(req, socket, head) {
    let url;
    try {
      url = new URL(req.url, state.origin);
    } catch {
      socket.destroy();
      return;
    }
    const m = url.pathname.match(WS_RE);
    if (!m) return refuse(socket, 404);
    if (down) return refuse(socket, 503);
    // A proxy that does not pass WebSockets for some clients (see `refuseSocketsOf`).
    if (refusedAgent && String(req.headers['user-agent'] || '').includes(refusedAgent)) {
      return refuse(socket, 502);
    }
    const origin = req.headers.origin;
    if (!origin || !state.allowedOrigins.includes(origin)) return refuse(socket, 401, 'Origin not allowed');
    const docId = m[1];
    const auth = authorize(req, docId);
    if (auth.status) return refuse(socket, auth.status);
    const attributions = parseCustomAttributions(url.searchParams.get('customAttributions'));
    const readOnly = !auth.abilities.update;

    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.room = docId;
      ws.userAgent = req.headers['user-agent'] || '';
      ws.sessionKey = auth.sessionKey;
      ws.userId = auth.user?.id ?? null;
      ws.readOnly = readOnly;
      ws.attributions = attributions;
      const entry = {
        user_id: ws.userId,
        attributions,
        read_only: readOnly,
        open: true,
        updates: 0,
        dropped: 0,
        awareness_received: 0,
        pings_received: 0,
        opened_at: new Date().toISOString(),
        close_code: null,
      };
      logFor(docId).connections.push(entry);
      sockets.add(ws);
      stats.ws_accepted += 1;
      if (auth.user) auth.doc.linkTraces.add(auth.user.id);
      ws.on('close', (code) => {
        sockets.delete(ws);
        entry.open = false;
        entry.close_code = code;
      });
      ws.on('error', (err) => console.error('[docs-server] websocket error:', err.message));
      // (a client sends its presence before a ping it queued later: a ping received tells a
      // test that presence due before it would have arrived)
      ws.on('ping', () => {
        entry.pings_received += 1;
      });

      // yhub's initial sync: SyncStep1 (the library's first message) AND SyncStep2 (the full
      // state), before anything else (the library's awareness comes after).
      const rawSend = ws.send.bind(ws);
      ws.send = (data, options, cb) => {
        ws.send = rawSend;
        rawSend(data, options, cb);
        const room = docs.get(docId);
        if (room) rawSend(syncStep2Message(room), {}, () => {});
      };

      setupWSConnection(ws, req, { docName: docId });

      // Inbound filter in front of the library: read-only connections have every message
      // dropped (sync and awareness), a client's SyncStep1 is ignored, nothing is read from a
      // connection the server is closing.
      const listeners = ws.listeners('message');
      ws.removeAllListeners('message');
      ws.on('message', (data, isBinary) => {
        const bytes = toBytes(data);
        stats.ws_bytes_in[docId] = (stats.ws_bytes_in[docId] || 0) + bytes.length;
        if (bytes[0] === MESSAGE_AWARENESS) entry.awareness_received += 1;
        if (ws.readyState !== ws.OPEN || ws.readOnly) {
          entry.dropped += 1;
          return;
        }
        if (bytes[0] === MESSAGE_SYNC && bytes[1] === SYNC_STEP1) return;
        if (bytes[0] === MESSAGE_SYNC) entry.updates += 1;
        for (const l of listeners) l.call(ws, data, isBinary);
      });
    });
  }

  // ---- REST: /collaboration/ydoc/v1/docs/{docid} ----
  const wantsJson = (req) =>
    String(req.headers.accept || '')
      .split(',')
      .some((s) => s.split(';')[0].trim().toLowerCase() === 'application/json');

  const reply = (req, res, status, body) => {
    const json = wantsJson(req);
    const payload = json ? Buffer.from(JSON.stringify(body)) : encodeAny(body);
    res.writeHead(status, {
      'Content-Type': json ? 'application/json' : 'application/x-lib0any',
      'Content-Length': payload.length,
      Vary: 'Accept, Cookie, Origin',
    });
    res.end(payload);
  };

  const b64ToBytes = (v) => {
    if (v instanceof Uint8Array) return v;
    if (typeof v !== 'string' || !B64_RE.test(v) || v.length % 4 !== 0) return null;
    return new Uint8Array(Buffer.from(v, 'base64'));
  };

  const invalidBody = { error: 'Invalid request body', code: 'invalid-body' };

  /**
   * yhub's `GET /collaboration/activity/v1/docs/{id}`: who changed the document, when —
   * consecutive changes by the same author with the same tags grouped into one entry
   * (`{from, to, by}` in epoch ms; their `customAttributions` when `customAttributions=true`),
   * oldest first unless `order=desc`, at most `limit`.
   */
  function activity(url, docId) {
    const grouped = [];
    for (const c of changes.get(docId) ?? []) {
      const last = grouped[grouped.length - 1];
      const sameTags = (a, b) => JSON.stringify(a) === JSON.stringify(b);
      if (last && last.by === c.by && sameTags(last.customAttributions, c.customAttributions)) {
        last.to = c.at;
      } else {
        grouped.push({ from: c.at, to: c.at, by: c.by, customAttributions: c.customAttributions });
      }
    }
    if (url.searchParams.get('order') === 'desc') grouped.reverse();
    const limit = Number.parseInt(url.searchParams.get('limit') ?? '', 10);
    const kept = Number.isInteger(limit) && limit > 0 ? grouped.slice(0, limit) : grouped;
    const withTags = url.searchParams.get('customAttributions') === 'true';
    return kept.map(({ customAttributions, ...entry }) => (withTags ? { ...entry, customAttributions } : entry));
  }

  async function handleHttp(req, res, url) {
    const activityOf = url.pathname.match(ACTIVITY_RE);
    const m = url.pathname.match(YDOC_RE) ?? activityOf;
    if (!m) return reply(req, res, 404, { error: 'Not Found' });
    if (down) return reply(req, res, 503, { error: 'Service Unavailable' });
    // Same checks as the socket: the Origin must be allowed; without one (a same-origin
    // request, or a non-browser client), the session cookie must be one the backend knows.
    const origin = req.headers.origin;
    if (origin !== undefined && !state.allowedOrigins.includes(origin)) {
      return reply(req, res, 401, { error: 'Origin not allowed' });
    }
    if (origin === undefined) {
      const key = parseCookies(req.headers.cookie)[SESSION_COOKIE];
      if (!key || !store.sessions.has(key)) return reply(req, res, 401, { error: 'Unauthorized' });
    }
    const docId = m[1];
    const auth = authorize(req, docId);
    if (auth.deleted) return reply(req, res, 404, { error: 'Not Found', code: 'doc-deleted' });
    if (auth.status) return reply(req, res, auth.status, { error: 'Forbidden' });

    if (activityOf) {
      if (req.method !== 'GET') return reply(req, res, 405, { error: 'Method Not Allowed' });
      return reply(req, res, 200, { activity: activity(url, docId) });
    }

    if (req.method === 'GET' || req.method === 'HEAD') {
      const room = docs.get(docId);
      const ydoc = room ?? new Y.Doc();
      if (!room && auth.doc.content) Y.applyUpdate(ydoc, Buffer.from(auth.doc.content, 'base64'));
      const out = { doc: Y.encodeStateAsUpdate(ydoc) };
      if (url.searchParams.get('awareness') === 'true' && room && room.awareness.getStates().size > 0) {
        out.awareness = awarenessProtocol.encodeAwarenessUpdate(room.awareness, [...room.awareness.getStates().keys()]);
      }
      if (!room) ydoc.destroy();
      const body = wantsJson(req)
        ? Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Buffer.from(v).toString('base64')]))
        : out;
      return reply(req, res, 200, body);
    }

    if (req.method === 'PATCH') {
      if (!auth.abilities.update) return reply(req, res, 403, { error: 'Forbidden' });
      let raw;
      try {
        raw = await readBody(req);
      } catch {
        return reply(req, res, 413, { error: 'Payload Too Large' });
      }
      let body;
      try {
        const ct = String(req.headers['content-type'] || '').toLowerCase();
        body = ct.includes('json') ? JSON.parse(raw.toString('utf8') || '{}') : decodeAny(new Uint8Array(raw));
      } catch {
        return reply(req, res, 400, invalidBody);
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return reply(req, res, 400, invalidBody);
      const has = (k) => body[k] !== undefined && body[k] !== null;
      if (!has('update') && !has('awareness')) return reply(req, res, 400, invalidBody);
      const update = has('update') ? b64ToBytes(body.update) : null;
      const awareness = has('awareness') ? b64ToBytes(body.awareness) : null;
      if ((has('update') && !update) || (has('awareness') && !awareness)) return reply(req, res, 400, invalidBody);
      let attributions = [];
      if (has('customAttributions')) {
        const ca = body.customAttributions;
        if (!Array.isArray(ca) || !ca.every((p) => p && typeof p.k === 'string' && typeof p.v === 'string')) {
          return reply(req, res, 400, invalidBody);
        }
        attributions = ca.map(({ k, v }) => ({ k, v }));
      }
      if (update) {
        try {
          Y.applyUpdate(new Y.Doc(), update);
        } catch {
          return reply(req, res, 400, invalidBody);
        }
      }
      // Merge into the room (loaded from the store if it is not), so connected clients get it.
      const room = getYDoc(docId);
      if (update) {
        Y.applyUpdate(room, update, {
          rest: true,
          userId: auth.user?.id ?? null,
          sessionKey: auth.sessionKey,
          attributions,
        });
      }
      if (awareness) {
        try {
          awarenessProtocol.applyAwarenessUpdate(room.awareness, awareness, null);
        } catch {
          /* a malformed awareness update is dropped */
        }
      }
      persist(docId, room);
      unloadIfIdle(docId);
      stats.ydoc_patches[docId] = (stats.ydoc_patches[docId] || 0) + 1;
      logFor(docId).patches.push({
        user_id: auth.user?.id ?? null,
        attributions,
        update: Boolean(update),
        awareness: Boolean(awareness),
        at: new Date().toISOString(),
      });
      return reply(req, res, 200, { success: true, message: 'Document updated' });
    }

    res.setHeader('Allow', 'GET, HEAD, PATCH');
    return reply(req, res, 405, { error: 'Method Not Allowed' });
  }

  const roomSockets = (docId) => [...sockets].filter((ws) => ws.room === docId);

  return {
    ...socketControls(sockets),
    kind: 'yhub',
    handleUpgrade,
    handleHttp,
    /** Like Docs' get-document-connection-info: how many connections, and is this session one. */
    connectionInfo(docId, sessionKey) {
      const room = docs.get(docId);
      if (!room) return { count: 0, exists: false };
      const conns = [...room.conns.keys()];
      return {
        count: conns.length,
        exists: Boolean(sessionKey) && conns.some((ws) => ws.sessionKey === sessionKey),
      };
    },
    /**
     * Docs' reset-connections under yhub (a re-check of every connection of the room): the
     * document gone → 4404 "document deleted"; access gone, or read-write ↔ read-only →
     * 4401 "permission revoked"; unchanged → kept.
     */
    resetConnections(docId) {
      const doc = store.documents.get(docId);
      for (const ws of roomSockets(docId)) {
        if (ws.readyState !== ws.OPEN) continue;
        if (!doc || doc.deleted_at) {
          ws.close(4404, 'document deleted');
          continue;
        }
        const abilities = store.abilities(doc, store.userForSession(ws.sessionKey));
        if (!abilities.retrieve || !abilities.update !== ws.readOnly) ws.close(4401, 'permission revoked');
      }
    },
    /**
     * Takes the collaboration server down (every open WebSocket terminated, new ones and the
     * REST routes refused with 503) or brings it back.
     */
    /**
     * Refuses the WebSockets (502, as a proxy that does not upgrade them) of clients whose
     * User-Agent contains `agent` (null: none); REST and other clients' sockets go on.
     */
    refuseSocketsOf(agent) {
      refusedAgent = agent;
      if (agent) {
        for (const ws of [...sockets]) if (String(ws.userAgent || '').includes(agent)) ws.terminate();
      }
    },
    setDown(value) {
      down = value;
      if (down) for (const ws of [...sockets]) ws.terminate();
    },
    liveDocument(docId) {
      return docs.get(docId) || null;
    },
    wsCounts() {
      const out = {};
      for (const [name, room] of docs) out[name] = room.conns.size;
      return out;
    },
    awareness(docId) {
      const room = docs.get(docId);
      if (!room) return null;
      return [...room.awareness.getStates()].map(([clientId, st]) => ({ clientId, state: st }));
    },
    /** The custom attributions of the room's connections (closed ones too) and REST PATCHes. */
    attributions(docId) {
      const log = attributionLog.get(docId);
      return {
        connections: log ? log.connections.map((c) => ({ ...c })) : [],
        patches: log ? log.patches.map((p) => ({ ...p })) : [],
      };
    },
    close() {
      for (const ws of [...sockets]) ws.terminate();
      wss.close();
    },
  };
}
