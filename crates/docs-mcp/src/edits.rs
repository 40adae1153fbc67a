//! The edit operations agents ask for, and their planning: every edit is computed on a FORK
//! of the live document, so nothing touches the live document until a decision applies the
//! resulting Yjs update (a CRDT merge that keeps what humans typed meanwhile). A list of
//! operations either all plan, or none does: the fork is thrown away on the first error.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

use docs_client::blocknote::tree::{Block, BlockContent, Document, Inline, NewBlock, NewContent};
use docs_client::blocknote::write::{ChildrenMode, Position as ModelPosition};
use docs_client::blocknote::{self, ExportOptions, PropValue, Props};
use docs_client::{DOCUMENT_FRAGMENT, LOCAL_ORIGIN};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{Doc, OffsetKind, Options, ReadTxn, StateVector, Transact, TransactionMut, Update};

use crate::error::{ServiceError, ServiceResult};
use crate::record::{DiffSpan, Preview, PreviewBlock};

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
    fn to_model(&self) -> ServiceResult<ModelPosition> {
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

    fn anchor_block(&self) -> Option<&String> {
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
    pub blocks: Option<Vec<serde_json::Value>>,
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

/// An edit computed on a fork, ready to be applied to the live document.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub update: Vec<u8>,
    pub base_state_vector: Vec<u8>,
    /// Existing blocks the edit targets or positions against.
    pub touched_blocks: Vec<String>,
    pub new_blocks: Vec<String>,
    pub preview: Preview,
    /// How to revert the edit; `None` when it cannot be reverted automatically (it kept
    /// the children of a deleted block, or touched a block of an unknown type).
    pub inverse: Option<Vec<UndoOp>>,
}

/// What planning records while operations run on the fork.
#[derive(Default)]
struct Effects {
    touched: BTreeSet<String>,
    new_blocks: Vec<String>,
    /// Inverse operations, in the order they must run (the reverse of the edit's).
    inverse: Option<Vec<UndoOp>>,
}

impl Effects {
    fn undo_first(&mut self, ops: Vec<UndoOp>) {
        if let Some(inverse) = &mut self.inverse {
            inverse.splice(0..0, ops);
        }
    }

    fn cannot_undo(&mut self) {
        self.inverse = None;
    }
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

/// Plans `ops` against the current state of `live`.
pub fn plan(live: &Doc, ops: &[EditOp]) -> ServiceResult<Plan> {
    check_limits(ops)?;
    plan_with(live, |txn, fragment, effects| {
        for op in ops {
            apply(txn, fragment, op, effects)?;
        }
        Ok(())
    })
}

/// Plans the reverting of an applied edit.
pub fn plan_undo(live: &Doc, ops: &[UndoOp]) -> ServiceResult<Plan> {
    let mut plan = plan_with(live, |txn, fragment, effects| {
        for op in ops {
            apply_undo(txn, fragment, op, effects)?;
        }
        Ok(())
    })?;
    plan.inverse = None;
    Ok(plan)
}

/// The Yjs client id of a new fork: above 2^32 (browsers draw theirs below it, so no clash)
/// and increasing with time (microseconds). Yjs orders concurrent inserts at one place by
/// client id, smaller first; increasing ids keep edits queued at the same place (two
/// appends at the end, say) in the order they were asked for, whatever order they are
/// approved in.
fn fork_client_id() -> u64 {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or_default();
    let candidate = (1 << 32) + micros;
    let previous = LAST
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
            Some(candidate.max(last + 1))
        })
        .unwrap_or_default();
    candidate.max(previous + 1)
}

fn plan_with(
    live: &Doc,
    run: impl FnOnce(&mut TransactionMut<'_>, &yrs::XmlFragmentRef, &mut Effects) -> ServiceResult<()>,
) -> ServiceResult<Plan> {
    let (state, base_state_vector) = {
        let txn = live.transact();
        (
            txn.encode_state_as_update_v1(&StateVector::default()),
            txn.state_vector(),
        )
    };
    let fork = Doc::with_options(Options {
        client_id: yrs::block::ClientID::new(fork_client_id()),
        offset_kind: OffsetKind::Utf16,
        ..Options::default()
    });
    let fragment = fork.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    {
        let update = Update::decode_v1(&state)
            .map_err(|e| ServiceError::Internal(format!("document state: {e}")))?;
        fork.transact_mut()
            .apply_update(update)
            .map_err(|e| ServiceError::Internal(format!("document state: {e}")))?;
    }
    let before = blocknote::read_document(&fork.transact(), &fragment);
    let mut effects = Effects {
        inverse: Some(vec![]),
        ..Effects::default()
    };
    let update = {
        let mut txn = fork.transact_mut_with(LOCAL_ORIGIN);
        run(&mut txn, &fragment, &mut effects)?;
        txn.encode_update_v1()
    };
    let after = blocknote::read_document(&fork.transact(), &fragment);
    if effects.new_blocks.len() > MAX_NEW_BLOCKS {
        return Err(ServiceError::invalid(
            format!(
                "the edit creates {} blocks; the limit is {MAX_NEW_BLOCKS}",
                effects.new_blocks.len()
            ),
            "Split the content into several edits.",
        ));
    }
    let touched: Vec<String> = effects.touched.into_iter().collect();
    let preview = preview(&before, &after, &touched, &effects.new_blocks);
    Ok(Plan {
        update,
        base_state_vector: base_state_vector.encode_v1(),
        touched_blocks: touched,
        new_blocks: effects.new_blocks,
        preview,
        inverse: effects.inverse,
    })
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
fn position_of(document: &Document, id: &str) -> Position {
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

fn restore_op(block: &Block) -> Option<UndoOp> {
    let content = content_of(block)?;
    Some(UndoOp::RestoreBlock {
        block_id: block.id.clone(),
        block_type: block.kind.clone(),
        props: block.props.clone(),
        content,
    })
}

/// Ids of the blocks among `ids` whose parent is not among them.
fn outermost(document: &Document, ids: &[String]) -> Vec<String> {
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
/// after the sibling before the run (or first under the parent, or at the start).
fn reinsert_deleted(document: &Document, ids: &[String]) -> Option<Vec<UndoOp>> {
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
                    .map(recreate)
                    .collect::<Option<Vec<_>>>()?,
            })
        })
        .collect()
}

fn apply(
    txn: &mut TransactionMut<'_>,
    fragment: &yrs::XmlFragmentRef,
    op: &EditOp,
    effects: &mut Effects,
) -> ServiceResult<()> {
    let before = blocknote::read_document(txn, fragment);
    match op {
        EditOp::InsertBlocks(insert) => {
            let blocks = match (&insert.markdown, &insert.blocks) {
                (Some(md), None) => blocknote::import_markdown(md),
                (None, Some(values)) => values
                    .iter()
                    .cloned()
                    .map(NewBlock::from_json)
                    .collect::<Result<Vec<_>, _>>()?,
                _ => {
                    return Err(ServiceError::invalid(
                        "insert_blocks needs exactly one of `markdown` or `blocks`",
                        "Send the content as markdown, or as typed blocks.",
                    ));
                }
            };
            if blocks.is_empty() {
                return Err(ServiceError::invalid(
                    "nothing to insert: the content is empty",
                    "Give the markdown or blocks to insert.",
                ));
            }
            let position = insert.position.to_model()?;
            let ids = blocknote::insert_blocks(txn, fragment, &position, &blocks)?;
            let after = blocknote::read_document(txn, fragment);
            effects.undo_first(vec![UndoOp::DeleteBlocks {
                block_ids: outermost(&after, &ids),
            }]);
            effects
                .touched
                .extend(insert.position.anchor_block().cloned());
            effects.new_blocks.extend(ids);
        }
        EditOp::UpdateBlock(update) => {
            if update.text.is_none() && update.block_type.is_none() && update.props.is_none() {
                return Err(ServiceError::invalid(
                    "update_block changes nothing",
                    "Give text, type or props.",
                ));
            }
            let props = match &update.props {
                Some(map) => props_from_json(map)?,
                None => Props::new(),
            };
            if update.block_type.is_some() || !props.is_empty() {
                blocknote::update_block(
                    txn,
                    fragment,
                    &update.block_id,
                    update.block_type.as_deref(),
                    &props,
                )?;
            }
            if let Some(text) = &update.text {
                blocknote::set_block_text(txn, fragment, &update.block_id, text)?;
            }
            match before.find(&update.block_id).and_then(restore_op) {
                Some(restore) => effects.undo_first(vec![restore]),
                None => effects.cannot_undo(),
            }
            effects.touched.insert(update.block_id.clone());
        }
        EditOp::ReplaceText(replace) => {
            let changed = replace_text(txn, fragment, replace)?;
            let restores: Option<Vec<UndoOp>> = changed
                .iter()
                .map(|id| before.find(id).and_then(restore_op))
                .collect();
            match restores {
                Some(restores) => effects.undo_first(restores),
                None => effects.cannot_undo(),
            }
            effects.touched.extend(changed);
        }
        EditOp::DeleteBlocks(delete) => {
            if delete.block_ids.is_empty() {
                return Err(ServiceError::invalid(
                    "no block to delete",
                    "Give the ids of the blocks to delete.",
                ));
            }
            let mode = if delete.keep_children {
                ChildrenMode::Lift
            } else {
                ChildrenMode::Delete
            };
            blocknote::delete_blocks(txn, fragment, &delete.block_ids, mode)?;
            let reinsert = (!delete.keep_children)
                .then(|| reinsert_deleted(&before, &outermost(&before, &delete.block_ids)))
                .flatten();
            match reinsert {
                Some(ops) => effects.undo_first(ops),
                None => effects.cannot_undo(),
            }
            effects.touched.extend(delete.block_ids.iter().cloned());
        }
        EditOp::MoveBlock(mv) => {
            let position = mv.position.to_model()?;
            blocknote::move_block(txn, fragment, &mv.block_id, &position)?;
            effects.undo_first(vec![UndoOp::MoveBlock {
                block_id: mv.block_id.clone(),
                position: position_of(&before, &mv.block_id),
            }]);
            effects.touched.insert(mv.block_id.clone());
            effects.touched.extend(mv.position.anchor_block().cloned());
        }
    }
    Ok(())
}

fn apply_undo(
    txn: &mut TransactionMut<'_>,
    fragment: &yrs::XmlFragmentRef,
    op: &UndoOp,
    effects: &mut Effects,
) -> ServiceResult<()> {
    match op {
        UndoOp::DeleteBlocks { block_ids } => {
            blocknote::delete_blocks(txn, fragment, block_ids, ChildrenMode::Delete)?;
            effects.touched.extend(block_ids.iter().cloned());
        }
        UndoOp::InsertBlocks { position, blocks } => {
            let ids = blocknote::insert_blocks(txn, fragment, &position.to_model()?, blocks)?;
            effects.touched.extend(position.anchor_block().cloned());
            effects.new_blocks.extend(ids);
        }
        UndoOp::RestoreBlock {
            block_id,
            block_type,
            props,
            content,
        } => {
            blocknote::update_block(txn, fragment, block_id, Some(block_type), props)?;
            if let Some(content) = content {
                blocknote::set_block_content(txn, fragment, block_id, content)?;
            }
            effects.touched.insert(block_id.clone());
        }
        UndoOp::MoveBlock { block_id, position } => {
            blocknote::move_block(txn, fragment, block_id, &position.to_model()?)?;
            effects.touched.insert(block_id.clone());
        }
    }
    Ok(())
}

fn props_from_json(map: &serde_json::Map<String, serde_json::Value>) -> ServiceResult<Props> {
    map.iter()
        .map(|(key, value)| {
            let value = match value {
                serde_json::Value::String(s) => PropValue::String(s.clone()),
                serde_json::Value::Number(n) => PropValue::Number(n.as_f64().unwrap_or_default()),
                serde_json::Value::Bool(b) => PropValue::Bool(*b),
                other => {
                    return Err(ServiceError::invalid(
                        format!("prop {key:?} has an unsupported value {other}"),
                        "Props are strings, numbers or booleans.",
                    ));
                }
            };
            Ok((key.clone(), value))
        })
        .collect()
}

/// Plain text of inline content with one character per inline piece that is not text, so
/// offsets map back to pieces: hard breaks are `\n`, inline elements U+FFFC.
fn flat_text(inline: &[Inline]) -> String {
    inline
        .iter()
        .map(|piece| match piece {
            Inline::Text(run) => run.text.clone(),
            Inline::HardBreak => "\n".into(),
            Inline::Element { .. } => "\u{fffc}".into(),
        })
        .collect()
}

/// Replaces the characters `[start, end)` (char offsets in [`flat_text`]) by `new_text`,
/// which takes the formatting of the run it starts in.
fn splice_inline(inline: &[Inline], start: usize, end: usize, new_text: &str) -> Vec<Inline> {
    let mut out = vec![];
    let mut cursor = 0;
    let mut inserted = new_text.is_empty();
    for piece in inline {
        let len = match piece {
            Inline::Text(run) => run.text.chars().count(),
            _ => 1,
        };
        let (piece_start, piece_end) = (cursor, cursor + len);
        cursor = piece_end;
        let before_range = piece_end <= start;
        // A piece starting right at the end of the range is kept as is once the new text is
        // in; before that, the new text goes at its start.
        let after_range = piece_start > end || (piece_start == end && inserted);
        if before_range || after_range {
            out.push(piece.clone());
            continue;
        }
        match piece {
            Inline::Text(run) => {
                let chars: Vec<char> = run.text.chars().collect();
                let keep_before: String = chars[..start.saturating_sub(piece_start).min(len)]
                    .iter()
                    .collect();
                let keep_after: String = chars[end.saturating_sub(piece_start).min(len)..]
                    .iter()
                    .collect();
                let mut text = keep_before;
                if !inserted {
                    text.push_str(new_text);
                    inserted = true;
                }
                text.push_str(&keep_after);
                if !text.is_empty() {
                    let mut run = run.clone();
                    run.text = text;
                    out.push(Inline::Text(run));
                }
            }
            _ => {
                if piece_start >= start && piece_end <= end {
                    // A break or element inside the replaced range goes with it.
                    continue;
                }
                out.push(piece.clone());
            }
        }
    }
    if !inserted {
        out.push(Inline::Text(docs_client::blocknote::tree::TextRun::plain(
            new_text,
        )));
    }
    out
}

/// Finds `old_text` (in one block, or the whole document) and replaces it; returns the
/// blocks changed.
fn replace_text(
    txn: &mut TransactionMut<'_>,
    fragment: &yrs::XmlFragmentRef,
    replace: &ReplaceText,
) -> ServiceResult<Vec<String>> {
    if replace.old_text.is_empty() {
        return Err(ServiceError::invalid(
            "old_text is empty",
            "Quote the text to replace.",
        ));
    }
    let document = blocknote::read_document(txn, fragment);
    let candidates: Vec<&Block> = match &replace.block_id {
        Some(id) => vec![document.find(id).ok_or_else(|| {
            ServiceError::Model(blocknote::error::ModelError::BlockNotFound { id: id.clone() })
        })?],
        None => document.all_blocks(),
    };
    let mut matches: Vec<(&Block, Vec<usize>)> = vec![];
    for block in candidates {
        let BlockContent::Inline { inline } = &block.content else {
            continue;
        };
        let text = flat_text(inline);
        let starts: Vec<usize> = text
            .match_indices(&replace.old_text)
            .map(|(byte, _)| text[..byte].chars().count())
            .collect();
        if !starts.is_empty() {
            matches.push((block, starts));
        }
    }
    let total: usize = matches.iter().map(|(_, s)| s.len()).sum();
    let scope = match &replace.block_id {
        Some(id) => format!("block {id}"),
        None => "the document".into(),
    };
    if total == 0 {
        return Err(ServiceError::TextNotFound {
            needle: replace.old_text.clone(),
            scope,
        });
    }
    if total > 1 && !replace.all {
        return Err(ServiceError::AmbiguousMatch {
            needle: replace.old_text.clone(),
            count: total,
            block_ids: matches.iter().map(|(b, _)| b.id.clone()).collect(),
        });
    }
    let old_len = replace.old_text.chars().count();
    let mut changed = vec![];
    for (block, starts) in matches {
        let BlockContent::Inline { inline } = &block.content else {
            continue;
        };
        // Splice from the last match backwards so earlier offsets stay valid.
        let mut current = inline.clone();
        for start in starts.iter().rev() {
            current = splice_inline(&current, *start, start + old_len, &replace.new_text);
        }
        blocknote::set_block_content(txn, fragment, &block.id, &NewContent::Inline(current))?;
        changed.push(block.id.clone());
    }
    Ok(changed)
}

fn preview_blocks(document: &Document, ids: &[String]) -> Vec<PreviewBlock> {
    let mut parents: HashMap<&str, &str> = HashMap::new();
    for block in document.all_blocks() {
        for child in &block.children {
            parents.insert(&child.id, &block.id);
        }
    }
    let wanted: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    document
        .all_blocks()
        .into_iter()
        // A block whose parent is shown is shown with it.
        .filter(|b| wanted.contains(b.id.as_str()))
        .filter(|b| {
            parents
                .get(b.id.as_str())
                .is_none_or(|p| !wanted.contains(p))
        })
        .map(|b| PreviewBlock {
            block_id: b.id.clone(),
            block_type: b.kind.clone(),
            markdown: blocknote::export_markdown(
                std::slice::from_ref(b),
                &ExportOptions::default(),
            )
            .markdown
            .trim_end()
            .to_owned(),
        })
        .collect()
}

fn preview(before: &Document, after: &Document, touched: &[String], new: &[String]) -> Preview {
    let mut ids: Vec<String> = touched.to_vec();
    ids.extend(new.iter().cloned());
    let before_blocks = preview_blocks(before, &ids);
    let after_blocks = preview_blocks(after, &ids);
    let join = |blocks: &[PreviewBlock]| {
        blocks
            .iter()
            .map(|b| b.markdown.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let (old, new_text) = (join(&before_blocks), join(&after_blocks));
    let diff = similar::TextDiff::from_words(&old, &new_text);
    let mut spans: Vec<DiffSpan> = vec![];
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        let kind = match change.tag() {
            similar::ChangeTag::Equal => "equal",
            similar::ChangeTag::Insert => "added",
            similar::ChangeTag::Delete => "removed",
        };
        let words = change.value().split_whitespace().count();
        match kind {
            "added" => added += words,
            "removed" => removed += words,
            _ => {}
        }
        match spans.last_mut() {
            Some(last) if last.kind == kind => last.text.push_str(change.value()),
            _ => spans.push(DiffSpan {
                kind: kind.into(),
                text: change.value().to_owned(),
            }),
        }
    }
    Preview {
        before: before_blocks,
        after: after_blocks,
        diff: spans,
        words_added: added,
        words_removed: removed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docs_client::blocknote::tree::{Styles, TextRun};

    fn live_doc(markdown: &str) -> Doc {
        let doc = Doc::with_options(Options {
            offset_kind: OffsetKind::Utf16,
            ..Options::default()
        });
        let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        let blocks = blocknote::import_markdown(markdown);
        let mut txn = doc.transact_mut();
        blocknote::insert_blocks(&mut txn, &fragment, &ModelPosition::End, &blocks).unwrap();
        drop(txn);
        doc
    }

    fn texts(doc: &Doc) -> Vec<String> {
        let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        blocknote::read_document(&doc.transact(), &fragment)
            .blocks
            .iter()
            .map(|b| b.plain_text())
            .collect()
    }

    fn apply_plan(doc: &Doc, plan: &Plan) {
        doc.transact_mut()
            .apply_update(Update::decode_v1(&plan.update).unwrap())
            .unwrap();
    }

    #[test]
    fn a_plan_changes_only_the_fork_until_applied() {
        let doc = live_doc("First\n\nSecond");
        let op = EditOp::InsertBlocks(InsertBlocks {
            position: Position {
                at: Anchor::End,
                block_id: None,
            },
            markdown: Some("Third **bold**".into()),
            blocks: None,
        });
        let plan = plan(&doc, &[op]).unwrap();
        assert_eq!(texts(&doc), ["First", "Second"]);
        assert_eq!(plan.new_blocks.len(), 1);
        assert_eq!(plan.preview.after.len(), 1);
        assert_eq!(plan.preview.after[0].markdown, "Third **bold**");
        assert_eq!(plan.preview.words_added, 2);
        apply_plan(&doc, &plan);
        assert_eq!(texts(&doc), ["First", "Second", "Third bold"]);
    }

    #[test]
    fn a_failing_operation_plans_nothing() {
        let doc = live_doc("Only");
        let ops = [
            EditOp::InsertBlocks(InsertBlocks {
                position: Position {
                    at: Anchor::Start,
                    block_id: None,
                },
                markdown: Some("new".into()),
                blocks: None,
            }),
            EditOp::DeleteBlocks(DeleteBlocks {
                block_ids: vec!["no-such-block".into()],
                keep_children: false,
            }),
        ];
        let err = plan(&doc, &ops).unwrap_err();
        assert_eq!(err.code().as_str(), "BLOCK_NOT_FOUND");
        assert_eq!(texts(&doc), ["Only"]);
    }

    #[test]
    fn replace_text_keeps_formatting_and_refuses_ambiguity() {
        let doc = live_doc("The **quick** brown fox\n\nA quick note");
        let ambiguous = plan(
            &doc,
            &[EditOp::ReplaceText(ReplaceText {
                old_text: "quick".into(),
                new_text: "slow".into(),
                block_id: None,
                all: false,
            })],
        )
        .unwrap_err();
        assert_eq!(ambiguous.code().as_str(), "AMBIGUOUS_MATCH");
        let missing = plan(
            &doc,
            &[EditOp::ReplaceText(ReplaceText {
                old_text: "purple".into(),
                new_text: "x".into(),
                block_id: None,
                all: false,
            })],
        )
        .unwrap_err();
        assert_eq!(missing.code().as_str(), "TEXT_NOT_FOUND");

        let all = plan(
            &doc,
            &[EditOp::ReplaceText(ReplaceText {
                old_text: "quick".into(),
                new_text: "slow".into(),
                block_id: None,
                all: true,
            })],
        )
        .unwrap();
        apply_plan(&doc, &all);
        assert_eq!(texts(&doc), ["The slow brown fox", "A slow note"]);
        let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        let document = blocknote::read_document(&doc.transact(), &fragment);
        let BlockContent::Inline { inline } = &document.blocks[0].content else {
            panic!()
        };
        let bold = Styles {
            bold: true,
            ..Styles::default()
        };
        assert!(inline.contains(&Inline::Text(TextRun::styled("slow", bold))));
        assert_eq!(all.preview.words_removed, 2);
        assert_eq!(all.preview.words_added, 2);
    }

    #[test]
    fn splicing_across_runs_and_breaks() {
        let inline = vec![
            Inline::Text(TextRun::plain("ab")),
            Inline::HardBreak,
            Inline::Text(TextRun::plain("cd")),
        ];
        assert_eq!(flat_text(&inline), "ab\ncd");
        assert_eq!(
            splice_inline(&inline, 1, 4, "X"),
            vec![
                Inline::Text(TextRun::plain("aX")),
                Inline::Text(TextRun::plain("d"))
            ]
        );
        assert_eq!(
            splice_inline(&inline, 5, 5, "!"),
            vec![
                Inline::Text(TextRun::plain("ab")),
                Inline::HardBreak,
                Inline::Text(TextRun::plain("cd")),
                Inline::Text(TextRun::plain("!")),
            ]
        );
    }

    #[test]
    fn limits_are_checked_first() {
        assert_eq!(
            check_limits(&[]).unwrap_err().code().as_str(),
            "INVALID_INPUT"
        );
        let huge = EditOp::InsertBlocks(InsertBlocks {
            position: Position {
                at: Anchor::End,
                block_id: None,
            },
            markdown: Some("x".repeat(MAX_INPUT_BYTES + 1)),
            blocks: None,
        });
        assert_eq!(
            check_limits(&[huge]).unwrap_err().code().as_str(),
            "INVALID_INPUT"
        );
        let before = EditOp::InsertBlocks(InsertBlocks {
            position: Position {
                at: Anchor::Before,
                block_id: None,
            },
            markdown: Some("x".into()),
            blocks: None,
        });
        let doc = live_doc("a");
        let err = plan(&doc, &[before]).unwrap_err();
        assert_eq!(err.code().as_str(), "INVALID_INPUT");
        assert!(err.to_string().contains("block_id"), "{err}");
    }
}
