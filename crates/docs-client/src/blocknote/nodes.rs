//! Walking yrs' XML nodes along their list of items, which the walks of a whole document (every
//! block's children, every block's inline content) take.

use yrs::{ReadTxn, Xml, XmlFragment, XmlOut};

/// The element and text children of `node`, along yrs' list of its items: the first one,
/// then each one's next sibling, where `children` reads every item's content through an index
/// iterator: the walks of a whole document take the children of every block. Values
/// that are not XML nodes (no browser writes them) are passed over where `children` stops at
/// them; a list that starts with one gives nothing with either.
pub(crate) fn child_nodes<'a, T: ReadTxn>(
    txn: &'a T,
    node: &impl XmlFragment,
) -> impl Iterator<Item = XmlOut> + 'a {
    nodes_from(txn, node.first_child())
}

/// `first`, then the nodes after it among its siblings (see [`child_nodes`]).
pub(crate) fn nodes_from<T: ReadTxn>(
    txn: &T,
    first: Option<XmlOut>,
) -> impl Iterator<Item = XmlOut> + '_ {
    let rest = match &first {
        Some(XmlOut::Element(e)) => Some(e.siblings(txn)),
        Some(XmlOut::Text(t)) => Some(t.siblings(txn)),
        Some(XmlOut::Fragment(_)) | None => None,
    };
    first.into_iter().chain(rest.into_iter().flatten())
}
