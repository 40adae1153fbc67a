//! One seeded scenario: our peer and browsers edit one document at random while their updates
//! cross a network that reorders, drops and duplicates them, and reconnects peers (a sync by
//! state vector both ways, as after a dropped connection). Then every peer syncs with every
//! other, and all must hold the same document.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use yrs::StateVector;
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;

use crate::agent::Agent;
use crate::browsers::{Browsers, Reading};
use crate::tree;

/// What the document starts as: BlockNote's import of it, every kind of block a browser edits.
const SEED_MARKDOWN: &str = "# Plan

Some **bold**, *italic* and a [link](https://example.com/page) here.

- bullet one
  - nested bullet
- bullet two

1. first
2. second

- [ ] todo item

```rust
fn main() {}
```

> A quoted line

| Name | Value |
| --- | --- |
| a | **1** |
| b | 2 |

Last paragraph.
";

/// The check yrs fails when it panics integrating an update (see `fixtures/`).
pub const YRS_PANIC: &str = "yrs integrates the update";
/// The check a Yjs 14 browser fails when Yjs 14 (a release candidate) throws.
pub const YJS14_THROWS: &str = "yjs 14 integrates the update";

/// Chances, in percent, that an update sent on a link is lost, or arrives twice.
const DROP_PERCENT: u32 = 8;
const DUPLICATE_PERCENT: u32 = 5;
/// Most rounds of all-pairs syncing at the end (a few do: a deletion held aside takes a round
/// per peer it passes through; renders that write add some).
const SYNC_ROUNDS: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub seed: u64,
    pub steps: usize,
    /// Browsers on Yjs 13 with BlockNote (today's Docs).
    pub browsers: usize,
    /// Browsers on Yjs 14 (`Y14Peer` in `src/yjs14.mjs`: Docs' next browser, suggestions
    /// included), after those.
    pub y14: usize,
    pub topology: Topology,
}

/// How peers are connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topology {
    /// As Docs is: every browser, and ours, connected to the room only, over a socket that
    /// delivers in order and whose loss is the connection's, until a reconnection.
    Star,
    /// Browsers also exchange updates among themselves, over links that lose, duplicate and
    /// reorder them: the room and ours get updates whose dependencies are missing (a stress
    /// Docs' room rarely makes; it is where yrs' panic is met, see `upstream`).
    Mesh,
}

/// How a scenario failed: which check, and the first difference.
#[derive(Debug, Clone)]
pub struct Divergence {
    pub check: &'static str,
    pub detail: String,
    pub log: Vec<String>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.check, self.detail)?;
        for (i, line) in self.log.iter().enumerate() {
            writeln!(f, "  {i:>3} {line}")?;
        }
        Ok(())
    }
}

/// What a scenario did, by kind of action.
pub type Tally = BTreeMap<String, usize>;

struct Run<'a> {
    browsers: &'a mut Browsers,
    agent: Agent,
    names: Vec<String>,
    /// Updates on their way, per link (from, to); peer 0 is ours.
    links: BTreeMap<(usize, usize), Vec<Vec<u8>>>,
    /// Connections lost (links in order, see `ordered`), until a reconnection.
    down: BTreeSet<(usize, usize)>,
    topology: Topology,
    rng: StdRng,
    log: Vec<String>,
    tally: Tally,
}

pub fn run(browsers: &mut Browsers, config: Config) -> Result<Tally, Divergence> {
    browsers.forget();
    let mut rng = StdRng::seed_from_u64(config.seed);
    let seed = browsers.seed(SEED_MARKDOWN, rng.random_range(1..1 << 31));
    let agent = Agent::new(rng.random_range(1..1 << 31), &seed);
    // Peer 1 is the room (the collaboration server: a Yjs document that relays what it
    // integrates), the only peer ours is connected to; the browsers follow.
    let names: Vec<String> = std::iter::once("room".to_owned())
        .chain((1..=config.browsers).map(|i| format!("b{i}")))
        .chain((1..=config.y14).map(|i| format!("y{i}")))
        .collect();
    for (i, name) in names.iter().enumerate() {
        let yjs = if i > config.browsers { 14 } else { 13 };
        browsers.add_peer(name, rng.random_range(1..1 << 31), i == 0, yjs);
        browsers.apply(name, &seed);
    }
    let mut run = Run {
        browsers,
        agent,
        names,
        links: BTreeMap::new(),
        down: BTreeSet::new(),
        topology: config.topology,
        rng,
        log: vec![],
        tally: Tally::new(),
    };
    for _ in 0..config.steps {
        run.step()?;
        run.yjs14_held()?;
    }
    run.converge()?;
    Ok(run.tally)
}

impl Run<'_> {
    fn peers(&self) -> usize {
        self.names.len() + 1
    }

    fn note(&mut self, kind: &str, line: String) {
        *self.tally.entry(kind.to_owned()).or_default() += 1;
        self.log.push(line);
    }

    fn fail(&self, check: &'static str, detail: String) -> Divergence {
        Divergence {
            check,
            detail,
            log: self.log.clone(),
        }
    }

    fn yjs14_held(&mut self) -> Result<(), Divergence> {
        match self.browsers.take_y14_failure() {
            Some(failure) => Err(self.fail(YJS14_THROWS, failure)),
            None => Ok(()),
        }
    }

    fn step(&mut self) -> Result<(), Divergence> {
        match self.rng.random_range(0..100) {
            0..30 => {
                let i = self.rng.random_range(2..self.peers());
                let seed = self.rng.random();
                let (kind, out) = self.browsers.edit(&self.names[i - 1], seed);
                let kind = kind.unwrap_or_else(|| "nothing".into());
                let line = format!("{} {kind} (edit seed {seed})", self.names[i - 1]);
                self.note(&format!("browser {kind}"), line);
                self.send_all(i, out);
            }
            30..45 => {
                let before = self.agent.state();
                let (kind, update) = self.agent.write(&mut self.rng);
                self.note(&format!("agent {kind}"), format!("agent {kind}"));
                if let Some(update) = update {
                    self.check_write(&before)?;
                    self.send_from_agent(vec![update]);
                }
            }
            45..50 if self.agent.has_held() => {
                let before = self.agent.state();
                match self.agent.merge_held().flatten() {
                    Some(update) => {
                        self.note("agent merge held", "agent merges a held edit".into());
                        self.check_write(&before)?;
                        self.send_from_agent(vec![update]);
                    }
                    None => self.note(
                        "agent merge held refused",
                        "agent merges a held edit (refused: a block changed)".into(),
                    ),
                }
            }
            50..55 => {
                let n = self.peers();
                let pairs: Vec<(usize, usize)> = (0..n)
                    .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                    .filter(|&(a, b)| self.linked(a, b))
                    .collect();
                let (a, b) = pairs[self.rng.random_range(0..pairs.len())];
                for link in [(a, b), (b, a)] {
                    self.links.remove(&link);
                    self.down.remove(&link);
                }
                self.sync(a, b)?;
                self.sync(b, a)?;
                self.note("reconnect", format!("reconnect {a} <-> {b}"));
            }
            _ => self.deliver()?,
        }
        Ok(())
    }

    /// Sends `updates` of peer `from` on every link from it. Between browsers, some are lost,
    /// some come twice, in any order. Our peer's links are a session's connection: in order,
    /// and a loss is the connection's, which stays down until a reconnection.
    fn send_all(&mut self, from: usize, updates: Vec<Vec<u8>>) {
        for update in updates {
            let targets: Vec<usize> = (0..self.peers())
                .filter(|&to| self.linked(from, to))
                .collect();
            for to in targets {
                let ordered = self.ordered(from, to);
                if self.down.contains(&(from, to)) {
                    continue;
                }
                let roll = self.rng.random_range(0..100);
                if roll < DROP_PERCENT && ordered {
                    for link in [(from, to), (to, from)] {
                        self.links.remove(&link);
                        self.down.insert(link);
                    }
                    self.note("connection lost", format!("{from} -> {to} connection lost"));
                    continue;
                }
                if roll < DROP_PERCENT {
                    self.note("dropped", format!("{from} -> {to} dropped"));
                    continue;
                }
                let queue = self.links.entry((from, to)).or_default();
                queue.push(update.clone());
                if roll >= 100 - DUPLICATE_PERCENT && !ordered {
                    queue.push(update.clone());
                }
            }
        }
    }

    /// Sends `updates` of our peer, then what it wrote of its own accord after them.
    fn send_from_agent(&mut self, mut updates: Vec<Vec<u8>>) {
        let answers = self.agent.take_answers();
        if !answers.is_empty() {
            self.note(
                "agent mended child groups",
                "agent re-creates a block given two child groups".into(),
            );
        }
        updates.extend(answers);
        self.send_all(0, updates);
    }

    /// Delivers one update, of a random link, not necessarily the oldest: links reorder.
    fn deliver(&mut self) -> Result<(), Divergence> {
        let busy: Vec<(usize, usize)> = self
            .links
            .iter()
            .filter(|(_, q)| !q.is_empty())
            .map(|(k, _)| *k)
            .collect();
        if busy.is_empty() {
            return Ok(());
        }
        let (from, to) = busy[self.rng.random_range(0..busy.len())];
        let ordered = self.ordered(from, to);
        let queue = self.links.get_mut(&(from, to)).expect("busy");
        let next = if ordered {
            0
        } else {
            self.rng.random_range(0..queue.len())
        };
        let update = queue.remove(next);
        self.note("delivered", format!("{from} -> {to} delivered"));
        self.apply(to, &update)
    }

    fn apply(&mut self, to: usize, update: &[u8]) -> Result<(), Divergence> {
        if to == 0 {
            self.agent.apply(update).map_err(|panic| {
                let history: Vec<String> =
                    self.agent.history().iter().map(|u| B64.encode(u)).collect();
                let detail = format!("{panic}; updates in order: {}", json!(history));
                self.fail(YRS_PANIC, detail)
            })?;
            self.send_from_agent(vec![]);
            Ok(())
        } else {
            let out = self.browsers.apply(&self.names[to - 1], update);
            self.send_all(to, out);
            Ok(())
        }
    }

    fn state_vector(&mut self, peer: usize) -> Vec<u8> {
        match peer {
            0 => self.agent.state_vector(),
            i => self.browsers.state_vector(&self.names[i - 1]),
        }
    }

    /// Sync step 1 and 2 from `a` to `b`: `b` gets what it lacks of `a`.
    fn sync(&mut self, a: usize, b: usize) -> Result<(), Divergence> {
        let sv = self.state_vector(b);
        let update = match a {
            0 => self.agent.diff(&sv),
            i => self.browsers.diff(&self.names[i - 1], &sv),
        };
        self.apply(b, &update)
    }

    /// BlockNote keeps what our write wrote: a browser opening our document right after it
    /// deletes nothing, rewrites nothing, and reads what our reader reads. (Unless it did not
    /// already before the write: a browser's change may have left it so.)
    fn check_write(&mut self, before: &[u8]) -> Result<(), Divergence> {
        let after = self.browsers.read_update(&self.agent.state());
        let ours = self.agent.blocks_json();
        if kept(&after, &self.agent.aside()["inserted"]) && after.blocks == ours {
            return Ok(());
        }
        let earlier = self.browsers.read_update(before);
        let reader = Agent::new(1, before);
        if !kept(&earlier, &reader.aside()["inserted"]) || earlier.blocks != reader.blocks_json() {
            return Ok(());
        }
        Err(self.fail(
            "blocknote keeps our write",
            format!(
                "rendered {} rewritten {}; {}\nours:\n{}blocknote:\n{}xml: {}",
                after.rendered,
                after.rewritten,
                first_difference("blocks", &ours, &after.blocks).unwrap_or_default(),
                outline(&ours, 0),
                outline(&after.blocks, 0),
                shape(&tree::of_doc(self.agent.doc())),
            ),
        ))
    }

    /// Every peer syncs with every other until all hold the same state, then the documents are
    /// compared: state vectors, trees (yrs' and Yjs'), BlockNote's blocks and ours.
    fn converge(&mut self) -> Result<(), Divergence> {
        while let Some(merged) = self.agent.merge_held() {
            self.send_from_agent(merged.into_iter().collect());
        }
        // Suggestions accepted one at a time leave gaps in the suggestion client's clocks,
        // past which Yjs 13 integrates nothing: the Yjs 14 browsers accept what is still open.
        for i in 1..self.names.len() {
            if is_y14(&self.names[i]) {
                let out = self.browsers.settle(&self.names[i]);
                self.note(
                    "y14 settles",
                    format!("{} accepts its open suggestions", self.names[i]),
                );
                self.send_all(i + 1, out);
                self.yjs14_held()?;
            }
        }
        self.links.clear();
        self.down.clear();
        // Until a round changes no peer's state: the same state vectors are not enough, as a
        // deletion moves none. One held aside (Yjs 13 gives those in its Step2, and applies
        // them at its next update once it has their clocks) reaches the room in one round and
        // the peers synced before it in the room's next (seeds 31321, 31463 of the soak).
        let mut before = self.states();
        for _ in 0..SYNC_ROUNDS {
            for a in 0..self.peers() {
                let targets: Vec<usize> =
                    (0..self.peers()).filter(|&b| self.linked(a, b)).collect();
                for b in targets {
                    self.sync(a, b)?;
                }
            }
            self.links.clear();
            let after = self.states();
            if after == before {
                break;
            }
            before = after;
        }
        self.yjs14_held()?;
        let vectors: Vec<StateVector> = (0..self.peers())
            .map(|p| StateVector::decode_v1(&self.state_vector(p)).expect("a state vector"))
            .collect();
        if vectors.iter().any(|v| v != &vectors[0]) {
            return Err(self.fail("same state vector", format!("{vectors:?}")));
        }
        if self.agent.pending() {
            return Err(self.fail("nothing pending in yrs", self.agent.pending_detail()));
        }
        // What is held aside at the end is what a Yjs 14 browser's rejected suggestion left
        // past a gap for good: Yjs 13 holds those structs aside, and so do we. (Deletions of
        // clocks no peer holds — every state vector is the same — delete nothing anywhere;
        // they reach peers as syncs happen to carry them, and are not compared.)
        let ours_aside = self.agent.aside()["inserted"].take();
        let ours = self.browsers.read_update(&self.agent.state());
        let our_tree = tree::normalized(&tree::of_doc(self.agent.doc()));
        let our_blocks = self.agent.blocks_json();
        let their_tree = tree::normalized(&ours.tree);
        if let Some(d) = first_difference("tree", &our_tree, &their_tree) {
            return Err(self.fail("yrs and yjs read the same tree", d));
        }
        // A block holding two contents (concurrent changes of its type each put theirs) is
        // deleted by browsers: our peer re-creates it with one (`blocknote::groups`).
        if doubled(&our_tree) {
            return Err(self.fail("one content per block", "a block holds two contents".into()));
        }
        if let Some(d) = first_difference("blocks", &our_blocks, &ours.blocks) {
            return Err(self.fail("our reader reads as blocknote", d));
        }
        if !kept(&ours, &ours_aside) {
            let detail = format!("rendered {} rewritten {}", ours.rendered, ours.rewritten);
            return Err(self.fail("a browser keeps the document", detail));
        }
        for i in 0..self.names.len() {
            let theirs = self.browsers.read(&self.names[i]);
            if !is_y14(&self.names[i]) && theirs.aside["inserted"] != ours_aside {
                let detail = format!("{}: {} (ours {ours_aside})", self.names[i], theirs.aside);
                return Err(self.fail("yjs 13 and we hold the same aside", detail));
            }
            if let Some(d) = theirs.y14_differs {
                let detail = format!("{}: {d}", self.names[i]);
                return Err(self.fail("yjs 14 holds what yjs 13 reads", detail));
            }
            let tree = tree::normalized(&theirs.tree);
            if let Some(d) = first_difference("tree", &our_tree, &tree) {
                let detail = format!("{}: {d}", self.names[i]);
                return Err(self.fail("every peer holds the same tree", detail));
            }
            if let Some(d) = first_difference("blocks", &ours.blocks, &theirs.blocks) {
                let detail = format!("{}: {d}", self.names[i]);
                return Err(self.fail("every peer reads the same blocks", detail));
            }
        }
        Ok(())
    }

    /// Every peer's whole state, as it would send it (what it holds aside included).
    fn states(&mut self) -> Vec<Vec<u8>> {
        let nothing = StateVector::default().encode_v1();
        (0..self.peers())
            .map(|p| match p {
                0 => self.agent.state(),
                i => self.browsers.diff(&self.names[i - 1], &nothing),
            })
            .collect()
    }
}

impl Run<'_> {
    /// Whether peers `a` and `b` exchange updates: every peer with the room (1); in a mesh,
    /// browsers with each other too.
    fn linked(&self, a: usize, b: usize) -> bool {
        a != b && (a == 1 || b == 1 || self.topology == Topology::Mesh && a.min(b) >= 2)
    }

    /// Whether the link from `a` to `b` is a socket: in order, losing only with the
    /// connection. Ours always is; in a star, every link is.
    fn ordered(&self, a: usize, b: usize) -> bool {
        self.topology == Topology::Star || a == 0 || b == 0
    }
}

/// Whether the browser of this name is one on Yjs 14.
fn is_y14(name: &str) -> bool {
    name.starts_with('y')
}

/// Whether a browser opening the document keeps it as it is, holding aside the structs we
/// hold aside (`inserted`, of `Reading::aside`).
fn kept(reading: &Reading, inserted: &Value) -> bool {
    reading.rendered == 0 && reading.rewritten == 0 && reading.aside["inserted"] == *inserted
}

/// Whether a block of the tree holds more than one content node.
fn doubled(tree: &Value) -> bool {
    match tree {
        Value::Array(nodes) => nodes.iter().any(doubled),
        Value::Object(node) => {
            let children = node
                .get("children")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let contents = children
                .iter()
                .filter(|c| c["name"] != "blockGroup")
                .count();
            let container = node.get("name") == Some(&json!("blockContainer"));
            (container && contents > 1) || children.iter().any(doubled)
        }
        _ => false,
    }
}

/// A tree's elements and their ids, as XML without attributes or text, for failures.
fn shape(tree: &Value) -> String {
    match tree {
        Value::Array(nodes) => nodes.iter().map(shape).collect(),
        Value::Object(node) if node.contains_key("name") => {
            let name = node["name"].as_str().unwrap_or_default();
            let id = node["attrs"]["id"]
                .as_str()
                .map(|id| format!(" {}", &id[..8]));
            format!(
                "<{name}{}>{}</>",
                id.unwrap_or_default(),
                shape(&node["children"])
            )
        }
        _ => "t".into(),
    }
}

/// Blocks JSON as one line a block (id, type, text), indented by nesting, for failures.
fn outline(blocks: &Value, depth: usize) -> String {
    let mut out = String::new();
    for block in blocks.as_array().into_iter().flatten() {
        let id = block["id"].as_str().unwrap_or_default();
        let content = serde_json::to_string(&block["content"]).unwrap_or_default();
        out += &format!(
            "{:depth$}{} {} {}\n",
            "",
            &id[..id.len().min(8)],
            block["type"],
            &content[..content.len().min(120)],
            depth = depth * 2
        );
        out += &outline(&block["children"], depth + 1);
    }
    out
}

/// Where two JSON values first differ, for a readable failure.
pub fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.keys()
                .chain(y.keys())
                .find_map(|k| match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => first_difference(&format!("{path}.{k}"), va, vb),
                    (va, vb) => Some(format!("{path}.{k}: {va:?} / {vb:?}")),
                })
        }
        (Value::Array(x), Value::Array(y)) => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(&format!("{path}[{i}]"), va, vb))
            .or_else(|| {
                (x.len() != y.len()).then(|| format!("{path}: {} items / {}", x.len(), y.len()))
            }),
        _ => (a != b).then(|| format!("{path}: {a} / {b}")),
    }
}
