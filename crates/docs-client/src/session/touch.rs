//! A person's typing that met an agent's write in flight. Two insertions that did not see each
//! other are ordered by Yjs side by side: a person extending "Human" while the agent's rewrite
//! of it to "Agent-edited" is on its way ends as "Agent-editedkind", a word nobody wrote. What
//! the room sends after a watched write is read for text the person placed against what the
//! write deleted, or in the very gap it inserted into, without having seen it; such a write is
//! taken back at once (the write's insertions deleted, its deletions restored where they
//! were, as an undo does), which leaves exactly what the person typed: "Humankind".
//!
//! The document keeps deleted content (`skip_gc`) so that it can be restored: a watched
//! write's deletions are collected when its watch ends, everything else's at once.
//!
//! `DocumentSession::write_watched` makes such a write; `touch_settled` tells how its watch ended.
//!
//! A write is watched for two seconds, and at least one after its acknowledgement. The take-back is
//! computed with an undo on a copy of the document, so the person's letters stay exactly where they
//! typed them; the service then records the edit `applied` → `conflict` once the take-back is
//! acknowledged (`service::settle`). Typing that arrives after the watch (a client offline for
//! longer) is merged as Yjs orders it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use yrs::block::ClientID;
use yrs::undo::{Options as UndoOptions, StackItem, UndoManager};
use yrs::updates::decoder::Decode;
use yrs::{Doc, ID, IdSet, ReadTxn, StateVector, Transact, TransactionMut, Update};

use crate::raw_update::{self, Id, RawStruct};

/// How long after a watched write was made a person's concurrent typing is still looked for;
/// at least this long after it was acknowledged too (their typing crossed it on the way).
const WATCH_FOR: Duration = Duration::from_secs(2);
const WATCH_AFTER_ACK: Duration = Duration::from_secs(1);
/// Writes watched at once; the oldest watch ends early past it.
const MAX_WATCHED: usize = 256;
/// Take-backs remembered for callers that have not asked yet.
const MAX_TAKEN_BACK: usize = 256;

/// What callers see of the watches: the writes still watched, and the writes taken back (by
/// the write that took each back).
#[derive(Debug, Clone, Default)]
pub(super) struct TouchBoard {
    pub watching: BTreeSet<u64>,
    pub taken_back: BTreeMap<u64, u64>,
}

/// What became of a write a person's typing could meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// Nobody's typing met it while it was watched (or it was not watched).
    Clear,
    /// A person typed against what it changed before seeing it: it was taken back by the
    /// write `by` (which is acknowledged and saved like any write).
    TakenBack { by: u64 },
}

/// One watched write: what it inserted and deleted, and the gaps its insertions went into.
pub(super) struct Watched {
    seq: u64,
    inserted: IdSet,
    deleted: IdSet,
    gaps: Vec<(Option<Id>, Option<Id>)>,
    written_at: Instant,
    closes_at: Option<Instant>,
}

impl Watched {
    /// A write made in `txn` (not committed yet) whose update is `update`: what it inserted
    /// and deleted, and the gaps its insertions went into. Numbered by [`Touches::watch`].
    pub(super) fn of(update: &[u8], txn: &TransactionMut<'_>) -> Watched {
        let (before, after) = (txn.before_state(), txn.state_vector());
        let mut inserted = IdSet::new();
        for (client, clock) in after.iter() {
            let from = before.get(client);
            if *clock > from {
                inserted.insert(ID::new(*client, from), clock - from);
            }
        }
        let gaps = text_items(update)
            .into_iter()
            .filter(|(_, origin, _)| !origin.is_some_and(|o| inserted.contains(&id_of(o))))
            .map(|(_, origin, right)| (origin, right))
            .collect();
        Watched {
            seq: 0,
            inserted,
            deleted: txn.delete_set().clone(),
            gaps,
            written_at: Instant::now(),
            closes_at: None,
        }
    }
}

/// The actor's watches.
#[derive(Default)]
pub(super) struct Touches {
    watched: VecDeque<Watched>,
}

fn id_of((client, clock): Id) -> ID {
    ID::new(ClientID::new(client), clock)
}

/// The text items of an update: id, origins (types are left out: a person adding a block
/// beside an agent's is a clean union).
fn text_items(update: &[u8]) -> Vec<(Id, Option<Id>, Option<Id>)> {
    let mut items = vec![];
    let _ = raw_update::read_structs(update, |place, raw| {
        if let RawStruct::Item {
            is_type: false,
            origin,
            right_origin,
            ..
        } = raw
        {
            items.push(((place.client, place.clock), origin, right_origin));
        }
    });
    items
}

impl Touches {
    /// Watches write `seq` (see [`Watched::of`]).
    pub fn watch(&mut self, board: &watch::Sender<TouchBoard>, seq: u64, mut watched: Watched) {
        watched.seq = seq;
        self.watched.push_back(watched);
        board.send_modify(|b| {
            b.watching.insert(seq);
        });
    }

    pub fn is_empty(&self) -> bool {
        self.watched.is_empty()
    }

    /// The first watched write `update` (from the room) meets: text it places against what
    /// the write deleted or in the gap the write inserted into, without having seen the
    /// write. Items the document has (`known`) were seen before the write.
    pub fn met_by(&self, update: &[u8], known: &StateVector) -> Option<u64> {
        let items = text_items(update);
        self.watched.iter().find_map(|w| {
            let ours = |id: Option<Id>| id.is_some_and(|id| w.inserted.contains(&id_of(id)));
            let gone = |id: Option<Id>| id.is_some_and(|id| w.deleted.contains(&id_of(id)));
            items
                .iter()
                .filter(|(id, _, _)| {
                    id.1 >= known.get(&ClientID::new(id.0)) && !w.inserted.contains(&id_of(*id))
                })
                .any(|&(_, origin, right)| {
                    gone(origin)
                        || (gone(right) && !ours(origin))
                        || w.gaps.contains(&(origin, right))
                })
                .then_some(w.seq)
        })
    }

    /// Ends the watch of write `seq` to take it back: the update that does it in `doc`
    /// (computed on a copy: the write's insertions deleted, its deletions restored where they
    /// were; `None` when nothing is left to take back), and the write's deletions, which the
    /// document may collect once that is applied.
    pub fn take_back(&mut self, doc: &Doc, seq: u64) -> Option<(Option<Vec<u8>>, IdSet)> {
        let at = self.watched.iter().position(|w| w.seq == seq)?;
        let watched = self.watched.remove(at)?;
        let deleted = watched.deleted.clone();
        Some((undone(doc, watched), deleted))
    }

    /// Sets when each acknowledged watch closes; returns the earliest close to wait for.
    pub fn refresh(&mut self, acknowledged: u64) -> Option<Instant> {
        let now = Instant::now();
        for w in &mut self.watched {
            if w.closes_at.is_none() && w.seq <= acknowledged {
                w.closes_at = Some((w.written_at + WATCH_FOR).max(now + WATCH_AFTER_ACK));
            }
        }
        self.watched.iter().filter_map(|w| w.closes_at).min()
    }

    /// Ends the watches that are due (all with `all`, and the oldest past the bound): their
    /// deletions are collected, and callers told they are clear.
    pub fn close_due(&mut self, txn: &mut TransactionMut<'_>, all: bool) -> Vec<u64> {
        let now = Instant::now();
        let mut closed = vec![];
        let mut deleted = IdSet::new();
        let over = self.watched.len().saturating_sub(MAX_WATCHED);
        let mut index = 0;
        self.watched.retain_mut(|w| {
            let due = all || index < over || w.closes_at.is_some_and(|at| at <= now);
            index += 1;
            if due {
                deleted.merge_with(std::mem::take(&mut w.deleted));
                closed.push(w.seq);
            }
            !due
        });
        if !closed.is_empty() {
            txn.gc(Some(&deleted));
        }
        closed
    }
}

/// The update that takes `watched` back in `doc`, computed on a copy of it with an undo.
fn undone(doc: &Doc, watched: Watched) -> Option<Vec<u8>> {
    let (state, known) = {
        let txn = doc.transact();
        (
            txn.encode_state_as_update_v1(&StateVector::default()),
            txn.state_vector(),
        )
    };
    // A client of its own: what it restores is not this session's writing (nor counted as
    // such by anyone reading who wrote what).
    let copy = Doc::with_options(yrs::Options {
        client_id: Doc::new().client_id(),
        guid: doc.guid(),
        offset_kind: yrs::OffsetKind::Utf16,
        skip_gc: true,
        ..yrs::Options::default()
    });
    let fragment = crate::blocknote::document_fragment(&copy);
    copy.transact_mut()
        .apply_update(Update::decode_v1(&state).ok()?)
        .ok()?;
    let mut undo: UndoManager<()> = UndoManager::with_options(UndoOptions {
        init_undo_stack: vec![StackItem::with_meta(
            copy.guid(),
            watched.deleted,
            watched.inserted,
            (),
        )],
        ..UndoOptions::default()
    });
    undo.expand_scope(&copy, &fragment);
    let changed = undo.undo_blocking();
    drop(undo);
    changed.then(|| copy.transact().encode_state_as_update_v1(&known))
}

/// Collects what `txn` deleted (the document keeps deleted content only for watched writes).
pub(super) fn collect(txn: &mut TransactionMut<'_>) {
    let deleted = txn.delete_set().clone();
    txn.gc(Some(&deleted));
}

/// Tells callers the watches of `closed` ended, `taken_back` among them (with the write
/// that took each back).
pub(super) fn publish(
    board: &watch::Sender<TouchBoard>,
    closed: &[u64],
    taken_back: Option<(u64, u64)>,
) {
    board.send_modify(|b| {
        for seq in closed {
            b.watching.remove(seq);
        }
        if let Some((seq, by)) = taken_back {
            b.watching.remove(&seq);
            b.taken_back.insert(seq, by);
            while b.taken_back.len() > MAX_TAKEN_BACK {
                b.taken_back.pop_first();
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use yrs::types::Attrs;
    use yrs::types::text::YChange;
    use yrs::{Text, XmlElementPrelim, XmlFragment, XmlOut, XmlTextPrelim, XmlTextRef};

    use super::*;

    const AGENT: u64 = 1;
    const PERSON: u64 = 2;

    fn doc(client: u64) -> Doc {
        Doc::with_options(yrs::Options {
            client_id: ClientID::new(client),
            offset_kind: yrs::OffsetKind::Utf16,
            skip_gc: true,
            ..yrs::Options::default()
        })
    }

    /// The paragraph's text: "The **Human** race".
    fn seeded() -> Vec<u8> {
        let seed = doc(9);
        let fragment = crate::blocknote::document_fragment(&seed);
        let mut txn = seed.transact_mut();
        let paragraph = fragment.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
        let text = paragraph.push_back(&mut txn, XmlTextPrelim::new(""));
        text.insert(&mut txn, 0, "The Human race");
        text.format(&mut txn, 4, 5, Attrs::from([("bold".into(), true.into())]));
        drop(txn);
        seed.transact()
            .encode_state_as_update_v1(&StateVector::default())
    }

    fn text_of(doc: &Doc) -> XmlTextRef {
        let fragment = crate::blocknote::document_fragment(doc);
        let txn = doc.transact();
        let Some(XmlOut::Element(paragraph)) = fragment.get(&txn, 0) else {
            panic!("no paragraph")
        };
        let Some(XmlOut::Text(text)) = paragraph.get(&txn, 0) else {
            panic!("no text")
        };
        text
    }

    /// The paragraph's text, without its formatting.
    fn read(doc: &Doc) -> String {
        text_of(doc)
            .diff(&doc.transact(), YChange::identity)
            .iter()
            .map(|chunk| match &chunk.insert {
                yrs::Out::Any(yrs::Any::String(s)) => s.to_string(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn apply(doc: &Doc, update: &[u8]) {
        doc.transact_mut()
            .apply_update(Update::decode_v1(update).unwrap())
            .unwrap();
    }

    /// The agent's document with `seeded` content, the person's copy of it, and the agent's
    /// watched rewrite of "Human" into "Agent-edited" (write 1), not yet seen by the person.
    struct Crossing {
        agent: Doc,
        person: Doc,
        touches: Touches,
        board: watch::Sender<TouchBoard>,
        write: Vec<u8>,
    }

    fn crossing() -> Crossing {
        let (agent, person) = (doc(AGENT), doc(PERSON));
        for d in [&agent, &person] {
            crate::blocknote::document_fragment(d);
            apply(d, &seeded());
        }
        let text = text_of(&agent);
        let mut txn = agent.transact_mut();
        text.remove_range(&mut txn, 4, 5);
        text.insert(&mut txn, 4, "Agent-edited");
        let write = txn.encode_update_v1();
        let watched = Watched::of(&write, &txn);
        drop(txn);
        let mut touches = Touches::default();
        let board = watch::Sender::new(TouchBoard::default());
        touches.watch(&board, 1, watched);
        Crossing {
            agent,
            person,
            touches,
            board,
            write,
        }
    }

    impl Crossing {
        /// The person types `at` their index; returns their update.
        fn person_types(&self, at: u32, typed: &str) -> Vec<u8> {
            let text = text_of(&self.person);
            let mut txn = self.person.transact_mut();
            text.insert(&mut txn, at, typed);
            txn.encode_update_v1()
        }

        /// The agent receives `update`: whether it meets the write; if so, the write is taken
        /// back and the person receives it and its take-back. Returns both texts.
        fn receive(&mut self, update: &[u8]) -> (bool, String, String) {
            let known = self.agent.transact().state_vector();
            let met = self.touches.met_by(update, &known);
            apply(&self.agent, update);
            apply(&self.person, &self.write);
            if let Some(seq) = met {
                let (undo, _) = self.touches.take_back(&self.agent, seq).unwrap();
                let undo = undo.expect("something to take back");
                apply(&self.agent, &undo);
                apply(&self.person, &undo);
            }
            (met.is_some(), read(&self.agent), read(&self.person))
        }
    }

    #[test]
    fn a_word_a_person_extended_while_the_rewrite_was_on_its_way_is_theirs_again() {
        let mut crossing = crossing();
        let typed = crossing.person_types(9, "kind");
        let (met, agent, person) = crossing.receive(&typed);
        assert!(met);
        assert_eq!(agent, "The Humankind race");
        assert_eq!(person, agent);
        // The restored word keeps its formatting.
        let delta = text_of(&crossing.agent).diff(
            &crossing.agent.transact(),
            yrs::types::text::YChange::identity,
        );
        assert_eq!(delta.len(), 3, "{delta:?}");
        assert!(
            delta[1]
                .attributes
                .as_ref()
                .is_some_and(|a| a.contains_key("bold"))
        );
    }

    #[test]
    fn letters_typed_inside_or_before_the_old_word_stay_where_they_were_typed() {
        for (at, typed, expected) in [(6, "x", "The Huxman race"), (4, "ab", "The abHuman race")] {
            let mut crossing = crossing();
            let typed = crossing.person_types(at, typed);
            let (met, agent, person) = crossing.receive(&typed);
            assert!(met, "{expected}");
            assert_eq!(agent, expected);
            assert_eq!(person, expected);
        }
    }

    #[test]
    fn typing_elsewhere_or_after_seeing_the_rewrite_keeps_it() {
        let mut crossing = crossing();
        let typed = crossing.person_types(14, " cars");
        let (met, agent, _) = crossing.receive(&typed);
        assert!(!met);
        assert_eq!(agent, "The Agent-edited race cars");
        // Having seen it, the person extends the agent's word: theirs to do.
        let typed = crossing.person_types(16, "s");
        let (met, agent, person) = crossing.receive(&typed);
        assert!(!met);
        assert_eq!(agent, "The Agent-editeds race cars");
        assert_eq!(person, agent);
    }

    #[test]
    fn a_watch_ends_after_its_acknowledgement_and_collects_the_writes_deletions() {
        let mut crossing = crossing();
        assert_eq!(crossing.touches.refresh(0), None);
        let closes = crossing
            .touches
            .refresh(1)
            .expect("acknowledged: it closes");
        assert!(closes >= Instant::now() + WATCH_AFTER_ACK - Duration::from_millis(100));
        let closed = {
            let mut txn = crossing.agent.transact_mut();
            crossing.touches.close_due(&mut txn, true)
        };
        assert_eq!(closed, vec![1]);
        publish(&crossing.board, &closed, None);
        assert!(crossing.board.borrow().watching.is_empty());
        // Nothing is left to restore: the deleted word's content was collected.
        let state = crossing
            .agent
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        assert!(!String::from_utf8_lossy(&state).contains("Human"));
    }
}
