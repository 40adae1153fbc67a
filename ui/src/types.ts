// The IPC types. Those the Rust side declares are generated from it (`bindings.ts`, kept
// equal to the Rust types by a test in `src-tauri/src/api.rs`; `commands.ts`, the command
// map, from the commands' signatures by `src-tauri/src/command_map.rs`); here are only what
// the UI adds: the app's own event, the screens.

import type { EditStatus, ServiceEvent as ServiceEventOfTheService } from "./bindings";

export type {
  Account,
  Action,
  AgentClient,
  AgentInfo,
  Asker,
  Channel,
  ChangedEdit,
  ClaudeDesktopAdded,
  DecisionRequest,
  DiffSpan,
  DocumentList,
  DocumentRow,
  DocumentSource,
  EditRecord,
  EditStatus,
  ErrorInfo,
  GrantedRequest,
  GroupDecision,
  HistoryFilter,
  InstanceCheck,
  LaunchAtLogin,
  NewAgentClient,
  Overview,
  Policy,
  Preview,
  PreviewBlock,
  PreviewLink,
  ProposedComment,
  ProposedDocument,
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
export const EDIT_STATUSES = ["pending", "applying", "applied", "rejected", "conflict", "failed", "undone", "withdrawn"] as const satisfies readonly EditStatus[];

/** The one event stream (`service-event`): the service's events, and the app's `resync`
 * (events were dropped: reload everything). */
export type ServiceEvent = ServiceEventOfTheService | { type: "resync" };

/** Every command: generated from their Rust signatures (`commands.ts`). */
export type { Commands } from "./commands";

/** The screens; the tray's `navigate` event names one. */
export type Screen = "connect" | "documents" | "pending" | "sessions" | "history" | "agents" | "settings";
export const SCREENS: Screen[] = ["connect", "documents", "pending", "sessions", "history", "agents", "settings"];
