//! Benchmarks of the BlockNote model (no assertions): reading a 10 000-block document to the
//! typed tree (whole, and again after one block changed) and to markdown, checking its
//! state's nesting (the door against deep content, next to decoding the update), admitting it
//! (`OutOfOrder`: whether any of it follows clocks a document lacks), the size of
//! the update of a one-word change in a 2 KB paragraph, and rewriting a 32 K-, a 64 K-character
//! and a 256 KiB paragraph into unrelated text with `set_block_text` (the text diff's time
//! limit and cap on edits at work). Run with `cargo bench -p docs-client --bench model`.

use std::time::{Duration, Instant};

use docs_client::blocknote::{
    self, ExportOptions, NewBlock, Position, check_document_depth, check_update_depth,
    export_markdown, insert_blocks, read_document, reread_document, set_block_text,
};
use yrs::updates::decoder::Decode;
use yrs::{Doc, ReadTxn, StateVector, Transact};

const RUNS: usize = 11;

fn median_ms(mut f: impl FnMut()) -> f64 {
    median_ms_of(RUNS, || (), |()| f())
}

/// Median time of `f` over `runs` runs, each on a fresh value from `setup` (not timed).
fn median_ms_of<T>(runs: usize, mut setup: impl FnMut() -> T, mut f: impl FnMut(T)) -> f64 {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let input = setup();
            let start = Instant::now();
            f(input);
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2].as_secs_f64() * 1000.0
}

/// About `len` bytes of words drawn from a small vocabulary by a seeded generator: two seeds
/// give two unrelated texts sharing every word and most characters, the hardest case for a
/// minimal diff.
fn words(len: usize, seed: u64) -> String {
    const VOCABULARY: [&str; 12] = [
        "lorem",
        "ipsum",
        "dolor",
        "sit",
        "amet",
        "consectetur",
        "adipiscing",
        "elit",
        "sed",
        "do",
        "eiusmod",
        "tempor",
    ];
    let mut state = seed;
    let mut text = String::with_capacity(len + 16);
    while text.len() < len {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        text.push_str(VOCABULARY[(state >> 33) as usize % VOCABULARY.len()]);
        text.push(' ');
    }
    text.truncate(len);
    text.trim_end().to_string()
}

/// A document holding one paragraph of `text`, and the paragraph's id.
fn one_paragraph(text: &str) -> (Doc, String) {
    let doc = Doc::new();
    let frag = blocknote::document_fragment(&doc);
    let id = {
        let mut txn = doc.transact_mut();
        insert_blocks(
            &mut txn,
            &frag,
            &Position::End,
            &[NewBlock::new("paragraph").text(text)],
        )
        .expect("insert")
        .remove(0)
    };
    (doc, id)
}

/// Median time of rewriting a paragraph of `len` bytes into an unrelated one.
fn rewrite_ms(len: usize, runs: usize) -> f64 {
    let (old, new) = (words(len, 1), words(len, 2));
    median_ms_of(
        runs,
        || one_paragraph(&old),
        |(doc, id)| {
            let frag = blocknote::document_fragment(&doc);
            let mut txn = doc.transact_mut();
            set_block_text(&mut txn, &frag, &id, &new).expect("set text");
        },
    )
}

fn big_document(n: usize) -> Doc {
    let doc = Doc::new();
    let frag = blocknote::document_fragment(&doc);
    let blocks: Vec<NewBlock> = (0..n)
        .map(|i| match i % 10 {
            0 => NewBlock::new("heading")
                .prop("level", (1 + (i / 10) % 3) as i64)
                .text(format!("Section {i}")),
            1..=3 => NewBlock::new("bulletListItem").text(format!("item **{i}** of the list")),
            4 => NewBlock::new("codeBlock")
                .prop("language", "rust")
                .text(format!("fn f{i}() {{}}")),
            _ => NewBlock::new("paragraph").text(format!(
                "Paragraph {i} with *some* words, a [link](https://example.com/{i}) and `code`."
            )),
        })
        .collect();
    let mut txn = doc.transact_mut();
    insert_blocks(&mut txn, &frag, &Position::End, &blocks).expect("insert");
    drop(txn);
    doc
}

fn main() {
    let doc = big_document(10_000);
    let frag = blocknote::document_fragment(&doc);
    let count = {
        let txn = doc.transact();
        read_document(&txn, &frag).all_blocks().len()
    };
    println!("blocks: {count}");
    let tree_ms = median_ms(|| {
        let txn = doc.transact();
        std::hint::black_box(read_document(&txn, &frag));
    });
    println!("read_tree_10000_blocks_median_ms: {tree_ms:.1}");
    // Read again after a person typed in one block: the others are taken from the last read.
    let previous = read_document(&doc.transact(), &frag);
    let typed_in = previous.blocks[5_000].id.clone();
    set_block_text(&mut doc.transact_mut(), &frag, &typed_in, "typed").expect("set text");
    let reread_ms = median_ms_of(
        RUNS,
        || previous.clone(),
        |previous| {
            let txn = doc.transact();
            std::hint::black_box(reread_document(&txn, &frag, previous, |id| id == typed_in));
        },
    );
    println!("reread_tree_10000_blocks_one_changed_median_ms: {reread_ms:.1}");
    let md_ms = median_ms(|| {
        let txn = doc.transact();
        let d = read_document(&txn, &frag);
        std::hint::black_box(export_markdown(&d.blocks, &ExportOptions::default()));
    });
    println!("read_markdown_10000_blocks_median_ms: {md_ms:.1}");
    let full = doc
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    println!("document_10000_blocks_update_bytes: {}", full.len());
    // The door against deep nesting, next to what applying the update costs anyway.
    let decode_ms = median_ms(|| {
        std::hint::black_box(yrs::Update::decode_v1(&full).expect("valid update"));
    });
    println!("decode_update_10000_blocks_median_ms: {decode_ms:.1}");
    let check_update_ms = median_ms(|| {
        std::hint::black_box(check_update_depth(&full).expect("shallow"));
    });
    println!("check_update_depth_10000_blocks_median_ms: {check_update_ms:.1}");
    // What admitting it as a room's update adds (`OutOfOrder`: whether it follows the
    // document, one reading; a load is told so by the door instead).
    let admit_ms = median_ms(|| {
        let mut held = docs_client::OutOfOrder::new();
        std::hint::black_box(
            held.admit(&StateVector::default(), &full)
                .expect("readable"),
        );
    });
    println!("admit_update_10000_blocks_median_ms: {admit_ms:.1}");
    let check_document_ms = median_ms(|| {
        let txn = doc.transact();
        check_document_depth(&txn, &frag).expect("shallow");
    });
    println!("check_document_depth_10000_blocks_median_ms: {check_document_ms:.1}");

    // A one-word change in a 2 KB paragraph.
    let doc = Doc::new();
    let frag = blocknote::document_fragment(&doc);
    let words = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur"];
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 2048 {
        text.push_str(words[i % words.len()]);
        text.push(' ');
        i += 1;
    }
    let text = text.trim_end().to_string();
    let id = {
        let mut txn = doc.transact_mut();
        insert_blocks(
            &mut txn,
            &frag,
            &Position::End,
            &[NewBlock::new("paragraph").text(text.clone())],
        )
        .expect("insert")
        .remove(0)
    };
    let before = doc.transact().state_vector();
    let changed = text.replacen("dolor", "pain", 1);
    {
        let mut txn = doc.transact_mut();
        set_block_text(&mut txn, &frag, &id, &changed).expect("set text");
    }
    let update = doc.transact().encode_state_as_update_v1(&before);
    yrs::Update::decode_v1(&update).expect("valid update");
    println!("paragraph_bytes: {}", text.len());
    println!(
        "one_word_change_in_2kb_paragraph_update_bytes: {}",
        update.len()
    );

    println!(
        "rewrite_32k_chars_median_ms: {:.1}",
        rewrite_ms(32 * 1024, 3)
    );
    println!(
        "rewrite_64k_chars_median_ms: {:.1}",
        rewrite_ms(64 * 1024, 3)
    );
    println!("rewrite_256kib_median_ms: {:.1}", rewrite_ms(256 * 1024, 3));
}
