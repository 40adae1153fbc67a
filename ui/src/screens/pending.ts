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
  const form = h("form", { class: "reject-form", hidden: true },
    h("label", { for: commentId }, "Comment for the agent (optional)"),
    comment,
    h("div", { class: "actions" },
      h("button", { type: "submit", class: "danger" }, "Send rejection"),
      h("button", { type: "button", class: "secondary", onclick: onCancel }, "Cancel"),
    ),
  );
  /** The comment, `null` when left empty. */
  const text = () => comment.value.trim() || null;
  return { form, comment, text };
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

  approveButton.addEventListener("click", () => decide(card, status, "Applying…", () => actions.approve(edit)));
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

/** Pending edits decided together: all of one agent's, or all of one document's. */
export interface EditGroup {
  key: string;
  /** Ends "… edits <label>": "by Claude Code", "to Meeting notes". */
  label: string;
  agent: string | null;
  document_id: string | null;
  count: number;
}

/** The groups of more than one edit; a document's group is left out when an agent's has the
 * same edits (one agent editing one document). */
export function editGroups(edits: EditRecord[]): EditGroup[] {
  const groups = new Map<string, EditGroup & { ids: string[] }>();
  const add = (key: string, label: string, agent: string | null, document_id: string | null, id: string) => {
    const group = groups.get(key) ?? { key, label, agent, document_id, count: 0, ids: [] };
    group.count += 1;
    group.ids.push(id);
    groups.set(key, group);
  };
  for (const edit of edits) {
    add(`agent:${edit.agent.name}`, `by ${edit.agent.name}`, edit.agent.name, null, edit.id);
    add(`document:${edit.document_id}`, `to ${documentName(edit)}`, null, edit.document_id, edit.id);
  }
  const agentSets = new Set([...groups.values()].filter((g) => g.agent !== null).map((g) => g.ids.join()));
  return [...groups.values()]
    .filter((g) => g.count > 1 && (g.agent !== null || !agentSets.has(g.ids.join())))
    .map(({ ids: _ids, ...group }) => group);
}

type DecideGroup = (group: EditGroup, decision: Decision, comment: string | null) => Promise<void>;

/** Numbers the toolbars' element ids (agent names may hold any character). */
let groupCount = 0;

/** The toolbar of one group: Approve all (n), Reject all (n) with an optional comment. */
class GroupControls {
  readonly root: HTMLElement;
  private label: HTMLElement;
  private approve: HTMLButtonElement;
  private rejectButton: HTMLButtonElement;

  constructor(private group: EditGroup, decideGroup: DecideGroup) {
    const labelId = `group-${++groupCount}`;
    const status = h("p", { class: "group-status", role: "status" });
    this.label = h("span", { id: labelId, class: "group-label" });
    this.approve = h("button", { type: "button", class: "secondary", "aria-describedby": labelId });
    this.rejectButton = h("button", { type: "button", class: "secondary", "aria-describedby": labelId, "aria-expanded": "false" });
    const reject = rejectForm(`${labelId}-comment`, () => toggleReject(false));
    const toggleReject = (open: boolean) => {
      reject.form.hidden = !open;
      this.rejectButton.setAttribute("aria-expanded", String(open));
      if (open) reject.comment.focus();
      else this.rejectButton.focus();
    };
    this.approve.addEventListener("click", () => decide(this.root, status, "Applying…", () => decideGroup(this.group, "approve", null)));
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
    this.label.textContent = `${group.count} edits ${group.label}`;
    this.approve.textContent = `Approve all (${group.count})`;
    this.rejectButton.textContent = `Reject all (${group.count})…`;
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
    const decided = await rpc("decide_all", { decision, agent: group.agent, document_id: group.document_id, comment });
    const applied = decided.filter((e) => e.status === "applied").length;
    this.notice.textContent = decision === "approve"
      ? `Applied ${applied} of ${decided.length} edits ${group.label}.`
      : `Rejected ${decided.length} edits ${group.label}.`;
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
