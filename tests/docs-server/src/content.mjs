// Content conversions done exactly the way Docs (and its y-provider) does them:
// BlockNote's ServerBlockNoteEditor with Docs' schema, Y.XmlFragment "document-store".
import { ServerBlockNoteEditor } from '@blocknote/server-util';
import * as Y from 'yjs';

import { docsSchema } from './schema.mjs';

export const FRAGMENT = 'document-store';

const editor = ServerBlockNoteEditor.create({ schema: docsSchema });

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
