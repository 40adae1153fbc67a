import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatTime, relativeTime } from "../src/dom";
import { PendingScreen } from "../src/screens/pending";
import { TEXT_PREVIEW_DELAY_MS, renderEditCard } from "../src/screens/pending-card";
import { editGroups } from "../src/screens/pending-groups";
import { onServiceEvent } from "../src/rpc";
import type { EditRecord, GroupDecision, PreviewLink } from "../src/types";
import { edit, overview } from "./fixtures";
import { button, failure, mockCommands, texts } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("a pending edit card", () => {
  it("shows agent, document, reason, time, tool and the words added and removed", () => {
    const card = renderEditCard(edit, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
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

  it("a document an agent asks to create: what, where, nothing to open yet", () => {
    const creation: EditRecord = {
      ...edit,
      tool: "create_document",
      document_title: "Minutes",
      proposed_document: { title: "Minutes", parent_id: "p1", parent_title: "Projects" },
    };
    const actions = () => ({ approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    const card = renderEditCard(creation, { ...actions(), openAt: vi.fn() });
    expect(card.querySelector("h3")!.textContent).toBe("Claude Code wants to create Minutes");
    expect(card.querySelector(".where")!.textContent).toBe("A sub-page of Projects (nothing is made until you approve)");
    expect(card.querySelector(".open-at")).toBeNull();
    const top = renderEditCard({ ...creation, proposed_document: { title: "Minutes" } }, actions());
    expect(top.querySelector(".where")!.textContent).toBe("A new document at the top level (nothing is made until you approve)");
  });

  it("falls back to the document id without a title, and says when no reason was given", () => {
    const card = renderEditCard({ ...edit, document_title: null, reason: null }, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    expect(card.querySelector(".document")!.textContent).toBe(edit.document_id);
    expect(card.querySelector(".reason")!.textContent).toBe("(none given)");
  });

  it("has labelled, keyboard-reachable controls", () => {
    const card = renderEditCard(edit, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    document.body.append(card);
    const buttons = [...card.querySelectorAll("button")];
    expect(buttons.every((b) => b.getAttribute("type") !== null && b.tabIndex >= 0)).toBe(true);
    const textarea = card.querySelector<HTMLTextAreaElement>(".reject-form textarea")!;
    expect(card.querySelector(`label[for="${textarea.id}"]`)!.textContent).toBe("Comment for the agent (optional)");
  });
});

describe("the links and media an edit adds", () => {
  const actions = () => ({ approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
  const links: PreviewLink[] = [
    { block_id: "b1", kind: "link", url: "javascript:alert(1)", host: null, text: "here" },
    { block_id: "b1", kind: "link", url: "https://docs.example.org@evil.example/x", host: "evil.example", text: "the spec" },
    { block_id: "b1", kind: "link", url: "https://docs.example.org/docs/a/", host: "docs.example.org", text: "" },
    { block_id: "b2", kind: "media", url: "/media/a/attachments/b.png", host: null, text: "logo.png" },
  ];
  const items = (card: HTMLElement) => [...card.querySelectorAll<HTMLElement>(".links li")];

  it("shows each target in full, as text, with its host; another site is marked", () => {
    const card = renderEditCard({ ...edit, preview: { ...edit.preview, links } }, actions(), overview.instance);
    expect(card.querySelector(".links h4")!.textContent).toBe("Links and media it adds or changes");
    expect(items(card).map((li) => li.textContent)).toEqual([
      "Link here → javascript:alert(1)",
      "Link the spec → https://docs.example.org@evil.example/x evil.example other site",
      "Link https://docs.example.org/docs/a/ docs.example.org",
      "Media logo.png → /media/a/attachments/b.png",
    ]);
    expect(items(card).map((li) => li.classList.contains("other-site"))).toEqual([false, true, false, false]);
    // Nothing there navigates.
    expect(card.querySelector(".links a, .links [href]")).toBeNull();
  });

  it("marks every host when the instance is not known, and shows nothing for an edit adding none", () => {
    const card = renderEditCard({ ...edit, preview: { ...edit.preview, links } }, actions(), null);
    expect(items(card).map((li) => li.classList.contains("other-site"))).toEqual([false, true, true, false]);
    expect(renderEditCard(edit, actions(), overview.instance).querySelector(".links")).toBeNull();
  });
});

describe("who asked, and where", () => {
  const actions = () => ({ approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });

  it("says whether the name is the agent's own or a client's the person named", () => {
    const own = renderEditCard(edit, actions());
    expect(own.querySelector(".asked-by")!.textContent).toBe("Claude Code (as it calls itself)");
    const named = renderEditCard(
      { ...edit, agent: { name: "Claude Code (laptop)", connection: "http", client_id: "c1", reported_name: "claude-code" } },
      actions(),
    );
    expect(named.querySelector("h3")!.textContent).toBe("Claude Code (laptop) wants to edit Meeting notes");
    expect(named.querySelector(".asked-by")!.textContent).toBe("Claude Code (laptop) (a client you named; it calls itself claude-code)");
  });

  it("opens the document at the touched block, and offers nothing to open in the demo", async () => {
    const screen = new PendingScreen();
    document.body.append(screen.root);
    const calls = mockCommands({ list_pending: () => [edit], open_in_browser: () => null });
    screen.setOverview({ ...overview, demo: false });
    await screen.load();
    button(screen.root, "Open in browser").click();
    await vi.waitFor(() => expect(calls.filter(([cmd]) => cmd === "open_in_browser")).toEqual([
      ["open_in_browser", { document_id: edit.document_id, block_id: "b1" }],
    ]));

    const demo = new PendingScreen();
    document.body.append(demo.root);
    demo.setOverview({ ...overview, demo: true });
    await demo.load();
    expect([...demo.root.querySelectorAll("button")].map((b) => b.textContent)).not.toContain("Open in browser");
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
      if (cmd === "changed_since_proposed") return [];
      if (cmd === "pending_count") return 0;
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
    expect(screen.root.querySelector(".notice")!.textContent).toBe(
      "Applied the edit of Claude Code to Meeting notes. Not yet saved in Docs: History shows when it is.",
    );
  });

  it("Reject sends the comment to reject_edit", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      if (cmd === "changed_since_proposed") return [];
      if (cmd === "pending_count") return 0;
      calls.push([cmd, args]);
      if (cmd === "list_pending") return calls.length > 2 ? [] : [edit];
      if (cmd === "reject_edit") return { ...edit, status: "rejected" };
    });
    const screen = mount();
    await screen.load();
    const reject = [...screen.root.querySelectorAll("button")].find((b) => b.textContent === "Reject…")!;
    reject.click();
    expect(reject.getAttribute("aria-expanded")).toBe("true");
    screen.root.querySelector<HTMLTextAreaElement>(".reject-form textarea")!.value = "  Monday is right  ";
    screen.root.querySelector<HTMLFormElement>(".reject-form")!.requestSubmit();
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("reject_edit"));
    expect(calls.find(([c]) => c === "reject_edit")![1]).toEqual({ id: edit.id, comment: "Monday is right" });
  });

  it("shows the {code, message, hint} of a failed decision and re-enables the buttons", async () => {
    mockIPC((cmd) => {
      if (cmd === "changed_since_proposed") return [];
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
    const status = screen.root.querySelector(".card-status")!;
    expect(status.firstChild!.textContent).toBe(
      "The edit no longer applies: block b1 was deleted — Nothing was applied; ask the agent to redo it on the current text.",
    );
    // The hint written for agents is folded under it, with the code.
    const detail = status.querySelector<HTMLDetailsElement>("details.error-detail")!;
    expect(detail.open).toBe(false);
    expect(detail.querySelector("summary")!.textContent).toBe("Details");
    expect(detail.querySelector("pre")!.textContent).toBe(
      "EDIT_CONFLICT: the edit no longer applies: block b1 was deleted\nHint for agents: Read the document again.",
    );
    expect(approve.disabled).toBe(false);
  });

  it("reloads live on an edit_changed event (no polling)", async () => {
    let pending: EditRecord[] = [];
    mockIPC((cmd) => (cmd === "list_pending" ? pending : cmd === "changed_since_proposed" ? [] : cmd === "pending_count" ? 0 : undefined), { shouldMockEvents: true });
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

describe("events during a load", () => {
  it("loads again when an edit arrives while list_pending is still answering", async () => {
    // The first answer was read before the edit was stored; it arrives after the event.
    let answerFirst!: (edits: EditRecord[]) => void;
    const answers = [new Promise<EditRecord[]>((resolve) => (answerFirst = resolve)), Promise.resolve([edit])];
    const calls = mockCommands({ list_pending: () => answers.shift() ?? Promise.resolve([edit]) });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    const loading = screen.load();
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    screen.onEvent({ type: "edit_changed", edit_id: edit.id, document_id: edit.document_id, status: "pending", agent: "Claude Code" });
    answerFirst([]);
    await loading;
    await vi.waitFor(() => expect(screen.root.querySelectorAll(".edit-card")).toHaveLength(1));
    expect(calls).toEqual([["list_pending", {}], ["list_pending", {}]]);
  });

  it("asks once more, not once per event, for events during a load", async () => {
    let answerFirst!: (edits: EditRecord[]) => void;
    const answers = [new Promise<EditRecord[]>((resolve) => (answerFirst = resolve))];
    const calls = mockCommands({ list_pending: () => answers.shift() ?? Promise.resolve([edit, another("e2")]) });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    const loading = screen.load();
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    for (const id of [edit.id, "e2"]) {
      screen.onEvent({ type: "edit_changed", edit_id: id, document_id: edit.document_id, status: "pending", agent: "Claude Code" });
    }
    answerFirst([edit]);
    await loading;
    expect(screen.root.querySelectorAll(".edit-card")).toHaveLength(2);
    expect(calls).toHaveLength(2);
  });
});

/** The fixture edit, by another id, agent or document. */
/** A group decision's answer: `decided`, and the ids decided elsewhere. */
function outcome(decided: EditRecord[], elsewhere: string[] = []): GroupDecision {
  return { decided, failed: [], elsewhere };
}

function another(id: string, agent = edit.agent.name, document_id = edit.document_id): EditRecord {
  return { ...edit, id, agent: { ...edit.agent, name: agent }, document_id, document_title: document_id === edit.document_id ? edit.document_title : "Plan" };
}

describe("a long queue", () => {
  it("shows a page, counts them all, and says how many more wait", async () => {
    const calls = mockCommands({ list_pending: () => [edit], pending_count: () => 51 });
    let counted = 0;
    const screen = new PendingScreen((count) => (counted = count));
    document.body.append(screen.root);
    await screen.load();
    expect(counted).toBe(51);
    expect(screen.root.querySelector<HTMLElement>(".more-pending")!.hidden).toBe(false);
    expect(screen.root.querySelector(".more-pending")!.textContent).toBe(
      "50 more edits wait after these: they show here as these are decided (oldest first).",
    );
    expect(calls.map(([c]) => c)).toEqual(["list_pending", "pending_count"]);
  });
});

describe("order", () => {
  it("shows the oldest edit first: a new one lands below, no card moves under the person", async () => {
    const older = { ...another("e0"), created_at: edit.created_at - 60_000 };
    let pending = [edit, older];
    mockCommands({ list_pending: () => pending });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    const ids = () => [...screen.root.querySelectorAll<HTMLElement>("[data-edit-id]")].map((c) => c.dataset.editId);
    expect(ids()).toEqual(["e0", edit.id]);
    const first = screen.root.querySelector<HTMLElement>('[data-edit-id="e0"]')!;
    // The service lists the newest first; the new card still goes last.
    pending = [{ ...another("e9"), created_at: edit.created_at + 60_000 }, ...pending];
    await screen.load();
    expect(ids()).toEqual(["e0", edit.id, "e9"]);
    expect(screen.root.querySelector('[data-edit-id="e0"]')).toBe(first);
  });
});

describe("focus", () => {
  it("moves on to the next edit's card (not its Approve) once the focused edit is decided", async () => {
    const next = another("e2", "Cursor", "d2");
    let decided = false;
    mockCommands({
      list_pending: () => (decided ? [next] : [edit, next]),
      approve_edit: () => {
        decided = true;
        return { ...edit, status: "applied" };
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    const approve = screen.root.querySelector<HTMLButtonElement>(`[data-edit-id="${edit.id}"] button.primary`)!;
    approve.focus();
    approve.click();
    await vi.waitFor(() => expect(screen.root.querySelectorAll(".edit-card")).toHaveLength(1));
    expect(document.activeElement).toBe(screen.root.querySelector('[data-edit-id="e2"]'));
  });

  it("moves on to a card once a group's toolbar leaves with its decided edits", async () => {
    const third = another("e3", "Cursor", "d2");
    let decided = false;
    mockCommands({
      list_pending: () => (decided ? [third] : [edit, another("e2"), third]),
      decide_all: () => {
        decided = true;
        return outcome([{ ...edit, status: "applied" }, { ...another("e2"), status: "applied" }]);
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    const approveAll = button(screen.root, "Approve all (2)");
    approveAll.focus();
    approveAll.click();
    await vi.waitFor(() => expect(screen.root.querySelectorAll(".edit-card")).toHaveLength(1));
    expect(document.activeElement).toBe(screen.root.querySelector('[data-edit-id="e3"]'));
  });
});

describe("groups of pending edits", () => {
  it("groups by agent; a document's group with the same edits is left out", () => {
    expect(editGroups([edit, another("e2"), another("e3", "Cursor", "d2")])).toEqual([
      { key: "agent:Claude Code", by: "agent", name: "Claude Code", ids: [edit.id, "e2"] },
    ]);
  });

  it("groups by document when several agents edit it", () => {
    expect(editGroups([edit, another("e2", "Cursor")])).toEqual([
      { key: `document:${edit.document_id}`, by: "document", name: "Meeting notes", ids: [edit.id, "e2"] },
    ]);
  });

  it("has no group for single edits", () => {
    expect(editGroups([edit, another("e2", "Cursor", "d2")])).toEqual([]);
  });
});

describe("deciding a group", () => {
  async function mount(pending: EditRecord[], decide_all: () => EditRecord[]) {
    let decided = false;
    const calls = mockCommands({
      list_pending: () => (decided ? [] : pending),
      decide_all: () => {
        decided = true;
        return outcome(decide_all());
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    return { screen, calls };
  }

  it("shows the toolbars above the cards, outside them, with the counts", async () => {
    const { screen } = await mount([edit, another("e2"), another("e3", "Cursor")], () => []);
    const group = screen.root.querySelector<HTMLElement>(".groups")!;
    expect(group.hidden).toBe(false);
    expect([...group.querySelectorAll(".group-label")].map((e) => e.textContent)).toEqual(["2 edits by Claude Code", "3 edits to Meeting notes"]);
    expect([...group.querySelectorAll(".group > .actions button:not([hidden])")].map((e) => e.textContent)).toEqual([
      "Approve all (2)", "Reject all (2)…", "Approve all (3)", "Reject all (3)…",
    ]);
    expect(group.compareDocumentPosition(screen.root.querySelector(".edit-card")!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(screen.root.querySelector(".edit-card .group")).toBeNull();
    expect(screen.root.querySelector(".edit-card button.primary")!.textContent).toBe("Approve");
  });

  it("Approve all sends decide_all with the ids of the agent's cards, then reloads", async () => {
    const { screen, calls } = await mount([edit, another("e2")], () => [{ ...edit, status: "applied" }, { ...another("e2"), status: "conflict" }]);
    button(screen.root, "Approve all (2)").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")!.textContent).toBe("No edit waits for you."));
    expect(calls).toEqual([
      ["list_pending", {}],
      ["decide_all", { decision: "approve", ids: [edit.id, "e2"], comment: null }],
      ["list_pending", {}],
    ]);
    expect(texts(screen.root, ".notice p")).toEqual([
      "Approved 2 edits by Claude Code: 1 applied, 1 conflict.",
      "1 applied edit is not yet saved in Docs: History shows when it is.",
      "Not applied: the edit of Claude Code to Meeting notes conflicts with a change made to the document since its preview.",
    ]);
    expect(screen.root.querySelector<HTMLElement>(".groups")!.hidden).toBe(true);
  });

  it("Reject all sends the ids of the document's cards and the comment", async () => {
    const { screen, calls } = await mount([edit, another("e2", "Cursor")], () => [{ ...edit, status: "rejected" }, { ...another("e2"), status: "rejected" }]);
    button(screen.root, "Reject all (2)…").click();
    const form = screen.root.querySelector<HTMLFormElement>(".group .reject-form")!;
    expect(form.hidden).toBe(false);
    form.querySelector<HTMLTextAreaElement>(".reject-form textarea")!.value = " Not this week ";
    form.requestSubmit();
    await vi.waitFor(() => expect(screen.root.querySelector(".notice")!.textContent).toBe("Rejected 2 edits to Meeting notes."));
    expect(calls[1]).toEqual(["decide_all", { decision: "reject", ids: [edit.id, "e2"], comment: "Not this week" }]);
  });

  it("shows a failed group decision's message and hint, and re-enables its buttons", async () => {
    const { screen } = await mount([edit, another("e2")], () => failure("PAUSED", "agents are paused", "Resume agents first."));
    const approve = button(screen.root, "Approve all (2)");
    approve.click();
    await vi.waitFor(() => expect(screen.root.querySelector(".group-status")!.textContent).toBe("Agents are paused — Resume agents first."));
    expect(screen.root.querySelector(".group-status")!.classList.contains("error")).toBe(true);
    expect(approve.disabled).toBe(false);
  });

  it("keeps a toolbar being worked on when more edits come; its counts follow the cards", async () => {
    const { screen, calls } = await mount([edit, another("e2")], () => []);
    button(screen.root, "Reject all (2)…").click();
    expect(button(screen.root, "Send rejection (2)")).toBeTruthy();
    const textarea = screen.root.querySelector<HTMLTextAreaElement>(".group textarea")!;
    textarea.value = "half-typed";
    screen.render([edit, another("e2"), another("e3")]);
    expect(screen.root.querySelector(".group textarea")).toBe(textarea);
    expect(screen.root.querySelector(".group-label")!.textContent).toBe("3 edits by Claude Code");
    // The buttons count what a click sends: the three cards now shown.
    expect(screen.root.querySelector<HTMLFormElement>(".group .reject-form")!.hidden).toBe(false);
    button(screen.root, "Send rejection (3)").click();
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("decide_all"));
    expect(calls.find(([c]) => c === "decide_all")![1]).toEqual({ decision: "reject", ids: [edit.id, "e2", "e3"], comment: "half-typed" });
  });

  it("sends only the edits on screen: one stored after the render is not decided with them", async () => {
    const pending = [edit, another("e2")];
    const { screen, calls } = await mount(pending, () => []);
    // e3 is stored now (list_pending would return it); its event has not been rendered yet.
    pending.push(another("e3"));
    calls.length = 0;
    button(screen.root, "Approve all (2)").click();
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("decide_all"));
    expect(calls[0]).toEqual(["decide_all", { decision: "approve", ids: [edit.id, "e2"], comment: null }]);
  });

  it("keeps the ids of the click while a render comes during the decision", async () => {
    let answer!: (decided: GroupDecision) => void;
    const calls = mockCommands({
      list_pending: () => [edit, another("e2")],
      decide_all: () => new Promise<GroupDecision>((resolve) => (answer = resolve)),
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    button(screen.root, "Approve all (2)").click();
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("decide_all"));
    screen.render([edit, another("e2"), another("e3")]);
    // The running toolbar stays as clicked, every decision waits.
    expect(button(screen.root, "Approve all (2)").disabled).toBe(true);
    expect(texts(screen.root, ".group-status")).toEqual(["Approving… 0 of 2"]);
    expect([...screen.root.querySelectorAll<HTMLButtonElement>(".edit-card button")].every((b) => b.disabled)).toBe(true);
    answer(outcome([{ ...edit, status: "applied" }, { ...another("e2"), status: "applied" }]));
    await vi.waitFor(() => expect(screen.root.querySelector(".notice")!.textContent).not.toBe(""));
    expect(calls.filter(([c]) => c === "decide_all")).toEqual([["decide_all", { decision: "approve", ids: [edit.id, "e2"], comment: null }]]);
  });
});

describe("a group decision under way", () => {
  /** Three edits by Claude Code, one by Cursor elsewhere; decide_all waits for `answer`. */
  async function mountRunning() {
    let answer!: (decided: GroupDecision) => void;
    let pending = [edit, another("e2"), another("e3"), another("e4", "Cursor", "d2")];
    const calls = mockCommands({
      list_pending: () => pending,
      decide_all: () => new Promise<GroupDecision>((resolve) => (answer = resolve)),
      stop_decisions: () => null,
      approve_edit: () => ({ ...edit, status: "applied" }),
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    screen.root.querySelector(".notice")!.append("An older notice");
    button(screen.root, "Approve all (3)").click();
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("decide_all"));
    return {
      screen,
      calls,
      answer: (records: EditRecord[], left: EditRecord[]) => {
        pending = left;
        answer(outcome(records));
      },
    };
  }

  const changed = (id: string, status: EditRecord["status"]) =>
    ({ type: "edit_changed", edit_id: id, document_id: edit.document_id, status, agent: "Claude Code" }) as const;

  it("clears the old notice, counts the edits decided so far, and locks every other decision", async () => {
    const { screen } = await mountRunning();
    expect(screen.root.querySelector(".notice")!.textContent).toBe("");
    expect(texts(screen.root, ".group-status")).toEqual(["Approving… 0 of 3"]);
    screen.onEvent(changed(edit.id, "applying"));
    screen.onEvent(changed("e2", "applied"));
    // A second event for one edit, and one for an edit outside the group, count nothing.
    screen.onEvent(changed("e2", "applied"));
    screen.onEvent(changed("e4", "applying"));
    expect(texts(screen.root, ".group-status")).toEqual(["Approving… 2 of 3"]);
    screen.onEvent(changed("e3", "applying"));
    expect(texts(screen.root, ".group-status")).toEqual(["All 3 approved; waiting for Docs to confirm them…"]);
    const locked = [...screen.root.querySelectorAll<HTMLButtonElement>("button:not([hidden])")].filter((b) => b.textContent !== "Stop");
    expect(locked.length).toBeGreaterThan(0);
    expect(locked.every((b) => b.disabled)).toBe(true);
    expect(button(screen.root, "Stop").disabled).toBe(false);
  });

  it("Stop asks the service to stop; the notice says how many edits stay pending", async () => {
    const { screen, calls, answer } = await mountRunning();
    screen.onEvent(changed(edit.id, "applied"));
    button(screen.root, "Stop").click();
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("stop_decisions"));
    expect(texts(screen.root, ".group-status")).toEqual(["Stopping… 1 of 3 decided"]);
    expect(button(screen.root, "Stopping…").disabled).toBe(true);
    answer([{ ...edit, status: "applied" }], [another("e2"), another("e3"), another("e4", "Cursor", "d2")]);
    await vi.waitFor(() => expect(screen.root.querySelector(".notice")!.textContent).not.toBe(""));
    expect(texts(screen.root, ".notice p")).toEqual([
      "Applied 1 edit by Claude Code.",
      "1 applied edit is not yet saved in Docs: History shows when it is.",
      "Stopped: 2 edits were left pending.",
    ]);
    // Decisions are open again, and Stop is gone.
    expect(button(screen.root, "Approve all (2)").disabled).toBe(false);
    expect([...screen.root.querySelectorAll<HTMLButtonElement>(".edit-card button")].every((b) => !b.disabled)).toBe(true);
    expect([...screen.root.querySelectorAll<HTMLButtonElement>("button.stop")].every((b) => b.hidden)).toBe(true);
  });

  it("a Stop before any decision says that nothing was decided", async () => {
    const { screen, answer } = await mountRunning();
    button(screen.root, "Stop").click();
    answer([], [edit, another("e2"), another("e3"), another("e4", "Cursor", "d2")]);
    await vi.waitFor(() => expect(screen.root.querySelector(".notice")!.textContent).not.toBe(""));
    expect(texts(screen.root, ".notice p")).toEqual(["Stopped before any edit was decided: 3 edits stay pending."]);
  });

  it("tells outcomes after the cards, so nothing above them moves", async () => {
    mockCommands({});
    const screen = new PendingScreen();
    document.body.append(screen.root);
    screen.render([edit, another("e2")]);
    const notice = screen.root.querySelector(".notice")!;
    const list = screen.root.querySelector(".cards")!;
    const groups = screen.root.querySelector(".groups")!;
    expect(list.compareDocumentPosition(notice) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(groups.compareDocumentPosition(notice) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("keeps the toolbars in place when a new group comes", async () => {
    mockCommands({});
    const screen = new PendingScreen();
    document.body.append(screen.root);
    screen.render([another("e3", "Cursor", "d2"), another("e4", "Cursor", "d2")]);
    screen.render([edit, another("e2"), another("e3", "Cursor", "d2"), another("e4", "Cursor", "d2")]);
    expect(texts(screen.root, ".group-label")).toEqual(["2 edits by Cursor", "2 edits by Claude Code"]);
  });
});

describe("what became of a decision", () => {
  const conflictError = {
    code: "EDIT_CONFLICT",
    message: "Ada Lovelace changed block b1 since the preview",
    hint: "Ask the agent to read the document again and redo the edit.",
  };
  const notice = (screen: PendingScreen) => texts(screen.root, ".notice p");
  const problems = (screen: PendingScreen) => texts(screen.root, ".notice p.problem");

  /** The fixture edit pending; approve_edit answers `result` (then nothing is pending). */
  async function approveOne(result: EditRecord | Promise<EditRecord>) {
    let decided = false;
    const calls = mockCommands({
      list_pending: () => (decided ? [] : [edit]),
      approve_edit: () => {
        decided = true;
        return result;
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    button(screen.root, "Approve").click();
    return { screen, calls };
  }

  it("applied: says so, and that Docs has not saved it yet, and the card goes", async () => {
    const { screen } = await approveOne({ ...edit, status: "applied" });
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(notice(screen)).toEqual([
      "Applied the edit of Claude Code to Meeting notes. Not yet saved in Docs: History shows when it is.",
    ]);
    expect(problems(screen)).toEqual([]);
  });

  it("applied and saved (alone in the document, Docs saved it at once): says only applied", async () => {
    const { screen } = await approveOne({ ...edit, status: "applied", saved_at: 1795000061000 });
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(notice(screen)).toEqual(["Applied the edit of Claude Code to Meeting notes."]);
  });

  it("applying: says Docs has not confirmed it yet, the card leaves, and the confirmation is told when it comes", async () => {
    const { screen } = await approveOne({ ...edit, status: "applying" });
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(notice(screen)).toEqual([
      "Approved the edit of Claude Code to Meeting notes. Docs has not confirmed it yet: it will be saved as soon as the instance answers.",
    ]);
    screen.onEvent({ type: "edit_changed", edit_id: edit.id, document_id: edit.document_id, status: "applied", agent: "Claude Code" });
    expect(notice(screen)[1]).toBe("Docs confirmed the edit of Claude Code to Meeting notes: it is in the document. Not yet saved in Docs: History shows when it is.");
    // Told once.
    screen.onEvent({ type: "edit_changed", edit_id: edit.id, document_id: edit.document_id, status: "applied", agent: "Claude Code" });
    expect(notice(screen)).toHaveLength(2);
  });

  it("applying, then not applied after all: says so as a problem", async () => {
    const { screen } = await approveOne({ ...edit, status: "applying" });
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    screen.onEvent({ type: "edit_changed", edit_id: edit.id, document_id: edit.document_id, status: "conflict", agent: "Claude Code" });
    expect(problems(screen)).toEqual([
      "Not applied after all: the edit of Claude Code to Meeting notes conflicts with a change made to the document meanwhile. History says what changed.",
    ]);
  });

  it("applying, when the confirmation came before approve_edit's answer: tells it at once", async () => {
    let answer!: (record: EditRecord) => void;
    const { screen, calls } = await approveOne(new Promise<EditRecord>((resolve) => (answer = resolve)));
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("approve_edit"));
    screen.onEvent({ type: "edit_changed", edit_id: edit.id, document_id: edit.document_id, status: "applied", agent: "Claude Code" });
    answer({ ...edit, status: "applying" });
    await vi.waitFor(() => expect(notice(screen)).toHaveLength(2));
    expect(notice(screen)[1]).toBe("Docs confirmed the edit of Claude Code to Meeting notes: it is in the document. Not yet saved in Docs: History shows when it is.");
  });

  it("conflict: the edit is final, the card goes, the notice names the document, what changed and what to do", async () => {
    const { screen } = await approveOne({ ...edit, status: "conflict", error: conflictError });
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(problems(screen)).toEqual([
      "Not applied: the edit of Claude Code to Meeting notes conflicts with a change made to the document since its preview: " +
        "Ada Lovelace changed block b1 since the preview — Nothing was applied; ask the agent to redo it on the current text.",
    ]);
    expect(screen.root.querySelector(".edit-card")).toBeNull();
  });

  it("failed: likewise, with the record's reason", async () => {
    const error = { code: "WRITE_FAILED", message: "the collaboration server refused the change", hint: "Check your rights on the document." };
    const { screen } = await approveOne({ ...edit, status: "failed", error });
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(problems(screen)).toEqual([
      "Not applied: the edit of Claude Code to Meeting notes failed: the collaboration server refused the change — Check your rights on the document.",
    ]);
  });

  it("a group: counts each outcome, tells the applying ones, each one not applied and why, and those decided elsewhere", async () => {
    const ids = ["e1", "e2", "e3", "e4", "e5", "e6"];
    let decided = false;
    mockCommands({
      list_pending: () => (decided ? [] : ids.map((id) => another(id))),
      decide_all: () => {
        decided = true;
        return outcome([
          { ...another("e1"), status: "applied" },
          { ...another("e2"), status: "applied" },
          { ...another("e3"), status: "applying" },
          { ...another("e4", "Claude Code", "d2"), status: "conflict", error: conflictError },
          { ...another("e5"), status: "failed", error: null },
        ], ["e6"]);
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    button(screen.root, "Approve all (6)").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(notice(screen)).toEqual([
      "Approved 5 edits by Claude Code: 2 applied, 1 not yet confirmed by Docs, 1 conflict, 1 failed.",
      "2 applied edits are not yet saved in Docs: History shows when they are.",
      "Docs has not confirmed one of them yet: it will be saved as soon as the instance answers.",
      "Not applied: the edit of Claude Code to Plan conflicts with a change made to the document since its preview: " +
        "Ada Lovelace changed block b1 since the preview — Nothing was applied; ask the agent to redo it on the current text.",
      "Not applied: the edit of Claude Code to Meeting notes failed.",
      "1 edit was already decided elsewhere, and left as it was.",
    ]);
    expect(problems(screen)).toHaveLength(2);
    screen.onEvent({ type: "edit_changed", edit_id: "e3", document_id: edit.document_id, status: "applied", agent: "Claude Code" });
    expect(notice(screen).at(-1)).toBe("Docs confirmed the edit of Claude Code to Meeting notes: it is in the document. Not yet saved in Docs: History shows when it is.");
  });

  it("a group: an edit deciding failed for still waits, and the notice says why (not \"decided elsewhere\")", async () => {
    let decided = false;
    mockCommands({
      list_pending: () => (decided ? [another("e2")] : [edit, another("e2")]),
      decide_all: () => {
        decided = true;
        return {
          decided: [{ ...edit, status: "applied", saved_at: 1795000061000 }],
          failed: [{ id: "e2", error: { code: "INSTANCE_UNREACHABLE", message: "the instance did not answer", hint: "Check the network and the instance URL, then retry." } }],
          elsewhere: [],
        };
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    button(screen.root, "Approve all (2)").click();
    await vi.waitFor(() => expect(notice(screen)).not.toEqual([]));
    expect(notice(screen)).toEqual([
      "Applied 1 edit by Claude Code.",
      "Not decided, still waiting: the edit of Claude Code to Meeting notes: the instance did not answer — Check the network and the instance URL, then retry.",
    ]);
    expect(problems(screen)).toHaveLength(1);
  });

  it("a group whose edits were all decided elsewhere: says nothing was decided", async () => {
    mockCommands({ list_pending: () => [edit, another("e2")], decide_all: () => outcome([], [edit.id, "e2"]) });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    button(screen.root, "Approve all (2)").click();
    await vi.waitFor(() => expect(notice(screen)).toEqual(["Nothing decided: these edits were already decided elsewhere."]));
  });

  it("a rejection without a comment does not promise one", async () => {
    mockCommands({ list_pending: () => [edit], reject_edit: () => ({ ...edit, status: "rejected" }) });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    button(screen.root, "Reject…").click();
    screen.root.querySelector<HTMLFormElement>(".reject-form")!.requestSubmit();
    await vi.waitFor(() => expect(notice(screen)).toEqual(["Rejected the edit of Claude Code to Meeting notes."]));
  });

  it("the notice is a polite live region", () => {
    const screen = new PendingScreen();
    const region = screen.root.querySelector(".notice")!;
    expect([region.getAttribute("role"), region.getAttribute("aria-live")]).toEqual(["status", "polite"]);
  });
});

describe("the keyboard", () => {
  const key = (k: string, init: KeyboardEventInit = {}, target: EventTarget = document.activeElement ?? document.body) => {
    const event = new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...init });
    target.dispatchEvent(event);
    return event;
  };

  async function mountCards() {
    const calls = mockCommands({
      list_pending: () => [edit, another("e2", "Cursor", "d2")],
      approve_edit: () => ({ ...edit, status: "applied" }),
      reject_edit: () => ({ ...edit, status: "rejected" }),
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    const card = (id: string) => screen.root.querySelector<HTMLElement>(`[data-edit-id="${id}"]`)!;
    return { screen, calls, card };
  }

  it("j and k move between cards; the arrows do once on a card", async () => {
    const { card } = await mountCards();
    expect(key("j").defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(card(edit.id));
    key("j");
    expect(document.activeElement).toBe(card("e2"));
    key("j");
    expect(document.activeElement).toBe(card("e2"));
    key("ArrowUp");
    expect(document.activeElement).toBe(card(edit.id));
    key("ArrowDown");
    expect(document.activeElement).toBe(card("e2"));
    key("k");
    expect(document.activeElement).toBe(card(edit.id));
    (document.activeElement as HTMLElement).blur();
    expect(key("ArrowDown").defaultPrevented).toBe(false);
  });

  it("a approves the edit at hand", async () => {
    const { calls, card } = await mountCards();
    card("e2").focus();
    key("a");
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("approve_edit"));
    expect(calls.find(([c]) => c === "approve_edit")![1]).toEqual({ id: "e2" });
  });

  it("r opens the rejection; typing there is text, Ctrl+Enter sends, Escape cancels", async () => {
    const { calls, card } = await mountCards();
    card(edit.id).focus();
    key("r");
    const comment = card(edit.id).querySelector<HTMLTextAreaElement>(".reject-form textarea")!;
    expect(document.activeElement).toBe(comment);
    expect(key("a", {}, comment).defaultPrevented).toBe(false);
    expect(calls.map(([c]) => c)).not.toContain("approve_edit");
    comment.value = "Not now";
    key("Escape", {}, comment);
    expect(card(edit.id).querySelector<HTMLFormElement>(".reject-form")!.hidden).toBe(true);
    expect(document.activeElement).toBe(card(edit.id).querySelector("button.reject"));
    key("r");
    key("Enter", { ctrlKey: true }, comment);
    await vi.waitFor(() => expect(calls.map(([c]) => c)).toContain("reject_edit"));
    expect(calls.find(([c]) => c === "reject_edit")![1]).toEqual({ id: edit.id, comment: "Not now" });
  });

  it("a held a (its repeats) never decides", async () => {
    const { calls, card } = await mountCards();
    card("e2").focus();
    expect(key("a", { repeat: true }).defaultPrevented).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls.map(([c]) => c)).not.toContain("approve_edit");
  });

  it("a doubled a approves one edit: the card the focus then comes to is not decided by it", async () => {
    let pending = [edit, another("e2", "Cursor", "d2")];
    const calls = mockCommands({
      list_pending: () => pending,
      approve_edit: ({ id }) => {
        pending = pending.filter((e) => e.id !== id);
        return { ...edit, id, status: "applied" };
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    screen.root.querySelector<HTMLElement>(`[data-edit-id="${edit.id}"]`)!.focus();
    key("a");
    const next = screen.root.querySelector<HTMLElement>('[data-edit-id="e2"]')!;
    await vi.waitFor(() => expect(document.activeElement).toBe(next));
    key("a");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls.filter(([c]) => c === "approve_edit")).toEqual([["approve_edit", { id: edit.id }]]);
  });

  it("? shows and hides the list of shortcuts", async () => {
    const { screen } = await mountCards();
    const list = screen.root.querySelector<HTMLDetailsElement>("details.shortcuts")!;
    expect(list.open).toBe(false);
    key("?");
    expect(list.open).toBe(true);
    expect(texts(list, "dt")).toEqual(["j / k", "a", "r", "Ctrl+Enter", "?"]);
    key("?");
    expect(list.open).toBe(false);
  });

  it("does nothing while the screen is hidden", async () => {
    const { screen, calls } = await mountCards();
    screen.root.hidden = true;
    expect(key("j").defaultPrevented).toBe(false);
    key("a");
    expect(calls.map(([c]) => c)).not.toContain("approve_edit");
  });
});

describe("when an edit was asked", () => {
  const now = 1795000000000;
  it.each([
    [now - 10_000, "just now"],
    [now - 5 * 60_000, "5 min ago"],
    [now - 3 * 3_600_000, "3 h ago"],
    [now - 26 * 3_600_000, "yesterday"],
    [now - 4 * 86_400_000, "4 days ago"],
    [now + 60_000, "just now"],
  ])("%d reads %j", (ms, text) => {
    expect(relativeTime(ms, now)).toBe(text);
  });

  it("says how long ago on the card, the exact time on hover", () => {
    const card = renderEditCard(edit, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    const time = card.querySelector("time")!;
    expect(time.getAttribute("title")).toBe(formatTime(edit.created_at));
    expect(time.textContent).toBe(relativeTime(edit.created_at));
  });
});

describe("a card whose edit no longer applies", () => {
  it("says so, with why and what to do, once the service finds the change; and stops when it is gone", async () => {
    let changed = [{ id: "e2", reason: "block b1 was changed by someone else in the document since the edit was proposed", now: "The team ships on **Friday**, says Ada" }];
    const calls = mockCommands({
      list_pending: () => [edit, another("e2")],
      changed_since_proposed: () => changed,
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    const note = (id: string) => screen.root.querySelector<HTMLElement>(`[data-edit-id="${id}"] .changed-since`)!;
    await vi.waitFor(() => expect(note("e2").hidden).toBe(false));
    expect(note("e2").textContent).toBe(
      "Changed since the agent asked: block b1 was changed by someone else in the document since the edit was proposed. It now reads: The team ships on **Friday**, says Ada. Approving it would be refused as a conflict: reject it, or ask the agent to redo it.",
    );
    expect(note(edit.id).hidden).toBe(true);
    expect(calls.find(([c]) => c === "changed_since_proposed")![1]).toEqual({ ids: [edit.id, "e2"] });

    // A change to the document is checked again, once for a burst of changes.
    vi.useFakeTimers();
    try {
      changed = [];
      const before = calls.filter(([c]) => c === "changed_since_proposed").length;
      for (let i = 0; i < 5; i++) screen.onEvent({ type: "document_changed", document_id: edit.document_id, revision: `r${i}` });
      screen.onEvent({ type: "document_changed", document_id: "another-document", revision: "r9" });
      await vi.advanceTimersByTimeAsync(600);
      expect(calls.filter(([c]) => c === "changed_since_proposed")).toHaveLength(before + 1);
    } finally {
      vi.useRealTimers();
    }
    await vi.waitFor(() => expect(note("e2").hidden).toBe(true));
  });
});

describe("approving with one's own text", () => {
  const rewrite: EditRecord = {
    ...edit,
    id: "e9",
    tool: "update_block",
    preview: {
      ...edit.preview,
      before: [{
        block_id: "b1", block_type: "heading", markdown: "## The team ships on Monday", text: "The team ships on Monday",
        block: { id: "b1", type: "heading", props: { level: 2 }, children: [], content: [{ type: "text", text: "The team ships on Monday", styles: {} }] },
      }],
      after: [{
        block_id: "b1", block_type: "heading", markdown: "## The team ships on **Friday**", text: "The team ships on **Friday**",
        block: { id: "b1", type: "heading", props: { level: 2 }, children: [], content: [{ type: "text", text: "The team ships on ", styles: {} }, { type: "text", text: "Friday", styles: { bold: true } }] },
      }],
    },
  };

  it("is offered for one block's rewrite, prefilled with the agent's text without its block marker", () => {
    const card = renderEditCard(rewrite, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    document.body.append(card);
    button(card, "Edit text…").click();
    const area = card.querySelector<HTMLTextAreaElement>(".amend-form textarea")!;
    expect(area.value).toBe("The team ships on **Friday**");
    expect(document.activeElement).toBe(area);
    // An insert of one block: its text too, the block staying what the agent made.
    const insert = renderEditCard({ ...rewrite, tool: "insert_blocks", new_blocks: ["b1"] }, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    button(insert, "Edit text…").click();
    expect(insert.querySelector<HTMLTextAreaElement>(".amend-form textarea")!.value).toBe("The team ships on **Friday**");
    // A find-and-replace in one block: the block's text, as for a rewrite.
    const replace = renderEditCard({ ...rewrite, tool: "replace_text", touched_blocks: ["b1"] }, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    button(replace, "Edit text…").click();
    expect(replace.querySelector<HTMLTextAreaElement>(".amend-form textarea")!.value).toBe("The team ships on **Friday**");
    for (const other of [
      { ...rewrite, tool: "delete_blocks" },
      { ...rewrite, tool: "insert_blocks", new_blocks: ["b1", "b2"] },
      { ...rewrite, tool: "replace_text", touched_blocks: ["b1", "b2"] },
      // A block with no text (an image): nothing to rewrite.
      { ...rewrite, preview: { ...rewrite.preview, after: [{ ...rewrite.preview.after[0], text: undefined }] } },
    ]) {
      const card = renderEditCard(other, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
      expect([...card.querySelectorAll("button")].map((b) => b.textContent)).not.toContain("Edit text…");
    }
  });

  it("sends approve_with_text with the person's text, and says what was applied", async () => {
    let decided = false;
    const calls = mockCommands({
      list_pending: () => (decided ? [] : [rewrite]),
      approve_with_text: ({ text }) => {
        decided = true;
        return { ...rewrite, status: "applied", approved_text: text };
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    button(screen.root, "Edit text…").click();
    const area = screen.root.querySelector<HTMLTextAreaElement>(".amend-form textarea")!;
    area.value = "  The team ships on **Thursday**  ";
    button(screen.root, "Approve with this text").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(calls.find(([c]) => c === "approve_with_text")![1]).toEqual({ id: "e9", text: "The team ships on **Thursday**" });
    expect(screen.root.querySelector(".notice")!.textContent).toBe(
      "Applied your text in place of the edit of Claude Code to Meeting notes; the agent is told. Not yet saved in Docs: History shows when it is.",
    );
  });

  it("shows the block as it will read beside the text, the person's changes to the document marked", async () => {
    vi.useFakeTimers();
    try {
      const previewText = vi.fn(async (text: string) => [{ type: "text" as const, text: text.replaceAll("*", ""), styles: {} }]);
      const card = renderEditCard(rewrite, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn(), previewText });
      document.body.append(card);
      button(card, "Edit text…").click();
      await vi.advanceTimersByTimeAsync(0);
      const preview = card.querySelector(".text-preview")!;
      expect(preview.querySelector(".preview-label")!.textContent).toBe("As it will read");
      expect(preview.querySelector(".bn-h2")).not.toBeNull();
      expect(texts(preview, "ins")).toEqual(["Friday"]);
      expect(texts(preview, "del")).toEqual(["Monday"]);

      const area = card.querySelector<HTMLTextAreaElement>(".amend-form textarea")!;
      area.value = "The team ships on Monday, at noon";
      for (let i = 0; i < 3; i++) {
        area.dispatchEvent(new Event("input"));
        await vi.advanceTimersByTimeAsync(TEXT_PREVIEW_DELAY_MS - 1);
      }
      expect(previewText).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(previewText).toHaveBeenLastCalledWith("The team ships on Monday, at noon");
      // Only what was added is marked: the comma after "Monday" is no removal of "Monday".
      expect(texts(preview, "ins")).toEqual([", at noon"]);
      expect(texts(preview, "del")).toEqual([]);

      previewText.mockRejectedValueOnce({ code: "INVALID_INPUT", message: "the link has no target", hint: "Write [text](url)." });
      area.value = "[broken]()";
      area.dispatchEvent(new Event("input"));
      await vi.advanceTimersByTimeAsync(TEXT_PREVIEW_DELAY_MS);
      expect(preview.querySelector(".error")!.textContent).toBe("The link has no target — Write [text](url).");
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses an empty text without deciding", async () => {
    const approveWithText = vi.fn();
    const card = renderEditCard(rewrite, { approve: vi.fn(), reject: vi.fn(), approveWithText, approveParts: vi.fn() });
    document.body.append(card);
    button(card, "Edit text…").click();
    card.querySelector<HTMLTextAreaElement>(".amend-form textarea")!.value = "   ";
    button(card, "Approve with this text").click();
    expect(approveWithText).not.toHaveBeenCalled();
    expect(card.querySelector(".card-status")!.textContent).toBe("Give the text to apply, or Cancel.");
  });
});

describe("a comment an agent proposes", () => {
  const actions = () => ({ approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
  const comment: EditRecord = {
    ...edit,
    tool: "add_comment",
    preview: { before: [], after: [], diff: [], words_added: 0, words_removed: 0 },
    proposed_comment: { action: "add", block_id: "b1", quoted_text: "ship on Monday", body: "Is **Monday** still right?" },
  };

  it("shows the text it is about and what it says, not a diff, and cannot be rewritten", () => {
    const card = renderEditCard(comment, actions());
    expect(card.querySelector("h3")!.textContent).toBe("Claude Code wants to comment on Meeting notes");
    expect(card.querySelector(".comment-preview .quoted")!.textContent).toBe("On ship on Monday");
    expect(card.querySelector(".comment-preview q")!.textContent).toBe("ship on Monday");
    expect(card.querySelector(".comment-body")!.textContent).toBe("Is **Monday** still right?");
    expect(card.querySelector(".diff")).toBeNull();
    expect(card.querySelector(".words")).toBeNull();
    expect(card.querySelector(".amend")).toBeNull();
    expect(card.querySelector(".tool")!.textContent).toBe("add_comment");
    // As Docs shows it, when the record has the comment's blocks.
    const rendered = renderEditCard({
      ...comment,
      proposed_comment: {
        ...comment.proposed_comment!,
        body_blocks: [{
          id: "c1", type: "paragraph", props: {}, children: [],
          content: [{ type: "text", text: "Is ", styles: {} }, { type: "text", text: "Monday", styles: { bold: true } }, { type: "text", text: " still right?", styles: {} }],
        }],
      },
    }, actions());
    expect(rendered.querySelector(".comment-body")!.textContent).toBe("Is Monday still right?");
    expect(rendered.querySelector(".comment-body strong")!.textContent).toBe("Monday");
  });

  it("says what a thread change does, and where the thread is", () => {
    const resolve = renderEditCard(
      { ...comment, tool: "resolve_comment", proposed_comment: { action: "resolve", thread_id: "t1", quoted_text: "ship on Monday" } },
      actions(),
    );
    expect(resolve.querySelector("h3")!.textContent).toBe("Claude Code wants to resolve a comment on Meeting notes");
    expect(resolve.querySelector(".quoted")!.textContent).toBe("The thread on ship on Monday");
    expect(resolve.querySelector(".comment-body")).toBeNull();
    const reply = renderEditCard(
      { ...comment, tool: "reply_comment", proposed_comment: { action: "reply", thread_id: "t1", body: "Done." } },
      actions(),
    );
    expect(reply.querySelector("h3")!.textContent).toBe("Claude Code wants to reply to a comment on Meeting notes");
    expect(reply.querySelector(".quoted")!.textContent).toBe("A thread attached to no text");
    expect(reply.querySelector(".comment-body")!.textContent).toBe("Done.");
  });
});

describe("change by change", () => {
  const threeParts: EditRecord = {
    ...edit,
    id: "e3",
    tool: "apply_edits",
    parts: [
      { label: "Replace “Monday” with “Friday”", text: null },
      { label: "Rewrite “Old intro” as “New intro”", text: "New intro" },
      { label: "Delete “Notes”", text: null },
    ],
  };

  it("lists the parts, all checked; Approve checked parts shows only when some, not all, are checked", () => {
    const card = renderEditCard(threeParts, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    document.body.append(card);
    expect(card.querySelector(".parts legend")!.textContent).toBe("Parts (uncheck those to refuse; rewrite a block's text with Edit)");
    expect([...card.querySelectorAll(".parts label")].map((l) => l.textContent)).toEqual(threeParts.parts!.map((p) => p.label));
    // Only the rewrite has a text to change.
    expect(card.querySelectorAll(".parts .edit-part").length).toBe(1);
    const boxes = [...card.querySelectorAll<HTMLInputElement>(".parts input[type=checkbox]")];
    expect(boxes.map((b) => b.checked)).toEqual([true, true, true]);
    const partial = button(card, "Approve checked parts");
    // All checked as asked: Approve is it, and nothing beside it says the same.
    expect(partial.hidden).toBe(true);
    boxes[1].click();
    expect([partial.hidden, partial.disabled]).toEqual([false, false]);
    boxes[0].click();
    boxes[2].click();
    expect([partial.hidden, partial.disabled]).toEqual([false, true]);
    // Without a part to rewrite, the legend does not mention Edit.
    const inserts = renderEditCard({ ...threeParts, parts: threeParts.parts!.map((p) => ({ ...p, text: null })) }, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    expect(inserts.querySelector(".parts legend")!.textContent).toBe("Parts (uncheck those to refuse)");
    const single = renderEditCard(edit, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts: vi.fn() });
    expect(single.querySelector(".parts")).toBeNull();
    expect([...single.querySelectorAll("button")].map((b) => b.textContent)).not.toContain("Approve checked parts");
  });

  it("sends approve_parts with the checked indexes, and says how much was applied", async () => {
    let decided = false;
    const calls = mockCommands({
      list_pending: () => (decided ? [] : [threeParts]),
      approve_parts: ({ parts }) => {
        decided = true;
        return { ...threeParts, status: "applied", approved_parts: parts };
      },
    });
    const screen = new PendingScreen();
    document.body.append(screen.root);
    await screen.load();
    screen.root.querySelectorAll<HTMLInputElement>(".parts input")[1].click();
    button(screen.root, "Approve checked parts").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".empty")).not.toBeNull());
    expect(calls.find(([c]) => c === "approve_parts")![1]).toEqual({ id: "e3", parts: [0, 2], texts: {} });
    expect(screen.root.querySelector(".notice")!.textContent).toBe(
      "Applied 2 of 3 parts of the edit of Claude Code to Meeting notes; the agent is told which. Not yet saved in Docs: History shows when it is.",
    );
  });

  it("sends the person's text for a rewritten part, and only when changed", async () => {
    const approveParts = vi.fn();
    const card = renderEditCard(threeParts, { approve: vi.fn(), reject: vi.fn(), approveWithText: vi.fn(), approveParts });
    document.body.append(card);
    const partial = button(card, "Approve checked parts");
    button(card, "Edit").click();
    const area = card.querySelector<HTMLTextAreaElement>(".part-text")!;
    expect(area.hidden).toBe(false);
    expect(area.value).toBe("New intro");
    expect(document.activeElement).toBe(area);
    expect(partial.hidden).toBe(true);
    area.value = "A **better** intro";
    area.dispatchEvent(new Event("input"));
    // Every part kept, one rewritten: that is a change too.
    expect([partial.hidden, partial.disabled]).toEqual([false, false]);
    partial.click();
    await vi.waitFor(() => expect(approveParts).toHaveBeenCalled());
    expect(approveParts.mock.calls[0].slice(1)).toEqual([[0, 1, 2], { 1: "A **better** intro" }]);
  });
});
