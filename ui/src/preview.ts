// An edit's change as the user reviews it: shared by the pending cards and the history.

import { h, nameLabel } from "./dom";
import { hasBlocks, renderBlocks, renderChange } from "./render";
import type { EditRecord, EditStatus, PreviewBlock, PreviewLink, ProposedComment } from "./types";

/** An edit's status, in words. */
export const STATUS_LABELS: Record<EditStatus, string> = {
  pending: "Pending",
  applying: "Applying — not yet saved",
  applied: "Applied",
  rejected: "Rejected",
  conflict: "Conflict",
  failed: "Failed",
  undone: "Undone",
  withdrawn: "Withdrawn by the agent",
};

/** An edit's status as a person reads it: an applied edit Docs has not saved yet says so
 * (it is in the live document; the service keeps it until a save holds it). */
export function statusLabel(edit: EditRecord): string {
  return edit.status === "applied" && edit.saved_at === null ? "Applied — not yet saved in Docs" : STATUS_LABELS[edit.status];
}

export function documentName(edit: EditRecord): string {
  return edit.document_title?.trim() || edit.document_id;
}

/** An agent's name as its client reported it (untrusted): text, never markup, clamped. */
export function agentName(name: string): HTMLElement {
  return nameLabel(name, "agent");
}

/** A document's name, clamped like an agent's. */
export function documentLabel(edit: EditRecord): HTMLElement {
  return nameLabel(documentName(edit), "document");
}

/** "the edit of <agent> to <document>". */
export function theEditOf(edit: EditRecord, capital = false): (Node | string)[] {
  return [capital ? "The edit of " : "the edit of ", agentName(edit.agent.name), " to ", documentLabel(edit)];
}

/** What an edit does, as a card's title says it after the agent's name. */
export function editVerb(edit: EditRecord): string {
  if (edit.proposed_document) return " wants to create ";
  switch (edit.proposed_comment?.action) {
    case undefined: return " wants to edit ";
    case "add": return " wants to comment on ";
    case "reply": return " wants to reply to a comment on ";
    case "resolve": return " wants to resolve a comment on ";
    case "reopen": return " wants to reopen a comment on ";
  }
}

/** A comment as people will read it in Docs: the text it is about, quoted, and what it says
 * (rendered as Docs shows it; its markdown when the record has no blocks). */
export function renderComment(comment: ProposedComment): HTMLElement {
  const about = comment.action === "add" ? "On " : "The thread on ";
  return h("figure", { class: "comment-preview" },
    comment.quoted_text
      ? h("p", { class: "quoted" }, about, h("q", {}, comment.quoted_text))
      : h("p", { class: "quoted" }, "A thread attached to no text"),
    comment.body_blocks
      ? h("blockquote", { class: "comment-body rendered" }, ...renderBlocks(comment.body_blocks))
      : comment.body
        ? h("blockquote", { class: "comment-body" }, comment.body)
        : null,
  );
}

/** The counts of words added and removed. */
export function renderWords(edit: EditRecord): HTMLElement {
  return h("dd", { class: "words" },
    h("span", { class: "added" }, `+${edit.preview.words_added}`), " ",
    h("span", { class: "removed" }, `−${edit.preview.words_removed}`));
}

/** The diff as text with added words in <ins> and removed words in <del>. */
export function renderDiff(edit: EditRecord): HTMLElement {
  const pre = h("pre", { class: "diff", "aria-label": "Changes" });
  for (const span of edit.preview.diff) {
    if (span.kind === "added") {
      pre.append(h("ins", { class: "added", title: "added" }, span.text));
    } else if (span.kind === "removed") {
      pre.append(h("del", { class: "removed", title: "removed" }, span.text));
    } else {
      pre.append(span.text);
    }
  }
  return pre;
}

function blocksText(blocks: PreviewBlock[]): string {
  return blocks.map((b) => b.markdown).join("\n\n");
}

/** The blocks before and after, as markdown. */
function beforeAfter(edit: EditRecord): HTMLElement {
  return h("div", { class: "columns" },
    h("section", { "aria-label": "Before" }, h("h4", {}, "Before"), h("pre", { class: "before" }, blocksText(edit.preview.before) || "(nothing)")),
    h("section", { "aria-label": "After" }, h("h4", {}, "After"), h("pre", { class: "after" }, blocksText(edit.preview.after) || "(nothing)")),
  );
}

/** The word diff and the markdown before and after, folded: built when first opened (most
 * never are, and 50 cards would build them all). */
function foldedMarkdown(edit: EditRecord): HTMLDetailsElement {
  const details = h("details", { class: "markdown" }, h("summary", {}, "Markdown"));
  details.addEventListener("toggle", () => {
    if (details.open && details.childElementCount === 1) details.append(renderDiff(edit), beforeAfter(edit));
  });
  return details;
}

/** The host of the Docs instance (`docs.example.org`, with a port when not the default);
 * `null` when none is configured or it is no URL. */
export function instanceHost(instance: string | null): string | null {
  if (!instance) return null;
  try {
    return new URL(instance).host;
  } catch {
    return null;
  }
}

/** Every link target and media URL the edit adds or changes, as text (nothing here
 * navigates): what it is on, the URL in full, and the host it goes to, marked when it is not
 * the Docs instance's (every host is, when the instance is not known). */
export function renderLinks(links: PreviewLink[], instance: string | null): HTMLElement | null {
  if (links.length === 0) return null;
  const home = instanceHost(instance);
  const item = (link: PreviewLink) => {
    const other = link.host !== null && link.host !== home;
    return h("li", { class: other ? "link-target other-site" : "link-target" },
      h("span", { class: "link-kind" }, link.kind === "media" ? "Media" : "Link"),
      link.text ? [" ", h("span", { class: "link-text" }, link.text), " →"] : null,
      " ",
      h("code", { class: "link-url" }, link.url),
      link.host !== null ? [" ", h("span", { class: "link-host" }, link.host)] : null,
      other ? [" ", h("span", { class: "badge other-site" }, "other site")] : null,
    );
  };
  return h("section", { class: "links", "aria-label": "Links and media it adds or changes" },
    h("h4", {}, "Links and media it adds or changes"),
    h("ul", {}, ...links.map(item)),
  );
}

/** The change as the document will look, with the markdown folded under it; for records
 * without typed blocks (earlier versions), the word diff and the markdown before and after.
 * Then the link targets and media URLs it adds or changes; `instance`: the Docs instance's
 * URL, whose host is not marked. */
export function renderPreview(edit: EditRecord, instance: string | null = null): HTMLElement[] {
  if (edit.proposed_comment) return [renderComment(edit.proposed_comment)];
  const links = renderLinks(edit.preview.links ?? [], instance);
  const { before, after, context_before, context_after, heading_path } = edit.preview;
  if (before.length + after.length > 0 && hasBlocks(before) && hasBlocks(after)) {
    const where = heading_path && heading_path.length > 0
      ? h("p", { class: "where" }, "Under ", ...heading_path.flatMap((title, i) => [i > 0 ? " › " : "", h("span", { class: "heading-step" }, title)]))
      : null;
    return [
      ...(where ? [where] : []),
      renderChange(before, after, { before: context_before, after: context_after }, edit.tool === "move_block"),
      ...(links ? [links] : []),
      foldedMarkdown(edit),
    ];
  }
  return [
    renderDiff(edit),
    ...(links ? [links] : []),
    h("details", { class: "before-after" },
      h("summary", {}, "Before and after"),
      beforeAfter(edit),
    ),
  ];
}
