//! A live session on one document: content loaded from REST, kept in sync over the
//! collaboration WebSocket, local edits sent, acknowledged and saved back through REST — or,
//! on yhub (Docs' next collaboration server), content and durability from the server itself.
//!
//! One task, the actor (`actor`), owns every part of a session that changes: the connection,
//! awareness, the bookkeeping of writes, the save timer, closing. [`DocumentSession`] is its
//! handle: writes go to the actor on a bounded channel and are answered there; everything a
//! caller reads without asking (progress, collaborators, counters) is published by the actor
//! through watches and atomics. Reads of the document go straight to the shared `yrs::Doc`,
//! which locks itself; no lock of the session is ever held while caller code runs.
//!
//! Invariants:
//! - Every local write gets a sequence number. On Hocuspocus, a write is *acknowledged* when
//!   the room answered SyncStatus(1) for the message that carried it (an Update, or the Step2
//!   of a later handshake, which carries everything the room lacks), and *saved* when a
//!   `PATCH content/` started after that acknowledgement succeeded; the room itself stores
//!   nothing. On yhub, which stores what it takes and acknowledges nothing, a write is
//!   acknowledged and saved at once when what the server sent back shows it holds the write
//!   (`confirm`), or when yhub's REST route took it. Callers are told a write is done only
//!   once it is saved: `PendingWrite::saved` resolves then, `acknowledged()` at the first.
//!   `persist()` is a write without a change: acknowledged once every earlier write is, so the
//!   next save (which starts after it) covers it.
//! - A save says whether we are in the room (`websocket`, Docs'
//!   `COLLABORATION_WS_NOT_CONNECTED_READ_ONLY` rule); one refused (403) while out of the
//!   room is retried, and goes through once we are back.
//! - Caller code never runs under a lock of the session: `write(change)` sends `change` to
//!   the actor, which runs it in a `LOCAL_ORIGIN` transaction taken with yrs' async lock (no
//!   worker thread blocks waiting for readers); a panic in `change` is re-raised in the
//!   caller. A queued write is made even if its caller goes away.
//! - Hocuspocus's acknowledgements arrive in the order messages were sent (one SyncStatus per
//!   Step2 or Update), so a FIFO of "highest sequence this message covers" maps each
//!   SyncStatus to the writes it confirms.
//! - Writes made while disconnected stay in the local document and reach the room in the
//!   Step2 of the next handshake. To an empty room, the first Step2 is the stored content the
//!   document was just loaded from, as it is, while the document's version has not moved
//!   since (`actor::Loaded`): the same state, not encoded again.
//! - A WebSocket ping goes every `ping_interval` (10 s). A connection from which nothing
//!   (message or pong) arrived for `liveness_timeout` (30 s) is dead: it is dropped and
//!   redone with backoff, as browsers' providers do.
//! - One failure boundary: a failure (refused write, withdrawn rights, refused save, close
//!   deadline) fails every write not saved yet (`Failure::from = saved + 1`), at once, and
//!   ends the session; nothing is saved after it.
//! - [`DocumentSession::close`] returns within the write timeout, whatever the room or the
//!   instance do. It keeps serving (writes still queued are made) until every write is saved,
//!   or until 1 s before the write timeout; then unsaved writes fail with [`Error::NotSaved`],
//!   and the session leaves the room (presence cleared, within 0.5 s) and stops. A save made
//!   while closing waits for the request budget (ours, or the instance's `Retry-After`) only
//!   as long as the close has left (`DocsClient::waiting_at_most`); when the budget is not
//!   back before then, the close ends at once with `Throttled`. A task still running at the
//!   write timeout is aborted. Quit, `serve` shutdown and the reaper never hang on an
//!   unreachable instance.
//! - Every queue is bounded, with a policy when full: commands, 64 (callers wait for room);
//!   presence, one value (the newest wins); the outbox's protocol frames (Auth, Step1,
//!   Step2), 16 (more means the socket is not read, and the connection is redone); local
//!   updates not yet sent, merged into one Update (32 kept apart at most) and held back while
//!   1024 sync messages await acknowledgement (Hocuspocus; on yhub, 1024 writes the server
//!   has not shown it holds: more, and the connection is redone, its first message showing
//!   what it holds); presence renewals and pings, one slot each (see `outbox`).
//!
//! Two collaboration servers: what differs is decided by `CollaborationEndpoint::server()` at
//! open, in a few places: the wire (`protocol::Wire`), the room URL, the handshake
//! (Hocuspocus: Auth then Step1; yhub: Step1 only, which yhub ignores as it sends Step1 and
//! its whole state first), the close codes (Hocuspocus: 4001/4401/4403 final, 4205 re-check;
//! yhub: 4404 final, other 44xx re-check, 1011/1013 retried), and how a write becomes durable
//! (above; on yhub no content load and no REST save: `Ledger::new(_, server_persists)`).
//! yhub's socket says nothing of rights: read-only comes from REST at open and after every
//! reconnection (`rights_check`), and a reader's connection publishes no presence (yhub
//! refuses it). When no socket gets through (a proxy that does not pass WebSockets), a
//! session never synced reads the room's state through yhub's REST route (`link`) and keeps
//! trying to connect; writes not held after two failed attempts in a row (or at close) are
//! merged through `PATCH` of the same route (the whole state: yhub applies only what it
//! lacks), held once it answers.

mod actor;
mod confirm;
mod integrate;
mod ledger;
mod link;
mod load;
mod open;
mod options;
mod outbox;
mod pending;
mod retry;
mod save;
mod touch;
mod weight;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::{AbortHandle, JoinHandle};
use tokio::time::Instant;
use uuid::Uuid;
use yrs::updates::decoder::Decode;
use yrs::{Doc, TransactionMut, Update};

use self::actor::{Command, WriteRequest};
pub use self::options::{LoadedHook, SessionOptions};
pub use self::pending::{Failure, PendingWrite, Progress, WriteReceipt};
pub use self::touch::Touch;
use crate::collaboration::{CollaborationEndpoint, CollaborationServer};
use crate::error::{Error, Result};
use crate::presence::{CommentsPing, Presence};
use crate::protocol::Wire;
use crate::rest::Document;

/// Transaction origin of writes made through [`DocumentSession::write`].
pub const LOCAL_ORIGIN: &str = "lasuite-docs-mcp";
/// Transaction origin of updates received from the collaboration server.
pub const REMOTE_ORIGIN: &str = "collaboration-server";

/// What a UI shows of a session.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SessionSnapshot {
    pub document_id: Uuid,
    /// The kind of server the room is on.
    pub collaboration: CollaborationServer,
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

/// What the handle and the actor share: fixed facts, and what the actor publishes.
struct Shared {
    id: Uuid,
    name: String,
    /// Where the room is, on which kind of server, and how its messages are framed.
    endpoint: CollaborationEndpoint,
    wire: Wire,
    doc: Doc,
    /// The document's `document-store` (taken once: getting a root type needs a write
    /// transaction).
    fragment: yrs::XmlFragmentRef,
    options: SessionOptions,
    progress: watch::Sender<Progress>,
    /// Callers wait for the saves of the writes up to this one: the actor saves at once.
    save_now: watch::Sender<u64>,
    /// Bumped on every change of the document, local or remote.
    version: watch::Sender<u64>,
    read_only: AtomicBool,
    /// Other participants' presence, as last announced.
    peers: watch::Sender<Vec<Peer>>,
    /// The writes a person's concurrent typing may still meet, and those taken back.
    touches: watch::Sender<touch::TouchBoard>,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    connects: AtomicU64,
    /// What the document weighs in memory, estimated.
    weight: weight::Weight,
    /// When a caller last used the session (ms since the Unix epoch).
    last_activity_ms: AtomicU64,
}

/// Another participant of the room.
#[derive(Debug, Clone, PartialEq)]
struct Peer {
    name: String,
    /// When their state was last renewed (ms since the Unix epoch).
    seen_ms: u64,
}

impl Peer {
    /// Whether their state was renewed recently enough to count them in the room.
    fn is_present(&self) -> bool {
        seen_recently(self.seen_ms)
    }
}

/// Whether an awareness state renewed at `seen_ms` (ms since the Unix epoch) still counts
/// its client in the room.
fn seen_recently(seen_ms: u64) -> bool {
    now_ms().saturating_sub(seen_ms) < PEER_EXPIRY.as_millis() as u64
}

impl Shared {
    /// No other participant is present in the room.
    fn alone(&self) -> bool {
        !self.peers.borrow().iter().any(Peer::is_present)
    }
}

/// Remote states older than this are not shown (Docs' editor drops them after 30 s).
const PEER_EXPIRY: Duration = Duration::from_secs(30);

/// A live session on one document. Dropping it stops its task without saving; call
/// [`DocumentSession::close`] to flush pending saves and leave cleanly.
pub struct DocumentSession {
    shared: Arc<Shared>,
    metadata: Document,
    commands: mpsc::Sender<Command>,
    presence: watch::Sender<Presence>,
    closing: watch::Sender<bool>,
    actor: tokio::sync::Mutex<Option<JoinHandle<()>>>,
    abort: AbortHandle,
}

/// Refuses an update of the room that nests types deeper than the model's Yjs limit: yrs would
/// overflow its stack deleting them. Returns the types it creates: content nested less deep
/// within one update can still add up across updates, which [`depth_after`] checks from them.
pub(crate) fn depth_door(document: Uuid, update: &[u8]) -> Result<crate::blocknote::UpdateTypes> {
    crate::blocknote::update_types(update).map_err(|e| too_deep(document, e))
}

/// Refuses a document that, once an update nesting types was applied, nests too deep.
pub(crate) fn depth_after<T: yrs::ReadTxn>(
    document: Uuid,
    txn: &T,
    fragment: &yrs::XmlFragmentRef,
) -> Result<()> {
    crate::blocknote::check_document_depth(txn, fragment).map_err(|e| too_deep(document, e))
}

/// [`depth_after`] for the `types` an update created, applied already: from them and the
/// levels above them, not a walk of the whole document.
pub(crate) fn depth_after_types<T: yrs::ReadTxn>(
    document: Uuid,
    txn: &T,
    types: &crate::blocknote::UpdateTypes,
) -> Result<()> {
    crate::blocknote::check_depth_after(txn, types).map_err(|e| too_deep(document, e))
}

fn too_deep(document: Uuid, error: crate::blocknote::ModelError) -> Error {
    match error {
        crate::blocknote::ModelError::DocumentTooDeep { depth, limit } => Error::TooDeep {
            document: document.to_string(),
            depth,
            limit,
        },
        other => Error::BadContent {
            document: document.to_string(),
            detail: other.to_string(),
        },
    }
}

impl DocumentSession {
    pub fn id(&self) -> Uuid {
        self.shared.id
    }

    /// The document's metadata as loaded when the session opened.
    pub fn metadata(&self) -> &Document {
        &self.metadata
    }

    /// The live Y.Doc, for reading. Write only through [`DocumentSession::write`] so the
    /// change is sent, acknowledged and saved.
    pub fn doc(&self) -> &Doc {
        self.touch();
        &self.shared.doc
    }

    /// The document's root fragment (BlockNote's blocks), to read and write through: getting
    /// it from the document takes the document's lock, which async code must not wait for.
    pub fn fragment(&self) -> &yrs::XmlFragmentRef {
        &self.shared.fragment
    }

    /// Whether this user may only read the document.
    pub fn is_read_only(&self) -> bool {
        self.shared.read_only.load(Ordering::Relaxed)
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

    /// Applies `change` to the live document in one transaction (origin [`LOCAL_ORIGIN`])
    /// and sends it. The returned [`PendingWrite`] resolves once the room acknowledged it and
    /// it was saved.
    ///
    /// `change` runs on the session's task, holding the document's write lock and nothing of
    /// the session: it may read the session's state, but must not open another transaction on
    /// the document. It must validate its input before mutating: whatever it changed is sent.
    /// A panic in `change` is re-raised here (what it changed before panicking is kept and
    /// sent, like any transaction's). Once queued, the write is made even if this future is
    /// dropped.
    pub async fn write<F, R>(&self, change: F) -> Result<PendingWrite<R>>
    where
        F: FnOnce(&mut TransactionMut<'_>) -> R + Send + 'static,
        R: Send + 'static,
    {
        self.write_with(change, false).await
    }

    /// [`write`](Self::write), watched for a person's typing that crosses it on the way: text
    /// they place against what it deleted, or in the gap it inserted into, without having
    /// seen it, would splice their words and the write's. Such a write is taken back at once
    /// (a write of its own, sent and saved like any), which leaves what the person typed as
    /// they typed it; [`touch_settled`](Self::touch_settled) tells.
    pub async fn write_watched<F, R>(&self, change: F) -> Result<PendingWrite<R>>
    where
        F: FnOnce(&mut TransactionMut<'_>) -> R + Send + 'static,
        R: Send + 'static,
    {
        self.write_with(change, true).await
    }

    async fn write_with<F, R>(&self, change: F, watched: bool) -> Result<PendingWrite<R>>
    where
        F: FnOnce(&mut TransactionMut<'_>) -> R + Send + 'static,
        R: Send + 'static,
    {
        let started = Instant::now();
        self.touch();
        self.check_writable()?;
        let (reply, answer) = oneshot::channel();
        let request = WriteRequest {
            change,
            watched,
            reply,
        };
        self.send(Command::Write(Box::new(request))).await?;
        let (seq, outcome) = answer.await.map_err(|_| self.stopped_error())??;
        let value = outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok(self.pending(seq, value, started))
    }

    /// Applies an update computed elsewhere (e.g. on a fork of this document) as a write.
    pub async fn apply_update(&self, update: &[u8]) -> Result<PendingWrite<()>> {
        let bad_content = |detail: String| Error::BadContent {
            document: self.shared.name.clone(),
            detail,
        };
        let update = Update::decode_v1(update).map_err(|e| bad_content(e.to_string()))?;
        let applied = self
            .write(move |txn| txn.apply_update(update).map_err(|e| e.to_string()))
            .await?;
        if let Err(detail) = applied.value() {
            return Err(bad_content(detail.clone()));
        }
        Ok(applied.with_value(()))
    }

    /// Waits until the watch of write `seq` ([`write_watched`](Self::write_watched)) ended —
    /// a couple of seconds after it was acknowledged, or when the session stops — and says
    /// whether it was taken back. An unwatched write is `Clear` at once.
    pub async fn touch_settled(&self, seq: u64) -> Touch {
        let mut board = self.shared.touches.subscribe();
        let ended = board.wait_for(|b| !b.watching.contains(&seq)).await;
        match ended.ok().and_then(|b| b.taken_back.get(&seq).copied()) {
            Some(by) => Touch::TakenBack { by },
            None => Touch::Clear,
        }
    }

    /// Asks for a save of the current state even when no local write is unsaved (the
    /// document may hold an edit that arrived from the room or from an earlier process).
    /// Resolves once every write made before the call is acknowledged and a save that
    /// started after the call succeeded; fails like a write.
    pub async fn persist(&self) -> Result<PendingWrite<()>> {
        let started = Instant::now();
        self.touch();
        self.check_writable()?;
        let (reply, answer) = oneshot::channel();
        self.send(Command::Persist(reply)).await?;
        let seq = answer.await.map_err(|_| self.stopped_error())??;
        Ok(self.pending(seq, (), started))
    }

    /// Saves every write made so far now (not at the end of the save interval) and waits
    /// until they are saved (or failed), up to `timeout`.
    pub async fn flush(&self, timeout: Duration) -> Result<()> {
        let target = self.shared.progress.borrow().written;
        self.shared
            .save_now
            .send_if_modified(|wanted| std::mem::replace(wanted, (*wanted).max(target)) < target);
        let mut progress = self.progress();
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
                Some(f) if p.saved < target => Err(f.error.clone()),
                _ => Ok(()),
            },
        }
    }

    /// Saves what is pending, leaves the document (presence cleared) and stops, within the
    /// write timeout: writes still unsaved then fail with [`Error::NotSaved`], which is also
    /// what this returns. Writes made while closing are still sent and saved.
    pub async fn close(&self) -> Result<()> {
        self.closing.send_replace(true);
        let mut actor = self.actor.lock().await;
        if let Some(task) = actor.as_mut() {
            let bound = self.shared.options.write_timeout;
            if tokio::time::timeout(bound, &mut *task).await.is_err() {
                // The actor is stuck (a caller holds the document's lock): stop it anyway.
                task.abort();
                ledger::fail(&self.shared.progress, Error::NotSaved { waited: bound });
            }
            *actor = None;
        }
        drop(actor);
        let p = self.shared.progress.borrow();
        match &p.failure {
            _ if p.saved >= p.written => Ok(()),
            Some(failure) => Err(failure.error.clone()),
            None => Err(self.closed_error()),
        }
    }

    /// Participants other than us, by the name their presence announces.
    pub fn collaborators(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .shared
            .peers
            .borrow()
            .iter()
            .filter(|peer| peer.is_present())
            .map(|peer| peer.name.clone())
            .collect();
        names.sort();
        names
    }

    /// Changes the name and colour other participants see (a no-op when unchanged); the last
    /// comments ping stays.
    pub fn set_presence(&self, presence: &Presence) {
        self.presence.send_if_modified(|current| {
            let wanted = Presence {
                comments_ping: current.comments_ping.clone(),
                ..presence.clone()
            };
            let changed = *current != wanted;
            if changed {
                *current = wanted;
            }
            changed
        });
    }

    /// Tells the other editors of the document that a comment thread changed (created,
    /// replied to, resolved…), as Docs' editor does: our awareness state gets a new
    /// `commentsPing` `{at, docId, threadId}` (see [`CommentsPing`]), and their editors reload
    /// that thread (every thread with `None`). Works on a read-only connection too: awareness
    /// is not a write.
    pub fn ping_comments(&self, thread: Option<Uuid>) {
        let doc_id = self.shared.id.to_string();
        self.presence.send_modify(|current| {
            // Editors skip a ping not newer than the last one they saw.
            let after = current.comments_ping.as_ref().map_or(0, |p| p.at + 1);
            current.comments_ping = Some(CommentsPing {
                at: now_ms().max(after),
                doc_id,
                thread_id: thread.map(|t| t.to_string()),
            });
        });
    }

    pub fn snapshot(&self) -> SessionSnapshot {
        let shared = &self.shared;
        let progress = shared.progress.borrow().clone();
        SessionSnapshot {
            document_id: shared.id,
            collaboration: shared.endpoint.server(),
            connected: progress.connected,
            read_only: self.is_read_only(),
            error: progress.failure.as_ref().map(|f| f.error.to_string()),
            last_activity: SystemTime::UNIX_EPOCH
                + Duration::from_millis(shared.last_activity_ms.load(Ordering::Relaxed)),
            pending_acks: progress.written.saturating_sub(progress.acknowledged),
            pending_saves: progress.acknowledged.saturating_sub(progress.saved),
            bytes_in: shared.bytes_in.load(Ordering::Relaxed),
            bytes_out: shared.bytes_out.load(Ordering::Relaxed),
            connects: shared.connects.load(Ordering::Relaxed),
            collaborators: self.collaborators(),
        }
    }

    /// What the session's document weighs in memory, in bytes: an estimate from the items
    /// and bytes it took in (see `weight`), to bound what open sessions hold together.
    pub fn weight(&self) -> u64 {
        self.shared.weight.bytes()
    }

    /// Time since the session was last used by a caller.
    pub fn idle_for(&self) -> Duration {
        let last = self.shared.last_activity_ms.load(Ordering::Relaxed);
        Duration::from_millis(now_ms().saturating_sub(last))
    }

    /// Unused for `ttl`, with every write saved — or failed, hence of no use any more.
    pub(crate) fn is_idle(&self, ttl: Duration) -> bool {
        let p = self.shared.progress.borrow();
        p.failure.is_some() || (p.saved >= p.written && self.idle_for() >= ttl)
    }

    /// Marks the session as used now.
    pub(crate) fn touch(&self) {
        self.shared
            .last_activity_ms
            .store(now_ms(), Ordering::Relaxed);
    }

    fn check_writable(&self) -> Result<()> {
        if let Some(failure) = &self.shared.progress.borrow().failure {
            return Err(failure.error.clone());
        }
        if self.is_read_only() {
            return Err(Error::ReadOnly {
                document: self.shared.name.clone(),
            });
        }
        Ok(())
    }

    async fn send(&self, command: Command) -> Result<()> {
        self.commands
            .send(command)
            .await
            .map_err(|_| self.stopped_error())
    }

    fn pending<R>(&self, seq: u64, value: R, started: Instant) -> PendingWrite<R> {
        PendingWrite::new(
            seq,
            value,
            self.progress(),
            self.shared.save_now.clone(),
            self.shared.name.clone(),
            started,
            self.shared.options.write_timeout,
        )
    }

    /// Why the actor no longer takes commands: its failure, or it was closed.
    fn stopped_error(&self) -> Error {
        match &self.shared.progress.borrow().failure {
            Some(failure) => failure.error.clone(),
            None => self.closed_error(),
        }
    }

    fn closed_error(&self) -> Error {
        Error::Closed {
            document: self.shared.name.clone(),
        }
    }
}

impl Drop for DocumentSession {
    fn drop(&mut self) {
        self.abort.abort();
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}
