// An edit as the document will look: the touched blocks rendered as Docs renders them (from
// the BlockNote JSON the service sends), one block of context around them, inserted blocks and
// words marked as insertions, removed ones as deletions, type and property changes named.
// Text only: nothing from a document becomes markup, and links do not navigate.

import { h } from "./dom";
import type { BlockJson, InlineJson, PreviewBlock, StyledText, TableJson } from "./types";

/** BlockNote's colour names (Docs' palette); any other value is ignored. */
const COLOURS = new Set(["gray", "brown", "red", "orange", "yellow", "green", "blue", "purple", "pink"]);

const TYPE_NAMES: Record<string, string> = {
  paragraph: "paragraph",
  heading: "heading",
  bulletListItem: "bullet list",
  numberedListItem: "numbered list",
  checkListItem: "check list",
  toggleListItem: "toggle list",
  quote: "quote",
  codeBlock: "code block",
  mathBlock: "formula",
  diagram: "diagram",
  callout: "callout",
  table: "table",
  divider: "divider",
  image: "image",
  file: "file",
  pdf: "PDF",
  video: "video",
  audio: "audio",
};

/** "heading 2", "paragraph", "check list". */
export function typeName(block: BlockJson): string {
  const name = TYPE_NAMES[block.type] ?? block.type;
  return block.type === "heading" ? `${name} ${block.props.level ?? 1}` : name;
}

/** One styled run: bold, italic, underline, strike, code, colours. */
function styled(run: StyledText): Node {
  let node: Node = document.createTextNode(run.text);
  const styles = run.styles ?? {};
  if (styles.code) node = h("code", {}, node);
  if (styles.bold) node = h("strong", {}, node);
  if (styles.italic) node = h("em", {}, node);
  if (styles.underline) node = h("u", {}, node);
  if (styles.strike) node = h("s", {}, node);
  const classes = [
    typeof styles.textColor === "string" && COLOURS.has(styles.textColor) ? `fg-${styles.textColor}` : "",
    typeof styles.backgroundColor === "string" && COLOURS.has(styles.backgroundColor) ? `bg-${styles.backgroundColor}` : "",
  ].filter(Boolean);
  return classes.length > 0 ? h("span", { class: classes.join(" ") }, node) : node;
}

/** A link shows where it goes, and does not go there. */
function link(href: string, content: Node[]): HTMLElement {
  return h("span", { class: "link", title: href }, ...content);
}

/** A `link` inline: where it goes and its styled text. */
function asLink(item: InlineJson): { href: string; content: StyledText[] } {
  const { href, content } = item as { href?: unknown; content?: unknown };
  return { href: typeof href === "string" ? href : "", content: Array.isArray(content) ? (content as StyledText[]) : [] };
}

/** Inline math's LaTeX source (its content is plain text). */
function latexOf(item: InlineJson): string {
  const content = (item as { content?: unknown }).content;
  return typeof content === "string" ? content : "";
}

function plainOf(items: InlineJson[] | undefined): string {
  return (items ?? []).map((item) => {
    if (item.type === "text") return (item as StyledText).text;
    if (item.type === "link") return plainOf(asLink(item).content);
    if (item.type === "math") return latexOf(item);
    return String((item as { props?: { title?: unknown } }).props?.title ?? "");
  }).join("");
}

export function renderInline(items: InlineJson[] | undefined): Node[] {
  return (items ?? []).map((item) => {
    if (item.type === "text") return styled(item as StyledText);
    if (item.type === "link") {
      const l = asLink(item);
      return link(l.href, l.content.map(styled));
    }
    // Inline math: its LaTeX source between dollars, as markdown shows it.
    if (item.type === "math") return h("code", { class: "inline-math" }, `$${latexOf(item)}$`);
    // Other inline content (a link to another document, a mention): its title, as text.
    return h("span", { class: "inline-other" }, plainOf([item]) || `[${item.type}]`);
  });
}

function renderTable(table: TableJson): HTMLElement {
  return h("table", { class: "bn-table" },
    h("tbody", {}, ...table.rows.map((row) =>
      h("tr", {}, ...row.cells.map((cell) => h("td", {}, ...renderInline(Array.isArray(cell) ? cell : cell.content)))))));
}

/** The block's own look, without its children; `inline` replaces its text (a word diff). */
function renderOwn(block: BlockJson, inline: Node[] | null, number: number): HTMLElement {
  const text = () => inline ?? renderInline(block.content as InlineJson[] | undefined);
  const props = block.props;
  switch (block.type) {
    case "heading":
      return h("p", { class: `bn-heading bn-h${Math.min(Math.max(Number(props.level) || 1, 1), 6)}` }, ...text());
    case "bulletListItem":
      return h("p", { class: "bn-item" }, h("span", { class: "bn-marker", "aria-hidden": "true" }, "•"), ...text());
    case "numberedListItem":
      return h("p", { class: "bn-item" }, h("span", { class: "bn-marker", "aria-hidden": "true" }, `${number}.`), ...text());
    case "checkListItem":
      return h("p", { class: "bn-item" },
        h("span", { class: "bn-marker", role: "img", "aria-label": props.checked ? "checked" : "not checked" }, props.checked ? "☑" : "☐"),
        ...text());
    case "toggleListItem":
      return h("p", { class: "bn-item" }, h("span", { class: "bn-marker", "aria-hidden": "true" }, "▸"), ...text());
    case "quote":
      return h("blockquote", { class: "bn-quote" }, ...text());
    case "codeBlock":
    case "mathBlock":
    case "diagram":
      // Source shown as written: code, LaTeX, Mermaid.
      return h("pre", { class: `bn-code bn-${block.type}` }, h("code", {}, ...(inline ?? [plainOf(block.content as InlineJson[])])));
    case "callout":
      return h("p", { class: "bn-callout" }, ...text());
    case "divider":
      return h("hr", { class: "bn-divider" });
    case "table":
      return block.content && !Array.isArray(block.content) ? renderTable(block.content) : h("p", {}, "[table]");
    case "image":
    case "file":
    case "pdf":
    case "video":
    case "audio": {
      // Its URL in full, as text: a file name alone does not say where the file is.
      const url = typeof props.url === "string" ? props.url : "";
      const name = String(props.name || url).split("/").pop() || "untitled";
      return h("p", { class: "bn-media" }, `[${typeName(block)}: ${name}]`,
        url ? [" ", h("code", { class: "media-url" }, url)] : null);
    }
    case "paragraph":
      return h("p", {}, ...text());
    default:
      return h("p", { class: "bn-other" }, ...text());
  }
}

/** A block with its nested blocks; numbered items count within their run. */
export function renderBlock(block: BlockJson, inline: Node[] | null = null, number = 1): HTMLElement {
  const children = block.children ?? [];
  return h("div", { class: "bn-block", "data-type": block.type },
    renderOwn(block, inline, number),
    children.length > 0 ? h("div", { class: "bn-children" }, ...renderBlocks(children)) : null,
  );
}

export function renderBlocks(blocks: BlockJson[]): HTMLElement[] {
  let number = 0;
  return blocks.map((block) => {
    number = block.type === "numberedListItem" ? number + 1 : 0;
    return renderBlock(block, null, number);
  });
}

/** A word, or the spaces between words, with its styles (or a whole link). */
interface Token {
  key: string;
  node: () => Node;
}

function tokens(items: InlineJson[] | undefined): Token[] {
  const out: Token[] = [];
  for (const item of items ?? []) {
    if (item.type === "text") {
      const run = item as StyledText;
      const styles = JSON.stringify(run.styles ?? {});
      // Words, spaces and every other mark apart: "Ada" → "Ada," is a comma added.
      for (const word of run.text.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) ?? []) {
        out.push({ key: `${styles}|${word}`, node: () => styled({ ...run, text: word }) });
      }
    } else {
      out.push({ key: JSON.stringify(item), node: () => renderInline([item])[0] });
    }
  }
  return out;
}

/** Word diffs past this many comparisons show the whole text removed and added instead. */
const MAX_DIFF_CELLS = 1_000_000;

/** The words of `before` and `after`, unchanged ones as they are, removed ones in `<del>`,
 * added ones in `<ins>` (a style change is both). */
export function inlineDiff(before: InlineJson[] | undefined, after: InlineJson[] | undefined): Node[] {
  const a = tokens(before);
  const b = tokens(after);
  const del = (t: Token[]) => (t.length > 0 ? [h("del", { class: "removed" }, ...t.map((x) => x.node()))] : []);
  const ins = (t: Token[]) => (t.length > 0 ? [h("ins", { class: "added" }, ...t.map((x) => x.node()))] : []);
  if (a.length * b.length > MAX_DIFF_CELLS) return [...del(a), ...ins(b)];
  // Longest common subsequence, from the end.
  const width = b.length + 1;
  const common = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] = a[i].key === b[j].key
        ? common[(i + 1) * width + j + 1] + 1
        : Math.max(common[(i + 1) * width + j], common[i * width + j + 1]);
    }
  }
  const out: Node[] = [];
  let removed: Token[] = [];
  let added: Token[] = [];
  const flush = () => {
    out.push(...del(removed), ...ins(added));
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i].key === b[j].key) {
      flush();
      out.push(b[j].node());
      i++;
      j++;
    } else if (j < b.length && (i === a.length || common[i * width + j + 1] >= common[(i + 1) * width + j])) {
      added.push(b[j++]);
    } else {
      removed.push(a[i++]);
    }
  }
  flush();
  return out;
}

/** What changed in a block besides its text: "paragraph → heading 2", "checked". */
export function propChanges(before: BlockJson, after: BlockJson): string[] {
  if (before.type !== after.type) return [`${typeName(before)} → ${typeName(after)}`];
  const notes: string[] = [];
  const keys = new Set([...Object.keys(before.props ?? {}), ...Object.keys(after.props ?? {})]);
  for (const key of [...keys].sort()) {
    const [was, is] = [before.props?.[key], after.props?.[key]];
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    if (key === "checked") notes.push(is ? "checked" : "unchecked");
    else if (key === "level") notes.push(`${typeName(before)} → ${typeName(after)}`);
    else notes.push(`${key}: ${String(was ?? "none")} → ${String(is ?? "none")}`);
  }
  return notes;
}

type Mark = "context" | "inserted" | "deleted" | "changed" | "moved" | "unchanged";

const MARK_LABELS: Record<Mark, string> = {
  context: "Context",
  inserted: "Inserted",
  deleted: "Deleted",
  changed: "Changed",
  moved: "Moved",
  unchanged: "Unchanged",
};

function marked(mark: Mark, body: HTMLElement, notes: string[] = []): HTMLElement {
  return h("div", { class: `change change-${mark}`, "data-change": mark },
    h("span", { class: "change-label" }, [MARK_LABELS[mark], ...notes].join(" · ")),
    body,
  );
}

/** Whether a preview can be rendered (records of earlier versions have markdown only). */
export function hasBlocks(blocks: PreviewBlock[]): boolean {
  return blocks.every((b) => b.block !== undefined && b.block !== null);
}

/** The change in the document's look: context, then each block before and after in reading
 * order (a removed block where it was), then context. `moved`: the edit moves its blocks. */
export function renderChange(
  before: PreviewBlock[],
  after: PreviewBlock[],
  context: { before?: PreviewBlock | null; after?: PreviewBlock | null },
  moved = false,
): HTMLElement {
  const was = new Map(before.map((b) => [b.block_id, b.block!]));
  const is = new Set(after.map((b) => b.block_id));
  const out: HTMLElement[] = [];
  if (context.before?.block) out.push(marked("context", renderBlock(context.before.block)));
  let pending = before.filter((b) => !is.has(b.block_id));
  const flushDeleted = (upTo: string | null) => {
    const index = upTo === null ? pending.length : before.findIndex((b) => b.block_id === upTo);
    const [now, later] = upTo === null ? [pending, []] : [
      pending.filter((b) => before.indexOf(b) < index),
      pending.filter((b) => before.indexOf(b) >= index),
    ];
    for (const gone of now) out.push(marked("deleted", h("del", { class: "removed block" }, renderBlock(gone.block!))));
    pending = later;
  };
  after.forEach((block, index) => {
    const old = was.get(block.block_id);
    // Removed blocks come where they were: before the next kept block, and before the blocks
    // inserted in their place.
    const nextKept = old ? block : after.slice(index).find((b) => was.has(b.block_id));
    flushDeleted(nextKept?.block_id ?? null);
    const now = block.block!;
    if (!old) {
      out.push(marked("inserted", h("ins", { class: "added block" }, renderBlock(now))));
      return;
    }
    const notes = propChanges(old, now);
    const sameText = JSON.stringify(old.content ?? null) === JSON.stringify(now.content ?? null);
    const sameChildren = JSON.stringify(old.children ?? []) === JSON.stringify(now.children ?? []);
    const inline = sameText || !Array.isArray(now.content) || !Array.isArray(old.content ?? [])
      ? null
      : inlineDiff(old.content as InlineJson[] | undefined, now.content as InlineJson[]);
    if (!sameChildren) notes.push("nested blocks changed");
    const mark: Mark = moved ? "moved" : notes.length > 0 || !sameText ? "changed" : "unchanged";
    out.push(marked(mark, renderBlock(now, inline), notes));
  });
  flushDeleted(null);
  if (context.after?.block) out.push(marked("context", renderBlock(context.after.block)));
  return h("div", { class: "rendered", "aria-label": "The change, as the document will look" }, ...out);
}
