//! Undo: an applied edit reverted as a new edit, planned from its stored inverse, refused when
//! a later edit touched the same blocks or a block it changed was changed again since.
//!
//! An undo happens once: at most one undo of an edit waits or is being applied (a unique index); it
//! is merged only while the edit is `applied`, and the undo's `applied` and the edit's `undone` are
//! written in one transaction.

use super::DocsService;
use super::merge::describe_change;
use super::submit::{EditRequest, plan_on_fork};
use crate::edits::{self, TextBases};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{AgentInfo, Channel, EditFilter, EditRecord, EditStatus};
use uuid::Uuid;

impl DocsService {
    /// Reverts an applied edit, as a new edit that follows the approval policy — or, asked
    /// by a person (`by_person`, who decides), that is decided at once. Refused when a later
    /// edit touched the same blocks, when a block it changed was changed again since (undoing
    /// would overwrite that), or while another undo of it waits.
    pub async fn undo(
        &self,
        id: Uuid,
        reason: Option<String>,
        agent: AgentInfo,
        by_person: Option<Channel>,
    ) -> ServiceResult<EditRecord> {
        let reason = super::checked_reason(reason)?;
        let original = self.edit(id).await?;
        if original.status != EditStatus::Applied {
            return Err(ServiceError::invalid(
                format!(
                    "edit {id} is {}; only applied edits can be undone",
                    original.status.as_str()
                ),
                "Check edit_status; a pending edit can simply be left to the user's decision.",
            ));
        }
        let payload = self.payload(id).await?;
        let inverse: Vec<edits::UndoOp> = match (&payload.inverse, original.undoable) {
            (Some(ops), true) => serde_json::from_value(ops.clone())
                .map_err(|e| ServiceError::Internal(format!("stored undo of {id}: {e}")))?,
            _ => {
                return Err(ServiceError::Conflict {
                    reason: format!(
                        "edit {id} cannot be undone automatically (it kept the children of a deleted block, touched a block of an unknown type or one this service does not write, or predates this version)"
                    ),
                });
            }
        };
        let mine: std::collections::BTreeSet<&String> = original
            .touched_blocks
            .iter()
            .chain(&original.new_blocks)
            .collect();
        let later = self
            .edits(&EditFilter {
                status: Some(vec![EditStatus::Applied, EditStatus::Applying]),
                document_id: Some(original.document_id),
                ..EditFilter::default()
            })
            .await?;
        if let Some(dependent) = later.iter().find(|e| {
            e.created_at > original.created_at
                && e.touched_blocks
                    .iter()
                    .chain(&e.new_blocks)
                    .any(|b| mine.contains(b))
        }) {
            return Err(ServiceError::Conflict {
                reason: format!(
                    "edit {} was applied later to the same blocks; undo it first",
                    dependent.id
                ),
            });
        }
        let doc = self
            .open(&original.document_id.to_string(), Some(&agent))
            .await?;
        // Refused at once when agents may not write; decided below, under the lock.
        self.writable_policy(&doc).await?;
        let guard = self.doc_locks.lock(doc.id).await;
        let (_, live) = doc.tracker.read_async().await?;
        if let Err((state, now)) = edits::unchanged(&edits::index(&live), &payload.leaves) {
            return Err(ServiceError::Conflict {
                reason: format!(
                    "{}; undoing the edit would overwrite that",
                    describe_change(&doc, &state.block_id, now.is_none(), "the edit was applied")
                ),
            });
        }
        let (plan, planned_at, after_planning) =
            plan_on_fork(&doc, move |fork| edits::plan_undo(fork, &inverse)).await?;
        let request = EditRequest {
            document: doc.id.to_string(),
            ops: vec![],
            tool: "undo_edit".into(),
            arguments: serde_json::json!({ "edit_id": id.to_string() }),
            reason: Some(match reason.or(original.reason.clone()) {
                Some(r) => format!("Undo: {r}"),
                None => format!("Undo of edit {id}"),
            }),
            revision: None,
            agent,
            bases: TextBases::new(),
        };
        let (record, payload) = self.new_record(&doc, plan, &request, Some(id));
        // The policy and Pause as they are where the decision is taken.
        let decided_by = match by_person {
            Some(person) => Some(person),
            None => self.automatic(self.writable_policy(&doc).await?),
        };
        let queued = self
            .queue(&doc, record, payload, decided_by, planned_at, guard)
            .await;
        after_planning.finish();
        queued
    }
}
