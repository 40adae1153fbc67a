// One agent configuration as a card: which client, where it goes, the text (as shown: the
// token may be masked), and a button copying the text whole.

import type { AgentConfig } from "../configs";
import { h, showPassing, showStatus } from "../dom";
import { copyText } from "../rpc";

/** `idPrefix` keeps ids apart when several sets of configurations are on screen; `extra`:
 * more actions for this client (e.g. writing the configuration for it). */
export function renderConfigCard(config: AgentConfig, shown: string, idPrefix: string, extra: HTMLElement[] = []): HTMLElement {
  const codeId = `${idPrefix}-${config.id}`;
  const status = h("span", { class: "copy-status", role: "status" });
  return h("article", { class: "card config", "aria-labelledby": `${codeId}-title` },
    h("h3", { id: `${codeId}-title` }, config.client),
    h("p", { class: "where" }, "In ", config.where, ":"),
    h("pre", {}, h("code", { id: codeId }, shown)),
    config.note ? h("p", { class: "note" }, config.note) : null,
    h("div", { class: "actions" },
      h("button", {
        type: "button",
        class: "secondary",
        "aria-describedby": `${codeId}-title`,
        onclick: async () => {
          try {
            await copyText(config.text);
            showPassing(status, "Copied.");
          } catch {
            showStatus(status, "Copy failed: select the text and copy it.", true);
          }
        },
      }, `Copy for ${config.client}`),
      ...extra,
      status,
    ),
  );
}
