// History: the journal of decided edits, newest first, with Undo on applied ones. Live from
// edit events (a status changed, a save of Docs now holds edits).

import { h, shortName, showPassing, showStatus, statusLine, timeElement } from "../dom";
import { agentName, documentLabel, documentName, renderPreview, renderWords, STATUS_LABELS, statusLabel, theEditOf } from "../preview";
import { errorText, rpc } from "../rpc";
import { type Channel, EDIT_STATUSES, type EditRecord, type EditStatus, type Overview, type ServiceEvent } from "../types";
import { failureNodes, showError } from "../failure";

/** The journal's statuses: every one but pending, in the order of `EditStatus`. */
const DECIDED: EditStatus[] = EDIT_STATUSES.filter((s) => s !== "pending");

/** What an entry shows that can change: its status, and whether Docs saved it. */
function entryKey(edit: EditRecord): string {
  return `${edit.id}:${edit.status}:${edit.saved_at === null ? "unsaved" : "saved"}`;
}

/** When it was decided, else when it was asked. */
function decidedOrCreated(edit: EditRecord): number {
  return edit.decided_at ?? edit.created_at;
}

/** Replaces a select's options, keeping its choice when still offered. */
function fillSelect(select: HTMLSelectElement, allLabel: string, options: [value: string, label: string][]): void {
  const chosen = select.value;
  // Agents name themselves, documents are named by people: an option shows a name shortened
  // (CSS cannot clamp it), the whole of it in its title.
  const option = ([value, label]: [string, string]) => Object.assign(new Option(shortName(label), value), { title: label });
  select.replaceChildren(new Option(allLabel, ""), ...options.map(option));
  select.value = options.some(([value]) => value === chosen) ? chosen : "";
}

/** Who decided, for a person: the channel the service recorded the decision through. */
export function deciderLabel(decidedBy: Channel): string {
  switch (decidedBy) {
    case "window":
      return "You, in this window";
    case "terminal":
      return "Someone at a terminal (docs-mcp edits), not in this window";
    case "policy":
      return "The policy (Automatic)";
  }
}

/** What a decision made outside the window did, said plainly on its entry. */
const OUTSIDE_WINDOW: Partial<Record<EditStatus, string>> = {
  applying: "Approved from a terminal",
  applied: "Approved from a terminal",
  conflict: "Approved from a terminal",
  failed: "Approved from a terminal",
  undone: "Approved from a terminal",
  rejected: "Rejected from a terminal",
};

/** What the person approved when it was not the agent's edit as asked: their own text, or
 * some parts of it ("2 of 3 parts; refused: Insert heading “Plan”"). */
export function approvedWhat(edit: EditRecord): string | null {
  const own = (n: number) => (n === 1 ? "with your text for 1 of them" : `with your text for ${n} of them`);
  const parts = edit.parts ?? [];
  if (edit.approved_parts !== undefined && parts.length > 0) {
    const taken = new Set(edit.approved_parts);
    const refused = parts.filter((_, i) => !taken.has(i)).map((part) => part.label);
    const rewritten = Object.keys(edit.part_texts ?? {}).length;
    const counted = `${taken.size} of ${parts.length} parts`;
    return [counted, rewritten ? own(rewritten) : null, refused.length ? `refused: ${refused.join("; ")}` : null]
      .filter((p) => p !== null)
      .join("; ");
  }
  if (edit.approved_text !== undefined) return "Your text, instead of the agent's";
  return null;
}

/** "Approved from a terminal at 14:02": a decision not made in this window stands out. */
function outsideWindow(edit: EditRecord): HTMLElement | null {
  if (edit.decided_by !== "terminal") return null;
  const what = OUTSIDE_WINDOW[edit.status] ?? "Decided from a terminal";
  return h("p", { class: "outside-window", role: "note" },
    `${what}, not in this window`,
    edit.decided_at === null ? "" : [" at ", timeElement(edit.decided_at)],
    edit.status === "applied" && edit.undoable ? ". If you did not do it, undo it." : ".",
  );
}

export class HistoryScreen {
  readonly root: HTMLElement;
  private documentSelect: HTMLSelectElement;
  private agentSelect: HTMLSelectElement;
  private statusSelect: HTMLSelectElement;
  private list: HTMLElement;
  private notice: HTMLElement;
  /** Every document and agent seen, so a filter's choices stay when it narrows the list. */
  private documents = new Map<string, string>();
  private agents = new Set<string>();
  /** Counts loads: a slower, older answer must not overwrite a newer one. */
  private generation = 0;
  /** The Docs instance: an entry marks links to other hosts. */
  private instance: string | null = null;

  constructor() {
    const select = (id: string, label: string) => {
      const el = h("select", { id, onchange: () => void this.load() });
      return { el, field: h("div", { class: "field" }, h("label", { for: id }, label), el) };
    };
    const documentFilter = select("history-document", "Document");
    const agentFilter = select("history-agent", "Agent");
    const statusFilter = select("history-status", "Status");
    this.documentSelect = documentFilter.el;
    this.agentSelect = agentFilter.el;
    this.statusSelect = statusFilter.el;
    fillSelect(this.documentSelect, "All documents", []);
    fillSelect(this.agentSelect, "All agents", []);
    fillSelect(this.statusSelect, "Every status", DECIDED.map((s) => [s, STATUS_LABELS[s]]));
    this.list = h("div", { class: "history" });
    this.notice = statusLine("notice");
    this.root = h("section", { "aria-labelledby": "history-title" },
      h("h2", { id: "history-title" }, "History"),
      h("p", { class: "lead" }, "Every decided edit, newest first. Undo an applied edit to put the document back as it was."),
      h("div", { class: "filters", role: "group", "aria-label": "Filters" }, documentFilter.field, agentFilter.field, statusFilter.field),
      this.notice,
      this.list,
    );
  }

  async load(): Promise<void> {
    const generation = ++this.generation;
    const status = this.statusSelect.value as EditStatus | "";
    try {
      const edits = await rpc("list_history", {
        filter: {
          document_id: this.documentSelect.value || null,
          agent: this.agentSelect.value || null,
          status: status ? [status] : null,
          limit: null,
        },
      });
      if (generation !== this.generation) return;
      this.render(edits);
    } catch (error) {
      if (generation !== this.generation) return;
      this.list.replaceChildren(h("p", { class: "error", role: "alert" }, ...failureNodes(error)));
    }
  }

  render(edits: EditRecord[]): void {
    for (const edit of edits) {
      this.documents.set(edit.document_id, documentName(edit));
      this.agents.add(edit.agent.name);
    }
    fillSelect(this.documentSelect, "All documents",
      [...this.documents].sort((a, b) => a[1].localeCompare(b[1])));
    fillSelect(this.agentSelect, "All agents", [...this.agents].sort().map((a) => [a, a]));
    if (edits.length === 0) {
      const filtered = this.documentSelect.value || this.agentSelect.value || this.statusSelect.value;
      // Not `.empty`: the end-to-end test waits for the first `#main .empty`, the pending screen's.
      this.list.replaceChildren(h("p", { class: "no-items" }, filtered ? "No edit matches these filters." : "No edit decided yet."));
      return;
    }
    // An entry whose status did not change (nor its save) stays as it is (focus, its Undo's
    // message).
    const keep = new Map<string, HTMLElement>();
    for (const el of this.list.querySelectorAll<HTMLElement>("[data-entry]")) keep.set(el.dataset.entry!, el);
    const newestFirst = [...edits].sort((a, b) => decidedOrCreated(b) - decidedOrCreated(a));
    this.list.replaceChildren(...newestFirst.map((edit) => keep.get(entryKey(edit)) ?? this.renderEntry(edit)));
  }

  private renderEntry(edit: EditRecord): HTMLElement {
    const titleId = `history-${edit.id}-title`;
    const status = statusLine("card-status");
    // Only an applied edit can be undone (an applying one may still end as failed or
    // conflict), and only when the service knows how to revert it.
    const undoButton = edit.status === "applied" && edit.undoable
      ? h("button", { type: "button", class: "secondary", "aria-describedby": titleId }, "Undo")
      : null;
    undoButton?.addEventListener("click", async () => {
      undoButton.disabled = true;
      showStatus(status, "Undoing…");
      try {
        await rpc("undo_edit", { id: edit.id });
        showPassing(this.notice, "Undid ", ...theEditOf(edit), ".");
        await this.load();
      } catch (error) {
        showError(status, error);
        undoButton.disabled = false;
      }
    });
    const field = (label: string, className: string, value: Node | string | null) =>
      value === null ? null : [h("dt", {}, label), h("dd", { class: className }, value)];
    return h("article", { class: "card history-entry", "aria-labelledby": titleId, "data-entry": entryKey(edit) },
      h("h3", { id: titleId },
        h("span", { class: `badge status-${edit.status}` }, statusLabel(edit)), " ",
        agentName(edit.agent.name),
        " on ",
        documentLabel(edit),
      ),
      outsideWindow(edit),
      h("dl", { class: "meta" },
        field("Reason", "reason", edit.reason?.trim() || "(none given)"),
        field("Tool", "tool", h("code", {}, edit.tool)),
        field("Asked", "asked", timeElement(edit.created_at)),
        field("Decided", "decided", edit.decided_at === null ? null : timeElement(edit.decided_at)),
        field("Saved in Docs", "saved", edit.saved_at === null ? null : timeElement(edit.saved_at)),
        field("By", "decided-by", edit.decided_by === null ? null : deciderLabel(edit.decided_by)),
        field("Approved", "approved-what", approvedWhat(edit)),
        field("Comment", "comment", edit.comment),
        // A rejection's error is the agent's copy of the comment, already shown.
        field("Error", "error", edit.status !== "rejected" && edit.error ? errorText(edit.error) : null),
        h("dt", {}, "Words"), renderWords(edit),
      ),
      ...renderPreview(edit, this.instance),
      undoButton && h("div", { class: "actions" }, undoButton),
      status,
    );
  }

  setOverview(overview: Overview): void {
    this.instance = overview.instance;
  }

  onEvent(event: ServiceEvent): void {
    if (event.type === "edit_changed" || event.type === "edits_saved" || event.type === "resync") void this.load();
  }
}
