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
export function agentConfigs(overview: Pick<Overview, "endpoint" | "token" | "app_path" | "data_dir">, clientToken?: string): AgentConfig[] {
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
      id: "claude-code-fence",
      client: "Claude Code (fence off decisions)",
      where: "~/.claude/settings.json (merge into its permissions)",
      text: json(fenceRules(overview.data_dir)),
      note: "Agents with a shell run as you: these rules deny Claude Code the decision commands, the control routes and the files of Docs MCP's data directory. They raise the bar; the real fence is this app: while it runs, every decision asked from a terminal waits for your click here.",
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

/** Claude Code permission rules that keep a shell agent from deciding: no reading or
 * editing of the data directory (where the control token is), no decision commands, no
 * command naming the control token or a control route. */
export function fenceRules(dataDir: string): { permissions: { deny: string[] } } {
  // Claude Code reads a path rule starting with `//` as absolute.
  const dir = `//${dataDir.replace(/^\/+/, "").replace(/\/+$/, "")}/**`;
  return {
    permissions: {
      deny: [
        `Read(${dir})`,
        `Edit(${dir})`,
        "Bash(docs-mcp edits approve *)",
        "Bash(docs-mcp edits reject *)",
        "Bash(docs-mcp clients *)",
        "Bash(*control-token*)",
        "Bash(*/control/*)",
      ],
    },
  };
}
