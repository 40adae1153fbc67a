//! Locating blocks and the positions new or moved blocks go to.

use serde::{Deserialize, Serialize};
use yrs::{
    ReadTxn, TransactionMut, Xml, XmlElementPrelim, XmlElementRef, XmlFragment, XmlFragmentRef,
    XmlOut,
};

use super::error::{ModelError, ModelResult};
use super::nesting::MAX_NESTING;
use super::read::{container_parts, group_containers, root_group, with_container_id};
use super::schema::{BLOCK_CONTAINER, BLOCK_GROUP};

/// Where a blockContainer sits.
#[derive(Debug, Clone)]
pub(crate) struct Loc {
    pub container: XmlElementRef,
    pub group: XmlElementRef,
    pub index: u32,
    /// 1 for a top-level block.
    pub depth: usize,
}

/// Finds a block by id in document order, iteratively and only down to [`MAX_NESTING`]:
/// blocks deeper than that are not read, so they cannot be addressed either.
fn find_in_group<T: ReadTxn>(txn: &T, root: &XmlElementRef, id: &str) -> Option<Loc> {
    let mut stack = vec![(root.clone(), root.children(txn).enumerate(), 1)];
    while let Some((group, children, depth)) = stack.last_mut() {
        let Some((i, c)) = children.next() else {
            stack.pop();
            continue;
        };
        let XmlOut::Element(e) = c else { continue };
        if e.tag().as_ref() != BLOCK_CONTAINER {
            continue;
        }
        if with_container_id(txn, &e, |found| found == id) {
            return Some(Loc {
                container: e,
                group: group.clone(),
                index: i as u32,
                depth: *depth,
            });
        }
        let depth = *depth;
        if depth < MAX_NESTING
            && let (_, Some(g)) = container_parts(txn, &e)
        {
            let children = g.children(txn).enumerate();
            stack.push((g, children, depth + 1));
        }
    }
    None
}

pub(crate) fn locate<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef, id: &str) -> ModelResult<Loc> {
    root_group(txn, frag)
        .and_then(|g| find_in_group(txn, &g, id))
        .ok_or_else(|| ModelError::BlockNotFound { id: id.to_string() })
}

/// Levels of blocks in the subtree of a blockContainer (1 without children), iteratively.
pub(crate) fn subtree_height<T: ReadTxn>(txn: &T, container: &XmlElementRef) -> usize {
    let mut height = 0;
    let mut stack = vec![(container.clone(), 1)];
    while let Some((c, depth)) = stack.pop() {
        height = height.max(depth);
        if let (_, Some(g)) = container_parts(txn, &c) {
            stack.extend(group_containers(txn, &g).map(|child| (child, depth + 1)));
        }
    }
    height
}

/// Is `node` `ancestor` itself or inside it? Walks up from `node` (iterative).
pub(crate) fn is_within(node: &XmlElementRef, ancestor: &XmlElementRef) -> bool {
    let target = XmlOut::Element(ancestor.clone()).id();
    let mut at = Some(XmlOut::Element(node.clone()));
    while let Some(n) = at {
        if n.id() == target {
            return true;
        }
        at = match n {
            XmlOut::Element(e) => e.parent(),
            _ => None,
        };
    }
    false
}

pub(crate) fn child_index<T: ReadTxn>(
    txn: &T,
    parent: &XmlElementRef,
    child: &XmlElementRef,
) -> Option<u32> {
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
    pub(crate) fn anchor(&self) -> Option<&str> {
        match self {
            Position::Start | Position::End => None,
            Position::Before { id }
            | Position::After { id }
            | Position::FirstChildOf { id }
            | Position::LastChildOf { id } => Some(id),
        }
    }
}

/// The depth a block put at `pos` gets (1 at the top level).
pub(crate) fn position_depth<T: ReadTxn>(
    txn: &T,
    frag: &XmlFragmentRef,
    pos: &Position,
) -> ModelResult<usize> {
    Ok(match pos {
        Position::Start | Position::End => 1,
        Position::Before { id } | Position::After { id } => locate(txn, frag, id)?.depth,
        Position::FirstChildOf { id } | Position::LastChildOf { id } => {
            locate(txn, frag, id)?.depth + 1
        }
    })
}

pub(crate) enum Target {
    Group(XmlElementRef, u32),
    NewRoot,
    NewChildGroup(XmlElementRef),
}

pub(crate) fn resolve_target<T: ReadTxn>(
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

pub(crate) fn materialize(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    t: Target,
) -> (XmlElementRef, u32) {
    match t {
        Target::Group(g, i) => (g, i),
        Target::NewRoot => (frag.insert(txn, 0, XmlElementPrelim::empty(BLOCK_GROUP)), 0),
        Target::NewChildGroup(c) => {
            let n = c.len(txn);
            (c.insert(txn, n, XmlElementPrelim::empty(BLOCK_GROUP)), 0)
        }
    }
}
