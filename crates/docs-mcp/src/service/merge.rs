//! The merge of a decided edit into the live document, with its checks in ONE transaction:
//! nothing merged when the document lost the history the edit was planned on, or when a block
//! it depends on changed since it was planned. The same check, read-only, tells a card that
//! its edit would now be a conflict.
//!
//! The merge also checks that yrs left nothing of the edit pending. `merge_checked` runs the same
//! checks for a resave (see `saving`); `changed_since_proposed` is the read-only check, on an
//! already-open document.

use docs_client::blocknote;
use uuid::Uuid;
use yrs::updates::decoder::Decode;
use yrs::{ReadTxn, StateVector, Transact, TransactionMut, Update, WriteTxn, XmlFragmentRef};

use super::{DocsService, OpenDocument};
use crate::edits;
use crate::error::{ServiceError, ServiceResult};
use crate::record::{BlockState, Channel, EditPayload, PlannedText};
use crate::revisions::ChangeAuthor;
use docs_client::yjs::contains;

/// An edit merged into a session: the session's write (or save request, when the edit was in
/// the document already) whose acknowledgement means the edit is in the room.
pub(super) struct Merged {
    pub(super) seq: u64,
}

/// Why a merge did not happen; either way nothing was merged.
pub(super) enum MergeRefused {
    /// A block the edit depends on changed since it was planned, or the document lost the
    /// history it was planned on.
    Conflict(String),
    /// The live document could not take it (the session ended, the user may not write).
    Failed(ServiceError),
}

impl DocsService {
    /// Why approving this pending edit would now be a conflict: a block it depends on changed
    /// (or was deleted) since it was proposed, or the document lost the history it was planned
    /// on — the check its approval makes, read without a decision. `None` when it would apply
    /// as shown, or when its document is not open (nothing is opened to answer).
    pub async fn changed_since_proposed(&self, id: Uuid) -> ServiceResult<Option<ChangeSince>> {
        let record = self.pending(id).await?;
        if record.proposed_document.is_some() {
            // Nothing exists yet that could have changed.
            return Ok(None);
        }
        let Some(doc) = self.live(record.document_id) else {
            return Ok(None);
        };
        if let Some(proposal) = &record.proposed_comment {
            let gone = super::comments::text_gone(&doc, proposal).await?;
            return Ok(gone.map(|reason| ChangeSince { reason, now: None }));
        }
        let payload = self.payload(id).await?;
        let base = StateVector::decode_v1(&payload.base_state_vector)
            .map_err(|e| ServiceError::Internal(format!("stored state vector: {e}")))?;
        let (live_doc, fragment) = (doc.session.doc().clone(), doc.session.fragment().clone());
        let depends_on = payload.depends_on;
        let found = tokio::task::spawn_blocking(move || {
            let txn = live_doc.transact();
            history_lost(&txn, &base)
                .or_else(|| changed_block(&txn, &fragment, &depends_on, Strictness::AsSeen, &[]))
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("the check failed: {e}")))?;
        let Some(refusal) = found else {
            return Ok(None);
        };
        // What the person sees now in the block the agent's edit was made on.
        let now = match &refusal {
            Refusal::Changed {
                block_id,
                gone: false,
            } => {
                let (_, document) = doc.tracker.read_async().await?;
                document.find(block_id).map(|block| {
                    blocknote::export_markdown(
                        std::slice::from_ref(block),
                        &blocknote::ExportOptions {
                            schema: doc.schema(),
                            ..blocknote::ExportOptions::default()
                        },
                    )
                    .markdown
                    .trim_end()
                    .to_owned()
                })
            }
            _ => None,
        };
        Ok(Some(ChangeSince {
            reason: refusal_reason(&doc, &refusal),
            now,
        }))
    }
}

/// Why a pending edit's approval would now be a conflict, and what the block it was made on
/// reads now (none when it was deleted, or for other reasons).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeSince {
    pub reason: String,
    pub now: Option<String>,
}

/// "block X was changed by …/deleted since `since`", saying who when the session saw it.
pub(super) fn describe_change(doc: &OpenDocument, id: &str, gone: bool, since: &str) -> String {
    if gone {
        return format!("block {id} was deleted since {since}");
    }
    let by = match doc.tracker.last_change(id).map(|c| c.by) {
        Some(ChangeAuthor::Others) => " by someone else in the document",
        Some(ChangeAuthor::Agent) => " by another agent edit",
        None => "",
    };
    format!("block {id} was changed{by} since {since}")
}

/// What the merge transaction found.
pub(super) enum Check {
    Merged,
    /// The edit is in the document already (resumed after a restart or a reconnect).
    Already,
    Refused(Refusal),
    /// The stored edit cannot be read, or the document could not take it whole.
    Corrupt(String),
}

/// Why the document no longer takes an edit as planned.
pub(super) enum Refusal {
    HistoryLost(u64),
    Changed { block_id: String, gone: bool },
}

/// How an approval checks the blocks an edit depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Strictness {
    /// A person saw the edit: any change of those blocks since is a conflict.
    AsSeen,
    /// Nobody saw it (automatic policy): others' typing in those blocks is fine where it does
    /// not touch what the edit changes.
    Rebased,
}

impl Strictness {
    /// Only the policy's decisions are `Rebased`: no request can pick it, as the service sets
    /// the channel from where a decision came in.
    pub(super) fn of(decided_by: Option<Channel>) -> Self {
        match decided_by {
            Some(Channel::Policy) => Strictness::Rebased,
            Some(Channel::Window | Channel::Terminal) | None => Strictness::AsSeen,
        }
    }
}

/// Merges an edit into the live document in ONE transaction with its checks: nothing merged
/// when the document lost the history the edit was planned on, or when a block it depends on
/// changed since it was planned (per `strictness`; `planned_at`, the tracker's count when it
/// was planned in this session, spares reading the blocks when nothing changed since). An
/// edit already in the document is not merged again.
pub(super) async fn merge(
    doc: &OpenDocument,
    payload: &EditPayload,
    strictness: Strictness,
    planned_at: Option<u64>,
) -> Result<Merged, MergeRefused> {
    let tracker = doc.tracker.clone();
    let payload = payload.clone();
    let fragment = doc.session.fragment().clone();
    // Watched: a person's typing that crosses it on its way takes it back (`follow_touch`).
    let written = doc
        .session
        .write_watched(move |txn| {
            // Nothing happened since the plan (an automatic edit, merged right after it): the
            // blocks read as planned.
            let unchanged_since = planned_at.is_some_and(|counter| tracker.counter() == counter);
            merge_checked(txn, &fragment, &payload, strictness, unchanged_since)
        })
        .await
        .map_err(|e| MergeRefused::Failed(e.into()))?;
    match written.value() {
        Check::Merged => Ok(Merged { seq: written.seq() }),
        // In the document already (it may have come from the room, unsaved): save it.
        Check::Already => {
            let saving = doc
                .session
                .persist()
                .await
                .map_err(|e| MergeRefused::Failed(e.into()))?;
            Ok(Merged { seq: saving.seq() })
        }
        Check::Refused(refusal) => Err(MergeRefused::Conflict(refusal_reason(doc, refusal))),
        Check::Corrupt(detail) => Err(MergeRefused::Failed(ServiceError::Internal(detail.clone()))),
    }
}

/// The merge of one edit with its checks, in the caller's transaction: recognized in the
/// document (`Already`), refused when the document lost the history it was planned on or a
/// block it depends on no longer reads as planned (unless `unchanged_since` it was planned),
/// else applied — and then it must be in the document whole: yrs keeps an update whose
/// dependencies are missing aside (pending) and says `Ok`.
pub(super) fn merge_checked(
    txn: &mut TransactionMut<'_>,
    fragment: &XmlFragmentRef,
    payload: &EditPayload,
    strictness: Strictness,
    unchanged_since: bool,
) -> Check {
    let update = match Update::decode_v1(&payload.update) {
        Ok(update) => update,
        Err(e) => return Check::Corrupt(format!("stored update: {e}")),
    };
    let base = match StateVector::decode_v1(&payload.base_state_vector) {
        Ok(base) => base,
        Err(e) => return Check::Corrupt(format!("stored state vector: {e}")),
    };
    if contains(txn, &update) {
        return Check::Already;
    }
    if let Some(lost) = history_lost(txn, &base) {
        return Check::Refused(lost);
    }
    if !unchanged_since
        && let Some(changed) = changed_block(
            txn,
            fragment,
            &payload.depends_on,
            strictness,
            &payload.texts,
        )
    {
        return Check::Refused(changed);
    }
    let pending_before = txn.has_missing_updates();
    if let Err(e) = txn.apply_update(update) {
        return Check::Corrupt(format!("stored update: {e}"));
    }
    if !pending_before && txn.has_missing_updates() {
        // What it depends on is not in the document (the history check passed: the stored
        // edit is not what its base says). Kept aside, it would be saved with the document
        // without being in it.
        txn.prune_pending();
        return Check::Corrupt(
            "the document does not have what the edit depends on: it could not be merged whole"
                .into(),
        );
    }
    Check::Merged
}

/// `HistoryLost` when the document no longer has the history an edit was planned on (`base`):
/// it was restored or reloaded since.
fn history_lost<T: ReadTxn>(txn: &T, base: &StateVector) -> Option<Refusal> {
    let live = txn.state_vector();
    base.iter()
        .find(|(client, clock)| live.get(client) < **clock)
        .map(|(client, _)| Refusal::HistoryLost(client.get()))
}

/// `Changed` when a block an edit depends on no longer reads as planned (`AsSeen`), or no
/// longer allows its rewrite (`Rebased`).
fn changed_block<T: ReadTxn>(
    txn: &T,
    fragment: &yrs::XmlFragmentRef,
    depends_on: &[BlockState],
    strictness: Strictness,
    texts: &[PlannedText],
) -> Option<Refusal> {
    let ids: Vec<&str> = depends_on.iter().map(|s| s.block_id.as_str()).collect();
    let current = blocknote::read_blocks(txn, fragment, &ids);
    let holds = match strictness {
        Strictness::AsSeen => edits::unchanged(&current, depends_on),
        Strictness::Rebased => edits::compatible(&current, depends_on, texts),
    };
    holds.err().map(|(state, now)| Refusal::Changed {
        block_id: state.block_id.clone(),
        gone: now.is_none(),
    })
}

/// Why a merge was refused, for the person and the agent.
pub(super) fn refusal_reason(doc: &OpenDocument, refusal: &Refusal) -> String {
    match refusal {
        Refusal::HistoryLost(client) => format!(
            "the document no longer has the history the edit was made on (client {client}); it was restored or reloaded"
        ),
        Refusal::Changed { block_id, gone } => {
            describe_change(doc, block_id, *gone, "the edit was proposed")
        }
    }
}

#[cfg(test)]
mod tests {
    use yrs::updates::encoder::Encode;
    use yrs::{Doc, GetString, Text, Transact};

    use super::*;

    /// An update whose history the document lacks, which no base state vector says (a
    /// payload that claims none): yrs keeps it aside and says `Ok`. It is not merged, and
    /// nothing of it stays aside to be saved with the document.
    #[test]
    fn an_edit_whose_dependencies_are_missing_is_not_merged_nor_kept_aside() {
        let writer = Doc::with_client_id(7);
        let text = writer.get_or_insert_text("t");
        text.push(&mut writer.transact_mut(), "hello");
        let depends = {
            let mut txn = writer.transact_mut();
            text.push(&mut txn, " world");
            txn.encode_update_v1()
        };
        let payload = EditPayload {
            update: depends,
            base_state_vector: StateVector::default().encode_v1(),
            ..EditPayload::none()
        };
        let live = Doc::with_client_id(1);
        let fragment = live.get_or_insert_xml_fragment(docs_client::DOCUMENT_FRAGMENT);
        let mut txn = live.transact_mut();
        let check = merge_checked(&mut txn, &fragment, &payload, Strictness::AsSeen, false);
        assert!(
            matches!(&check, Check::Corrupt(detail) if detail == "the document does not have what the edit depends on: it could not be merged whole"),
        );
        assert!(!txn.has_missing_updates());
        assert_eq!(txn.state_vector(), StateVector::default());
        drop(txn);
        let text = live.get_or_insert_text("t");
        assert_eq!(text.get_string(&live.transact()), "");
    }
}
