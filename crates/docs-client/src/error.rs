//! The one error type of the client. Every variant says what happened in words a user
//! understands and, where there is one, what to do next. Errors are `Clone` because one
//! failure (a lost connection, a refused save) is reported to every caller waiting on it.
//!
//! `Error::is_transient` says whether retrying the same operation later can succeed.

use std::time::Duration;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    #[error("invalid instance URL {url:?}: {reason}")]
    InvalidUrl { url: String, reason: String },

    #[error(
        "{input:?} names no document: give a document id (UUID) or its address (https://HOST/docs/<id>/)"
    )]
    InvalidDocumentRef { input: String },

    #[error("not found: {what}")]
    NotFound { what: String },

    #[error("not signed in: {detail} (sign in to the Docs instance, or use a public document)")]
    Unauthorized { detail: String },

    #[error("forbidden: {detail}")]
    Forbidden { detail: String },

    #[error("the Docs instance is throttling requests; retry in {} s", retry_after.as_secs())]
    Throttled { retry_after: Duration },

    #[error("the Docs instance could not be reached: {detail}")]
    Network { detail: String },

    #[error("unexpected response from the Docs instance (HTTP {status}): {detail}")]
    BadResponse { status: u16, detail: String },

    #[error("document {document} is read-only for this user: the edit was not applied")]
    ReadOnly { document: String },

    #[error(
        "refused to send the session cookie to the collaboration server {url:?} named by the instance's configuration: {reason}. The cookie goes only to the instance's own host, over TLS; check the instance URL, or ask its administrator to set COLLABORATION_WS_URL to wss://<instance host>/…"
    )]
    UntrustedCollaborationUrl { url: String, reason: String },

    #[error("the collaboration server refused the connection ({code}: {reason}){}", hint_for_close(*code))]
    ConnectionRefused { code: u16, reason: String },

    #[error("the collaboration server denied access to document {document}: {reason}")]
    PermissionDenied { document: String, reason: String },

    #[error("the document did not finish syncing within {} s", waited.as_secs())]
    SyncTimeout { waited: Duration },

    #[error(
        "the edit was not acknowledged by the collaboration server within {} s; it is kept in the live session and will be sent when the connection is back",
        waited.as_secs()
    )]
    NotAcknowledged { waited: Duration },

    #[error(
        "the edit was not saved to the instance within {} s; saving is retried only while the document's session stays open",
        waited.as_secs()
    )]
    NotSaved { waited: Duration },

    #[error("the session of document {document} is closed")]
    Closed { document: String },

    #[error("malformed message from the collaboration server: {detail}")]
    Protocol { detail: String },

    #[error("the stored content of document {document} is not a valid Yjs update: {detail}")]
    BadContent { document: String, detail: String },

    /// yrs failed integrating an update from the room (it panicked): the session's copy of
    /// the document cannot be trusted, so the session ended without writing or saving more.
    #[error(
        "an update from the collaboration room of document {document} could not be integrated ({detail}); the session ended without saving anything more, and the document is opened afresh at the next call"
    )]
    NotIntegrated { document: String, detail: String },

    #[error(
        "document {document} nests its content {depth} levels deep, deeper than the {limit} levels this client can safely edit; flatten its lists in Docs and open it again"
    )]
    TooDeep {
        document: String,
        depth: usize,
        limit: usize,
    },
}

fn hint_for_close(code: u16) -> &'static str {
    match code {
        4001 => " — the instance refused this client's Origin or cookies; check the instance URL",
        4401 => " — sign in again",
        4403 => " — this user may not open the document",
        4404 => " — the document was deleted",
        1009 => " — the message was too large for the server",
        _ => "",
    }
}

impl Error {
    /// Whether retrying the same operation later can succeed.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            Error::Network { .. }
                | Error::Throttled { .. }
                | Error::SyncTimeout { .. }
                | Error::NotAcknowledged { .. }
                | Error::NotSaved { .. }
        ) || matches!(self, Error::BadResponse { status, .. } if *status >= 500)
    }
}
