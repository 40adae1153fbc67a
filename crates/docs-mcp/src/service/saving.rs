//! Keeping applied edits until a save of Docs holds them. Docs keeps every save as a version
//! of the document, so sessions save on the browser's rhythm (`save_interval`, a minute; alone
//! in the room, as soon as writes stop coming): an edit is `applied` once the room
//! acknowledged it, and until a save holds it (`saved_at`), the journal does (`unsaved`, set
//! from `applying` on). When the session ends before its save, or the process dies, the
//! document is opened again and the edits the journal holds are merged again where they are
//! missing — after the checks of any late merge (`merge_checked`: the history they were made
//! on, the blocks they depend on) — and it is saved at once. One the document cannot take is
//! not in it: it leaves `applied` for `conflict` (history lost, a block changed) or `failed`
//! (not in the document), and the person is told; it is never recorded saved.
//!
//! A stop reports what it left unsaved (the `StopReport`).
//!
//! `unsaved` is schema 2; `saved_at` (schema 4) is a column as authoritative as `status`, set by
//! `mark_saved` once a save holds the edit and announced by `EditsSaved`; until then the app shows
//! "Applied — not yet saved in Docs" and the agent's result says `saved: false`. A merge again also
//! checks that nothing is left pending (yrs keeps an update whose dependencies are missing aside
//! and says `Ok`, and would save it with the document). An edit the document cannot take leaves
//! `applied` by a compare-and-set written before anything is announced (`AppliedEditsLost`: the app
//! notifies the person); an `undone` one stays undone. The retention purge never deletes an unsaved
//! edit.

use std::collections::HashMap;
use std::time::Duration;

use docs_client::Progress;
use serde::Serialize;
use uuid::Uuid;

use super::merge::{Check, Strictness, merge_checked, refusal_reason};
use super::settle::is_transient;
use super::{DocsService, OpenDocument};
use crate::error::{ServiceError, ServiceResult};
use crate::events::ServiceEvent;
use crate::record::{EditRecord, EditStatus};
use crate::store::Transition;

/// What a stop left for the next start: documents holding applied edits no save of Docs
/// holds yet (the journal keeps them; the next start saves them).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StopReport {
    pub left: Vec<LeftUnsaved>,
}

/// A document the stop could not save.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeftUnsaved {
    pub document_id: Uuid,
    pub document_title: Option<String>,
    /// How many of its applied edits wait for a save.
    pub edits: usize,
    /// Why it was not saved.
    pub reason: String,
}

impl DocsService {
    /// Waits for the save that holds an applied edit (session write `seq`), then records it
    /// saved. When the session ends first, its document is saved again from the journal.
    pub(super) async fn follow_save(&self, id: Uuid, doc: &OpenDocument, seq: u64) {
        let mut progress = doc.session.progress();
        let covered =
            |p: &Progress| p.saved >= seq || p.failure.as_ref().is_some_and(|f| f.from <= seq);
        let seen = tokio::select! {
            biased;
            seen = progress.wait_for(covered) => seen.map(|p| p.saved >= seq).unwrap_or(false),
            // The sessions were closed (and saved) first: the next start checks.
            () = self.stopping.cancelled() => return,
        };
        if !seen {
            self.spawn_resave(doc.id);
            return;
        }
        self.record_saved(doc.id, vec![id]).await;
    }

    /// Records that a save of Docs holds these edits, and says so.
    async fn record_saved(&self, document: Uuid, ids: Vec<Uuid>) {
        match self.store.mark_saved(ids).await {
            Ok(saved) if saved.is_empty() => {}
            Ok(edit_ids) => self.emit(ServiceEvent::EditsSaved {
                document_id: document,
                edit_ids,
            }),
            Err(error) => {
                tracing::warn!(%document, %error, "cannot record that edits were saved; they are saved again at the next start")
            }
        }
    }

    /// Saves again the documents holding applied edits that no save was known to hold (a
    /// previous run stopped before saving them).
    pub(super) fn resume_saving(&self) {
        let service = self.arc();
        tokio::spawn(async move {
            match service.store.unsaved_documents().await {
                Ok(documents) => {
                    for document in documents {
                        service.spawn_resave(document);
                    }
                }
                Err(error) => tracing::warn!(%error, "cannot list the edits not saved yet"),
            }
        });
    }

    fn spawn_resave(&self, document: Uuid) {
        // Stopping: what the close did not save is the next start's.
        if self.closing.is_cancelled() || !self.resaving.lock().expect("resaving").insert(document)
        {
            return;
        }
        let service = self.arc();
        self.settle_tasks.spawn(async move {
            let mut attempts = 0;
            loop {
                match service.resave(document).await {
                    Ok(()) => break,
                    Err(error) if is_transient(&error) => {
                        attempts += 1;
                        tracing::info!(%document, %error, "cannot save applied edits yet; retrying");
                        if !service.pause(attempts).await {
                            break;
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%document, %error, "cannot save applied edits; they are tried again at the next start");
                        break;
                    }
                }
            }
            service.resaving.lock().expect("resaving").remove(&document);
        });
    }

    /// Opens the document, merges again, after the checks of any late merge, the unsaved
    /// edits it lacks, and saves it now. Those it cannot take are recorded not kept.
    async fn resave(&self, document: Uuid) -> ServiceResult<()> {
        let mut unsaved = self.store.unsaved_of(document).await?;
        if unsaved.is_empty() {
            return Ok(());
        }
        // In the order they were merged: each one is checked against those before it.
        unsaved.sort_by_key(|(record, _)| record.applied_at.unwrap_or(record.created_at));
        let doc = self.open(&document.to_string(), None).await?;
        let fragment = doc.session.fragment().clone();
        let edits: Vec<_> = unsaved
            .iter()
            .map(|(record, payload)| (payload.clone(), Strictness::of(record.decided_by)))
            .collect();
        let checked = {
            let _guard = self.doc_locks.lock(doc.id).await;
            doc.session
                .write(move |txn| {
                    edits
                        .iter()
                        .map(|(payload, strictness)| {
                            merge_checked(txn, &fragment, payload, *strictness, false)
                        })
                        .collect::<Vec<_>>()
                })
                .await?
        };
        let (mut kept, mut merged, mut lost) = (vec![], 0, vec![]);
        for ((record, _), check) in unsaved.into_iter().zip(checked.value()) {
            let why = match check {
                Check::Merged => {
                    merged += 1;
                    kept.push(record.id);
                    continue;
                }
                Check::Already => {
                    kept.push(record.id);
                    continue;
                }
                Check::Refused(refusal) => ServiceError::Conflict {
                    reason: not_kept(&refusal_reason(&doc, refusal)),
                },
                Check::Corrupt(detail) => ServiceError::Internal(not_kept(detail)),
            };
            lost.push((record, why));
        }
        if merged > 0 {
            tracing::info!(%document, "{merged} applied edits were missing from the document: merged again");
        }
        self.record_not_kept(document, lost).await?;
        if kept.is_empty() {
            return Ok(());
        }
        tokio::time::timeout(SAVE_WAIT, async {
            doc.session.persist().await?.wait().await?;
            Ok::<_, docs_client::Error>(())
        })
        .await
        .map_err(|_| docs_client::Error::NotSaved { waited: SAVE_WAIT })??;
        self.record_saved(document, kept).await;
        Ok(())
    }

    /// Applied edits Docs did not keep and the document cannot take again: each leaves
    /// `applied` for `conflict` or `failed` (a compare-and-set, recorded before anything is
    /// said), and the person is told. An undone one stays `undone` — not in the document, as
    /// its undo meant — with nothing left to save.
    async fn record_not_kept(
        &self,
        document: Uuid,
        lost: Vec<(EditRecord, ServiceError)>,
    ) -> ServiceResult<()> {
        let (mut undone, mut ended) = (vec![], vec![]);
        for (mut record, error) in lost {
            tracing::warn!(edit = %record.id, %document, %error, "an applied edit is not in the document");
            if record.status == EditStatus::Undone {
                undone.push(record.id);
                continue;
            }
            record.status = match error {
                ServiceError::Conflict { .. } => EditStatus::Conflict,
                _ => EditStatus::Failed,
            };
            record.error = Some(error.info());
            let transition = Transition {
                record: record.clone(),
                from: EditStatus::Applied,
            };
            if self.store.transition(transition).await? {
                self.changed(&record);
                ended.push(record.id);
            }
        }
        if !undone.is_empty() {
            self.store.forget_unsaved(undone).await?;
        }
        if !ended.is_empty() {
            self.emit(ServiceEvent::AppliedEditsLost {
                document_id: document,
                edit_ids: ended,
            });
        }
        Ok(())
    }

    /// The documents whose applied edits no save holds, once the stop closed every session
    /// (`not_saved`: those whose close left writes unsaved, and why).
    pub(super) async fn left_unsaved(
        &self,
        mut not_saved: HashMap<Uuid, docs_client::Error>,
    ) -> ServiceResult<Vec<LeftUnsaved>> {
        let mut left = vec![];
        for document in self.store.unsaved_documents().await? {
            let edits = self.store.unsaved_of(document).await?;
            let reason = match not_saved.remove(&document) {
                Some(error) => error.to_string(),
                None => "its save was still being retried".to_owned(),
            };
            left.push(LeftUnsaved {
                document_id: document,
                document_title: edits.iter().find_map(|(r, _)| r.document_title.clone()),
                edits: edits.len(),
                reason,
            });
        }
        Ok(left)
    }
}

/// Why an applied edit is not in the document, for the person and the agent.
fn not_kept(reason: &str) -> String {
    format!(
        "Docs did not keep it (its room was lost before a save held it), and it cannot be applied again: {reason}"
    )
}

/// How long one attempt to save again waits.
const SAVE_WAIT: Duration = Duration::from_secs(30);
