//! Carrying out a decided comment (`applying`, persisted), in a task no caller owns. A reply,
//! resolving or reopening is one REST call: `applied` when Docs took it, else `failed`. A new
//! thread is created over REST and its id recorded at once, then its text is marked in the
//! live document under the document's lock; from there the rule is the edits' one — `failed`
//! and `conflict` mean "not in Docs":
//! - the mark written, the comment is followed until a save holds it (however long the room
//!   or the instance's budget of calls makes that), then `applied`;
//! - the mark not made (its text gone: `conflict`), the thread is deleted first, the DELETE
//!   retried after a throttle; only then is the comment `conflict` or `failed`;
//! - not known (the session ended first, or the process stopped: the record knows its
//!   thread), the document is opened afresh and looked at: marked, it is saved and `applied`;
//!   unmarked, the thread is deleted and it is `failed`.
//!
//! Retries are bounded within a run; what is still unsettled then stays `applying` and is
//! taken up again at the next start.
//!
//! No lock is held across Docs' REST calls; the caller waits for the outcome as for an edit's
//! confirmation. A thread Docs will not delete leaves the comment `applied`, attached to no text.

use docs_client::PendingWrite;
use docs_client::blocknote::ModelResult;
use docs_client::blocknote::comments::{add_comment_mark, comment_anchors};
use uuid::Uuid;

use super::comments::{anchor_in, changed_since};
use super::merge::MergeRefused;
use super::settle::is_transient;
use super::{DocsService, OpenDocument};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{CommentAction, EditRecord, EditStatus, ProposedComment, now_ms};
use crate::store::Transition;

/// How many times, in one run, a comment's document is looked at again or its thread's
/// deletion retried (pauses growing to a minute: about five minutes in all).
const ATTEMPTS: u32 = 10;

/// What marking a new thread's text did.
enum Marking {
    /// The mark is in the live document, on its way to the room and a save.
    Written(PendingWrite<ModelResult<String>>),
    /// Nothing was written.
    Refused(MergeRefused),
    /// The session could not say: the document must be looked at.
    Unknown(ServiceError),
}

/// How following a write to its save ended.
enum Save {
    Held,
    /// The session ended first: the write may or may not be in Docs.
    Ended(ServiceError),
    /// The service stops: the next start takes it up.
    Stopping,
}

/// What deleting a thread came to.
enum Deletion {
    /// Docs does not hold it (any more).
    Gone,
    /// Docs keeps it and will not delete it (the user lost the right to).
    Kept(ServiceError),
    /// Not yet: still refused after [`ATTEMPTS`], or the service stops.
    Later,
}

impl DocsService {
    /// Carries out a decided comment (`applying`, persisted) in a task of its own, so a
    /// caller going away leaves nothing half made; returns it as it stands (`applying`).
    pub(super) async fn carry_out_comment(
        &self,
        doc: &OpenDocument,
        record: EditRecord,
    ) -> ServiceResult<EditRecord> {
        let (service, doc, id) = (self.arc(), doc.clone(), record.id);
        if self.settling.lock().expect("settling").insert(id) {
            let carried = record.clone();
            self.settle_tasks.spawn(async move {
                if let Err(error) = service.make_comment(&doc, carried).await {
                    tracing::warn!(edit = %id, %error, "a comment being made was not settled; it is taken up at the next start");
                }
                service.settling.lock().expect("settling").remove(&id);
            });
        }
        Ok(record)
    }

    async fn make_comment(&self, doc: &OpenDocument, record: EditRecord) -> ServiceResult<()> {
        let Some(proposal) = record.proposed_comment.clone() else {
            let error = ServiceError::Internal(format!("edit {} is not a comment", record.id));
            self.finish(record, MergeRefused::Failed(error)).await?;
            return Ok(());
        };
        if proposal.action == CommentAction::Add {
            return self.add_thread(doc, record, &proposal).await;
        }
        match self.change_thread(doc, proposal.action, &proposal).await {
            Ok(()) => self.comment_applied(doc, record).await,
            Err(error) => self
                .finish(record, MergeRefused::Failed(error))
                .await
                .map(drop),
        }
    }

    /// A comment left `applying` by a stopped run. A new thread is settled as one whose mark
    /// is not known; a thread change (reply, resolve) cannot be told apart from one not made:
    /// it is `failed`, with the reason.
    pub(super) async fn resume_comment(&self, record: EditRecord) -> ServiceResult<()> {
        let Some(proposal) = record.proposed_comment.clone() else {
            return Ok(());
        };
        let thread = proposal.thread_id.as_deref().and_then(|t| t.parse().ok());
        match (proposal.action, thread) {
            (CommentAction::Add, Some(thread)) => self.look_again(record, thread).await,
            (CommentAction::Add, None) => {
                self.finish(record, stopped("no thread was recorded as created"))
                    .await?;
                Ok(())
            }
            _ => {
                self.finish(record, stopped("check the thread in Docs"))
                    .await?;
                Ok(())
            }
        }
    }

    /// `applying` → `applied`: Docs holds the comment (and a save its mark), so nothing is
    /// left to save; the other editors are told to load the thread.
    async fn comment_applied(
        &self,
        doc: &OpenDocument,
        mut record: EditRecord,
    ) -> ServiceResult<()> {
        record.status = EditStatus::Applied;
        record.applied_at = Some(now_ms());
        // In Docs: the thread is Docs' own, and its mark was saved first.
        record.saved_at = record.applied_at;
        record.error = None;
        let record = self.leave_applying(record).await?;
        self.store.mark_saved(vec![record.id]).await?;
        let thread = record
            .proposed_comment
            .as_ref()
            .and_then(|c| c.thread_id.as_deref())
            .and_then(|t| t.parse().ok());
        doc.session.ping_comments(thread);
        self.forget_open_threads(doc.id);
        Ok(())
    }

    async fn change_thread(
        &self,
        doc: &OpenDocument,
        action: CommentAction,
        proposal: &ProposedComment,
    ) -> ServiceResult<()> {
        let client = self.client()?;
        let thread: Uuid = proposal
            .thread_id
            .as_deref()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| ServiceError::Internal("a thread change without its thread".into()))?;
        match action {
            CommentAction::Reply => {
                let body = docs_client::blocknote::comment_body_from_markdown(
                    proposal.body.as_deref().unwrap_or(""),
                )?;
                client.reply(doc.id, thread, &body).await.map(drop)?;
            }
            CommentAction::Resolve => client.resolve_thread(doc.id, thread).await?,
            CommentAction::Reopen => client.unresolve_thread(doc.id, thread).await?,
            CommentAction::Add => unreachable!("a new thread is added by add_thread"),
        }
        Ok(())
    }

    /// Creates the thread, records it, then marks its text and follows the mark to its save
    /// — or deletes the thread again.
    async fn add_thread(
        &self,
        doc: &OpenDocument,
        mut record: EditRecord,
        proposal: &ProposedComment,
    ) -> ServiceResult<()> {
        let created = async {
            let body = docs_client::blocknote::comment_body_from_markdown(
                proposal.body.as_deref().unwrap_or(""),
            )?;
            Ok::<_, ServiceError>(self.client()?.create_thread(doc.id, &body).await?)
        };
        let thread = match created.await {
            Ok(thread) => thread.id,
            Err(error) => {
                self.finish(record, MergeRefused::Failed(error)).await?;
                return Ok(());
            }
        };
        // Kept before the mark is written: from now on the record knows its thread.
        if let Err(error) = self
            .note_comment(&mut record, |c| c.thread_id = Some(thread.to_string()))
            .await
        {
            return self
                .withdraw(doc.id, record, thread, MergeRefused::Failed(error))
                .await;
        }
        if doc.session.is_read_only() {
            // A commenter's connection may not change the document: the thread is attached
            // to no text, and said so.
            if let Some(comment) = record.proposed_comment.as_mut() {
                comment.anchored = Some(false);
            }
            return self.comment_applied(doc, record).await;
        }
        match self.mark(doc, proposal, thread).await {
            Marking::Written(pending) => match self.saved(doc, pending).await {
                Save::Held => self.anchored(doc, record).await,
                Save::Ended(error) => {
                    tracing::info!(edit = %record.id, %error, "the session ended before a comment's mark was saved; looking for it again");
                    self.look_again(record, thread).await
                }
                Save::Stopping => Ok(()),
            },
            Marking::Refused(refused) => self.withdraw(doc.id, record, thread, refused).await,
            Marking::Unknown(error) => {
                tracing::info!(edit = %record.id, %error, "a comment's mark may not have been written; looking for it");
                self.look_again(record, thread).await
            }
        }
    }

    /// The thread's mark on the text the person saw quoted, checked and written under the
    /// document's lock in the document as it is now.
    async fn mark(&self, doc: &OpenDocument, proposal: &ProposedComment, thread: Uuid) -> Marking {
        let block_id = proposal.block_id.clone().unwrap_or_default();
        let quoted = proposal.quoted_text.clone().unwrap_or_default();
        let _guard = self.doc_locks.lock(doc.id).await;
        let document = match doc.tracker.read_async().await {
            Ok((_, document)) => document,
            Err(error) => return Marking::Refused(MergeRefused::Failed(error)),
        };
        let range = match anchor_in(&document, &block_id, Some(&quoted)) {
            Ok((range, _)) => range,
            Err(error) => return Marking::Refused(MergeRefused::Conflict(changed_since(&error))),
        };
        let fragment = doc.session.fragment().clone();
        let thread = thread.to_string();
        let written = doc
            .session
            .write(move |txn| add_comment_mark(txn, &fragment, &block_id, range, &thread))
            .await;
        match written {
            // The mark is checked before anything is written: refused, nothing was.
            Ok(pending) => match pending.value() {
                Ok(_) => Marking::Written(pending),
                Err(error) => Marking::Refused(MergeRefused::Failed(error.clone().into())),
            },
            Err(error) => Marking::Unknown(error.into()),
        }
    }

    /// Follows a write until a save holds it: the save is asked for now, and waited for as
    /// long as the session lives — a late acknowledgement or a throttled save is no failure.
    async fn saved<R>(&self, doc: &OpenDocument, mut pending: PendingWrite<R>) -> Save {
        let seq = pending.seq();
        let first = tokio::select! {
            biased;
            saved = pending.saved() => saved,
            () = self.stopping.cancelled() => return Save::Stopping,
        };
        match first {
            Ok(_) => return Save::Held,
            Err(
                docs_client::Error::NotAcknowledged { .. } | docs_client::Error::NotSaved { .. },
            ) => {}
            Err(error) => return Save::Ended(error.into()),
        }
        let mut progress = doc.session.progress();
        let seen = tokio::select! {
            biased;
            seen = progress.wait_for(|p| {
                p.saved >= seq || p.failure.as_ref().is_some_and(|f| f.from <= seq)
            }) => seen.map(|p| p.clone()),
            () = self.stopping.cancelled() => return Save::Stopping,
        };
        match seen {
            Ok(p) if p.saved >= seq => Save::Held,
            Ok(p) => Save::Ended(p.failure.map(|f| f.error).expect("checked above").into()),
            Err(_) => Save::Ended(
                docs_client::Error::Closed {
                    document: doc.id.to_string(),
                }
                .into(),
            ),
        }
    }

    /// The comment's mark is saved: `applied`, anchored.
    async fn anchored(&self, doc: &OpenDocument, mut record: EditRecord) -> ServiceResult<()> {
        if let Some(comment) = record.proposed_comment.as_mut() {
            comment.anchored = Some(true);
        }
        self.comment_applied(doc, record).await
    }

    /// A new thread whose mark is not known: its document is opened afresh and looked at.
    /// Marked, the mark is saved and the comment `applied`; unmarked, the thread is deleted
    /// and the comment `failed` (or `applied` unanchored, when it was meant to be so).
    async fn look_again(&self, record: EditRecord, thread: Uuid) -> ServiceResult<()> {
        let wanted = thread.to_string();
        let mut attempts = 0;
        loop {
            let looked = async {
                let doc = self.open(&record.document_id.to_string(), None).await?;
                let (_, document) = doc.tracker.read_async().await?;
                let marked = comment_anchors(&document.blocks)
                    .iter()
                    .any(|a| a.thread_id == wanted);
                Ok::<_, ServiceError>((doc, marked))
            };
            let error = match looked.await {
                // A connection that may not change the document cannot save it either: the
                // mark is in the document as Docs' room holds it, for its editors to save.
                Ok((doc, true)) if doc.session.is_read_only() => {
                    return self.anchored(&doc, record).await;
                }
                Ok((doc, true)) => {
                    let saved = match doc.session.persist().await {
                        Ok(pending) => self.saved(&doc, pending).await,
                        Err(error) => Save::Ended(error.into()),
                    };
                    match saved {
                        Save::Held => return self.anchored(&doc, record).await,
                        Save::Stopping => return Ok(()),
                        Save::Ended(error) => error,
                    }
                }
                Ok((doc, false)) => {
                    let unanchored = record
                        .proposed_comment
                        .as_ref()
                        .is_some_and(|c| c.anchored == Some(false));
                    if unanchored {
                        return self.comment_applied(&doc, record).await;
                    }
                    let refused = MergeRefused::Failed(ServiceError::Internal(
                        "its text was not marked in the document (its session ended, or the \
                         service stopped, before the mark reached Docs); the thread was deleted"
                            .into(),
                    ));
                    return self.withdraw(doc.id, record, thread, refused).await;
                }
                Err(error) if is_transient(&error) => error,
                // The document cannot be looked at (deleted, or no longer ours to read).
                Err(error) => {
                    return self
                        .withdraw(
                            record.document_id,
                            record,
                            thread,
                            MergeRefused::Failed(error),
                        )
                        .await;
                }
            };
            attempts += 1;
            tracing::info!(edit = %record.id, %error, "cannot look for a comment's mark yet; retrying");
            if attempts >= ATTEMPTS || !self.pause(attempts).await {
                return Ok(());
            }
        }
    }

    /// A thread made for a comment that is not in the document: deleted, then the comment is
    /// recorded as `refused` (`failed`, `conflict`). A thread Docs keeps leaves the comment
    /// `applied`, attached to no text; one not deleted yet leaves it `applying`.
    async fn withdraw(
        &self,
        document: Uuid,
        mut record: EditRecord,
        thread: Uuid,
        refused: MergeRefused,
    ) -> ServiceResult<()> {
        match self.delete_thread(document, thread).await {
            Deletion::Gone => self.finish(record, refused).await.map(drop),
            Deletion::Kept(error) => {
                tracing::warn!(edit = %record.id, %thread, %error, "a comment's thread could not be deleted: it stays in Docs, attached to no text");
                if let Some(comment) = record.proposed_comment.as_mut() {
                    comment.anchored = Some(false);
                }
                record.status = EditStatus::Applied;
                record.applied_at = Some(now_ms());
                self.leave_applying(record).await?;
                self.forget_open_threads(document);
                Ok(())
            }
            Deletion::Later => Ok(()),
        }
    }

    /// Deletes a thread, retried after a throttle or a network failure.
    async fn delete_thread(&self, document: Uuid, thread: Uuid) -> Deletion {
        let mut attempts = 0;
        loop {
            let deleted = match self.client() {
                Ok(client) => client
                    .delete_thread(document, thread)
                    .await
                    .map_err(ServiceError::from),
                Err(error) => Err(error),
            };
            let error = match deleted {
                Ok(()) | Err(ServiceError::Docs(docs_client::Error::NotFound { .. })) => {
                    return Deletion::Gone;
                }
                Err(error) if is_transient(&error) || matches!(error, ServiceError::NoInstance) => {
                    error
                }
                Err(error) => return Deletion::Kept(error),
            };
            attempts += 1;
            tracing::info!(%thread, %error, "cannot delete a comment thread yet; retrying");
            if attempts >= ATTEMPTS || !self.pause(attempts).await {
                tracing::warn!(%thread, %error, "a comment thread is not deleted yet; it is tried again at the next start");
                return Deletion::Later;
            }
        }
    }

    /// Updates the record's proposed comment (still `applying`) in the journal.
    async fn note_comment(
        &self,
        record: &mut EditRecord,
        change: impl FnOnce(&mut ProposedComment),
    ) -> ServiceResult<()> {
        if let Some(comment) = record.proposed_comment.as_mut() {
            change(comment);
        }
        self.store
            .transition(Transition {
                record: record.clone(),
                from: EditStatus::Applying,
            })
            .await?;
        Ok(())
    }
}

/// Why a comment the service stopped while making is `failed`.
fn stopped(what: &str) -> MergeRefused {
    MergeRefused::Failed(ServiceError::Internal(format!(
        "the service stopped while the comment was being made: {what}"
    )))
}
