// Settings: the endpoint's port, how long an agent waits for a decision, the default policy
// (saved together), and launch at login (the OS's state, changed at once, as in the tray).

import { h, showStatus, statusLine } from "../dom";
import { isPolicy, policyOptions } from "../policy";
import { rpc } from "../rpc";
import type { LaunchAtLogin, ServiceEvent, Settings } from "../types";
import { showError } from "../failure";

/** A number field's value when it is a whole number in [min, max], else `null`. */
function wholeNumber(input: HTMLInputElement): number | null {
  const value = Number(input.value);
  const ok = input.value.trim() !== "" && Number.isInteger(value) && value >= Number(input.min) && value <= Number(input.max);
  return ok ? value : null;
}

export class SettingsScreen {
  readonly root: HTMLElement;
  private port: HTMLInputElement;
  private portNote: HTMLElement;
  private wait: HTMLInputElement;
  private defaultPolicy: HTMLSelectElement;
  private launchAtLogin: HTMLInputElement;
  private launchStatus: HTMLElement;
  private launchNote: HTMLElement;
  /** This run offers launch at login (the demo does not). */
  private launchOffered = true;
  private saveButton: HTMLButtonElement;
  private status: HTMLElement;
  /** As last loaded or saved; `null` until then (nothing to save). */
  private settings: Settings | null = null;

  constructor(private onSettings: (settings: Settings) => void) {
    this.port = h("input", { id: "settings-port", type: "number", min: 1024, max: 65535, step: 1, required: true, "aria-describedby": "settings-port-help settings-port-note" });
    this.port.addEventListener("input", () => this.updatePortNote());
    this.portNote = h("p", { id: "settings-port-note", class: "note", "aria-live": "polite" });
    this.wait = h("input", { id: "settings-wait", type: "number", min: 1, max: 600, step: 1, required: true, "aria-describedby": "settings-wait-help" });
    this.defaultPolicy = h("select", { id: "settings-default-policy", "aria-describedby": "settings-policy-help" }, ...policyOptions());
    this.launchAtLogin = h("input", { id: "settings-launch", type: "checkbox", disabled: true, "aria-describedby": "settings-launch-help settings-launch-note" });
    this.launchAtLogin.addEventListener("change", () => void this.setLaunchAtLogin(this.launchAtLogin.checked));
    this.launchStatus = statusLine("form-status launch-status");
    this.launchNote = h("p", { id: "settings-launch-note", class: "note" });
    this.saveButton = h("button", { type: "submit", class: "primary", disabled: true }, "Save");
    this.status = statusLine("form-status");
    const form = h("form", { class: "settings-form", novalidate: true },
      h("div", { class: "field" },
        h("label", { for: "settings-port" }, "Port of the MCP endpoint"),
        this.port,
        h("p", { id: "settings-port-help", class: "help" }, "On 127.0.0.1, from 1024 to 65535. Agents' configurations name it."),
        this.portNote,
      ),
      h("div", { class: "field" },
        h("label", { for: "settings-wait" }, "Approval wait (seconds)"),
        this.wait,
        h("p", { id: "settings-wait-help", class: "help" }, "How long an agent's call waits for your decision, from 1 to 600; then it answers that the edit is pending."),
      ),
      h("div", { class: "field" },
        h("label", { for: "settings-default-policy" }, "Default policy"),
        this.defaultPolicy,
        h("p", { id: "settings-policy-help", class: "help" }, "For documents without their own (Documents screen). Automatic applies agents' edits at once, Review waits for your approval, Read-only refuses them."),
      ),
      h("div", { class: "actions" }, this.saveButton),
      this.status,
    );
    const launch = h("div", { class: "field" },
      h("label", { for: "settings-launch", class: "checkbox" }, this.launchAtLogin, " Launch at login"),
      h("p", { id: "settings-launch-help", class: "help" }, "Starts Docs MCP in the tray when you log in. Applies at once, like the tray's menu."),
      this.launchNote,
      this.launchStatus,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.save();
    });
    this.root = h("section", { "aria-labelledby": "settings-title" },
      h("h2", { id: "settings-title" }, "Settings"),
      form,
      launch,
    );
  }

  async load(): Promise<void> {
    await Promise.all([this.loadSettings(), this.loadLaunchAtLogin()]);
  }

  private async loadSettings(): Promise<void> {
    try {
      this.render(await rpc("get_settings"));
    } catch (error) {
      showError(this.status, error);
    }
  }

  private async loadLaunchAtLogin(): Promise<void> {
    try {
      this.showLaunchAtLogin(await rpc("launch_at_login"));
    } catch (error) {
      showError(this.launchStatus, error);
    }
  }

  /** Launch at login as the app offers it: the OS's state, and why it is not offered here
   * (the demo) or what to know first (a copy run from a build folder). */
  private showLaunchAtLogin(state: LaunchAtLogin): void {
    this.launchOffered = state.refused === null;
    this.launchNote.textContent = state.refused ?? state.caveat ?? "";
    this.showLaunchEnabled(state.enabled);
  }

  /** The OS's state, as the tray or this screen changed it. */
  showLaunchEnabled(enabled: boolean): void {
    this.launchAtLogin.checked = enabled;
    this.launchAtLogin.disabled = !this.launchOffered;
  }

  private async setLaunchAtLogin(enabled: boolean): Promise<void> {
    this.launchAtLogin.disabled = true;
    showStatus(this.launchStatus, "");
    try {
      this.showLaunchAtLogin(await rpc("set_launch_at_login", { enabled }));
    } catch (error) {
      showError(this.launchStatus, error);
      await this.loadLaunchAtLogin();
    }
  }

  private render(settings: Settings): void {
    this.settings = settings;
    this.port.value = String(settings.port);
    this.wait.value = String(settings.approval_wait_secs);
    this.defaultPolicy.value = settings.default_policy;
    this.saveButton.disabled = false;
    this.updatePortNote();
    this.onSettings(settings);
  }

  private updatePortNote(): void {
    const active = this.settings?.active_port;
    this.portNote.textContent = active !== undefined && this.port.value !== String(active)
      ? `Applies at the next start of Docs MCP; the endpoint listens on port ${active} until then. Agents configured before must be added again with their new configuration (Connect agents screen): theirs names port ${active}.`
      : "";
  }

  async save(): Promise<void> {
    if (!this.settings) return;
    const port = wholeNumber(this.port);
    const wait = wholeNumber(this.wait);
    this.port.setAttribute("aria-invalid", String(port === null));
    this.wait.setAttribute("aria-invalid", String(wait === null));
    if (port === null || wait === null) {
      showStatus(this.status, port === null
        ? "The port must be a whole number from 1024 to 65535."
        : "The approval wait must be a whole number of seconds from 1 to 600.", true);
      (port === null ? this.port : this.wait).focus();
      return;
    }
    const policy = this.defaultPolicy.value;
    try {
      const saved = await rpc("save_settings", {
        settings: {
          port,
          approval_wait_secs: wait,
          default_policy: isPolicy(policy) ? policy : this.settings.default_policy,
          active_port: this.settings.active_port,
        },
      });
      this.render(saved);
      showStatus(this.status, "Saved.");
    } catch (error) {
      showError(this.status, error);
    }
  }

  onEvent(event: ServiceEvent): void {
    if (event.type === "policy_changed" && event.document_id === null && isPolicy(event.policy) && this.settings) {
      this.settings.default_policy = event.policy;
      this.defaultPolicy.value = event.policy;
    }
  }
}
