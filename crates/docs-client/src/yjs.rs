//! What a Yjs update holds, next to a document.

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

#[cfg(test)]
mod tests {
    use yrs::updates::decoder::Decode;
    use yrs::{Doc, GetString, ReadTxn, StateVector, Text, Transact, Update};

    use super::*;

    fn update(bytes: &[u8]) -> Update {
        Update::decode_v1(bytes).unwrap()
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
        assert!(!contains(&copy.transact(), &update(&first)));
        apply(&first);
        assert!(contains(&copy.transact(), &update(&first)));
        // The second write's clocks do not start at 0.
        assert!(!contains(&copy.transact(), &update(&second)));
        apply(&second);
        assert!(contains(&copy.transact(), &update(&second)));
        assert!(!contains(&copy.transact(), &update(&deletion)));
        apply(&deletion);
        assert!(contains(&copy.transact(), &update(&deletion)));
        let whole = writer
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        assert!(contains(&copy.transact(), &update(&whole)));
        assert_eq!(text.get_string(&writer.transact()), "world!");
    }
}
