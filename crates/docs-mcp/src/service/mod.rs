//! The service: the one authority over documents, edits and decisions. MCP tools, the
//! control API (CLI) and the desktop app all call it; none of them decides by itself.
//!
//! - [`instance`]: the Docs instance, its account, and the documents opened live.
//! - [`decide`]: an edit's life — planned on a fork, queued, decided by the policy or a
//!   person, merged; undo.
//! - [`settle`]: following a merged edit until the room acknowledged it, across reconnects
//!   and restarts.
//! - [`saving`]: an applied edit kept in the journal until a save of Docs holds it, merged
//!   again (after the same checks) when its room lost it; what a stop left unsaved.
//!
//! The edit state machine is in [`crate::record::EditStatus`]; every transition is a
//! compare-and-set in the store, persisted before it takes effect.
//!
//! Here: `DocsService::start` (takes the data directory, opens the store, purges the journal past
//! its retention), policies, pause, waits, health and shutdown.
//!
//! `shutdown` closes every session together, each within the write timeout (20 s, or the approval
//! wait when longer), lets the edits being followed record the last saves (5 s at most), and
//! returns a `StopReport`: the documents whose applied edits no save holds, how many, and why (the
//! close's error, e.g. the instance's request budget spent). It is logged, and said by the app's
//! quit; the journal keeps those edits and the next start saves them.

mod account;
mod amend;
pub use amend::text_preview;
mod clients;
mod commenting;
mod comments;
mod create;
mod decide;
mod handover;
mod instance;
mod locks;
mod merge;
mod requests;
mod saving;
mod settle;
mod submit;
mod undo;
mod users;
mod withdraw;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

use docs_client::CollaborationServer;
use serde::Serialize;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use crate::config::ServiceConfig;
use crate::error::{ServiceError, ServiceResult};
use crate::events::ServiceEvent;
use crate::lock::{DataDirLock, Holder};
use crate::record::{EditFilter, EditRecord, EditStatus, Policy};
use crate::store::{Store, StoredPolicies};
use crate::token::BearerToken;

pub use comments::CommentRequest;
pub use instance::OpenDocument;
pub use requests::Outcome;
pub use saving::{LeftUnsaved, StopReport};
pub use submit::EditRequest;

/// The longest `/health` waits for the instance to say whether it is reachable.
pub const HEALTH_INSTANCE_WAIT: Duration = Duration::from_secs(2);

/// What `/health` reports.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Health {
    pub version: String,
    pub instance: Option<String>,
    /// Whether the instance answered for its configuration within [`HEALTH_INSTANCE_WAIT`]
    /// (a frozen Docs must not freeze the health check, which proves who holds the data
    /// directory to a second process).
    pub instance_reachable: bool,
    /// The instance's collaboration server (`hocuspocus`, `yhub`), as its configuration
    /// names it or, when it names none, as an open document's room showed; `null` if unknown.
    pub collaboration_server: Option<CollaborationServer>,
    pub signed_in: bool,
    pub sessions: usize,
    pub pending_edits: u64,
    pub paused: bool,
    pub uptime_seconds: u64,
}

pub struct DocsService {
    /// This service, for the tasks it spawns (a decision outlives its caller).
    me: Weak<DocsService>,
    config: ServiceConfig,
    store: Store,
    /// The data directory is this service's until it shuts down.
    lock: Mutex<Option<DataDirLock>>,
    /// Who holds it, as the lock file says (its endpoint once bound, its proof key).
    holder: Mutex<Holder>,
    /// The secret of the person's channel (`/control`): the app and the CLI hold it, agents
    /// never do. New at every start.
    control_token: BearerToken,
    /// The configured agent clients whose tokens open `/mcp`.
    clients: crate::clients::ActiveClients,
    instance: RwLock<Option<Arc<instance::Instance>>>,
    trackers: Mutex<HashMap<Uuid, instance::TrackedSession>>,
    /// Trackers attached to sessions' documents as soon as their content is loaded, while
    /// the sessions join their rooms: taken by the open that gets the session.
    early_trackers: instance::EarlyTrackers,
    /// The blocks of the documents read last, shared by their trackers.
    recent_reads: Arc<crate::revisions::RecentReads>,
    /// When each document was last written to the known documents (reads don't write again).
    remembered: Mutex<HashMap<Uuid, (Option<String>, Instant)>>,
    /// The last of those writes, made off the reads' path (`known_documents` waits for it).
    remembering: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// The agents that used each open document (the Sessions screen's Agents column).
    users: users::DocumentUsers,
    /// Unresolved comment threads per document, and when Docs was asked (see `comments`).
    open_threads: Mutex<HashMap<Uuid, (usize, Instant)>>,
    events: broadcast::Sender<ServiceEvent>,
    /// Bumped whenever an edit changes status, so waiters wake.
    decisions: watch::Sender<u64>,
    /// Serializes planning and merging per document (never held across a network wait).
    doc_locks: locks::DocumentLocks,
    /// Edits followed until confirmed, and the tasks following them.
    settling: Mutex<HashSet<Uuid>>,
    /// Documents whose unsaved applied edits are being saved again.
    resaving: Mutex<HashSet<Uuid>>,
    settle_tasks: TaskTracker,
    /// Cancelled when the stop starts closing the sessions: nothing is opened again to save.
    closing: CancellationToken,
    stopping: CancellationToken,
    /// Cancelled when another service asked for the data directory (see [`crate::stdio`]).
    handover: CancellationToken,
    paused: AtomicBool,
    /// Decisions asked over the control channel, held for the person.
    requests: crate::decisions::Requests,
    /// Bumped whenever a request is asked or settled, so its asker's wait wakes.
    requests_version: watch::Sender<u64>,
    /// How long write tools wait for a decision; the app's settings change it at runtime.
    approval_wait_ms: AtomicU64,
    started: Instant,
    /// Restorations of the Docs session under way (`restore_session`): tool calls wait for
    /// them, the MCP handshake does not.
    restoring: watch::Sender<u32>,
}

const PAUSED_SETTING: &str = "paused";

/// At most this many edits of one agent (by the name on its cards) wait for a person, and
/// this many in all: an agent proposing in a loop cannot bury the review.
pub const MAX_PENDING_PER_AGENT: u64 = 50;
pub const MAX_PENDING: u64 = 500;

/// The longest reason an agent may give, in characters: the card shows it whole.
pub const MAX_REASON_CHARS: usize = 1000;

/// An agent's reason, trimmed (`None` when empty); refused past [`MAX_REASON_CHARS`].
pub(crate) fn checked_reason(reason: Option<String>) -> ServiceResult<Option<String>> {
    let Some(reason) = reason
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty())
    else {
        return Ok(None);
    };
    let chars = reason.chars().count();
    if chars > MAX_REASON_CHARS {
        return Err(ServiceError::invalid(
            format!("the reason is {chars} characters; at most {MAX_REASON_CHARS}"),
            "Say why in a sentence or two: the user reads it on the card.",
        ));
    }
    Ok(Some(reason))
}

impl DocsService {
    /// Takes the data directory (refused when another service holds it), opens the database
    /// (deleting journal entries past their retention), and, when one is configured,
    /// connects the instance and takes up the edits a previous run left `applying`.
    pub async fn start(config: ServiceConfig) -> ServiceResult<Arc<Self>> {
        // No endpoint until one is bound: whatever else listens on the configured port is
        // not this service (`listening_at`).
        let holder = Holder {
            pid: std::process::id(),
            program: config.owner.clone(),
            endpoint: None,
            hands_over: config.hands_over,
            proof_key: crate::lock::new_proof_key(),
        };
        let lock = DataDirLock::acquire(&config.data_dir, &holder)
            .map_err(|e| ServiceError::DataDirInUse(e.to_string()))?;
        let path = config.database_path();
        let store = tokio::task::spawn_blocking(move || Store::open(&path))
            .await
            .map_err(|e| ServiceError::Internal(format!("opening the database: {e}")))??;
        match store.purge_journal().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(
                "{n} journal entries older than {} days deleted",
                crate::store::JOURNAL_RETENTION_DAYS
            ),
            Err(e) => tracing::warn!(error = %e, "could not apply the journal's retention"),
        }
        let paused = store.setting(PAUSED_SETTING).await?.as_deref() == Some("true");
        let control_token = BearerToken::generate();
        crate::authority::publish(&config.data_dir, &control_token)
            .map_err(|e| ServiceError::Store(format!("cannot write the control token: {e}")))?;
        let service = Arc::new_cyclic(|me| DocsService {
            me: me.clone(),
            store,
            lock: Mutex::new(Some(lock)),
            holder: Mutex::new(holder),
            control_token,
            clients: crate::clients::ActiveClients::default(),
            instance: RwLock::new(None),
            trackers: Mutex::new(HashMap::new()),
            early_trackers: instance::EarlyTrackers::default(),
            recent_reads: Arc::default(),
            remembered: Mutex::new(HashMap::new()),
            remembering: Mutex::new(None),
            users: users::DocumentUsers::default(),
            open_threads: Mutex::new(HashMap::new()),
            events: broadcast::channel(256).0,
            decisions: watch::Sender::new(0),
            restoring: watch::Sender::new(0),
            doc_locks: locks::DocumentLocks::default(),
            settling: Mutex::new(HashSet::new()),
            resaving: Mutex::new(HashSet::new()),
            settle_tasks: TaskTracker::new(),
            closing: CancellationToken::new(),
            stopping: CancellationToken::new(),
            handover: CancellationToken::new(),
            paused: AtomicBool::new(paused),
            requests: crate::decisions::Requests::default(),
            requests_version: watch::Sender::new(0),
            approval_wait_ms: AtomicU64::new(config.approval_wait.as_millis() as u64),
            started: Instant::now(),
            config,
        });
        service.load_clients().await?;
        if let Some(url) = service.config.instance.clone() {
            service.connect_instance(
                url,
                service.config.session_cookie.clone(),
                service.config.csrf_token.clone(),
            )?;
        }
        Ok(service)
    }

    /// This service as an `Arc`, for tasks that must outlive the caller.
    fn arc(&self) -> Arc<Self> {
        self.me
            .upgrade()
            .expect("the service is alive while its methods run")
    }

    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// The secret of the control API: only the person's tools (the app, `docs-mcp edits`)
    /// may hold it.
    pub fn control_token(&self) -> &BearerToken {
        &self.control_token
    }

    pub fn subscribe(&self) -> broadcast::Receiver<ServiceEvent> {
        self.events.subscribe()
    }

    fn emit(&self, event: ServiceEvent) {
        let _ = self.events.send(event);
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

    /// The policy of a document: its own, else the stored default, else the configured one.
    pub async fn policy_for(&self, document: Uuid) -> ServiceResult<Policy> {
        let stored = self.store.policies().await?;
        Ok(stored
            .own(document)
            .or(stored.default)
            .unwrap_or(self.config.default_policy))
    }

    pub async fn set_policy(
        &self,
        document: Option<Uuid>,
        policy: Option<Policy>,
    ) -> ServiceResult<()> {
        self.store.set_policy(document, policy).await?;
        self.emit(ServiceEvent::PolicyChanged {
            document_id: document,
            policy,
        });
        Ok(())
    }

    /// The effective default policy and the per-document ones.
    pub async fn policies(&self) -> ServiceResult<StoredPolicies> {
        let mut stored = self.store.policies().await?;
        stored.default = Some(stored.default.unwrap_or(self.config.default_policy));
        Ok(stored)
    }

    /// Pausing holds every agent write for review, whatever the policy.
    pub async fn set_paused(&self, paused: bool) -> ServiceResult<()> {
        self.store
            .set_setting(PAUSED_SETTING, if paused { "true" } else { "false" })
            .await?;
        self.paused.store(paused, Ordering::SeqCst);
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

    pub async fn edit(&self, id: Uuid) -> ServiceResult<EditRecord> {
        self.store
            .edit(id)
            .await?
            .ok_or(ServiceError::EditNotFound { id: id.to_string() })
    }

    /// Edits matching the filter, newest first (without their Yjs payloads).
    pub async fn edits(&self, filter: &EditFilter) -> ServiceResult<Vec<EditRecord>> {
        self.store.edits(filter.clone()).await
    }

    /// Refuses one more edit waiting for a person past the bounds (of `agent`, and in all).
    pub(super) async fn room_for_pending(
        &self,
        agent: &crate::record::AgentInfo,
    ) -> ServiceResult<()> {
        let (waiting, mine) = self.store.pending_counts(agent.name.clone()).await?;
        if mine >= MAX_PENDING_PER_AGENT || waiting >= MAX_PENDING {
            return Err(ServiceError::TooManyPending { waiting, mine });
        }
        Ok(())
    }

    /// How many edits wait for a person's decision.
    pub async fn pending_count(&self) -> ServiceResult<u64> {
        self.store.count_in(EditStatus::Pending).await
    }

    /// How many calls wait for a decision now (`edit_status` with `wait_seconds`, a write tool
    /// waiting for approval): someone is waiting on the person.
    pub fn decision_waiters(&self) -> usize {
        self.decisions.receiver_count()
    }

    /// Waits until the edit is final (or `timeout`), and returns it as it stands then.
    pub async fn wait_for_decision(
        &self,
        id: Uuid,
        timeout: Duration,
    ) -> ServiceResult<EditRecord> {
        let mut decisions = self.decisions.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            decisions.mark_unchanged();
            let record = self.edit(id).await?;
            if record.status.is_final() {
                return Ok(record);
            }
            tokio::select! {
                changed = decisions.changed() => {
                    if changed.is_err() {
                        return Ok(record);
                    }
                }
                _ = tokio::time::sleep_until(deadline) => return self.edit(id).await,
                () = self.handover.cancelled() => return Ok(record),
            }
        }
    }

    /// The HTTP endpoint is bound at `address`: the lock says so, for the CLI and the services
    /// that send this one a token.
    pub fn listening_at(&self, address: std::net::SocketAddr) {
        let mut holder = self.holder.lock().expect("holder");
        holder.endpoint = Some(format!("http://{address}/mcp"));
        if let Some(lock) = self.lock.lock().expect("data directory lock").as_mut()
            && let Err(e) = lock.rewrite(&holder)
        {
            tracing::warn!(error = %e, "cannot record the endpoint in the lock file");
        }
    }

    /// The proof this service holds its data directory, for a `nonce` (see [`crate::holder`]).
    pub fn proof(&self, nonce: &str) -> String {
        crate::lock::proof(&self.holder.lock().expect("holder").proof_key, nonce)
    }

    pub async fn health(&self) -> Health {
        let instance = self.instance().ok();
        let reachable = match &instance {
            Some(i) => tokio::time::timeout(HEALTH_INSTANCE_WAIT, i.client.instance_config())
                .await
                .is_ok_and(|config| config.is_ok()),
            None => false,
        };
        let configured = match &instance {
            Some(i) if reachable => i.client.configured_collaboration().await.ok().flatten(),
            _ => None,
        };
        let sessions = self.sessions();
        let collaboration_server = configured
            .map(|c| c.server())
            .or_else(|| sessions.first().map(|s| s.collaboration));
        Health {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instance: instance.as_ref().map(|i| i.client.instance().to_string()),
            instance_reachable: reachable,
            collaboration_server,
            signed_in: self.has_user_session(),
            sessions: sessions.len(),
            pending_edits: self.pending_count().await.unwrap_or(0),
            paused: self.is_paused(),
            uptime_seconds: self.started.elapsed().as_secs(),
        }
    }

    /// Closes every session, saving what is pending — together, each within the sessions'
    /// write timeout (20 s, or the approval wait when longer): a save the instance's request
    /// budget cannot make before then ends its close at once. Then lets the edits being
    /// confirmed record what the last saves held (at most 5 s) and stops following the
    /// others: they stay `applying`, or `unsaved`, and are taken up at the next start. Then
    /// releases the data directory. Returns (and logs) the documents left unsaved, and why.
    pub async fn shutdown(&self) -> StopReport {
        self.closing.cancel();
        let not_saved = match self.instance() {
            Ok(instance) => instance.registry.close_all().await.into_iter().collect(),
            Err(_) => HashMap::new(),
        };
        self.stopping.cancel();
        self.settle_tasks.close();
        if tokio::time::timeout(Duration::from_secs(5), self.settle_tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!("edits still being confirmed at shutdown are resumed at the next start");
        }
        let report = match self.left_unsaved(not_saved).await {
            Ok(left) => StopReport { left },
            Err(error) => {
                tracing::warn!(%error, "cannot tell which applied edits are not saved yet");
                StopReport::default()
            }
        };
        for left in &report.left {
            tracing::warn!(
                document = %left.document_id,
                edits = left.edits,
                reason = %left.reason,
                "applied edits not saved in Docs at the stop; the next start saves them"
            );
        }
        drop(self.lock.lock().expect("data directory lock").take());
        report
    }
}

#[cfg(test)]
mod tests;
