//! The actor's side of the room: a connection opened, the messages it brings (the sync
//! handshake, the room's updates — integrated through `integrate`, a person's typing that
//! meets a watched write taking it back — and awareness), and the presence it shows.
//!
//! After an update, or a write of ours, that names a blockGroup, the actor mends blocks given two
//! child groups (`blocknote::groups`) unless another session present that mends them has a lower
//! client id.

use std::borrow::Cow;
use std::sync::atomic::Ordering;

use yrs::sync::AwarenessUpdate;
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{AsyncTransact, ReadTxn, StateVector, Update};

use super::Actor;
use crate::blocknote::{self, UpdateTypes, groups};
use crate::collaboration::CollaborationServer;
use crate::error::{Error, Result};
use crate::out_of_order::NotAdmitted;
use crate::presence::Presence;
use crate::protocol::{Message, Sync};
use crate::session::integrate::{NotIntegrated, integrate};
use crate::session::link::{self, Connection, Ended, Link};
use crate::session::touch::{self};
use crate::session::{LOCAL_ORIGIN, Peer, REMOTE_ORIGIN};

/// Updates from the room from this size on are checked against the document before being
/// applied.
const KNOWN_CHECK_MIN_BYTES: usize = 64 * 1024;
/// Writes a server that does not acknowledge (yhub) may leave unconfirmed before the
/// connection is deemed stuck and redone (its first message then shows what it holds).
const UNCONFIRMED_LIMIT: usize = 1024;

impl Actor {
    pub(super) async fn on_connected(&mut self, socket: Box<link::Socket>) -> Result<(), Ended> {
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
    pub(super) async fn on_message(&mut self, message: Message) -> Result<(), Ended> {
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
    pub(super) async fn answer_step1(&mut self, room: &StateVector) -> Result<(), Ended> {
        let diff = match self.loaded.take() {
            Some(loaded) if room.is_empty() && *self.shared.version.borrow() == loaded.version => {
                loaded.update
            }
            // With what waits for clocks we lack: the room is given the whole document.
            _ => self.out_of_order.with_held(
                AsyncTransact::transact(&self.shared.doc)
                    .await
                    .encode_diff_v1(room),
            ),
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
    pub(super) async fn apply_remote(&mut self, bytes: &[u8], what: &str) -> Result<(), Ended> {
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
            let mut types = crate::session::depth_door(document, bytes).map_err(Ended::Final)?;
            let txn = AsyncTransact::transact_mut_with(&self.shared.doc, REMOTE_ORIGIN).await;
            // What follows clocks the document lacks waits for them (`out_of_order`).
            let parts = match self.out_of_order.admit(&txn.state_vector(), bytes) {
                Ok(parts) => parts,
                Err(NotAdmitted::Unreadable(e)) => {
                    return Err(Ended::Lost(format!("bad {what} from the room: {e}")));
                }
                Err(too_much @ NotAdmitted::TooMuchHeld { .. }) => {
                    return Err(Ended::Final(Error::NotIntegrated {
                        document: document.to_string(),
                        detail: too_much.to_string(),
                    }));
                }
            };
            let updates =
                match parts.as_slice() {
                    [Cow::Borrowed(_)] => vec![update],
                    parts => {
                        // What is integrated is the parts: their types are checked after.
                        types = UpdateTypes::default();
                        for part in parts {
                            types.extend(blocknote::update_types(part).map_err(|e| {
                                Ended::Lost(format!("bad {what} from the room: {e}"))
                            })?);
                        }
                        parts
                            .iter()
                            .map(|part| Update::decode_v1(part))
                            .collect::<Result<_, _>>()
                            .map_err(|e| Ended::Lost(format!("bad {what} from the room: {e}")))?
                    }
                };
            let met = if self.touches.is_empty() {
                None
            } else {
                self.touches.met_by(bytes, &txn.state_vector())
            };
            let before = txn.state_vector();
            let deepened = integrate(txn, updates, |txn| {
                touch::collect(txn);
                // What the document held already neither deepens it nor weighs: only new
                // types can deepen it.
                let grew = txn.state_vector() != before;
                let depth = if grew && !types.is_empty() {
                    crate::session::depth_after_types(document, &*txn, &types)
                } else {
                    Ok(())
                };
                (grew, depth)
            });
            match deepened {
                Ok((grew, depth)) => {
                    depth.map_err(Ended::Final)?;
                    if grew {
                        self.shared.weight.add(types.items(), bytes.len());
                    }
                }
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
            // Only an update bringing new types can give a block a second group or content.
            if !types.is_empty() {
                self.mend_child_groups(&types).await;
            }
        }
        self.shared.version.send_modify(|v| *v += 1);
        if let Some(seq) = held {
            self.ledger.acknowledge(seq);
        }
        Ok(())
    }

    /// Re-creates with one child group each block that two writers gave one each (see
    /// [`groups`]): browsers delete such a block, text and children. Written and saved like
    /// any write of ours; left to another session that mends them, if one of lower client
    /// id is in the room (each would make a copy).
    ///
    /// Whether `types` (those an update just applied created) doubled anything is looked at
    /// around them alone; a doubling left to another session is looked for in the whole
    /// document at the next one, in case that session left without mending it.
    pub(super) async fn mend_child_groups(&mut self, types: &UpdateTypes) {
        if self.shared.read_only.load(Ordering::Relaxed) {
            return;
        }
        let txn = AsyncTransact::transact(&self.shared.doc).await;
        let doubled = groups::doubled_by(&txn, &self.shared.fragment, types)
            || (self.left_to_mend && groups::has_doubled_child_groups(&txn, &self.shared.fragment));
        drop(txn);
        if !doubled {
            self.left_to_mend = false;
            return;
        }
        if !self.elected_to_mend() {
            self.left_to_mend = true;
            return;
        }
        self.left_to_mend = false;
        let (update, mended) = {
            let mut txn = AsyncTransact::transact_mut_with(&self.shared.doc, LOCAL_ORIGIN).await;
            let mended = groups::merge_child_groups(&mut txn, &self.shared.fragment);
            if mended.is_empty() {
                return;
            }
            let update = txn.encode_update_v1();
            touch::collect(&mut txn);
            (update, mended)
        };
        let Ok(decoded) = Update::decode_v1(&update) else {
            return;
        };
        let write = self.send_written(update, &decoded);
        tracing::info!(document = %self.shared.id, blocks = ?mended, write, "blocks given two child groups by concurrent writers re-created with one");
    }

    /// Where the server shows what it holds instead of acknowledging (yhub), a connection
    /// that leaves too many writes unshown is stuck: redone, its first message tells.
    pub(super) fn check_unconfirmed(&self) -> Result<(), Ended> {
        if self.unconfirmed.len() > UNCONFIRMED_LIMIT {
            return Err(Ended::Lost(format!(
                "the server showed none of our last {} writes",
                self.unconfirmed.len()
            )));
        }
        Ok(())
    }

    pub(super) fn on_sync_status(&mut self, applied: bool) {
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

    pub(super) fn on_awareness(&mut self, bytes: &[u8]) {
        match AwarenessUpdate::decode_v1(bytes) {
            Ok(update) => {
                let _ = self.awareness.apply_update(update);
                self.publish_peers();
            }
            Err(e) => tracing::debug!("ignored awareness: {e}"),
        }
    }

    /// Whether no other client present in the room that mends child groups has a lower client
    /// id than ours.
    fn elected_to_mend(&self) -> bool {
        let me = self.awareness.client_id();
        !self.awareness.iter().any(|(id, state)| {
            id < me
                && crate::session::seen_recently(state.last_updated)
                && state.data.as_deref().is_some_and(Presence::mends_in)
        })
    }

    /// Publishes who else is present (expired states are filtered out when read).
    pub(super) fn publish_peers(&self) {
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

    pub(super) fn renew_presence(&mut self) {
        let update = self.renewed_presence();
        if let Some(connection) = self.link.connection() {
            connection.outbox.set_presence(update);
        }
    }

    /// Our presence as an awareness update.
    pub(super) fn presence_update(&self) -> Vec<u8> {
        self.awareness
            .update_with_clients([self.awareness.client_id()])
            .expect("our own state is known")
            .encode_v1()
    }

    /// Renews our presence (a higher clock) and returns the update announcing it.
    pub(super) fn renewed_presence(&mut self) -> Vec<u8> {
        if let Some(state) = self.awareness.local_state_raw() {
            self.awareness.set_local_state_raw(state);
        }
        self.presence_update()
    }
}
