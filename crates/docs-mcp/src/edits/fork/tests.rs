//! Forks: made ahead, taken once in order, lent and given back, followed while ready.

use docs_client::blocknote::{self, EditorSchema, write::Position};
use yrs::{GetString, Text, XmlFragment};

use super::*;

fn doc_with(markdown: &str) -> Doc {
    let doc = Doc::with_options(Options {
        offset_kind: OffsetKind::Utf16,
        ..Options::default()
    });
    append_on(&doc, markdown);
    doc
}

fn markdown(doc: &Doc) -> String {
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let blocks = blocknote::read_document(&doc.transact(), &fragment);
    blocknote::export_markdown(&blocks.blocks, &Default::default()).markdown
}

/// The client ids of the forks ready, oldest first.
fn ready_ids(forks: &Forks) -> Vec<u64> {
    let ready = forks.ready.lock().unwrap();
    ready.iter().map(|fork| fork.client_id().get()).collect()
}

/// Someone else's change, made in a document of their own and sent over.
fn change_elsewhere(live: &Doc, change: impl FnOnce(&Doc)) {
    let other = Doc::new();
    let state = live
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    apply(&other, &state).unwrap();
    let before = other.transact().state_vector();
    change(&other);
    let update = other.transact().encode_state_as_update_v1(&before);
    apply(live, &update).unwrap();
}

/// An edit planned on `fork`: a paragraph appended. Returns its update.
fn append_on(fork: &Doc, text: &str) -> Vec<u8> {
    let fragment = fork.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let blocks = blocknote::import_markdown(text).unwrap();
    let mut txn = fork.transact_mut();
    blocknote::insert_blocks(&mut txn, &fragment, &Position::End, &blocks).unwrap();
    txn.encode_update_v1()
}

/// The top-level block at `index` deleted in `doc`. Returns the change.
fn remove_block(doc: &Doc, index: u32) -> Vec<u8> {
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let mut txn = doc.transact_mut();
    let group = blocknote::root_group(&txn, &fragment).unwrap();
    group.remove_range(&mut txn, index, 1);
    txn.encode_update_v1()
}

fn merge(live: &Doc, update: &[u8]) {
    apply(live, update).unwrap();
}

fn is_in(live: &Doc, update: &[u8]) -> bool {
    contains(&live.transact(), &Update::decode_v1(update).unwrap())
}

#[test]
fn a_fork_whose_edit_was_merged_is_the_next_fork_with_what_changed_since() {
    let live = doc_with("First\n\nSecond\n\nThird");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    let (fork, ()) = forks.take(|| ()).unwrap();
    let id = fork.client_id().get();
    let first = append_on(&fork, "Fourth");
    merge(&live, &first);
    // A person's changes after the edit was planned: a deletion and a paragraph typed.
    change_elsewhere(&live, |other| {
        remove_block(other, 1);
    });
    change_elsewhere(&live, |other| {
        append_on(other, "Typed");
    });
    assert!(forks.give_back(fork, &first));
    assert_eq!(ready_ids(&forks), vec![id]);
    let (next, ()) = forks.take(|| ()).unwrap();
    assert_eq!(next.client_id().get(), id, "no copy: the same fork");
    assert_eq!(markdown(&next), "First\n\nThird\n\nFourth\n\nTyped\n");
    assert_eq!(
        next.transact().state_vector(),
        live.transact().state_vector()
    );
    // Its next edit is told apart from the first by its clocks.
    let second = append_on(&next, "Fifth");
    assert!(is_in(&live, &first));
    assert!(!is_in(&live, &second), "not merged yet");
    merge(&live, &second);
    assert!(is_in(&live, &second));
    assert_eq!(
        markdown(&live),
        "First\n\nThird\n\nFourth\n\nTyped\n\nFifth\n"
    );
}

/// A document past [`LARGE_DOCUMENT_CLOCKS`]: one text of that many characters.
fn large_doc() -> Doc {
    let doc = doc_with("First");
    let text = doc.get_or_insert_text("large");
    let long = "x".repeat(LARGE_DOCUMENT_CLOCKS as usize);
    text.insert(&mut doc.transact_mut(), 0, &long);
    doc
}

#[test]
fn a_large_document_keeps_one_fork_ready_or_lent_however_the_refills_fall() {
    let live = large_doc();
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    let (first, ()) = forks.take(|| ()).unwrap();
    let first_edit = append_on(&first, "One");
    merge(&live, &first_edit);
    assert!(forks.give_back(first, &first_edit));
    // The next edit takes the fork given back before the first edit's refill runs.
    let (second, ()) = forks.take(|| ()).unwrap();
    forks.refill().unwrap();
    assert_eq!(
        ready_ids(&forks),
        Vec::<u64>::new(),
        "no copy while one is lent"
    );
    let second_edit = append_on(&second, "Two");
    merge(&live, &second_edit);
    let id = second.client_id().get();
    assert!(forks.give_back(second, &second_edit));
    forks.refill().unwrap();
    assert_eq!(ready_ids(&forks), vec![id]);
    // A lent fork that does not come back (its edit waits for a person) is made again.
    let (third, ()) = forks.take(|| ()).unwrap();
    let waiting = append_on(&third, "Three");
    assert!(!forks.give_back(third, &waiting));
    forks.refill().unwrap();
    assert_eq!(ready_ids(&forks).len(), 1);
    // A small document's refill does not wait for the lent fork.
    let small = doc_with("First");
    let forks = Forks::new(small, EditorSchema::BASE);
    let (_lent, ()) = forks.take(|| ()).unwrap();
    forks.refill().unwrap();
    assert_eq!(ready_ids(&forks).len(), 1);
}

#[test]
fn a_fork_whose_edit_is_not_in_the_live_document_is_dropped() {
    let live = doc_with("First\n\nSecond");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    // Waiting for a person, refused or failed: not merged.
    let (fork, ()) = forks.take(|| ()).unwrap();
    let waiting = append_on(&fork, "Third");
    assert!(!forks.give_back(fork, &waiting));
    // A deletion only: the state vectors alike, the documents not.
    let (fork, ()) = forks.take(|| ()).unwrap();
    let deletion = remove_block(&fork, 0);
    assert_eq!(
        fork.transact().state_vector(),
        live.transact().state_vector()
    );
    assert!(!forks.give_back(fork, &deletion));
    assert_eq!(ready_ids(&forks), Vec::<u64>::new());
    let (next, ()) = forks.take(|| ()).unwrap();
    assert_eq!(markdown(&next), "First\n\nSecond\n");
}

#[test]
fn a_fork_lent_while_too_much_changed_is_dropped() {
    let live = doc_with("First");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    let (fork, ()) = forks.take(|| ()).unwrap();
    let edit = append_on(&fork, "Second");
    merge(&live, &edit);
    // A person pastes more than is kept for a lent fork.
    let pasted = "x".repeat(LENT_CHANGES_MAX_BYTES + 1);
    change_elsewhere(&live, |other| {
        other
            .get_or_insert_text("pasted")
            .push(&mut other.transact_mut(), &pasted);
    });
    assert!(!forks.give_back(fork, &edit));
    let (next, ()) = forks.take(|| ()).unwrap();
    assert_eq!(markdown(&next), "First\n\nSecond\n");
    assert_eq!(
        next.get_or_insert_text("pasted")
            .get_string(&next.transact())
            .len(),
        pasted.len()
    );
}

#[test]
fn forks_follow_the_document_from_a_refill_made_while_a_transaction_was_open() {
    let live = doc_with("First");
    let forks = Arc::new(Forks::new(live.clone(), EditorSchema::BASE));
    let reading = live.transact();
    let refill = {
        let forks = forks.clone();
        std::thread::spawn(move || forks.refill().unwrap())
    };
    std::thread::sleep(Duration::from_millis(50));
    drop(reading);
    refill.join().unwrap();
    change_elsewhere(&live, |other| {
        remove_block(other, 0);
    });
    let (fork, ()) = forks.take(|| ()).unwrap();
    assert_eq!(markdown(&fork), "");
}

#[test]
fn a_fork_given_back_after_another_was_handed_out_is_dropped() {
    let live = doc_with("First");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    let (fork, ()) = forks.take(|| ()).unwrap();
    let edit = append_on(&fork, "Second");
    // The next edit came first: its fork has a higher id, and the given back one would
    // order later edits before it.
    let (later, ()) = forks.take(|| ()).unwrap();
    merge(&live, &edit);
    assert!(!forks.give_back(fork, &edit));
    assert_eq!(ready_ids(&forks), Vec::<u64>::new());
    let (next, ()) = forks.take(|| ()).unwrap();
    assert!(next.client_id().get() > later.client_id().get());
}

#[test]
fn a_fork_given_back_is_taken_before_the_ones_made_ahead() {
    let live = doc_with("First");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    forks.take(|| ()).unwrap();
    let (fork, ()) = forks.take(|| ()).unwrap();
    let id = fork.client_id().get();
    let edit = append_on(&fork, "Second");
    merge(&live, &edit);
    assert!(forks.give_back(fork, &edit));
    // In a row: one more is made ahead, with a higher id.
    forks.refill().unwrap();
    let ready = ready_ids(&forks);
    assert_eq!(ready.len(), READY_FORKS);
    assert_eq!(ready[0], id);
    // A change of the live document reaches both.
    live.get_or_insert_text("unrelated")
        .push(&mut live.transact_mut(), "x");
    for expected in ready {
        let (fork, ()) = forks.take(|| ()).unwrap();
        assert_eq!(fork.client_id().get(), expected);
        assert_eq!(
            fork.get_or_insert_text("unrelated")
                .get_string(&fork.transact()),
            "x"
        );
        assert_eq!(markdown(&fork), "First\n\nSecond\n");
    }
}

#[test]
fn the_forks_made_ahead_follow_every_change_and_are_taken_once_in_order() {
    let live = doc_with("First\n\nSecond\n\nThird");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    forks.refill().unwrap();
    assert_eq!(
        ready_ids(&forks).len(),
        1,
        "one while edits do not come in a row"
    );
    forks.take(|| ()).unwrap();
    forks.take(|| ()).unwrap();
    forks.refill().unwrap();
    let ids = ready_ids(&forks);
    assert_eq!(ids.len(), READY_FORKS, "{ids:?}");
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    // Changes after it was made, an insertion and a deletion, reach it.
    change_elsewhere(&live, |other| {
        remove_block(other, 1);
    });
    live.get_or_insert_text("unrelated")
        .push(&mut live.transact_mut(), "x");
    for id in &ids {
        let (fork, at) = forks.take(|| "at").unwrap();
        assert_eq!(at, "at");
        assert_eq!(fork.client_id().get(), *id, "the oldest first");
        assert_eq!(markdown(&fork), markdown(&live));
        assert_eq!(markdown(&fork), "First\n\nThird\n");
        assert_eq!(
            fork.get_or_insert_text("unrelated")
                .get_string(&fork.transact()),
            "x"
        );
    }
    // All taken: the next edit gets a fresh copy, with an id of its own.
    assert_eq!(ready_ids(&forks), Vec::<u64>::new());
    let (fresh, ()) = forks.take(|| ()).unwrap();
    assert!(fresh.client_id().get() > ids[READY_FORKS - 1]);
    assert_eq!(markdown(&fresh), markdown(&live));
}

#[test]
fn a_fork_made_before_a_later_edit_took_a_fresh_one_is_not_used() {
    let live = doc_with("First");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    forks.refill().unwrap();
    let ready = ready_ids(&forks);
    // An edit that found no fork ready (taken meanwhile) got a fresh one, with a higher id.
    let stale = std::mem::take(&mut *forks.ready.lock().unwrap());
    let (fresh, ()) = forks.take(|| ()).unwrap();
    assert!(fresh.client_id().get() > *ready.last().unwrap());
    *forks.ready.lock().unwrap() = stale;
    // The older forks would order the next edit before that one: a new copy is made.
    let (next, ()) = forks.take(|| ()).unwrap();
    assert!(next.client_id().get() > fresh.client_id().get());
    assert_eq!(
        ready_ids(&forks),
        Vec::<u64>::new(),
        "the stale ones are dropped"
    );
}

#[test]
fn an_edit_waits_for_the_fork_being_made_instead_of_copying_again() {
    let live = doc_with("First\n\nSecond");
    let forks = Arc::new(Forks::new(live.clone(), EditorSchema::BASE));
    // A refill under way (as `refill` marks it), finished by another thread later.
    *forks.refilling.lock().unwrap() = true;
    let taker = {
        let forks = forks.clone();
        std::thread::spawn(move || forks.take(|| ()).unwrap().0.client_id().get())
    };
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(!taker.is_finished(), "it waits for the fork being made");
    forks.make_ready().unwrap();
    let made = ready_ids(&forks);
    drop(RefillDone(&forks));
    assert_eq!(taker.join().unwrap(), made[0], "and takes it");
    assert_eq!(ready_ids(&forks), Vec::<u64>::new());
}

#[test]
fn a_refill_that_panics_lets_waiting_edits_go_on() {
    let live = doc_with("First");
    let forks = Arc::new(Forks::new(live.clone(), EditorSchema::BASE));
    *forks.refilling.lock().unwrap() = true;
    let panicked = {
        let forks = forks.clone();
        std::thread::spawn(move || {
            let _done = RefillDone(&forks);
            panic!("making the fork failed");
        })
    };
    assert!(panicked.join().is_err());
    let (fork, ()) = forks.take(|| ()).unwrap();
    assert_eq!(markdown(&fork), markdown(&live));
}

#[test]
fn forks_stop_following_when_dropped() {
    let live = doc_with("First");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    forks.refill().unwrap();
    let followed = forks.ready.clone();
    drop(forks);
    live.get_or_insert_text("t")
        .push(&mut live.transact_mut(), "y");
    let fork = followed.lock().unwrap().pop_front().unwrap();
    assert_eq!(
        fork.get_or_insert_text("t").get_string(&fork.transact()),
        ""
    );
}

#[test]
fn forks_dropped_while_the_document_is_read_let_their_forks_go() {
    let live = doc_with("First");
    let forks = Forks::new(live.clone(), EditorSchema::BASE);
    forks.refill().unwrap();
    let ready = Arc::downgrade(&forks.ready);
    // A long read of the document is under way: the drop does not wait for it.
    let reading = live.transact();
    drop(forks);
    drop(reading);
    assert!(ready.upgrade().is_none(), "the ready fork is not held");
    // The subscription left behind does nothing.
    live.get_or_insert_text("t")
        .push(&mut live.transact_mut(), "y");
}
