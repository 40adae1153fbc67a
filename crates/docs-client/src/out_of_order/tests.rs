use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use yrs::updates::decoder::Decode;
use yrs::{Doc, GetString, OffsetKind, Options, ReadTxn, Text, Transact, Update};

use super::*;

fn doc(client: u64) -> Doc {
    Doc::with_options(Options {
        client_id: ClientID::new(client),
        skip_gc: true,
        offset_kind: OffsetKind::Utf16,
        ..Options::default()
    })
}

fn text(doc: &Doc) -> String {
    let text = doc.get_or_insert_text("t");
    text.get_string(&doc.transact())
}

/// Each of `edits` made in `doc` in a transaction of its own: its update.
fn edits(doc: &Doc, edits: &[(u32, &str)]) -> Vec<Vec<u8>> {
    let text = doc.get_or_insert_text("t");
    edits
        .iter()
        .map(|&(at, words)| {
            let mut txn = doc.transact_mut();
            text.insert(&mut txn, at, words);
            txn.encode_update_v1()
        })
        .collect()
}

fn state(doc: &Doc) -> Vec<u8> {
    doc.transact()
        .encode_state_as_update_v1(&StateVector::default())
}

/// Applies `update` to `doc` through `held`, as the session does; panics if yrs kept
/// anything aside (what `OutOfOrder` is there to prevent).
fn admit(held: &mut OutOfOrder, doc: &Doc, update: &[u8]) {
    let mut txn = doc.transact_mut();
    let parts = held.admit(&txn.state_vector(), update).unwrap();
    for part in parts {
        txn.apply_update(Update::decode_v1(&part).unwrap()).unwrap();
    }
    assert!(
        txn.store().pending_update().is_none() && txn.store().pending_ds().is_none(),
        "yrs keeps something aside"
    );
}

/// A struct past a gap waits; the whole state, where the gap's struct and the one past it
/// are one, brings both.
#[test]
fn a_struct_past_a_gap_waits_for_the_gap_then_the_document_is_the_writers() {
    let writer = doc(1);
    let updates = edits(&writer, &[(0, "a"), (1, "bcd"), (4, "e")]);
    let whole = state(&writer);
    let ours = doc(2);
    let mut held = OutOfOrder::new();
    admit(&mut held, &ours, &updates[0]);
    admit(&mut held, &ours, &updates[2]);
    assert_eq!(text(&ours), "a");
    assert_eq!(held.held_clocks().inserted, held_range(1, 4..5));
    admit(&mut held, &ours, &whole);
    assert!(held.is_empty());
    assert_eq!(text(&ours), "abcde");
    assert_eq!(state(&ours), whole);
}

/// The convergence test's reduced case on which yrs alone panics (a deletion meeting
/// structs it keeps aside, see `session::integrate`): admitted, nothing is kept aside by yrs
/// and nothing panics; what waits is told.
#[test]
fn the_case_yrs_alone_panics_on_is_admitted_whole() {
    let fixture: serde_json::Value = serde_json::from_str(include_str!(
        "../../../docs-mcp/tests/convergence/fixtures/yrs-pending-gc-panic.json"
    ))
    .unwrap();
    use base64::Engine;
    let ours = doc(2);
    let mut held = OutOfOrder::new();
    for update in fixture["updates"].as_array().unwrap() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(update.as_str().unwrap())
            .unwrap();
        admit(&mut held, &ours, &bytes);
    }
    assert!(
        !held.is_empty(),
        "part of it follows clocks none of its updates bring"
    );
}

/// While something waits, an update whose section claims four billion structs in a few bytes
/// is refused as unreadable, without room reserved for them (which would abort).
#[test]
fn a_struct_count_past_the_bytes_is_unreadable_while_something_waits() {
    let writer = doc(1);
    let updates = edits(&writer, &[(0, "a"), (1, "b"), (2, "c")]);
    let ours = doc(2);
    let mut held = OutOfOrder::new();
    admit(&mut held, &ours, &updates[2]);
    assert!(!held.is_empty());
    // One client, one struct: its section's count is the second byte.
    assert_eq!(updates[1][..2], [1, 1]);
    let mut claimed = vec![1, 0xF0, 0xFF, 0xFF, 0xFF, 0x0F];
    claimed.extend_from_slice(&updates[1][2..]);
    let refused = held.admit(&ours.transact().state_vector(), &claimed);
    assert!(
        matches!(refused, Err(NotAdmitted::Unreadable(_))),
        "{refused:?}"
    );
    assert_eq!(text(&ours), "");
}

/// The gap filled by the update that left it, later: what waited is given back with it.
#[test]
fn what_waits_is_given_back_once_the_gap_fills() {
    let writer = doc(1);
    let updates = edits(&writer, &[(0, "a"), (1, "b"), (2, "c"), (3, "d")]);
    let ours = doc(2);
    let mut held = OutOfOrder::new();
    for i in [3, 1, 2] {
        admit(&mut held, &ours, &updates[i]);
    }
    assert_eq!(text(&ours), "");
    admit(&mut held, &ours, &updates[0]);
    assert_eq!(text(&ours), "abcd");
    assert!(held.is_empty());
}

/// An insertion next to words of another writer the document lacks waits for them; the
/// writer's other words do not.
#[test]
fn an_insertion_next_to_missing_words_waits_for_them() {
    let first = doc(1);
    let second = doc(2);
    let from_first = edits(&first, &[(0, "hello")]);
    second
        .transact_mut()
        .apply_update(Update::decode_v1(&from_first[0]).unwrap())
        .unwrap();
    let from_second = edits(&second, &[(5, " world"), (0, ">")]);
    // One update of both of the second writer's edits, sent before the first's words came.
    let both = yrs::merge_updates_v1(&from_second).unwrap();

    let ours = doc(3);
    let mut held = OutOfOrder::new();
    admit(&mut held, &ours, &both);
    assert_eq!(text(&ours), "");
    assert_eq!(held.held_clocks().inserted, held_range(2, 0..7));
    admit(&mut held, &ours, &from_first[0]);
    assert_eq!(text(&ours), ">hello world");
    assert!(held.is_empty());
}

/// A deletion of words the document lacks waits for them; the deletion of words it has is
/// applied at once.
#[test]
fn a_deletion_of_missing_words_waits_for_them() {
    let writer = doc(1);
    let inserted = edits(&writer, &[(0, "abc"), (3, "def")]);
    let text_type = writer.get_or_insert_text("t");
    let deleted = {
        let mut txn = writer.transact_mut();
        text_type.remove_range(&mut txn, 1, 4);
        txn.encode_update_v1()
    };
    let ours = doc(2);
    let mut held = OutOfOrder::new();
    admit(&mut held, &ours, &inserted[0]);
    admit(&mut held, &ours, &deleted);
    assert_eq!(text(&ours), "a");
    assert_eq!(held.held_clocks().deleted, held_range(1, 3..5));
    admit(&mut held, &ours, &inserted[1]);
    assert_eq!(text(&ours), "af");
    assert!(held.is_empty());
}

/// An update with nothing to wait for comes back as it is, not copied.
#[test]
fn an_update_in_order_comes_back_as_it_is() {
    let writer = doc(1);
    let updates = edits(&writer, &[(0, "a"), (1, "b")]);
    let ours = doc(2);
    let mut held = OutOfOrder::new();
    admit(&mut held, &ours, &updates[0]);
    let parts = held
        .admit(&ours.transact().state_vector(), &updates[1])
        .unwrap();
    assert!(matches!(&parts[..], [Cow::Borrowed(b)] if *b == updates[1].as_slice()));
}

/// What waits is part of the document for whoever reads it whole: a document loaded from the
/// state with it merged in holds it too, and ends as the writer's once the gap fills.
#[test]
fn what_waits_is_in_the_state_given_to_readers() {
    let writer = doc(1);
    let updates = edits(&writer, &[(0, "a"), (1, "b"), (2, "c")]);
    let ours = doc(2);
    let mut held = OutOfOrder::new();
    admit(&mut held, &ours, &updates[0]);
    admit(&mut held, &ours, &updates[2]);
    let saved = held.with_held(state(&ours));

    let reader = doc(3);
    let mut reader_held = OutOfOrder::new();
    admit(&mut reader_held, &reader, &saved);
    assert_eq!(text(&reader), "a");
    assert_eq!(reader_held.held_clocks(), held.held_clocks());
    admit(&mut reader_held, &reader, &updates[1]);
    assert_eq!(text(&reader), "abc");
}

/// Past the bound, admitting fails (the session ends, the document is opened afresh).
#[test]
fn past_the_bound_admitting_fails() {
    let writer = doc(1);
    let long = "x".repeat(600);
    let updates = edits(&writer, &[(0, "a"), (1, &long), (601, &long)]);
    let ours = doc(2);
    let mut held = OutOfOrder {
        held: Vec::new(),
        limit: 1000,
    };
    assert!(
        held.admit(&StateVector::default(), &updates[1])
            .unwrap()
            .is_empty()
    );
    let refused = held
        .admit(&StateVector::default(), &updates[2])
        .unwrap_err();
    assert!(matches!(refused, NotAdmitted::TooMuchHeld { .. }));
    let _ = ours;
    assert!(matches!(
        held.admit(&StateVector::default(), b"\x05"),
        Err(NotAdmitted::Unreadable(_))
    ));
}

/// Seeded: writers type and delete in a shared text, catching up with each other now and
/// then; their updates are delivered to us in random order, some twice, some merged with gaps;
/// admitted, yrs never keeps anything aside and the document ends as every writer's. (yrs
/// alone, given them in the same orders, ends with structs aside for ever and the text short
/// in 29 of these 1 000 seeds.)
#[test]
fn any_order_ends_as_the_writers_document() {
    for seed in 0..1000u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let writers: Vec<Doc> = (1..=3).map(doc).collect();
        let mut sent: Vec<Vec<u8>> = Vec::new();
        for _ in 0..rng.random_range(4..30) {
            let w = rng.random_range(0..writers.len());
            let writer = &writers[w];
            let text = writer.get_or_insert_text("t");
            let update = {
                let mut txn = writer.transact_mut();
                let len = text.len(&txn);
                if len > 2 && rng.random_bool(0.3) {
                    let at = rng.random_range(0..len - 1);
                    text.remove_range(&mut txn, at, rng.random_range(1..=(len - at).min(3)));
                } else {
                    let at = rng.random_range(0..=len);
                    text.insert(
                        &mut txn,
                        at,
                        ["a", "bc", "déf", "👍"].choose(&mut rng).unwrap(),
                    );
                }
                txn.encode_update_v1()
            };
            sent.push(update.clone());
            // Writers catch up with each other now and then (so their words interleave).
            for (o, other) in writers.iter().enumerate() {
                if o != w && rng.random_bool(0.5) {
                    let theirs = other.transact().state_vector();
                    let diff = writer.transact().encode_state_as_update_v1(&theirs);
                    other
                        .transact_mut()
                        .apply_update(Update::decode_v1(&diff).unwrap())
                        .unwrap();
                }
            }
        }
        // Every writer ends with everything: the document to reach.
        for writer in &writers {
            for update in &sent {
                writer
                    .transact_mut()
                    .apply_update(Update::decode_v1(update).unwrap())
                    .unwrap();
            }
        }
        let expected = text(&writers[0]);
        let mut delivered = sent.clone();
        for _ in 0..rng.random_range(0..4) {
            let twice = delivered.choose(&mut rng).unwrap().clone();
            delivered.push(twice);
        }
        // Merged updates: with gaps where what they merge is not consecutive, as a peer that
        // holds structs aside sends them (Yjs 13 merges them into its state).
        for _ in 0..rng.random_range(0..4) {
            let some: Vec<&Vec<u8>> = sent.choose_multiple(&mut rng, 3).collect();
            delivered.push(yrs::merge_updates_v1(some).unwrap());
        }
        delivered.shuffle(&mut rng);
        let ours = doc(9);
        let mut held = OutOfOrder::new();
        for update in &delivered {
            admit(&mut held, &ours, update);
        }
        assert!(held.is_empty(), "seed {seed}: {:?}", held.held_clocks());
        assert_eq!(text(&ours), expected, "seed {seed}");
    }
}

/// One client's one range of clocks held.
fn held_range(client: u64, clocks: Range<u32>) -> Vec<(u64, Vec<Range<u32>>)> {
    vec![(client, std::iter::once(clocks).collect())]
}

/// Many updates waiting for one gap are merged into one (the held stay few), and all are
/// given back when it fills.
#[test]
fn many_waiting_are_merged_and_all_given_back() {
    let writer = doc(1);
    let typed: Vec<(u32, String)> = (0..200u32).map(|i| (i, (i % 10).to_string())).collect();
    let typed: Vec<(u32, &str)> = typed.iter().map(|(i, s)| (*i, s.as_str())).collect();
    let updates = edits(&writer, &typed);
    let ours = doc(2);
    let mut held = OutOfOrder::new();
    for update in &updates[1..] {
        admit(&mut held, &ours, update);
    }
    assert!(held.held.len() <= MERGE_FROM_UPDATES, "{}", held.held.len());
    assert_eq!(held.held_clocks().inserted, held_range(1, 1..200));
    admit(&mut held, &ours, &updates[0]);
    assert!(held.is_empty());
    assert_eq!(text(&ours), text(&writer));
}
