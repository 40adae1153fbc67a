// A peer on Yjs 14 (`@y/y`, what Docs' next browser moves to): a document held as that Yjs
// holds it, and the writes such a browser makes beside BlockNote's document — typing into a
// block's text, a block's attribute, and BlockNote's version history (its root types
// `__bn_version_names` and `__bn_version_markers`). Used by the convergence test to show that
// our updates apply in Yjs 14, and Yjs 14's in ours, to the same state.
import * as Y14 from '@y/y';

import { FRAGMENT } from './content.mjs';

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
