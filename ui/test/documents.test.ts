import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DocumentsScreen, KNOWN_RELOAD_DELAY_MS, SEARCH_DELAY_MS } from "../src/screens/documents";
import type { DocumentList } from "../src/types";
import { documentRow, overview, signedIn } from "./fixtures";
import { button, failure, mockCommands, texts } from "./ipc";

afterEach(() => {
  clearMocks();
  vi.useRealTimers();
  document.body.replaceChildren();
});

const notes = documentRow("a", { title: "Meeting notes", is_favorite: true });
const untitled = documentRow("b", { title: null, updated_at: null, policy: "read-only", effective_policy: "read-only" });
const list = (...documents: DocumentList["documents"]): DocumentList => ({ documents, has_more: false });

function mount() {
  const screen = new DocumentsScreen();
  document.body.append(screen.root);
  return screen;
}

const select = (screen: DocumentsScreen, id: string) =>
  screen.root.querySelector<HTMLSelectElement>(`tr[data-document-id="${id}"] select`)!;

function choose(el: HTMLSelectElement | HTMLInputElement, value?: string) {
  if (value !== undefined) el.value = value;
  else (el as HTMLInputElement).checked = true;
  el.dispatchEvent(new Event("change"));
}

describe("the documents screen, signed out", () => {
  it("lists the known documents: title, favorite mark, when last used here, policy", async () => {
    const used = { ...notes, updated_at: null, last_used_at: Date.parse("2026-11-19T10:00:00Z") };
    const calls = mockCommands({ list_documents: () => list(used, untitled) });
    const screen = mount();
    screen.setOverview(overview);
    await vi.waitFor(() => expect(screen.root.querySelectorAll("tbody tr")).toHaveLength(2));
    expect(calls).toEqual([["list_documents", { source: "known", query: null, page: null }]]);
    expect(screen.root.querySelector<HTMLElement>(".browse")!.hidden).toBe(true);
    expect(texts(screen.root, "tbody th")).toEqual(["Meeting notes ★", "Untitled"]);
    expect(screen.root.querySelector(".favorite")!.getAttribute("aria-label")).toBe("favorite");
    expect(texts(screen.root, "thead th")).toEqual(["Document", "Last used here", "Policy", "Actions"]);
    expect(screen.root.querySelector("tbody time")!.getAttribute("datetime")).toBe("2026-11-19T10:00:00.000Z");
    expect(texts(screen.root, 'tr[data-document-id="b"] td')[0]).toBe("—");
    expect(select(screen, "a").getAttribute("aria-label")).toBe("Policy for Meeting notes");
    expect([...select(screen, "a").options].map((o) => [o.value, o.text])).toEqual([
      ["", "Default (Review)"],
      ["auto", "Automatic"],
      ["review", "Review"],
      ["read-only", "Read-only"],
      ["comment-only", "Comment only"],
    ]);
    expect([select(screen, "a").value, select(screen, "b").value]).toEqual(["", "read-only"]);
    expect(texts(screen.root, "tbody button")).toEqual(["Open in browser", "Open in browser"]);
  });

  it("reloads once after a burst of sessions_changed, keeping unchanged rows as they are", async () => {
    vi.useFakeTimers();
    let known = list(notes);
    const calls = mockCommands({ list_documents: () => known });
    const screen = mount();
    screen.setOverview(overview);
    await vi.advanceTimersByTimeAsync(0);
    const shown = screen.root.querySelector('tr[data-document-id="a"]');
    known = list(notes, untitled);
    for (let i = 0; i < 3; i++) screen.onEvent({ type: "sessions_changed" });
    await vi.advanceTimersByTimeAsync(KNOWN_RELOAD_DELAY_MS - 1);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    expect(texts(screen.root, "tbody th")).toEqual(["Meeting notes ★", "Untitled"]);
    expect(screen.root.querySelector('tr[data-document-id="a"]')).toBe(shown);
  });

  it("says how to get documents when none is known", async () => {
    mockCommands({ list_documents: () => list() });
    const screen = mount();
    screen.setOverview(overview);
    await vi.waitFor(() => expect(screen.root.querySelector<HTMLElement>(".no-items")!.hidden).toBe(false));
    expect(screen.root.querySelector(".no-items")!.textContent).toBe("No document yet: add one by URL below, or let an agent open one.");
    expect(screen.root.querySelector("table")!.hidden).toBe(true);
    expect(screen.root.querySelector(".empty")).toBeNull();
  });

  it("asks nothing before an instance is connected", () => {
    const calls = mockCommands({});
    const screen = mount();
    screen.setOverview({ ...overview, instance: null });
    expect(calls).toEqual([]);
    expect(screen.root.querySelector(".no-items")!.textContent).toBe("Connect a Docs instance first.");
  });

  it("adds a document by URL at the top of the list", async () => {
    const added = documentRow("c", { title: "Plan" });
    const calls = mockCommands({ list_documents: () => list(notes), add_document: () => added });
    const screen = mount();
    screen.setOverview(overview);
    await vi.waitFor(() => expect(screen.root.querySelectorAll("tbody tr")).toHaveLength(1));
    screen.root.querySelector<HTMLInputElement>("#add-document-url")!.value = " https://docs.example.org/docs/c/ ";
    await screen.add();
    expect(calls[1]).toEqual(["add_document", { url: "https://docs.example.org/docs/c/" }]);
    expect(texts(screen.root, "tbody th")).toEqual(["Plan", "Meeting notes ★"]);
    expect(screen.root.querySelector<HTMLInputElement>("#add-document-url")!.value).toBe("");
    expect(screen.root.querySelector(".add-document .form-status")!.textContent).toBe("Added Plan.");
  });

  it("shows why a document could not be added", async () => {
    mockCommands({
      list_documents: () => list(),
      add_document: () => failure("DOCUMENT_NOT_FOUND", "no document 0f4b at docs.example.org", "Check the URL; private documents need sign-in."),
    });
    const screen = mount();
    screen.setOverview(overview);
    screen.root.querySelector<HTMLInputElement>("#add-document-url")!.value = "0f4b";
    await screen.add();
    expect(screen.root.querySelector(".add-document .form-status.error")!.textContent).toBe(
      "No document 0f4b at docs.example.org — Check the URL; private documents need sign-in.",
    );
  });
});

describe("the demo's documents", () => {
  it("have no page to open (the demo server serves none)", async () => {
    mockCommands({ list_documents: () => list(notes) });
    const screen = mount();
    screen.setOverview({ ...overview, demo: true });
    await vi.waitFor(() => expect(screen.root.querySelectorAll("tbody tr")).toHaveLength(1));
    expect(screen.root.querySelector("tbody button")).toBeNull();
    expect(screen.root.querySelector("tbody .note")!.textContent).toBe("No page in the demo");
  });
});

describe("the documents screen, signed in", () => {
  it("shows the documents agents use first, then all documents, then the favorites", async () => {
    const used = documentRow("c", { title: "Used by Claude", updated_at: null, last_used_at: 1795000000000 });
    const calls = mockCommands({ list_documents: ({ source }) => ({ known: list(used), all: list(notes, untitled), favorites: list(notes) })[source as string]! });
    const screen = mount();
    screen.setOverview(signedIn);
    await vi.waitFor(() => expect(texts(screen.root, "tbody th")).toEqual(["Used by Claude"]));
    expect(screen.root.querySelector<HTMLElement>(".browse")!.hidden).toBe(false);
    expect(screen.root.querySelector("legend")!.textContent).toBe("Show");
    expect(texts(screen.root, ".source label")).toEqual([" Used by agents or added here", " All", " Favorites"]);
    expect(texts(screen.root, "thead th")[1]).toBe("Last used here");
    choose(screen.root.querySelector<HTMLInputElement>('input[value="all"]')!);
    await vi.waitFor(() => expect(screen.root.querySelectorAll("tbody tr")).toHaveLength(2));
    expect(texts(screen.root, "thead th")[1]).toBe("Updated");
    choose(screen.root.querySelector<HTMLInputElement>('input[value="favorites"]')!);
    await vi.waitFor(() => expect(screen.root.querySelectorAll("tbody tr")).toHaveLength(1));
    expect(calls).toEqual([
      ["list_documents", { source: "known", query: null, page: null }],
      ["list_documents", { source: "all", query: null, page: null }],
      ["list_documents", { source: "favorites", query: null, page: null }],
    ]);
  });

  it("searches once typing pauses", async () => {
    vi.useFakeTimers();
    const calls = mockCommands({ list_documents: ({ query }) => (query === "plan" ? list(documentRow("c", { title: "Plan" })) : list(notes)) });
    const screen = mount();
    screen.setOverview(signedIn);
    await vi.advanceTimersByTimeAsync(0);
    const search = screen.root.querySelector<HTMLInputElement>("#documents-search")!;
    expect(screen.root.querySelector(`label[for="documents-search"]`)!.textContent).toBe("Search titles");
    for (const typed of ["p", "pl", "plan"]) {
      search.value = typed;
      search.dispatchEvent(new Event("input"));
      await vi.advanceTimersByTimeAsync(SEARCH_DELAY_MS - 1);
    }
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([
      ["list_documents", { source: "known", query: null, page: null }],
      ["list_documents", { source: "known", query: "plan", page: null }],
    ]);
    expect(texts(screen.root, "tbody th")).toEqual(["Plan"]);
  });

  it("keeps the newest answer when an older one comes late", async () => {
    const answers: ((list: DocumentList) => void)[] = [];
    mockCommands({ list_documents: () => new Promise<DocumentList>((resolve) => answers.push(resolve)) });
    const screen = mount();
    screen.setOverview(signedIn);
    const search = screen.root.querySelector<HTMLInputElement>("#documents-search")!;
    search.value = "notes";
    search.form!.requestSubmit();
    await vi.waitFor(() => expect(answers).toHaveLength(2));
    answers[1](list(notes));
    await vi.waitFor(() => expect(texts(screen.root, "tbody th")).toEqual(["Meeting notes ★"]));
    answers[0](list(untitled));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(texts(screen.root, "tbody th")).toEqual(["Meeting notes ★"]);
  });

  it("loads more pages while the instance has more", async () => {
    const calls = mockCommands({
      list_documents: ({ page }) => (page === null ? { documents: [notes], has_more: true } : list(untitled)),
    });
    const screen = mount();
    screen.setOverview(signedIn);
    choose(screen.root.querySelector<HTMLInputElement>('input[value="all"]')!);
    await vi.waitFor(() => expect(button(screen.root, "Load more").hidden).toBe(false));
    button(screen.root, "Load more").click();
    await vi.waitFor(() => expect(screen.root.querySelectorAll("tbody tr")).toHaveLength(2));
    expect(calls.at(-1)).toEqual(["list_documents", { source: "all", query: null, page: 2 }]);
    expect(texts(screen.root, "tbody th")).toEqual(["Meeting notes ★", "Untitled"]);
    expect(button(screen.root, "Load more").hidden).toBe(true);
  });

  it("reloads when another account signs in, not on the same overview again", async () => {
    const calls = mockCommands({ list_documents: () => list(notes) });
    const screen = mount();
    screen.setOverview(signedIn);
    screen.setOverview(signedIn);
    screen.setOverview({ ...signedIn, account: { ...signedIn.account!, id: "u2" } });
    await vi.waitFor(() => expect(calls).toHaveLength(2));
  });
});

describe("policies", () => {
  async function loaded() {
    const calls = mockCommands({
      list_documents: () => list({ ...notes }, { ...untitled }),
      set_policy: ({ policy }) => (policy === "auto" ? null : failure("INVALID_INPUT", "refused", "Pick another policy.")),
      open_in_browser: () => null,
    });
    const screen = mount();
    screen.setOverview(overview);
    await vi.waitFor(() => expect(screen.root.querySelectorAll("tbody tr")).toHaveLength(2));
    return { screen, calls };
  }

  it("a document's select sends set_policy {document_id, policy}", async () => {
    const { screen, calls } = await loaded();
    choose(select(screen, "a"), "auto");
    await vi.waitFor(() => expect(screen.root.querySelector(".form-status")!.textContent).toBe("Policy of Meeting notes: Automatic."));
    expect(calls[1]).toEqual(["set_policy", { document_id: "a", policy: "auto" }]);
  });

  it("a refused policy shows message and hint, and the select goes back", async () => {
    const { screen, calls } = await loaded();
    choose(select(screen, "b"), "");
    await vi.waitFor(() => expect(screen.root.querySelector(".form-status.error")!.textContent).toBe("Refused — Pick another policy."));
    expect(calls[1]).toEqual(["set_policy", { document_id: "b", policy: null }]);
    expect(select(screen, "b").value).toBe("read-only");
  });

  it("follows policy_changed events, the document's and the default", async () => {
    const { screen } = await loaded();
    screen.onEvent({ type: "policy_changed", document_id: "b", policy: null });
    expect(select(screen, "b").value).toBe("");
    screen.onEvent({ type: "policy_changed", document_id: null, policy: "auto" });
    expect(select(screen, "a").options[0].text).toBe("Default (Automatic)");
    expect(select(screen, "b").options[0].text).toBe("Default (Automatic)");
    screen.onEvent({ type: "policy_changed", document_id: "a", policy: "read-only" });
    expect(select(screen, "a").value).toBe("read-only");
  });

  it("Open in browser sends open_in_browser {document_id, block_id: null}", async () => {
    const { screen, calls } = await loaded();
    screen.root.querySelector<HTMLButtonElement>('tr[data-document-id="b"] button')!.click();
    await vi.waitFor(() => expect(calls[1]).toEqual(["open_in_browser", { document_id: "b", block_id: null }]));
  });
});
