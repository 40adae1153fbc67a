//! Blocks given two child groups by concurrent writers. A block's children sit in one
//! blockGroup, made by whoever adds its first child. Two writers doing so at once (an agent
//! inserting under a block while a person indents a block under it) leave the block with two,
//! which BlockNote's schema refuses: y-prosemirror then deletes the whole block — its text and
//! both groups' children — in every browser that renders it, and the deletion reaches everyone.
//! A session that sees such a block re-creates it at once with one group holding the children
//! of both, in order, ids and content kept: the browsers that deleted the block show the copy.
//! (A browser that deletes it first loses nothing more: the copy was taken from the block
//! before the deletion arrived.) Of the sessions in a room, one does it (see `presence`).
//!
//! A block given two contents (two writers changing its type at once, each putting its own
//! content node in place of the old one) is deleted by browsers the same way: it is re-created
//! with the first, and each other content whose text differs becomes a new block after it.
//!
//! The document itself has the same shape one level up: one root blockGroup, made by whoever
//! writes into an empty document. Two made at once leave a second one, which a browser's next
//! write drops with its blocks (BlockNote shows one): its blocks are moved into the first.

use yrs::{Any, ReadTxn, TransactionMut, XmlElementRef, XmlFragment, XmlFragmentRef, XmlOut};

use super::nesting::MAX_NESTING;
use super::read::{root_group, with_container_id};
use super::schema::{BLOCK_CONTAINER, BLOCK_GROUP};
use super::snapshot::{restore, snapshot};
use super::write::new_block_id;
use super::yjs_depth::{UpdateTypes, node_depth, xml_node, xml_parent};

/// Levels of Yjs content a mended subtree may have: a document the model reads (a block and
/// its children's group per level, its content and text). Deeper, nothing is copied: such
/// content is no document a browser shows, and yrs recurses through it.
const MENDED_DEPTH: usize = 2 * MAX_NESTING + 8;

fn shallow<T: ReadTxn>(txn: &T, element: &XmlElementRef) -> bool {
    node_depth(txn, XmlOut::Element(element.clone()), MENDED_DEPTH) <= MENDED_DEPTH
}

/// Whether the document or a block holds two or more groups, or a block two contents: what
/// [`merge_child_groups`] mends (found in a read, before writing anything).
pub fn has_doubled_child_groups<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef) -> bool {
    root_groups(txn, frag).len() > 1 || !doubled(txn, frag).is_empty()
}

/// Whether the types an update created (applied already) gave a block a second group or
/// content, or the document a second root group: [`has_doubled_child_groups`] for what such an
/// update can double, without walking the whole document. Only a new node doubles: a block
/// gets a second group or content by a node created in it (or is created with two), the
/// document a second root group by a group created in the fragment.
pub fn doubled_by<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef, types: &UpdateTypes) -> bool {
    let doubled_container = |node: &XmlOut| match node {
        XmlOut::Element(container) if container.tag().as_ref() == BLOCK_CONTAINER => {
            let (mut groups, mut contents) = (0, 0);
            for child in container.children(txn) {
                match child {
                    XmlOut::Element(e) if e.tag().as_ref() == BLOCK_GROUP => groups += 1,
                    XmlOut::Element(_) => contents += 1,
                    _ => {}
                }
            }
            (groups > 1 || contents > 1) && shallow(txn, container)
        }
        _ => false,
    };
    types.ids().any(|id| {
        let Some(node) = xml_node(txn, id) else {
            return false;
        };
        match xml_parent(&node) {
            Some(XmlOut::Fragment(_)) => root_groups(txn, frag).len() > 1,
            Some(parent) => doubled_container(&parent) || doubled_container(&node),
            None => false,
        }
    })
}

/// Moves the blocks of the document's root groups after the first into it, then re-creates
/// each block holding two or more child groups with one, and with its first content (the
/// others of different texts as new blocks after it); the ids of the blocks moved or
/// re-created.
pub fn merge_child_groups(txn: &mut TransactionMut, frag: &XmlFragmentRef) -> Vec<String> {
    let mut mended = merge_root_groups(txn, frag);
    let found = doubled(txn, frag);
    // A block is found after the blocks holding it, so re-created in reverse, a block holding
    // another one is copied with it mended; a block's place in its group does not change
    // when one under it is re-created.
    for (group, index, container) in found.into_iter().rev() {
        let id = with_container_id(txn, &container, str::to_owned);
        let Some(copy) = snapshot(txn, &XmlOut::Element(container)) else {
            continue;
        };
        let copy = copy.merge_children_named(BLOCK_GROUP);
        let new_block = || vec![("id".to_owned(), Any::String(new_block_id().into()))];
        let (copy, others) = copy.split_extra_children(BLOCK_GROUP, BLOCK_CONTAINER, new_block);
        group.remove_range(txn, index, 1);
        restore(txn, &group, index, &copy);
        for (after, other) in others.iter().enumerate() {
            restore(txn, &group, index + 1 + after as u32, other);
        }
        mended.push(id);
    }
    mended
}

/// The blocks of the root groups after the first, copied in order to its end; those groups
/// removed. The ids of the blocks moved.
fn merge_root_groups(txn: &mut TransactionMut, frag: &XmlFragmentRef) -> Vec<String> {
    let roots = root_groups(txn, frag);
    let Some(((_, first), others)) = roots.split_first() else {
        return vec![];
    };
    let mut moved = vec![];
    let mut copies = vec![];
    for (_, group) in others {
        for child in group.children(txn) {
            if let XmlOut::Element(container) = &child {
                moved.push(with_container_id(txn, container, str::to_owned));
            }
            copies.extend(snapshot(txn, &child));
        }
    }
    for (index, _) in others.iter().rev() {
        frag.remove_range(txn, *index, 1);
    }
    for copy in &copies {
        let at = first.len(txn);
        restore(txn, first, at, copy);
    }
    moved
}

/// The document's root groups, with their places in the fragment; none unless each after
/// the first holds only blocks and is no deeper than a document the model reads.
fn root_groups<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef) -> Vec<(u32, XmlElementRef)> {
    let roots: Vec<(u32, XmlElementRef)> = frag
        .children(txn)
        .enumerate()
        .filter_map(|(index, child)| match child {
            XmlOut::Element(e) if e.tag().as_ref() == BLOCK_GROUP => Some((index as u32, e)),
            _ => None,
        })
        .collect();
    let movable = |group: &XmlElementRef| {
        shallow(txn, group)
            && group
                .children(txn)
                .all(|c| matches!(c, XmlOut::Element(e) if e.tag().as_ref() == BLOCK_CONTAINER))
    };
    if roots.iter().skip(1).all(|(_, group)| movable(group)) {
        roots
    } else {
        vec![]
    }
}

/// Each block holding two or more child groups or contents: the group it is in, and where; a
/// block after the blocks holding it.
fn doubled<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef) -> Vec<(XmlElementRef, u32, XmlElementRef)> {
    let mut found = vec![];
    let Some(root) = root_group(txn, frag) else {
        return found;
    };
    let mut groups = vec![root];
    while let Some(group) = groups.pop() {
        for (index, child) in group.children(txn).enumerate() {
            let XmlOut::Element(container) = child else {
                continue;
            };
            if container.tag().as_ref() != BLOCK_CONTAINER {
                continue;
            }
            let (own, contents): (Vec<XmlElementRef>, Vec<XmlElementRef>) = container
                .children(txn)
                .filter_map(|c| match c {
                    XmlOut::Element(e) => Some(e),
                    _ => None,
                })
                .partition(|e| e.tag().as_ref() == BLOCK_GROUP);
            if (own.len() > 1 || contents.len() > 1) && shallow(txn, &container) {
                found.push((group.clone(), index as u32, container.clone()));
            }
            groups.extend(own);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use yrs::updates::decoder::Decode;
    use yrs::{
        Doc, GetString, ReadTxn, Text, Transact, Update, Xml, XmlElementPrelim, XmlTextPrelim,
    };

    use super::*;
    use crate::blocknote::document_fragment;

    fn doc(client: u64) -> Doc {
        Doc::with_options(yrs::Options {
            client_id: yrs::block::ClientID::new(client),
            offset_kind: yrs::OffsetKind::Utf16,
            ..yrs::Options::default()
        })
    }

    fn container(
        txn: &mut TransactionMut,
        group: &XmlElementRef,
        index: u32,
        id: &str,
        text: &str,
    ) {
        let c = group.insert(txn, index, XmlElementPrelim::empty(BLOCK_CONTAINER));
        c.insert_attribute(txn, "id", yrs::Any::String(id.into()));
        let p = c.insert(txn, 0, XmlElementPrelim::empty("paragraph"));
        p.insert(txn, 0, XmlTextPrelim::new(text));
    }

    /// The block `at` of the root group of `frag`.
    fn block(txn: &impl ReadTxn, frag: &XmlFragmentRef, at: u32) -> XmlElementRef {
        let root = root_group(txn, frag).unwrap();
        match root.get(txn, at) {
            Some(XmlOut::Element(e)) => e,
            other => panic!("no block at {at}: {other:?}"),
        }
    }

    fn exchange(a: &Doc, b: &Doc) {
        let to_b = a
            .transact()
            .encode_state_as_update_v1(&b.transact().state_vector());
        let to_a = b
            .transact()
            .encode_state_as_update_v1(&a.transact().state_vector());
        b.transact_mut()
            .apply_update(Update::decode_v1(&to_b).unwrap())
            .unwrap();
        a.transact_mut()
            .apply_update(Update::decode_v1(&to_a).unwrap())
            .unwrap();
    }

    fn mend(doc: &Doc) -> Vec<String> {
        let frag = document_fragment(doc);
        merge_child_groups(&mut doc.transact_mut(), &frag)
    }

    fn xml(doc: &Doc) -> String {
        document_fragment(doc).get_string(&doc.transact())
    }

    /// "Parent" and "Other", on clients 1 and 2.
    fn raced_base() -> (Doc, Doc) {
        let (a, b) = (doc(1), doc(2));
        {
            let frag = document_fragment(&a);
            let mut txn = a.transact_mut();
            let root = frag.insert(&mut txn, 0, XmlElementPrelim::empty(BLOCK_GROUP));
            container(&mut txn, &root, 0, "parent", "Parent");
            container(&mut txn, &root, 1, "other", "Other");
        }
        exchange(&a, &b);
        (a, b)
    }

    /// `d` gives "Parent" a first child, `child`.
    fn give_first_child(d: &Doc, child: &str) {
        let frag = document_fragment(d);
        let mut txn = d.transact_mut();
        let parent = block(&txn, &frag, 0);
        let group = parent.insert(&mut txn, 1, XmlElementPrelim::empty(BLOCK_GROUP));
        container(&mut txn, &group, 0, child, &format!("Child {child}"));
    }

    /// "Parent" and "Other"; then client 1 and client 2 each give "Parent" a first child.
    fn raced() -> (Doc, Doc) {
        let (a, b) = raced_base();
        give_first_child(&a, "a");
        give_first_child(&b, "b");
        exchange(&a, &b);
        (a, b)
    }

    #[test]
    fn a_block_given_two_child_groups_is_recreated_with_one_holding_both() {
        let (a, b) = raced();
        assert_eq!(
            xml(&a),
            "<blockGroup><blockContainer id=\"parent\"><paragraph>Parent</paragraph>\
             <blockGroup><blockContainer id=\"a\"><paragraph>Child a</paragraph></blockContainer></blockGroup>\
             <blockGroup><blockContainer id=\"b\"><paragraph>Child b</paragraph></blockContainer></blockGroup>\
             </blockContainer><blockContainer id=\"other\"><paragraph>Other</paragraph></blockContainer></blockGroup>"
        );
        let mended = mend(&a);
        assert_eq!(mended, ["parent"]);
        exchange(&a, &b);
        let expected = "<blockGroup><blockContainer id=\"parent\"><paragraph>Parent</paragraph>\
             <blockGroup><blockContainer id=\"a\"><paragraph>Child a</paragraph></blockContainer>\
             <blockContainer id=\"b\"><paragraph>Child b</paragraph></blockContainer></blockGroup>\
             </blockContainer><blockContainer id=\"other\"><paragraph>Other</paragraph></blockContainer></blockGroup>";
        assert_eq!(
            (xml(&a), xml(&b)),
            (expected.to_owned(), expected.to_owned())
        );
    }

    #[test]
    fn the_blocks_of_a_second_root_group_are_moved_into_the_first() {
        // Two clients each write into an empty document: two root groups.
        let (a, b) = (doc(1), doc(2));
        for (d, id) in [(&a, "a"), (&b, "b")] {
            let frag = document_fragment(d);
            let mut txn = d.transact_mut();
            let root = frag.insert(&mut txn, 0, XmlElementPrelim::empty(BLOCK_GROUP));
            container(&mut txn, &root, 0, id, &format!("Block {id}"));
        }
        exchange(&a, &b);
        assert_eq!(
            xml(&a),
            "<blockGroup><blockContainer id=\"a\"><paragraph>Block a</paragraph></blockContainer></blockGroup>\
             <blockGroup><blockContainer id=\"b\"><paragraph>Block b</paragraph></blockContainer></blockGroup>"
        );
        let frag = document_fragment(&a);
        assert!(has_doubled_child_groups(&a.transact(), &frag));
        assert_eq!(mend(&a), ["b"]);
        exchange(&a, &b);
        let expected = "<blockGroup><blockContainer id=\"a\"><paragraph>Block a</paragraph></blockContainer>\
             <blockContainer id=\"b\"><paragraph>Block b</paragraph></blockContainer></blockGroup>";
        assert_eq!(
            (xml(&a), xml(&b)),
            (expected.to_owned(), expected.to_owned())
        );
        assert!(!has_doubled_child_groups(&a.transact(), &frag));
    }

    /// "Parent" and "Other"; then client 1 makes "Parent" a heading reading `one`, client 2 a
    /// quote reading `two`, each replacing its content node.
    fn retyped(one: &str, two: &str) -> (Doc, Doc) {
        let (a, b) = raced_base();
        for (d, tag, text) in [(&a, "heading", one), (&b, "quote", two)] {
            let frag = document_fragment(d);
            let mut txn = d.transact_mut();
            let parent = block(&txn, &frag, 0);
            parent.remove_range(&mut txn, 0, 1);
            let content = parent.insert(&mut txn, 0, XmlElementPrelim::empty(tag));
            content.insert(&mut txn, 0, XmlTextPrelim::new(text));
        }
        exchange(&a, &b);
        (a, b)
    }

    #[test]
    fn a_block_given_two_contents_keeps_the_first_and_a_different_text_becomes_a_block() {
        let (a, b) = retyped("Parent", "Parent");
        assert_eq!(
            xml(&a),
            "<blockGroup><blockContainer id=\"parent\"><heading>Parent</heading><quote>Parent</quote>\
             </blockContainer><blockContainer id=\"other\"><paragraph>Other</paragraph></blockContainer></blockGroup>"
        );
        assert_eq!(mend(&a), ["parent"]);
        exchange(&a, &b);
        let expected = "<blockGroup><blockContainer id=\"parent\"><heading>Parent</heading></blockContainer>\
             <blockContainer id=\"other\"><paragraph>Other</paragraph></blockContainer></blockGroup>";
        assert_eq!(
            (xml(&a), xml(&b)),
            (expected.to_owned(), expected.to_owned())
        );

        // Different texts: nothing of either is lost.
        let (a, _b) = retyped("Parent, one", "Parent, two");
        assert_eq!(mend(&a), ["parent"]);
        let mended = xml(&a);
        let start = "<blockGroup><blockContainer id=\"parent\"><heading>Parent, one</heading></blockContainer><blockContainer id=\"";
        let end = "\"><quote>Parent, two</quote></blockContainer><blockContainer id=\"other\"><paragraph>Other</paragraph></blockContainer></blockGroup>";
        assert!(
            mended.starts_with(start) && mended.ends_with(end),
            "{mended}"
        );
        let frag = document_fragment(&a);
        assert!(!has_doubled_child_groups(&a.transact(), &frag));
    }

    /// What `b` has that `a` lacks, applied to `a`: whether the update's types tell a doubling
    /// (`doubled_by`), and whether the whole document holds one.
    fn received(a: &Doc, b: &Doc) -> (bool, bool) {
        let update = b
            .transact()
            .encode_state_as_update_v1(&a.transact().state_vector());
        a.transact_mut()
            .apply_update(Update::decode_v1(&update).unwrap())
            .unwrap();
        let frag = document_fragment(a);
        let types = super::super::update_types(&update).unwrap();
        let txn = a.transact();
        (
            doubled_by(&txn, &frag, &types),
            has_doubled_child_groups(&txn, &frag),
        )
    }

    #[test]
    fn the_update_that_doubles_a_block_is_told_by_its_types() {
        // A second child group, from the other writer.
        let (a, b) = raced_base();
        give_first_child(&a, "a");
        give_first_child(&b, "b");
        assert_eq!(received(&a, &b), (true, true));
        // A second content: both type changes reach a third peer at once.
        let (a, _) = retyped("one", "two");
        let (c, _) = raced_base();
        assert_eq!(received(&c, &a), (true, true));
        // A second root group.
        let (a, b2) = (doc(1), doc(2));
        for (d, id) in [(&a, "a"), (&b2, "b")] {
            let frag = document_fragment(d);
            let mut txn = d.transact_mut();
            let root = frag.insert(&mut txn, 0, XmlElementPrelim::empty(BLOCK_GROUP));
            container(&mut txn, &root, 0, id, &format!("Block {id}"));
        }
        assert_eq!(received(&a, &b2), (true, true));
        // A block with a child group and typing, one writer at a time: nothing doubled.
        let (a, c) = raced_base();
        give_first_child(&c, "child");
        assert_eq!(received(&a, &c), (false, false));
        {
            let frag = document_fragment(&c);
            let mut txn = c.transact_mut();
            let other = block(&txn, &frag, 1);
            let Some(XmlOut::Element(paragraph)) = other.get(&txn, 0) else {
                panic!("a paragraph")
            };
            let Some(XmlOut::Text(text)) = paragraph.get(&txn, 0) else {
                panic!("a text")
            };
            text.insert(&mut txn, 0, "More ");
        }
        assert_eq!(received(&a, &c), (false, false));
    }

    #[test]
    fn the_copy_survives_a_browser_deleting_the_block_it_refused() {
        // Client 2 (a browser) deletes the block it cannot show, concurrently with client 1
        // mending it: the copy stands.
        let (a, b) = raced();
        mend(&a);
        {
            let frag = document_fragment(&b);
            let root = root_group(&b.transact(), &frag).unwrap();
            root.remove_range(&mut b.transact_mut(), 0, 1);
        }
        exchange(&a, &b);
        assert_eq!(xml(&a), xml(&b));
        assert!(
            xml(&a).starts_with(
                "<blockGroup><blockContainer id=\"parent\"><paragraph>Parent</paragraph>\
                 <blockGroup><blockContainer id=\"a\">"
            ),
            "{}",
            xml(&a)
        );
    }
}
