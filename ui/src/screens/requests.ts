// Decisions asked from outside the window — `docs-mcp edits approve` in a terminal, or any
// program holding the control token — shown above every screen. Nothing asked that way
// happens until the person clicks here; the service records the decision as made in the
// window. Who asked is what the service found (the program, whether it ran in a terminal),
// never what the asker said.

import { h, showStatus, timeElement } from "../dom";
import { rpc } from "../rpc";
import type { Action, DecisionRequest, GrantedRequest, ServiceEvent } from "../types";
import { showError } from "../failure";

/** The button that carries a request out, by what it asks. */
function actionLabel(action: Action): string {
  switch (action.kind) {
    case "approve":
      return action.parts === null ? "Approve" : "Approve these parts";
    case "reject":
      return "Reject";
    case "set_policy":
      return "Change the policy";
    case "unpause":
      return "Unpause agents";
    case "add_client":
      return "Add the client";
    case "revoke_client":
      return "Revoke the client";
  }
}

/** "`docs-mcp` (process 412), in a terminal" — or why nothing is known. */
export function askerText(request: DecisionRequest): string {
  const asker = request.asker;
  if (!asker.known) return "a program Docs MCP could not identify";
  if (asker.pid === null) return "a program of another user of this computer";
  const program = asker.program ?? "a program";
  const where = asker.terminal === null ? "without a terminal (a script, or an agent's shell)" : `in a terminal (${asker.terminal})`;
  return `${program} (process ${asker.pid}), ${where}`;
}

export class RequestsBanner {
  readonly root: HTMLElement;
  private list: HTMLElement;
  private status: HTMLElement;

  constructor() {
    this.list = h("ul", { class: "request-list" });
    this.status = h("p", { class: "status", role: "status", "aria-live": "polite" });
    this.root = h("section", { class: "requests-banner", "aria-label": "Decisions asked from outside this window", hidden: true },
      h("h2", {}, "Asked from outside this window"),
      h("p", { class: "explain" }, "A program asked Docs MCP to make these decisions. Nothing happens unless you click here: if you did not ask, decline."),
      this.list,
      this.status,
    );
  }

  async load(): Promise<void> {
    try {
      this.render(await rpc("list_decision_requests"));
    } catch (error) {
      showError(this.status, error);
    }
  }

  onEvent(event: ServiceEvent): void {
    if (event.type === "decision_requests_changed" || event.type === "resync") void this.load();
  }

  private render(requests: DecisionRequest[]): void {
    this.root.hidden = requests.length === 0 && this.status.textContent === "";
    this.list.replaceChildren(...requests.map((r) => this.item(r)));
  }

  private item(request: DecisionRequest): HTMLElement {
    const grant = h("button", { type: "button", class: "primary" }, actionLabel(request.action));
    const decline = h("button", { type: "button", class: "secondary" }, "Decline");
    // A held or repeated key never decides (the first press disables both buttons).
    for (const b of [grant, decline]) {
      b.addEventListener("keydown", (event) => {
        if (event.repeat) event.preventDefault();
      });
    }
    grant.addEventListener("click", () => void this.settle(request, true, [grant, decline]));
    decline.addEventListener("click", () => void this.settle(request, false, [grant, decline]));
    return h("li", { class: "request", "data-request": request.id },
      h("p", { class: "summary" }, request.summary),
      h("p", { class: "asker" }, "Asked by ", h("strong", {}, askerText(request)), ", ", timeElement(request.asked_at)),
      h("div", { class: "actions" }, grant, decline),
    );
  }

  private async settle(request: DecisionRequest, grant: boolean, buttons: HTMLButtonElement[]): Promise<void> {
    for (const b of buttons) b.disabled = true;
    showStatus(this.status, "");
    try {
      if (grant) {
        const granted = await rpc("grant_decision_request", { id: request.id });
        showStatus(this.status, outcomeText(granted));
      } else {
        await rpc("decline_decision_request", { id: request.id });
        showStatus(this.status, `Declined: ${request.summary}. Nothing was done.`);
      }
    } catch (error) {
      showError(this.status, error);
    }
    await this.load();
  }
}

/** What a granted request did, for the person. A new client's token is shown this once. */
export function outcomeText(granted: GrantedRequest): string {
  const outcome = granted.outcome;
  switch (outcome.kind) {
    case "edit":
      return `Done: the edit is ${outcome.value.status}.`;
    case "policy":
      return "Done: the policy is changed.";
    case "unpaused":
      return "Done: agents are no longer paused.";
    case "client_added":
      return `Done: client ${outcome.value.client.name} added. Its token (shown this once): ${outcome.value.token}`;
    case "client_revoked":
      return `Done: client ${outcome.value.name} revoked.`;
  }
}
