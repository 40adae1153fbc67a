//! The Docs instance the service works with: its client (reconnected when the account
//! changes, `account`), and the documents opened live (one shared session each, with its
//! revision tracker).
//!
//! A live document's revision tracker is attached on the blocking pool with no lock held (two opens
//! racing keep the first tracker; each tracker subscribes under its own key). It is attached as
//! soon as the session's stored content is loaded (`SessionOptions::on_loaded`, a `LoadedHook`), so
//! its walk of the document's block ids runs while the session joins the room; the open that gets
//! the session takes that tracker (`EarlyTrackers`, checked to follow this session's document).
//! Known documents are written at most once a minute per document, off the reads' path.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use docs_client::blocknote::EditorSchema;
use docs_client::{
    ClientConfig, DocsClient, Document, DocumentRef, DocumentSession, InstanceUrl, LoadedHook,
    Presence, Secret, SessionRegistry, SessionSnapshot, User,
};
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::DocsService;
use crate::credentials::SessionCredentials;
use crate::edits::Forks;
use crate::error::{ServiceError, ServiceResult};
use crate::events::ServiceEvent;
use crate::record::{AgentInfo, EditCounts, KnownDocument, now_ms};
use crate::revisions::RevisionTracker;

/// A document's entry in the known documents is refreshed at most this often by reads.
const REMEMBER_EVERY: Duration = Duration::from_secs(60);

/// At most one `DocumentChanged` per document this often, while others type in it.
const CHANGES_TOLD_EVERY: Duration = Duration::from_millis(500);

/// Trackers attaching to documents just loaded, by document (see [`DocsService::open`]).
pub(super) type EarlyTrackers = Arc<Mutex<HashMap<Uuid, JoinHandle<RevisionTracker>>>>;

/// A document opened for a caller: its live session and its change tracker.
#[derive(Clone)]
pub struct OpenDocument {
    pub id: Uuid,
    pub session: Arc<DocumentSession>,
    pub tracker: Arc<RevisionTracker>,
    pub forks: Arc<Forks>,
}

impl OpenDocument {
    /// What the instance's editor knows (from its release): what may be written to it.
    pub fn schema(&self) -> EditorSchema {
        self.forks.schema()
    }
}

pub(super) struct Instance {
    pub(super) client: DocsClient,
    pub(super) registry: Arc<SessionRegistry>,
    reaper: tokio::task::JoinHandle<()>,
    /// Who the session belongs to, once `users/me` accepted it.
    pub(super) account: OnceLock<User>,
    /// Whether the session is in the OS keyring (else it lives in memory only, or is none).
    pub(super) session_persisted: bool,
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.reaper.abort();
    }
}

/// A session with the tracker and forks attached to it (a replaced session gets new ones).
pub(super) type TrackedSession = (
    std::sync::Weak<DocumentSession>,
    Arc<RevisionTracker>,
    Arc<Forks>,
);

impl DocsService {
    /// Points the service at an instance (closing the sessions of the previous one).
    pub fn connect_instance(
        &self,
        url: InstanceUrl,
        session_cookie: Option<Secret>,
        csrf_token: Option<Secret>,
    ) -> ServiceResult<()> {
        let session = session_cookie.map(|session_cookie| SessionCredentials {
            session_cookie,
            csrf_token,
        });
        self.connect(url, session, None, false)
    }

    pub(super) fn connect(
        &self,
        url: InstanceUrl,
        session: Option<SessionCredentials>,
        account: Option<User>,
        session_persisted: bool,
    ) -> ServiceResult<()> {
        let client = self.client_for(url, session)?;
        let options = docs_client::SessionOptions {
            presence: Presence::new(&self.config.fallback_agent_name),
            write_timeout: self.config.approval_wait.max(Duration::from_secs(20)),
            save_interval: self.config.save_interval,
            on_loaded: Some(self.attach_early()),
            ..docs_client::SessionOptions::default()
        };
        let registry = Arc::new(
            SessionRegistry::new(client.clone(), options, self.config.idle_ttl)
                .with_max_open(self.config.max_open_sessions)
                .with_memory_budget(self.config.memory_budget),
        );
        let me = self.me.clone();
        let reaper = registry.spawn_reaper(Duration::from_secs(30), move |_| {
            if let Some(service) = me.upgrade() {
                service.sessions_closed();
            }
        });
        let previous = self
            .instance
            .write()
            .expect("instance lock")
            .replace(Arc::new(Instance {
                client,
                registry,
                reaper,
                account: account.map(OnceLock::from).unwrap_or_default(),
                session_persisted,
            }));
        self.trackers.lock().expect("trackers lock").clear();
        self.early_trackers.lock().expect("early trackers").clear();
        if let Some(previous) = previous {
            tokio::spawn(async move { previous.registry.close_all().await });
        }
        self.emit(ServiceEvent::SessionsChanged);
        // Edits a previous run (or the previous instance) left merged but unconfirmed, or
        // applied but not saved yet.
        self.resume_applying();
        self.resume_saving();
        Ok(())
    }

    pub(super) fn client_for(
        &self,
        url: InstanceUrl,
        session: Option<SessionCredentials>,
    ) -> ServiceResult<DocsClient> {
        let mut config = ClientConfig::new(url);
        if let Some(session) = session {
            config = config.with_session(session.session_cookie, session.csrf_token);
        }
        config.requests_per_minute = self.config.requests_per_minute;
        Ok(DocsClient::new(config)?)
    }

    pub(super) fn instance(&self) -> ServiceResult<Arc<Instance>> {
        self.instance
            .read()
            .expect("instance lock")
            .clone()
            .ok_or(ServiceError::NoInstance)
    }

    pub fn client(&self) -> ServiceResult<DocsClient> {
        Ok(self.instance()?.client.clone())
    }

    /// Resolves a document id or URL to an id of the configured instance.
    pub fn resolve(&self, document: &str) -> ServiceResult<Uuid> {
        let reference = DocumentRef::parse(document)?;
        if let Some(instance) = &reference.instance {
            let configured = self.instance()?.client.instance().clone();
            if instance != &configured {
                return Err(ServiceError::invalid(
                    format!(
                        "{document} is on {instance}, but this service is connected to {configured}"
                    ),
                    "Use a document of the configured instance, or change the instance in the app.",
                ));
            }
        }
        Ok(reference.id)
    }

    /// Opens (or reuses) the live session of a document; the agent, when given, becomes the
    /// name the document's collaborators see.
    pub async fn open(
        &self,
        document: &str,
        agent: Option<&AgentInfo>,
    ) -> ServiceResult<OpenDocument> {
        let id = self.resolve(document)?;
        let instance = self.instance()?;
        let session = match instance.registry.open(id).await {
            Ok(session) => session,
            Err(e) => {
                self.early_trackers
                    .lock()
                    .expect("early trackers")
                    .remove(&id);
                return Err(e.into());
            }
        };
        if let Some(agent) = agent {
            session.set_presence(&Presence::new(&agent.name));
        }
        let tracked = {
            let mut trackers = self.trackers.lock().expect("trackers lock");
            // Trackers of closed sessions hold their document: let them go.
            trackers.retain(|_, (session, _, _)| session.strong_count() > 0);
            attached(&trackers, id, &session)
        };
        // (the configuration is cached: the session's opening read it)
        let schema = instance.client.editor_schema().await;
        let (tracker, forks, new_session) = match tracked {
            Some((tracker, forks)) => (tracker, forks, false),
            None => {
                let tracker = self.tracker_for(&session).await?;
                let mut trackers = self.trackers.lock().expect("trackers lock");
                match attached(&trackers, id, &session) {
                    // Another open of the same session attached first: its tracker is kept,
                    // this one dropped.
                    Some((tracker, forks)) => (tracker, forks, false),
                    None => {
                        let tracker = Arc::new(tracker);
                        self.tell_changes(id, &tracker);
                        let forks = Arc::new(Forks::new(session.doc().clone(), schema));
                        trackers.insert(
                            id,
                            (Arc::downgrade(&session), tracker.clone(), forks.clone()),
                        );
                        (tracker, forks, true)
                    }
                }
            }
        };
        let new_user = agent.is_some_and(|agent| self.users.used(id, &agent.name, new_session));
        if new_session || new_user {
            self.emit(ServiceEvent::SessionsChanged);
        }
        self.remember(id, session.metadata().title.clone());
        Ok(OpenDocument {
            id,
            session,
            tracker,
            forks,
        })
    }

    /// Tells the UIs when others change a document (a person typing), at most twice a second,
    /// as long as its tracker lives: a pending edit's card then says at once whether its
    /// approval would be a conflict, and what the block reads now.
    fn tell_changes(&self, id: Uuid, tracker: &Arc<RevisionTracker>) {
        let mut changes = tracker.others_changes();
        let events = self.events.clone();
        let weak = Arc::downgrade(tracker);
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                let Some(tracker) = weak.upgrade() else {
                    break;
                };
                let _ = events.send(ServiceEvent::DocumentChanged {
                    document_id: id,
                    revision: tracker.revision(),
                });
                drop(tracker);
                tokio::time::sleep(CHANGES_TOLD_EVERY).await;
            }
        });
    }

    /// What a session calls once its document is loaded: a tracker attaches to it (reading
    /// it, on the blocking pool) while the session joins the room, for the open that gets
    /// the session to take.
    fn attach_early(&self) -> LoadedHook {
        let (early, recent) = (self.early_trackers.clone(), self.recent_reads.clone());
        LoadedHook::new(move |id, doc| {
            let (doc, recent) = (doc.clone(), recent.clone());
            let attaching = tokio::task::spawn_blocking(move || RevisionTracker::of(doc, recent));
            early.lock().expect("early trackers").insert(id, attaching);
        })
    }

    /// A new tracker of `session`'s document: the one attached as it loaded, else one
    /// attached now. Attaching reads the whole document (a 50 000-block one for tens of ms):
    /// on the blocking pool, and with no lock held, so that other opens and calls go on.
    async fn tracker_for(&self, session: &Arc<DocumentSession>) -> ServiceResult<RevisionTracker> {
        let failed = |e: tokio::task::JoinError| {
            ServiceError::Internal(format!("tracking the document: {e}"))
        };
        let early = self
            .early_trackers
            .lock()
            .expect("early trackers")
            .remove(&session.id());
        if let Some(attaching) = early {
            let tracker = attaching.await.map_err(failed)?;
            if tracker.tracks(session.doc()) {
                return Ok(tracker);
            }
        }
        let (attaching, recent) = (session.clone(), self.recent_reads.clone());
        tokio::task::spawn_blocking(move || RevisionTracker::attach(&attaching, recent))
            .await
            .map_err(failed)
    }

    /// The live session of a document when one is open now: nothing is opened (no REST call,
    /// no connection), so asking costs nothing.
    pub(super) fn live(&self, id: Uuid) -> Option<OpenDocument> {
        let trackers = self.trackers.lock().expect("trackers lock");
        let (weak, tracker, forks) = trackers.get(&id)?;
        Some(OpenDocument {
            id,
            session: weak.upgrade()?,
            tracker: tracker.clone(),
            forks: forks.clone(),
        })
    }

    pub fn sessions(&self) -> Vec<SessionSnapshot> {
        self.instance()
            .map(|i| i.registry.snapshot())
            .unwrap_or_default()
    }

    /// The agents that used each open document since its session opened, most recent first.
    pub fn session_agents(&self) -> HashMap<Uuid, Vec<String>> {
        let trackers = self.trackers.lock().expect("trackers lock");
        self.users.of_open(|id| {
            trackers
                .get(&id)
                .is_some_and(|(s, _, _)| s.strong_count() > 0)
        })
    }

    /// Sessions were closed (idle, or for room): their trackers and forks, which hold their
    /// documents, are let go now rather than at the next open, and the UIs told.
    fn sessions_closed(&self) {
        self.trackers
            .lock()
            .expect("trackers lock")
            .retain(|_, (session, _, _)| session.strong_count() > 0);
        self.emit(ServiceEvent::SessionsChanged);
    }

    pub async fn close_session(&self, id: Uuid) -> ServiceResult<()> {
        self.instance()?.registry.close(id).await?;
        self.trackers.lock().expect("trackers lock").remove(&id);
        self.emit(ServiceEvent::SessionsChanged);
        Ok(())
    }

    /// Records that a document was opened here — at most once a minute per document unless
    /// its title changed, so reads do not write to the database every time. Written off the
    /// caller's path (a first read does not wait for a commit to disk), in order, and waited
    /// for by [`known_documents`](Self::known_documents) and the stop.
    fn remember(&self, id: Uuid, title: Option<String>) {
        {
            let mut remembered = self.remembered.lock().expect("remembered documents");
            if let Some((known_title, at)) = remembered.get(&id)
                && *known_title == title
                && at.elapsed() < REMEMBER_EVERY
            {
                return;
            }
            remembered.insert(id, (title.clone(), Instant::now()));
        }
        let (store, events) = (self.store.clone(), self.events.clone());
        let known = KnownDocument {
            id,
            title,
            last_opened_at: now_ms(),
        };
        let mut remembering = self.remembering.lock().expect("remembering");
        let before = remembering.take();
        *remembering = Some(self.settle_tasks.spawn(async move {
            if let Some(before) = before {
                let _ = before.await;
            }
            match store.remember_document(known).await {
                Ok(()) => {
                    let _ = events.send(ServiceEvent::SessionsChanged);
                }
                Err(error) => {
                    tracing::warn!(%error, document = %id, "cannot record the document as opened here");
                }
            }
        }));
    }

    pub async fn known_documents(&self) -> ServiceResult<Vec<KnownDocument>> {
        let remembering = self.remembering.lock().expect("remembering").take();
        if let Some(remembering) = remembering {
            let _ = remembering.await;
        }
        self.store.known_documents().await
    }

    /// Adds a document (URL or id) to the known ones, with its title as the instance gives
    /// it; refused when the instance does not show it to this user.
    pub async fn add_document(&self, document: &str) -> ServiceResult<(KnownDocument, Document)> {
        let id = self.resolve(document)?;
        let metadata = self.instance()?.client.document(id).await?;
        let known = KnownDocument {
            id,
            title: metadata.title.clone(),
            last_opened_at: now_ms(),
        };
        self.store.remember_document(known.clone()).await?;
        self.emit(ServiceEvent::SessionsChanged);
        Ok((known, metadata))
    }

    /// Applied and pending edits per document, from the journal.
    pub async fn edit_counts(&self) -> ServiceResult<HashMap<Uuid, EditCounts>> {
        self.store.edit_counts().await
    }
}

/// The tracker and forks attached to `session`, when they are.
fn attached(
    trackers: &HashMap<Uuid, TrackedSession>,
    id: Uuid,
    session: &Arc<DocumentSession>,
) -> Option<(Arc<RevisionTracker>, Arc<Forks>)> {
    let (weak, tracker, forks) = trackers.get(&id)?;
    weak.upgrade()
        .is_some_and(|s| Arc::ptr_eq(&s, session))
        .then(|| (tracker.clone(), forks.clone()))
}
