import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/app";
import type { EditRecord, Overview } from "../src/types";
import { documentRow, edit, overview, settings, signedIn } from "./fixtures";
import { button, mockCommands, serviceEvent, texts } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

async function start({ current = overview, pending = [] as EditRecord[], asked = null as string | null } = {}) {
  let shown: Overview = current;
  const calls = mockCommands({
    asked_screen: () => asked,
    demo_propose_edit: () => ({ ...edit, agent: { ...edit.agent, name: "Demo agent" } }),
    overview: () => shown,
    list_documents: () => ({ documents: [documentRow("a", { title: "Meeting notes", policy: "auto", effective_policy: "auto" })], has_more: false }),
    list_pending: () => pending,
    list_sessions: () => [],
    list_history: () => [],
    get_settings: () => ({ ...settings, default_policy: "read-only" }),
    launch_at_login: () => ({ enabled: false, refused: null, caveat: null }),
  });
  const app = new App();
  document.body.append(app.root);
  await app.start();
  return { app, calls, signIn: () => (shown = signedIn) };
}

describe("the app", () => {
  it("has one tab per screen; the shown one is aria-current", async () => {
    const { app } = await start();
    expect(texts(app.root, "nav button")).toEqual([
      "Connect", "Documents", "Pending edits", "Sessions", "History", "Connect agents", "Settings",
    ]);
    app.show("history");
    expect([...app.root.querySelectorAll("nav button")].map((b) => b.getAttribute("aria-current"))).toEqual([
      null, null, null, null, "page", null, null,
    ]);
    expect([...app.root.querySelectorAll<HTMLElement>(".panel")].filter((p) => !p.hidden).map((p) => p.dataset.panel)).toEqual(["history"]);
  });

  it("loads every screen once at start, and shows Connect agents when nothing waits", async () => {
    const { app, calls } = await start();
    await vi.waitFor(() => expect(app.root.querySelectorAll('[data-panel="documents"] tbody tr')).toHaveLength(1));
    expect(calls.map(([cmd]) => cmd).sort()).toEqual(
      ["asked_screen", "get_settings", "launch_at_login", "list_documents", "list_history", "list_pending", "list_sessions", "overview"],
    );
    expect(app.current()).toBe("agents");
  });

  it("shows Pending edits, with their count, when edits wait", async () => {
    const { app } = await start({ current: { ...overview, pending_count: 2 }, pending: [edit, { ...edit, id: "e2" }] });
    expect(app.current()).toBe("pending");
    expect(app.root.querySelector('[data-screen="pending"]')!.textContent).toBe("Pending edits (2)");
  });

  it("opened afresh by the tray on a screen, shows that one, even when edits wait", async () => {
    const { app } = await start({ current: { ...overview, pending_count: 1 }, pending: [edit], asked: "history" });
    expect(app.current()).toBe("history");
  });

  it("gives the documents the default policy of the settings", async () => {
    const { app } = await start();
    await vi.waitFor(() => expect(app.root.querySelectorAll('[data-panel="documents"] tbody tr')).toHaveLength(1));
    expect(app.root.querySelector<HTMLSelectElement>('[data-panel="documents"] select')!.options[0].text).toBe("Default (Read-only)");
  });

  it("on account_changed, reads the overview again and lists the documents again", async () => {
    const { app, calls, signIn } = await start();
    signIn();
    await serviceEvent({ type: "account_changed", signed_in: true });
    await vi.waitFor(() => expect(calls.at(-1)).toEqual(["list_documents", { source: "known", query: null, page: null }]));
    expect(calls.slice(-2)[0]).toEqual(["overview", {}]);
    expect(app.root.querySelector(".account-state")!.textContent).toBe("Signed in as Ada Lovelace (ada@example.org).");
  });

  // src-tauri/tests/app_e2e.rs clicks the first `.edit-card button.primary` and waits for the
  // first `#main .empty`.
  it("keeps the selectors of the end-to-end test: Approve first in a card, one .empty", async () => {
    const { app } = await start({ pending: [edit, { ...edit, id: "e2" }] });
    expect(app.root.querySelector("#main .edit-card button.primary")!.textContent).toBe("Approve");
    expect(app.root.querySelector("#main .edit-card .group")).toBeNull();
    expect(app.root.querySelector("#main .empty")).toBeNull();
    app.pending.render([]);
    expect(texts(app.root, "#main .empty")).toEqual(["No edit waits for you."]);
  });
});

describe("the demo", () => {
  it("is labelled on every screen while it runs, and its agent proposes edits that wait", async () => {
    const { app, calls } = await start({ current: { ...overview, demo: true, demo_available: true } });
    const banner = app.root.querySelector<HTMLElement>(".demo-banner")!;
    expect(banner.hidden).toBe(false);
    expect(banner.closest("main")).toBeNull();
    expect(banner.textContent).toContain("Demo — a local Docs-like server with sample documents; nothing reaches a real Docs instance.");
    button(app.root, "Have the demo agent propose an edit").click();
    await vi.waitFor(() => expect(app.current()).toBe("pending"));
    expect(calls.map(([c]) => c)).toContain("demo_propose_edit");
    expect(banner.querySelector(".demo-status")!.textContent).toBe("The demo agent proposed an edit: it waits in Pending edits.");
  });

  it("has no banner for a real instance", async () => {
    const { app } = await start();
    expect(app.root.querySelector<HTMLElement>(".demo-banner")!.hidden).toBe(true);
  });
});

describe("pause", () => {
  it("says what it does while agents are paused, and goes when they are not", async () => {
    const { app } = await start({ current: { ...overview, paused: true } });
    const banner = app.root.querySelector<HTMLElement>(".paused-banner")!;
    expect(banner.hidden).toBe(false);
    expect(banner.textContent).toBe("Agents are paused. Every agent edit waits in Pending edits, even on documents set to Automatic, and agents cannot create documents; they can still read. Untick Pause agents to let them through again.");
    app.onEvent({ type: "paused_changed", paused: false });
    expect(banner.hidden).toBe(true);
    expect(app.root.querySelector<HTMLInputElement>("#pause-agents")!.checked).toBe(false);
  });
});

describe("a service that did not start", () => {
  it("says why in the window and loads nothing else", async () => {
    const calls = mockCommands({
      startup_problem: () => "starting the service: another Docs MCP service uses /home/ada/.local/share/lasuite-docs-mcp: docs-mcp serve (process 42, MCP endpoint http://127.0.0.1:7658/mcp)",
    });
    const app = new App();
    document.body.append(app.root);
    await app.start();
    expect(app.root.querySelector("h2")!.textContent).toBe("Docs MCP could not start");
    expect(app.root.querySelector("[role=alert]")!.textContent).toContain("docs-mcp serve (process 42");
    expect(app.root.querySelector("nav")).toBeNull();
    expect(calls.map(([c]) => c)).toEqual(["startup_problem"]);
  });
});
