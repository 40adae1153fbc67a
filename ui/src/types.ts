// The IPC types, mirroring `src-tauri/src/api.rs` and the `docs-mcp` records it returns
// (`EditRecord`, `ServiceEvent`). A Rust test keeps `test/fixtures/edit-record.json` equal to
// a serialized `EditRecord`, and the UI tests render that fixture.

/** An error as it crosses IPC. */
export interface ErrorInfo {
  code: string;
  message: string;
  hint: string;
}

/** An edit's life: `pending` (waits for a decision) → `applying` (approved and merged into
 * the live document, not yet acknowledged by the collaboration server and saved through the
 * REST API) → `applied`, or `conflict` (a person changed a block it touches since its preview)
 * or `failed` (not in the document); `rejected`; `undone` (an applied edit reverted). */
export const EDIT_STATUSES = ["pending", "applying", "applied", "rejected", "conflict", "failed", "undone"] as const;
export type EditStatus = (typeof EDIT_STATUSES)[number];

export interface AgentInfo {
  name: string;
  connection: string;
}

/** A run of text and its styles (`bold`, `italic`, `underline`, `strike`, `code`: true;
 * `textColor`, `backgroundColor`: a colour name), as BlockNote's JSON has it. */
export interface StyledText {
  type: "text";
  text: string;
  styles: Record<string, string | boolean>;
}

/** Inline content: text, a link (`{type: "link", href, content}`), or another kind. */
export type InlineJson = StyledText | { type: string; [key: string]: unknown };

export interface TableJson {
  type: "tableContent";
  rows: { cells: ({ type: "tableCell"; content: InlineJson[] } | InlineJson[])[] }[];
}

/** A block as BlockNote's JSON has it. */
export interface BlockJson {
  id: string;
  type: string;
  props: Record<string, unknown>;
  content?: InlineJson[] | TableJson;
  children: BlockJson[];
}

export interface PreviewBlock {
  block_id: string;
  block_type: string;
  markdown: string;
  /** The block as BlockNote JSON, with its children (absent in records of earlier versions). */
  block?: BlockJson | null;
}

export interface DiffSpan {
  kind: "equal" | "added" | "removed";
  text: string;
}

export interface Preview {
  /** The headings the change is under, outermost first (absent at the top of the document). */
  heading_path?: string[];
  before: PreviewBlock[];
  after: PreviewBlock[];
  /** The block before the change and the one after it (without children). */
  context_before?: PreviewBlock | null;
  context_after?: PreviewBlock | null;
  diff: DiffSpan[];
  words_added: number;
  words_removed: number;
}

export interface EditRecord {
  id: string;
  document_id: string;
  document_title: string | null;
  agent: AgentInfo;
  tool: string;
  arguments: unknown;
  reason: string | null;
  revision: string | null;
  preview: Preview;
  touched_blocks: string[];
  new_blocks: string[];
  /** Whether it can be undone once applied. */
  undoable: boolean;
  undoes: string | null;
  status: EditStatus;
  comment: string | null;
  decided_by: string | null;
  error: ErrorInfo | null;
  /** Milliseconds since the Unix epoch. */
  created_at: number;
  decided_at: number | null;
  applied_at: number | null;
}

/** How agent writes to a document are handled. */
export type Policy = "auto" | "review" | "read-only";

/** The signed-in Docs user (`GET /api/v1.0/users/me/`). */
export interface Account {
  id: string;
  email: string | null;
  full_name: string | null;
  short_name: string | null;
}

export interface Overview {
  version: string;
  instance: string | null;
  signed_in: boolean;
  /** Who is signed in, when known. */
  account: Account | null;
  /** Whether the session is kept in the OS keyring (false: only until the app quits). */
  session_persisted: boolean;
  paused: boolean;
  pending_count: number;
  endpoint: string;
  listening: boolean;
  listen_error: string | null;
  token: string | null;
  app_path: string;
  /** Whether the demo runs: the instance is its local server, with sample documents. */
  demo: boolean;
  /** Whether this build can start the demo. */
  demo_available: boolean;
}

export interface InstanceCheck {
  url: string;
  release_version: string | null;
}

export interface SessionRow {
  document_id: string;
  title: string | null;
  connected: boolean;
  read_only: boolean;
  error: string | null;
  last_activity: number;
  pending_acks: number;
  pending_saves: number;
  collaborators: string[];
  /** Agent edits of this document in the journal: applied, and waiting for a decision. */
  edits_applied: number;
  edits_pending: number;
}

/** Which documents the Documents screen lists. `known`: added by URL or opened by agents. */
export type DocumentSource = "all" | "favorites" | "known";

/** One row of the Documents screen. */
export interface DocumentRow {
  id: string;
  title: string | null;
  /** The document in the browser, e.g. `https://docs.example.org/docs/<id>/`. */
  url: string;
  /** ISO 8601, when the instance says. */
  updated_at: string | null;
  is_favorite: boolean;
  /** Whether the user can edit it (abilities), when known. */
  can_edit: boolean | null;
  /** This document's own policy; `null`: it follows the default. */
  policy: Policy | null;
  /** What applies: its own policy, or the default. */
  effective_policy: Policy;
}

export interface DocumentList {
  documents: DocumentRow[];
  /** More pages exist on the instance. */
  has_more: boolean;
}

/** Filters of the History screen (the journal of decided edits). */
export interface HistoryFilter {
  document_id: string | null;
  agent: string | null;
  /** Default: every status but `pending` (applying, applied, rejected, conflict, failed, undone). */
  status: EditStatus[] | null;
  limit: number | null;
}

export type Decision = "approve" | "reject";

/** The settings screen. Port changes apply at the next start. */
export interface Settings {
  port: number;
  approval_wait_secs: number;
  default_policy: Policy;
  /** The port the endpoint listens on now (differs from `port` until a restart). */
  active_port: number;
}
/** The one event stream of the service (`service-event`). */
export type ServiceEvent =
  | { type: "edit_changed"; edit_id: string; document_id: string; status: EditStatus; agent: string }
  | { type: "document_changed"; document_id: string; revision: string }
  | { type: "sessions_changed" }
  | { type: "policy_changed"; document_id: string | null; policy: string | null }
  | { type: "paused_changed"; paused: boolean }
  | { type: "account_changed"; signed_in: boolean }
  | { type: "resync" };

/** Every command: its arguments and its result. */
export interface Commands {
  overview: { args: Record<string, never>; result: Overview };
  check_instance: { args: { url: string }; result: InstanceCheck };
  connect_instance: { args: { url: string }; result: Overview };
  list_pending: { args: Record<string, never>; result: EditRecord[] };
  approve_edit: { args: { id: string }; result: EditRecord };
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
  open_in_browser: { args: { document_id: string }; result: null };
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
  regenerate_token: { args: Record<string, never>; result: Overview };
}

/** The screens; the tray's `navigate` event names one. */
export type Screen = "connect" | "documents" | "pending" | "sessions" | "history" | "agents" | "settings";
export const SCREENS: Screen[] = ["connect", "documents", "pending", "sessions", "history", "agents", "settings"];
