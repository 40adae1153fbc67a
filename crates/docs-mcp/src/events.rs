//! Change events for a UI: one stream, so the UI never polls.

use serde::Serialize;
use uuid::Uuid;

use crate::record::{EditStatus, Policy};

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServiceEvent {
    /// An edit was created or changed status.
    EditChanged {
        edit_id: Uuid,
        document_id: Uuid,
        status: EditStatus,
        agent: String,
    },
    /// A save of Docs now holds these applied edits (their `saved_at` is set).
    EditsSaved {
        document_id: Uuid,
        edit_ids: Vec<Uuid>,
    },
    /// Applied edits Docs did not keep (their room was lost before a save held them) that
    /// the document could not take again: now `conflict` or `failed`, not in the document.
    AppliedEditsLost {
        document_id: Uuid,
        edit_ids: Vec<Uuid>,
    },
    /// A document changed (by anyone); `revision` is its new revision.
    DocumentChanged {
        document_id: Uuid,
        revision: String,
    },
    /// Sessions were opened or closed.
    SessionsChanged,
    PolicyChanged {
        document_id: Option<Uuid>,
        policy: Option<Policy>,
    },
    PausedChanged {
        paused: bool,
    },
    /// Decisions asked over the control channel were made, settled or declined: the window
    /// shows those waiting (`decision_requests`).
    DecisionRequestsChanged,
    /// The user signed in or out (or a stored session was restored or found expired).
    AccountChanged {
        signed_in: bool,
    },
}
