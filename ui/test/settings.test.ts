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

const launchState = (enabled: boolean, refused: string | null = null, caveat: string | null = null) => ({ enabled, refused, caveat });

async function mount(save: (s: Settings) => Settings = (s) => s, launch: { enabled: boolean; set?: (enabled: boolean) => ReturnType<typeof launchState>; refused?: string; caveat?: string } = { enabled: false }) {
  const calls = mockCommands({
    get_settings: () => settings,
    save_settings: ({ settings }) => save(settings),
    launch_at_login: () => launchState(launch.enabled, launch.refused ?? null, launch.caveat ?? null),
    set_launch_at_login: ({ enabled }) => (launch.set ? launch.set(enabled) : launchState((launch.enabled = enabled))),
  });
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
    launchStatus: screen.root.querySelector(".launch-status")!,
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
    expect(note.textContent).toBe("Applies at the next start of Docs MCP; the endpoint listens on port 7658 until then. Agents configured before must be added again with their new configuration (Connect agents screen): theirs names port 7658.");
  });

  it("Save sends save_settings with every field", async () => {
    const { screen, calls, port, wait, policy, status, onSettings } = await mount();
    port.value = "8000";
    wait.value = "120";
    policy.value = "auto";
    calls.length = 0;
    await screen.save();
    const saved: Settings = { port: 8000, approval_wait_secs: 120, default_policy: "auto", active_port: 7658 };
    expect(calls).toEqual([["save_settings", { settings: saved }]]);
    expect(status.textContent).toBe("Saved.");
    expect(onSettings).toHaveBeenLastCalledWith(saved);
    expect(document.querySelector("#settings-port-note")!.textContent).toBe(
      "Applies at the next start of Docs MCP; the endpoint listens on port 7658 until then. Agents configured before must be added again with their new configuration (Connect agents screen): theirs names port 7658.",
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
    calls.length = 0;
    await screen.save();
    expect(calls).toEqual([]);
    expect(status.textContent).toBe(message);
    expect(status.classList.contains("error")).toBe(true);
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(input);
  });

  it("shows a refused save's message and hint", async () => {
    const { screen, status } = await mount(() => failure("INVALID_INPUT", "port 8000 is taken", "Pick another port."));
    await screen.save();
    expect(status.textContent).toBe("Port 8000 is taken — Pick another port.");
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

describe("launch at login", () => {
  it("shows the OS's state, not a saved one", async () => {
    const { launch } = await mount(undefined, { enabled: true });
    expect(launch.checked).toBe(true);
    expect(launch.disabled).toBe(false);
  });

  it("applies at once; Save neither sends it nor undoes it", async () => {
    const state = { enabled: false };
    const { screen, calls, launch, launchStatus } = await mount(undefined, state);
    launch.checked = true;
    launch.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(state.enabled).toBe(true));
    expect(calls.filter(([c]) => c === "set_launch_at_login")).toEqual([["set_launch_at_login", { enabled: true }]]);
    expect(launchStatus.textContent).toBe("");
    calls.length = 0;
    await screen.save();
    expect(calls.map(([c]) => c)).toEqual(["save_settings"]);
    expect(state.enabled).toBe(true);
    expect(launch.checked).toBe(true);
  });

  it("is not offered in the demo, and says why", async () => {
    const { launch, screen } = await mount(undefined, { enabled: false, refused: "Not in the demo: launch at login starts the app you use for real. Turn it on there." });
    expect(launch.disabled).toBe(true);
    expect(screen.root.querySelector("#settings-launch-note")!.textContent).toBe(
      "Not in the demo: launch at login starts the app you use for real. Turn it on there.",
    );
    // The tray's state shown here leaves it disabled.
    screen.showLaunchEnabled(false);
    expect(launch.disabled).toBe(true);
  });

  it("says what a copy run from a build folder risks, and still offers it", async () => {
    const caveat = "This copy runs from a build folder (/src/target/release/docs-mcp-app): the login entry points there and stops working if that build is cleaned or moved. The installed app (.deb, .rpm) keeps a lasting one.";
    const { launch, screen } = await mount(undefined, { enabled: false, caveat });
    expect(launch.disabled).toBe(false);
    expect(screen.root.querySelector("#settings-launch-note")!.textContent).toBe(caveat);
  });

  it("follows the tray: a change made there shows here", async () => {
    const { screen, launch } = await mount();
    screen.showLaunchEnabled(true);
    expect(launch.checked).toBe(true);
  });

  it("a refused change shows why, and the box shows the OS's state again", async () => {
    const { launch, launchStatus } = await mount(undefined, {
      enabled: false,
      set: () => failure("INVALID_INPUT", "launch at login was not changed: cannot write /home/ada/.config/autostart/org.lasuite.docs-mcp.desktop: Permission denied (os error 13)", "Start Docs MCP yourself meanwhile; check that your home folder is writable."),
    });
    launch.checked = true;
    launch.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(launchStatus.textContent).not.toBe(""));
    expect(launchStatus.textContent).toBe("Launch at login was not changed: cannot write /home/ada/.config/autostart/org.lasuite.docs-mcp.desktop: Permission denied (os error 13) — Start Docs MCP yourself meanwhile; check that your home folder is writable.");
    expect(launchStatus.classList.contains("error")).toBe(true);
    await vi.waitFor(() => expect(launch.checked).toBe(false));
  });
});
