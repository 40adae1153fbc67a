import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SettingsScreen } from "../src/screens/settings";
import type { Settings } from "../src/types";
import { settings } from "./fixtures";
import { failure, mockCommands } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

async function mount(save: (s: Settings) => Settings = (s) => s) {
  const calls = mockCommands({ get_settings: () => settings, save_settings: ({ settings }) => save(settings) });
  const onSettings = vi.fn();
  const screen = new SettingsScreen(onSettings);
  document.body.append(screen.root);
  await screen.load();
  const field = <T extends HTMLElement>(id: string) => screen.root.querySelector<T>(`#${id}`)!;
  return {
    screen,
    calls,
    onSettings,
    port: field<HTMLInputElement>("settings-port"),
    wait: field<HTMLInputElement>("settings-wait"),
    policy: field<HTMLSelectElement>("settings-default-policy"),
    launch: field<HTMLInputElement>("settings-launch"),
    status: screen.root.querySelector(".form-status")!,
  };
}

describe("the settings screen", () => {
  it("shows the settings, every field labelled", async () => {
    const { screen, port, wait, policy, launch, onSettings } = await mount();
    expect([port.value, wait.value, policy.value, launch.checked]).toEqual(["7658", "20", "review", false]);
    expect([...screen.root.querySelectorAll("label")].map((l) => [l.htmlFor, l.textContent])).toEqual([
      ["settings-port", "Port of the MCP endpoint"],
      ["settings-wait", "Approval wait (seconds)"],
      ["settings-default-policy", "Default policy"],
      ["settings-launch", " Launch at login"],
    ]);
    expect(onSettings).toHaveBeenCalledWith(settings);
  });

  it("says a new port applies at the next start", async () => {
    const { port } = await mount();
    const note = document.querySelector("#settings-port-note")!;
    expect(note.textContent).toBe("");
    port.value = "8000";
    port.dispatchEvent(new Event("input"));
    expect(note.textContent).toBe("Applies at the next start of Docs MCP; the endpoint listens on port 7658 until then.");
  });

  it("Save sends save_settings with every field", async () => {
    const { screen, calls, port, wait, policy, launch, status, onSettings } = await mount();
    port.value = "8000";
    wait.value = "120";
    policy.value = "auto";
    launch.checked = true;
    await screen.save();
    const saved: Settings = { port: 8000, approval_wait_secs: 120, default_policy: "auto", launch_at_login: true, active_port: 7658 };
    expect(calls).toEqual([["get_settings", {}], ["save_settings", { settings: saved }]]);
    expect(status.textContent).toBe("Saved.");
    expect(onSettings).toHaveBeenLastCalledWith(saved);
    expect(document.querySelector("#settings-port-note")!.textContent).toBe(
      "Applies at the next start of Docs MCP; the endpoint listens on port 7658 until then.",
    );
  });

  it.each([
    ["settings-port", "80", "The port must be a whole number from 1024 to 65535."],
    ["settings-port", "65536", "The port must be a whole number from 1024 to 65535."],
    ["settings-port", "", "The port must be a whole number from 1024 to 65535."],
    ["settings-wait", "0", "The approval wait must be a whole number of seconds from 1 to 600."],
    ["settings-wait", "601", "The approval wait must be a whole number of seconds from 1 to 600."],
    ["settings-wait", "2.5", "The approval wait must be a whole number of seconds from 1 to 600."],
  ])("refuses %s = %j without saving", async (id, value, message) => {
    const { screen, calls, status } = await mount();
    const input = document.querySelector<HTMLInputElement>(`#${id}`)!;
    input.value = value;
    await screen.save();
    expect(calls).toEqual([["get_settings", {}]]);
    expect(status.textContent).toBe(message);
    expect(status.classList.contains("error")).toBe(true);
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(input);
  });

  it("shows a refused save's message and hint", async () => {
    const { screen, status } = await mount(() => failure("INVALID_INPUT", "port 8000 is taken", "Pick another port."));
    await screen.save();
    expect(status.textContent).toBe("port 8000 is taken — Pick another port.");
    expect(status.classList.contains("error")).toBe(true);
  });

  it("follows the default policy changed elsewhere", async () => {
    const { screen, policy } = await mount();
    screen.onEvent({ type: "policy_changed", document_id: null, policy: "read-only" });
    expect(policy.value).toBe("read-only");
    screen.onEvent({ type: "policy_changed", document_id: "d1", policy: "auto" });
    expect(policy.value).toBe("read-only");
  });
});
