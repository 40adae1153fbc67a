//! Forks of a live document, to plan edits on. Copying a document's whole state takes
//! milliseconds per thousand blocks, on the path of every edit; so once a document is edited,
//! the next fork is made ahead, off the agent's path, and kept up to date with every change
//! of the live document until an edit takes it. While edits come in a row, two are kept
//! ready, so that an edit finds one while the one after it is being made (otherwise one, and
//! one for a large document: a fork is a whole copy of the document in memory); an edit that comes when none is ready
//! waits for the one being made rather than copying the document a second time (on two cores
//! the two copies would also slow each other down).
//!
//! Each fork has a Yjs client id of its own, drawn when it is made (see [`fork_client_id`]).
//! The fork last handed out is lent: every change of the live document from then on is kept
//! for it. Once its edit is merged into the live document, it is given back
//! ([`Forks::give_back`]): with those changes applied it is the live document again, and it is
//! the next edit's fork, with the same client id (its next clocks), without a copy. A fork
//! whose edit is not in the live document (waiting for a person, refused, failed) is dropped:
//! its client's clocks past the live document's are never used again, so no later edit
//! depends on a change that may never come. An edit's change is told apart in a document by
//! its client and clocks ([`contains`]).
//!
//! Edits come "in a row" when less than 2 s apart; an edit takes the oldest fork ready.
//!
//! The changes kept for a lent fork are bounded (4 MiB, else the fork is dropped); once its edit is
//! in the live document and no fork was handed out since, they are applied to it under a read
//! transaction of the live document, and its state vector is checked against the live one. A fork
//! made ahead whose id is lower than one already handed out for the document is not used.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use docs_client::DOCUMENT_FRAGMENT;
use docs_client::blocknote::EditorSchema;
use docs_client::yjs::contains;
use yrs::updates::decoder::Decode;
use yrs::{Doc, OffsetKind, Options, ReadTxn, StateVector, Transact, Update};

use crate::error::{ServiceError, ServiceResult};

/// Forks kept ready per edited document while edits come in a row: an edit finds one even
/// while the one after it is still being made (such edits come faster than a document is
/// copied). Otherwise one, and for a large document one ready or lent whatever the pace:
/// each is a whole copy of it (some 200 MB for 50 000 blocks), and the fork an edit used
/// comes back as the next one once the edit is merged.
const READY_FORKS: usize = 2;
/// From this many clocks (about 15 000 blocks of text), a document is large.
const LARGE_DOCUMENT_CLOCKS: u64 = 1_000_000;
/// Edits taken within this of each other come in a row.
const IN_A_ROW: Duration = Duration::from_secs(2);
/// Most bytes of changes kept for a lent fork; past them it is not given back (a person
/// pasting a long text while an edit is planned costs one copy of the document, not memory).
const LENT_CHANGES_MAX_BYTES: usize = 4 << 20;

/// The fork last handed out, and the changes of the live document since.
struct Lent {
    client_id: u64,
    changes: Vec<Vec<u8>>,
    bytes: usize,
}

impl Lent {
    /// Keeps `change`; false when too much changed.
    fn keep(&mut self, change: &[u8]) -> bool {
        self.bytes += change.len();
        if self.bytes > LENT_CHANGES_MAX_BYTES {
            return false;
        }
        self.changes.push(change.to_vec());
        true
    }
}

/// The forks of one live document, and what its instance's editor knows (what plans on them
/// may write).
pub struct Forks {
    live: Doc,
    schema: EditorSchema,
    /// The next forks, oldest (lowest client id) first, up to date with `live` (every change
    /// of `live` is applied to them).
    ready: Arc<Mutex<VecDeque<Doc>>>,
    /// The fork last handed out, while it may be given back.
    lent: Arc<Mutex<Option<Lent>>>,
    /// Whether `live`'s changes are forwarded to `ready` and `lent` (from the first take or
    /// refill on).
    following: AtomicBool,
    /// A fork is being made ahead; `refilled` is notified when it is done.
    refilling: Mutex<bool>,
    refilled: Condvar,
    /// The highest client id handed out: a ready fork made before a fresh copy was handed
    /// out has a lower id, and is not used (ids must not fall in the order edits are
    /// planned). A fork given back has this id, and is used.
    handed_out: AtomicU64,
    /// When a fork was last handed out, and whether it came right after the one before.
    last_taken: Mutex<Option<Instant>>,
    in_a_row: AtomicBool,
    observer_key: String,
}

impl Forks {
    pub fn new(live: Doc, schema: EditorSchema) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Forks {
            live,
            schema,
            ready: Arc::new(Mutex::new(VecDeque::new())),
            lent: Arc::new(Mutex::new(None)),
            following: AtomicBool::new(false),
            refilling: Mutex::new(false),
            refilled: Condvar::new(),
            handed_out: AtomicU64::new(0),
            last_taken: Mutex::new(None),
            in_a_row: AtomicBool::new(false),
            observer_key: format!(
                "lasuite-docs-mcp/forks/{}",
                NEXT.fetch_add(1, Ordering::Relaxed)
            ),
        }
    }

    pub fn schema(&self) -> EditorSchema {
        self.schema
    }

    /// A fork of the live document as it is now, and `at()` taken at that same state (no
    /// change of the live document can come in between). The ready fork when there is one
    /// (waiting for the one being made, if it is), else a fresh copy. Blocking: call it off
    /// the runtime's workers, and not inside a transaction of the live document.
    pub fn take<T>(&self, at: impl FnOnce() -> T) -> ServiceResult<(Doc, T)> {
        let now = Instant::now();
        let previous = self.last_taken.lock().expect("last taken").replace(now);
        self.in_a_row.store(
            previous.is_some_and(|p| now.duration_since(p) < IN_A_ROW),
            Ordering::Relaxed,
        );
        self.follow();
        if self.ready.lock().expect("ready fork").is_empty() {
            self.await_refill();
        }
        let mut stale = Vec::new();
        let (state, client_id, at) = {
            let txn = self.live.transact();
            let mut ready = self.ready.lock().expect("ready fork");
            while let Some(fork) = ready.pop_front() {
                if fork.client_id().get() >= self.handed_out.load(Ordering::Acquire)
                    && fork.transact().state_vector() == txn.state_vector()
                {
                    self.hand_out(fork.client_id().get());
                    return Ok((fork, at()));
                }
                stale.push(fork);
            }
            let client_id = fork_client_id();
            tracing::debug!(stale = stale.len(), "no fork ready: the document is copied");
            self.hand_out(client_id);
            (
                txn.encode_state_as_update_v1(&StateVector::default()),
                client_id,
                at(),
            )
        };
        drop(stale);
        Ok((fork_of(&state, client_id)?, at))
    }

    /// Records the fork of `client_id` as handed out, and lends it. Call it inside a read
    /// transaction of the live document: its changes are kept from that state on.
    fn hand_out(&self, client_id: u64) {
        self.handed_out.fetch_max(client_id, Ordering::AcqRel);
        *self.lent.lock().expect("lent fork") = Some(Lent {
            client_id,
            changes: Vec::new(),
            bytes: 0,
        });
    }

    /// Makes the next forks, unless enough are ready or some are being made. CPU work: run
    /// it off the runtime, and off the path of the edit that took the last one. For a large
    /// document, a fork lent counts as ready: the edit that took it gives it back once merged
    /// (the refill after an edit comes when the next edit may have taken the fork given back:
    /// a copy made then stayed, a third copy of the document, for as long as it was open).
    pub fn refill(&self) -> ServiceResult<()> {
        self.follow();
        loop {
            {
                let mut refilling = self.refilling.lock().expect("refilling");
                let large = self.large();
                let wanted = if self.in_a_row.load(Ordering::Relaxed) && !large {
                    READY_FORKS
                } else {
                    1
                };
                let coming = usize::from(large && self.lent.lock().expect("lent fork").is_some());
                if *refilling || self.ready.lock().expect("ready fork").len() + coming >= wanted {
                    return Ok(());
                }
                *refilling = true;
            }
            // Done, failed or panicked, the edits waiting for it go on.
            let _done = RefillDone(self);
            self.make_ready()?;
        }
    }

    /// Whether the live document is large ([`LARGE_DOCUMENT_CLOCKS`]).
    fn large(&self) -> bool {
        let clocks: u64 = self
            .live
            .transact()
            .state_vector()
            .iter()
            .map(|(_, clock)| u64::from(*clock))
            .sum();
        clocks >= LARGE_DOCUMENT_CLOCKS
    }

    /// Takes back `fork`, on which the edit `update` was planned, as the next fork when that
    /// edit is in the live document and `fork` is still lent (no fork was handed out since:
    /// the next edit's id must be the highest handed out). With the live document's changes
    /// since it was taken applied, it is the live document: the fork was the live document
    /// plus the edit, and the live document holds the edit. Otherwise it is dropped. Returns
    /// whether it was taken back. CPU work in proportion to what changed since it was taken:
    /// run it off the runtime, and not inside a transaction of the live document.
    pub fn give_back(&self, fork: Doc, update: &[u8]) -> bool {
        let Ok(update) = Update::decode_v1(update) else {
            return false;
        };
        let id = fork.client_id().get();
        // Under a read transaction of the live document: no change comes in between.
        let txn = self.live.transact();
        let Some(lent) = self
            .lent
            .lock()
            .expect("lent fork")
            .take_if(|lent| lent.client_id == id)
        else {
            tracing::debug!(
                fork = id,
                "fork not given back: another was handed out since"
            );
            return false;
        };
        if !contains(&txn, &update) {
            tracing::debug!(
                fork = id,
                "fork not given back: its edit is not in the document"
            );
            return false;
        }
        for change in &lent.changes {
            if apply(&fork, change).is_err() {
                tracing::debug!(fork = id, "fork not given back: a change did not apply");
                return false;
            }
        }
        if fork.transact().state_vector() != txn.state_vector() {
            tracing::debug!(
                fork = id,
                "fork not given back: it is not the live document"
            );
            return false;
        }
        let mut ready = self.ready.lock().expect("ready fork");
        ready.push_front(fork);
        tracing::debug!(fork = id, ready = ready.len(), "fork given back");
        true
    }

    /// Waits while a fork is being made (CPU work that always ends).
    fn await_refill(&self) {
        let refilling = self.refilling.lock().expect("refilling");
        drop(
            self.refilled
                .wait_while(refilling, |refilling| *refilling)
                .expect("refilling"),
        );
    }

    fn make_ready(&self) -> ServiceResult<()> {
        let state = self
            .live
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        let fork = fork_of(&state, fork_client_id())?;
        // Installed under a read transaction of the live document: what changed since the
        // copy is applied first, and no change can come in between.
        let txn = self.live.transact();
        let copied = fork.transact().state_vector();
        if copied != txn.state_vector() {
            apply(&fork, &txn.encode_state_as_update_v1(&copied))?;
        }
        let mut ready = self.ready.lock().expect("ready fork");
        ready.push_back(fork);
        tracing::debug!(ready = ready.len(), "fork made ahead");
        Ok(())
    }

    /// Forwards every change of the live document to the ready forks from now on (a change
    /// one cannot take drops it: the next edit copies the document instead), and keeps it
    /// for the lent fork.
    fn follow(&self) {
        if self.following.swap(true, Ordering::AcqRel) {
            return;
        }
        // Held weakly: once the forks are dropped, the subscription does nothing, even where
        // it could not be ended (see `drop`), and holds no fork.
        let (ready, lent) = (Arc::downgrade(&self.ready), Arc::downgrade(&self.lent));
        // Subscribed in a transaction of its own, waited for: `Doc::observe_update_v1` fails
        // whenever another transaction is open.
        self.live
            .transact_mut()
            .observe_update_v1(self.observer_key.clone(), move |_, event| {
                let (Some(ready), Some(lent)) = (ready.upgrade(), lent.upgrade()) else {
                    return;
                };
                ready
                    .lock()
                    .expect("ready fork")
                    .retain(|fork| apply(fork, &event.update).is_ok());
                let mut lent = lent.lock().expect("lent fork");
                if let Some(kept) = lent.as_mut()
                    && !kept.keep(&event.update)
                {
                    // Too much changed: it will not be given back.
                    *lent = None;
                }
            });
    }
}

/// Ends a refill when dropped: waiting edits are let go.
struct RefillDone<'a>(&'a Forks);

impl Drop for RefillDone<'_> {
    fn drop(&mut self) {
        // Not `expect`: this may run while a panic unwinds.
        if let Ok(mut refilling) = self.0.refilling.lock() {
            *refilling = false;
        }
        self.0.refilled.notify_all();
    }
}

impl Drop for Forks {
    fn drop(&mut self) {
        if *self.following.get_mut() {
            // Not waited for: the forks may be dropped under a lock, while a long read of the
            // document is under way. Where another transaction is open, the subscription
            // stays, doing nothing, until the document goes.
            let _ = self.live.unobserve_update_v1(self.observer_key.clone());
        }
    }
}

/// A new fork, with the client id `client_id`, holding `state` (a whole document's update).
fn fork_of(state: &[u8], client_id: u64) -> ServiceResult<Doc> {
    let fork = Doc::with_options(Options {
        client_id: yrs::block::ClientID::new(client_id),
        offset_kind: OffsetKind::Utf16,
        ..Options::default()
    });
    fork.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    apply(&fork, state)?;
    Ok(fork)
}

fn apply(fork: &Doc, update: &[u8]) -> ServiceResult<()> {
    let update = Update::decode_v1(update)
        .map_err(|e| ServiceError::Internal(format!("document state: {e}")))?;
    fork.transact_mut()
        .apply_update(update)
        .map_err(|e| ServiceError::Internal(format!("document state: {e}")))
}

/// The Yjs client id of a new fork: above 2^32 (browsers draw theirs below it, so no clash)
/// and increasing with time (microseconds). Yjs orders concurrent inserts at one place by
/// client id, smaller first; increasing ids keep edits queued at the same place (two
/// appends at the end, say) in the order they were asked for, whatever order they are
/// approved in. Each fork's id is unique; a fork given back keeps its id, and its next edit
/// has the next clocks of that client.
fn fork_client_id() -> u64 {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or_default();
    let candidate = (1 << 32) + micros;
    let previous = LAST
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
            Some(candidate.max(last + 1))
        })
        .unwrap_or_default();
    candidate.max(previous + 1)
}

#[cfg(test)]
mod tests;
