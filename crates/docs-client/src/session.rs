//! A live session on one document: content loaded from REST, kept in sync over the
//! collaboration WebSocket, local edits sent, acknowledged and saved back through REST.
//!
//! Invariants:
//! - Every local write gets a sequence number. A write is *acknowledged* when the room
//!   answered SyncStatus(1) for the message that carried it (an Update, or the Step2 of a
//!   later handshake, which carries everything the room lacks), and *saved* when a
//!   `PATCH content/` started after that acknowledgement succeeded. Callers are told a write
//!   is done only once it is saved; the room itself stores nothing.
//! - Acknowledgements arrive in the order messages were sent (one SyncStatus per Step2 or
//!   Update), so a FIFO of "highest sequence this message covers" maps each SyncStatus to
//!   the writes it confirms.
//! - Writes made while disconnected stay in the local document and reach the room in the
//!   Step2 of the next handshake.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use futures_util::{SinkExt, StreamExt};
use rand::Rng;
use serde::Serialize;
use tokio::sync::{Notify, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use url::Url;
use uuid::Uuid;
use yrs::sync::{Awareness, AwarenessUpdate};
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{Doc, OffsetKind, Options, ReadTxn, StateVector, Transact, TransactionMut, Update};

use crate::error::{Error, Result};
use crate::presence::Presence;
use crate::protocol::{Frame, Message, Sync};
use crate::rest::{ContentApi, DocsClient};

/// Transaction origin of writes made through [`DocumentSession::write`].
pub const LOCAL_ORIGIN: &str = "lasuite-docs-mcp";
/// Transaction origin of updates received from the collaboration server.
pub const REMOTE_ORIGIN: &str = "collaboration-server";

/// How a session behaves; the defaults suit a desktop agent.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// Who we are in the document's collaborator list.
    pub presence: Presence,
    /// How long opening may take (load, connect, first sync).
    pub sync_timeout: Duration,
    /// How long [`PendingWrite::wait`] waits for acknowledgement and save.
    pub write_timeout: Duration,
    /// Minimum time between two saves: bursts of edits are coalesced into one save.
    pub save_interval: Duration,
    /// How often our presence is renewed (remote states expire after 30 s; Hocuspocus 4
    /// closes sockets idle of data for 60 s).
    pub awareness_interval: Duration,
    /// First and longest reconnect delay (exponential backoff with jitter in between).
    pub reconnect_initial: Duration,
    pub reconnect_max: Duration,
    /// Timeout of one WebSocket connection attempt.
    pub connect_timeout: Duration,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            presence: Presence::new("AI agent"),
            sync_timeout: Duration::from_secs(15),
            write_timeout: Duration::from_secs(20),
            save_interval: Duration::from_secs(1),
            awareness_interval: Duration::from_secs(10),
            reconnect_initial: Duration::from_secs(1),
            reconnect_max: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// Where the writes of a session stand. Sequence numbers only grow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// Highest sequence number given to a local write.
    pub written: u64,
    /// Every write up to this one was applied by the room.
    pub acknowledged: u64,
    /// Every write up to this one was saved through REST.
    pub saved: u64,
    /// A failure that ends every write from `from` on (the session cannot recover them).
    pub failure: Option<Failure>,
    /// The first sync completed.
    pub synced: bool,
    /// Currently connected and synced.
    pub connected: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub from: u64,
    pub error: Error,
}

/// What a UI shows of a session.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SessionSnapshot {
    pub document_id: Uuid,
    pub connected: bool,
    pub read_only: bool,
    /// The final error that ended the session, if any.
    pub error: Option<String>,
    pub last_activity: SystemTime,
    /// Writes not yet acknowledged by the room.
    pub pending_acks: u64,
    /// Writes acknowledged but not yet saved.
    pub pending_saves: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub connects: u64,
    /// Other participants present in the document (humans and agents).
    pub collaborators: Vec<String>,
}

/// A write applied to the local document, on its way to the room and the store.
#[must_use = "a write is only confirmed once waited on"]
pub struct PendingWrite<R> {
    seq: u64,
    value: R,
    progress: watch::Receiver<Progress>,
    started: Instant,
    timeout: Duration,
}

/// A write confirmed by the room and saved to the instance.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteReceipt<R> {
    pub value: R,
    /// 0 when the write changed nothing.
    pub seq: u64,
    pub acknowledged_after: Duration,
    pub saved_after: Duration,
}

impl<R> PendingWrite<R> {
    /// 0 when the transaction changed nothing (then it is trivially confirmed).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    pub fn value(&self) -> &R {
        &self.value
    }

    /// Waits for the room's acknowledgement; returns the time since the write.
    pub async fn acknowledged(&mut self) -> Result<Duration> {
        let seq = self.seq;
        self.wait_until(
            |p| p.acknowledged >= seq,
            |waited| Error::NotAcknowledged { waited },
        )
        .await
    }

    /// Waits until the write is acknowledged and saved; returns the time since the write.
    pub async fn saved(&mut self) -> Result<Duration> {
        let seq = self.seq;
        self.wait_until(|p| p.saved >= seq, |waited| Error::NotSaved { waited })
            .await
    }

    /// Waits until the write is acknowledged and saved.
    pub async fn wait(mut self) -> Result<WriteReceipt<R>> {
        let acknowledged_after = self.acknowledged().await?;
        let saved_after = self.saved().await?;
        Ok(WriteReceipt {
            value: self.value,
            seq: self.seq,
            acknowledged_after,
            saved_after,
        })
    }

    async fn wait_until(
        &mut self,
        done: impl Fn(&Progress) -> bool,
        timed_out: impl Fn(Duration) -> Error,
    ) -> Result<Duration> {
        if self.seq == 0 {
            return Ok(Duration::ZERO);
        }
        let seq = self.seq;
        let deadline = self.started + self.timeout;
        let waited = tokio::time::timeout_at(
            deadline,
            self.progress
                .wait_for(|p| done(p) || p.failure.as_ref().is_some_and(|f| f.from <= seq)),
        )
        .await
        .map(|r| r.map(|p| p.clone()));
        match waited {
            Err(_) => {
                // Acknowledged-then-not-saved is reported as NotSaved by the caller's choice
                // of `timed_out`; a write still unacknowledged is always NotAcknowledged.
                let p = self.progress.borrow();
                Err(if p.acknowledged < seq {
                    Error::NotAcknowledged {
                        waited: self.timeout,
                    }
                } else {
                    timed_out(self.timeout)
                })
            }
            Ok(Err(_)) => Err(Error::Closed {
                document: String::new(),
            }),
            Ok(Ok(p)) => {
                if done(&p) {
                    Ok(self.started.elapsed())
                } else {
                    Err(p.failure.clone().expect("checked above").error)
                }
            }
        }
    }
}

/// A live session on one document. Dropping it stops its tasks without saving; call
/// [`DocumentSession::close`] to flush pending saves and leave cleanly.
pub struct DocumentSession {
    shared: Arc<Shared>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

struct Shared {
    id: Uuid,
    name: String,
    metadata: crate::rest::Document,
    client: DocsClient,
    content_api: ContentApi,
    ws_url: Url,
    options: SessionOptions,
    doc: Doc,
    awareness: Mutex<Awareness>,
    state: Mutex<State>,
    progress: watch::Sender<Progress>,
    /// Bumped on every change of the document, local or remote.
    version: watch::Sender<u64>,
    closing: watch::Sender<bool>,
    save_wanted: Notify,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    connects: AtomicU64,
    last_activity: Mutex<SystemTime>,
}

struct State {
    read_only: bool,
    /// The outgoing queue of the current connection, once it is open.
    outbox: Option<mpsc::UnboundedSender<Vec<u8>>>,
    /// Our Step2 went out on the current connection: later writes go as Updates.
    step2_sent: bool,
    /// For each Step2/Update sent on this connection, the highest write it covers.
    in_flight: VecDeque<u64>,
    last_seq: u64,
}

/// How one connection ended.
enum Ended {
    Closing,
    /// The server closed this document's session (rights changed): re-check and reconnect.
    Reset(String),
    PermissionDenied(String),
    Lost(String),
    Final(Error),
}

impl DocumentSession {
    /// Opens a document: loads its stored content from REST, connects, and returns once
    /// the first sync with the room completed.
    pub async fn open(client: DocsClient, id: Uuid, options: SessionOptions) -> Result<Self> {
        let meta = client.document(id).await?;
        if !meta.abilities.retrieve || !meta.abilities.can_read_content() {
            return Err(Error::Forbidden {
                detail: format!("document {id} may not be read by this user"),
            });
        }
        let content_api = DocsClient::content_api_of(&meta);
        let stored = client.content(&meta).await?;
        let ws_url = client.collaboration_url().await?;

        let doc = Doc::with_options(Options {
            guid: id.to_string().into(),
            offset_kind: OffsetKind::Utf16,
            ..Options::default()
        });
        if !stored.update.is_empty() {
            let update = Update::decode_v1(&stored.update).map_err(|e| Error::BadContent {
                document: id.to_string(),
                detail: e.to_string(),
            })?;
            doc.transact_mut_with(REMOTE_ORIGIN)
                .apply_update(update)
                .map_err(|e| Error::BadContent {
                    document: id.to_string(),
                    detail: e.to_string(),
                })?;
        }
        let mut awareness = Awareness::new(doc.clone());
        awareness
            .set_local_state(options.presence.awareness_state())
            .expect("presence serializes");

        let read_only = !meta.abilities.update;
        let shared = Arc::new(Shared {
            id,
            name: id.to_string(),
            metadata: meta,
            client,
            content_api,
            ws_url,
            doc,
            awareness: Mutex::new(awareness),
            state: Mutex::new(State {
                read_only,
                outbox: None,
                step2_sent: false,
                in_flight: VecDeque::new(),
                last_seq: 0,
            }),
            progress: watch::Sender::new(Progress::default()),
            version: watch::Sender::new(0),
            closing: watch::Sender::new(false),
            save_wanted: Notify::new(),
            bytes_in: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            connects: AtomicU64::new(0),
            last_activity: Mutex::new(SystemTime::now()),
            options,
        });
        // The first connect's budget is paid here, so the sync timer below measures syncing.
        shared.client.spend_budget().await?;
        let session = DocumentSession {
            tasks: Mutex::new(vec![
                tokio::spawn(connection_loop(shared.clone())),
                tokio::spawn(save_loop(shared.clone())),
            ]),
            shared,
        };

        let mut progress = session.shared.progress.subscribe();
        let synced = tokio::time::timeout(
            session.shared.options.sync_timeout,
            progress.wait_for(|p| p.synced || p.failure.is_some()),
        )
        .await;
        let outcome = match synced {
            Ok(Ok(p)) => match &p.failure {
                Some(f) => Err(f.error.clone()),
                None => Ok(()),
            },
            Ok(Err(_)) => Err(session.closed_error()),
            Err(_) => Err(Error::SyncTimeout {
                waited: session.shared.options.sync_timeout,
            }),
        };
        match outcome {
            Ok(()) => Ok(session),
            Err(e) => {
                session.abort();
                Err(e)
            }
        }
    }

    pub fn id(&self) -> Uuid {
        self.shared.id
    }

    /// The document's metadata as loaded when the session opened.
    pub fn metadata(&self) -> &crate::rest::Document {
        &self.shared.metadata
    }

    /// The live Y.Doc, for reading. Write only through [`DocumentSession::write`] so the
    /// change is sent, acknowledged and saved.
    pub fn doc(&self) -> &Doc {
        self.touch();
        &self.shared.doc
    }

    /// Whether this user may only read the document.
    pub fn is_read_only(&self) -> bool {
        self.shared.lock_state().read_only
    }

    /// The current progress of writes (a `watch` to await changes).
    pub fn progress(&self) -> watch::Receiver<Progress> {
        self.shared.progress.subscribe()
    }

    /// A counter bumped on every change of the document, local or remote.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.version.subscribe()
    }

    /// Whether the session ended for good (it must be reopened).
    pub fn is_failed(&self) -> bool {
        self.shared.progress.borrow().failure.is_some()
    }

    /// Applies `change` to the live document in one transaction and sends it. The returned
    /// [`PendingWrite`] resolves once the room acknowledged it and it was saved.
    ///
    /// `change` must validate its input before mutating: whatever it changed is sent.
    pub fn write<R>(
        &self,
        change: impl FnOnce(&mut TransactionMut<'_>) -> R,
    ) -> Result<PendingWrite<R>> {
        self.touch();
        let shared = &self.shared;
        let mut state = shared.lock_state();
        if let Some(failure) = &shared.progress.borrow().failure {
            return Err(failure.error.clone());
        }
        if state.read_only {
            return Err(Error::ReadOnly {
                document: shared.name.clone(),
            });
        }
        let (value, update) = {
            let mut txn = shared.doc.transact_mut_with(LOCAL_ORIGIN);
            let value = change(&mut txn);
            let update = txn.encode_update_v1();
            (value, update)
        };
        let changed = Update::decode_v1(&update).is_ok_and(|u| !u.is_empty());
        if !changed {
            return Ok(self.pending(0, value));
        }
        state.last_seq += 1;
        let seq = state.last_seq;
        shared.progress.send_modify(|p| p.written = seq);
        if state.step2_sent
            && let Some(outbox) = &state.outbox
        {
            let frame = Frame::new(&shared.name, Message::Sync(Sync::Update(update)));
            if outbox.send(frame.encode()).is_ok() {
                state.in_flight.push_back(seq);
            }
        }
        drop(state);
        shared.version.send_modify(|v| *v += 1);
        Ok(self.pending(seq, value))
    }

    /// Applies an update computed elsewhere (e.g. on a fork of this document) as a write.
    pub fn apply_update(&self, update: &[u8]) -> Result<PendingWrite<()>> {
        let update = Update::decode_v1(update).map_err(|e| Error::BadContent {
            document: self.shared.name.clone(),
            detail: e.to_string(),
        })?;
        let applied = self.write(|txn| txn.apply_update(update))?;
        if let Err(e) = &applied.value {
            return Err(Error::BadContent {
                document: self.shared.name.clone(),
                detail: e.to_string(),
            });
        }
        Ok(PendingWrite {
            seq: applied.seq,
            value: (),
            progress: applied.progress,
            started: applied.started,
            timeout: applied.timeout,
        })
    }

    fn pending<R>(&self, seq: u64, value: R) -> PendingWrite<R> {
        PendingWrite {
            seq,
            value,
            progress: self.shared.progress.subscribe(),
            started: Instant::now(),
            timeout: self.shared.options.write_timeout,
        }
    }

    /// Waits until every write made so far is saved (or failed), up to `timeout`.
    pub async fn flush(&self, timeout: Duration) -> Result<()> {
        let target = self.shared.progress.borrow().written;
        let mut progress = self.shared.progress.subscribe();
        let result = tokio::time::timeout(
            timeout,
            progress.wait_for(|p| p.saved >= target || p.failure.is_some()),
        )
        .await
        .map(|r| r.map(|p| p.clone()));
        match result {
            Err(_) => Err(if progress.borrow().acknowledged < target {
                Error::NotAcknowledged { waited: timeout }
            } else {
                Error::NotSaved { waited: timeout }
            }),
            Ok(Err(_)) => Err(self.closed_error()),
            Ok(Ok(p)) => match &p.failure {
                Some(f) if f.from <= target && p.saved < target => Err(f.error.clone()),
                _ => Ok(()),
            },
        }
    }

    /// Saves what is pending, leaves the document (presence cleared) and stops.
    pub async fn close(&self) -> Result<()> {
        let flushed = self.flush(self.shared.options.write_timeout).await;
        self.shared.closing.send_replace(true);
        let tasks = std::mem::take(&mut *self.tasks.lock().expect("tasks lock"));
        for task in tasks {
            let _ = task.await;
        }
        flushed
    }

    fn abort(&self) {
        self.shared.closing.send_replace(true);
        for task in self.tasks.lock().expect("tasks lock").drain(..) {
            task.abort();
        }
    }

    /// Participants other than us, by the name their presence announces.
    pub fn collaborators(&self) -> Vec<String> {
        self.shared.collaborators()
    }

    /// Changes the name and colour other participants see (a no-op when unchanged).
    pub fn set_presence(&self, presence: &Presence) {
        let frame = {
            let mut awareness = self.shared.awareness.lock().expect("awareness lock");
            let wanted = presence.awareness_state();
            if awareness.local_state::<serde_json::Value>().as_ref() == Some(&wanted) {
                return;
            }
            awareness
                .set_local_state(presence.awareness_state())
                .expect("presence serializes");
            self.shared.awareness_frame(&awareness)
        };
        self.shared.send(frame);
    }

    pub fn snapshot(&self) -> SessionSnapshot {
        let shared = &self.shared;
        let progress = shared.progress.borrow().clone();
        SessionSnapshot {
            document_id: shared.id,
            connected: progress.connected,
            read_only: shared.lock_state().read_only,
            error: progress.failure.as_ref().map(|f| f.error.to_string()),
            last_activity: *shared.last_activity.lock().expect("activity lock"),
            pending_acks: progress.written - progress.acknowledged.min(progress.written),
            pending_saves: progress.acknowledged.saturating_sub(progress.saved),
            bytes_in: shared.bytes_in.load(Ordering::Relaxed),
            bytes_out: shared.bytes_out.load(Ordering::Relaxed),
            connects: shared.connects.load(Ordering::Relaxed),
            collaborators: shared.collaborators(),
        }
    }

    /// Time since the session was last used by a caller.
    pub fn idle_for(&self) -> Duration {
        let last = *self.shared.last_activity.lock().expect("activity lock");
        SystemTime::now().duration_since(last).unwrap_or_default()
    }

    fn touch(&self) {
        *self.shared.last_activity.lock().expect("activity lock") = SystemTime::now();
    }

    fn closed_error(&self) -> Error {
        Error::Closed {
            document: self.shared.name.clone(),
        }
    }
}

impl Drop for DocumentSession {
    fn drop(&mut self) {
        self.abort();
    }
}

impl Shared {
    fn lock_state(&self) -> MutexGuard<'_, State> {
        self.state.lock().expect("session state lock")
    }

    fn send(&self, bytes: Vec<u8>) {
        if let Some(outbox) = &self.lock_state().outbox {
            let _ = outbox.send(bytes);
        }
    }

    fn awareness_frame(&self, awareness: &Awareness) -> Vec<u8> {
        let update = awareness
            .update_with_clients([awareness.client_id()])
            .expect("our own state is known");
        Frame::new(&self.name, Message::Awareness(update.encode_v1())).encode()
    }

    /// Renews our presence (a higher clock) and returns the message announcing it.
    fn renewed_awareness(&self) -> Vec<u8> {
        let mut awareness = self.awareness.lock().expect("awareness lock");
        if let Some(state) = awareness.local_state_raw() {
            awareness.set_local_state_raw(state);
        }
        self.awareness_frame(&awareness)
    }

    fn leaving_awareness(&self) -> Vec<u8> {
        let mut awareness = self.awareness.lock().expect("awareness lock");
        awareness.clean_local_state();
        self.awareness_frame(&awareness)
    }

    fn collaborators(&self) -> Vec<String> {
        let awareness = self.awareness.lock().expect("awareness lock");
        let me = awareness.client_id();
        let now_ms = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis() as u64;
        let mut names: Vec<String> = awareness
            .iter()
            .filter(|(id, state)| *id != me && now_ms.saturating_sub(state.last_updated) < 30_000)
            .filter_map(|(_, state)| Presence::name_in(state.data.as_deref()?))
            .collect();
        names.sort();
        names
    }

    fn fail(&self, error: Error) {
        tracing::warn!(document = %self.id, %error, "session ended");
        self.progress.send_modify(|p| {
            if p.failure.is_none() {
                p.failure = Some(Failure {
                    from: p.saved + 1,
                    error,
                });
            }
            p.connected = false;
        });
    }

    /// Sends our Step2 (everything the room lacks) in answer to the room's Step1.
    fn answer_step1(&self, room: &StateVector) {
        let mut state = self.lock_state();
        let diff = self.doc.transact().encode_diff_v1(room);
        let frame = Frame::new(&self.name, Message::Sync(Sync::Step2(diff)));
        if let Some(outbox) = &state.outbox
            && outbox.send(frame.encode()).is_ok()
        {
            let covers = state.last_seq;
            state.in_flight.push_back(covers);
            state.step2_sent = true;
        }
    }

    fn apply_remote(&self, update: &[u8]) -> std::result::Result<(), String> {
        let update = Update::decode_v1(update).map_err(|e| e.to_string())?;
        self.doc
            .transact_mut_with(REMOTE_ORIGIN)
            .apply_update(update)
            .map_err(|e| e.to_string())?;
        self.version.send_modify(|v| *v += 1);
        Ok(())
    }

    fn on_sync_status(&self, applied: bool) {
        let covers = {
            let mut state = self.lock_state();
            let covers = state.in_flight.pop_front();
            if !applied {
                state.read_only = true;
            }
            covers
        };
        let Some(covers) = covers else {
            tracing::warn!(document = %self.id, "SyncStatus without a message in flight");
            return;
        };
        if applied {
            self.progress.send_modify(|p| {
                p.acknowledged = p.acknowledged.max(covers);
            });
            self.save_wanted.notify_one();
        } else if covers > self.progress.borrow().acknowledged {
            // The room refused writes we already applied locally: the local document now
            // differs from the room's for good, so the session must end.
            let error = Error::ReadOnly {
                document: self.name.clone(),
            };
            self.progress.send_modify(|p| {
                if p.failure.is_none() {
                    p.failure = Some(Failure {
                        from: p.acknowledged + 1,
                        error,
                    });
                }
            });
        } else {
            // A read-only connection's handshake carried state loaded from REST that the
            // (empty) room lacks; the room keeps none of it, and no write of ours was refused.
            tracing::debug!(document = %self.id, "the room refused the stored state of a read-only session");
        }
    }

    /// Handles one message of the room; `Some` ends the connection.
    fn on_message(&self, message: Message) -> Option<Ended> {
        match message {
            Message::Authenticated { read_only } => {
                self.lock_state().read_only = read_only;
            }
            Message::PermissionDenied(reason) => return Some(Ended::PermissionDenied(reason)),
            Message::Sync(Sync::Step1(room)) => self.answer_step1(&room),
            Message::Sync(Sync::Step2(update)) => {
                if let Err(e) = self.apply_remote(&update) {
                    return Some(Ended::Lost(format!("bad Step2 from the room: {e}")));
                }
                self.progress.send_modify(|p| {
                    p.synced = true;
                    p.connected = true;
                });
            }
            Message::Sync(Sync::Update(update)) => {
                if let Err(e) = self.apply_remote(&update) {
                    return Some(Ended::Lost(format!("bad update from the room: {e}")));
                }
            }
            Message::SyncStatus(applied) => self.on_sync_status(applied),
            Message::Awareness(bytes) => match AwarenessUpdate::decode_v1(&bytes) {
                Ok(update) => {
                    let _ = self
                        .awareness
                        .lock()
                        .expect("awareness lock")
                        .apply_update(update);
                }
                Err(e) => tracing::debug!(document = %self.id, "ignored awareness: {e}"),
            },
            Message::QueryAwareness => {
                let awareness = self.awareness.lock().expect("awareness lock");
                let frame = self.awareness_frame(&awareness);
                drop(awareness);
                self.send(frame);
            }
            Message::Close(reason) => return Some(Ended::Reset(reason)),
            Message::Stateless(_) | Message::AuthToken(_) => {}
        }
        None
    }

    fn disconnected(&self) {
        let mut state = self.lock_state();
        state.outbox = None;
        state.step2_sent = false;
        state.in_flight.clear();
        drop(state);
        self.progress.send_modify(|p| p.connected = false);
    }

    /// After the room reset our connection (rights changed) or denied it: ask REST what we
    /// may do now. `Err` when we may no longer read the document.
    async fn recheck_rights(&self) -> Result<()> {
        let meta = self.client.document(self.id).await?;
        if !meta.abilities.retrieve {
            return Err(Error::Forbidden {
                detail: format!("access to document {} was withdrawn", self.id),
            });
        }
        self.lock_state().read_only = !meta.abilities.update;
        Ok(())
    }

    fn ws_request(&self) -> Result<tungstenite::handshake::client::Request> {
        let mut url = self.ws_url.clone();
        url.query_pairs_mut().append_pair("room", &self.name);
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|e| Error::Network {
                detail: format!("bad collaboration URL {url}: {e}"),
            })?;
        // The collaboration server refuses sockets without a cookie; an anonymous client
        // that was handed no session cookie still needs to send one.
        let cookie = self
            .client
            .cookie_header()
            .unwrap_or_else(|| "docs_mcp_anonymous=1".to_owned());
        let headers = request.headers_mut();
        let header = |v: &str| {
            HeaderValue::from_str(v).map_err(|e| Error::Network {
                detail: format!("bad header value: {e}"),
            })
        };
        headers.insert("Origin", header(&self.client.instance().origin())?);
        headers.insert("Cookie", header(&cookie)?);
        headers.insert(
            "User-Agent",
            header(concat!("lasuite-docs-mcp/", env!("CARGO_PKG_VERSION")))?,
        );
        Ok(request)
    }
}

async fn connection_loop(shared: Arc<Shared>) {
    let mut closing = shared.closing.subscribe();
    let mut attempt: u32 = 0;
    let mut paid = true;
    loop {
        if *closing.borrow() {
            break;
        }
        let (ended, synced) = connect_once(&shared, &mut closing, std::mem::take(&mut paid)).await;
        shared.disconnected();
        if synced {
            attempt = 0;
        }
        let delay = match ended {
            Ended::Closing => break,
            Ended::Final(error) => {
                shared.fail(error);
                break;
            }
            Ended::Reset(reason) | Ended::PermissionDenied(reason) => {
                tracing::info!(document = %shared.id, %reason, "connection reset; re-checking rights");
                match shared.recheck_rights().await {
                    Ok(()) => {
                        attempt += 1;
                        backoff(&shared.options, attempt)
                    }
                    Err(e) if !e.is_transient() => {
                        shared.fail(e);
                        break;
                    }
                    Err(_) => {
                        attempt += 1;
                        backoff(&shared.options, attempt)
                    }
                }
            }
            Ended::Lost(reason) => {
                attempt += 1;
                let delay = backoff(&shared.options, attempt);
                tracing::info!(document = %shared.id, %reason, ?delay, "connection lost; reconnecting");
                delay
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = closing.changed() => {}
        }
    }
}

fn backoff(options: &SessionOptions, attempt: u32) -> Duration {
    let exp = options
        .reconnect_initial
        .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
    let capped = exp.min(options.reconnect_max);
    capped.mul_f64(rand::rng().random_range(0.75..1.25))
}

/// Runs one WebSocket connection until it ends; also says whether it reached sync.
/// `paid`: the rate budget of this connect was already spent.
async fn connect_once(
    shared: &Shared,
    closing: &mut watch::Receiver<bool>,
    paid: bool,
) -> (Ended, bool) {
    let request = match shared.ws_request() {
        Ok(r) => r,
        Err(e) => return (Ended::Final(e), false),
    };
    // The collaboration server asks the backend about our rights with our cookie: that
    // call counts against the same per-user budget.
    if !paid && let Err(e) = shared.client.spend_budget().await {
        return (Ended::Lost(e.to_string()), false);
    }
    shared.connects.fetch_add(1, Ordering::Relaxed);
    let connected = tokio::time::timeout(
        shared.options.connect_timeout,
        tokio_tungstenite::connect_async(request),
    )
    .await;
    let socket = match connected {
        Err(_) => return (Ended::Lost("connection attempt timed out".into()), false),
        Ok(Err(tungstenite::Error::Http(response))) => {
            let status = response.status().as_u16();
            let ended = if matches!(status, 401 | 403 | 404) {
                Ended::Final(Error::ConnectionRefused {
                    code: status,
                    reason: format!("HTTP {status} on the collaboration endpoint"),
                })
            } else {
                Ended::Lost(format!("HTTP {status} on the collaboration endpoint"))
            };
            return (ended, false);
        }
        Ok(Err(e)) => return (Ended::Lost(e.to_string()), false),
        Ok(Ok((socket, _))) => socket,
    };
    let (mut sink, mut stream) = socket.split();
    let (outbox, mut queue) = mpsc::unbounded_channel::<Vec<u8>>();
    {
        let mut state = shared.lock_state();
        state.outbox = Some(outbox.clone());
        state.step2_sent = false;
        state.in_flight.clear();
    }
    let state_vector = shared.doc.transact().state_vector();
    for frame in [
        Frame::new(&shared.name, Message::AuthToken(String::new())).encode(),
        Frame::new(&shared.name, Message::Sync(Sync::Step1(state_vector))).encode(),
        shared.renewed_awareness(),
    ] {
        let _ = outbox.send(frame);
    }
    let mut renew = tokio::time::interval(shared.options.awareness_interval);
    renew.reset();
    let mut synced = false;
    let ended = loop {
        tokio::select! {
            _ = closing.changed() => {
                let _ = send_bytes(shared, &mut sink, shared.leaving_awareness()).await;
                let _ = sink.send(tungstenite::Message::Close(None)).await;
                break Ended::Closing;
            }
            Some(bytes) = queue.recv() => {
                if let Err(e) = send_bytes(shared, &mut sink, bytes).await {
                    break Ended::Lost(format!("send failed: {e}"));
                }
            }
            _ = renew.tick() => {
                let _ = outbox.send(shared.renewed_awareness());
            }
            incoming = stream.next() => match incoming {
                None => break Ended::Lost("the server closed the connection".into()),
                Some(Err(e)) => break Ended::Lost(e.to_string()),
                Some(Ok(tungstenite::Message::Binary(bytes))) => {
                    shared.bytes_in.fetch_add(bytes.len() as u64, Ordering::Relaxed);
                    match Frame::decode(&bytes) {
                        Ok(frame) if frame.document == shared.name => {
                            if let Some(ended) = shared.on_message(frame.message) {
                                break ended;
                            }
                            synced = synced || shared.progress.borrow().connected;
                        }
                        Ok(_) => {}
                        Err(e) => tracing::debug!(document = %shared.id, "ignored message: {e}"),
                    }
                }
                Some(Ok(tungstenite::Message::Close(frame))) => break closed_by_server(frame),
                Some(Ok(_)) => {}
            },
        }
    };
    (ended, synced)
}

async fn send_bytes<S>(shared: &Shared, sink: &mut S, bytes: Vec<u8>) -> Result<(), S::Error>
where
    S: futures_util::Sink<tungstenite::Message> + Unpin,
{
    shared
        .bytes_out
        .fetch_add(bytes.len() as u64, Ordering::Relaxed);
    sink.send(tungstenite::Message::Binary(bytes.into())).await
}

/// Close codes 4001 (Docs: origin/cookie), 4401 and 4403 are final; the rest is retried.
fn closed_by_server(frame: Option<tungstenite::protocol::CloseFrame>) -> Ended {
    let Some(frame) = frame else {
        return Ended::Lost("the server closed the connection".into());
    };
    let code = u16::from(frame.code);
    let reason = frame.reason.to_string();
    match code {
        4001 | 4401 | 4403 | 1008 => Ended::Final(Error::ConnectionRefused { code, reason }),
        4205 => Ended::Reset(reason),
        _ => Ended::Lost(format!("closed by the server ({code} {reason})")),
    }
}

/// Saves the document through REST after acknowledged local writes, at most once per
/// `save_interval`, covering every write acknowledged when the save starts.
async fn save_loop(shared: Arc<Shared>) {
    let mut closing = shared.closing.subscribe();
    let mut last_start: Option<Instant> = None;
    let mut failures: u32 = 0;
    loop {
        let needed = {
            let p = shared.progress.borrow();
            p.failure.is_none() && p.acknowledged > p.saved
        };
        if !needed {
            if *closing.borrow() || shared.progress.borrow().failure.is_some() {
                break;
            }
            tokio::select! {
                _ = shared.save_wanted.notified() => {}
                _ = closing.changed() => {}
            }
            continue;
        }
        if let Some(start) = last_start {
            tokio::time::sleep_until(start + shared.options.save_interval).await;
        }
        let target = shared.progress.borrow().acknowledged;
        let state = shared
            .doc
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        last_start = Some(Instant::now());
        match shared
            .client
            .save_content(shared.id, shared.content_api, &state)
            .await
        {
            Ok(()) => {
                failures = 0;
                shared
                    .progress
                    .send_modify(|p| p.saved = p.saved.max(target));
            }
            Err(e) if !e.is_transient() => {
                shared.fail(e);
                break;
            }
            Err(e) => {
                failures += 1;
                let delay = backoff(&shared.options, failures);
                tracing::warn!(document = %shared.id, error = %e, ?delay, "save failed; retrying");
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = closing.changed() => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tungstenite::protocol::CloseFrame;
    use tungstenite::protocol::frame::coding::CloseCode;

    fn close(code: u16, reason: &'static str) -> Ended {
        closed_by_server(Some(CloseFrame {
            code: CloseCode::from(code),
            reason: reason.into(),
        }))
    }

    #[test]
    fn close_codes_docs_uses_for_refusals_are_final() {
        let Ended::Final(error) = close(4001, "Origin not allowed") else {
            panic!("4001 is final")
        };
        assert_eq!(
            error.to_string(),
            "the collaboration server refused the connection (4001: Origin not allowed) — the instance refused this client's Origin or cookies; check the instance URL"
        );
        assert!(matches!(close(4401, "Unauthorized"), Ended::Final(_)));
        assert!(matches!(close(4403, "Forbidden"), Ended::Final(_)));
        assert!(
            matches!(close(4205, "Reset Connection"), Ended::Reset(r) if r == "Reset Connection")
        );
        assert!(matches!(close(4408, "Connection Timeout"), Ended::Lost(_)));
        assert!(matches!(close(1001, "going away"), Ended::Lost(_)));
        assert!(matches!(closed_by_server(None), Ended::Lost(_)));
    }

    #[test]
    fn backoff_grows_to_the_cap_with_jitter() {
        let options = SessionOptions::default();
        for attempt in 1..40 {
            let delay = backoff(&options, attempt);
            let base = options
                .reconnect_initial
                .saturating_mul(1 << (attempt - 1).min(16))
                .min(options.reconnect_max);
            assert!(
                delay >= base.mul_f64(0.75) && delay <= base.mul_f64(1.25),
                "{attempt}: {delay:?}"
            );
        }
        assert!(backoff(&options, 1) <= Duration::from_millis(1250));
        assert!(backoff(&options, 30) >= Duration::from_millis(22_500));
    }
}
