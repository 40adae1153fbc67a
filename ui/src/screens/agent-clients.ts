// Named clients on the Connect agents screen: each agent client gets a token of its own, so
// its edits and its presence in documents carry the name the person gave it, and one client
// can be revoked alone. A new client's token is shown once, in its configurations.

import { agentConfigs } from "../configs";
import { clear, h, showStatus, statusLine, timeElement } from "../dom";
import { rpc } from "../rpc";
import type { AgentClient, NewAgentClient, Overview } from "../types";
import { renderConfigCard } from "./config-card";
import { showError } from "../failure";

export class AgentClientsSection {
  readonly root: HTMLElement;
  private list: HTMLElement;
  private added: HTMLElement;
  private nameInput: HTMLInputElement;
  private status: HTMLElement;
  /** The client whose Revoke was clicked once: a second click revokes it. */
  private confirming: string | null = null;
  private clients: AgentClient[] = [];

  constructor(private overview: () => Overview | null) {
    this.nameInput = h("input", {
      id: "client-name",
      type: "text",
      maxlength: 64,
      placeholder: "Claude Code (laptop)",
      autocomplete: "off",
    });
    this.list = h("ul", { class: "clients" });
    this.added = h("div", { class: "new-client", hidden: true });
    this.status = statusLine("form-status clients-status");
    this.root = h("section", { class: "named-clients", "aria-labelledby": "clients-title" },
      h("h3", { id: "clients-title" }, "Named clients"),
      h("p", { class: "note" }, "Give an agent a token of its own: its edits and its presence in documents then carry the name you give it, and you can revoke it alone."),
      h("form", {
        class: "add-client",
        onsubmit: (event: Event) => {
          event.preventDefault();
          void this.add();
        },
      },
        h("label", { for: "client-name" }, "Name"),
        this.nameInput,
        h("button", { type: "submit" }, "Add client"),
      ),
      this.added,
      this.list,
      this.status,
    );
  }

  async load(): Promise<void> {
    try {
      this.clients = await rpc("list_agent_clients");
      this.renderList();
    } catch (error) {
      showError(this.status, error);
    }
  }

  private async add(): Promise<void> {
    const name = this.nameInput.value.trim();
    if (!name) {
      showStatus(this.status, "Give the client a name, e.g. the agent and the machine.", true);
      this.nameInput.focus();
      return;
    }
    try {
      const added = await rpc("add_agent_client", { name });
      this.nameInput.value = "";
      this.showAdded(added);
      showStatus(this.status, `${added.client.name} added.`);
      await this.load();
    } catch (error) {
      showError(this.status, error);
    }
  }

  /** The new client's configurations, with its token: shown this once. */
  private showAdded(added: NewAgentClient): void {
    clear(this.added);
    const overview = this.overview();
    this.added.append(
      h("h4", {}, `Configurations for ${added.client.name}`),
      h("p", { class: "note" }, "Its token is shown this once: copy the configuration of that client now."),
    );
    if (overview) {
      for (const config of agentConfigs(overview, added.token)) {
        this.added.append(renderConfigCard(config, config.text, `client-${added.client.id}`));
      }
    }
    this.added.hidden = false;
  }

  private async revoke(client: AgentClient): Promise<void> {
    if (this.confirming !== client.id) {
      this.confirming = client.id;
      this.renderList();
      return;
    }
    this.confirming = null;
    try {
      const revoked = await rpc("revoke_agent_client", { id: client.id });
      showStatus(this.status, `${revoked.name} revoked: its token no longer works.`);
      await this.load();
    } catch (error) {
      showError(this.status, error);
    }
  }

  private renderList(): void {
    clear(this.list);
    for (const client of this.clients) {
      const revoked = client.revoked_at !== null;
      this.list.append(
        h("li", { class: revoked ? "client revoked" : "client" },
          h("span", { class: "client-name" }, client.name),
          " ",
          revoked
            ? h("span", { class: "when" }, "revoked ", timeElement(client.revoked_at!))
            : h("span", { class: "when" }, "added ", timeElement(client.created_at)),
          revoked
            ? null
            : h("button", {
              type: "button",
              class: "danger",
              "aria-label": this.confirming === client.id ? `Confirm: revoke ${client.name}` : `Revoke ${client.name}`,
              onclick: () => void this.revoke(client),
            }, this.confirming === client.id ? "Confirm revoke" : "Revoke"),
        ),
      );
    }
  }
}
