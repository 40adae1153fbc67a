//! A person approves an agent's edit with changes: their own text for the one block it writes
//! (an `update_block`'s text, or the text of the one block an `insert_blocks` adds — its
//! type, properties and children kept), or only some of its
//! parts (`edits::parts`). The edit is planned again with those changes, from the document as
//! the person saw it — or, when a block the edit depends on changed since, the decision is a
//! conflict, as an approval would be. The new plan and the decision are stored together
//! before anything is merged.
//!
//! The changed edit is re-planned on a fork, and checked on that fork: every block it depends on
//! must read as the person saw it (a refused part's block may have changed since). The record keeps
//! `approved_text` or `approved_parts`, which the agent's result carries.

use std::collections::BTreeMap;

use uuid::Uuid;

use super::DocsService;
use super::merge::{MergeRefused, describe_change};
use super::submit::{StoredPlan, plan_on_fork};
use docs_client::blocknote::{EditorSchema, NewBlock, NewContent};

use crate::edits::{self, EditOp, InsertBlocks, TextBases, UpdateBlock};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{BlockState, Channel, EditRecord};

/// The operation of an edit with the person's text (inline markdown, plain for code) in place
/// of the agent's: an `update_block`'s text, the text of the one block an `insert_blocks`
/// adds, or the text of the one block a `replace_text` changes. `None` for any other edit,
/// and for a block with no text (an image, a table).
fn with_text(
    record: &EditRecord,
    text: &str,
    schema: EditorSchema,
) -> ServiceResult<Option<EditOp>> {
    let stored = |e: serde_json::Error| {
        ServiceError::Internal(format!("stored arguments of {}: {e}", record.id))
    };
    Ok(match record.tool.as_str() {
        "update_block" => {
            let mut update: UpdateBlock =
                serde_json::from_value(record.arguments.clone()).map_err(stored)?;
            update.text = Some(text.to_owned());
            Some(EditOp::UpdateBlock(update))
        }
        "insert_blocks" if record.new_blocks.len() == 1 => {
            let mut insert: InsertBlocks =
                serde_json::from_value(record.arguments.clone()).map_err(stored)?;
            let [mut block] =
                <[NewBlock; 1]>::try_from(insert.new_blocks(schema)?).map_err(|_| {
                    ServiceError::Internal(format!("edit {} adds one block", record.id))
                })?;
            if !matches!(
                block.content,
                Some(NewContent::Markdown(_) | NewContent::Inline(_))
            ) {
                return Ok(None);
            }
            block.content = Some(NewContent::Markdown(text.to_owned()));
            let block = serde_json::to_value(block)
                .map_err(|e| ServiceError::Internal(format!("the person's block: {e}")))?;
            insert.markdown = None;
            insert.blocks = Some(vec![block]);
            Some(EditOp::InsertBlocks(insert))
        }
        // A find-and-replace within one block: the person writes that block's text.
        "replace_text" if record.touched_blocks.len() == 1 && record.preview.after.len() == 1 => {
            Some(EditOp::UpdateBlock(UpdateBlock {
                block_id: record.touched_blocks[0].clone(),
                text: Some(text.to_owned()),
                block_type: None,
                props: None,
            }))
        }
        _ => None,
    })
}

/// What `text` (a person's inline markdown for a block) reads as, as BlockNote inline JSON:
/// the preview beside the text they type. Bad markdown is `INVALID_INPUT`, as approving
/// it would be.
pub fn text_preview(text: &str) -> ServiceResult<serde_json::Value> {
    Ok(docs_client::blocknote::json::inline_json(
        &docs_client::blocknote::parse_inline(text)?,
    ))
}

impl DocsService {
    /// Approves a pending edit of one block with `text` (inline markdown) in place of the
    /// agent's. Runs in a task of its own, like an approval, and answers as `approve` does.
    pub async fn approve_with_text(
        &self,
        id: Uuid,
        decided_by: Channel,
        text: &str,
    ) -> ServiceResult<EditRecord> {
        let service = self.arc();
        let text = text.to_owned();
        let record = tokio::spawn(async move { service.amend(id, decided_by, &text).await })
            .await
            .map_err(|e| ServiceError::Internal(format!("the approval task failed: {e}")))??;
        self.confirmed(record).await
    }

    async fn amend(&self, id: Uuid, decided_by: Channel, text: &str) -> ServiceResult<EditRecord> {
        let record = self.pending(id).await?;
        let schema = self.client()?.editor_schema().await;
        let Some(op) = with_text(&record, text, schema)? else {
            return Err(ServiceError::invalid(
                format!(
                    "edit {id} was made with {}; only one block's text (update_block, replace_text in one block, or insert_blocks adding one block) can be changed before approving",
                    record.tool
                ),
                "Approve or reject it as it is.",
            ));
        };
        let text = text.to_owned();
        self.approve_changed(record, decided_by, vec![op], move |amended| {
            amended.approved_text = Some(text)
        })
        .await
    }

    /// Approves the `accepted` parts of a pending edit (indexes into its `parts`), with the
    /// person's `texts` for the parts they rewrote, and refuses the others. Runs in a task of
    /// its own, like an approval, and answers as `approve` does.
    pub async fn approve_parts(
        &self,
        id: Uuid,
        decided_by: Channel,
        accepted: &[usize],
        texts: &BTreeMap<usize, String>,
    ) -> ServiceResult<EditRecord> {
        let service = self.arc();
        let (accepted, texts) = (accepted.to_vec(), texts.clone());
        let record =
            tokio::spawn(
                async move { service.approve_some(id, decided_by, accepted, texts).await },
            )
            .await
            .map_err(|e| ServiceError::Internal(format!("the approval task failed: {e}")))??;
        self.confirmed(record).await
    }

    async fn approve_some(
        &self,
        id: Uuid,
        decided_by: Channel,
        mut accepted: Vec<usize>,
        texts: BTreeMap<usize, String>,
    ) -> ServiceResult<EditRecord> {
        let record = self.pending(id).await?;
        accepted.sort_unstable();
        accepted.dedup();
        let count = record.parts.len();
        if count < 2 {
            return Err(ServiceError::invalid(
                format!("edit {id} is one change; it cannot be approved in parts"),
                "Approve or reject it as a whole.",
            ));
        }
        if accepted.is_empty() || accepted.iter().any(|&i| i >= count) {
            return Err(ServiceError::invalid(
                format!(
                    "parts {accepted:?} of edit {id}: give at least one of 0 to {}",
                    count - 1
                ),
                "Accept some of its parts, or reject the edit.",
            ));
        }
        if accepted.len() == count && texts.is_empty() {
            return self.start_approval(id, decided_by).await;
        }
        // The operations only: the labels were made when the edit was proposed.
        let schema = self.client()?.editor_schema().await;
        let parts = edits::parts(&record.tool, &record.arguments, |_| None, schema)?;
        let ops = edits::accepted_ops(&record.tool, parts, &accepted, &texts)?;
        self.approve_changed(record, decided_by, ops, move |amended| {
            amended.approved_parts = Some(accepted);
            amended.part_texts = texts;
        })
        .await
    }

    /// Plans `ops` in place of the edit's own, from the document as the person saw it, then
    /// decides and merges it as an approval does; `note` records what the person changed.
    async fn approve_changed(
        &self,
        record: EditRecord,
        decided_by: Channel,
        ops: Vec<EditOp>,
        note: impl FnOnce(&mut EditRecord),
    ) -> ServiceResult<EditRecord> {
        let id = record.id;
        let payload = self.payload(id).await?;
        let doc = self.open(&record.document_id.to_string(), None).await?;
        let guard = self.doc_locks.lock(doc.id).await;
        let seen = payload.depends_on.clone();
        let seen_by = doc.clone();
        let planned = plan_on_fork(&doc, move |fork| {
            // What the person saw: every block the changed edit depends on reads as it did
            // (a part they refused may depend on blocks changed since: that is no conflict).
            let seen_document = fork.document();
            let before = edits::index(&seen_document);
            let conflict = |states: &[BlockState]| {
                edits::unchanged(&before, states)
                    .err()
                    .map(|(state, now)| ServiceError::Conflict {
                        reason: describe_change(
                            &seen_by,
                            &state.block_id,
                            now.is_none(),
                            "the edit was proposed",
                        ),
                    })
            };
            match edits::plan(fork, &ops, &TextBases::new()) {
                Ok(plan) => {
                    let relevant: Vec<BlockState> = seen
                        .iter()
                        .filter(|s| plan.depends_on.iter().any(|d| d.block_id == s.block_id))
                        .cloned()
                        .collect();
                    conflict(&relevant).map_or(Ok(plan), Err)
                }
                // Not plannable on the document as it is: a block the person saw changed.
                Err(error) => Err(conflict(&seen).unwrap_or(error)),
            }
        })
        .await;
        // Planning itself never answers Conflict: this one is the check above, and it is
        // decided as an approval would be: `applying` first, then the conflict.
        let (plan, planned_at, after_planning) = match planned {
            Ok(planned) => planned,
            Err(ServiceError::Conflict { reason }) => {
                let applying = self.start_applying(record, decided_by, None).await?;
                return self.finish(applying, MergeRefused::Conflict(reason)).await;
            }
            Err(error) => return Err(error),
        };
        let kept = StoredPlan::from(plan);
        let mut amended = record;
        amended.preview = kept.preview;
        amended.touched_blocks = kept.touched_blocks;
        amended.new_blocks = kept.new_blocks;
        amended.undoable = kept.undoable;
        note(&mut amended);
        let applying = self
            .start_applying(amended, decided_by, Some(kept.payload.clone()))
            .await?;
        let merged = self
            .merge_decided(&doc, applying, &kept.payload, Some(planned_at), guard)
            .await;
        after_planning.finish();
        merged
    }
}
