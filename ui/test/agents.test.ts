import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentConfigs } from "../src/configs";
import { AgentsScreen } from "../src/screens/agents";
import { overview } from "./fixtures";
import { button, failure, mockCommands } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

describe("agent configurations", () => {
  it("fill in the endpoint and the token", () => {
    const configs = Object.fromEntries(agentConfigs(overview).map((c) => [c.id, c.text]));
    expect(JSON.parse(configs["claude-desktop"])).toEqual({
      mcpServers: { "lasuite-docs": { command: "/usr/bin/docs-mcp-app", args: ["bridge"] } },
    });
    expect(configs["claude-code"]).toBe(
      'claude mcp add --transport http lasuite-docs http://127.0.0.1:7658/mcp --header "Authorization: Bearer tok_123"',
    );
    expect(JSON.parse(configs.cursor)).toEqual({
      mcpServers: { "lasuite-docs": { url: "http://127.0.0.1:7658/mcp", headers: { Authorization: "Bearer tok_123" } } },
    });
    expect(JSON.parse(configs.vscode)).toEqual({
      servers: { "lasuite-docs": { type: "http", url: "http://127.0.0.1:7658/mcp", headers: { Authorization: "Bearer tok_123" } } },
    });
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
      'claude mcp add --transport http lasuite-docs http://127.0.0.1:7658/mcp --header "Authorization: Bearer tok_456"',
    );
    expect(screen.root.querySelector<HTMLElement>("#regenerate-confirmation")!.hidden).toBe(true);
  });

  it("shows a refused regeneration's message and hint", async () => {
    mockCommands({ regenerate_token: () => failure("KEYRING", "the keyring refused the new token", "Unlock the keyring and retry.") });
    const screen = mount();
    await screen.regenerate();
    expect(screen.root.querySelector(".token-status.error")!.textContent).toBe("the keyring refused the new token — Unlock the keyring and retry.");
    expect(screen.root.querySelector("#config-claude-code")!.textContent).toContain("Bearer tok_123");
  });
});
