// Pending edits: one card per edit, group decisions per agent and per document, live from
// service events.

import { h, showStatus, timeElement } from "../dom";
import { documentName, renderPreview, renderWords } from "../preview";
import { errorText, rpc } from "../rpc";
import type { Decision, EditRecord, ServiceEvent } from "../types";

export interface CardActions {
  approve(edit: EditRecord): Promise<void>;
  reject(edit: EditRecord, comment: string | null): Promise<void>;
}

/** A reject form: an optional comment for the agent, Send and Cancel. */
function rejectForm(commentId: string, onCancel: () => void) {
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
  /** The comment, `null` when left empty. */
  const text = () => comment.value.trim() || null;
  return { form, comment, submit, text };
}

/** Disables `container`'s buttons while `run` runs, and shows its failure. (The screen's
 * notice tells a success.) */
async function decide(container: HTMLElement, status: HTMLElement, doing: string, run: () => Promise<void>) {
  for (const b of container.querySelectorAll("button")) b.disabled = true;
  showStatus(status, doing);
  try {
    await run();
    showStatus(status, "");
  } catch (error) {
    showStatus(status, errorText(error), true);
  } finally {
    for (const b of container.querySelectorAll("button")) b.disabled = false;
  }
}

/** One card: who, where, why, when, with which tool, the preview, and the decisions. */
export function renderEditCard(edit: EditRecord, actions: CardActions): HTMLElement {
  const titleId = `edit-${edit.id}-title`;
  const status = h("p", { class: "card-status", role: "status" });
  const reject = rejectForm(`edit-${edit.id}-comment`, () => toggleReject(false));
  const approveButton = h("button", { type: "button", class: "primary", "aria-describedby": titleId }, "Approve");
  const rejectButton = h("button", { type: "button", class: "secondary", "aria-describedby": titleId }, "Reject…");

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
    { class: "card edit-card", "aria-labelledby": titleId, "data-edit-id": edit.id },
    h("h3", { id: titleId },
      h("span", { class: "agent" }, edit.agent.name),
      " wants to edit ",
      h("span", { class: "document" }, documentName(edit)),
    ),
    h("dl", { class: "meta" },
      h("dt", {}, "Reason"), h("dd", { class: "reason" }, edit.reason?.trim() || "(none given)"),
      h("dt", {}, "When"), h("dd", {}, timeElement(edit.created_at)),
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

/** Pending edits decided together: all of one agent's, or all of one document's, as shown. */
export interface EditGroup {
  key: string;
  /** "by" an agent, or "to" a document. */
  by: "agent" | "document";
  /** The agent's name, or the document's. */
  name: string;
  /** The edits of the group, in the order of the cards: what a group decision sends. */
  ids: string[];
}

/** The groups of more than one edit; a document's group is left out when an agent's has the
 * same edits (one agent editing one document). */
export function editGroups(edits: EditRecord[]): EditGroup[] {
  const groups = new Map<string, EditGroup>();
  const add = (by: EditGroup["by"], key: string, name: string, id: string) => {
    const group = groups.get(key) ?? { key, by, name, ids: [] };
    group.ids.push(id);
    groups.set(key, group);
  };
  for (const edit of edits) {
    add("agent", `agent:${edit.agent.name}`, edit.agent.name, edit.id);
    add("document", `document:${edit.document_id}`, documentName(edit), edit.id);
  }
  const agentSets = new Set([...groups.values()].filter((g) => g.by === "agent").map((g) => g.ids.join()));
  return [...groups.values()].filter((g) => g.ids.length > 1 && (g.by === "agent" || !agentSets.has(g.ids.join())));
}

/** "by <agent>" or "to <document>". */
function groupLabel(group: EditGroup): (Node | string)[] {
  return group.by === "agent" ? ["by ", h("span", { class: "agent" }, group.name)] : ["to ", h("span", { class: "document" }, group.name)];
}

type DecideGroup = (group: EditGroup, decision: Decision, comment: string | null) => Promise<void>;

/** Numbers the toolbars' element ids (agent names may hold any character). */
let groupCount = 0;

/** The toolbar of one group: Approve all (n), Reject all (n) with an optional comment. The
 * counts are those of the ids a click sends: the group's cards as rendered. */
class GroupControls {
  readonly root: HTMLElement;
  private label: HTMLElement;
  private approve: HTMLButtonElement;
  private rejectButton: HTMLButtonElement;
  private sendRejection: HTMLButtonElement;

  constructor(private group: EditGroup, decideGroup: DecideGroup) {
    const labelId = `group-${++groupCount}`;
    const status = h("p", { class: "group-status", role: "status" });
    this.label = h("span", { id: labelId, class: "group-label" });
    this.approve = h("button", { type: "button", class: "secondary", "aria-describedby": labelId });
    this.rejectButton = h("button", { type: "button", class: "secondary", "aria-describedby": labelId, "aria-expanded": "false" });
    const reject = rejectForm(`${labelId}-comment`, () => toggleReject(false));
    this.sendRejection = reject.submit;
    const toggleReject = (open: boolean) => {
      reject.form.hidden = !open;
      this.rejectButton.setAttribute("aria-expanded", String(open));
      if (open) reject.comment.focus();
      else this.rejectButton.focus();
    };
    // `this.group` is read at the click: the ids on screen then, not those of a later render.
    this.approve.addEventListener("click", () => decide(this.root, status, "Approving…", () => decideGroup(this.group, "approve", null)));
    this.rejectButton.addEventListener("click", () => toggleReject(reject.form.hidden));
    reject.form.addEventListener("submit", (event) => {
      event.preventDefault();
      void decide(this.root, status, "Rejecting…", () => decideGroup(this.group, "reject", reject.text()));
    });
    this.root = h("div", { class: "group", role: "group", "aria-labelledby": labelId, "data-group": group.key },
      h("div", { class: "actions" }, this.label, this.approve, this.rejectButton),
      reject.form,
      status,
    );
    this.update(group);
  }

  update(group: EditGroup): void {
    this.group = group;
    const count = group.ids.length;
    this.label.replaceChildren(`${count} edits `, ...groupLabel(group));
    this.approve.textContent = `Approve all (${count})`;
    this.rejectButton.textContent = `Reject all (${count})…`;
    this.sendRejection.textContent = `Send rejection (${count})`;
  }
}

/** The screen: loads the pending edits, reloads on edit events. */
export class PendingScreen {
  readonly root: HTMLElement;
  private groups: HTMLElement;
  private list: HTMLElement;
  private notice: HTMLElement;
  private groupControls = new Map<string, GroupControls>();
  /** The load under way; `stale`: something changed since it asked, so it asks again. */
  private loading: Promise<void> | null = null;
  private stale = false;

  constructor(private onCount: (count: number) => void = () => {}) {
    this.groups = h("section", { class: "groups", "aria-label": "Decide together", hidden: true });
    this.list = h("div", { class: "cards", "aria-live": "polite" });
    this.notice = h("p", { class: "notice", role: "status" });
    this.root = h("section", { "aria-labelledby": "pending-title" },
      h("h2", { id: "pending-title" }, "Pending edits"),
      h("p", { class: "lead" }, "Agents' edits wait here until you approve or reject them. Nothing is applied before."),
      this.notice,
      this.groups,
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

  readonly decideGroup: DecideGroup = async (group, decision, comment) => {
    const decided = await rpc("decide_all", { decision, ids: [...group.ids], comment });
    const applied = decided.filter((e) => e.status === "applied").length;
    const label = group.by === "agent" ? `by ${group.name}` : `to ${group.name}`;
    this.notice.textContent = decision === "approve"
      ? `Applied ${applied} of ${decided.length} edits ${label}.`
      : `Rejected ${decided.length} edits ${label}.`;
    await this.load();
  };

  /** Loads the pending edits. Asked during a load (an event came meanwhile, and that load's
   * answer may predate it), it loads once more after it: the returned promise resolves with
   * the screen at least as new as the call. */
  load(): Promise<void> {
    if (this.loading) {
      this.stale = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.stale = false;
        await this.fetch();
      } while (this.stale);
    })().finally(() => (this.loading = null));
    return this.loading;
  }

  private async fetch(): Promise<void> {
    try {
      this.render(await rpc("list_pending"));
    } catch (error) {
      this.list.replaceChildren(h("p", { class: "error", role: "alert" }, errorText(error)));
    }
  }

  render(edits: EditRecord[]): void {
    this.onCount(edits.length);
    const hadFocus = this.root.contains(document.activeElement);
    this.renderGroups(editGroups(edits));
    const keep = new Map<string, Element>();
    for (const card of this.list.querySelectorAll("[data-edit-id]")) {
      keep.set((card as HTMLElement).dataset.editId!, card);
    }
    if (edits.length === 0) {
      this.list.replaceChildren(h("p", { class: "empty" }, "No edit waits for you."));
    } else {
      // Keep a card being worked on (focus, half-typed comment) as it is.
      this.list.replaceChildren(...edits.map((edit) => keep.get(edit.id) ?? renderEditCard(edit, this.actions)));
    }
    // The focused control left with its decided edit or group: on to the next decision.
    if (hadFocus && !this.root.contains(document.activeElement)) {
      this.root.querySelector<HTMLElement>("button")?.focus();
    }
  }

  /** Updates the group toolbars in place (a half-typed comment survives new edits). */
  private renderGroups(groups: EditGroup[]): void {
    const next = new Map<string, GroupControls>();
    for (const group of groups) {
      const controls = this.groupControls.get(group.key);
      if (controls) controls.update(group);
      next.set(group.key, controls ?? new GroupControls(group, this.decideGroup));
    }
    this.groupControls = next;
    this.groups.replaceChildren(...[...next.values()].map((c) => c.root));
    this.groups.hidden = next.size === 0;
  }

  onEvent(event: ServiceEvent): void {
    if (event.type === "edit_changed" || event.type === "resync") void this.load();
  }
}
