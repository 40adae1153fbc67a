//! What an agent's edit is, as the approval queue, the journal, the UI and the CLI see it.
//! Plain data with serde: these records are stored in SQLite and sent to the UI as they are.
//!
//! Here: `EditRecord` (the journal, without the Yjs payload), `EditPayload` (what applying needs),
//! `EditStatus` (the state machine), `Policy` (auto, review, read-only, comment-only),
//! `ProposedComment` (a comment tool's record: action, thread, quoted text, body), `Preview`,
//! `AgentInfo` (a cleaned, capped name: self-reported, or the configured client's), and `visible`
//! (text with control characters made visible, for printing).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

mod agent;
mod payload;
mod preview;

pub(crate) use agent::clean_name;
pub use agent::{AgentInfo, MAX_AGENT_NAME_CHARS, visible};
pub use payload::{BlockState, EditPayload, PlannedText, Seen};
pub use preview::{DiffSpan, LinkKind, Preview, PreviewBlock, PreviewLink};

/// An error as it leaves the service: a code, what happened, and what to do next.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorInfo {
    pub code: String,
    pub message: String,
    pub hint: String,
}

/// How agent writes to a document are handled.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// Applied at once.
    Auto,
    /// Waits for a human decision.
    Review,
    /// Refused.
    ReadOnly,
    /// Edits refused; comments (add, reply, resolve, reopen) made at once: an agent reviews
    /// the document by commenting.
    CommentOnly,
}

impl Policy {
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Auto => "auto",
            Policy::Review => "review",
            Policy::ReadOnly => "read-only",
            Policy::CommentOnly => "comment-only",
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Policy::Auto),
            "review" => Ok(Policy::Review),
            "read-only" | "readonly" | "read_only" => Ok(Policy::ReadOnly),
            "comment-only" | "commentonly" | "comment_only" => Ok(Policy::CommentOnly),
            other => Err(format!(
                "unknown approval policy {other:?}: use auto, review, read-only or comment-only"
            )),
        }
    }
}

// The state machine (every transition a compare-and-set in the store, persisted before it
// takes effect):
//
//   pending ──approve──▶ applying ──acknowledged──▶ applied ──its undo applied──▶ undone
//      │                    ├──a block it depends on changed since it was planned──▶ conflict
//      │                    └──it cannot be in the document──────────────────────────▶ failed
//      ├──reject──▶ rejected
//      └──the agent that asked withdraws it──▶ withdrawn
//
//                       applied ──Docs lost it before a save, and it cannot be merged again──▶ conflict | failed
//
// `applying` is written before the change is merged into the live document: an edit in it may
// be in the document, and is followed until it is confirmed (`applied`) or known not to be
// there (`failed` and `conflict` always mean "not in the document"). `applied` means in the
// room; `saved_at` says a save of Docs holds it. Until then the edit is `unsaved` in the
// journal (from `applying` on), which merges it again, after the same checks, when its room
// lost it (`service::saving`).
/// Where an edit stands: `pending` (waiting for a person), `applying` (approved and merged
/// into the live document, not yet acknowledged by the collaboration server), `applied`, `rejected`, `conflict` or
/// `failed` (not in the document), `undone`, `withdrawn` (taken back by the agent that asked,
/// before anyone decided: never in the document).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditStatus {
    Pending,
    Applying,
    Applied,
    Rejected,
    Conflict,
    Failed,
    Undone,
    Withdrawn,
}

impl EditStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            EditStatus::Pending => "pending",
            EditStatus::Applying => "applying",
            EditStatus::Applied => "applied",
            EditStatus::Rejected => "rejected",
            EditStatus::Conflict => "conflict",
            EditStatus::Failed => "failed",
            EditStatus::Undone => "undone",
            EditStatus::Withdrawn => "withdrawn",
        }
    }

    /// No transition leaves it (but `applied` → `undone`, by an undo).
    pub fn is_final(self) -> bool {
        !matches!(self, EditStatus::Pending | EditStatus::Applying)
    }

    pub const ALL: [EditStatus; 8] = [
        EditStatus::Pending,
        EditStatus::Applying,
        EditStatus::Applied,
        EditStatus::Rejected,
        EditStatus::Conflict,
        EditStatus::Failed,
        EditStatus::Undone,
        EditStatus::Withdrawn,
    ];
}

impl std::str::FromStr for EditStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "pending" => EditStatus::Pending,
            "applying" => EditStatus::Applying,
            "applied" => EditStatus::Applied,
            "rejected" => EditStatus::Rejected,
            "conflict" => EditStatus::Conflict,
            "failed" => EditStatus::Failed,
            "undone" => EditStatus::Undone,
            "withdrawn" => EditStatus::Withdrawn,
            other => return Err(format!("unknown edit status {other:?}")),
        })
    }
}

/// How a decision reached the service — set by the service from where it came in, never
/// read from a request: the person's click in the app's window, the person in a terminal
/// (headless, with a code typed back), or the automatic policy. Only `Policy` merges over
/// others' typing in the blocks an edit changes (nobody saw the edit).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Window,
    Terminal,
    Policy,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Window => "window",
            Channel::Terminal => "terminal",
            Channel::Policy => "policy",
        }
    }
}

/// Records written before channels were set by the service said `app`, `auto`, `cli` or
/// whatever a control request named: anything but the app and the policy came through the
/// control API, from a terminal.
impl<'de> Deserialize<'de> for Channel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match String::deserialize(d)?.as_str() {
            "window" | "app" => Channel::Window,
            "policy" | "auto" => Channel::Policy,
            _ => Channel::Terminal,
        })
    }
}

/// An agent's edit: pending, decided, applied or undone. The journal is the list of edits
/// that were applied.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditRecord {
    pub id: Uuid,
    pub document_id: Uuid,
    pub document_title: Option<String>,
    pub agent: AgentInfo,
    /// The tool that made it (`insert_blocks`, `apply_edits`, ...).
    pub tool: String,
    /// The tool's arguments, as the agent sent them.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub arguments: serde_json::Value,
    pub reason: Option<String>,
    /// The revision the agent quoted, if any.
    pub revision: Option<String>,
    pub preview: Preview,
    /// Existing blocks the edit changes or positions against.
    pub touched_blocks: Vec<String>,
    /// Ids of the blocks the edit creates.
    pub new_blocks: Vec<String>,
    /// Whether it can be undone once applied.
    pub undoable: bool,
    /// For an undo: the edit it reverts.
    pub undoes: Option<Uuid>,
    pub status: EditStatus,
    /// The human's comment on a decision.
    pub comment: Option<String>,
    /// The channel the decision came through, set by the service (never by the request).
    pub decided_by: Option<Channel>,
    /// The text the person approved instead of the agent's (approved with changes); the
    /// preview then shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub approved_text: Option<String>,
    /// What a person may accept or refuse one by one (`edits::parts`), labelled; empty when
    /// the edit is one part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<EditPart>>", optional))]
    pub parts: Vec<EditPart>,
    /// The parts (indexes into `parts`) the person accepted, when they refused the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<u32>>", optional))]
    pub approved_parts: Option<Vec<usize>>,
    /// The parts the person accepted with their own text, by index.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<std::collections::HashMap<u32, String>>", optional)
    )]
    pub part_texts: BTreeMap<usize, String>,
    /// For the comment tools: the comment (or the thread's change) the agent asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub proposed_comment: Option<ProposedComment>,
    /// For `create_document`: the document the agent asks to create (`document_id` is the id
    /// it gets once made; its content is the preview).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub proposed_document: Option<ProposedDocument>,
    pub error: Option<ErrorInfo>,
    /// Milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub decided_at: Option<i64>,
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub applied_at: Option<i64>,
    /// When a save of Docs first held it. `null` while an applied edit is only in the live
    /// document (the journal keeps it until a save does), and for an edit never in it.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub saved_at: Option<i64>,
}

impl EditRecord {
    /// A new edit waiting for a decision, asked now by `agent` through `tool`: everything a
    /// decision, a merge or a save later sets is still empty. Each kind of request fills in
    /// what it proposes (a plan's preview and blocks, a comment, a document).
    pub fn pending(
        document_id: Uuid,
        document_title: Option<String>,
        agent: AgentInfo,
        tool: String,
        arguments: serde_json::Value,
        reason: Option<String>,
    ) -> Self {
        Self {
            id: Uuid::new_v4(),
            document_id,
            document_title,
            agent,
            tool,
            arguments,
            reason,
            revision: None,
            preview: Preview::default(),
            touched_blocks: vec![],
            new_blocks: vec![],
            undoable: false,
            undoes: None,
            status: EditStatus::Pending,
            comment: None,
            decided_by: None,
            approved_text: None,
            parts: vec![],
            approved_parts: None,
            part_texts: BTreeMap::new(),
            proposed_comment: None,
            proposed_document: None,
            error: None,
            created_at: now_ms(),
            decided_at: None,
            applied_at: None,
            saved_at: None,
        }
    }
}

/// A part of an edit a person may accept or refuse on its own (see `edits::parts`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditPart {
    /// What it does, e.g. `Insert heading “Plan”`.
    pub label: String,
    /// The text the person may rewrite before accepting it (a block rewrite's inline
    /// markdown); `null`: taken or refused as it is.
    pub text: Option<String>,
}

/// What an agent asks of a document's comment threads.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommentAction {
    /// A new thread attached to text (`add_comment`).
    Add,
    /// A comment added to a thread (`reply_comment`).
    Reply,
    /// `resolve_comment`.
    Resolve,
    /// `reopen_comment`.
    Reopen,
}

/// A comment an agent proposes (a record of a comment tool): what a person sees on its card
/// and what is carried out once decided.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedComment {
    pub action: CommentAction,
    /// The thread replied to, resolved or reopened; for `add`, the one created (once it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub thread_id: Option<String>,
    /// The block the thread is attached to (for `add`, where it will be).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub block_id: Option<String>,
    /// The exact text the thread is attached to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub quoted_text: Option<String>,
    /// The comment, as markdown (`add`, `reply`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub body: Option<String>,
    /// The comment as Docs will show it (BlockNote blocks JSON, what Docs stores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "Array<BlockJson>"))]
    pub body_blocks: Option<serde_json::Value>,
    /// `add` only, once made: whether the text carries the thread's mark. A commenter's
    /// connection may not change the document: its thread exists, attached to no text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub anchored: Option<bool>,
}

/// A document an agent asks to create: what its card shows, and what is made once decided.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedDocument {
    pub title: String,
    /// The document it goes under, as a sub-page; `None`: at the top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub parent_id: Option<Uuid>,
    /// That document's title, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub parent_title: Option<String>,
    /// The edit writing its content, once the document is made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub content_edit: Option<Uuid>,
}

/// What a group decision ("Approve all", "Reject all") did with each edit the person had on
/// screen; those in none of the three were left pending by Stop.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupDecision {
    /// Decided, as they stand now (applied, applying, conflict, failed, rejected).
    pub decided: Vec<EditRecord>,
    /// Left pending because deciding them failed (the instance out of reach...), and why.
    pub failed: Vec<UndecidedEdit>,
    /// Decided elsewhere meanwhile (another window, a terminal), left as they were.
    pub elsewhere: Vec<Uuid>,
}

/// An edit a group decision could not decide: it still waits.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndecidedEdit {
    pub id: Uuid,
    pub error: ErrorInfo,
}

/// Filters of the edit lists; empty = everything, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditFilter {
    pub status: Option<Vec<EditStatus>>,
    pub document_id: Option<Uuid>,
    pub agent: Option<String>,
    pub limit: Option<u32>,
    /// Oldest first (the pending queue as it is reviewed); else newest first.
    #[serde(default)]
    pub oldest_first: bool,
}

/// How many of a document's edits are in the journal as applied, and wait for a decision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditCounts {
    pub applied: u64,
    pub pending: u64,
}

/// A document the user added or an agent opened here (the document list when not signed in).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownDocument {
    pub id: Uuid,
    pub title: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub last_opened_at: i64,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}
