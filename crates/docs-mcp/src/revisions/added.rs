//! The blocks a change added, for the tracker's observer. yrs tells them through each changed
//! list's delta, which walks every item of the list: an insert into a document of 50 000
//! outermost blocks walked the 50 000. A change that deleted nothing and inserted a few items
//! is looked at by its items instead (a lookup each), with the same result: the new
//! blockContainers that the delta's walk would find, each added to a list that existed or
//! reached from such a list through new blockGroups and blockContainers only.

use docs_client::blocknote::schema::{BLOCK_CONTAINER, BLOCK_GROUP};
use yrs::types::xml::{XmlElementRef, XmlEvent, XmlOut};
use yrs::types::{Change, TypeRef};
use yrs::{BranchID, ID, Out, TransactionMut, Xml};

use super::nodes::{block_ids_in, is_container};

/// Most clocks a change may insert to be looked at by its items (a lookup per clock); past
/// them, a paste of many blocks, the delta's walk costs no more.
const MAX_INSERTED_CLOCKS: u32 = 4096;

/// The containers of the blocks `txn` added, in the order of their items, when it deleted
/// nothing and inserted at most [`MAX_INSERTED_CLOCKS`] clocks; `None` otherwise (the caller
/// reads the deltas, which also tell what was removed).
pub(super) fn by_inserts(txn: &TransactionMut) -> Option<Vec<XmlElementRef>> {
    if !txn.delete_set().is_empty() {
        return None;
    }
    let inserted = txn.insert_set();
    let clocks: u32 = inserted
        .iter()
        .flat_map(|(_, ranges)| ranges.into_iter().map(|r| r.end - r.start))
        .sum();
    if clocks > MAX_INSERTED_CLOCKS {
        return None;
    }
    let mut added = vec![];
    for (client, ranges) in inserted.iter() {
        for clock in ranges.into_iter().flat_map(Clone::clone) {
            let Some(branch) = BranchID::get_nested(txn, &ID::new(*client, clock)) else {
                continue;
            };
            if !matches!(branch.type_ref(), TypeRef::XmlElement(tag) if tag.as_ref() == BLOCK_CONTAINER)
            {
                continue;
            }
            let container = XmlElementRef::from(branch);
            if reached_by_a_walk(txn, &container) {
                added.push(container);
            }
        }
    }
    Some(added)
}

/// Keeps the ids of the blocks `event`'s delta added, walking every item of its list; true
/// when it removed some (a walk of the block ids tells which).
pub(super) fn by_delta(txn: &TransactionMut, event: &XmlEvent, ids: &mut Vec<String>) -> bool {
    let mut removed = false;
    for change in event.delta(txn) {
        match change {
            Change::Added(values) => {
                for value in values {
                    if let Out::YXmlElement(el) = value {
                        ids.extend(block_ids_in(txn, el));
                    }
                }
            }
            Change::Removed(_) => removed = true,
            Change::Retain(_) => {}
        }
    }
    removed
}

/// Whether the walk of a delta's added elements reaches `container`: up from it, each new
/// element is a blockGroup or a blockContainer until one that was in the document already.
fn reached_by_a_walk(txn: &TransactionMut, container: &XmlElementRef) -> bool {
    let mut node = container.parent();
    while let Some(XmlOut::Element(el)) = node {
        if !is_new(txn, &el) {
            return true;
        }
        if !is_container(&el) && el.tag().as_ref() != BLOCK_GROUP {
            return false;
        }
        node = el.parent();
    }
    // The fragment (or a text, which holds no element) above: in the document already.
    true
}

/// Whether `el` was inserted by `txn` (deleted ones were left out: it deleted nothing).
fn is_new(txn: &TransactionMut, el: &XmlElementRef) -> bool {
    match AsRef::<yrs::branch::Branch>::as_ref(el).id() {
        BranchID::Nested(id) => txn.insert_set().contains(&id),
        BranchID::Root(_) => false,
    }
}
