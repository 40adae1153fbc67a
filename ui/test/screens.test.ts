import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentConfigs } from "../src/configs";
import { ConnectScreen } from "../src/screens/connect";
import { SessionsScreen } from "../src/screens/sessions";
import type { Overview } from "../src/types";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

const overview: Overview = {
  version: "0.1.0",
  instance: "https://docs.example.org",
  signed_in: false,
  paused: false,
  pending_count: 0,
  endpoint: "http://127.0.0.1:7658/mcp",
  listening: true,
  listen_error: null,
  token: "tok_123",
  app_path: "/usr/bin/docs-mcp-app",
};

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

describe("the connect screen", () => {
  it("checks the instance, connects it, and reports the Docs version", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "check_instance") return { url: "https://docs.example.org", release_version: "4.1.0" };
      if (cmd === "connect_instance") return overview;
    });
    const connected = vi.fn();
    const screen = new ConnectScreen(connected);
    document.body.append(screen.root);
    const input = screen.root.querySelector<HTMLInputElement>("#instance-url")!;
    expect(screen.root.querySelector('label[for="instance-url"]')!.textContent).toBe("Docs instance URL");
    input.value = " https://docs.example.org/ ";
    await screen.connect();
    expect(calls).toEqual([
      ["check_instance", { url: "https://docs.example.org/" }],
      ["connect_instance", { url: "https://docs.example.org" }],
    ]);
    expect(connected).toHaveBeenCalledWith(overview);
    expect(screen.root.querySelector(".form-status")!.textContent).toBe("Connected to https://docs.example.org (Docs 4.1.0).");
    expect(screen.root.textContent).toContain("Public documents work without sign-in.");
  });

  it("shows why an instance was refused", async () => {
    mockIPC(() => {
      throw { code: "INVALID_INPUT", message: "not a URL", hint: "Give an https:// address." };
    });
    const screen = new ConnectScreen(vi.fn());
    document.body.append(screen.root);
    screen.root.querySelector<HTMLInputElement>("#instance-url")!.value = "nope";
    await screen.connect();
    expect(screen.root.querySelector(".form-status.error")!.textContent).toBe("not a URL — Give an https:// address.");
  });
});

describe("the sessions screen", () => {
  it("renders one row per session with title, state and collaborators", async () => {
    mockIPC(() => [
      {
        document_id: "0f4b1e9a-7d2c-4c55-8a3e-6b2d9f1c4e77",
        title: "Meeting notes",
        connected: true,
        read_only: false,
        error: null,
        last_activity: 1795000000000,
        pending_acks: 1,
        pending_saves: 1,
        collaborators: ["Ada", "Claude Code"],
      },
    ]);
    const screen = new SessionsScreen();
    await screen.load();
    const cells = [...screen.root.querySelectorAll("tbody tr > *")].map((c) => c.textContent);
    expect(cells.slice(0, 4)).toEqual(["Meeting notes", "Connected", "Ada, Claude Code", "2"]);
  });
});
