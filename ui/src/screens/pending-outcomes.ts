// What became of a decision, as the Pending edits screen tells it.

import { theEditOf } from "../preview";
import { errorClause } from "../rpc";
import type { Decision, EditRecord, EditStatus, GroupDecision } from "../types";
import { type EditGroup, groupLabel } from "./pending-groups";

/** A line of the screen's notice; `problem`: an approved edit that is not in the document. */
export interface NoticeLine {
  parts: (Node | string)[];
  problem?: boolean;
}

/** An approved edit that ended as a conflict or failed, and why (the record's error). */
function notApplied(edit: EditRecord): NoticeLine {
  const what = edit.status === "conflict" ? " conflicts with a change made to the document since its preview" : " failed";
  const why = edit.error ? `: ${errorClause(edit.error)}` : ".";
  return { problem: true, parts: ["Not applied: ", ...theEditOf(edit), what, why] };
}

/** An applied edit is in the document; until a save holds it, Docs does not have it yet. */
const NOT_SAVED_YET = " Not yet saved in Docs: History shows when it is.";

/** What became of an approval, as `approve_edit` answered. */
export function approvalOutcome(edit: EditRecord): NoticeLine {
  switch (edit.status) {
    case "applied": {
      const saved = edit.saved_at === null ? NOT_SAVED_YET : "";
      if (edit.approved_text) return { parts: ["Applied your text in place of ", ...theEditOf(edit), "; the agent is told.", saved] };
      if (edit.approved_parts) {
        const of = `${edit.approved_parts.length} of ${edit.parts?.length ?? "its"} parts of `;
        return { parts: ["Applied ", of, ...theEditOf(edit), "; the agent is told which.", saved] };
      }
      return { parts: ["Applied ", ...theEditOf(edit), ".", saved] };
    }
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
      return { parts: ["Docs confirmed ", ...theEditOf(edit), ": it is in the document.", NOT_SAVED_YET] };
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
  withdrawn: ["withdrawn by its agent", "withdrawn by their agents"],
  pending: ["still pending", "still pending"],
};

/** What became of a group decision: a summary, then each edit not applied and why, each one
 * deciding failed for (it still waits) and why, those decided elsewhere meanwhile, and those
 * a Stop left pending (`leftPending`). `named`: the edits as the cards showed them. */
export function groupOutcome(
  group: EditGroup,
  decision: Decision,
  outcome: GroupDecision,
  leftPending: number,
  named: (id: string) => EditRecord | undefined,
): NoticeLine[] {
  const decided = outcome.decided;
  const skipped = outcome.elsewhere.length;
  const stopped: NoticeLine[] = leftPending > 0
    ? [{ parts: [`Stopped: ${plural(leftPending, "edit was", "edits were")} left pending.`] }]
    : [];
  const failed: NoticeLine[] = outcome.failed.map(({ id, error }) => {
    const edit = named(id);
    return { problem: true, parts: ["Not decided, still waiting: ", ...(edit ? theEditOf(edit) : [`edit ${id}`]), `: ${errorClause(error)}`] };
  });
  const elsewhere: NoticeLine[] = skipped > 0
    ? [{ parts: [`${plural(skipped, "edit was", "edits were")} already decided elsewhere, and left as ${skipped === 1 ? "it was" : "they were"}.`] }]
    : [];
  if (decided.length === 0) {
    if (leftPending > 0) return [{ parts: [`Stopped before any edit was decided: ${plural(leftPending, "edit stays", "edits stay")} pending.`] }, ...failed, ...elsewhere];
    if (failed.length > 0) return [{ problem: true, parts: [`Nothing decided: ${plural(failed.length, "edit", "edits")} could not be.`] }, ...failed, ...elsewhere];
    return [{ parts: ["Nothing decided: these edits were already decided elsewhere."] }];
  }
  const edits = plural(decided.length, "edit", "edits");
  if (decision === "reject") {
    return [{ parts: [`Rejected ${edits} `, ...groupLabel(group), "."] }, ...failed, ...stopped, ...elsewhere];
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
  const unsaved = decided.filter((e) => e.status === "applied" && e.saved_at === null).length;
  if (unsaved > 0) {
    const them = unsaved === 1 ? "it is" : "they are";
    lines.push({ parts: [`${plural(unsaved, "applied edit is", "applied edits are")} not yet saved in Docs: History shows when ${them}.`] });
  }
  if (applying > 0) {
    lines.push({ parts: [applying === 1
      ? "Docs has not confirmed one of them yet: it will be saved as soon as the instance answers."
      : `Docs has not confirmed ${applying} of them yet: they will be saved as soon as the instance answers.`] });
  }
  lines.push(...decided.filter((e) => e.status === "conflict" || e.status === "failed").map(notApplied));
  return [...lines, ...failed, ...stopped, ...elsewhere];
}
