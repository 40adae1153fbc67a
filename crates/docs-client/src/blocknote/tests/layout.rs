//! Reading and writing BlockNote's exact Yjs layout, and its block JSON.

use super::*;

#[test]
fn read_hand_built_layout_exactly() {
    let (d, f) = hand_built();
    assert_eq!(read(&d, &f), expected_hand_built());
}

/// Reading a few blocks gives exactly what reading the whole document gives for them.
#[test]
fn a_few_blocks_read_as_the_whole_document_reads_them() {
    let (d, f) = hand_built();
    let whole = read(&d, &f);
    let wanted: Vec<&str> = whole
        .all_blocks()
        .iter()
        .map(|b| b.id.as_str())
        .step_by(2)
        .collect();
    let mut ids = wanted.clone();
    ids.push("no-such-block");
    let some = read_blocks(&d.transact(), &f, &ids);
    assert_eq!(some.len(), wanted.len());
    for id in wanted {
        assert_eq!(some.get(id), whole.find(id), "{id}");
    }
}

/// The outermost of some blocks read alone come in document order, as the whole document
/// reads them, the nested ones inside them.
#[test]
fn the_outermost_of_some_blocks_read_as_the_whole_document_reads_them() {
    let (d, f) = hand_built();
    let whole = read(&d, &f);
    let all: Vec<&Block> = whole.all_blocks();
    assert!(
        all.iter().any(|b| !b.children.is_empty()),
        "nesting to test"
    );
    // Every block with children, and every other block: nested ones among them.
    let mut ids: rustc_hash::FxHashSet<&str> = all
        .iter()
        .filter(|b| !b.children.is_empty())
        .map(|b| b.id.as_str())
        .collect();
    ids.extend(all.iter().step_by(2).map(|b| b.id.as_str()));
    ids.insert("no-such-block");
    let some = read_outermost(&d.transact(), &f, &ids, None, 0).document;
    let inner: std::collections::HashSet<&str> = all
        .iter()
        .filter(|b| ids.contains(b.id.as_str()))
        .flat_map(|b| b.walk().into_iter().skip(1).map(|c| c.id.as_str()))
        .collect();
    let expected: Vec<&Block> = all
        .iter()
        .copied()
        .filter(|b| ids.contains(b.id.as_str()) && !inner.contains(b.id.as_str()))
        .collect();
    assert_eq!(some.blocks.iter().collect::<Vec<_>>(), expected);
    assert!(
        some.blocks.len() < all.len() && !some.blocks.is_empty(),
        "a real subset: {} of {}",
        some.blocks.len(),
        all.len()
    );
    // Nested blocks whose parents are not asked for are found where they are.
    let leaves: Vec<&Block> = all
        .iter()
        .copied()
        .filter(|b| b.children.is_empty())
        .collect();
    let ids = leaves.iter().map(|b| b.id.as_str()).collect();
    let some = read_outermost(&d.transact(), &f, &ids, None, 0).document;
    assert_eq!(some.blocks.iter().collect::<Vec<_>>(), leaves);
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

#[test]
fn opaque_text_drops_marks_and_puts_elements_on_their_own_line() {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        let root = f.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        let (_, unknown) = container(&mut txn, &root, "u1", "mermaid");
        let text = unknown.insert(&mut txn, 0, XmlTextPrelim::new("a "));
        text.insert_with_attributes(&mut txn, 2, "b", Attrs::from([("bold".into(), flag())]));
        unknown.insert(&mut txn, 1, XmlElementPrelim::empty("empty"));
        let inner = unknown.insert(&mut txn, 2, XmlElementPrelim::empty("inner"));
        inner.insert(&mut txn, 0, XmlTextPrelim::new("c"));
        unknown.insert(&mut txn, 3, XmlTextPrelim::new("d"));
        let (_, code) = container(&mut txn, &root, "c1", "codeBlock");
        let text = code.insert(&mut txn, 0, XmlTextPrelim::new("let x"));
        text.format(&mut txn, 0, 3, Attrs::from([("comment--c".into(), flag())]));
    }
    let docu = read(&d, &f);
    assert_eq!(docu.blocks[0].plain_text(), "a b\ncd");
    assert_eq!(docu.blocks[1].plain_text(), "let x");
}

pub(super) fn all_writable() -> Vec<NewBlock> {
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
