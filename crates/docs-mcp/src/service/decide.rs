//! An edit's decision up to its merge: approved or rejected by a person, or by the policy, one
//! at a time or all at once (`decide_all`, stoppable: each decision is whole), then merged —
//! checking, in the same transaction as the merge, that every block it depends on still reads
//! as it did when it was planned: what is merged is what the person saw, or nothing
//! (`conflict`). `submit` plans and queues edits; `merge` holds the merge itself.
use std::collections::BTreeMap;

use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::locks::DocumentGuard;
use super::merge::{MergeRefused, Strictness, merge};
use super::{DocsService, OpenDocument};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{
    Channel, EditPayload, EditRecord, EditStatus, GroupDecision, UndecidedEdit, now_ms,
};
use crate::store::Transition;

impl DocsService {
    /// Approves a pending edit. The decision runs in a task of its own, so a caller going
    /// away (a closed window, Ctrl-C on the CLI) cannot leave it half made. Returns the edit
    /// once the instance confirmed it, or as it stands after the confirmation wait
    /// (`applying`: it is followed until confirmed), or final (`conflict`, `failed`).
    pub async fn approve(&self, id: Uuid, decided_by: Channel) -> ServiceResult<EditRecord> {
        let service = self.arc();
        let record = tokio::spawn(async move { service.start_approval(id, decided_by).await })
            .await
            .map_err(|e| ServiceError::Internal(format!("the approval task failed: {e}")))??;
        self.confirmed(record).await
    }

    /// `record` once the instance confirmed it, or as it stands after the confirmation wait.
    pub async fn confirmed(&self, record: EditRecord) -> ServiceResult<EditRecord> {
        if record.status == EditStatus::Applying {
            return self
                .wait_for_decision(record.id, self.config.confirm_wait)
                .await;
        }
        Ok(record)
    }

    /// Opens the document (no lock held across that network wait), then decides under the
    /// document's lock.
    pub(super) async fn start_approval(
        &self,
        id: Uuid,
        decided_by: Channel,
    ) -> ServiceResult<EditRecord> {
        let record = self.pending(id).await?;
        if record.proposed_document.is_some() {
            let applying = self.start_applying(record, decided_by, None).await?;
            return self.carry_out_creation(applying).await;
        }
        let payload = self.payload(id).await?;
        let doc = self.open(&record.document_id.to_string(), None).await?;
        let guard = self.doc_locks.lock(doc.id).await;
        self.approve_locked(&doc, record, &payload, decided_by, guard)
            .await
    }

    pub(super) async fn payload(&self, id: Uuid) -> ServiceResult<EditPayload> {
        self.store
            .payload(id)
            .await?
            .ok_or_else(|| ServiceError::Internal(format!("edit {id} has no payload")))
    }

    /// `pending` → `applying` (persisted first: from then on the change may be in the
    /// document), then the merge; the edit is followed until confirmed.
    async fn approve_locked(
        &self,
        doc: &OpenDocument,
        record: EditRecord,
        payload: &EditPayload,
        decided_by: Channel,
        guard: DocumentGuard<'_>,
    ) -> ServiceResult<EditRecord> {
        let applying = self.start_applying(record, decided_by, None).await?;
        self.merge_decided(doc, applying, payload, None, guard)
            .await
    }

    /// A pending edit decided by `decided_by`: `pending` → `applying`, a compare-and-set
    /// persisted before anything is merged — with the payload that will be merged, when the
    /// decision replaces it (the person's own text). `NotPending` when decided meanwhile.
    pub(super) async fn start_applying(
        &self,
        record: EditRecord,
        decided_by: Channel,
        payload: Option<EditPayload>,
    ) -> ServiceResult<EditRecord> {
        let mut applying = record;
        applying.status = EditStatus::Applying;
        applying.decided_by = Some(decided_by);
        applying.decided_at = Some(now_ms());
        let change = Transition {
            record: applying.clone(),
            from: EditStatus::Pending,
        };
        let moved = match payload {
            Some(payload) => self.store.transition_with_payload(change, payload).await?,
            None => self.store.transition(change).await?,
        };
        if !moved {
            return Err(self.not_pending(applying.id).await);
        }
        self.changed(&applying);
        Ok(applying)
    }

    /// Merges an `applying` edit (an undo only while the edit it reverts is applied); it is
    /// followed until confirmed, or recorded as not merged.
    pub(super) async fn merge_decided(
        &self,
        doc: &OpenDocument,
        applying: EditRecord,
        payload: &EditPayload,
        planned_at: Option<u64>,
        guard: DocumentGuard<'_>,
    ) -> ServiceResult<EditRecord> {
        if applying.proposed_comment.is_some() {
            // Carried out over REST: no lock held across those waits.
            drop(guard);
            return self.carry_out_comment(doc, applying).await;
        }
        if let Some(original) = applying.undoes {
            let original = self.edit(original).await?;
            if original.status != EditStatus::Applied {
                let reason = format!(
                    "edit {} is {} now; only applied edits can be undone",
                    original.id,
                    original.status.as_str()
                );
                return self.finish(applying, MergeRefused::Conflict(reason)).await;
            }
        }
        let strictness = Strictness::of(applying.decided_by);
        match merge(doc, payload, strictness, planned_at).await {
            Ok(merged) => {
                drop(guard);
                self.follow(applying.id, doc.clone(), merged);
                Ok(applying)
            }
            Err(refused) => self.finish(applying, refused).await,
        }
    }

    /// Records why an `applying` edit was not merged.
    pub(super) async fn finish(
        &self,
        mut record: EditRecord,
        refused: MergeRefused,
    ) -> ServiceResult<EditRecord> {
        let (status, error) = match refused {
            MergeRefused::Conflict(reason) => {
                (EditStatus::Conflict, ServiceError::Conflict { reason })
            }
            MergeRefused::Failed(error) => (EditStatus::Failed, error),
        };
        record.status = status;
        record.error = Some(error.info());
        self.leave_applying(record).await
    }

    /// Records `record`'s new status as leaving `applying` (a compare-and-set: another
    /// process may have settled it first) and announces it when it did.
    pub(super) async fn leave_applying(&self, record: EditRecord) -> ServiceResult<EditRecord> {
        if self
            .store
            .transition(Transition {
                record: record.clone(),
                from: EditStatus::Applying,
            })
            .await?
        {
            self.changed(&record);
        }
        Ok(record)
    }

    /// Rejects a pending edit; nothing is applied and the comment goes back to the agent.
    pub async fn reject(
        &self,
        id: Uuid,
        comment: Option<String>,
        decided_by: Channel,
    ) -> ServiceResult<EditRecord> {
        let mut record = self.pending(id).await?;
        record.status = EditStatus::Rejected;
        record.comment = comment.filter(|c| !c.trim().is_empty());
        record.decided_by = Some(decided_by);
        record.decided_at = Some(now_ms());
        record.error = Some(
            ServiceError::Rejected {
                comment: record.comment.clone(),
            }
            .info(),
        );
        self.leave_pending(record).await
    }

    /// Records `record`'s new status as leaving `pending` (a compare-and-set: a decision made
    /// elsewhere first stands, and `NotPending` says which) and announces it.
    pub(super) async fn leave_pending(&self, record: EditRecord) -> ServiceResult<EditRecord> {
        let moved = self
            .store
            .transition(Transition {
                record: record.clone(),
                from: EditStatus::Pending,
            })
            .await?;
        if !moved {
            return Err(self.not_pending(record.id).await);
        }
        self.changed(&record);
        Ok(record)
    }

    /// Approves or rejects the edits with these ids — those the person had on screen — and
    /// says what became of each: decided, left pending because deciding it failed (and why),
    /// or decided elsewhere meanwhile. Approvals go oldest first within a document, documents
    /// in parallel; the instance's confirmations are awaited together. Once `stop` is
    /// cancelled no further edit is decided: those decided stay so, the rest stay pending
    /// (each decision is whole, so stopping never leaves one half-made).
    pub async fn decide_all(
        &self,
        approve: bool,
        ids: &[Uuid],
        comment: Option<String>,
        decided_by: Channel,
        stop: &CancellationToken,
    ) -> ServiceResult<GroupDecision> {
        let mut outcome = GroupDecision::default();
        let mut pending = vec![];
        for id in ids {
            match self.pending(*id).await {
                Ok(record) => pending.push(record),
                Err(ServiceError::NotPending { .. } | ServiceError::EditNotFound { .. }) => {
                    outcome.elsewhere.push(*id)
                }
                Err(error) => return Err(error),
            }
        }
        if !approve {
            for record in pending {
                if stop.is_cancelled() {
                    break;
                }
                match self.reject(record.id, comment.clone(), decided_by).await {
                    Ok(record) => outcome.decided.push(record),
                    Err(ServiceError::NotPending { .. }) => outcome.elsewhere.push(record.id),
                    Err(error) => outcome.failed.push(UndecidedEdit {
                        id: record.id,
                        error: error.info(),
                    }),
                }
            }
            return Ok(outcome);
        }
        let mut by_document: BTreeMap<Uuid, Vec<EditRecord>> = BTreeMap::new();
        for record in pending {
            by_document
                .entry(record.document_id)
                .or_default()
                .push(record);
        }
        let tasks: Vec<_> = by_document
            .into_values()
            .map(|mut records| {
                records.sort_by_key(|r| r.created_at);
                let service = self.arc();
                let stop = stop.clone();
                tokio::spawn(async move {
                    let mut outcomes = vec![];
                    for record in records {
                        if stop.is_cancelled() {
                            break;
                        }
                        let started = service.start_approval(record.id, decided_by).await;
                        outcomes.push((record.id, started));
                    }
                    outcomes
                })
            })
            .collect();
        let mut started = vec![];
        for task in tasks {
            let outcomes = task
                .await
                .map_err(|e| ServiceError::Internal(format!("the approval task failed: {e}")))?;
            for (id, result) in outcomes {
                match result {
                    Ok(record) => started.push(record),
                    Err(ServiceError::NotPending { .. }) => outcome.elsewhere.push(id),
                    Err(error) => {
                        tracing::warn!(edit = %id, %error, "an edit of an approve-all stays pending");
                        outcome.failed.push(UndecidedEdit {
                            id,
                            error: error.info(),
                        });
                    }
                }
            }
        }
        let confirmations = started.into_iter().map(|record| self.confirmed(record));
        for confirmed in futures_util::future::join_all(confirmations).await {
            outcome.decided.push(confirmed?);
        }
        Ok(outcome)
    }

    pub(super) async fn pending(&self, id: Uuid) -> ServiceResult<EditRecord> {
        let record = self.edit(id).await?;
        if record.status != EditStatus::Pending {
            return Err(ServiceError::NotPending {
                id: id.to_string(),
                status: record.status.as_str().to_owned(),
            });
        }
        Ok(record)
    }

    pub(super) async fn not_pending(&self, id: Uuid) -> ServiceError {
        match self.edit(id).await {
            Ok(record) => ServiceError::NotPending {
                id: id.to_string(),
                status: record.status.as_str().to_owned(),
            },
            Err(error) => error,
        }
    }
}
