// Sessions: the documents the service has open, live.

import { clear, formatTime, h } from "../dom";
import { rpc, toRpcError } from "../rpc";
import type { ServiceEvent, SessionRow } from "../types";

export function sessionState(row: SessionRow): string {
  if (row.error) return `Ended: ${row.error}`;
  if (!row.connected) return "Reconnecting";
  return row.read_only ? "Connected (read-only)" : "Connected";
}

export class SessionsScreen {
  readonly root: HTMLElement;
  private body: HTMLElement;

  constructor() {
    this.body = h("div", { "aria-live": "polite" });
    this.root = h("section", { "aria-labelledby": "sessions-title" },
      h("h2", { id: "sessions-title" }, "Sessions"),
      h("p", { class: "lead" }, "Documents agents have open, live in their collaboration rooms. Idle sessions close by themselves."),
      this.body,
    );
  }

  async load(): Promise<void> {
    try {
      this.render(await rpc("list_sessions"));
    } catch (error) {
      const e = toRpcError(error);
      clear(this.body);
      this.body.append(h("p", { class: "error", role: "alert" }, `${e.message} — ${e.hint}`));
    }
  }

  render(rows: SessionRow[]): void {
    clear(this.body);
    if (rows.length === 0) {
      this.body.append(h("p", { class: "empty" }, "No document is open."));
      return;
    }
    this.body.append(
      h("table", {},
        h("caption", { class: "visually-hidden" }, "Open documents"),
        h("thead", {}, h("tr", {},
          ...["Document", "State", "Collaborators", "Unsaved writes", "Last activity"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, ...rows.map((row) => h("tr", { "data-document-id": row.document_id },
          h("th", { scope: "row" }, row.title?.trim() || row.document_id),
          h("td", {}, sessionState(row)),
          h("td", {}, row.collaborators.length ? row.collaborators.join(", ") : "—"),
          h("td", {}, String(row.pending_acks + row.pending_saves)),
          h("td", {}, formatTime(row.last_activity)),
        ))),
      ),
    );
  }

  onEvent(event: ServiceEvent): void {
    if (event.type === "sessions_changed" || event.type === "document_changed" || event.type === "resync") {
      void this.load();
    }
  }
}
