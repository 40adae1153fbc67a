//! Reads of part of a document: again after some blocks changed, moving the others from an
//! earlier read (`reread_document`); a first page (`read_opening`); some blocks (`read_blocks`);
//! the outermost blocks holding some, with the blocks around them (`read_outermost`); again
//! after changes inside some outermost blocks, or blocks added, without a walk
//! (`reread_containers`).

use rustc_hash::FxHashSet;
use yrs::{ID, ReadTxn, Xml, XmlElementRef, XmlFragment, XmlFragmentRef, XmlOut};

use super::nesting::MAX_NESTING;
use super::nodes::{child_nodes, nodes_from};
use super::read::{
    container_id, container_parts, group_containers, item_of, outermost_at, read_block, read_root,
    root_group, with_container_id,
};
use super::schema::BLOCK_CONTAINER;
use super::tree::{Block, BlockContent, Document};

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

/// Reads the whole document again when the only changes since `previous` (an earlier read of
/// it) are inside the outermost blocks whose containers are `changed`, or are such blocks
/// added: each of those is read, the new ones put in after the block before them, and every
/// other block is kept from `previous`, without a walk of the document. What a read after an
/// agent added a block at the end of 50 000, or a person typed in one, costs: a lookup and a
/// read per changed block. Gives what [`read_document`] gives, provided nothing else changed:
/// no outermost block deleted or moved (the caller knows it from the document's changes).
/// `Err` gives `previous` back, with the changed blocks it held read again, when the document
/// does not show that: a changed container deleted, not an outermost block, or the document
/// holding other children than its blocks; the caller reads it with [`reread_document`].
pub fn reread_containers<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    previous: Document,
    changed: &[ID],
) -> Result<Document, Document> {
    let mut document = previous;
    let Some(root) = root_group(txn, frag) else {
        return Err(document);
    };
    if !document.knows_containers() {
        return Err(document);
    }
    let mut added: Vec<(XmlElementRef, ID)> = Vec::new();
    for item in changed {
        let Some(container) = outermost_at(txn, &root, item) else {
            return Err(document);
        };
        // From the end: an agent's blocks are mostly added there.
        match document.containers.iter().rposition(|c| c == item) {
            Some(at) => document.blocks[at] = read_block(txn, &container, 1),
            None if added.iter().any(|(_, a)| a == item) => {}
            None => added.push((container, *item)),
        }
    }
    // Each block added goes after the nearest block before it that `previous` holds (`None`:
    // first), behind the added ones in between.
    let mut placed: Vec<(Option<usize>, usize, ID, XmlElementRef)> =
        Vec::with_capacity(added.len());
    for (container, item) in added {
        let mut between = 0;
        let mut anchor = None;
        for node in container.siblings(txn).rev() {
            let XmlOut::Element(before) = node else {
                return Err(document);
            };
            let Some(before) = item_of(&before) else {
                return Err(document);
            };
            if let Some(at) = document.containers.iter().rposition(|c| *c == before) {
                anchor = Some(at);
                break;
            }
            if !changed.contains(&before) {
                return Err(document);
            }
            between += 1;
        }
        placed.push((anchor, between, item, container));
    }
    // From the last place back, so that the places before stay where they are.
    placed.sort_by_key(|p| std::cmp::Reverse((p.0, p.1)));
    for (anchor, _, item, container) in placed {
        let at = anchor.map_or(0, |a| a + 1);
        document.blocks.insert(at, read_block(txn, &container, 1));
        document.containers.insert(at, item);
    }
    if document.blocks.len() != root.len(txn) as usize {
        return Err(document);
    }
    Ok(document)
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
    hides(block)
        || block
            .children
            .iter()
            .any(|child| child.any(|b| changed(&b.id) || hides(b)))
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
///
/// With `known`, the walk starts at its outermost block `from` when that block is still an
/// outermost one (else at the first): the caller knows that none of the ids is in or next to
/// the blocks before it. An edit naming no block reads the blocks it added at the end of a
/// large document without a walk of all the others; not found there, they are at its start.
pub fn read_outermost<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    ids: &FxHashSet<&str>,
    known: Option<&Document>,
    from: usize,
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
    let start = known
        .filter(|_| from > 0)
        .and_then(|k| k.containers.get(from))
        .and_then(|item| outermost_at(txn, &root, item));
    let (first, mut known_at) = match start {
        Some(container) => (Some(XmlOut::Element(container)), from),
        None => (root.first_child(), 0),
    };
    let (mut before, mut after) = (None, None);
    // The last container walked past, and whether the one after the last match is wanted.
    let mut previous: Option<Walked> = None;
    let mut after_wanted = false;
    for node in nodes_from(txn, first) {
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
    block.any(|b| match ids.len() {
        0..=8 => ids.iter().any(|wanted| *wanted == b.id),
        _ => ids.contains(b.id.as_str()),
    })
}
