// The ONLY module that imports @tauri-apps/*: typed commands and the app's event streams.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { Commands, ErrorInfo, Screen, ServiceEvent } from "./types";

/** A command's failure: the service's stable code, what happened, what to do next. */
export class RpcError extends Error implements ErrorInfo {
  readonly code: string;
  readonly hint: string;

  constructor(info: ErrorInfo) {
    super(info.message);
    this.name = "RpcError";
    this.code = info.code;
    this.hint = info.hint;
  }
}

function isErrorInfo(value: unknown): value is ErrorInfo {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ErrorInfo).code === "string" &&
    typeof (value as ErrorInfo).message === "string"
  );
}

export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (isErrorInfo(error)) return new RpcError({ ...error, hint: error.hint ?? "" });
  return new RpcError({
    code: "INTERNAL",
    message: error instanceof Error ? error.message : String(error),
    hint: "Retry; if it persists, restart Docs MCP.",
  });
}

/** What a person does next, for the codes whose service hint is written for agents (it
 * names tools such as `list_documents`, or `DOCS_SESSION_COOKIE`). */
const PERSON_HINTS: Record<string, string> = {
  DOC_NOT_FOUND: "Check the address: the document may have been deleted, or this account cannot see it.",
  NOT_SIGNED_IN: "Sign in on the Connect screen, or use a public document.",
  DOC_FORBIDDEN: "Ask the document's owner for access.",
  DOC_READONLY: "This account may only read the document.",
  EDIT_CONFLICT: "Nothing was applied; ask the agent to redo it on the current text.",
};

/** What the user reads of a failure: what happened, then what to do next. */
export function errorText(error: unknown): string {
  const e = toRpcError(error);
  const hint = PERSON_HINTS[e.code] ?? e.hint;
  return hint ? `${e.message} — ${hint}` : e.message;
}

type ArgsOf<K extends keyof Commands> = Commands[K]["args"];

/** Calls a command; rejects with an {@link RpcError}. */
export async function rpc<K extends keyof Commands>(
  command: K,
  ...args: ArgsOf<K> extends Record<string, never> ? [] : [ArgsOf<K>]
): Promise<Commands[K]["result"]> {
  try {
    return await invoke<Commands[K]["result"]>(command, args[0] ?? {});
  } catch (error) {
    throw toRpcError(error);
  }
}

/** The service's one event stream. */
export function onServiceEvent(handler: (event: ServiceEvent) => void): Promise<UnlistenFn> {
  return listen<ServiceEvent>("service-event", (e) => handler(e.payload));
}

/** Launch at login changed, from the tray or Settings: the OS's state now. */
export function onLaunchAtLogin(handler: (enabled: boolean) => void): Promise<UnlistenFn> {
  return listen<boolean>("launch-at-login", (e) => handler(e.payload));
}

/** The tray asks for a screen. */
export function onNavigate(handler: (screen: Screen) => void): Promise<UnlistenFn> {
  return listen<Screen>("navigate", (e) => handler(e.payload));
}

/** Copies text to the clipboard (the webview's own API; no Tauri plugin needed). */
export async function copyText(text: string): Promise<void> {
  await navigator.clipboard.writeText(text);
}
