// The shell: header (instance, endpoint, pause), navigation, the screens, and the one event
// stream that keeps them current.

import { h, showPassing, showStatus } from "./dom";
import { errorText, onLaunchAtLogin, onNavigate, onServiceEvent, rpc } from "./rpc";
import { AgentsScreen } from "./screens/agents";
import { ConnectScreen } from "./screens/connect";
import { DocumentsScreen } from "./screens/documents";
import { HistoryScreen } from "./screens/history";
import { PendingScreen } from "./screens/pending";
import { RequestsBanner } from "./screens/requests";
import { SessionsScreen } from "./screens/sessions";
import { SettingsScreen } from "./screens/settings";
import { SCREENS, type Overview, type Screen, type ServiceEvent } from "./types";
import { showError } from "./failure";

const LABELS: Record<Screen, string> = {
  connect: "Connect",
  documents: "Documents",
  pending: "Pending edits",
  sessions: "Sessions",
  history: "History",
  agents: "Connect agents",
  settings: "Settings",
};

export class App {
  readonly root: HTMLElement;
  readonly connect = new ConnectScreen((overview) => this.setOverview(overview));
  readonly documents = new DocumentsScreen();
  readonly pending = new PendingScreen((count) => this.setCount(count));
  readonly sessions = new SessionsScreen();
  readonly history = new HistoryScreen();
  readonly agents = new AgentsScreen((overview) => this.setOverview(overview));
  readonly settings = new SettingsScreen((settings) => this.documents.setDefaultPolicy(settings.default_policy));
  /** Decisions asked from outside the window, above every screen. */
  readonly requests = new RequestsBanner();
  private tabs = new Map<Screen, HTMLButtonElement>();
  private panels = new Map<Screen, HTMLElement>();
  private pause: HTMLInputElement;
  private endpointStatus: HTMLElement;
  private overview: Overview | null = null;
  private demoBanner: HTMLElement;
  private pausedBanner: HTMLElement;
  private demoStatus: HTMLElement;

  constructor() {
    this.pause = h("input", { type: "checkbox", id: "pause-agents" });
    this.pause.addEventListener("change", () => void this.setPaused(this.pause.checked));
    this.endpointStatus = h("span", { class: "endpoint-status", role: "status", "aria-live": "polite" });
    const nav = h("nav", { "aria-label": "Screens" });
    const main = h("main", { id: "main" });
    const screens: Record<Screen, HTMLElement> = {
      connect: this.connect.root,
      documents: this.documents.root,
      pending: this.pending.root,
      sessions: this.sessions.root,
      history: this.history.root,
      agents: this.agents.root,
      settings: this.settings.root,
    };
    for (const screen of SCREENS) {
      const tab = h("button", { type: "button", class: "tab", "data-screen": screen, onclick: () => this.show(screen) }, LABELS[screen]);
      this.tabs.set(screen, tab);
      nav.append(tab);
      const panel = h("div", { class: "panel", "data-panel": screen, hidden: true }, screens[screen]);
      this.panels.set(screen, panel);
      main.append(panel);
    }
    this.demoStatus = h("span", { class: "demo-status", role: "status", "aria-live": "polite" });
    this.demoBanner = h("aside", { class: "demo-banner", "aria-label": "Demo", hidden: true },
      h("strong", {}, "Demo"),
      // Left out in a narrow window (the banner then keeps to one or two lines).
      h("span", { class: "demo-explain" }, " — a local Docs-like server with sample documents; nothing reaches a real Docs instance."),
      " ",
      h("button", { type: "button", class: "secondary", onclick: () => void this.proposeDemoEdit() }, "Have the demo agent propose an edit"),
      " ",
      this.demoStatus,
    );
    this.pausedBanner = h("aside", { class: "paused-banner", "aria-label": "Agents paused", hidden: true },
      h("strong", {}, "Agents are paused."),
      " Every agent edit waits in Pending edits, even on documents set to Automatic, and agents cannot create documents; they can still read. Untick Pause agents to let them through again.",
    );
    this.root = h("div", { class: "app" },
      h("a", { class: "skip", href: "#main" }, "Skip to content"),
      h("header", {},
        h("h1", {}, "Docs MCP"),
        this.endpointStatus,
        h("label", { class: "pause", for: "pause-agents" }, this.pause, " Pause agents"),
      ),
      this.pausedBanner,
      this.requests.root,
      this.demoBanner,
      nav,
      main,
    );
  }

  /** Loads everything and subscribes to the event stream — or, when the app could not
   * start its service, says why and offers nothing else. */
  async start(): Promise<void> {
    const problem = await rpc("startup_problem");
    if (problem !== null) {
      this.root.replaceChildren(
        h("header", {}, h("h1", {}, "Docs MCP")),
        h("main", { id: "main", class: "startup-problem" },
          h("h2", {}, "Docs MCP could not start"),
          h("p", { class: "error", role: "alert" }, problem),
          h("p", {}, "Usually another Docs MCP service (", h("code", {}, "docs-mcp serve"), ", or this app started another way) uses the same data directory. Stop it, then start the app again; or connect your agents to that service. Closing this window quits the app."),
        ),
      );
      return;
    }
    await onServiceEvent((event) => this.onEvent(event));
    await onNavigate((screen) => this.show(screen));
    await onLaunchAtLogin((enabled) => this.settings.showLaunchEnabled(enabled));
    await this.refreshOverview();
    await Promise.all([this.requests.load(), this.pending.load(), this.sessions.load(), this.history.load(), this.settings.load()]);
    // Opened afresh by the tray on a screen: that one.
    const asked = await rpc("asked_screen");
    if (asked !== null && (SCREENS as readonly string[]).includes(asked)) this.show(asked as Screen);
    // Unless the user (or the tray) already picked a screen while loading.
    if (!this.current()) {
      this.show(this.overview?.instance ? (this.overview.pending_count > 0 ? "pending" : "agents") : "connect");
    }
  }

  show(screen: Screen): void {
    for (const [name, tab] of this.tabs) {
      if (name === screen) tab.setAttribute("aria-current", "page");
      else tab.removeAttribute("aria-current");
      this.panels.get(name)!.hidden = name !== screen;
    }
  }

  current(): Screen | undefined {
    return SCREENS.find((s) => !this.panels.get(s)!.hidden);
  }

  onEvent(event: ServiceEvent): void {
    this.requests.onEvent(event);
    this.documents.onEvent(event);
    this.pending.onEvent(event);
    this.sessions.onEvent(event);
    this.history.onEvent(event);
    this.settings.onEvent(event);
    if (event.type === "paused_changed") this.showPaused(event.paused);
    if (event.type === "account_changed" || event.type === "resync") void this.refreshOverview();
  }

  private async refreshOverview(): Promise<void> {
    try {
      this.setOverview(await rpc("overview"));
    } catch (error) {
      this.endpointStatus.textContent = errorText(error);
    }
  }

  private setOverview(overview: Overview): void {
    this.overview = overview;
    this.showPaused(overview.paused);
    this.endpointStatus.textContent = overview.listening
      ? `Agents connect at ${overview.endpoint}`
      : `Agents cannot connect: ${overview.listen_error ?? "the endpoint is not running"}`;
    this.endpointStatus.classList.toggle("error", !overview.listening);
    const demoStarted = overview.demo && this.demoBanner.hidden;
    this.demoBanner.hidden = !overview.demo;
    this.connect.render(overview);
    this.documents.setOverview(overview);
    this.pending.setOverview(overview);
    this.history.setOverview(overview);
    this.agents.render(overview);
    this.setCount(overview.pending_count);
    // The demo just started from Connect: on to its documents.
    if (demoStarted && this.current() === "connect") this.show("documents");
  }

  /** The demo agent proposes an edit; Pending edits shows it. */
  private async proposeDemoEdit(): Promise<void> {
    showStatus(this.demoStatus, "");
    try {
      await rpc("demo_propose_edit");
      showPassing(this.demoStatus, "The demo agent proposed an edit: it waits in Pending edits.");
      this.show("pending");
    } catch (error) {
      showError(this.demoStatus, error);
    }
  }

  private showPaused(paused: boolean): void {
    this.pause.checked = paused;
    this.pausedBanner.hidden = !paused;
  }

  private setCount(count: number): void {
    this.tabs.get("pending")!.textContent = count > 0 ? `${LABELS.pending} (${count})` : LABELS.pending;
  }

  private async setPaused(paused: boolean): Promise<void> {
    try {
      await rpc("set_paused", { paused });
    } catch (error) {
      this.showPaused(!paused);
      this.endpointStatus.textContent = errorText(error);
    }
  }
}
