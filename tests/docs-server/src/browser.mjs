// A browser stand-in for convergence tests: a Y.Doc written to exactly as Docs' editor writes
// to it, without an EditorView. What a browser writes depends only on the ProseMirror document
// before and after a change, not on the steps between them: y-prosemirror's binding renders
// the fragment (`createNodeFromYElement`, which DELETES from the Y.Doc what the schema refuses),
// fits it into the editor's document (`tr.replace` of the whole content, as `_forceRerender`),
// and after a local change writes the whole new document back (`updateYFragment`, in a
// transaction whose origin is `ySyncPluginKey`). Here each edit renders the fragment afresh,
// makes one random change of a kind a person makes (typing, formatting, comments, splitting and
// joining blocks, nesting, moves, deletes, types and props, table rows) with
// prosemirror-transform, and writes it back with the binding's own function.
// Of BlockNote's appendTransaction plugins, only UniqueID's naming of blocks without an id is
// run (`nameBlocks`); not its renaming of duplicates (new blocks get fresh ids here), nor the
// trailing empty block.
import { Slice } from 'prosemirror-model';
import { Transform } from 'prosemirror-transform';
import { initProseMirrorDoc, updateYFragment, ySyncPluginKey } from 'y-prosemirror';
import * as Y from 'yjs';

import { FRAGMENT, pmSchema as schema } from './content.mjs';
import { seeded } from './random.mjs';


const below = (random, n) => Math.floor(random() * n);
const pick = (random, xs) => xs[below(random, xs.length)];

/** A UUID v4 from `random` (a block id as BlockNote's UniqueID extension makes them). */
function uuid(random) {
  const hex = [...Array(32)].map(() => below(random, 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[below(random, 4)];
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

// Letters, spaces, and characters of more than one UTF-16 unit or byte (offsets differ).
const ALPHABET = ['a', 'e', 'i', 'o', 'n', 's', 't', ' ', ' ', 'é', 'ß', '中', '😀'];
const word = (random) => [...Array(1 + below(random, 5))].map(() => pick(random, ALPHABET)).join('');

/**
 * The editor's document as a browser shows the fragment; rendering may delete from it. With
 * `named` when blocks the fit into the schema made (an emptied fragment gets one) were given
 * ids, as UniqueID gives them after the binding's transaction: the browser then writes them.
 */
export function render(fragment, random) {
  const { doc, meta } = initProseMirrorDoc(fragment, schema);
  const shown = schema.topNodeType.createAndFill();
  const tr = new Transform(shown).replace(0, shown.content.size, new Slice(doc.content, 0, 0));
  const named = nameBlocks(tr, random);
  return { doc: tr.doc, meta, named };
}

/**
 * Gives each block without an id one from `random`, as BlockNote's UniqueID plugin does in
 * every transaction that changed the document, the binding's too; whether there was one.
 * (A real editor names the block of an emptied, initial document "initialBlockId".)
 */
function nameBlocks(tr, random) {
  const unnamed = [];
  tr.doc.descendants((node, pos) => {
    if (node.type.name === 'blockContainer' && node.attrs.id === null) unnamed.push(pos);
  });
  for (const pos of unnamed) tr.setNodeMarkup(pos, undefined, { ...tr.doc.nodeAt(pos).attrs, id: uuid(random) });
  return unnamed.length > 0;
}

/** The document `doc` written back to the fragment, as the binding does after a change. */
export function writeBack(ydoc, doc, meta) {
  ydoc.transact(() => updateYFragment(ydoc, ydoc.getXmlFragment(FRAGMENT), doc, meta), ySyncPluginKey);
}

function textblocks(doc) {
  const out = [];
  doc.descendants((node, pos) => {
    if (node.isTextblock) {
      out.push({ node, pos });
      return false;
    }
    return true;
  });
  return out;
}

function containers(doc) {
  const out = [];
  doc.descendants((node, pos) => {
    if (node.type.name === 'blockContainer') {
      const $pos = doc.resolve(pos);
      out.push({ node, pos, end: pos + node.nodeSize, group: $pos.parent, index: $pos.index(), depth: $pos.depth });
    }
    return true;
  });
  return out;
}

/** `pos`, or the position before it when it falls inside a surrogate pair (a caret never does). */
function whole(doc, pos) {
  const $pos = doc.resolve(pos);
  if ($pos.textOffset === 0) return pos;
  const code = $pos.parent.child($pos.index()).text.charCodeAt($pos.textOffset);
  return code >= 0xdc00 && code <= 0xdfff ? pos - 1 : pos;
}

/** A range [from, to) inside a textblock's content, maybe empty, never inside a character. */
function rangeIn(random, { node, pos }, doc) {
  const size = node.content.size;
  const a = below(random, size + 1);
  const b = below(random, size + 1);
  return [whole(doc, pos + 1 + Math.min(a, b)), whole(doc, pos + 1 + Math.max(a, b))];
}

function randomMark(random) {
  switch (below(random, 8)) {
    case 0: return schema.marks.bold.create();
    case 1: return schema.marks.italic.create();
    case 2: return schema.marks.underline.create();
    case 3: return schema.marks.strike.create();
    case 4: return schema.marks.textColor.create({ stringValue: pick(random, ['red', 'blue']) });
    case 5: return schema.marks.backgroundColor.create({ stringValue: pick(random, ['yellow', 'green']) });
    case 6: return schema.marks.link.create({ href: `https://example.com/${word(random).trim() || 'x'}` });
    default: return schema.marks.comment.create({ threadId: uuid(random), orphan: false });
  }
}

const INLINE_TYPES = ['paragraph', 'heading', 'bulletListItem', 'numberedListItem', 'checkListItem', 'quote', 'toggleListItem'];

function typeAttrs(random, name) {
  switch (name) {
    case 'heading': return { level: 1 + below(random, 3) };
    case 'checkListItem': return { checked: random() < 0.5 };
    default: return {};
  }
}

function newContainer(random) {
  const name = pick(random, INLINE_TYPES);
  const content = schema.nodes[name].create(typeAttrs(random, name), schema.text(word(random) + ' ' + word(random)));
  return schema.nodes.blockContainer.create({ id: uuid(random) }, content);
}

/** Moves container `c` to `to` (a position in the document before the move). */
function moveTo(tr, c, to) {
  tr.insert(to, c.node);
  const from = tr.mapping.map(c.pos, 1);
  tr.delete(from, from + c.node.nodeSize);
}

// Each edit changes `tr` or returns false when it does not apply to this document.
const EDITS = {
  type(tr, random) {
    const tb = pick(random, textblocks(tr.doc));
    const [at] = rangeIn(random, tb, tr.doc);
    const marks = tb.node.type.spec.code ? [] : tr.doc.resolve(at).marks();
    tr.insert(at, schema.text(word(random), marks));
  },
  deleteText(tr, random) {
    const [from, to] = rangeIn(random, pick(random, textblocks(tr.doc)), tr.doc);
    if (from === to) return false;
    tr.delete(from, to);
  },
  addMark(tr, random) {
    const tb = pick(random, textblocks(tr.doc));
    const [from, to] = rangeIn(random, tb, tr.doc);
    const mark = randomMark(random);
    if (from === to || !tb.node.type.allowsMarkType(mark.type)) return false;
    tr.addMark(from, to, mark);
  },
  removeMark(tr, random) {
    const tb = pick(random, textblocks(tr.doc));
    const [from, to] = rangeIn(random, tb, tr.doc);
    const marks = [];
    tr.doc.nodesBetween(from, to, (n) => void marks.push(...n.marks));
    if (from === to || marks.length === 0) return false;
    tr.removeMark(from, to, pick(random, marks).type);
  },
  hardBreak(tr, random) {
    const tb = pick(random, textblocks(tr.doc));
    if (tb.node.type.spec.code) return false;
    tr.insert(rangeIn(random, tb, tr.doc)[0], schema.nodes.hardBreak.create());
  },
  split(tr, random) {
    const tb = pick(random, textblocks(tr.doc));
    if (tr.doc.resolve(tb.pos).parent.type.name !== 'blockContainer') return false;
    const [at] = rangeIn(random, tb, tr.doc);
    tr.split(at, 2, [
      { type: schema.nodes.blockContainer, attrs: { id: uuid(random) } },
      { type: tb.node.type, attrs: tb.node.attrs },
    ]);
  },
  join(tr, random) {
    const all = containers(tr.doc);
    const a = pick(random, all);
    const b = all.find((c) => c.group === a.group && c.index === a.index + 1);
    if (!b || a.node.childCount > 1 || !a.node.firstChild.isTextblock || !b.node.firstChild.isTextblock) return false;
    tr.delete(a.pos + a.node.firstChild.nodeSize, b.pos + 2);
  },
  deleteBlock(tr, random) {
    const c = pick(random, containers(tr.doc));
    if (c.group.childCount > 1) return void tr.delete(c.pos, c.end);
    if (c.depth < 2) return false;
    const $c = tr.doc.resolve(c.pos);
    tr.delete($c.before(), $c.after());
  },
  insertBlock(tr, random) {
    const c = pick(random, containers(tr.doc));
    tr.insert(random() < 0.5 ? c.pos : c.end, newContainer(random));
  },
  move(tr, random) {
    const all = containers(tr.doc);
    const c = pick(random, all);
    const target = pick(random, all);
    if (c.group.childCount < 2 || (target.pos >= c.pos && target.pos < c.end)) return false;
    moveTo(tr, c, random() < 0.5 ? target.pos : target.end);
  },
  nest(tr, random) {
    const all = containers(tr.doc);
    const c = pick(random, all);
    const before = all.find((p) => p.group === c.group && p.index === c.index - 1);
    if (!before) return false;
    const children = before.node.childCount > 1 ? before.node.lastChild : null;
    if (children) return void moveTo(tr, c, before.end - 2);
    tr.insert(before.end - 1, schema.nodes.blockGroup.create(null, c.node));
    const from = tr.mapping.map(c.pos, 1);
    tr.delete(from, from + c.node.nodeSize);
  },
  unnest(tr, random) {
    const c = pick(random, containers(tr.doc));
    if (c.depth < 2 || c.group.childCount < 2) return false;
    const $c = tr.doc.resolve(c.pos);
    moveTo(tr, c, $c.after($c.depth - 1));
  },
  changeType(tr, random) {
    const c = pick(random, containers(tr.doc));
    const content = c.node.firstChild;
    if (!INLINE_TYPES.includes(content.type.name)) return false;
    const name = pick(random, INLINE_TYPES);
    const type = schema.nodes[name];
    const kept = Object.fromEntries(Object.entries(content.attrs).filter(([k]) => k in type.attrs));
    tr.setNodeMarkup(c.pos + 1, type, { ...kept, ...typeAttrs(random, name) });
  },
  setProp(tr, random) {
    const c = pick(random, containers(tr.doc));
    const content = c.node.firstChild;
    const choices = {
      textAlignment: ['left', 'center', 'right', 'justify'],
      textColor: ['default', 'red'],
      backgroundColor: ['default', 'blue'],
      level: [1, 2, 3],
      checked: [true, false],
    };
    const names = Object.keys(content.attrs).filter((k) => k in choices);
    if (names.length === 0) return false;
    const name = pick(random, names);
    tr.setNodeMarkup(c.pos + 1, null, { ...content.attrs, [name]: pick(random, choices[name]) });
  },
  tableRow(tr, random) {
    const tables = [];
    tr.doc.descendants((node, pos) => void (node.type.name === 'table' && tables.push({ node, pos })));
    if (tables.length === 0) return false;
    const { node, pos } = pick(random, tables);
    const i = below(random, node.childCount);
    let at = pos + 1;
    for (let r = 0; r < i; r++) at += node.child(r).nodeSize;
    const row = node.child(i);
    if (random() < 0.5 && node.childCount > 1) return void tr.delete(at, at + row.nodeSize);
    const cells = [];
    row.forEach((cell) => cells.push(cell.type.create(cell.attrs, schema.nodes.tableParagraph.create(null, schema.text(word(random))))));
    tr.insert(at + row.nodeSize, row.type.create(null, cells));
  },
};

// How often each kind comes: typing and formatting most, as people edit.
const WEIGHTS = {
  type: 6, deleteText: 3, addMark: 3, removeMark: 1, hardBreak: 1, split: 2, join: 2, deleteBlock: 2,
  insertBlock: 2, move: 2, nest: 1, unnest: 1, changeType: 1, setProp: 1, tableRow: 1,
};
const KINDS = Object.entries(WEIGHTS).flatMap(([k, w]) => Array(w).fill(k));

/**
 * One random edit of a browser on `ydoc`, seeded: the kind made (or null when none applied
 * after a few tries). Writes go to `ydoc` with the binding's origin.
 */
export function randomEdit(ydoc, seed) {
  const random = seeded(seed);
  const { doc, meta, named } = render(ydoc.getXmlFragment(FRAGMENT), random);
  for (let attempt = 0; attempt < 12; attempt++) {
    const kind = pick(random, KINDS);
    const tr = new Transform(doc);
    try {
      if (EDITS[kind](tr, random) === false || !tr.docChanged) continue;
      nameBlocks(tr, random);
      tr.doc.check();
    } catch {
      continue; // an edit the schema refuses: a person's editor would not make it
    }
    writeBack(ydoc, tr.doc, meta);
    return kind;
  }
  // No edit applied: the ids its editor gave on rendering are written all the same.
  if (named) writeBack(ydoc, doc, meta);
  return null;
}

/** A Y.Doc's tree, canonical: element names, attributes (sorted; `undefined` kept), text runs. */
export function tree(ydoc) {
  const value = (v) => (v === undefined ? { $undefined: true } : v);
  const node = (t) =>
    t instanceof Y.XmlText
      ? { text: t.toDelta().map((d) => ({ insert: d.insert, attributes: d.attributes ?? {} })) }
      : {
          name: t.nodeName,
          attrs: Object.fromEntries(Object.entries(t.getAttributes()).sort().map(([k, v]) => [k, value(v)])),
          children: t.toArray().map(node),
        };
  return ydoc.getXmlFragment(FRAGMENT).toArray().map(node);
}
