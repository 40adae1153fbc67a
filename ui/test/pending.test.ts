import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderEditCard, PendingScreen } from "../src/screens/pending";
import { onServiceEvent } from "../src/rpc";
import type { EditRecord } from "../src/types";
import fixture from "./fixtures/edit-record.json";

const edit = fixture as EditRecord;

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("a pending edit card", () => {
  it("shows agent, document, reason, time, tool and the words added and removed", () => {
    const card = renderEditCard(edit, { approve: vi.fn(), reject: vi.fn() });
    expect(card.querySelector("h3")!.textContent).toBe("Claude Code wants to edit Meeting notes");
    expect(card.querySelector(".reason")!.textContent).toBe("Fix the release day");
    expect(card.querySelector(".tool")!.textContent).toBe("update_block");
    expect(card.querySelector("time")!.getAttribute("datetime")).toBe(new Date(1795000000000).toISOString());
    expect(card.querySelector(".words")!.textContent).toBe("+1 −1");
    expect([...card.querySelectorAll(".diff ins")].map((e) => e.textContent)).toEqual(["Friday."]);
    expect([...card.querySelectorAll(".diff del")].map((e) => e.textContent)).toEqual(["Monday."]);
    expect(card.querySelector(".diff")!.textContent).toBe("The team agreed to ship on Monday.Friday.");
    expect(card.querySelector(".before")!.textContent).toBe("The team agreed to ship on Monday.");
    expect(card.querySelector(".after")!.textContent).toBe("The team agreed to ship on Friday.");
  });

  it("falls back to the document id without a title, and says when no reason was given", () => {
    const card = renderEditCard({ ...edit, document_title: null, reason: null }, { approve: vi.fn(), reject: vi.fn() });
    expect(card.querySelector(".document")!.textContent).toBe(edit.document_id);
    expect(card.querySelector(".reason")!.textContent).toBe("(none given)");
  });

  it("has labelled, keyboard-reachable controls", () => {
    const card = renderEditCard(edit, { approve: vi.fn(), reject: vi.fn() });
    document.body.append(card);
    const buttons = [...card.querySelectorAll("button")];
    expect(buttons.every((b) => b.getAttribute("type") !== null && b.tabIndex >= 0)).toBe(true);
    const textarea = card.querySelector("textarea")!;
    expect(card.querySelector(`label[for="${textarea.id}"]`)!.textContent).toBe("Comment for the agent (optional)");
  });
});

describe("decisions through IPC", () => {
  function mount() {
    const screen = new PendingScreen();
    document.body.append(screen.root);
    return screen;
  }

  it("Approve calls approve_edit with the edit's id, then reloads", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "list_pending") return calls.length > 2 ? [] : [edit];
      if (cmd === "approve_edit") return { ...edit, status: "applied" };
    });
    const screen = mount();
    await screen.load();
    const approve = [...screen.root.querySelectorAll("button")].find((b) => b.textContent === "Approve")!;
    approve.click();
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(calls.map(([cmd]) => cmd)).toEqual(["list_pending", "approve_edit", "list_pending"]);
    expect(calls[1][1]).toEqual({ id: edit.id });
    expect(screen.root.querySelector(".notice")!.textContent).toBe("Applied the edit of Claude Code to Meeting notes.");
  });

  it("Reject sends the comment to reject_edit", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "list_pending") return calls.length > 2 ? [] : [edit];
      if (cmd === "reject_edit") return { ...edit, status: "rejected" };
    });
    const screen = mount();
    await screen.load();
    const reject = [...screen.root.querySelectorAll("button")].find((b) => b.textContent === "Reject…")!;
    reject.click();
    expect(reject.getAttribute("aria-expanded")).toBe("true");
    screen.root.querySelector("textarea")!.value = "  Monday is right  ";
    screen.root.querySelector<HTMLFormElement>(".reject-form")!.requestSubmit();
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("reject_edit"));
    expect(calls.find(([c]) => c === "reject_edit")![1]).toEqual({ id: edit.id, comment: "Monday is right" });
  });

  it("shows the {code, message, hint} of a failed decision and re-enables the buttons", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_pending") return [edit];
      if (cmd === "approve_edit") {
        throw { code: "EDIT_CONFLICT", message: "the edit no longer applies: block b1 was deleted", hint: "Read the document again." };
      }
    });
    const screen = mount();
    await screen.load();
    const approve = [...screen.root.querySelectorAll("button")].find((b) => b.textContent === "Approve")!;
    approve.click();
    await vi.waitFor(() => expect(screen.root.querySelector(".card-status.error")).not.toBeNull());
    expect(screen.root.querySelector(".card-status")!.textContent).toBe(
      "the edit no longer applies: block b1 was deleted — Read the document again.",
    );
    expect(approve.disabled).toBe(false);
  });

  it("reloads live on an edit_changed event (no polling)", async () => {
    let pending: EditRecord[] = [];
    mockIPC((cmd) => (cmd === "list_pending" ? pending : undefined), { shouldMockEvents: true });
    const screen = mount();
    await onServiceEvent((e) => screen.onEvent(e));
    await screen.load();
    expect(screen.root.querySelectorAll(".edit-card")).toHaveLength(0);
    pending = [edit];
    await emit("service-event", { type: "edit_changed", edit_id: edit.id, document_id: edit.document_id, status: "pending", agent: "Claude Code" });
    await vi.waitFor(() => expect(screen.root.querySelectorAll(".edit-card")).toHaveLength(1));
    await flush();
  });
});
