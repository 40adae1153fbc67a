//! The one task that owns a document session: its connection, awareness, write bookkeeping,
//! save timer and closing. Callers talk to it through a bounded command channel (writes,
//! persist requests), a watch (presence: the newest wins) and the closing signal; it answers
//! through replies and the published [`Progress`](super::Progress).
//!
//! One `select!` serves the commands, the link (socket, liveness deadline, timers), saves and
//! the close deadline, so nothing the room or the instance does can stall the others. Here:
//! the task, its loop, the commands and our own writes; what the room sends is `room`'s, the
//! saves `saving`'s.

mod room;
mod saving;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use yrs::sync::Awareness;
use yrs::updates::decoder::Decode;
use yrs::{AsyncTransact, TransactionMut, Update};

use super::confirm::Unconfirmed;
use super::ledger::Ledger;
use super::link::{self, Ended, Link, LinkEvent};
use super::save::Saver;
use super::touch::{self, Touches, Watched};
use super::{LOCAL_ORIGIN, Shared};
use crate::collaboration::CollaborationServer;
use crate::error::{Error, Result};
use crate::out_of_order::OutOfOrder;
use crate::presence::Presence;
use crate::rest::{ContentApi, DocsClient};

/// Commands waiting for the actor; callers wait for room when it is full.
pub(super) const COMMAND_QUEUE: usize = 64;
/// What a close keeps of the write timeout to leave the room (presence cleared, Close
/// frame): unsaved writes are given up that long before the timeout, and leaving takes at
/// most half of it, so the task ends before the handle would abort it.
const LEAVE_BUDGET: Duration = Duration::from_secs(1);

fn leave_budget(options: &super::SessionOptions) -> Duration {
    LEAVE_BUDGET.min(options.write_timeout / 4)
}

pub(super) enum Command {
    /// A local change to write and send: served by [`Actor::on_write`].
    Write(Box<dyn LocalChange>),
    /// Save what was written so far, answering the write it covers up to: served by
    /// [`Actor::on_persist`].
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
    /// What the room sent (or the stored content held) that follows clocks the document lacks.
    out_of_order: OutOfOrder,
    /// A block given two child groups or contents was left to another session to mend.
    left_to_mend: bool,
}

/// The stored content a document was loaded from, and the document's version once loaded.
/// To a room holding nothing, while the document has not changed since, it is our Step2 as
/// it is: encoding the same state again would cost the sync 10 ms per 10 000 blocks.
pub(super) struct Loaded {
    pub update: Vec<u8>,
    pub version: u64,
    /// What of it follows clocks it lacks, held out of the document.
    pub held: OutOfOrder,
}

impl Actor {
    /// A session's actor, with its first connection attempt (see [`link::connect_first`]).
    pub fn new(
        shared: Arc<Shared>,
        client: DocsClient,
        content_api: ContentApi,
        awareness: Awareness,
        first_connection: BoxFuture<'static, Result<link::Socket, Ended>>,
        mut loaded: Option<Loaded>,
    ) -> Self {
        let out_of_order = loaded
            .as_mut()
            .map(|loaded| std::mem::take(&mut loaded.held))
            .unwrap_or_default();
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
            out_of_order,
            left_to_mend: false,
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
            Command::Persist(reply) => self.on_persist(reply),
        }
    }

    /// Asks for a save of everything written so far (unless the session refuses writes).
    fn on_persist(&mut self, reply: oneshot::Sender<Result<u64>>) {
        let answer = match self.refusal() {
            Some(error) => Err(error),
            None => Ok(self.ledger.persist()),
        };
        let _ = reply.send(answer);
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
        let types = crate::blocknote::update_types(&update).unwrap_or_default();
        self.shared.weight.add(types.items(), update.len());
        let seq = self.send_written(update, &decoded);
        if let Some(watch) = watch {
            self.touches.watch(&self.shared.touches, seq, watch);
        }
        answer(seq);
        // An edit planned before another writer gave its block a first child or a new type
        // (one a person approved later) gives it a second group or content: mended at once,
        // in a write of its own.
        if !types.is_empty() {
            self.mend_child_groups(&types).await;
        }
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
                let room = link::room_url(&self.shared);
                self.authenticated = false;
                self.link = Link::Connecting(link::connect(&self.shared, &self.client, &room));
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
