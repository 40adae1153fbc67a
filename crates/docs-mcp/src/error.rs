//! The service's typed errors and their stable codes. Inside, errors stay typed; the MCP
//! boundary (`mcp::errors`) and the control API turn them into `{code, message, hint}`.

use serde::Serialize;

use crate::record::ErrorInfo;

/// Stable error codes agents and scripts can rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    InvalidInput,
    DocNotFound,
    DocForbidden,
    DocReadonly,
    NotSignedIn,
    BlockNotFound,
    TextNotFound,
    AmbiguousMatch,
    UnsupportedBlockType,
    /// A link target or media URL of a scheme other than those allowed (`http`, `https`,
    /// `mailto` for links), or a relative address not on the instance.
    UnsafeUrl,
    /// Too many of this agent's edits (or of all agents') wait for the user already.
    TooManyPending,
    StaleRevision,
    SyncTimeout,
    NotAcknowledged,
    RateLimited,
    EditRejected,
    EditConflict,
    /// The document holds content this server cannot safely read or edit (nested too deep).
    DocUnsupported,
    /// The instance keeps no history an agent can read (its collaboration server is not yhub).
    HistoryUnavailable,
    InstanceUnreachable,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::DocNotFound => "DOC_NOT_FOUND",
            ErrorCode::DocForbidden => "DOC_FORBIDDEN",
            ErrorCode::DocReadonly => "DOC_READONLY",
            ErrorCode::NotSignedIn => "NOT_SIGNED_IN",
            ErrorCode::BlockNotFound => "BLOCK_NOT_FOUND",
            ErrorCode::TextNotFound => "TEXT_NOT_FOUND",
            ErrorCode::AmbiguousMatch => "AMBIGUOUS_MATCH",
            ErrorCode::UnsupportedBlockType => "UNSUPPORTED_BLOCK_TYPE",
            ErrorCode::UnsafeUrl => "UNSAFE_URL",
            ErrorCode::TooManyPending => "TOO_MANY_PENDING",
            ErrorCode::StaleRevision => "STALE_REVISION",
            ErrorCode::SyncTimeout => "SYNC_TIMEOUT",
            ErrorCode::NotAcknowledged => "NOT_ACKNOWLEDGED",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::EditRejected => "EDIT_REJECTED",
            ErrorCode::EditConflict => "EDIT_CONFLICT",
            ErrorCode::DocUnsupported => "DOC_UNSUPPORTED",
            ErrorCode::HistoryUnavailable => "HISTORY_UNAVAILABLE",
            ErrorCode::InstanceUnreachable => "INSTANCE_UNREACHABLE",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum ServiceError {
    #[error("{message}")]
    InvalidInput { message: String, hint: String },
    #[error(transparent)]
    Docs(#[from] docs_client::Error),
    #[error(transparent)]
    Model(#[from] docs_client::blocknote::error::ModelError),
    #[error("no text matching {needle:?} in {scope}")]
    TextNotFound { needle: String, scope: String },
    #[error("{count} places match {needle:?}; the edit needs exactly one")]
    AmbiguousMatch {
        needle: String,
        count: usize,
        block_ids: Vec<String>,
    },
    #[error("block {block_id} changed since revision {revision}")]
    StaleRevision {
        block_id: String,
        revision: String,
        current: String,
    },
    #[error(
        "your change to block {block_id} overlaps a change made since you read it: {read:?} now reads {now:?}"
    )]
    Overlap {
        block_id: String,
        read: String,
        now: String,
    },
    #[error("no instance is configured")]
    NoInstance,
    #[error("this needs a signed-in user")]
    NotSignedIn,
    #[error(
        "the Docs instance does not accept this session (it expired, was signed out, or is not a signed-in one)"
    )]
    SessionInvalid,
    #[error("agents are paused by the user")]
    Paused,
    #[error("writes to this document are disabled by the user's policy (read-only)")]
    PolicyReadOnly,
    #[error("agents may only comment on this document (the user's policy: comment only)")]
    PolicyCommentOnly,
    #[error(
        "this Docs instance keeps no history of who changed what that can be read (its collaboration server, {server}, has none)"
    )]
    HistoryUnavailable { server: String },
    #[error("the user rejected the edit{}", comment.as_ref().map(|c| format!(": {c}")).unwrap_or_default())]
    Rejected { comment: Option<String> },
    #[error("the edit no longer applies: {reason}")]
    Conflict { reason: String },
    #[error("an undo of edit {edit_id} is already waiting for a decision (edit {undo_id})")]
    UndoQueued { edit_id: String, undo_id: String },
    #[error(
        "{waiting} edits already wait for the user ({mine} of them yours); no more are taken until they decide some"
    )]
    TooManyPending { waiting: u64, mine: u64 },
    #[error("{0}")]
    DataDirInUse(String),
    #[error(transparent)]
    Ask(#[from] crate::decisions::AskError),
    #[error("no edit {id}")]
    EditNotFound { id: String },
    #[error("edit {id} is {status}, not pending")]
    NotPending { id: String, status: String },
    #[error("{0}")]
    Store(String),
    #[error("{0}")]
    Internal(String),
}

pub type ServiceResult<T> = Result<T, ServiceError>;

impl ServiceError {
    pub fn invalid(message: impl Into<String>, hint: impl Into<String>) -> Self {
        ServiceError::InvalidInput {
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub fn code(&self) -> ErrorCode {
        use docs_client::Error as D;
        use docs_client::blocknote::error::ModelError as M;
        match self {
            ServiceError::InvalidInput { .. } | ServiceError::EditNotFound { .. } => {
                ErrorCode::InvalidInput
            }
            ServiceError::NotPending { .. } | ServiceError::Ask(_) => ErrorCode::InvalidInput,
            ServiceError::Docs(e) => match e {
                D::InvalidUrl { .. } | D::InvalidDocumentRef { .. } => ErrorCode::InvalidInput,
                D::NotFound { .. } => ErrorCode::DocNotFound,
                D::Unauthorized { .. } => ErrorCode::NotSignedIn,
                D::Forbidden { .. } | D::PermissionDenied { .. } => ErrorCode::DocForbidden,
                D::ConnectionRefused { code, .. } if *code == 4401 => ErrorCode::NotSignedIn,
                // yhub closes the room of a deleted document with 4404.
                D::ConnectionRefused { code, .. } if *code == 4404 => ErrorCode::DocNotFound,
                D::ConnectionRefused { .. } => ErrorCode::DocForbidden,
                D::Throttled { .. } => ErrorCode::RateLimited,
                D::Network { .. } | D::BadResponse { .. } | D::UntrustedCollaborationUrl { .. } => {
                    ErrorCode::InstanceUnreachable
                }
                D::ReadOnly { .. } => ErrorCode::DocReadonly,
                D::SyncTimeout { .. } => ErrorCode::SyncTimeout,
                // The session ended on an update yrs could not take: opened afresh next time.
                D::NotAcknowledged { .. } | D::NotSaved { .. } | D::NotIntegrated { .. } => {
                    ErrorCode::NotAcknowledged
                }
                D::TooDeep { .. } => ErrorCode::DocUnsupported,
                D::Closed { .. } | D::Protocol { .. } | D::BadContent { .. } => ErrorCode::Internal,
            },
            ServiceError::Model(e) => match e {
                M::BlockNotFound { .. } | M::SectionNotFound { .. } => ErrorCode::BlockNotFound,
                M::UnknownBlockType { .. }
                | M::NotWritable { .. }
                | M::OpaqueBlock { .. }
                | M::HiddenNesting { .. } => ErrorCode::UnsupportedBlockType,
                M::DocumentTooDeep { .. } => ErrorCode::DocUnsupported,
                M::UnsafeUrl { .. } => ErrorCode::UnsafeUrl,
                M::MalformedDocument { .. } => ErrorCode::Internal,
                _ => ErrorCode::InvalidInput,
            },
            ServiceError::TextNotFound { .. } => ErrorCode::TextNotFound,
            ServiceError::AmbiguousMatch { .. } => ErrorCode::AmbiguousMatch,
            ServiceError::StaleRevision { .. } | ServiceError::Overlap { .. } => {
                ErrorCode::StaleRevision
            }
            ServiceError::NoInstance | ServiceError::NotSignedIn | ServiceError::SessionInvalid => {
                ErrorCode::NotSignedIn
            }
            ServiceError::PolicyReadOnly
            | ServiceError::PolicyCommentOnly
            | ServiceError::Paused
            | ServiceError::Rejected { .. } => ErrorCode::EditRejected,
            ServiceError::Conflict { .. } | ServiceError::UndoQueued { .. } => {
                ErrorCode::EditConflict
            }
            ServiceError::HistoryUnavailable { .. } => ErrorCode::HistoryUnavailable,
            ServiceError::TooManyPending { .. } => ErrorCode::TooManyPending,
            ServiceError::Store(_) | ServiceError::Internal(_) | ServiceError::DataDirInUse(_) => {
                ErrorCode::Internal
            }
        }
    }

    /// What the caller should do next.
    pub fn hint(&self) -> String {
        match self {
            ServiceError::InvalidInput { hint, .. } => hint.clone(),
            ServiceError::Docs(e) => match self.code() {
                ErrorCode::DocNotFound => "Check the document id or URL; list_documents shows the documents you can open.".into(),
                ErrorCode::NotSignedIn => "Sign in to the Docs instance in the Docs MCP app (or set DOCS_SESSION_COOKIE), or use a public document.".into(),
                ErrorCode::DocForbidden => "This user may not open the document; ask its owner for access.".into(),
                ErrorCode::RateLimited => match e {
                    docs_client::Error::Throttled { retry_after } => format!("Wait {} s and retry.", retry_after.as_secs().max(1)),
                    _ => "Wait a minute and retry.".into(),
                },
                ErrorCode::InstanceUnreachable => "Check the network and the instance URL, then retry.".into(),
                ErrorCode::DocReadonly => "You may only read this document; suggest the change to the user instead.".into(),
                ErrorCode::SyncTimeout | ErrorCode::NotAcknowledged => "The edit is kept and retried; call edit_status later, or read the document again before retrying.".into(),
                ErrorCode::DocUnsupported => "Tell the user: this document nests its lists too deeply to be edited safely; flattening them in Docs makes it editable. Other documents work.".into(),
                ErrorCode::InvalidInput => match e {
                    docs_client::Error::InvalidUrl { .. } => "Give the address of the Docs instance as a browser shows it, e.g. https://docs.example.org (http:// only for an instance on this computer).".into(),
                    _ => "Give a document id (UUID) or its address, https://HOST/docs/<id>/.".into(),
                },
                _ => "Retry; if it persists, report the error.".into(),
            },
            ServiceError::Model(_) => match self.code() {
                ErrorCode::BlockNotFound => "Read the document or its outline again to get current block ids.".into(),
                ErrorCode::UnsupportedBlockType => "Use one of the block types listed in the tool description, or leave that block as it is.".into(),
                ErrorCode::DocUnsupported => "Tell the user: this document nests its lists too deeply to be edited safely; flattening them in Docs makes it editable. Other documents work.".into(),
                ErrorCode::UnsafeUrl => "Give the full web address (https://…), a mailto: address for a link, or a path on the Docs instance (/docs/<id>/); write the text without the link when it has none of these.".into(),
                _ => "Fix the input as the message says and retry.".into(),
            },
            ServiceError::TextNotFound { .. } => "Read the block again and quote its current text exactly.".into(),
            ServiceError::AmbiguousMatch { .. } => "Give block_id, quote more surrounding text, or set all=true.".into(),
            ServiceError::StaleRevision { .. } => "Someone changed that block since you read it: read it again, then redo the edit on the current text.".into(),
            ServiceError::Overlap { .. } => "Read the block again and redo your edit on its current text; leave the other change as it is.".into(),
            ServiceError::UndoQueued { .. } => "Wait for the decision on that undo (edit_status), or ask the user.".into(),
            ServiceError::DataDirInUse(_) => "Stop the other Docs MCP service, or connect your agents to it instead.".into(),
            ServiceError::NoInstance => "Configure the Docs instance URL (DOCS_INSTANCE_URL, --instance, or the app).".into(),
            ServiceError::PolicyReadOnly => "The user set this document to read-only for agents; ask them to change its policy.".into(),
            ServiceError::PolicyCommentOnly => "Comment instead: add_comment on the text you would change, saying what you propose.".into(),
            ServiceError::HistoryUnavailable { .. } => "Use get_changes with a revision you read to see what changed since, and by whom (agent or person).".into(),
            ServiceError::SessionInvalid => "Sign in again in the Docs MCP app (or give the session of a freshly signed-in browser in DOCS_SESSION_COOKIE).".into(),
            ServiceError::NotSignedIn => "Sign in to the Docs instance in the Docs MCP app (or set DOCS_SESSION_COOKIE).".into(),
            ServiceError::Paused => "The user paused agents; try again later.".into(),
            ServiceError::Rejected { .. } => "Do not retry the same edit; take the user's comment into account.".into(),
            ServiceError::Conflict { .. } => "Read the document again and make the edit on its current content.".into(),
            ServiceError::EditNotFound { .. } | ServiceError::NotPending { .. } => "Use an edit_id returned by a write tool.".into(),
            ServiceError::Ask(e) => e.hint().into(),
            ServiceError::TooManyPending { .. } => "Wait for the user's decisions on your pending edits (edit_status with wait_seconds) before proposing more; group related changes into one apply_edits.".into(),
            ServiceError::Store(_) | ServiceError::Internal(_) => "Retry; if it persists, report the error.".into(),
        }
    }

    pub fn info(&self) -> ErrorInfo {
        ErrorInfo {
            code: self.code().as_str().to_owned(),
            message: self.to_string(),
            hint: self.hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An address refused at the door says what to give instead, not "retry".
    #[test]
    fn a_refused_address_says_what_to_give() {
        for input in ["http://docs.example.org", "ftp://docs.example.org"] {
            let error = ServiceError::from(docs_client::InstanceUrl::parse(input).unwrap_err());
            assert_eq!(error.code(), ErrorCode::InvalidInput);
            assert_eq!(
                error.hint(),
                "Give the address of the Docs instance as a browser shows it, e.g. https://docs.example.org (http:// only for an instance on this computer)."
            );
        }
        let error = ServiceError::from(docs_client::DocumentRef::parse("not a doc").unwrap_err());
        assert_eq!(error.code(), ErrorCode::InvalidInput);
        assert_eq!(
            error.hint(),
            "Give a document id (UUID) or its address, https://HOST/docs/<id>/."
        );
    }
}
