//! Inline content: text runs with marks, links, hard breaks and inline elements, as stored by
//! y-prosemirror (one Y.XmlText per run of text, marks as formatting attributes, elements
//! between the texts).

use std::collections::HashMap;
use std::sync::Arc;

use yrs::types::Attrs;
use yrs::types::text::YChange;
use yrs::{
    Any, Number, OffsetKind, Out, ReadTxn, Text, TransactionMut, Xml, XmlElementPrelim,
    XmlElementRef, XmlFragment, XmlOut, XmlTextPrelim,
};

use super::nodes::child_nodes;
use super::schema::{COMMENT_MARK_PREFIX, HARD_BREAK, INLINE_MATH, LINK_MARK};
use super::tree::{CommentMark, Inline, PropValue, Props, Styles, TextRun};

/// Length of `s` in the document's text offset unit.
pub(crate) fn text_len(kind: OffsetKind, s: &str) -> u32 {
    match kind {
        OffsetKind::Bytes => s.len() as u32,
        OffsetKind::Utf16 => s.encode_utf16().count() as u32,
    }
}

/// Length of one char in the document's text offset unit.
pub(crate) fn char_len(kind: OffsetKind, c: char) -> u32 {
    match kind {
        OffsetKind::Bytes => c.len_utf8() as u32,
        OffsetKind::Utf16 => c.len_utf16() as u32,
    }
}

pub(crate) fn offset_kind(txn: &TransactionMut) -> OffsetKind {
    txn.doc().offset_kind()
}

fn empty_map() -> Any {
    Any::Map(Arc::new(HashMap::new()))
}

fn one_map(key: &str, value: &str) -> Any {
    let mut m = HashMap::new();
    m.insert(key.to_string(), Any::String(value.into()));
    Any::Map(Arc::new(m))
}

/// The Yjs formatting attributes of a run (never includes comments).
pub(crate) fn run_attrs(styles: &Styles, link: Option<&str>) -> Attrs {
    let mut a = Attrs::new();
    let flags = [
        ("bold", styles.bold),
        ("italic", styles.italic),
        ("underline", styles.underline),
        ("strike", styles.strike),
        ("code", styles.code),
    ];
    for (k, on) in flags {
        if on {
            a.insert(k.into(), empty_map());
        }
    }
    if let Some(c) = &styles.text_color {
        a.insert("textColor".into(), one_map("stringValue", c));
    }
    if let Some(c) = &styles.background_color {
        a.insert("backgroundColor".into(), one_map("stringValue", c));
    }
    if let Some(h) = link {
        a.insert(LINK_MARK.into(), one_map("href", h));
    }
    a
}

fn mark_on(v: &Any) -> bool {
    !matches!(v, Any::Null | Any::Undefined | Any::Bool(false))
}

fn map_string(v: &Any, key: &str) -> Option<String> {
    match v {
        Any::Map(m) => match m.get(key) {
            Some(Any::String(s)) => Some(s.to_string()),
            _ => None,
        },
        Any::String(s) => Some(s.to_string()),
        _ => None,
    }
}

/// Is `key` a comment mark (`comment` or `comment--<hash>`)?
pub(crate) fn is_comment_key(key: &str) -> bool {
    key == COMMENT_MARK_PREFIX || key.starts_with("comment--")
}

/// The comment mark a formatting attribute's value holds (`{orphan, threadId}`); `None` for a
/// removed mark (null). A value without a thread id reads with an empty one.
fn comment_mark(v: &Any) -> Option<CommentMark> {
    if !mark_on(v) {
        return None;
    }
    let (thread_id, orphan) = match v {
        Any::Map(m) => (
            match m.get("threadId") {
                Some(Any::String(s)) => s.to_string(),
                _ => String::new(),
            },
            matches!(m.get("orphan"), Some(Any::Bool(true))),
        ),
        _ => (String::new(), false),
    };
    Some(CommentMark { thread_id, orphan })
}

/// Reads a run's styles, link and comment marks from Yjs formatting attributes.
/// Unknown marks are ignored.
pub(crate) fn run_from_attrs(text: String, attrs: Option<&Attrs>) -> TextRun {
    let mut run = TextRun::plain(text);
    let Some(attrs) = attrs else { return run };
    for (k, v) in attrs.iter() {
        let k: &str = k;
        match k {
            "bold" => run.styles.bold = mark_on(v),
            "italic" => run.styles.italic = mark_on(v),
            "underline" => run.styles.underline = mark_on(v),
            "strike" => run.styles.strike = mark_on(v),
            "code" => run.styles.code = mark_on(v),
            "textColor" => run.styles.text_color = map_string(v, "stringValue"),
            "backgroundColor" => run.styles.background_color = map_string(v, "stringValue"),
            LINK_MARK => run.link = map_string(v, "href"),
            _ if is_comment_key(k) => run.comments.extend(comment_mark(v)),
            _ => {}
        }
    }
    run.comments.sort();
    run.comments.dedup();
    run
}

/// Converts a yrs value to a prop value (arrays and maps are not props: `None`).
pub(crate) fn any_to_prop(a: &Any) -> Option<PropValue> {
    Some(match a {
        Any::String(s) => PropValue::String(s.to_string()),
        Any::Bool(b) => PropValue::Bool(*b),
        Any::Number(Number::Int(i)) => PropValue::Number(*i as f64),
        Any::Number(Number::Float(f)) => PropValue::Number(*f),
        Any::Undefined | Any::Null => PropValue::Undefined,
        _ => return None,
    })
}

/// Converts a prop value to the typed yrs value BlockNote stores.
pub(crate) fn prop_to_any(v: &PropValue) -> Any {
    match v {
        PropValue::String(s) => Any::String(s.as_str().into()),
        PropValue::Bool(b) => Any::Bool(*b),
        PropValue::Number(n) => {
            if n.fract() == 0.0 && n.abs() < 9.0e15 {
                Any::Number(Number::Int(*n as i64))
            } else {
                Any::Number(Number::Float(*n))
            }
        }
        PropValue::Undefined => Any::Undefined,
    }
}

/// All attributes of an element that are plain values.
pub(crate) fn read_attrs<T: ReadTxn>(txn: &T, el: &XmlElementRef) -> Props {
    let mut p = Props::new();
    for (k, v) in el.attributes(txn) {
        if let Out::Any(a) = v
            && let Some(pv) = any_to_prop(&a)
        {
            p.insert(k.to_string(), pv);
        }
    }
    p
}

/// Reads the inline content of a content node (paragraph, heading, tableParagraph...).
pub(crate) fn read_inline<T: ReadTxn>(txn: &T, node: &XmlElementRef) -> Vec<Inline> {
    let mut out = Vec::new();
    for child in child_nodes(txn, node) {
        match child {
            XmlOut::Text(t) => {
                for d in t.diff(txn, YChange::identity) {
                    if let Out::Any(Any::String(s)) = &d.insert {
                        out.push(Inline::Text(run_from_attrs(
                            s.to_string(),
                            d.attributes.as_deref(),
                        )));
                    }
                }
            }
            XmlOut::Element(e) => out.push(read_inline_element(txn, &e)),
            XmlOut::Fragment(_) => {}
        }
    }
    normalize_inline(out)
}

/// Reads an element inside inline content: a hard break, inline math (its text is its LaTeX
/// source) or another inline element (its attributes).
pub(crate) fn read_inline_element<T: ReadTxn>(txn: &T, e: &XmlElementRef) -> Inline {
    match e.tag().as_ref() {
        HARD_BREAK => Inline::HardBreak,
        INLINE_MATH => Inline::Math {
            latex: deep_text(txn, e),
        },
        tag => Inline::Element {
            kind: tag.to_string(),
            attrs: read_attrs(txn, e),
        },
    }
}

/// Merges adjacent runs with equal styles/link/comments and drops empty runs.
pub fn normalize_inline(inline: Vec<Inline>) -> Vec<Inline> {
    let mut out: Vec<Inline> = Vec::with_capacity(inline.len());
    for i in inline {
        if let Inline::Text(r) = &i {
            if r.text.is_empty() {
                continue;
            }
            if let Some(Inline::Text(prev)) = out.last_mut()
                && prev.styles == r.styles
                && prev.link == r.link
                && prev.comments == r.comments
            {
                prev.text.push_str(&r.text);
                continue;
            }
        }
        out.push(i);
    }
    out
}

/// Plain text of every XmlText under a node (for opaque blocks): the texts in document order,
/// without their marks, an element's text put on a new line after text before it. Iterative:
/// an unknown node may nest elements arbitrarily deep.
pub(crate) fn deep_text<T: ReadTxn>(txn: &T, node: &XmlElementRef) -> String {
    // Each frame: an element's remaining children and where its text starts in `s`.
    let mut s = String::new();
    let mut stack = vec![(node.children(txn), 0usize)];
    // An element's text goes on a new line when text precedes it within its parent; the
    // newline is written only once the element turns out to hold text. Only one can be
    // pending at a time: nothing was written since it was set. `(stack depth, position)`.
    let mut pending_newline: Option<usize> = None;
    while let Some((children, start)) = stack.last_mut() {
        let start = *start;
        match children.next() {
            Some(XmlOut::Text(t)) => {
                // Not `get_string`: it writes an XmlText's marks as tags (`<bold>x</bold>`).
                for chunk in t.diff(txn, YChange::identity) {
                    if let Out::Any(Any::String(text)) = chunk.insert
                        && !text.is_empty()
                    {
                        if pending_newline.take().is_some() {
                            s.push('\n');
                        }
                        s.push_str(&text);
                    }
                }
            }
            Some(XmlOut::Element(e)) => {
                if pending_newline.is_none() && s.len() > start && !s.ends_with('\n') {
                    pending_newline = Some(stack.len() + 1);
                }
                stack.push((e.children(txn), s.len()));
            }
            Some(XmlOut::Fragment(_)) => {}
            None => {
                if pending_newline == Some(stack.len()) {
                    pending_newline = None;
                }
                stack.pop();
            }
        }
    }
    s
}

/// Appends inline content to `node` (which must be empty or end at `index`), starting at child
/// position `index`. Consecutive text runs share one Y.XmlText, as y-prosemirror stores them.
pub(crate) fn write_inline(
    txn: &mut TransactionMut,
    node: &XmlElementRef,
    mut index: u32,
    inline: &[Inline],
) -> u32 {
    let kind = offset_kind(txn);
    let mut i = 0;
    while i < inline.len() {
        match &inline[i] {
            Inline::Text(_) => {
                let text = node.insert(txn, index, XmlTextPrelim::new(""));
                index += 1;
                let mut off = 0u32;
                while let Some(Inline::Text(r)) = inline.get(i) {
                    if !r.text.is_empty() {
                        let attrs = run_attrs(&r.styles, r.link.as_deref());
                        text.insert_with_attributes(txn, off, &r.text, attrs);
                        off += text_len(kind, &r.text);
                    }
                    i += 1;
                }
            }
            Inline::HardBreak => {
                node.insert(txn, index, XmlElementPrelim::empty(HARD_BREAK));
                index += 1;
                i += 1;
            }
            Inline::Element { kind: tag, attrs } => {
                let el = node.insert(txn, index, XmlElementPrelim::empty(tag.as_str()));
                for (k, v) in attrs {
                    el.insert_attribute(txn, k.as_str(), prop_to_any(v));
                }
                index += 1;
                i += 1;
            }
            Inline::Math { latex } => {
                // As y-prosemirror stores a `text*` inline node: no attributes, its text in one
                // XmlText (none when empty).
                let el = node.insert(txn, index, XmlElementPrelim::empty(INLINE_MATH));
                if !latex.is_empty() {
                    let t = el.insert(txn, 0, XmlTextPrelim::new(""));
                    t.insert(txn, 0, latex);
                }
                index += 1;
                i += 1;
            }
        }
    }
    index
}
