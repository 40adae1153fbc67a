// Connect agents: one ready-to-copy configuration per MCP client (the token masked until
// Reveal; Copy copies it whole), and a new token on demand.

import { agentConfigs, SERVER_NAME } from "../configs";
import { clear, h, showStatus, statusLine } from "../dom";
import { errorText, rpc } from "../rpc";
import type { Overview } from "../types";
import { AgentClientsSection } from "./agent-clients";
import { renderConfigCard } from "./config-card";
import { showError } from "../failure";

/** `text` with the token shown as dots and its last four characters (enough to tell two
 * tokens apart, not to use one). */
export function maskToken(text: string, token: string | null): string {
  if (!token) return text;
  return text.split(token).join(`${"•".repeat(8)}${token.slice(-4)}`);
}

export class AgentsScreen {
  readonly root: HTMLElement;
  private body: HTMLElement;
  private revealed = false;
  private overview: Overview | null = null;
  private regenerateButton: HTMLButtonElement;
  private confirmation: HTMLElement;
  private tokenStatus: HTMLElement;
  private clients: AgentClientsSection;
  private clientsLoaded = false;

  constructor(private onOverview: (overview: Overview) => void) {
    this.body = h("div", { class: "configs" });
    this.regenerateButton = h("button", {
      type: "button",
      class: "danger",
      "aria-expanded": "false",
      "aria-controls": "regenerate-confirmation",
      onclick: () => this.confirm(this.confirmation.hidden),
    }, "Regenerate token…");
    this.confirmation = h("div", { id: "regenerate-confirmation", class: "confirmation", hidden: true },
      h("p", {}, "Agents configured with the current token stop working until you paste their new configuration. Regenerate it?"),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "danger", onclick: () => void this.regenerate() }, "Regenerate"),
        h("button", { type: "button", class: "secondary", onclick: () => this.confirm(false) }, "Cancel"),
      ),
    );
    this.tokenStatus = statusLine("form-status token-status");
    this.clients = new AgentClientsSection(() => this.overview);
    this.root = h("section", { "aria-labelledby": "agents-title" },
      h("h2", { id: "agents-title" }, "Connect agents"),
      h("p", { class: "lead" }, "Paste one of these into your AI client. The token is a secret: it lets any local program use your documents through this app."),
      this.body,
      this.clients.root,
      h("section", { class: "token", "aria-labelledby": "token-title" },
        h("h3", { id: "token-title" }, "Token"),
        h("p", { class: "note" }, "If the token leaked, make a new one; every agent then needs its configuration again."),
        h("div", { class: "actions" }, this.regenerateButton),
        this.confirmation,
        this.tokenStatus,
      ),
    );
  }

  private reveal(revealed: boolean): void {
    this.revealed = revealed;
    if (this.overview) this.render(this.overview);
    this.body.querySelector<HTMLElement>("button.reveal")?.focus();
  }

  private confirm(open: boolean): void {
    this.confirmation.hidden = !open;
    this.regenerateButton.setAttribute("aria-expanded", String(open));
    if (open) this.confirmation.querySelector("button")!.focus();
    else this.regenerateButton.focus();
  }

  async regenerate(): Promise<void> {
    try {
      const overview = await rpc("regenerate_token");
      this.confirm(false);
      showStatus(this.tokenStatus, "New token made: copy the configurations above into your agents again.");
      this.onOverview(overview);
    } catch (error) {
      showError(this.tokenStatus, error);
    }
  }

  render(overview: Overview): void {
    this.overview = overview;
    if (!this.clientsLoaded) {
      this.clientsLoaded = true;
      void this.clients.load();
    }
    clear(this.body);
    if (!overview.listening) {
      this.body.append(h("p", { class: "error", role: "alert" }, `The MCP endpoint is not running: ${overview.listen_error ?? "unknown reason"}`));
    }
    this.body.append(h("p", {}, "Endpoint: ", h("code", { class: "endpoint" }, overview.endpoint)));
    if (overview.token) {
      this.body.append(h("div", { class: "actions" },
        h("button", {
          type: "button",
          class: "secondary reveal",
          "aria-pressed": String(this.revealed),
          onclick: () => this.reveal(!this.revealed),
        }, this.revealed ? "Hide the token" : "Reveal the token"),
      ));
    }
    for (const config of agentConfigs(overview)) {
      const shown = this.revealed ? config.text : maskToken(config.text, overview.token);
      const extra = config.id === "claude-desktop" ? this.addToClaudeDesktop() : [];
      this.body.append(renderConfigCard(config, shown, "config", extra));
    }
  }

  /** A button writing the Claude Desktop configuration into Claude Desktop's own file, and
   * where it says what it did. */
  private addToClaudeDesktop(): HTMLElement[] {
    const said = h("p", { class: "note claude-desktop-status", role: "status" });
    const button = h("button", {
      type: "button",
      class: "primary add-to-claude-desktop",
      onclick: async () => {
        button.disabled = true;
        try {
          const added = await rpc("add_to_claude_desktop", { server_name: SERVER_NAME });
          said.classList.remove("error");
          said.textContent = `Added to ${added.path}${added.replaced ? " (in place of an older entry)" : ""}${added.backup ? `; the previous file is kept as ${added.backup}` : ""}. Restart Claude Desktop to use it.`;
        } catch (error) {
          said.classList.add("error");
          said.textContent = errorText(error);
        } finally {
          button.disabled = false;
        }
      },
    }, "Add to Claude Desktop");
    return [button, said];
  }
}
