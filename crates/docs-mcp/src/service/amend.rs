//! A person approves an agent's edit of one block with their own text (an `update_block`'s
//! text, or the one block an `insert_blocks` adds): the edit is planned again with that text, from the document as the person saw it — or, when a block the edit
//! depends on changed since, the decision is a conflict, as an approval would be. The new plan
//! and the decision are stored together before anything is merged.

use std::sync::{Arc, Mutex};

use docs_client::blocknote;
use uuid::Uuid;
use yrs::Transact;

use super::DocsService;
use super::decide::plan_on_fork;
use super::merge::{MergeRefused, describe_change};
use crate::edits::{self, EditOp, InsertBlocks, TextBases, UpdateBlock};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{EditPayload, EditRecord, EditStatus, now_ms};
use crate::store::Transition;

/// The operation of an edit with the person's text in place of the agent's: an
/// `update_block`'s text (inline markdown), or the markdown of an `insert_blocks` that adds
/// one block. `None` for any other edit.
fn with_text(record: &EditRecord, text: &str) -> ServiceResult<Option<EditOp>> {
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
            insert.markdown = Some(text.to_owned());
            insert.blocks = None;
            Some(EditOp::InsertBlocks(insert))
        }
        _ => None,
    })
}

impl DocsService {
    /// Approves a pending edit of one block with `text` in place of the agent's: inline
    /// markdown for an `update_block`, markdown for an `insert_blocks` adding one block. Runs in a task of its own, like an approval, and answers as `approve` does.
    pub async fn approve_with_text(
        &self,
        id: Uuid,
        decided_by: &str,
        text: &str,
    ) -> ServiceResult<EditRecord> {
        let service = self.arc();
        let (decided_by, text) = (decided_by.to_owned(), text.to_owned());
        let record = tokio::spawn(async move { service.amend(id, &decided_by, &text).await })
            .await
            .map_err(|e| ServiceError::Internal(format!("the approval task failed: {e}")))??;
        self.confirmed(record).await
    }

    async fn amend(&self, id: Uuid, decided_by: &str, text: &str) -> ServiceResult<EditRecord> {
        let record = self.pending(id).await?;
        let Some(op) = with_text(&record, text)? else {
            return Err(ServiceError::invalid(
                format!(
                    "edit {id} was made with {}; only one block's text (update_block, or insert_blocks adding one block) can be changed before approving",
                    record.tool
                ),
                "Approve or reject it as it is.",
            ));
        };
        let payload = self.payload(id).await?;
        let doc = self.open(&record.document_id.to_string(), None).await?;
        let guard = self.doc_locks.lock(doc.id).await;
        let seen = payload.depends_on.clone();
        let ops = vec![op];
        // The block found changed on the fork, and whether it is gone.
        let changed: Arc<Mutex<Option<(String, bool)>>> = Arc::default();
        let found = changed.clone();
        let planned = plan_on_fork(&doc, move |fork| {
            // What the person saw: every block the proposal depends on reads as it did.
            let before = match &fork.blocks {
                Some(blocks) => blocks.clone(),
                None => {
                    let fragment = blocknote::document_fragment(&fork.doc);
                    Arc::new(blocknote::read_document(&fork.doc.transact(), &fragment))
                }
            };
            if let Err((state, now)) = edits::unchanged(&edits::index(&before), &seen) {
                *found.lock().expect("changed block") =
                    Some((state.block_id.clone(), now.is_none()));
                return Err(ServiceError::Conflict {
                    reason: String::new(),
                });
            }
            edits::plan(fork, &ops, &TextBases::new())
        })
        .await;
        let mut applying = record.clone();
        applying.status = EditStatus::Applying;
        applying.decided_by = Some(decided_by.to_owned());
        applying.decided_at = Some(now_ms());
        let changed_block = changed.lock().expect("changed block").take();
        let (plan, planned_at, _aftermath) = match (planned, changed_block) {
            (Ok(planned), _) => planned,
            (Err(ServiceError::Conflict { .. }), Some((block, gone))) => {
                let reason = describe_change(&doc, &block, gone, "the edit was proposed");
                // Decided as an approval would be: `applying` first, then the conflict.
                if !self
                    .store
                    .transition(Transition {
                        record: applying.clone(),
                        from: EditStatus::Pending,
                    })
                    .await?
                {
                    return Err(self.not_pending(id).await);
                }
                self.changed(&applying);
                return self.finish(applying, MergeRefused::Conflict(reason)).await;
            }
            (Err(error), _) => return Err(error),
        };
        let inverse = plan
            .inverse
            .map(|ops| serde_json::to_value(ops).expect("undo operations serialize"));
        applying.preview = plan.preview;
        applying.touched_blocks = plan.touched_blocks;
        applying.new_blocks = plan.new_blocks;
        applying.undoable = inverse.is_some();
        applying.approved_text = Some(text.to_owned());
        let amended = EditPayload {
            update: plan.update,
            base_state_vector: plan.base_state_vector,
            depends_on: plan.depends_on,
            leaves: plan.leaves,
            inverse,
            texts: plan.texts,
        };
        if !self
            .store
            .transition_with_payload(
                Transition {
                    record: applying.clone(),
                    from: EditStatus::Pending,
                },
                amended.clone(),
            )
            .await?
        {
            return Err(self.not_pending(id).await);
        }
        self.changed(&applying);
        self.merge_decided(&doc, applying, &amended, Some(planned_at), guard)
            .await
    }
}
