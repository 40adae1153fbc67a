//! Reading the first outermost blocks of a document ([`read_opening`]), and a budgeted read
//! of them giving what a read of the whole document gives.

use super::*;

/// A document of `n` outermost blocks: headings, numbered and bulleted lists running across
/// any cut, a table, code, and a paragraph with a nested one; their outermost ids.
fn varied(n: usize) -> (Doc, XmlFragmentRef, Vec<String>) {
    let (d, f) = doc();
    let blocks: Vec<NewBlock> = (0..n)
        .map(|i| match i % 9 {
            0 => NewBlock::new("heading")
                .prop("level", 2i64)
                .text(format!("Part {i}")),
            1..=3 => NewBlock::new("numberedListItem").text(format!("step **{i}**")),
            4 => NewBlock::new("bulletListItem").text(format!("point {i}")),
            5 => NewBlock::new("codeBlock").text(format!("let x{i} = {i};")),
            6 => import_markdown(&format!("| cell {i} | b |\n|---|---|\n| c | d |"))
                .unwrap()
                .remove(0),
            _ => NewBlock::new("paragraph")
                .text(format!(
                    "Paragraph {i} with *words* and a [link](https://x.test/{i})."
                ))
                .child(NewBlock::new("paragraph").text(format!("nested under {i}"))),
        })
        .collect();
    insert_blocks(&mut d.transact_mut(), &f, &Position::End, &blocks).unwrap();
    let ids = read(&d, &f).blocks.iter().map(|b| b.id.clone()).collect();
    (d, f, ids)
}

#[test]
fn the_opening_is_the_documents_first_blocks_read_alike() {
    let (d, f, ids) = varied(20);
    let whole = read(&d, &f);
    let mut read_so_far = 0;
    let opening = read_opening(&d.transact(), &f, None, |_| {
        read_so_far += 1;
        read_so_far == 8
    })
    .unwrap();
    assert_eq!(opening.document.blocks, whole.blocks[..8]);
    assert!(opening.more);
    let rest = read_opening(&d.transact(), &f, Some(&ids[8]), |_| false).unwrap();
    assert_eq!(rest.document.blocks, whole.blocks[8..]);
    assert!(!rest.more);
    let last = read_opening(&d.transact(), &f, Some(&ids[19]), |_| true).unwrap();
    assert_eq!(last.document.blocks, whole.blocks[19..]);
    assert!(!last.more);
}

#[test]
fn an_opening_starts_only_at_an_outermost_block() {
    let (d, f, _) = varied(9);
    let nested = read(&d, &f).blocks[7].children[0].id.clone();
    assert_eq!(
        read_opening(&d.transact(), &f, Some(&nested), |_| true),
        None
    );
    assert_eq!(
        read_opening(&d.transact(), &f, Some("no-such-block"), |_| true),
        None
    );
    let (empty, f) = doc();
    let opening = read_opening(&empty.transact(), &f, None, |_| true).unwrap();
    assert_eq!(opening.document, Document::default());
    assert!(!opening.more);
    assert_eq!(
        read_opening(&empty.transact(), &f, Some("x"), |_| true),
        None
    );
}

/// A budgeted read cut inside the opening is the budgeted read of the whole document: the
/// blocks after the cut change nothing of it (list numbering included).
#[test]
fn a_budgeted_read_cut_inside_the_opening_is_the_whole_documents() {
    let (d, f, ids) = varied(40);
    let whole = read(&d, &f);
    let opts = ExportOptions::default();
    let (mut compared, mut cut_inside) = (0, 0);
    for start in [None, Some(2), Some(13), Some(31)] {
        let at = start.map_or(StartAt::Beginning, |i: usize| {
            StartAt::Block(ids[i].clone())
        });
        for budget in [1, 60, 200, 333, 700, 1_500] {
            for read_blocks in 1..=12 {
                let mut count = 0;
                let opening =
                    read_opening(&d.transact(), &f, start.map(|i| ids[i].as_str()), |_| {
                        count += 1;
                        count == read_blocks
                    })
                    .unwrap();
                let page = read_budget(&opening.document, &at, budget, &opts).unwrap();
                if page.truncated || !opening.more {
                    compared += 1;
                    cut_inside += usize::from(opening.more);
                    let expected = read_budget(&whole, &at, budget, &opts).unwrap();
                    // The same blocks, where each document holds them.
                    let ids = |doc: &Document, slice: &Slice| -> Vec<String> {
                        doc.blocks[slice.tops.clone()]
                            .iter()
                            .map(|b| b.id.clone())
                            .collect()
                    };
                    assert_eq!(ids(&opening.document, &page), page.block_ids);
                    assert_eq!(ids(&whole, &expected), expected.block_ids);
                    assert_eq!(
                        Slice { tops: 0..0, ..page },
                        Slice {
                            tops: 0..0,
                            ..expected
                        },
                        "start {start:?}, budget {budget}, {read_blocks} blocks"
                    );
                }
            }
        }
    }
    // Both cases came up: cuts inside the opening, and openings holding the whole rest.
    assert!(
        cut_inside > 0 && compared > cut_inside,
        "{cut_inside} of {compared}"
    );
}
