//! What one connection has yet to send, bounded whatever the socket does. Policies:
//! - protocol frames (Auth, Step1, the Step2 answering the room's Step1) keep their order;
//!   a connection whose socket lets more than [`PROTOCOL_LIMIT`] of them pile up is not being
//!   read, and is dropped (the next handshake resends what is needed);
//! - local writes not yet sent coalesce into one Update (Yjs updates merge), and wait while
//!   [`IN_FLIGHT_LIMIT`] messages are unacknowledged;
//! - presence holds one slot: a newer state replaces an unsent one (renewals coalesce);
//! - a ping holds one slot.

use std::collections::VecDeque;

use tokio_tungstenite::tungstenite;

use crate::protocol::{Message, Sync, Wire};

/// Protocol frames allowed to wait; a handshake needs three.
pub(super) const PROTOCOL_LIMIT: usize = 16;
/// Sync messages sent and not yet acknowledged, per connection.
pub(super) const IN_FLIGHT_LIMIT: usize = 1024;
/// Local updates kept apart before they are merged into one.
const UPDATES_BEFORE_MERGE: usize = 32;

/// One message for the socket; `covers` is set on Sync messages that carry our writes, where
/// the server acknowledges each (Hocuspocus).
pub(super) struct Outgoing {
    pub message: tungstenite::Message,
    pub covers: Option<u64>,
}

#[derive(Debug, PartialEq, Eq)]
pub(super) struct Overflow;

pub(super) struct Outbox {
    wire: Wire,
    /// Whether presence is published: a read-only yhub connection must not (its awareness
    /// is refused).
    publishes_presence: bool,
    protocol: VecDeque<Outgoing>,
    /// Local updates not sent yet, and the highest write among them.
    updates: Vec<Vec<u8>>,
    updates_cover: u64,
    presence: Option<Vec<u8>>,
    ping: bool,
}

impl Outbox {
    pub fn new(wire: Wire, publishes_presence: bool) -> Self {
        Outbox {
            wire,
            publishes_presence,
            protocol: VecDeque::new(),
            updates: Vec::new(),
            updates_cover: 0,
            presence: None,
            ping: false,
        }
    }

    /// Queues a protocol frame; `covers`: the writes a Sync frame carries.
    pub fn push_protocol(&mut self, message: Message, covers: Option<u64>) -> Result<(), Overflow> {
        if self.protocol.len() >= PROTOCOL_LIMIT {
            return Err(Overflow);
        }
        self.protocol.push_back(Outgoing {
            message: self.binary(message),
            covers,
        });
        Ok(())
    }

    /// Queues the update of local write `seq`.
    pub fn push_update(&mut self, update: Vec<u8>, seq: u64) {
        self.updates.push(update);
        self.updates_cover = self.updates_cover.max(seq);
        if self.updates.len() >= UPDATES_BEFORE_MERGE {
            self.merge_updates();
        }
    }

    /// Sets the presence to announce, replacing one not sent yet.
    pub fn set_presence(&mut self, awareness_update: Vec<u8>) {
        if self.publishes_presence {
            self.presence = Some(awareness_update);
        }
    }

    pub fn ping(&mut self) {
        self.ping = true;
    }

    /// Whether something may be sent now, with `in_flight` Sync messages unacknowledged.
    pub fn has_sendable(&self, in_flight: usize) -> bool {
        !self.protocol.is_empty()
            || (!self.updates.is_empty() && in_flight < IN_FLIGHT_LIMIT)
            || self.presence.is_some()
            || self.ping
    }

    /// The next message to send: protocol frames first (the Step2 must precede Updates),
    /// then our writes, presence, ping.
    pub fn pop(&mut self, in_flight: usize) -> Option<Outgoing> {
        if let Some(frame) = self.protocol.pop_front() {
            return Some(frame);
        }
        if !self.updates.is_empty() && in_flight < IN_FLIGHT_LIMIT {
            self.merge_updates();
            let update = self.updates.pop().expect("merged into one");
            let covers = std::mem::take(&mut self.updates_cover);
            let acknowledged = matches!(self.wire, Wire::Hocuspocus { .. });
            return Some(Outgoing {
                message: self.binary(Message::Sync(Sync::Update(update))),
                covers: acknowledged.then_some(covers),
            });
        }
        if let Some(update) = self.presence.take() {
            return Some(Outgoing {
                message: self.binary(Message::Awareness(update)),
                covers: None,
            });
        }
        if std::mem::take(&mut self.ping) {
            return Some(Outgoing {
                message: tungstenite::Message::Ping(Default::default()),
                covers: None,
            });
        }
        None
    }

    fn merge_updates(&mut self) {
        if self.updates.len() < 2 {
            return;
        }
        let parts: Vec<&[u8]> = self.updates.iter().map(Vec::as_slice).collect();
        match yrs::merge_updates_v1(&parts) {
            Ok(merged) => self.updates = vec![merged],
            // Updates we encoded ourselves always merge; if not, they go out one by one.
            Err(e) => tracing::warn!("could not merge local updates: {e}"),
        }
    }

    fn binary(&self, message: Message) -> tungstenite::Message {
        tungstenite::Message::Binary(self.wire.encode(&message).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yrs::{Doc, GetString, ReadTxn, Text, Transact, Update, updates::decoder::Decode};

    fn hocuspocus() -> Wire {
        Wire::Hocuspocus {
            document: "doc".into(),
        }
    }

    fn decode(outgoing: &Outgoing) -> Message {
        match &outgoing.message {
            tungstenite::Message::Binary(bytes) => hocuspocus().decode(bytes).unwrap().unwrap(),
            other => panic!("not a frame: {other:?}"),
        }
    }

    #[test]
    fn protocol_frames_go_first_and_are_bounded() {
        let mut outbox = Outbox::new(hocuspocus(), true);
        outbox.set_presence(vec![1]);
        outbox.push_update(vec![0, 0], 1);
        outbox
            .push_protocol(Message::AuthToken(String::new()), None)
            .unwrap();
        outbox
            .push_protocol(Message::Sync(Sync::Step2(vec![0, 0])), Some(0))
            .unwrap();
        assert_eq!(
            decode(&outbox.pop(0).unwrap()),
            Message::AuthToken(String::new())
        );
        let step2 = outbox.pop(0).unwrap();
        assert_eq!(step2.covers, Some(0));
        assert_eq!(outbox.pop(0).unwrap().covers, Some(1));
        assert_eq!(decode(&outbox.pop(0).unwrap()), Message::Awareness(vec![1]));
        assert!(outbox.pop(0).is_none());

        for _ in 0..PROTOCOL_LIMIT {
            outbox.push_protocol(Message::QueryAwareness, None).unwrap();
        }
        assert_eq!(
            outbox.push_protocol(Message::QueryAwareness, None),
            Err(Overflow)
        );
    }

    #[test]
    fn a_read_only_y_websocket_connection_publishes_no_presence_and_its_writes_await_no_status() {
        let mut outbox = Outbox::new(Wire::YWebsocket, false);
        outbox.set_presence(vec![1]);
        outbox.push_update(vec![0, 0], 1);
        let update = outbox.pop(0).unwrap();
        assert_eq!(update.covers, None, "yhub sends no SyncStatus to wait for");
        assert_eq!(
            Wire::YWebsocket
                .decode(match &update.message {
                    tungstenite::Message::Binary(b) => b,
                    _ => panic!("binary"),
                })
                .unwrap(),
            Some(Message::Sync(Sync::Update(vec![0, 0])))
        );
        assert!(outbox.pop(0).is_none(), "no awareness");
    }

    #[test]
    fn presence_and_pings_coalesce() {
        let mut outbox = Outbox::new(hocuspocus(), true);
        for renewal in 0..100u8 {
            outbox.set_presence(vec![renewal]);
            outbox.ping();
        }
        assert_eq!(
            decode(&outbox.pop(0).unwrap()),
            Message::Awareness(vec![99])
        );
        assert!(matches!(
            outbox.pop(0).unwrap().message,
            tungstenite::Message::Ping(_)
        ));
        assert!(outbox.pop(0).is_none());
        assert!(!outbox.has_sendable(0));
    }

    #[test]
    fn unsent_writes_coalesce_into_one_update_and_wait_for_acknowledgements() {
        let doc = Doc::new();
        let text = doc.get_or_insert_text("t");
        let mut outbox = Outbox::new(hocuspocus(), true);
        for seq in 1..=100u64 {
            let mut txn = doc.transact_mut();
            text.push(&mut txn, &format!("{seq},"));
            outbox.push_update(txn.encode_update_v1(), seq);
        }
        assert!(outbox.updates.len() < UPDATES_BEFORE_MERGE);
        assert!(!outbox.has_sendable(IN_FLIGHT_LIMIT));
        assert!(outbox.pop(IN_FLIGHT_LIMIT).is_none());

        let sent = outbox.pop(0).unwrap();
        assert_eq!(sent.covers, Some(100));
        let Message::Sync(Sync::Update(update)) = decode(&sent) else {
            panic!("an update")
        };
        let copy = Doc::new();
        copy.transact_mut()
            .apply_update(Update::decode_v1(&update).unwrap())
            .unwrap();
        let expected: String = (1..=100).map(|i| format!("{i},")).collect();
        let copied = copy.get_or_insert_text("t");
        assert_eq!(copied.get_string(&copy.transact()), expected);
        assert_eq!(
            copy.transact().state_vector(),
            doc.transact().state_vector()
        );
        assert!(outbox.pop(0).is_none());
    }
}
