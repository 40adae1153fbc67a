//! An agent rewriting words of paragraphs while people type in them through browser-like
//! clients 40–250 ms of network away — seeded and randomized (`WORDS_SEEDS=n` runs n seeds;
//! 8 by default). The paragraphs' words are Latin lowercase; the agent writes a capital, mostly
//! letters of the word it rewrites, and digits (`Rewfo42` for `foxer`, sharing letters with it
//! as `Agent-edited` does with `Human`); people type Greek letters. The Yjs items of the room
//! tell who typed each character and next to what.
//!
//! For every seed: each agent call is applied or refused (`STALE_REVISION`, `EDIT_CONFLICT`,
//! `TEXT_NOT_FOUND`, `AMBIGUOUS_MATCH`); an applied agent word is in the final text whole
//! and no person's letter is glued to it; every Greek letter in the text was typed by a
//! person, or restored where they typed it (the agent never rewrote one). A person typing at
//! the old word while the rewrite was on its way to them (two insertions that did not see
//! each other, which Yjs orders side by side) gets the rewrite taken back: the edit ends
//! `conflict`, its word absent, the person's letters as they typed them.

mod support;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use docs_client::blocknote::words;
use docs_mcp::DocsService;
use docs_mcp::record::{EditStatus, Policy};
use futures_util::StreamExt;
use serde_json::json;
use support::*;
use test_harness::{BlockItems, DocsServer, DocumentSpec, ServerOptions, TypistSpec, WordTyping};

const GREEK: &str = "αβγδεζηθικλμνξοπρστυφχψω";
/// The refusals an agent's rewrite may meet here.
const REFUSALS: [&str; 4] = [
    "STALE_REVISION",
    "EDIT_CONFLICT",
    "TEXT_NOT_FOUND",
    "AMBIGUOUS_MATCH",
];

struct Random(u64);

impl Random {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn between(&mut self, min: u64, max: u64) -> u64 {
        min + self.below(max - min + 1)
    }
}

fn is_greek(c: char) -> bool {
    GREEK.contains(c)
}

/// Who wrote the text of the room: the clients of the people, of the content it started
/// with, and of the take-backs (each restores text with a client of its own, and only old
/// words: never a capital nor a digit); any other client is the agent's.
struct Authors {
    people: HashSet<u64>,
    seeded: HashSet<u64>,
    restorers: HashSet<u64>,
}

impl Authors {
    fn agent(&self, client: u64) -> bool {
        !self.people.contains(&client)
            && !self.seeded.contains(&client)
            && !self.restorers.contains(&client)
    }
}

/// What one seed did.
#[derive(Debug, Default)]
struct Outcome {
    seed: u64,
    applied: usize,
    refused: BTreeMap<String, usize>,
    /// Applied edits taken back because a person's typing met them in flight.
    taken_back: usize,
    violations: Vec<String>,
}

#[tokio::test]
async fn agent_words_end_up_whole_or_not_at_all_beside_people_typing() {
    let seeds: u64 = std::env::var("WORDS_SEEDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(8);
    // Seeds open documents side by side: more than Docs' 80 requests a minute.
    let server = DocsServer::start_with(ServerOptions {
        throttle_rate: Some(0),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let data = temp_dir();
    let mut config = config(&server, &data.0, Policy::Auto);
    config.requests_per_minute = 100_000;
    let service = DocsService::start(config).await.unwrap();
    // Eight seeds at a time.
    let mut outcomes: Vec<Outcome> = futures_util::stream::iter(0..seeds)
        .map(|seed| one_seed(&server, service.clone(), seed))
        .buffer_unordered(8)
        .collect()
        .await;
    outcomes.sort_by_key(|o| o.seed);
    for outcome in &outcomes {
        eprintln!(
            "seed {}: {} applied, refused {:?}, {} taken back, violations {:?}",
            outcome.seed, outcome.applied, outcome.refused, outcome.taken_back, outcome.violations
        );
    }
    let applied: usize = outcomes.iter().map(|o| o.applied).sum();
    let refused: usize = outcomes.iter().flat_map(|o| o.refused.values()).sum();
    let taken_back: usize = outcomes.iter().map(|o| o.taken_back).sum();
    eprintln!("{seeds} seeds: {applied} applied, {refused} refused, {taken_back} taken back");
    let failed: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| !o.violations.is_empty())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {seeds} seeds failed: {:#?}",
        failed.len(),
        failed
    );
    // Both outcomes are exercised.
    assert!(
        applied > 0 && refused > 0,
        "{applied} applied, {refused} refused"
    );
}

async fn one_seed(server: &DocsServer, service: Arc<DocsService>, seed: u64) -> Outcome {
    let mut outcome = Outcome {
        seed,
        ..Outcome::default()
    };
    let mut random = Random(seed + 1);
    // Two paragraphs of seven words, none inside another.
    let mut vocabulary: Vec<String> = vec![];
    while vocabulary.len() < 14 {
        let word: String = (0..random.between(3, 7))
            .map(|_| char::from(b'a' + random.below(26) as u8))
            .collect();
        if vocabulary
            .iter()
            .all(|w| !w.contains(&word) && !word.contains(w.as_str()))
        {
            vocabulary.push(word);
        }
    }
    let markdown = format!(
        "{}.\n\n{}.",
        vocabulary[..7].join(" "),
        vocabulary[7..].join(" ")
    );
    let id = server
        .create_document(DocumentSpec::new(&format!("Words {seed}")).markdown(&markdown))
        .await
        .unwrap();
    let agent = Agent {
        client: connect(service.clone(), &format!("agent-{seed}")).await,
        service,
        data: temp_dir(),
    };
    let doc = id.to_string();
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let blocks: Vec<String> = read["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect();
    let seeded: HashSet<u64> = server
        .live_text_items(id)
        .await
        .unwrap()
        .iter()
        .flat_map(|b| b.items.iter().map(|i| i.client))
        .collect();

    let mut typists = vec![];
    for person in 0..2 {
        let person_seed = seed * 10 + person;
        let spec = TypistSpec::new(id, "")
            .interval_ms(random.between(60, 140))
            .latency(40, 250, person_seed)
            .words(WordTyping {
                blocks: blocks.clone(),
                edits: 10,
                alphabet: GREEK.into(),
                eligible: r"^\p{Ll}+$".into(),
                pause_ms: (150, 400),
                keys: 3,
                seed: person_seed,
            });
        typists.push(server.start_typist(spec).await.unwrap());
    }

    // The agent reads, thinks (people type meanwhile), and rewrites one lowercase word.
    let mut written: Vec<(String, String, uuid::Uuid)> = vec![];
    for call in 0..6 {
        tokio::time::sleep(Duration::from_millis(random.between(100, 500))).await;
        let read = agent
            .ok(
                "read_document",
                json!({"document": doc, "format": "blocks"}),
            )
            .await;
        let which = random.below(2) as usize;
        let block = blocks[which].clone();
        let text = texts(&read["blocks"])[which].clone();
        let candidates: Vec<&str> = words::split(&text)
            .into_iter()
            .filter(|w| {
                words::is_word(w)
                    && w.chars().all(char::is_lowercase)
                    && text.matches(w).count() == 1
            })
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let old = candidates[random.below(candidates.len() as u64) as usize].to_owned();
        let latin: Vec<char> = old.chars().filter(char::is_ascii_lowercase).collect();
        let mut new = String::from(char::from(b'A' + random.below(26) as u8));
        for _ in 0..random.between(2, 5) {
            new.push(match random.below(10) {
                0..7 if !latin.is_empty() => latin[random.below(latin.len() as u64) as usize],
                _ => char::from(b'a' + random.below(26) as u8),
            });
        }
        new.push_str(&format!("{call}{}", random.below(10)));
        tokio::time::sleep(Duration::from_millis(random.between(0, 600))).await;
        let (tool, mut args) = if random.below(2) == 0 {
            let rewritten: String = words::split(&text)
                .into_iter()
                .map(|w| if w == old { new.as_str() } else { w })
                .collect();
            (
                "update_block",
                json!({"document": doc, "block_id": block, "text": rewritten}),
            )
        } else {
            (
                "replace_text",
                json!({"document": doc, "block_id": block, "old_text": old, "new_text": new}),
            )
        };
        if random.below(2) == 0 {
            args["revision"] = read["revision"].clone();
        }
        match agent.call(tool, args.clone()).await {
            Ok(result) if matches!(result["status"].as_str(), Some("applied" | "applying")) => {
                outcome.applied += 1;
                let edit = result["edit_id"].as_str().unwrap().parse().unwrap();
                written.push((block, new, edit));
            }
            Ok(result) => outcome.violations.push(format!(
                "{tool} {args}: neither applied nor refused: {result}"
            )),
            Err(error) => {
                let code = error["code"].as_str().unwrap_or_default().to_owned();
                if REFUSALS.contains(&code.as_str()) {
                    *outcome.refused.entry(code).or_default() += 1;
                } else {
                    outcome
                        .violations
                        .push(format!("{tool} {args}: refused with {error}"));
                }
            }
        }
    }

    let mut authors = Authors {
        people: HashSet::new(),
        seeded,
        restorers: HashSet::new(),
    };
    for typist in &typists {
        let status = typist.wait_done(WAIT).await.unwrap();
        assert_eq!(status.error, None);
        authors.people.extend(status.client_id);
    }
    // What the typists sent has reached the room, and the agent's watches have ended.
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    // An applied edit ends applied (its word expected whole) or taken back (its word absent).
    let mut kept = vec![];
    for (block, word, edit) in written {
        match agent.service.edit(edit).await.unwrap() {
            record if record.status == EditStatus::Applied => kept.push((block, word, true)),
            record if record.status == EditStatus::Conflict => {
                outcome.taken_back += 1;
                kept.push((block, word, false));
            }
            record => outcome
                .violations
                .push(format!("edit {edit} ended {:?}", record.status)),
        }
    }
    let written = kept;
    let live = server.live(id).await.unwrap().expect("the room is open");
    let parsed: BTreeMap<&str, String> = live
        .blocks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .zip(texts(&live.blocks))
        .collect();
    let items = server.live_text_items(id).await.unwrap();
    for item in items.iter().flat_map(|b| &b.items) {
        let text = item.text.as_deref().unwrap_or_default();
        let restores = !authors.people.contains(&item.client)
            && !authors.seeded.contains(&item.client)
            && items.iter().flat_map(|b| &b.items).all(|i| {
                i.client != item.client
                    || !i
                        .text
                        .as_deref()
                        .unwrap_or_default()
                        .contains(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit())
            });
        if restores && !text.is_empty() {
            authors.restorers.insert(item.client);
        }
    }
    for block in items {
        check_block(
            &block,
            &parsed[block.block_id.as_str()],
            &authors,
            &written,
            &mut outcome,
        );
    }
    outcome
}

/// One character of a block's final text: which item holds it, and its clock.
struct Placed {
    c: char,
    item: usize,
    clock: u64,
}

fn check_block(
    block: &BlockItems,
    parsed: &str,
    authors: &Authors,
    written: &[(String, String, bool)],
    outcome: &mut Outcome,
) {
    let placed: Vec<Placed> = block
        .items
        .iter()
        .enumerate()
        .filter(|(_, item)| !item.deleted)
        .flat_map(|(i, item)| {
            let text = item.text.as_deref().unwrap_or_default();
            text.chars().enumerate().map(move |(k, c)| Placed {
                c,
                item: i,
                clock: item.clock + k as u64,
            })
        })
        .collect();
    let text: String = placed.iter().map(|p| p.c).collect();
    assert_eq!(text, parsed, "the items read as BlockNote reads the block");
    let fail = |outcome: &mut Outcome, what: String| {
        outcome
            .violations
            .push(format!("block {}: {what} in {text:?}", block.block_id));
    };
    let client = |p: &Placed| block.items[p.item].client;
    for p in &placed {
        if is_greek(p.c) && authors.agent(client(p)) {
            fail(outcome, format!("{:?} rewritten by the agent", p.c));
        }
    }
    let tokens = words::split(&text);
    for (_, word, applied) in written.iter().filter(|(b, _, _)| *b == block.block_id) {
        match (
            applied,
            tokens.contains(&word.as_str()),
            text.contains(word.as_str()),
        ) {
            (true, false, _) => fail(outcome, format!("the agent's {word:?} is not a whole word")),
            (false, _, true) => fail(
                outcome,
                format!("the agent's {word:?}, taken back, is there"),
            ),
            _ => {}
        }
    }
    // Whether an item was inserted next to a character a person typed, still in the text.
    let neighbour_is_a_persons = |(id_client, clock): (u64, u64)| {
        authors.people.contains(&id_client)
            && placed
                .iter()
                .any(|p| client(p) == id_client && p.clock == clock)
    };
    let mut at = 0;
    for token in words::split(&text) {
        let chars = &placed[at..at + token.chars().count()];
        at += chars.len();
        let by_agent = |p: &Placed| authors.agent(client(p));
        let by_a_person = |p: &Placed| authors.people.contains(&client(p));
        if !(chars.iter().any(by_agent) && chars.iter().any(by_a_person)) {
            continue;
        }
        let against_a_person = chars.iter().filter(|p| by_agent(p)).any(|p| {
            let item = &block.items[p.item];
            [item.origin, item.right_origin]
                .into_iter()
                .flatten()
                .any(neighbour_is_a_persons)
        });
        if against_a_person {
            fail(
                outcome,
                format!("{token:?}: the agent wrote against a person's letters it had"),
            );
        } else {
            fail(
                outcome,
                format!("{token:?}: a person's letters met the agent's in flight"),
            );
        }
    }
}
