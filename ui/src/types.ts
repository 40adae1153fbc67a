// The IPC types. Those the Rust side declares are generated from it (`bindings.ts`, kept
// equal to the Rust types by a test in `src-tauri/src/api.rs`); here are only what the UI
// adds: the command map, the app's own event, the screens.

import type {
  AgentClient,
  ChangedEdit,
  ClaudeDesktopAdded,
  DocumentList,
  DocumentRow,
  DocumentSource,
  EditRecord,
  EditStatus,
  HistoryFilter,
  InstanceCheck,
  NewAgentClient,
  Overview,
  Policy,
  ServiceEvent as ServiceEventOfTheService,
  SessionRow,
  Settings,
  Decision,
} from "./bindings";

export type {
  Account,
  AgentClient,
  AgentInfo,
  ChangedEdit,
  ClaudeDesktopAdded,
  DiffSpan,
  DocumentList,
  DocumentRow,
  DocumentSource,
  EditRecord,
  EditStatus,
  ErrorInfo,
  HistoryFilter,
  InstanceCheck,
  NewAgentClient,
  Overview,
  Policy,
  Preview,
  PreviewBlock,
  ProposedComment,
  SessionRow,
  Settings,
  Decision,
} from "./bindings";
export type { BlockJson, InlineJson, StyledText, TableJson } from "./blocknote";

/** An edit's life: `pending` (waits for a decision) → `applying` (approved and merged into
 * the live document, not yet acknowledged by the collaboration server and saved through the
 * REST API) → `applied`, or `conflict` (a person changed a block it touches since its preview)
 * or `failed` (not in the document); `rejected`; `undone` (an applied edit reverted). Every
 * status, in this order (the type checker refuses one the Rust side does not have). */
export const EDIT_STATUSES = ["pending", "applying", "applied", "rejected", "conflict", "failed", "undone"] as const satisfies readonly EditStatus[];

/** The one event stream (`service-event`): the service's events, and the app's `resync`
 * (events were dropped: reload everything). */
export type ServiceEvent = ServiceEventOfTheService | { type: "resync" };

/** Every command: its arguments and its result. */
export interface Commands {
  overview: { args: Record<string, never>; result: Overview };
  check_instance: { args: { url: string }; result: InstanceCheck };
  connect_instance: { args: { url: string }; result: Overview };
  list_pending: { args: Record<string, never>; result: EditRecord[] };
  approve_edit: { args: { id: string }; result: EditRecord };
  /** Approves an `update_block` edit with the person's own text for the block. */
  approve_with_text: { args: { id: string; text: string }; result: EditRecord };
  /** Approves some parts of an edit (indexes into its `parts`) and refuses the others. */
  approve_parts: { args: { id: string; parts: number[] }; result: EditRecord };
  reject_edit: { args: { id: string; comment: string | null }; result: EditRecord };
  list_sessions: { args: Record<string, never>; result: SessionRow[] };
  set_paused: { args: { paused: boolean }; result: null };
  /** Opens the instance's login page in a window; resolves once back on the instance signed
   * in (the cookies go to the keyring). Rejects with SIGN_IN_CANCELLED if the window closes. */
  sign_in: { args: Record<string, never>; result: Overview };
  /** Forgets the session (keyring and sign-in window cookies); public documents still work. */
  sign_out: { args: Record<string, never>; result: Overview };
  list_documents: { args: { source: DocumentSource; query: string | null; page: number | null }; result: DocumentList };
  /** Adds a document by URL or id (remembered as known); works without sign-in for public ones. */
  add_document: { args: { url: string }; result: DocumentRow };
  /** `document_id: null` sets the default policy; `policy: null` clears a document's own. */
  set_policy: { args: { document_id: string | null; policy: Policy | null }; result: null };
  /** Opens the document's page, at `block_id` when given (Docs' block links, since 5.6). */
  open_in_browser: { args: { document_id: string; block_id: string | null }; result: null };
  disconnect_session: { args: { document_id: string }; result: null };
  /** Approves or rejects these pending edits (those of a group as the user saw it); returns
   * the records it decided: an edit decided elsewhere meanwhile is skipped, not an error. */
  decide_all: {
    args: { decision: Decision; ids: string[]; comment: string | null };
    result: EditRecord[];
  };
  /** Starts the demo: a local Docs-like server with sample documents, connected (not
   * remembered: the next start shows Connect again). */
  start_demo: { args: Record<string, never>; result: Overview };
  /** The demo agent proposes an edit to a sample document; it waits in Pending edits. */
  demo_propose_edit: { args: Record<string, never>; result: EditRecord };
  /** The pending edits among `ids` whose approval would now be a conflict (a block they
   * depend on changed since they were proposed), with why; documents not open are not checked. */
  changed_since_proposed: { args: { ids: string[] }; result: ChangedEdit[] };
  /** Stops the group decisions under way: the edits they have not reached stay pending. */
  stop_decisions: { args: Record<string, never>; result: null };
  list_history: { args: { filter: HistoryFilter }; result: EditRecord[] };
  /** Undoes an applied edit (as a new edit the user made, applied at once). */
  undo_edit: { args: { id: string }; result: EditRecord };
  get_settings: { args: Record<string, never>; result: Settings };
  save_settings: { args: { settings: Settings }; result: Settings };
  /** Whether the OS starts the app at login (read from the OS, as the tray shows it). */
  launch_at_login: { args: Record<string, never>; result: boolean };
  /** Turns launch at login on or off at once; answers the OS's state after it. */
  set_launch_at_login: { args: { enabled: boolean }; result: boolean };
  /** Replaces the bearer token; agents must be given the new one. */
  /** Writes this app's bridge into Claude Desktop's configuration file as `server_name`. */
  add_to_claude_desktop: { args: { server_name: string }; result: ClaudeDesktopAdded };
  regenerate_token: { args: Record<string, never>; result: Overview };
  /** The agent clients configured with a token of their own, revoked ones included. */
  list_agent_clients: { args: Record<string, never>; result: AgentClient[] };
  /** Adds a named client; the answer carries its token, shown this once. */
  add_agent_client: { args: { name: string }; result: NewAgentClient };
  /** Revokes a client: its token stops working at once. */
  revoke_agent_client: { args: { id: string }; result: AgentClient };
}

/** The screens; the tray's `navigate` event names one. */
export type Screen = "connect" | "documents" | "pending" | "sessions" | "history" | "agents" | "settings";
export const SCREENS: Screen[] = ["connect", "documents", "pending", "sessions", "history", "agents", "settings"];
