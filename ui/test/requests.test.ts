import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RequestsBanner } from "../src/screens/requests";
import type { DecisionRequest } from "../src/types";
import { edit } from "./fixtures";
import { button, mockCommands, texts } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

const fromShell: DecisionRequest = {
  id: "r1",
  action: { kind: "approve", edit_id: "e1", parts: null },
  summary: "Approve the edit of “Plan” by Claude Code (insert_blocks)",
  asker: { pid: 4242, program: "docs-mcp", terminal: null, known: true },
  asked_at: 1795000000000,
  state: "waiting",
};

const fromTerminal: DecisionRequest = {
  ...fromShell,
  id: "r2",
  action: { kind: "add_client", name: "Cursor" },
  summary: "Add the agent client “Cursor” (a new token)",
  asker: { pid: 77, program: "curl", terminal: "/dev/pts/3", known: true },
};

async function mount(): Promise<RequestsBanner> {
  const banner = new RequestsBanner();
  document.body.append(banner.root);
  await banner.load();
  return banner;
}

describe("decisions asked from outside the window", () => {
  it("are hidden while none waits", async () => {
    mockCommands({ list_decision_requests: () => [] });
    const banner = await mount();
    expect(banner.root.hidden).toBe(true);
  });

  it("say what is asked and who asked, as the service found the caller", async () => {
    mockCommands({ list_decision_requests: () => [fromShell, fromTerminal] });
    const banner = await mount();
    expect(banner.root.hidden).toBe(false);
    expect(texts(banner.root, ".request .summary")).toEqual([fromShell.summary, fromTerminal.summary]);
    expect(texts(banner.root, ".request .asker strong")).toEqual([
      "docs-mcp (process 4242), without a terminal (a script, or an agent's shell)",
      "curl (process 77), in a terminal (/dev/pts/3)",
    ]);
    expect(texts(banner.root, ".request .actions button")).toEqual(["Approve", "Decline", "Add the client", "Decline"]);
  });

  it("are carried out only by a click, which says what it did; a new client's token is shown once", async () => {
    let waiting = [fromShell, fromTerminal];
    const calls = mockCommands({
      list_decision_requests: () => waiting,
      grant_decision_request: ({ id }) => {
        waiting = waiting.filter((r) => r.id !== id);
        return id === "r1"
          ? { request: { ...fromShell, state: "done", outcome: "the edit is applied" }, outcome: { kind: "edit", value: { ...edit, status: "applied" } } }
          : { request: { ...fromTerminal, state: "done", outcome: "added" }, outcome: { kind: "client_added", value: { client: { id: "c1", name: "Cursor", created_at: 1, revoked_at: null }, token: "tok-123" } } };
      },
    });
    const banner = await mount();
    button(banner.root, "Approve").click();
    await vi.waitFor(() => expect(banner.root.querySelector(".status")!.textContent).toBe("Done: the edit is applied."));
    button(banner.root, "Add the client").click();
    await vi.waitFor(() =>
      expect(banner.root.querySelector(".status")!.textContent).toBe("Done: client Cursor added. Its token (shown this once): tok-123"),
    );
    expect(calls.filter(([command]) => command === "grant_decision_request")).toEqual([
      ["grant_decision_request", { id: "r1" }],
      ["grant_decision_request", { id: "r2" }],
    ]);
    expect(banner.root.querySelectorAll(".request")).toHaveLength(0);
  });

  it("Decline does nothing but decline; a repeated key press never decides", async () => {
    let waiting = [fromShell];
    const calls = mockCommands({
      list_decision_requests: () => waiting,
      decline_decision_request: () => {
        waiting = [];
        return { ...fromShell, state: "declined" };
      },
    });
    const banner = await mount();
    const approve = button(banner.root, "Approve");
    const repeat = new KeyboardEvent("keydown", { key: "Enter", repeat: true, cancelable: true });
    approve.dispatchEvent(repeat);
    expect(repeat.defaultPrevented).toBe(true);
    button(banner.root, "Decline").click();
    expect(approve.disabled).toBe(true);
    await vi.waitFor(() =>
      expect(banner.root.querySelector(".status")!.textContent).toBe(`Declined: ${fromShell.summary}. Nothing was done.`),
    );
    expect(calls.map(([command]) => command)).toEqual(["list_decision_requests", "decline_decision_request", "list_decision_requests"]);
  });
});
