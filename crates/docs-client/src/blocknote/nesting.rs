//! The nesting limit: how deep blocks may nest, and the checks applied wherever a tree enters
//! the model (markdown, block JSON, new blocks, the Yjs document).
//!
//! Everything that walks a tree of blocks is then either bounded by [`MAX_NESTING`] or
//! iterative, so no input — however deep — can overflow the stack or be dropped recursively.
//!
//! Blocks nest at most `MAX_NESTING` = 64 levels in everything the model builds or reads: deeper
//! markdown, JSON and writes are refused with `NestingTooDeep`; a block at the limit holding deeper
//! ones reads as opaque with its `hidden_blocks` count and is never rewritten.

use serde_json::Value;

use super::error::{ModelError, ModelResult};

/// The deepest nesting of blocks the model reads and writes: a top-level block is at depth 1,
/// its children at depth 2, and so on up to this depth.
///
/// People nest lists perhaps 10 to 20 levels deep in BlockNote (each Tab indents once), so 64
/// leaves ample room for real documents while keeping every walk over a tree of blocks short
/// enough for a 2 MiB thread stack (tokio's default) by a wide margin. It also matches what
/// block JSON can carry at all: serde_json refuses text nested deeper than 128 levels, and a
/// block level takes two of them (the block object and its `children` array).
///
/// Deeper content written by someone else is read as one opaque block at this depth (see
/// [`BlockContent::Opaque`](super::tree::BlockContent::Opaque)); deeper writes are refused
/// with [`ModelError::NestingTooDeep`].
pub const MAX_NESTING: usize = 64;

/// How deep a JSON value may nest in block JSON: a block tree at [`MAX_NESTING`] (two levels
/// a block) plus room for the deepest content of one block (a table's rows, cells, inline
/// items and their attributes).
const MAX_JSON_DEPTH: usize = 2 * MAX_NESTING + 16;

/// Refuses new blocks `height` levels tall (their tallest, `NewBlock::height`; 0 for none)
/// that would nest deeper than [`MAX_NESTING`] once put at `depth` (the depth of the position
/// they are inserted at, 1 for the top level).
pub(crate) fn check_height(height: usize, depth: usize) -> ModelResult<()> {
    match height {
        0 => Ok(()),
        height => check_depth(depth + height - 1),
    }
}

/// Refuses a depth beyond [`MAX_NESTING`].
pub(crate) fn check_depth(depth: usize) -> ModelResult<()> {
    if depth > MAX_NESTING {
        return Err(ModelError::NestingTooDeep {
            depth,
            limit: MAX_NESTING,
        });
    }
    Ok(())
}

/// Checks block JSON before serde looks at it (serde's derived code recurses on the input):
/// blocks nested deeper than [`MAX_NESTING`] (through `children`) are refused with
/// [`ModelError::NestingTooDeep`], any other value nested deeper than [`MAX_JSON_DEPTH`] with
/// [`ModelError::InvalidJson`].
pub(crate) fn check_block_json(value: &Value) -> ModelResult<()> {
    // (value, JSON depth, block depth when the value is a block object)
    let mut stack: Vec<(&Value, usize, Option<usize>)> = vec![(value, 1, Some(1))];
    let (mut deepest_json, mut deepest_block) = (0, 0);
    while let Some((v, json_depth, block_depth)) = stack.pop() {
        deepest_json = deepest_json.max(json_depth);
        match v {
            Value::Object(map) => {
                if let Some(d) = block_depth {
                    deepest_block = deepest_block.max(d);
                }
                for (key, child) in map {
                    match (key.as_str(), child, block_depth) {
                        ("children", Value::Array(items), Some(d)) => {
                            deepest_json = deepest_json.max(json_depth + 1);
                            stack.extend(items.iter().map(|c| (c, json_depth + 2, Some(d + 1))));
                        }
                        _ => stack.push((child, json_depth + 1, None)),
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|c| (c, json_depth + 1, None))),
            _ => {}
        }
    }
    check_depth(deepest_block)?;
    if deepest_json > MAX_JSON_DEPTH {
        return Err(ModelError::InvalidJson {
            message: format!(
                "the value is nested {deepest_json} levels deep, deeper than the {MAX_JSON_DEPTH} \
                 levels block JSON needs"
            ),
        });
    }
    Ok(())
}

/// Drops a JSON value without recursing on its depth (serde_json's own drop recurses, and
/// overflows the stack on a value nested some 100 000 levels deep).
pub(crate) fn drop_json(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}
