//! Knowing a write reached a server that does not acknowledge: yhub (y-websocket) sends no
//! SyncStatus and ignores a client's Step1, but it sends every client, the writer included,
//! what it took in (its full state on connect, then every update it applied). A write is
//! held once what the server sent covers every item the write inserted and every deletion
//! it made — the server's own proof, whatever merged or diffed on the way.
//!
//! A deletion someone else made first counts, as the server's state shows it. Writes are checked in
//! order (`Unconfirmed`).

use std::collections::VecDeque;

use yrs::{IdSet, Update};

/// Our writes the server has not shown it holds, oldest first.
#[derive(Default)]
pub(super) struct Unconfirmed {
    writes: VecDeque<Expected>,
}

struct Expected {
    seq: u64,
    /// What the write inserted and deleted that the server has not shown yet.
    inserted: IdSet,
    deleted: IdSet,
}

impl Unconfirmed {
    /// Write `seq` made `update` (our own, encoded by the write's transaction).
    pub fn wrote(&mut self, seq: u64, update: &Update) {
        self.writes.push_back(Expected {
            seq,
            inserted: update.insertions(true),
            deleted: update.delete_set().clone(),
        });
    }

    pub fn len(&self) -> usize {
        self.writes.len()
    }

    /// The server took every write up to `seq` another way (yhub's REST route).
    pub fn held_up_to(&mut self, seq: u64) {
        while self.writes.front().is_some_and(|w| w.seq <= seq) {
            self.writes.pop_front();
        }
    }

    /// The server sent `update` (state or relay): the highest write it now holds together
    /// with every write before it, if that advanced.
    pub fn heard(&mut self, update: &Update) -> Option<u64> {
        if self.writes.is_empty() {
            return None;
        }
        let inserted = update.insertions(true);
        let deleted = update.delete_set();
        for write in &mut self.writes {
            write.inserted.diff_with(&inserted);
            write.deleted.diff_with(deleted);
        }
        let mut held = None;
        while let Some(write) = self.writes.front()
            && write.inserted.is_empty()
            && write.deleted.is_empty()
        {
            held = Some(write.seq);
            self.writes.pop_front();
        }
        held
    }
}

#[cfg(test)]
mod tests {
    use yrs::updates::decoder::Decode;
    use yrs::updates::encoder::Encode;
    use yrs::{Doc, GetString, ReadTxn, StateVector, Text, Transact};

    use super::*;

    fn write(doc: &Doc, f: impl FnOnce(&mut yrs::TransactionMut<'_>, &yrs::TextRef)) -> Update {
        let text = doc.get_or_insert_text("t");
        let mut txn = doc.transact_mut();
        f(&mut txn, &text);
        Update::decode_v1(&txn.encode_update_v1()).unwrap()
    }

    fn state(doc: &Doc) -> Update {
        let bytes = doc
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        Update::decode_v1(&bytes).unwrap()
    }

    /// A y-websocket server: applies what it receives and relays what changed.
    fn relay(server: &Doc, update: Update) -> Update {
        let before = server.transact().state_vector();
        server.transact_mut().apply_update(update).unwrap();
        let bytes = server.transact().encode_state_as_update_v1(&before);
        Update::decode_v1(&bytes).unwrap()
    }

    #[test]
    fn writes_are_held_in_order_once_the_server_sent_them_back() {
        let (ours, server) = (Doc::with_client_id(1), Doc::with_client_id(2));
        let mut unconfirmed = Unconfirmed::default();
        let first = write(&ours, |txn, t| t.push(txn, "hello"));
        let first_bytes = first.encode_v1();
        unconfirmed.wrote(1, &first);
        let second = write(&ours, |txn, t| t.push(txn, " world"));
        let second_bytes = second.encode_v1();
        unconfirmed.wrote(2, &second);

        // Something else first: nothing of ours.
        let other = Doc::with_client_id(3);
        let theirs = write(&other, |txn, t| t.push(txn, "x"));
        assert_eq!(unconfirmed.heard(&relay(&server, theirs)), None);
        // The second write alone: the first still missing, nothing is held in order.
        let echo2 = relay(&server, Update::decode_v1(&second_bytes).unwrap());
        assert_eq!(unconfirmed.heard(&echo2), None);
        let echo1 = relay(&server, Update::decode_v1(&first_bytes).unwrap());
        assert_eq!(unconfirmed.heard(&echo1), Some(2));
        assert_eq!(unconfirmed.len(), 0);
    }

    #[test]
    fn a_deletion_is_held_once_the_servers_state_shows_it_even_if_someone_else_made_it() {
        let (ours, server) = (Doc::with_client_id(1), Doc::with_client_id(2));
        let seeded = write(&server, |txn, t| t.push(txn, "abc"));
        ours.transact_mut().apply_update(seeded).unwrap();
        let mut unconfirmed = Unconfirmed::default();
        unconfirmed.wrote(1, &write(&ours, |txn, t| t.remove_range(txn, 0, 2)));
        // The server's state before it got our deletion does not hold it.
        assert_eq!(unconfirmed.heard(&state(&server)), None);
        // Another person deleted the same letters first: the server's state now shows them
        // deleted, though our deletion changes nothing there.
        let person = Doc::with_client_id(3);
        person.transact_mut().apply_update(state(&server)).unwrap();
        let theirs = write(&person, |txn, t| t.remove_range(txn, 0, 2));
        server.transact_mut().apply_update(theirs).unwrap();
        assert_eq!(unconfirmed.heard(&state(&server)), Some(1));
        let text = server.get_or_insert_text("t");
        assert_eq!(text.get_string(&server.transact()), "c");
    }
}
