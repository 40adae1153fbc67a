// A peer on Yjs 14 (`@y/y`, what Docs' next browser moves to): a document held as that Yjs
// holds it, and the writes such a browser makes beside BlockNote's document — typing into a
// block's text, a block's attribute, and BlockNote's version history (its root types
// `__bn_version_names` and `__bn_version_markers`). Used by the convergence test to show that
// our updates apply in Yjs 14, and Yjs 14's in ours, to the same state.
import * as Y14 from '@y/y';
import * as Y13 from 'yjs';

import { FRAGMENT } from './content.mjs';
import { seeded } from './random.mjs';

/** A Yjs 14 document of client `client`. */
export function y14Doc(client) {
  const doc = new Y14.Doc();
  doc.clientID = client;
  return doc;
}

/** The first text of the fragment, depth first (a block's inline content), if any. */
function firstText(type) {
  for (const child of type.toArray()) {
    if (child && typeof child === 'object' && typeof child.toArray === 'function') {
      if (child.name === undefined || child.name === null) return child;
      const found = firstText(child);
      if (found) return found;
    }
  }
  return null;
}

/** The first element named `name`, depth first. */
function firstElement(type, name) {
  for (const child of type.toArray()) {
    if (child && typeof child === 'object' && typeof child.toArray === 'function') {
      if (child.name === name) return child;
      const found = firstElement(child, name);
      if (found) return found;
    }
  }
  return null;
}

/**
 * A Yjs 14 browser's writes: words typed at the start of the first text, the first
 * paragraph centred, a version named and marked. Returns what it wrote, as an update from
 * the state before.
 */
export function y14Write(doc, label) {
  const before = Y14.encodeStateVector(doc);
  doc.transact(() => {
    const fragment = doc.get(FRAGMENT);
    firstText(fragment)?.insert(0, `${label} `);
    firstElement(fragment, 'paragraph')?.setAttr('textAlignment', 'center');
    doc.get('__bn_version_names').setAttr(label, `Version ${label}`);
    doc.get('__bn_version_markers').setAttr(label, 1);
  });
  return Y14.encodeStateAsUpdate(doc, before);
}

export const y14 = {
  apply: (doc, update) => Y14.applyUpdate(doc, update),
  state: (doc) => Y14.encodeStateAsUpdate(doc),
  stateVector: (doc) => Y14.encodeStateVector(doc),
  diff: (doc, sv) => Y14.encodeStateAsUpdate(doc, sv),
};

const below = (random, n) => Math.floor(random() * n);
const pick = (random, xs) => xs[below(random, xs.length)];
const WORDS = ['yes ', 'ça ', '中文 ', '😀 ', 'and ', 'été '];

/** Every text of the fragment (blocks' inline content), depth first. */
function texts(type, found = []) {
  for (const child of type.toArray()) {
    if (child && typeof child === 'object' && typeof child.toArray === 'function') {
      if (child.name === undefined || child.name === null) found.push(child);
      else texts(child, found);
    }
  }
  return found;
}

/** A text's characters as a string (formats aside). */
const plain = (text) => text.toDelta().children.map((d) => (typeof d.insert === 'string' ? d.insert : '')).join('');

/** UTF-16 offsets in `s` that fall between code points (a person's caret never splits one). */
function boundaries(s) {
  const at = [0];
  let i = 0;
  for (const ch of s) at.push((i += ch.length));
  return at;
}

/** Elements of the fragment whose attributes BlockNote reads as a block's props. */
function contents(type, found = []) {
  for (const child of type.toArray()) {
    if (child && typeof child === 'object' && typeof child.toArray === 'function' && child.name) {
      if (['paragraph', 'heading', 'bulletListItem', 'numberedListItem', 'quote'].includes(child.name)) {
        found.push(child);
      }
      contents(child, found);
    }
  }
  return found;
}

/** Types a word at a caret of a random text of `doc`; false when it holds no text. */
function typeWord(doc, random) {
  const all = texts(doc.get(FRAGMENT));
  if (!all.length) return false;
  const text = pick(random, all);
  doc.transact(() => text.insert(pick(random, boundaries(plain(text))), pick(random, WORDS)));
  return true;
}

/** Deletes a few characters of a random text of `doc`; false when there are none. */
function deleteSome(doc, random) {
  const all = texts(doc.get(FRAGMENT)).filter((t) => plain(t).length > 0);
  if (!all.length) return false;
  const text = pick(random, all);
  const at = boundaries(plain(text));
  const from = below(random, at.length - 1);
  const to = Math.min(at.length - 1, from + 1 + below(random, 4));
  doc.transact(() => text.delete(at[from], at[to] - at[from]));
  return true;
}

/**
 * A browser on Yjs 14 as Docs' next one would be (BlockNote 0.55's suggestions over
 * `DiffAttributionManager`, its version history): its document, and a suggestion document
 * forked from it whose suggested changes reach the document only when accepted or rejected —
 * one change at a time, so the document gets the suggestion client's items with gaps in their
 * clocks (Yjs 14 integrates past a gap; Yjs 13 holds what follows it aside).
 */
export class Y14Peer {
  constructor(client, remote) {
    this.doc = y14Doc(client);
    this.suggestions = y14Doc(client ^ 0x20000000);
    this.manager = new Y14.DiffAttributionManager(this.doc, this.suggestions);
    this.suggested = [];
    this.out = [];
    this.doc.on('update', (update, origin) => {
      if (origin !== remote) this.out.push(update);
    });
  }

  /** One random write of a person on Yjs 14: its kind, or null when none applied. */
  edit(seed) {
    const random = seeded(seed);
    const kind = pick(random, Y14_KINDS);
    const done = Y14_EDITS[kind](this, random);
    return done === false ? null : kind;
  }

  /** Every suggestion still open accepted: no gap left in the suggestion client's clocks. */
  acceptAll() {
    this.manager.acceptAllChanges();
    this.suggested = [];
  }

  destroy() {
    this.manager.destroy();
    this.suggestions.destroy();
    this.doc.destroy();
  }
}

/**
 * Makes a suggested change with `write` in the suggestion document, and keeps the id of its
 * first inserted or deleted character, to accept or reject it by.
 */
function suggest(peer, random, write) {
  let first = null;
  const seen = (tr) => {
    for (const set of [tr.insertSet, tr.deleteSet]) {
      set.forEach((range, client) => {
        first ??= Y14.createID(client, range.clock);
      });
    }
  };
  peer.suggestions.on('afterTransaction', seen);
  try {
    if (!write(peer.suggestions, random)) return false;
  } finally {
    peer.suggestions.off('afterTransaction', seen);
  }
  if (first) peer.suggested.push(first);
  return true;
}

/** Accepts (or rejects) one open suggestion; false when none is open. */
function decide(peer, random, accept) {
  if (!peer.suggested.length) return false;
  const [id] = peer.suggested.splice(below(random, peer.suggested.length), 1);
  // (what Yjs 14 throws here is its own fault — a TypeError in `findIndexSS` or
  // `getItemContent`, "Unexpected case" —, and leaves its store broken: thrown on, counted
  // apart from ours by `peers.mjs`, never taken for "nothing left to decide")
  if (accept) peer.manager.acceptChanges(id);
  else peer.manager.rejectChanges(id);
  return true;
}

const Y14_EDITS = {
  'y14 type': (peer, random) => typeWord(peer.doc, random),
  'y14 delete': (peer, random) => deleteSome(peer.doc, random),
  'y14 align': (peer, random) => {
    const all = contents(peer.doc.get(FRAGMENT));
    if (!all.length) return false;
    const block = pick(random, all);
    peer.doc.transact(() => block.setAttr('textAlignment', pick(random, ['left', 'center', 'right'])));
    return true;
  },
  'y14 version': (peer, random) => {
    const label = `v${below(random, 1000)}`;
    peer.doc.transact(() => {
      peer.doc.get('__bn_version_names').setAttr(label, `Version ${label}`);
      peer.doc.get('__bn_version_markers').setAttr(label, below(random, 1 << 20));
    });
    return true;
  },
  'y14 suggest typing': (peer, random) => suggest(peer, random, typeWord),
  'y14 suggest deletion': (peer, random) => suggest(peer, random, deleteSome),
  'y14 accept one': (peer, random) => decide(peer, random, true),
  'y14 reject one': (peer, random) => decide(peer, random, false),
};
const Y14_WEIGHTS = {
  'y14 type': 4, 'y14 delete': 2, 'y14 align': 1, 'y14 version': 1,
  'y14 suggest typing': 3, 'y14 suggest deletion': 1, 'y14 accept one': 2, 'y14 reject one': 1,
};
const Y14_KINDS = Object.entries(Y14_WEIGHTS).flatMap(([k, w]) => Array(w).fill(k));

/**
 * Where Yjs 14's struct store of `doc` is not a sequence of structs each starting where the one
 * before ends (what every operation of Yjs assumes), if anywhere: `client: clock+len then
 * clock+len`. (Yjs 14 rc.7 can integrate a struct over one it holds: its later encodings are
 * then not valid updates.)
 */
export function storeFault(doc) {
  for (const [client, structs] of doc.store.clients) {
    for (let i = 1; i < structs.length; i++) {
      const [a, b] = [structs[i - 1], structs[i]];
      if (a.id.clock + a.length !== b.id.clock) {
        return `${client}: ${a.constructor.name} ${a.id.clock}+${a.length} then ${b.constructor.name} ${b.id.clock}+${b.length}`;
      }
    }
  }
  return null;
}

/** The fragment's elements, attributes and plain text as Yjs 14 itself holds them. */
export function y14Shape(doc) {
  const node = (t) =>
    t.name === null || t.name === undefined
      ? plain(t)
      : { name: t.name, attrs: Object.fromEntries(Object.entries(t.getAttrs()).filter(([, v]) => v !== undefined).sort()), children: t.toArray().map(node) };
  return doc.get(FRAGMENT).toArray().map(node);
}

/**
 * Yjs 14's suggestions accepted out of order, on the document `update` holds: a suggestion
 * document types `first ` at the start of the first paragraph, then ` last` at its end, and
 * only the second is accepted. Returns Yjs 14's whole state after it, the update its document
 * emitted accepting it (what a room gets), and that paragraph's text as Yjs 14 reads it and as
 * Yjs 13 reads the state (with whether Yjs 13 holds structs aside).
 */
export function acceptedOutOfOrder(update) {
  const doc = y14Doc(40);
  Y14.applyUpdate(doc, update);
  const suggestions = y14Doc(41);
  Y14.applyUpdate(suggestions, Y14.encodeStateAsUpdate(doc));
  const manager = new Y14.DiffAttributionManager(doc, suggestions);
  const emitted = [];
  doc.on('update', (u) => emitted.push(u));
  const text = (d) => firstText(firstElement(d.get(FRAGMENT), 'paragraph'));
  const theirs = text(suggestions);
  suggestions.transact(() => theirs.insert(0, 'first '));
  const before = plain(theirs).length;
  suggestions.transact(() => theirs.insert(before, ' last'));
  manager.acceptChanges(Y14.createID(41, 'first '.length));
  const state = Y14.encodeStateAsUpdate(doc);
  const y13 = new Y13.Doc();
  Y13.applyUpdate(y13, state);
  const y13Text = firstText13(y13.getXmlFragment(FRAGMENT));
  manager.destroy();
  return {
    state,
    emitted: Y14.mergeUpdates(emitted),
    y14Text: plain(text(doc)),
    y13Text,
    y13Pending: y13.store.pendingStructs !== null,
  };
}

/** The first paragraph's text in a Yjs 13 fragment (its marks aside). */
function firstText13(fragment) {
  const paragraph = (type) => {
    for (const child of type.toArray()) {
      if (child instanceof Y13.XmlElement) {
        if (child.nodeName === 'paragraph') return child;
        const found = paragraph(child);
        if (found) return found;
      }
    }
    return null;
  };
  const text = paragraph(fragment)?.toArray().find((c) => c instanceof Y13.XmlText);
  return text ? text.toDelta().map((d) => d.insert).join('') : null;
}
