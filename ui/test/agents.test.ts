import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentConfigs, fenceRules } from "../src/configs";
import { AgentsScreen, maskToken } from "../src/screens/agents";
import { overview } from "./fixtures";
import { button, failure, mockCommands, texts } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

describe("agent configurations", () => {
  const demo = {
    ...overview,
    endpoint: "http://127.0.0.1:7659/mcp",
    bridge_args: ["bridge", "--url", "http://127.0.0.1:7659/mcp", "--data-dir", "/home/ada/.local/share/lasuite-docs-mcp/demo"],
  };
  const bridge = { command: "/usr/bin/docs-mcp-app", args: demo.bridge_args };

  /** Codex's TOML, read as TOML reads these lines: tables, and `key = value` with basic
   * strings and arrays of them (JSON's syntax). */
  function readToml(text: string): Record<string, Record<string, unknown>> {
    const tables: Record<string, Record<string, unknown>> = {};
    let table = "";
    for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
      const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
      if (header) {
        table = header[1];
        tables[table] = {};
        continue;
      }
      const pair = /^([A-Za-z0-9_-]+) = (.+)$/.exec(line);
      expect(pair, line).not.toBeNull();
      tables[table][pair![1]] = JSON.parse(pair![2]);
    }
    return tables;
  }

  it("point every client at the running endpoint and data directory, the demo's too", () => {
    const configs = Object.fromEntries(agentConfigs(demo).map((c) => [c.id, c.text]));
    expect(Object.keys(configs)).toEqual([
      "claude-desktop", "claude-code", "claude-code-fence", "vscode", "cursor", "windsurf", "zed", "codex", "gemini",
    ]);
    expect(JSON.parse(configs["claude-desktop"])).toEqual({ mcpServers: { "lasuite-docs": bridge } });
    expect(configs["claude-code"]).toBe(
      'claude mcp add --transport http --scope user lasuite-docs http://127.0.0.1:7659/mcp --header "Authorization: Bearer tok_123"',
    );
    expect(JSON.parse(configs.vscode)).toEqual({
      inputs: [
        { type: "promptString", id: "lasuite-docs-token", description: "Docs MCP bearer token (Connect agents screen of the Docs MCP app)", password: true },
      ],
      servers: {
        "lasuite-docs": { type: "http", url: "http://127.0.0.1:7659/mcp", headers: { Authorization: "Bearer ${input:lasuite-docs-token}" } },
      },
    });
    // No secret in VS Code's file: the token is asked for.
    expect(configs.vscode).not.toContain("tok_123");
    expect(JSON.parse(configs.cursor)).toEqual({ mcpServers: { "lasuite-docs": bridge } });
    expect(JSON.parse(configs.windsurf)).toEqual({ mcpServers: { "lasuite-docs": bridge } });
    expect(JSON.parse(configs.zed)).toEqual({ context_servers: { "lasuite-docs": { ...bridge, env: {} } } });
    expect(readToml(configs.codex)).toEqual({ "mcp_servers.lasuite-docs": bridge });
    expect(JSON.parse(configs.gemini)).toEqual({ mcpServers: { "lasuite-docs": bridge } });
  });

  it("give a configured client's token to its bridge, never the shared one", () => {
    const configs = Object.fromEntries(agentConfigs(demo, "tok_own").map((c) => [c.id, c.text]));
    const own = { ...bridge, env: { DOCS_MCP_TOKEN: "tok_own" } };
    expect(JSON.parse(configs["claude-desktop"])).toEqual({ mcpServers: { "lasuite-docs": own } });
    expect(JSON.parse(configs.zed)).toEqual({ context_servers: { "lasuite-docs": own } });
    expect(readToml(configs.codex)).toEqual({
      "mcp_servers.lasuite-docs": bridge,
      "mcp_servers.lasuite-docs.env": { DOCS_MCP_TOKEN: "tok_own" },
    });
    expect(configs["claude-code"]).toContain("Bearer tok_own");
    for (const text of Object.values(configs)) expect(text).not.toContain("tok_123");
  });
});

/** Whether a Claude Code `Bash(…)` rule matches a command, as its permissions page
 * describes the pattern: `*` matches any run of characters, spaces included; a trailing ` *`
 * also matches the bare command. */
function bashRuleMatches(rule: string, command: string): boolean {
  const pattern = rule.slice("Bash(".length, -1);
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  const optionalTail = escaped.endsWith(" .*") ? `${escaped.slice(0, -3)}( .*)?` : escaped;
  return new RegExp(`^${optionalTail}$`, "s").test(command);
}

describe("fencing a shell agent off", () => {
  const dataDir = "/home/ada/.local/share/lasuite-docs-mcp";
  const rules = fenceRules(dataDir).permissions.deny;
  const denied = (command: string) => rules.some((r) => r.startsWith("Bash(") && bashRuleMatches(r, command));

  it("denies reading and editing the data directory, by its absolute path", () => {
    expect(rules.slice(0, 2)).toEqual([`Read(/${dataDir}/**)`, `Edit(/${dataDir}/**)`]);
  });

  it.each([
    "docs-mcp edits approve 0b5e6b7e-1f6a-4a8e-9a55-5d1f6f0d2c11",
    "docs-mcp edits reject 0b5e6b7e --comment ok",
    "docs-mcp clients add Sneaky",
    `cat ${dataDir}/control-token`,
    `curl -s -X POST -H "Authorization: Bearer $(cat ~/.local/share/lasuite-docs-mcp/control-token)" http://127.0.0.1:7658/control/edits/1/approve`,
    "curl -X POST http://127.0.0.1:7658/control/pause -d '{\"paused\":false}'",
    "curl -X POST http://localhost:7658/control/edits/1/approve",
    "curl -X PUT http://[::1]:7700/control/policies -d '{}'",
  ])("denies %s", (command) => {
    expect(denied(command)).toBe(true);
  });

  it.each(["docs-mcp edits list", "docs-mcp token", "curl http://127.0.0.1:7658/health"])("lets %s through", (command) => {
    expect(denied(command)).toBe(false);
  });

  it("is offered with the other configurations, filled in", () => {
    const fence = agentConfigs(overview).find((c) => c.id === "claude-code-fence")!;
    expect(JSON.parse(fence.text)).toEqual(fenceRules(overview.data_dir));
  });
});

describe("regenerating the token", () => {
  function mount() {
    const screen: AgentsScreen = new AgentsScreen((o) => screen.render(o));
    document.body.append(screen.root);
    screen.render(overview);
    return screen;
  }

  it("asks first; Cancel calls nothing", () => {
    const calls = mockCommands({});
    const screen = mount();
    const regenerate = button(screen.root, "Regenerate token…");
    regenerate.click();
    expect(regenerate.getAttribute("aria-expanded")).toBe("true");
    expect(screen.root.querySelector("#regenerate-confirmation p")!.textContent).toBe(
      "Agents configured with the current token stop working until you paste their new configuration. Regenerate it?",
    );
    button(screen.root, "Cancel").click();
    expect(screen.root.querySelector<HTMLElement>("#regenerate-confirmation")!.hidden).toBe(true);
    expect(calls).toEqual([]);
  });

  it("sends regenerate_token once confirmed and shows the new token in the configurations", async () => {
    const calls = mockCommands({ regenerate_token: () => ({ ...overview, token: "tok_456" }) });
    const screen = mount();
    button(screen.root, "Regenerate token…").click();
    button(screen.root, "Regenerate").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".token-status")!.textContent).toBe(
      "New token made: copy the configurations above into your agents again.",
    ));
    expect(calls).toEqual([["regenerate_token", {}]]);
    expect(screen.root.querySelector("#config-claude-code")!.textContent).toBe(
      'claude mcp add --transport http --scope user lasuite-docs http://127.0.0.1:7658/mcp --header "Authorization: Bearer ••••••••_456"',
    );
    button(screen.root, "Reveal the token").click();
    expect(screen.root.querySelector("#config-claude-code")!.textContent).toBe(
      'claude mcp add --transport http --scope user lasuite-docs http://127.0.0.1:7658/mcp --header "Authorization: Bearer tok_456"',
    );
    expect(screen.root.querySelector<HTMLElement>("#regenerate-confirmation")!.hidden).toBe(true);
  });

  it("shows a refused regeneration's message and hint", async () => {
    mockCommands({ regenerate_token: () => failure("KEYRING", "the keyring refused the new token", "Unlock the keyring and retry.") });
    const screen = mount();
    await screen.regenerate();
    expect(screen.root.querySelector(".token-status.error")!.textContent).toBe("The keyring refused the new token — Unlock the keyring and retry.");
    // The configurations keep the old token.
    expect(screen.root.querySelector("#config-claude-code")!.textContent).toContain("Bearer ••••••••_123");
  });
});

describe("the token on screen", () => {
  const token = "tok_abcdefghijklmnopqrstuvwxyz0123456789";

  it("is masked in every configuration until Reveal, and Copy copies it whole", async () => {
    mockCommands({});
    const copied: string[] = [];
    Object.defineProperty(navigator, "clipboard", { value: { writeText: async (text: string) => void copied.push(text) }, configurable: true });
    const screen = new AgentsScreen(() => {});
    document.body.append(screen.root);
    screen.render({ ...overview, token });
    const shown = [...screen.root.querySelectorAll("pre code")].map((c) => c.textContent!);
    expect(shown.some((text) => text.includes("••••••••6789"))).toBe(true);
    expect(shown.every((text) => !text.includes(token))).toBe(true);
    const reveal = button(screen.root, "Reveal the token");
    expect(reveal.getAttribute("aria-pressed")).toBe("false");
    button(screen.root, "Copy for Claude Code").click();
    await vi.waitFor(() => expect(copied).toHaveLength(1));
    expect(copied[0]).toContain(`Bearer ${token}`);
    reveal.click();
    expect(screen.root.querySelector("#config-claude-code")!.textContent).toContain(`Bearer ${token}`);
    const hide = button(screen.root, "Hide the token");
    expect(hide.getAttribute("aria-pressed")).toBe("true");
    expect(document.activeElement).toBe(hide);
    hide.click();
    expect(screen.root.querySelector("#config-claude-code")!.textContent).not.toContain(token);
  });

  it("masks every occurrence, and nothing without a token", () => {
    expect(maskToken("a tok_1234 b tok_1234", "tok_1234")).toBe("a ••••••••1234 b ••••••••1234");
    expect(maskToken("no token here", null)).toBe("no token here");
  });
});

describe("named clients", () => {
  const laptop = { id: "c1", name: "Claude Code (laptop)", created_at: 1795000000000, revoked_at: null };

  function mount() {
    const screen: AgentsScreen = new AgentsScreen((o) => screen.render(o));
    document.body.append(screen.root);
    screen.render(overview);
    return screen;
  }

  it("adds a client and shows its configurations with its own token, once", async () => {
    let listed = [] as (typeof laptop)[];
    const calls = mockCommands({
      list_agent_clients: () => listed,
      add_agent_client: ({ name }) => {
        listed = [{ ...laptop, name }];
        return { client: listed[0], token: "tok_client" };
      },
    });
    const screen = mount();
    screen.root.querySelector<HTMLInputElement>("#client-name")!.value = "  Claude Code (laptop) ";
    button(screen.root, "Add client").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".clients-status")!.textContent).toBe("Claude Code (laptop) added."));
    expect(calls.filter(([cmd]) => cmd === "add_agent_client")).toEqual([["add_agent_client", { name: "Claude Code (laptop)" }]]);
    const added = screen.root.querySelector<HTMLElement>(".new-client")!;
    expect(added.hidden).toBe(false);
    const codes = [...added.querySelectorAll("code")].map((c) => c.textContent!);
    expect(JSON.parse(codes[0])).toEqual({
      mcpServers: { "lasuite-docs": { command: "/usr/bin/docs-mcp-app", args: overview.bridge_args, env: { DOCS_MCP_TOKEN: "tok_client" } } },
    });
    expect(codes[1]).toContain('--header "Authorization: Bearer tok_client"');
    expect(codes.join("\n")).not.toContain("tok_123");
    await vi.waitFor(() => expect(texts(screen.root, ".clients .client-name")).toEqual(["Claude Code (laptop)"]));
  });

  it("says what is wrong with a name and keeps it", async () => {
    mockCommands({ add_agent_client: () => failure("INVALID_INPUT", 'a client is already named "X"', "Give each client a name of its own.") });
    const screen = mount();
    const input = screen.root.querySelector<HTMLInputElement>("#client-name")!;
    button(screen.root, "Add client").click();
    expect(screen.root.querySelector(".clients-status")!.textContent).toBe("Give the client a name, e.g. the agent and the machine.");
    input.value = "X";
    button(screen.root, "Add client").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".clients-status")!.textContent).toContain('A client is already named "X"'));
    expect(input.value).toBe("X");
    expect(screen.root.querySelector<HTMLElement>(".new-client")!.hidden).toBe(true);
  });

  it("revokes a client on the second click only", async () => {
    let listed = [laptop] as { id: string; name: string; created_at: number; revoked_at: number | null }[];
    const calls = mockCommands({
      list_agent_clients: () => listed,
      revoke_agent_client: ({ id }) => {
        listed = [{ ...laptop, id, revoked_at: 1795000050000 }];
        return listed[0];
      },
    });
    const screen = mount();
    await vi.waitFor(() => button(screen.root, "Revoke"));
    button(screen.root, "Revoke").click();
    expect(calls.filter(([cmd]) => cmd === "revoke_agent_client")).toEqual([]);
    button(screen.root, "Confirm revoke").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".clients-status")!.textContent).toBe(
      "Claude Code (laptop) revoked: its token no longer works.",
    ));
    expect(calls.filter(([cmd]) => cmd === "revoke_agent_client")).toEqual([["revoke_agent_client", { id: "c1" }]]);
    await vi.waitFor(() => expect(screen.root.querySelector(".clients .client.revoked")).not.toBeNull());
    expect([...screen.root.querySelectorAll(".clients button")]).toEqual([]);
  });
});

describe("Add to Claude Desktop", () => {
  function mount() {
    const screen: AgentsScreen = new AgentsScreen((o) => screen.render(o));
    document.body.append(screen.root);
    screen.render(overview);
    return screen;
  }

  it("writes the configuration for Claude Desktop and says where", async () => {
    const calls = mockCommands({
      list_agent_clients: () => [],
      add_to_claude_desktop: () => ({
        path: "/home/ada/.config/Claude/claude_desktop_config.json",
        replaced: false,
        backup: "/home/ada/.config/Claude/claude_desktop_config.json.bak",
      }),
    });
    const screen = mount();
    const add = screen.root.querySelectorAll(".add-to-claude-desktop");
    expect(add.length).toBe(1);
    expect(add[0].closest("article")!.querySelector("h3")!.textContent).toBe("Claude Desktop");
    button(screen.root, "Add to Claude Desktop").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".claude-desktop-status")!.textContent).toBe(
      "Added to /home/ada/.config/Claude/claude_desktop_config.json; the previous file is kept as /home/ada/.config/Claude/claude_desktop_config.json.bak. Restart Claude Desktop to use it.",
    ));
    expect(calls.filter(([c]) => c === "add_to_claude_desktop")).toEqual([["add_to_claude_desktop", { server_name: "lasuite-docs" }]]);
  });

  it("shows why it could not", async () => {
    mockCommands({
      list_agent_clients: () => [],
      add_to_claude_desktop: () => failure("INVALID_INPUT", "Claude Desktop's folder /home/ada/.config/Claude does not exist", "Install Claude Desktop and open it once, or paste the configuration by hand."),
    });
    const screen = mount();
    button(screen.root, "Add to Claude Desktop").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".claude-desktop-status.error")!.textContent).toBe(
      "Claude Desktop's folder /home/ada/.config/Claude does not exist — Install Claude Desktop and open it once, or paste the configuration by hand.",
    ));
    expect(button(screen.root, "Add to Claude Desktop").disabled).toBe(false);
  });
});
