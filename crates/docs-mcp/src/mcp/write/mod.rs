//! Write tools. Each one describes its change as operations; the service plans them on a
//! fork, queues the edit and applies it when the policy or a human allows. A tool call waits
//! for the decision up to the configured time (sending progress notifications), then
//! answers `pending` with an `edit_id` for `edit_status`.
//!
//! Every edit goes through one path (`write`); each one-operation tool's arguments are taken apart
//! by `args::OneOperation`. An edit submitted is in the journal, maybe merged: when its outcome
//! cannot be read, it is answered as it stood, never as an error the agent would retry. `args`
//! holds the arguments, `result` the answer.

use std::time::Duration;

use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::{Json, RoleServer, tool, tool_router};
use serde::Serialize;
use uuid::Uuid;

mod args;
mod result;

pub use args::{
    ApplyEditsArgs, CreateDocumentArgs, DeleteBlocksArgs, InsertBlocksArgs, MoveBlockArgs,
    ReplaceTextArgs, UndoEditArgs, UpdateBlockArgs,
};
pub use result::{CreatedDocument, EditResult};

use args::OneOperation;

use super::DocsMcp;
use super::errors::ToolError;
use super::params::Parameters;
use crate::edits::EditOp;
use crate::error::{ServiceError, ServiceResult};
use crate::record::{EditRecord, EditStatus};
use crate::service::EditRequest;

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
            self.answers.forget(document);
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

impl DocsMcp {
    /// A tool writing one operation: its arguments taken apart, then [`DocsMcp::write`].
    async fn write_one<A: OneOperation>(
        &self,
        args: A,
        context: &RequestContext<RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let arguments = arguments_of(&args);
        let (document, op, reason, revision) = args.split();
        self.write(
            WriteCall {
                document,
                ops: vec![op],
                tool: A::TOOL,
                arguments,
                reason,
                revision,
            },
            context,
        )
        .await
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
        self.write_one(args?, &context).await
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
        self.write_one(args?, &context).await
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
        self.write_one(args?, &context).await
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
        self.write_one(args?, &context).await
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
        self.write_one(args?, &context).await
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
