import { describe, expect, it } from "vitest";
import { renderPreview } from "../src/preview";
import { inlineDiff, propChanges, renderBlock, renderBlocks, renderChange } from "../src/render";
import type { BlockJson, InlineJson, PreviewBlock } from "../src/types";
import { edit } from "./fixtures";
import { texts } from "./ipc";

const text = (t: string, styles: Record<string, string | boolean> = {}): InlineJson => ({ type: "text", text: t, styles });

function block(id: string, type: string, content: InlineJson[] | undefined, props: Record<string, unknown> = {}, children: BlockJson[] = []): BlockJson {
  return { id, type, props, content, children };
}

const preview = (b: BlockJson): PreviewBlock => ({ block_id: b.id, block_type: b.type, markdown: "(markdown)", block: b });

function html(node: Node): HTMLElement {
  const div = document.createElement("div");
  div.append(node);
  return div;
}

describe("a block as Docs renders it", () => {
  it("keeps every mark of its text, colours by name only, and links that do not navigate", () => {
    const p = html(renderBlock(block("b1", "paragraph", [
      text("bold", { bold: true }), text(" "), text("italic", { italic: true }), text(" "),
      text("under", { underline: true }), text(" "), text("gone", { strike: true }), text(" "),
      text("x = 1", { code: true }), text(" "), text("red", { textColor: "red" }), text(" "),
      text("odd", { textColor: "url(javascript:x)" }), text(" "),
      { type: "link", href: "https://example.org/a", content: [text("a link") as never] },
    ])));
    expect(p.querySelector("strong")!.textContent).toBe("bold");
    expect(p.querySelector("em")!.textContent).toBe("italic");
    expect(p.querySelector("u")!.textContent).toBe("under");
    expect(p.querySelector("s")!.textContent).toBe("gone");
    expect(p.querySelector("code")!.textContent).toBe("x = 1");
    expect(p.querySelector(".fg-red")!.textContent).toBe("red");
    expect(p.querySelectorAll("[class^='fg-']")).toHaveLength(1);
    expect(p.querySelector("a")).toBeNull();
    expect(p.querySelector(".link")!.getAttribute("title")).toBe("https://example.org/a");
    expect(p.textContent).toBe("bold italic under gone x = 1 red odd a link");
  });

  it("renders each block type", () => {
    const root = html(h(renderBlocks([
      block("h", "heading", [text("Title")], { level: 2 }),
      block("n1", "numberedListItem", [text("one")]),
      block("n2", "numberedListItem", [text("two")], {}, [block("c", "bulletListItem", [text("nested")])]),
      block("k", "checkListItem", [text("done")], { checked: true }),
      block("q", "quote", [text("said")]),
      block("code", "codeBlock", [text("let x = 1;")], { language: "ts" }),
      block("call", "callout", [text("note")]),
      block("d", "divider", undefined),
      block("img", "image", undefined, { url: "https://example.org/files/cat.png", name: "" }),
      block("t", "table", { type: "tableContent", rows: [{ cells: [{ type: "tableCell", content: [text("a")] }, { type: "tableCell", content: [text("b")] }] }] } as never),
    ])));
    expect(root.querySelector(".bn-h2")!.textContent).toBe("Title");
    expect(texts(root, '[data-type="numberedListItem"] > .bn-item .bn-marker')).toEqual(["1.", "2."]);
    expect(root.querySelector('[data-type="numberedListItem"] .bn-children [data-type="bulletListItem"]')!.textContent).toBe("•nested");
    expect(root.querySelector('[data-type="checkListItem"] .bn-marker')!.getAttribute("aria-label")).toBe("checked");
    expect(root.querySelector("blockquote")!.textContent).toBe("said");
    expect(root.querySelector("pre.bn-code code")!.textContent).toBe("let x = 1;");
    expect(root.querySelector(".bn-callout")!.textContent).toBe("note");
    expect(root.querySelector("hr")).not.toBeNull();
    // A media block shows its URL in full, not only its file name.
    expect(root.querySelector(".bn-media")!.textContent).toBe("[image: cat.png] https://example.org/files/cat.png");
    expect(root.querySelector(".bn-media .media-url")!.textContent).toBe("https://example.org/files/cat.png");
    expect(texts(root, ".bn-table td")).toEqual(["a", "b"]);
  });

  it("shows formulas and diagrams by their source", () => {
    const root = html(h(renderBlocks([
      block("m", "mathBlock", [text("E = mc^2")]),
      block("g", "diagram", [text("graph TD\n  A --> B")]),
      block("p", "paragraph", [text("Area "), { type: "math", props: {}, content: "\\pi r^2" } as never, text(".")]),
    ])));
    expect(root.querySelector("pre.bn-mathBlock code")!.textContent).toBe("E = mc^2");
    expect(root.querySelector("pre.bn-diagram code")!.textContent).toBe("graph TD\n  A --> B");
    expect(root.querySelector(".inline-math")!.textContent).toBe("$\\pi r^2$");
    expect(root.querySelector('[data-type="paragraph"]')!.textContent).toBe("Area $\\pi r^2$.");
  });

  it("writes a document's text as text, never as markup", () => {
    const root = html(renderBlock(block("x", "paragraph", [text('<img src=x onerror="alert(1)">')])));
    expect(root.querySelector("img")).toBeNull();
    expect(root.textContent).toBe('<img src=x onerror="alert(1)">');
  });
});

function h(nodes: HTMLElement[]): DocumentFragment {
  const fragment = document.createDocumentFragment();
  fragment.append(...nodes);
  return fragment;
}

describe("the change in place", () => {
  const first = block("c1", "paragraph", [text("Before it.")]);
  const last = block("c2", "paragraph", [text("After it.")]);

  it("marks words added and removed inside a block, keeping their marks", () => {
    const root = html(h(inlineDiff(
      [text("Ship on Monday.")],
      [text("Ship on "), text("Friday", { bold: true }), text(".")],
    ) as HTMLElement[]));
    // The full stop stays as it was: only the word changed.
    expect(texts(root, "del")).toEqual(["Monday"]);
    expect(texts(root, "ins")).toEqual(["Friday"]);
    expect(root.querySelector("ins strong")!.textContent).toBe("Friday");
    expect(root.textContent).toBe("Ship on MondayFriday.");
  });

  it("shows the context, an inserted block, a deleted one where it was, and a changed one", () => {
    const kept = block("b1", "paragraph", [text("Agenda for Monday")]);
    const gone = block("b2", "paragraph", [text("Old item")]);
    const root = renderChange(
      [preview(kept), preview(gone)],
      [preview(block("b1", "heading", [text("Agenda for Friday")], { level: 2 })), preview(block("b3", "bulletListItem", [text("New item")]))],
      { before: preview(first), after: preview(last) },
    );
    expect([...root.querySelectorAll<HTMLElement>(".change")].map((c) => c.dataset.change)).toEqual([
      "context", "changed", "deleted", "inserted", "context",
    ]);
    expect(texts(root, ".change-label")).toEqual(["Context", "Changed · paragraph → heading 2", "Deleted", "Inserted", "Context"]);
    expect(root.querySelector(".change-changed .bn-h2")!.textContent).toBe("Agenda for MondayFriday");
    expect(texts(root, ".change-changed del")).toEqual(["Monday"]);
    expect(root.querySelector(".change-deleted del.block")!.textContent).toBe("Old item");
    expect(root.querySelector(".change-inserted ins.block")!.textContent).toBe("•New item");
  });

  it("names property changes: checked, a heading's level", () => {
    expect(propChanges(block("k", "checkListItem", [], { checked: false }), block("k", "checkListItem", [], { checked: true }))).toEqual(["checked"]);
    expect(propChanges(block("h", "heading", [], { level: 1 }), block("h", "heading", [], { level: 3 }))).toEqual(["heading 1 → heading 3"]);
    expect(propChanges(block("p", "paragraph", []), block("p", "paragraph", []))).toEqual([]);
  });

  it("labels moved blocks", () => {
    const moved = block("m", "paragraph", [text("Moving")]);
    const root = renderChange([preview(moved)], [preview(moved)], {}, true);
    expect(texts(root, ".change-label")).toEqual(["Moved"]);
  });
});

describe("a card's preview", () => {
  it("is rendered when the record has typed blocks, with the markdown folded under it", () => {
    const record = {
      ...edit,
      preview: {
        ...edit.preview,
        before: [preview(block("b1", "paragraph", [text("The team agreed to ship on Monday.")]))],
        after: [preview(block("b1", "paragraph", [text("The team agreed to ship on Friday.")]))],
      },
    };
    const root = html(h(renderPreview(record)));
    expect(root.querySelector(".rendered .change-changed")!.textContent).toBe("ChangedThe team agreed to ship on MondayFriday.");
    const markdown = root.querySelector<HTMLDetailsElement>("details.markdown")!;
    expect(markdown.open).toBe(false);
    expect(markdown.querySelector("summary")!.textContent).toBe("Markdown");
    // Built when opened.
    expect(markdown.querySelector(".diff")).toBeNull();
    markdown.open = true;
    markdown.dispatchEvent(new Event("toggle"));
    expect(markdown.querySelector(".diff")!.textContent).toBe("The team agreed to ship on Monday.Friday.");
    expect(markdown.querySelector(".after")!.textContent).toBe("(markdown)");
  });

  it("says under which headings the change lands", () => {
    const record = {
      ...edit,
      preview: {
        ...edit.preview,
        heading_path: ["Plan", "Release <b>day</b>"],
        before: [preview(block("b1", "paragraph", [text("Monday.")]))],
        after: [preview(block("b1", "paragraph", [text("Friday.")]))],
      },
    };
    const root = html(h(renderPreview(record)));
    expect(root.querySelector(".where")!.textContent).toBe("Under Plan › Release <b>day</b>");
    expect(root.querySelector(".where b")).toBeNull();
    expect(html(h(renderPreview({ ...record, preview: { ...record.preview, heading_path: [] } }))).querySelector(".where")).toBeNull();
  });

  it("keeps the word diff for records of earlier versions (markdown only)", () => {
    const root = html(h(renderPreview(edit)));
    expect(root.querySelector(".rendered")).toBeNull();
    expect(root.querySelector(".diff")).not.toBeNull();
  });
});
