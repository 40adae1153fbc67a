//! One live session per open document, shared by every caller, closed after an idle TTL, at
//! most [`DEFAULT_MAX_OPEN`] of them (see [`SessionRegistry::with_max_open`]), and, besides the
//! one used last, holding documents that weigh at most [`DEFAULT_MEMORY_BUDGET`] together (see
//! [`SessionRegistry::with_memory_budget`]).
//!
//! Each document has a slot (an async lock around its session) while a session is open or
//! being opened; the map holds nothing else. A failed open frees its slot, so asking for
//! documents that do not exist leaves the map as it was. Whoever takes a session out of its
//! slot (close, reaper) retires the slot first, under its lock: a caller waiting on that slot
//! then starts over with a fresh one instead of opening a session nobody would find.
//!
//! Idleness is decided under the slot's lock; opening one more session than the bound, or one
//! while the others weigh more than the budget, first closes the least recently used, to make
//! room. `snapshot` lists the sessions for a UI.
//!
//! The reaper never closes a session in use: a session is idle when unused for the TTL *and* with
//! nothing left to save, decided under the slot's lock, where an open marks the session used; the
//! slot is retired before the session is closed, and idle sessions are closed together, not one by
//! one. Closing for room is decided the same way, and also spares a session some caller holds;
//! while every session is held or has writes to save, the bound is exceeded, and the reaper brings
//! it back once they are not. `close_all` returns the documents whose close left writes unsaved,
//! and why.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::{join, join_all};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::rest::DocsClient;
use crate::session::{DocumentSession, SessionOptions, SessionSnapshot};

/// How long an unused session stays open by default.
pub const DEFAULT_IDLE_TTL: Duration = Duration::from_secs(5 * 60);

/// How many sessions stay open by default. Each holds its document (a few MB for a thousand
/// blocks) and a connection; an agent that reads through a folder of documents would
/// otherwise keep every one of them for the idle TTL.
pub const DEFAULT_MAX_OPEN: usize = 32;

/// What the documents of open sessions may weigh together by default (estimated:
/// [`DocumentSession::weight`]), besides the one used last: some three documents of a thousand
/// blocks, a dozen of two hundred. A tray app runs all day; an agent that read through a
/// folder would otherwise keep every document it read for the idle TTL, and opening one again
/// costs two calls to Docs.
pub const DEFAULT_MEMORY_BUDGET: u64 = 16 << 20;

type Slot = Arc<tokio::sync::Mutex<Option<Arc<DocumentSession>>>>;

/// Opens documents on demand and keeps their sessions while they are used.
pub struct SessionRegistry {
    client: DocsClient,
    options: SessionOptions,
    idle_ttl: Duration,
    max_open: usize,
    memory_budget: u64,
    slots: Mutex<HashMap<Uuid, Slot>>,
}

impl SessionRegistry {
    /// `idle_ttl`: a session unused for this long is closed by [`SessionRegistry::close_idle`]
    /// (usually [`DEFAULT_IDLE_TTL`]).
    pub fn new(client: DocsClient, options: SessionOptions, idle_ttl: Duration) -> Self {
        SessionRegistry {
            client,
            options,
            idle_ttl,
            max_open: DEFAULT_MAX_OPEN,
            memory_budget: DEFAULT_MEMORY_BUDGET,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// At most `max_open` sessions (at least one): opening one more first closes the least
    /// recently used of those nobody holds that have nothing left to save. Sessions in use
    /// or with unsaved writes are never closed for room, so the bound is exceeded while
    /// all of them are.
    pub fn with_max_open(mut self, max_open: usize) -> Self {
        self.max_open = max_open.max(1);
        self
    }

    /// Besides the session used last (the one being opened), open sessions hold documents
    /// weighing at most `bytes` together ([`DocumentSession::weight`]): opening one more first
    /// closes the least recently used of those it may close (as [`Self::with_max_open`]), until
    /// the others fit. One document weighing more than the budget stays open while it is the
    /// one used last.
    pub fn with_memory_budget(mut self, bytes: u64) -> Self {
        self.memory_budget = bytes;
        self
    }

    pub fn client(&self) -> &DocsClient {
        &self.client
    }

    /// The live session of a document, opened if needed (and marked as used). Concurrent
    /// callers share one opening; a session that ended for good is replaced by a fresh one.
    pub async fn open(&self, id: Uuid) -> Result<Arc<DocumentSession>> {
        loop {
            let slot = self.lock_slots().entry(id).or_default().clone();
            let mut guard = slot.lock().await;
            if !self.holds(id, &slot) {
                // Retired while we waited (closed, reaped or a failed open): start over.
                continue;
            }
            if let Some(session) = guard.as_ref()
                && !session.is_failed()
            {
                session.touch();
                return Ok(session.clone());
            }
            let (opened, _) = join(
                DocumentSession::open(self.client.clone(), id, self.options.clone()),
                self.close_least_used(self.max_open - 1, Some(id)),
            )
            .await;
            return match opened {
                Ok(session) => {
                    let session = Arc::new(session);
                    *guard = Some(session.clone());
                    Ok(session)
                }
                Err(e) => {
                    *guard = None;
                    self.retire(id, &slot);
                    Err(e)
                }
            };
        }
    }

    /// The session of a document if one is open.
    pub fn get(&self, id: Uuid) -> Option<Arc<DocumentSession>> {
        let slot = self.lock_slots().get(&id)?.clone();
        let guard = slot.try_lock().ok()?;
        guard.clone()
    }

    /// How many documents have a slot: open sessions and openings under way.
    pub fn len(&self) -> usize {
        self.lock_slots().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What a UI shows: one line per open session, ordered by document id.
    pub fn snapshot(&self) -> Vec<SessionSnapshot> {
        let mut all: Vec<SessionSnapshot> = self
            .slots()
            .iter()
            .filter_map(|(_, slot)| slot.try_lock().ok().and_then(|g| g.clone()))
            .map(|s| s.snapshot())
            .collect();
        all.sort_by_key(|s| s.document_id);
        all
    }

    /// Closes one document's session (saving what is pending).
    pub async fn close(&self, id: Uuid) -> Result<()> {
        let Some(slot) = self.lock_slots().get(&id).cloned() else {
            return Ok(());
        };
        let session = {
            let mut guard = slot.lock().await;
            self.retire(id, &slot);
            guard.take()
        };
        match session {
            Some(session) => session.close().await,
            None => Ok(()),
        }
    }

    /// Closes the sessions unused for longer than the TTL with nothing left to save, and
    /// those that failed; returns their documents. Idleness is decided under each slot's
    /// lock, so a caller that just opened a session keeps it; sessions are closed together.
    /// Then, when more sessions are open than the bound (they were in use as others opened),
    /// the least recently used are closed down to it.
    pub async fn close_idle(&self) -> Vec<Uuid> {
        let mut expired = vec![];
        for (id, slot) in self.slots() {
            // A slot locked by someone is in use.
            let Ok(mut guard) = slot.try_lock() else {
                continue;
            };
            if guard.as_ref().is_some_and(|s| s.is_idle(self.idle_ttl)) {
                self.retire(id, &slot);
                expired.extend(guard.take().map(|session| (id, session)));
            }
        }
        let mut ids = close_together(expired, "idle").await;
        ids.extend(self.close_least_used(self.max_open, None).await);
        ids
    }

    /// Closes, together, the least recently used sessions it may close (nobody but the
    /// registry holds them, nothing left to save) until at most `keep` are open besides
    /// `opening`, the one being opened, and those besides it (or, with none opening, besides
    /// the one used last) weigh at most the memory budget; returns their documents.
    async fn close_least_used(&self, keep: usize, opening: Option<Uuid>) -> Vec<Uuid> {
        let mut open = vec![];
        for (id, slot) in self.slots() {
            if Some(id) == opening {
                continue;
            }
            // A slot locked by someone is in use (or being opened): it counts, stays open.
            let Ok(guard) = slot.try_lock() else {
                open.push(None);
                continue;
            };
            open.push(
                guard
                    .as_ref()
                    .map(|s| (s.idle_for(), s.weight(), id, slot.clone())),
            );
        }
        let mut excess = open.len().saturating_sub(keep);
        let mut candidates: Vec<(Duration, u64, Uuid, Slot)> = open.into_iter().flatten().collect();
        candidates.sort_by_key(|(idle_for, ..)| std::cmp::Reverse(*idle_for));
        // The sessions the budget bounds: the one used last, when none is being opened, is not.
        let weighed = match opening {
            Some(_) => candidates.len(),
            None => candidates.len().saturating_sub(1),
        };
        let mut overweight = candidates[..weighed]
            .iter()
            .map(|(_, weight, ..)| weight)
            .sum::<u64>()
            .saturating_sub(self.memory_budget);
        let mut closing = vec![];
        for (at, (_, weight, id, slot)) in candidates.into_iter().enumerate() {
            let wanted = excess > 0 || (at < weighed && overweight > 0);
            if !wanted {
                continue;
            }
            // Decided under the slot's lock, as the reaper does: a caller that took the
            // session meanwhile keeps it.
            let Ok(mut guard) = slot.try_lock() else {
                continue;
            };
            let closable = guard
                .as_ref()
                .is_some_and(|s| Arc::strong_count(s) == 1 && s.is_idle(Duration::ZERO));
            if closable {
                self.retire(id, &slot);
                closing.extend(guard.take().map(|session| (id, session)));
                excess = excess.saturating_sub(1);
                overweight = overweight.saturating_sub(weight);
            }
        }
        close_together(closing, "least recently used, for room").await
    }

    /// Closes every session, together (each within the write timeout); returns the
    /// documents whose close left writes unsaved, and why.
    pub async fn close_all(&self) -> Vec<(Uuid, Error)> {
        let ids: Vec<Uuid> = self.slots().into_iter().map(|(id, _)| id).collect();
        join_all(ids.into_iter().map(|id| async move {
            let closed = self.close(id).await;
            if let Err(e) = &closed {
                tracing::warn!(document = %id, error = %e, "closing a session");
            }
            closed.err().map(|e| (id, e))
        }))
        .await
        .into_iter()
        .flatten()
        .collect()
    }

    /// Runs [`SessionRegistry::close_idle`] every `period` until the registry is dropped,
    /// telling `on_closed` the documents whose sessions it closed (what else holds on to a
    /// document can let it go then).
    pub fn spawn_reaper(
        self: &Arc<Self>,
        period: Duration,
        on_closed: impl Fn(&[Uuid]) + Send + 'static,
    ) -> tokio::task::JoinHandle<()> {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.tick().await;
            loop {
                tick.tick().await;
                let Some(registry) = weak.upgrade() else {
                    break;
                };
                let closed = registry.close_idle().await;
                if !closed.is_empty() {
                    on_closed(&closed);
                }
            }
        })
    }

    fn lock_slots(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Slot>> {
        self.slots.lock().expect("registry lock")
    }

    fn slots(&self) -> Vec<(Uuid, Slot)> {
        self.lock_slots()
            .iter()
            .map(|(id, slot)| (*id, slot.clone()))
            .collect()
    }

    /// Whether `slot` is still the document's slot.
    fn holds(&self, id: Uuid, slot: &Slot) -> bool {
        self.lock_slots()
            .get(&id)
            .is_some_and(|current| Arc::ptr_eq(current, slot))
    }

    /// Removes `slot` from the map, unless another slot took its place already.
    fn retire(&self, id: Uuid, slot: &Slot) {
        let mut slots = self.lock_slots();
        if slots
            .get(&id)
            .is_some_and(|current| Arc::ptr_eq(current, slot))
        {
            slots.remove(&id);
        }
    }
}

/// Closes sessions taken out of their slots, together; returns their documents. `why` names
/// the reason in the log.
async fn close_together(sessions: Vec<(Uuid, Arc<DocumentSession>)>, why: &str) -> Vec<Uuid> {
    let ids = sessions.iter().map(|(id, _)| *id).collect();
    join_all(sessions.into_iter().map(|(id, session)| async move {
        tracing::debug!(document = %id, why, "closing a session");
        if let Err(e) = session.close().await
            && !session.is_failed()
        {
            tracing::warn!(document = %id, why, error = %e, "closing a session");
        }
    }))
    .await;
    ids
}
