//! Tests of the model (`cargo test -p docs-client --lib blocknote`).

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
                ("comment--abc".into(), flag()),
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
        comments: vec!["comment--abc".into()],
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
    }
}

#[test]
fn read_hand_built_layout_exactly() {
    let (d, f) = hand_built();
    assert_eq!(read(&d, &f), expected_hand_built());
}

#[test]
fn unknown_block_is_opaque_and_refuses_edits_but_moves_and_deletes() {
    let (d, f) = hand_built();
    let before = d.transact().state_vector();
    {
        let mut txn = d.transact_mut();
        let e = set_block_text(&mut txn, &f, "u1", "x").unwrap_err();
        assert!(matches!(e, ModelError::OpaqueBlock { .. }), "{e}");
        let e = update_block(&mut txn, &f, "u1", Some("paragraph"), &Props::new()).unwrap_err();
        assert!(matches!(e, ModelError::OpaqueBlock { .. }));
    }
    assert_eq!(
        d.transact().state_vector(),
        before,
        "refused operations changed nothing"
    );
    {
        let mut txn = d.transact_mut();
        move_block(&mut txn, &f, "u1", &Position::Start).unwrap();
    }
    let doc = read(&d, &f);
    assert_eq!(
        doc.blocks[0],
        expected_hand_built().blocks[4],
        "moved opaque block is identical"
    );
    {
        let mut txn = d.transact_mut();
        delete_blocks(&mut txn, &f, &["u1".into()], ChildrenMode::Delete).unwrap();
    }
    assert!(read(&d, &f).find("u1").is_none());
}

fn all_writable() -> Vec<NewBlock> {
    let table = TableContent {
        rows: vec![
            TableRow {
                cells: vec![TableCell {
                    header: true,
                    props: Props::new(),
                    colwidth: Some(vec![100.0]),
                    content: vec![t("A")],
                }],
            },
            TableRow {
                cells: vec![TableCell {
                    header: false,
                    props: p(&[("colspan", 2.0.into()), ("backgroundColor", "red".into())]),
                    colwidth: None,
                    content: vec![bold("b")],
                }],
            },
        ],
    };
    vec![
        NewBlock::new("paragraph")
            .text("Hello **bold** *it* ~~s~~ `c` [l](https://a.b)")
            .prop("textAlignment", "center"),
        NewBlock::new("heading")
            .text("Head")
            .prop("level", 3.0)
            .prop("isToggleable", true),
        NewBlock::new("bulletListItem")
            .text("b")
            .child(NewBlock::new("bulletListItem").text("nested")),
        NewBlock::new("numberedListItem")
            .text("n")
            .prop("start", 3.0),
        NewBlock::new("numberedListItem").text("n2"),
        NewBlock::new("checkListItem")
            .text("c")
            .prop("checked", true),
        NewBlock::new("toggleListItem").text("tg"),
        NewBlock::new("quote").text("q").prop("textColor", "blue"),
        NewBlock::new("codeBlock")
            .text("let a = **1**;")
            .prop("language", "rust"),
        NewBlock::new("divider"),
        NewBlock::new("pageBreak"),
        NewBlock::new("image")
            .prop("url", "https://i/x.png")
            .prop("previewWidth", 300.0),
        NewBlock::new("video").prop("url", "https://v"),
        NewBlock::new("audio")
            .prop("url", "https://a")
            .prop("showPreview", false),
        NewBlock::new("file")
            .prop("url", "https://f")
            .prop("name", "f.pdf"),
        NewBlock {
            kind: "table".into(),
            props: Props::new(),
            content: Some(NewContent::Table(table)),
            children: vec![],
        },
        NewBlock::new("callout").text("note").prop("emoji", "🔥"),
        NewBlock::new("pdf").prop("url", "https://p.pdf"),
        NewBlock::new("paragraph").inline(vec![
            t("see "),
            Inline::Element {
                kind: "interlinkingLinkInline".into(),
                attrs: p(&[
                    ("docId", "x".into()),
                    ("title", "X".into()),
                    ("trigger", "/".into()),
                    ("disabled", false.into()),
                ]),
            },
            Inline::HardBreak,
            Inline::Text(TextRun::styled(
                "u",
                Styles {
                    underline: true,
                    text_color: Some("red".into()),
                    background_color: Some("blue".into()),
                    ..Default::default()
                },
            )),
        ]),
    ]
}

#[test]
fn every_writable_type_round_trips() {
    let (d, f) = doc();
    let blocks = all_writable();
    let ids = {
        let mut txn = d.transact_mut();
        insert_blocks(&mut txn, &f, &Position::End, &blocks).unwrap()
    };
    let got = read(&d, &f);
    assert_eq!(got.all_blocks().len(), ids.len());
    let ids_read: Vec<_> = got.all_blocks().iter().map(|b| b.id.clone()).collect();
    assert_eq!(ids_read, ids);
    for id in &ids {
        assert!(uuid::Uuid::parse_str(id).is_ok_and(|u| u.get_version_num() == 4));
    }
    let b = |i: usize| &got.blocks[i];
    assert_eq!(
        b(0).inline().unwrap(),
        &[
            t("Hello "),
            bold("bold"),
            t(" "),
            Inline::Text(TextRun::styled(
                "it",
                Styles {
                    italic: true,
                    ..Default::default()
                }
            )),
            t(" "),
            Inline::Text(TextRun::styled(
                "s",
                Styles {
                    strike: true,
                    ..Default::default()
                }
            )),
            t(" "),
            Inline::Text(TextRun::styled(
                "c",
                Styles {
                    code: true,
                    ..Default::default()
                }
            )),
            t(" "),
            Inline::Text(TextRun {
                text: "l".into(),
                link: Some("https://a.b".into()),
                ..Default::default()
            }),
        ][..]
    );
    assert_eq!(
        b(0).props,
        with(&[])
            .into_iter()
            .map(|(k, v)| if k == "textAlignment" {
                (k, "center".into())
            } else {
                (k, v)
            })
            .collect()
    );
    assert_eq!(
        b(1).props,
        with(&[("level", 3.0.into()), ("isToggleable", true.into())])
    );
    assert_eq!(b(2).children[0].plain_text(), "nested");
    assert_eq!(b(3).props["start"], PropValue::Number(3.0));
    assert_eq!(b(4).props["start"], PropValue::Undefined);
    assert_eq!(b(5).props["checked"], PropValue::Bool(true));
    assert_eq!(b(8).plain_text(), "let a = **1**;");
    assert_eq!(b(8).props, p(&[("language", "rust".into())]));
    assert_eq!(b(9).content, BlockContent::None);
    assert_eq!(
        b(11).props,
        p(&[
            ("textAlignment", "left".into()),
            ("backgroundColor", "default".into()),
            ("name", "".into()),
            ("url", "https://i/x.png".into()),
            ("caption", "".into()),
            ("showPreview", true.into()),
            ("previewWidth", 300.0.into()),
        ])
    );
    assert_eq!(b(12).props["previewWidth"], PropValue::Undefined);
    assert_eq!(b(13).props["showPreview"], PropValue::Bool(false));
    let BlockContent::Table { table } = &b(15).content else {
        panic!()
    };
    assert!(table.rows[0].cells[0].header && !table.rows[1].cells[0].header);
    assert_eq!(table.rows[0].cells[0].colwidth, Some(vec![100.0]));
    assert_eq!(
        table.rows[1].cells[0].props["colspan"],
        PropValue::Number(2.0)
    );
    assert_eq!(
        table.rows[1].cells[0].props["backgroundColor"],
        PropValue::String("red".into())
    );
    assert_eq!(table.rows[1].cells[0].content, vec![bold("b")]);
    assert_eq!(b(16).props["emoji"], PropValue::String("🔥".into()));
    assert_eq!(b(17).props["showPreview"], PropValue::Bool(true));
    assert_eq!(
        b(18).inline().unwrap(),
        all_writable()[18]
            .content
            .as_ref()
            .map(|c| match c {
                NewContent::Inline(i) => i.as_slice(),
                _ => &[],
            })
            .unwrap()
    );

    // the same blocks re-read after a full Yjs update exchange are identical
    let d2 = Doc::new();
    let f2 = document_fragment(&d2);
    let upd = d
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    d2.transact_mut()
        .apply_update(Update::decode_v1(&upd).unwrap())
        .unwrap();
    assert_eq!(read(&d2, &f2), got);
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

#[test]
fn attribute_value_types_at_the_yrs_level() {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        insert_blocks(&mut txn, &f, &Position::End, &all_writable()).unwrap();
    }
    let txn = d.transact();
    let root = root_group(&txn, &f).unwrap();
    assert_eq!(f.len(&txn), 1, "exactly one root blockGroup");
    let XmlOut::Element(c0) = root.get(&txn, 0).unwrap() else {
        panic!()
    };
    assert_eq!(c0.tag().as_ref(), "blockContainer");
    assert_eq!(c0.attributes(&txn).count(), 1, "blockContainer has only id");
    drop(txn);
    let h = content_node(&d, &f, 1);
    assert_eq!(h.tag().as_ref(), "heading");
    assert!(matches!(
        attr_of(&d, &h, "level"),
        Some(Any::Number(Number::Int(3)))
    ));
    assert_eq!(attr_of(&d, &h, "isToggleable"), Some(Any::Bool(true)));
    assert_eq!(attr_of(&d, &h, "textColor"), Some(s("default")));
    let n = content_node(&d, &f, 4);
    assert_eq!(attr_of(&d, &n, "start"), Some(Any::Undefined));
    let ck = content_node(&d, &f, 5);
    assert_eq!(attr_of(&d, &ck, "checked"), Some(Any::Bool(true)));
    let img = content_node(&d, &f, 11);
    assert!(matches!(
        attr_of(&d, &img, "previewWidth"),
        Some(Any::Number(_))
    ));
    assert_eq!(attr_of(&d, &img, "showPreview"), Some(Any::Bool(true)));
    let vid = content_node(&d, &f, 12);
    assert_eq!(attr_of(&d, &vid, "previewWidth"), Some(Any::Undefined));
    // marks: bold is {} ; link is {href}
    let para = content_node(&d, &f, 0);
    let txn = d.transact();
    let XmlOut::Text(x) = para.get(&txn, 0).unwrap() else {
        panic!()
    };
    let diff = x.diff(&txn, yrs::types::text::YChange::identity);
    let bold_attrs = diff[1].attributes.as_ref().unwrap();
    assert_eq!(bold_attrs.get("bold"), Some(&flag()));
    let link_attrs = diff.last().unwrap().attributes.as_ref().unwrap();
    assert_eq!(link_attrs.get("link"), Some(&map1("href", "https://a.b")));
    // table cells: tableHeader -> tableParagraph -> text; colwidth array; omitted when None
    drop(txn);
    let tb = content_node(&d, &f, 15);
    let txn = d.transact();
    let XmlOut::Element(row) = tb.get(&txn, 0).unwrap() else {
        panic!()
    };
    let XmlOut::Element(th) = row.get(&txn, 0).unwrap() else {
        panic!()
    };
    assert_eq!(th.tag().as_ref(), "tableHeader");
    assert!(matches!(
        th.get_attribute(&txn, "colspan"),
        Some(Out::Any(Any::Number(Number::Int(1))))
    ));
    assert!(matches!(
        th.get_attribute(&txn, "colwidth"),
        Some(Out::Any(Any::Array(_)))
    ));
    let XmlOut::Element(tp) = th.get(&txn, 0).unwrap() else {
        panic!()
    };
    assert_eq!(tp.tag().as_ref(), "tableParagraph");
    let XmlOut::Element(row2) = tb.get(&txn, 1).unwrap() else {
        panic!()
    };
    let XmlOut::Element(td) = row2.get(&txn, 0).unwrap() else {
        panic!()
    };
    assert_eq!(td.tag().as_ref(), "tableCell");
    assert!(td.get_attribute(&txn, "colwidth").is_none());
}

#[test]
fn validation_refuses_before_mutating() {
    let (d, f) = hand_built();
    let sv = d.transact().state_vector();
    type Check = fn(&ModelError) -> bool;
    let cases: Vec<(NewBlock, Check)> = vec![
        (NewBlock::new("fancy"), |e| {
            matches!(e, ModelError::UnknownBlockType { .. })
        }),
        (NewBlock::new("uploadLoader"), |e| {
            matches!(e, ModelError::NotWritable { .. })
        }),
        (NewBlock::new("paragraph").prop("level", 2.0), |e| {
            matches!(e, ModelError::UnknownProp { .. })
        }),
        (NewBlock::new("heading").prop("level", "2"), |e| {
            matches!(e, ModelError::WrongPropType { .. })
        }),
        (NewBlock::new("heading").prop("level", 9.0), |e| {
            matches!(e, ModelError::WrongPropType { .. })
        }),
        (
            NewBlock::new("checkListItem").prop("checked", "true"),
            |e| matches!(e, ModelError::WrongPropType { .. }),
        ),
        (NewBlock::new("paragraph").prop("textColor", "mauve"), |e| {
            matches!(e, ModelError::WrongPropType { .. })
        }),
        (NewBlock::new("divider").text("x"), |e| {
            matches!(e, ModelError::InvalidContent { .. })
        }),
        (
            NewBlock::new("paragraph").inline(vec![Inline::Element {
                kind: "mention".into(),
                attrs: Props::new(),
            }]),
            |e| matches!(e, ModelError::UnknownInlineElement { .. }),
        ),
        // a valid parent with an invalid child: nothing at all is written
        (
            NewBlock::new("paragraph").child(NewBlock::new("nope")),
            |e| matches!(e, ModelError::UnknownBlockType { .. }),
        ),
    ];
    for (b, check) in cases {
        let e = {
            let mut txn = d.transact_mut();
            insert_blocks(
                &mut txn,
                &f,
                &Position::End,
                &[NewBlock::new("paragraph"), b],
            )
            .unwrap_err()
        };
        assert!(check(&e), "unexpected {e:?}");
        assert!(!e.to_string().is_empty());
    }
    let e = NewBlock::from_json(serde_json::json!({"type":"paragraph","content":[{"type":"text","text":"x","styles":{"blink":true}}]})).unwrap_err();
    assert!(matches!(e, ModelError::InvalidJson { .. }));
    let ok = NewBlock::from_json(
        serde_json::json!({"type":"heading","props":{"level":2},"content":"Hi **there**"}),
    )
    .unwrap();
    validate_block(&ok).unwrap();
    {
        let mut txn = d.transact_mut();
        let e = insert_blocks(
            &mut txn,
            &f,
            &Position::After {
                id: "missing".into(),
            },
            &[ok],
        )
        .unwrap_err();
        assert!(matches!(e, ModelError::BlockNotFound { .. }));
    }
    assert_eq!(d.transact().state_vector(), sv);
}

#[test]
fn positions_delete_lift_and_move() {
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    let a = insert_blocks(
        &mut txn,
        &f,
        &Position::End,
        &[NewBlock::new("paragraph").text("a")],
    )
    .unwrap()[0]
        .clone();
    let c = insert_blocks(
        &mut txn,
        &f,
        &Position::End,
        &[NewBlock::new("paragraph").text("c")],
    )
    .unwrap()[0]
        .clone();
    let b = insert_blocks(
        &mut txn,
        &f,
        &Position::After { id: a.clone() },
        &[NewBlock::new("paragraph").text("b")],
    )
    .unwrap()[0]
        .clone();
    let z = insert_blocks(
        &mut txn,
        &f,
        &Position::Start,
        &[NewBlock::new("paragraph").text("z")],
    )
    .unwrap()[0]
        .clone();
    let k1 = insert_blocks(
        &mut txn,
        &f,
        &Position::LastChildOf { id: b.clone() },
        &[NewBlock::new("paragraph").text("k1")],
    )
    .unwrap()[0]
        .clone();
    insert_blocks(
        &mut txn,
        &f,
        &Position::LastChildOf { id: b.clone() },
        &[NewBlock::new("paragraph").text("k2")],
    )
    .unwrap();
    insert_blocks(
        &mut txn,
        &f,
        &Position::Before { id: k1.clone() },
        &[NewBlock::new("paragraph").text("k0")],
    )
    .unwrap();
    let texts = |txn: &yrs::TransactionMut| -> Vec<String> {
        read_document(txn, &f)
            .all_blocks()
            .iter()
            .map(|b| b.plain_text())
            .collect()
    };
    assert_eq!(texts(&txn), ["z", "a", "b", "k0", "k1", "k2", "c"]);
    let e = move_block(&mut txn, &f, &b, &Position::After { id: k1.clone() }).unwrap_err();
    assert!(matches!(e, ModelError::MoveIntoItself { .. }));
    move_block(&mut txn, &f, &z, &Position::LastChildOf { id: c.clone() }).unwrap();
    assert_eq!(texts(&txn), ["a", "b", "k0", "k1", "k2", "c", "z"]);
    let docu = read_document(&txn, &f);
    assert_eq!(docu.blocks[2].children[0].id, z, "moved block keeps its id");
    delete_blocks(&mut txn, &f, std::slice::from_ref(&b), ChildrenMode::Lift).unwrap();
    assert_eq!(texts(&txn), ["a", "k0", "k1", "k2", "c", "z"]);
    assert_eq!(read_document(&txn, &f).blocks.len(), 5);
    delete_blocks(&mut txn, &f, std::slice::from_ref(&c), ChildrenMode::Delete).unwrap();
    assert_eq!(texts(&txn), ["a", "k0", "k1", "k2"]);
    let all: Vec<String> = read_document(&txn, &f)
        .blocks
        .iter()
        .map(|b| b.id.clone())
        .collect();
    delete_blocks(&mut txn, &f, &all, ChildrenMode::Delete).unwrap();
    let left = read_document(&txn, &f);
    assert_eq!(
        left.blocks.len(),
        1,
        "an emptied document keeps one empty paragraph"
    );
    assert_eq!(left.blocks[0].kind, "paragraph");
}

#[test]
fn change_type_and_props_keeps_id_and_content() {
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    let id = insert_blocks(
        &mut txn,
        &f,
        &Position::End,
        &[NewBlock::new("paragraph")
            .text("Some **text**")
            .prop("textColor", "red")],
    )
    .unwrap()[0]
        .clone();
    update_block(
        &mut txn,
        &f,
        &id,
        Some("heading"),
        &p(&[("level", 2.0.into())]),
    )
    .unwrap();
    let b = read_document(&txn, &f).blocks[0].clone();
    assert_eq!((b.id.as_str(), b.kind.as_str()), (id.as_str(), "heading"));
    assert_eq!(
        b.props,
        p(&[
            ("backgroundColor", "default".into()),
            ("textColor", "red".into()),
            ("textAlignment", "left".into()),
            ("level", 2.0.into()),
            ("isToggleable", false.into())
        ])
    );
    assert_eq!(b.inline().unwrap(), &[t("Some "), bold("text")][..]);
    update_block(&mut txn, &f, &id, Some("checkListItem"), &Props::new()).unwrap();
    update_block(&mut txn, &f, &id, None, &p(&[("checked", true.into())])).unwrap();
    let b = read_document(&txn, &f).blocks[0].clone();
    assert_eq!(b.kind, "checkListItem");
    assert_eq!(b.props["checked"], PropValue::Bool(true));
    let e = update_block(&mut txn, &f, &id, Some("divider"), &Props::new()).unwrap_err();
    assert!(matches!(e, ModelError::IncompatibleTypeChange { .. }));
    update_block(&mut txn, &f, &id, Some("codeBlock"), &Props::new()).unwrap();
    assert_eq!(
        read_document(&txn, &f).blocks[0].inline().unwrap(),
        &[t("Some text")][..]
    );
    let e = update_block(&mut txn, &f, &id, None, &p(&[("level", 1.0.into())])).unwrap_err();
    assert!(matches!(e, ModelError::UnknownProp { .. }));
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

#[test]
fn minimal_diff_keeps_concurrent_typing() {
    let a = Doc::with_client_id(1);
    let fa = document_fragment(&a);
    let id = {
        let mut txn = a.transact_mut();
        insert_blocks(
            &mut txn,
            &fa,
            &Position::End,
            &[NewBlock::new("paragraph").text("Hello brave world")],
        )
        .unwrap()[0]
            .clone()
    };
    let b = Doc::with_client_id(2);
    let fb = document_fragment(&b);
    sync(&a, &b);
    // B types in the middle of "brave"
    {
        let x = text_node(&b, &fb);
        let mut txn = b.transact_mut();
        x.insert(&mut txn, 9, "XY");
    }
    // A changes "world" into "**planet**" concurrently
    {
        let mut txn = a.transact_mut();
        set_block_text(&mut txn, &fa, &id, "Hello brave **planet**").unwrap();
    }
    sync(&a, &b);
    sync(&b, &a);
    let ra = read(&a, &fa);
    assert_eq!(ra, read(&b, &fb));
    assert_eq!(
        ra.blocks[0].inline().unwrap(),
        &[t("Hello braXYve "), bold("planet")][..]
    );
}

#[test]
fn mark_only_change_uses_format_and_keeps_text() {
    let (d, f) = doc();
    let id = {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[NewBlock::new("paragraph").text("one two three")],
        )
        .unwrap()[0]
            .clone()
    };
    let sv = d.transact().state_vector();
    {
        let mut txn = d.transact_mut();
        set_block_text(&mut txn, &f, &id, "one **two** three").unwrap();
    }
    let upd = d.transact().encode_state_as_update_v1(&sv);
    assert_eq!(
        read(&d, &f).blocks[0].inline().unwrap(),
        &[t("one "), bold("two"), t(" three")][..]
    );
    // the update only holds format markers, not the text again
    assert!(!String::from_utf8_lossy(&upd).contains("two"), "{upd:?}");
    {
        let mut txn = d.transact_mut();
        set_block_text(&mut txn, &f, &id, "one two three").unwrap();
    }
    assert_eq!(
        read(&d, &f).blocks[0].inline().unwrap(),
        &[t("one two three")][..]
    );
}

#[test]
fn one_word_change_in_a_long_paragraph_is_a_small_update() {
    let (d, f) = doc();
    let words: Vec<String> = (0..500).map(|i| format!("w{i}")).collect();
    let text = words.join(" ");
    assert!(text.len() > 2000);
    let id = {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[NewBlock::new("paragraph").text(text.as_str())],
        )
        .unwrap()[0]
            .clone()
    };
    let sv = d.transact().state_vector();
    let changed = text.replace("w200", "changed");
    {
        let mut txn = d.transact_mut();
        set_block_text(&mut txn, &f, &id, &changed).unwrap();
    }
    let upd = d.transact().encode_state_as_update_v1(&sv);
    assert!(upd.len() < 200, "update is {} bytes", upd.len());
    assert_eq!(read(&d, &f).blocks[0].plain_text(), changed);
}

#[test]
fn multibyte_text_diffs_in_both_offset_kinds() {
    for kind in [OffsetKind::Bytes, OffsetKind::Utf16] {
        let d = Doc::with_options(Options {
            offset_kind: kind,
            ..Options::default()
        });
        let f = document_fragment(&d);
        let id = {
            let mut txn = d.transact_mut();
            insert_blocks(
                &mut txn,
                &f,
                &Position::End,
                &[NewBlock::new("paragraph").text("café 😀 naïve **été**")],
            )
            .unwrap()[0]
                .clone()
        };
        for next in [
            "café 😀😀 naïve **été**",
            "cafe 😀 naïve *été*",
            "😀 é",
            "",
            "a<br>b 🎉 **c**",
        ] {
            let mut txn = d.transact_mut();
            set_block_text(&mut txn, &f, &id, next).unwrap();
            drop(txn);
            let got = read(&d, &f).blocks[0].clone();
            assert_eq!(
                got.inline().unwrap(),
                &parse_inline(next)[..],
                "{kind:?} {next}"
            );
        }
        let x = text_node(&d, &f);
        assert_eq!(x.get_string(&d.transact()), "a");
    }
}

#[test]
fn hard_breaks_and_elements_in_the_diff() {
    let (d, f) = doc();
    let id = {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[NewBlock::new("paragraph").text("first line")],
        )
        .unwrap()[0]
            .clone()
    };
    let target = vec![t("first"), Inline::HardBreak, t("second "), bold("line")];
    {
        let mut txn = d.transact_mut();
        set_block_content(&mut txn, &f, &id, &NewContent::Inline(target.clone())).unwrap();
    }
    assert_eq!(read(&d, &f).blocks[0].inline().unwrap(), &target[..]);
    let back = vec![t("first line")];
    {
        let mut txn = d.transact_mut();
        set_block_content(&mut txn, &f, &id, &NewContent::Inline(back.clone())).unwrap();
    }
    assert_eq!(read(&d, &f).blocks[0].inline().unwrap(), &back[..]);
}

#[test]
fn comments_survive_text_edits_elsewhere() {
    let (d, f) = hand_built();
    {
        let mut txn = d.transact_mut();
        set_block_content(
            &mut txn,
            &f,
            "p1",
            &NewContent::Inline(vec![
                t("Hi "),
                bold("world"),
                Inline::Text(TextRun {
                    text: " site".into(),
                    link: Some("https://x.org".into()),
                    ..Default::default()
                }),
                Inline::HardBreak,
                Inline::Element {
                    kind: "interlinkingLinkInline".into(),
                    attrs: p(&[
                        ("docId", "d-1".into()),
                        ("title", "Other".into()),
                        ("trigger", "/".into()),
                        ("disabled", false.into()),
                    ]),
                },
                Inline::Text(TextRun::styled(
                    "red",
                    Styles {
                        text_color: Some("red".into()),
                        ..Default::default()
                    },
                )),
            ]),
        )
        .unwrap();
    }
    let got = read(&d, &f);
    let inline = got.blocks[1].inline().unwrap();
    assert_eq!(inline[0], t("Hi "));
    let Inline::Text(last) = inline.last().unwrap() else {
        panic!()
    };
    assert_eq!(last.comments, vec!["comment--abc".to_string()]);
}

const SAMPLE_MD: &str = "# Title

Intro with **bold**, *italic*, ~~gone~~, `code` and a [link](https://example.com).\\
Second line.

## Lists

- one
- two
  - nested
    1. deep

3. three
4. four

- [ ] todo
- [x] done

> quoted

```rust
fn main() {}
```

---

| A | B |
| --- | --- |
| 1 | **2** |

![alt text](https://img/x.png)
";

#[test]
fn markdown_import_rich_sample() {
    let blocks = import_markdown(SAMPLE_MD);
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        insert_blocks(&mut txn, &f, &Position::End, &blocks).unwrap();
    }
    let mut got = read(&d, &f);
    fn clear(b: &mut Block) {
        b.id.clear();
        b.children.iter_mut().for_each(clear);
    }
    got.blocks.iter_mut().for_each(clear);
    let blk = |kind: &str, props: Props, inline: Vec<Inline>, children: Vec<Block>| Block {
        id: String::new(),
        kind: kind.into(),
        props,
        content: BlockContent::Inline { inline },
        children,
    };
    let it = |s: &str| {
        Inline::Text(TextRun::styled(
            s,
            Styles {
                italic: true,
                ..Default::default()
            },
        ))
    };
    let st = |s: &str| {
        Inline::Text(TextRun::styled(
            s,
            Styles {
                strike: true,
                ..Default::default()
            },
        ))
    };
    let cd = |s: &str| {
        Inline::Text(TextRun::styled(
            s,
            Styles {
                code: true,
                ..Default::default()
            },
        ))
    };
    let lk = Inline::Text(TextRun {
        text: "link".into(),
        link: Some("https://example.com".into()),
        ..Default::default()
    });
    let h = |l: f64| with(&[("level", l.into()), ("isToggleable", false.into())]);
    let num = |s: Option<f64>| {
        with(&[(
            "start",
            s.map(PropValue::Number).unwrap_or(PropValue::Undefined),
        )])
    };
    let cellp = || with(&[("colspan", 1.0.into()), ("rowspan", 1.0.into())]);
    let expected = vec![
        blk("heading", h(1.0), vec![t("Title")], vec![]),
        blk(
            "paragraph",
            with(&[]),
            vec![
                t("Intro with "),
                bold("bold"),
                t(", "),
                it("italic"),
                t(", "),
                st("gone"),
                t(", "),
                cd("code"),
                t(" and a "),
                lk,
                t("."),
                Inline::HardBreak,
                t("Second line."),
            ],
            vec![],
        ),
        blk("heading", h(2.0), vec![t("Lists")], vec![]),
        blk("bulletListItem", with(&[]), vec![t("one")], vec![]),
        blk(
            "bulletListItem",
            with(&[]),
            vec![t("two")],
            vec![blk(
                "bulletListItem",
                with(&[]),
                vec![t("nested")],
                vec![blk("numberedListItem", num(None), vec![t("deep")], vec![])],
            )],
        ),
        blk("numberedListItem", num(Some(3.0)), vec![t("three")], vec![]),
        blk("numberedListItem", num(None), vec![t("four")], vec![]),
        blk(
            "checkListItem",
            with(&[("checked", false.into())]),
            vec![t("todo")],
            vec![],
        ),
        blk(
            "checkListItem",
            with(&[("checked", true.into())]),
            vec![t("done")],
            vec![],
        ),
        blk(
            "quote",
            p(&[
                ("backgroundColor", "default".into()),
                ("textColor", "default".into()),
            ]),
            vec![t("quoted")],
            vec![],
        ),
        blk(
            "codeBlock",
            p(&[("language", "rust".into())]),
            vec![t("fn main() {}")],
            vec![],
        ),
        Block {
            id: String::new(),
            kind: "divider".into(),
            props: Props::new(),
            content: BlockContent::None,
            children: vec![],
        },
        Block {
            id: String::new(),
            kind: "table".into(),
            props: p(&[("textColor", "default".into())]),
            content: BlockContent::Table {
                table: TableContent {
                    rows: vec![
                        TableRow {
                            cells: vec![
                                TableCell {
                                    header: true,
                                    props: cellp(),
                                    colwidth: None,
                                    content: vec![t("A")],
                                },
                                TableCell {
                                    header: true,
                                    props: cellp(),
                                    colwidth: None,
                                    content: vec![t("B")],
                                },
                            ],
                        },
                        TableRow {
                            cells: vec![
                                TableCell {
                                    header: false,
                                    props: cellp(),
                                    colwidth: None,
                                    content: vec![t("1")],
                                },
                                TableCell {
                                    header: false,
                                    props: cellp(),
                                    colwidth: None,
                                    content: vec![bold("2")],
                                },
                            ],
                        },
                    ],
                },
            },
            children: vec![],
        },
        Block {
            id: String::new(),
            kind: "image".into(),
            props: p(&[
                ("textAlignment", "left".into()),
                ("backgroundColor", "default".into()),
                ("name", "".into()),
                ("url", "https://img/x.png".into()),
                ("caption", "alt text".into()),
                ("showPreview", true.into()),
                ("previewWidth", PropValue::Undefined),
            ]),
            content: BlockContent::None,
            children: vec![],
        },
    ];
    assert_eq!(got.blocks, expected);
}

#[test]
fn markdown_export_golden_with_fidelity() {
    let (d, f) = hand_built();
    {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[
                NewBlock::new("heading")
                    .text("Toggle")
                    .prop("level", 3.0)
                    .prop("isToggleable", true)
                    .prop("textAlignment", "center"),
                NewBlock::new("numberedListItem")
                    .text("a")
                    .prop("start", 5.0),
                NewBlock::new("numberedListItem").text("b").child(
                    NewBlock::new("checkListItem")
                        .text("c")
                        .prop("checked", true),
                ),
                NewBlock::new("callout").text("Note"),
                NewBlock::new("paragraph").inline(vec![
                    Inline::Text(TextRun::styled(
                        "u",
                        Styles {
                            underline: true,
                            ..Default::default()
                        },
                    )),
                    t(" 1. *x*"),
                ]),
            ],
        )
        .unwrap();
    }
    let docu = read(&d, &f);
    let out = export_markdown(&docu.blocks, &ExportOptions::default());
    let expected = "## Title

Hello **world**[ site](https://x.org)\\
[Other](/docs/d-1/)red

- [x] done

1. 

```rust
fn main() {}
let x = 1;
```

| r0c0 | r0c1 |
| --- | --- |
| r1c0 | r1c1 |

graph TD

---

### Toggle

5. a
6. b
   - [x] c

> Note

u 1. \\*x\\*
";
    assert_eq!(out.markdown, expected, "\n{}", out.markdown);
    let mut lost: Vec<String> = out
        .fidelity
        .iter()
        .map(|l| format!("{}:{}:{}", l.block_type, l.block_id, l.dropped))
        .collect();
    lost.retain(|l| !l.contains(":h1:"));
    let ids: Vec<String> = docu.blocks.iter().map(|b| b.id.clone()).collect();
    let want = vec![
        "paragraph:p1:interlinkingLinkInline (shown as a link)".to_string(),
        "paragraph:p1:textColor=red".into(),
        "paragraph:p1:nesting (children exported unindented)".into(),
        "table:t1:colwidth".into(),
        "mermaid:u1:unknown block `mermaid`".into(),
        format!("heading:{}:textAlignment=center", ids[6]),
        format!("heading:{}:toggle", ids[6]),
        format!("callout:{}:callout", ids[9]),
        format!("paragraph:{}:underline", ids[10]),
    ];
    assert_eq!(lost, want);
    let anchored = export_markdown(&docu.blocks[..1], &ExportOptions { anchors: true });
    assert_eq!(anchored.markdown, "<!-- block:h1 -->\n## Title\n");
    // export → import keeps the text of every block
    let re = import_markdown(&out.markdown);
    assert!(re.len() >= 10);
}

#[test]
fn outline_sections_ranges_and_budget() {
    let md = "# A\n\none two\n\n## A1\n\nthree\n\n## A2\n\nfour five six\n\n# B\n\nseven\n";
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        insert_blocks(&mut txn, &f, &Position::End, &import_markdown(md)).unwrap();
    }
    let docu = read(&d, &f);
    let o = outline(&docu);
    assert_eq!(o.total_blocks, 8);
    assert_eq!(o.headings.len(), 2);
    assert_eq!(
        (
            o.headings[0].text.as_str(),
            o.headings[0].blocks,
            o.headings[0].words
        ),
        ("A", 6, 9)
    );
    assert_eq!(
        o.headings[0]
            .children
            .iter()
            .map(|c| (c.text.as_str(), c.level, c.blocks))
            .collect::<Vec<_>>(),
        [("A1", 2, 2), ("A2", 2, 2)]
    );
    let sec = read_section(
        &docu,
        &SectionSelector::Heading("a1".into()),
        &ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(sec.markdown, "## A1\n\nthree\n");
    assert!(!sec.truncated);
    let sec = read_section(
        &docu,
        &SectionSelector::Id(docu.blocks[0].id.clone()),
        &ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(sec.block_ids.len(), 6);
    assert!(matches!(
        read_section(
            &docu,
            &SectionSelector::Heading("zz".into()),
            &ExportOptions::default()
        ),
        Err(ModelError::SectionNotFound { .. })
    ));
    let r = read_range(
        &docu,
        &docu.blocks[6].id,
        &docu.blocks[7].id,
        &ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(r.markdown, "# B\n\nseven\n");
    let mut start = StartAt::Beginning;
    let mut all = String::new();
    let mut rounds = 0;
    loop {
        let s = read_budget(&docu, &start, 12, &ExportOptions::default()).unwrap();
        assert!(s.markdown.len() <= 14 || s.block_ids.len() == 1);
        all.push_str(&s.markdown);
        rounds += 1;
        match s.next_block_id {
            Some(n) => {
                assert!(s.truncated);
                start = StartAt::Block(n)
            }
            None => break,
        }
    }
    assert!(rounds > 2);
    assert_eq!(
        all.replace('\n', ""),
        export_markdown(&docu.blocks, &ExportOptions::default())
            .markdown
            .replace('\n', "")
    );
}

#[test]
fn blocknote_json_shape() {
    let (d, f) = hand_built();
    let docu = read(&d, &f);
    let j = json::block_json(&docu.blocks[1]);
    assert_eq!(
        j["content"],
        serde_json::json!([
            {"type":"text","text":"Hello ","styles":{}},
            {"type":"text","text":"world","styles":{"bold":true}},
            // BlockNote appends a hard break to the link being built (golden-tested)
            {"type":"link","href":"https://x.org","content":[{"type":"text","text":" site\n","styles":{}}]},
            {"type":"interlinkingLinkInline","props":{"disabled":false,"docId":"d-1","title":"Other","trigger":"/"}},
            {"type":"text","text":"red","styles":{"textColor":"red"}}
        ])
    );
    assert_eq!(
        j["children"][1]["props"],
        serde_json::json!({"backgroundColor":"default","textColor":"default","textAlignment":"left"})
    );
    let h = json::block_json(&docu.blocks[0]);
    assert_eq!(h["props"]["level"], serde_json::json!(2));
    let tb = json::block_json(&docu.blocks[3]);
    assert_eq!(tb["content"]["type"], "tableContent");
    assert_eq!(tb["content"]["headerRows"], 1);
    assert_eq!(
        tb["content"]["columnWidths"],
        serde_json::json!([120, null])
    );
}

// ---------------------------------------------------------------------------------------------
// Property tests

#[derive(Debug, Clone)]
enum Op {
    Insert { at: usize, pos: u8, n: usize },
    Delete { at: usize, lift: bool },
    Move { at: usize, to: usize, pos: u8 },
    Text { at: usize, text: String },
    Retype { at: usize, kind: u8 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<usize>(), 0u8..6, 1usize..3).prop_map(|(at, pos, n)| Op::Insert { at, pos, n }),
        (any::<usize>(), any::<bool>()).prop_map(|(at, lift)| Op::Delete { at, lift }),
        (any::<usize>(), any::<usize>(), 0u8..4).prop_map(|(at, to, pos)| Op::Move { at, to, pos }),
        (any::<usize>(), "[a-z é😀*]{0,12}").prop_map(|(at, text)| Op::Text { at, text }),
        (any::<usize>(), 0u8..4).prop_map(|(at, kind)| Op::Retype { at, kind }),
    ]
}

fn check_well_formed(txn: &yrs::TransactionMut, f: &XmlFragmentRef) -> usize {
    assert_eq!(f.len(txn), 1, "one root node");
    let root = root_group(txn, f).expect("root blockGroup");
    let mut ids = std::collections::HashSet::new();
    fn walk(
        txn: &yrs::TransactionMut,
        g: &XmlElementRef,
        ids: &mut std::collections::HashSet<String>,
    ) -> usize {
        assert!(g.len(txn) > 0, "no empty blockGroup");
        let mut n = 0;
        for c in g.children(txn) {
            let XmlOut::Element(c) = c else {
                panic!("text in blockGroup")
            };
            assert_eq!(c.tag().as_ref(), "blockContainer");
            let Some(Out::Any(Any::String(id))) = c.get_attribute(txn, "id") else {
                panic!("no id")
            };
            assert!(ids.insert(id.to_string()), "duplicate id");
            let kids: Vec<_> = c.children(txn).collect();
            assert!(!kids.is_empty() && kids.len() <= 2);
            let XmlOut::Element(first) = &kids[0] else {
                panic!()
            };
            assert_ne!(first.tag().as_ref(), "blockGroup", "content node first");
            n += 1;
            if let Some(XmlOut::Element(g2)) = kids.get(1) {
                assert_eq!(g2.tag().as_ref(), "blockGroup");
                n += walk(txn, g2, ids);
            }
        }
        n
    }
    walk(txn, &root, &mut ids)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_operations_keep_a_well_formed_tree(ops in proptest::collection::vec(op(), 1..25)) {
        let (d, f) = doc();
        let mut txn = d.transact_mut();
        let mut expected = 0usize;
        for op in ops {
            let docu = read_document(&txn, &f);
            let all: Vec<Block> = docu.all_blocks().into_iter().cloned().collect();
            let pick = |i: usize| all.get(i % all.len().max(1)).cloned();
            match op {
                Op::Insert { at, pos, n } => {
                    let position = match (pick(at), pos) {
                        (None, _) | (_, 0) => Position::End,
                        (_, 1) => Position::Start,
                        (Some(b), 2) => Position::Before { id: b.id },
                        (Some(b), 3) => Position::After { id: b.id },
                        (Some(b), 4) => Position::FirstChildOf { id: b.id },
                        (Some(b), _) => Position::LastChildOf { id: b.id },
                    };
                    let blocks: Vec<NewBlock> = (0..n).map(|i| NewBlock::new("paragraph").text(format!("p{i}"))).collect();
                    insert_blocks(&mut txn, &f, &position, &blocks).unwrap();
                    expected += n;
                }
                Op::Delete { at, lift } => {
                    if let Some(b) = pick(at) {
                        let sub = b.walk().len();
                        delete_blocks(&mut txn, &f, std::slice::from_ref(&b.id), if lift { ChildrenMode::Lift } else { ChildrenMode::Delete }).unwrap();
                        expected -= if lift { 1 } else { sub };
                        if expected == 0 { expected = 1; }
                    }
                }
                Op::Move { at, to, pos } => {
                    if let (Some(b), Some(t)) = (pick(at), pick(to)) {
                        let position = match pos {
                            0 => Position::Before { id: t.id.clone() },
                            1 => Position::After { id: t.id.clone() },
                            2 => Position::LastChildOf { id: t.id.clone() },
                            _ => Position::End,
                        };
                        let r = move_block(&mut txn, &f, &b.id, &position);
                        let inside = b.walk().iter().any(|x| x.id == t.id);
                        prop_assert_eq!(r.is_err(), inside && pos < 3);
                    }
                }
                Op::Text { at, text } => {
                    if let Some(b) = pick(at) {
                        set_block_text(&mut txn, &f, &b.id, &text).unwrap();
                        let now = read_document(&txn, &f);
                        let got = now.find(&b.id).unwrap();
                        prop_assert_eq!(got.inline().unwrap(), &parse_inline(&text)[..]);
                    }
                }
                Op::Retype { at, kind } => {
                    if let Some(b) = pick(at) {
                        let k = ["heading", "paragraph", "checkListItem", "quote"][kind as usize];
                        update_block(&mut txn, &f, &b.id, Some(k), &Props::new()).unwrap();
                        let now = read_document(&txn, &f);
                        prop_assert_eq!(now.find(&b.id).unwrap().plain_text(), b.plain_text());
                    }
                }
            }
            if expected > 0 {
                prop_assert_eq!(check_well_formed(&txn, &f), expected);
            }
        }
    }

    #[test]
    fn markdown_import_never_panics(s in "\\PC{0,200}") {
        let blocks = import_markdown(&s);
        for b in &blocks {
            validate_block(b).unwrap();
        }
        let _ = parse_inline(&s);
    }

    #[test]
    fn markdown_import_never_panics_on_markdownish(s in "([-*#>|`~_\\[\\]()!1. \n]|[a-z]|    ){0,120}") {
        let blocks = import_markdown(&s);
        let (d, f) = doc();
        let mut txn = d.transact_mut();
        insert_blocks(&mut txn, &f, &Position::End, &blocks).unwrap();
        let docu = read_document(&txn, &f);
        let _ = export_markdown(&docu.blocks, &ExportOptions { anchors: true });
    }
}
