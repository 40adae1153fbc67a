//! Validation and the operations on blocks: positions, delete, lift, move, change of type.

use super::*;

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
        // Docs' mentions: a persisted one is never made (an agent knows no user ids), the
        // transient picker never written.
        (
            NewBlock::new("paragraph").inline(vec![Inline::Element {
                kind: "userMentionInline".into(),
                attrs: Props::from([
                    ("userId".to_owned(), PropValue::String("u-ada".into())),
                    ("fullName".to_owned(), PropValue::String("Ada".into())),
                ]),
            }]),
            |e| matches!(e, ModelError::UnknownInlineElement { kind } if kind == "userMentionInline"),
        ),
        (
            NewBlock::new("paragraph").inline(vec![Inline::Element {
                kind: "mentionSearchInline".into(),
                attrs: Props::new(),
            }]),
            |e| matches!(e, ModelError::UnknownInlineElement { kind } if kind == "mentionSearchInline"),
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
