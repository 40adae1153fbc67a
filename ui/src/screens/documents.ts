// Documents: the user's documents (signed in) or the known ones (added by URL, opened by
// agents), and the policy that handles agents' writes to each.

import { h, showStatus, statusLine, timeElement } from "../dom";
import { isPolicy, POLICY_LABELS, policyOptions } from "../policy";
import { rpc } from "../rpc";
import type { DocumentRow, DocumentSource, Overview, Policy, ServiceEvent } from "../types";
import { showError } from "../failure";

/** Typing in the search box waits this long for the next key before asking the instance. */
export const SEARCH_DELAY_MS = 300;
/** Agents open documents in bursts (one `sessions_changed` per tool call): reload once after. */
export const KNOWN_RELOAD_DELAY_MS = 500;

interface Entry {
  row: DocumentRow;
  tr: HTMLElement;
  select: HTMLSelectElement;
}

function title(row: DocumentRow): string {
  return row.title?.trim() || "Untitled";
}

/** When the instance last changed it, or (a document known here, which the instance does not
 * date) when it was last used here. */
function dated(row: DocumentRow): Node | string {
  if (row.last_used_at !== null) return timeElement(row.last_used_at);
  const ms = row.updated_at ? Date.parse(row.updated_at) : NaN;
  return Number.isNaN(ms) ? "—" : timeElement(ms);
}

/** The sources a signed-in person picks from, in this order; "known" (the documents agents
 * used or the person added, with their policies) comes first: what agents have open is what
 * a person looks for here. */
const SOURCES = ["known", "all", "favorites"] as const;
const SOURCE_LABELS: Record<DocumentSource, string> = {
  known: " Used by agents or added here",
  all: " All",
  favorites: " Favorites",
};
/** The date column: the instance's own for its lists, the last use here for the known ones. */
const DATE_HEADERS: Record<DocumentSource, string> = { known: "Last used here", all: "Updated", favorites: "Updated" };

export class DocumentsScreen {
  readonly root: HTMLElement;
  private intro: HTMLElement;
  private browse: HTMLElement;
  private search: HTMLInputElement;
  private table: HTMLTableElement;
  private tbody: HTMLTableSectionElement;
  private dateHeader: HTMLElement;
  private note: HTMLElement;
  private moreButton: HTMLButtonElement;
  private status: HTMLElement;
  private addInput: HTMLInputElement;
  private addStatus: HTMLElement;
  private knownReloadTimer: ReturnType<typeof setTimeout> | undefined;
  private entries = new Map<string, Entry>();
  /** The instance and account the list was loaded for. */
  private loadedFor: string | null = null;
  private hasInstance = false;
  private source: DocumentSource = "known";
  private page = 1;
  /** Counts loads: a slower, older answer must not overwrite a newer one. */
  private generation = 0;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  private defaultPolicy: Policy | null = null;
  /** The demo runs: its documents have no page to open. */
  private demo = false;

  constructor() {
    this.intro = h("p", { class: "lead" });
    const sources = h("fieldset", { class: "source" },
      h("legend", {}, "Show"),
      ...SOURCES.map((source) => h("label", {},
        h("input", { type: "radio", name: "document-source", value: source, checked: source === "known", onchange: () => this.setSource(source) }),
        SOURCE_LABELS[source])),
    );
    this.search = h("input", { id: "documents-search", type: "search", name: "query", autocomplete: "off" });
    this.search.addEventListener("input", () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => void this.load(), SEARCH_DELAY_MS);
    });
    const searchForm = h("form", { role: "search", class: "search" },
      h("label", { for: "documents-search" }, "Search titles"),
      this.search,
    );
    searchForm.addEventListener("submit", (event) => {
      event.preventDefault();
      clearTimeout(this.searchTimer);
      void this.load();
    });
    this.browse = h("div", { class: "browse", hidden: true }, sources, searchForm);

    this.tbody = h("tbody");
    this.dateHeader = h("th", { scope: "col" }, DATE_HEADERS.known);
    this.table = h("table", { hidden: true },
      h("caption", { class: "visually-hidden" }, "Documents and their policies"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Document"), this.dateHeader, h("th", { scope: "col" }, "Policy"), h("th", { scope: "col" }, "Actions"))),
      this.tbody,
    );
    // Not `.empty`: the end-to-end test waits for the first `#main .empty`, the pending screen's.
    this.note = h("p", { class: "no-items", hidden: true });
    this.moreButton = h("button", { type: "button", class: "secondary", hidden: true, onclick: () => void this.load(true) }, "Load more");
    this.status = statusLine("form-status");

    this.addInput = h("input", {
      id: "add-document-url",
      name: "url",
      type: "text",
      required: true,
      placeholder: "https://docs.example.org/docs/…",
      "aria-describedby": "add-document-help",
    });
    this.addStatus = statusLine("form-status");
    const addForm = h("form", { class: "add-document" },
      h("label", { for: "add-document-url" }, "Add a document by URL"),
      this.addInput,
      h("p", { id: "add-document-help", class: "help" }, "Its address in the browser, or its id. Public documents work without signing in."),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary" }, "Add")),
      this.addStatus,
    );
    addForm.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.add();
    });

    this.root = h("section", { "aria-labelledby": "documents-title" },
      h("h2", { id: "documents-title" }, "Documents"),
      this.intro,
      h("p", { class: "help" }, "Policy: Automatic applies agents' edits at once; Review waits for your approval; Read-only refuses edits and comments; Comment only refuses edits and posts agents' comments at once; Default follows Settings."),
      this.browse,
      this.status,
      this.table,
      this.note,
      h("div", { class: "actions" }, this.moreButton),
      addForm,
    );
  }

  /** Reloads when the instance or the account changed. */
  setOverview(overview: Overview): void {
    this.demo = overview.demo;
    const key = JSON.stringify([overview.instance, overview.signed_in, overview.account?.id ?? null]);
    if (key === this.loadedFor) return;
    this.loadedFor = key;
    this.hasInstance = overview.instance !== null;
    this.browse.hidden = !overview.signed_in;
    this.intro.textContent = overview.signed_in
      ? "Your documents on the instance. Choose how agents' edits to each are handled."
      : "Not signed in: these are the documents added here or opened by agents. Public documents work; sign in (Connect) to list your own.";
    if (!this.hasInstance) {
      this.generation += 1;
      this.showRows([], false, "Connect a Docs instance first.");
      return;
    }
    this.source = overview.signed_in ? this.checkedSource() : "known";
    void this.load();
  }

  /** The default policy, as the "Default (…)" choice of each row says it. */
  setDefaultPolicy(policy: Policy): void {
    this.defaultPolicy = policy;
    for (const entry of this.entries.values()) this.refreshPolicy(entry);
  }

  private checkedSource(): DocumentSource {
    const checked = this.browse.querySelector<HTMLInputElement>('input[name="document-source"]:checked')?.value;
    return checked === "favorites" || checked === "all" ? checked : "known";
  }

  private setSource(source: DocumentSource): void {
    this.source = source;
    void this.load();
  }

  /** The first page, or the next one (`more`). */
  async load(more = false): Promise<void> {
    const generation = ++this.generation;
    const page = more ? this.page + 1 : 1;
    // Not signed in, the search is hidden: a title typed before signing out filters nothing.
    const query = this.browse.hidden ? "" : this.search.value.trim();
    this.moreButton.disabled = true;
    try {
      const list = await rpc("list_documents", { source: this.source, query: query || null, page: page === 1 ? null : page });
      if (generation !== this.generation) return;
      this.page = page;
      this.dateHeader.textContent = DATE_HEADERS[this.source];
      const rows = more ? [...[...this.entries.values()].map((e) => e.row), ...list.documents] : list.documents;
      this.showRows(rows, list.has_more, this.emptyText(query));
      if (!more) showStatus(this.status, "");
    } catch (error) {
      if (generation !== this.generation) return;
      showError(this.status, error);
    } finally {
      this.moreButton.disabled = false;
    }
  }

  private emptyText(query: string): string {
    if (query) return `No document matches “${query}”.`;
    if (this.source === "favorites") return "No favorite documents.";
    if (this.source === "known") return "No document yet: add one by URL below, or let an agent open one.";
    return "No documents.";
  }

  private showRows(rows: DocumentRow[], hasMore: boolean, emptyText: string): void {
    const focused = this.moreButton === document.activeElement;
    const old = this.entries;
    this.entries = new Map();
    for (const row of rows) {
      // Rows already shown stay (a focused policy select keeps its focus).
      const shown = old.get(row.id);
      const entry = shown && JSON.stringify(shown.row) === JSON.stringify(row) ? shown : this.renderRow(row);
      this.entries.set(row.id, entry);
      if (row.policy === null) this.defaultPolicy = row.effective_policy;
    }
    for (const entry of this.entries.values()) this.refreshPolicy(entry);
    this.tbody.replaceChildren(...[...this.entries.values()].map((e) => e.tr));
    this.table.hidden = rows.length === 0;
    this.note.hidden = rows.length > 0;
    this.note.textContent = emptyText;
    this.moreButton.hidden = !hasMore;
    // "Load more" disappears at the last page: the focus moves on to the last row.
    if (focused && !hasMore) this.tbody.lastElementChild?.querySelector("select")?.focus();
  }

  private renderRow(row: DocumentRow): Entry {
    const titleId = `document-${row.id}-title`;
    const name = title(row);
    const select = h("select", { class: "policy", "aria-label": `Policy for ${name}` }, h("option", { value: "" }), ...policyOptions());
    const entry: Entry = {
      row,
      select,
      tr: h("tr", { "data-document-id": row.id },
        h("th", { scope: "row", id: titleId },
          name,
          row.is_favorite ? [" ", h("span", { class: "favorite", role: "img", "aria-label": "favorite", title: "Favorite" }, "★")] : null),
        h("td", {}, dated(row)),
        h("td", {}, select),
        h("td", {}, this.demo
          // The demo's server has no pages for people: nothing to open.
          ? h("span", { class: "note" }, "No page in the demo")
          : h("button", {
            type: "button",
            class: "secondary",
            "aria-describedby": titleId,
            onclick: () => void this.open(row, name),
          }, "Open in browser")),
      ),
    };
    select.addEventListener("change", () => void this.setPolicy(entry, name));
    return entry;
  }

  private refreshPolicy(entry: Entry): void {
    entry.select.options[0].text = this.defaultPolicy ? `Default (${POLICY_LABELS[this.defaultPolicy]})` : "Default";
    entry.select.value = entry.row.policy ?? "";
  }

  private async setPolicy(entry: Entry, name: string): Promise<void> {
    const value = entry.select.value;
    const policy = isPolicy(value) ? value : null;
    try {
      await rpc("set_policy", { document_id: entry.row.id, policy });
      entry.row.policy = policy;
      showStatus(this.status, `Policy of ${name}: ${entry.select.selectedOptions[0].text}.`);
    } catch (error) {
      entry.select.value = entry.row.policy ?? "";
      showError(this.status, error);
    }
  }

  private async open(row: DocumentRow, name: string): Promise<void> {
    try {
      await rpc("open_in_browser", { document_id: row.id, block_id: null });
      showStatus(this.status, `Opened ${name} in the browser.`);
    } catch (error) {
      showError(this.status, error);
    }
  }

  async add(): Promise<void> {
    const url = this.addInput.value.trim();
    if (!url) return;
    try {
      const row = await rpc("add_document", { url });
      const rows = [row, ...[...this.entries.values()].map((e) => e.row).filter((r) => r.id !== row.id)];
      this.showRows(rows, !this.moreButton.hidden, this.note.textContent ?? "");
      this.addInput.value = "";
      showStatus(this.addStatus, `Added ${title(row)}.`);
    } catch (error) {
      showError(this.addStatus, error);
      this.addInput.focus();
    }
  }

  onEvent(event: ServiceEvent): void {
    if (event.type === "policy_changed") {
      if (event.document_id === null) {
        if (isPolicy(event.policy)) this.setDefaultPolicy(event.policy);
        return;
      }
      const entry = this.entries.get(event.document_id);
      if (!entry) return;
      entry.row.policy = isPolicy(event.policy) ? event.policy : null;
      this.refreshPolicy(entry);
    }
    // Whoever is signed in now: the overview that follows reloads the list.
    if (event.type === "account_changed") this.loadedFor = null;
    // A document an agent opens becomes known.
    if (event.type === "sessions_changed" && this.source === "known" && this.hasInstance) {
      clearTimeout(this.knownReloadTimer);
      this.knownReloadTimer = setTimeout(() => void this.load(), KNOWN_RELOAD_DELAY_MS);
    }
    if (event.type === "resync" && this.hasInstance) void this.load();
  }
}
