// How long the Pending edits screen takes to show 50 waiting edits (each a rendered change:
// a heading, a paragraph with marks, a list, with context), and to show them again when one
// more comes (an event's reload). `npm run bench --prefix ui` prints the figures; jsdom, so
// they compare versions of this code rather than a browser's paint.

import { bench, describe } from "vitest";
import { PendingScreen } from "../src/screens/pending";
import type { BlockJson, EditRecord, PreviewBlock } from "../src/types";
import { edit } from "../test/fixtures";

const text = (t: string, styles: Record<string, string | boolean> = {}) => ({ type: "text", text: t, styles });
const block = (id: string, type: string, content: unknown[], props: Record<string, unknown> = {}): BlockJson =>
  ({ id, type, props, content, children: [] }) as BlockJson;
const preview = (b: BlockJson): PreviewBlock => ({ block_id: b.id, block_type: b.type, markdown: "", block: b });

function pendingEdit(n: number): EditRecord {
  const words = "The team agreed to ship the release on Monday after the review of the migration guide".split(" ");
  const before = [
    block(`h${n}`, "heading", [text(`Release ${n}`)], { level: 2 }),
    block(`p${n}`, "paragraph", [text(words.join(" ")), text(" bold", { bold: true })]),
    block(`l${n}`, "bulletListItem", [text("Grace reviews the guide")]),
  ];
  const after = [
    before[0],
    block(`p${n}`, "paragraph", [text(words.join(" ").replace("Monday", "Friday")), text(" bold", { bold: true })]),
    block(`l${n}`, "checkListItem", [text("Grace reviews the guide")], { checked: true }),
    block(`n${n}`, "paragraph", [text("A new paragraph the agent adds.")]),
  ];
  return {
    ...edit,
    id: `e${n}`,
    preview: {
      ...edit.preview,
      heading_path: ["Plan", `Release ${n}`],
      before: before.map(preview),
      after: after.map(preview),
      context_before: preview(block(`c${n}`, "paragraph", [text("Context above.")])),
      context_after: preview(block(`d${n}`, "paragraph", [text("Context below.")])),
    },
  };
}

const fifty = Array.from({ length: 50 }, (_, n) => pendingEdit(n));

describe("pending edits", () => {
  bench("render 50 edits from nothing", () => {
    const screen = new PendingScreen();
    document.body.replaceChildren(screen.root);
    screen.render(fifty);
  });

  const shown = new PendingScreen();
  document.body.replaceChildren(shown.root);
  shown.render(fifty);
  bench("render 51 edits over 50 shown (one more came)", () => {
    shown.render([...fifty, pendingEdit(50 + Math.floor(Math.random() * 1000))]);
  });
});
