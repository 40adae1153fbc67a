// The Yjs items of each block's inline text, as a document holds them: who inserted each piece
// of text and next to what (its origin and right origin, the neighbours it was typed between).
// Tells the text a merge wrote from the order Yjs gives insertions that did not see each other.
import * as Y from 'yjs';

import { FRAGMENT } from './content.mjs';

const idOf = (id) => (id ? [id.client, id.clock] : null);

function itemsOf(xmlText) {
  const items = [];
  for (let item = xmlText._start; item; item = item.right) {
    const content = item.content;
    items.push({
      client: item.id.client,
      clock: item.id.clock,
      length: item.length,
      deleted: item.deleted,
      // null for what is not text, and for deleted text the document no longer keeps.
      text: content instanceof Y.ContentString ? content.str : null,
      format: content instanceof Y.ContentFormat ? content.key : null,
      origin: idOf(item.origin),
      right_origin: idOf(item.rightOrigin),
    });
  }
  return items;
}

/** `[{block_id, items: [...]}]` for every block with inline text, in document order. */
export function textItems(ydoc) {
  const out = [];
  const walk = (parent) => {
    for (const child of parent.toArray()) {
      if (!(child instanceof Y.XmlElement)) continue;
      if (child.nodeName === 'blockContainer') {
        const content = child.get(0);
        if (content instanceof Y.XmlElement) {
          const texts = content.toArray().filter((c) => c instanceof Y.XmlText);
          if (texts.length) out.push({ block_id: child.getAttribute('id'), items: texts.flatMap(itemsOf) });
        }
      }
      walk(child);
    }
  };
  walk(ydoc.getXmlFragment(FRAGMENT));
  return out;
}
