import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { accountName, ConnectScreen } from "../src/screens/connect";
import type { Overview } from "../src/types";
import { overview, signedIn } from "./fixtures";
import { button, failure, mockCommands } from "./ipc";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

function mount(shown: Overview = overview) {
  const onOverview = vi.fn();
  const screen = new ConnectScreen(onOverview);
  document.body.append(screen.root);
  screen.render(shown);
  return { screen, onOverview, root: screen.root };
}

const text = (root: HTMLElement, selector: string) => root.querySelector(selector)!.textContent;

describe("the connect screen", () => {
  it("checks the instance, connects it, and reports the Docs version", async () => {
    const calls = mockCommands({
      check_instance: () => ({ url: "https://docs.example.org", release_version: "4.1.0", collaboration_server: null }),
      connect_instance: () => overview,
    });
    const { screen, onOverview, root } = mount({ ...overview, instance: null });
    expect(text(root, 'label[for="instance-url"]')).toBe("Docs instance URL");
    root.querySelector<HTMLInputElement>("#instance-url")!.value = " https://docs.example.org/ ";
    await screen.connect();
    expect(calls).toEqual([
      ["check_instance", { url: "https://docs.example.org/" }],
      ["connect_instance", { url: "https://docs.example.org" }],
    ]);
    expect(onOverview).toHaveBeenCalledWith(overview);
    expect(text(root, ".form-status")).toBe("Connected to https://docs.example.org (Docs 4.1.0).");
  });

  it("names the collaboration server the instance configures", async () => {
    for (const [server, said] of [
      ["hocuspocus", " (Docs 5.7.0, Hocuspocus)"],
      ["yhub", " (Docs 6.0.0, yhub)"],
    ] as const) {
      const release = server === "yhub" ? "6.0.0" : "5.7.0";
      mockCommands({
        check_instance: () => ({ url: "https://docs.example.org", release_version: release, collaboration_server: server }),
        connect_instance: () => overview,
      });
      const { screen, root } = mount({ ...overview, instance: null });
      root.querySelector<HTMLInputElement>("#instance-url")!.value = "docs.example.org";
      await screen.connect();
      expect(text(root, ".form-status")).toBe(`Connected to https://docs.example.org${said}.`);
    }
  });

  it("takes a bare host (the service adds https://), which the form does not refuse", async () => {
    const calls = mockCommands({
      check_instance: () => ({ url: "https://docs.example.org", release_version: null, collaboration_server: null }),
      connect_instance: () => overview,
    });
    const { screen, root } = mount({ ...overview, instance: null });
    const input = root.querySelector<HTMLInputElement>("#instance-url")!;
    input.value = "docs.example.org";
    expect(root.querySelector<HTMLFormElement>("form.connect-form")!.checkValidity()).toBe(true);
    await screen.connect();
    expect(calls[0]).toEqual(["check_instance", { url: "docs.example.org" }]);
    expect(text(root, ".form-status")).toBe("Connected to https://docs.example.org.");
  });

  it("clears what the account said of the previous instance once another is connected", async () => {
    mockCommands({
      sign_in: () => failure("INSTANCE_UNREACHABLE", "the sign-in page did not load", "Check the network."),
      check_instance: () => ({ url: "https://docs.example.org", release_version: null, collaboration_server: null }),
      connect_instance: () => overview,
    });
    const { screen, root } = mount();
    await screen.signIn();
    expect(text(root, ".account-status.error")).toBe("The sign-in page did not load — Check the network.");
    root.querySelector<HTMLInputElement>("#instance-url")!.value = "https://docs.example.org";
    await screen.connect();
    expect(root.querySelector(".account-status.error")).toBeNull();
    expect(text(root, ".account-status")).toBe("");
  });

  it("shows why an instance was refused", async () => {
    mockCommands({ check_instance: () => failure("INVALID_INPUT", "not a URL", "Give an https:// address.") });
    const { screen, root } = mount();
    root.querySelector<HTMLInputElement>("#instance-url")!.value = "nope";
    await screen.connect();
    expect(text(root, ".form-status.error")).toBe("Not a URL — Give an https:// address.");
  });
});

describe("the account", () => {
  it("without an instance: sign-in waits for one", () => {
    const { root } = mount({ ...overview, instance: null });
    expect(text(root, ".account-state")).toBe("Connect an instance first. Public documents work without signing in.");
    expect(button(root, "Sign in").disabled).toBe(true);
  });

  it("signed out: says that public documents still work, offers Sign in", () => {
    const { root } = mount();
    expect(text(root, ".account-state")).toBe("Not signed in. Public documents still work; sign in to reach your own documents.");
    expect(button(root, "Sign in").hidden).toBe(false);
    expect(button(root, "Sign in").disabled).toBe(false);
    expect(button(root, "Sign out").hidden).toBe(true);
    expect(root.querySelector<HTMLElement>(".session-note")!.hidden).toBe(true);
  });

  it("signed in: who, and Sign out", () => {
    const { root } = mount(signedIn);
    expect(text(root, ".account-state")).toBe("Signed in as Ada Lovelace (ada@example.org).");
    expect(button(root, "Sign in").hidden).toBe(true);
    expect(button(root, "Sign out").hidden).toBe(false);
    expect(root.querySelector<HTMLElement>(".session-note")!.hidden).toBe(true);
  });

  it("signed in without a keyring: the session lasts until Docs MCP quits", () => {
    const { root } = mount({ ...signedIn, session_persisted: false });
    const note = root.querySelector<HTMLElement>(".session-note")!;
    expect(note.hidden).toBe(false);
    expect(note.textContent).toBe("Your session is kept only until Docs MCP quits: no OS keyring is available to store it.");
  });

  it("names the account by full name and email, or whichever is known", () => {
    const account = { id: "u1", email: "ada@example.org", full_name: "Ada Lovelace", short_name: "Ada" };
    expect(accountName(account)).toBe("Ada Lovelace (ada@example.org)");
    expect(accountName({ ...account, full_name: null })).toBe("Ada (ada@example.org)");
    expect(accountName({ ...account, full_name: null, short_name: null })).toBe("ada@example.org");
    expect(accountName({ ...account, email: null })).toBe("Ada Lovelace");
    expect(accountName({ id: "u1", email: null, full_name: null, short_name: null })).toBeNull();
    expect(accountName(null)).toBeNull();
  });

  it("Sign in is busy until the login window is done, then shows the account", async () => {
    let finish: (overview: Overview) => void = () => {};
    const calls = mockCommands({ sign_in: () => new Promise<Overview>((resolve) => (finish = resolve)) });
    const { root, onOverview } = mount();
    const signIn = button(root, "Sign in");
    signIn.click();
    await vi.waitFor(() => expect(calls).toEqual([["sign_in", {}]]));
    expect(signIn.disabled).toBe(true);
    expect(signIn.textContent).toBe("Signing in…");
    expect(root.querySelector(".account")!.getAttribute("aria-busy")).toBe("true");
    expect(text(root, ".account-status")).toBe("Sign in in the window that opened; it closes by itself once you are signed in.");
    finish(signedIn);
    await vi.waitFor(() => expect(onOverview).toHaveBeenCalledWith(signedIn));
    expect(root.querySelector(".account")!.hasAttribute("aria-busy")).toBe(false);
    expect(signIn.textContent).toBe("Sign in");
    expect(text(root, ".account-status")).toBe("Signed in.");
  });

  it("a closed login window is a quiet 'Sign-in cancelled.'", async () => {
    mockCommands({ sign_in: () => failure("SIGN_IN_CANCELLED", "the sign-in window was closed", "Sign in again.") });
    const { screen, root } = mount();
    await screen.signIn();
    const status = root.querySelector(".account-status")!;
    expect(status.textContent).toBe("Sign-in cancelled.");
    expect(status.classList.contains("error")).toBe(false);
    expect(button(root, "Sign in").disabled).toBe(false);
  });

  it("shows a failed sign-in's message and hint", async () => {
    mockCommands({ sign_in: () => failure("INSTANCE_UNREACHABLE", "cannot reach docs.example.org", "Check the network.") });
    const { screen, root } = mount();
    await screen.signIn();
    expect(text(root, ".account-status.error")).toBe("Cannot reach docs.example.org — Check the network.");
  });

  it("Sign out calls sign_out and hands on the new overview", async () => {
    const calls = mockCommands({ sign_out: () => overview });
    const { root, onOverview } = mount(signedIn);
    button(root, "Sign out").click();
    await vi.waitFor(() => expect(onOverview).toHaveBeenCalledWith(overview));
    expect(calls).toEqual([["sign_out", {}]]);
    expect(text(root, ".account-status")).toBe("Signed out. Public documents still work.");
  });
});

describe("the demo", () => {
  function mountDemo(current: Overview, start_demo: () => Overview | Promise<Overview>) {
    const calls = mockCommands({ start_demo });
    const onOverview = vi.fn();
    const screen = new ConnectScreen(onOverview);
    document.body.append(screen.root);
    screen.render(current);
    return { screen, calls, onOverview, offer: screen.root.querySelector<HTMLElement>(".demo-offer")! };
  }

  it("is offered on a first start, when this build has it", () => {
    expect(mountDemo({ ...overview, instance: null, demo_available: true }, () => overview).offer.hidden).toBe(false);
    expect(mountDemo({ ...overview, instance: null, demo_available: false }, () => overview).offer.hidden).toBe(true);
    expect(mountDemo({ ...overview, demo_available: true }, () => overview).offer.hidden).toBe(true);
  });

  it("says the demo is starting from the first frame of --demo, and offers nothing to race it", () => {
    const { screen, offer } = mountDemo({ ...overview, instance: null, demo_available: true, demo_starting: true }, () => overview);
    expect(offer.hidden).toBe(false);
    expect(screen.root.querySelector<HTMLButtonElement>(".demo-offer button")!.disabled).toBe(true);
    expect(screen.root.querySelector(".demo-status")!.textContent).toBe("Starting the demo server…");
    expect(screen.root.textContent).toContain("Starting the demo: its server and sample documents come in a few seconds.");
    expect(screen.root.textContent).not.toContain("No instance yet");
    // It did not start: the offer is there to try again.
    screen.render({ ...overview, instance: null, demo_available: true, demo_starting: false });
    expect(screen.root.querySelector<HTMLButtonElement>(".demo-offer button")!.disabled).toBe(false);
    expect(screen.root.querySelector(".demo-status")!.textContent).toBe("");
  });

  it("starts the demo and hands the new overview on; the screen says it is the demo", async () => {
    const started = { ...overview, instance: "http://127.0.0.1:41234", demo: true, demo_available: true };
    const { screen, calls, onOverview, offer } = mountDemo({ ...overview, instance: null, demo_available: true }, () => started);
    button(screen.root, "Try with a demo document").click();
    await vi.waitFor(() => expect(onOverview).toHaveBeenCalledWith(started));
    expect(calls).toEqual([["start_demo", {}]]);
    screen.render(started);
    expect(offer.hidden).toBe(true);
    expect(screen.root.querySelector(".current-instance")!.textContent).toBe(
      "Connected to the demo server, http://127.0.0.1:41234: sample documents, nothing real.",
    );
  });

  it("a demo that does not start says why and what to do", async () => {
    const { screen } = mountDemo({ ...overview, instance: null, demo_available: true }, () =>
      failure("INVALID_INPUT", "the demo did not start: Node.js is not on the PATH", "Run scripts/run.sh --demo from the repository's folder: it installs what the demo needs."));
    button(screen.root, "Try with a demo document").click();
    const status = screen.root.querySelector(".demo-status")!;
    await vi.waitFor(() => expect(status.textContent).not.toBe("Starting the demo server…"));
    expect(status.textContent).toBe("The demo did not start: Node.js is not on the PATH — Run scripts/run.sh --demo from the repository's folder: it installs what the demo needs.");
    expect(status.classList.contains("error")).toBe(true);
    expect(button(screen.root, "Try with a demo document").disabled).toBe(false);
  });
});
