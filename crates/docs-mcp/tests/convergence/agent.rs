//! Our peer: a document held as a live session holds it (UTF-16 offsets, deleted content
//! collected in the transaction that deleted it, local writes under `LOCAL_ORIGIN`, remote ones
//! under `REMOTE_ORIGIN`), written to only through the service's own paths: an edit is planned
//! on a fork taken from [`Forks`] (`edits::plan`, `edits::plan_undo`), its update merged into
//! the document — at once, or later, after others' changes came, as an edit waiting for a
//! person is, and then only when the blocks it depends on read as planned, as the service
//! checks — and the fork given back; a comment's mark is written by
//! `blocknote::add_comment_mark` in a transaction of the document, as `commenting` does.

use docs_client::blocknote::groups;
use docs_client::blocknote::json::blocks_json;
use docs_client::blocknote::{self, Block, EditorSchema, text_occurrences};
use docs_client::{DOCUMENT_FRAGMENT, LOCAL_ORIGIN, OutOfOrder, REMOTE_ORIGIN};
use docs_mcp::edits::{
    Anchor, DeleteBlocks, EditOp, Fork, Forks, InsertBlocks, MoveBlock, Plan, Position,
    ReplaceText, TextBases, UndoOp, UpdateBlock, plan, plan_undo, unchanged,
};
use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde_json::{Value, json};
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{Doc, OffsetKind, Options, ReadTxn, StateVector, Transact, TransactionMut, Update};

/// An edit planned and not merged yet, with the fork it was planned on.
struct Held {
    fork: Doc,
    plan: Plan,
}

pub struct Agent {
    doc: Doc,
    /// The document's fragment, taken once (taking it is a write transaction of its own).
    fragment: yrs::XmlFragmentRef,
    forks: Forks,
    held: Vec<Held>,
    /// What the agent last read of each block: the base its rewrites are rebased from.
    reads: TextBases,
    /// The inverses of merged edits, for undos.
    undos: Vec<Vec<UndoOp>>,
    /// Every update that changed the document, in order (its own writes too): replayed into a
    /// fresh document, they make the same one — how a failure of yrs is reduced to a fixture.
    history: Vec<Vec<u8>>,
    /// Writes of its own accord (mended blocks), not sent yet.
    answers: Vec<Vec<u8>>,
    /// What came that follows clocks the document lacks.
    out_of_order: OutOfOrder,
}

const WORDS: &[&str] = &[
    "agent", "wrote", "this", "très", "中文", "👍", "**bold**", "_it_",
];

const MARKDOWN: &[&str] = &[
    "A paragraph from the agent.",
    "## A heading\n\nWith **bold** text and a [link](https://example.com/a).",
    "- first point\n  - nested point\n- second point",
    "1. one\n2. two",
    "- [ ] to do\n- [x] done",
    "> quoted words",
    "```rust\nfn main() {}\n```",
    "| a | b |\n| --- | --- |\n| 1 | 2 |",
    "---",
];

impl Agent {
    /// A session's document holding `state`, with client id `client` (its own writes: comment
    /// marks; edits are written by forks, each with a client id of its own).
    pub fn new(client: u64, state: &[u8]) -> Agent {
        let doc = Doc::with_options(Options {
            client_id: yrs::block::ClientID::new(client),
            offset_kind: OffsetKind::Utf16,
            skip_gc: true,
            ..Options::default()
        });
        let fragment = blocknote::document_fragment(&doc);
        let mut agent = Agent {
            fragment,
            forks: Forks::new(doc.clone(), EditorSchema::BASE),
            doc,
            held: vec![],
            reads: TextBases::new(),
            undos: vec![],
            history: vec![],
            answers: vec![],
            out_of_order: OutOfOrder::new(),
        };
        agent.apply(state).expect("the first state applies");
        agent
    }

    /// A remote update, applied as the session applies the room's; yrs' panic, if it panics.
    pub fn apply(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.history.push(bytes.to_vec());
        // As the session does: what follows clocks the document lacks waits for them
        // (`OutOfOrder`), and the transaction is committed under a guard of its own, never
        // while a panic unwinds (yrs may panic again, which aborts).
        let doubled_before = self.doubled();
        let mut txn = self.doc.transact_mut_with(REMOTE_ORIGIN);
        let parts = self
            .out_of_order
            .admit(&txn.state_vector(), bytes)
            .expect("admitted");
        // The types of what is integrated, as the session gathers them.
        let mut types = blocknote::UpdateTypes::default();
        for part in &parts {
            types.extend(blocknote::update_types(part).expect("a shallow update"));
        }
        let updates: Vec<Update> = parts
            .iter()
            .map(|part| Update::decode_v1(part).expect("a valid update"))
            .collect();
        let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for update in updates {
                txn.apply_update(update).expect("applies");
            }
            collect(&mut txn);
        }));
        let committed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(txn)));
        applied.and(committed).map_err(|panic| {
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })?;
        self.mend_after(&types, doubled_before);
        Ok(())
    }

    /// What the session wrote of its own accord since last asked (sent after what it answers).
    pub fn take_answers(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.answers)
    }

    /// As the session does after an update that brings new types (ours or the room's): a
    /// block given two child groups or contents is re-created with one (the only session in
    /// the room).
    /// What the session finds around an update's types must be every doubling the update
    /// made (checked here against a walk of the whole document, which the session no longer
    /// makes).
    fn mend_after(&mut self, types: &blocknote::UpdateTypes, doubled_before: bool) {
        let found = groups::doubled_by(&self.doc.transact(), &self.fragment, types);
        assert!(
            found || doubled_before || !self.doubled(),
            "an update doubled a block where its types do not show it"
        );
        if found && let Some(mended) = self.mend() {
            self.answers.push(mended);
        }
    }

    /// Whether a block holds two child groups or contents, or the document two root groups.
    fn doubled(&self) -> bool {
        groups::has_doubled_child_groups(&self.doc.transact(), &self.fragment)
    }

    /// The session's answer to a block given two child groups (`groups::merge_child_groups`).
    fn mend(&mut self) -> Option<Vec<u8>> {
        let mut txn = self.doc.transact_mut_with(LOCAL_ORIGIN);
        let mended = groups::merge_child_groups(&mut txn, &self.fragment);
        if mended.is_empty() {
            return None;
        }
        let update = txn.encode_update_v1();
        collect(&mut txn);
        drop(txn);
        self.wrote(&update);
        Some(update)
    }

    /// Records `update` as written by the session.
    fn wrote(&mut self, update: &[u8]) {
        self.history.push(update.to_vec());
    }

    pub fn state_vector(&self) -> Vec<u8> {
        self.doc.transact().state_vector().encode_v1()
    }

    /// Whether yrs itself holds anything aside (never, updates admitted by `OutOfOrder`).
    pub fn pending(&self) -> bool {
        self.doc.transact().has_missing_updates()
    }

    /// What the session holds out of order, shaped as `Reading::aside`.
    pub fn aside(&self) -> Value {
        let held = self.out_of_order.held_clocks();
        let shape = |clocks: &[(u64, Vec<std::ops::Range<u32>>)]| {
            let mut by_client = serde_json::Map::new();
            for (client, ranges) in clocks {
                let mut merged: Vec<(u32, u32)> = Vec::new();
                let mut sorted = ranges.clone();
                sorted.sort_by_key(|r| r.start);
                for r in sorted {
                    match merged.last_mut() {
                        Some(last) if r.start <= last.1 => last.1 = last.1.max(r.end),
                        _ => merged.push((r.start, r.end)),
                    }
                }
                by_client.insert(client.to_string(), json!(merged));
            }
            Value::Object(by_client)
        };
        json!({"inserted": shape(&held.inserted), "deleted": shape(&held.deleted)})
    }

    /// What yrs holds aside, for a failure: the clocks it waits for, and the ranges it holds
    /// (and the deletions it could not apply yet).
    pub fn pending_detail(&self) -> String {
        let txn = self.doc.transact();
        let store = txn.store();
        let aside = store.pending_update().map(|p| {
            let held: Vec<String> = p
                .update
                .insertions(true)
                .iter()
                .map(|(client, ranges)| {
                    format!("{client}: {:?}", ranges.iter().collect::<Vec<_>>())
                })
                .collect();
            format!("waiting for {:?}, holding {held:?}", p.missing)
        });
        format!(
            "yrs holds aside: {aside:?}; deletions aside: {:?}; held out of order: {:?}",
            store.pending_ds(),
            self.out_of_order.held_clocks()
        )
    }

    /// What a peer at `state_vector` lacks, with what waits for clocks we lack (as the
    /// session answers the room, and saves).
    pub fn diff(&self, state_vector: &[u8]) -> Vec<u8> {
        let sv = StateVector::decode_v1(state_vector).expect("a state vector");
        self.out_of_order
            .with_held(self.doc.transact().encode_state_as_update_v1(&sv))
    }

    pub fn state(&self) -> Vec<u8> {
        self.diff(&StateVector::default().encode_v1())
    }

    pub fn history(&self) -> &[Vec<u8>] {
        &self.history
    }

    pub fn doc(&self) -> &Doc {
        &self.doc
    }

    /// The document as our reader reads it, in BlockNote's JSON.
    pub fn blocks_json(&self) -> Value {
        let fragment = self.doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        blocks_json(&blocknote::read_document(&self.doc.transact(), &fragment).blocks)
    }

    fn blocks(&self) -> Vec<Block> {
        let fragment = self.doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        let document = blocknote::read_document(&self.doc.transact(), &fragment);
        document.all_blocks().into_iter().cloned().collect()
    }

    /// One random write of a kind the service makes: its name, and the update sent to the
    /// room (none when the write was refused, as the service refuses it, or is held).
    pub fn write(&mut self, rng: &mut StdRng) -> (String, Option<Vec<u8>>) {
        let blocks = self.blocks();
        if rng.random_bool(0.3) {
            self.read_some(&blocks, rng);
        }
        if rng.random_bool(0.1) {
            return ("comment".into(), self.comment(&blocks, rng));
        }
        let (kind, planned) = if rng.random_bool(0.08) && !self.undos.is_empty() {
            let inverse = self
                .undos
                .swap_remove(rng.random_range(0..self.undos.len()));
            (
                "undo".to_owned(),
                self.plan(|fork| plan_undo(fork, &inverse)),
            )
        } else {
            let op = random_op(&blocks, &self.reads, rng);
            let kind = serde_json::to_value(&op).expect("serializes")["op"]
                .as_str()
                .expect("tagged")
                .to_owned();
            let bases = self.reads.clone();
            (kind, self.plan(|fork| plan(fork, &[op], &bases)))
        };
        let Some(held) = planned else {
            return (format!("{kind} (refused)"), None);
        };
        if rng.random_bool(0.25) {
            self.held.push(held);
            return (format!("{kind} (held)"), None);
        }
        (kind, Some(self.merge(held)))
    }

    /// Merges the oldest held edit, if any: others' changes came since it was planned. As
    /// the service merges an edit a person approved (`merge_checked`, as seen), it is refused
    /// (`None` inside) when a block it depends on no longer reads as it did when planned.
    pub fn merge_held(&mut self) -> Option<Option<Vec<u8>>> {
        if self.held.is_empty() {
            return None;
        }
        let held = self.held.remove(0);
        let depends = &held.plan.depends_on;
        let ids: Vec<&str> = depends.iter().map(|s| s.block_id.as_str()).collect();
        let fragment = self.doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        let current = blocknote::read_blocks(&self.doc.transact(), &fragment, &ids);
        // A refused edit's fork is dropped, as the service drops it.
        Some(
            unchanged(&current, depends)
                .is_ok()
                .then(|| self.merge(held)),
        )
    }

    pub fn has_held(&self) -> bool {
        !self.held.is_empty()
    }

    fn plan(&mut self, run: impl FnOnce(&Fork) -> docs_mcp::ServiceResult<Plan>) -> Option<Held> {
        let (fork, ()) = self.forks.take(|| ()).expect("a fork");
        let fork = Fork {
            doc: fork,
            blocks: None,
            schema: EditorSchema::BASE,
        };
        let planned = run(&fork).ok()?;
        Some(Held {
            fork: fork.doc,
            plan: planned,
        })
    }

    /// The plan's update merged in a local transaction of the document, as `merge` does;
    /// the fork given back. Returns what the session sends.
    fn merge(&mut self, held: Held) -> Vec<u8> {
        let doubled_before = self.doubled();
        let update = {
            let mut txn = self.doc.transact_mut_with(LOCAL_ORIGIN);
            let decoded = Update::decode_v1(&held.plan.update).expect("a planned update");
            txn.apply_update(decoded).expect("merges");
            let update = txn.encode_update_v1();
            collect(&mut txn);
            update
        };
        self.wrote(&update);
        let types = blocknote::update_types(&update).expect("a shallow update");
        self.mend_after(&types, doubled_before);
        self.forks.give_back(held.fork, &held.plan.update);
        self.forks.refill().expect("a fork made ahead");
        if let Some(inverse) = held.plan.inverse {
            self.undos.push(inverse);
        }
        update
    }

    /// A comment's mark on a word of a block, as the service writes it once its thread exists.
    fn comment(&mut self, blocks: &[Block], rng: &mut StdRng) -> Option<Vec<u8>> {
        let block = blocks.choose(rng)?;
        let text = block.plain_text();
        let word = text
            .split_whitespace()
            .collect::<Vec<_>>()
            .choose(rng)?
            .to_string();
        let range = text_occurrences(&text, &word).first()?.clone();
        let thread = uuid(rng);
        let fragment = self.doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        let mut txn = self.doc.transact_mut_with(LOCAL_ORIGIN);
        blocknote::add_comment_mark(&mut txn, &fragment, &block.id, range, &thread).ok()?;
        let update = txn.encode_update_v1();
        collect(&mut txn);
        drop(txn);
        self.wrote(&update);
        Some(update)
    }

    /// The agent reads some blocks (their inline markdown is then its base for them).
    fn read_some(&mut self, blocks: &[Block], rng: &mut StdRng) {
        for block in blocks {
            if rng.random_bool(0.5) {
                self.reads
                    .insert(block.id.clone(), blocknote::inline_markdown(block));
            }
        }
    }
}

/// What a session's transaction does after a change: its deletions collected (`touch::collect`).
fn collect(txn: &mut TransactionMut<'_>) {
    let deleted = txn.delete_set().clone();
    txn.gc(Some(&deleted));
}

fn uuid(rng: &mut StdRng) -> String {
    let n: u128 = rng.random();
    let s = format!("{n:032x}");
    format!(
        "{}-{}-4{}-a{}-{}",
        &s[..8],
        &s[8..12],
        &s[13..16],
        &s[17..20],
        &s[20..]
    )
}

fn position(blocks: &[Block], rng: &mut StdRng) -> Position {
    let at = *[
        Anchor::Start,
        Anchor::End,
        Anchor::Before,
        Anchor::After,
        Anchor::FirstChildOf,
        Anchor::LastChildOf,
    ]
    .choose(rng)
    .expect("anchors");
    let block_id = match at {
        Anchor::Start | Anchor::End => None,
        _ => blocks.choose(rng).map(|b| b.id.clone()),
    };
    Position { at, block_id }
}

/// The block's text with a word changed, added or taken out.
fn rewritten(text: &str, rng: &mut StdRng) -> String {
    let mut words: Vec<String> = text.split(' ').map(str::to_owned).collect();
    let i = rng.random_range(0..words.len());
    let new = WORDS.choose(rng).expect("words").to_string();
    match rng.random_range(0..3) {
        0 => words[i] = new,
        1 => words.insert(i, new),
        _ if words.len() > 1 => {
            words.remove(i);
        }
        _ => words.push(new),
    }
    words.join(" ")
}

fn random_op(blocks: &[Block], reads: &TextBases, rng: &mut StdRng) -> EditOp {
    let block = blocks.choose(rng);
    let id = block.map(|b| b.id.clone()).unwrap_or_default();
    match rng.random_range(0..10) {
        0..=1 => EditOp::InsertBlocks(InsertBlocks {
            position: position(blocks, rng),
            markdown: Some(MARKDOWN.choose(rng).expect("markdown").to_string()),
            blocks: None,
        }),
        2..=3 => {
            // From its last read when it has one (others may have typed since), else now.
            let base = reads
                .get(&id)
                .cloned()
                .or_else(|| block.map(blocknote::inline_markdown))
                .unwrap_or_default();
            EditOp::UpdateBlock(UpdateBlock {
                block_id: id,
                text: Some(rewritten(&base, rng)),
                block_type: None,
                props: None,
            })
        }
        4 => {
            let (block_type, props) = match rng.random_range(0..4) {
                0 => (Some("heading"), json!({"level": rng.random_range(1..=3)})),
                1 => (
                    Some("checkListItem"),
                    json!({"checked": rng.random_bool(0.5)}),
                ),
                2 => (Some("bulletListItem"), json!({})),
                _ => (None, json!({"textAlignment": "center"})),
            };
            EditOp::UpdateBlock(UpdateBlock {
                block_id: id,
                text: None,
                block_type: block_type.map(str::to_owned),
                props: props.as_object().filter(|p| !p.is_empty()).cloned(),
            })
        }
        5..=6 => {
            let text = block.map(Block::plain_text).unwrap_or_default();
            let old = text
                .split_whitespace()
                .collect::<Vec<_>>()
                .choose(rng)
                .map(|w| w.to_string())
                .unwrap_or_else(|| "absent".into());
            EditOp::ReplaceText(ReplaceText {
                old_text: old,
                new_text: WORDS.choose(rng).expect("words").replace('*', ""),
                block_id: Some(id),
                all: rng.random_bool(0.5),
            })
        }
        7 => EditOp::DeleteBlocks(DeleteBlocks {
            block_ids: vec![id],
            keep_children: rng.random_bool(0.5),
        }),
        _ => EditOp::MoveBlock(MoveBlock {
            block_id: id,
            position: position(blocks, rng),
        }),
    }
}
