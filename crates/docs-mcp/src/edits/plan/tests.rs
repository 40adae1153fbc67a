//! Planning on a fork: what lands, what is refused, what an edit depends on and leaves.

use super::*;
use crate::edits::{
    Anchor, DeleteBlocks, InsertBlocks, MAX_INPUT_BYTES, Position, ReplaceText, UpdateBlock,
};
use crate::record::{LinkKind, PreviewLink};
use crate::seeded::Draw;
use docs_client::blocknote::tree::{BlockContent, Inline, Styles, TextRun};
use docs_client::blocknote::write::Position as ModelPosition;
use yrs::updates::decoder::Decode;
use yrs::{OffsetKind, Options, Update};

/// A fresh fork of `doc`, as an edit gets when none was made ahead.
fn fork(doc: &Doc) -> Fork {
    let forks = crate::edits::Forks::new(doc.clone(), EditorSchema::BASE);
    let (doc, ()) = forks.take(|| ()).unwrap();
    Fork {
        doc,
        blocks: None,
        schema: EditorSchema::BASE,
    }
}

fn live_doc(markdown: &str) -> Doc {
    let doc = Doc::with_options(Options {
        offset_kind: OffsetKind::Utf16,
        ..Options::default()
    });
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let blocks = blocknote::import_markdown(markdown).unwrap();
    let mut txn = doc.transact_mut();
    blocknote::insert_blocks(&mut txn, &fragment, &ModelPosition::End, &blocks).unwrap();
    drop(txn);
    doc
}

fn texts(doc: &Doc) -> Vec<String> {
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    blocknote::read_document(&doc.transact(), &fragment)
        .blocks
        .iter()
        .map(|b| b.plain_text())
        .collect()
}

fn apply_plan(doc: &Doc, plan: &Plan) {
    doc.transact_mut()
        .apply_update(Update::decode_v1(&plan.update).unwrap())
        .unwrap();
}

#[test]
fn a_plan_changes_only_the_fork_until_applied() {
    let doc = live_doc("First\n\nSecond");
    let op = EditOp::InsertBlocks(InsertBlocks {
        position: Position {
            at: Anchor::End,
            block_id: None,
        },
        markdown: Some("Third **bold**".into()),
        blocks: None,
    });
    let plan = plan(&fork(&doc), &[op], &TextBases::new()).unwrap();
    assert_eq!(texts(&doc), ["First", "Second"]);
    assert_eq!(plan.new_blocks.len(), 1);
    assert_eq!(plan.preview.after.len(), 1);
    assert_eq!(plan.preview.after[0].markdown, "Third **bold**");
    assert_eq!(plan.preview.words_added, 2);
    apply_plan(&doc, &plan);
    assert_eq!(texts(&doc), ["First", "Second", "Third bold"]);
}

#[test]
fn a_failing_operation_plans_nothing() {
    let doc = live_doc("Only");
    let ops = [
        EditOp::InsertBlocks(InsertBlocks {
            position: Position {
                at: Anchor::Start,
                block_id: None,
            },
            markdown: Some("new".into()),
            blocks: None,
        }),
        EditOp::DeleteBlocks(DeleteBlocks {
            block_ids: vec!["no-such-block".into()],
            keep_children: false,
        }),
    ];
    let err = plan(&fork(&doc), &ops, &TextBases::new()).unwrap_err();
    assert_eq!(err.code().as_str(), "BLOCK_NOT_FOUND");
    assert_eq!(texts(&doc), ["Only"]);
}

#[test]
fn replace_text_keeps_formatting_and_refuses_ambiguity() {
    let doc = live_doc("The **quick** brown fox\n\nA quick note");
    let ambiguous = plan(
        &fork(&doc),
        &[EditOp::ReplaceText(ReplaceText {
            old_text: "quick".into(),
            new_text: "slow".into(),
            block_id: None,
            all: false,
        })],
        &TextBases::new(),
    )
    .unwrap_err();
    assert_eq!(ambiguous.code().as_str(), "AMBIGUOUS_MATCH");
    let missing = plan(
        &fork(&doc),
        &[EditOp::ReplaceText(ReplaceText {
            old_text: "purple".into(),
            new_text: "x".into(),
            block_id: None,
            all: false,
        })],
        &TextBases::new(),
    )
    .unwrap_err();
    assert_eq!(missing.code().as_str(), "TEXT_NOT_FOUND");

    let all = plan(
        &fork(&doc),
        &[EditOp::ReplaceText(ReplaceText {
            old_text: "quick".into(),
            new_text: "slow".into(),
            block_id: None,
            all: true,
        })],
        &TextBases::new(),
    )
    .unwrap();
    apply_plan(&doc, &all);
    assert_eq!(texts(&doc), ["The slow brown fox", "A slow note"]);
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let document = blocknote::read_document(&doc.transact(), &fragment);
    let BlockContent::Inline { inline } = &document.blocks[0].content else {
        panic!()
    };
    let bold = Styles {
        bold: true,
        ..Styles::default()
    };
    assert!(inline.contains(&Inline::Text(TextRun::styled("slow", bold))));
    assert_eq!(all.preview.words_removed, 2);
    assert_eq!(all.preview.words_added, 2);
}

#[test]
fn limits_are_checked_first() {
    assert_eq!(
        check_limits(&[]).unwrap_err().code().as_str(),
        "INVALID_INPUT"
    );
    let huge = EditOp::InsertBlocks(InsertBlocks {
        position: Position {
            at: Anchor::End,
            block_id: None,
        },
        markdown: Some("x".repeat(MAX_INPUT_BYTES + 1)),
        blocks: None,
    });
    assert_eq!(
        check_limits(&[huge]).unwrap_err().code().as_str(),
        "INVALID_INPUT"
    );
    let before = EditOp::InsertBlocks(InsertBlocks {
        position: Position {
            at: Anchor::Before,
            block_id: None,
        },
        markdown: Some("x".into()),
        blocks: None,
    });
    let doc = live_doc("a");
    let err = plan(&fork(&doc), &[before], &TextBases::new()).unwrap_err();
    assert_eq!(err.code().as_str(), "INVALID_INPUT");
    assert!(err.to_string().contains("block_id"), "{err}");
}

fn block_ids(doc: &Doc) -> Vec<String> {
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    blocknote::read_document(&doc.transact(), &fragment)
        .blocks
        .iter()
        .map(|b| b.id.clone())
        .collect()
}

fn update_text(block_id: &str, text: &str) -> EditOp {
    EditOp::UpdateBlock(UpdateBlock {
        block_id: block_id.into(),
        text: Some(text.into()),
        block_type: None,
        props: None,
    })
}

/// A person types into a block the agent read: the agent's rewrite lands on top of it.
#[test]
fn a_rewrite_is_rebased_onto_what_was_typed_since_the_agent_read() {
    let doc = live_doc("The quick brown fox.\n\nOther");
    let id = block_ids(&doc)[0].clone();
    let read = "The quick brown fox.".to_owned();
    let typed = plan(
        &fork(&doc),
        &[update_text(&id, "The quick brown fox. It jumps")],
        &TextBases::new(),
    )
    .unwrap();
    apply_plan(&doc, &typed);
    let bases = TextBases::from([(id.clone(), read)]);
    let rewrite = plan(
        &fork(&doc),
        &[update_text(&id, "The slow brown fox.")],
        &bases,
    )
    .unwrap();
    apply_plan(&doc, &rewrite);
    assert_eq!(texts(&doc), ["The slow brown fox. It jumps", "Other"]);
    // Without what it read, the agent's text replaces the block's, the person's included.
    let blind = plan(
        &fork(&doc),
        &[update_text(&id, "The slow brown fox.")],
        &TextBases::new(),
    )
    .unwrap();
    apply_plan(&doc, &blind);
    assert_eq!(texts(&doc), ["The slow brown fox.", "Other"]);
}

#[test]
fn a_rewrite_of_the_same_words_someone_changed_is_refused() {
    let doc = live_doc("quote me");
    let id = block_ids(&doc)[0].clone();
    let person = plan(
        &fork(&doc),
        &[update_text(&id, "quota me")],
        &TextBases::new(),
    )
    .unwrap();
    apply_plan(&doc, &person);
    let bases = TextBases::from([(id.clone(), "quote me".to_owned())]);
    let err = plan(&fork(&doc), &[update_text(&id, "quoted me")], &bases).unwrap_err();
    assert_eq!(err.code().as_str(), "STALE_REVISION");
    assert_eq!(
        err.to_string(),
        format!(
            "your change to block {id} overlaps a change made since you read it: \"quote\" now reads \"quota\""
        )
    );
    assert_eq!(texts(&doc), ["quota me"]);
}

/// A person sets `text` in the first block of `doc`.
fn person_types(doc: &Doc, text: &str) {
    let id = block_ids(doc)[0].clone();
    let typed = plan(&fork(doc), &[update_text(&id, text)], &TextBases::new()).unwrap();
    apply_plan(doc, &typed);
}

fn replace(old_text: &str, new_text: &str, block_id: Option<&str>) -> EditOp {
    EditOp::ReplaceText(ReplaceText {
        old_text: old_text.into(),
        new_text: new_text.into(),
        block_id: block_id.map(str::to_owned),
        all: false,
    })
}

/// The case: a person makes "Humankind" (or "Humans", or types inside the word) of
/// the "Human" an agent read and rewrites. The rewrite is refused, and so is replacing
/// "Human" found inside the person's word; a person's change of another word is kept.
#[test]
fn a_word_a_person_changed_since_the_agent_read_it_is_not_rewritten() {
    for typed in ["Humankind", "Humans", "Huuman", "reHuman"] {
        let doc = live_doc("The Human race");
        let id = block_ids(&doc)[0].clone();
        person_types(&doc, &format!("The {typed} race"));
        let bases = TextBases::from([(id.clone(), "The Human race".to_owned())]);
        for op in [
            update_text(&id, "The Agent-edited race"),
            replace("Human", "Agent-edited", Some(&id)),
            replace("Human", "Agent-edited", None),
        ] {
            let refused = plan(&fork(&doc), std::slice::from_ref(&op), &bases).map(drop);
            let Err(ServiceError::Overlap { read, now, .. }) = refused else {
                // "Huuman" holds no "Human" to replace.
                assert!(typed == "Huuman" && matches!(op, EditOp::ReplaceText(_)));
                continue;
            };
            assert_eq!((read.as_str(), now.as_str()), ("Human", typed), "{op:?}");
        }
        assert_eq!(texts(&doc), [format!("The {typed} race")]);
    }
    // The person changed the next word: both changes are kept.
    let rewrites: [fn(&str) -> EditOp; 2] = [
        |id| update_text(id, "The Agent race"),
        |id| replace("Human", "Agent", Some(id)),
    ];
    for rewrite in rewrites {
        let doc = live_doc("The Human race");
        let id = block_ids(&doc)[0].clone();
        person_types(&doc, "The Human races");
        let bases = TextBases::from([(id.clone(), "The Human race".to_owned())]);
        let planned = plan(&fork(&doc), &[rewrite(&id)], &bases).unwrap();
        apply_plan(&doc, &planned);
        assert_eq!(texts(&doc), ["The Agent races"]);
    }
}

#[test]
fn an_edit_depends_on_its_targets_and_anchors_and_leaves_what_it_made() {
    let doc = live_doc("One\n\nTwo\n\nThree");
    let ids = block_ids(&doc);
    let ops = [
        update_text(&ids[0], "One!"),
        EditOp::InsertBlocks(InsertBlocks {
            position: Position {
                at: Anchor::After,
                block_id: Some(ids[1].clone()),
            },
            markdown: Some("New".into()),
            blocks: None,
        }),
        EditOp::DeleteBlocks(DeleteBlocks {
            block_ids: vec![ids[2].clone()],
            keep_children: false,
        }),
    ];
    let planned = plan(&fork(&doc), &ops, &TextBases::new()).unwrap();
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let before = blocknote::read_document(&doc.transact(), &fragment);
    let mut expected = vec![
        BlockState {
            block_id: ids[0].clone(),
            seen: Seen::Content(fingerprint::of_content(&before.blocks[0])),
        },
        BlockState {
            block_id: ids[1].clone(),
            seen: Seen::Exists,
        },
        BlockState {
            block_id: ids[2].clone(),
            seen: Seen::Subtree(fingerprint::of_subtree(&before.blocks[2])),
        },
    ];
    expected.sort_by(|a, b| a.block_id.cmp(&b.block_id));
    assert_eq!(planned.depends_on, expected);
    apply_plan(&doc, &planned);
    let after = blocknote::read_document(&doc.transact(), &fragment);
    assert_eq!(texts(&doc), ["One!", "Two", "New"]);
    assert_eq!(
        planned.leaves,
        vec![
            BlockState {
                block_id: ids[0].clone(),
                seen: Seen::Content(fingerprint::of_content(&after.blocks[0])),
            },
            BlockState {
                block_id: after.blocks[2].id.clone(),
                seen: Seen::Subtree(fingerprint::of_subtree(&after.blocks[2])),
            },
        ]
    );
    assert_eq!(
        fingerprint::unchanged(&fingerprint::index(&after), &planned.leaves),
        Ok(())
    );
}

#[test]
fn too_many_new_blocks_are_refused_before_any_is_written() {
    let doc = live_doc("a");
    let markdown = "- x\n".repeat(MAX_NEW_BLOCKS + 1);
    let err = plan(
        &fork(&doc),
        &[EditOp::InsertBlocks(InsertBlocks {
            position: Position {
                at: Anchor::End,
                block_id: None,
            },
            markdown: Some(markdown),
            blocks: None,
        })],
        &TextBases::new(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the edit creates {} blocks; the limit is {MAX_NEW_BLOCKS}",
            MAX_NEW_BLOCKS + 1
        )
    );
}

fn insert_at_end(markdown: &str) -> EditOp {
    EditOp::InsertBlocks(InsertBlocks {
        position: Position {
            at: Anchor::End,
            block_id: None,
        },
        markdown: Some(markdown.into()),
        blocks: None,
    })
}

fn preview_link(
    block_id: &str,
    kind: LinkKind,
    url: &str,
    host: Option<&str>,
    text: &str,
) -> PreviewLink {
    PreviewLink {
        block_id: block_id.into(),
        kind,
        url: url.into(),
        host: host.map(str::to_owned),
        text: text.into(),
    }
}

/// The person deciding sees every link target and media URL the edit adds or changes, and
/// where it goes; not those the blocks held already.
#[test]
fn a_preview_lists_the_links_and_media_an_edit_adds_or_changes() {
    let doc = live_doc(
        "See [the spec](https://docs.example.org/docs/a/).\n\n\
         ![logo](https://docs.example.org/media/logo.png)",
    );
    let ids = block_ids(&doc);
    let ops = [
        update_text(
            &ids[0],
            "See [the spec](https://docs.example.org/docs/a/) and [this](https://evil.example/x).",
        ),
        EditOp::UpdateBlock(UpdateBlock {
            block_id: ids[1].clone(),
            text: None,
            block_type: None,
            props: serde_json::json!({"url": "https://cdn.example:8443/logo.png"})
                .as_object()
                .cloned(),
        }),
        insert_at_end("Write to [Ada](mailto:ada@example.org) or read [the page](/docs/b/)."),
    ];
    let planned = plan(&fork(&doc), &ops, &TextBases::new()).unwrap();
    let new = planned.new_blocks[0].as_str();
    assert_eq!(
        planned.preview.links,
        [
            preview_link(
                &ids[0],
                LinkKind::Link,
                "https://evil.example/x",
                Some("evil.example"),
                "this"
            ),
            preview_link(
                &ids[1],
                LinkKind::Media,
                "https://cdn.example:8443/logo.png",
                Some("cdn.example:8443"),
                "logo"
            ),
            preview_link(new, LinkKind::Link, "mailto:ada@example.org", None, "Ada"),
            preview_link(new, LinkKind::Link, "/docs/b/", None, "the page"),
        ]
    );
    let same_links = update_text(
        &ids[0],
        "Read [the spec](https://docs.example.org/docs/a/), again.",
    );
    let planned = plan(&fork(&doc), &[same_links], &TextBases::new()).unwrap();
    assert_eq!(planned.preview.links, []);
}

/// An undo puts back what a person wrote as it was: links and media URLs of schemes an agent
/// may not write included.
#[test]
fn an_undo_puts_back_links_and_media_of_any_scheme() {
    let doc = live_doc("");
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let call = Inline::Text(TextRun {
        link: Some("tel:+33123456789".into()),
        ..TextRun::plain("call us")
    });
    let written = [
        NewBlock::new("paragraph").inline(vec![call]),
        NewBlock::new("image").prop("url", "file:///srv/logo.png"),
    ];
    blocknote::insert_blocks_in(
        &mut doc.transact_mut(),
        &fragment,
        &ModelPosition::Start,
        &written,
        blocknote::Writing::as_read(EditorSchema::BASE),
    )
    .unwrap();
    let before = blocknote::read_document(&doc.transact(), &fragment);
    let ids = block_ids(&doc);
    let ops = [
        update_text(&ids[0], "Write to us."),
        EditOp::DeleteBlocks(DeleteBlocks {
            block_ids: vec![ids[1].clone()],
            keep_children: false,
        }),
    ];
    let planned = plan(&fork(&doc), &ops, &TextBases::new()).unwrap();
    let inverse = planned.inverse.clone().expect("the edit can be undone");
    apply_plan(&doc, &planned);
    let undo = plan_undo(&fork(&doc), &inverse).unwrap();
    apply_plan(&doc, &undo);
    let now = blocknote::read_document(&doc.transact(), &fragment);
    assert_eq!(now.blocks[0].inline(), before.blocks[0].inline());
    assert_eq!(now.blocks[1].props, before.blocks[1].props);
    let restored: Vec<&str> = undo.preview.links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(restored, ["tel:+33123456789", "file:///srv/logo.png"]);
}

/// A comma and a name added after a word read as an addition only — the word is not shown
/// removed and added again with its comma — and the block's text comes without its marker.
#[test]
fn a_words_diff_shows_an_addition_as_an_addition_only() {
    let doc = live_doc("> Attendees: Ada");
    let id = block_ids(&doc)[0].clone();
    let plan = plan(
        &fork(&doc),
        &[update_text(&id, "Attendees: Ada, Grace")],
        &TextBases::new(),
    )
    .unwrap();
    let spans: Vec<(&str, &str)> = plan
        .preview
        .diff
        .iter()
        .map(|s| (s.kind.as_str(), s.text.as_str()))
        .collect();
    assert_eq!(spans, [("equal", "> Attendees: Ada"), ("added", ", Grace")]);
    assert_eq!(
        (plan.preview.words_added, plan.preview.words_removed),
        (1, 0)
    );
    assert_eq!(
        plan.preview.after[0].text.as_deref(),
        Some("Attendees: Ada, Grace")
    );
}

/// An insert naming no block reads the blocks it adds from the document's last block (at
/// the end) or, not finding them there, from its first (at the start): either way the person
/// sees where they land, between the blocks around them.
#[test]
fn an_insert_naming_no_block_is_previewed_where_it_lands_at_either_end() {
    let doc = live_doc("First\n\nSecond\n\nThird");
    let ids = block_ids(&doc);
    let insert_at = |at| {
        EditOp::InsertBlocks(InsertBlocks {
            position: Position { at, block_id: None },
            markdown: Some("New".into()),
            blocks: None,
        })
    };
    let around = |planned: &Plan| {
        (
            planned
                .preview
                .context_before
                .as_ref()
                .map(|b| b.block_id.clone()),
            planned
                .preview
                .after
                .iter()
                .map(|b| b.markdown.clone())
                .collect::<Vec<_>>(),
            planned
                .preview
                .context_after
                .as_ref()
                .map(|b| b.block_id.clone()),
        )
    };
    let end = plan(&fork(&doc), &[insert_at(Anchor::End)], &TextBases::new()).unwrap();
    assert_eq!(
        around(&end),
        (Some(ids[2].clone()), vec!["New".into()], None)
    );
    let start = plan(&fork(&doc), &[insert_at(Anchor::Start)], &TextBases::new()).unwrap();
    assert_eq!(
        around(&start),
        (None, vec!["New".into()], Some(ids[0].clone()))
    );
    apply_plan(&doc, &start);
    assert_eq!(texts(&doc), ["New", "First", "Second", "Third"]);
}

/// One operation, drawn, on the blocks of `doc` (nested ones included).
fn drawn_op(doc: &Doc, draw: &mut Draw, step: usize) -> EditOp {
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let read = blocknote::read_document(&doc.transact(), &fragment);
    let ids: Vec<String> = read.all_blocks().iter().map(|b| b.id.clone()).collect();
    let some = ids[draw.below(ids.len())].clone();
    let anchors = [
        Anchor::Start,
        Anchor::End,
        Anchor::Before,
        Anchor::After,
        Anchor::FirstChildOf,
        Anchor::LastChildOf,
    ];
    let at = anchors[draw.below(anchors.len())];
    let position = Position {
        at,
        block_id: (!matches!(at, Anchor::Start | Anchor::End)).then(|| some.clone()),
    };
    match draw.below(5) {
        0 | 1 => EditOp::InsertBlocks(InsertBlocks {
            position,
            markdown: Some(format!("New {step}\n\n- item {step}\n  - nested {step}")),
            blocks: None,
        }),
        2 => update_text(&some, &format!("rewritten {step}")),
        3 => EditOp::DeleteBlocks(DeleteBlocks {
            block_ids: vec![some],
            keep_children: draw.below(2) == 0,
        }),
        _ => EditOp::MoveBlock(crate::edits::MoveBlock {
            block_id: ids[draw.below(ids.len())].clone(),
            position,
        }),
    }
}

/// What a plan says its edit leaves (the blocks it changes and creates, read from the part of
/// the document it walks) is what a whole read of the document with the edit applied shows:
/// edits anywhere in the document, inserts told the block before them, reads from the first
/// block they name.
#[test]
fn what_a_plan_leaves_is_what_the_document_shows_once_it_is_applied() {
    let mut markdown = String::new();
    for i in 0..30 {
        markdown.push_str(&match i % 7 {
            0 => format!("## Section {i}\n\n"),
            3 => format!("- item {i}\n  - nested {i}\n\n"),
            _ => format!("Paragraph {i}\n\n"),
        });
    }
    let live = live_doc(&markdown);
    let mut draw = Draw(41);
    let (mut planned, mut checked) = (0, 0);
    for step in 0..300 {
        let op = drawn_op(&live, &mut draw, step);
        let Ok(plan) = plan(&fork(&live), std::slice::from_ref(&op), &TextBases::new()) else {
            continue;
        };
        planned += 1;
        apply_plan(&live, &plan);
        let fragment = live.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        let whole = blocknote::read_document(&live.transact(), &fragment);
        let shown = fingerprint::index(&whole);
        for left in &plan.leaves {
            let block = shown.get(left.block_id.as_str());
            let block = block.unwrap_or_else(|| panic!("step {step}: {op:?} left {left:?}"));
            let seen = match &left.seen {
                Seen::Exists => Seen::Exists,
                Seen::Content(_) => Seen::Content(fingerprint::of_content(block)),
                Seen::Subtree(_) => Seen::Subtree(fingerprint::of_subtree(block)),
            };
            assert_eq!(seen, left.seen, "step {step}: {op:?}");
            checked += 1;
        }
        // Every block it changed that the document still shows, and every block it made.
        for state in &plan.depends_on {
            if state.seen != Seen::Exists && shown.contains_key(state.block_id.as_str()) {
                assert!(
                    plan.leaves.iter().any(|l| l.block_id == state.block_id),
                    "step {step}: {op:?} leaves out {}",
                    state.block_id
                );
            }
        }
        for id in &plan.new_blocks {
            assert!(
                shown.contains_key(id.as_str()),
                "step {step}: {op:?} made {id}"
            );
        }
    }
    assert!(
        planned > 200 && checked > 300,
        "{planned} plans, {checked} blocks checked"
    );
}
