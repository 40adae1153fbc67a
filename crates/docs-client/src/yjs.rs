//! What a Yjs update holds, next to a document.
//!
//! `contains`: whether everything a Yjs update inserts and deletes is in a document, judged by each
//! client's last clock — not by `Update::state_vector`, which leaves out a client whose clocks do
//! not start at 0. The service recognizes an edit in a document by it.
//!
//! `contains_encoded`: the same of an update still encoded, read for its clocks and deletions only
//! (`raw_update::update_reach`, no content built). The session recognizes by it a large update of
//! the room it holds already — our whole document, sent back by Hocuspocus — without decoding it.

use yrs::{ReadTxn, Update};

/// Whether everything `update` inserts and deletes is in the document. A document holds each
/// client's clocks from 0 up, so an insertion is in it when its last clock is. (Not
/// `Update::state_vector`: it leaves out a client whose clocks do not start at 0, as those of
/// a second write by the same client.) The document's deletions are only gathered (a walk
/// of the whole document) when the update deletes something and its insertions are in it.
pub fn contains<T: ReadTxn>(txn: &T, update: &Update) -> bool {
    let live = txn.state_vector();
    let inserted = update.insertions(true);
    if inserted.iter().any(|(client, ranges)| {
        ranges
            .iter()
            .next_back()
            .is_some_and(|last| live.get(client) < last.end)
    }) {
        return false;
    }
    let deleted_by_it = update.delete_set();
    deleted_by_it.is_empty() || deleted_by_it.diff(&txn.snapshot().delete_set).is_empty()
}

/// [`contains`] of a v1 update not decoded: read for its clocks and deletions only (decoding
/// a whole document's update costs what loading it did). `None` when it cannot be read so.
pub fn contains_encoded<T: ReadTxn>(txn: &T, update: &[u8]) -> Option<bool> {
    let reach = crate::raw_update::update_reach(update)?;
    let live = txn.state_vector();
    if reach
        .inserted_up_to
        .iter()
        .any(|(client, end)| live.get(client) < *end)
    {
        return Some(false);
    }
    Some(reach.deleted.is_empty() || reach.deleted.diff(&txn.snapshot().delete_set).is_empty())
}

#[cfg(test)]
mod tests {
    use yrs::updates::decoder::Decode;
    use yrs::{Doc, GetString, ReadTxn, StateVector, Text, Transact, Update};

    use super::*;

    fn update(bytes: &[u8]) -> Update {
        Update::decode_v1(bytes).unwrap()
    }

    /// [`contains`] of `bytes`, which [`contains_encoded`] must tell alike.
    fn holds(doc: &Doc, bytes: &[u8]) -> bool {
        let txn = doc.transact();
        let decoded = contains(&txn, &update(bytes));
        assert_eq!(contains_encoded(&txn, bytes), Some(decoded), "{bytes:?}");
        decoded
    }

    /// A client's two writes, the deletion alone, and a copy of the document holding them.
    #[test]
    fn an_update_is_contained_once_all_it_inserts_and_deletes_is_there() {
        let writer = Doc::with_client_id(7);
        let text = writer.get_or_insert_text("t");
        let first = {
            let mut txn = writer.transact_mut();
            text.push(&mut txn, "hello world");
            txn.encode_update_v1()
        };
        let second = {
            let mut txn = writer.transact_mut();
            text.push(&mut txn, "!");
            txn.encode_update_v1()
        };
        let deletion = {
            let mut txn = writer.transact_mut();
            text.remove_range(&mut txn, 0, 6);
            txn.encode_update_v1()
        };
        let copy = Doc::new();
        let apply = |bytes: &[u8]| copy.transact_mut().apply_update(update(bytes)).unwrap();
        assert!(!holds(&copy, &first));
        apply(&first);
        assert!(holds(&copy, &first));
        // The second write's clocks do not start at 0.
        assert!(!holds(&copy, &second));
        apply(&second);
        assert!(holds(&copy, &second));
        assert!(!holds(&copy, &deletion));
        apply(&deletion);
        assert!(holds(&copy, &deletion));
        let whole = writer
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        assert!(holds(&copy, &whole));
        assert_eq!(text.get_string(&writer.transact()), "world!");
    }
}
