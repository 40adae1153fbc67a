//! The service: the one authority over documents, edits and decisions. MCP tools, the
//! control API (CLI) and the desktop app all call it; none of them decides by itself.
//!
//! An edit goes: plan on a fork (nothing touched) → stored as pending → decided (by the
//! policy, or a human) → the update merged into the live document → acknowledged by the
//! room and saved through REST → journaled as applied. A rejection or a conflict applies
//! nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

use docs_client::blocknote;
use docs_client::{
    ClientConfig, DocsClient, Document, DocumentRef, DocumentSession, InstanceUrl, Presence,
    Secret, SessionRegistry, SessionSnapshot, User,
};
use serde::Serialize;
use tokio::sync::{broadcast, watch};
use uuid::Uuid;
use yrs::updates::decoder::Decode;
use yrs::{ReadTxn, StateVector, Transact};

use crate::config::ServiceConfig;
use crate::credentials::SessionCredentials;
use crate::edits::{self, EditOp};
use crate::error::{ServiceError, ServiceResult};
use crate::events::ServiceEvent;
use crate::record::{
    AgentInfo, EditCounts, EditFilter, EditRecord, EditStatus, KnownDocument, Policy, now_ms,
};
use crate::revisions::RevisionTracker;
use crate::store::{Store, StoredPolicies};

/// A document opened for a caller: its live session and its change tracker.
#[derive(Clone)]
pub struct OpenDocument {
    pub id: Uuid,
    pub session: Arc<DocumentSession>,
    pub tracker: Arc<RevisionTracker>,
}

/// A write, as a tool hands it to the service.
#[derive(Debug, Clone)]
pub struct EditRequest {
    /// A document id or URL.
    pub document: String,
    pub ops: Vec<EditOp>,
    pub tool: String,
    pub arguments: serde_json::Value,
    pub reason: Option<String>,
    pub revision: Option<String>,
    pub agent: AgentInfo,
}

/// What `/health` reports.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Health {
    pub version: String,
    pub instance: Option<String>,
    pub instance_reachable: bool,
    pub signed_in: bool,
    pub sessions: usize,
    pub pending_edits: u64,
    pub paused: bool,
    pub uptime_seconds: u64,
}

struct Instance {
    client: DocsClient,
    registry: Arc<SessionRegistry>,
    reaper: tokio::task::JoinHandle<()>,
    /// Who the session belongs to, once `users/me` accepted it.
    account: OnceLock<User>,
    /// Whether the session is in the OS keyring (else it lives in memory only, or is none).
    session_persisted: bool,
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.reaper.abort();
    }
}

/// A session and the tracker attached to it (a replaced session gets a new tracker).
type TrackedSession = (std::sync::Weak<DocumentSession>, Arc<RevisionTracker>);

pub struct DocsService {
    config: ServiceConfig,
    store: Store,
    instance: RwLock<Option<Arc<Instance>>>,
    trackers: Mutex<HashMap<Uuid, TrackedSession>>,
    events: broadcast::Sender<ServiceEvent>,
    /// Bumped whenever an edit changes status, so waiters wake.
    decisions: watch::Sender<u64>,
    /// Serializes decisions, so an edit is decided once.
    deciding: tokio::sync::Mutex<()>,
    paused: AtomicBool,
    /// How long write tools wait for a decision; the app's settings change it at runtime.
    approval_wait_ms: AtomicU64,
    started: Instant,
}

const PAUSED_SETTING: &str = "paused";

impl DocsService {
    /// Opens the database and, when one is configured, connects the instance.
    pub fn start(config: ServiceConfig) -> ServiceResult<Arc<Self>> {
        let store = Store::open(&config.database_path())?;
        let paused = store.setting(PAUSED_SETTING)?.as_deref() == Some("true");
        let service = Arc::new(DocsService {
            store,
            instance: RwLock::new(None),
            trackers: Mutex::new(HashMap::new()),
            events: broadcast::channel(256).0,
            decisions: watch::Sender::new(0),
            deciding: tokio::sync::Mutex::new(()),
            paused: AtomicBool::new(paused),
            approval_wait_ms: AtomicU64::new(config.approval_wait.as_millis() as u64),
            started: Instant::now(),
            config,
        });
        if let Some(url) = service.config.instance.clone() {
            service.connect_instance(
                url,
                service.config.session_cookie.clone(),
                service.config.csrf_token.clone(),
            )?;
        }
        Ok(service)
    }

    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    pub fn subscribe(&self) -> broadcast::Receiver<ServiceEvent> {
        self.events.subscribe()
    }

    fn emit(&self, event: ServiceEvent) {
        let _ = self.events.send(event);
    }

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

    fn connect(
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
            ..docs_client::SessionOptions::default()
        };
        let registry = Arc::new(SessionRegistry::new(
            client.clone(),
            options,
            self.config.idle_ttl,
        ));
        let reaper = registry.spawn_reaper(Duration::from_secs(30));
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
        if let Some(previous) = previous {
            tokio::spawn(async move { previous.registry.close_all().await });
        }
        self.emit(ServiceEvent::SessionsChanged);
        Ok(())
    }

    fn client_for(
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

    /// The user a session belongs to, asked with a client of its own so that nothing changes
    /// when the instance refuses it.
    async fn verify(&self, url: &InstanceUrl, session: &SessionCredentials) -> ServiceResult<User> {
        let probe = self.client_for(url.clone(), Some(session.clone()))?;
        probe.me().await.map_err(|error| match error {
            docs_client::Error::Unauthorized { .. } => ServiceError::SessionInvalid,
            other => other.into(),
        })
    }

    /// Signs in with the cookies of a browser session (`docs_sessionid`, `csrftoken`): checked
    /// with `users/me` first, then the instance is reconnected as that user and the session
    /// kept in the OS keyring (in memory only where there is none). A refused session changes
    /// nothing.
    pub async fn sign_in(
        &self,
        session_cookie: Secret,
        csrf_token: Option<Secret>,
    ) -> ServiceResult<User> {
        let url = self.instance()?.client.instance().clone();
        let session = SessionCredentials {
            session_cookie,
            csrf_token,
        };
        let user = self.verify(&url, &session).await?;
        let persisted = self.config.credentials.save(&url, &session).await;
        self.switch_account(&url, Some(session), Some(user.clone()), persisted)?;
        tracing::info!(instance = %url, persisted, "signed in");
        Ok(user)
    }

    /// Ends the session on the instance, forgets it (keyring included) and goes on
    /// anonymously: public documents still work.
    pub async fn sign_out(&self) -> ServiceResult<()> {
        let client = self.instance()?.client.clone();
        let url = client.instance().clone();
        // Best effort: the session is forgotten here whether or not the instance answers.
        if client.config().session_cookie.is_some()
            && let Err(error) = client.end_session().await
        {
            tracing::warn!(%error, instance = %url, "the instance did not end the session");
        }
        self.config.credentials.forget(&url).await;
        self.switch_account(&url, None, None, false)?;
        tracing::info!(instance = %url, "signed out");
        Ok(())
    }

    /// Takes up the session given in the configuration or, without one, the session stored
    /// for the connected instance (by the app's sign-in), once the instance accepts it. A
    /// refused session is dropped (and removed from the keyring): the service stays
    /// anonymous. When the instance cannot be asked, a stored session is used unchecked.
    pub async fn restore_session(&self) -> ServiceResult<Option<User>> {
        let Ok(instance) = self.instance() else {
            return Ok(None);
        };
        let url = instance.client.instance().clone();
        let config = instance.client.config();
        let (session, stored) = match &config.session_cookie {
            Some(cookie) => (
                SessionCredentials {
                    session_cookie: cookie.clone(),
                    csrf_token: config.csrf_token.clone(),
                },
                false,
            ),
            None => match self.config.credentials.load(&url).await {
                Some(session) => (session, true),
                None => return Ok(None),
            },
        };
        match self.verify(&url, &session).await {
            Ok(user) => {
                if stored {
                    self.switch_account(&url, Some(session), Some(user.clone()), true)?;
                } else {
                    let _ = instance.account.set(user.clone());
                    self.emit(ServiceEvent::AccountChanged { signed_in: true });
                }
                tracing::info!(instance = %url, "signed in with the {} session", if stored { "stored" } else { "configured" });
                Ok(Some(user))
            }
            Err(ServiceError::SessionInvalid) => {
                tracing::info!(
                    instance = %url,
                    "the {} session was refused (expired or signed out): public documents only",
                    if stored { "stored" } else { "configured" }
                );
                if stored {
                    self.config.credentials.forget(&url).await;
                } else {
                    self.switch_account(&url, None, None, false)?;
                }
                Ok(None)
            }
            Err(error) => {
                if stored {
                    self.switch_account(&url, Some(session), None, true)?;
                }
                Err(error)
            }
        }
    }

    /// Reconnects the instance `url` with another session (or none), and tells the UIs.
    fn switch_account(
        &self,
        url: &InstanceUrl,
        session: Option<SessionCredentials>,
        account: Option<User>,
        persisted: bool,
    ) -> ServiceResult<()> {
        if self.instance()?.client.instance() != url {
            return Err(ServiceError::invalid(
                format!("the instance changed to another one than {url} meanwhile"),
                "Sign in again, on the instance now connected.",
            ));
        }
        let signed_in = session.is_some();
        self.connect(url.clone(), session, account, persisted)?;
        self.emit(ServiceEvent::AccountChanged { signed_in });
        Ok(())
    }

    /// The signed-in user, once the instance confirmed the session.
    pub fn account(&self) -> Option<User> {
        self.instance().ok()?.account.get().cloned()
    }

    /// Whether the session is kept in the OS keyring; `false` when there is none, or when it
    /// lives in memory only (no keyring, or given in the configuration).
    pub fn session_persisted(&self) -> bool {
        self.instance().is_ok_and(|i| i.session_persisted)
    }

    fn instance(&self) -> ServiceResult<Arc<Instance>> {
        self.instance
            .read()
            .expect("instance lock")
            .clone()
            .ok_or(ServiceError::NoInstance)
    }

    pub fn client(&self) -> ServiceResult<DocsClient> {
        Ok(self.instance()?.client.clone())
    }

    /// Whether a session cookie of a user was given (not just an anonymous one).
    pub fn has_user_session(&self) -> bool {
        self.instance()
            .is_ok_and(|i| i.client.config().session_cookie.is_some())
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
        let session = instance.registry.open(id).await?;
        if let Some(agent) = agent {
            session.set_presence(&Presence::new(&agent.name));
        }
        let tracker = {
            let mut trackers = self.trackers.lock().expect("trackers lock");
            // Trackers of closed sessions hold their document: let them go.
            trackers.retain(|_, (session, _)| session.strong_count() > 0);
            match trackers.get(&id) {
                Some((weak, tracker))
                    if weak.upgrade().is_some_and(|s| Arc::ptr_eq(&s, &session)) =>
                {
                    tracker.clone()
                }
                _ => {
                    let tracker = Arc::new(RevisionTracker::attach(&session));
                    trackers.insert(id, (Arc::downgrade(&session), tracker.clone()));
                    tracker
                }
            }
        };
        self.store.remember_document(&KnownDocument {
            id,
            title: session.metadata().title.clone(),
            last_opened_at: now_ms(),
        })?;
        self.emit(ServiceEvent::SessionsChanged);
        Ok(OpenDocument {
            id,
            session,
            tracker,
        })
    }

    pub fn sessions(&self) -> Vec<SessionSnapshot> {
        self.instance()
            .map(|i| i.registry.snapshot())
            .unwrap_or_default()
    }

    pub async fn close_session(&self, id: Uuid) -> ServiceResult<()> {
        self.instance()?.registry.close(id).await?;
        self.trackers.lock().expect("trackers lock").remove(&id);
        self.emit(ServiceEvent::SessionsChanged);
        Ok(())
    }

    pub fn known_documents(&self) -> ServiceResult<Vec<KnownDocument>> {
        self.store.known_documents()
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
        self.store.remember_document(&known)?;
        self.emit(ServiceEvent::SessionsChanged);
        Ok((known, metadata))
    }

    /// Applied and pending edits per document, from the journal.
    pub fn edit_counts(&self) -> ServiceResult<HashMap<Uuid, EditCounts>> {
        self.store.edit_counts()
    }

    /// The policy of a document: its own, else the stored default, else the configured one.
    pub fn policy_for(&self, document: Uuid) -> ServiceResult<Policy> {
        let stored = self.store.policies()?;
        Ok(stored
            .own(document)
            .or(stored.default)
            .unwrap_or(self.config.default_policy))
    }

    pub fn set_policy(&self, document: Option<Uuid>, policy: Option<Policy>) -> ServiceResult<()> {
        self.store.set_policy(document, policy)?;
        self.emit(ServiceEvent::PolicyChanged {
            document_id: document,
            policy,
        });
        Ok(())
    }

    /// The effective default policy and the per-document ones.
    pub fn policies(&self) -> ServiceResult<StoredPolicies> {
        let mut stored = self.store.policies()?;
        stored.default = Some(stored.default.unwrap_or(self.config.default_policy));
        Ok(stored)
    }

    /// Pausing holds every agent write for review, whatever the policy.
    pub fn set_paused(&self, paused: bool) -> ServiceResult<()> {
        self.paused.store(paused, Ordering::SeqCst);
        self.store
            .set_setting(PAUSED_SETTING, if paused { "true" } else { "false" })?;
        self.emit(ServiceEvent::PausedChanged { paused });
        Ok(())
    }

    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// How long a write tool waits for a human decision before answering `pending`.
    pub fn approval_wait(&self) -> Duration {
        Duration::from_millis(self.approval_wait_ms.load(Ordering::SeqCst))
    }

    pub fn set_approval_wait(&self, wait: Duration) {
        self.approval_wait_ms
            .store(wait.as_millis() as u64, Ordering::SeqCst);
    }

    /// Plans an edit and queues it; applies it at once when the policy allows. Returns the
    /// edit as it stands (pending, or final).
    pub async fn submit(&self, request: EditRequest) -> ServiceResult<EditRecord> {
        edits::check_limits(&request.ops)?;
        let doc = self.open(&request.document, Some(&request.agent)).await?;
        let policy = self.writable_policy(&doc)?;
        if let Some(revision) = &request.revision {
            let targets = edits::target_blocks(&request.ops);
            if let Some((block_id, _)) = doc.tracker.changed_since(revision, &targets) {
                return Err(ServiceError::StaleRevision {
                    block_id,
                    revision: revision.clone(),
                    current: doc.tracker.revision(),
                });
            }
        }
        let plan = edits::plan(doc.session.doc(), &request.ops)?;
        let record = self.queue(&doc, plan, request, None)?;
        self.decide_by_policy(record, policy).await
    }

    /// The policy of a document agents may write to; an error when they may not.
    fn writable_policy(&self, doc: &OpenDocument) -> ServiceResult<Policy> {
        if doc.session.is_read_only() {
            return Err(docs_client::Error::ReadOnly {
                document: doc.id.to_string(),
            }
            .into());
        }
        match self.policy_for(doc.id)? {
            Policy::ReadOnly => Err(ServiceError::PolicyReadOnly),
            policy => Ok(policy),
        }
    }

    /// Applies a queued edit at once when the policy says so and agents are not paused.
    async fn decide_by_policy(
        &self,
        record: EditRecord,
        policy: Policy,
    ) -> ServiceResult<EditRecord> {
        if policy == Policy::Auto && !self.is_paused() {
            return self.approve(record.id, "auto").await;
        }
        Ok(record)
    }

    /// Stores a planned edit as pending.
    fn queue(
        &self,
        doc: &OpenDocument,
        plan: edits::Plan,
        request: EditRequest,
        undoes: Option<Uuid>,
    ) -> ServiceResult<EditRecord> {
        let inverse = plan
            .inverse
            .map(|ops| serde_json::to_value(ops).map_err(|e| ServiceError::Internal(e.to_string())))
            .transpose()?;
        let record = EditRecord {
            id: Uuid::new_v4(),
            document_id: doc.id,
            document_title: doc.session.metadata().title.clone(),
            agent: request.agent,
            tool: request.tool,
            arguments: request.arguments,
            reason: request.reason,
            revision: request.revision,
            preview: plan.preview,
            update: plan.update,
            base_state_vector: plan.base_state_vector,
            touched_blocks: plan.touched_blocks,
            new_blocks: plan.new_blocks,
            inverse,
            undoes,
            status: EditStatus::Pending,
            comment: None,
            decided_by: None,
            error: None,
            created_at: now_ms(),
            decided_at: None,
            applied_at: None,
        };
        self.store.put_edit(&record)?;
        self.changed(&record);
        Ok(record)
    }

    /// Reverts an applied edit, as a new edit that follows the approval policy. Refused when
    /// a later applied edit touched the same blocks, or when a block it changed was changed
    /// again since (undoing would overwrite that).
    pub async fn undo(
        &self,
        id: Uuid,
        reason: Option<String>,
        agent: AgentInfo,
    ) -> ServiceResult<EditRecord> {
        let original = self.edit(id)?;
        if original.status != EditStatus::Applied {
            return Err(ServiceError::invalid(
                format!(
                    "edit {id} is {}; only applied edits can be undone",
                    original.status.as_str()
                ),
                "Check edit_status; a pending edit can simply be left to the user's decision.",
            ));
        }
        let inverse: Vec<edits::UndoOp> = match &original.inverse {
            Some(ops) => serde_json::from_value(ops.clone())
                .map_err(|e| ServiceError::Internal(format!("stored undo of {id}: {e}")))?,
            None => {
                return Err(ServiceError::Conflict {
                    reason: format!(
                        "edit {id} cannot be undone automatically (it kept the children of a deleted block, or touched a block of an unknown type)"
                    ),
                });
            }
        };
        let mine: std::collections::BTreeSet<&String> = original
            .touched_blocks
            .iter()
            .chain(&original.new_blocks)
            .collect();
        let later = self.store.edits(&EditFilter {
            status: Some(vec![EditStatus::Applied]),
            document_id: Some(original.document_id),
            ..EditFilter::default()
        })?;
        if let Some(dependent) = later.iter().find(|e| {
            e.created_at > original.created_at
                && e.touched_blocks
                    .iter()
                    .chain(&e.new_blocks)
                    .any(|b| mine.contains(b))
        }) {
            return Err(ServiceError::Conflict {
                reason: format!(
                    "edit {} was applied later to the same blocks; undo it first",
                    dependent.id
                ),
            });
        }
        let doc = self
            .open(&original.document_id.to_string(), Some(&agent))
            .await?;
        let policy = self.writable_policy(&doc)?;
        unchanged_since_applied(&doc, &original)?;
        let plan = edits::plan_undo(doc.session.doc(), &inverse)?;
        let request = EditRequest {
            document: doc.id.to_string(),
            ops: vec![],
            tool: "undo_edit".into(),
            arguments: serde_json::json!({ "edit_id": id.to_string() }),
            reason: Some(match reason.or(original.reason.clone()) {
                Some(r) => format!("Undo: {r}"),
                None => format!("Undo of edit {id}"),
            }),
            revision: None,
            agent,
        };
        let record = self.queue(&doc, plan, request, Some(id))?;
        self.decide_by_policy(record, policy).await
    }

    /// Creates a document (signed in). Its content, if any, is an edit like any other: it
    /// waits for approval where the policy says so.
    pub async fn create_document(
        &self,
        title: &str,
        parent: Option<&str>,
        markdown: Option<String>,
        reason: Option<String>,
        agent: AgentInfo,
    ) -> ServiceResult<(docs_client::Document, Option<EditRecord>)> {
        if !self.has_user_session() {
            return Err(ServiceError::NotSignedIn);
        }
        if title.trim().is_empty() || title.chars().count() > 255 {
            return Err(ServiceError::invalid(
                "a title needs 1 to 255 characters",
                "Give a short title.",
            ));
        }
        let parent = parent.map(|p| self.resolve(p)).transpose()?;
        let policy = match parent {
            Some(parent) => self.policy_for(parent)?,
            None => self
                .policies()?
                .default
                .unwrap_or(self.config.default_policy),
        };
        if policy == Policy::ReadOnly {
            return Err(ServiceError::PolicyReadOnly);
        }
        if self.is_paused() {
            return Err(ServiceError::Paused);
        }
        let document = self.client()?.create_document(title, parent).await?;
        self.store.remember_document(&KnownDocument {
            id: document.id,
            title: document.title.clone(),
            last_opened_at: now_ms(),
        })?;
        let edit = match markdown.filter(|m| !m.trim().is_empty()) {
            Some(markdown) => Some(
                self.submit(EditRequest {
                    document: document.id.to_string(),
                    arguments: serde_json::json!({ "title": title, "markdown": markdown }),
                    ops: vec![EditOp::InsertBlocks(edits::InsertBlocks {
                        position: edits::Position {
                            at: edits::Anchor::Start,
                            block_id: None,
                        },
                        markdown: Some(markdown),
                        blocks: None,
                    })],
                    tool: "create_document".into(),
                    reason,
                    revision: None,
                    agent,
                })
                .await?,
            ),
            None => None,
        };
        Ok((document, edit))
    }

    fn changed(&self, record: &EditRecord) {
        self.decisions.send_modify(|n| *n += 1);
        self.emit(ServiceEvent::EditChanged {
            edit_id: record.id,
            document_id: record.document_id,
            status: record.status,
            agent: record.agent.name.clone(),
        });
    }

    pub fn edit(&self, id: Uuid) -> ServiceResult<EditRecord> {
        self.store
            .edit(id)?
            .ok_or(ServiceError::EditNotFound { id: id.to_string() })
    }

    pub fn edits(&self, filter: &EditFilter) -> ServiceResult<Vec<EditRecord>> {
        self.store.edits(filter)
    }

    /// Waits until the edit is decided (and applied or not), at most `timeout`; returns it as
    /// it stands then.
    pub async fn wait_for_decision(
        &self,
        id: Uuid,
        timeout: Duration,
    ) -> ServiceResult<EditRecord> {
        let mut decisions = self.decisions.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let record = self.edit(id)?;
            if record.status.is_final() {
                return Ok(record);
            }
            tokio::select! {
                changed = decisions.changed() => {
                    if changed.is_err() {
                        return Ok(record);
                    }
                }
                _ = tokio::time::sleep_until(deadline) => return self.edit(id),
            }
        }
    }

    /// Approves a pending edit: merges it into the live document, waits until it is
    /// acknowledged and saved, and journals it. A target that vanished is a conflict.
    pub async fn approve(&self, id: Uuid, decided_by: &str) -> ServiceResult<EditRecord> {
        let _deciding = self.deciding.lock().await;
        let mut record = self.pending(id)?;
        record.decided_by = Some(decided_by.to_owned());
        record.decided_at = Some(now_ms());
        let outcome = self.apply(&record).await;
        match outcome {
            Ok(()) => {
                record.status = EditStatus::Applied;
                record.applied_at = Some(now_ms());
                if let Some(undone) = record.undoes {
                    let mut original = self.edit(undone)?;
                    original.status = EditStatus::Undone;
                    self.store.put_edit(&original)?;
                    self.changed(&original);
                }
            }
            Err(error @ ServiceError::Conflict { .. }) => {
                record.status = EditStatus::Conflict;
                record.error = Some(error.info());
            }
            Err(error) => {
                record.status = EditStatus::Failed;
                record.error = Some(error.info());
            }
        }
        self.store.put_edit(&record)?;
        self.changed(&record);
        Ok(record)
    }

    async fn apply(&self, record: &EditRecord) -> ServiceResult<()> {
        let doc = self.open(&record.document_id.to_string(), None).await?;
        check_still_applies(&doc, record)?;
        let pending = doc.session.apply_update(&record.update).await?;
        pending.wait().await?;
        self.emit(ServiceEvent::DocumentChanged {
            document_id: doc.id,
            revision: doc.tracker.revision(),
        });
        Ok(())
    }

    /// Rejects a pending edit; nothing is applied and the comment goes back to the agent.
    pub async fn reject(
        &self,
        id: Uuid,
        comment: Option<String>,
        decided_by: &str,
    ) -> ServiceResult<EditRecord> {
        let _deciding = self.deciding.lock().await;
        let mut record = self.pending(id)?;
        record.status = EditStatus::Rejected;
        record.comment = comment.filter(|c| !c.trim().is_empty());
        record.decided_by = Some(decided_by.to_owned());
        record.decided_at = Some(now_ms());
        record.error = Some(
            ServiceError::Rejected {
                comment: record.comment.clone(),
            }
            .info(),
        );
        self.store.put_edit(&record)?;
        self.changed(&record);
        Ok(record)
    }

    /// Approves or rejects, oldest first, every pending edit of an agent and/or a document.
    /// Edits decided elsewhere meanwhile are skipped; the others are returned decided.
    pub async fn decide_all(
        &self,
        approve: bool,
        filter: &EditFilter,
        comment: Option<String>,
        decided_by: &str,
    ) -> ServiceResult<Vec<EditRecord>> {
        let mut pending = self.edits(&EditFilter {
            status: Some(vec![EditStatus::Pending]),
            ..filter.clone()
        })?;
        pending.sort_by_key(|e| e.created_at);
        let mut decided = Vec::with_capacity(pending.len());
        for edit in pending {
            let outcome = if approve {
                self.approve(edit.id, decided_by).await
            } else {
                self.reject(edit.id, comment.clone(), decided_by).await
            };
            match outcome {
                Ok(record) => decided.push(record),
                Err(ServiceError::NotPending { .. }) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(decided)
    }

    fn pending(&self, id: Uuid) -> ServiceResult<EditRecord> {
        let record = self.edit(id)?;
        if record.status != EditStatus::Pending {
            return Err(ServiceError::NotPending {
                id: id.to_string(),
                status: record.status.as_str().to_owned(),
            });
        }
        Ok(record)
    }

    pub async fn health(&self) -> Health {
        let instance = self.instance().ok();
        let reachable = match &instance {
            Some(i) => i.client.instance_config().await.is_ok(),
            None => false,
        };
        Health {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instance: instance.as_ref().map(|i| i.client.instance().to_string()),
            instance_reachable: reachable,
            signed_in: self.has_user_session(),
            sessions: self.sessions().len(),
            pending_edits: self.store.pending_count().unwrap_or(0),
            paused: self.is_paused(),
            uptime_seconds: self.started.elapsed().as_secs(),
        }
    }

    /// Closes every session, saving what is pending.
    pub async fn shutdown(&self) {
        if let Ok(instance) = self.instance() {
            instance.registry.close_all().await;
        }
    }
}

/// The blocks an applied edit left must read as the edit left them (else undoing it would
/// overwrite a later change).
fn unchanged_since_applied(doc: &OpenDocument, record: &EditRecord) -> ServiceResult<()> {
    let live_doc = doc.session.doc();
    let fragment = blocknote::document_fragment(live_doc);
    let current = blocknote::read_document(&live_doc.transact(), &fragment);
    for block in &record.preview.after {
        let now = current.find(&block.block_id).map(|b| {
            blocknote::export_markdown(std::slice::from_ref(b), &Default::default())
                .markdown
                .trim_end()
                .to_owned()
        });
        if now.as_deref() != Some(block.markdown.as_str()) {
            return Err(ServiceError::Conflict {
                reason: format!(
                    "block {} changed since the edit was applied; undoing it would overwrite that change",
                    block.block_id
                ),
            });
        }
    }
    Ok(())
}

/// An approved edit applies only if the document still has the history it was computed
/// against and every block it targets still exists.
fn check_still_applies(doc: &OpenDocument, record: &EditRecord) -> ServiceResult<()> {
    let base = StateVector::decode_v1(&record.base_state_vector)
        .map_err(|e| ServiceError::Internal(format!("stored state vector: {e}")))?;
    let live_doc = doc.session.doc();
    // Taken before the transaction: getting a root type needs a write transaction.
    let fragment = blocknote::document_fragment(live_doc);
    let txn = live_doc.transact();
    let live = txn.state_vector();
    if let Some((client, _)) = base
        .iter()
        .find(|(client, clock)| live.get(client) < **clock)
    {
        return Err(ServiceError::Conflict {
            reason: format!(
                "the document no longer has the history the edit was made on (client {})",
                client.get()
            ),
        });
    }
    let current = blocknote::read_document(&txn, &fragment);
    if let Some(missing) = record
        .touched_blocks
        .iter()
        .find(|id| current.find(id).is_none())
    {
        return Err(ServiceError::Conflict {
            reason: format!("block {missing} was deleted since the edit was proposed"),
        });
    }
    Ok(())
}
