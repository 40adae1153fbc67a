//! A block's content as a short fingerprint, to tell whether a person changed a block between
//! the moment an edit was planned (what the person approving it saw) and the moment it is
//! merged, or since an edit was applied (before undoing it).
//!
//! Stable across runs and versions (FNV-1a over the block's JSON, whose maps are ordered):
//! fingerprints are stored with pending edits and compared after a restart.
//!
//! `unchanged` and `compatible` are the checks made with them.

use std::collections::HashMap;

use docs_client::blocknote;
use docs_client::blocknote::tree::{Block, Document};
use rustc_hash::FxHashSet;

use crate::record::{BlockState, PlannedText, Seen};

use super::merge::merge3;

/// Fingerprint of a block's own type, props and content (not its nested blocks).
pub fn of_content(block: &Block) -> String {
    let own = Block {
        children: Vec::new(),
        ..block.clone()
    };
    fnv_hex(&serde_json::to_vec(&own).expect("a block serializes"))
}

/// Fingerprint of a block's type and props only (not its text, not its nested blocks).
pub fn of_shape(block: &Block) -> String {
    let shape = Block {
        id: block.id.clone(),
        kind: block.kind.clone(),
        props: block.props.clone(),
        content: docs_client::blocknote::tree::BlockContent::None,
        children: Vec::new(),
    };
    fnv_hex(&serde_json::to_vec(&shape).expect("a block serializes"))
}

/// Fingerprint of a block with everything nested under it.
pub fn of_subtree(block: &Block) -> String {
    fnv_hex(&serde_json::to_vec(block).expect("a block serializes"))
}

fn fnv_hex(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// How `block` reads now, seen the way `wanted` was.
fn seen_now(block: &Block, wanted: &Seen) -> Seen {
    match wanted {
        Seen::Exists => Seen::Exists,
        Seen::Content(_) => Seen::Content(of_content(block)),
        Seen::Subtree(_) => Seen::Subtree(of_subtree(block)),
    }
}

/// Every block of a document by id.
pub fn index(document: &Document) -> HashMap<&str, &Block> {
    document
        .all_blocks()
        .into_iter()
        .map(|b| (b.id.as_str(), b))
        .collect()
}

/// The blocks of a document whose ids are among `ids`, by id: one walk, nothing kept of the
/// others (a plan looks up a few blocks of a whole document).
pub fn index_of<'a>(document: &'a Document, ids: &FxHashSet<&str>) -> HashMap<&'a str, &'a Block> {
    let mut found = HashMap::with_capacity(ids.len());
    // In reading order, like [`index`]: of blocks sharing an id, the last one is kept.
    let mut stack: Vec<&Block> = document.blocks.iter().rev().collect();
    while let Some(block) = stack.pop() {
        if ids.contains(block.id.as_str()) {
            found.insert(block.id.as_str(), block);
        }
        stack.extend(block.children.iter().rev());
    }
    found
}

/// Blocks by id, as the checks look them up: a whole document's [`index`], or the few blocks
/// read with `blocknote::read_blocks`.
pub trait Blocks {
    fn block(&self, id: &str) -> Option<&Block>;
}

impl Blocks for HashMap<&str, &Block> {
    fn block(&self, id: &str) -> Option<&Block> {
        self.get(id).copied()
    }
}

impl Blocks for HashMap<String, Block> {
    fn block(&self, id: &str) -> Option<&Block> {
        self.get(id)
    }
}

/// The first of `states` that does not hold in `blocks`: its id and how it reads now
/// (`None` when the block is gone).
pub fn unchanged<'a>(
    blocks: &impl Blocks,
    states: &'a [BlockState],
) -> Result<(), (&'a BlockState, Option<Seen>)> {
    for state in states {
        match blocks.block(&state.block_id) {
            None => return Err((state, None)),
            Some(block) => {
                let now = seen_now(block, &state.seen);
                if now != state.seen {
                    return Err((state, Some(now)));
                }
            }
        }
    }
    Ok(())
}

/// Like [`unchanged`], but a block whose text was changed by someone else since still holds
/// when that change and the edit's own (`texts`) touch different words, not meeting at one
/// place ([`merge3`]), and its type and props are as they were: merging the edit then keeps
/// both. For edits no person reviewed (an automatic policy): a person typing on in a
/// paragraph an agent edits does not make the agent's edit fail, unless the person types in
/// or against a word the agent rewrites.
pub fn compatible<'a>(
    blocks: &impl Blocks,
    states: &'a [BlockState],
    texts: &[PlannedText],
) -> Result<(), (&'a BlockState, Option<Seen>)> {
    for state in states {
        let Some(block) = blocks.block(&state.block_id) else {
            return Err((state, None));
        };
        let now = seen_now(block, &state.seen);
        if now == state.seen {
            continue;
        }
        let rebased = matches!(state.seen, Seen::Content(_))
            && texts.iter().any(|text| {
                text.block_id == state.block_id
                    && of_shape(block) == text.shape
                    && merge3(
                        &text.before,
                        &text.after,
                        &blocknote::inline_markdown(block),
                    )
                    .is_ok()
            });
        if !rebased {
            return Err((state, Some(now)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use docs_client::blocknote::tree::{BlockContent, Inline, Props, TextRun};

    fn paragraph(id: &str, text: &str, children: Vec<Block>) -> Block {
        Block {
            id: id.into(),
            kind: "paragraph".into(),
            props: Props::new(),
            content: BlockContent::Inline {
                inline: vec![Inline::Text(TextRun::plain(text))],
            },
            children,
        }
    }

    #[test]
    fn content_ignores_children_and_subtree_does_not() {
        let plain = paragraph("a", "Hello", vec![]);
        let nested = paragraph("a", "Hello", vec![paragraph("b", "child", vec![])]);
        assert_eq!(of_content(&plain), of_content(&nested));
        assert_ne!(of_subtree(&plain), of_subtree(&nested));
        assert_ne!(
            of_content(&plain),
            of_content(&paragraph("a", "Hello!", vec![]))
        );
        // Stored fingerprints must not change between builds.
        assert_eq!(of_content(&plain), "496f6849681c75c9");
    }

    /// An automatic edit met by a person's typing between its plan and its merge: merged
    /// over typing in another word, refused over typing in or against the word it rewrites.
    #[test]
    fn compatible_lets_typing_in_other_words_through() {
        let planned = paragraph("a", "The Human race", vec![]);
        let states = vec![BlockState {
            block_id: "a".into(),
            seen: Seen::Content(of_content(&planned)),
        }];
        let texts = vec![PlannedText {
            block_id: "a".into(),
            before: "The Human race".into(),
            after: "The Agent-edited race".into(),
            shape: of_shape(&planned),
        }];
        for (now, holds) in [
            ("The Human races", true),
            ("A The Human race", true),
            ("The Humankind race", false),
            ("The Humans race", false),
            ("The Hu man race", false),
            ("The Human, race", false),
        ] {
            let document = Document::new(vec![paragraph("a", now, vec![])]);
            assert_eq!(
                compatible(&index(&document), &states, &texts).is_ok(),
                holds,
                "{now}"
            );
        }
    }

    #[test]
    fn unchanged_names_the_first_block_that_moved_on() {
        let before = Document::new(vec![
            paragraph("a", "one", vec![]),
            paragraph("b", "two", vec![]),
        ]);
        let states = vec![
            BlockState {
                block_id: "a".into(),
                seen: Seen::Exists,
            },
            BlockState {
                block_id: "b".into(),
                seen: Seen::Content(of_content(&before.blocks[1])),
            },
        ];
        assert_eq!(unchanged(&index(&before), &states), Ok(()));
        let typed = Document::new(vec![
            paragraph("a", "one!", vec![]),
            paragraph("b", "two!", vec![]),
        ]);
        let (state, now) = unchanged(&index(&typed), &states).unwrap_err();
        assert_eq!(state.block_id, "b");
        assert_eq!(now, Some(Seen::Content(of_content(&typed.blocks[1]))));
        let gone = Document::new(vec![paragraph("b", "two", vec![])]);
        assert_eq!(
            unchanged(&index(&gone), &states).unwrap_err(),
            (&states[0], None)
        );
    }
}
