//! An edit from its request to its queueing: planned on a fork of the live document under
//! the document's lock (so from the state it will be merged into, after every earlier edit),
//! recorded, and decided at once when the policy allows (`decide` takes it from there).
//!
//! Here: `submit` and the plan as the journal stores it (`StoredPlan`, `plan_on_fork`, and
//! `AfterPlanning`, the fork refill once the plan is made).

use uuid::Uuid;

use super::locks::DocumentGuard;
use super::{DocsService, OpenDocument};
use crate::edits::{self, EditOp, TextBases};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{
    AgentInfo, Channel, EditPart, EditPayload, EditRecord, EditStatus, Policy, Preview, now_ms,
};

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
            revision: request.revision.clone(),
            preview: kept.preview,
            touched_blocks: kept.touched_blocks,
            new_blocks: kept.new_blocks,
            undoable: kept.undoable,
            undoes,
            ..EditRecord::pending(
                doc.id,
                doc.session.metadata().title.clone(),
                request.agent.clone(),
                request.tool.clone(),
                request.arguments.clone(),
                request.reason.clone(),
            )
        };
        (record, kept.payload)
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
    let parts = edits::parts(
        &record.tool,
        &record.arguments,
        |id| document.find(id).map(|b| b.plain_text()),
        doc.schema(),
    )
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
    let (forks, tracker, schema) = (doc.forks.clone(), doc.tracker.clone(), doc.schema());
    let planned = tokio::task::spawn_blocking(move || {
        // The blocks as they are now, for a fork at the same state (the usual case): read by
        // the work after the last edit, or now, and then only what changed since the last
        // read. (Else the plan reads the whole fork.)
        tracker.read();
        let (doc, counter) = forks.take(|| tracker.counter())?;
        let fork = edits::Fork {
            doc,
            blocks: tracker.blocks_at(counter),
            schema,
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
