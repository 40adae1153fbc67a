//! The tracker: reads after changes, and which changes it can attribute.

use docs_client::blocknote::schema::BLOCK_CONTAINER;
use docs_client::blocknote::{ChildrenMode, NewBlock, Position};
use yrs::types::Event;
use yrs::types::xml::XmlOut;
use yrs::updates::decoder::Decode;
use yrs::{ReadTxn, Text, Update, Xml, XmlFragment};

use super::*;
use crate::seeded::Draw;

fn all_ids(doc: &Doc) -> Vec<String> {
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let blocks = blocknote::read_document(&doc.transact(), &fragment);
    blocks.all_blocks().iter().map(|b| b.id.clone()).collect()
}

/// One change of the document, drawn: blocks inserted (outermost or nested), deleted,
/// moved, retyped, their text rewritten, an attribute of a block's container set or its id
/// changed.
fn change(doc: &Doc, draw: &mut Draw, step: usize) {
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let ids = all_ids(doc);
    let some = |draw: &mut Draw| ids[draw.below(ids.len())].clone();
    let mut txn = doc.transact_mut();
    let paragraph = NewBlock::new("paragraph").text(format!("step {step}"));
    let _ = match draw.below(8) {
        0 if !ids.is_empty() => {
            blocknote::delete_blocks(&mut txn, &fragment, &[some(draw)], ChildrenMode::Delete)
        }
        1 if !ids.is_empty() => {
            let at = Position::After { id: some(draw) };
            blocknote::move_block(&mut txn, &fragment, &some(draw), &at)
        }
        2 if !ids.is_empty() => {
            blocknote::set_block_text(&mut txn, &fragment, &some(draw), &format!("**{step}**"))
        }
        3 if !ids.is_empty() => blocknote::update_block(
            &mut txn,
            &fragment,
            &some(draw),
            Some("heading"),
            &blocknote::Props::new(),
        ),
        4 if !ids.is_empty() => {
            let at = Position::LastChildOf { id: some(draw) };
            blocknote::insert_blocks(&mut txn, &fragment, &at, &[paragraph]).map(|_| ())
        }
        // An attribute of a container set; or its id changed, as a browser's pasted
        // block that shared one is given another.
        attribute @ (5 | 6) if !ids.is_empty() => {
            let (key, value) = match attribute {
                5 => ("backgroundColor", format!("c{step}")),
                _ => ("id", format!("renamed-{step}")),
            };
            let id = some(draw);
            let mut containers = vec![blocknote::root_group(&txn, &fragment).unwrap()];
            while let Some(el) = containers.pop() {
                if el
                    .get_attribute(&txn, "id")
                    .is_some_and(|v| v.to_string(&txn) == id)
                {
                    el.insert_attribute(&mut txn, key, value);
                    break;
                }
                containers.extend(el.children(&txn).filter_map(|c| match c {
                    XmlOut::Element(e) => Some(e),
                    _ => None,
                }));
            }
            Ok(())
        }
        _ => {
            blocknote::insert_blocks(&mut txn, &fragment, &Position::End, &[paragraph]).map(|_| ())
        }
    };
}

/// One change of `live`, drawn: made in it, or (one in three) by a person whose copy of the
/// document sends it as an update, as over the wire.
fn change_here_or_by_a_person(live: &Doc, person: &Doc, draw: &mut Draw, step: usize) {
    if draw.below(3) != 0 {
        return change(live, draw, step);
    }
    let before = person.transact().state_vector();
    let state = live.transact().encode_state_as_update_v1(&before);
    person
        .transact_mut()
        .apply_update(Update::decode_v1(&state).unwrap())
        .unwrap();
    let before = live.transact().state_vector();
    change(person, draw, step);
    let update = person.transact().encode_state_as_update_v1(&before);
    live.transact_mut()
        .apply_update(Update::decode_v1(&update).unwrap())
        .unwrap();
}

#[test]
fn a_read_after_changes_reads_what_a_whole_read_reads() {
    let live = Doc::new();
    let tracker = RevisionTracker::of(live.clone(), Arc::new(RecentReads::default()));
    let person = Doc::new();
    let mut draw = Draw(17);
    for step in 0..600 {
        change_here_or_by_a_person(&live, &person, &mut draw, step);
        // Several changes between reads now and then.
        if draw.below(2) == 0 {
            let (_, blocks) = tracker.read();
            let fragment = live.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
            let whole = blocknote::read_document(&live.transact(), &fragment);
            assert_eq!(*blocks, whole, "step {step}");
        }
    }
    assert!(
        all_ids(&live).len() > 20,
        "the document grew: {}",
        all_ids(&live).len()
    );
    // Many of those reads took only the outermost blocks changed (no block deleted or
    // moved since the read before).
    let spliced = tracker.spliced.load(Ordering::Relaxed);
    assert!(
        spliced > 40,
        "{spliced} reads of the outermost blocks changed"
    );
}

#[test]
fn a_read_that_comes_while_another_is_under_way_takes_what_it_read() {
    let live = Doc::new();
    let tracker = Arc::new(RevisionTracker::of(
        live.clone(),
        Arc::new(RecentReads::default()),
    ));
    let mut draw = Draw(5);
    for step in 0..5 {
        change(&live, &mut draw, step);
    }
    tracker.read();
    change(&live, &mut draw, 5);
    // Two reads at once (the work after an edit, and the next plan).
    let under_way = tracker.reading.lock().unwrap();
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let tracker = tracker.clone();
            std::thread::spawn(move || tracker.read().1)
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(readers.iter().all(|r| !r.is_finished()), "they wait");
    drop(under_way);
    let read: Vec<_> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    assert!(Arc::ptr_eq(&read[0], &read[1]), "read once");
    let fragment = live.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    assert_eq!(
        *read[0],
        blocknote::read_document(&live.transact(), &fragment)
    );
}

/// A block without an id: a change in it is no block's by its id, but its outermost block's
/// container tells it, and the next read reads that block alone.
#[test]
fn a_change_no_block_id_tells_is_read_by_its_container() {
    let live = Doc::new();
    let tracker = RevisionTracker::of(live.clone(), Arc::new(RecentReads::default()));
    let mut draw = Draw(3);
    for step in 0..5 {
        change(&live, &mut draw, step);
    }
    tracker.read();
    let fragment = live.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    // Another client writes a block without an id, then types in it.
    let text = {
        let mut txn = live.transact_mut();
        let root = blocknote::root_group(&txn, &fragment).unwrap();
        let container = root.push_back(&mut txn, yrs::XmlElementPrelim::empty(BLOCK_CONTAINER));
        let paragraph = container.push_back(&mut txn, yrs::XmlElementPrelim::empty("paragraph"));
        paragraph.push_back(&mut txn, yrs::XmlTextPrelim::new("typed"))
    };
    tracker.read();
    text.insert(&mut live.transact_mut(), 5, " on");
    let state = tracker.state.lock().unwrap();
    assert_eq!(state.unattributed_at, state.counter);
    let read_at = state.counter - 1;
    drop(state);
    assert!(tracker.blocks_changed_since(read_at).is_none());
    let spliced = tracker.spliced.load(Ordering::Relaxed);
    let (_, blocks) = tracker.read();
    assert_eq!(tracker.spliced.load(Ordering::Relaxed), spliced + 1);
    assert_eq!(
        *blocks,
        blocknote::read_document(&live.transact(), &fragment)
    );
    assert_eq!(blocks.blocks.last().unwrap().plain_text(), "typed on");
}

#[test]
fn recent_reads_keep_the_last_few_documents_at_their_revision() {
    let recent = RecentReads::default();
    let blocks = Arc::new(Document::default());
    recent.put(1, 7, blocks.clone());
    assert!(recent.get(1, 7).is_some_and(|b| Arc::ptr_eq(&b, &blocks)));
    // Another revision of the same document replaces it.
    assert!(recent.get(1, 8).is_none());
    recent.put(1, 8, Arc::new(Document::default()));
    assert!(recent.get(1, 7).is_none());
    assert_eq!(recent.len(), 1);
    for tracker in 2..10 {
        recent.put(tracker, 1, Arc::new(Document::default()));
    }
    assert_eq!(recent.len(), RECENT_DOCUMENTS);
    assert!(recent.get(1, 8).is_none());
    assert!(recent.get(9, 1).is_some());
}

#[test]
fn a_tracker_dropped_leaves_another_of_the_same_document_tracking() {
    let live = Doc::new();
    let recent = Arc::new(RecentReads::default());
    let mut draw = Draw(11);
    change(&live, &mut draw, 0);
    // Two opens raced to attach: the loser's tracker is dropped.
    let kept = RevisionTracker::of(live.clone(), recent.clone());
    let lost = RevisionTracker::of(live.clone(), recent);
    drop(lost);
    let before = kept.counter();
    change(&live, &mut draw, 1);
    assert!(kept.counter() > before, "it still sees changes");
    let fragment = live.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    assert_eq!(
        *kept.read().1,
        blocknote::read_document(&live.transact(), &fragment)
    );
}

/// The blocks a change added, told by the items it inserted, are the ones the deltas of the
/// lists it changed tell, for every change that deletes nothing (a person's, which come as
/// updates, included).
#[test]
fn the_blocks_added_told_by_the_items_inserted_are_those_the_deltas_tell() {
    let live = Doc::new();
    let fragment = live.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let told = Arc::new(Mutex::new((0usize, 0usize)));
    let counts = told.clone();
    fragment.observe_deep("compare", move |txn, events| {
        let Some(containers) = added::by_inserts(txn) else {
            return;
        };
        let mut by_inserts: Vec<String> = containers
            .iter()
            .filter_map(|container| nodes::block_id(txn, container))
            .collect();
        let mut by_delta = vec![];
        for event in events.iter() {
            if let Event::XmlFragment(e) = event
                && e.children_changed()
            {
                assert!(!added::by_delta(txn, e, &mut by_delta), "nothing removed");
            }
        }
        by_inserts.sort();
        by_delta.sort();
        assert_eq!(by_inserts, by_delta);
        let mut counts = counts.lock().unwrap();
        counts.0 += 1;
        counts.1 += by_inserts.len();
    });
    let person = Doc::new();
    let mut draw = Draw(29);
    for step in 0..400 {
        change_here_or_by_a_person(&live, &person, &mut draw, step);
    }
    let (changes, blocks) = *told.lock().unwrap();
    assert!(
        changes > 100 && blocks > 80,
        "{changes} changes told by their items, {blocks} blocks added"
    );
}
