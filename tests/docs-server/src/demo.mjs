// Sample documents for the app's demo (`--demo`): shared by link (public, editor), as a person
// shares a draft with a colleague, so the demo needs no account. Their ids are printed after
// the LISTENING line, one `DEMO_DOCUMENT <id> <title>` line each, then `DEMO_READY`.
import { blocksToUpdate, markdownToBlocks } from './content.mjs';

const DOCUMENTS = [
  {
    title: 'Welcome to the Docs MCP demo',
    markdown: `# Welcome

This document lives on a small Docs-like server on your computer, started for the demo: nothing here reaches a real Docs instance.

## Try it

1. Click **Have the demo agent propose an edit** at the top of the window.
2. Open **Pending edits**: the agent's change waits for you.
3. Approve it (or reject it with a comment for the agent).
4. Open **History** and undo it.

## What an agent sees

Agents read and edit documents block by block, like this list:

- headings and paragraphs
- bullet, numbered and check lists
- quotes, code and tables

> Nothing is applied that you did not allow.
`,
  },
  {
    title: 'Team meeting notes',
    markdown: `# Team meeting

Attendees: Ada, Grace, Linus.

## Decisions

- Ship the release on Friday.
- Grace reviews the migration guide.

## Actions

- [ ] Ada: write the release notes
- [ ] Linus: update the changelog
`,
  },
];

/** Creates the sample documents; returns their ids and titles, in order. */
export async function seedDemo(store) {
  const created = [];
  for (const { title, markdown } of DOCUMENTS) {
    const blocks = await markdownToBlocks(markdown);
    const doc = store.createDocument({
      title,
      link_reach: 'public',
      link_role: 'editor',
      creator_id: null,
      content_b64: Buffer.from(blocksToUpdate(blocks)).toString('base64'),
    });
    created.push({ id: doc.id, title });
  }
  return created;
}
