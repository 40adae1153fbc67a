//! Keeping applied edits until a save of the instance holds them. Docs keeps every save as a
//! version of the document, so sessions save on the browser's rhythm (`save_interval`, a
//! minute): an edit is `applied` once the room acknowledged it, and until a save holds it,
//! the journal does (`unsaved`, set from `applying` on). Nothing is lost when the session
//! ends before its save, or the process dies: the document is opened again, the edits the
//! journal holds are merged again where they are missing (a Yjs update applied twice
//! changes nothing), and it is saved at once.

use std::time::Duration;

use docs_client::Progress;
use uuid::Uuid;
use yrs::Update;
use yrs::updates::decoder::Decode;

use super::settle::is_transient;
use super::{DocsService, OpenDocument};
use crate::error::{ServiceError, ServiceResult};
use docs_client::yjs::contains;

impl DocsService {
    /// Waits for the save that holds an applied edit (session write `seq`), then clears it
    /// from the journal's unsaved edits. When the session ends first, its document is saved
    /// again from the journal.
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
        if let Err(error) = self.store.mark_saved(vec![id]).await {
            tracing::warn!(edit = %id, %error, "cannot record that an edit was saved; it is saved again at the next start");
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
        if !self.resaving.lock().expect("resaving").insert(document) {
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

    /// Opens the document, merges again the unsaved edits it lacks, and saves it now.
    async fn resave(&self, document: Uuid) -> ServiceResult<()> {
        let unsaved = self.store.unsaved_of(document).await?;
        if unsaved.is_empty() {
            return Ok(());
        }
        let doc = self.open(&document.to_string(), None).await?;
        let mut updates = Vec::with_capacity(unsaved.len());
        for (id, payload) in &unsaved {
            let update = Update::decode_v1(&payload.update)
                .map_err(|e| ServiceError::Internal(format!("stored update of edit {id}: {e}")))?;
            updates.push(update);
        }
        let restored = {
            let _guard = self.doc_locks.lock(doc.id).await;
            doc.session
                .write(move |txn| {
                    let mut restored = 0;
                    for update in updates {
                        if !contains(txn, &update) && txn.apply_update(update).is_ok() {
                            restored += 1;
                        }
                    }
                    restored
                })
                .await?
        };
        if *restored.value() > 0 {
            tracing::info!(%document, "{} applied edits were missing from the document: merged again", restored.value());
        }
        tokio::time::timeout(SAVE_WAIT, async {
            doc.session.persist().await?.wait().await?;
            Ok::<_, docs_client::Error>(())
        })
        .await
        .map_err(|_| docs_client::Error::NotSaved { waited: SAVE_WAIT })??;
        self.store
            .mark_saved(unsaved.into_iter().map(|(id, _)| id).collect())
            .await
    }
}

/// How long one attempt to save again waits.
const SAVE_WAIT: Duration = Duration::from_secs(30);
