//! Deep copies of Y.Xml subtrees, to move blocks: Yjs has no move, so a moved subtree is
//! re-created (ids and attributes kept).

use yrs::types::Attrs;
use yrs::types::text::YChange;
use yrs::{
    Any, Out, ReadTxn, Text, TransactionMut, Xml, XmlElementPrelim, XmlElementRef, XmlFragment,
    XmlOut, XmlTextPrelim,
};

use super::inline::{offset_kind, text_len};

/// A deep copy of a Y.Xml subtree: element names, typed attributes, formatted text.
#[derive(Debug, Clone)]
pub(crate) enum Snap {
    Element {
        tag: String,
        attrs: Vec<(String, Any)>,
        children: Vec<Snap>,
    },
    Text(Vec<(String, Option<Attrs>)>),
}

pub(crate) fn snapshot<T: ReadTxn>(txn: &T, node: &XmlOut) -> Option<Snap> {
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

pub(crate) fn restore(txn: &mut TransactionMut, parent: &XmlElementRef, index: u32, snap: &Snap) {
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
