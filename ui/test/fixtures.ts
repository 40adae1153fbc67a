// Fixtures of the IPC types. The edit is `fixtures/edit-record.json`, a real serialized
// `EditRecord` (a Rust test keeps it so).

import type { DocumentRow, EditRecord, Overview, SessionRow, Settings } from "../src/types";
import editRecord from "./fixtures/edit-record.json";

export const edit = editRecord as EditRecord;

export const overview: Overview = {
  version: "0.1.0",
  instance: "https://docs.example.org",
  signed_in: false,
  account: null,
  session_persisted: false,
  paused: false,
  pending_count: 0,
  endpoint: "http://127.0.0.1:7658/mcp",
  listening: true,
  listen_error: null,
  token: "tok_123",
  app_path: "/usr/bin/docs-mcp-app",
  bridge_args: ["bridge", "--url", "http://127.0.0.1:7658/mcp", "--data-dir", "/home/ada/.local/share/lasuite-docs-mcp"],
  data_dir: "/home/ada/.local/share/lasuite-docs-mcp",
  demo: false,
  demo_starting: false,
  demo_available: false,
};

export const signedIn: Overview = {
  ...overview,
  signed_in: true,
  account: { id: "u1", email: "ada@example.org", full_name: "Ada Lovelace", short_name: "Ada" },
  session_persisted: true,
};

export const session: SessionRow = {
  document_id: "0f4b1e9a-7d2c-4c55-8a3e-6b2d9f1c4e77",
  title: "Meeting notes",
  connected: true,
  read_only: false,
  error: null,
  last_activity: 1795000000000,
  pending_acks: 1,
  pending_saves: 1,
  collaborators: ["Ada", "Claude Code"],
  agents: ["Claude Code", "Cursor"],
  edits_applied: 3,
  edits_pending: 2,
  open_threads: 4,
};

export function documentRow(id: string, changes: Partial<DocumentRow> = {}): DocumentRow {
  return {
    id,
    title: `Document ${id}`,
    url: `https://docs.example.org/docs/${id}/`,
    updated_at: "2026-11-19T10:00:00Z",
    last_used_at: null,
    is_favorite: false,
    can_edit: true,
    policy: null,
    effective_policy: "review",
    ...changes,
  };
}

export const settings: Settings = {
  port: 7658,
  approval_wait_secs: 20,
  default_policy: "review",
  active_port: 7658,
};
