//! A person approves an agent's rewrite of a block with their own text: the block is planned
//! again with that text, from the document as the person saw it — or, when a block the edit
//! depends on changed since, the decision is a conflict, as an approval would be. The new plan
//! and the decision are stored together before anything is merged.

use std::sync::{Arc, Mutex};

use docs_client::blocknote;
use uuid::Uuid;
use yrs::Transact;

use super::DocsService;
use super::decide::plan_on_fork;
use super::merge::{MergeRefused, describe_change};
use crate::edits::{self, EditOp, TextBases, UpdateBlock};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{EditPayload, EditRecord, EditStatus, now_ms};
use crate::store::Transition;

/// The tool whose edits a person may approve with their own text: one block's text.
const AMENDABLE_TOOL: &str = "update_block";

impl DocsService {
    /// Approves a pending `update_block` edit with `text` (inline markdown) in place of the
    /// agent's. Runs in a task of its own, like an approval, and answers as `approve` does.
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
        if record.tool != AMENDABLE_TOOL {
            return Err(ServiceError::invalid(
                format!(
                    "edit {id} was made with {}; only a block's text (update_block) can be changed before approving",
                    record.tool
                ),
                "Approve or reject it as it is.",
            ));
        }
        let mut update: UpdateBlock = serde_json::from_value(record.arguments.clone())
            .map_err(|e| ServiceError::Internal(format!("stored arguments of {id}: {e}")))?;
        update.text = Some(text.to_owned());
        let payload = self.payload(id).await?;
        let doc = self.open(&record.document_id.to_string(), None).await?;
        let guard = self.doc_locks.lock(doc.id).await;
        let seen = payload.depends_on.clone();
        let ops = vec![EditOp::UpdateBlock(update)];
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
