//! Reverting an applied edit: the inverse operations, computed when the edit is planned from
//! the document as it was just before each operation, and stored with the edit.

use std::collections::BTreeSet;

use docs_client::blocknote::tree::{Block, BlockContent, Document, NewBlock, NewContent};
use docs_client::blocknote::{EditorSchema, Props, Writing, validate_block_in};
use serde::{Deserialize, Serialize};

use super::{Anchor, Position};

/// An operation that reverts part of an applied edit. Computed when the edit is planned,
/// from the document as it was just before each operation, and stored with the edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum UndoOp {
    DeleteBlocks {
        block_ids: Vec<String>,
    },
    InsertBlocks {
        position: Position,
        blocks: Vec<NewBlock>,
    },
    /// Puts a block's type, props and content back.
    RestoreBlock {
        block_id: String,
        block_type: String,
        props: Props,
        content: Option<NewContent>,
    },
    MoveBlock {
        block_id: String,
        position: Position,
    },
}

/// The position that puts a block back at index `i` among `siblings` (under `parent`).
fn position_at(siblings: &[Block], i: usize, parent: Option<&str>) -> Position {
    match (i, parent) {
        (0, Some(parent)) => Position {
            at: Anchor::FirstChildOf,
            block_id: Some(parent.to_owned()),
        },
        (0, None) => Position {
            at: Anchor::Start,
            block_id: None,
        },
        _ => Position {
            at: Anchor::After,
            block_id: Some(siblings[i - 1].id.clone()),
        },
    }
}

/// Where a block stands, as a position that puts a block back there.
pub(super) fn position_of(document: &Document, id: &str) -> Position {
    fn search(blocks: &[Block], parent: Option<&str>, id: &str) -> Option<Position> {
        for (i, block) in blocks.iter().enumerate() {
            if block.id == id {
                return Some(position_at(blocks, i, parent));
            }
            if let Some(found) = search(&block.children, Some(&block.id), id) {
                return Some(found);
            }
        }
        None
    }
    search(&document.blocks, None, id).unwrap_or(Position {
        at: Anchor::End,
        block_id: None,
    })
}

/// A block as a block to create again (with new ids); `None` for blocks of unknown types.
fn recreate(block: &Block) -> Option<NewBlock> {
    let content = content_of(block)?;
    Some(NewBlock {
        kind: block.kind.clone(),
        props: block.props.clone(),
        content,
        children: block
            .children
            .iter()
            .map(recreate)
            .collect::<Option<Vec<_>>>()?,
    })
}

/// A block's content as content to write again; `None` for blocks of unknown types.
fn content_of(block: &Block) -> Option<Option<NewContent>> {
    match &block.content {
        BlockContent::None => Some(None),
        BlockContent::Inline { inline } => Some(Some(NewContent::Inline(inline.clone()))),
        BlockContent::Table { table } => Some(Some(NewContent::Table(table.clone()))),
        BlockContent::Opaque { .. } => None,
    }
}

pub(super) fn restore_op(block: &Block) -> Option<UndoOp> {
    let content = content_of(block)?;
    Some(UndoOp::RestoreBlock {
        block_id: block.id.clone(),
        block_type: block.kind.clone(),
        props: block.props.clone(),
        content,
    })
}

/// Ids of the blocks among `ids` whose parent is not among them.
pub(super) fn outermost(document: &Document, ids: &[String]) -> Vec<String> {
    let set: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let mut inner = BTreeSet::new();
    for block in document.all_blocks() {
        if set.contains(block.id.as_str()) {
            inner.extend(block.walk().into_iter().skip(1).map(|b| b.id.as_str()));
        }
    }
    ids.iter()
        .filter(|id| !inner.contains(id.as_str()))
        .cloned()
        .collect()
}

/// The inverse of deleting `ids`: runs of consecutive deleted siblings are put back, each
/// after the sibling before the run (or first under the parent, or at the start). `None` when
/// a deleted block could not be written again: of an unknown type, or holding what this
/// service does not write (an upload placeholder; math and diagrams, read-only until Docs'
/// schema for them is confirmed). Links and media URLs go back as they were, whatever their
/// scheme: the document held them.
pub(super) fn reinsert_deleted(
    document: &Document,
    ids: &[String],
    schema: EditorSchema,
) -> Option<Vec<UndoOp>> {
    let as_read = Writing::as_read(schema);
    let deleted: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    fn runs<'a>(
        blocks: &'a [Block],
        parent: Option<&'a str>,
        deleted: &BTreeSet<&str>,
        out: &mut Vec<(Position, Vec<&'a Block>)>,
    ) {
        let mut i = 0;
        while i < blocks.len() {
            if deleted.contains(blocks[i].id.as_str()) {
                let position = position_at(blocks, i, parent);
                let mut run = vec![];
                while i < blocks.len() && deleted.contains(blocks[i].id.as_str()) {
                    run.push(&blocks[i]);
                    i += 1;
                }
                out.push((position, run));
            } else {
                runs(&blocks[i].children, Some(&blocks[i].id), deleted, out);
                i += 1;
            }
        }
    }
    let mut found = vec![];
    runs(&document.blocks, None, &deleted, &mut found);
    found
        .into_iter()
        .map(|(position, blocks)| {
            Some(UndoOp::InsertBlocks {
                position,
                blocks: blocks
                    .into_iter()
                    .map(|block| {
                        recreate(block).filter(|new| validate_block_in(new, as_read).is_ok())
                    })
                    .collect::<Option<Vec<_>>>()?,
            })
        })
        .collect()
}
