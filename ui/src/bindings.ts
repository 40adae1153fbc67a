// Generated from the Rust types by `api::tests::ui_bindings_are_generated_from_the_rust_types`
// (src-tauri/src/api.rs): do not edit. Regenerate with
// `UPDATE_BINDINGS=1 cargo test -p docs-mcp-app --bin docs-mcp-app bindings`.

import type { BlockJson, InlineJson } from "./blocknote";

export type ErrorInfo = { code: string, message: string, hint: string, };

export type EditStatus = "pending" | "applying" | "applied" | "rejected" | "conflict" | "failed" | "undone" | "withdrawn";

export type Policy = "auto" | "review" | "read-only" | "comment-only";

export type AgentInfo = { name: string, connection: string, 
/**
 * The configured client whose token made the call: `name` is then the name the person
 * gave it. `None`: `name` is what the agent calls itself (the shared token, stdio).
 */
client_id: string | null, 
/**
 * With a configured client: what the agent calls itself, when that differs.
 */
reported_name: string | null, };

export type PreviewBlock = { block_id: string, block_type: string, markdown: string, 
/**
 * The block's own text as inline markdown (plain for code), without its block marker:
 * what a person rewrites before approving. Absent for blocks with no text (an image, a
 * table, a divider) and in records of earlier versions.
 */
text?: string, block?: BlockJson, };

export type DiffSpan = { 
/**
 * `equal`, `added` or `removed`.
 */
kind: string, text: string, };

export type LinkKind = "link" | "media";

export type PreviewLink = { block_id: string, kind: LinkKind, 
/**
 * The URL as written.
 */
url: string, 
/**
 * The host it goes to, with its port when not the default (an internationalized name in
 * its ASCII form); none for a path on the Docs instance, nor for an address without a
 * host (`mailto:`).
 */
host: string | null, 
/**
 * The text the link is on, or the media's name (else its caption).
 */
text: string, };

export type Preview = { 
/**
 * The headings the change is under, outermost first (empty at the top of the document).
 */
heading_path?: Array<string>, before: Array<PreviewBlock>, after: Array<PreviewBlock>, 
/**
 * The block before the change and the one after it, without children: where it lands.
 */
context_before?: PreviewBlock, context_after?: PreviewBlock, diff: Array<DiffSpan>, words_added: number, words_removed: number, 
/**
 * The link targets and media URLs the blocks after the edit hold that the same blocks did
 * not hold before (all of a new block's), in reading order (absent in records of earlier
 * versions).
 */
links?: Array<PreviewLink>, };

export type EditPart = { 
/**
 * What it does, e.g. `Insert heading “Plan”`.
 */
label: string, 
/**
 * The text the person may rewrite before accepting it (a block rewrite's inline
 * markdown); `null`: taken or refused as it is.
 */
text: string | null, };

export type CommentAction = "add" | "reply" | "resolve" | "reopen";

export type ProposedComment = { action: CommentAction, 
/**
 * The thread replied to, resolved or reopened; for `add`, the one created (once it is).
 */
thread_id?: string, 
/**
 * The block the thread is attached to (for `add`, where it will be).
 */
block_id?: string, 
/**
 * The exact text the thread is attached to.
 */
quoted_text?: string, 
/**
 * The comment, as markdown (`add`, `reply`).
 */
body?: string, 
/**
 * The comment as Docs will show it (BlockNote blocks JSON, what Docs stores).
 */
body_blocks?: Array<BlockJson>, 
/**
 * `add` only, once made: whether the text carries the thread's mark. A commenter's
 * connection may not change the document: its thread exists, attached to no text.
 */
anchored?: boolean, };

export type ProposedDocument = { title: string, 
/**
 * The document it goes under, as a sub-page; `None`: at the top level.
 */
parent_id?: string, 
/**
 * That document's title, when it has one.
 */
parent_title?: string, 
/**
 * The edit writing its content, once the document is made.
 */
content_edit?: string, };

export type UndecidedEdit = { id: string, error: ErrorInfo, };

export type GroupDecision = { 
/**
 * Decided, as they stand now (applied, applying, conflict, failed, rejected).
 */
decided: Array<EditRecord>, 
/**
 * Left pending because deciding them failed (the instance out of reach...), and why.
 */
failed: Array<UndecidedEdit>, 
/**
 * Decided elsewhere meanwhile (another window, a terminal), left as they were.
 */
elsewhere: Array<string>, };

export type EditRecord = { id: string, document_id: string, document_title: string | null, agent: AgentInfo, 
/**
 * The tool that made it (`insert_blocks`, `apply_edits`, ...).
 */
tool: string, 
/**
 * The tool's arguments, as the agent sent them.
 */
arguments: unknown, reason: string | null, 
/**
 * The revision the agent quoted, if any.
 */
revision: string | null, preview: Preview, 
/**
 * Existing blocks the edit changes or positions against.
 */
touched_blocks: Array<string>, 
/**
 * Ids of the blocks the edit creates.
 */
new_blocks: Array<string>, 
/**
 * Whether it can be undone once applied.
 */
undoable: boolean, 
/**
 * For an undo: the edit it reverts.
 */
undoes: string | null, status: EditStatus, 
/**
 * The human's comment on a decision.
 */
comment: string | null, 
/**
 * The channel the decision came through, set by the service (never by the request).
 */
decided_by: Channel | null, 
/**
 * The text the person approved instead of the agent's (approved with changes); the
 * preview then shows it.
 */
approved_text?: string, 
/**
 * What a person may accept or refuse one by one (`edits::parts`), labelled; empty when
 * the edit is one part.
 */
parts?: Array<EditPart>, 
/**
 * The parts (indexes into `parts`) the person accepted, when they refused the others.
 */
approved_parts?: Array<number>, 
/**
 * The parts the person accepted with their own text, by index.
 */
part_texts?: { [key in number]?: string }, 
/**
 * For the comment tools: the comment (or the thread's change) the agent asked for.
 */
proposed_comment?: ProposedComment, 
/**
 * For `create_document`: the document the agent asks to create (`document_id` is the id
 * it gets once made; its content is the preview).
 */
proposed_document?: ProposedDocument, error: ErrorInfo | null, 
/**
 * Milliseconds since the Unix epoch.
 */
created_at: number, decided_at: number | null, applied_at: number | null, 
/**
 * When a save of Docs first held it. `null` while an applied edit is only in the live
 * document (the journal keeps it until a save does), and for an edit never in it.
 */
saved_at: number | null, };

export type ServiceEvent = { "type": "edit_changed", edit_id: string, document_id: string, status: EditStatus, agent: string, } | { "type": "edits_saved", document_id: string, edit_ids: Array<string>, } | { "type": "applied_edits_lost", document_id: string, edit_ids: Array<string>, } | { "type": "document_changed", document_id: string, revision: string, } | { "type": "sessions_changed" } | { "type": "policy_changed", document_id: string | null, policy: Policy | null, } | { "type": "paused_changed", paused: boolean, } | { "type": "decision_requests_changed" } | { "type": "account_changed", signed_in: boolean, };

export type Account = { id: string, email: string | null, full_name: string | null, short_name: string | null, };

export type Overview = { version: string, 
/**
 * The configured Docs instance, if any.
 */
instance: string | null, signed_in: boolean, 
/**
 * Who is signed in, once the instance confirmed the session.
 */
account: Account | null, 
/**
 * Whether the session is kept in the OS keyring (false: in memory, until the app quits).
 */
session_persisted: boolean, paused: boolean, pending_count: number, 
/**
 * The MCP endpoint, e.g. `http://127.0.0.1:7658/mcp`.
 */
endpoint: string, 
/**
 * Whether the endpoint is served by this app.
 */
listening: boolean, 
/**
 * Why it is not (port taken, ...).
 */
listen_error: string | null, 
/**
 * The bearer token MCP clients send (for the ready-to-copy configs).
 */
token: string | null, 
/**
 * Absolute path of this app's binary (Claude Desktop runs `<it> bridge`).
 */
app_path: string, 
/**
 * What a stdio client runs `app_path` with: the bridge, pointed at this endpoint and data
 * directory (another port, or the demo's, is reached only so).
 */
bridge_args: Array<string>, 
/**
 * The service's data directory (what a shell agent must be fenced off from).
 */
data_dir: string, 
/**
 * Whether the demo runs (the instance is its local server, with sample documents).
 */
demo: boolean, 
/**
 * Whether this run (`--demo`) is starting the demo: its server is not answering yet.
 */
demo_starting: boolean, 
/**
 * Whether this build can start the demo (a checkout with the demo server installed).
 */
demo_available: boolean, };

export type InstanceCheck = { 
/**
 * The normalized origin.
 */
url: string, release_version: string | null, 
/**
 * `hocuspocus` (Docs 5) or `yhub` (its next major), as the instance's configuration
 * says; `null` when it names no collaboration endpoint (each document then tells).
 */
collaboration_server: string | null, };

export type SessionRow = { document_id: string, title: string | null, connected: boolean, read_only: boolean, error: string | null, 
/**
 * Milliseconds since the Unix epoch.
 */
last_activity: number, pending_acks: number, pending_saves: number, collaborators: Array<string>, 
/**
 * The agents that used the document since its session opened, most recent first.
 */
agents: Array<string>, 
/**
 * Agent edits of this document in the journal: applied, and waiting for a decision.
 */
edits_applied: number, edits_pending: number, 
/**
 * Unresolved comment threads of the document; `null` when Docs could not list them
 * (not signed in, no right to comment).
 */
open_threads: number | null, };

export type ChangedEdit = { id: string, reason: string, 
/**
 * What the block the edit was made on reads now (markdown), when it is still there.
 */
now: string | null, };

export type DocumentSource = "all" | "favorites" | "known";

export type DocumentRow = { id: string, title: string | null, 
/**
 * The document in the browser.
 */
url: string, 
/**
 * ISO 8601, when the instance says.
 */
updated_at: string | null, 
/**
 * When an agent or the person last opened it here (milliseconds since the Unix epoch);
 * set in the list of the documents known here, which the instance does not date.
 */
last_used_at: number | null, is_favorite: boolean, 
/**
 * Whether the user can edit it, when the instance says.
 */
can_edit: boolean | null, 
/**
 * The document's own policy; `None`: it follows the default.
 */
policy: Policy | null, effective_policy: Policy, };

export type DocumentList = { documents: Array<DocumentRow>, 
/**
 * More pages exist on the instance.
 */
has_more: boolean, };

export type HistoryFilter = { document_id: string | null, agent: string | null, status: Array<EditStatus> | null, limit: number | null, };

export type Decision = "approve" | "reject";

export type Settings = { port: number, approval_wait_secs: number, default_policy: Policy, 
/**
 * The port the endpoint listens on now.
 */
active_port: number, };

export type AgentClient = { id: string, 
/**
 * The name the person gave it (cleaned like any agent name).
 */
name: string, 
/**
 * Milliseconds since the Unix epoch.
 */
created_at: number, 
/**
 * When its token stopped working.
 */
revoked_at: number | null, };

export type NewAgentClient = { client: AgentClient, token: string, };

export type Channel = "window" | "terminal" | "policy";

export type Asker = { pid: number | null, 
/**
 * Its program's name (`docs-mcp`, `curl`, `python3`...).
 */
program: string | null, 
/**
 * The terminal its standard input and output both are, e.g. `/dev/pts/3`; `None` when
 * it has none (pipes, files) or when this could not be found out.
 */
terminal: string | null, 
/**
 * Whether the system let the service look the caller up at all.
 */
known: boolean, };

export type Action = { "kind": "approve", edit_id: string, 
/**
 * Only these parts (the others refused).
 */
parts: Array<number> | null, } | { "kind": "reject", edit_id: string, comment: string | null, } | { "kind": "set_policy", 
/**
 * `None`: the default policy.
 */
document_id: string | null, 
/**
 * `None`: remove it.
 */
policy: Policy | null, } | { "kind": "unpause" } | { "kind": "add_client", name: string, } | { "kind": "revoke_client", client_id: string, };

export type RequestState = { "state": "waiting" } | { "state": "carrying_out" } | { "state": "done", outcome: string, } | { "state": "declined" } | { "state": "expired", why: string, } | { "state": "failed", error: ErrorInfo, };

export type DecisionRequest = { id: string, action: Action, 
/**
 * What it does, in words: "Approve the edit of “Plan” by Claude Code (insert_blocks)".
 */
summary: string, 
/**
 * Who asked, as the service found the caller (never as the caller says).
 */
asker: Asker, 
/**
 * Milliseconds since the Unix epoch.
 */
asked_at: number, } & ({ "state": "waiting" } | { "state": "carrying_out" } | { "state": "done", outcome: string, } | { "state": "declined" } | { "state": "expired", why: string, } | { "state": "failed", error: ErrorInfo, });

export type Outcome = { "kind": "edit", "value": EditRecord } | { "kind": "policy", "value": { document_id: string | null, policy: Policy | null, } } | { "kind": "unpaused" } | { "kind": "client_added", "value": NewAgentClient } | { "kind": "client_revoked", "value": AgentClient };

export type GrantedRequest = { request: DecisionRequest, outcome: Outcome, };

export type ClaudeDesktopAdded = { 
/**
 * The configuration file written.
 */
path: string, 
/**
 * An entry of that name was there, and is now this app's.
 */
replaced: boolean, 
/**
 * Where the previous file was kept, if there was one.
 */
backup: string | null, };

export type LaunchAtLogin = { 
/**
 * The OS's state.
 */
enabled: boolean, 
/**
 * Why it is not offered in this run (the demo), if it is not.
 */
refused: string | null, 
/**
 * What to know before turning it on (a copy run from a build folder).
 */
caveat: string | null, };

export type TextPreview = { content: InlineJson[], };
