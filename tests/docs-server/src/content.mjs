// Content conversions done exactly the way Docs (and its y-provider) does them:
// BlockNote's ServerBlockNoteEditor with Docs' schema and BlockNote's comments extension,
// Y.XmlFragment "document-store".
import { CommentsExtension, DefaultThreadStoreAuth } from '@blocknote/core/comments';
import { YjsThreadStore } from '@blocknote/core/yjs';
import { ServerBlockNoteEditor } from '@blocknote/server-util';
import { Transform } from 'prosemirror-transform';
import { initProseMirrorDoc, updateYFragment, yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror';
import * as Y from 'yjs';

import { docsSchema } from './schema.mjs';

export const FRAGMENT = 'document-store';

// Like Docs' editor and its y-provider's converter: the `comment` mark (BlockNote's
// CommentMark: attrs `orphan`, `threadId`) exists in the schema only through the comments
// extension. Without it, y-prosemirror drops every commented run of text, with its text, when
// it reads the document. The thread store is never used here (we only read and write
// content); it only satisfies the extension.
const unusedThreadStore = new YjsThreadStore(
  'docs-server',
  new Y.Doc().getMap('comment-threads'),
  new DefaultThreadStoreAuth('docs-server', 'editor'),
);

const editor = ServerBlockNoteEditor.create({
  schema: docsSchema,
  extensions: [
    CommentsExtension({
      threadStore: unusedThreadStore,
      resolveUsers: async (ids) => ids.map((id) => ({ id, username: id, avatarUrl: '' })),
    }),
  ],
});

/** The ProseMirror schema of Docs' editor (with the `comment` mark), as a browser holds it. */
export const pmSchema = editor.editor.pmSchema;

/** BlockNote blocks of a Y.Doc, as BlockNote's own parser reads them (no markdown). */
export function yDocBlocks(ydoc) {
  return editor.yDocToBlocks(ydoc, FRAGMENT);
}

/** BlockNote blocks written into `fragment` (of a Y.Doc whose client id the caller chose). */
export function blocksIntoFragment(blocks, fragment) {
  editor.blocksToYXmlFragment(blocks, fragment);
}

/** Markdown → BlockNote blocks (BlockNote's own markdown import). */
export async function markdownToBlocks(markdown) {
  return editor.tryParseMarkdownToBlocks(markdown);
}

/** BlockNote blocks → full Yjs update (Uint8Array), as Docs stores it. */
export function blocksToUpdate(blocks) {
  const ydoc = editor.blocksToYDoc(blocks, FRAGMENT);
  const update = Y.encodeStateAsUpdate(ydoc);
  ydoc.destroy();
  return update;
}

/** Reads a Y.Doc back through BlockNote's own parser. */
export async function parseYDoc(ydoc) {
  const blocks = editor.yDocToBlocks(ydoc, FRAGMENT);
  const markdown = await editor.blocksToMarkdownLossy(blocks);
  return { blocks, markdown };
}

/** Reads a stored base64 update back through BlockNote: {blocks, markdown, update_b64}. */
export async function parseStored(b64) {
  const ydoc = new Y.Doc();
  if (b64) Y.applyUpdate(ydoc, Buffer.from(b64, 'base64'));
  const parsed = await parseYDoc(ydoc);
  ydoc.destroy();
  return { ...parsed, update_b64: b64 || '' };
}

/**
 * The comment marks of a Y.Doc as BlockNote's editor sees them (its ProseMirror document, read
 * by y-prosemirror with the editor's schema): for each block, every run of text carrying a
 * `comment` mark, contiguous text with the same mark merged, in document order:
 * `[{block_id, thread_id, orphan, text, start, end}]`, where `start`/`end` are offsets (UTF-16
 * code units) in the block's own inline text (a hard break counts as "\n", other inline
 * nodes as nothing). Works on a copy: reading never changes `ydoc`.
 */
export function commentMarks(ydoc) {
  const copy = new Y.Doc();
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(ydoc));
  const root = yXmlFragmentToProseMirrorRootNode(copy.getXmlFragment(FRAGMENT), editor.editor.pmSchema);
  copy.destroy();
  const out = [];
  root.descendants((node) => {
    if (node.type.name !== 'blockContainer') return true;
    const content = node.firstChild;
    if (!content || content.type.name === 'blockGroup') return true;
    let offset = 0;
    const open = new Map(); // "threadId/orphan" -> entry being built
    const visit = (child) => {
      if (child.isText) {
        const here = new Set();
        for (const mark of child.marks) {
          if (mark.type.name !== 'comment') continue;
          const key = `${mark.attrs.threadId}/${mark.attrs.orphan}`;
          here.add(key);
          const entry = open.get(key);
          if (entry && entry.end === offset) {
            entry.text += child.text;
            entry.end += child.text.length;
          } else {
            const fresh = {
              block_id: node.attrs.id,
              thread_id: mark.attrs.threadId,
              orphan: mark.attrs.orphan === true,
              text: child.text,
              start: offset,
              end: offset + child.text.length,
            };
            open.set(key, fresh);
            out.push(fresh);
          }
        }
        for (const key of [...open.keys()]) if (!here.has(key)) open.delete(key);
        offset += child.text.length;
      } else if (child.isInline) {
        open.clear();
        if (child.type.name === 'hardBreak') offset += 1;
      } else {
        child.forEach(visit); // table rows, cells, cell paragraphs
      }
    };
    content.forEach(visit);
    return true; // nested blocks are visited too
  });
  return out;
}

/**
 * Puts a comment mark on the first occurrence of `text` in a block's inline text, the way
 * Docs' editor does (`setMark('comment', {orphan, threadId})` on the ProseMirror document,
 * written to the Y.Doc by y-prosemirror's own binding code, which names the attribute
 * `comment--<hash>`). Returns false when the block or the text is not found.
 */
export function addCommentMark(ydoc, { blockId, text, threadId, orphan = false }) {
  const fragment = ydoc.getXmlFragment(FRAGMENT);
  const schema = editor.editor.pmSchema;
  const { doc, meta } = initProseMirrorDoc(fragment, schema);
  let range = null;
  doc.descendants((node, pos) => {
    if (range) return false;
    if (node.type.name !== 'blockContainer' || node.attrs.id !== blockId) return true;
    const content = node.firstChild;
    if (!content || content.type.name === 'blockGroup') return false;
    // Every character of the block's text nodes, with its document position.
    const chars = [];
    content.descendants((child, at) => {
      if (!child.isText) return true;
      for (let i = 0; i < child.text.length; i++) chars.push([child.text[i], pos + 2 + at + i]);
      return false;
    });
    const i = chars.map(([c]) => c).join('').indexOf(text);
    if (i >= 0 && text.length > 0) range = [chars[i][1], chars[i + text.length - 1][1] + 1];
    return false;
  });
  if (!range) return false;
  const mark = schema.marks.comment.create({ orphan, threadId });
  const next = new Transform(doc).addMark(range[0], range[1], mark).doc;
  ydoc.transact(() => updateYFragment(ydoc, fragment, next, meta));
  return true;
}

/** True when the bytes decode as a Yjs update. */
export function isValidYjsUpdate(bytes) {
  try {
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, bytes);
    ydoc.destroy();
    return true;
  } catch {
    return false;
  }
}
