//! Hostile nesting: markdown, block JSON, new blocks and Yjs documents nested up to 100 000
//! levels deep. Everything here runs on the test thread's 2 MiB stack (tokio's default too):
//! a recursion on the input's depth would abort the whole test binary.

use serde_json::{Value, json};

use super::*;
use crate::blocknote::nesting::MAX_NESTING;
use crate::blocknote::yjs_depth::{
    MAX_YJS_DEPTH, check_depth_after, check_document_depth, check_update_depth, update_types,
};

const DEEP: usize = 100_000;

/// A document built with yrs directly (not through the model): a bullet list nested `depth`
/// levels deep (ids `b1`.., texts `item 1`..), then a top-level paragraph `after`.
fn deep_yjs_list(depth: usize) -> (Doc, XmlFragmentRef) {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        let root = f.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        let mut group = root.clone();
        for level in 1..=depth {
            let (c, node) = container(&mut txn, &group, &format!("b{level}"), "bulletListItem");
            node.insert(&mut txn, 0, XmlTextPrelim::new(format!("item {level}")));
            if level < depth {
                group = c.insert(&mut txn, 1, XmlElementPrelim::empty("blockGroup"));
            }
        }
        let (_, after) = container(&mut txn, &root, "after", "paragraph");
        after.insert(&mut txn, 0, XmlTextPrelim::new("after"));
    }
    (d, f)
}

fn bullet(level: usize, children: Vec<Block>) -> Block {
    Block {
        id: format!("b{level}"),
        kind: "bulletListItem".into(),
        props: with(&[]),
        content: BlockContent::Inline {
            inline: vec![t(&format!("item {level}"))],
        },
        children,
    }
}

/// What reading [`deep_yjs_list`] gives: the list down to the limit, its block at the limit
/// opaque with the count of blocks under it, then the paragraph.
fn expected_deep_list(depth: usize) -> Document {
    let mut deepest = Block {
        id: format!("b{MAX_NESTING}"),
        kind: "bulletListItem".into(),
        props: Props::new(),
        content: BlockContent::Opaque {
            text: format!("item {MAX_NESTING}"),
            hidden_blocks: depth - MAX_NESTING,
        },
        children: vec![],
    };
    for level in (1..MAX_NESTING).rev() {
        deepest = bullet(level, vec![deepest]);
    }
    Document {
        blocks: vec![
            deepest,
            Block {
                id: "after".into(),
                kind: "paragraph".into(),
                props: with(&[]),
                content: BlockContent::Inline {
                    inline: vec![t("after")],
                },
                children: vec![],
            },
        ],
        ..Document::default()
    }
}

/// The markdown of [`expected_deep_list`].
fn expected_deep_markdown() -> String {
    let mut md = String::new();
    for level in 1..=MAX_NESTING {
        md.push_str(&format!("{}- item {level}\n", "  ".repeat(level - 1)));
    }
    md.push_str("\nafter\n");
    md
}

#[test]
fn deep_yjs_documents_read_with_the_deep_part_opaque() {
    for depth in [1_000, DEEP] {
        let (d, f) = deep_yjs_list(depth);
        let docu = read(&d, &f);
        assert_eq!(docu, expected_deep_list(depth));
        assert_eq!(docu.all_blocks().len(), MAX_NESTING + 1);
        assert!(docu.find(&format!("b{MAX_NESTING}")).unwrap().is_opaque());
        assert_eq!(docu.find(&format!("b{}", MAX_NESTING + 1)), None);

        let out = export_markdown(&docu.blocks, &ExportOptions::default());
        assert_eq!(out.markdown, expected_deep_markdown());
        assert_eq!(
            out.fidelity,
            vec![FidelityLoss {
                block_id: format!("b{MAX_NESTING}"),
                block_type: "bulletListItem".into(),
                dropped: format!(
                    "nesting deeper than 64 levels ({} nested blocks not shown)",
                    depth - MAX_NESTING
                ),
            }]
        );
        let outline = outline(&docu);
        assert_eq!(
            (outline.total_blocks, outline.total_words),
            (MAX_NESTING + 1, 2 * MAX_NESTING + 1)
        );
        let all = json::blocks_json(&docu.blocks);
        let mut deepest = &all[0];
        for _ in 1..MAX_NESTING {
            deepest = &deepest["children"][0];
        }
        assert_eq!(
            deepest,
            &json!({"id": "b64", "type": "bulletListItem", "props": {}, "children": []})
        );
    }
}

#[test]
fn blocks_at_and_past_the_limit_refuse_edits() {
    let (d, f) = deep_yjs_list(DEEP);
    let before = d.transact().state_vector();
    let mut txn = d.transact_mut();
    assert_eq!(
        set_block_text(&mut txn, &f, "b64", "x"),
        Err(ModelError::HiddenNesting {
            id: "b64".into(),
            hidden_blocks: DEEP - 64,
            limit: 64,
        })
    );
    assert_eq!(
        update_block(&mut txn, &f, "b64", Some("paragraph"), &Props::new()),
        Err(ModelError::HiddenNesting {
            id: "b64".into(),
            hidden_blocks: DEEP - 64,
            limit: 64,
        })
    );
    assert_eq!(
        insert_blocks(
            &mut txn,
            &f,
            &Position::LastChildOf { id: "b64".into() },
            &[NewBlock::new("paragraph")]
        ),
        Err(ModelError::NestingTooDeep {
            depth: 65,
            limit: 64
        })
    );
    assert_eq!(
        move_block(&mut txn, &f, "b64", &Position::End),
        Err(ModelError::NestingTooDeep {
            depth: DEEP - 63,
            limit: 64
        })
    );
    assert_eq!(
        delete_blocks(&mut txn, &f, &["b1".into()], ChildrenMode::Delete),
        Err(ModelError::DocumentTooDeep {
            depth: MAX_YJS_DEPTH + 1,
            limit: MAX_YJS_DEPTH
        })
    );
    // Blocks past the limit are not read, so they cannot be addressed either.
    assert_eq!(
        delete_blocks(&mut txn, &f, &["b65".into()], ChildrenMode::Delete),
        Err(ModelError::BlockNotFound { id: "b65".into() })
    );
    // Nothing changed; the blocks above the limit and after the list are edited as usual.
    drop(txn);
    assert_eq!(d.transact().state_vector(), before);
    let mut txn = d.transact_mut();
    set_block_text(&mut txn, &f, "b63", "**changed**").unwrap();
    set_block_text(&mut txn, &f, "after", "still *here*").unwrap();
    drop(txn);
    let docu = read(&d, &f);
    assert_eq!(
        docu.find("b63").unwrap().inline().unwrap(),
        &[bold("changed")]
    );
    assert_eq!(docu.blocks[1].plain_text(), "still here");
}

#[test]
fn a_block_hiding_a_shallow_subtree_deletes_and_moves() {
    let (d, f) = deep_yjs_list(100);
    let mut txn = d.transact_mut();
    // b64 holds 36 levels: moved to the top level it fits again, and reads in full.
    move_block(&mut txn, &f, "b64", &Position::Start).unwrap();
    let docu = read_document(&txn, &f);
    assert_eq!(
        docu.blocks
            .iter()
            .map(|b| b.id.as_str())
            .collect::<Vec<_>>(),
        ["b64", "b1", "after"]
    );
    assert_eq!(docu.blocks[0].walk().len(), 37);
    assert_eq!(docu.all_blocks().len(), 37 + 63 + 1);
    // Moved back under b63 it would nest 64 + 36 levels deep.
    assert_eq!(
        move_block(
            &mut txn,
            &f,
            "b64",
            &Position::LastChildOf { id: "b63".into() }
        ),
        Err(ModelError::NestingTooDeep {
            depth: 100,
            limit: 64
        })
    );
    delete_blocks(&mut txn, &f, &["b64".into()], ChildrenMode::Delete).unwrap();
    let docu = read_document(&txn, &f);
    assert_eq!(docu.all_blocks().len(), 63 + 1);
}

#[test]
fn deep_markdown_lists_are_refused_with_their_depth() {
    for (item, kind) in [("- ", "bullet"), ("1. ", "ordered")] {
        let md = format!("{}x", item.repeat(DEEP));
        assert_eq!(
            import_markdown(&md),
            Err(ModelError::NestingTooDeep {
                depth: DEEP,
                limit: 64
            }),
            "{kind}"
        );
        assert_eq!(
            parse_inline(&md),
            Err(ModelError::NestingTooDeep {
                depth: DEEP,
                limit: 64
            }),
            "{kind}"
        );
    }
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    let id = insert_blocks(&mut txn, &f, &Position::End, &[NewBlock::new("paragraph")]).unwrap();
    assert_eq!(
        set_block_text(&mut txn, &f, &id[0], &format!("{}x", "- ".repeat(DEEP))),
        Err(ModelError::NestingTooDeep {
            depth: DEEP,
            limit: 64
        })
    );
    // Quotes nest no blocks (they are flattened), however deep.
    assert_eq!(
        import_markdown(&format!("{}x", "> ".repeat(DEEP))).unwrap(),
        vec![NewBlock::new("quote").inline(vec![t("x")])]
    );
}

/// A markdown list nested `depth` levels deep, one item a line.
fn nested_list_markdown(depth: usize) -> String {
    (1..=depth)
        .map(|level| format!("{}- l{level}\n", "  ".repeat(level - 1)))
        .collect()
}

#[test]
fn markdown_nested_to_the_limit_is_imported_and_read_back() {
    assert_eq!(
        import_markdown(&nested_list_markdown(65)),
        Err(ModelError::NestingTooDeep {
            depth: 65,
            limit: 64
        })
    );
    let blocks = import_markdown(&nested_list_markdown(64)).unwrap();
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    insert_blocks(&mut txn, &f, &Position::End, &blocks).unwrap();
    let docu = read_document(&txn, &f);
    assert_eq!(docu.all_blocks().len(), 64);
    let deepest = docu.all_blocks()[63];
    assert_eq!(
        (deepest.plain_text(), deepest.is_opaque()),
        ("l64".into(), false)
    );
    let md = export_markdown(&docu.blocks, &ExportOptions::default()).markdown;
    assert_eq!(md, nested_list_markdown(64));
    // Under a top-level block, the same list would reach 65 levels.
    assert_eq!(
        insert_blocks(
            &mut txn,
            &f,
            &Position::FirstChildOf {
                id: docu.blocks[0].id.clone()
            },
            &blocks
        ),
        Err(ModelError::NestingTooDeep {
            depth: 65,
            limit: 64
        })
    );
}

/// A JSON object from its fields, moved in (`json!` would serialize an interpolated value
/// again, recursively).
fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// Block JSON nested `depth` levels through `children`, built without recursion.
fn nested_block_json(depth: usize) -> Value {
    let mut v = json!({"type": "bulletListItem", "content": "deepest"});
    for _ in 1..depth {
        v = object(vec![
            ("type", json!("bulletListItem")),
            ("children", Value::Array(vec![v])),
        ]);
    }
    v
}

#[test]
fn deep_block_json_is_refused_before_serde_sees_it() {
    assert_eq!(
        NewBlock::from_json(nested_block_json(DEEP)),
        Err(ModelError::NestingTooDeep {
            depth: DEEP,
            limit: 64
        })
    );
    assert_eq!(
        NewBlock::from_json(nested_block_json(65)),
        Err(ModelError::NestingTooDeep {
            depth: 65,
            limit: 64
        })
    );
    let block = NewBlock::from_json(nested_block_json(64)).unwrap();
    validate_block(&block).unwrap();
    // Deep JSON elsewhere than in `children` (here a prop) is refused too.
    let mut deep = json!(1);
    for _ in 0..DEEP {
        deep = Value::Array(vec![deep]);
    }
    let props = object(vec![("x", deep)]);
    assert_eq!(
        NewBlock::from_json(object(vec![("type", json!("paragraph")), ("props", props)])),
        Err(ModelError::InvalidJson {
            message: format!(
                "the value is nested {} levels deep, deeper than the 144 levels block JSON needs",
                DEEP + 3
            )
        })
    );
}

/// A chain of new blocks `depth` levels deep, built by hand.
fn nested_new_blocks(depth: usize) -> NewBlock {
    let mut b = NewBlock::new("paragraph").text("deepest");
    for _ in 1..depth {
        b = NewBlock::new("bulletListItem").child(b);
    }
    b
}

#[test]
fn new_blocks_are_refused_past_the_limit_counting_their_position() {
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    assert_eq!(
        validate_block(&nested_new_blocks(65)),
        Err(ModelError::NestingTooDeep {
            depth: 65,
            limit: 64
        })
    );
    let ids = insert_blocks(&mut txn, &f, &Position::End, &[nested_new_blocks(60)]).unwrap();
    let at_60 = Position::LastChildOf {
        id: ids[59].clone(),
    };
    let before = txn.state_vector();
    assert_eq!(
        insert_blocks(&mut txn, &f, &at_60, &[nested_new_blocks(5)]),
        Err(ModelError::NestingTooDeep {
            depth: 65,
            limit: 64
        })
    );
    assert_eq!(
        txn.state_vector(),
        before,
        "a refused insert changes nothing"
    );
    insert_blocks(&mut txn, &f, &at_60, &[nested_new_blocks(4)]).unwrap();
    assert_eq!(read_document(&txn, &f).all_blocks().len(), 64);
    // Hand-built blocks deeper still are refused without recursion (taken apart by hand
    // afterwards: their derived drop would recurse).
    let mut deep = vec![nested_new_blocks(DEEP)];
    assert_eq!(
        insert_blocks(&mut txn, &f, &Position::End, &deep),
        Err(ModelError::NestingTooDeep {
            depth: DEEP,
            limit: 64
        })
    );
    while let Some(mut b) = deep.pop() {
        deep.append(&mut b.children);
    }
}

#[test]
fn walks_export_and_json_stay_bounded_on_hand_built_blocks() {
    let mut top = Block {
        id: format!("b{DEEP}"),
        kind: "bulletListItem".into(),
        props: Props::new(),
        content: BlockContent::Inline { inline: vec![] },
        children: vec![],
    };
    for level in (1..DEEP).rev() {
        top = Block {
            id: format!("b{level}"),
            children: vec![top],
            ..bullet(level, vec![])
        };
    }
    let docu = Document::new(vec![top]);
    assert_eq!(docu.all_blocks().len(), DEEP);
    assert_eq!(docu.find(&format!("b{DEEP}")).unwrap().children, vec![]);
    let out = export_markdown(&docu.blocks, &ExportOptions::default());
    assert_eq!(out.markdown.lines().count(), MAX_NESTING);
    assert_eq!(
        out.fidelity,
        vec![FidelityLoss {
            block_id: "b64".into(),
            block_type: "bulletListItem".into(),
            dropped: format!(
                "nesting deeper than 64 levels ({} nested blocks not shown)",
                DEEP - 64
            ),
        }]
    );
    let all = json::blocks_json(&docu.blocks);
    let mut deepest = &all[0];
    for _ in 1..MAX_NESTING {
        deepest = &deepest["children"][0];
    }
    assert_eq!(
        (&deepest["id"], &deepest["children"]),
        (&json!("b64"), &json!([]))
    );
    let mut blocks = docu.blocks;
    while let Some(mut b) = blocks.pop() {
        blocks.append(&mut b.children);
    }
}

#[test]
fn yrs_holds_deep_content_and_the_door_refuses_it() {
    let (d, _) = deep_yjs_list(DEEP);
    let update = d
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    // What the session checks before applying an update: the nesting it brings.
    assert_eq!(
        check_update_depth(&update),
        Err(ModelError::DocumentTooDeep {
            depth: 2 * DEEP + 2,
            limit: MAX_YJS_DEPTH
        })
    );
    // yrs itself applies, encodes and drops such content without recursing...
    let copy = Doc::new();
    copy.transact_mut()
        .apply_update(Update::decode_v1(&update).unwrap())
        .unwrap();
    assert_eq!(
        copy.transact()
            .encode_state_as_update_v1(&StateVector::default())
            .len(),
        update.len()
    );
    let frag = document_fragment(&copy);
    assert_eq!(
        check_document_depth(&copy.transact(), &frag),
        Err(ModelError::DocumentTooDeep {
            depth: MAX_YJS_DEPTH + 1,
            limit: MAX_YJS_DEPTH
        })
    );
    drop(copy);
    drop(d);
    // ...and passes ordinary updates: a new nested block, typing.
    let (d, f) = deep_yjs_list(10);
    let sv = d.transact().state_vector();
    insert_blocks(
        &mut d.transact_mut(),
        &f,
        &Position::LastChildOf { id: "b10".into() },
        &[NewBlock::new("paragraph").text("new")],
    )
    .unwrap();
    let new_block = d.transact().encode_state_as_update_v1(&sv);
    // blockGroup > blockContainer > paragraph > text
    assert_eq!(check_update_depth(&new_block), Ok(4));
    let sv = d.transact().state_vector();
    set_block_text(&mut d.transact_mut(), &f, "b1", "item one").unwrap();
    assert_eq!(
        check_update_depth(&d.transact().encode_state_as_update_v1(&sv)),
        Ok(0)
    );
    assert_eq!(check_document_depth(&d.transact(), &f), Ok(()));
}

#[test]
fn yrs_deletes_twice_the_accepted_depth_on_a_small_stack() {
    // The most an accepted document can hold (MAX_YJS_DEPTH levels) plus the most one
    // accepted update can nest under it, deleted at once by a collaborator: yrs recurses
    // through all of it. 255 list levels reach 2 × 255 + 2 = 512 XML levels.
    let levels = (MAX_YJS_DEPTH - 2) / 2;
    let (d, f) = deep_yjs_list(levels);
    assert_eq!(check_document_depth(&d.transact(), &f), Ok(()));
    let (deeper, _) = deep_yjs_list(2 * levels);
    let update = deeper
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    let sv = deeper.transact().state_vector();
    let peer = Doc::with_options(Options {
        skip_gc: true,
        ..Options::default()
    });
    peer.transact_mut()
        .apply_update(Update::decode_v1(&update).unwrap())
        .unwrap();
    // The peer deletes the list from the bottom up (so that its own yrs does not recurse).
    {
        let frag = document_fragment(&peer);
        let mut txn = peer.transact_mut();
        let mut groups = vec![root_group(&txn, &frag).unwrap()];
        while let Some(XmlOut::Element(c)) = groups.last().unwrap().get(&txn, 0)
            && let Some(XmlOut::Element(g)) = c.get(&txn, 1)
        {
            groups.push(g);
        }
        for g in groups.iter().rev() {
            g.remove_range(&mut txn, 0, 1);
        }
    }
    let deletion = peer.transact().encode_state_as_update_v1(&sv);
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            deeper
                .transact_mut()
                .apply_update(Update::decode_v1(&deletion).unwrap())
                .unwrap();
            let frag = document_fragment(&deeper);
            read_document(&deeper.transact(), &frag)
        })
        .unwrap()
        .join()
        .map(|docu| assert_eq!(docu.blocks.len(), 1))
        .unwrap();
    drop(d);
}

/// The door reads past contents without building them: it must count each as yrs does (text
/// in UTF-16 units, every kind of attribute value), or the clocks it finds types by drift and
/// a deep update's depth is missed.
#[test]
fn the_door_counts_every_kind_of_content_as_yrs_does() {
    use std::collections::HashMap as Map;
    use yrs::{Any, Array, ArrayPrelim, Map as _, Text, TextPrelim};

    let d = Doc::with_client_id(7);
    let meta = d.get_or_insert_map("meta");
    let f = d.get_or_insert_xml_fragment("document-store");
    let depth = 40;
    {
        let mut txn = d.transact_mut();
        let nested = Any::from(Map::from([
            (
                "list".to_owned(),
                Any::from(vec![Any::Null, Any::Undefined, Any::Bool(true)]),
            ),
            ("n".to_owned(), Any::from(-3_i64.pow(20))),
            ("big".to_owned(), Any::from(i64::MIN)),
            ("f".to_owned(), Any::from(0.1_f64)),
            ("bytes".to_owned(), Any::from(vec![0_u8, 255, 7])),
            (
                "deeper".to_owned(),
                Any::from(Map::from([("x".to_owned(), Any::from("😀 é"))])),
            ),
        ]));
        meta.insert(&mut txn, "values", nested);
        meta.insert(&mut txn, "flag", false);
        meta.insert(&mut txn, "float", 1.5_f32 as f64);
        let array = meta.insert(&mut txn, "array", ArrayPrelim::default());
        array.insert_range(&mut txn, 0, [Any::from(1), Any::from("two"), Any::Null]);
        let text = meta.insert(&mut txn, "text", TextPrelim::new(""));
        text.insert(&mut txn, 0, "emoji 😀😀 and 𝄞 clef");
        text.insert(&mut txn, 3, "…");
        let bold = yrs::types::Attrs::from([("bold".into(), Any::from(true))]);
        text.format(&mut txn, 2, 6, bold);
        // Nested types made after all of it, by the same client: found by their clocks.
        let mut parent = f.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        for _ in 1..depth {
            parent = parent.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        }
    }
    let update = d
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    assert_eq!(check_update_depth(&update), Ok(depth as usize));
}

/// A section's struct count is the update's word: a few bytes claiming four billion structs
/// are refused as malformed, without the door reserving room for them (which would abort).
#[test]
fn a_struct_count_past_the_bytes_is_refused_without_reserving_for_it() {
    let (d, f) = doc();
    insert_blocks(
        &mut d.transact_mut(),
        &f,
        &Position::End,
        &[
            NewBlock::new("paragraph").text("one"),
            NewBlock::new("paragraph").text("two"),
        ],
    )
    .unwrap();
    let update = d
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    // One client, so the second byte is its section's struct count (under 128: one byte).
    assert_eq!(update[0], 1);
    assert!(update[1] < 0x80);
    assert!(check_update_depth(&update).is_ok());
    let mut claimed = vec![1, 0xF0, 0xFF, 0xFF, 0xFF, 0x0F];
    claimed.extend_from_slice(&update[2..]);
    assert!(matches!(
        check_update_depth(&claimed),
        Err(ModelError::MalformedDocument { .. })
    ));
}

/// The container of block `b{level}` of a [`deep_yjs_list`].
fn deep_container(txn: &impl ReadTxn, f: &XmlFragmentRef, level: usize) -> XmlElementRef {
    let Some(XmlOut::Element(mut group)) = f.get(txn, 0) else {
        panic!("a root group")
    };
    for at in 1..=level {
        let Some(XmlOut::Element(c)) = group.get(txn, 0) else {
            panic!("block b{at}")
        };
        if at == level {
            return c;
        }
        let Some(XmlOut::Element(g)) = c.get(txn, 1) else {
            panic!("b{at}'s children")
        };
        group = g;
    }
    unreachable!("level 0")
}

#[test]
fn the_depth_after_an_update_is_read_from_its_types_as_a_walk_of_the_document_finds_it() {
    // 255 list levels: 512 XML levels, the most a document may hold.
    let levels = (MAX_YJS_DEPTH - 2) / 2;
    // Under block `b{level}` (at level 2 × level): a child group > block > paragraph > text.
    // Under b254, the last three land on 510 to 512; under b255, on 512 to 514.
    for (under, passes) in [
        (1, true),
        (levels / 2, true),
        (levels - 1, true),
        (levels, false),
    ] {
        let (d, f) = deep_yjs_list(levels);
        let sv = d.transact().state_vector();
        {
            let mut txn = d.transact_mut();
            let parent = deep_container(&txn, &f, under);
            let group = match parent.get(&txn, 1) {
                Some(XmlOut::Element(group)) => group,
                _ => parent.insert(&mut txn, 1, XmlElementPrelim::empty("blockGroup")),
            };
            let (_, paragraph) = container(&mut txn, &group, "new", "paragraph");
            paragraph.insert(&mut txn, 0, XmlTextPrelim::new("new"));
        }
        let update = d.transact().encode_state_as_update_v1(&sv);
        let types = update_types(&update).unwrap();
        let txn = d.transact();
        assert_eq!(
            (
                check_depth_after(&txn, &types).is_ok(),
                check_document_depth(&txn, &f).is_ok()
            ),
            (passes, passes),
            "a block under b{under}"
        );
    }
    // Typing creates no type: nothing to look at.
    let (d, f) = deep_yjs_list(3);
    let sv = d.transact().state_vector();
    set_block_text(&mut d.transact_mut(), &f, "b3", "item three").unwrap();
    assert!(
        update_types(&d.transact().encode_state_as_update_v1(&sv))
            .unwrap()
            .is_empty()
    );
}
