//! Builders and operations. Every operation validates first and mutates after, so a refused
//! operation changes nothing.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use yrs::{
    Any, ReadTxn, Text, TransactionMut, Xml, XmlElementPrelim, XmlElementRef, XmlFragment,
    XmlFragmentRef, XmlOut, XmlTextPrelim,
};

use super::diff::DIFF_TIME_LIMIT;
use super::error::{ModelError, ModelResult};
use super::inline::{prop_to_any, write_inline};
pub use super::locate::Position;
use super::locate::{
    Loc, child_index, is_within, locate, materialize, position_depth, resolve_target,
    subtree_height,
};
use super::markdown::math::MathInput;
use super::nesting::{MAX_NESTING, check_depth, check_height};
use super::place;
use super::read::{container_parts, hidden_blocks, read_block_alone, root_group};
use super::schema::{
    BLOCK_CONTAINER, BLOCK_GROUP, BlockSpec, ContentKind, EditorSchema, TABLE_CELL, TABLE_HEADER,
    TABLE_PARAGRAPH, TABLE_ROW, block_spec,
};
use super::snapshot::{Snap, restore, snapshot};
use super::tree::{
    Block, BlockContent, Inline, NewBlock, NewContent, PropValue, Props, inline_plain_text,
};
use super::urls::{URL_PROP, inline_hrefs};
use super::validate::{
    Prepared, PreparedBlock, check_prop, check_props, check_writable, full_props, prepare_blocks,
    resolve_inline, writable_spec,
};
use super::writing::Writing;
use super::yjs_depth::check_removable;

// ---------------------------------------------------------------------------------------------
// Builders

fn set_props(txn: &mut TransactionMut, el: &XmlElementRef, props: &Props) {
    for (k, v) in props {
        el.insert_attribute(txn, k.as_str(), prop_to_any(v));
    }
}

/// A fresh block id (UUID v4).
pub fn new_block_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn write_content_node(
    txn: &mut TransactionMut,
    container: &XmlElementRef,
    index: u32,
    spec: &BlockSpec,
    props: &Props,
    content: &Prepared,
) -> XmlElementRef {
    let node = container.insert(txn, index, XmlElementPrelim::empty(spec.name));
    set_props(txn, &node, props);
    match content {
        Prepared::None => {}
        Prepared::Inline(i) => {
            write_inline(txn, &node, 0, i);
        }
        Prepared::Code(s) => {
            if !s.is_empty() {
                let t = node.insert(txn, 0, XmlTextPrelim::new(""));
                t.insert(txn, 0, s);
            }
        }
        Prepared::Table(t) => {
            for (ri, row) in t.rows.iter().enumerate() {
                let r = node.insert(txn, ri as u32, XmlElementPrelim::empty(TABLE_ROW));
                for (ci, cell) in row.cells.iter().enumerate() {
                    let tag = if cell.header {
                        TABLE_HEADER
                    } else {
                        TABLE_CELL
                    };
                    let c = r.insert(txn, ci as u32, XmlElementPrelim::empty(tag));
                    set_props(txn, &c, &cell.props);
                    if let Some(w) = &cell.colwidth {
                        let arr: Vec<Any> = w
                            .iter()
                            .map(|x| prop_to_any(&PropValue::Number(*x)))
                            .collect();
                        c.insert_attribute(txn, "colwidth", Any::Array(arr.into()));
                    }
                    let p = c.insert(txn, 0, XmlElementPrelim::empty(TABLE_PARAGRAPH));
                    write_inline(txn, &p, 0, &cell.content);
                }
            }
        }
    }
    node
}

/// Where a new block's container goes.
enum Place<'a> {
    /// At this index of this blockGroup.
    At(&'a XmlElementRef, u32),
    /// Right after this outermost container ([`place::container_after`]).
    After(&'a XmlElementRef),
}

/// Writes `b` at `place`; gives its container.
fn write_block(
    txn: &mut TransactionMut,
    place: Place,
    b: &PreparedBlock,
    ids: &mut Vec<String>,
) -> ModelResult<XmlElementRef> {
    let id = new_block_id();
    let container = match place {
        Place::At(group, index) => {
            group.insert(txn, index, XmlElementPrelim::empty(BLOCK_CONTAINER))
        }
        Place::After(left) => place::container_after(txn, left)?,
    };
    container.insert_attribute(txn, "id", Any::String(id.as_str().into()));
    ids.push(id);
    write_content_node(txn, &container, 0, b.spec, &b.props, &b.content);
    if !b.children.is_empty() {
        let g = container.insert(txn, 1, XmlElementPrelim::empty(BLOCK_GROUP));
        for (i, c) in b.children.iter().enumerate() {
            write_block(txn, Place::At(&g, i as u32), c, ids)?;
        }
    }
    Ok(container)
}

// ---------------------------------------------------------------------------------------------
// Operations

/// Inserts new blocks at `pos` as Docs' base schema knows them; returns their ids (depth
/// first, children included). Their link targets and media URLs must be allowed
/// ([`urls`](super::urls)).
pub fn insert_blocks(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    pos: &Position,
    blocks: &[NewBlock],
) -> ModelResult<Vec<String>> {
    insert_blocks_in(
        txn,
        frag,
        pos,
        blocks,
        Writing::new_content(EditorSchema::BASE),
    )
}

/// [`insert_blocks`] written as `writing` says: to an instance of its schema; new, or read
/// from the document and put back as they were (an undo: their URLs not checked).
pub fn insert_blocks_in(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    pos: &Position,
    blocks: &[NewBlock],
    writing: Writing,
) -> ModelResult<Vec<String>> {
    insert_blocks_known(txn, frag, pos, None, blocks, writing)
}

/// [`insert_blocks_in`], told `after`: the item of the container of the outermost block that
/// `pos` puts them after ([`Position::End`]: the last one; [`Position::After`]: the one
/// named), as a read of the document at this state has it ([`Document::containers`]). They
/// are then placed by that item, without a walk of the blocks before it (an insert by index
/// walks them: 50 000 at the end of a document of 50 000). An `after` that is not that block
/// is not used. Gives what [`insert_blocks_in`] gives.
///
/// [`Document::containers`]: super::tree::Document::containers
pub fn insert_blocks_known(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    pos: &Position,
    after: Option<&yrs::ID>,
    blocks: &[NewBlock],
    writing: Writing,
) -> ModelResult<Vec<String>> {
    // The schema (and the blocks' own nesting) first, then their nesting at the position.
    let prepared = prepare_blocks(blocks, 1, writing)?;
    let known = match pos {
        Position::End => Some(place::Known::End),
        Position::After { id } => Some(place::Known::After(id.clone())),
        _ => None,
    };
    let left = match (after, known, root_group(txn, frag)) {
        (Some(item), Some(known), Some(root)) => place::known_container(txn, &root, item, &known),
        _ => None,
    };
    if let Some(mut left) = left {
        check_height(NewBlock::tallest(blocks), 1)?;
        let mut ids = Vec::new();
        for b in &prepared {
            left = write_block(txn, Place::After(&left), b, &mut ids)?;
        }
        return Ok(ids);
    }
    let depth = match pos.anchor() {
        None => 1,
        Some(id) => {
            let l = locate(txn, frag, id)?;
            if matches!(
                pos,
                Position::FirstChildOf { .. } | Position::LastChildOf { .. }
            ) {
                if container_parts(txn, &l.container).0.is_none() {
                    return Err(ModelError::OpaqueBlock {
                        id: id.into(),
                        block_type: "(empty)".into(),
                    });
                }
                l.depth + 1
            } else {
                l.depth
            }
        }
    };
    check_height(NewBlock::tallest(blocks), depth)?;
    let target = resolve_target(txn, frag, pos)?;
    if prepared.is_empty() {
        return Ok(vec![]);
    }
    let (group, index) = materialize(txn, frag, target);
    let mut ids = Vec::new();
    for (i, b) in prepared.iter().enumerate() {
        write_block(txn, Place::At(&group, index + i as u32), b, &mut ids)?;
    }
    Ok(ids)
}

/// What happens to the children of a deleted block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ChildrenMode {
    /// Delete them with the block.
    #[default]
    Delete,
    /// Move them up to the block's place.
    Lift,
}

/// Removes `group` from its container when it became empty (never the root group). An empty
/// root group gets one empty paragraph, as editors expect at least one block.
fn tidy_group(txn: &mut TransactionMut, frag: &XmlFragmentRef, group: &XmlElementRef) {
    if group.len(txn) > 0 {
        return;
    }
    match group.parent() {
        Some(XmlOut::Element(container)) => {
            if let Some(i) = child_index(txn, &container, group) {
                container.remove_range(txn, i, 1);
            }
        }
        _ => {
            let paragraph = [NewBlock::new("paragraph")];
            let Ok(p) = prepare_blocks(&paragraph, 1, Writing::new_content(EditorSchema::BASE))
            else {
                return;
            };
            let _ = frag;
            let mut ids = vec![];
            // By index: no item is looked up, nothing can fail.
            let _ = write_block(txn, Place::At(group, 0), &p[0], &mut ids);
        }
    }
}

/// Deletes blocks (each with its children, or lifting the children to its place).
pub fn delete_blocks(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    ids: &[String],
    children: ChildrenMode,
) -> ModelResult<()> {
    for (i, id) in ids.iter().enumerate() {
        check_removable(txn, &locate(txn, frag, id)?.container)?;
        if ids[..i].contains(id) {
            return Err(ModelError::DuplicateId { id: id.clone() });
        }
    }
    for id in ids {
        // An earlier deletion may have removed this block with its parent.
        let Ok(l) = locate(txn, frag, id) else {
            continue;
        };
        let mut lifted = vec![];
        if children == ChildrenMode::Lift
            && let (_, Some(g)) = container_parts(txn, &l.container)
        {
            lifted = g
                .children(txn)
                .filter_map(|c| snapshot(txn, &c))
                .collect::<Vec<_>>();
        }
        for (i, s) in lifted.iter().enumerate() {
            restore(txn, &l.group, l.index + 1 + i as u32, s);
        }
        l.group.remove_range(txn, l.index, 1);
        tidy_group(txn, frag, &l.group);
    }
    Ok(())
}

/// Moves a block (with its children) to `pos`. Its id and content are kept; Yjs has no move, so
/// the block is re-created at the target. Refused when its subtree would end up deeper than
/// [`MAX_NESTING`](super::nesting::MAX_NESTING).
pub fn move_block(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    pos: &Position,
) -> ModelResult<()> {
    let l = locate(txn, frag, id)?;
    if let Some(anchor) = pos.anchor()
        && is_within(&locate(txn, frag, anchor)?.container, &l.container)
    {
        return Err(ModelError::MoveIntoItself { id: id.into() });
    }
    let depth = position_depth(txn, frag, pos)?;
    check_depth(depth + subtree_height(txn, &l.container) - 1)?;
    check_removable(txn, &l.container)?;
    let Some(snap) = snapshot(txn, &XmlOut::Element(l.container.clone())) else {
        return Ok(());
    };
    l.group.remove_range(txn, l.index, 1);
    let target = resolve_target(txn, frag, pos)?;
    let (group, index) = materialize(txn, frag, target);
    restore(txn, &group, index, &snap);
    tidy_group(txn, frag, &l.group);
    Ok(())
}

/// A block whose own content may be rewritten on an instance of `schema`: where it is, its
/// content (read without its children) and its content node, which holds nothing too deep to
/// remove.
pub(crate) fn editable_block<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    id: &str,
    schema: EditorSchema,
) -> ModelResult<(Loc, Block, XmlElementRef)> {
    let l = locate(txn, frag, id)?;
    let (node, group) = container_parts(txn, &l.container);
    let hidden_blocks = hidden_blocks(txn, group.as_ref(), l.depth);
    if hidden_blocks > 0 {
        return Err(ModelError::HiddenNesting {
            id: id.into(),
            hidden_blocks,
            limit: MAX_NESTING,
        });
    }
    let b = read_block_alone(txn, id.to_string(), node.clone());
    if b.is_opaque() {
        return Err(ModelError::OpaqueBlock {
            id: id.into(),
            block_type: b.kind,
        });
    }
    let spec = block_spec(&b.kind).ok_or_else(|| ModelError::OpaqueBlock {
        id: id.into(),
        block_type: b.kind.clone(),
    })?;
    check_writable(spec, schema)?;
    let node = node.ok_or_else(|| ModelError::MalformedDocument {
        problem: format!("block {id} has no content node"),
    })?;
    check_removable(txn, &node)?;
    Ok((l, b, node))
}

/// Changes a block's type and/or props (as Docs' base schema knows them), keeping its id,
/// children and (when both types hold text) its inline content. Props of the old type that the
/// new type also has are kept. A media URL given must be allowed ([`urls`](super::urls)), or
/// the one the block has.
pub fn update_block(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    new_type: Option<&str>,
    props: &Props,
) -> ModelResult<()> {
    let writing = Writing::new_content(EditorSchema::BASE);
    update_block_in(txn, frag, id, new_type, props, writing)
}

/// [`update_block`] written as `writing` says: to an instance of its schema; new, or a type
/// and props read from the document, put back as they were (an undo: a media URL not
/// checked).
pub fn update_block_in(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    new_type: Option<&str>,
    props: &Props,
    writing: Writing,
) -> ModelResult<()> {
    let urls = writing.urls();
    let (l, block, node) = editable_block(txn, frag, id, writing.schema)?;
    let old_spec = block_spec(&block.kind).expect("checked");
    let spec = match new_type {
        Some(t) => writable_spec(t, writing.schema)?,
        None => old_spec,
    };
    check_props(spec.name, spec.props, props)?;
    let kept_url = block.props.get(URL_PROP).and_then(PropValue::as_str);
    urls.keeping(kept_url.map(str::to_owned))
        .check_props(spec.name, props)?;
    if spec.name == old_spec.name {
        set_props(txn, &node, props);
        return Ok(());
    }
    let incompatible = |reason: &str| ModelError::IncompatibleTypeChange {
        id: id.into(),
        from: old_spec.name.into(),
        to: spec.name.into(),
        reason: reason.into(),
    };
    let text = block.plain_text();
    let content = match (old_spec.content, spec.content) {
        (ContentKind::Inline, ContentKind::Inline) => None,
        (ContentKind::Inline | ContentKind::Code, ContentKind::Code) => Some(Prepared::Code(text)),
        (ContentKind::Code, ContentKind::Inline) => Some(Prepared::Inline(parse_plain(&text))),
        (ContentKind::None, ContentKind::None) => Some(Prepared::None),
        (ContentKind::None, ContentKind::Inline) => Some(Prepared::Inline(vec![])),
        (ContentKind::None, ContentKind::Code) => Some(Prepared::Code(String::new())),
        (ContentKind::Inline | ContentKind::Code, ContentKind::None) if text.is_empty() => {
            Some(Prepared::None)
        }
        (ContentKind::Inline | ContentKind::Code, ContentKind::None) => {
            return Err(incompatible("the block's text would be lost"));
        }
        (ContentKind::Table, _) | (_, ContentKind::Table) => {
            return Err(incompatible("tables only convert to and from tables"));
        }
    };
    let mut merged = full_props(spec.props, &Props::new());
    for (k, v) in &block.props {
        if let Some(p) = spec.prop(k)
            && check_prop(spec.name, p, v).is_ok()
        {
            merged.insert(k.clone(), v.clone());
        }
    }
    merged.extend(props.iter().map(|(k, v)| (k.clone(), v.clone())));
    let kept: Vec<Snap> = if content.is_none() {
        node.children(txn)
            .filter_map(|c| snapshot(txn, &c))
            .collect()
    } else {
        vec![]
    };
    let new_node = write_content_node(
        txn,
        &l.container,
        0,
        spec,
        &merged,
        content.as_ref().unwrap_or(&Prepared::None),
    );
    for (i, s) in kept.iter().enumerate() {
        restore(txn, &new_node, i as u32, s);
    }
    l.container.remove_range(txn, 1, 1);
    Ok(())
}

fn parse_plain(text: &str) -> Vec<Inline> {
    let mut out = vec![];
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push(Inline::HardBreak);
        }
        if !line.is_empty() {
            out.push(Inline::Text(super::tree::TextRun::plain(line)));
        }
    }
    out
}

/// Replaces a block's inline content with `markdown` (inline markdown; plain text for
/// codeBlock), applying a minimal diff so unchanged text keeps its identity and marks (the
/// diff's search is limited to [`DIFF_TIME_LIMIT`], after which it settles for a coarser one).
/// The inline math the block holds stays where the markdown has it as read (`$…$`); other
/// math syntax is text (Docs' base schema: [`set_block_content_in`] for another).
pub fn set_block_text(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    markdown: &str,
) -> ModelResult<()> {
    set_block_content(txn, frag, id, &NewContent::Markdown(markdown.to_string()))
}

/// Replaces a block's inline content (markdown or runs) with a minimal diff (searched for at
/// most [`DIFF_TIME_LIMIT`]). Runs may hold the inline math the block holds, no other (Docs'
/// base schema: [`set_block_content_in`] for another); and the link targets it holds, or
/// allowed ones ([`urls`](super::urls)).
pub fn set_block_content(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    content: &NewContent,
) -> ModelResult<()> {
    set_block_content_within(txn, frag, id, content, DIFF_TIME_LIMIT)
}

/// [`set_block_content`] written as `writing` says: to an instance of its schema (where it
/// has math, any inline math); new, or content read from the document, put back as it was
/// (an undo: its link targets not checked).
pub fn set_block_content_in(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    content: &NewContent,
    writing: Writing,
) -> ModelResult<()> {
    set_content(txn, frag, id, content, writing, DIFF_TIME_LIMIT)
}

/// [`set_block_content`] with the diff's search limited to `time_limit`.
pub(crate) fn set_block_content_within(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    content: &NewContent,
    time_limit: Duration,
) -> ModelResult<()> {
    let writing = Writing::new_content(EditorSchema::BASE);
    set_content(txn, frag, id, content, writing, time_limit)
}

/// Sets a block's inline content, written as `writing` says, holding the URLs it allows and
/// those the block holds.
fn set_content(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    content: &NewContent,
    writing: Writing,
    time_limit: Duration,
) -> ModelResult<()> {
    let urls = writing.urls();
    let (_, block, node) = editable_block(txn, frag, id, writing.schema)?;
    let spec = block_spec(&block.kind).expect("checked");
    let wrong = |what: &str| ModelError::WrongBlockKind {
        id: id.into(),
        block_type: block.kind.clone(),
        what: what.into(),
    };
    let old = block.inline().unwrap_or_default();
    let urls = urls.keeping(inline_hrefs(old));
    let math = MathInput::rewriting(old, writing.schema);
    match resolve_inline(spec, Some(content), math, &urls) {
        Ok(Prepared::Inline(new)) => {
            let new = super::mentions::keep_mentions(new, &super::mentions::mentions_of(old));
            super::diff::apply_inline_diff(txn, &node, &new, time_limit);
            Ok(())
        }
        Ok(Prepared::Code(s)) => {
            let new = if s.is_empty() {
                vec![]
            } else {
                vec![Inline::Text(super::tree::TextRun::plain(s))]
            };
            super::diff::apply_inline_diff(txn, &node, &new, time_limit);
            Ok(())
        }
        Ok(_) | Err(ModelError::InvalidContent { .. })
            if matches!(spec.content, ContentKind::None) =>
        {
            Err(wrong("no text content; change its props instead"))
        }
        Ok(_) => Err(wrong("table content; edit it with update of the table")),
        Err(e) => Err(e),
    }
}

/// Plain text of a block (for callers that diff).
pub fn block_plain_text(block: &Block) -> String {
    match &block.content {
        BlockContent::Inline { inline } => inline_plain_text(inline),
        _ => block.plain_text(),
    }
}

/// Creates the root blockGroup when the fragment is empty; returns it.
pub fn ensure_root(txn: &mut TransactionMut, frag: &XmlFragmentRef) -> ModelResult<XmlElementRef> {
    if let Some(g) = root_group(txn, frag) {
        return Ok(g);
    }
    if frag.len(txn) > 0 {
        return Err(ModelError::MalformedDocument {
            problem: "the fragment has content but no root blockGroup".into(),
        });
    }
    Ok(frag.insert(txn, 0, XmlElementPrelim::empty(BLOCK_GROUP)))
}
