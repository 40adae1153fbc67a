// Connect: the Docs instance, checked through its public configuration endpoint.

import { h } from "../dom";
import { rpc, toRpcError } from "../rpc";
import type { Overview } from "../types";

export class ConnectScreen {
  readonly root: HTMLElement;
  private input: HTMLInputElement;
  private status: HTMLElement;
  private current: HTMLElement;

  constructor(private onConnected: (overview: Overview) => void) {
    this.input = h("input", {
      id: "instance-url",
      name: "instance",
      type: "url",
      required: true,
      placeholder: "https://docs.example.org",
      autocomplete: "url",
      "aria-describedby": "instance-help",
    });
    this.status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
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
    this.root = h("section", { "aria-labelledby": "connect-title" },
      h("h2", { id: "connect-title" }, "Connect"),
      this.current,
      form,
      h("p", { class: "note" }, "Public documents work without sign-in. Signing in to reach your private documents comes in a later version."),
    );
  }

  render(overview: Overview): void {
    this.current.textContent = overview.instance
      ? `Connected to ${overview.instance}.`
      : "No instance yet: give the address of your Docs.";
    if (overview.instance && !this.input.value) this.input.value = overview.instance;
  }

  async connect(): Promise<void> {
    const url = this.input.value.trim();
    this.status.classList.remove("error");
    this.status.textContent = `Checking ${url}…`;
    try {
      const check = await rpc("check_instance", { url });
      const overview = await rpc("connect_instance", { url: check.url });
      this.status.textContent = `Connected to ${check.url}${check.release_version ? ` (Docs ${check.release_version})` : ""}.`;
      this.onConnected(overview);
    } catch (error) {
      const e = toRpcError(error);
      this.status.classList.add("error");
      this.status.textContent = `${e.message} — ${e.hint}`;
      this.input.focus();
    }
  }
}
