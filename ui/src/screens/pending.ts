// Pending edits: one card per edit, group decisions per agent and per document, live from
// service events.

import { h, nameLabel, showStatus, timeAgoElement } from "../dom";
import { agentName, documentLabel, documentName, renderPreview, renderWords, theEditOf } from "../preview";
import { errorText, rpc } from "../rpc";
import type { ChangedEdit, Decision, EditRecord, EditStatus, ServiceEvent } from "../types";

/** How soon after a document changes the cards check whether they still apply. */
const CHANGE_CHECK_DELAY_MS = 500;

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
async function decide(container: HTMLElement, status: HTMLElement, doing: string, run: () => Promise<void>) {
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
  return group.by === "agent" ? ["by ", agentName(group.name)] : ["to ", nameLabel(group.name, "document")];
}

type DecideGroup = (group: EditGroup, decision: Decision, comment: string | null) => Promise<void>;

/** Numbers the toolbars' element ids (agent names may hold any character). */
let groupCount = 0;

/** The toolbar of one group: Approve all (n), Reject all (n) with an optional comment, and
 * while its decision runs, how far it got and Stop. The counts are those of the ids a click
 * sends: the group's cards as rendered. */
class GroupControls {
  readonly root: HTMLElement;
  private label: HTMLElement;
  private status: HTMLElement;
  private approve: HTMLButtonElement;
  private rejectButton: HTMLButtonElement;
  private sendRejection: HTMLButtonElement;
  private stopButton: HTMLButtonElement;

  constructor(private group: EditGroup, decideGroup: DecideGroup, onStop: () => void) {
    const labelId = `group-${++groupCount}`;
    this.status = h("p", { class: "group-status", role: "status" });
    this.label = h("span", { id: labelId, class: "group-label" });
    this.approve = h("button", { type: "button", class: "secondary", "aria-describedby": labelId });
    this.rejectButton = h("button", { type: "button", class: "secondary", "aria-describedby": labelId, "aria-expanded": "false" });
    this.stopButton = h("button", { type: "button", class: "danger stop", hidden: true, "aria-describedby": labelId, onclick: onStop }, "Stop");
    const reject = rejectForm(`${labelId}-comment`, () => toggleReject(false));
    this.sendRejection = reject.submit;
    const toggleReject = (open: boolean) => {
      reject.form.hidden = !open;
      this.rejectButton.setAttribute("aria-expanded", String(open));
      if (open) reject.comment.focus();
      else this.rejectButton.focus();
    };
    // `this.group` is read at the click: the ids on screen then, not those of a later render.
    const run = async (decision: Decision, comment: string | null) => {
      showStatus(this.status, "");
      try {
        await decideGroup(this.group, decision, comment);
      } catch (error) {
        showStatus(this.status, errorText(error), true);
      }
    };
    this.approve.addEventListener("click", () => run("approve", null));
    this.rejectButton.addEventListener("click", () => toggleReject(reject.form.hidden));
    reject.form.addEventListener("submit", (event) => {
      event.preventDefault();
      reject.form.hidden = true;
      this.rejectButton.setAttribute("aria-expanded", "false");
      void run("reject", reject.text());
    });
    this.root = h("div", { class: "group", role: "group", "aria-labelledby": labelId, "data-group": group.key },
      h("div", { class: "actions" }, this.label, this.approve, this.rejectButton, this.stopButton),
      reject.form,
      this.status,
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

  /** While its decision runs: "Approving… 12 of 49", and Stop (or "Stopping…" once asked). */
  progress(run: GroupRun): void {
    const doing = run.decision === "approve" ? "Approving…" : "Rejecting…";
    const [done, total] = [run.done.size, run.ids.length];
    showStatus(this.status, run.stopping
      ? `Stopping… ${done} of ${total} decided`
      : run.decision === "approve" && done === total
        ? `All ${total} approved; waiting for Docs to confirm them…`
        : `${doing} ${done} of ${total}`);
    this.stopButton.hidden = false;
    this.stopButton.disabled = run.stopping;
    this.stopButton.textContent = run.stopping ? "Stopping…" : "Stop";
  }

  /** Its decision ended: Stop goes, the status is cleared (the screen's notice tells). */
  finished(): void {
    if (!this.status.classList.contains("error")) showStatus(this.status, "");
    this.stopButton.hidden = true;
  }
}

/** A group decision under way: the ids sent, those an event said were decided, and whether
 * the person asked to stop. */
export interface GroupRun {
  key: string;
  decision: Decision;
  ids: string[];
  done: Set<string>;
  stopping: boolean;
}

/** A line of the screen's notice; `problem`: an approved edit that is not in the document. */
export interface NoticeLine {
  parts: (Node | string)[];
  problem?: boolean;
}

/** An approved edit that ended as a conflict or failed, and why (the record's error). */
function notApplied(edit: EditRecord): NoticeLine {
  const what = edit.status === "conflict" ? " conflicts with a change made to the document since its preview" : " failed";
  const why = edit.error ? `: ${errorText(edit.error)}` : ".";
  return { problem: true, parts: ["Not applied: ", ...theEditOf(edit), what, why] };
}

/** What became of an approval, as `approve_edit` answered. */
export function approvalOutcome(edit: EditRecord): NoticeLine {
  switch (edit.status) {
    case "applied":
      return { parts: ["Applied ", ...theEditOf(edit), "."] };
    case "applying":
      return { parts: ["Approved ", ...theEditOf(edit), ". Docs has not confirmed it yet: it will be saved as soon as the instance answers."] };
    case "conflict":
    case "failed":
      return notApplied(edit);
    default:
      return { parts: [...theEditOf(edit, true), ` is ${edit.status} (it was not applied).`] };
  }
}

/** What became of an applying edit, once an event says. `null`: nothing to tell. */
export function confirmationOutcome(edit: EditRecord, status: EditStatus): NoticeLine | null {
  switch (status) {
    case "applied":
      return { parts: ["Docs confirmed ", ...theEditOf(edit), ": it is saved."] };
    case "conflict":
      return { problem: true, parts: ["Not applied after all: ", ...theEditOf(edit), " conflicts with a change made to the document meanwhile. History says what changed."] };
    case "failed":
      return { problem: true, parts: ["Not applied after all: ", ...theEditOf(edit), " failed. History says why."] };
    default:
      return null;
  }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** How each status reads in a group's count, in this order: "12 applied, 1 conflict". */
const COUNTED: Record<EditStatus, [one: string, many: string]> = {
  applied: ["applied", "applied"],
  applying: ["not yet confirmed by Docs", "not yet confirmed by Docs"],
  conflict: ["conflict", "conflicts"],
  failed: ["failed", "failed"],
  rejected: ["rejected", "rejected"],
  undone: ["undone", "undone"],
  pending: ["still pending", "still pending"],
};

/** What became of a group decision: a summary, then each edit not applied and why. `sent`:
 * how many ids were sent; `leftPending`: how many of them a Stop left pending (the others
 * not returned were decided elsewhere meanwhile). */
export function groupOutcome(group: EditGroup, decision: Decision, sent: number, decided: EditRecord[], leftPending = 0): NoticeLine[] {
  const skipped = sent - decided.length - leftPending;
  const stopped: NoticeLine[] = leftPending > 0
    ? [{ parts: [`Stopped: ${plural(leftPending, "edit was", "edits were")} left pending.`] }]
    : [];
  const elsewhere: NoticeLine[] = skipped > 0
    ? [{ parts: [`${plural(skipped, "edit was", "edits were")} already decided elsewhere, and left as ${skipped === 1 ? "it was" : "they were"}.`] }]
    : [];
  if (decided.length === 0) {
    if (leftPending > 0) return [{ parts: [`Stopped before any edit was decided: ${plural(leftPending, "edit stays", "edits stay")} pending.`] }, ...elsewhere];
    return [{ parts: ["Nothing decided: these edits were already decided elsewhere."] }];
  }
  const edits = plural(decided.length, "edit", "edits");
  if (decision === "reject") {
    return [{ parts: [`Rejected ${edits} `, ...groupLabel(group), "."] }, ...stopped, ...elsewhere];
  }
  const count = (status: EditStatus) => decided.filter((e) => e.status === status).length;
  const applying = count("applying");
  const lines: NoticeLine[] = [];
  if (count("applied") === decided.length) {
    lines.push({ parts: [`Applied ${edits} `, ...groupLabel(group), "."] });
  } else {
    const counts = (Object.keys(COUNTED) as EditStatus[]).filter((s) => count(s) > 0).map((s) => `${count(s)} ${COUNTED[s][count(s) === 1 ? 0 : 1]}`);
    lines.push({ parts: [`Approved ${edits} `, ...groupLabel(group), `: ${counts.join(", ")}.`] });
  }
  if (applying > 0) {
    lines.push({ parts: [applying === 1
      ? "Docs has not confirmed one of them yet: it will be saved as soon as the instance answers."
      : `Docs has not confirmed ${applying} of them yet: they will be saved as soon as the instance answers.`] });
  }
  lines.push(...decided.filter((e) => e.status === "conflict" || e.status === "failed").map(notApplied));
  return [...lines, ...stopped, ...elsewhere];
}

/** The screen's keyboard shortcuts, as its list shows them. */
const SHORTCUTS: [keys: string, what: string][] = [
  ["j / k", "next / previous edit (↓ / ↑ once on an edit)"],
  ["a", "approve the edit"],
  ["r", "reject the edit, with a comment for the agent"],
  ["Ctrl+Enter", "send the rejection (Escape: cancel)"],
  ["?", "show or hide this list"],
];

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
  /** Approved edits Docs has not confirmed yet, until an event says how they ended. */
  private confirming = new Map<string, EditRecord>();
  /** Approvals under way, and the final statuses events reported meanwhile. */
  private decisions = 0;
  private settled = new Map<string, EditStatus>();
  /** The group decision under way: every other decision waits until it ends. */
  private run: GroupRun | null = null;
  /** The ids of the cards on screen. */
  private shown = new Set<string>();

  /** The keyboard shortcuts, listed; `?` opens and closes the list. */
  private shortcuts: HTMLDetailsElement;

  constructor(private onCount: (count: number) => void = () => {}) {
    this.shortcuts = h("details", { class: "shortcuts" },
      h("summary", { "aria-keyshortcuts": "?" }, "Keyboard shortcuts"),
      h("dl", {}, ...SHORTCUTS.flatMap(([keys, what]) => [h("dt", {}, h("kbd", {}, keys)), h("dd", {}, what)])),
    );
    document.addEventListener("keydown", (event) => this.onKey(event));
    this.groups = h("section", { class: "groups", "aria-label": "Decide together", hidden: true });
    this.list = h("div", { class: "cards", "aria-live": "polite" });
    this.notice = h("div", { class: "notice", role: "status", "aria-live": "polite" });
    this.root = h("section", { "aria-labelledby": "pending-title" },
      h("h2", { id: "pending-title" }, "Pending edits"),
      h("p", { class: "lead" }, "Agents' edits wait here until you approve or reject them. Nothing is applied before."),
      this.shortcuts,
      this.groups,
      this.list,
      // After the cards, held at the bottom of the window: telling an outcome never moves a
      // button under the pointer.
      this.notice,
    );
  }

  readonly actions: CardActions = {
    approve: (edit) => this.deciding(async () => {
      const result = await rpc("approve_edit", { id: edit.id });
      this.say([approvalOutcome(result), ...this.follow([result])]);
      await this.load();
    }),
    reject: async (edit, comment) => {
      await rpc("reject_edit", { id: edit.id, comment });
      this.say([{ parts: ["Rejected ", ...theEditOf(edit), comment ? "; the agent gets your comment." : "."] }]);
      await this.load();
    },
  };

  readonly decideGroup: DecideGroup = (group, decision, comment) => this.deciding(async () => {
    const ids = [...group.ids];
    const run: GroupRun = { key: group.key, decision, ids, done: new Set(), stopping: false };
    this.run = run;
    this.say([]);
    this.lock();
    this.groupControls.get(group.key)?.progress(run);
    try {
      const decided = await rpc("decide_all", { decision, ids, comment });
      this.run = null;
      await this.load();
      const leftPending = run.stopping ? ids.filter((id) => this.shown.has(id)).length : 0;
      this.say([...groupOutcome(group, decision, ids.length, decided, leftPending), ...this.follow(decided)]);
    } finally {
      this.run = null;
      this.groupControls.get(group.key)?.finished();
      this.render(this.lastEdits);
    }
  });

  /** j/k (or ↓/↑ on a card) move between cards, a approves, r opens the rejection, ? lists
   * the shortcuts. Not while typing, nor while the screen is hidden. */
  onKey(event: KeyboardEvent): void {
    if (!this.root.isConnected || this.root.closest("[hidden]") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof Element && event.target.closest("textarea, input, select")) return;
    const cards = [...this.list.querySelectorAll<HTMLElement>("[data-edit-id]")];
    const at = cards.findIndex((card) => card.contains(document.activeElement));
    const onCard = at >= 0 && cards[at] === document.activeElement;
    const go = (index: number) => {
      const card = cards[Math.min(Math.max(index, 0), cards.length - 1)];
      card?.focus();
      card?.scrollIntoView?.({ block: "nearest" });
    };
    const press = (selector: string) => {
      const button = at >= 0 ? cards[at].querySelector<HTMLButtonElement>(selector) : null;
      if (button && !button.disabled) button.click();
    };
    switch (event.key) {
      case "j":
        go(at + 1);
        break;
      case "ArrowDown":
        if (!onCard) return;
        go(at + 1);
        break;
      case "k":
        go(at < 0 ? 0 : at - 1);
        break;
      case "ArrowUp":
        if (!onCard) return;
        go(at - 1);
        break;
      case "a":
        press("button.primary");
        break;
      case "r":
        press("button.reject");
        break;
      case "?":
        this.shortcuts.open = !this.shortcuts.open;
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  /** The person's Stop: the edits the group decision has not reached stay pending. */
  private async stop(): Promise<void> {
    const run = this.run;
    if (!run || run.stopping) return;
    run.stopping = true;
    this.groupControls.get(run.key)?.progress(run);
    try {
      await rpc("stop_decisions");
    } catch (error) {
      this.say([{ problem: true, parts: [`Could not stop: ${errorText(error)}`] }]);
    }
  }

  /** While a group decision runs, every other decision button is disabled (Stop is not);
   * after it, each is enabled again. */
  private lock(): void {
    const locked = this.run !== null;
    this.root.toggleAttribute("data-locked", locked);
    for (const b of this.root.querySelectorAll<HTMLButtonElement>("button:not(.stop)")) b.disabled = locked;
  }

  /** Runs an approval; final statuses that events report meanwhile are kept for `follow`
   * (an event may come before the command's answer). */
  private async deciding(run: () => Promise<void>): Promise<void> {
    this.decisions += 1;
    try {
      await run();
    } finally {
      this.decisions -= 1;
      if (this.decisions === 0) this.settled.clear();
    }
  }

  /** Watches the applying edits among `records` until an event says how they ended; tells at
   * once of those an event already settled. */
  private follow(records: EditRecord[]): NoticeLine[] {
    const lines: NoticeLine[] = [];
    for (const record of records.filter((r) => r.status === "applying")) {
      const status = this.settled.get(record.id);
      if (status === undefined) {
        this.confirming.set(record.id, record);
      } else {
        const line = confirmationOutcome(record, status);
        if (line) lines.push(line);
      }
    }
    return lines;
  }

  /** Replaces the notice's lines, or adds to them. */
  private say(lines: NoticeLine[], add = false): void {
    const paragraphs = lines.map((line) => h("p", { class: line.problem ? "problem" : null }, ...line.parts));
    if (add) this.notice.append(...paragraphs);
    else this.notice.replaceChildren(...paragraphs);
  }

  /** Loads the pending edits. Asked during a load (an event came meanwhile, and that load's
   * answer may predate it), it loads once more after it: the returned promise resolves with
   * the screen at least as new as the call. */
  load(): Promise<void> {
    if (this.loading) {
      this.stale = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        do {
          this.stale = false;
          await this.fetch();
        } while (this.stale);
      } finally {
        // In the same step as the last check: a call after it starts a new load.
        this.loading = null;
      }
    })();
    return this.loading;
  }

  private async fetch(): Promise<void> {
    try {
      const edits = await rpc("list_pending");
      this.render(edits);
      void this.checkChanged();
    } catch (error) {
      this.list.replaceChildren(h("p", { class: "error", role: "alert" }, errorText(error)));
    }
  }

  /** Warns on each card whose approval would now be a conflict: a person (or another edit)
   * changed a block it depends on since the agent asked. */
  private async checkChanged(): Promise<void> {
    const ids = this.lastEdits.map((e) => e.id);
    if (ids.length === 0) return;
    let changed: ChangedEdit[];
    try {
      changed = await rpc("changed_since_proposed", { ids });
    } catch {
      return; // A warning that cannot be checked is not shown; the approval still checks.
    }
    const reasons = new Map(changed.map((c) => [c.id, c.reason]));
    for (const card of this.list.querySelectorAll<HTMLElement>("[data-edit-id]")) {
      const note = card.querySelector<HTMLElement>(".changed-since");
      if (!note) continue;
      const reason = reasons.get(card.dataset.editId!);
      note.hidden = reason === undefined;
      note.textContent = reason === undefined ? "" : `Changed since the agent asked: ${reason}. Approving it would be refused as a conflict: reject it, or ask the agent to redo it.`;
    }
  }

  /** A check soon after a document with cards changed (at most one per half second). */
  private checkTimer: ReturnType<typeof setTimeout> | undefined;

  private scheduleCheck(): void {
    if (this.checkTimer !== undefined) return;
    this.checkTimer = setTimeout(() => {
      this.checkTimer = undefined;
      void this.checkChanged();
    }, CHANGE_CHECK_DELAY_MS);
  }

  /** The edits of the last render. */
  private lastEdits: EditRecord[] = [];

  render(edits: EditRecord[]): void {
    this.lastEdits = edits;
    this.shown = new Set(edits.map((e) => e.id));
    this.onCount(edits.length);
    const focused = document.activeElement;
    const hadFocus = this.root.contains(focused);
    const cards = [...this.list.querySelectorAll<HTMLElement>("[data-edit-id]")];
    const focusedCard = cards.findIndex((card) => card.contains(focused));
    this.renderGroups(editGroups(edits));
    const keep = new Map(cards.map((card) => [card.dataset.editId!, card]));
    if (edits.length === 0) {
      this.list.replaceChildren(h("p", { class: "empty", tabindex: -1 }, "No edit waits for you."));
    } else {
      // Keep a card being worked on (focus, half-typed comment) as it is.
      this.list.replaceChildren(...edits.map((edit) => keep.get(edit.id) ?? renderEditCard(edit, this.actions)));
    }
    this.lock();
    // The focused control left with its decided edit or group: on to the next card (the card,
    // not its Approve: a second Enter must not approve another edit).
    if (hadFocus && !this.root.contains(document.activeElement)) {
      const next = this.list.querySelectorAll<HTMLElement>("[data-edit-id]");
      const target = next[Math.min(Math.max(focusedCard, 0), next.length - 1)] ?? this.list.querySelector<HTMLElement>(".empty");
      target?.focus();
    }
  }

  /** Updates the group toolbars in place, in a stable order (a half-typed comment survives
   * new edits; no toolbar moves under the pointer). The running group's toolbar stays as it
   * was clicked until its decision ends. */
  private renderGroups(groups: EditGroup[]): void {
    const byKey = new Map(groups.map((g) => [g.key, g]));
    const next = new Map<string, GroupControls>();
    for (const [key, controls] of this.groupControls) {
      const group = byKey.get(key);
      if (this.run?.key === key) next.set(key, controls);
      else if (group) {
        controls.update(group);
        next.set(key, controls);
      }
    }
    for (const group of groups) {
      if (!next.has(group.key)) next.set(group.key, new GroupControls(group, this.decideGroup, () => void this.stop()));
    }
    this.groupControls = next;
    this.groups.replaceChildren(...[...next.values()].map((c) => c.root));
    this.groups.hidden = next.size === 0;
  }

  onEvent(event: ServiceEvent): void {
    if (event.type === "edit_changed" && event.status !== "pending" && this.run?.ids.includes(event.edit_id)) {
      this.run.done.add(event.edit_id);
      this.groupControls.get(this.run.key)?.progress(this.run);
    }
    if (event.type === "edit_changed") {
      const final = event.status !== "pending" && event.status !== "applying";
      if (final && this.decisions > 0) this.settled.set(event.edit_id, event.status);
      const approved = this.confirming.get(event.edit_id);
      if (approved && event.status !== "applying") {
        this.confirming.delete(event.edit_id);
        const line = confirmationOutcome(approved, event.status);
        if (line) this.say([line], true);
      }
    }
    if (event.type === "document_changed" && this.lastEdits.some((e) => e.document_id === event.document_id)) this.scheduleCheck();
    if (event.type === "edit_changed" || event.type === "resync") void this.load();
  }
}
