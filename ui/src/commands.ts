// Generated from the commands' signatures in src-tauri/src/commands.rs by
// `command_map::tests::ui_command_bindings_are_generated_from_the_commands`: do not edit.
// Regenerate with `UPDATE_BINDINGS=1 cargo test -p docs-mcp-app --bin docs-mcp-app bindings`.

import type { AgentClient, ChangedEdit, ClaudeDesktopAdded, Decision, DecisionRequest, DocumentList, DocumentRow, DocumentSource, EditRecord, GrantedRequest, GroupDecision, HistoryFilter, InstanceCheck, LaunchAtLogin, NewAgentClient, Overview, Policy, SessionRow, Settings, TextPreview } from "./bindings";

/** Every command: its arguments and its result. */
export interface Commands {
  overview: { args: Record<string, never>; result: Overview };
  check_instance: { args: { url: string }; result: InstanceCheck };
  connect_instance: { args: { url: string }; result: Overview };
  /** The oldest pending edits, at most a page (50), without the agents' raw arguments. */
  list_pending: { args: Record<string, never>; result: EditRecord[] };
  /** How many edits wait for a decision in all (the window shows a page of them). */
  pending_count: { args: Record<string, never>; result: number };
  approve_edit: { args: { id: string }; result: EditRecord };
  reject_edit: { args: { id: string; comment: string | null }; result: EditRecord };
  /** The decisions asked from outside the window (a terminal, a script) that wait for the
   * person, oldest first. */
  list_decision_requests: { args: Record<string, never>; result: DecisionRequest[] };
  /** The person's click on a request asked from outside the window: carried out, and
   * recorded as decided in the window. */
  grant_decision_request: { args: { id: string }; result: GrantedRequest };
  /** The person declines a request asked from outside the window: nothing is done. */
  decline_decision_request: { args: { id: string }; result: DecisionRequest };
  list_sessions: { args: Record<string, never>; result: SessionRow[] };
  set_paused: { args: { paused: boolean }; result: null };
  list_documents: { args: { source: DocumentSource; query: string | null; page: number | null }; result: DocumentList };
  /** Adds a document by URL or id (remembered as known); works without sign-in for public ones. */
  add_document: { args: { url: string }; result: DocumentRow };
  /** `document_id: null` sets the default policy; `policy: null` clears a document's own. */
  set_policy: { args: { document_id: string | null; policy: Policy | null }; result: null };
  /** Opens the document's page, at `block_id` when given (Docs' block links, since 5.6). */
  open_in_browser: { args: { document_id: string; block_id: string | null }; result: null };
  disconnect_session: { args: { document_id: string }; result: null };
  /** Approves or rejects these pending edits (those of a group as the user saw it); says what
   * became of each: decided, left pending because deciding it failed (and why), or decided
   * elsewhere meanwhile (skipped, not an error). */
  decide_all: { args: { decision: Decision; ids: string[]; comment: string | null }; result: GroupDecision };
  /** Starts the demo: a local Docs-like server with sample documents, connected. */
  start_demo: { args: Record<string, never>; result: Overview };
  /** The demo agent proposes an edit to a sample document. */
  demo_propose_edit: { args: Record<string, never>; result: EditRecord };
  /** Approves an agent's rewrite of a block with the person's own text (inline markdown). */
  approve_with_text: { args: { id: string; text: string }; result: EditRecord };
  /** How a person's text for a block reads (inline markdown rendered as the block will hold
   * it); bad markdown is refused as approving it would be. */
  text_preview: { args: { text: string }; result: TextPreview };
  /** Approves some parts of an agent's edit (indexes into its `parts`), with the person's
   * `texts` for parts that rewrite a block (by index), and refuses the others. */
  approve_parts: { args: { id: string; parts: number[]; texts: Record<number, string> }; result: EditRecord };
  /** The pending edits among `ids` whose approval would now be a conflict, and why. */
  changed_since_proposed: { args: { ids: string[] }; result: ChangedEdit[] };
  /** Stops the group decisions under way: the edits they have not reached stay pending. */
  stop_decisions: { args: Record<string, never>; result: null };
  list_history: { args: { filter: HistoryFilter }; result: EditRecord[] };
  /** Undoes an applied edit (as a new edit the user made, applied at once). */
  undo_edit: { args: { id: string }; result: EditRecord };
  get_settings: { args: Record<string, never>; result: Settings };
  save_settings: { args: { settings: Settings }; result: Settings };
  /** Whether the OS starts the app at login, read from the OS; whether this run offers it, and
   * what to know first. */
  launch_at_login: { args: Record<string, never>; result: LaunchAtLogin };
  /** Turns launch at login on or off; answers its state after it. Refused in the demo. */
  set_launch_at_login: { args: { enabled: boolean }; result: LaunchAtLogin };
  /** Adds this app's stdio bridge to Claude Desktop's configuration as `server_name`. */
  add_to_claude_desktop: { args: { server_name: string }; result: ClaudeDesktopAdded };
  /** Why the app could not start its service, or `null`: asked first, before any other command. */
  startup_problem: { args: Record<string, never>; result: string | null };
  /** The screen the tray asked for when it opened this window, or `null`: taken once, when the
   * page has loaded. */
  asked_screen: { args: Record<string, never>; result: string | null };
  /** Replaces the bearer token; agents must be given the new one. */
  regenerate_token: { args: Record<string, never>; result: Overview };
  /** The agent clients configured with a token of their own, revoked ones included. */
  list_agent_clients: { args: Record<string, never>; result: AgentClient[] };
  /** Adds a named client; the answer carries its token, shown this once. */
  add_agent_client: { args: { name: string }; result: NewAgentClient };
  /** Revokes a client: its token stops working at once. */
  revoke_agent_client: { args: { id: string }; result: AgentClient };
  /** Resolves once the sign-in window has signed the user in (`SIGN_IN_CANCELLED` if closed). */
  sign_in: { args: Record<string, never>; result: Overview };
  /** Forgets the session (keyring and sign-in window cookies); public documents still work. */
  sign_out: { args: Record<string, never>; result: Overview };
}
