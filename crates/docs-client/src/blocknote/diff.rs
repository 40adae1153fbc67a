//! Minimal diff of inline content against the live Y.XmlText runs, word by word.
//!
//! The current content and the wanted content are flattened to atoms (one per char, hard
//! break or inline element) and cut into tokens: the words of [`super::words`], each other
//! char, each break or element. A diff of the tokens finds the changed ones; a changed word is
//! deleted whole and its replacement inserted whole, never keeping single chars of the old
//! word — so a person typing in or after that word at the same moment lands next to the new
//! word, never inside it. Unchanged tokens keep their Yjs identity (and so what others typed
//! in them, and their comment marks); chars that stay but change marks are re-formatted with
//! `format`. A replaced stretch keeps the comment marks all of it carried.
//!
//! A minimal diff can take seconds on long, very different texts (Myers' algorithm is
//! O(N·D)), so the search has a time limit ([`DIFF_TIME_LIMIT`]); past it, what is left to
//! compare is replaced as a whole. Applying thousands of small edits is slow too, so beyond
//! `MAX_EDITS` the edits separated by the shortest unchanged runs are merged. The result is
//! always exactly the wanted content — only less of the old text keeps its identity.

use std::sync::Arc;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp, capture_diff_slices_deadline};
use yrs::types::Attrs;
use yrs::types::text::YChange;
use yrs::{
    Any, OffsetKind, Out, Text, TransactionMut, XmlElementRef, XmlFragment, XmlOut, XmlTextRef,
};

use super::inline::{
    char_len, is_comment_key, offset_kind, read_inline_element, run_attrs, run_from_attrs,
    write_inline,
};
use super::tree::{Inline, Props, Styles, TextRun};
use super::words;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Char(char),
    Break,
    Elem(String),
    Math(String),
}

#[derive(Debug, Clone)]
enum Atom {
    Char {
        c: char,
        styles: Styles,
        link: Option<String>,
    },
    Break,
    Elem {
        kind: String,
        attrs: Props,
    },
    /// Inline math: replaced as a whole when its LaTeX changes.
    Math {
        latex: String,
    },
}

impl Atom {
    fn key(&self) -> Key {
        match self {
            Atom::Char { c, .. } => Key::Char(*c),
            Atom::Break => Key::Break,
            Atom::Elem { kind, attrs } => Key::Elem(format!(
                "{kind}{}",
                serde_json::to_string(attrs).unwrap_or_default()
            )),
            Atom::Math { latex } => Key::Math(latex.clone()),
        }
    }
}

/// Where an old atom lives.
#[derive(Debug, Clone)]
enum Place {
    /// In the text segment `seg`, at this offset (document unit).
    Text { seg: usize, off: u32, len: u32 },
    /// A whole child element at this child index.
    Child { child: u32 },
}

struct Old {
    atoms: Vec<Atom>,
    places: Vec<Place>,
    /// The comment marks of each atom (as Yjs formatting attributes; `None`: no comment).
    comments: Vec<Option<Arc<Attrs>>>,
    /// Text segments: handle and child index.
    texts: Vec<(XmlTextRef, u32)>,
}

impl Old {
    /// The comment marks every atom of `range` carries: a stretch replaced whole keeps them.
    fn comments_of_all(&self, range: std::ops::Range<usize>) -> Attrs {
        let mut marks = self.comments[range].iter();
        let Some(Some(first)) = marks.next() else {
            return Attrs::new();
        };
        let mut common = (**first).clone();
        let mut last = first;
        for mark in marks {
            let Some(mark) = mark else {
                return Attrs::new();
            };
            if !Arc::ptr_eq(mark, last) {
                common.retain(|key, value| mark.get(key) == Some(value));
                last = mark;
            }
        }
        common
    }
}

/// The comment marks among a run's formatting attributes.
fn comment_attrs(attrs: Option<&Attrs>) -> Option<Arc<Attrs>> {
    let marks: Attrs = attrs?
        .iter()
        .filter(|(key, value)| is_comment_key(key) && !matches!(value, Any::Null))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    (!marks.is_empty()).then(|| Arc::new(marks))
}

fn read_old(txn: &TransactionMut, node: &XmlElementRef, kind: OffsetKind) -> Old {
    let mut old = Old {
        atoms: vec![],
        places: vec![],
        comments: vec![],
        texts: vec![],
    };
    for (ci, child) in node.children(txn).enumerate() {
        let ci = ci as u32;
        match child {
            XmlOut::Text(t) => {
                let seg = old.texts.len();
                let mut off = 0;
                for d in t.diff(txn, YChange::identity) {
                    if let Out::Any(Any::String(s)) = &d.insert {
                        let run = run_from_attrs(String::new(), d.attributes.as_deref());
                        let comments = comment_attrs(d.attributes.as_deref());
                        for c in s.chars() {
                            old.comments.push(comments.clone());
                            let len = char_len(kind, c);
                            old.atoms.push(Atom::Char {
                                c,
                                styles: run.styles.clone(),
                                link: run.link.clone(),
                            });
                            old.places.push(Place::Text { seg, off, len });
                            off += len;
                        }
                    }
                }
                old.texts.push((t, ci));
            }
            XmlOut::Element(e) => {
                old.atoms.push(match read_inline_element(txn, &e) {
                    Inline::Math { latex } => Atom::Math { latex },
                    Inline::Element { kind, attrs } => Atom::Elem { kind, attrs },
                    // An element is never text: what is left is a hard break.
                    Inline::HardBreak | Inline::Text(_) => Atom::Break,
                });
                old.places.push(Place::Child { child: ci });
                old.comments.push(None);
            }
            XmlOut::Fragment(_) => {}
        }
    }
    old
}

fn new_atoms(inline: &[Inline]) -> Vec<Atom> {
    let mut out = vec![];
    for i in inline {
        match i {
            Inline::Text(r) => out.extend(r.text.chars().map(|c| Atom::Char {
                c,
                styles: r.styles.clone(),
                link: r.link.clone(),
            })),
            Inline::HardBreak => out.push(Atom::Break),
            Inline::Element { kind, attrs } => out.push(Atom::Elem {
                kind: kind.clone(),
                attrs: attrs.clone(),
            }),
            Inline::Math { latex } => out.push(Atom::Math {
                latex: latex.clone(),
            }),
        }
    }
    out
}

fn atoms_to_inline(atoms: &[Atom]) -> Vec<Inline> {
    let mut out = vec![];
    for a in atoms {
        match a {
            Atom::Char { c, styles, link } => {
                if let Some(Inline::Text(r)) = out.last_mut()
                    && r.styles == *styles
                    && r.link == *link
                {
                    r.text.push(*c);
                    continue;
                }
                out.push(Inline::Text(TextRun {
                    text: c.to_string(),
                    styles: styles.clone(),
                    link: link.clone(),
                    comments: vec![],
                }));
            }
            Atom::Break => out.push(Inline::HardBreak),
            Atom::Elem { kind, attrs } => out.push(Inline::Element {
                kind: kind.clone(),
                attrs: attrs.clone(),
            }),
            Atom::Math { latex } => out.push(Inline::Math {
                latex: latex.clone(),
            }),
        }
    }
    out
}

/// A change in old/new atom coordinates.
#[derive(Debug, Clone, Copy)]
struct Change {
    old: usize,
    old_len: usize,
    new: usize,
    new_len: usize,
    equal: bool,
}

/// Splits keys into tokens: the words and separators of [`words::split`] in each run of
/// chars, and each break or element. Returns token ranges.
fn tokens(keys: &[Key]) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut i = 0;
    while i < keys.len() {
        let chars: String = keys[i..]
            .iter()
            .map_while(|k| match k {
                Key::Char(c) => Some(*c),
                _ => None,
            })
            .collect();
        if chars.is_empty() {
            out.push((i, i + 1));
            i += 1;
            continue;
        }
        for token in words::split(&chars) {
            let len = token.chars().count();
            out.push((i, i + len));
            i += len;
        }
    }
    out
}

/// How long [`apply_inline_diff`] may search for the smallest change. Tens of milliseconds
/// find it for any human edit (a one-word change in a 2 KB paragraph takes well under one);
/// only rewrites of long texts reach the limit, and then keep less of their old text.
pub const DIFF_TIME_LIMIT: Duration = Duration::from_millis(50);

/// Token-level diff, searched until `deadline`: a changed token is replaced whole. Past the
/// deadline, the tokens left are replaced as a whole (the diff stays exact, only coarser), and
/// once it has passed before the search starts, only the common prefix and suffix are kept.
fn diff_keys(old: &[Key], new: &[Key], deadline: Instant) -> Vec<Change> {
    if Instant::now() >= deadline {
        return replace_middle(old, new);
    }
    let ot = tokens(old);
    let nt = tokens(new);
    let otk: Vec<&[Key]> = ot.iter().map(|&(a, b)| &old[a..b]).collect();
    let ntk: Vec<&[Key]> = nt.iter().map(|&(a, b)| &new[a..b]).collect();
    let word_ops = capture_diff_slices_deadline(Algorithm::Myers, &otk, &ntk, Some(deadline));
    let mut out = vec![];
    for op in word_ops {
        let (_, o, n) = op.as_tag_tuple();
        let oa = ot.get(o.start).map(|t| t.0).unwrap_or(old.len());
        let ob = if o.is_empty() { oa } else { ot[o.end - 1].1 };
        let na = nt.get(n.start).map(|t| t.0).unwrap_or(new.len());
        let nb = if n.is_empty() { na } else { nt[n.end - 1].1 };
        out.push(Change {
            old: oa,
            old_len: ob - oa,
            new: na,
            new_len: nb - na,
            equal: matches!(op, DiffOp::Equal { .. }),
        });
    }
    out
}

/// The most edits [`apply_inline_diff`] makes. Each costs yrs a walk to its offset in the
/// text, so the thousands a char-level diff of a rewrite finds would take far longer to apply
/// than to find (0.7 s for 6 000 edits in 48 K characters); a human's edit makes a few.
const MAX_EDITS: usize = 256;

/// Merges edits across the shortest unchanged runs between them until at most `max` edits
/// remain: the longest unchanged runs keep their identity, the merged ones are rewritten.
fn coalesce(changes: Vec<Change>, max: usize) -> Vec<Change> {
    let edits = changes.iter().filter(|c| !c.equal).count();
    if edits <= max {
        return changes;
    }
    // Unchanged runs between the first and the last edit separate edits; keep the longest.
    let first = changes.iter().position(|c| !c.equal).unwrap_or(0);
    let last = changes.iter().rposition(|c| !c.equal).unwrap_or(0);
    let mut gaps: Vec<(usize, usize)> = (first..last)
        .filter(|&i| changes[i].equal)
        .map(|i| (changes[i].old_len, i))
        .collect();
    gaps.sort_unstable_by(|a, b| b.cmp(a));
    let mut kept = vec![false; changes.len()];
    for &(_, i) in gaps.iter().take(max.saturating_sub(1)) {
        kept[i] = true;
    }
    let mut out: Vec<Change> = vec![];
    let mut merged: Option<Change> = None;
    for (i, c) in changes.into_iter().enumerate() {
        let separates = c.equal && (i < first || i > last || kept[i]);
        if separates {
            out.extend(merged.take());
            out.push(c);
            continue;
        }
        match &mut merged {
            Some(m) => {
                m.old_len += c.old_len;
                m.new_len += c.new_len;
            }
            None => merged = Some(Change { equal: false, ..c }),
        }
    }
    out.extend(merged);
    out
}

/// The fallback diff: the common prefix and suffix are kept, everything between replaced.
fn replace_middle(old: &[Key], new: &[Key]) -> Vec<Change> {
    let prefix = old.iter().zip(new).take_while(|(o, n)| o == n).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(o, n)| o == n)
        .count();
    let (old_mid, new_mid) = (old.len() - prefix - suffix, new.len() - prefix - suffix);
    let mut out = vec![];
    let mut push = |old, old_len, new, new_len, equal| {
        if old_len > 0 || new_len > 0 {
            out.push(Change {
                old,
                old_len,
                new,
                new_len,
                equal,
            });
        }
    };
    push(0, prefix, 0, prefix, true);
    push(prefix, old_mid, prefix, new_mid, false);
    push(prefix + old_mid, suffix, prefix + new_mid, suffix, true);
    out
}

fn mark_delta(old: &Attrs, new: &Attrs) -> Attrs {
    let mut d = Attrs::new();
    for (k, v) in new {
        if old.get(k) != Some(v) {
            d.insert(k.clone(), v.clone());
        }
    }
    for k in old.keys() {
        if !new.contains_key(k) {
            d.insert(k.clone(), Any::Null);
        }
    }
    d
}

/// Makes `node`'s inline content equal to `new` with the smallest set of Yjs operations it
/// finds within `time_limit` (see [`DIFF_TIME_LIMIT`]).
pub(crate) fn apply_inline_diff(
    txn: &mut TransactionMut,
    node: &XmlElementRef,
    new: &[Inline],
    time_limit: Duration,
) {
    let deadline = Instant::now() + time_limit;
    let kind = offset_kind(txn);
    let old = read_old(txn, node, kind);
    let new = new_atoms(new);
    let ok: Vec<Key> = old.atoms.iter().map(Atom::key).collect();
    let nk: Vec<Key> = new.iter().map(Atom::key).collect();
    let changes = coalesce(diff_keys(&ok, &nk, deadline), MAX_EDITS);

    for ch in changes.iter().rev() {
        if ch.equal {
            apply_formats(txn, &old, &new, ch);
        } else {
            let comments = old.comments_of_all(ch.old..ch.old + ch.old_len);
            insert_at(
                txn,
                node,
                &old,
                ch.old + ch.old_len,
                &new[ch.new..ch.new + ch.new_len],
                &comments,
            );
            delete_range(txn, node, &old, ch.old, ch.old + ch.old_len);
        }
    }
}

fn apply_formats(txn: &mut TransactionMut, old: &Old, new: &[Atom], ch: &Change) {
    // (seg, start, len, delta) merged while contiguous and equal
    let mut pending: Option<(usize, u32, u32, Attrs)> = None;
    let flush = |txn: &mut TransactionMut, p: Option<(usize, u32, u32, Attrs)>| {
        if let Some((seg, start, len, delta)) = p {
            old.texts[seg].0.format(txn, start, len, delta);
        }
    };
    for k in 0..ch.old_len {
        let (oa, na) = (&old.atoms[ch.old + k], &new[ch.new + k]);
        let (
            Atom::Char {
                styles: os,
                link: ol,
                ..
            },
            Atom::Char {
                styles: ns,
                link: nl,
                ..
            },
        ) = (oa, na)
        else {
            continue;
        };
        if os == ns && ol == nl {
            let p = pending.take();
            flush(txn, p);
            continue;
        }
        let delta = mark_delta(&run_attrs(os, ol.as_deref()), &run_attrs(ns, nl.as_deref()));
        let Place::Text { seg, off, len } = old.places[ch.old + k] else {
            continue;
        };
        match &mut pending {
            Some((ps, pstart, plen, pd))
                if *ps == seg && *pstart + *plen == off && *pd == delta =>
            {
                *plen += len
            }
            _ => {
                let p = pending.replace((seg, off, len, delta));
                flush(txn, p);
            }
        }
    }
    flush(txn, pending);
}

fn delete_range(txn: &mut TransactionMut, node: &XmlElementRef, old: &Old, a: usize, b: usize) {
    let mut i = b;
    while i > a {
        i -= 1;
        match &old.places[i] {
            Place::Child { child } => node.remove_range(txn, *child, 1),
            Place::Text { seg, off, len } => {
                // extend left over contiguous chars of the same segment
                let (seg, end) = (*seg, *off + *len);
                let mut start = *off;
                while i > a {
                    match &old.places[i - 1] {
                        Place::Text { seg: s, off, .. } if *s == seg => {
                            start = *off;
                            i -= 1;
                        }
                        _ => break,
                    }
                }
                old.texts[seg].0.remove_range(txn, start, end - start);
            }
        }
    }
}

/// Inserts `atoms` before old atom `p`; their text carries `comments` too.
fn insert_at(
    txn: &mut TransactionMut,
    node: &XmlElementRef,
    old: &Old,
    p: usize,
    atoms: &[Atom],
    comments: &Attrs,
) {
    if atoms.is_empty() {
        return;
    }
    let all_chars = atoms.iter().all(|a| matches!(a, Atom::Char { .. }));
    let before = p.checked_sub(1).map(|i| &old.places[i]);
    let after = old.places.get(p);
    if all_chars {
        let anchor = match (before, after) {
            (Some(Place::Text { seg, off, len }), _) => Some((*seg, off + len)),
            (_, Some(Place::Text { seg, off, .. })) => Some((*seg, *off)),
            _ => None,
        };
        if let Some((seg, mut off)) = anchor {
            let text = &old.texts[seg].0;
            let kind = offset_kind(txn);
            for run in atoms_to_inline(atoms) {
                if let Inline::Text(r) = run {
                    let mut attrs = run_attrs(&r.styles, r.link.as_deref());
                    attrs.extend(comments.iter().map(|(k, v)| (k.clone(), v.clone())));
                    text.insert_with_attributes(txn, off, &r.text, attrs);
                    off += super::inline::text_len(kind, &r.text);
                }
            }
            return;
        }
    }
    // Find a child boundary, splitting a text segment if the position is inside it.
    let boundary = match (before, after) {
        (None, _) => 0,
        (Some(Place::Child { child }), _) => child + 1,
        (Some(Place::Text { seg, off, len }), Some(Place::Text { seg: s2, .. })) if seg == s2 => {
            let (text, ci) = (&old.texts[*seg].0, old.texts[*seg].1);
            split_text(txn, node, text, ci, off + len);
            ci + 1
        }
        (Some(Place::Text { seg, .. }), _) => old.texts[*seg].1 + 1,
    };
    write_inline(txn, node, boundary, &atoms_to_inline(atoms));
}

/// Moves the text after `at` into a new XmlText right after `text` (child index `ci`).
fn split_text(txn: &mut TransactionMut, node: &XmlElementRef, text: &XmlTextRef, ci: u32, at: u32) {
    let kind = offset_kind(txn);
    let mut tail: Vec<(String, Option<Attrs>)> = vec![];
    let mut pos = 0u32;
    for d in text.diff(txn, YChange::identity) {
        if let Out::Any(Any::String(s)) = &d.insert {
            let mut part = String::new();
            for c in s.chars() {
                if pos >= at {
                    part.push(c);
                }
                pos += char_len(kind, c);
            }
            if !part.is_empty() {
                tail.push((part, d.attributes.map(|a| *a)));
            }
        }
    }
    if pos > at {
        text.remove_range(txn, at, pos - at);
    }
    let t = node.insert(txn, ci + 1, yrs::XmlTextPrelim::new(""));
    let mut off = 0;
    for (s, a) in tail {
        t.insert_with_attributes(txn, off, &s, a.unwrap_or_default());
        off += super::inline::text_len(kind, &s);
    }
}
