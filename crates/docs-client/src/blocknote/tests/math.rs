//! Math and diagram blocks and inline math (Docs ≥ 5.6): BlockNote's layout read and written,
//! BlockNote's JSON, markdown out and in, rewrites that keep them.

use super::*;

/// BlockNote's layout, built by hand: a math block, a diagram, a paragraph with inline math
/// and a dollar, an empty math block.
fn hand_built_math() -> (Doc, XmlFragmentRef) {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        let root = f.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        let (_, m) = container(&mut txn, &root, "m1", "mathBlock");
        let x = m.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "E = mc^2\n\\frac{a}{b}");
        let (_, g) = container(&mut txn, &root, "g1", "diagram");
        let x = g.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "graph TD\n  A --> B");
        let (_, para) = container(&mut txn, &root, "p1", "paragraph");
        defaults(&para, &mut txn);
        let x = para.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "Area ");
        let math = para.insert(&mut txn, 1, XmlElementPrelim::empty("math"));
        let x = math.insert(&mut txn, 0, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, "\\pi r^2");
        let x = para.insert(&mut txn, 2, XmlTextPrelim::new(""));
        x.insert(&mut txn, 0, " costs $5.");
        container(&mut txn, &root, "m2", "mathBlock");
    }
    (d, f)
}

fn math(latex: &str) -> Inline {
    Inline::Math {
        latex: latex.into(),
    }
}

fn plain_block(id: &str, kind: &str, text: &str) -> Block {
    Block {
        id: id.into(),
        kind: kind.into(),
        props: Props::new(),
        content: BlockContent::Inline {
            inline: if text.is_empty() {
                vec![]
            } else {
                vec![t(text)]
            },
        },
        children: vec![],
    }
}

fn expected_blocks() -> Vec<Block> {
    vec![
        plain_block("m1", "mathBlock", "E = mc^2\n\\frac{a}{b}"),
        plain_block("g1", "diagram", "graph TD\n  A --> B"),
        Block {
            id: "p1".into(),
            kind: "paragraph".into(),
            props: with(&[]),
            content: BlockContent::Inline {
                inline: vec![t("Area "), math("\\pi r^2"), t(" costs $5.")],
            },
            children: vec![],
        },
        plain_block("m2", "mathBlock", ""),
    ]
}

fn without_ids(mut blocks: Vec<Block>) -> Vec<Block> {
    fn clear(b: &mut Block) {
        b.id.clear();
        b.children.iter_mut().for_each(clear);
    }
    blocks.iter_mut().for_each(clear);
    blocks
}

#[test]
fn reads_math_and_diagrams_as_blocknote_lays_them_out() {
    let (d, f) = hand_built_math();
    let got = read(&d, &f);
    assert_eq!(got.blocks, expected_blocks());
    assert!(got.blocks.iter().all(|b| !b.is_opaque()));
    assert_eq!(got.blocks[2].plain_text(), "Area \\pi r^2 costs $5.");
}

#[test]
fn blocknote_json_of_plain_content() {
    // As BlockNote's nodeToBlock gives "plain" content: one unstyled text (none when empty);
    // inline math as {type, props: {}, content: "<latex>"}.
    let (d, f) = hand_built_math();
    let got = read(&d, &f);
    assert_eq!(
        json::blocks_json(&got.blocks),
        serde_json::json!([
            {"id": "m1", "type": "mathBlock", "props": {}, "children": [],
             "content": [{"type": "text", "text": "E = mc^2\n\\frac{a}{b}", "styles": {}}]},
            {"id": "g1", "type": "diagram", "props": {}, "children": [],
             "content": [{"type": "text", "text": "graph TD\n  A --> B", "styles": {}}]},
            {"id": "p1", "type": "paragraph", "children": [],
             "props": {"backgroundColor": "default", "textColor": "default", "textAlignment": "left"},
             "content": [
                {"type": "text", "text": "Area ", "styles": {}},
                {"type": "math", "props": {}, "content": "\\pi r^2"},
                {"type": "text", "text": " costs $5.", "styles": {}},
             ]},
            {"id": "m2", "type": "mathBlock", "props": {}, "children": [], "content": []},
        ])
    );
}

#[test]
fn writes_blocknote_layout_exactly() {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[
                NewBlock::new("mathBlock").text("E = mc^2\n\\frac{a}{b}"),
                NewBlock::new("diagram").text("graph TD\n  A --> B"),
                NewBlock::new("paragraph").inline(vec![
                    t("Area "),
                    math("\\pi r^2"),
                    t(" costs $5."),
                ]),
                NewBlock::new("mathBlock"),
                NewBlock::new("paragraph").inline(vec![math("")]),
            ],
        )
        .unwrap();
    }
    let mut expected = without_ids(expected_blocks());
    expected.push(Block {
        id: String::new(),
        kind: "paragraph".into(),
        props: with(&[]),
        content: BlockContent::Inline {
            inline: vec![math("")],
        },
        children: vec![],
    });
    assert_eq!(without_ids(read(&d, &f).blocks), expected);

    // The content nodes: no attribute at all (propSchema {}), one XmlText with the source.
    for (i, tag, text) in [
        (0, "mathBlock", Some("E = mc^2\n\\frac{a}{b}")),
        (1, "diagram", Some("graph TD\n  A --> B")),
        (3, "mathBlock", None),
    ] {
        let node = content_node(&d, &f, i);
        let txn = d.transact();
        assert_eq!(node.tag().as_ref(), tag);
        assert_eq!(node.attributes(&txn).count(), 0, "{tag} has no attribute");
        let children: Vec<_> = node.children(&txn).collect();
        match text {
            Some(text) => {
                assert_eq!(children.len(), 1);
                let XmlOut::Text(x) = &children[0] else {
                    panic!("{tag}: one XmlText")
                };
                assert_eq!(x.get_string(&txn), text);
            }
            None => assert!(children.is_empty(), "an empty {tag} has no child"),
        }
    }
    // Inline math: an element `math` between the paragraph's texts, no attribute, one
    // XmlText holding the LaTeX (none when empty).
    let para = content_node(&d, &f, 2);
    let txn = d.transact();
    let children: Vec<_> = para.children(&txn).collect();
    assert_eq!(children.len(), 3);
    let XmlOut::Element(m) = &children[1] else {
        panic!("inline math is an element")
    };
    assert_eq!(m.tag().as_ref(), "math");
    assert_eq!(m.attributes(&txn).count(), 0);
    assert_eq!(m.len(&txn), 1);
    let XmlOut::Text(x) = m.get(&txn, 0).unwrap() else {
        panic!()
    };
    assert_eq!(x.get_string(&txn), "\\pi r^2");
    drop(txn);
    let empty = content_node(&d, &f, 4);
    let txn = d.transact();
    let XmlOut::Element(m) = empty.get(&txn, 0).unwrap() else {
        panic!()
    };
    assert_eq!((m.tag().as_ref(), m.len(&txn)), ("math", 0));
}

#[test]
fn markdown_export_of_math_and_diagrams() {
    let (d, f) = hand_built_math();
    let out = export_markdown(&read(&d, &f).blocks, &ExportOptions::default());
    assert_eq!(
        out.markdown,
        "$$\nE = mc^2\n\\frac{a}{b}\n$$\n\n```mermaid\ngraph TD\n  A --> B\n```\n\n\
         Area $\\pi r^2$ costs \\$5.\n\n$$\n$$\n"
    );
    assert_eq!(out.fidelity, vec![]);
    let blocks = read(&d, &f).blocks;
    assert_eq!(inline_markdown(&blocks[0]), "E = mc^2\n\\frac{a}{b}");
    assert_eq!(inline_markdown(&blocks[1]), "graph TD\n  A --> B");
    assert_eq!(inline_markdown(&blocks[2]), "Area $\\pi r^2$ costs \\$5.");

    // A diagram holding a fence gets a longer one; a math block in a list is indented.
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[
                NewBlock::new("diagram").text("graph TD\n%% ```\nA-->B"),
                NewBlock::new("bulletListItem")
                    .text("item")
                    .child(NewBlock::new("mathBlock").text("x^2\ny^2")),
            ],
        )
        .unwrap();
    }
    let out = export_markdown(&read(&d, &f).blocks, &ExportOptions::default());
    assert_eq!(
        out.markdown,
        "````mermaid\ngraph TD\n%% ```\nA-->B\n````\n\n- item\n\n  $$\n  x^2\n  y^2\n  $$\n"
    );
    let back = without_ids(read(&d, &f).blocks);
    let (d2, f2) = doc();
    insert_blocks(
        &mut d2.transact_mut(),
        &f2,
        &Position::End,
        &import_markdown(&out.markdown).unwrap(),
    )
    .unwrap();
    assert_eq!(without_ids(read(&d2, &f2).blocks), back);
}

#[test]
fn what_markdown_cannot_hold_is_reported_or_fenced() {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[
                NewBlock::new("mathBlock").text("a\n\nb"),
                NewBlock::new("paragraph").inline(vec![math(" x\n y ")]),
                NewBlock::new("paragraph").inline(vec![math("")]),
                NewBlock::new("paragraph").inline(vec![math("a\\")]),
                NewBlock::new("paragraph").inline(vec![math("5"), t("0")]),
            ],
        )
        .unwrap();
    }
    let out = export_markdown(&read(&d, &f).blocks, &ExportOptions::default());
    let dropped: Vec<&str> = out.fidelity.iter().map(|l| l.dropped.as_str()).collect();
    assert_eq!(
        dropped,
        [
            "inline math source shown on one line, trimmed",
            "empty inline math",
            "inline math that $…$ cannot hold as is",
            "inline math that $…$ cannot hold as is",
        ]
    );
    assert!(out.markdown.contains("$x y$"));
    // A math block that display math cannot hold goes in a math fence, losing nothing.
    assert!(out.markdown.starts_with("```math\na\n\nb\n```\n"));
}

#[test]
fn markdown_import_of_math_and_diagrams() {
    let md = "$$\nE = mc^2\n$$\n\n```mermaid\ngraph TD\n  A --> B\n```\n\n```js\nlet x;\n```\n\n\
              Area $\\pi r^2$ costs \\$5, or $5,$10 and `$x$`.\n\n$$x$$ as text: $$y$$\n\n\
              - item\n\n  $$\n  z\n  $$\n\n```math\na\n\n- b\n```\n";
    let blocks = import_markdown(md).unwrap();
    let (d, f) = doc();
    insert_blocks(&mut d.transact_mut(), &f, &Position::End, &blocks).unwrap();
    let code = Inline::Text(TextRun::styled(
        "$x$",
        Styles {
            code: true,
            ..Default::default()
        },
    ));
    let para = |inline: Vec<Inline>| Block {
        id: String::new(),
        kind: "paragraph".into(),
        props: with(&[]),
        content: BlockContent::Inline { inline },
        children: vec![],
    };
    let mut item = para(vec![t("item")]);
    item.kind = "bulletListItem".into();
    item.children = vec![plain_block("", "mathBlock", "z")];
    assert_eq!(
        without_ids(read(&d, &f).blocks),
        vec![
            plain_block("", "mathBlock", "E = mc^2"),
            plain_block("", "diagram", "graph TD\n  A --> B"),
            Block {
                props: p(&[("language", "js".into())]),
                ..plain_block("", "codeBlock", "let x;")
            },
            para(vec![
                t("Area "),
                math("\\pi r^2"),
                t(" costs $5, or $5,$10 and "),
                code,
                t("."),
            ]),
            para(vec![math("x"), t(" as text: "), math("y")]),
            item,
            plain_block("", "mathBlock", "a\n\n- b"),
        ]
    );
}

#[test]
fn markdown_round_trips_math_and_diagrams() {
    let (d, f) = hand_built_math();
    let blocks = read(&d, &f).blocks;
    let md = export_markdown(&blocks, &ExportOptions::default()).markdown;
    let (d2, f2) = doc();
    insert_blocks(
        &mut d2.transact_mut(),
        &f2,
        &Position::End,
        &import_markdown(&md).unwrap(),
    )
    .unwrap();
    assert_eq!(
        without_ids(read(&d2, &f2).blocks),
        without_ids(expected_blocks())
    );
    // A block's inline markdown parses back to its content.
    assert_eq!(
        parse_inline(&inline_markdown(&blocks[2])).unwrap(),
        blocks[2].inline().unwrap()
    );
    assert_eq!(
        parse_inline("$$\\sum_i x_i$$").unwrap(),
        vec![math("\\sum_i x_i")]
    );
}

#[test]
fn a_rewrite_keeps_inline_math_and_its_concurrent_edits() {
    let a = Doc::with_client_id(1);
    let fa = document_fragment(&a);
    let id = insert_blocks(
        &mut a.transact_mut(),
        &fa,
        &Position::End,
        &[NewBlock::new("paragraph").text("Area $\\pi r^2$ of the disc")],
    )
    .unwrap()[0]
        .clone();
    let b = Doc::with_client_id(2);
    let fb = document_fragment(&b);
    sync(&a, &b);
    // B edits the formula while A rewrites the words around it.
    {
        let para = content_node(&b, &fb, 0);
        let txn = b.transact();
        let XmlOut::Element(m) = para.get(&txn, 1).unwrap() else {
            panic!()
        };
        let XmlOut::Text(x) = m.get(&txn, 0).unwrap() else {
            panic!()
        };
        drop(txn);
        x.insert(&mut b.transact_mut(), 0, "2");
    }
    {
        let current = inline_markdown(&read(&a, &fa).blocks[0]);
        assert_eq!(current, "Area $\\pi r^2$ of the disc");
        let new = current.replace("Area", "**Surface**");
        set_block_text(&mut a.transact_mut(), &fa, &id, &new).unwrap();
    }
    sync(&a, &b);
    sync(&b, &a);
    assert_eq!(read(&a, &fa), read(&b, &fb));
    assert_eq!(
        read(&a, &fa).blocks[0].inline().unwrap(),
        &[
            bold("Surface"),
            t(" "),
            math("2\\pi r^2"),
            t(" of the disc")
        ][..]
    );
    // Changing the formula replaces the element.
    set_block_text(
        &mut a.transact_mut(),
        &fa,
        &id,
        "**Surface** $2\\pi r$ of the disc",
    )
    .unwrap();
    assert_eq!(
        read(&a, &fa).blocks[0].inline().unwrap(),
        &[bold("Surface"), t(" "), math("2\\pi r"), t(" of the disc")][..]
    );
}

#[test]
fn plain_text_of_math_and_diagram_blocks() {
    let (d, f) = doc();
    let ids = insert_blocks(
        &mut d.transact_mut(),
        &f,
        &Position::End,
        &[
            NewBlock::new("mathBlock").text("a"),
            NewBlock::new("codeBlock")
                .prop("language", "mermaid")
                .text("graph TD"),
        ],
    )
    .unwrap();
    // The source is set as it is: no markdown.
    set_block_text(&mut d.transact_mut(), &f, &ids[0], "**x** $y$\n_z_").unwrap();
    assert_eq!(read(&d, &f).blocks[0].plain_text(), "**x** $y$\n_z_");
    // A code block becomes a diagram keeping its text (and losing its language), and back.
    update_block(
        &mut d.transact_mut(),
        &f,
        &ids[1],
        Some("diagram"),
        &Props::new(),
    )
    .unwrap();
    assert_eq!(
        read(&d, &f).blocks[1],
        plain_block(&ids[1], "diagram", "graph TD")
    );
    assert_eq!(attr_of(&d, &content_node(&d, &f, 1), "language"), None);
    update_block(
        &mut d.transact_mut(),
        &f,
        &ids[1],
        Some("codeBlock"),
        &Props::new(),
    )
    .unwrap();
    assert_eq!(read(&d, &f).blocks[1].props["language"], "text".into());
    // A math block becomes a paragraph of its source.
    update_block(
        &mut d.transact_mut(),
        &f,
        &ids[0],
        Some("paragraph"),
        &Props::new(),
    )
    .unwrap();
    assert_eq!(
        read(&d, &f).blocks[0].inline().unwrap(),
        &[t("**x** $y$"), Inline::HardBreak, t("_z_")][..]
    );
}

#[test]
fn schema_checks_of_math_and_diagrams() {
    // No props; plain content only; inline math is typed input too.
    assert!(matches!(
        validate_block(&NewBlock::new("mathBlock").prop("language", "latex")),
        Err(ModelError::UnknownProp { .. })
    ));
    assert!(matches!(
        validate_block(&NewBlock::new("codeBlock").inline(vec![math("x")])),
        Err(ModelError::InvalidContent { .. })
    ));
    assert!(matches!(
        validate_block(&NewBlock::new("diagram").inline(vec![bold("x")])),
        Err(ModelError::InvalidContent { .. })
    ));
    let typed = NewBlock::from_json(serde_json::json!({
        "type": "paragraph",
        "content": [{"type": "text", "text": "a "}, {"type": "math", "latex": "x^2"}],
    }))
    .unwrap();
    assert_eq!(
        typed.content,
        Some(NewContent::Inline(vec![t("a "), math("x^2")]))
    );
    validate_block(&typed).unwrap();
    assert_eq!(
        serde_json::to_value(math("x")).unwrap(),
        serde_json::json!({"type": "math", "latex": "x"})
    );
}

/// Inline content whose markdown (when the export reports nothing lost) parses back to it.
fn inline_piece() -> impl Strategy<Value = Inline> {
    prop_oneof![
        3 => "[a-c1-2 $\\\\^{}]{1,6}".prop_map(|s| t(&s)),
        2 => proptest::collection::vec(
            prop_oneof![
                Just("a"), Just("1"), Just("^"), Just("x_{2}"), Just("{c}"), Just("\\$"),
                Just("\\\\"), Just("\\{"), Just(" "),
            ],
            1..5,
        )
        .prop_map(|parts| math(&parts.concat())),
        1 => "[a-c1-2$\\\\^{}+]{1,5}".prop_map(|s| math(&s)),
        1 => Just(Inline::HardBreak),
    ]
}

proptest! {
    // Pieces markdown cannot hold are drawn on purpose (the export must report them), and
    // skipped: many rejects are expected.
    #![proptest_config(ProptestConfig {
        cases: 256,
        max_global_rejects: 1 << 20,
        ..ProptestConfig::default()
    })]

    #[test]
    fn inline_markdown_parses_back_to_the_content(
        pieces in proptest::collection::vec(inline_piece(), 1..6),
    ) {
        let (d, f) = doc();
        insert_blocks(
            &mut d.transact_mut(),
            &f,
            &Position::End,
            &[NewBlock::new("paragraph").inline(pieces)],
        )
        .unwrap();
        let block = read(&d, &f).blocks.remove(0);
        let inline = block.inline().unwrap().to_vec();
        // A hard break at either end, or spaces around one, are not kept by markdown.
        let edges = matches!(inline.first(), Some(Inline::HardBreak))
            || matches!(inline.last(), Some(Inline::HardBreak))
            || inline_markdown(&block).contains(" \\\n")
            || inline_markdown(&block).contains("\\\n ");
        let out = export_markdown(std::slice::from_ref(&block), &ExportOptions::default());
        prop_assume!(out.fidelity.is_empty() && !edges);
        prop_assert_eq!(parse_inline(&inline_markdown(&block)).unwrap(), inline);
    }

    #[test]
    fn a_math_blocks_markdown_imports_back_to_it(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("a"), Just("1"), Just("x_{2}"), Just("\\$"), Just("$"), Just("\\\\"),
                Just("{"), Just("}"), Just("\n"), Just(" "), Just("`"), Just("- "), Just("#"),
                Just("|"), Just("2."), Just("```"), Just("\n\n"), Just("\t"), Just("="),
            ],
            1..8,
        ),
        in_list in any::<bool>(),
    ) {
        let latex = parts.concat();
        let mut block = NewBlock::new("mathBlock").text(latex.clone());
        if in_list {
            block = NewBlock::new("bulletListItem").text("item").child(block);
        }
        let (d, f) = doc();
        insert_blocks(&mut d.transact_mut(), &f, &Position::End, &[block]).unwrap();
        let blocks = read(&d, &f).blocks;
        let out = export_markdown(&blocks, &ExportOptions::default());
        prop_assert_eq!(out.fidelity, vec![]);
        let (d2, f2) = doc();
        let imported = import_markdown(&out.markdown).unwrap();
        insert_blocks(&mut d2.transact_mut(), &f2, &Position::End, &imported).unwrap();
        prop_assert_eq!(without_ids(read(&d2, &f2).blocks), without_ids(blocks));
    }
}
