// A scripted "human": a real @hocuspocus/provider client that behaves like a Docs browser tab.
// It loads the stored content through REST, syncs over the collaboration WebSocket, types
// text one character at a time into one block's inline text (or, with `words`, into words of
// some blocks, like a person editing them), and optionally saves back through REST like the
// browser does. With `latency_ms`, every message it sends or receives waits a seeded random
// time first, in order, as across a network.
//
// With `--collaboration yhub`, the client is the real `y-websocket` WebsocketProvider, as
// Docs' yhub frontend opens it (`disableBc: true`): no REST content load (the server's
// initial sync brings the state) and no save (the server persists; `save` does nothing).
import { randomUUID } from 'node:crypto';

import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';

import { FRAGMENT } from './content.mjs';
import { parseCookies } from './http.mjs';
import { seeded } from './random.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));


/** A whole number in [min, max], from `random`. */
const between = (random, [min, max]) => min + Math.floor(random() * (max - min + 1));

/**
 * A queue that runs each function a delay after it was given, in the order given (as a
 * network path delivers): `run(fn)`; `drained()` resolves once nothing waits.
 */
function delayLine(delay) {
  const queue = [];
  let last = 0;
  let timer = null;
  let idle = [];
  const flush = () => {
    timer = null;
    while (queue.length && queue[0].at <= Date.now()) queue.shift().fn();
    if (queue.length) timer = setTimeout(flush, queue[0].at - Date.now());
    else for (const resolve of idle.splice(0)) resolve();
  };
  return {
    run(fn) {
      last = Math.max(last, Date.now() + delay());
      queue.push({ at: last, fn });
      if (!timer) timer = setTimeout(flush, Math.max(0, queue[0].at - Date.now()));
    },
    drained() {
      return queue.length ? new Promise((resolve) => idle.push(resolve)) : Promise.resolve();
    },
  };
}

/**
 * A WebSocket class whose messages, both ways, go through delay lines of `latency` = [min, max]
 * ms (seeded by `seed`); `null` latency: the class itself.
 */
function delayedSocket(Base, latency, seed, lines) {
  if (!latency) return Base;
  const random = seeded(seed);
  const delay = () => between(random, latency);
  return class DelayedWebSocket extends Base {
    constructor(...args) {
      super(...args);
      this.outgoing = delayLine(delay);
      this.incoming = delayLine(delay);
      this.wrapped = new Map();
      lines.push(this.outgoing);
    }

    send(data, ...rest) {
      this.outgoing.run(() => {
        if (this.readyState === Base.OPEN) super.send(data, ...rest);
      });
    }

    addEventListener(name, handler, ...rest) {
      if (name !== 'message') return super.addEventListener(name, handler, ...rest);
      const late = (event) => this.incoming.run(() => handler(event));
      this.wrapped.set(handler, late);
      return super.addEventListener(name, late, ...rest);
    }

    removeEventListener(name, handler, ...rest) {
      const late = name === 'message' ? this.wrapped.get(handler) : undefined;
      return super.removeEventListener(name, late ?? handler, ...rest);
    }

    set onmessage(handler) {
      super.onmessage = handler ? (event) => this.incoming.run(() => handler(event)) : null;
    }

    get onmessage() {
      return super.onmessage;
    }
  };
}

/** Finds the content node (paragraph, heading, ...) of a block, by id or the first paragraph. */
export function findContentNode(ydoc, blockId) {
  const fragment = ydoc.getXmlFragment(FRAGMENT);
  const walk = (parent) => {
    for (const child of parent.toArray()) {
      if (!(child instanceof Y.XmlElement)) continue;
      if (child.nodeName === 'blockContainer') {
        const content = child.get(0);
        if (blockId) {
          if (child.getAttribute('id') === blockId) return content;
        } else if (content instanceof Y.XmlElement && content.nodeName === 'paragraph') {
          return content;
        }
        const group = child.toArray().find((c) => c instanceof Y.XmlElement && c.nodeName === 'blockGroup');
        if (group) {
          const found = walk(group);
          if (found) return found;
        }
      } else if (child.nodeName === 'blockGroup') {
        const found = walk(child);
        if (found) return found;
      }
    }
    return null;
  };
  return walk(fragment);
}

/** Records the `commentsPing` awareness fields of other clients, as Docs' editor watches them. */
function watchCommentsPings(t, awareness) {
  awareness.on('change', ({ added, updated }) => {
    const states = awareness.getStates();
    for (const clientId of [...added, ...updated]) {
      if (clientId === awareness.clientID) continue;
      const ping = states.get(clientId)?.commentsPing;
      const seen = t.commentsPings.some((p) => p.clientId === clientId && p.at === ping?.at);
      if (ping && !seen) t.commentsPings.push({ clientId, ...ping });
    }
  });
}

/**
 * Types `text` one character at a time at the end of the block's inline text. Returns whether
 * anything was typed. Like y-prosemirror, a local origin that is NOT the provider (providers
 * do not send updates whose origin is themselves).
 */
async function typeInto(t, ydoc, spec, text, interval) {
  const typingOrigin = { typist: t.id };
  let localChange = false;
  for (const ch of Array.from(text)) {
    const node = findContentNode(ydoc, spec.block_id || null);
    if (!node) throw new Error(`block ${spec.block_id || '(first paragraph)'} not found`);
    ydoc.transact(() => {
      const last = node.length > 0 ? node.get(node.length - 1) : null;
      if (last instanceof Y.XmlText) {
        // Appending at the end of the existing text run (formatting of the previous
        // character carries on, as in the editor).
        last.insert(last.length, ch);
      } else {
        const xt = new Y.XmlText();
        node.insert(node.length, [xt]);
        xt.insert(0, ch);
      }
    }, typingOrigin);
    localChange = true;
    t.typed += 1;
    if (interval) await sleep(interval);
  }
  return localChange;
}

/** The plain text of an XmlText (its strings; anything else counts one character). */
function plainText(text) {
  return text
    .toDelta()
    .map((d) => (typeof d.insert === 'string' ? d.insert : '\ufffc'))
    .join('');
}

/**
 * Types into words, like a person editing a paragraph: `words.edits` times, after a pause of
 * `words.pause_ms` = [min, max], picks one of `words.blocks` and a word of it matching
 * `words.eligible` (a regular expression), then types 1 to `words.keys` characters of
 * `words.alphabet` at its end, inside it or at its start, one every `interval` ms, the cursor
 * following its own last character (as an editor's does) whatever arrives meanwhile. Seeded by
 * `words.seed`.
 */
async function typeInWords(t, ydoc, words, interval) {
  const random = seeded(words.seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const eligible = new RegExp(words.eligible, 'u');
  const alphabet = Array.from(words.alphabet);
  const typingOrigin = { typist: t.id };
  let localChange = false;
  for (let n = 0; n < words.edits; n++) {
    await sleep(between(random, words.pause_ms ?? [100, 300]));
    const node = findContentNode(ydoc, pick(words.blocks));
    const text = node?.toArray().find((c) => c instanceof Y.XmlText);
    if (!text) continue;
    const candidates = [...plainText(text).matchAll(/[\p{L}\p{N}\p{M}]+/gu)].filter((m) => eligible.test(m[0]));
    if (!candidates.length) continue;
    const word = pick(candidates);
    const length = word[0].length;
    const where = random();
    let index = word.index;
    if (where < 0.45) index += length;
    else if (where < 0.8 && length > 1) index += 1 + Math.floor(random() * (length - 1));
    const keys = between(random, [1, words.keys ?? 3]);
    let cursor = null;
    for (let k = 0; k < keys; k++) {
      if (cursor) {
        await sleep(interval);
        // Right after its own last character, wherever what arrived meanwhile moved it.
        index = Y.createAbsolutePositionFromRelativePosition(cursor, ydoc).index;
      }
      const typed = pick(alphabet);
      ydoc.transact(() => text.insert(index, typed), typingOrigin);
      localChange = true;
      t.typed += 1;
      cursor = Y.createRelativePositionFromTypeIndex(text, index + typed.length, -1);
    }
  }
  return localChange;
}

export class Typists {
  constructor({ state, opts }) {
    this.state = state;
    this.opts = opts;
    this.typists = new Map();
  }

  status(id) {
    const t = this.typists.get(id);
    if (!t) return null;
    return {
      done: t.done,
      typed: t.typed,
      error: t.error,
      saved: t.saved,
      synced: t.synced,
      client_id: t.ydoc ? t.ydoc.clientID : null,
      comments_pings: t.commentsPings,
      // What this client's own copy holds (the document fragment as XML), to see what
      // reached it.
      fragment: t.ydoc ? t.ydoc.getXmlFragment(FRAGMENT).toString() : '',
    };
  }

  start(spec) {
    const id = randomUUID();
    const t = {
      id,
      done: false,
      typed: 0,
      error: null,
      saved: false,
      synced: false,
      provider: null,
      ydoc: null,
      // The `commentsPing` awareness fields of other clients this one received, as Docs'
      // editor watches them to refresh its threads: [{clientId, at, docId, threadId}].
      commentsPings: [],
    };
    this.typists.set(id, t);
    this.run(t, spec).catch((err) => {
      t.error = String(err?.message || err);
      t.done = true;
      console.error('[docs-server] typist failed:', t.error);
      this.cleanup(t);
    });
    return id;
  }

  cleanup(t) {
    try {
      t.provider?.destroy();
      t.socket?.destroy();
    } catch {
      /* ignore */
    }
  }

  destroyAll() {
    for (const t of this.typists.values()) this.cleanup(t);
  }

  async run(t, spec) {
    const { origin } = this.state;
    const docId = String(spec.document_id);
    const text = String(spec.text ?? '');
    const interval = Math.max(0, Number(spec.interval_ms ?? 50));
    const latency = Array.isArray(spec.latency_ms) ? spec.latency_ms.map(Number) : null;
    t.lines = [];
    const cookieJar = {};
    if (spec.session_cookie) cookieJar.docs_sessionid = String(spec.session_cookie);
    if (spec.csrf_token) cookieJar.csrftoken = String(spec.csrf_token);
    const cookieHeader = () =>
      Object.entries(cookieJar)
        .map(([k, v]) => `${k}=${v}`)
        .join('; ');
    const http = async (method, path, body) => {
      const headers = { Origin: origin, Referer: `${origin}/docs/${docId}/` };
      if (Object.keys(cookieJar).length) headers.Cookie = cookieHeader();
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      if (cookieJar.csrftoken && method !== 'GET') headers['X-CSRFToken'] = cookieJar.csrftoken;
      const res = await fetch(`${origin}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const setCookie = res.headers.get('set-cookie');
      if (setCookie) {
        const c = parseCookies(setCookie.split(';')[0]);
        Object.assign(cookieJar, c);
      }
      return res;
    };

    // 1. Load the document and its content through REST, like the browser.
    const docRes = await http('GET', `/api/v1.0/documents/${docId}/`);
    if (docRes.status !== 200) throw new Error(`GET document: HTTP ${docRes.status}`);
    const docJson = await docRes.json();
    if (this.opts.collaboration === 'yhub') {
      await this.runYhub(t, spec, { docId, text, interval, latency, cookieHeader });
      return;
    }
    const ydoc = new Y.Doc();
    t.ydoc = ydoc;
    let b64 = '';
    if (this.opts.legacyContent) {
      b64 = docJson.content || '';
    } else {
      const contentRes = await http('GET', `/api/v1.0/documents/${docId}/content/`);
      if (contentRes.status !== 200) throw new Error(`GET content: HTTP ${contentRes.status}`);
      b64 = await contentRes.text();
    }
    if (b64) Y.applyUpdate(ydoc, Buffer.from(b64, 'base64'));

    // 2. Connect like the browser: Origin + session cookie, room query parameter.
    const headers = { Origin: origin, Cookie: cookieHeader() };
    class BrowserLikeWebSocket extends WebSocket {
      constructor(url, protocols) {
        super(url, protocols, { headers });
      }
    }
    const socket = new HocuspocusProviderWebsocket({
      url: `ws://127.0.0.1:${this.state.port}/collaboration/ws/?room=${docId}`,
      WebSocketPolyfill: delayedSocket(BrowserLikeWebSocket, latency, spec.seed ?? 0, t.lines),
      delay: 1000,
      maxDelay: 4000,
      minDelay: 1000,
    });
    t.socket = socket;
    let denied = null;
    const synced = new Promise((resolve) => {
      const provider = new HocuspocusProvider({
        websocketProvider: socket,
        name: docId,
        document: ydoc,
        token: '',
        onSynced: () => resolve(),
        onAuthenticationFailed: ({ reason }) => {
          denied = reason;
          resolve();
        },
      });
      t.provider = provider;
    });
    watchCommentsPings(t, t.provider.awareness);
    t.provider.attach();
    await Promise.race([synced, sleep(15000)]);
    if (denied) throw new Error(`authentication failed: ${denied}`);
    if (!t.provider.isSynced) throw new Error('not synced after 15 s');
    t.synced = true;
    const color = '#' + ((Math.random() * 0xffffff) | 0).toString(16).padStart(6, '0');
    t.provider.setAwarenessField('user', { name: spec.name || 'Typist', color });

    // 3. Type one character at a time into the block's inline text, or into words.
    const localChange = spec.words
      ? await typeInWords(t, ydoc, spec.words, interval)
      : await typeInto(t, ydoc, spec, text, interval);
    // What it typed has left (through the delay, when there is one).
    await Promise.all(t.lines.map((line) => line.drained()));

    // 4. Save like the browser (only when it made a local change).
    if (spec.save && localChange) {
      const content = Buffer.from(Y.encodeStateAsUpdate(ydoc)).toString('base64');
      const res = this.opts.legacyContent
        ? await http('PATCH', `/api/v1.0/documents/${docId}/`, { content, websocket: true })
        : await http('PATCH', `/api/v1.0/documents/${docId}/content/`, { content, websocket: true });
      if (res.status !== 204 && res.status !== 200) throw new Error(`save: HTTP ${res.status}`);
      t.saved = true;
    }
    t.done = true;
    if (spec.disconnect_when_done !== false) this.cleanup(t);
  }

  /** The yhub browser: y-websocket's WebsocketProvider, Origin + session cookie on the upgrade. */
  async runYhub(t, spec, { docId, text, interval, latency, cookieHeader }) {
    const { origin } = this.state;
    const headers = { Origin: origin };
    const cookie = cookieHeader();
    if (cookie) headers.Cookie = cookie;
    class BrowserLikeWebSocket extends WebSocket {
      constructor(url, protocols) {
        super(url, protocols, { headers });
      }
    }
    const ydoc = new Y.Doc();
    t.ydoc = ydoc;
    const provider = new WebsocketProvider(`ws://127.0.0.1:${this.state.port}/collaboration/ws/v1/docs`, docId, ydoc, {
      disableBc: true,
      WebSocketPolyfill: delayedSocket(BrowserLikeWebSocket, latency, spec.seed ?? 0, t.lines),
      connect: false,
    });
    t.provider = provider;
    let denied = null;
    const synced = new Promise((resolve) => {
      provider.on('sync', (isSynced) => {
        if (isSynced) resolve();
      });
      // yhub's permanent close codes (4400-4499): stop, as Docs' frontend does.
      provider.on('connection-close', (event) => {
        if (event && event.code >= 4400 && event.code < 4500) {
          denied = `${event.code} ${event.reason || ''}`.trim();
          provider.disconnect();
          resolve();
        }
      });
    });
    watchCommentsPings(t, provider.awareness);
    provider.connect();
    await Promise.race([synced, sleep(15000)]);
    if (denied) throw new Error(`connection closed: ${denied}`);
    if (!provider.synced) throw new Error('not synced after 15 s');
    t.synced = true;
    const color = '#' + ((Math.random() * 0xffffff) | 0).toString(16).padStart(6, '0');
    provider.awareness.setLocalStateField('user', { name: spec.name || 'Typist', color });

    if (spec.words) await typeInWords(t, ydoc, spec.words, interval);
    else await typeInto(t, ydoc, spec, text, interval);
    await Promise.all(t.lines.map((line) => line.drained()));
    // `save`: nothing to send, yhub stores what it receives; once the last keystroke crossed
    // the loopback socket (its buffer drained, a moment for the server to apply it), it is.
    if (spec.save) {
      while (provider.ws && provider.ws.bufferedAmount > 0) await sleep(5);
      await sleep(100);
      t.saved = true;
    }
    t.done = true;
    if (spec.disconnect_when_done !== false) this.cleanup(t);
  }
}
