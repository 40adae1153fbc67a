//! The minimal text diff behind `set_block_text`.

use super::*;

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
                &parse_inline(next).unwrap()[..],
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
