//! Reading the `document-store` fragment into the typed tree.
//!
//! The whole document (`read_document`); again after some blocks changed, reading only those
//! (`reread_document`); only some blocks (`read_blocks`, `read_outermost`); the first outermost
//! blocks from one on, until the caller has enough (`read_opening`: a page of a large document read
//! without the rest).

use rustc_hash::FxHashSet;
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
fn read_root<T: ReadTxn>(txn: &T, root: &XmlElementRef) -> Document {
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
fn item_of(node: &XmlElementRef) -> Option<ID> {
    match AsRef::<Branch>::as_ref(node).id() {
        BranchID::Nested(id) => Some(id),
        BranchID::Root(_) => None,
    }
}

/// Reads the whole document again after some of its blocks changed: each outermost block
/// that neither changed nor holds a changed block since `previous` (an earlier read of the
/// same document) is moved from it, the others are read. What a read after a person typed
/// in a block, or an agent added one, costs: a walk of the outermost blocks' items and a read
/// of the changed ones, not a read of the whole document. Gives what [`read_document`] gives,
/// provided `changed(id)` is true for every block changed since `previous`, at any depth
/// (a block whose nested blocks were added or removed included, and a block given another id
/// under its old one). A block with blocks hidden below [`MAX_NESTING`] is always read
/// (`previous` does not hold their ids), and so is a block without an id.
///
/// The unchanged blocks are found by their containers' items ([`Document::containers`]), in
/// the order `previous` has them (a block moved is a changed one), without reading their
/// ids. A container `previous` does not have there that is not a changed block (a block
/// added without being said so), or a `previous` not read from a document, makes it read the
/// whole document.
pub fn reread_document<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    previous: Document,
    changed: impl Fn(&str) -> bool,
) -> Document {
    let Some(root) = root_group(txn, frag) else {
        return Document::default();
    };
    if !previous.knows_containers() {
        return read_root(txn, &root);
    }
    let mut before = previous
        .blocks
        .into_iter()
        .zip(previous.containers)
        .peekable();
    // As many as the group holds now: a list of 50 000 blocks grown by one is not copied.
    let len = root.len(txn) as usize;
    let mut document = Document {
        blocks: Vec::with_capacity(len),
        containers: Vec::with_capacity(len),
    };
    let unchanged = |b: &Block| !b.id.is_empty() && !changed(&b.id);
    for node in child_nodes(txn, &root) {
        let XmlOut::Element(element) = node else {
            continue;
        };
        let Some(item) = item_of(&element) else {
            return read_root(txn, &root);
        };
        // Blocks changed since (rewritten, moved, deleted) may not be in their old place.
        while before
            .next_if(|(b, at)| *at != item && !unchanged(b))
            .is_some()
        {}
        let block = match before.next_if(|(_, at)| *at == item) {
            Some((block, _)) if unchanged(&block) && !holds_change_below(&block, &changed) => block,
            Some(_) => read_block(txn, &element, 1),
            None if element.tag().as_ref() != BLOCK_CONTAINER => continue,
            None if with_container_id(txn, &element, |id| id.is_empty() || changed(id)) => {
                read_block(txn, &element, 1)
            }
            None => return read_root(txn, &root),
        };
        document.blocks.push(block);
        document.containers.push(item);
    }
    document
}

/// The first outermost blocks of a document, or of its part from one outermost block on.
#[derive(Debug, Clone, PartialEq)]
pub struct Opening {
    /// The blocks read, from the first asked for, in order.
    pub document: Document,
    /// Outermost blocks follow the last one read.
    pub more: bool,
}

/// Reads the outermost blocks from the one with id `from` (the first when `None`) on, one at
/// a time, until `enough` is true of the last one read: a page of a large document costs
/// what the page holds, where [`read_document`] reads it whole. Each block is read as
/// [`read_document`] reads it. `None` when `from` is not an outermost block.
pub fn read_opening<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    from: Option<&str>,
    mut enough: impl FnMut(&Block) -> bool,
) -> Option<Opening> {
    let Some(root) = root_group(txn, frag) else {
        return from.is_none().then(|| Opening {
            document: Document::default(),
            more: false,
        });
    };
    let mut containers = group_containers(txn, &root).peekable();
    if let Some(from) = from {
        while !with_container_id(txn, containers.peek()?, |id| id == from) {
            containers.next();
        }
    }
    let mut document = Document::default();
    for container in containers.by_ref() {
        document.containers.extend(item_of(&container));
        document.blocks.push(read_block(txn, &container, 1));
        if enough(document.blocks.last().expect("just read")) {
            break;
        }
    }
    Some(Opening {
        document,
        more: containers.next().is_some(),
    })
}

/// Whether `block`, itself unchanged, hides nested blocks (whose changes the tree cannot
/// show) or holds a block that changed or hides some.
fn holds_change_below(block: &Block, changed: &impl Fn(&str) -> bool) -> bool {
    let hides = |b: &Block| matches!(b.content, BlockContent::Opaque { hidden_blocks, .. } if hidden_blocks > 0);
    // Most blocks have no nested ones: no walk.
    if hides(block) || block.children.is_empty() {
        return hides(block);
    }
    let mut stack: Vec<&Block> = block.children.iter().collect();
    while let Some(b) = stack.pop() {
        if changed(&b.id) || hides(b) {
            return true;
        }
        stack.extend(&b.children);
    }
    false
}

/// Reads only the blocks with these ids (each with its nested blocks), walking the document
/// once without reading the others: what a check of a few blocks needs, at a fraction of
/// [`read_document`]'s cost. Blocks not found (or past [`MAX_NESTING`]) are absent.
pub fn read_blocks<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    ids: &[&str],
) -> std::collections::HashMap<String, Block> {
    let mut found = std::collections::HashMap::new();
    let Some(root) = root_group(txn, frag) else {
        return found;
    };
    let mut groups = vec![(root, 1)];
    while let Some((group, depth)) = groups.pop() {
        if found.len() == ids.len() {
            break;
        }
        for container in group_containers(txn, &group) {
            let id = container_id(txn, &container);
            if ids.contains(&id.as_str()) {
                found.insert(id, read_block(txn, &container, depth));
            }
            if depth < MAX_NESTING
                && let (_, Some(child)) = container_parts(txn, &container)
            {
                groups.push((child, depth + 1));
            }
        }
    }
    found
}

/// The outermost blocks asked for, and the blocks around them: what an edit's preview shows.
#[derive(Debug, PartialEq)]
pub struct Outermost {
    /// The blocks, each with its nested blocks, in document order.
    pub document: Document,
    /// The block just before the first of them in reading order (possibly its parent), and
    /// the one just after the last (and its nested blocks), each read without its children.
    pub before: Option<Block>,
    pub after: Option<Block>,
}

/// How many outermost blocks of a read [`read_outermost`] looks past for the one a container
/// was: blocks an edit deleted or moved between two it kept.
const KNOWN_LOOKAHEAD: usize = 64;

/// Reads the outermost blocks with these ids, each with its nested blocks, in document order:
/// a document of just those blocks, where the ones nested in another of them are found
/// inside it. The others are walked past without being read, but for the two around them.
///
/// `known` is a read of the document before it changed (the one an edit was planned on): an
/// outermost block it has (its container's item) that held none of the ids is walked past
/// without a look inside, or at its id. The blocks the change added must be in blocks it
/// names (added next to or inside one of them, or outermost): those are walked into.
pub fn read_outermost<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    ids: &FxHashSet<&str>,
    known: Option<&Document>,
) -> Outermost {
    let mut blocks = Vec::new();
    let Some(root) = root_group(txn, frag) else {
        return Outermost {
            document: Document::new(blocks),
            before: None,
            after: None,
        };
    };
    let known = known.filter(|k| k.knows_containers());
    let mut known_at = 0;
    let (mut before, mut after) = (None, None);
    // The last container walked past, and whether the one after the last match is wanted.
    let mut previous: Option<Walked> = None;
    let mut after_wanted = false;
    for node in child_nodes(txn, &root) {
        let XmlOut::Element(outermost) = node else {
            continue;
        };
        if let Some(known) = known
            && let Some(item) = item_of(&outermost)
            && let Some(at) = known.containers[known_at..]
                .iter()
                .take(KNOWN_LOOKAHEAD)
                .position(|c| *c == item)
        {
            known_at += at + 1;
            if !holds_any(&known.blocks[known_at - 1], ids) {
                if after_wanted {
                    after = Some((outermost.clone(), 1));
                    after_wanted = false;
                }
                if blocks.is_empty() {
                    previous = Some(Walked::Past(outermost));
                }
                continue;
            }
        } else if outermost.tag().as_ref() != BLOCK_CONTAINER {
            continue;
        }
        // Containers still to visit, last first, with their depth: a preorder walk.
        let mut stack = vec![(outermost, 1)];
        while let Some((container, depth)) = stack.pop() {
            if with_container_id(txn, &container, |id| ids.contains(id)) {
                if blocks.is_empty() {
                    before = previous.take();
                }
                blocks.push(read_block(txn, &container, depth));
                after = None;
                after_wanted = true;
                continue;
            }
            if after_wanted {
                after = Some((container.clone(), depth));
                after_wanted = false;
            }
            if depth < MAX_NESTING
                && let (_, Some(group)) = container_parts(txn, &container)
            {
                let at = stack.len();
                stack.extend(group_containers(txn, &group).map(|c| (c, depth + 1)));
                stack[at..].reverse();
            }
            if blocks.is_empty() {
                previous = Some(Walked::Read(container, depth));
            }
        }
    }
    let lone = |(container, depth): (XmlElementRef, usize)| {
        let mut block = read_block(txn, &container, depth);
        block.children.clear();
        block
    };
    Outermost {
        document: Document::new(blocks),
        before: before.map(|walked| lone(walked.last_container(txn))),
        after: after.map(lone),
    }
}

/// A container [`read_outermost`] walked past: into it, or past an outermost block without
/// a look inside.
enum Walked {
    Read(XmlElementRef, usize),
    Past(XmlElementRef),
}

impl Walked {
    /// The last container of it in reading order, and its depth: for a block walked past,
    /// its last nested block, down to [`MAX_NESTING`], as a walk into it would have ended.
    fn last_container<T: ReadTxn>(self, txn: &T) -> (XmlElementRef, usize) {
        match self {
            Walked::Read(container, depth) => (container, depth),
            Walked::Past(mut container) => {
                let mut depth = 1;
                while depth < MAX_NESTING
                    && let (_, Some(group)) = container_parts(txn, &container)
                    && let Some(last) = group_containers(txn, &group).last()
                {
                    container = last;
                    depth += 1;
                }
                (container, depth)
            }
        }
    }
}

/// Whether `block` or a block nested in it has one of these ids. Asked of every block of a
/// document, for an edit's few ids: compared one by one (a UUID's first bytes tell most
/// apart), which costs less than hashing each block's id.
fn holds_any(block: &Block, ids: &FxHashSet<&str>) -> bool {
    let has = |id: &str| match ids.len() {
        0..=8 => ids.iter().any(|wanted| *wanted == id),
        _ => ids.contains(id),
    };
    if block.children.is_empty() {
        return has(&block.id);
    }
    let mut stack = vec![block];
    while let Some(b) = stack.pop() {
        if has(&b.id) {
            return true;
        }
        stack.extend(&b.children);
    }
    false
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
fn read_block<T: ReadTxn>(txn: &T, el: &XmlElementRef, depth: usize) -> Block {
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
