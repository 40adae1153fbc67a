// Browser stand-ins for the convergence test (crates/docs-mcp/tests/convergence), driven over
// stdin/stdout, one JSON object per line each way: `{"cmd": ..., ...}` → `{"ok": {...}}` or
// `{"error": "..."}`. Updates, state vectors are base64 (Yjs v1 encoding).
//
//   seed {markdown, client}        → {update}: the document BlockNote makes of the markdown,
//                                     written by a Y.Doc of that client id
//   peer {name, client, relay, yjs}
//                                  → {}: a new browser (a Y.Doc with that client id), or with
//                                     `relay` the room: it renders nothing and passes on every
//                                     update it integrates, as the collaboration server does;
//                                     with `yjs: 14` a browser on Yjs 14 (src/yjs14.mjs
//                                     `Y14Peer`: typing, props, version history, suggestions
//                                     accepted or rejected one at a time)
//   settle {name}                  → {out}: the Yjs 14 browser accepts its open suggestions
//   forget {}                      → {}: every browser dropped (the next scenario starts)
//   apply {name, update}           → {out}: a remote update applied, then rendered as the
//                                     editor does (rendering may write, and naming blocks
//                                     without an id does: `out`)
//   apply, edit, settle of a Yjs 14 browser that throws, or leaves its struct store broken
//                                     (src/yjs14.mjs `storeFault`), answer `y14Failed`
//   read {name} of a Yjs 14 browser adds `y14Differs`: where what Yjs 14 holds differs from
//                                     what Yjs 13 reads of its state, if it does
//   edit {name, seed}              → {kind, out}: one random edit of a person (src/browser.mjs)
//   sv {name}                      → {sv, pending}: state vector; whether updates wait aside
//   diff {name, sv}                → {update}: what a peer at `sv` lacks (sync step 2)
//   upstream {case}                → {updates, tree}: an upstream report's shape
//                                     (src/upstream.mjs): updates in order, and Yjs' tree
//   y14 {client}                   → {}: the Yjs 14 peer (src/yjs14.mjs), a fresh document
//   y14_apply {update}             → {}: an update applied by Yjs 14
//   y14_write {label}              → {update}: a Yjs 14 browser's writes (src/yjs14.mjs)
//   y14_state {}                   → {update, sv}: Yjs 14's whole state and state vector
//   y14_out_of_order {update}      → {state, emitted, y14Text, y13Text, y13Pending}: Yjs 14's
//                                     suggestions accepted out of order (src/yjs14.mjs)
//   read {name} / read_update {update}
//                                  → {blocks, tree, aside, rendered, rewritten}: BlockNote's
//                                     blocks, the canonical tree (src/browser.mjs `tree`), and
//                                     how many updates a browser opening it writes when it renders
//                                     it (`rendered`) and when it writes the rendered document
//                                     back unchanged (`rewritten`); `read_update` on a fresh doc
import { createInterface } from 'node:readline';

import * as Y from 'yjs';

import { FRAGMENT, blocksIntoFragment, markdownToBlocks, yDocBlocks } from '../src/content.mjs';
import { randomEdit, render, tree, writeBack } from '../src/browser.mjs';
import { seeded } from '../src/random.mjs';
import { CASES } from '../src/upstream.mjs';
import { Y14Peer, acceptedOutOfOrder, storeFault, y14, y14Doc, y14Shape, y14Write } from '../src/yjs14.mjs';
import * as Y14 from '@y/y';

// stdout carries the answers only: what libraries print (Yjs' warnings) goes to stderr.
console.log = console.info = console.warn = console.error;

const REMOTE = 'remote';
const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const bytes = (s) => new Uint8Array(Buffer.from(s, 'base64'));

/**
 * A Y.Doc whose local writes (any origin but a remote update's; a relay's: all) are collected,
 * and the ids its editor gives blocks without one (`random`, seeded by the client id).
 */
function newDoc(client, relay = false) {
  const doc = new Y.Doc();
  doc.clientID = client;
  const out = [];
  doc.on('update', (update, origin) => {
    if (relay || origin !== REMOTE) out.push(b64(update));
  });
  return { doc, out, relay, random: seeded(client) };
}

const drain = (peer) => peer.out.splice(0).map((u) => (typeof u === 'string' ? u : b64(u)));

/** `tree`'s shape as `y14Shape` gives it: texts as plain strings, `undefined` attributes out. */
const shapeOf = (nodes) =>
  nodes.map((n) =>
    n.text
      ? n.text.map((run) => run.insert).join('')
      : {
          name: n.name,
          attrs: Object.fromEntries(Object.entries(n.attrs).filter(([, v]) => !v?.$undefined)),
          children: shapeOf(n.children),
        },
  );
const pending = (doc) => doc.store.pendingStructs !== null || doc.store.pendingDs !== null;

/** Clock ranges per client, sorted and merged: [client, clock, length] → {client: [[from, to]]}. */
const clockRanges = (pieces) => {
  const byClient = {};
  for (const [client, clock, length] of pieces) (byClient[client] ??= []).push([clock, clock + length]);
  for (const client of Object.keys(byClient)) {
    const merged = [];
    for (const [from, to] of byClient[client].sort((a, b) => a[0] - b[0])) {
      const last = merged[merged.length - 1];
      if (last && from <= last[1]) last[1] = Math.max(last[1], to);
      else merged.push([from, to]);
    }
    byClient[client] = merged;
  }
  return byClient;
};

/** What a Yjs 13 document holds aside (its pending structs and deletions, v2 updates), as
 * clock ranges: what it would insert, what it would delete. */
const aside = (doc) => {
  const inserted = [];
  const deleted = [];
  const deletions = (ds) => {
    for (const [client, items] of ds.clients) for (const { clock, len } of items) deleted.push([client, clock, len]);
  };
  if (doc.store.pendingStructs) {
    const { structs, ds } = Y.decodeUpdateV2(doc.store.pendingStructs.update);
    for (const s of structs) if (s.constructor.name !== 'Skip') inserted.push([s.id.client, s.id.clock, s.length]);
    deletions(ds);
  }
  if (doc.store.pendingDs) deletions(Y.decodeUpdateV2(doc.store.pendingDs).ds);
  return { inserted: clockRanges(inserted), deleted: clockRanges(deleted) };
};

function read(peer) {
  const { doc } = peer;
  const blocks = yDocBlocks(doc);
  const state = { blocks, tree: tree(doc), aside: aside(doc) };
  drain(peer);
  const { doc: shown, meta } = render(doc.getXmlFragment(FRAGMENT), peer.random);
  const rendered = drain(peer).length;
  writeBack(doc, shown, meta);
  return { ...state, rendered, rewritten: drain(peer).length };
}

const peers = new Map();
let yjs14 = null;
const y14Peer = () => {
  if (!yjs14) throw new Error('no Yjs 14 peer');
  return yjs14;
};
const peer = (name) => {
  const p = peers.get(name);
  if (!p) throw new Error(`no peer ${name}`);
  return p;
};

const commands = {
  async seed({ markdown, client }) {
    const seed = newDoc(client);
    blocksIntoFragment(await markdownToBlocks(markdown), seed.doc.getXmlFragment(FRAGMENT));
    return { update: b64(Y.encodeStateAsUpdate(seed.doc)) };
  },
  peer({ name, client, relay, yjs }) {
    peers.set(name, yjs === 14 ? new Y14Peer(client, REMOTE) : newDoc(client, relay));
    return {};
  },
  settle({ name }) {
    const p = peer(name);
    p.acceptAll();
    return { out: drain(p) };
  },
  forget() {
    for (const p of peers.values()) (p instanceof Y14Peer ? p : p.doc).destroy();
    peers.clear();
    return {};
  },
  apply({ name, update }) {
    const p = peer(name);
    if (p instanceof Y14Peer) {
      Y14.applyUpdate(p.doc, bytes(update), REMOTE);
      return { out: drain(p) };
    }
    Y.applyUpdate(p.doc, bytes(update), REMOTE);
    if (!p.relay) {
      const { doc, meta, named } = render(p.doc.getXmlFragment(FRAGMENT), p.random);
      if (named) writeBack(p.doc, doc, meta);
    }
    return { out: drain(p) };
  },
  edit({ name, seed }) {
    const p = peer(name);
    const kind = p instanceof Y14Peer ? p.edit(seed) : randomEdit(p.doc, seed);
    return { kind, out: drain(p) };
  },
  sv({ name }) {
    const p = peer(name);
    if (p instanceof Y14Peer) return { sv: b64(Y14.encodeStateVector(p.doc)), pending: pending(p.doc) };
    const { doc } = p;
    return { sv: b64(Y.encodeStateVector(doc)), pending: pending(doc) };
  },
  diff({ name, sv }) {
    const p = peer(name);
    if (p instanceof Y14Peer) return { update: b64(Y14.encodeStateAsUpdate(p.doc, bytes(sv))) };
    return { update: b64(Y.encodeStateAsUpdate(peer(name).doc, bytes(sv))) };
  },
  upstream({ name }) {
    const { updates, tree: yjs } = CASES[name]();
    return { updates: updates.map(b64), tree: yjs };
  },
  y14({ client }) {
    yjs14?.destroy();
    yjs14 = y14Doc(client);
    return {};
  },
  y14_apply({ update }) {
    y14.apply(y14Peer(), bytes(update));
    return {};
  },
  y14_write({ label }) {
    return { update: b64(y14Write(y14Peer(), label)) };
  },
  y14_out_of_order({ update }) {
    const { state, emitted, ...texts } = acceptedOutOfOrder(bytes(update));
    return { state: b64(state), emitted: b64(emitted), ...texts };
  },
  y14_state() {
    const doc = y14Peer();
    return { update: b64(y14.state(doc)), sv: b64(y14.stateVector(doc)) };
  },
  read({ name }) {
    const p = peer(name);
    if (!(p instanceof Y14Peer)) return read(p);
    const fresh = newDoc(1);
    Y.applyUpdate(fresh.doc, Y14.encodeStateAsUpdate(p.doc), REMOTE);
    const own = JSON.stringify(y14Shape(p.doc));
    const reading = read(fresh);
    const asRead = JSON.stringify(shapeOf(reading.tree));
    // (what it holds aside is what Yjs 13 reading its state holds aside: `aside`, compared)
    const y14Differs = own === asRead ? null : `Yjs 14 holds ${own}, Yjs 13 reads ${asRead}`;
    return { ...reading, y14Differs };
  },
  read_update({ update }) {
    const fresh = newDoc(1);
    Y.applyUpdate(fresh.doc, bytes(update), REMOTE);
    return read(fresh);
  },
};

// Yjs 14 is a release candidate that can throw integrating or accepting (`findIndexSS`'s
// "Unexpected case", a TypeError in it or in `getItemContent`), and an accept that throws can
// leave structs over structs in its store, whose encodings are then not valid updates (seed
// 31633 of the soak): a Yjs 14 browser's failure is answered, not an error of the request, as
// `y14Failed`; the scenario ends there, counted apart from ours.
for (const name of ['apply', 'edit', 'settle']) {
  const command = commands[name];
  commands[name] = (request) => {
    if (!(peers.get(request.name) instanceof Y14Peer)) return command(request);
    try {
      const answer = command(request);
      const p = peers.get(request.name);
      const fault = storeFault(p.doc) ?? storeFault(p.suggestions);
      if (fault) return { ...answer, y14Failed: `Yjs 14's store is broken after ${name}: ${fault}` };
      return answer;
    } catch (error) {
      return { out: [], kind: null, y14Failed: String(error?.message ?? error) };
    }
  };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let answer;
  try {
    const request = JSON.parse(line);
    answer = { ok: await commands[request.cmd](request) };
  } catch (error) {
    answer = { error: String(error?.stack ?? error) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
