//! Validation, builders and operations. Every operation validates first and mutates after, so
//! a refused operation changes nothing.

use serde::{Deserialize, Serialize};
use yrs::types::Attrs;
use yrs::types::text::YChange;
use yrs::{
    Any, Out, ReadTxn, Text, TransactionMut, Xml, XmlElementPrelim, XmlElementRef, XmlFragment,
    XmlFragmentRef, XmlOut, XmlTextPrelim,
};

use super::error::{ModelError, ModelResult};
use super::inline::{offset_kind, prop_to_any, text_len, write_inline};
use super::markdown::import::parse_inline;
use super::read::{container_id, container_parts, default_value, read_block, root_group};
use super::schema::{
    ALIGNMENTS, BLOCK_CONTAINER, BLOCK_GROUP, BlockSpec, CELL_PROPS, COLORS, ContentKind,
    INTERLINK_ATTRS, INTERLINKING_LINK_INLINE, PropDefault, PropSpec, PropType, TABLE_CELL,
    TABLE_HEADER, TABLE_PARAGRAPH, TABLE_ROW, block_spec, writable_names,
};
use super::tree::{
    Block, BlockContent, Inline, NewBlock, NewContent, PropValue, Props, TableContent,
    inline_plain_text,
};

// ---------------------------------------------------------------------------------------------
// Validation

/// Content of a validated block, ready to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Prepared {
    None,
    Inline(Vec<Inline>),
    Code(String),
    Table(TableContent),
}

/// A validated block: full props (defaults filled), resolved content, validated children.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PreparedBlock {
    pub spec: &'static BlockSpec,
    pub props: Props,
    pub content: Prepared,
    pub children: Vec<PreparedBlock>,
}

fn writable_spec(kind: &str) -> ModelResult<&'static BlockSpec> {
    let spec = block_spec(kind).ok_or_else(|| ModelError::UnknownBlockType {
        block_type: kind.to_string(),
        allowed: writable_names(),
    })?;
    if !spec.writable {
        return Err(ModelError::NotWritable {
            block_type: kind.to_string(),
            reason: "a transient upload placeholder".to_string(),
        });
    }
    Ok(spec)
}

fn check_prop(block_type: &str, spec: &PropSpec, v: &PropValue) -> ModelResult<()> {
    let wrong = |expected: String| ModelError::WrongPropType {
        block_type: block_type.to_string(),
        prop: spec.name.to_string(),
        expected,
        got: match v {
            PropValue::String(s) => format!("\"{s}\""),
            PropValue::Number(n) => n.to_string(),
            PropValue::Bool(b) => b.to_string(),
            PropValue::Undefined => "null".to_string(),
        },
    };
    match (spec.ty, v) {
        (_, PropValue::Undefined) if spec.default == PropDefault::Undefined => Ok(()),
        (PropType::String, PropValue::String(s)) => match spec.values {
            Some(values) if !values.contains(&s.as_str()) => {
                Err(wrong(format!("one of {}", values.join(", "))))
            }
            _ => Ok(()),
        },
        (PropType::Number, PropValue::Number(n)) => {
            if !n.is_finite() {
                return Err(wrong("a finite number".into()));
            }
            match spec.name {
                "level" if !(1.0..=6.0).contains(n) || n.fract() != 0.0 => {
                    Err(wrong("an integer from 1 to 6".into()))
                }
                "colspan" | "rowspan" | "start" if *n < 0.0 || n.fract() != 0.0 => {
                    Err(wrong("a non-negative integer".into()))
                }
                _ => Ok(()),
            }
        }
        (PropType::Bool, PropValue::Bool(_)) => Ok(()),
        (ty, _) => Err(wrong(if spec.default == PropDefault::Undefined {
            format!("{} or null", ty.describe())
        } else {
            ty.describe().to_string()
        })),
    }
}

fn check_props(block_type: &str, specs: &[PropSpec], props: &Props) -> ModelResult<()> {
    for (k, v) in props {
        let spec = specs
            .iter()
            .find(|p| p.name == k)
            .ok_or_else(|| ModelError::UnknownProp {
                block_type: block_type.to_string(),
                prop: k.clone(),
                allowed: if specs.is_empty() {
                    "(none)".to_string()
                } else {
                    specs.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                },
            })?;
        check_prop(block_type, spec, v)?;
    }
    Ok(())
}

fn full_props(specs: &[PropSpec], given: &Props) -> Props {
    specs
        .iter()
        .map(|p| {
            (
                p.name.to_string(),
                given
                    .get(p.name)
                    .cloned()
                    .unwrap_or_else(|| default_value(p)),
            )
        })
        .collect()
}

/// Checks inline content against the schema (marks, colors, inline elements).
pub(crate) fn check_inline(block_type: &str, inline: &[Inline]) -> ModelResult<()> {
    for i in inline {
        match i {
            Inline::Text(r) => {
                for c in [&r.styles.text_color, &r.styles.background_color]
                    .into_iter()
                    .flatten()
                {
                    if !COLORS.contains(&c.as_str()) {
                        return Err(ModelError::InvalidContent {
                            block_type: block_type.to_string(),
                            problem: format!(
                                "uses the color `{c}`; colors are {}",
                                COLORS.join(", ")
                            ),
                        });
                    }
                }
                if let Some(h) = &r.link
                    && h.trim().is_empty()
                {
                    return Err(ModelError::InvalidContent {
                        block_type: block_type.to_string(),
                        problem: "has a link without href".to_string(),
                    });
                }
            }
            Inline::HardBreak => {}
            Inline::Element { kind, attrs } => {
                if kind != INTERLINKING_LINK_INLINE {
                    return Err(ModelError::UnknownInlineElement { kind: kind.clone() });
                }
                let allowed = INTERLINK_ATTRS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ");
                for (k, v) in attrs {
                    let ok = INTERLINK_ATTRS.iter().any(|(n, t)| {
                        n == k
                            && matches!(
                                (t, v),
                                (PropType::String, PropValue::String(_))
                                    | (PropType::Bool, PropValue::Bool(_))
                            )
                    });
                    if !ok {
                        return Err(ModelError::InvalidInlineAttr {
                            kind: kind.clone(),
                            attr: k.clone(),
                            allowed,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

fn code_text(block_type: &str, inline: &[Inline]) -> ModelResult<String> {
    let mut s = String::new();
    for i in inline {
        match i {
            Inline::Text(r) if r.styles.is_plain() && r.link.is_none() => s.push_str(&r.text),
            Inline::HardBreak => s.push('\n'),
            _ => {
                return Err(ModelError::InvalidContent {
                    block_type: block_type.to_string(),
                    problem: "holds one plain text: no marks, links or inline elements".into(),
                });
            }
        }
    }
    Ok(s)
}

/// Resolves inline input (markdown or runs) for a block type with inline content.
pub(crate) fn resolve_inline(
    spec: &BlockSpec,
    content: Option<&NewContent>,
) -> ModelResult<Prepared> {
    let name = spec.name;
    match (spec.content, content) {
        (ContentKind::Inline, None) => Ok(Prepared::Inline(vec![])),
        (ContentKind::Inline, Some(NewContent::Markdown(md))) => {
            let inline = parse_inline(md);
            check_inline(name, &inline)?;
            Ok(Prepared::Inline(inline))
        }
        (ContentKind::Inline, Some(NewContent::Inline(i))) => {
            check_inline(name, i)?;
            Ok(Prepared::Inline(super::inline::normalize_inline(i.clone())))
        }
        (ContentKind::Code, None) => Ok(Prepared::Code(String::new())),
        (ContentKind::Code, Some(NewContent::Markdown(s))) => Ok(Prepared::Code(s.clone())),
        (ContentKind::Code, Some(NewContent::Inline(i))) => Ok(Prepared::Code(code_text(name, i)?)),
        (ContentKind::None, None) => Ok(Prepared::None),
        (ContentKind::None, Some(NewContent::Markdown(s))) if s.is_empty() => Ok(Prepared::None),
        (ContentKind::None, Some(NewContent::Inline(i))) if i.is_empty() => Ok(Prepared::None),
        (ContentKind::Table, Some(NewContent::Table(t))) => {
            if t.rows.is_empty() || t.rows.iter().any(|r| r.cells.is_empty()) {
                return Err(ModelError::InvalidContent {
                    block_type: name.into(),
                    problem: "needs at least one row, each with at least one cell".into(),
                });
            }
            let mut t = t.clone();
            for c in t.rows.iter_mut().flat_map(|r| r.cells.iter_mut()) {
                check_props(
                    if c.header { TABLE_HEADER } else { TABLE_CELL },
                    CELL_PROPS,
                    &c.props,
                )?;
                check_inline(name, &c.content)?;
                c.props = full_props(CELL_PROPS, &c.props);
                c.content = super::inline::normalize_inline(std::mem::take(&mut c.content));
            }
            Ok(Prepared::Table(t))
        }
        (kind, _) => Err(ModelError::InvalidContent {
            block_type: name.into(),
            problem: match kind {
                ContentKind::Inline => "takes inline content (markdown text or runs)",
                ContentKind::Code => "takes plain text",
                ContentKind::None => "has no content (use props such as url/caption)",
                ContentKind::Table => "takes table content: {\"rows\":[{\"cells\":[...]}]}",
            }
            .into(),
        }),
    }
}

/// Validates a new block (and its children) against the schema without touching any document.
pub fn validate_block(block: &NewBlock) -> ModelResult<()> {
    prepare(block).map(|_| ())
}

pub(crate) fn prepare(block: &NewBlock) -> ModelResult<PreparedBlock> {
    let spec = writable_spec(&block.kind)?;
    check_props(spec.name, spec.props, &block.props)?;
    let content = resolve_inline(spec, block.content.as_ref())?;
    let children = block
        .children
        .iter()
        .map(prepare)
        .collect::<ModelResult<Vec<_>>>()?;
    Ok(PreparedBlock {
        spec,
        props: full_props(spec.props, &block.props),
        content,
        children,
    })
}

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

fn write_block(
    txn: &mut TransactionMut,
    group: &XmlElementRef,
    index: u32,
    b: &PreparedBlock,
    ids: &mut Vec<String>,
) {
    let id = new_block_id();
    let container = group.insert(txn, index, XmlElementPrelim::empty(BLOCK_CONTAINER));
    container.insert_attribute(txn, "id", Any::String(id.as_str().into()));
    ids.push(id);
    write_content_node(txn, &container, 0, b.spec, &b.props, &b.content);
    if !b.children.is_empty() {
        let g = container.insert(txn, 1, XmlElementPrelim::empty(BLOCK_GROUP));
        for (i, c) in b.children.iter().enumerate() {
            write_block(txn, &g, i as u32, c, ids);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Locating blocks

/// Where a blockContainer sits.
#[derive(Debug, Clone)]
pub(crate) struct Loc {
    pub container: XmlElementRef,
    pub group: XmlElementRef,
    pub index: u32,
}

fn find_in_group<T: ReadTxn>(txn: &T, group: &XmlElementRef, id: &str) -> Option<Loc> {
    for (i, c) in group.children(txn).enumerate() {
        let XmlOut::Element(e) = c else { continue };
        if e.tag().as_ref() != BLOCK_CONTAINER {
            continue;
        }
        if container_id(txn, &e) == id {
            return Some(Loc {
                container: e,
                group: group.clone(),
                index: i as u32,
            });
        }
        if let (_, Some(g)) = container_parts(txn, &e)
            && let Some(l) = find_in_group(txn, &g, id)
        {
            return Some(l);
        }
    }
    None
}

pub(crate) fn locate<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef, id: &str) -> ModelResult<Loc> {
    root_group(txn, frag)
        .and_then(|g| find_in_group(txn, &g, id))
        .ok_or_else(|| ModelError::BlockNotFound { id: id.to_string() })
}

fn child_index<T: ReadTxn>(txn: &T, parent: &XmlElementRef, child: &XmlElementRef) -> Option<u32> {
    let target = XmlOut::Element(child.clone()).id();
    parent
        .children(txn)
        .position(|c| c.id() == target)
        .map(|i| i as u32)
}

/// Where to put blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "at", rename_all = "camelCase")]
pub enum Position {
    /// First block of the document.
    Start,
    /// Last block of the document.
    End,
    Before {
        id: String,
    },
    After {
        id: String,
    },
    /// First nested child of a block.
    FirstChildOf {
        id: String,
    },
    /// Last nested child of a block.
    LastChildOf {
        id: String,
    },
}

impl Position {
    fn anchor(&self) -> Option<&str> {
        match self {
            Position::Start | Position::End => None,
            Position::Before { id }
            | Position::After { id }
            | Position::FirstChildOf { id }
            | Position::LastChildOf { id } => Some(id),
        }
    }
}

enum Target {
    Group(XmlElementRef, u32),
    NewRoot,
    NewChildGroup(XmlElementRef),
}

fn resolve_target<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    pos: &Position,
) -> ModelResult<Target> {
    match pos {
        Position::Start | Position::End => match root_group(txn, frag) {
            Some(g) => {
                let i = if *pos == Position::Start {
                    0
                } else {
                    g.len(txn)
                };
                Ok(Target::Group(g, i))
            }
            None if frag.len(txn) == 0 => Ok(Target::NewRoot),
            None => Err(ModelError::MalformedDocument {
                problem: "the fragment has content but no root blockGroup".into(),
            }),
        },
        Position::Before { id } => {
            let l = locate(txn, frag, id)?;
            Ok(Target::Group(l.group, l.index))
        }
        Position::After { id } => {
            let l = locate(txn, frag, id)?;
            Ok(Target::Group(l.group, l.index + 1))
        }
        Position::FirstChildOf { id } | Position::LastChildOf { id } => {
            let l = locate(txn, frag, id)?;
            match container_parts(txn, &l.container) {
                (_, Some(g)) => {
                    let i = if matches!(pos, Position::FirstChildOf { .. }) {
                        0
                    } else {
                        g.len(txn)
                    };
                    Ok(Target::Group(g, i))
                }
                (_, None) => Ok(Target::NewChildGroup(l.container)),
            }
        }
    }
}

fn materialize(txn: &mut TransactionMut, frag: &XmlFragmentRef, t: Target) -> (XmlElementRef, u32) {
    match t {
        Target::Group(g, i) => (g, i),
        Target::NewRoot => (frag.insert(txn, 0, XmlElementPrelim::empty(BLOCK_GROUP)), 0),
        Target::NewChildGroup(c) => {
            let n = c.len(txn);
            (c.insert(txn, n, XmlElementPrelim::empty(BLOCK_GROUP)), 0)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Operations

/// Inserts new blocks at `pos`; returns their ids (depth first, children included).
pub fn insert_blocks(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    pos: &Position,
    blocks: &[NewBlock],
) -> ModelResult<Vec<String>> {
    let prepared = blocks
        .iter()
        .map(prepare)
        .collect::<ModelResult<Vec<_>>>()?;
    if let Some(id) = pos.anchor() {
        let l = locate(txn, frag, id)?;
        if matches!(
            pos,
            Position::FirstChildOf { .. } | Position::LastChildOf { .. }
        ) {
            let b = read_block(txn, &l.container);
            if b.kind.is_empty() {
                return Err(ModelError::OpaqueBlock {
                    id: id.into(),
                    block_type: "(empty)".into(),
                });
            }
        }
    }
    let target = resolve_target(txn, frag, pos)?;
    if prepared.is_empty() {
        return Ok(vec![]);
    }
    let (group, index) = materialize(txn, frag, target);
    let mut ids = Vec::new();
    for (i, b) in prepared.iter().enumerate() {
        write_block(txn, &group, index + i as u32, b, &mut ids);
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

/// A deep copy of a Y.Xml subtree (element names, typed attributes, formatted text), used to
/// move blocks: Yjs has no move, so a moved subtree is re-created (ids and attributes kept).
#[derive(Debug, Clone)]
enum Snap {
    Element {
        tag: String,
        attrs: Vec<(String, Any)>,
        children: Vec<Snap>,
    },
    Text(Vec<(String, Option<Attrs>)>),
}

fn snapshot<T: ReadTxn>(txn: &T, node: &XmlOut) -> Option<Snap> {
    match node {
        XmlOut::Element(e) => Some(Snap::Element {
            tag: e.tag().to_string(),
            attrs: e
                .attributes(txn)
                .filter_map(|(k, v)| match v {
                    Out::Any(a) => Some((k.to_string(), a)),
                    _ => None,
                })
                .collect(),
            children: e.children(txn).filter_map(|c| snapshot(txn, &c)).collect(),
        }),
        XmlOut::Text(t) => Some(Snap::Text(
            t.diff(txn, YChange::identity)
                .into_iter()
                .filter_map(|d| match d.insert {
                    Out::Any(Any::String(s)) => Some((s.to_string(), d.attributes.map(|a| *a))),
                    _ => None,
                })
                .collect(),
        )),
        XmlOut::Fragment(_) => None,
    }
}

fn restore(txn: &mut TransactionMut, parent: &XmlElementRef, index: u32, snap: &Snap) {
    match snap {
        Snap::Element {
            tag,
            attrs,
            children,
        } => {
            let el = parent.insert(txn, index, XmlElementPrelim::empty(tag.as_str()));
            for (k, v) in attrs {
                el.insert_attribute(txn, k.as_str(), v.clone());
            }
            for (i, c) in children.iter().enumerate() {
                restore(txn, &el, i as u32, c);
            }
        }
        Snap::Text(chunks) => {
            let kind = offset_kind(txn);
            let t = parent.insert(txn, index, XmlTextPrelim::new(""));
            let mut off = 0;
            for (s, a) in chunks {
                t.insert_with_attributes(txn, off, s, a.clone().unwrap_or_default());
                off += text_len(kind, s);
            }
        }
    }
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
            let Ok(p) = prepare(&NewBlock::new("paragraph")) else {
                return;
            };
            let _ = frag;
            let mut ids = vec![];
            write_block(txn, group, 0, &p, &mut ids);
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
        locate(txn, frag, id)?;
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

fn subtree_ids<T: ReadTxn>(txn: &T, container: &XmlElementRef) -> Vec<String> {
    read_block(txn, container)
        .walk()
        .into_iter()
        .map(|b| b.id.clone())
        .collect()
}

/// Moves a block (with its children) to `pos`. Its id and content are kept; Yjs has no move, so
/// the block is re-created at the target.
pub fn move_block(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    pos: &Position,
) -> ModelResult<()> {
    let l = locate(txn, frag, id)?;
    if let Some(anchor) = pos.anchor() {
        locate(txn, frag, anchor)?;
        if subtree_ids(txn, &l.container).iter().any(|x| x == anchor) {
            return Err(ModelError::MoveIntoItself { id: id.into() });
        }
    }
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

fn editable_block<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    id: &str,
) -> ModelResult<(Loc, Block, XmlElementRef)> {
    let l = locate(txn, frag, id)?;
    let b = read_block(txn, &l.container);
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
    if !spec.writable {
        return Err(ModelError::NotWritable {
            block_type: b.kind.clone(),
            reason: "a transient upload placeholder".into(),
        });
    }
    let (node, _) = container_parts(txn, &l.container);
    let node = node.ok_or_else(|| ModelError::MalformedDocument {
        problem: format!("block {id} has no content node"),
    })?;
    Ok((l, b, node))
}

/// Changes a block's type and/or props, keeping its id, children and (when both types hold
/// text) its inline content. Props of the old type that the new type also has are kept.
pub fn update_block(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    new_type: Option<&str>,
    props: &Props,
) -> ModelResult<()> {
    let (l, block, node) = editable_block(txn, frag, id)?;
    let old_spec = block_spec(&block.kind).expect("checked");
    let spec = match new_type {
        Some(t) => writable_spec(t)?,
        None => old_spec,
    };
    check_props(spec.name, spec.props, props)?;
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
/// codeBlock), applying a minimal diff so unchanged text keeps its identity and marks.
pub fn set_block_text(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    markdown: &str,
) -> ModelResult<()> {
    set_block_content(txn, frag, id, &NewContent::Markdown(markdown.to_string()))
}

/// Replaces a block's inline content (markdown or runs) with a minimal diff.
pub fn set_block_content(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    id: &str,
    content: &NewContent,
) -> ModelResult<()> {
    let (_, block, node) = editable_block(txn, frag, id)?;
    let spec = block_spec(&block.kind).expect("checked");
    let wrong = |what: &str| ModelError::WrongBlockKind {
        id: id.into(),
        block_type: block.kind.clone(),
        what: what.into(),
    };
    match resolve_inline(spec, Some(content)) {
        Ok(Prepared::Inline(new)) => {
            super::diff::apply_inline_diff(txn, &node, &new);
            Ok(())
        }
        Ok(Prepared::Code(s)) => {
            let new = if s.is_empty() {
                vec![]
            } else {
                vec![Inline::Text(super::tree::TextRun::plain(s))]
            };
            super::diff::apply_inline_diff(txn, &node, &new);
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

/// Checks a color value against BlockNote's palette.
pub fn is_color(s: &str) -> bool {
    COLORS.contains(&s)
}

/// Checks a text alignment value.
pub fn is_alignment(s: &str) -> bool {
    ALIGNMENTS.contains(&s)
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
