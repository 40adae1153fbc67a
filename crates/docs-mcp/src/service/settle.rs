//! Following a merged edit until the instance confirmed it: acknowledged by the
//! collaboration server (`applied`: in the room, and held in the journal until a save holds
//! it — see `saving`), or known not to be in the document (`failed`, `conflict`). Each
//! `applying` edit is followed by one task that no caller owns, so a caller that times out
//! or goes away changes nothing.
//!
//! When the session ends before confirming (a refused write, rights withdrawn, a closed
//! session), the edit is looked for again in a fresh session: found, it only needs saving;
//! missing, it is merged again after the same checks as an approval. A restart resumes every
//! `applying` edit the same way. An edit's change is recognized in a document by its Yjs
//! client and clocks (see `edits::fork`) and the deletions it made.
//!
//! A merged edit is a watched write (`docs-client`'s `session::touch`): a person's typing that
//! crossed it takes it back, and once the take-back is acknowledged the edit goes `applied` →
//! `conflict`.

use std::time::Duration;

use uuid::Uuid;

use super::merge::{MergeRefused, Merged, Strictness, merge};
use super::{DocsService, OpenDocument};
use crate::error::{ServiceError, ServiceResult};
use crate::events::ServiceEvent;
use crate::record::{EditStatus, now_ms};
use crate::store::Transition;
use docs_client::Touch;

/// What looking for an edit again found.
enum LookedAgain {
    Merged(OpenDocument, Merged),
    /// It is not `applying` any more.
    Decided,
    /// The document does not take it.
    Refused(Box<crate::record::EditRecord>, MergeRefused),
}

/// Longest pause between two attempts to reach a document again.
const RETRY_MAX: Duration = Duration::from_secs(60);

impl DocsService {
    /// Follows a merged edit in a task of its own (once per edit).
    pub(super) fn follow(&self, id: Uuid, doc: OpenDocument, merged: Merged) {
        self.spawn_settle(id, Some((doc, merged)));
    }

    /// Takes up the edits left `applying` (by a previous run, or before the instance changed).
    pub(super) fn resume_applying(&self) {
        let service = self.arc();
        tokio::spawn(async move {
            match service.store.ids_in(EditStatus::Applying).await {
                Ok(ids) => {
                    if !ids.is_empty() {
                        tracing::info!(
                            "{} approved edits not yet confirmed: following them",
                            ids.len()
                        );
                    }
                    for id in ids {
                        match service.edit(id).await {
                            Ok(record) if record.proposed_document.is_some() => {
                                service.spawn_creation(id);
                            }
                            Ok(record) if record.proposed_comment.is_some() => {
                                let service = service.clone();
                                service.settle_tasks.clone().spawn(async move {
                                    if let Err(error) = service.resume_comment(record).await {
                                        tracing::warn!(edit = %id, %error, "cannot take up a comment being made");
                                    }
                                });
                            }
                            _ => service.spawn_settle(id, None),
                        }
                    }
                }
                Err(error) => tracing::warn!(%error, "cannot list the edits being applied"),
            }
        });
    }

    fn spawn_settle(&self, id: Uuid, merged: Option<(OpenDocument, Merged)>) {
        if !self.settling.lock().expect("settling").insert(id) {
            return;
        }
        let service = self.arc();
        self.settle_tasks.spawn(async move {
            service.settle(id, merged).await;
            service.settling.lock().expect("settling").remove(&id);
        });
    }

    async fn settle(&self, id: Uuid, mut current: Option<(OpenDocument, Merged)>) {
        let mut attempts: u32 = 0;
        loop {
            let (doc, merged) = match current.take() {
                Some(merged) => merged,
                None => match self.merge_again(id).await {
                    Ok(LookedAgain::Merged(doc, merged)) => (doc, merged),
                    Ok(LookedAgain::Decided) => return,
                    Ok(LookedAgain::Refused(record, MergeRefused::Failed(error))) => {
                        if let Err(error) = self.finish(*record, MergeRefused::Failed(error)).await
                        {
                            tracing::warn!(edit = %id, %error, "cannot record a failed edit");
                        }
                        return;
                    }
                    Ok(LookedAgain::Refused(record, refused)) => {
                        if let Err(error) = self.finish(*record, refused).await {
                            tracing::warn!(edit = %id, %error, "cannot record a refused edit");
                        }
                        return;
                    }
                    Err(error) if is_transient(&error) => {
                        attempts += 1;
                        tracing::info!(edit = %id, %error, "cannot reach the document to confirm an edit; retrying");
                        if !self.pause(attempts).await {
                            return;
                        }
                        continue;
                    }
                    Err(error) => {
                        match self.edit(id).await {
                            Ok(record) if record.status == EditStatus::Applying => {
                                if let Err(error) =
                                    self.finish(record, MergeRefused::Failed(error)).await
                                {
                                    tracing::warn!(edit = %id, %error, "cannot record a failed edit");
                                }
                            }
                            Ok(_) => {}
                            Err(e) => {
                                tracing::warn!(edit = %id, error = %e, "cannot read an edit being applied")
                            }
                        }
                        return;
                    }
                },
            };
            let confirmed = tokio::select! {
                biased;
                confirmed = acknowledgement(&doc, &merged) => confirmed,
                () = self.stopping.cancelled() => return,
            };
            match confirmed {
                Ok(()) => {
                    self.applied(id, &doc).await;
                    tokio::join!(
                        self.follow_save(id, &doc, merged.seq),
                        self.follow_touch(id, &doc, merged.seq),
                    );
                    return;
                }
                Err(error) => {
                    attempts += 1;
                    tracing::info!(edit = %id, %error, "the session ended before confirming an edit; looking for it again");
                    if !self.pause(attempts).await {
                        return;
                    }
                }
            }
        }
    }

    /// Waits before attempt `attempts + 1`; `false` when the service stops meanwhile (from the
    /// moment it closes its sessions: an attempt would open a document again).
    pub(super) async fn pause(&self, attempts: u32) -> bool {
        let delay = Duration::from_millis(500)
            .saturating_mul(1 << attempts.min(8))
            .min(RETRY_MAX);
        tokio::select! {
            () = tokio::time::sleep(delay) => true,
            () = self.closing.cancelled() => false,
        }
    }

    /// Opens the document afresh and merges the edit again, or finds it there.
    async fn merge_again(&self, id: Uuid) -> ServiceResult<LookedAgain> {
        let record = self.edit(id).await?;
        if record.status != EditStatus::Applying {
            return Ok(LookedAgain::Decided);
        }
        let payload = self.payload(id).await?;
        let doc = self.open(&record.document_id.to_string(), None).await?;
        let _guard = self.doc_locks.lock(doc.id).await;
        let strictness = Strictness::of(record.decided_by);
        match merge(&doc, &payload, strictness, None).await {
            Ok(merged) => Ok(LookedAgain::Merged(doc, merged)),
            Err(MergeRefused::Failed(error)) if is_transient(&error) => Err(error),
            Err(refused) => Ok(LookedAgain::Refused(Box::new(record), refused)),
        }
    }

    /// `applying` → `applied` (and, for an undo, the edit it reverts → `undone`, together).
    async fn applied(&self, id: Uuid, doc: &OpenDocument) {
        let outcome: ServiceResult<()> = async {
            let record = self.edit(id).await?;
            if record.status != EditStatus::Applying {
                return Ok(());
            }
            let mut applied = record.clone();
            applied.status = EditStatus::Applied;
            applied.applied_at = Some(now_ms());
            applied.error = None;
            let transition = Transition {
                record: applied.clone(),
                from: EditStatus::Applying,
            };
            let mut undone = None;
            if let Some(original) = record.undoes {
                let mut original = self.edit(original).await?;
                if original.status == EditStatus::Applied {
                    original.status = EditStatus::Undone;
                    undone = Some(original);
                }
            }
            let done = match &undone {
                Some(original) => {
                    self.store
                        .transition_both(
                            transition,
                            Transition {
                                record: original.clone(),
                                from: EditStatus::Applied,
                            },
                        )
                        .await?
                }
                None => self.store.transition(transition).await?,
            };
            if done {
                if let Some(original) = &undone {
                    self.changed(original);
                }
                self.changed(&applied);
                self.emit(ServiceEvent::DocumentChanged {
                    document_id: doc.id,
                    revision: doc.tracker.revision(),
                });
            }
            Ok(())
        }
        .await;
        if let Err(error) = outcome {
            tracing::warn!(edit = %id, %error, "cannot record an applied edit; it is resumed at the next start");
        }
    }
}

impl DocsService {
    /// A person's typing met the edit on its way (they typed against the words it rewrote
    /// before seeing the rewrite) and the session took it back, which left their words as they
    /// typed them: once the take-back is acknowledged, `applied` → `conflict`.
    async fn follow_touch(&self, id: Uuid, doc: &OpenDocument, seq: u64) {
        let by = tokio::select! {
            biased;
            touch = doc.session.touch_settled(seq) => match touch {
                Touch::Clear => return,
                Touch::TakenBack { by } => by,
            },
            () = self.stopping.cancelled() => return,
        };
        let take_back = Merged { seq: by };
        let taken_back = tokio::select! {
            biased;
            acknowledged = acknowledgement(doc, &take_back) => acknowledged,
            () = self.stopping.cancelled() => return,
        };
        if let Err(error) = taken_back {
            // The session ended: the next open finds what the document holds (a resave of an
            // applied edit checks it is there).
            tracing::warn!(edit = %id, %error, "a take-back was not acknowledged");
            return;
        }
        let outcome: ServiceResult<()> = async {
            let mut record = self.edit(id).await?;
            if record.status != EditStatus::Applied {
                return Ok(());
            }
            record.status = EditStatus::Conflict;
            record.error = Some(
                ServiceError::Conflict {
                    reason: TAKEN_BACK.into(),
                }
                .info(),
            );
            let transition = Transition {
                record: record.clone(),
                from: EditStatus::Applied,
            };
            if self.store.transition(transition).await? {
                self.store.forget_unsaved(vec![id]).await?;
                self.changed(&record);
                self.emit(ServiceEvent::DocumentChanged {
                    document_id: doc.id,
                    revision: doc.tracker.revision(),
                });
            }
            Ok(())
        }
        .await;
        if let Err(error) = outcome {
            tracing::warn!(edit = %id, %error, "cannot record an edit taken back");
        }
    }
}

/// Why an edit met by a person's typing is not in the document.
const TAKEN_BACK: &str = "someone typed in the same words while the edit was on its way to them; it was taken back, and their words are as they typed them";

/// Errors after which the document may be reached later.
pub(super) fn is_transient(error: &ServiceError) -> bool {
    match error {
        ServiceError::Docs(e) => e.is_transient() || matches!(e, docs_client::Error::Closed { .. }),
        ServiceError::Store(_) => true,
        _ => false,
    }
}

/// Waits until the room acknowledged the merge; when the session ended first, why.
async fn acknowledgement(doc: &OpenDocument, merged: &Merged) -> Result<(), docs_client::Error> {
    let mut progress = doc.session.progress();
    let target = merged.seq;
    let closed = || docs_client::Error::Closed {
        document: doc.id.to_string(),
    };
    let waited = progress
        .wait_for(|p| {
            p.acknowledged >= target || p.failure.as_ref().is_some_and(|f| f.from <= target)
        })
        .await
        .map(|p| p.clone());
    let Ok(seen) = waited else {
        return Err(closed());
    };
    if seen.acknowledged >= target {
        return Ok(());
    }
    let error = seen
        .failure
        .as_ref()
        .map(|f| f.error.clone())
        .unwrap_or_else(closed);
    Err(error)
}
