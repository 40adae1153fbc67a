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
 * (a stdio bridge then gets it through `DOCS_MCP_TOKEN`). Clients that start a program run this
 * app's binary as a stdio bridge named to this endpoint and data directory (`bridge_args`), so
 * a port of Settings or the demo's is reached; the others are given the endpoint itself. */
export function agentConfigs(
  overview: Pick<Overview, "endpoint" | "token" | "app_path" | "bridge_args" | "data_dir">,
  clientToken?: string,
): AgentConfig[] {
  const token = clientToken ?? overview.token ?? TOKEN_PLACEHOLDER;
  const bearer = `Bearer ${token}`;
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const env = clientToken ? { DOCS_MCP_TOKEN: clientToken } : undefined;
  const bridge = { command: overview.app_path, args: overview.bridge_args, ...(env ? { env } : {}) };
  const bridgeNote = clientToken
    ? "It starts this app's binary as a stdio bridge to the running app, with this client's token."
    : "It starts this app's binary as a stdio bridge to the running app; the bridge finds the token itself.";
  const tokenInput = `${SERVER_NAME}-token`;
  return [
    {
      id: "claude-desktop",
      client: "Claude Desktop",
      where: "claude_desktop_config.json (Settings → Developer → Edit Config)",
      text: json({ mcpServers: { [SERVER_NAME]: bridge } }),
      note: bridgeNote,
    },
    {
      id: "claude-code",
      client: "Claude Code",
      where: "a terminal (for every project of yours: --scope user)",
      text: `claude mcp add --transport http --scope user ${SERVER_NAME} ${overview.endpoint} --header "Authorization: ${bearer}"`,
    },
    {
      id: "claude-code-fence",
      client: "Claude Code (fence off decisions)",
      where: "~/.claude/settings.json (merge into its permissions)",
      text: json(fenceRules(overview.data_dir)),
      note: "Agents with a shell run as you: these rules deny Claude Code the decision commands, the control routes and the files of Docs MCP's data directory. They raise the bar; the real fence is this app: while it runs, every decision asked from a terminal waits for your click here.",
    },
    {
      id: "vscode",
      client: "VS Code",
      where: "your user configuration (Command Palette → MCP: Open User Configuration), not a workspace's .vscode/mcp.json",
      text: json({
        inputs: [
          { type: "promptString", id: tokenInput, description: "Docs MCP bearer token (Connect agents screen of the Docs MCP app)", password: true },
        ],
        servers: {
          [SERVER_NAME]: { type: "http", url: overview.endpoint, headers: { Authorization: `Bearer \${input:${tokenInput}}` } },
        },
      }),
      note: "VS Code asks for the token once (paste it from above) and keeps it in its secret storage: the file holds no secret.",
    },
    {
      id: "cursor",
      client: "Cursor",
      where: "~/.cursor/mcp.json",
      text: json({ mcpServers: { [SERVER_NAME]: bridge } }),
      note: bridgeNote,
    },
    {
      id: "windsurf",
      client: "Windsurf",
      where: "~/.codeium/windsurf/mcp_config.json",
      text: json({ mcpServers: { [SERVER_NAME]: bridge } }),
      note: bridgeNote,
    },
    {
      id: "zed",
      client: "Zed",
      where: "Zed's settings.json (zed: open settings), under context_servers",
      text: json({ context_servers: { [SERVER_NAME]: { ...bridge, env: env ?? {} } } }),
      note: bridgeNote,
    },
    {
      id: "codex",
      client: "Codex CLI",
      where: "~/.codex/config.toml",
      text: codexToml(overview.app_path, overview.bridge_args, env),
      note: bridgeNote,
    },
    {
      id: "gemini",
      client: "Gemini CLI",
      where: "~/.gemini/settings.json (merge into mcpServers)",
      text: json({ mcpServers: { [SERVER_NAME]: bridge } }),
      note: bridgeNote,
    },
  ];
}

/** Codex's `[mcp_servers.<name>]` table. TOML's basic strings and arrays of them read as
 * JSON's do: each value is written with `JSON.stringify`. */
function codexToml(command: string, args: string[], env?: Record<string, string>): string {
  const lines = [`[mcp_servers.${SERVER_NAME}]`, `command = ${JSON.stringify(command)}`, `args = ${JSON.stringify(args)}`];
  if (env) {
    lines.push("", `[mcp_servers.${SERVER_NAME}.env]`);
    for (const [key, value] of Object.entries(env)) lines.push(`${key} = ${JSON.stringify(value)}`);
  }
  return lines.join("\n");
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
