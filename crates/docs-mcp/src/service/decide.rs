//! An edit's life up to its merge. It is planned on a fork of the live document under the
//! document's lock (so from the state it will be merged into, after every earlier edit),
//! queued, decided by the policy or by a person, and merged — checking, in the same
//! transaction as the merge, that every block it depends on still reads as it did when it
//! was planned: what is merged is what the person saw, or nothing (`conflict`).
//!
//! Here: planning, queueing, `approve`, `reject` and `decide_all` (stoppable: each decision is
//! whole). `merge` holds the merge itself, and `changed_since_proposed`.

use std::collections::BTreeMap;

use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::locks::DocumentGuard;
use super::merge::{MergeRefused, Strictness, merge};
use super::{DocsService, OpenDocument};
use crate::edits::{self, EditOp, TextBases};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{
    AgentInfo, Channel, EditPart, EditPayload, EditRecord, EditStatus, GroupDecision, Policy,
    Preview, UndecidedEdit, now_ms,
};
use crate::store::Transition;

/// A write, as a tool hands it to the service.
#[derive(Debug, Clone)]
pub struct EditRequest {
    /// A document id or URL.
    pub document: String,
    pub ops: Vec<EditOp>,
    pub tool: String,
    pub arguments: serde_json::Value,
    pub reason: Option<String>,
    pub revision: Option<String>,
    pub agent: AgentInfo,
    /// What the agent read of the blocks whose text it rewrites.
    pub bases: TextBases,
}

impl DocsService {
    /// Plans an edit and queues it; merges it at once when the policy allows. Returns the
    /// edit as it stands (`pending`, `applying`, or final).
    pub async fn submit(&self, request: EditRequest) -> ServiceResult<EditRecord> {
        self.submit_decided(request, None).await
    }

    /// [`DocsService::submit`], or, with `decided_by`, an edit a person decided already (the
    /// content of a document they approved creating). The policy and Pause are read where
    /// the decision is taken, under the document's lock once the edit is planned: a switch to
    /// Review or a pause made while the edit waited for the lock holds it.
    pub(super) async fn submit_decided(
        &self,
        mut request: EditRequest,
        decided_by: Option<Channel>,
    ) -> ServiceResult<EditRecord> {
        edits::check_limits(&request.ops)?;
        request.reason = super::checked_reason(request.reason.take())?;
        let doc = self.open(&request.document, Some(&request.agent)).await?;
        // Refused at once when agents may not write, before any planning.
        self.writable_policy(&doc).await?;
        let guard = self.doc_locks.lock(doc.id).await;
        self.check_revision(&doc, &request)?;
        let ops = request.ops.clone();
        let bases = request.bases.clone();
        let (plan, planned_at, after_planning) =
            plan_on_fork(&doc, move |fork| edits::plan(fork, &ops, &bases)).await?;
        let (record, payload) = self.new_record(&doc, plan, &request, None);
        let decided_by = match decided_by {
            Some(channel) => Some(channel),
            None => self.automatic(self.writable_policy(&doc).await?),
        };
        let queued = self
            .queue(&doc, record, payload, decided_by, planned_at, guard)
            .await;
        after_planning.finish();
        queued
    }

    /// Who decides an agent's edit at once under `policy`: the policy (`auto`), unless
    /// agents' edits are paused; else nobody, and the edit waits for a person.
    pub(super) fn automatic(&self, policy: Policy) -> Option<Channel> {
        (policy == Policy::Auto && !self.is_paused()).then_some(Channel::Policy)
    }

    /// Stores a planned edit: `pending`, or, when it is decided already (`decided_by`: the
    /// policy, or the person who asked for it), `applying` right away (one write, before it
    /// takes effect) and merged.
    pub(super) async fn queue(
        &self,
        doc: &OpenDocument,
        mut record: EditRecord,
        payload: EditPayload,
        decided_by: Option<Channel>,
        planned_at: u64,
        guard: DocumentGuard<'_>,
    ) -> ServiceResult<EditRecord> {
        let decided = decided_by.is_some();
        if decided {
            record.status = EditStatus::Applying;
            record.decided_by = decided_by;
            record.decided_at = Some(now_ms());
        } else {
            self.room_for_pending(&record.agent).await?;
            // What a person may decide part by part: only edits waiting for one need it.
            record.parts = decidable_parts(doc, &record).await?;
        }
        self.store
            .insert_edit(record.clone(), payload.clone())
            .await?;
        self.changed(&record);
        if !decided {
            return Ok(record);
        }
        self.merge_decided(doc, record, &payload, Some(planned_at), guard)
            .await
    }

    /// With a quoted revision, every target must be unchanged since — unless the agent's
    /// change to it is a text rewrite that can be rebased onto the other change.
    fn check_revision(&self, doc: &OpenDocument, request: &EditRequest) -> ServiceResult<()> {
        let Some(revision) = &request.revision else {
            return Ok(());
        };
        for target in edits::target_blocks(&request.ops) {
            if let Some((block_id, _)) = doc
                .tracker
                .changed_since(revision, std::slice::from_ref(&target))
                && !edits::rebasable(&request.ops, &block_id, &request.bases)
            {
                return Err(ServiceError::StaleRevision {
                    block_id,
                    revision: revision.clone(),
                    current: doc.tracker.revision(),
                });
            }
        }
        Ok(())
    }

    /// The policy of a document agents may write to; an error when they may not.
    pub(super) async fn writable_policy(&self, doc: &OpenDocument) -> ServiceResult<Policy> {
        if doc.session.is_read_only() {
            return Err(docs_client::Error::ReadOnly {
                document: doc.id.to_string(),
            }
            .into());
        }
        match self.policy_for(doc.id).await? {
            Policy::ReadOnly => Err(ServiceError::PolicyReadOnly),
            Policy::CommentOnly => Err(ServiceError::PolicyCommentOnly),
            policy => Ok(policy),
        }
    }

    pub(super) fn new_record(
        &self,
        doc: &OpenDocument,
        plan: edits::Plan,
        request: &EditRequest,
        undoes: Option<Uuid>,
    ) -> (EditRecord, EditPayload) {
        let kept = StoredPlan::from(plan);
        let record = EditRecord {
            id: Uuid::new_v4(),
            document_id: doc.id,
            document_title: doc.session.metadata().title.clone(),
            agent: request.agent.clone(),
            tool: request.tool.clone(),
            arguments: request.arguments.clone(),
            reason: request.reason.clone(),
            revision: request.revision.clone(),
            preview: kept.preview,
            touched_blocks: kept.touched_blocks,
            new_blocks: kept.new_blocks,
            undoable: kept.undoable,
            undoes,
            status: EditStatus::Pending,
            comment: None,
            decided_by: None,
            approved_text: None,
            parts: vec![],
            approved_parts: None,
            part_texts: BTreeMap::new(),
            proposed_comment: None,
            proposed_document: None,
            error: None,
            created_at: now_ms(),
            decided_at: None,
            applied_at: None,
            saved_at: None,
        };
        (record, kept.payload)
    }

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

/// A plan as the journal stores it: what the edit's record shows of it, and what its merge
/// needs (the payload).
pub(super) struct StoredPlan {
    pub(super) preview: Preview,
    pub(super) touched_blocks: Vec<String>,
    pub(super) new_blocks: Vec<String>,
    pub(super) undoable: bool,
    pub(super) payload: EditPayload,
}

impl From<edits::Plan> for StoredPlan {
    fn from(plan: edits::Plan) -> Self {
        let inverse = plan
            .inverse
            .map(|ops| serde_json::to_value(ops).expect("undo operations serialize"));
        StoredPlan {
            preview: plan.preview,
            touched_blocks: plan.touched_blocks,
            new_blocks: plan.new_blocks,
            undoable: inverse.is_some(),
            payload: EditPayload {
                update: plan.update,
                base_state_vector: plan.base_state_vector,
                depends_on: plan.depends_on,
                leaves: plan.leaves,
                inverse,
                texts: plan.texts,
            },
        }
    }
}

/// The parts of `record` a person may accept or refuse one by one, labelled with the
/// document's current text; none when it is one change.
async fn decidable_parts(doc: &OpenDocument, record: &EditRecord) -> ServiceResult<Vec<EditPart>> {
    let (_, document) = doc.tracker.read_async().await?;
    let parts = edits::parts(&record.tool, &record.arguments, |id| {
        document.find(id).map(|b| b.plain_text())
    })
    .unwrap_or_default();
    if parts.len() < 2 {
        return Ok(vec![]);
    }
    Ok(parts
        .into_iter()
        .map(|p| EditPart {
            label: p.label,
            text: p.text,
        })
        .collect())
}

/// Plans on a fork of the document, on the blocking pool (CPU work, off the runtime's
/// workers). Returns the plan, the tracker's count at the fork's state, and what is left to
/// do once the edit is queued: keep it until then.
pub(super) async fn plan_on_fork(
    doc: &OpenDocument,
    plan: impl FnOnce(&edits::Fork) -> ServiceResult<edits::Plan> + Send + 'static,
) -> ServiceResult<(edits::Plan, u64, AfterPlanning)> {
    let (forks, tracker) = (doc.forks.clone(), doc.tracker.clone());
    let planned = tokio::task::spawn_blocking(move || {
        // The blocks as they are now, for a fork at the same state (the usual case): read by
        // the work after the last edit, or now, and then only what changed since the last
        // read. (Else the plan reads the whole fork.)
        tracker.read();
        let (doc, counter) = forks.take(|| tracker.counter())?;
        let fork = edits::Fork {
            doc,
            blocks: tracker.blocks_at(counter),
        };
        let plan = plan(&fork);
        ServiceResult::Ok((plan, counter, fork))
    })
    .await
    .map_err(|e| ServiceError::Internal(format!("planning task: {e}")))?;
    let (plan, counter, fork) = planned?;
    // A plan that failed left the fork half changed: it is dropped, off this path too.
    let update = plan.as_ref().ok().map(|plan| plan.update.clone());
    let after = AfterPlanning {
        doc: doc.clone(),
        used: Some((fork, update)),
    };
    Ok((plan?, counter, after))
}

/// What follows an edit's planning, off its path, once the edit is queued (or refused): the
/// fork it used is given back (the next edit's fork when the edit was merged; else dropped,
/// a whole document), the document is read for the next read or plan, and the next fork is
/// made when none is ready. Called where that happens ([`AfterPlanning::finish`]); a caller
/// leaving early (an error) leaves it to the drop, so it runs whatever the edit became.
pub(super) struct AfterPlanning {
    doc: OpenDocument,
    /// The fork, and the edit's update when it was planned; `None` once finished.
    used: Option<(edits::Fork, Option<Vec<u8>>)>,
}

impl AfterPlanning {
    /// Gives the fork back and makes the next one ahead, on the blocking pool.
    pub(super) fn finish(mut self) {
        self.run();
    }

    fn run(&mut self) {
        let Some(used) = self.used.take() else {
            return;
        };
        let (tracker, forks) = (self.doc.tracker.clone(), self.doc.forks.clone());
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn_blocking(move || {
            if let (fork, Some(update)) = used {
                forks.give_back(fork.doc, &update);
            }
            tracker.read();
            if let Err(e) = forks.refill() {
                tracing::debug!(error = %e, "the next fork could not be made ahead");
            }
        });
    }
}

impl Drop for AfterPlanning {
    fn drop(&mut self) {
        self.run();
    }
}
