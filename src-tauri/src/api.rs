//! **The only module that knows the IPC wire format**: every request and response type of
//! the app's Tauri commands, and the one error shape, `{code, message, hint}`. The UI's
//! `ui/src/bindings.ts` is generated from these types and the `docs-mcp` records (a test in
//! `api/tests.rs` fails when it drifts).
//!
//! `CommandError` carries `ServiceError::info()`, or one of the app's own codes:
//! `SIGN_IN_CANCELLED`, and `NOT_A_DOCS_INSTANCE` — what a person reads when the Connect screen's
//! address answers but is not Docs, or cannot be reached, or a browser does not open; never a
//! server's error page or an OS exit status. Here too: `Overview` (with `account`,
//! `session_persisted`, `demo`, `demo_available`) and the event names.

use std::collections::HashMap;

use docs_client::{SessionSnapshot, User};
use docs_mcp::record::{EditCounts, EditFilter, EditStatus, KnownDocument, Policy};
use docs_mcp::{ErrorInfo, ServiceError};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The name of the one event stream that carries `docs_mcp::ServiceEvent`s (and a
/// `{"type": "resync"}` when events were dropped) to the UI.
pub const SERVICE_EVENT: &str = "service-event";
/// Launch at login changed (from the tray or Settings): the OS's state now, a boolean.
pub const LAUNCH_AT_LOGIN_EVENT: &str = "launch-at-login";
/// Asks the UI to show a screen (`"pending"`, ...); sent by the tray menu.
pub const NAVIGATE_EVENT: &str = "navigate";

/// An error as it crosses IPC: `{code, message, hint}`, the codes of `docs_mcp::ErrorCode`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct CommandError(pub ErrorInfo);

/// The sign-in window was closed before the instance signed the user in.
pub const SIGN_IN_CANCELLED: &str = "SIGN_IN_CANCELLED";

impl CommandError {
    /// An error only the app has (the service's are `ErrorCode`s).
    fn app(code: &str, message: &str, hint: &str) -> Self {
        CommandError(ErrorInfo {
            code: code.to_owned(),
            message: message.to_owned(),
            hint: hint.to_owned(),
        })
    }

    pub fn sign_in_cancelled() -> Self {
        Self::app(
            SIGN_IN_CANCELLED,
            "the sign-in window was closed before signing in",
            "Sign in again when you are ready; public documents work meanwhile.",
        )
    }
}

/// The address answered, but not as Docs does (no `/api/v1.0/config/`, or not its JSON).
pub const NOT_A_DOCS_INSTANCE: &str = "NOT_A_DOCS_INSTANCE";

/// Why an address given on the Connect screen is not a usable Docs instance, for a person:
/// a server that is not Docs gets one sentence (never its error page, nor a hint meant for
/// agents), and every hint says what to do instead.
pub fn instance_check_failed(url: &str, error: docs_client::Error) -> CommandError {
    use docs_client::Error as E;
    match error {
        E::NotFound { .. } | E::Unauthorized { .. } | E::Forbidden { .. } | E::BadResponse { .. } => {
            CommandError::app(
                NOT_A_DOCS_INSTANCE,
                &format!("{url} answers, but not as a La Suite Docs instance"),
                "Give the address you open Docs at in your browser, for example https://docs.numerique.gouv.fr.",
            )
        }
        E::Network { detail } => CommandError(ErrorInfo {
            hint: "Check the address, and that this computer reaches it (a company's instance may need its VPN).".into(),
            message: format!("cannot reach {url}: {detail}"),
            ..ServiceError::from(E::Network { detail: String::new() }).info()
        }),
        other => other.into(),
    }
}

/// The system could not open a browser; the OS's exit status means nothing to a person.
pub fn browser_failed(url: &str) -> CommandError {
    invalid(
        format!("no web browser opened {url}"),
        "Copy the address into your browser; check the system's default browser.",
    )
}

impl From<tauri::Error> for CommandError {
    fn from(error: tauri::Error) -> Self {
        ServiceError::Internal(error.to_string()).into()
    }
}

impl From<ServiceError> for CommandError {
    fn from(error: ServiceError) -> Self {
        CommandError(error.info())
    }
}

impl From<docs_client::Error> for CommandError {
    fn from(error: docs_client::Error) -> Self {
        ServiceError::from(error).into()
    }
}

pub type CommandResult<T> = Result<T, CommandError>;

/// Why the service did not start (another service holds the data directory, say): the
/// window then says so instead of the app vanishing.
pub struct StartupProblem(pub Option<String>);

/// The screen the tray asked for when it opened the window afresh (a `navigate` event would
/// come before the page listens): the page takes it once loaded.
#[derive(Default)]
pub struct AskedScreen(pub std::sync::Mutex<Option<String>>);

/// What the app shows everywhere: the instance, the endpoint and how to reach it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overview {
    pub version: String,
    /// The configured Docs instance, if any.
    pub instance: Option<String>,
    pub signed_in: bool,
    /// Who is signed in, once the instance confirmed the session.
    pub account: Option<Account>,
    /// Whether the session is kept in the OS keyring (false: in memory, until the app quits).
    pub session_persisted: bool,
    pub paused: bool,
    #[cfg_attr(test, ts(type = "number"))]
    pub pending_count: u64,
    /// The MCP endpoint, e.g. `http://127.0.0.1:7658/mcp`.
    pub endpoint: String,
    /// Whether the endpoint is served by this app.
    pub listening: bool,
    /// Why it is not (port taken, ...).
    pub listen_error: Option<String>,
    /// The bearer token MCP clients send (for the ready-to-copy configs).
    pub token: Option<String>,
    /// Absolute path of this app's binary (Claude Desktop runs `<it> bridge`).
    pub app_path: String,
    /// What a stdio client runs `app_path` with: the bridge, pointed at this endpoint and data
    /// directory (another port, or the demo's, is reached only so).
    pub bridge_args: Vec<String>,
    /// The service's data directory (what a shell agent must be fenced off from).
    pub data_dir: String,
    /// Whether the demo runs (the instance is its local server, with sample documents).
    pub demo: bool,
    /// Whether this run (`--demo`) is starting the demo: its server is not answering yet.
    pub demo_starting: bool,
    /// Whether this build can start the demo (a checkout with the demo server installed).
    pub demo_available: bool,
}

/// Launch at login as Settings offers it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaunchAtLogin {
    /// The OS's state.
    pub enabled: bool,
    /// Why it is not offered in this run (the demo), if it is not.
    pub refused: Option<String>,
    /// What to know before turning it on (a copy run from a build folder).
    pub caveat: Option<String>,
}

/// The signed-in Docs user.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Account {
    pub id: String,
    pub email: Option<String>,
    pub full_name: Option<String>,
    pub short_name: Option<String>,
}

impl From<User> for Account {
    fn from(user: User) -> Self {
        Account {
            id: user.id,
            email: user.email,
            full_name: user.full_name,
            short_name: user.short_name,
        }
    }
}

/// A Docs instance that answered `GET /api/v1.0/config/`.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstanceCheck {
    /// The normalized origin.
    pub url: String,
    pub release_version: Option<String>,
    /// `hocuspocus` (Docs 5) or `yhub` (its next major), as the instance's configuration
    /// says; `null` when it names no collaboration endpoint (each document then tells).
    pub collaboration_server: Option<String>,
}

/// One row of the Sessions screen.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRow {
    pub document_id: Uuid,
    pub title: Option<String>,
    pub connected: bool,
    pub read_only: bool,
    pub error: Option<String>,
    /// Milliseconds since the Unix epoch.
    #[cfg_attr(test, ts(type = "number"))]
    pub last_activity: i64,
    #[cfg_attr(test, ts(type = "number"))]
    pub pending_acks: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub pending_saves: u64,
    pub collaborators: Vec<String>,
    /// The agents that used the document since its session opened, most recent first.
    pub agents: Vec<String>,
    /// Agent edits of this document in the journal: applied, and waiting for a decision.
    #[cfg_attr(test, ts(type = "number"))]
    pub edits_applied: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub edits_pending: u64,
    /// Unresolved comment threads of the document; `null` when Docs could not list them
    /// (not signed in, no right to comment).
    #[cfg_attr(test, ts(type = "number | null"))]
    pub open_threads: Option<usize>,
}

/// A person's text for a block, as it would read: BlockNote inline JSON, rendered beside
/// the text they type before approving it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextPreview {
    #[cfg_attr(test, ts(type = "InlineJson[]"))]
    pub content: serde_json::Value,
}

/// A request asked from outside the window, as the person's click left it, and what it did.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct GrantedRequest {
    pub request: docs_mcp::DecisionRequest,
    pub outcome: docs_mcp::Outcome,
}

/// A pending edit whose approval would now be a conflict, and why.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangedEdit {
    pub id: Uuid,
    pub reason: String,
    /// What the block the edit was made on reads now (markdown), when it is still there.
    pub now: Option<String>,
}

/// Which documents the Documents screen lists. `Known`: added by URL or opened by agents.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentSource {
    All,
    Favorites,
    Known,
}

/// One row of the Documents screen.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentRow {
    pub id: Uuid,
    pub title: Option<String>,
    /// The document in the browser.
    pub url: String,
    /// ISO 8601, when the instance says.
    pub updated_at: Option<String>,
    /// When an agent or the person last opened it here (milliseconds since the Unix epoch);
    /// set in the list of the documents known here, which the instance does not date.
    #[cfg_attr(test, ts(type = "number | null"))]
    pub last_used_at: Option<i64>,
    pub is_favorite: bool,
    /// Whether the user can edit it, when the instance says.
    pub can_edit: Option<bool>,
    /// The document's own policy; `None`: it follows the default.
    pub policy: Option<Policy>,
    pub effective_policy: Policy,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentList {
    pub documents: Vec<DocumentRow>,
    /// More pages exist on the instance.
    pub has_more: bool,
}

/// Filters of the History screen; no status = every decided one.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct HistoryFilter {
    pub document_id: Option<Uuid>,
    pub agent: Option<String>,
    pub status: Option<Vec<EditStatus>>,
    pub limit: Option<u32>,
}

impl HistoryFilter {
    /// The journal: decided edits only (being applied included), at most 200 unless asked
    /// otherwise.
    pub fn to_edit_filter(&self) -> EditFilter {
        EditFilter {
            status: Some(self.status.clone().unwrap_or_else(|| {
                vec![
                    EditStatus::Applying,
                    EditStatus::Applied,
                    EditStatus::Rejected,
                    EditStatus::Conflict,
                    EditStatus::Failed,
                    EditStatus::Undone,
                    EditStatus::Withdrawn,
                ]
            })),
            document_id: self.document_id,
            agent: self.agent.clone().filter(|a| !a.is_empty()),
            oldest_first: false,
            limit: Some(self.limit.unwrap_or(200).clamp(1, 1000)),
        }
    }
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Approve,
    Reject,
}

/// The Settings screen. The port applies at the next start. (Launch at login is not one of
/// them: it is the OS's state, read and changed on its own, from the tray or Settings.)
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub port: u16,
    #[cfg_attr(test, ts(type = "number"))]
    pub approval_wait_secs: u64,
    pub default_policy: Policy,
    /// The port the endpoint listens on now.
    pub active_port: u16,
}

impl Settings {
    /// Refuses what the service cannot use, with the field to fix.
    pub fn validate(&self) -> CommandResult<()> {
        if self.port < 1024 {
            return Err(invalid(
                format!("port {} is reserved", self.port),
                "Pick a port between 1024 and 65535.",
            ));
        }
        if !(1..=600).contains(&self.approval_wait_secs) {
            return Err(invalid(
                format!(
                    "an approval wait of {} s is out of range",
                    self.approval_wait_secs
                ),
                "Pick between 1 and 600 seconds.",
            ));
        }
        Ok(())
    }
}

/// An `INVALID_INPUT` error for the UI.
pub fn invalid(message: impl Into<String>, hint: impl Into<String>) -> CommandError {
    ServiceError::invalid(message, hint).into()
}

/// The session snapshots, with the titles of the documents known to the service, their
/// edit counts and the agents that used them.
pub fn session_rows(
    snapshots: Vec<SessionSnapshot>,
    known: &[KnownDocument],
    counts: &HashMap<Uuid, EditCounts>,
    open_threads: &HashMap<Uuid, usize>,
    agents: &HashMap<Uuid, Vec<String>>,
) -> Vec<SessionRow> {
    let mut rows: Vec<SessionRow> = snapshots
        .into_iter()
        .map(|s| SessionRow {
            edits_applied: counts.get(&s.document_id).map_or(0, |c| c.applied),
            edits_pending: counts.get(&s.document_id).map_or(0, |c| c.pending),
            open_threads: open_threads.get(&s.document_id).copied(),
            agents: agents.get(&s.document_id).cloned().unwrap_or_default(),
            title: known
                .iter()
                .find(|k| k.id == s.document_id)
                .and_then(|k| k.title.clone()),
            document_id: s.document_id,
            connected: s.connected,
            read_only: s.read_only,
            error: s.error,
            last_activity: s
                .last_activity
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or_default(),
            pending_acks: s.pending_acks,
            pending_saves: s.pending_saves,
            collaborators: s.collaborators,
        })
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.last_activity));
    rows
}

#[cfg(test)]
mod tests;
