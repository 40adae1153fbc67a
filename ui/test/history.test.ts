import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatTime } from "../src/dom";
import { approvedWhat, deciderLabel, HistoryScreen } from "../src/screens/history";
import { EDIT_STATUSES, type EditRecord, type HistoryFilter } from "../src/types";
import { edit } from "./fixtures";
import { button, failure, mockCommands, texts } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

const applied: EditRecord = {
  ...edit, id: "h1", status: "applied", decided_by: "window", decided_at: 1795000060000, applied_at: 1795000060000, saved_at: 1795000061000,
};
const rejected: EditRecord = {
  ...edit,
  id: "h2",
  agent: { name: "Cursor", connection: "http", client_id: null, reported_name: null },
  document_id: "d2",
  document_title: "Plan",
  status: "rejected",
  comment: "Not this week",
  error: { code: "EDIT_REJECTED", message: "the user rejected the edit: Not this week", hint: "Do not retry the same edit." },
  decided_by: "window",
  decided_at: 1795000120000,
};
const conflict: EditRecord = {
  ...edit,
  id: "h3",
  status: "conflict",
  error: { code: "EDIT_CONFLICT", message: "block b1 was deleted", hint: "Read the document again." },
  decided_by: "window",
  decided_at: 1795000000500,
};
const applying: EditRecord = { ...edit, id: "h4", status: "applying", decided_by: "window", decided_at: 1795000180000 };
const noFilter: HistoryFilter = { document_id: null, agent: null, status: null, limit: null };

function mount() {
  const screen = new HistoryScreen();
  document.body.append(screen.root);
  return screen;
}

const entry = (screen: HistoryScreen, id: string) => screen.root.querySelector<HTMLElement>(`[data-entry^="${id}:"]`)!;

describe("the history screen", () => {
  it("lists decided edits newest first, with status, who, what, when, and the change", async () => {
    const calls = mockCommands({ list_history: () => [conflict, applied, rejected] });
    const screen = mount();
    await screen.load();
    expect(calls).toEqual([["list_history", { filter: noFilter }]]);
    expect(texts(screen.root, ".history-entry h3")).toEqual([
      "Rejected Cursor on Plan",
      "Applied Claude Code on Meeting notes",
      "Conflict Claude Code on Meeting notes",
    ]);
    expect(entry(screen, "h2").querySelector(".badge")!.className).toBe("badge status-rejected");
    expect(texts(entry(screen, "h2"), ".meta dt")).toEqual(["Reason", "Tool", "Asked", "Decided", "By", "Comment", "Words"]);
    expect(texts(entry(screen, "h2"), ".meta dd")).toEqual([
      "Fix the release day", "update_block", formatTime(1795000000000), formatTime(1795000120000), "You, in this window", "Not this week", "+1 −1",
    ]);
    expect(entry(screen, "h3").querySelector(".meta .error")!.textContent).toBe("Block b1 was deleted — Nothing was applied; ask the agent to redo it on the current text.");
    expect(entry(screen, "h2").querySelector(".meta .error")).toBeNull();
    expect(texts(entry(screen, "h1"), ".diff ins")).toEqual(["Friday."]);
    expect(texts(entry(screen, "h1"), ".diff del")).toEqual(["Monday."]);
    expect(entry(screen, "h1").querySelector(".after")!.textContent).toBe("The team agreed to ship on Friday.");
  });

  it("offers Undo on applied edits only, and only those the service can revert", async () => {
    const stuck: EditRecord = { ...applied, id: "h5", undoable: false };
    mockCommands({ list_history: () => [conflict, applied, rejected, stuck] });
    const screen = mount();
    await screen.load();
    expect(["h1", "h2", "h3", "h5"].map((id) => texts(entry(screen, id), "button"))).toEqual([["Undo"], [], [], []]);
  });

  it("builds its filters from the edits and sends the chosen ones", async () => {
    const calls = mockCommands({ list_history: ({ filter }) => (filter.agent === "Cursor" ? [rejected] : [conflict, applied, rejected]) });
    const screen = mount();
    await screen.load();
    const option = (id: string) => [...screen.root.querySelector<HTMLSelectElement>(id)!.options].map((o) => [o.value, o.text]);
    expect(option("#history-document")).toEqual([["", "All documents"], [edit.document_id, "Meeting notes"], ["d2", "Plan"]]);
    expect(option("#history-agent")).toEqual([["", "All agents"], ["Claude Code", "Claude Code"], ["Cursor", "Cursor"]]);
    expect(option("#history-status")).toEqual([
      ["", "Every status"], ["applying", "Applying — not yet saved"], ["applied", "Applied"], ["rejected", "Rejected"],
      ["conflict", "Conflict"], ["failed", "Failed"], ["undone", "Undone"], ["withdrawn", "Withdrawn by the agent"],
    ]);
    const agent = screen.root.querySelector<HTMLSelectElement>("#history-agent")!;
    agent.value = "Cursor";
    agent.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(screen.root.querySelectorAll(".history-entry")).toHaveLength(1));
    // The other agents stay offered while the list is narrowed.
    expect(option("#history-agent")).toHaveLength(3);
    const status = screen.root.querySelector<HTMLSelectElement>("#history-status")!;
    status.value = "rejected";
    status.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(calls.slice(1)).toEqual([
      ["list_history", { filter: { ...noFilter, agent: "Cursor" } }],
      ["list_history", { filter: { ...noFilter, agent: "Cursor", status: ["rejected"] } }],
    ]);
  });

  it("shows an applying edit with its own badge, not as applied, and without Undo", async () => {
    mockCommands({ list_history: () => [applying, applied] });
    const screen = mount();
    await screen.load();
    expect(texts(screen.root, ".history-entry .badge")).toEqual(["Applying — not yet saved", "Applied"]);
    expect(entry(screen, "h4").querySelector(".badge")!.className).toBe("badge status-applying");
    expect(texts(entry(screen, "h4"), "button")).toEqual([]);
    expect(texts(entry(screen, "h1"), "button")).toEqual(["Undo"]);
  });

  it("offers every status but pending as a filter, in the order of EditStatus, and sends applying", async () => {
    const calls = mockCommands({ list_history: () => [applying] });
    const screen = mount();
    await screen.load();
    const statuses = [...screen.root.querySelector<HTMLSelectElement>("#history-status")!.options].map((o) => o.value);
    expect(statuses).toEqual(["", ...EDIT_STATUSES.filter((s) => s !== "pending")]);
    const status = screen.root.querySelector<HTMLSelectElement>("#history-status")!;
    status.value = "applying";
    status.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toEqual(["list_history", { filter: { ...noFilter, status: ["applying"] } }]);
  });

  it("redraws an applying edit once Docs confirms it, with Undo then", async () => {
    let journal = [applying];
    mockCommands({ list_history: () => journal });
    const screen = mount();
    await screen.load();
    journal = [{ ...applying, status: "applied", applied_at: 1795000181000 }];
    screen.onEvent({ type: "edit_changed", edit_id: "h4", document_id: edit.document_id, status: "applied", agent: "Claude Code" });
    await vi.waitFor(() => expect(texts(screen.root, ".badge")).toEqual(["Applied — not yet saved in Docs"]));
    expect(texts(entry(screen, "h4"), "button")).toEqual(["Undo"]);
  });

  it("says an applied edit is not yet saved in Docs until a save holds it, then when it was saved", async () => {
    let journal: EditRecord[] = [{ ...applying, status: "applied", applied_at: 1795000181000 }];
    mockCommands({ list_history: () => journal });
    const screen = mount();
    await screen.load();
    expect(texts(screen.root, ".badge")).toEqual(["Applied — not yet saved in Docs"]);
    expect(entry(screen, "h4").querySelector(".meta .saved")).toBeNull();
    journal = [{ ...journal[0], saved_at: 1795000240000 }];
    screen.onEvent({ type: "edits_saved", document_id: edit.document_id, edit_ids: ["h4"] });
    await vi.waitFor(() => expect(texts(screen.root, ".badge")).toEqual(["Applied"]));
    expect(entry(screen, "h4").querySelector(".meta .saved")!.textContent).toBe(formatTime(1795000240000));
  });

  it("says when nothing was decided, or nothing matches", async () => {
    mockCommands({ list_history: () => [] });
    const screen = mount();
    await screen.load();
    expect(screen.root.querySelector(".no-items")!.textContent).toBe("No edit decided yet.");
    screen.root.querySelector<HTMLSelectElement>("#history-status")!.value = "failed";
    await screen.load();
    expect(screen.root.querySelector(".no-items")!.textContent).toBe("No edit matches these filters.");
    expect(screen.root.querySelector(".empty")).toBeNull();
  });

  it("Undo sends undo_edit {id}, then reloads", async () => {
    let undone = false;
    const calls = mockCommands({
      list_history: () => (undone ? [{ ...applied, status: "undone" }] : [applied]),
      undo_edit: () => {
        undone = true;
        return { ...applied, id: "h9", undoes: "h1" };
      },
    });
    const screen = mount();
    await screen.load();
    button(screen.root, "Undo").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".badge")!.textContent).toBe("Undone"));
    expect(calls).toEqual([["list_history", { filter: noFilter }], ["undo_edit", { id: "h1" }], ["list_history", { filter: noFilter }]]);
    expect(screen.root.querySelector(".notice")!.textContent).toBe("Undid the edit of Claude Code to Meeting notes.");
    expect(screen.root.querySelectorAll("button")).toHaveLength(0);
  });

  it("shows why an undo was refused", async () => {
    mockCommands({
      list_history: () => [applied],
      undo_edit: () => failure("UNDO_CONFLICT", "the block changed since", "Edit it by hand in Docs."),
    });
    const screen = mount();
    await screen.load();
    const undo = button(screen.root, "Undo");
    undo.click();
    await vi.waitFor(() => expect(screen.root.querySelector(".card-status.error")!.textContent).toBe("The block changed since — Edit it by hand in Docs."));
    expect(undo.disabled).toBe(false);
  });

  it("reloads on edit_changed", async () => {
    let decided = [applied];
    mockCommands({ list_history: () => decided });
    const screen = mount();
    await screen.load();
    decided = [rejected, applied];
    screen.onEvent({ type: "edit_changed", edit_id: "h2", document_id: "d2", status: "rejected", agent: "Cursor" });
    await vi.waitFor(() => expect(screen.root.querySelectorAll(".history-entry")).toHaveLength(2));
  });
});

describe("who decided", () => {
  it("a decision made from a terminal, not in the window, stands out on its entry, with Undo", async () => {
    const fromTerminal: EditRecord = { ...applied, id: "t1", decided_by: "terminal" };
    mockCommands({ list_history: () => [fromTerminal, applied] });
    const screen = new HistoryScreen();
    document.body.append(screen.root);
    await screen.load();
    const note = screen.root.querySelector('[data-entry^="t1:applied:"] .outside-window')!;
    expect(note.textContent).toBe(`Approved from a terminal, not in this window at ${formatTime(1795000060000)}. If you did not do it, undo it.`);
    expect(button(screen.root.querySelector('[data-entry^="t1:applied:"]')!, "Undo")).toBeTruthy();
    expect(screen.root.querySelector('[data-entry^="h1:applied:"] .outside-window')).toBeNull();
  });

  it.each([
    ["window", "You, in this window"],
    ["terminal", "Someone at a terminal (docs-mcp edits), not in this window"],
    ["policy", "The policy (Automatic)"],
  ] as const)("%s reads %j", (decidedBy, label) => {
    expect(deciderLabel(decidedBy)).toBe(label);
  });
});

describe("what the person approved", () => {
  const parts = [
    { label: "Insert heading “Plan”", text: null },
    { label: "Update paragraph", text: "Keep it short." },
    { label: "Delete paragraph", text: null },
  ];

  it("says which parts, with whose text, and what was refused", () => {
    expect(approvedWhat({ ...applied, parts, approved_parts: [0, 1] })).toBe("2 of 3 parts; refused: Delete paragraph");
    expect(approvedWhat({ ...applied, parts, approved_parts: [1], part_texts: { 1: "Keep it very short." } })).toBe(
      "1 of 3 parts; with your text for 1 of them; refused: Insert heading “Plan”; Delete paragraph",
    );
  });

  it("says the text was the person's, and nothing for an edit approved as asked", () => {
    expect(approvedWhat({ ...applied, approved_text: "Our **plan**." })).toBe("Your text, instead of the agent's");
    expect(approvedWhat(applied)).toBeNull();
  });

  it("shows it on the entry", () => {
    const screen = new HistoryScreen();
    document.body.append(screen.root);
    screen.render([{ ...applied, parts, approved_parts: [0, 2] }]);
    expect(texts(screen.root, ".approved-what")).toEqual(["2 of 3 parts; refused: Update paragraph"]);
  });
});

