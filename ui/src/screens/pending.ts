// Pending edits: one card per edit, live from service events.

import { clear, formatTime, h } from "../dom";
import { rpc, toRpcError } from "../rpc";
import type { EditRecord, ServiceEvent } from "../types";

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

function blocksText(blocks: EditRecord["preview"]["before"]): string {
  return blocks.map((b) => b.markdown).join("\n\n");
}

export function documentName(edit: EditRecord): string {
  return edit.document_title?.trim() || edit.document_id;
}

export interface CardActions {
  approve(edit: EditRecord): Promise<void>;
  reject(edit: EditRecord, comment: string | null): Promise<void>;
}

/** One card: who, where, why, when, with which tool, the preview, and the decisions. */
export function renderEditCard(edit: EditRecord, actions: CardActions): HTMLElement {
  const titleId = `edit-${edit.id}-title`;
  const status = h("p", { class: "card-status", role: "status" });
  const commentId = `edit-${edit.id}-comment`;
  const comment = h("textarea", { id: commentId, rows: 2, name: "comment" });
  const rejectForm = h(
    "form",
    { class: "reject-form", hidden: true },
    h("label", { for: commentId }, "Comment for the agent (optional)"),
    comment,
    h("div", { class: "actions" },
      h("button", { type: "submit", class: "danger" }, "Send rejection"),
      h("button", { type: "button", class: "secondary", onclick: () => toggleReject(false) }, "Cancel"),
    ),
  );
  const approveButton = h("button", { type: "button", class: "primary" }, "Approve");
  const rejectButton = h("button", { type: "button", class: "secondary" }, "Reject…");
  approveButton.setAttribute("aria-describedby", titleId);
  rejectButton.setAttribute("aria-describedby", titleId);

  function toggleReject(open: boolean) {
    rejectForm.hidden = !open;
    rejectButton.setAttribute("aria-expanded", String(open));
    if (open) comment.focus();
    else rejectButton.focus();
  }

  async function decide(run: () => Promise<void>, doing: string) {
    for (const b of card.querySelectorAll("button")) b.disabled = true;
    status.textContent = doing;
    status.classList.remove("error");
    try {
      await run();
    } catch (error) {
      const e = toRpcError(error);
      status.textContent = `${e.message}${e.hint ? ` — ${e.hint}` : ""}`;
      status.classList.add("error");
      for (const b of card.querySelectorAll("button")) b.disabled = false;
    }
  }

  approveButton.addEventListener("click", () => decide(() => actions.approve(edit), "Applying…"));
  rejectButton.addEventListener("click", () => toggleReject(rejectForm.hidden));
  rejectForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = comment.value.trim();
    void decide(() => actions.reject(edit, text === "" ? null : text), "Rejecting…");
  });

  const card = h(
    "article",
    { class: "card edit-card", "aria-labelledby": titleId, "data-edit-id": edit.id },
    h("h3", { id: titleId },
      h("span", { class: "agent" }, edit.agent.name),
      " wants to edit ",
      h("span", { class: "document" }, documentName(edit)),
    ),
    h("dl", { class: "meta" },
      h("dt", {}, "Reason"), h("dd", { class: "reason" }, edit.reason?.trim() || "(none given)"),
      h("dt", {}, "When"), h("dd", {}, h("time", { datetime: new Date(edit.created_at).toISOString() }, formatTime(edit.created_at))),
      h("dt", {}, "Tool"), h("dd", { class: "tool" }, h("code", {}, edit.tool)),
      h("dt", {}, "Words"), h("dd", { class: "words" },
        h("span", { class: "added" }, `+${edit.preview.words_added}`), " ",
        h("span", { class: "removed" }, `−${edit.preview.words_removed}`)),
    ),
    renderDiff(edit),
    h("details", { class: "before-after" },
      h("summary", {}, "Before and after"),
      h("div", { class: "columns" },
        h("section", { "aria-label": "Before" }, h("h4", {}, "Before"), h("pre", { class: "before" }, blocksText(edit.preview.before) || "(nothing)")),
        h("section", { "aria-label": "After" }, h("h4", {}, "After"), h("pre", { class: "after" }, blocksText(edit.preview.after) || "(nothing)")),
      ),
    ),
    h("div", { class: "actions" }, approveButton, rejectButton),
    rejectForm,
    status,
  );
  return card;
}

/** The screen: loads the pending edits, reloads on edit events. */
export class PendingScreen {
  readonly root: HTMLElement;
  private list: HTMLElement;
  private notice: HTMLElement;
  private loading: Promise<void> | null = null;

  constructor(private onCount: (count: number) => void = () => {}) {
    this.list = h("div", { class: "cards", "aria-live": "polite" });
    this.notice = h("p", { class: "notice", role: "status" });
    this.root = h("section", { "aria-labelledby": "pending-title" },
      h("h2", { id: "pending-title" }, "Pending edits"),
      h("p", { class: "lead" }, "Agents' edits wait here until you approve or reject them. Nothing is applied before."),
      this.notice,
      this.list,
    );
  }

  readonly actions: CardActions = {
    approve: async (edit) => {
      const result = await rpc("approve_edit", { id: edit.id });
      this.notice.textContent = result.status === "applied"
        ? `Applied the edit of ${edit.agent.name} to ${documentName(edit)}.`
        : `The edit was not applied (${result.status}): ${result.error?.message ?? ""}`;
      await this.load();
    },
    reject: async (edit, comment) => {
      await rpc("reject_edit", { id: edit.id, comment });
      this.notice.textContent = `Rejected the edit of ${edit.agent.name}; the agent gets your comment.`;
      await this.load();
    },
  };

  load(): Promise<void> {
    this.loading ??= this.fetch().finally(() => (this.loading = null));
    return this.loading;
  }

  private async fetch(): Promise<void> {
    try {
      this.render(await rpc("list_pending"));
    } catch (error) {
      const e = toRpcError(error);
      clear(this.list);
      this.list.append(h("p", { class: "error", role: "alert" }, `${e.message} — ${e.hint}`));
    }
  }

  render(edits: EditRecord[]): void {
    this.onCount(edits.length);
    const focusedId = (document.activeElement?.closest("[data-edit-id]") as HTMLElement | null)?.dataset.editId;
    const keep = new Map<string, Element>();
    for (const card of this.list.querySelectorAll("[data-edit-id]")) {
      keep.set((card as HTMLElement).dataset.editId!, card);
    }
    clear(this.list);
    if (edits.length === 0) {
      this.list.append(h("p", { class: "empty" }, "No edit waits for you."));
      return;
    }
    for (const edit of edits) {
      // Keep a card being worked on (focus, half-typed comment) as it is.
      const existing = keep.get(edit.id);
      this.list.append(existing ?? renderEditCard(edit, this.actions));
    }
    if (focusedId && !edits.some((e) => e.id === focusedId)) {
      this.list.querySelector<HTMLElement>("button")?.focus();
    }
  }

  onEvent(event: ServiceEvent): void {
    if (event.type === "edit_changed" || event.type === "resync") void this.load();
  }
}
