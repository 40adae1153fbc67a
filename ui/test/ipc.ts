// Mocked commands for the screens' tests: typed handlers, every call recorded in order.

import { emit } from "@tauri-apps/api/event";
import { mockIPC } from "@tauri-apps/api/mocks";
import type { Commands, ServiceEvent } from "../src/types";

type Handlers = {
  [K in keyof Commands]?: (args: Commands[K]["args"]) => Commands[K]["result"] | Promise<Commands[K]["result"]>;
};

export type Call = { [K in keyof Commands]: [K, Commands[K]["args"]] }[keyof Commands];

/** Background reads a screen makes on its own (the pending cards asking whether they still
 * apply, the agents screen listing the clients): answered "nothing" unless a test gives a
 * handler, and then only recorded. */
const BACKGROUND: Handlers = {
  changed_since_proposed: () => [],
  list_agent_clients: () => [],
  list_decision_requests: () => [],
  pending_count: () => 0,
  startup_problem: () => null,
  asked_screen: () => null,
};

/** Answers the commands given (any other rejects) and records every command called. */
export function mockCommands(handlers: Handlers): Call[] {
  const calls: Call[] = [];
  mockIPC(
    (cmd, args) => {
      const background = BACKGROUND[cmd as keyof Commands] as ((args: unknown) => unknown) | undefined;
      if (background && !(cmd in handlers)) return background(args);
      calls.push([cmd, args] as Call);
      const handler = handlers[cmd as keyof Commands] as ((args: unknown) => unknown) | undefined;
      if (!handler) throw { code: "UNMOCKED", message: `no mock for ${cmd}`, hint: "" };
      return handler(args);
    },
    { shouldMockEvents: true },
  );
  return calls;
}

/** A `{code, message, hint}` rejection, as the Rust side sends it. */
export function failure(code: string, message: string, hint: string): never {
  throw { code, message, hint };
}

/** Sends a service event through the mocked event plugin. */
export function serviceEvent(event: ServiceEvent): Promise<void> {
  return emit("service-event", event);
}

/** The texts of the elements `selector` matches. */
export function texts(root: ParentNode, selector: string): (string | null)[] {
  return [...root.querySelectorAll(selector)].map((e) => e.textContent);
}

/** The button whose text is `text`. */
export function button(root: ParentNode, text: string): HTMLButtonElement {
  const found = [...root.querySelectorAll("button")].find((b) => b.textContent === text);
  if (!found) throw new Error(`no button "${text}"`);
  return found;
}
