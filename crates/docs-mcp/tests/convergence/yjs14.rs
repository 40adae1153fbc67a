//! Yjs 14 (`@y/y`, Docs' next browser): a document our peer writes through the service's
//! paths and a Yjs 14 peer writes beside it (typing, an attribute, BlockNote's version-history
//! root types) must reach the same state on both, our updates applying in Yjs 14 and its in
//! ours, and read the same through Yjs 13 and BlockNote — the update format and the sync
//! protocol unchanged between 13 and 14, as claimed, shown on the wire.
//!
//! What does differ (`out_of_order_difference`): Yjs 14 integrates a struct whose client's
//! earlier clocks are missing, and writes the gap as a `Skip` in its state — which its
//! suggestions make whenever a later suggestion is accepted before an earlier one. Yjs 13
//! holds such a struct aside until the gap fills; yrs integrates it, as Yjs 14 does.

use docs_client::blocknote::{self, json::blocks_json};
use rand::SeedableRng;
use rand::rngs::StdRng;
use yrs::updates::decoder::Decode;
use yrs::{Map, StateVector, Transact};

use crate::agent::Agent;
use crate::browsers::Browsers;
use crate::scenario::first_difference;
use crate::tree;

const MARKDOWN: &str =
    "# Plan\n\nThe team ships on Friday.\n\n- one\n- two\n\n> A quote\n\nLast words.";

/// Our writes, each sent to the Yjs 14 peer as the room would pass it on: `count` of them,
/// held ones merged at the end.
fn our_writes(agent: &mut Agent, browsers: &mut Browsers, rng: &mut StdRng, count: usize) {
    for _ in 0..count {
        if let (_, Some(update)) = agent.write(rng) {
            browsers.y14_apply(&update);
        }
    }
    while let Some(merged) = agent.merge_held() {
        if let Some(update) = merged {
            browsers.y14_apply(&update);
        }
    }
}

/// Where our peer and the Yjs 14 peer differ, if they do.
pub fn difference(browsers: &mut Browsers, seed: u64) -> Option<String> {
    let mut rng = StdRng::seed_from_u64(seed);
    let start = browsers.seed(MARKDOWN, 7);
    browsers.y14_new(14);
    browsers.y14_apply(&start);
    let mut agent = Agent::new(2, &start);
    our_writes(&mut agent, browsers, &mut rng, 12);
    for label in ["v1", "v2"] {
        let theirs = browsers.y14_write(label);
        if let Err(panic) = agent.apply(&theirs) {
            return Some(format!("yrs panicked on Yjs 14's update: {panic}"));
        }
        // What Yjs 14 typed, as our reader reads it, before our next writes change it.
        let blocks = agent.blocks_json().to_string();
        if !blocks.contains(&format!("{label} ")) {
            return Some(format!(
                "Yjs 14's {label:?} is not in our document: {blocks}"
            ));
        }
        our_writes(&mut agent, browsers, &mut rng, 6);
    }
    let (state, state_vector) = browsers.y14_state();
    let ours = StateVector::decode_v1(&agent.state_vector()).expect("ours");
    let theirs = StateVector::decode_v1(&state_vector).expect("Yjs 14's");
    if ours != theirs {
        return Some(format!("state vectors: ours {ours:?}, Yjs 14's {theirs:?}"));
    }
    // Yjs 14's state, read by Yjs 13 and BlockNote, is the document we hold.
    let read = browsers.read_update(&state);
    let our_tree = tree::normalized(&tree::of_doc(agent.doc()));
    if let Some(d) = first_difference("tree", &our_tree, &tree::normalized(&read.tree)) {
        return Some(d);
    }
    if let Some(d) = first_difference("blocks", &agent.blocks_json(), &read.blocks) {
        return Some(d);
    }
    // BlockNote's version history, written by Yjs 14, kept by us as it is.
    let doc = agent.doc();
    let (names, markers) = (
        doc.get_or_insert_map("__bn_version_names"),
        doc.get_or_insert_map("__bn_version_markers"),
    );
    let txn = doc.transact();
    let versions: Vec<(String, String)> = ["v1", "v2"]
        .iter()
        .map(|v| {
            (
                names
                    .get(&txn, v)
                    .map(|n| n.to_string(&txn))
                    .unwrap_or_default(),
                markers
                    .get(&txn, v)
                    .map(|m| m.to_string(&txn))
                    .unwrap_or_default(),
            )
        })
        .collect();
    let expected = vec![
        ("Version v1".to_owned(), "1".to_owned()),
        ("Version v2".to_owned(), "1".to_owned()),
    ];
    (versions != expected).then(|| format!("version history: {versions:?}"))
}

/// Where Yjs 14's suggestions accepted out of order are read otherwise than found here: Yjs
/// 14 and yrs alone show the accepted text at once; Yjs 13 holds it aside (today's browsers
/// show it once the earlier suggestion is decided), and so does our session (`OutOfOrder`:
/// yrs panics on some structs filling such a gap); the update the room gets starts past a gap.
pub fn out_of_order_difference(browsers: &mut Browsers) -> Option<String> {
    let start = browsers.seed(MARKDOWN, 7);
    let accepted = browsers.y14_out_of_order(&start);
    let shown = "The team ships on Friday. last";
    if accepted.y14_text.as_deref() != Some(shown) {
        return Some(format!("Yjs 14 reads {:?}", accepted.y14_text));
    }
    if accepted.y13_text.as_deref() != Some("The team ships on Friday.") || !accepted.y13_pending {
        return Some(format!(
            "Yjs 13 reads {:?} (structs aside: {})",
            accepted.y13_text, accepted.y13_pending
        ));
    }
    // The suggestion client's clocks: the accepted struct starts after the one still open.
    let emitted = yrs::Update::decode_v1(&accepted.emitted).expect("an update");
    let suggestions = yrs::block::ClientID::new(41);
    let lower = emitted.state_vector_lower().get(&suggestions);
    if lower != "first ".len() as u32 {
        return Some(format!("the emitted update starts at clock {lower}"));
    }
    let alone = yrs::Doc::new();
    alone
        .transact_mut()
        .apply_update(yrs::Update::decode_v1(&accepted.state).expect("an update"))
        .expect("applies");
    let fragment = blocknote::document_fragment(&alone);
    let read = blocks_json(&blocknote::read_document(&alone.transact(), &fragment).blocks);
    if !read.to_string().contains(shown) {
        return Some(format!("yrs alone reads {read}"));
    }
    let ours = Agent::new(2, &accepted.state);
    let read = ours.blocks_json().to_string();
    let held = ours.aside() != serde_json::json!({"inserted": {}, "deleted": {}});
    if !held || read.contains(shown) || !read.contains("The team ships on Friday.") {
        return Some(format!("our session reads {read} (held: {})", ours.aside()));
    }
    None
}
