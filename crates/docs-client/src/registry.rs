//! One live session per open document, shared by every caller, closed after an idle TTL.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

    /// The live session of a document, opened if needed. Concurrent callers share one
    /// opening; a session that ended for good is replaced by a fresh one.
    pub async fn open(&self, id: Uuid) -> Result<Arc<DocumentSession>> {
        let slot = self
            .slots
            .lock()
            .expect("registry lock")
            .entry(id)
            .or_default()
            .clone();
        let mut guard = slot.lock().await;
        if let Some(session) = guard.as_ref()
            && !session.is_failed()
        {
            return Ok(session.clone());
        }
        let session =
            Arc::new(DocumentSession::open(self.client.clone(), id, self.options.clone()).await?);
        *guard = Some(session.clone());
        Ok(session)
    }

    /// The session of a document if one is open.
    pub fn get(&self, id: Uuid) -> Option<Arc<DocumentSession>> {
        let slot = self.slots.lock().expect("registry lock").get(&id)?.clone();
        let guard = slot.try_lock().ok()?;
        guard.clone()
    }

    fn sessions(&self) -> Vec<Arc<DocumentSession>> {
        let slots: Vec<Slot> = self
            .slots
            .lock()
            .expect("registry lock")
            .values()
            .cloned()
            .collect();
        slots
            .iter()
            .filter_map(|slot| slot.try_lock().ok().and_then(|g| g.clone()))
            .collect()
    }

    /// What a UI shows: one line per open session, ordered by document id.
    pub fn snapshot(&self) -> Vec<SessionSnapshot> {
        let mut all: Vec<SessionSnapshot> = self.sessions().iter().map(|s| s.snapshot()).collect();
        all.sort_by_key(|s| s.document_id);
        all
    }

    /// Closes one document's session (saving what is pending).
    pub async fn close(&self, id: Uuid) -> Result<()> {
        let slot = self.slots.lock().expect("registry lock").remove(&id);
        let Some(slot) = slot else { return Ok(()) };
        let session = slot.lock().await.take();
        match session {
            Some(session) => session.close().await,
            None => Ok(()),
        }
    }

    /// Closes sessions idle for longer than the TTL, and forgets failed ones; returns the
    /// documents closed.
    pub async fn close_idle(&self) -> Vec<Uuid> {
        let expired: Vec<Uuid> = self
            .sessions()
            .iter()
            .filter(|s| s.is_failed() || s.idle_for() >= self.idle_ttl)
            .map(|s| s.id())
            .collect();
        for id in &expired {
            if let Err(e) = self.close(*id).await {
                tracing::warn!(document = %id, error = %e, "closing an idle session");
            }
        }
        expired
    }

    /// Closes every session.
    pub async fn close_all(&self) {
        let ids: Vec<Uuid> = self
            .slots
            .lock()
            .expect("registry lock")
            .keys()
            .copied()
            .collect();
        for id in ids {
            if let Err(e) = self.close(id).await {
                tracing::warn!(document = %id, error = %e, "closing a session");
            }
        }
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
}
