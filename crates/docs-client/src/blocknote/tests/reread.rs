//! Reading a document again after some blocks changed ([`reread_document`]).

use super::*;

/// A document of three paragraphs, the second with a nested one; their ids.
fn three_blocks() -> (Doc, XmlFragmentRef, Vec<String>) {
    let (d, f) = doc();
    let ids = insert_blocks(
        &mut d.transact_mut(),
        &f,
        &Position::End,
        &[
            NewBlock::new("paragraph").text("one"),
            NewBlock::new("paragraph")
                .text("two")
                .child(NewBlock::new("paragraph").text("nested")),
            NewBlock::new("paragraph").text("three"),
        ],
    )
    .unwrap();
    (d, f, ids)
}

#[test]
fn blocks_said_unchanged_are_taken_from_the_previous_read() {
    let (d, f, ids) = three_blocks();
    let previous = read(&d, &f);
    set_block_text(&mut d.transact_mut(), &f, &ids[0], "one, edited").unwrap();
    set_block_text(&mut d.transact_mut(), &f, &ids[3], "three, edited").unwrap();
    // Said changed: read again.
    let both = reread_document(&d.transact(), &f, previous.clone(), |id| {
        id == ids[0] || id == ids[3]
    });
    assert_eq!(both, read(&d, &f));
    // Said unchanged: taken as it was (which is how a wrong `changed` shows).
    let first = reread_document(&d.transact(), &f, previous.clone(), |id| id == ids[0]);
    assert_eq!(first.blocks[0].plain_text(), "one, edited");
    assert_eq!(first.blocks[2].plain_text(), "three");
}

#[test]
fn a_changed_nested_block_reads_its_outermost_block_again() {
    let (d, f, ids) = three_blocks();
    let previous = read(&d, &f);
    set_block_text(&mut d.transact_mut(), &f, &ids[2], "nested, edited").unwrap();
    let again = reread_document(&d.transact(), &f, previous.clone(), |id| id == ids[2]);
    assert_eq!(again.blocks[1].children[0].plain_text(), "nested, edited");
    assert_eq!(again, read(&d, &f));
}

#[test]
fn blocks_added_moved_and_deleted_are_where_the_document_has_them() {
    let (d, f, ids) = three_blocks();
    let previous = read(&d, &f);
    let added = {
        let mut txn = d.transact_mut();
        move_block(&mut txn, &f, &ids[3], &Position::Start).unwrap();
        delete_blocks(&mut txn, &f, &[ids[0].clone()], ChildrenMode::Delete).unwrap();
        insert_blocks(
            &mut txn,
            &f,
            &Position::After { id: ids[1].clone() },
            &[NewBlock::new("heading").prop("level", 2.0).text("new")],
        )
        .unwrap()
    };
    // A move writes the block anew: it counts as changed, as a new block does.
    let again = reread_document(&d.transact(), &f, previous.clone(), |id| {
        id == ids[3] || added.iter().any(|a| a == id)
    });
    assert_eq!(again, read(&d, &f));
    let order: Vec<&str> = again.blocks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(order, [ids[3].as_str(), ids[1].as_str(), added[0].as_str()]);
}

/// Gives the third outermost block the first one's id, as another client may.
fn copy_first_id_to_third(d: &Doc, f: &XmlFragmentRef, ids: &[String]) {
    let mut txn = d.transact_mut();
    let root = root_group(&txn, f).unwrap();
    let XmlOut::Element(last) = root.get(&txn, 2).unwrap() else {
        panic!("the third block")
    };
    last.insert_attribute(&mut txn, "id", ids[0].clone());
}

#[test]
fn a_block_given_another_id_is_read_when_said_changed_under_its_old_one() {
    let (d, f, ids) = three_blocks();
    let previous = read(&d, &f);
    copy_first_id_to_third(&d, &f, &ids);
    let again = reread_document(&d.transact(), &f, previous.clone(), |id| id == ids[3]);
    assert_eq!(again, read(&d, &f));
    assert_eq!(again.blocks[2].id, ids[0]);
    // Its container is the one read before: said unchanged, it is taken as it was (the
    // revision tracker reads the whole document after a block's id changes).
    let kept = reread_document(&d.transact(), &f, previous, |_| false);
    assert_eq!(kept.blocks[2].id, ids[3]);
}

#[test]
fn blocks_sharing_an_id_are_taken_in_order() {
    let (d, f, ids) = three_blocks();
    copy_first_id_to_third(&d, &f, &ids);
    let previous = read(&d, &f);
    set_block_text(&mut d.transact_mut(), &f, &ids[1], "two, edited").unwrap();
    let again = reread_document(&d.transact(), &f, previous, |id| id == ids[1]);
    assert_eq!(again, read(&d, &f));
    let texts: Vec<String> = again.blocks.iter().map(Block::plain_text).collect();
    assert_eq!(texts, ["one", "two, edited", "three"]);
}

#[test]
fn a_block_not_where_the_previous_read_has_it_makes_it_read_the_whole_document() {
    let (d, f, ids) = three_blocks();
    let previous = read(&d, &f);
    // A block added and another edited, and neither said to: the added one matches no
    // container read before, and is not said changed.
    let added = insert_blocks(
        &mut d.transact_mut(),
        &f,
        &Position::After { id: ids[0].clone() },
        &[NewBlock::new("paragraph").text("unsaid")],
    )
    .unwrap();
    set_block_text(&mut d.transact_mut(), &f, &ids[3], "three, edited").unwrap();
    let again = reread_document(&d.transact(), &f, previous.clone(), |_| false);
    assert_eq!(again, read(&d, &f));
    assert_eq!(again.blocks[1].id, added[0]);
    assert_eq!(again.blocks[3].plain_text(), "three, edited");
    // A previous read not read from a document (its containers unknown) is read whole too.
    let unknown = Document::new(previous.blocks);
    let again = reread_document(&d.transact(), &f, unknown, |_| false);
    assert_eq!(again, read(&d, &f));
    assert!(again.knows_containers());
}

#[test]
fn blocks_without_an_id_are_read() {
    let (d, f, _) = three_blocks();
    let idless = |d: &Doc, at: u32, text: &str| {
        let mut txn = d.transact_mut();
        let root = root_group(&txn, &f).unwrap();
        let container = root.insert(&mut txn, at, XmlElementPrelim::empty("blockContainer"));
        let paragraph = container.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
        paragraph.push_back(&mut txn, XmlTextPrelim::new(text));
    };
    idless(&d, 3, "old");
    let previous = read(&d, &f);
    // Another one comes before it; no block id says so.
    idless(&d, 0, "new");
    let again = reread_document(&d.transact(), &f, previous, |_| false);
    assert_eq!(again, read(&d, &f));
    assert_eq!(again.blocks[0].plain_text(), "new");
}

/// The containers of the outermost blocks with these ids, as a read of `d` has them.
fn containers_of(d: &Doc, f: &XmlFragmentRef, ids: &[&String]) -> Vec<yrs::ID> {
    let now = read(d, f);
    ids.iter()
        .map(|id| now.containers[now.blocks.iter().position(|b| &&b.id == id).unwrap()])
        .collect()
}

#[test]
fn blocks_added_and_changed_are_read_by_their_containers_alone() {
    let (d, f, ids) = three_blocks();
    let previous = read(&d, &f);
    let paragraph = |text: &str| NewBlock::new("paragraph").text(text);
    let (first, middle, last) = {
        let mut txn = d.transact_mut();
        let first = insert_blocks(&mut txn, &f, &Position::Start, &[paragraph("first")]).unwrap();
        let at = Position::After { id: ids[0].clone() };
        let middle = insert_blocks(&mut txn, &f, &at, &[paragraph("a"), paragraph("b")]).unwrap();
        let last = insert_blocks(&mut txn, &f, &Position::End, &[paragraph("last")]).unwrap();
        (first, middle, last)
    };
    set_block_text(&mut d.transact_mut(), &f, &ids[2], "nested, edited").unwrap();
    // Told in any order; the nested block by its outermost one's container.
    let changed = containers_of(
        &d,
        &f,
        &[&last[0], &middle[1], &ids[1], &first[0], &middle[0]],
    );
    let again = reread_containers(&d.transact(), &f, previous.clone(), &changed).unwrap();
    assert_eq!(again, read(&d, &f));
    assert_eq!(again.containers, read(&d, &f).containers);
    let texts: Vec<String> = again.blocks.iter().map(|b| b.plain_text()).collect();
    assert_eq!(texts, ["first", "one", "a", "b", "two", "three", "last"]);

    // A block added that is not told: the count tells it, and the read is given back.
    let told = containers_of(&d, &f, &[&last[0], &middle[1], &ids[1], &first[0]]);
    let back = reread_containers(&d.transact(), &f, previous.clone(), &told).unwrap_err();
    assert!(back.knows_containers());
    // A block deleted since: its container is not an outermost block any more.
    let deleted = containers_of(&d, &f, &[&ids[3]]);
    delete_blocks(
        &mut d.transact_mut(),
        &f,
        &[ids[3].clone()],
        ChildrenMode::Delete,
    )
    .unwrap();
    assert!(reread_containers(&d.transact(), &f, previous, &deleted).is_err());
}
