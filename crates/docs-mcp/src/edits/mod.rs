//! The edit operations agents ask for, and their planning. Every edit is computed on a FORK
//! of the live document ([`plan`]), so nothing touches the live document until a decision
//! merges the resulting Yjs update. A list of operations either all plan, or none does: the
//! fork is thrown away on the first error.
//!
//! - [`plan`]: runs the operations on a fork, records what the edit depends on and leaves.
//! - [`fork`]: forks of a live document, the next one made ahead once a document is edited.
//! - [`merge`]: the three-way text merge that rebases an agent's rewrite of a block onto what
//!   others typed since it read the block.
//! - [`replace`]: find-and-replace in inline content.
//! - [`undo`]: the inverse operations that revert an applied edit.
//! - [`preview`]: what a person sees before deciding.
//! - [`fingerprint`]: a block's identity of content, to tell whether it changed.
//!
//! Here: the operations agents send (`EditOp`) and their limits (`check_limits`).

mod fingerprint;
mod fork;
mod merge;
mod parts;
mod plan;
mod preview;
mod replace;
mod undo;

use std::collections::BTreeSet;

use docs_client::blocknote::write::Position as ModelPosition;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ServiceError, ServiceResult};

pub use fingerprint::{Blocks, compatible, index, unchanged};
pub use fork::Forks;
pub use parts::{Part, accepted_ops, parts};
pub use plan::{Fork, Plan, TextBases, plan, plan_undo};
pub use undo::UndoOp;

/// Most operations one `apply_edits` call may carry.
pub const MAX_OPERATIONS: usize = 100;
/// Most blocks one call may create.
pub const MAX_NEW_BLOCKS: usize = 500;
/// Largest markdown or text input, in bytes.
pub const MAX_INPUT_BYTES: usize = 256 * 1024;

/// Where blocks go, relative to the document or to a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    Start,
    End,
    Before,
    After,
    FirstChildOf,
    LastChildOf,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Position {
    /// `start`/`end` of the document, `before`/`after` a block, or `first_child_of`/
    /// `last_child_of` a block (nested under it).
    pub at: Anchor,
    /// The reference block for every `at` but `start` and `end`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_id: Option<String>,
}

impl Position {
    pub(crate) fn to_model(&self) -> ServiceResult<ModelPosition> {
        let id = || {
            self.block_id.clone().ok_or_else(|| {
                ServiceError::invalid(
                    format!("position `{:?}` needs a block_id", self.at).to_lowercase(),
                    "Give block_id (from read_document or get_outline), or use at=start/end.",
                )
            })
        };
        Ok(match self.at {
            Anchor::Start => ModelPosition::Start,
            Anchor::End => ModelPosition::End,
            Anchor::Before => ModelPosition::Before { id: id()? },
            Anchor::After => ModelPosition::After { id: id()? },
            Anchor::FirstChildOf => ModelPosition::FirstChildOf { id: id()? },
            Anchor::LastChildOf => ModelPosition::LastChildOf { id: id()? },
        })
    }

    pub(crate) fn anchor_block(&self) -> Option<&String> {
        self.block_id.as_ref()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InsertBlocks {
    pub position: Position,
    /// Markdown (CommonMark + GFM tables, task lists, strikethrough) to insert as blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// Typed blocks instead of markdown: `{"type": "heading", "props": {"level": 2},
    /// "content": "Inline **markdown**", "children": []}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    // Each an object (a bare `true` item schema is refused by strict clients).
    #[schemars(with = "Option<Vec<serde_json::Map<String, serde_json::Value>>>")]
    pub blocks: Option<Vec<serde_json::Value>>,
}

impl InsertBlocks {
    /// The blocks it creates, from its markdown (read for an instance of `schema`) or its
    /// typed blocks.
    pub fn new_blocks(
        &self,
        schema: docs_client::blocknote::EditorSchema,
    ) -> ServiceResult<Vec<docs_client::blocknote::NewBlock>> {
        Ok(match (&self.markdown, &self.blocks) {
            (Some(markdown), None) => docs_client::blocknote::import_markdown_in(markdown, schema)?,
            (None, Some(values)) => values
                .iter()
                .cloned()
                .map(docs_client::blocknote::NewBlock::from_json)
                .collect::<Result<Vec<_>, _>>()?,
            _ => {
                return Err(ServiceError::invalid(
                    "insert_blocks needs exactly one of `markdown` or `blocks`",
                    "Send the content as markdown, or as typed blocks.",
                ));
            }
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateBlock {
    pub block_id: String,
    /// The block's new inline text as inline markdown (`**bold**`, `[link](url)`); applied as
    /// a minimal diff, so unchanged text keeps its formatting and concurrent typing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A new block type (e.g. `heading`, `checkListItem`), keeping the text.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub block_type: Option<String>,
    /// Props to set, e.g. `{"level": 2}` or `{"checked": true}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub props: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplaceText {
    /// Text to find, exactly as it reads (plain text, without markdown).
    pub old_text: String,
    /// Its replacement (plain text; it takes the formatting of the text it replaces).
    pub new_text: String,
    /// Only look in this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_id: Option<String>,
    /// Replace every match instead of requiring exactly one.
    #[serde(default)]
    pub all: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeleteBlocks {
    pub block_ids: Vec<String>,
    /// Keep the blocks nested under a deleted block (they move up a level).
    #[serde(default)]
    pub keep_children: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MoveBlock {
    pub block_id: String,
    pub position: Position,
}

/// One operation of an edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum EditOp {
    InsertBlocks(InsertBlocks),
    UpdateBlock(UpdateBlock),
    ReplaceText(ReplaceText),
    DeleteBlocks(DeleteBlocks),
    MoveBlock(MoveBlock),
}

/// Checks sizes and counts before anything is computed.
pub fn check_limits(ops: &[EditOp]) -> ServiceResult<()> {
    if ops.is_empty() {
        return Err(ServiceError::invalid(
            "no operation given",
            "Give at least one operation.",
        ));
    }
    if ops.len() > MAX_OPERATIONS {
        return Err(ServiceError::invalid(
            format!(
                "{} operations in one edit; the limit is {MAX_OPERATIONS}",
                ops.len()
            ),
            "Split the edit into several calls.",
        ));
    }
    let too_big = |what: &str, len: usize| {
        ServiceError::invalid(
            format!("{what} is {len} bytes; the limit is {MAX_INPUT_BYTES}"),
            "Split the content into several edits.",
        )
    };
    for op in ops {
        match op {
            EditOp::InsertBlocks(i) => {
                if let Some(md) = &i.markdown
                    && md.len() > MAX_INPUT_BYTES
                {
                    return Err(too_big("markdown", md.len()));
                }
                if let Some(blocks) = &i.blocks {
                    let len = serde_json::to_string(blocks).map(|s| s.len()).unwrap_or(0);
                    if len > MAX_INPUT_BYTES {
                        return Err(too_big("blocks", len));
                    }
                }
            }
            EditOp::UpdateBlock(u) => {
                if let Some(text) = &u.text
                    && text.len() > MAX_INPUT_BYTES
                {
                    return Err(too_big("text", text.len()));
                }
            }
            EditOp::ReplaceText(r) => {
                let len = r.old_text.len() + r.new_text.len();
                if len > MAX_INPUT_BYTES {
                    return Err(too_big("old_text + new_text", len));
                }
            }
            EditOp::DeleteBlocks(d) if d.block_ids.len() > MAX_NEW_BLOCKS => {
                return Err(ServiceError::invalid(
                    format!(
                        "{} blocks to delete; the limit is {MAX_NEW_BLOCKS}",
                        d.block_ids.len()
                    ),
                    "Delete in several calls.",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The existing blocks an operation depends on (checked against the agent's revision).
pub fn target_blocks(ops: &[EditOp]) -> Vec<String> {
    let mut ids = BTreeSet::new();
    for op in ops {
        match op {
            EditOp::InsertBlocks(i) => ids.extend(i.position.anchor_block().cloned()),
            EditOp::UpdateBlock(u) => {
                ids.insert(u.block_id.clone());
            }
            EditOp::ReplaceText(r) => ids.extend(r.block_id.clone()),
            EditOp::DeleteBlocks(d) => ids.extend(d.block_ids.iter().cloned()),
            EditOp::MoveBlock(m) => {
                ids.insert(m.block_id.clone());
                ids.extend(m.position.anchor_block().cloned());
            }
        }
    }
    ids.into_iter().collect()
}

/// Whether an agent's change to `block_id` can be rebased onto what others changed since it
/// read the block: every operation touching the block rewrites or replaces its text only,
/// and the text the agent read is known (a replacement in the block is checked against it).
pub fn rebasable(ops: &[EditOp], block_id: &str, bases: &TextBases) -> bool {
    ops.iter().all(|op| match op {
        EditOp::UpdateBlock(u) if u.block_id == block_id => {
            u.text.is_some()
                && u.block_type.is_none()
                && u.props.is_none()
                && bases.contains_key(block_id)
        }
        EditOp::ReplaceText(r) if r.block_id.as_deref() == Some(block_id) => {
            bases.contains_key(block_id)
        }
        EditOp::ReplaceText(_) => true,
        other => !target_blocks(std::slice::from_ref(other))
            .iter()
            .any(|b| b == block_id),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_rebasable_where_what_the_agent_read_is_known() {
        let read = TextBases::from([("a".to_owned(), "The Human race".to_owned())]);
        let replace = |block_id: Option<&str>| {
            EditOp::ReplaceText(ReplaceText {
                old_text: "Human".into(),
                new_text: "Agent".into(),
                block_id: block_id.map(str::to_owned),
                all: false,
            })
        };
        let update = |props: Option<serde_json::Map<String, serde_json::Value>>| {
            EditOp::UpdateBlock(UpdateBlock {
                block_id: "a".into(),
                text: Some("The Agent race".into()),
                block_type: None,
                props,
            })
        };
        for op in [update(None), replace(Some("a")), replace(None)] {
            assert!(rebasable(std::slice::from_ref(&op), "a", &read), "{op:?}");
        }
        assert!(!rebasable(&[update(None)], "a", &TextBases::new()));
        assert!(!rebasable(&[replace(Some("a"))], "a", &TextBases::new()));
        assert!(!rebasable(
            &[update(Some(serde_json::Map::new()))],
            "a",
            &read
        ));
        let delete = EditOp::DeleteBlocks(DeleteBlocks {
            block_ids: vec!["a".into()],
            keep_children: false,
        });
        assert!(!rebasable(&[replace(Some("a")), delete], "a", &read));
    }
}
