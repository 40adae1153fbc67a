//! Tests of the model (`cargo test -p docs-client --lib blocknote`), one module per concern;
//! this one holds the shared helpers and the hand-built reference document.

mod comments;
mod diff;
mod layout;
mod markdown;
mod math;
mod nesting;
mod opening;
mod operations;
mod properties;
mod reread;
mod tables;
mod urls;

use std::collections::HashMap;
use std::sync::Arc;

use proptest::prelude::*;
use yrs::types::Attrs;
use yrs::updates::decoder::Decode;
use yrs::{
    Any, Doc, GetString, Number, OffsetKind, Options, Out, ReadTxn, StateVector, Text, Transact,
    Update, Xml, XmlElementPrelim, XmlElementRef, XmlFragment, XmlFragmentRef, XmlOut,
    XmlTextPrelim,
};

use super::*;

fn doc() -> (Doc, XmlFragmentRef) {
    let d = Doc::new();
    let f = document_fragment(&d);
    (d, f)
}

fn read(d: &Doc, f: &XmlFragmentRef) -> Document {
    read_document(&d.transact(), f)
}

fn attr(txn: &mut yrs::TransactionMut, el: &XmlElementRef, k: &str, v: Any) {
    el.insert_attribute(txn, k, v);
}

fn s(v: &str) -> Any {
    Any::String(v.into())
}
fn num(n: i64) -> Any {
    Any::Number(Number::Int(n))
}
fn flag() -> Any {
    Any::Map(Arc::new(HashMap::new()))
}
/// A comment mark's attribute value, as y-prosemirror stores it: `{orphan, threadId}`.
fn comment_value(thread: &str) -> Any {
    Any::Map(Arc::new(HashMap::from([
        ("orphan".to_string(), Any::Bool(false)),
        ("threadId".to_string(), s(thread)),
    ])))
}
/// A comment mark's attribute (key and value) for a thread.
fn comment_attr(thread: &str) -> (Arc<str>, Any) {
    (
        comment_mark_key(thread, false).into(),
        comment_value(thread),
    )
}
fn cm(thread: &str) -> CommentMark {
    CommentMark {
        thread_id: thread.into(),
        orphan: false,
    }
}
fn map1(k: &str, v: &str) -> Any {
    let mut m = HashMap::new();
    m.insert(k.to_string(), s(v));
    Any::Map(Arc::new(m))
}

fn container(
    txn: &mut yrs::TransactionMut,
    group: &XmlElementRef,
    id: &str,
    tag: &str,
) -> (XmlElementRef, XmlElementRef) {
    let n = group.len(txn);
    let c = group.insert(txn, n, XmlElementPrelim::empty("blockContainer"));
    attr(txn, &c, "id", s(id));
    let node = c.insert(txn, 0, XmlElementPrelim::empty(tag));
    (c, node)
}

fn defaults(node: &XmlElementRef, txn: &mut yrs::TransactionMut) {
    attr(txn, node, "backgroundColor", s("default"));
    attr(txn, node, "textColor", s("default"));
    attr(txn, node, "textAlignment", s("left"));
}

fn p(pairs: &[(&str, PropValue)]) -> Props {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}
fn dflt() -> Vec<(&'static str, PropValue)> {
    vec![
        ("backgroundColor", "default".into()),
        ("textColor", "default".into()),
        ("textAlignment", "left".into()),
    ]
}
fn with(extra: &[(&'static str, PropValue)]) -> Props {
    let mut v = dflt();
    v.extend(extra.iter().cloned());
    p(&v)
}
fn t(text: &str) -> Inline {
    Inline::Text(TextRun::plain(text))
}
fn bold(text: &str) -> Inline {
    Inline::Text(TextRun::styled(
        text,
        Styles {
            bold: true,
            ..Default::default()
        },
    ))
}

/// Builds, by hand, a document in BlockNote's exact layout.
fn hand_built() -> (Doc, XmlFragmentRef) {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        let root = f.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        // heading level 2
        let (_, h) = container(&mut txn, &root, "h1", "heading");
        defaults(&h, &mut txn);
        attr(&mut txn, &h, "level", num(2));
        attr(&mut txn, &h, "isToggleable", Any::Bool(false));
        let x = h.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "Title");
        // paragraph: "Hello " bold "world" + link + hardBreak + interlink + commented text
        let (pc, para) = container(&mut txn, &root, "p1", "paragraph");
        defaults(&para, &mut txn);
        let x = para.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "Hello ");
        x.insert_with_attributes(&mut txn, 6, "world", Attrs::from([("bold".into(), flag())]));
        x.insert_with_attributes(
            &mut txn,
            11,
            " site",
            Attrs::from([("link".into(), map1("href", "https://x.org"))]),
        );
        para.insert(&mut txn, 1, XmlElementPrelim::empty("hardBreak"));
        let il = para.insert(
            &mut txn,
            2,
            XmlElementPrelim::empty("interlinkingLinkInline"),
        );
        attr(&mut txn, &il, "docId", s("d-1"));
        attr(&mut txn, &il, "title", s("Other"));
        attr(&mut txn, &il, "trigger", s("/"));
        attr(&mut txn, &il, "disabled", Any::Bool(false));
        let x2 = para.insert(&mut txn, 3, XmlTextPrelim::new(""));
        x2.insert_with_attributes(
            &mut txn,
            0,
            "red",
            Attrs::from([
                ("textColor".into(), map1("stringValue", "red")),
                comment_attr("abc"),
            ]),
        );
        // nested child: checkListItem checked, numberedListItem start undefined
        let g = pc.insert(&mut txn, 1, XmlElementPrelim::empty("blockGroup"));
        let (_, ck) = container(&mut txn, &g, "c1", "checkListItem");
        defaults(&ck, &mut txn);
        attr(&mut txn, &ck, "checked", Any::Bool(true));
        let x = ck.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "done");
        let (_, nl) = container(&mut txn, &g, "n1", "numberedListItem");
        defaults(&nl, &mut txn);
        attr(&mut txn, &nl, "start", Any::Undefined);
        // code block
        let (_, cb) = container(&mut txn, &root, "code1", "codeBlock");
        attr(&mut txn, &cb, "language", s("rust"));
        let x = cb.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "fn main() {}\nlet x = 1;");
        // table: header row + body row, colwidth on one cell
        let (_, tb) = container(&mut txn, &root, "t1", "table");
        attr(&mut txn, &tb, "textColor", s("default"));
        for (ri, tag) in ["tableHeader", "tableCell"].iter().enumerate() {
            let row = tb.insert(&mut txn, ri as u32, XmlElementPrelim::empty("tableRow"));
            for ci in 0..2u32 {
                let cell = row.insert(&mut txn, ci, XmlElementPrelim::empty(*tag));
                defaults(&cell, &mut txn);
                attr(&mut txn, &cell, "colspan", num(1));
                attr(&mut txn, &cell, "rowspan", num(1));
                if ri == 0 && ci == 0 {
                    attr(
                        &mut txn,
                        &cell,
                        "colwidth",
                        Any::Array(vec![num(120)].into()),
                    );
                }
                let tp = cell.insert(&mut txn, 0, XmlElementPrelim::empty("tableParagraph"));
                let x = tp.insert(&mut txn, 0, XmlTextPrelim::new(""));
                x.insert(&mut txn, 0, &format!("r{ri}c{ci}"));
            }
        }
        // unknown block
        let (_, unk) = container(&mut txn, &root, "u1", "mermaid");
        attr(&mut txn, &unk, "theme", s("dark"));
        let x = unk.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "graph TD");
        // divider
        container(&mut txn, &root, "d1", "divider");
    }
    (d, f)
}

fn cell(header: bool, text: &str, colwidth: Option<Vec<f64>>) -> TableCell {
    TableCell {
        header,
        props: with(&[("colspan", 1.0.into()), ("rowspan", 1.0.into())]),
        colwidth,
        content: vec![t(text)],
    }
}

fn expected_hand_built() -> Document {
    let red = Inline::Text(TextRun {
        text: "red".into(),
        styles: Styles {
            text_color: Some("red".into()),
            ..Default::default()
        },
        link: None,
        comments: vec![cm("abc")],
    });
    let link = Inline::Text(TextRun {
        text: " site".into(),
        styles: Styles::default(),
        link: Some("https://x.org".into()),
        comments: vec![],
    });
    let interlink = Inline::Element {
        kind: "interlinkingLinkInline".into(),
        attrs: p(&[
            ("docId", "d-1".into()),
            ("title", "Other".into()),
            ("trigger", "/".into()),
            ("disabled", false.into()),
        ]),
    };
    Document {
        blocks: vec![
            Block {
                id: "h1".into(),
                kind: "heading".into(),
                props: with(&[("level", 2.0.into()), ("isToggleable", false.into())]),
                content: BlockContent::Inline {
                    inline: vec![t("Title")],
                },
                children: vec![],
            },
            Block {
                id: "p1".into(),
                kind: "paragraph".into(),
                props: with(&[]),
                content: BlockContent::Inline {
                    inline: vec![
                        t("Hello "),
                        bold("world"),
                        link,
                        Inline::HardBreak,
                        interlink,
                        red,
                    ],
                },
                children: vec![
                    Block {
                        id: "c1".into(),
                        kind: "checkListItem".into(),
                        props: with(&[("checked", true.into())]),
                        content: BlockContent::Inline {
                            inline: vec![t("done")],
                        },
                        children: vec![],
                    },
                    Block {
                        id: "n1".into(),
                        kind: "numberedListItem".into(),
                        props: with(&[("start", PropValue::Undefined)]),
                        content: BlockContent::Inline { inline: vec![] },
                        children: vec![],
                    },
                ],
            },
            Block {
                id: "code1".into(),
                kind: "codeBlock".into(),
                props: p(&[("language", "rust".into())]),
                content: BlockContent::Inline {
                    inline: vec![t("fn main() {}\nlet x = 1;")],
                },
                children: vec![],
            },
            Block {
                id: "t1".into(),
                kind: "table".into(),
                props: p(&[("textColor", "default".into())]),
                content: BlockContent::Table {
                    table: TableContent {
                        rows: vec![
                            TableRow {
                                cells: vec![
                                    cell(true, "r0c0", Some(vec![120.0])),
                                    cell(true, "r0c1", None),
                                ],
                            },
                            TableRow {
                                cells: vec![cell(false, "r1c0", None), cell(false, "r1c1", None)],
                            },
                        ],
                    },
                },
                children: vec![],
            },
            Block {
                id: "u1".into(),
                kind: "mermaid".into(),
                props: p(&[("theme", "dark".into())]),
                content: BlockContent::Opaque {
                    text: "graph TD".into(),
                    hidden_blocks: 0,
                },
                children: vec![],
            },
            Block {
                id: "d1".into(),
                kind: "divider".into(),
                props: Props::new(),
                content: BlockContent::None,
                children: vec![],
            },
        ],
        ..Document::default()
    }
}

fn content_node(d: &Doc, f: &XmlFragmentRef, i: u32) -> XmlElementRef {
    let txn = d.transact();
    let root = root_group(&txn, f).unwrap();
    let XmlOut::Element(c) = root.get(&txn, i).unwrap() else {
        panic!()
    };
    let XmlOut::Element(n) = c.get(&txn, 0).unwrap() else {
        panic!()
    };
    n
}

fn attr_of(d: &Doc, el: &XmlElementRef, k: &str) -> Option<Any> {
    match el.get_attribute(&d.transact(), k) {
        Some(Out::Any(a)) => Some(a),
        _ => None,
    }
}

fn sync(from: &Doc, to: &Doc) {
    let sv = to.transact().state_vector();
    let upd = from.transact().encode_state_as_update_v1(&sv);
    to.transact_mut()
        .apply_update(Update::decode_v1(&upd).unwrap())
        .unwrap();
}

fn text_node(d: &Doc, f: &XmlFragmentRef) -> yrs::XmlTextRef {
    let n = content_node(d, f, 0);
    let txn = d.transact();
    let XmlOut::Text(x) = n.get(&txn, 0).unwrap() else {
        panic!()
    };
    x
}
