// Test-only control API under /__test__/ (JSON in, JSON out).
import * as Y from 'yjs';

import {
  addCommentMark,
  blocksToUpdate,
  commentMarks,
  markdownToBlocks,
  parseStored,
  parseYDoc,
} from './content.mjs';
import { readJson, send } from './http.mjs';
import { textItems } from './items.mjs';
import { isUuid, LINK_REACHES, LINK_ROLES, ROLES } from './store.mjs';

class ControlError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
    this.detail = detail;
  }
}

export function createControl({ store, state, stats, collab, typists }) {
  const body = async (req) => {
    const parsed = await readJson(req);
    if (!parsed.ok) throw new ControlError(400, parsed.detail);
    if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
      throw new ControlError(400, 'expected a JSON object');
    }
    return parsed.value;
  };

  const docOr404 = (id) => {
    const doc = isUuid(id) ? store.documents.get(id.toLowerCase()) : null;
    if (!doc) throw new ControlError(404, 'No Document matches the given query.');
    return doc;
  };

  /** `{"document_id": "<uuid>"}` names one room; `{}` means every room (null). */
  const roomOrAll = async (req) => {
    const b = await body(req);
    if (b.document_id === undefined || b.document_id === null) return null;
    if (!isUuid(String(b.document_id))) throw new ControlError(400, 'invalid document_id');
    return String(b.document_id).toLowerCase();
  };

  const checkLink = (reach, role) => {
    if (!LINK_REACHES.includes(reach)) throw new ControlError(400, `invalid link_reach ${JSON.stringify(reach)}`);
    if (!LINK_ROLES.includes(role)) throw new ControlError(400, `invalid link_role ${JSON.stringify(role)}`);
  };

  const routes = [
    [
      'POST',
      /^users$/,
      async (req) => {
        const b = await body(req);
        const user = store.createUser({ email: b.email, full_name: b.full_name });
        const session = store.createSession(user.id);
        return {
          id: user.id,
          email: user.email,
          full_name: user.full_name,
          session_cookie: session.key,
          csrf_token: session.csrf,
        };
      },
    ],
    [
      'POST',
      /^documents$/,
      async (req) => {
        const b = await body(req);
        if (b.id !== undefined && b.id !== null && !isUuid(String(b.id))) throw new ControlError(400, 'invalid id');
        const id = b.id ? String(b.id).toLowerCase() : undefined;
        if (id && store.documents.has(id)) throw new ControlError(409, 'document already exists');
        const reach = b.link_reach ?? 'public';
        const role = b.link_role ?? 'editor';
        checkLink(reach, role);
        const accesses = Array.isArray(b.accesses) ? b.accesses : [];
        for (const a of accesses) {
          if (!store.users.has(a.user_id)) throw new ControlError(400, `unknown user ${a.user_id}`);
          if (!ROLES.includes(a.role)) throw new ControlError(400, `invalid role ${JSON.stringify(a.role)}`);
        }
        if (b.creator_id && !store.users.has(b.creator_id)) throw new ControlError(400, 'unknown creator');
        let blocks = null;
        if (Array.isArray(b.blocks)) blocks = b.blocks;
        else if (typeof b.markdown === 'string') blocks = await markdownToBlocks(b.markdown);
        let content = '';
        if (blocks) {
          try {
            content = Buffer.from(blocksToUpdate(blocks)).toString('base64');
          } catch (e) {
            throw new ControlError(400, `blocks rejected by BlockNote: ${e.message}`);
          }
        }
        const doc = store.createDocument({
          id,
          title: b.title ?? null,
          link_reach: reach,
          link_role: role,
          creator_id: b.creator_id ?? null,
          content_b64: content,
        });
        for (const a of accesses) doc.accesses.set(a.user_id, a.role);
        return { id: doc.id };
      },
    ],
    [
      'GET',
      /^documents\/([^/]+)\/stored$/,
      async (_req, m) => {
        const doc = docOr404(m[1]);
        return parseStored(doc.content);
      },
    ],
    [
      'GET',
      /^documents\/([^/]+)\/live$/,
      async (_req, m) => {
        docOr404(m[1]);
        const live = collab.liveDocument(m[1].toLowerCase());
        if (!live) throw new ControlError(404, 'room not loaded');
        const update = Y.encodeStateAsUpdate(live);
        const copy = new Y.Doc();
        Y.applyUpdate(copy, update);
        const parsed = await parseYDoc(copy);
        copy.destroy();
        return { ...parsed, update_b64: Buffer.from(update).toString('base64') };
      },
    ],
    [
      'GET',
      /^documents\/([^/]+)\/live-clocks$/,
      (_req, m) => {
        // How many clocks the room's document holds (its state vector summed): cheap, for a
        // test that waits until the room took in what a client pushed.
        docOr404(m[1]);
        const live = collab.liveDocument(m[1].toLowerCase());
        if (!live) throw new ControlError(404, 'room not loaded');
        let clocks = 0;
        for (const clock of Y.decodeStateVector(Y.encodeStateVector(live)).values()) clocks += clock;
        return { clocks };
      },
    ],
    [
      'GET',
      /^documents\/([^/]+)\/items$/,
      async (_req, m) => {
        // The Yjs items of the room's inline texts (see items.mjs).
        docOr404(m[1]);
        const live = collab.liveDocument(m[1].toLowerCase());
        if (!live) throw new ControlError(404, 'room not loaded');
        return textItems(live);
      },
    ],
    [
      'GET',
      /^documents\/([^/]+)\/comment-marks$/,
      async (_req, m) => {
        // The comment marks BlockNote's editor sees, in the stored content and in the room.
        const doc = docOr404(m[1]);
        const stored = new Y.Doc();
        if (doc.content) Y.applyUpdate(stored, Buffer.from(doc.content, 'base64'));
        const live = collab.liveDocument(doc.id);
        const out = { stored: commentMarks(stored), live: live ? commentMarks(live) : null };
        stored.destroy();
        return out;
      },
    ],
    [
      'POST',
      /^documents\/([^/]+)\/comment-mark$/,
      async (req, m) => {
        // Seeds a comment mark into the stored content, as Docs' editor writes it.
        const doc = docOr404(m[1]);
        const b = await body(req);
        for (const field of ['block_id', 'text', 'thread_id']) {
          if (typeof b[field] !== 'string' || !b[field]) throw new ControlError(400, `expected a string ${field}`);
        }
        if (b.orphan !== undefined && typeof b.orphan !== 'boolean') throw new ControlError(400, 'orphan: a boolean');
        if (collab.liveDocument(doc.id)) throw new ControlError(409, 'the room is loaded: seed before opening it');
        const ydoc = new Y.Doc();
        if (doc.content) Y.applyUpdate(ydoc, Buffer.from(doc.content, 'base64'));
        const found = addCommentMark(ydoc, {
          blockId: b.block_id,
          text: b.text,
          threadId: b.thread_id,
          orphan: b.orphan === true,
        });
        if (!found) {
          ydoc.destroy();
          throw new ControlError(404, `no text ${JSON.stringify(b.text)} in block ${b.block_id}`);
        }
        store.setContent(doc, Buffer.from(Y.encodeStateAsUpdate(ydoc)).toString('base64'));
        ydoc.destroy();
        return { detail: 'Comment mark added' };
      },
    ],
    [
      'POST',
      /^documents\/([^/]+)\/new-history$/,
      async (_req, m) => {
        // The stored content replaced by the same blocks written anew: the same text, another
        // Yjs history (as when a lost room is made again from a copy). Only with no room loaded.
        const doc = docOr404(m[1]);
        if (collab.liveDocument(doc.id)) throw new ControlError(409, 'the room is loaded: close it first');
        const { blocks } = await parseStored(doc.content);
        store.setContent(doc, Buffer.from(blocksToUpdate(blocks)).toString('base64'));
        return { detail: 'Stored content written anew' };
      },
    ],
    [
      'GET',
      /^documents\/([^/]+)\/awareness$/,
      async (_req, m) => {
        docOr404(m[1]);
        return collab.awareness(m[1].toLowerCase()) || [];
      },
    ],
    [
      'GET',
      /^documents\/([^/]+)\/attributions$/,
      async (_req, m) => {
        // The custom attributions (`customAttributions`) each collaboration connection of the
        // room carried (closed ones too) and each REST PATCH; always empty with Hocuspocus.
        docOr404(m[1]);
        return collab.attributions(m[1].toLowerCase());
      },
    ],
    [
      'POST',
      /^documents\/([^/]+)\/reset-connections$/,
      async (_req, m) => {
        collab.resetConnections(m[1].toLowerCase());
        return { detail: 'Connections reset' };
      },
    ],
    [
      'POST',
      /^documents\/([^/]+)\/link$/,
      async (req, m) => {
        const doc = docOr404(m[1]);
        const b = await body(req);
        const reach = b.link_reach ?? doc.link_reach;
        const role = b.link_role ?? doc.link_role;
        checkLink(reach, role);
        doc.link_reach = reach;
        doc.link_role = role;
        store.touch(doc);
        collab.resetConnections(doc.id);
        return { link_reach: reach, link_role: role };
      },
    ],
    [
      'POST',
      /^documents\/([^/]+)\/accesses$/,
      async (req, m) => {
        const doc = docOr404(m[1]);
        const b = await body(req);
        if (!store.users.has(b.user_id)) throw new ControlError(400, `unknown user ${b.user_id}`);
        if (b.role === null || b.role === undefined) doc.accesses.delete(b.user_id);
        else if (!ROLES.includes(b.role)) throw new ControlError(400, `invalid role ${JSON.stringify(b.role)}`);
        else doc.accesses.set(b.user_id, b.role);
        collab.resetConnections(doc.id);
        return { user_id: b.user_id, role: b.role ?? null };
      },
    ],
    [
      'POST',
      /^auto-sign-in$/,
      async (req) => {
        const b = await body(req);
        if (typeof b.email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(b.email)) {
          throw new ControlError(400, 'expected {"email": "<address>"}');
        }
        state.autoSignIn = b.email;
        return { email: b.email };
      },
    ],
    [
      'POST',
      /^drop-connections$/,
      async () => ({ dropped: collab.dropAll() }),
    ],
    [
      'POST',
      /^instance-config$/,
      async (req) => {
        // What `config/` says: without COLLABORATION_WS_URL (`unset_collaboration_url`), or
        // not at all (`missing`: 404, a proxy that does not route it).
        const b = await body(req);
        state.collaborationUrlUnset = b.unset_collaboration_url === true;
        state.configMissing = b.missing === true;
        return { unset_collaboration_url: state.collaborationUrlUnset, missing: state.configMissing };
      },
    ],
    [
      'POST',
      /^collaboration-down$/,
      async (req) => {
        const b = await body(req);
        if (typeof b.down !== 'boolean') throw new ControlError(400, 'expected {"down": true|false}');
        collab.setDown(b.down);
        return { down: b.down };
      },
    ],
    [
      'POST',
      /^refuse-sockets-of$/,
      async (req) => {
        // yhub: sockets of clients whose User-Agent contains `agent` are refused (502), as by a
        // proxy that does not pass their WebSockets; null lets them through again.
        const b = await body(req);
        if (b.agent !== null && typeof b.agent !== 'string') {
          throw new ControlError(400, 'expected {"agent": "<User-Agent part>" | null}');
        }
        try {
          collab.refuseSocketsOf(b.agent);
        } catch (e) {
          throw new ControlError(409, e.message);
        }
        return { agent: b.agent };
      },
    ],
    [
      'POST',
      /^freeze$/,
      async (req) => ({ frozen: collab.freeze(await roomOrAll(req)) }),
    ],
    [
      'POST',
      /^unfreeze$/,
      async (req) => ({ unfrozen: collab.unfreeze(await roomOrAll(req)) }),
    ],
    [
      // Until `release-content`, a read of the document's stored content waits (a slow REST
      // backend, deterministic): what a client does meanwhile can be watched.
      'POST',
      /^hold-content$/,
      async (req) => {
        const id = await roomOrAll(req);
        if (id === null) throw new ControlError(400, 'document_id is required');
        if (!state.heldContent.has(id)) {
          let release;
          const held = new Promise((resolve) => (release = resolve));
          state.heldContent.set(id, { held, release });
        }
        return { held: id };
      },
    ],
    [
      'POST',
      /^release-content$/,
      async (req) => {
        const id = await roomOrAll(req);
        const hold = id === null ? null : state.heldContent.get(id);
        if (hold) {
          state.heldContent.delete(id);
          hold.release();
        }
        return { released: Boolean(hold) };
      },
    ],
    [
      'POST',
      /^throttle$/,
      async (req) => {
        const b = await body(req);
        state.forcedThrottle.count = Math.max(0, Number(b.count ?? 1) | 0);
        state.forcedThrottle.retryAfter = Math.max(0, Number(b.retry_after ?? 60) | 0);
        return { count: state.forcedThrottle.count, retry_after: state.forcedThrottle.retryAfter };
      },
    ],
    [
      'POST',
      /^typist$/,
      async (req) => {
        const b = await body(req);
        if (!isUuid(String(b.document_id))) throw new ControlError(400, 'invalid document_id');
        return { typist_id: typists.start(b) };
      },
    ],
    [
      'GET',
      /^typist\/([^/]+)$/,
      async (_req, m) => {
        const st = typists.status(m[1]);
        if (!st) throw new ControlError(404, 'no such typist');
        return st;
      },
    ],
    [
      'GET',
      /^stats$/,
      async () => ({
        collaboration: stats.collaboration,
        requests: stats.requests,
        content_patches: { ...stats.content_patches },
        ydoc_patches: { ...stats.ydoc_patches },
        saves_off_websocket: { ...stats.saves_off_websocket },
        ws_connections: collab.wsCounts(),
        room_joins: { ...(stats.room_joins ?? {}) },
        ws_bytes_in: { ...stats.ws_bytes_in },
        throttled: stats.throttled,
        open_sockets: collab.openSockets(),
      }),
    ],
  ];

  return async function handleControl(req, res, url) {
    const path = url.pathname.replace(/^\/__test__\//, '').replace(/\/$/, '');
    try {
      for (const [method, re, handler] of routes) {
        const m = path.match(re);
        if (!m) continue;
        if (req.method !== method) throw new ControlError(405, `method ${req.method} not allowed`);
        const out = await handler(req, m);
        send(res, 200, out);
        return;
      }
      throw new ControlError(404, 'unknown control endpoint');
    } catch (err) {
      if (err instanceof ControlError) send(res, err.status, { detail: err.detail });
      else {
        console.error('[docs-server] control error', err);
        send(res, 500, { detail: String(err?.message || err) });
      }
    }
  };
}
