//! Planning: an edit runs on a FORK of the live document; what it would change becomes a Yjs
//! update, a preview for the person deciding, the states of the blocks it depends on (checked
//! again when it is merged) and leaves (checked before undoing it), and its inverse.
//!
//! Of the document after the edit only the changed blocks are read (`read_outermost`), with the
//! block before and after them found in the same walk, which passes the blocks of the read it
//! was planned on that hold none of them by their containers, without a look inside, from the
//! block before the first that holds a block the edit names (from the last block for an edit
//! naming none: an insert at the end; from the first for one that moves a block). Also
//! planned: the texts the edit rewrites, before and after.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use docs_client::blocknote::tree::{Document, NewBlock, NewContent};
use docs_client::blocknote::write::ChildrenMode;
use docs_client::blocknote::{self, EditorSchema, PropValue, Props, Writing};
use docs_client::{DOCUMENT_FRAGMENT, LOCAL_ORIGIN};
use rustc_hash::FxHashSet;
use yrs::updates::encoder::Encode;
use yrs::{Doc, ReadTxn, Transact, TransactionMut};

use super::fingerprint::{self, index, index_of};
use super::undo::{UndoOp, outermost, position_of, reinsert_deleted, restore_op};
use super::{EditOp, MAX_NEW_BLOCKS, check_limits, merge, preview, replace};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{BlockState, PlannedText, Preview, Seen};

/// What an agent read of the blocks it rewrites (block id → the block's inline markdown at
/// its last read): its rewrite is rebased onto what others typed since.
pub type TextBases = HashMap<String, String>;

/// An edit computed on a fork, ready to be merged into the live document.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub update: Vec<u8>,
    pub base_state_vector: Vec<u8>,
    /// Existing blocks the edit changes or positions against.
    pub touched_blocks: Vec<String>,
    pub new_blocks: Vec<String>,
    pub preview: Preview,
    /// How to revert the edit; `None` when it cannot be reverted automatically (it kept
    /// the children of a deleted block, or touched a block of an unknown type).
    pub inverse: Option<Vec<UndoOp>>,
    /// The existing blocks it depends on, as they were when planned.
    pub depends_on: Vec<BlockState>,
    /// The blocks it changes or creates, as it leaves them.
    pub leaves: Vec<BlockState>,
    /// The texts it rewrites, before and after.
    pub texts: Vec<PlannedText>,
}

/// How much of a block an operation depends on (the most wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Scope {
    Exists,
    Content,
    Subtree,
}

/// What planning records while operations run on the fork.
#[derive(Default)]
struct Effects {
    depends: BTreeMap<String, Scope>,
    new_blocks: Vec<String>,
    /// Inverse operations, in the order they must run (the reverse of the edit's).
    inverse: Option<Vec<UndoOp>>,
    /// A block was moved: it may be anywhere now, before the blocks it depended on too.
    moved: bool,
}

impl Effects {
    fn depend(&mut self, id: &str, scope: Scope) {
        let entry = self.depends.entry(id.to_owned()).or_insert(scope);
        *entry = (*entry).max(scope);
    }

    fn undo_first(&mut self, ops: Vec<UndoOp>) {
        if let Some(inverse) = &mut self.inverse {
            inverse.splice(0..0, ops);
        }
    }

    fn cannot_undo(&mut self) {
        self.inverse = None;
    }
}

/// A fork of the live document to plan one edit on (see [`super::fork`]), with its blocks
/// when they were already read at the fork's state.
pub struct Fork {
    pub doc: Doc,
    pub blocks: Option<Arc<Document>>,
    /// What the document's instance knows: what may be written to it.
    pub schema: EditorSchema,
}

impl Fork {
    /// The fork's blocks: those read at its state already, or read now.
    pub fn document(&self) -> Arc<Document> {
        match &self.blocks {
            Some(blocks) => blocks.clone(),
            None => {
                let fragment = self.doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
                Arc::new(blocknote::read_document(&self.doc.transact(), &fragment))
            }
        }
    }
}

/// Plans `ops` on `fork`; `bases` rebases text rewrites.
pub fn plan(fork: &Fork, ops: &[EditOp], bases: &TextBases) -> ServiceResult<Plan> {
    check_limits(ops)?;
    plan_with(fork, |txn, fragment, start, effects| {
        for (i, op) in ops.iter().enumerate() {
            // The first operation sees the document as planning found it; the next ones see
            // it as the operations before them left it.
            let read_now;
            let before = if i == 0 {
                start
            } else {
                read_now = blocknote::read_document(txn, fragment);
                &read_now
            };
            apply(txn, fragment, op, before, effects, bases, fork.schema)?;
        }
        Ok(())
    })
}

/// Plans the reverting of an applied edit.
pub fn plan_undo(fork: &Fork, ops: &[UndoOp]) -> ServiceResult<Plan> {
    let mut plan = plan_with(fork, |txn, fragment, _, effects| {
        for op in ops {
            apply_undo(txn, fragment, op, effects, fork.schema)?;
        }
        Ok(())
    })?;
    plan.inverse = None;
    Ok(plan)
}

/// Plans on `fork`: `run` gets the fork's transaction and the document as it was before.
/// The fork is borrowed, so that its dropping (a whole document) can wait.
fn plan_with(
    fork: &Fork,
    run: impl FnOnce(
        &mut TransactionMut<'_>,
        &yrs::XmlFragmentRef,
        &Document,
        &mut Effects,
    ) -> ServiceResult<()>,
) -> ServiceResult<Plan> {
    let before = fork.document();
    let schema = fork.schema;
    let fork = &fork.doc;
    let fragment = fork.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let base_state_vector = fork.transact().state_vector();
    let mut effects = Effects {
        inverse: Some(vec![]),
        ..Effects::default()
    };
    let update = {
        let mut txn = fork.transact_mut_with(LOCAL_ORIGIN);
        run(&mut txn, &fragment, &before, &mut effects)?;
        txn.encode_update_v1()
    };
    // Of the document after the edit, only the blocks it changes or creates are read.
    let changed: FxHashSet<&str> = effects
        .depends
        .keys()
        .chain(&effects.new_blocks)
        .map(String::as_str)
        .collect();
    let outermost = {
        let txn = fork.transact();
        // From the block before the first that holds a block the edit names; an edit that
        // names none added outermost blocks, at the end of the document (looked for from its
        // last block) or at its start.
        let named = |b: &docs_client::blocknote::Block| {
            b.any(|b| effects.depends.contains_key(b.id.as_str()))
        };
        let from = if effects.moved {
            0
        } else {
            match before.blocks.iter().position(named) {
                Some(first) => first.saturating_sub(1),
                None => before.blocks.len().saturating_sub(1),
            }
        };
        let outermost = blocknote::read_outermost(&txn, &fragment, &changed, Some(&before), from);
        // Walking past the blocks read before that hold none of these relies on each new
        // block being next to or in one the edit names: read whole if one is not found.
        if effects
            .new_blocks
            .iter()
            .all(|id| outermost.document.find(id).is_some())
        {
            outermost
        } else {
            blocknote::read_outermost(&txn, &fragment, &changed, None, 0)
        }
    };
    let touched: Vec<String> = effects.depends.keys().cloned().collect();
    let preview = preview::preview(&before, &outermost, &touched, &effects.new_blocks, schema);
    let after = outermost.document;
    // The blocks before are the whole document: only those the edit depends on are indexed.
    let depends: FxHashSet<&str> = effects.depends.keys().map(String::as_str).collect();
    let (before_blocks, after_blocks) = (index_of(&before, &depends), index(&after));
    let (depends_on, leaves) = block_states(&before_blocks, &after_blocks, &after, &effects);
    let texts = planned_texts(&before_blocks, &after_blocks, &effects, schema);
    Ok(Plan {
        update,
        base_state_vector: base_state_vector.encode_v1(),
        touched_blocks: touched,
        new_blocks: effects.new_blocks,
        preview,
        inverse: effects.inverse,
        depends_on,
        leaves,
        texts,
    })
}

/// The texts of the blocks whose content the edit changes, before and after.
fn planned_texts(
    before_blocks: &HashMap<&str, &blocknote::Block>,
    after_blocks: &HashMap<&str, &blocknote::Block>,
    effects: &Effects,
    schema: EditorSchema,
) -> Vec<PlannedText> {
    effects
        .depends
        .iter()
        .filter(|(_, scope)| **scope == Scope::Content)
        .filter_map(|(id, _)| {
            let (old, new) = (
                before_blocks.get(id.as_str())?,
                after_blocks.get(id.as_str())?,
            );
            (old.inline().is_some() && new.inline().is_some()).then(|| PlannedText {
                block_id: id.clone(),
                before: blocknote::inline_markdown_in(old, schema),
                after: blocknote::inline_markdown_in(new, schema),
                shape: fingerprint::of_shape(old),
            })
        })
        .collect()
}

fn seen(block: &blocknote::Block, scope: Scope) -> Seen {
    match scope {
        Scope::Exists => Seen::Exists,
        Scope::Content => Seen::Content(fingerprint::of_content(block)),
        Scope::Subtree => Seen::Subtree(fingerprint::of_subtree(block)),
    }
}

/// What the edit depends on (existing blocks, before) and leaves (changed and new blocks,
/// after; the outermost new blocks with what is nested under them).
fn block_states(
    before_blocks: &HashMap<&str, &blocknote::Block>,
    after_blocks: &HashMap<&str, &blocknote::Block>,
    after: &Document,
    effects: &Effects,
) -> (Vec<BlockState>, Vec<BlockState>) {
    let state = |blocks: &HashMap<&str, &blocknote::Block>, id: &str, scope: Scope| {
        blocks.get(id).map(|block| BlockState {
            block_id: id.to_owned(),
            seen: seen(block, scope),
        })
    };
    let depends_on = effects
        .depends
        .iter()
        .filter_map(|(id, scope)| state(before_blocks, id, *scope))
        .collect();
    let changed = effects
        .depends
        .iter()
        .filter(|(_, scope)| **scope != Scope::Exists)
        .filter_map(|(id, scope)| state(after_blocks, id, *scope));
    let created = outermost(after, &effects.new_blocks)
        .into_iter()
        .filter_map(|id| state(after_blocks, &id, Scope::Subtree));
    (depends_on, changed.chain(created).collect())
}

/// The ids of the top-level blocks among `ids`, the ids of the inserted `blocks` in the order
/// `insert_blocks` gives them (depth first, each block before its children).
fn top_level_ids(ids: &[String], blocks: &[NewBlock]) -> Vec<String> {
    let mut at = 0;
    let mut top = Vec::with_capacity(blocks.len());
    for block in blocks {
        if let Some(id) = ids.get(at) {
            top.push(id.clone());
        }
        at += count_blocks(std::slice::from_ref(block));
    }
    top
}

/// Blocks in `blocks`, nested ones included.
fn count_blocks(blocks: &[NewBlock]) -> usize {
    let mut count = 0;
    let mut stack: Vec<&NewBlock> = blocks.iter().collect();
    while let Some(block) = stack.pop() {
        count += 1;
        stack.extend(&block.children);
    }
    count
}

fn apply(
    txn: &mut TransactionMut<'_>,
    fragment: &yrs::XmlFragmentRef,
    op: &EditOp,
    before: &Document,
    effects: &mut Effects,
    bases: &TextBases,
    schema: EditorSchema,
) -> ServiceResult<()> {
    let writing = Writing::new_content(schema);
    match op {
        EditOp::InsertBlocks(insert) => {
            let blocks = insert.new_blocks(schema)?;
            if blocks.is_empty() {
                return Err(ServiceError::invalid(
                    "nothing to insert: the content is empty",
                    "Give the markdown or blocks to insert.",
                ));
            }
            let created = effects.new_blocks.len() + count_blocks(&blocks);
            if created > MAX_NEW_BLOCKS {
                return Err(ServiceError::invalid(
                    format!("the edit creates {created} blocks; the limit is {MAX_NEW_BLOCKS}"),
                    "Split the content into several edits.",
                ));
            }
            let position = insert.position.to_model()?;
            let after = container_before(before, &position);
            let ids = blocknote::insert_blocks_known(
                txn,
                fragment,
                &position,
                after.as_ref(),
                &blocks,
                writing,
            )?;
            effects.undo_first(vec![UndoOp::DeleteBlocks {
                block_ids: top_level_ids(&ids, &blocks),
            }]);
            if let Some(anchor) = insert.position.anchor_block() {
                effects.depend(anchor, Scope::Exists);
            }
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
                blocknote::update_block_in(
                    txn,
                    fragment,
                    &update.block_id,
                    update.block_type.as_deref(),
                    &props,
                    writing,
                )?;
            }
            if let Some(text) = &update.text {
                let text = match (bases.get(&update.block_id), before.find(&update.block_id)) {
                    (Some(base), Some(current)) => {
                        let current = blocknote::inline_markdown_in(current, schema);
                        merge::merge3(base, text, &current)
                            .map_err(|overlap| overlap_error(&update.block_id, overlap))?
                    }
                    _ => text.clone(),
                };
                let text = NewContent::Markdown(text);
                blocknote::set_block_content_in(txn, fragment, &update.block_id, &text, writing)?;
            }
            match before.find(&update.block_id).and_then(restore_op) {
                Some(restore) => effects.undo_first(vec![restore]),
                None => effects.cannot_undo(),
            }
            effects.depend(&update.block_id, Scope::Content);
        }
        EditOp::ReplaceText(r) => {
            let changed = replace::replace_text(txn, fragment, before, r, schema)?;
            for id in &changed {
                if let (Some(base), Some(block)) = (bases.get(id), before.find(id)) {
                    replace::rebases(base, block, r, schema)
                        .map_err(|overlap| overlap_error(id, overlap))?;
                }
            }
            let restores: Option<Vec<UndoOp>> = changed
                .iter()
                .map(|id| before.find(id).and_then(restore_op))
                .collect();
            match restores {
                Some(restores) => effects.undo_first(restores),
                None => effects.cannot_undo(),
            }
            for id in &changed {
                effects.depend(id, Scope::Content);
            }
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
                .then(|| reinsert_deleted(before, &outermost(before, &delete.block_ids), schema))
                .flatten();
            match reinsert {
                Some(ops) => effects.undo_first(ops),
                None => effects.cannot_undo(),
            }
            for id in &delete.block_ids {
                effects.depend(id, Scope::Subtree);
            }
        }
        EditOp::MoveBlock(mv) => {
            let position = mv.position.to_model()?;
            blocknote::move_block(txn, fragment, &mv.block_id, &position)?;
            effects.moved = true;
            effects.undo_first(vec![UndoOp::MoveBlock {
                block_id: mv.block_id.clone(),
                position: position_of(before, &mv.block_id),
            }]);
            effects.depend(&mv.block_id, Scope::Subtree);
            if let Some(anchor) = mv.position.anchor_block() {
                effects.depend(anchor, Scope::Exists);
            }
        }
    }
    Ok(())
}

fn overlap_error(block_id: &str, overlap: merge::Overlap) -> ServiceError {
    ServiceError::Overlap {
        block_id: block_id.to_owned(),
        read: overlap.read,
        now: overlap.now,
    }
}

fn apply_undo(
    txn: &mut TransactionMut<'_>,
    fragment: &yrs::XmlFragmentRef,
    op: &UndoOp,
    effects: &mut Effects,
    schema: EditorSchema,
) -> ServiceResult<()> {
    let as_read = Writing::as_read(schema);
    match op {
        UndoOp::DeleteBlocks { block_ids } => {
            blocknote::delete_blocks(txn, fragment, block_ids, ChildrenMode::Delete)?;
            for id in block_ids {
                effects.depend(id, Scope::Subtree);
            }
        }
        // What an undo writes was read from the document: it goes back as it was, its links
        // and media URLs unchecked.
        UndoOp::InsertBlocks { position, blocks } => {
            let at = position.to_model()?;
            let ids = blocknote::insert_blocks_in(txn, fragment, &at, blocks, as_read)?;
            if let Some(anchor) = position.anchor_block() {
                effects.depend(anchor, Scope::Exists);
            }
            effects.new_blocks.extend(ids);
        }
        UndoOp::RestoreBlock {
            block_id,
            block_type,
            props,
            content,
        } => {
            let block_type = Some(block_type.as_str());
            blocknote::update_block_in(txn, fragment, block_id, block_type, props, as_read)?;
            if let Some(content) = content {
                blocknote::set_block_content_in(txn, fragment, block_id, content, as_read)?;
            }
            effects.depend(block_id, Scope::Content);
        }
        UndoOp::MoveBlock { block_id, position } => {
            blocknote::move_block(txn, fragment, block_id, &position.to_model()?)?;
            effects.moved = true;
            effects.depend(block_id, Scope::Subtree);
            if let Some(anchor) = position.anchor_block() {
                effects.depend(anchor, Scope::Exists);
            }
        }
    }
    Ok(())
}

/// The container of the outermost block an insert at `position` lands right after, as
/// `before` has it: the last one for the end; for after a block, the block named when the
/// first of that id in reading order (the one the write finds) is an outermost one.
fn container_before(before: &Document, position: &blocknote::Position) -> Option<yrs::ID> {
    if !before.knows_containers() {
        return None;
    }
    match position {
        blocknote::Position::End => before.containers.last().copied(),
        blocknote::Position::After { id } => {
            let at = before.blocks.iter().position(|b| b.any(|b| b.id == *id))?;
            (before.blocks[at].id == *id).then(|| before.containers[at])
        }
        _ => None,
    }
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

#[allow(clippy::items_after_test_module)]
#[cfg(test)]
mod tests;
