//! One live session per open document, shared by every caller, closed after an idle TTL.
//!
//! Each document has a slot (an async lock around its session) while a session is open or
//! being opened; the map holds nothing else. A failed open frees its slot, so asking for
//! documents that do not exist leaves the map as it was. Whoever takes a session out of its
//! slot (close, reaper) retires the slot first, under its lock: a caller waiting on that slot
//! then starts over with a fresh one instead of opening a session nobody would find.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::join_all;
use uuid::Uuid;

use crate::error::Result;
use crate::rest::DocsClient;
use crate::session::{DocumentSession, SessionOptions, SessionSnapshot};

/// How long an unused session stays open by default.
pub const DEFAULT_IDLE_TTL: Duration = Duration::from_secs(5 * 60);

type Slot = Arc<tokio::sync::Mutex<Option<Arc<DocumentSession>>>>;

/// Opens documents on demand and keeps their sessions while they are used.
pub struct SessionRegistry {
    client: DocsClient,
    options: SessionOptions,
    idle_ttl: Duration,
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
            slots: Mutex::new(HashMap::new()),
        }
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
            return match DocumentSession::open(self.client.clone(), id, self.options.clone()).await
            {
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
        let ids = expired.iter().map(|(id, _)| *id).collect();
        join_all(expired.into_iter().map(|(id, session)| async move {
            if let Err(e) = session.close().await
                && !session.is_failed()
            {
                tracing::warn!(document = %id, error = %e, "closing an idle session");
            }
        }))
        .await;
        ids
    }

    /// Closes every session, together.
    pub async fn close_all(&self) {
        let ids: Vec<Uuid> = self.slots().into_iter().map(|(id, _)| id).collect();
        join_all(ids.into_iter().map(|id| async move {
            if let Err(e) = self.close(id).await {
                tracing::warn!(document = %id, error = %e, "closing a session");
            }
        }))
        .await;
    }

    /// Runs [`SessionRegistry::close_idle`] every `period` until the registry is dropped.
    pub fn spawn_reaper(self: &Arc<Self>, period: Duration) -> tokio::task::JoinHandle<()> {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.tick().await;
            loop {
                tick.tick().await;
                let Some(registry) = weak.upgrade() else {
                    break;
                };
                registry.close_idle().await;
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
