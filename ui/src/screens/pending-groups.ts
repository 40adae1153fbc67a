// Group decisions: the edits of one agent, or of one document, approved or rejected together,
// with their progress and Stop while they run.

import { h, nameLabel, showStatus } from "../dom";
import { agentName, documentName } from "../preview";
import type { Decision, EditRecord } from "../types";
import { rejectForm } from "./pending-card";
import { showError } from "../failure";

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
export function groupLabel(group: EditGroup): (Node | string)[] {
  return group.by === "agent" ? ["by ", agentName(group.name)] : ["to ", nameLabel(group.name, "document")];
}

export type DecideGroup = (group: EditGroup, decision: Decision, comment: string | null) => Promise<void>;

/** Numbers the toolbars' element ids (agent names may hold any character). */
let groupCount = 0;

/** The toolbar of one group: Approve all (n), Reject all (n) with an optional comment, and
 * while its decision runs, how far it got and Stop. The counts are those of the ids a click
 * sends: the group's cards as rendered. */
export class GroupControls {
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
        showError(this.status, error);
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
