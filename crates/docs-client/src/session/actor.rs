//! The one task that owns a document session: its connection, awareness, write bookkeeping,
//! save timer and closing. Callers talk to it through a bounded command channel (writes,
//! persist requests), a watch (presence: the newest wins) and the closing signal; it answers
//! through replies and the published [`Progress`](super::Progress).
//!
//! One `select!` serves the commands, the link (socket, liveness deadline, timers), saves and
//! the close deadline, so nothing the room or the instance does can stall the others.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use yrs::sync::{Awareness, AwarenessUpdate};
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{AsyncTransact, ReadTxn, StateVector, TransactionMut, Update};

use super::confirm::Unconfirmed;
use super::integrate::{NotIntegrated, integrate};
use super::ledger::Ledger;
use super::link::{self, Connection, Ended, Link, LinkEvent};
use super::save::{Saver, Started};
use super::touch::{self, Touches, Watched};
use super::{LOCAL_ORIGIN, Peer, REMOTE_ORIGIN, Shared};
use crate::collaboration::CollaborationServer;
use crate::error::{Error, Result};
use crate::presence::Presence;
use crate::protocol::{Message, Sync};
use crate::rest::{ContentApi, DocsClient};

/// Commands waiting for the actor; callers wait for room when it is full.
pub(super) const COMMAND_QUEUE: usize = 64;
/// Updates from the room from this size on are checked against the document before being
/// applied.
const KNOWN_CHECK_MIN_BYTES: usize = 64 * 1024;
/// What a close keeps of the write timeout to leave the room (presence cleared, Close
/// frame): unsaved writes are given up that long before the timeout, and leaving takes at
/// most half of it, so the task ends before the handle would abort it.
const LEAVE_BUDGET: Duration = Duration::from_secs(1);
/// Writes a server that does not acknowledge (yhub) may leave unconfirmed before the
/// connection is deemed stuck and redone (its first message then shows what it holds).
const UNCONFIRMED_LIMIT: usize = 1024;

fn leave_budget(options: &super::SessionOptions) -> Duration {
    LEAVE_BUDGET.min(options.write_timeout / 4)
}

pub(super) enum Command {
    Write(Box<dyn LocalChange>),
    Persist(oneshot::Sender<Result<u64>>),
}

/// Caller code to run in a local transaction, type-erased.
pub(super) trait LocalChange: Send {
    /// Runs the change; returns how to answer the caller once the write is numbered.
    fn apply(self: Box<Self>, txn: &mut TransactionMut<'_>) -> Box<dyn FnOnce(u64) + Send>;
    /// Answers without running the change.
    fn refuse(self: Box<Self>, error: Error);
    /// Whether a person's concurrent typing is looked for against it (`touch`).
    fn watched(&self) -> bool;
}

/// A write request: the caller's change and where its outcome goes. A panic in the change
/// is caught and handed back to the caller, which re-raises it; the session lives on.
pub(super) struct WriteRequest<F, R> {
    pub change: F,
    pub watched: bool,
    pub reply: oneshot::Sender<Result<(u64, std::thread::Result<R>)>>,
}

impl<F, R> LocalChange for WriteRequest<F, R>
where
    F: FnOnce(&mut TransactionMut<'_>) -> R + Send + 'static,
    R: Send + 'static,
{
    fn apply(self: Box<Self>, txn: &mut TransactionMut<'_>) -> Box<dyn FnOnce(u64) + Send> {
        let WriteRequest { change, reply, .. } = *self;
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| change(txn)));
        Box::new(move |seq| {
            let _ = reply.send(Ok((seq, outcome)));
        })
    }

    fn refuse(self: Box<Self>, error: Error) {
        let _ = self.reply.send(Err(error));
    }

    fn watched(&self) -> bool {
        self.watched
    }
}

/// Where callers reach the actor.
pub(super) struct Inbox {
    pub commands: mpsc::Receiver<Command>,
    /// The presence callers want: only the newest counts.
    pub presence: watch::Receiver<Presence>,
    pub closing: watch::Receiver<bool>,
}

pub(super) struct Actor {
    shared: Arc<Shared>,
    client: DocsClient,
    content_api: ContentApi,
    awareness: Awareness,
    ledger: Ledger,
    /// On yhub: our writes the server has not shown it holds.
    unconfirmed: Unconfirmed,
    /// On yhub, which tells a connection nothing of its rights: the REST check made after a
    /// reconnection (rights may have changed while we were away).
    rights_check: Option<BoxFuture<'static, Result<crate::rest::Document>>>,
    /// A connection was opened before (the open's own check covers the first).
    reconnecting: bool,
    /// The connection being opened authenticated already (the first one does).
    authenticated: bool,
    link: Link,
    saver: Saver,
    /// Reconnect attempts since the last connection that reached sync.
    attempt: u32,
    /// Once closing: when the writes still unsaved are given up.
    give_up_at: Option<Instant>,
    /// The stored content the document was loaded from, until the first Step1 is answered.
    loaded: Option<Loaded>,
    /// Watched writes a person's concurrent typing may still meet.
    touches: Touches,
}

/// The stored content a document was loaded from, and the document's version once loaded.
/// To a room holding nothing, while the document has not changed since, it is our Step2 as
/// it is: encoding the same state again would cost the sync 10 ms per 10 000 blocks.
pub(super) struct Loaded {
    pub update: Vec<u8>,
    pub version: u64,
}

impl Actor {
    /// A session's actor, with its first connection attempt (see [`link::connect_first`]).
    pub fn new(
        shared: Arc<Shared>,
        client: DocsClient,
        content_api: ContentApi,
        awareness: Awareness,
        first_connection: BoxFuture<'static, Result<link::Socket, Ended>>,
        loaded: Option<Loaded>,
    ) -> Self {
        let link = Link::Connecting(first_connection);
        let server_persists = shared.endpoint.server() == CollaborationServer::Yhub;
        Actor {
            ledger: Ledger::new(shared.progress.clone(), server_persists),
            shared,
            client,
            content_api,
            awareness,
            unconfirmed: Unconfirmed::default(),
            rights_check: None,
            reconnecting: false,
            authenticated: true,
            link,
            saver: Saver::default(),
            attempt: 0,
            give_up_at: None,
            loaded,
            touches: Touches::default(),
        }
    }

    /// Serves the session until it is closed and settled, fails, or every handle is gone.
    pub async fn run(mut self, inbox: Inbox) {
        let Inbox {
            mut commands,
            mut presence,
            mut closing,
        } = inbox;
        let mut save_now = self.shared.save_now.subscribe();
        loop {
            if self.ledger.failure().is_some() {
                break;
            }
            if self.give_up_at.is_some() && self.ledger.settled() {
                // Closed with nothing left to save, unless a command came meanwhile: a write
                // racing the close is still made, sent and saved.
                match commands.try_recv() {
                    Ok(command) => {
                        self.on_command(command).await;
                        continue;
                    }
                    Err(_) => break,
                }
            }
            let closing_now = self.give_up_at.is_some();
            let save_target = (!self.saver.is_running())
                .then(|| self.save_target())
                .flatten();
            let save_wanted = save_target.is_some();
            if let Some(target) = save_target {
                self.saver.wanted(target);
            }
            let awaited = *save_now.borrow_and_update() > self.ledger.saved_up_to();
            // yhub's REST route is the writes' only way in while no socket reaches it.
            let urgent = closing_now || awaited || self.server() == CollaborationServer::Yhub;
            let save_due = self
                .saver
                .due(&self.shared.options, urgent, self.shared.alone());
            let give_up_at = self.give_up_at.unwrap_or_else(Instant::now);
            let acknowledged = self.shared.progress.borrow().acknowledged;
            let touch_due = self.touches.refresh(acknowledged);
            tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => self.on_command(command).await,
                    // Every handle is gone: nobody can close or wait any more.
                    None => break,
                },
                // Somebody waits for a save: the loop sees it and saves at once.
                Ok(()) = save_now.changed() => {}
                Ok(()) = presence.changed() => {
                    let wanted = presence.borrow_and_update().clone();
                    self.on_presence(&wanted);
                }
                changed = closing.changed(), if !closing_now => {
                    if changed.is_err() || *closing.borrow() {
                        self.start_closing();
                    }
                }
                () = tokio::time::sleep_until(give_up_at), if closing_now => {
                    let waited = self.shared.options.write_timeout;
                    self.ledger.fail(Error::NotSaved { waited });
                }
                event = self.link.next_event() => self.on_link(event).await,
                rights = checked(&mut self.rights_check), if self.rights_check.is_some() => {
                    self.rights_check = None;
                    self.apply_rights(rights);
                }
                (started, outcome) = self.saver.finished() => self.on_saved(started, outcome),
                () = tokio::time::sleep_until(save_due), if save_wanted => self.start_save(),
                () = tokio::time::sleep_until(touch_due.unwrap_or(give_up_at)), if touch_due.is_some() => {
                    self.close_watches(false).await;
                }
            }
        }
        self.close_watches(true).await;
        self.stop().await;
    }

    fn document(&self) -> String {
        self.shared.name.clone()
    }

    fn server(&self) -> CollaborationServer {
        self.shared.endpoint.server()
    }

    /// Why a write must be refused now, if it must.
    fn refusal(&self) -> Option<Error> {
        if let Some(error) = self.ledger.failure() {
            return Some(error);
        }
        self.shared
            .read_only
            .load(Ordering::Relaxed)
            .then(|| Error::ReadOnly {
                document: self.document(),
            })
    }

    async fn on_command(&mut self, command: Command) {
        match command {
            Command::Write(change) => self.on_write(change).await,
            Command::Persist(reply) => {
                let answer = match self.refusal() {
                    Some(error) => Err(error),
                    None => Ok(self.ledger.persist()),
                };
                let _ = reply.send(answer);
            }
        }
    }

    async fn on_write(&mut self, change: Box<dyn LocalChange>) {
        if let Some(error) = self.refusal() {
            change.refuse(error);
            return;
        }
        let watched = change.watched();
        let (answer, update, watch) = {
            let mut txn = AsyncTransact::transact_mut_with(&self.shared.doc, LOCAL_ORIGIN).await;
            let answer = change.apply(&mut txn);
            let update = txn.encode_update_v1();
            let watch = if watched {
                Some(Watched::of(&update, &txn))
            } else {
                touch::collect(&mut txn);
                None
            };
            (answer, update, watch)
        };
        let decoded = match Update::decode_v1(&update) {
            Ok(decoded) if !decoded.is_empty() => decoded,
            _ => {
                answer(0);
                return;
            }
        };
        let seq = self.send_written(update, &decoded);
        if let Some(watch) = watch {
            self.touches.watch(&self.shared.touches, seq, watch);
        }
        answer(seq);
    }

    /// Numbers a local write and sends it (or keeps it for the next handshake).
    fn send_written(&mut self, update: Vec<u8>, decoded: &Update) -> u64 {
        let seq = self.ledger.write();
        if self.server() == CollaborationServer::Yhub {
            self.unconfirmed.wrote(seq, decoded);
        }
        if let Some(connection) = self.link.connection()
            && connection.step2_sent
        {
            connection.outbox.push_update(update, seq);
            connection.send_now();
            if let Err(ended) = self.check_unconfirmed() {
                self.on_ended(ended);
            }
        }
        self.shared.version.send_modify(|v| *v += 1);
        seq
    }

    /// Ends the watches that are due (`all`: every one), collecting their deletions.
    async fn close_watches(&mut self, all: bool) {
        if self.touches.is_empty() {
            return;
        }
        let closed = {
            let mut txn = AsyncTransact::transact_mut(&self.shared.doc).await;
            self.touches.close_due(&mut txn, all)
        };
        touch::publish(&self.shared.touches, &closed, None);
    }

    /// Takes back write `seq`, which a person's typing met in flight, as a write of its own.
    async fn take_back(&mut self, seq: u64) {
        let Some((undo, deleted)) = self.touches.take_back(&self.shared.doc, seq) else {
            return;
        };
        let mut by = None;
        {
            let mut txn = AsyncTransact::transact_mut_with(&self.shared.doc, LOCAL_ORIGIN).await;
            if let Some(undo) = undo.and_then(|u| Update::decode_v1(&u).ok()) {
                match txn.apply_update(undo) {
                    Ok(()) => by = Some(txn.encode_update_v1()),
                    Err(error) => {
                        tracing::warn!(document = %self.shared.id, %error, "cannot take back a write a person's typing met")
                    }
                }
            }
            // The write's deletions are restored (or were never restored): nothing of them to
            // keep, nor of what the take-back deleted.
            txn.gc(Some(&deleted));
            touch::collect(&mut txn);
        }
        let by = by.and_then(|update| {
            let decoded = Update::decode_v1(&update).ok().filter(|d| !d.is_empty())?;
            Some(self.send_written(update, &decoded))
        });
        tracing::info!(document = %self.shared.id, write = seq, by, "a person typed against a write in flight: taken back");
        touch::publish(&self.shared.touches, &[seq], by.map(|by| (seq, by)));
    }

    fn on_presence(&mut self, wanted: &Presence) {
        let state = wanted.awareness_state();
        if self.awareness.local_state::<serde_json::Value>().as_ref() == Some(&state) {
            return;
        }
        self.awareness
            .set_local_state(state)
            .expect("presence serializes");
        let update = self.presence_update();
        if let Some(connection) = self.link.connection() {
            connection.outbox.set_presence(update);
        }
    }

    fn start_closing(&mut self) {
        let options = &self.shared.options;
        let give_up_after = options.write_timeout.saturating_sub(leave_budget(options));
        self.give_up_at = Some(Instant::now() + give_up_after);
    }

    async fn on_link(&mut self, event: LinkEvent) {
        let ended = match event {
            LinkEvent::RetryDue => {
                let paid = false;
                let room = link::room_url(&self.shared);
                self.authenticated = false;
                self.link =
                    Link::Connecting(link::connect(&self.shared, &self.client, &room, paid));
                return;
            }
            LinkEvent::Rechecked(rights) => {
                self.on_rechecked(rights);
                return;
            }
            LinkEvent::Loaded(state) => {
                self.on_loaded(state).await;
                return;
            }
            LinkEvent::Connected(socket) => self.on_connected(socket).await.err(),
            LinkEvent::Message(message) => self.on_message(message).await.err(),
            LinkEvent::PresenceDue => {
                self.renew_presence();
                None
            }
            LinkEvent::Ended(ended) => Some(ended),
        };
        if let Some(ended) = ended {
            self.on_ended(ended);
        }
    }

    async fn on_connected(&mut self, socket: Box<link::Socket>) -> Result<(), Ended> {
        if std::mem::replace(&mut self.reconnecting, true)
            && self.server() == CollaborationServer::Yhub
        {
            self.rights_check = Some(link::recheck(&self.client, &self.shared));
        }
        let mut connection = Connection::new(self.shared.clone(), socket);
        let state_vector = AsyncTransact::transact(&self.shared.doc)
            .await
            .state_vector();
        let authenticated = std::mem::replace(&mut self.authenticated, false);
        if self.server() == CollaborationServer::Hocuspocus && !authenticated {
            connection.push_protocol(Message::AuthToken(String::new()), None)?;
        }
        // yhub ignores it (it sends its whole state first); other y-websocket servers answer.
        connection.push_protocol(Message::Sync(Sync::Step1(state_vector)), None)?;
        connection.outbox.set_presence(self.renewed_presence());
        self.link = Link::Open(Box::new(connection));
        Ok(())
    }

    /// Handles one message of the room; `Err` ends the connection.
    async fn on_message(&mut self, message: Message) -> Result<(), Ended> {
        match message {
            Message::Authenticated { read_only } => {
                self.shared.read_only.store(read_only, Ordering::Relaxed);
            }
            Message::PermissionDenied(reason) => return Err(Ended::PermissionDenied(reason)),
            Message::Sync(Sync::Step1(room)) => self.answer_step1(&room).await?,
            Message::Sync(Sync::Step2(update)) => {
                self.apply_remote(&update, "Step2").await?;
                self.ledger.synced();
                self.attempt = 0;
            }
            Message::Sync(Sync::Update(update)) => self.apply_remote(&update, "update").await?,
            Message::SyncStatus(applied) => self.on_sync_status(applied),
            Message::Awareness(bytes) => self.on_awareness(&bytes),
            Message::QueryAwareness => {
                let update = self.presence_update();
                if let Some(connection) = self.link.connection() {
                    connection.outbox.set_presence(update);
                }
            }
            Message::Close(reason) => return Err(Ended::Reset(reason)),
            Message::Stateless(_) | Message::AuthToken(_) => {}
        }
        Ok(())
    }

    /// Sends our Step2 (everything the room lacks, so every write so far) for its Step1.
    async fn answer_step1(&mut self, room: &StateVector) -> Result<(), Ended> {
        let diff = match self.loaded.take() {
            Some(loaded) if room.is_empty() && *self.shared.version.borrow() == loaded.version => {
                loaded.update
            }
            _ => AsyncTransact::transact(&self.shared.doc)
                .await
                .encode_diff_v1(room),
        };
        // Hocuspocus acknowledges the Step2 (every write so far); yhub shows what it took.
        let covers =
            (self.server() == CollaborationServer::Hocuspocus).then(|| self.ledger.written());
        let Some(connection) = self.link.connection() else {
            return Ok(());
        };
        connection.push_protocol(Message::Sync(Sync::Step2(diff)), covers)?;
        connection.step2_sent = true;
        Ok(())
    }

    /// Applies an update of the room. Malformed, it ends the connection (reconnecting may
    /// help); nesting deeper than the model's limit ends the session (the room would send it
    /// again, and the document cannot be edited safely).
    async fn apply_remote(&mut self, bytes: &[u8], what: &str) -> Result<(), Ended> {
        let document = self.shared.id;
        // Our whole document coming back (below) is known from its clocks and deletions
        // alone: decoding it would cost this worker what loading the document did (45 ms for
        // 10 000 blocks). (Unless a write waits to be seen in it: that needs it decoded.)
        if bytes.len() >= KNOWN_CHECK_MIN_BYTES && self.unconfirmed.len() == 0 {
            let txn = AsyncTransact::transact(&self.shared.doc).await;
            if crate::yjs::contains_encoded(&txn, bytes) == Some(true) {
                drop(txn);
                self.shared.version.send_modify(|v| *v += 1);
                return Ok(());
            }
        }
        let update = Update::decode_v1(bytes)
            .map_err(|e| Ended::Lost(format!("bad {what} from the room: {e}")))?;
        // What the server sends, it holds: on yhub, that is how a write is known to be there.
        let held = self.unconfirmed.heard(&update);
        // Our own writes come back (Hocuspocus sends a write to every connection, its
        // writer's too), the first of them our whole document, which applying again costs
        // about what loading it did: a large update the document holds already is not
        // applied again (it cannot deepen it either). A small one is applied: that costs
        // less than telling.
        let known = bytes.len() >= KNOWN_CHECK_MIN_BYTES
            && crate::yjs::contains(&AsyncTransact::transact(&self.shared.doc).await, &update);
        if !known {
            let nesting = super::depth_door(document, bytes).map_err(Ended::Final)?;
            let txn = AsyncTransact::transact_mut_with(&self.shared.doc, REMOTE_ORIGIN).await;
            let met = if self.touches.is_empty() {
                None
            } else {
                self.touches.met_by(bytes, &txn.state_vector())
            };
            let before = (nesting > 0).then(|| txn.state_vector());
            let fragment = &self.shared.fragment;
            let deepened = integrate(txn, update, |txn| {
                touch::collect(txn);
                // Only new types can deepen the document.
                if before.is_some_and(|before| txn.state_vector() != before) {
                    super::depth_after(document, &*txn, fragment)
                } else {
                    Ok(())
                }
            });
            match deepened {
                Ok(depth) => depth.map_err(Ended::Final)?,
                Err(NotIntegrated::Refused(e)) => {
                    return Err(Ended::Lost(format!("bad {what} from the room: {e}")));
                }
                Err(NotIntegrated::Panicked(detail)) => {
                    tracing::error!(%document, %detail, "yrs failed integrating an update from the room; the session ends");
                    return Err(Ended::Final(Error::NotIntegrated {
                        document: document.to_string(),
                        detail,
                    }));
                }
            }
            if let Some(seq) = met {
                self.take_back(seq).await;
            }
        }
        self.shared.version.send_modify(|v| *v += 1);
        if let Some(seq) = held {
            self.ledger.acknowledge(seq);
        }
        Ok(())
    }

    /// Where the server shows what it holds instead of acknowledging (yhub), a connection
    /// that leaves too many writes unshown is stuck: redone, its first message tells.
    fn check_unconfirmed(&self) -> Result<(), Ended> {
        if self.unconfirmed.len() > UNCONFIRMED_LIMIT {
            return Err(Ended::Lost(format!(
                "the server showed none of our last {} writes",
                self.unconfirmed.len()
            )));
        }
        Ok(())
    }

    fn on_sync_status(&mut self, applied: bool) {
        let Some(connection) = self.link.connection() else {
            return;
        };
        let Some(covers) = connection.in_flight.pop_front() else {
            tracing::warn!("SyncStatus without a message in flight");
            return;
        };
        if applied {
            self.ledger.acknowledge(covers);
            return;
        }
        self.shared.read_only.store(true, Ordering::Relaxed);
        if covers > self.ledger.acknowledged() {
            // The room refused writes we already applied locally: the local document now
            // differs from the room's for good, so the session must end.
            self.ledger.fail(Error::ReadOnly {
                document: self.document(),
            });
        } else {
            // A read-only connection's handshake carried state loaded from REST that the
            // (empty) room lacks; the room keeps none of it, and no write of ours was refused.
            tracing::debug!("the room refused the stored state of a read-only session");
        }
    }

    fn on_awareness(&mut self, bytes: &[u8]) {
        match AwarenessUpdate::decode_v1(bytes) {
            Ok(update) => {
                let _ = self.awareness.apply_update(update);
                self.publish_peers();
            }
            Err(e) => tracing::debug!("ignored awareness: {e}"),
        }
    }

    /// Publishes who else is present (expired states are filtered out when read).
    fn publish_peers(&self) {
        let me = self.awareness.client_id();
        let peers = self
            .awareness
            .iter()
            .filter(|(id, _)| *id != me)
            .filter_map(|(_, state)| {
                Some(Peer {
                    name: Presence::name_in(state.data.as_deref()?)?,
                    seen_ms: state.last_updated,
                })
            })
            .collect();
        self.shared.peers.send_replace(peers);
    }

    fn renew_presence(&mut self) {
        let update = self.renewed_presence();
        if let Some(connection) = self.link.connection() {
            connection.outbox.set_presence(update);
        }
    }

    /// Our presence as an awareness update.
    fn presence_update(&self) -> Vec<u8> {
        self.awareness
            .update_with_clients([self.awareness.client_id()])
            .expect("our own state is known")
            .encode_v1()
    }

    /// Renews our presence (a higher clock) and returns the update announcing it.
    fn renewed_presence(&mut self) -> Vec<u8> {
        if let Some(state) = self.awareness.local_state_raw() {
            self.awareness.set_local_state_raw(state);
        }
        self.presence_update()
    }

    fn on_ended(&mut self, ended: Ended) {
        self.ledger.disconnected();
        match ended {
            Ended::Final(error) => {
                self.ledger.fail(error);
                self.link = Link::Stopped;
            }
            Ended::Reset(reason) | Ended::PermissionDenied(reason) => {
                tracing::info!(%reason, "connection reset; re-checking rights");
                self.link = Link::Rechecking(link::recheck(&self.client, &self.shared));
            }
            Ended::Lost(reason) => {
                let delay = self.next_delay();
                if self.server() == CollaborationServer::Yhub && !self.ledger.synced_once() {
                    // Never synced, no socket: the room's state through yhub's REST route.
                    tracing::info!(%reason, "no connection; reading the document over REST");
                    self.link = Link::Loading(link::load(&self.client, &self.shared));
                    return;
                }
                tracing::info!(%reason, ?delay, "connection lost; reconnecting");
                self.link = Link::Waiting {
                    until: Instant::now() + delay,
                };
            }
        }
    }

    /// The room's state read over REST (yhub, no socket): the session serves reads from it
    /// and keeps trying to connect.
    async fn on_loaded(&mut self, state: Result<Vec<u8>>) {
        match state {
            Ok(state) => match self.apply_remote(&state, "state").await {
                Ok(()) => self.ledger.loaded(),
                Err(Ended::Final(error)) => {
                    self.ledger.fail(error);
                    self.link = Link::Stopped;
                    return;
                }
                Err(ended) => tracing::info!(?ended, "the document read over REST was refused"),
            },
            Err(error) if !error.is_transient() => {
                self.ledger.fail(error);
                self.link = Link::Stopped;
                return;
            }
            Err(error) => tracing::info!(%error, "reading the document over REST failed"),
        }
        let delay = self.next_delay();
        self.link = Link::Waiting {
            until: Instant::now() + delay,
        };
    }

    fn on_rechecked(&mut self, rights: Result<crate::rest::Document>) {
        if !self.apply_rights(rights) {
            return;
        }
        let delay = self.next_delay();
        self.link = Link::Waiting {
            until: Instant::now() + delay,
        };
    }

    /// Takes in what REST says we may do; `false` when that ends the session.
    fn apply_rights(&mut self, rights: Result<crate::rest::Document>) -> bool {
        let ended = match rights {
            Ok(meta) if !meta.abilities.retrieve => Some(Error::Forbidden {
                detail: format!("access to document {} was withdrawn", self.shared.id),
            }),
            Ok(meta) => {
                let read_only = !meta.abilities.update;
                self.shared.read_only.store(read_only, Ordering::Relaxed);
                // The room will not take the writes it has not taken yet.
                (read_only && self.ledger.written() > self.ledger.acknowledged()).then(|| {
                    Error::ReadOnly {
                        document: self.document(),
                    }
                })
            }
            Err(error) if !error.is_transient() => Some(error),
            Err(error) => {
                tracing::info!(%error, "re-checking rights failed");
                None
            }
        };
        let Some(error) = ended else {
            return true;
        };
        self.ledger.fail(error);
        self.link = Link::Stopped;
        false
    }

    fn next_delay(&mut self) -> Duration {
        self.attempt += 1;
        super::retry::backoff(&self.shared.options, self.attempt)
    }

    /// What a save would cover now. Hocuspocus: the acknowledged writes no save holds yet.
    /// yhub stores what it takes: the writes it has not taken while no socket reaches it
    /// (two attempts failed in a row, or closing), merged through its REST route.
    fn save_target(&self) -> Option<u64> {
        match self.server() {
            CollaborationServer::Hocuspocus => self.ledger.save_target(),
            CollaborationServer::Yhub => {
                let offline =
                    !self.ledger.connected() && (self.attempt >= 2 || self.give_up_at.is_some());
                (offline && self.ledger.synced_once())
                    .then(|| self.ledger.unacknowledged())
                    .flatten()
            }
        }
    }

    fn start_save(&mut self) {
        let Some(target) = self.save_target() else {
            return;
        };
        if self.server() == CollaborationServer::Yhub {
            self.start_patch(target);
            return;
        }
        let client = self.save_client();
        let (doc, id, api) = (self.shared.doc.clone(), self.shared.id, self.content_api);
        // Docs lets a save from a client off the collaboration server through only when no
        // one else edits there (COLLABORATION_WS_NOT_CONNECTED_READ_ONLY): say the truth.
        let connected = self.ledger.connected();
        self.saver.start(Started { target, connected }, async move {
            let state = encode_state(doc, id).await?;
            client.save_content(id, api, &state, connected).await
        });
    }

    /// Merges the document into yhub's copy through its REST route (what it has is skipped
    /// there): every write up to `target` is then held by the server.
    fn start_patch(&mut self, target: u64) {
        let client = self.save_client();
        let (doc, id, endpoint) = (
            self.shared.doc.clone(),
            self.shared.id,
            self.shared.endpoint.clone(),
        );
        let started = Started {
            target,
            connected: false,
        };
        self.saver.start(started, async move {
            let state = encode_state(doc, id).await?;
            client
                .patch_ydoc(&endpoint, id, &state, &crate::collaboration::ATTRIBUTIONS)
                .await
        });
    }

    /// The client a save is made with: closing, it waits for the instance's request budget
    /// only as long as the close has left.
    fn save_client(&self) -> DocsClient {
        match self.give_up_at {
            Some(give_up_at) => self
                .client
                .waiting_at_most(give_up_at.saturating_duration_since(Instant::now())),
            None => self.client.clone(),
        }
    }

    fn on_saved(&mut self, started: Started, outcome: Result<()>) {
        let hocuspocus = self.server() == CollaborationServer::Hocuspocus;
        match outcome {
            // Closing, and the instance's request budget is not back before the close gives
            // up: the close ends now, saying why.
            Err(Error::Throttled { retry_after })
                if self
                    .give_up_at
                    .is_some_and(|at| Instant::now() + retry_after >= at) =>
            {
                self.ledger.fail(Error::Throttled { retry_after });
            }
            Ok(()) if hocuspocus => {
                self.saver.succeeded();
                self.ledger.saved(started.target);
            }
            Ok(()) => {
                self.saver.succeeded();
                self.unconfirmed.held_up_to(started.target);
                self.ledger.acknowledge(started.target);
            }
            // Docs refuses a save made off the room while others edit there
            // (COLLABORATION_WS_NOT_CONNECTED_READ_ONLY); made from the room, it goes through.
            Err(Error::Forbidden { detail }) if !started.connected && hocuspocus => {
                let delay = self.saver.failed(&self.shared.options);
                tracing::info!(%detail, ?delay, "save refused while out of the room; retrying");
            }
            Err(error) if !error.is_transient() => self.ledger.fail(error),
            Err(error) => {
                let delay = self.saver.failed(&self.shared.options);
                tracing::warn!(%error, ?delay, "save failed; retrying");
            }
        }
    }

    /// Leaves the room (presence cleared) and lets go of the connection.
    async fn stop(mut self) {
        self.ledger.disconnected();
        if let Link::Open(connection) = std::mem::replace(&mut self.link, Link::Stopped) {
            self.awareness.clean_local_state();
            let leaving = self.presence_update();
            let within = leave_budget(&self.shared.options) / 2;
            connection.leave(leaving, within).await;
        }
    }
}

/// The outcome of a rights check under way (pending while there is none).
async fn checked(
    check: &mut Option<BoxFuture<'static, Result<crate::rest::Document>>>,
) -> Result<crate::rest::Document> {
    match check {
        Some(check) => check.await,
        None => std::future::pending().await,
    }
}

/// The whole document as one update. Encoding a large document is CPU work: off the
/// runtime's workers.
async fn encode_state(doc: yrs::Doc, id: uuid::Uuid) -> Result<Vec<u8>> {
    let encoded = tokio::task::spawn_blocking(move || {
        yrs::Transact::transact(&doc).encode_state_as_update_v1(&StateVector::default())
    })
    .await;
    match encoded {
        Ok(state) => Ok(state),
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // The runtime is shutting down.
            Err(_) => Err(Error::Closed {
                document: id.to_string(),
            }),
        },
    }
}
