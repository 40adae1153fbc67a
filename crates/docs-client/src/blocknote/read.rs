//! Reading the `document-store` fragment into the typed tree: the whole document
//! (`read_document`), and how each block reads. The reads of part of it are in
//! [`super::partial`].

use yrs::branch::Branch;
use yrs::{
    Any, BranchID, ID, Out, ReadTxn, Xml, XmlElementRef, XmlFragment, XmlFragmentRef, XmlOut,
};

use super::inline::{any_to_prop, deep_text, read_attrs, read_inline};
use super::nesting::MAX_NESTING;
use super::nodes::child_nodes;
use super::schema::{
    BLOCK_CONTAINER, BLOCK_GROUP, BlockSpec, CELL_PROPS, ContentKind, PropDefault, PropSpec,
    PropType, TABLE_HEADER, TABLE_PARAGRAPH, block_spec,
};
use super::tree::{
    Block, BlockContent, Document, Inline, PropValue, Props, TableCell, TableContent, TableRow,
    TextRun,
};

/// The root blockGroup: the first blockGroup child of the fragment (a second one is ignored).
pub fn root_group<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef) -> Option<XmlElementRef> {
    frag.children(txn).find_map(|c| match c {
        XmlOut::Element(e) if e.tag().as_ref() == BLOCK_GROUP => Some(e),
        _ => None,
    })
}

/// Reads the whole document. Blocks are read down to [`MAX_NESTING`]; a block at that depth
/// with children is read as opaque (see [`BlockContent::Opaque`]), so the tree read is never
/// deeper than the limit, however deep the document is.
pub fn read_document<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef) -> Document {
    match root_group(txn, frag) {
        Some(root) => read_root(txn, &root),
        None => Document::default(),
    }
}

/// The blocks of the root group, with their containers' items.
pub(crate) fn read_root<T: ReadTxn>(txn: &T, root: &XmlElementRef) -> Document {
    let mut document = Document::default();
    for container in group_containers(txn, root) {
        document.containers.extend(item_of(&container));
        document.blocks.push(read_block(txn, &container, 1));
    }
    document
}

/// The Yjs item a node is: compared with the one an earlier read had, it tells a block walked
/// past from any other without reading its id (a few cache misses per block, on the walks of
/// every block of a large document). An item is never reused: a block moved, or written
/// anew, is another item.
pub(crate) fn item_of(node: &XmlElementRef) -> Option<ID> {
    match AsRef::<Branch>::as_ref(node).id() {
        BranchID::Nested(id) => Some(id),
        BranchID::Root(_) => None,
    }
}

/// The outermost blockContainer whose item is `item`, when it still is one: not deleted, and
/// a child of `root`.
pub(crate) fn outermost_at<T: ReadTxn>(
    txn: &T,
    root: &XmlElementRef,
    item: &ID,
) -> Option<XmlElementRef> {
    let branch = BranchID::get_nested(txn, item)?;
    if branch.is_deleted() {
        return None;
    }
    let container = XmlElementRef::from(branch);
    if container.tag().as_ref() != BLOCK_CONTAINER {
        return None;
    }
    match container.parent()? {
        XmlOut::Element(parent) if item_of(&parent) == item_of(root) => Some(container),
        _ => None,
    }
}

/// Reads the blocks of a blockGroup whose blocks are at `depth` (1 for the root group). The
/// recursion through [`read_block`] is bounded by [`MAX_NESTING`].
fn read_group<T: ReadTxn>(txn: &T, group: &XmlElementRef, depth: usize) -> Vec<Block> {
    group_containers(txn, group)
        .map(|e| read_block(txn, &e, depth))
        .collect()
}

/// The blockContainers of a blockGroup.
pub(crate) fn group_containers<'a, T: ReadTxn>(
    txn: &'a T,
    group: &XmlElementRef,
) -> impl Iterator<Item = XmlElementRef> + 'a {
    child_nodes(txn, group).filter_map(|c| match c {
        XmlOut::Element(e) if e.tag().as_ref() == BLOCK_CONTAINER => Some(e),
        _ => None,
    })
}

/// The string id of a blockContainer.
pub(crate) fn container_id<T: ReadTxn>(txn: &T, el: &XmlElementRef) -> String {
    with_container_id(txn, el, str::to_owned)
}

/// `f` of a blockContainer's string id, without copying it: walks of every block look at
/// each one's id.
pub(crate) fn with_container_id<T: ReadTxn, R>(
    txn: &T,
    el: &XmlElementRef,
    f: impl FnOnce(&str) -> R,
) -> R {
    match el.get_attribute(txn, "id") {
        Some(Out::Any(Any::String(s))) => f(&s),
        Some(Out::Any(a)) => f(&a.to_string()),
        _ => f(""),
    }
}

/// Content node and child blockGroup of a blockContainer.
pub(crate) fn container_parts<T: ReadTxn>(
    txn: &T,
    el: &XmlElementRef,
) -> (Option<XmlElementRef>, Option<XmlElementRef>) {
    let mut content = None;
    let mut group = None;
    for c in child_nodes(txn, el) {
        if let XmlOut::Element(e) = c {
            if e.tag().as_ref() == BLOCK_GROUP {
                if group.is_none() {
                    group = Some(e);
                }
            } else if content.is_none() && group.is_none() {
                content = Some(e);
            }
        }
    }
    (content, group)
}

/// Blocks under a blockGroup, at any depth (iterative).
pub(crate) fn count_blocks<T: ReadTxn>(txn: &T, group: &XmlElementRef) -> usize {
    let mut count = 0;
    let mut groups = vec![group.clone()];
    while let Some(g) = groups.pop() {
        for container in group_containers(txn, &g) {
            count += 1;
            groups.extend(container_parts(txn, &container).1);
        }
    }
    count
}

/// Blocks under the child group of a block at `depth` that reading leaves out: all of them at
/// [`MAX_NESTING`], none above.
pub(crate) fn hidden_blocks<T: ReadTxn>(
    txn: &T,
    group: Option<&XmlElementRef>,
    depth: usize,
) -> usize {
    match group {
        Some(g) if depth >= MAX_NESTING => count_blocks(txn, g),
        _ => 0,
    }
}

/// Reads one blockContainer at `depth` (1 for a top-level block) with its children. At
/// [`MAX_NESTING`], a block with children is read as opaque: its content node's text, no
/// children, and the number of blocks left unread.
pub(crate) fn read_block<T: ReadTxn>(txn: &T, el: &XmlElementRef, depth: usize) -> Block {
    let id = container_id(txn, el);
    let (content, group) = container_parts(txn, el);
    let hidden_blocks = hidden_blocks(txn, group.as_ref(), depth);
    if hidden_blocks > 0 {
        return Block {
            id,
            kind: content
                .as_ref()
                .map(|n| n.tag().to_string())
                .unwrap_or_default(),
            props: content
                .as_ref()
                .map(|n| read_attrs(txn, n))
                .unwrap_or_default(),
            content: BlockContent::Opaque {
                text: content
                    .as_ref()
                    .map(|n| deep_text(txn, n))
                    .unwrap_or_default(),
                hidden_blocks,
            },
            children: vec![],
        };
    }
    let mut block = read_block_alone(txn, id, content);
    block.children = group
        .map(|g| read_group(txn, &g, depth + 1))
        .unwrap_or_default();
    block
}

/// Reads a block's own content from its content node (if any), without its children.
pub(crate) fn read_block_alone<T: ReadTxn>(
    txn: &T,
    id: String,
    content: Option<XmlElementRef>,
) -> Block {
    let Some(node) = content else {
        return Block {
            id,
            kind: String::new(),
            props: Props::new(),
            content: BlockContent::Opaque {
                text: String::new(),
                hidden_blocks: 0,
            },
            children: vec![],
        };
    };
    let tag = node.tag().to_string();
    let (props, content) = match block_spec(&tag) {
        Some(spec) if spec.read_typed() => (
            typed_props(txn, &node, spec.props),
            read_content(txn, &node, spec),
        ),
        Some(_) => (read_attrs(txn, &node), BlockContent::None),
        None => (
            read_attrs(txn, &node),
            BlockContent::Opaque {
                text: deep_text(txn, &node),
                hidden_blocks: 0,
            },
        ),
    };
    Block {
        id,
        kind: tag,
        props,
        content,
        children: vec![],
    }
}

/// The default value of a prop.
pub(crate) fn default_value(p: &PropSpec) -> PropValue {
    match p.default {
        PropDefault::Str(s) => PropValue::String(s.to_string()),
        PropDefault::Num(n) => PropValue::Number(n),
        PropDefault::Bool(b) => PropValue::Bool(b),
        PropDefault::Undefined => PropValue::Undefined,
    }
}

/// Coerces a stored value to the prop's type (old documents may hold strings).
fn coerce(p: &PropSpec, v: PropValue) -> PropValue {
    match (p.ty, v) {
        (_, PropValue::Undefined) => PropValue::Undefined,
        (PropType::Number, PropValue::String(s)) => s
            .trim()
            .parse::<f64>()
            .map(PropValue::Number)
            .unwrap_or_else(|_| default_value(p)),
        (PropType::Bool, PropValue::String(s)) => PropValue::Bool(s == "true"),
        (PropType::String, PropValue::Number(n)) => PropValue::String(n.to_string()),
        (PropType::String, PropValue::Bool(b)) => PropValue::String(b.to_string()),
        (_, v) => v,
    }
}

/// Reads the props of a spec: stored value (coerced to its type) or default.
pub(crate) fn typed_props<T: ReadTxn>(txn: &T, node: &XmlElementRef, specs: &[PropSpec]) -> Props {
    let mut props = Props::new();
    for p in specs {
        let v = node
            .get_attribute(txn, p.name)
            .and_then(|o| match o {
                Out::Any(a) => any_to_prop(&a),
                _ => None,
            })
            .map(|v| coerce(p, v))
            .unwrap_or_else(|| default_value(p));
        props.insert(p.name.to_string(), v);
    }
    props
}

fn read_content<T: ReadTxn>(txn: &T, node: &XmlElementRef, spec: &BlockSpec) -> BlockContent {
    match spec.content {
        ContentKind::None => BlockContent::None,
        ContentKind::Inline => BlockContent::Inline {
            inline: read_inline(txn, node),
        },
        ContentKind::Code => {
            let text = deep_text(txn, node);
            BlockContent::Inline {
                inline: if text.is_empty() {
                    vec![]
                } else {
                    vec![Inline::Text(TextRun::plain(text))]
                },
            }
        }
        ContentKind::Table => BlockContent::Table {
            table: read_table(txn, node),
        },
    }
}

fn read_table<T: ReadTxn>(txn: &T, node: &XmlElementRef) -> TableContent {
    let mut rows = Vec::new();
    for r in node.children(txn) {
        let XmlOut::Element(r) = r else { continue };
        let mut cells = Vec::new();
        for c in r.children(txn) {
            let XmlOut::Element(c) = c else { continue };
            let colwidth = match c.get_attribute(txn, "colwidth") {
                Some(Out::Any(Any::Array(a))) => Some(
                    a.iter()
                        .filter_map(|x| any_to_prop(x).and_then(|p| p.as_f64()))
                        .collect(),
                ),
                _ => None,
            };
            let content = c
                .children(txn)
                .find_map(|p| match p {
                    XmlOut::Element(p) if p.tag().as_ref() == TABLE_PARAGRAPH => Some(p),
                    _ => None,
                })
                .map(|p| read_inline(txn, &p))
                .unwrap_or_default();
            cells.push(TableCell {
                header: c.tag().as_ref() == TABLE_HEADER,
                props: typed_props(txn, &c, CELL_PROPS),
                colwidth,
                content,
            });
        }
        rows.push(TableRow { cells });
    }
    TableContent { rows }
}
