// The shapes of upstream reports of yrs and Yjs integrating the same updates differently, built
// with Yjs 13 (the browsers' implementation): each case is the updates in the order a peer
// receives them, and the tree Yjs ends with (`tree` of src/browser.mjs).
//
// - y-crdt/y-crdt#605: an XmlFragment whose history holds a node of one client that another
//   client set an attribute on and deleted; the visible `<p><a/></p>` is sent whole (`before`),
//   then a peer that loaded it replaces `<a>` with `<b>` and sends what the first lacks (`diff`,
//   by state vector). Reported: Yjs ends `<p><b/></p>`, yrs 0.25 `<p><b/><a/></p>`.
// - y-crdt/y-crdt#632: one binary update (a whole state, from many clients that overwrote the
//   same keys concurrently, the values they replaced deleted) that Yjs 13.6.30 and yrs integrate
//   differently. Its bytes hold jupyter's map keys; here the same shape on what BlockNote uses as
//   a map: the attributes of XML elements, and formatting attributes of text.
import * as Y from 'yjs';

import { FRAGMENT } from './content.mjs';
import { tree } from './browser.mjs';

const sync = (from, to) => Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)));

function doc(client) {
  const d = new Y.Doc();
  d.clientID = client;
  return d;
}

/** #605, with the temporary node before or after `<a>`, deleted by its author or not. */
function case605({ tempAfter, deletedByOwner }) {
  const [c1, c2, c3] = [doc(1), doc(2), doc(3)];
  const f1 = c1.getXmlFragment(FRAGMENT);
  const p = new Y.XmlElement('p');
  f1.insert(0, [p]);
  p.insert(0, [new Y.XmlElement('a')]);
  p.insert(tempAfter ? 1 : 0, [new Y.XmlElement('temp')]);
  sync(c1, c2);
  const temp2 = c2.getXmlFragment(FRAGMENT).get(0).get(tempAfter ? 1 : 0);
  temp2.setAttribute('level', 2);
  if (deletedByOwner) {
    sync(c2, c1);
    c1.getXmlFragment(FRAGMENT).get(0).delete(tempAfter ? 1 : 0, 1);
    sync(c1, c2);
  } else {
    c2.getXmlFragment(FRAGMENT).get(0).delete(tempAfter ? 1 : 0, 1);
    sync(c2, c1);
  }
  const before = Y.encodeStateAsUpdate(c1);
  Y.applyUpdate(c3, before);
  const p3 = c3.getXmlFragment(FRAGMENT).get(0);
  c3.transact(() => {
    p3.delete(0, 1);
    p3.insert(0, [new Y.XmlElement('b')]);
  });
  const diff = Y.encodeStateAsUpdate(c3, Y.encodeStateVector(c1));
  const judge = doc(9);
  Y.applyUpdate(judge, before);
  Y.applyUpdate(judge, diff);
  return { updates: [before, diff], tree: tree(judge) };
}

/** #632: clients overwrite the same attributes concurrently; all of it in one update. */
function case632() {
  const peers = [10, 11, 12, 13, 14].map(doc);
  const [first] = peers;
  const p = new Y.XmlElement('paragraph');
  first.getXmlFragment(FRAGMENT).insert(0, [p]);
  p.insert(0, [new Y.XmlText('shared words')]);
  const updates = [Y.encodeStateAsUpdate(first)];
  for (const peer of peers.slice(1)) sync(first, peer);
  peers.forEach((peer) => peer.on('update', (u) => updates.push(u)));
  for (let round = 0; round < 3; round++) {
    peers.forEach((peer, i) => {
      const el = peer.getXmlFragment(FRAGMENT).get(0);
      el.setAttribute('textAlignment', ['left', 'center', 'right'][(i + round) % 3]);
      el.setAttribute('level', i + round);
      el.get(0).format(i % 4, 3 + round, { bold: round % 2 ? null : {} });
    });
    // Each round, each peer hears one other: the overwrites are concurrent, and the items
    // they replace are other clients'.
    peers.forEach((peer, i) => sync(peer, peers[(i + 1 + round) % peers.length]));
  }
  const whole = Y.mergeUpdates(updates);
  const judge = doc(9);
  Y.applyUpdate(judge, whole);
  return { updates: [whole], tree: tree(judge) };
}

export const CASES = {
  '605-temp-before-deleted-by-other': () => case605({ tempAfter: false, deletedByOwner: false }),
  '605-temp-after-deleted-by-other': () => case605({ tempAfter: true, deletedByOwner: false }),
  '605-temp-before-deleted-by-owner': () => case605({ tempAfter: false, deletedByOwner: true }),
  '605-temp-after-deleted-by-owner': () => case605({ tempAfter: true, deletedByOwner: true }),
  '632-concurrent-attributes-one-update': case632,
};
