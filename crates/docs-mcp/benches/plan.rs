//! What an agent's insert costs the service on a large document, apart from any network: the
//! read again after the document changed (one block added: by a walk, and told by its
//! container), then the plan on a fork (the write, the blocks it changed read back, the
//! preview a person decides on). 10 000 and 50 000 blocks, the insert at the end and in the
//! middle. No assertions.
//!
//! `cargo bench -p docs-mcp --bench plan` — prints `name: value` lines (medians of 11).

use std::sync::Arc;
use std::time::{Duration, Instant};

use docs_client::blocknote::{self, EditorSchema, NewBlock, Position};
use docs_client::{DOCUMENT_FRAGMENT, LOCAL_ORIGIN};
use docs_mcp::edits::{self, Anchor, EditOp, Fork, InsertBlocks, TextBases};
use rustc_hash::FxHashSet;
use yrs::{Doc, OffsetKind, Options, ReadTxn, Transact, Update, updates::decoder::Decode};

const RUNS: usize = 11;

/// Median time of `f` over [`RUNS`] runs, each on a fresh value from `setup`; neither the
/// setup nor dropping what `f` gives back (a whole document) is timed.
fn median_ms<T, R>(mut setup: impl FnMut() -> T, mut f: impl FnMut(T) -> R) -> f64 {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let input = setup();
            let start = Instant::now();
            let output = f(input);
            let elapsed = start.elapsed();
            drop(output);
            elapsed
        })
        .collect();
    times.sort();
    times[RUNS / 2].as_secs_f64() * 1000.0
}

/// `n` blocks as the agent bench seeds them: a level-2 heading every 10, paragraphs otherwise.
fn document(n: usize) -> Doc {
    let doc = Doc::with_options(Options {
        offset_kind: OffsetKind::Utf16,
        ..Options::default()
    });
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let blocks: Vec<NewBlock> = (0..n)
        .map(|i| match i % 10 {
            0 => NewBlock::new("heading")
                .prop("level", 2_i64)
                .text(format!("Section {i}")),
            _ => NewBlock::new("paragraph").text(format!(
                "Paragraph {i} with **some** ordinary words in it, and a few more of them."
            )),
        })
        .collect();
    let mut txn = doc.transact_mut();
    blocknote::insert_blocks(&mut txn, &fragment, &Position::End, &blocks).expect("seed");
    drop(txn);
    doc
}

fn copy(doc: &Doc) -> Doc {
    let copy = Doc::with_options(Options {
        offset_kind: OffsetKind::Utf16,
        ..Options::default()
    });
    let state = doc
        .transact()
        .encode_state_as_update_v1(&yrs::StateVector::default());
    copy.transact_mut()
        .apply_update(Update::decode_v1(&state).expect("state"))
        .expect("apply");
    copy
}

fn insert_op(at: Anchor, block_id: Option<String>) -> EditOp {
    EditOp::InsertBlocks(InsertBlocks {
        position: edits::Position { at, block_id },
        markdown: Some("A probe paragraph, as an agent inserts it.".into()),
        blocks: None,
    })
}

fn bench(n: usize) {
    let doc = document(n);
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let read = blocknote::read_document(&doc.transact(), &fragment);
    let middle = read.blocks[n / 2].id.clone();

    // The read again after one block was added at the end (what the tracker does).
    let grown = copy(&doc);
    {
        let fragment = grown.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        let mut txn = grown.transact_mut_with(LOCAL_ORIGIN);
        let new = [NewBlock::new("paragraph").text("One more")];
        blocknote::insert_blocks(&mut txn, &fragment, &Position::End, &new).expect("insert");
    }
    let grown_fragment = grown.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let grown_read = blocknote::read_document(&grown.transact(), &grown_fragment);
    let added = grown_read.blocks.last().expect("a block").id.clone();
    let added_container = *grown_read.containers.last().expect("a block");
    drop(grown_read);
    let changed: FxHashSet<String> = [added].into_iter().collect();
    let reread = median_ms(
        || read.clone(),
        |previous| {
            let again =
                blocknote::reread_document(&grown.transact(), &grown_fragment, previous, |id| {
                    changed.contains(id)
                });
            assert_eq!(again.blocks.len(), n + 1);
            again
        },
    );
    println!("reread_after_one_insert_{n}_blocks_median_ms: {reread:.2}");
    // The same, told by the container of the block added (what the tracker knows of an
    // insert): no walk of the document.
    let by_container = median_ms(
        || read.clone(),
        |previous| {
            let again = blocknote::reread_containers(
                &grown.transact(),
                &grown_fragment,
                previous,
                &[added_container],
            )
            .expect("told by its container");
            assert_eq!(again.blocks.len(), n + 1);
            again
        },
    );
    println!("reread_by_container_after_one_insert_{n}_blocks_median_ms: {by_container:.3}");
    drop(grown);

    let blocks = Arc::new(read);
    for (name, op) in [
        ("end", insert_op(Anchor::End, None)),
        ("middle", insert_op(Anchor::After, Some(middle.clone()))),
    ] {
        // Each plan on a fork of its own, as each edit gets one; the copy is not timed.
        let plan_ms = median_ms(
            || Fork {
                doc: copy(&doc),
                blocks: Some(blocks.clone()),
                schema: EditorSchema::BASE,
            },
            |fork| {
                let plan =
                    edits::plan(&fork, std::slice::from_ref(&op), &TextBases::new()).expect("plan");
                assert!(!plan.update.is_empty());
                fork
            },
        );
        println!("plan_insert_{name}_{n}_blocks_median_ms: {plan_ms:.2}");
    }
}

fn main() {
    bench(10_000);
    bench(50_000);
}
