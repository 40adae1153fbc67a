import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatTime } from "../src/dom";
import { SessionsScreen } from "../src/screens/sessions";
import { session } from "./fixtures";
import { button, failure, mockCommands, texts } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

function mount() {
  const screen = new SessionsScreen();
  document.body.append(screen.root);
  return screen;
}

describe("the sessions screen", () => {
  it("renders one row per session: title, agents, people, state, edits, writes, open comments, activity, Disconnect", async () => {
    mockCommands({ list_sessions: () => [session] });
    const screen = mount();
    await screen.load();
    expect(texts(screen.root, "thead th")).toEqual([
      "Document", "Agents", "People in the room", "State", "Agents' edits", "Not yet saved in Docs", "Open comments", "Last activity", "Actions",
    ]);
    expect(texts(screen.root, "tbody tr > *")).toEqual([
      "Meeting notes", "Claude Code, Cursor", "Ada, Claude Code", "Connected", "3 applied, 2 waiting for you", "2", "4", formatTime(1795000000000), "Disconnect",
    ]);
    expect(screen.root.querySelector("tbody th")!.getAttribute("scope")).toBe("row");
  });

  it("says what it does not know as a dash, and no edits as None", async () => {
    mockCommands({ list_sessions: () => [{ ...session, agents: [], edits_applied: 0, edits_pending: 0 }] });
    const screen = mount();
    await screen.load();
    expect(texts(screen.root, "tbody td")[0]).toBe("—");
    expect(texts(screen.root, "tbody td")[3]).toBe("None");
    mockCommands({ list_sessions: () => [{ ...session, edits_applied: 0, edits_pending: 1 }] });
    await screen.load();
    expect(texts(screen.root, "tbody td")[3]).toBe("1 waiting for you");
  });

  it("shows a dash when Docs did not say how many comment threads are open", async () => {
    mockCommands({ list_sessions: () => [{ ...session, open_threads: null }] });
    const screen = mount();
    await screen.load();
    expect(screen.root.querySelector(".open-threads")!.textContent).toBe("—");
  });

  it("says when no document is open", async () => {
    mockCommands({ list_sessions: () => [] });
    const screen = mount();
    await screen.load();
    expect(screen.root.querySelector(".no-items")!.textContent).toBe("No document is open.");
  });

  it("Disconnect sends disconnect_session {document_id}, then reloads", async () => {
    let open = [session];
    const calls = mockCommands({
      list_sessions: () => open,
      disconnect_session: () => {
        open = [];
        return null;
      },
    });
    const screen = mount();
    await screen.load();
    button(screen.root, "Disconnect").click();
    await vi.waitFor(() => expect(screen.root.querySelector(".no-items")).not.toBeNull());
    expect(calls).toEqual([
      ["list_sessions", {}],
      ["disconnect_session", { document_id: session.document_id }],
      ["list_sessions", {}],
    ]);
    expect(screen.root.querySelector(".form-status")!.textContent).toBe("Disconnected from Meeting notes.");
  });

  it("shows a failed disconnection's message and hint", async () => {
    mockCommands({
      list_sessions: () => [session],
      disconnect_session: () => failure("NOT_FOUND", "no session for this document", "It closed already."),
    });
    const screen = mount();
    await screen.load();
    await screen.disconnect(session.document_id, "Meeting notes");
    expect(screen.root.querySelector(".form-status.error")!.textContent).toBe("No session for this document — It closed already.");
  });

  it("reloads on sessions_changed", async () => {
    let open = [session];
    mockCommands({ list_sessions: () => open });
    const screen = mount();
    await screen.load();
    open = [{ ...session, edits_pending: 0, collaborators: [] }];
    screen.onEvent({ type: "sessions_changed" });
    await vi.waitFor(() => expect(texts(screen.root, "tbody td")[1]).toBe("—"));
    expect(texts(screen.root, "tbody td")[3]).toBe("3 applied");
  });

  it("reloads on edit_changed: the counts follow decisions", async () => {
    let open = [session];
    const calls = mockCommands({ list_sessions: () => open });
    const screen = mount();
    await screen.load();
    open = [{ ...session, edits_applied: 7, edits_pending: 0 }];
    screen.onEvent({ type: "edit_changed", edit_id: "e", document_id: session.document_id, status: "applied", agent: "Claude" });
    await vi.waitFor(() => expect(texts(screen.root, "tbody td")[3]).toBe("7 applied"));
    expect(calls).toHaveLength(2);
  });
});
