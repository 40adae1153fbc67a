//! The minimal text diff behind `set_block_text`: word by word.

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

/// A person who has not seen an agent's rewrite of "Human" types at the end of the word, inside
/// it or before it: the word is replaced whole (none of its letters kept as an anchor), so the
/// person's letters land next to the agent's word, never inside it. Where both are at one
/// place, Yjs puts the lower client id first: both orders are tried.
#[test]
fn a_rewritten_word_is_replaced_whole_and_concurrent_typing_lands_next_to_it() {
    for (agent_id, at, typed, merged) in [
        (1, 9, "kind", "The Agent-editedkind race"),
        (3, 9, "kind", "The kindAgent-edited race"),
        (1, 9, "s", "The Agent-editeds race"),
        (3, 9, "s", "The sAgent-edited race"),
        (1, 6, "XY", "The XYAgent-edited race"),
        (3, 6, "XY", "The XYAgent-edited race"),
        (1, 4, "re", "The reAgent-edited race"),
        (3, 4, "re", "The reAgent-edited race"),
    ] {
        let agent = Doc::with_client_id(agent_id);
        let fa = document_fragment(&agent);
        let id = {
            let mut txn = agent.transact_mut();
            insert_blocks(
                &mut txn,
                &fa,
                &Position::End,
                &[NewBlock::new("paragraph").text("The Human race")],
            )
            .unwrap()
            .remove(0)
        };
        let person = Doc::with_client_id(2);
        let fp = document_fragment(&person);
        sync(&agent, &person);
        {
            let x = text_node(&person, &fp);
            let mut txn = person.transact_mut();
            x.insert(&mut txn, at, typed);
        }
        {
            let mut txn = agent.transact_mut();
            set_block_text(&mut txn, &fa, &id, "The Agent-edited race").unwrap();
        }
        sync(&agent, &person);
        sync(&person, &agent);
        let text = read(&agent, &fa).blocks[0].plain_text();
        assert_eq!(text, read(&person, &fp).blocks[0].plain_text());
        assert_eq!(text, merged, "{typed:?} typed at {at}, agent {agent_id}");
    }
}

/// A word rewritten inside a commented stretch stays in the comment; a comment on part of
/// the word only goes with the old word.
#[test]
fn a_rewritten_word_keeps_the_comments_all_of_it_had() {
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    let id = insert_blocks(
        &mut txn,
        &f,
        &Position::End,
        &[NewBlock::new("paragraph").text("The Humna race")],
    )
    .unwrap()
    .remove(0);
    let text = text_node_in(&txn, &f);
    text.format(&mut txn, 0, 14, Attrs::from([comment_attr("all")]));
    text.format(&mut txn, 4, 5, Attrs::from([comment_attr("word")]));
    text.format(&mut txn, 10, 2, Attrs::from([comment_attr("part")]));
    set_block_text(&mut txn, &f, &id, "The Human rice").unwrap();
    let run = |text: &str, threads: &[&str]| {
        Inline::Text(TextRun {
            text: text.into(),
            comments: threads.iter().map(|t| cm(t)).collect(),
            ..Default::default()
        })
    };
    assert_eq!(
        read_document(&txn, &f).blocks[0].inline().unwrap(),
        &[
            run("The ", &["all"]),
            run("Human", &["all", "word"]),
            run(" rice", &["all"]),
        ][..]
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
    assert_eq!(last.comments, vec![cm("abc")]);
}

/// The text of the first block, in an open transaction.
fn text_node_in(txn: &yrs::TransactionMut, f: &XmlFragmentRef) -> yrs::XmlTextRef {
    let root = root_group(txn, f).unwrap();
    let Some(XmlOut::Element(c)) = root.get(txn, 0) else {
        panic!()
    };
    let Some(XmlOut::Element(node)) = c.get(txn, 0) else {
        panic!()
    };
    let Some(XmlOut::Text(text)) = node.get(txn, 0) else {
        panic!()
    };
    text
}

/// About `len` bytes of words drawn from a small vocabulary by a seeded generator: two seeds
/// give two unrelated texts sharing every word, the slowest case for a minimal diff.
fn words(len: usize, seed: u64) -> String {
    const VOCABULARY: [&str; 6] = ["lorem", "ipsum", "dolor", "sit", "amet", "elit"];
    let mut state = seed;
    let mut text = String::with_capacity(len + 8);
    while text.len() < len {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        text.push_str(VOCABULARY[(state >> 33) as usize % VOCABULARY.len()]);
        text.push(' ');
    }
    text.truncate(len);
    text
}

fn commented(text: &str, comment: &str, styles: Styles) -> Inline {
    Inline::Text(TextRun {
        text: text.into(),
        styles,
        link: None,
        comments: vec![cm(comment)],
    })
}

#[test]
fn past_the_time_limit_only_the_middle_is_replaced() {
    // Comments are marks this crate never writes: a run keeps its comment only if its
    // characters keep their identity.
    let (d, f) = doc();
    let old_middle = "old ".repeat(25_000);
    let new_middle = "new ".repeat(30_000);
    let mut txn = d.transact_mut();
    let id = insert_blocks(
        &mut txn,
        &f,
        &Position::End,
        &[NewBlock::new("paragraph").text(format!("Kept start {old_middle}**kept end**"))],
    )
    .unwrap()
    .remove(0);
    let text = text_node_in(&txn, &f);
    let end = text.len(&txn);
    text.format(&mut txn, 0, 10, Attrs::from([comment_attr("a")]));
    text.format(&mut txn, end - 8, 8, Attrs::from([comment_attr("b")]));
    let wanted = format!("Kept start {new_middle}**kept end**");
    crate::blocknote::write::set_block_content_within(
        &mut txn,
        &f,
        &id,
        &NewContent::Markdown(wanted),
        std::time::Duration::ZERO,
    )
    .unwrap();
    let bold_style = Styles {
        bold: true,
        ..Default::default()
    };
    assert_eq!(
        read_document(&txn, &f).blocks[0].inline().unwrap(),
        &[
            commented("Kept start", "a", Styles::default()),
            t(&format!(" {new_middle}")),
            commented("kept end", "b", bold_style),
        ][..]
    );
}

#[test]
fn a_long_rewrite_within_the_time_limit_is_exact() {
    let (old, new) = (words(256 * 1024, 1), words(256 * 1024, 2));
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    let id = insert_blocks(
        &mut txn,
        &f,
        &Position::End,
        &[NewBlock::new("paragraph").text(format!("**{}** {old}", &old[..100]))],
    )
    .unwrap()
    .remove(0);
    let wanted = format!("**{}** {new}", &old[..100]);
    set_block_text(&mut txn, &f, &id, &wanted).unwrap();
    assert_eq!(
        read_document(&txn, &f).blocks[0].inline().unwrap(),
        &parse_inline(&wanted).unwrap()[..]
    );
}

#[test]
fn thousands_of_edits_are_merged_keeping_the_longest_unchanged_runs() {
    // 300 one-letter words change (300 edits) between unchanged runs: a dash, digits, a
    // space, and after every 15th word a long run. Each run is commented. Above MAX_EDITS
    // (256) edits, the diff merges edits across the shortest runs: the result is exact, the
    // 20 long runs keep their identity (and so their comments and the digits in them), and of
    // the 279 short runs between edits 235 do, and the digits after the last edit: 256
    // commented digit runs.
    let text = |letter: char| -> String {
        (0..300)
            .map(|i| match i % 15 {
                0 => format!("{letter}-{i:03} keep{i:03} keep keep keep "),
                _ => format!("{letter}-{i:03} "),
            })
            .collect()
    };
    let (old, new) = (text('e'), text('n'));
    let kept: Vec<String> = (0..300)
        .step_by(15)
        .map(|i| format!("keep{i:03} keep keep keep"))
        .collect();
    let (d, f) = doc();
    let mut txn = d.transact_mut();
    let id = insert_blocks(
        &mut txn,
        &f,
        &Position::End,
        &[NewBlock::new("paragraph").text(old.clone())],
    )
    .unwrap()
    .remove(0);
    let text_node = text_node_in(&txn, &f);
    for run in &kept {
        let at = old.find(run.as_str()).unwrap() as u32;
        let comment = Attrs::from([comment_attr("k")]);
        text_node.format(&mut txn, at, run.len() as u32, comment);
    }
    for i in 0..300 {
        let at = old.find(&format!("e-{i:03}")).unwrap() as u32 + 2;
        let comment = Attrs::from([comment_attr("d")]);
        text_node.format(&mut txn, at, 3, comment);
    }
    crate::blocknote::write::set_block_content_within(
        &mut txn,
        &f,
        &id,
        &NewContent::Markdown(new.clone()),
        std::time::Duration::from_secs(60),
    )
    .unwrap();
    let block = read_document(&txn, &f).blocks.remove(0);
    assert_eq!(block.plain_text(), new);
    let commented = |comment: &str| -> Vec<String> {
        block
            .inline()
            .unwrap()
            .iter()
            .filter_map(|i| match i {
                Inline::Text(r) if r.comments == [cm(comment)] => Some(r.text.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(commented("k"), kept);
    assert_eq!(commented("d").len(), 256);
}
