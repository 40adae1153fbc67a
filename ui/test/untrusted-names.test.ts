// Agents name themselves (the MCP client's self-reported name): every place that shows one
// renders it as text, never markup, on one line clamped by CSS, the whole name in `title`.

import { clearMocks } from "@tauri-apps/api/mocks";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HistoryScreen } from "../src/screens/history";
import { PendingScreen } from "../src/screens/pending";
import { renderEditCard } from "../src/screens/pending-card";
import { SessionsScreen } from "../src/screens/sessions";
import type { EditRecord } from "../src/types";
import { edit, session } from "./fixtures";
import { button, mockCommands } from "./ipc";

const MARKUP = '<img src=x onerror="window.pwned=1"><b>Claude</b>';
const LONG = "Claude Code ".repeat(417).slice(0, 5000);

const named = (name: string, id = edit.id): EditRecord => ({ ...edit, id, agent: { ...edit.agent, name } });

beforeEach(() => {
  // The app's stylesheet, so the clamp is checked as the webview computes it.
  document.head.append(Object.assign(document.createElement("style"), { textContent: readFileSync(join(__dirname, "../src/style.css"), "utf8") }));
});

afterEach(() => {
  clearMocks();
  document.head.replaceChildren();
  document.body.replaceChildren();
  delete (window as { pwned?: number }).pwned;
});

/** The name is shown as text, whole, in an element clamped to one line with an ellipsis. */
function expectClampedText(root: ParentNode, selector: string, name: string): void {
  const shown = [...root.querySelectorAll<HTMLElement>(selector)];
  expect(shown.length).toBeGreaterThan(0);
  for (const el of shown) {
    expect(el.textContent).toBe(name);
    expect(el.children).toHaveLength(0);
    expect(el.title).toBe(name);
    const style = getComputedStyle(el);
    expect([style.overflow, style.textOverflow, style.whiteSpace, style.display]).toEqual(["hidden", "ellipsis", "nowrap", "inline-block"]);
  }
  expect(root.querySelector("img, b")).toBeNull();
  expect((window as { pwned?: number }).pwned).toBeUndefined();
}

describe.each([
  ["markup", MARKUP],
  ["5 000 characters", LONG],
])("an agent name of %s", (_, name) => {
  it("is text, clamped, on a pending card", () => {
    const card = renderEditCard(named(name), { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    document.body.append(card);
    expectClampedText(card, "h3 .agent", name);
    expect(card.querySelector("h3")!.textContent).toBe(`${name} wants to edit Meeting notes`);
  });

  it("is text, clamped, in a group's heading and in the notice of its decision", async () => {
    mockCommands({
      list_pending: () => [named(name), named(name, "e2")],
      decide_all: () => ({ decided: [{ ...named(name), status: "conflict", error: null }, { ...named(name, "e2"), status: "applied", saved_at: 1795000061000 }], failed: [], elsewhere: [] }),
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    expectClampedText(screen.root, ".group-label .agent", name);
    expect(screen.root.querySelector(".group-label")!.textContent).toBe(`2 edits by ${name}`);
    button(screen.root, "Approve all (2)").click();
    await vi.waitFor(() => expect(screen.root.querySelectorAll(".notice p")).toHaveLength(2));
    expectClampedText(screen.root, ".notice .agent", name);
  });

  it("is text, clamped, in History, and shortened in its agent filter", async () => {
    mockCommands({ list_history: () => [{ ...named(name), status: "applied", decided_at: 1795000060000 }] });
    const screen = new HistoryScreen();
    document.body.append(screen.root);
    await screen.load();
    expectClampedText(screen.root, ".history-entry h3 .agent", name);
    const option = screen.root.querySelector<HTMLSelectElement>("#history-agent")!.options[1];
    expect(option.value).toBe(name);
    expect(option.title).toBe(name);
    expect([...option.text].length).toBeLessThanOrEqual(60);
    expect(name.startsWith(option.text.replace(/…$/, ""))).toBe(true);
  });

  it("is text, clamped, among a session's collaborators", async () => {
    mockCommands({ list_sessions: () => [{ ...session, collaborators: ["Ada", name] }] });
    const screen = new SessionsScreen();
    document.body.append(screen.root);
    await screen.load();
    expectClampedText(screen.root, ".collaborator:not([title=Ada])", name);
  });
});

it("a short name is shown whole in History's agent filter", async () => {
  mockCommands({ list_history: () => [{ ...edit, status: "applied" }] });
  const screen = new HistoryScreen();
  await screen.load();
  expect(screen.root.querySelector<HTMLSelectElement>("#history-agent")!.options[1].text).toBe("Claude Code");
});
