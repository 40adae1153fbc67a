// Ready-to-copy configurations of MCP clients, filled with this app's endpoint and token.

import type { Overview } from "./types";

export interface AgentConfig {
  id: string;
  client: string;
  /** Where it goes. */
  where: string;
  text: string;
  note?: string;
}

/** The server's name in the clients' configurations. */
export const SERVER_NAME = "lasuite-docs";

const TOKEN_PLACEHOLDER = "<token: see `docs-mcp token --show`>";

/** The configurations with the shared token, or with `clientToken`, a configured client's own
 * (the bridge then gets it through `DOCS_MCP_TOKEN`). */
export function agentConfigs(overview: Pick<Overview, "endpoint" | "token" | "app_path">, clientToken?: string): AgentConfig[] {
  const token = clientToken ?? overview.token ?? TOKEN_PLACEHOLDER;
  const bearer = `Bearer ${token}`;
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const bridge = clientToken
    ? { command: overview.app_path, args: ["bridge"], env: { DOCS_MCP_TOKEN: clientToken } }
    : { command: overview.app_path, args: ["bridge"] };
  return [
    {
      id: "claude-desktop",
      client: "Claude Desktop",
      where: "claude_desktop_config.json (Settings → Developer → Edit Config)",
      text: json({ mcpServers: { [SERVER_NAME]: bridge } }),
      note: clientToken
        ? "Claude Desktop starts this app's binary as a stdio bridge to the running app, with this client's token."
        : "Claude Desktop starts this app's binary as a stdio bridge to the running app; the bridge finds the token itself.",
    },
    {
      id: "claude-code",
      client: "Claude Code",
      where: "a terminal",
      text: `claude mcp add --transport http ${SERVER_NAME} ${overview.endpoint} --header "Authorization: ${bearer}"`,
    },
    {
      id: "cursor",
      client: "Cursor",
      where: "~/.cursor/mcp.json",
      text: json({ mcpServers: { [SERVER_NAME]: { url: overview.endpoint, headers: { Authorization: bearer } } } }),
    },
    {
      id: "vscode",
      client: "VS Code",
      where: ".vscode/mcp.json (or the user settings' mcp section)",
      text: json({ servers: { [SERVER_NAME]: { type: "http", url: overview.endpoint, headers: { Authorization: bearer } } } }),
    },
  ];
}
