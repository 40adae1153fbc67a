//! The blocks of a document's yrs nodes, as the tracker tells them apart: a blockContainer's
//! id, the block owning a node, the ids at or under an element, every id of the document.

use std::collections::HashSet;

use docs_client::blocknote::schema::{BLOCK_CONTAINER, BLOCK_GROUP};
use yrs::types::xml::{XmlElementRef, XmlOut};
use yrs::{BranchID, ID, Out, ReadTxn, TransactionMut, Xml, XmlFragment};

pub(super) fn is_container(el: &XmlElementRef) -> bool {
    el.tag().as_ref() == BLOCK_CONTAINER
}

pub(super) fn block_id<T: ReadTxn>(txn: &T, el: &XmlElementRef) -> Option<String> {
    match el.get_attribute(txn, "id")? {
        Out::Any(yrs::Any::String(s)) => Some(s.to_string()),
        other => Some(other.to_string(txn)),
    }
}

/// Whether `node` is the fragment or a blockGroup right under it: the list of outermost
/// blocks, which no block owns.
pub(super) fn is_outermost_list(node: &XmlOut) -> bool {
    match node {
        XmlOut::Fragment(_) => true,
        XmlOut::Element(el) => {
            el.tag().as_ref() == BLOCK_GROUP && matches!(el.parent(), Some(XmlOut::Fragment(_)))
        }
        XmlOut::Text(_) => false,
    }
}

/// The id of the closest blockContainer at or above `node`.
pub(super) fn owning_block<T: ReadTxn>(txn: &T, mut node: Option<XmlOut>) -> Option<String> {
    while let Some(current) = node {
        match current {
            XmlOut::Element(el) if is_container(&el) => return block_id(txn, &el),
            XmlOut::Element(el) => node = el.parent(),
            XmlOut::Text(text) => node = text.parent(),
            XmlOut::Fragment(_) => return None,
        }
    }
    None
}

/// The item of the outermost blockContainer at or above `node` (a child of the blockGroup
/// right under the fragment); `None` for that list itself, the fragment, or a node not in a
/// block of that list.
pub(super) fn outermost_container(mut node: XmlOut) -> Option<ID> {
    loop {
        let parent = match &node {
            XmlOut::Element(el) => el.parent()?,
            XmlOut::Text(text) => text.parent()?,
            XmlOut::Fragment(_) => return None,
        };
        match (&node, &parent) {
            (_, XmlOut::Fragment(_)) => return None,
            (XmlOut::Element(el), XmlOut::Element(_)) if is_outermost_list(&parent) => {
                return match AsRef::<yrs::branch::Branch>::as_ref(el).id() {
                    BranchID::Nested(id) if is_container(el) => Some(id),
                    _ => None,
                };
            }
            (_, XmlOut::Element(_)) if is_outermost_list(&parent) => return None,
            _ => node = parent,
        }
    }
}

pub(super) fn block_ids_in(txn: &TransactionMut, el: &XmlElementRef) -> Vec<String> {
    let mut ids = vec![];
    collect_ids(txn, el.clone(), &mut ids);
    ids
}

/// Ids of the blockContainers at or under `root`. Blocks sit only in blockGroups (the
/// outermost one, and each block's children), so only blockGroups and blockContainers are
/// walked, not what the blocks hold. With an explicit stack: documents come from other people
/// and may nest deeper than a thread's stack allows.
fn collect_ids<T: ReadTxn>(txn: &T, root: XmlElementRef, ids: &mut Vec<String>) {
    let mut stack = vec![root];
    while let Some(el) = stack.pop() {
        if is_container(&el) {
            ids.extend(block_id(txn, &el));
        } else if el.tag().as_ref() != BLOCK_GROUP {
            continue;
        }
        stack.extend(el.children(txn).filter_map(|child| match child {
            XmlOut::Element(child) => Some(child),
            _ => None,
        }));
    }
}

pub(super) fn all_block_ids<T: ReadTxn>(
    txn: &T,
    fragment: &yrs::XmlFragmentRef,
) -> HashSet<String> {
    let mut ids = vec![];
    for child in fragment.children(txn) {
        if let XmlOut::Element(el) = child {
            collect_ids(txn, el, &mut ids);
        }
    }
    ids.into_iter().collect()
}
