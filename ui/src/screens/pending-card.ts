// One pending edit's card: who, where, why, when, the change, Approve and Reject with a
// comment for the agent.

import { h, showStatus, timeAgoElement } from "../dom";
import { agentName, documentLabel, renderPreview, renderWords } from "../preview";
import { errorText } from "../rpc";
import type { EditRecord } from "../types";

export interface CardActions {
  approve(edit: EditRecord): Promise<void>;
  reject(edit: EditRecord, comment: string | null): Promise<void>;
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
    showStatus(status, errorText(error), true);
  } finally {
    // A group decision that started meanwhile keeps every decision locked.
    const locked = container.closest("[data-locked]") !== null;
    for (const b of container.querySelectorAll("button")) b.disabled = locked;
  }
}

/** One card: who, where, why, when, with which tool, the preview, and the decisions. */
export function renderEditCard(edit: EditRecord, actions: CardActions): HTMLElement {
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

  const card = h(
    "article",
    { class: "card edit-card", "aria-labelledby": titleId, "data-edit-id": edit.id, tabindex: -1 },
    h("h3", { id: titleId },
      agentName(edit.agent.name),
      " wants to edit ",
      documentLabel(edit),
    ),
    h("p", { class: "changed-since problem", role: "note", hidden: true }),
    h("dl", { class: "meta" },
      h("dt", {}, "Reason"), h("dd", { class: "reason" }, edit.reason?.trim() || "(none given)"),
      h("dt", {}, "When"), h("dd", {}, timeAgoElement(edit.created_at)),
      h("dt", {}, "Tool"), h("dd", { class: "tool" }, h("code", {}, edit.tool)),
      h("dt", {}, "Words"), renderWords(edit),
    ),
    ...renderPreview(edit),
    h("div", { class: "actions" }, approveButton, rejectButton),
    reject.form,
    status,
  );
  return card;
}
