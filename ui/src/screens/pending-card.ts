// One pending edit's card: who, where, why, when, the change, Approve and Reject with a
// comment for the agent.

import { h, nameLabel, showStatus, timeAgoElement } from "../dom";
import { agentName, documentLabel, editVerb, renderPreview, renderWords } from "../preview";
import { errorText } from "../rpc";
import { inlineDiff, renderBlock, renderInline } from "../render";
import type { EditRecord, InlineJson, ProposedDocument } from "../types";
import { showError } from "../failure";

export interface CardActions {
  approve(edit: EditRecord): Promise<void>;
  reject(edit: EditRecord, comment: string | null): Promise<void>;
  /** Approve with the person's own text for the block (inline markdown). */
  approveWithText(edit: EditRecord, text: string): Promise<void>;
  /** How the person's text for a block reads (absent: no preview beside it). */
  previewText?(text: string): Promise<InlineJson[]>;
  /** Approve only these parts of the edit (indexes into `edit.parts`), with the person's
   * texts for the parts they rewrote. */
  approveParts(edit: EditRecord, parts: number[], texts: Record<number, string>): Promise<void>;
  /** Opens the document in the browser at the block the edit touches (absent in the demo,
   * whose documents have no page). */
  openAt?(edit: EditRecord): Promise<void>;
}

/** Who asked: the name, and whether a person gave it (a client with its own token) or the
 * agent calls itself so. */
function askedBy(edit: EditRecord): HTMLElement {
  const agent = edit.agent;
  if (agent.client_id === null) {
    return h("dd", { class: "asked-by" }, agentName(agent.name), h("span", { class: "agent-source" }, " (as it calls itself)"));
  }
  return h("dd", { class: "asked-by" },
    agentName(agent.name),
    h("span", { class: "agent-source" },
      " (a client you named",
      agent.reported_name ? ["; it calls itself ", agentName(agent.reported_name)] : null,
      ")",
    ),
  );
}

/** Where a document an agent asks to create goes: under its parent, or at the top. */
function placeOf(proposed: ProposedDocument): (Node | string)[] | string {
  if (proposed.parent_id === undefined) return "A new document at the top level (nothing is made until you approve)";
  const parent = proposed.parent_title ?? proposed.parent_id;
  return ["A sub-page of ", nameLabel(parent, "document"), " (nothing is made until you approve)"];
}

/** The text a person may change before approving: the one block an `update_block` (or a
 * `replace_text` within one block) rewrites, or the one block an `insert_blocks` adds, as
 * the service gives it (inline markdown, without its block marker). `null` for other edits,
 * and for a block with no text. */
export function amendableText(edit: EditRecord): string | null {
  const after = edit.preview.after;
  if (after.length !== 1) return null;
  const rewrite = edit.tool === "update_block" || (edit.tool === "replace_text" && edit.touched_blocks.length === 1);
  const insert = edit.tool === "insert_blocks" && edit.new_blocks.length === 1;
  return rewrite || insert ? after[0].text ?? null : null;
}

/** Typing pauses this long before the preview of the person's text is asked for. */
export const TEXT_PREVIEW_DELAY_MS = 200;

/** Beside the person's text for a block: the block as it will read, their changes to the
 * document's text marked (or, for a new block, the block as it will be); an error where the
 * text is not valid. Plain text for blocks of code (their text is not markdown). */
function textPreviewOf(edit: EditRecord, area: HTMLTextAreaElement, preview: CardActions["previewText"]) {
  const after = edit.preview.after[0];
  if (!preview || !after?.block) return null;
  const block = after.block;
  const code = ["codeBlock", "mathBlock", "diagram"].includes(block.type);
  const before = edit.preview.before.find((b) => b.block_id === after.block_id)?.block;
  const body = h("div", { class: "text-preview-body" });
  const problem = h("p", { class: "error", role: "alert", hidden: true });
  const root = h("div", { class: "text-preview" }, h("p", { class: "preview-label" }, "As it will read"), body, problem);
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Counts requests: an older answer arriving late is dropped. */
  let asked = 0;
  const show = async () => {
    const mine = ++asked;
    const text = area.value.trim();
    try {
      const content: InlineJson[] = code ? [{ type: "text", text, styles: {} }] : await preview(text);
      if (mine !== asked) return;
      const words = before && Array.isArray(before.content) ? inlineDiff(before.content, content) : renderInline(content);
      body.replaceChildren(renderBlock({ ...block, children: [] }, words));
      problem.hidden = true;
    } catch (error) {
      if (mine !== asked) return;
      problem.textContent = errorText(error);
      problem.hidden = false;
    }
  };
  area.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void show(), TEXT_PREVIEW_DELAY_MS);
  });
  return { root, refresh: () => void show() };
}

/** A reject form: an optional comment for the agent, Send and Cancel. */
export function rejectForm(commentId: string, onCancel: () => void) {
  const comment = h("textarea", { id: commentId, rows: 2, name: "comment" });
  const submit = h("button", { type: "submit", class: "danger" }, "Send rejection");
  const form = h("form", { class: "reject-form", hidden: true },
    h("label", { for: commentId }, "Comment for the agent (optional)"),
    comment,
    h("div", { class: "actions" },
      submit,
      h("button", { type: "button", class: "secondary", onclick: onCancel }, "Cancel"),
    ),
  );
  // Ctrl+Enter (⌘+Enter) sends, Escape cancels.
  comment.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    } else if (event.key === "Escape") {
      event.preventDefault();
      onCancel();
    }
  });
  /** The comment, `null` when left empty. */
  const text = () => comment.value.trim() || null;
  return { form, comment, submit, text };
}

/** Disables `container`'s buttons while `run` runs, and shows its failure. (The screen's
 * notice tells a success.) */
export async function decide(container: HTMLElement, status: HTMLElement, doing: string, run: () => Promise<void>) {
  for (const b of container.querySelectorAll("button")) b.disabled = true;
  showStatus(status, doing);
  try {
    await run();
    showStatus(status, "");
  } catch (error) {
    showError(status, error);
  } finally {
    // A group decision that started meanwhile keeps every decision locked.
    const locked = container.closest("[data-locked]") !== null;
    for (const b of container.querySelectorAll("button")) b.disabled = locked;
  }
}

/** One card: who, where, why, when, with which tool, the preview, and the decisions.
 * `instance`: the Docs instance's URL (links to another host are marked). */
export function renderEditCard(edit: EditRecord, actions: CardActions, instance: string | null = null): HTMLElement {
  const titleId = `edit-${edit.id}-title`;
  const status = h("p", { class: "card-status", role: "status" });
  const reject = rejectForm(`edit-${edit.id}-comment`, () => toggleReject(false));
  const approveButton = h("button", { type: "button", class: "primary", "aria-describedby": titleId, "aria-keyshortcuts": "A" }, "Approve");
  const rejectButton = h("button", { type: "button", class: "secondary reject", "aria-describedby": titleId, "aria-keyshortcuts": "R" }, "Reject…");

  function toggleReject(open: boolean) {
    reject.form.hidden = !open;
    rejectButton.setAttribute("aria-expanded", String(open));
    if (open) reject.comment.focus();
    else rejectButton.focus();
  }

  approveButton.addEventListener("click", () => decide(card, status, "Approving…", () => actions.approve(edit)));
  rejectButton.addEventListener("click", () => toggleReject(reject.form.hidden));
  reject.form.addEventListener("submit", (event) => {
    event.preventDefault();
    void decide(card, status, "Rejecting…", () => actions.reject(edit, reject.text()));
  });

  // Approve with the person's own text, for a rewrite of one block's text.
  const text = amendableText(edit);
  const amendId = `edit-${edit.id}-text`;
  const amendArea = h("textarea", { id: amendId, rows: 3, name: "text" });
  const textPreview = textPreviewOf(edit, amendArea, actions.previewText);
  const amendForm = h("form", { class: "amend-form", hidden: true },
    h("label", { for: amendId }, "Your text for the block (markdown: **bold**, *italic*, [link](url))"),
    amendArea,
    textPreview?.root,
    h("div", { class: "actions" },
      h("button", { type: "submit", class: "primary" }, "Approve with this text"),
      h("button", { type: "button", class: "secondary", onclick: () => toggleAmend(false) }, "Cancel"),
    ),
  );
  const amendButton = text === null ? null : h("button", { type: "button", class: "secondary amend", "aria-describedby": titleId, "aria-expanded": "false" }, "Edit text…");
  function toggleAmend(open: boolean) {
    amendForm.hidden = !open;
    amendButton?.setAttribute("aria-expanded", String(open));
    if (open) {
      if (!amendArea.value) amendArea.value = text ?? "";
      textPreview?.refresh();
      amendArea.focus();
    } else amendButton?.focus();
  }
  amendButton?.addEventListener("click", () => toggleAmend(amendForm.hidden));
  amendForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = amendArea.value.trim();
    if (!chosen) {
      showStatus(status, "Give the text to apply, or Cancel.", true);
      amendArea.focus();
      return;
    }
    void decide(card, status, "Approving your text…", () => actions.approveWithText(edit, chosen));
  });

  // Change by change: an edit of several parts, each kept or refused; a part rewriting a
  // block's text can be given the person's own text.
  const parts = edit.parts ?? [];
  const partBoxes = parts.map((_, i) => h("input", { type: "checkbox", checked: true, id: `edit-${edit.id}-part-${i}`, name: "part", value: String(i) }));
  const partTexts = parts.map((part, i) => part.text === null ? null : h("textarea", {
    id: `edit-${edit.id}-part-${i}-text`, class: "part-text", rows: 2, hidden: true, "aria-label": `Your text for part ${i + 1}`,
  }, part.text));
  // Shown once the person unchecked or rewrote a part: with all checked as asked, Approve is it.
  const approvePartsButton = parts.length < 2 ? null : h("button", { type: "button", class: "secondary approve-parts", "aria-describedby": titleId, hidden: true }, "Approve checked parts");
  const checkedParts = () => partBoxes.flatMap((box, i) => (box.checked ? [i] : []));
  /** The texts the person changed, of the parts they keep. */
  const changedTexts = (): Record<number, string> => Object.fromEntries(partTexts.flatMap((area, i) => {
    const text = area?.value.trim();
    return area && !area.hidden && partBoxes[i].checked && text && text !== parts[i].text ? [[i, text]] : [];
  }));
  const refresh = () => {
    const count = checkedParts().length;
    // All checked and none rewritten is a plain approval; none checked is a rejection.
    if (approvePartsButton) {
      approvePartsButton.hidden = count === partBoxes.length && Object.keys(changedTexts()).length === 0;
      approvePartsButton.disabled = count === 0;
    }
  };
  for (const box of partBoxes) box.addEventListener("change", refresh);
  for (const area of partTexts) area?.addEventListener("input", refresh);
  approvePartsButton?.addEventListener("click", () =>
    decide(card, status, "Approving the checked parts…", () => actions.approveParts(edit, checkedParts(), changedTexts())));
  const partsList = parts.length < 2 ? null : h("fieldset", { class: "parts" },
    h("legend", {}, parts.some((part) => part.text !== null)
      ? "Parts (uncheck those to refuse; rewrite a block's text with Edit)"
      : "Parts (uncheck those to refuse)"),
    ...parts.map((part, i) => {
      const area = partTexts[i];
      const editButton = area === null ? null : h("button", {
        type: "button",
        class: "secondary edit-part",
        "aria-expanded": "false",
        "aria-controls": area.id,
        onclick: (event: Event) => {
          area.hidden = !area.hidden;
          (event.currentTarget as HTMLElement).setAttribute("aria-expanded", String(!area.hidden));
          if (!area.hidden) area.focus();
          refresh();
        },
      }, "Edit");
      return h("div", { class: "part" }, h("label", { for: partBoxes[i].id }, partBoxes[i], part.label), editButton, area);
    }),
  );

  // A document not made yet has no page to open.
  const openAt = edit.proposed_document ? undefined : actions.openAt;
  const openButton = openAt
    ? h("button", {
      type: "button",
      class: "secondary open-at",
      title: "Open the document in the browser at the block this edit touches",
      onclick: () => void openAt(edit).catch((error: unknown) => showError(status, error)),
    }, "Open in browser")
    : null;
  // Compact: the title and the decision on one row, so that whatever the window's size the
  // card's who-and-where and its Approve are on screen together; what the change is, below.
  const more = [approvePartsButton, amendButton, openButton].filter((b) => b !== null);
  const card = h(
    "article",
    { class: "card edit-card", "aria-labelledby": titleId, "data-edit-id": edit.id, tabindex: -1 },
    h("div", { class: "card-head" },
      h("h3", { id: titleId },
        agentName(edit.agent.name),
        editVerb(edit),
        documentLabel(edit),
      ),
      h("div", { class: "actions decide" }, approveButton, rejectButton),
    ),
    reject.form,
    status,
    h("p", { class: "changed-since problem", role: "note", hidden: true }),
    // Each label with its value (a `div` per pair): a wrapping line never parts them.
    h("dl", { class: "meta" },
      h("div", {}, h("dt", {}, "Asked by"), askedBy(edit)),
      edit.proposed_document ? h("div", {}, h("dt", {}, "Where"), h("dd", { class: "where" }, placeOf(edit.proposed_document))) : null,
      h("div", {}, h("dt", {}, "Reason"), h("dd", { class: "reason" }, edit.reason?.trim() || "(none given)")),
      h("div", { class: "when" }, h("dt", {}, "When"), h("dd", {}, timeAgoElement(edit.created_at))),
      h("div", { class: "tool-pair" }, h("dt", {}, "Tool"), h("dd", { class: "tool" }, h("code", {}, edit.tool))),
      edit.proposed_comment ? null : h("div", { class: "words-pair" }, h("dt", {}, "Words"), renderWords(edit)),
    ),
    ...renderPreview(edit, instance),
    partsList,
    more.length > 0 ? h("div", { class: "actions more" }, ...more) : null,
    amendForm,
  );
  return card;
}
