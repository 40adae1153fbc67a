//! Benchmarks of the BlockNote model (no assertions): reading a 10 000-block document to the
//! typed tree and to markdown, and the size of the update of a one-word change in a 2 KB
//! paragraph. Run with `cargo bench -p docs-client --bench model`.

use std::time::{Duration, Instant};

use docs_client::blocknote::{
    self, ExportOptions, NewBlock, Position, export_markdown, insert_blocks, read_document,
    set_block_text,
};
use yrs::updates::decoder::Decode;
use yrs::{Doc, ReadTxn, StateVector, Transact};

const RUNS: usize = 11;

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2].as_secs_f64() * 1000.0
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
}
