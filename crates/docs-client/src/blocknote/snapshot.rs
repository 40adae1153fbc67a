//! Deep copies of Y.Xml subtrees, to move blocks: Yjs has no move, so a moved subtree is
//! re-created (ids and attributes kept).
//!
//! A copy is flat (its nodes in document order), so copying, re-creating and dropping it never
//! recurses. `groups` re-creates a block given two child groups from such copies too.

use yrs::types::Attrs;
use yrs::types::text::YChange;
use yrs::{
    Any, Out, ReadTxn, Text, TransactionMut, Xml, XmlElementPrelim, XmlElementRef, XmlFragment,
    XmlOut, XmlTextPrelim,
};

use super::inline::{offset_kind, text_len};

/// A deep copy of a Y.Xml subtree: element names, typed attributes, formatted text. Its nodes
/// are kept flat, in document order, so that copying, re-creating and dropping it never
/// recurses however deep the subtree is.
#[derive(Debug, Clone)]
pub(crate) struct Snap(Vec<SnapNode>);

#[derive(Debug, Clone)]
struct SnapNode {
    /// Index of the parent element in the copy; `None` for the copied node itself.
    parent: Option<usize>,
    kind: SnapKind,
}

#[derive(Debug, Clone)]
enum SnapKind {
    Element {
        tag: String,
        attrs: Vec<(String, Any)>,
    },
    Text(Vec<(String, Option<Attrs>)>),
}

/// Copies `node` and everything under it (`None` for a fragment).
pub(crate) fn snapshot<T: ReadTxn>(txn: &T, node: &XmlOut) -> Option<Snap> {
    let mut nodes = vec![];
    let mut stack = vec![(node.clone(), None)];
    while let Some((n, parent)) = stack.pop() {
        let kind = match &n {
            XmlOut::Element(e) => SnapKind::Element {
                tag: e.tag().to_string(),
                attrs: e
                    .attributes(txn)
                    .filter_map(|(k, v)| match v {
                        Out::Any(a) => Some((k.to_string(), a)),
                        _ => None,
                    })
                    .collect(),
            },
            XmlOut::Text(t) => SnapKind::Text(
                t.diff(txn, YChange::identity)
                    .into_iter()
                    .filter_map(|d| match d.insert {
                        Out::Any(Any::String(s)) => Some((s.to_string(), d.attributes.map(|a| *a))),
                        _ => None,
                    })
                    .collect(),
            ),
            XmlOut::Fragment(_) => continue,
        };
        if let XmlOut::Element(e) = &n {
            let me = Some(nodes.len());
            let children: Vec<XmlOut> = e.children(txn).collect();
            stack.extend(children.into_iter().rev().map(|c| (c, me)));
        }
        nodes.push(SnapNode { parent, kind });
    }
    (!nodes.is_empty()).then_some(Snap(nodes))
}

impl Snap {
    /// The copy with the copied element's child `tag` elements after the first merged into
    /// it: their children, in order, follow its own. A blockContainer holds one blockGroup
    /// at most; one given two by concurrent writers is re-created with one.
    pub(crate) fn merge_children_named(self, tag: &str) -> Snap {
        let named = |node: &SnapNode| {
            node.parent == Some(0)
                && matches!(&node.kind, SnapKind::Element { tag: t, .. } if t == tag)
        };
        let first = self.0.iter().position(named);
        // Where each node is in the merged copy (`None`: merged away). Parents come before
        // their children, so a parent's place is known when its children are met.
        let mut moved: Vec<Option<usize>> = Vec::with_capacity(self.0.len());
        let mut merged = Vec::with_capacity(self.0.len());
        for (i, node) in self.0.into_iter().enumerate() {
            if named(&node) && Some(i) != first {
                moved.push(None);
                continue;
            }
            // A child of a group merged away goes into the first (met before any other).
            let parent = node.parent.and_then(|p| moved[p].or_else(|| moved[first?]));
            moved.push(Some(merged.len()));
            merged.push(SnapNode {
                parent,
                kind: node.kind,
            });
        }
        Snap(merged)
    }
}

impl Snap {
    /// The copied element's child elements not named `keep_all` after the first such (a
    /// blockContainer's content nodes after its first), taken out of the copy with what they
    /// hold; each returned as the only child of a new element `wrapper` with `attrs` (a new
    /// block), unless its text is the first one's.
    pub(crate) fn split_extra_children(
        self,
        keep_all: &str,
        wrapper: &str,
        attrs: impl Fn() -> Vec<(String, Any)>,
    ) -> (Snap, Vec<Snap>) {
        let is_extra_root = |node: &SnapNode| {
            node.parent == Some(0)
                && matches!(&node.kind, SnapKind::Element { tag, .. } if tag != keep_all)
        };
        let roots: Vec<usize> = (0..self.0.len())
            .filter(|&i| is_extra_root(&self.0[i]))
            .collect();
        let Some((&first, extra)) = roots.split_first() else {
            return (self, vec![]);
        };
        // Which extra root each node belongs to (parents come before their children).
        let mut under: Vec<Option<usize>> = Vec::with_capacity(self.0.len());
        for (i, node) in self.0.iter().enumerate() {
            let owner = if extra.contains(&i) {
                Some(i)
            } else {
                node.parent.and_then(|p| under[p])
            };
            under.push(owner);
        }
        let text_of = |root: usize| -> String {
            let mut text = String::new();
            let mut inside = vec![false; self.0.len()];
            for (i, node) in self.0.iter().enumerate() {
                inside[i] = i == root || node.parent.is_some_and(|p| inside[p]);
                if let (true, SnapKind::Text(chunks)) = (inside[i], &node.kind) {
                    chunks.iter().for_each(|(s, _)| text.push_str(s));
                }
            }
            text
        };
        let kept_text = text_of(first);
        let differing: Vec<usize> = extra
            .iter()
            .copied()
            .filter(|&r| text_of(r) != kept_text)
            .collect();
        let mut kept = vec![];
        let mut kept_at: Vec<Option<usize>> = vec![None; self.0.len()];
        let mut split: Vec<Vec<SnapNode>> = vec![vec![]; differing.len()];
        let mut split_at: Vec<Option<usize>> = vec![None; self.0.len()];
        for (i, node) in self.0.into_iter().enumerate() {
            match under[i] {
                None => {
                    kept_at[i] = Some(kept.len());
                    let parent = node.parent.and_then(|p| kept_at[p]);
                    kept.push(SnapNode {
                        parent,
                        kind: node.kind,
                    });
                }
                Some(root) => {
                    let Some(which) = differing.iter().position(|&r| r == root) else {
                        continue;
                    };
                    let nodes = &mut split[which];
                    if nodes.is_empty() {
                        nodes.push(SnapNode {
                            parent: None,
                            kind: SnapKind::Element {
                                tag: wrapper.to_owned(),
                                attrs: attrs(),
                            },
                        });
                    }
                    split_at[i] = Some(nodes.len());
                    let parent = if i == root {
                        Some(0)
                    } else {
                        node.parent.and_then(|p| split_at[p])
                    };
                    nodes.push(SnapNode {
                        parent,
                        kind: node.kind,
                    });
                }
            }
        }
        (Snap(kept), split.into_iter().map(Snap).collect())
    }
}

/// Re-creates a copy as the child `index` of `parent`.
pub(crate) fn restore(txn: &mut TransactionMut, parent: &XmlElementRef, index: u32, snap: &Snap) {
    let kind = offset_kind(txn);
    // The element re-created for each node (`None` for texts), and how many children each
    // already got: the copy is in document order, so parents come first and children in order.
    let mut made: Vec<Option<XmlElementRef>> = Vec::with_capacity(snap.0.len());
    let mut filled: Vec<u32> = vec![0; snap.0.len()];
    for node in &snap.0 {
        let (into, at) = match node.parent {
            None => (parent.clone(), index),
            Some(p) => {
                filled[p] += 1;
                let into = made[p].clone().expect("only elements have children");
                (into, filled[p] - 1)
            }
        };
        match &node.kind {
            SnapKind::Element { tag, attrs } => {
                let el = into.insert(txn, at, XmlElementPrelim::empty(tag.as_str()));
                for (k, v) in attrs {
                    el.insert_attribute(txn, k.as_str(), v.clone());
                }
                made.push(Some(el));
            }
            SnapKind::Text(chunks) => {
                let t = into.insert(txn, at, XmlTextPrelim::new(""));
                let mut off = 0;
                for (s, a) in chunks {
                    t.insert_with_attributes(txn, off, s, a.clone().unwrap_or_default());
                    off += text_len(kind, s);
                }
                made.push(None);
            }
        }
    }
}
