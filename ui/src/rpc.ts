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
  STALE_REVISION: "Nothing was applied: the document changed since the agent read it; ask the agent to redo it.",
  BLOCK_NOT_FOUND: "The part of the document it was about is gone; nothing was applied.",
  TEXT_NOT_FOUND: "The text it was about is no longer there; nothing was applied.",
  SYNC_TIMEOUT: "Your Docs instance is slow to answer: try again in a moment.",
  NOT_ACKNOWLEDGED: "Your Docs instance did not confirm it: try again in a moment.",
};

/** Technical tails a person need not read in the sentence:
 * the HTTP client's own words, Django's "No Document matches the given query.". */
const TECHNICAL_TAILS = [
  / ?\((?:error sending request for url|error trying to connect|client error|tcp connect error|dns error)[^]*\)/gi,
  / ?\(No \w+ matches the given query\.\)/g,
];
const UUID = /\b(block|document|edit|thread) [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** rustls' words, in a tail taken out, for a certificate this computer does not trust (an
 * instance signed by a company's own authority): the one reason a person can act on. */
const UNTRUSTED_CERTIFICATE = /invalid peer certificate|UnknownIssuer/;

/** A failure's message as a sentence for a person: ids and library words out, a capital
 * first (`capital`). */
export function personMessage(message: string, capital = true): string {
  let text = message;
  for (const tail of TECHNICAL_TAILS) text = text.replace(tail, "");
  if (text !== message && UNTRUSTED_CERTIFICATE.test(message)) {
    text = `${text}: its certificate is not trusted by this computer`;
  }
  text = text.replace(UUID, "this $1").trim();
  return capital ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

/** What the user reads of a failure: what happened, then what to do next. */
export function errorText(error: unknown, capital = true): string {
  const e = toRpcError(error);
  const hint = PERSON_HINTS[e.code] ?? e.hint;
  const message = personMessage(e.message, capital);
  return hint ? `${message} — ${hint}` : message;
}

/** What {@link errorText} left out — the service's own message where ids or library words
 * were taken out of it, its hint where a person's replaced it — with the stable code, for
 * whoever reports a problem; `null` when the person read it all. */
export function errorDetail(error: unknown): string | null {
  const e = toRpcError(error);
  const stripped = personMessage(e.message, false) !== e.message.trim();
  const hintReplaced = e.code in PERSON_HINTS && e.hint !== "" && e.hint !== PERSON_HINTS[e.code];
  if (!stripped && !hintReplaced) return null;
  return [`${e.code}: ${e.message}`, hintReplaced ? `Hint for agents: ${e.hint}` : null].filter((l) => l !== null).join("\n");
}

/** {@link errorText} inside a sentence ("…failed: the instance did not answer — …"): the
 * message's case as the service wrote it. */
export function errorClause(error: unknown): string {
  return errorText(error, false);
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
