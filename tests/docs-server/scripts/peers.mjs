// Browser stand-ins for the convergence test (crates/docs-mcp/tests/convergence), driven over
// stdin/stdout, one JSON object per line each way: `{"cmd": ..., ...}` → `{"ok": {...}}` or
// `{"error": "..."}`. Updates, state vectors are base64 (Yjs v1 encoding).
//
//   seed {markdown, client}        → {update}: the document BlockNote makes of the markdown,
//                                     written by a Y.Doc of that client id
//   peer {name, client, relay}     → {}: a new browser (a Y.Doc with that client id), or with
//                                     `relay` the room: it renders nothing and passes on every
//                                     update it integrates, as the collaboration server does
//   forget {}                      → {}: every browser dropped (the next scenario starts)
//   apply {name, update}           → {out}: a remote update applied, then rendered as the
//                                     editor does (rendering may write, and naming blocks
//                                     without an id does: `out`)
//   edit {name, seed}              → {kind, out}: one random edit of a person (src/browser.mjs)
//   sv {name}                      → {sv, pending}: state vector; whether updates wait aside
//   diff {name, sv}                → {update}: what a peer at `sv` lacks (sync step 2)
//   upstream {case}                → {updates, tree}: an upstream report's shape
//                                     (src/upstream.mjs): updates in order, and Yjs' tree
//   y14 {client}                   → {}: the Yjs 14 peer (src/yjs14.mjs), a fresh document
//   y14_apply {update}             → {}: an update applied by Yjs 14
//   y14_write {label}              → {update}: a Yjs 14 browser's writes (src/yjs14.mjs)
//   y14_state {}                   → {update, sv}: Yjs 14's whole state and state vector
//   read {name} / read_update {update}
//                                  → {blocks, tree, pending, rendered, rewritten}: BlockNote's
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
import { y14, y14Doc, y14Write } from '../src/yjs14.mjs';

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

const drain = (peer) => peer.out.splice(0);
const pending = (doc) => doc.store.pendingStructs !== null || doc.store.pendingDs !== null;

function read(peer) {
  const { doc } = peer;
  const blocks = yDocBlocks(doc);
  const state = { blocks, tree: tree(doc), pending: pending(doc) };
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
  peer({ name, client, relay }) {
    peers.set(name, newDoc(client, relay));
    return {};
  },
  forget() {
    for (const { doc } of peers.values()) doc.destroy();
    peers.clear();
    return {};
  },
  apply({ name, update }) {
    const p = peer(name);
    Y.applyUpdate(p.doc, bytes(update), REMOTE);
    if (!p.relay) {
      const { doc, meta, named } = render(p.doc.getXmlFragment(FRAGMENT), p.random);
      if (named) writeBack(p.doc, doc, meta);
    }
    return { out: drain(p) };
  },
  edit({ name, seed }) {
    const p = peer(name);
    const kind = randomEdit(p.doc, seed);
    return { kind, out: drain(p) };
  },
  sv({ name }) {
    const { doc } = peer(name);
    return { sv: b64(Y.encodeStateVector(doc)), pending: pending(doc) };
  },
  diff({ name, sv }) {
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
  y14_state() {
    const doc = y14Peer();
    return { update: b64(y14.state(doc)), sv: b64(y14.stateVector(doc)) };
  },
  read({ name }) {
    return read(peer(name));
  },
  read_update({ update }) {
    const fresh = newDoc(1);
    Y.applyUpdate(fresh.doc, bytes(update), REMOTE);
    return read(fresh);
  },
};

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
