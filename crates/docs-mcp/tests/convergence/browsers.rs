//! The browser stand-ins: `tests/docs-server/scripts/peers.mjs`, a Node process holding every
//! browser's Y.Doc (Yjs 13 with y-prosemirror and BlockNote), driven one JSON line at a time.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use serde_json::{Value, json};

/// What BlockNote and a browser make of a document.
pub struct Reading {
    /// BlockNote's blocks JSON.
    pub blocks: Value,
    /// The canonical tree (`tree` in `src/browser.mjs`; `super::tree` for yrs).
    pub tree: Value,
    /// What Yjs 13 holds aside, `{inserted, deleted}`, each `{client: [[from, to]]}` (sorted,
    /// merged): what its pending structs insert and what its pending deletions delete.
    pub aside: Value,
    /// Updates a browser writes when it renders the document, and when it writes the rendered
    /// document back unchanged: both 0 when a browser keeps the document as it is.
    pub rendered: u64,
    pub rewritten: u64,
    /// Of a Yjs 14 browser: where what Yjs 14 holds differs from what Yjs 13 reads of its
    /// state, if it does.
    pub y14_differs: Option<String>,
}

/// Yjs 14's suggestions accepted out of order: its state after, the update it emitted, and
/// the first paragraph's text as Yjs 14 and Yjs 13 read them.
pub struct OutOfOrder {
    pub state: Vec<u8>,
    pub emitted: Vec<u8>,
    pub y14_text: Option<String>,
    pub y13_text: Option<String>,
    pub y13_pending: bool,
}

pub struct Browsers {
    /// What a Yjs 14 browser threw, since last asked (`take_y14_failure`).
    y14_failure: Option<String>,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Browsers {
    pub fn start() -> Self {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/docs-server");
        assert!(
            dir.join("node_modules").is_dir(),
            "run `npm ci --prefix tests/docs-server` first"
        );
        let mut child = Command::new("node")
            .arg(dir.join("scripts/peers.mjs"))
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node (≥ 20) starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Browsers {
            y14_failure: None,
            child,
            stdin,
            stdout,
        }
    }

    fn call(&mut self, request: Value) -> Value {
        writeln!(self.stdin, "{request}").expect("peers.mjs reads");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("peers.mjs answers");
        let mut answer: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("peers.mjs answered {line:?}: {e}"));
        match answer.get_mut("ok") {
            Some(ok) => {
                if let Some(failure) = ok["y14Failed"].as_str() {
                    self.y14_failure.get_or_insert_with(|| failure.to_owned());
                }
                ok.take()
            }
            None => panic!("peers.mjs failed {request}: {}", answer["error"]),
        }
    }

    /// What a Yjs 14 browser threw since last asked: Yjs 14 (a release candidate) failed.
    pub fn take_y14_failure(&mut self) -> Option<String> {
        self.y14_failure.take()
    }

    /// The document BlockNote makes of `markdown`, written by client `client`.
    pub fn seed(&mut self, markdown: &str, client: u32) -> Vec<u8> {
        bytes(&self.call(json!({"cmd": "seed", "markdown": markdown, "client": client}))["update"])
    }

    /// Drops every browser: the next scenario starts.
    pub fn forget(&mut self) {
        self.call(json!({"cmd": "forget"}));
    }

    /// A browser on Yjs `yjs` (13 or 14), or with `relay` the room: a Yjs document that edits
    /// nothing, renders nothing, and passes on every update it integrates (as the
    /// collaboration server does).
    pub fn add_peer(&mut self, name: &str, client: u32, relay: bool, yjs: u8) {
        self.call(
            json!({"cmd": "peer", "name": name, "client": client, "relay": relay, "yjs": yjs}),
        );
    }

    /// A Yjs 14 browser accepts its open suggestions: the updates that makes.
    pub fn settle(&mut self, name: &str) -> Vec<Vec<u8>> {
        updates(&self.call(json!({"cmd": "settle", "name": name}))["out"])
    }

    /// Applies a remote update; returns what the browser wrote rendering it.
    pub fn apply(&mut self, name: &str, update: &[u8]) -> Vec<Vec<u8>> {
        let answer = self.call(json!({"cmd": "apply", "name": name, "update": B64.encode(update)}));
        updates(&answer["out"])
    }

    /// One random edit of a person, seeded: its kind (none when nothing applied) and updates.
    pub fn edit(&mut self, name: &str, seed: u64) -> (Option<String>, Vec<Vec<u8>>) {
        let answer = self.call(json!({"cmd": "edit", "name": name, "seed": seed}));
        (
            answer["kind"].as_str().map(str::to_owned),
            updates(&answer["out"]),
        )
    }

    pub fn state_vector(&mut self, name: &str) -> Vec<u8> {
        bytes(&self.call(json!({"cmd": "sv", "name": name}))["sv"])
    }

    /// What a peer at `state_vector` lacks (sync step 2).
    pub fn diff(&mut self, name: &str, state_vector: &[u8]) -> Vec<u8> {
        let answer =
            self.call(json!({"cmd": "diff", "name": name, "sv": B64.encode(state_vector)}));
        bytes(&answer["update"])
    }

    /// An upstream report's case (`src/upstream.mjs`): its updates in order, and Yjs' tree.
    pub fn upstream(&mut self, case: &str) -> (Vec<Vec<u8>>, Value) {
        let mut answer = self.call(json!({"cmd": "upstream", "name": case}));
        (updates(&answer["updates"]), answer["tree"].take())
    }

    /// A fresh Yjs 14 peer (`src/yjs14.mjs`) of client `client`.
    pub fn y14_new(&mut self, client: u32) {
        self.call(json!({"cmd": "y14", "client": client}));
    }

    /// An update applied by the Yjs 14 peer.
    pub fn y14_apply(&mut self, update: &[u8]) {
        self.call(json!({"cmd": "y14_apply", "update": B64.encode(update)}));
    }

    /// A Yjs 14 browser's writes, labelled `label`: the update they make.
    pub fn y14_write(&mut self, label: &str) -> Vec<u8> {
        bytes(&self.call(json!({"cmd": "y14_write", "label": label}))["update"])
    }

    /// Yjs 14's suggestions accepted out of order (`acceptedOutOfOrder` in `src/yjs14.mjs`)
    /// on the document `update` holds.
    pub fn y14_out_of_order(&mut self, update: &[u8]) -> OutOfOrder {
        let answer = self.call(json!({"cmd": "y14_out_of_order", "update": B64.encode(update)}));
        let text = |key: &str| answer[key].as_str().map(str::to_owned);
        OutOfOrder {
            state: bytes(&answer["state"]),
            emitted: bytes(&answer["emitted"]),
            y14_text: text("y14Text"),
            y13_text: text("y13Text"),
            y13_pending: answer["y13Pending"].as_bool().expect("y13Pending"),
        }
    }

    /// The Yjs 14 peer's whole state, and its state vector.
    pub fn y14_state(&mut self) -> (Vec<u8>, Vec<u8>) {
        let answer = self.call(json!({"cmd": "y14_state"}));
        (bytes(&answer["update"]), bytes(&answer["sv"]))
    }

    pub fn read(&mut self, name: &str) -> Reading {
        reading(self.call(json!({"cmd": "read", "name": name})))
    }

    /// A whole state (of our peer) read by BlockNote in a fresh Y.Doc.
    pub fn read_update(&mut self, update: &[u8]) -> Reading {
        reading(self.call(json!({"cmd": "read_update", "update": B64.encode(update)})))
    }
}

impl Drop for Browsers {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bytes(value: &Value) -> Vec<u8> {
    B64.decode(value.as_str().expect("base64")).expect("base64")
}

fn updates(value: &Value) -> Vec<Vec<u8>> {
    value
        .as_array()
        .expect("updates")
        .iter()
        .map(bytes)
        .collect()
}

fn reading(mut answer: Value) -> Reading {
    Reading {
        blocks: answer["blocks"].take(),
        tree: answer["tree"].take(),
        aside: answer["aside"].take(),
        rendered: answer["rendered"].as_u64().expect("rendered"),
        rewritten: answer["rewritten"].as_u64().expect("rewritten"),
        y14_differs: answer["y14Differs"].as_str().map(str::to_owned),
    }
}
