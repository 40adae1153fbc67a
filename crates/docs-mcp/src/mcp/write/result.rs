//! What a write tool answers: the edit as it stands, in words an agent acts on.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::record::{CommentAction, EditRecord, EditStatus, ErrorInfo};

/// The outcome of a write, or of `edit_status`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EditResult {
    pub edit_id: String,
    pub document_id: String,
    /// `applied` (in the live document, acknowledged by the collaboration server; see
    /// `saved`); `applying` (approved and merged into the live document, not yet
    /// acknowledged: follow it with edit_status); `pending` (waiting for the user);
    /// `rejected`, `conflict` or `failed` (not in the document).
    pub status: EditStatus,
    /// Whether a save of Docs holds the edit. An applied edit not saved yet is saved within a
    /// minute (sooner when nobody else is in the document); this service keeps it until then,
    /// and saves it at its next start if it stops first.
    pub saved: bool,
    /// What happened, in a sentence.
    pub message: String,
    /// Ids of the blocks the edit created.
    pub new_block_ids: Vec<String>,
    pub words_added: usize,
    pub words_removed: usize,
    /// The user's comment on their decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// The document's revision after an applied edit, to quote in the next write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// The user approved the edit with their own text instead of yours: this is what the block
    /// says now (inline markdown). Do not redo your version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approved_text: Option<String>,
    /// The user accepted only these parts of the edit (0-based: the operations of an
    /// apply_edits, the top-level blocks of an insert_blocks, the blocks of a delete_blocks,
    /// in your order) and refused the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_parts: Option<Vec<usize>>,
    /// Parts the user accepted with their own text (by index): what those blocks say now.
    /// Do not redo your version.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub part_texts: BTreeMap<usize, String>,
    /// For a comment: its thread (the new one, for add_comment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    /// For add_comment, once made: whether the text carries the thread (a commenter's
    /// connection may not change the document; its thread is attached to no text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchored: Option<bool>,
}

impl EditResult {
    pub fn from_record(record: &EditRecord) -> Self {
        let comment = record.proposed_comment.as_ref();
        let message = match record.status {
            EditStatus::Applied if comment.is_some() => comment_done(comment.expect("a comment")),
            EditStatus::Applied if record.proposed_document.is_some() => match &record.error {
                Some(error) => error.message.clone(),
                None => "The document was created (document_id); its content, if any, is written as the edit in content.".into(),
            },
            EditStatus::Applying if record.proposed_document.is_some() => format!(
                "Approved; Docs is being asked to make the document (asked again until it answers). Call edit_status with edit_id {} to follow it; do not ask again.",
                record.id
            ),
            EditStatus::Pending if record.proposed_document.is_some() => format!(
                "Waiting for the user's approval: the document is created only once they approve. Call edit_status with edit_id {} and wait_seconds to wait for the decision; do not ask again.",
                record.id
            ),
            EditStatus::Applied if record.approved_parts.is_some() => parts_done(record),
            EditStatus::Applied if record.approved_text.is_some() => format!(
                "The user approved the edit with changes of their own (approved_text is what the block says now); applied and acknowledged by the collaboration server, {}. Do not redo your version.",
                saved_in_docs(record)
            ),
            EditStatus::Applied => format!(
                "Applied: in the live document, acknowledged by the collaboration server; {}.",
                saved_in_docs(record)
            ),
            EditStatus::Applying => format!(
                "Approved and merged into the live document; the collaboration server has not acknowledged it yet (it is retried until it is). Call edit_status with edit_id {} to follow it; do not repeat the edit.",
                record.id
            ),
            EditStatus::Pending => format!(
                "Waiting for the user's approval. Call edit_status with edit_id {} and wait_seconds to wait for the decision; do not repeat the edit.",
                record.id
            ),
            EditStatus::Rejected => match &record.comment {
                Some(c) => format!("The user rejected the edit: {c}"),
                None => "The user rejected the edit.".into(),
            },
            EditStatus::Undone => "Applied, then undone.".into(),
            EditStatus::Withdrawn => "You withdrew it before anyone decided: nothing was changed.".into(),
            EditStatus::Conflict | EditStatus::Failed => record
                .error
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_else(|| "The edit was not applied.".into()),
        };
        EditResult {
            edit_id: record.id.to_string(),
            document_id: record.document_id.to_string(),
            status: record.status,
            saved: record.saved_at.is_some(),
            message,
            new_block_ids: record.new_blocks.clone(),
            words_added: record.preview.words_added,
            words_removed: record.preview.words_removed,
            comment: record.comment.clone(),
            error: record.error.clone(),
            revision: None,
            approved_text: record.approved_text.clone(),
            applied_parts: record.approved_parts.clone(),
            part_texts: record.part_texts.clone(),
            thread_id: comment.and_then(|c| c.thread_id.clone()),
            anchored: comment.and_then(|c| c.anchored),
        }
    }
}

/// Whether Docs saved an applied edit yet, in words.
fn saved_in_docs(record: &EditRecord) -> &'static str {
    if record.saved_at.is_some() {
        "saved in Docs"
    } else {
        "not yet saved in Docs (within a minute; this service keeps it until it is)"
    }
}

/// What was applied of an edit the user accepted in part.
fn parts_done(record: &EditRecord) -> String {
    let accepted = record.approved_parts.clone().unwrap_or_default();
    let list = |keep: bool| {
        record
            .parts
            .iter()
            .enumerate()
            .filter(|(i, _)| accepted.contains(i) == keep)
            .map(|(i, part)| match record.part_texts.get(&i) {
                Some(text) => format!("{i}: {} — with the user's text: {text}", part.label),
                None => format!("{i}: {}", part.label),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    format!(
        "The user applied only part of the edit: {} (applied_parts). Refused: {}. Applied and acknowledged by the collaboration server; do not redo the refused parts unless the user asks.",
        list(true),
        list(false)
    )
}

/// What an applied comment did, in a sentence.
fn comment_done(comment: &crate::record::ProposedComment) -> String {
    let thread = comment.thread_id.as_deref().unwrap_or("?");
    match comment.action {
        CommentAction::Add if comment.anchored == Some(false) => format!(
            "The comment thread {thread} is in Docs, attached to no text: this connection may only comment, not change the document, so the text could not be marked."
        ),
        CommentAction::Add => format!(
            "Done: comment thread {thread} is in Docs, attached to the text you gave (people see it there)."
        ),
        CommentAction::Reply => format!("Done: your reply is in comment thread {thread}."),
        CommentAction::Resolve => format!("Done: comment thread {thread} is resolved."),
        CommentAction::Reopen => format!("Done: comment thread {thread} is open again."),
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CreatedDocument {
    /// The creation: an edit like any other (follow it with edit_status).
    pub edit_id: String,
    /// `applied` (the document exists), `pending` (waiting for the user: nothing is made
    /// until they approve), `applying` (approved; Docs is being asked).
    pub status: EditStatus,
    /// What happened, in a sentence.
    pub message: String,
    /// The document's id — once made; the id it will have while the creation waits.
    pub document_id: String,
    pub url: String,
    pub title: Option<String>,
    /// The edit that writes the initial content, once the document is made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<EditResult>,
}
