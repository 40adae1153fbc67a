//! Property tests: random operations keep a well-formed tree; import never panics.

use super::*;
use crate::blocknote::urls::refusal;

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

/// The door never panics (yrs's own decoder may, in debug builds, on a client id past 53
/// bits), and never calls malformed an update yrs decodes.
fn check_like_yrs(update: &[u8]) -> Result<(), TestCaseError> {
    let ours = check_update_depth(update);
    let yrs = std::panic::catch_unwind(|| Update::decode_v1(update).is_ok());
    if yrs.unwrap_or(false) {
        prop_assert!(
            !matches!(ours, Err(ModelError::MalformedDocument { .. })),
            "yrs decodes what the door refused: {ours:?}"
        );
    }
    Ok(())
}

/// An imported block is valid, or refused only for a link or media address it holds that may
/// not be written (`<aa:>` and `[a](b)` import as such links): never another error.
fn valid_or_refused_for_a_url(blocks: &[NewBlock]) -> Result<bool, TestCaseError> {
    for block in blocks {
        match validate_block(block) {
            Ok(()) => {}
            Err(ModelError::UnsafeUrl { url, .. }) => {
                prop_assert!(
                    refusal(&url, UrlUse::Link).is_some(),
                    "refused {url:?}, which may be written"
                );
                return Ok(false);
            }
            Err(other) => return Err(TestCaseError::fail(format!("invalid: {other:?}"))),
        }
    }
    Ok(true)
}

/// Applies `op` as the test below does, to the blocks of `all`; the ids of the blocks it
/// names or creates (what a plan reads back).
fn apply_op(
    txn: &mut yrs::TransactionMut,
    f: &XmlFragmentRef,
    all: &[Block],
    op: &Op,
) -> Vec<String> {
    let pick = |i: usize| all.get(i % all.len().max(1)).cloned();
    match op {
        Op::Insert { at, pos, n } => {
            let anchor = pick(*at);
            let position = match (&anchor, pos) {
                (None, _) | (_, 0) => Position::End,
                (_, 1) => Position::Start,
                (Some(b), 2) => Position::Before { id: b.id.clone() },
                (Some(b), 3) => Position::After { id: b.id.clone() },
                (Some(b), 4) => Position::FirstChildOf { id: b.id.clone() },
                (Some(b), _) => Position::LastChildOf { id: b.id.clone() },
            };
            let blocks: Vec<NewBlock> = (0..*n)
                .map(|i| NewBlock::new("paragraph").text(format!("p{i}")))
                .collect();
            let mut named = insert_blocks(txn, f, &position, &blocks).unwrap();
            named.extend(anchor.filter(|_| *pos > 1).map(|b| b.id));
            named
        }
        Op::Delete { at, lift } => pick(*at).map_or(vec![], |b| {
            let mode = if *lift {
                ChildrenMode::Lift
            } else {
                ChildrenMode::Delete
            };
            delete_blocks(txn, f, std::slice::from_ref(&b.id), mode).unwrap();
            vec![b.id]
        }),
        Op::Move { at, to, pos } => match (pick(*at), pick(to.wrapping_add(1))) {
            (Some(b), Some(t)) => {
                let position = match pos {
                    0 => Position::Before { id: t.id.clone() },
                    1 => Position::After { id: t.id.clone() },
                    2 => Position::LastChildOf { id: t.id.clone() },
                    _ => Position::End,
                };
                match move_block(txn, f, &b.id, &position) {
                    Ok(_) => vec![b.id, t.id],
                    Err(_) => vec![],
                }
            }
            _ => vec![],
        },
        Op::Text { at, text } => pick(*at).map_or(vec![], |b| {
            set_block_text(txn, f, &b.id, text).unwrap();
            vec![b.id]
        }),
        Op::Retype { at, kind } => pick(*at).map_or(vec![], |b| {
            let k = ["heading", "paragraph", "checkListItem", "quote"][*kind as usize];
            update_block(txn, f, &b.id, Some(k), &Props::new()).unwrap();
            vec![b.id]
        }),
    }
}

/// A document of six paragraphs, then `ops` applied one by one.
fn after_ops(ops: &[Op]) -> (Doc, XmlFragmentRef) {
    let (d, f) = doc();
    let six: Vec<NewBlock> = (0..6)
        .map(|i| NewBlock::new("paragraph").text(format!("b{i}")))
        .collect();
    insert_blocks(&mut d.transact_mut(), &f, &Position::End, &six).unwrap();
    for op in ops {
        let all: Vec<Block> = read(&d, &f).all_blocks().into_iter().cloned().collect();
        apply_op(&mut d.transact_mut(), &f, &all, op);
    }
    (d, f)
}

/// The ids of the blocks that differ between two reads (their own content, or the ids of
/// their children), or that one of them lacks: what a tracker of the changes says.
fn changed_between(before: &Document, after: &Document) -> std::collections::HashSet<String> {
    let shallow = |d: &Document| -> HashMap<String, (Block, Vec<String>)> {
        d.all_blocks()
            .into_iter()
            .map(|b| {
                let kids = b.children.iter().map(|c| c.id.clone()).collect();
                let mut alone = b.clone();
                alone.children.clear();
                (b.id.clone(), (alone, kids))
            })
            .collect()
    };
    let (old, new) = (shallow(before), shallow(after));
    let mut changed: std::collections::HashSet<String> = old
        .keys()
        .filter(|id| old.get(*id) != new.get(*id))
        .cloned()
        .collect();
    changed.extend(new.keys().filter(|id| !old.contains_key(*id)).cloned());
    // A block moved into another place among its siblings is written anew: not the same item.
    let outer = |d: &Document| d.blocks.iter().map(|b| b.id.clone()).collect::<Vec<_>>();
    if outer(before) != outer(after) {
        changed.extend(
            outer(before)
                .into_iter()
                .filter(|id| !outer(after).contains(id)),
        );
    }
    changed
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// What an edit's plan reads back walking past the blocks a read before it had (their
    /// containers' items), and a read again moving them from that read, are what walks of
    /// every block give.
    #[test]
    fn reads_that_know_the_blocks_before_a_change_read_what_a_whole_walk_reads(
        setup in proptest::collection::vec(op(), 4..30),
        change in proptest::collection::vec(op(), 1..3),
    ) {
        let (d, f) = after_ops(&setup);
        let known = read(&d, &f);
        prop_assert!(known.knows_containers());
        let named: Vec<String> = {
            let mut txn = d.transact_mut();
            let mut named = vec![];
            for op in &change {
                let all: Vec<Block> = read_document(&txn, &f).all_blocks().into_iter().cloned().collect();
                named.extend(apply_op(&mut txn, &f, &all, op));
            }
            named
        };
        let ids: rustc_hash::FxHashSet<&str> = named.iter().map(String::as_str).collect();
        let txn = d.transact();
        let whole_walk = read_outermost(&txn, &f, &ids, None, 0);
        prop_assert_eq!(&read_outermost(&txn, &f, &ids, Some(&known), 0), &whole_walk);
        // From the block before the first that holds one of the ids (the last when none
        // does): the same read whenever it finds every block the whole walk finds (when it
        // does not, its caller walks every block).
        let earliest = known.blocks.iter().position(|b| b.any(|b| ids.contains(b.id.as_str())));
        let from = match earliest {
            Some(first) => first.saturating_sub(1),
            None => known.blocks.len().saturating_sub(1),
        };
        let from_there = read_outermost(&txn, &f, &ids, Some(&known), from);
        if named.iter().all(|id| whole_walk.document.find(id).is_none() || from_there.document.find(id).is_some()) {
            prop_assert_eq!(&from_there, &whole_walk);
        } else {
            prop_assert!(from > 0, "a walk from the first block finds every block");
        }
        let whole = read_document(&txn, &f);
        let changed = changed_between(&known, &whole);
        let again = reread_document(&txn, &f, known, |id| changed.contains(id));
        prop_assert_eq!(&again, &whole);
        prop_assert_eq!(again.containers, whole.containers);
    }

    /// Blocks inserted at the end or after an outermost block, told its container's item,
    /// land where an insert by index puts them, with the same content; the update that
    /// says so integrates the same elsewhere, and converges with a person's concurrent
    /// insert at the same place, in either order.
    #[test]
    fn inserts_told_the_container_before_them_land_where_inserts_by_index_do(
        setup in proptest::collection::vec(op(), 4..30),
        at in any::<usize>(),
        end in any::<bool>(),
        n in 1usize..4,
    ) {
        let (d, f) = after_ops(&setup);
        let known = read(&d, &f);
        let i = at % known.blocks.len();
        let (position, after) = if end {
            (Position::End, known.containers[known.blocks.len() - 1])
        } else {
            (Position::After { id: known.blocks[i].id.clone() }, known.containers[i])
        };
        let copy = |client: u64| {
            let copy = Doc::with_client_id(client);
            let state = d.transact().encode_state_as_update_v1(&yrs::StateVector::default());
            copy.transact_mut().apply_update(yrs::Update::decode_v1(&state).unwrap()).unwrap();
            (copy.clone(), document_fragment(&copy))
        };
        let blocks: Vec<NewBlock> = (0..n).map(|i| NewBlock::new("paragraph").text(format!("new {i}"))).collect();
        let writing = Writing::new_content(EditorSchema::BASE);
        let insert = |known_item: Option<&yrs::ID>| {
            let (fork, f) = copy(1 << 40);
            let mut txn = fork.transact_mut();
            let ids = insert_blocks_known(&mut txn, &f, &position, known_item, &blocks, writing).unwrap();
            let update = txn.encode_update_v1();
            drop(txn);
            (fork, f, ids, update)
        };
        let (by_index, fi, index_ids, _) = insert(None);
        let (by_item, fk, item_ids, update) = insert(Some(&after));
        // The same blocks in the same places (the new ones' ids are drawn anew).
        let mut told = serde_json::to_string(&read(&by_item, &fk)).unwrap();
        for (mine, theirs) in item_ids.iter().zip(&index_ids) {
            told = told.replace(mine.as_str(), theirs);
        }
        prop_assert_eq!(told, serde_json::to_string(&read(&by_index, &fi)).unwrap());
        // Its update, applied to another copy, and beside a person's insert at the same place.
        let (person, fp) = copy(7);
        let mine = read(&by_item, &fk);
        let (elsewhere, fe) = copy(9);
        elsewhere.transact_mut().apply_update(yrs::Update::decode_v1(&update).unwrap()).unwrap();
        prop_assert_eq!(&read(&elsewhere, &fe), &mine);
        let theirs = {
            let mut txn = person.transact_mut();
            insert_blocks(&mut txn, &fp, &position, &[NewBlock::new("paragraph").text("theirs")]).unwrap();
            txn.encode_update_v1()
        };
        person.transact_mut().apply_update(yrs::Update::decode_v1(&update).unwrap()).unwrap();
        elsewhere.transact_mut().apply_update(yrs::Update::decode_v1(&theirs).unwrap()).unwrap();
        prop_assert_eq!(read(&person, &fp), read(&elsewhere, &fe));
        prop_assert_eq!(read(&person, &fp).all_blocks().len(), mine.all_blocks().len() + 1);
    }

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
                        prop_assert_eq!(got.inline().unwrap(), &parse_inline(&text).unwrap()[..]);
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
    fn the_nesting_door_decodes_what_yrs_decodes(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        cut in any::<usize>(),
    ) {
        // A real update cut short or with one byte changed, and random bytes.
        let (d, f) = doc();
        insert_blocks(&mut d.transact_mut(), &f, &Position::End, &super::layout::all_writable())
            .unwrap();
        let update = d.transact().encode_state_as_update_v1(&StateVector::default());
        let mut changed = update.clone();
        let at = cut % update.len();
        changed[at] = changed[at].wrapping_add(bytes.first().copied().unwrap_or(1));
        for input in [&update[..at], &changed[..], &bytes[..]] {
            check_like_yrs(input)?;
        }
    }

    #[test]
    fn markdown_import_never_panics(s in "\\PC{0,200}") {
        valid_or_refused_for_a_url(&import_markdown(&s).unwrap())?;
        parse_inline(&s).unwrap();
    }

    #[test]
    fn markdown_import_never_panics_on_markdownish(s in "([-*#>|`~_\\[\\]()!1$\\\\. \n]|[a-z]|    ){0,120}") {
        let blocks = import_markdown(&s).unwrap();
        if !valid_or_refused_for_a_url(&blocks)? {
            return Ok(());
        }
        let (d, f) = doc();
        let mut txn = d.transact_mut();
        insert_blocks(&mut txn, &f, &Position::End, &blocks).unwrap();
        let docu = read_document(&txn, &f);
        let _ = export_markdown(&docu.blocks, &ExportOptions { anchors: true, ..ExportOptions::default() });
    }
}
