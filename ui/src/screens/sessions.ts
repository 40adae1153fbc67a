// Sessions: the documents the service has open, live.

import { clear, h, nameLabel, showStatus, statusLine, timeElement } from "../dom";
import { rpc } from "../rpc";
import type { ServiceEvent, SessionRow } from "../types";
import { failureNodes, showError } from "../failure";

export function sessionState(row: SessionRow): string {
  if (row.error) return `Ended: ${row.error}`;
  if (!row.connected) return "Reconnecting";
  return row.read_only ? "Connected (read-only)" : "Connected";
}

const COLUMNS = ["Document", "Agents", "People in the room", "State", "Agents' edits", "Not yet saved in Docs", "Open comments", "Last activity", "Actions"];

/** Names, comma-separated (each clamped), or a dash. */
function names(list: string[], className: string): (Node | string)[] | string {
  return list.length ? list.flatMap((name, i) => [i ? ", " : "", nameLabel(name, className)]) : "—";
}

/** An edit count as a person reads it: "3 applied, 1 waiting". */
export function editCounts(row: SessionRow): string {
  const counts = [
    row.edits_applied ? `${row.edits_applied} applied` : null,
    row.edits_pending ? `${row.edits_pending} waiting for you` : null,
  ].filter((c) => c !== null);
  return counts.length ? counts.join(", ") : "None";
}

export class SessionsScreen {
  readonly root: HTMLElement;
  private body: HTMLElement;
  private status: HTMLElement;

  constructor() {
    this.body = h("div", { "aria-live": "polite" });
    this.status = statusLine("form-status");
    this.root = h("section", { "aria-labelledby": "sessions-title" },
      h("h2", { id: "sessions-title" }, "Sessions"),
      h("p", { class: "lead" }, "Documents agents have open, live in their collaboration rooms, beside the people editing them. Idle sessions close by themselves."),
      this.status,
      this.body,
    );
  }

  async load(): Promise<void> {
    try {
      this.render(await rpc("list_sessions"));
    } catch (error) {
      clear(this.body);
      this.body.append(h("p", { class: "error", role: "alert" }, ...failureNodes(error)));
    }
  }

  render(rows: SessionRow[]): void {
    clear(this.body);
    if (rows.length === 0) {
      // Not `.empty`: the end-to-end test waits for the first `#main .empty`, the pending screen's.
      this.body.append(h("p", { class: "no-items" }, "No document is open."));
      return;
    }
    // Scrolls sideways in a narrow window instead of overflowing it.
    this.body.append(h("div", { class: "table-scroll" },
      h("table", {},
        h("caption", { class: "visually-hidden" }, "Open documents"),
        h("thead", {}, h("tr", {}, ...COLUMNS.map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, ...rows.map((row) => this.renderRow(row))),
      ),
    ));
  }

  private renderRow(row: SessionRow): HTMLElement {
    const titleId = `session-${row.document_id}-title`;
    const title = row.title?.trim() || row.document_id;
    return h("tr", { "data-document-id": row.document_id },
      h("th", { scope: "row", id: titleId }, title),
      // The agents that used it here (their names as the person gave them, or self-reported).
      h("td", { class: "agents" }, names(row.agents, "agent")),
      // Names in the room's awareness (self-reported): clamped text.
      h("td", {}, names(row.collaborators, "collaborator")),
      h("td", {}, sessionState(row)),
      h("td", {}, editCounts(row)),
      // Changes made here that Docs has not stored yet (sent, or waiting to be saved).
      h("td", {}, String(row.pending_acks + row.pending_saves)),
      // Unresolved comment threads, as Docs lists them ("—": Docs did not say).
      h("td", { class: "open-threads" }, row.open_threads === null ? "—" : String(row.open_threads)),
      h("td", {}, timeElement(row.last_activity)),
      h("td", {}, h("button", {
        type: "button",
        class: "secondary",
        "aria-describedby": titleId,
        onclick: () => void this.disconnect(row.document_id, title),
      }, "Disconnect")),
    );
  }

  async disconnect(documentId: string, title: string): Promise<void> {
    try {
      await rpc("disconnect_session", { document_id: documentId });
      showStatus(this.status, `Disconnected from ${title}.`);
      await this.load();
    } catch (error) {
      showError(this.status, error);
    }
  }

  onEvent(event: ServiceEvent): void {
    // Edits change the applied/pending counts.
    const reload = ["sessions_changed", "document_changed", "edit_changed", "resync"];
    if (reload.includes(event.type)) {
      void this.load();
    }
  }
}
