//! Write tools. Each one describes its change as operations; the service plans them on a
//! fork, queues the edit and applies it when the policy or a human allows. A tool call waits
//! for the decision up to the configured time (sending progress notifications), then
//! answers `pending` with an `edit_id` for `edit_status`.

use std::collections::BTreeMap;
use std::time::Duration;

use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::{Json, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::DocsMcp;
use super::errors::ToolError;
use super::params::Parameters;
use crate::edits::{
    DeleteBlocks, EditOp, InsertBlocks, MoveBlock, Position, ReplaceText, UpdateBlock,
};
use crate::error::{ServiceError, ServiceResult};
use crate::record::CommentAction;
use crate::record::ErrorInfo;
use crate::record::{EditRecord, EditStatus};
use crate::service::EditRequest;

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

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct InsertBlocksArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// Where: `{"at": "start"|"end"}`, or `{"at": "before"|"after"|"first_child_of"|"last_child_of", "block_id": ID}`.
    pub position: Position,
    /// Markdown to insert (headings, lists, task lists, tables, code fences, quotes...).
    /// Math and diagrams are not written: `$…$` and `$$…$$` stay text, a `mermaid` or `math`
    /// fence is a code block. Links go to http(s) or mailto: URLs, images and other media to
    /// http(s) ones, or to paths on the instance (/docs/<id>/); others are refused
    /// (UNSAFE_URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// Typed blocks instead of markdown, e.g. `{"type": "callout", "props": {"emoji": "💡"},
    /// "content": "Inline **markdown**"}`. Types: paragraph, heading (props.level 1-6),
    /// bulletListItem, numberedListItem, checkListItem (props.checked), toggleListItem,
    /// quote, codeBlock (props.language), divider, pageBreak, image, video, audio, file, pdf
    /// (props.url), table, callout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    // Each an object (a bare `true` item schema is refused by strict clients).
    #[schemars(with = "Option<Vec<serde_json::Map<String, serde_json::Value>>>")]
    pub blocks: Option<Vec<serde_json::Value>>,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if the anchor block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct UpdateBlockArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    pub block_id: String,
    /// The block's whole new text as inline markdown; applied as a minimal diff. Inline math
    /// it holds (read as `$…$`) is kept where you leave it; other `$…$` is text. Math and
    /// diagram blocks cannot be edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A new block type, keeping the text (e.g. paragraph → heading).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub block_type: Option<String>,
    /// Props to set, e.g. `{"level": 2}`, `{"checked": true}`, `{"textAlignment": "center"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub props: Option<serde_json::Map<String, serde_json::Value>>,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if the block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct ReplaceTextArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// The text to find, exactly as it reads (no markdown).
    pub old_text: String,
    /// Its replacement (plain text, taking the formatting of the replaced text).
    pub new_text: String,
    /// Only look in this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_id: Option<String>,
    /// Replace every match (default: exactly one match is required).
    #[serde(default)]
    pub all: bool,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if the block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct DeleteBlocksArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    pub block_ids: Vec<String>,
    /// Keep the blocks nested under a deleted block (they move up a level).
    #[serde(default)]
    pub keep_children: bool,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if a block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct MoveBlockArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    pub block_id: String,
    /// Where to: `{"at": "start"|"end"}`, or `{"at": "before"|"after"|"first_child_of"|"last_child_of", "block_id": ID}`.
    pub position: Position,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if a block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct ApplyEditsArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// Operations applied in order, all or none, as one edit and one approval. Each has an
    /// `op` (insert_blocks, update_block, replace_text, delete_blocks, move_block) and the
    /// fields of the tool of that name (without document, reason, revision).
    pub edits: Vec<EditOp>,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if a target changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct UndoEditArgs {
    /// The id of an applied edit (from a write tool's result).
    pub edit_id: String,
    /// Why you undo it (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct CreateDocumentArgs {
    pub title: String,
    /// Initial content as markdown; it is an edit like any other (it may wait for approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// Create it as a sub-page of this document (id or URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Why you create it (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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

impl DocsMcp {
    /// The outcome of an edit just submitted: waits for a person's decision (the approval
    /// wait), then, once approved, for the instance to confirm the change (the confirmation
    /// wait). The edit is in the journal, maybe merged: when the journal cannot be read
    /// meanwhile, it is answered as it stood — never as an error, which the agent would retry.
    pub(super) async fn outcome(
        &self,
        record: EditRecord,
        context: &RequestContext<RoleServer>,
    ) -> EditRecord {
        if record.status.is_final() {
            return record;
        }
        let waited = async {
            let mut outcome = self
                .wait_with_progress(record.id, self.service.approval_wait(), context)
                .await?;
            if outcome.status == EditStatus::Applying {
                outcome = self
                    .wait_with_progress(record.id, self.service.config().confirm_wait, context)
                    .await?;
            }
            ServiceResult::Ok(outcome)
        };
        match waited.await {
            Ok(outcome) => outcome,
            Err(error) => {
                tracing::warn!(edit = %record.id, %error, "cannot read an edit's outcome; answered as it stood");
                record
            }
        }
    }

    /// Waits for an edit's decision, in slices, with a progress notification per slice.
    pub(super) async fn wait_with_progress(
        &self,
        id: Uuid,
        wait: Duration,
        context: &RequestContext<RoleServer>,
    ) -> ServiceResult<EditRecord> {
        let token = context.meta.get_progress_token();
        let deadline = tokio::time::Instant::now() + wait;
        let mut step = 0u32;
        loop {
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            let record = tokio::select! {
                record = self.service.wait_for_decision(id, remaining.min(Duration::from_secs(2))) => record?,
                _ = context.ct.cancelled() => return self.service.edit(id).await,
            };
            // Handing the directory over: the agent hears `pending` now and asks the next
            // service for the decision.
            if record.status.is_final() || remaining.is_zero() || self.service.is_handing_over() {
                return Ok(record);
            }
            step += 1;
            if let Some(token) = &token {
                let _ = context
                    .peer
                    .notify_progress(
                        ProgressNotificationParam::new(token.clone(), f64::from(step))
                            .with_message("waiting for the user's approval"),
                    )
                    .await;
            }
        }
    }

    async fn write(
        &self,
        call: WriteCall,
        context: &RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let document = self.service.resolve(&call.document)?;
        let bases = self
            .reads
            .bases(document, &call.ops, call.revision.as_deref());
        let ops = call.ops.clone();
        let request = EditRequest {
            document: call.document,
            ops: call.ops,
            tool: call.tool.to_owned(),
            arguments: call.arguments,
            reason: call.reason,
            revision: call.revision,
            agent: self.agent(context),
            bases,
        };
        let submitted = self.service.submit(request).await?;
        let record = self.outcome(submitted, context).await;
        if matches!(record.status, EditStatus::Applied | EditStatus::Applying) {
            self.reads.wrote(document, &ops);
        }
        self.finish(record).await
    }

    /// An applied or pending edit is a result; a refused one is a tool error with its code.
    pub(super) async fn finish(&self, record: EditRecord) -> Result<Json<EditResult>, ToolError> {
        match record.status {
            EditStatus::Applied => {
                let mut result = EditResult::from_record(&record);
                if let Ok(open) = self
                    .service
                    .open(&record.document_id.to_string(), None)
                    .await
                {
                    result.revision = Some(open.tracker.revision());
                }
                Ok(Json(result))
            }
            EditStatus::Pending
            | EditStatus::Applying
            | EditStatus::Undone
            | EditStatus::Withdrawn => Ok(Json(EditResult::from_record(&record))),
            EditStatus::Rejected | EditStatus::Conflict | EditStatus::Failed => {
                let mut info = record.error.clone().unwrap_or_else(|| {
                    ServiceError::Internal("the edit was not applied".into()).info()
                });
                info.message = format!("{} (edit {})", info.message, record.id);
                Err(ToolError(info))
            }
        }
    }
}

/// A write tool's call, as handed to [`DocsMcp::write`].
struct WriteCall {
    document: String,
    ops: Vec<EditOp>,
    tool: &'static str,
    arguments: serde_json::Value,
    reason: Option<String>,
    revision: Option<String>,
}

pub(super) fn arguments_of<T: Serialize>(args: &T) -> serde_json::Value {
    serde_json::to_value(args).unwrap_or(serde_json::Value::Null)
}

#[tool_router(router = write_tools, vis = "pub(super)")]
impl DocsMcp {
    /// Inserts new blocks, from markdown or typed blocks, at the start or end of the
    /// document, before or after a block, or nested under a block.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn insert_blocks(
        &self,
        Parameters(args): Parameters<InsertBlocksArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let arguments = arguments_of(&args);
        let op = EditOp::InsertBlocks(InsertBlocks {
            position: args.position,
            markdown: args.markdown,
            blocks: args.blocks,
        });
        self.write(
            WriteCall {
                document: args.document,
                ops: vec![op],
                tool: "insert_blocks",
                arguments,
                reason: args.reason,
                revision: args.revision,
            },
            &context,
        )
        .await
    }

    /// Changes one block: its text (inline markdown, applied as a minimal diff that keeps
    /// formatting and concurrent typing), its type, and/or its props.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn update_block(
        &self,
        Parameters(args): Parameters<UpdateBlockArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let arguments = arguments_of(&args);
        let op = EditOp::UpdateBlock(UpdateBlock {
            block_id: args.block_id,
            text: args.text,
            block_type: args.block_type,
            props: args.props,
        });
        self.write(
            WriteCall {
                document: args.document,
                ops: vec![op],
                tool: "update_block",
                arguments,
                reason: args.reason,
                revision: args.revision,
            },
            &context,
        )
        .await
    }

    /// Finds `old_text` and replaces it with `new_text`, in one block or the whole document.
    /// Fails with TEXT_NOT_FOUND, or AMBIGUOUS_MATCH when it matches more than once (unless
    /// `all`).
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn replace_text(
        &self,
        Parameters(args): Parameters<ReplaceTextArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let arguments = arguments_of(&args);
        let op = EditOp::ReplaceText(ReplaceText {
            old_text: args.old_text,
            new_text: args.new_text,
            block_id: args.block_id,
            all: args.all,
        });
        self.write(
            WriteCall {
                document: args.document,
                ops: vec![op],
                tool: "replace_text",
                arguments,
                reason: args.reason,
                revision: args.revision,
            },
            &context,
        )
        .await
    }

    /// Deletes blocks (with their nested blocks, unless keep_children).
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn delete_blocks(
        &self,
        Parameters(args): Parameters<DeleteBlocksArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let arguments = arguments_of(&args);
        let op = EditOp::DeleteBlocks(DeleteBlocks {
            block_ids: args.block_ids,
            keep_children: args.keep_children,
        });
        self.write(
            WriteCall {
                document: args.document,
                ops: vec![op],
                tool: "delete_blocks",
                arguments,
                reason: args.reason,
                revision: args.revision,
            },
            &context,
        )
        .await
    }

    /// Moves a block (with its nested blocks) before or after another block, nested under
    /// one, or to the start or end of the document.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn move_block(
        &self,
        Parameters(args): Parameters<MoveBlockArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let arguments = arguments_of(&args);
        let op = EditOp::MoveBlock(MoveBlock {
            block_id: args.block_id,
            position: args.position,
        });
        self.write(
            WriteCall {
                document: args.document,
                ops: vec![op],
                tool: "move_block",
                arguments,
                reason: args.reason,
                revision: args.revision,
            },
            &context,
        )
        .await
    }

    /// Reverts an applied agent edit, as a new edit (that follows the approval policy). Refused
    /// (EDIT_CONFLICT) when a later edit or a person changed the same blocks since.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn undo_edit(
        &self,
        Parameters(args): Parameters<UndoEditArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let id = super::parse_edit_id(&args.edit_id)?;
        let record = self
            .service
            .undo(id, args.reason, self.agent(&context), None)
            .await?;
        let record = self.outcome(record, &context).await;
        self.finish(record).await
    }

    /// Asks to create a document (signed in only), at the top level or as a sub-page, with
    /// optional markdown content. The creation is an edit like any other: where the user
    /// reviews edits it waits for their approval and nothing is made until then (status
    /// `pending`: follow it with edit_status); once made, the content is written as a second
    /// edit (`content`).
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn create_document(
        &self,
        Parameters(args): Parameters<CreateDocumentArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<CreatedDocument>, ToolError> {
        let args = args?;
        let creation = self
            .service
            .create_document(
                &args.title,
                args.parent.as_deref(),
                args.markdown,
                args.reason,
                self.agent(&context),
            )
            .await?;
        let creation = self.outcome(creation, &context).await;
        // Refused, failed: an error, as for any edit.
        let created = self.finish(creation).await?.0;
        let creation = self
            .service
            .edit(
                created
                    .edit_id
                    .parse()
                    .map_err(|_| ServiceError::Internal("a creation's id".into()))?,
            )
            .await?;
        // The content, once the document exists: reported as it stands, never as an error of
        // the creation (the document was made).
        let content_edit = creation
            .proposed_document
            .as_ref()
            .and_then(|p| p.content_edit);
        let content = match content_edit {
            Some(id) => {
                let record = self.service.edit(id).await?;
                let record = self.outcome(record, &context).await;
                Some(EditResult::from_record(&record))
            }
            None => None,
        };
        let url = self
            .service
            .client()?
            .instance()
            .document_page(&creation.document_id)
            .to_string();
        Ok(Json(CreatedDocument {
            edit_id: created.edit_id,
            status: created.status,
            message: created.message,
            document_id: creation.document_id.to_string(),
            url,
            title: creation.proposed_document.map(|p| p.title),
            content,
        }))
    }

    /// Applies several operations atomically, as one edit and one approval: all of them, or
    /// none if any fails.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn apply_edits(
        &self,
        Parameters(args): Parameters<ApplyEditsArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let arguments = arguments_of(&args);
        self.write(
            WriteCall {
                document: args.document,
                ops: args.edits,
                tool: "apply_edits",
                arguments,
                reason: args.reason,
                revision: args.revision,
            },
            &context,
        )
        .await
    }
}
