//! Comment marks (the key y-prosemirror gives them, reading, anchors, writing) and comment
//! bodies.

use super::*;

#[test]
fn the_mark_key_is_y_prosemirrors_hash_of_the_marks_json() {
    // Golden values from y-prosemirror 1.3.7's own `hashOfJSON` (node, in tests/docs-server).
    assert_eq!(comment_mark_key("abc", false), "comment--Z4emCFDK");
    assert_eq!(comment_mark_key("abc", true), "comment--NfKpbcBV");
    assert_eq!(
        comment_mark_key("0f694de5-7eb7-4ed3-8d00-f72b009690a8", false),
        "comment--ZHoIJa4k"
    );
    // A string longer than 127 bytes takes a two-byte length; non-ASCII is counted in bytes.
    assert_eq!(
        comment_mark_key(&"x".repeat(200), false),
        "comment--+WHTRPTB"
    );
    assert_eq!(comment_mark_key("thréad-ü", true), "comment--w51BmKzK");
}

/// A paragraph `p1` whose text is written in `parts` (one Y.XmlText each, hard breaks
/// between them), in a document counting offsets in UTF-16 units like browsers.
fn paragraph(parts: &[&str]) -> (Doc, XmlFragmentRef) {
    let d = Doc::with_options(Options {
        offset_kind: OffsetKind::Utf16,
        ..Options::default()
    });
    let f = document_fragment(&d);
    {
        let mut txn = d.transact_mut();
        let root = f.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        let (_, para) = container(&mut txn, &root, "p1", "paragraph");
        defaults(&para, &mut txn);
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                para.push_back(&mut txn, XmlElementPrelim::empty("hardBreak"));
            }
            let text = para.push_back(&mut txn, XmlTextPrelim::new(""));
            text.insert(&mut txn, 0, part);
        }
    }
    (d, f)
}

/// The formatting attributes of each piece of `p1`'s first Y.XmlText.
fn attributes(d: &Doc, f: &XmlFragmentRef) -> Vec<(String, Option<Attrs>)> {
    let txn = d.transact();
    let Some(XmlOut::Element(root)) = f.get(&txn, 0) else {
        panic!()
    };
    let Some(XmlOut::Element(c)) = root.get(&txn, 0) else {
        panic!()
    };
    let Some(XmlOut::Element(node)) = c.get(&txn, 0) else {
        panic!()
    };
    let Some(XmlOut::Text(text)) = node.get(&txn, 0) else {
        panic!()
    };
    text.diff(&txn, yrs::types::text::YChange::identity)
        .into_iter()
        .map(|d| {
            let Out::Any(Any::String(s)) = d.insert else {
                panic!()
            };
            (s.to_string(), d.attributes.map(|a| *a))
        })
        .collect()
}

#[test]
fn reading_takes_the_thread_and_orphan_from_the_marks_value() {
    let (d, f) = paragraph(&["one two three four"]);
    {
        let mut txn = d.transact_mut();
        let Some(XmlOut::Element(root)) = f.get(&txn, 0) else {
            panic!()
        };
        let Some(XmlOut::Element(c)) = root.get(&txn, 0) else {
            panic!()
        };
        let Some(XmlOut::Element(node)) = c.get(&txn, 0) else {
            panic!()
        };
        let Some(XmlOut::Text(text)) = node.get(&txn, 0) else {
            panic!()
        };
        // "one": a current mark; "two": orphaned by BlockNote (its own key); "three": a key
        // of another hash (the value decides); "four": a mark removed since (null).
        text.format(&mut txn, 0, 3, Attrs::from([comment_attr("t1")]));
        let orphaned = Any::Map(Arc::new(HashMap::from([
            ("orphan".to_string(), Any::Bool(true)),
            ("threadId".to_string(), s("t2")),
        ])));
        text.format(
            &mut txn,
            4,
            3,
            Attrs::from([(comment_mark_key("t2", true).into(), orphaned)]),
        );
        text.format(
            &mut txn,
            8,
            5,
            Attrs::from([("comment--AAAAAAAA".into(), comment_value("t3"))]),
        );
        text.format(&mut txn, 14, 4, Attrs::from([comment_attr("t4")]));
        text.format(
            &mut txn,
            14,
            4,
            Attrs::from([(comment_mark_key("t4", false).into(), Any::Null)]),
        );
    }
    let docu = read(&d, &f);
    let runs: Vec<(&str, Vec<CommentMark>)> = docu.blocks[0]
        .inline()
        .unwrap()
        .iter()
        .map(|i| match i {
            Inline::Text(r) => (r.text.as_str(), r.comments.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    let orphan = CommentMark {
        thread_id: "t2".into(),
        orphan: true,
    };
    assert_eq!(
        runs,
        [
            ("one", vec![cm("t1")]),
            (" ", vec![]),
            ("two", vec![orphan.clone()]),
            (" ", vec![]),
            ("three", vec![cm("t3")]),
            (" four", vec![]),
        ]
    );
    // Runs serialize their marks as `{threadId, orphan?}`.
    assert_eq!(
        serde_json::to_value(&docu.blocks[0].inline().unwrap()[2]).unwrap(),
        serde_json::json!({"type": "text", "text": "two", "comments": [{"threadId": "t2", "orphan": true}]})
    );
    let anchors = comment_anchors(&docu.blocks);
    let found: Vec<(&str, bool, &str, usize, usize)> = anchors
        .iter()
        .map(|a| {
            (
                a.thread_id.as_str(),
                a.orphan,
                a.text.as_str(),
                a.start,
                a.end,
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("t1", false, "one", 0, 3),
            ("t2", true, "two", 4, 7),
            ("t3", false, "three", 8, 13)
        ]
    );
}

#[test]
fn anchors_follow_overlapping_marks_styles_and_nesting() {
    let (d, f) = hand_built();
    // p1 reads "Hello world site\nOtherred": the hand-built mark covers "red".
    let docu = read(&d, &f);
    let anchors = comment_anchors(&docu.blocks);
    assert_eq!(
        anchors,
        [CommentAnchor {
            thread_id: "abc".into(),
            orphan: false,
            block_id: "p1".into(),
            text: "red".into(),
            start: 22,
            end: 25,
        }]
    );
    assert_eq!(
        &docu.find("p1").unwrap().plain_text()[anchors[0].start..anchors[0].end],
        "red"
    );

    // Overlapping threads on styled text, and one in a nested block.
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    let ids = insert_blocks(
        &mut txn,
        &f,
        &Position::End,
        &[NewBlock::new("bulletListItem")
            .text("Hello **brave** new world")
            .child(NewBlock::new("paragraph").text("inner text"))],
    )
    .unwrap();
    let (outer, inner) = (&ids[0], &ids[1]);
    let text = read_document(&txn, &f).blocks[0].plain_text();
    let brave_new = text_occurrences(&text, "brave new").remove(0);
    assert_eq!(
        add_comment_mark(&mut txn, &f, outer, brave_new, "t1").unwrap(),
        "brave new"
    );
    let new_world = text_occurrences(&text, "new world").remove(0);
    add_comment_mark(&mut txn, &f, outer, new_world, "t2").unwrap();
    add_comment_mark(&mut txn, &f, inner, 0..5, "t1").unwrap();
    let docu = read_document(&txn, &f);
    let anchors = comment_anchors(&docu.blocks);
    let found: Vec<(&str, &str, &str, usize, usize)> = anchors
        .iter()
        .map(|a| {
            let block = if a.block_id == *outer {
                "outer"
            } else {
                "inner"
            };
            (a.thread_id.as_str(), block, a.text.as_str(), a.start, a.end)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("t1", "outer", "brave new", 6, 15),
            ("t2", "outer", "new world", 12, 21),
            ("t1", "inner", "inner", 0, 5),
        ]
    );
    let by_thread = anchors_by_thread(comment_anchors(&docu.blocks));
    assert_eq!(by_thread["t1"].len(), 2);
    assert_eq!(by_thread["t2"][0].text, "new world");
    // Styles are kept: "brave" is still bold, within both marks' runs.
    let markdown = export_markdown(&docu.blocks, &ExportOptions::default()).markdown;
    assert!(
        markdown.starts_with("- Hello **brave** new world"),
        "{markdown}"
    );
}

#[test]
fn the_mark_is_written_as_y_prosemirror_writes_it() {
    let (d, f) = paragraph(&["Hello brave world"]);
    {
        let mut txn = d.transact_mut();
        assert_eq!(
            add_comment_mark(&mut txn, &f, "p1", 6..11, "abc").unwrap(),
            "brave"
        );
    }
    let pieces = attributes(&d, &f);
    assert_eq!(pieces.len(), 3);
    assert_eq!((pieces[0].0.as_str(), &pieces[0].1), ("Hello ", &None));
    assert_eq!(pieces[1].0, "brave");
    let attrs = pieces[1].1.as_ref().unwrap();
    assert_eq!(attrs.len(), 1);
    assert_eq!(
        attrs.get("comment--Z4emCFDK"),
        Some(&comment_value("abc")),
        "key comment--<hash>, value {{orphan, threadId}}"
    );
    assert_eq!((pieces[2].0.as_str(), &pieces[2].1), (" world", &None));
}

#[test]
fn a_range_over_several_texts_and_utf16_characters_is_marked_exactly() {
    // "a😀b" <hardBreak> "c d": plain text "a😀b\nc d"; the range "😀b\nc" spans both texts.
    let (d, f) = paragraph(&["a😀b", "c d"]);
    let text = read(&d, &f).blocks[0].plain_text();
    assert_eq!(text, "a😀b\nc d");
    let range = text_occurrences(&text, "😀b\nc").remove(0);
    assert_eq!(range, 1..5);
    {
        let mut txn = d.transact_mut();
        assert_eq!(
            add_comment_mark(&mut txn, &f, "p1", range, "t").unwrap(),
            "😀b\nc"
        );
    }
    let docu = read(&d, &f);
    let found: Vec<(String, usize, usize)> = comment_anchors(&docu.blocks)
        .into_iter()
        .map(|a| (a.text, a.start, a.end))
        .collect();
    // The hard break carries no mark: two anchors, on each side of it.
    assert_eq!(found, [("😀b".to_string(), 1, 3), ("c".to_string(), 4, 5)]);
}

#[test]
fn text_occurrences_are_character_ranges() {
    assert_eq!(text_occurrences("éaé aé", "aé"), [1..3, 4..6]);
    assert_eq!(text_occurrences("aaaa", "aa"), [0..2, 2..4]);
    assert!(text_occurrences("abc", "").is_empty());
    assert!(text_occurrences("abc", "x").is_empty());
}

#[test]
fn refused_marks_change_nothing() {
    let (d, f) = doc();
    let ids = {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[
                NewBlock::new("paragraph").text("short"),
                NewBlock::new("codeBlock").text("let x = 1;"),
                NewBlock::new("divider"),
            ],
        )
        .unwrap()
    };
    let before = d.transact().state_vector();
    let mut txn = d.transact_mut();
    let refused = [
        add_comment_mark(&mut txn, &f, &ids[0], 2..2, "t"),
        add_comment_mark(&mut txn, &f, &ids[0], 3..9, "t"),
        add_comment_mark(&mut txn, &f, &ids[0], 0..2, ""),
        add_comment_mark(&mut txn, &f, &ids[1], 0..3, "t"),
        add_comment_mark(&mut txn, &f, &ids[2], 0..1, "t"),
        add_comment_mark(&mut txn, &f, "nope", 0..1, "t"),
    ];
    assert!(matches!(
        refused[1],
        Err(ModelError::InvalidTextRange { len: 5, .. })
    ));
    assert!(matches!(refused[3], Err(ModelError::WrongBlockKind { .. })));
    assert!(matches!(refused[5], Err(ModelError::BlockNotFound { .. })));
    assert!(refused.iter().all(Result::is_err), "{refused:?}");
    drop(txn);
    assert_eq!(d.transact().state_vector(), before);
}

#[test]
fn comment_bodies_are_paragraphs_of_docs_comment_editor() {
    let body = comment_body_from_markdown(
        "Please fix **this** ([why](https://x.org)).\n\n# Heading\n\n1. one\n2. two\n   - nested\n\n```\na\nb\n```",
    )
    .unwrap();
    let blocks = body.as_array().unwrap();
    assert!(blocks.iter().all(|b| b["type"] == "paragraph"), "{body}");
    assert_eq!(
        blocks[0]["props"],
        serde_json::json!({"backgroundColor": "default", "textColor": "default", "textAlignment": "left"})
    );
    assert_eq!(
        blocks[0]["content"],
        serde_json::json!([
            {"type": "text", "text": "Please fix ", "styles": {}},
            {"type": "text", "text": "this", "styles": {"bold": true}},
            {"type": "text", "text": " (", "styles": {}},
            {"type": "link", "href": "https://x.org", "content": [{"type": "text", "text": "why", "styles": {}}]},
            {"type": "text", "text": ").", "styles": {}}
        ])
    );
    assert_eq!(
        comment_body_to_markdown(&body),
        "Please fix **this** ([why](https://x.org)).\n\n**Heading**\n\n1\\. one\n\n2\\. two\n\n  • nested\n\n`a`\\\n`b`"
    );
    // Nothing is an empty body: one empty paragraph.
    let empty = comment_body_from_markdown("").unwrap();
    assert_eq!(empty.as_array().unwrap().len(), 1);
}

#[test]
fn comment_bodies_written_by_blocknote_read_as_markdown() {
    // As Docs' comment editor sends it (a hard break is "\n" in the text).
    let body = serde_json::json!([
        {"id": "b1", "type": "paragraph", "props": {"textColor": "default", "backgroundColor": "default", "textAlignment": "left"},
         "content": [
            {"type": "text", "text": "See ", "styles": {}},
            {"type": "text", "text": "this", "styles": {"italic": true, "textColor": "red"}},
            {"type": "text", "text": "\nand ", "styles": {}},
            {"type": "link", "href": "https://x.org", "content": [{"type": "text", "text": "that", "styles": {"bold": true}}]}
         ], "children": []},
        {"id": "b2", "type": "bulletListItem", "props": {}, "content": "item", "children": [
            {"id": "b3", "type": "someFutureBlock", "props": {}, "content": [{"type": "text", "text": "kept as text", "styles": {}}], "children": []}
        ]},
        "not a block"
    ]);
    assert_eq!(
        comment_body_to_markdown(&body),
        "See *this*\\\nand [**that**](https://x.org)\n\n- item\n\n  kept as text"
    );
    assert_eq!(comment_body_to_markdown(&serde_json::json!(null)), "");
}

#[test]
fn text_typed_against_a_mark_does_not_join_it() {
    // BlockNote's comment mark is not inclusive: words and punctuation added at its edges
    // stay unmarked. A word it covers, rewritten, is replaced whole and stays in it.
    let (d, f) = paragraph(&["Hello brave world"]);
    let mut txn = d.transact_mut();
    add_comment_mark(&mut txn, &f, "p1", 6..11, "t").unwrap();
    let anchors = |txn: &yrs::TransactionMut| -> Vec<(String, usize)> {
        comment_anchors(&read_document(txn, &f).blocks)
            .into_iter()
            .map(|a| (a.text, a.start))
            .collect()
    };
    set_block_text(&mut txn, &f, "p1", "Hello new brave! world").unwrap();
    assert_eq!(anchors(&txn), [("brave".to_owned(), 10)]);
    set_block_text(&mut txn, &f, "p1", "Hello new Xbrave! world").unwrap();
    assert_eq!(anchors(&txn), [("Xbrave".to_owned(), 10)]);
}

/// A run of text on `threads` (an orphaned mark for a thread named `orphan`).
fn run_on(text: &str, threads: &[&str], styles: Styles, link: Option<&str>) -> Inline {
    Inline::Text(TextRun {
        text: text.into(),
        styles,
        link: link.map(str::to_owned),
        comments: threads
            .iter()
            .map(|t| CommentMark {
                thread_id: (*t).into(),
                orphan: *t == "orphan",
            })
            .collect(),
    })
}

#[test]
fn commented_text_is_marked_in_markdown_and_the_markers_do_not_import() {
    let bold = Styles {
        bold: true,
        ..Styles::default()
    };
    let inline = vec![
        run_on("The ", &[], Styles::default(), None),
        run_on("quick", &["t1"], Styles::default(), None),
        run_on(" brown", &["t1", "t2"], bold.clone(), None),
        run_on(" fox", &["t2"], Styles::default(), None),
        run_on(" jumps ", &["orphan"], Styles::default(), None),
        run_on(
            "over",
            &["t3"],
            Styles::default(),
            Some("https://example.org/"),
        ),
        Inline::HardBreak,
        run_on("the dog.", &[], Styles::default(), None),
    ];
    let block = Block {
        id: "p1".into(),
        kind: "paragraph".into(),
        props: Props::new(),
        content: BlockContent::Inline { inline },
        children: vec![],
    };
    let marked = export_markdown(
        std::slice::from_ref(&block),
        &ExportOptions {
            comments: true,
            ..ExportOptions::default()
        },
    )
    .markdown;
    assert_eq!(
        marked,
        "The <!-- comment:t1 -->quick<!-- comment:t2 --> **brown**<!-- /comment:t1 --> fox<!-- /comment:t2 --> jumps [<!-- comment:t3 -->over<!-- /comment:t3 -->](https://example.org/)\\\nthe dog.\n"
    );
    let plain = export_markdown(std::slice::from_ref(&block), &ExportOptions::default()).markdown;
    assert_eq!(
        plain,
        "The quick **brown** fox jumps [over](https://example.org/)\\\nthe dog.\n"
    );
    // Written back as it was read, the markers are gone and the text is the same.
    assert_eq!(
        import_markdown(&marked).unwrap(),
        import_markdown(&plain).unwrap()
    );
}
