// Pending edits: one card per edit (pending-card), group decisions per agent and per
// document (pending-groups), what became of them (pending-outcomes), live from service events.

import { h, showPassing, showStatus } from "../dom";
import { theEditOf } from "../preview";
import { errorClause, rpc } from "../rpc";
import type { ChangedEdit, EditRecord, EditStatus, Overview, ServiceEvent } from "../types";
import { type CardActions, renderEditCard } from "./pending-card";
import { type DecideGroup, editGroups, type EditGroup, GroupControls, type GroupRun } from "./pending-groups";
import { approvalOutcome, confirmationOutcome, groupOutcome, type NoticeLine } from "./pending-outcomes";
import { failureNodes } from "../failure";

/** How long after a decision moved the focus to the next card a or r does nothing there. */
const DECISION_KEY_PAUSE_MS = 700;

/** How soon after a document changes the cards check whether they still apply. */
const CHANGE_CHECK_DELAY_MS = 500;

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
  /** Says how many edits wait beyond the page shown. */
  private more: HTMLElement;
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
    this.more = h("p", { class: "more-pending", hidden: true });
    this.notice = h("div", { class: "notice", role: "status", "aria-live": "polite" });
    this.root = h("section", { "aria-labelledby": "pending-title" },
      h("h2", { id: "pending-title" }, "Pending edits"),
      h("p", { class: "lead" }, "Agents' edits wait here until you approve or reject them. Nothing is applied before."),
      this.shortcuts,
      this.groups,
      this.list,
      this.more,
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
    approveWithText: (edit, text) => this.deciding(async () => {
      const result = await rpc("approve_with_text", { id: edit.id, text });
      this.say([approvalOutcome(result), ...this.follow([result])]);
      await this.load();
    }),
    previewText: async (text) => (await rpc("text_preview", { text })).content,
    approveParts: (edit, parts, texts) => this.deciding(async () => {
      const result = await rpc("approve_parts", { id: edit.id, parts, texts });
      this.say([approvalOutcome(result), ...this.follow([result])]);
      await this.load();
    }),
    reject: async (edit, comment) => {
      await rpc("reject_edit", { id: edit.id, comment });
      this.say([{ parts: ["Rejected ", ...theEditOf(edit), comment ? "; the agent gets your comment." : "."] }]);
      await this.load();
    },
  };

  /** The demo runs: its documents have no page to open. */
  private demo = false;
  /** The Docs instance: a card marks links to other hosts. */
  private instance: string | null = null;

  setOverview(overview: Overview): void {
    this.demo = overview.demo;
    this.instance = overview.instance;
  }

  private cardActions(): CardActions {
    if (this.demo) return this.actions;
    return {
      ...this.actions,
      openAt: async (edit) => {
        const block = edit.touched_blocks[0] ?? null;
        await rpc("open_in_browser", { document_id: edit.document_id, block_id: block });
      },
    };
  }

  readonly decideGroup: DecideGroup = (group, decision, comment) => this.deciding(async () => {
    const ids = [...group.ids];
    const run: GroupRun = { key: group.key, decision, ids, done: new Set(), stopping: false };
    this.run = run;
    this.say([]);
    this.lock();
    this.groupControls.get(group.key)?.progress(run);
    try {
      const cards = new Map(this.lastEdits.map((e) => [e.id, e]));
      const outcome = await rpc("decide_all", { decision, ids, comment });
      this.run = null;
      await this.load();
      const failed = new Set(outcome.failed.map((f) => f.id));
      const leftPending = run.stopping ? ids.filter((id) => this.shown.has(id) && !failed.has(id)).length : 0;
      this.say([...groupOutcome(group, decision, outcome, leftPending, (id) => cards.get(id)), ...this.follow(outcome.decided)]);
    } finally {
      this.run = null;
      this.groupControls.get(group.key)?.finished();
      this.render(this.lastEdits);
    }
  });

  /** When a decision last moved the focus to the next card on its own. */
  private focusMovedAt = -Infinity;

  /** j/k (or ↓/↑ on a card) move between cards, a approves, r opens the rejection, ? lists
   * the shortcuts. Not while typing, nor while the screen is hidden. A held key (its repeats)
   * never decides, nor does a key pressed just as the focus came to a card after a decision
   * (a doubled press meant for the card before). */
  onKey(event: KeyboardEvent): void {
    if (!this.root.isConnected || this.root.closest("[hidden]") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof Element && event.target.closest("textarea, input, select")) return;
    if ((event.key === "a" || event.key === "r") && (event.repeat || performance.now() - this.focusMovedAt < DECISION_KEY_PAUSE_MS)) {
      event.preventDefault();
      return;
    }
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
      this.say([{ problem: true, parts: [`Could not stop: ${errorClause(error)}`] }]);
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
    // What went well passes; a problem stays until the next decision replaces it.
    const passes = !lines.some((line) => line.problem) && !(add && this.notice.querySelector(".problem"));
    const shown: Node[] = add ? [...Array.from(this.notice.children), ...paragraphs] : paragraphs;
    if (passes) {
      showPassing(this.notice, ...shown);
    } else {
      showStatus(this.notice, "");
      this.notice.replaceChildren(...shown);
    }
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
      const [edits, total] = await Promise.all([rpc("list_pending"), rpc("pending_count")]);
      this.total = Math.max(total, edits.length);
      this.render(edits);
      void this.checkChanged();
    } catch (error) {
      this.list.replaceChildren(h("p", { class: "error", role: "alert" }, ...failureNodes(error)));
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
    const byId = new Map(changed.map((c) => [c.id, c]));
    for (const card of this.list.querySelectorAll<HTMLElement>("[data-edit-id]")) {
      const note = card.querySelector<HTMLElement>(".changed-since");
      if (!note) continue;
      const change = byId.get(card.dataset.editId!);
      note.hidden = change === undefined;
      note.replaceChildren(...(change === undefined ? [] : [
        `Changed since the agent asked: ${change.reason}.`,
        change.now === null ? "" : h("span", { class: "now" }, " It now reads: ", h("q", {}, change.now), "."),
        " Approving it would be refused as a conflict: reject it, or ask the agent to redo it.",
      ]));
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
  /** How many edits wait in all: the screen shows the oldest page of them. */
  private total = 0;

  render(edits: EditRecord[]): void {
    this.lastEdits = edits;
    this.shown = new Set(edits.map((e) => e.id));
    this.total = Math.max(this.total, edits.length);
    this.onCount(this.total);
    const more = this.total - edits.length;
    this.more.hidden = more <= 0;
    this.more.textContent = more <= 0 ? "" : `${more} more ${more === 1 ? "edit waits" : "edits wait"} after these: they show here as these are decided (oldest first).`;
    const focused = document.activeElement;
    const hadFocus = this.root.contains(focused);
    const cards = [...this.list.querySelectorAll<HTMLElement>("[data-edit-id]")];
    const focusedCard = cards.findIndex((card) => card.contains(focused));
    this.renderGroups(editGroups(edits));
    const keep = new Map(cards.map((card) => [card.dataset.editId!, card]));
    if (edits.length === 0) {
      this.list.replaceChildren(h("p", { class: "empty", tabindex: -1 }, "No edit waits for you."));
    } else {
      // Oldest first: a new edit lands below the others, so no card moves under the person
      // reading one. A card being worked on (focus, half-typed comment) is kept as it is.
      const oldestFirst = [...edits].sort((a, b) => a.created_at - b.created_at);
      this.list.replaceChildren(...oldestFirst.map((edit) => keep.get(edit.id) ?? renderEditCard(edit, this.cardActions(), this.instance)));
    }
    this.lock();
    // The focused control left with its decided edit or group: on to the next card (the card,
    // not its Approve: a second Enter must not approve another edit).
    if (hadFocus && !this.root.contains(document.activeElement)) {
      const next = this.list.querySelectorAll<HTMLElement>("[data-edit-id]");
      const target = next[Math.min(Math.max(focusedCard, 0), next.length - 1)] ?? this.list.querySelector<HTMLElement>(".empty");
      target?.focus();
      // A doubled key press meant for the card just decided must not decide this one.
      this.focusMovedAt = performance.now();
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
