// Connect agents: one ready-to-copy configuration per MCP client.

import { agentConfigs } from "../configs";
import { clear, h } from "../dom";
import { copyText } from "../rpc";
import type { Overview } from "../types";

export class AgentsScreen {
  readonly root: HTMLElement;
  private body: HTMLElement;

  constructor() {
    this.body = h("div", { class: "configs" });
    this.root = h("section", { "aria-labelledby": "agents-title" },
      h("h2", { id: "agents-title" }, "Connect agents"),
      h("p", { class: "lead" }, "Paste one of these into your AI client. The token is a secret: it lets any local program use your documents through this app."),
      this.body,
    );
  }

  render(overview: Overview): void {
    clear(this.body);
    if (!overview.listening) {
      this.body.append(h("p", { class: "error", role: "alert" }, `The MCP endpoint is not running: ${overview.listen_error ?? "unknown reason"}`));
    }
    this.body.append(h("p", {}, "Endpoint: ", h("code", { class: "endpoint" }, overview.endpoint)));
    for (const config of agentConfigs(overview)) {
      const codeId = `config-${config.id}`;
      const status = h("span", { class: "copy-status", role: "status" });
      this.body.append(
        h("article", { class: "card config", "aria-labelledby": `${codeId}-title` },
          h("h3", { id: `${codeId}-title` }, config.client),
          h("p", { class: "where" }, "In ", config.where, ":"),
          h("pre", {}, h("code", { id: codeId }, config.text)),
          config.note ? h("p", { class: "note" }, config.note) : null,
          h("div", { class: "actions" },
            h("button", {
              type: "button",
              class: "secondary",
              "aria-describedby": `${codeId}-title`,
              onclick: async () => {
                try {
                  await copyText(config.text);
                  status.textContent = "Copied.";
                } catch {
                  status.textContent = "Copy failed: select the text and copy it.";
                }
              },
            }, `Copy for ${config.client}`),
            status,
          ),
        ),
      );
    }
  }
}
