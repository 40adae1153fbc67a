// Connect: the Docs instance (checked through its public configuration endpoint), and the
// account signed in on it.

import { h, showStatus, statusLine } from "../dom";
import { rpc, toRpcError } from "../rpc";
import type { Account, InstanceCheck, Overview } from "../types";
import { showError } from "../failure";

/** "Ada Lovelace (ada@example.org)", or whichever of the two is known. */
export function accountName(account: Account | null): string | null {
  const name = account?.full_name?.trim() || account?.short_name?.trim();
  const email = account?.email?.trim();
  if (name && email) return `${name} (${email})`;
  return name || email || null;
}

export class ConnectScreen {
  readonly root: HTMLElement;
  private input: HTMLInputElement;
  private status: HTMLElement;
  private current: HTMLElement;
  private account: HTMLElement;
  private accountState: HTMLElement;
  private sessionNote: HTMLElement;
  private signInButton: HTMLButtonElement;
  private signOutButton: HTMLButtonElement;
  private accountStatus: HTMLElement;
  private signingIn = false;
  private demo: HTMLElement;
  private demoButton: HTMLButtonElement;
  private demoStatus: HTMLElement;
  /** `--demo` is starting the demo (shown as such, the button held). */
  private demoStarting = false;

  constructor(private onOverview: (overview: Overview) => void) {
    this.input = h("input", {
      id: "instance-url",
      name: "instance",
      // Not type=url: the browser would refuse a bare host ("docs.example.org") with its own
      // bubble, where the service adds https:// itself.
      type: "text",
      inputmode: "url",
      spellcheck: "false",
      autocapitalize: "off",
      required: true,
      placeholder: "https://docs.example.org",
      autocomplete: "url",
      "aria-describedby": "instance-help",
    });
    this.status = statusLine("form-status");
    this.current = h("p", { class: "current-instance" });
    const form = h("form", { class: "connect-form" },
      h("label", { for: "instance-url" }, "Docs instance URL"),
      this.input,
      h("p", { id: "instance-help", class: "help" }, "The address of your La Suite Docs, as in your browser."),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Connect")),
      this.status,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.connect();
    });

    this.accountState = h("p", { class: "account-state" });
    this.sessionNote = h("p", { class: "note session-note", hidden: true },
      "Your session is kept only until Docs MCP quits: no OS keyring is available to store it.");
    this.signInButton = h("button", { type: "button", class: "primary", onclick: () => void this.signIn() }, "Sign in");
    this.signOutButton = h("button", { type: "button", class: "secondary", hidden: true, onclick: () => void this.signOut() }, "Sign out");
    this.accountStatus = statusLine("form-status account-status");
    this.account = h("section", { class: "account", "aria-labelledby": "account-title" },
      h("h3", { id: "account-title" }, "Account"),
      this.accountState,
      this.sessionNote,
      h("div", { class: "actions" }, this.signInButton, this.signOutButton),
      this.accountStatus,
    );

    this.demoButton = h("button", { type: "button", class: "secondary", onclick: () => void this.startDemo() }, "Try with a demo document");
    this.demoStatus = statusLine("form-status demo-status");
    this.demo = h("section", { class: "demo-offer", "aria-labelledby": "demo-title", hidden: true },
      h("h3", { id: "demo-title" }, "No Docs instance at hand?"),
      h("p", { class: "help" }, "The demo starts a small Docs-like server on this computer with sample documents, and a demo agent whose edits wait for you: approve one, then undo it from History. Nothing reaches a real Docs instance."),
      h("div", { class: "actions" }, this.demoButton),
      this.demoStatus,
    );

    this.root = h("section", { "aria-labelledby": "connect-title" },
      h("h2", { id: "connect-title" }, "Connect"),
      this.current,
      form,
      this.demo,
      this.account,
    );
  }

  /** Starts the demo; busy until its server answers (a few seconds). */
  async startDemo(): Promise<void> {
    this.demoButton.disabled = true;
    showStatus(this.demoStatus, "Starting the demo server…");
    try {
      const overview = await rpc("start_demo");
      showStatus(this.demoStatus, "");
      this.onOverview(overview);
    } catch (error) {
      showError(this.demoStatus, error);
    } finally {
      this.demoButton.disabled = false;
    }
  }

  render(overview: Overview): void {
    this.current.textContent = overview.demo
      ? `Connected to the demo server, ${overview.instance}: sample documents, nothing real.`
      : overview.demo_starting
        ? "Starting the demo: its server and sample documents come in a few seconds."
        : overview.instance
          ? `Connected to ${overview.instance}.`
          : "No instance yet: give the address of your Docs.";
    // While `--demo` starts it, the offer says so instead of racing it.
    this.demo.hidden = !overview.demo_starting && (!overview.demo_available || overview.demo || overview.instance !== null);
    if (overview.demo_starting !== this.demoStarting) {
      this.demoStarting = overview.demo_starting;
      this.demoButton.disabled = overview.demo_starting;
      showStatus(this.demoStatus, overview.demo_starting ? "Starting the demo server…" : "");
    }
    if (overview.instance && !this.input.value) this.input.value = overview.instance;

    const name = accountName(overview.account);
    if (overview.signed_in) {
      this.accountState.textContent = name ? `Signed in as ${name}.` : "Signed in.";
    } else if (overview.instance) {
      this.accountState.textContent = "Not signed in. Public documents still work; sign in to reach your own documents.";
    } else {
      this.accountState.textContent = "Connect an instance first. Public documents work without signing in.";
    }
    this.sessionNote.hidden = !overview.signed_in || overview.session_persisted;
    this.signInButton.hidden = overview.signed_in;
    // Busy until sign_in resolves, whatever overview comes in meanwhile.
    this.signInButton.disabled = !overview.instance || this.signingIn;
    this.signOutButton.hidden = !overview.signed_in;
  }

  async connect(): Promise<void> {
    const url = this.input.value.trim();
    showStatus(this.status, `Checking ${url}…`);
    try {
      const check = await rpc("check_instance", { url });
      const overview = await rpc("connect_instance", { url: check.url });
      showStatus(this.status, `Connected to ${check.url}${instanceDetails(check)}.`);
      // What the account said of the previous instance no longer holds.
      showStatus(this.accountStatus, "");
      this.onOverview(overview);
    } catch (error) {
      showError(this.status, error);
      this.input.focus();
    }
  }

  /** Opens the instance's login window; busy until it closes. */
  async signIn(): Promise<void> {
    this.setSigningIn(true);
    showStatus(this.accountStatus, "Sign in in the window that opened; it closes by itself once you are signed in.");
    try {
      const overview = await rpc("sign_in");
      showStatus(this.accountStatus, "Signed in.");
      this.setSigningIn(false);
      this.onOverview(overview);
      this.signOutButton.focus();
    } catch (error) {
      if (toRpcError(error).code === "SIGN_IN_CANCELLED") showStatus(this.accountStatus, "Sign-in cancelled.");
      else showError(this.accountStatus, error);
      this.setSigningIn(false);
    }
  }

  private setSigningIn(busy: boolean): void {
    this.signingIn = busy;
    if (busy) this.account.setAttribute("aria-busy", "true");
    else this.account.removeAttribute("aria-busy");
    this.signInButton.disabled = busy;
    this.signInButton.textContent = busy ? "Signing in…" : "Sign in";
  }

  async signOut(): Promise<void> {
    try {
      const overview = await rpc("sign_out");
      showStatus(this.accountStatus, "Signed out. Public documents still work.");
      this.onOverview(overview);
      this.signInButton.focus();
    } catch (error) {
      showError(this.accountStatus, error);
    }
  }
}

/** " (Docs 5.7.0, Hocuspocus)": the release and the collaboration server, as far as known. */
export function instanceDetails(check: InstanceCheck): string {
  const server = { hocuspocus: "Hocuspocus", yhub: "yhub" }[check.collaboration_server ?? ""];
  const details = [check.release_version && `Docs ${check.release_version}`, server].filter(Boolean);
  return details.length ? ` (${details.join(", ")})` : "";
}
