// The IPC types, mirroring `src-tauri/src/api.rs` and the `docs-mcp` records it returns
// (`EditRecord`, `ServiceEvent`). A Rust test keeps `test/fixtures/edit-record.json` equal to
// a serialized `EditRecord`, and the UI tests render that fixture.

/** An error as it crosses IPC. */
export interface ErrorInfo {
  code: string;
  message: string;
  hint: string;
}

export type EditStatus = "pending" | "applied" | "rejected" | "conflict" | "failed" | "undone";

export interface AgentInfo {
  name: string;
  connection: string;
}

export interface PreviewBlock {
  block_id: string;
  block_type: string;
  markdown: string;
}

export interface DiffSpan {
  kind: "equal" | "added" | "removed";
  text: string;
}

export interface Preview {
  before: PreviewBlock[];
  after: PreviewBlock[];
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
  update: string;
  base_state_vector: string;
  touched_blocks: string[];
  new_blocks: string[];
  inverse: unknown;
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

export interface Overview {
  version: string;
  instance: string | null;
  signed_in: boolean;
  paused: boolean;
  pending_count: number;
  endpoint: string;
  listening: boolean;
  listen_error: string | null;
  token: string | null;
  app_path: string;
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
}

/** The one event stream of the service (`service-event`). */
export type ServiceEvent =
  | { type: "edit_changed"; edit_id: string; document_id: string; status: EditStatus; agent: string }
  | { type: "document_changed"; document_id: string; revision: string }
  | { type: "sessions_changed" }
  | { type: "policy_changed"; document_id: string | null; policy: string | null }
  | { type: "paused_changed"; paused: boolean }
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
}

/** The screens; the tray's `navigate` event names one. */
export type Screen = "connect" | "pending" | "sessions" | "agents";
export const SCREENS: Screen[] = ["connect", "pending", "sessions", "agents"];
