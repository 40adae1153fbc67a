//! Markdown import and export, and the outline's partial reads.

use super::*;

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
    let blocks = import_markdown(SAMPLE_MD).unwrap();
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
    let anchored = export_markdown(
        &docu.blocks[..1],
        &ExportOptions {
            anchors: true,
            ..ExportOptions::default()
        },
    );
    assert_eq!(anchored.markdown, "<!-- block:h1 -->\n## Title\n");
    // export → import keeps the text of every block
    let re = import_markdown(&out.markdown).unwrap();
    assert!(re.len() >= 10);
}

#[test]
fn outline_sections_ranges_and_budget() {
    let md = "# A\n\none two\n\n## A1\n\nthree\n\n## A2\n\nfour five six\n\n# B\n\nseven\n";
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        insert_blocks(&mut txn, &f, &Position::End, &import_markdown(md).unwrap()).unwrap();
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
