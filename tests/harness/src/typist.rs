//! The scripted typist: a person typing in a document through a real Hocuspocus provider,
//! run by the test server, and the handle that follows it.

use std::time::Duration;

use anyhow::bail;
use serde::Deserialize;
use serde_json::Value;
use uuid::Uuid;

use crate::{TestUser, control};

/// A scripted human typing in a document through a real Hocuspocus provider.
#[derive(Debug, Clone)]
pub struct TypistSpec {
    pub document_id: Uuid,
    /// Block to type into (at the end of its text); default: the first paragraph.
    pub block_id: Option<String>,
    pub text: String,
    pub interval_ms: u64,
    /// PATCH the full state back through REST when done, like a browser.
    pub save: bool,
    /// Session to use (default: a fresh anonymous session).
    pub session_cookie: Option<String>,
    /// CSRF token of that session (needed to save as a signed-in user).
    pub csrf_token: Option<String>,
    /// Awareness `user.name` (default "Typist").
    pub name: Option<String>,
    /// Disconnect once done (default true).
    pub disconnect_when_done: bool,
    /// Every message to and from the server waits a random time in `[min, max]` ms first, in
    /// order, as across a network (seeded by `seed`).
    pub latency_ms: Option<(u64, u64)>,
    pub seed: u64,
    /// Types into words of some blocks instead of appending `text` to one.
    pub words: Option<WordTyping>,
}

/// How a typist types into words, like a person editing paragraphs: `edits` times, after a
/// pause of `pause_ms`, it picks one of `blocks` and a word of it matching `eligible` (a
/// JavaScript regular expression, `u` flag), then types 1 to `keys` characters of `alphabet`
/// at the word's end, inside it or at its start, `interval_ms` apart, its cursor following
/// its own last character. Seeded by `seed`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WordTyping {
    pub blocks: Vec<String>,
    pub edits: u32,
    pub alphabet: String,
    pub eligible: String,
    pub pause_ms: (u64, u64),
    pub keys: u32,
    pub seed: u64,
}

impl TypistSpec {
    pub fn new(document_id: Uuid, text: &str) -> Self {
        Self {
            document_id,
            block_id: None,
            text: text.to_owned(),
            interval_ms: 50,
            save: false,
            session_cookie: None,
            csrf_token: None,
            name: None,
            disconnect_when_done: true,
            latency_ms: None,
            seed: 0,
            words: None,
        }
    }
    pub fn block(mut self, block_id: &str) -> Self {
        self.block_id = Some(block_id.to_owned());
        self
    }
    pub fn interval_ms(mut self, ms: u64) -> Self {
        self.interval_ms = ms;
        self
    }
    pub fn save(mut self, save: bool) -> Self {
        self.save = save;
        self
    }
    pub fn as_user(mut self, user: &TestUser) -> Self {
        self.session_cookie = Some(user.session_cookie.clone());
        self.csrf_token = Some(user.csrf_token.clone());
        self
    }
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_owned());
        self
    }
    pub fn stay_connected(mut self) -> Self {
        self.disconnect_when_done = false;
        self
    }
    pub fn latency(mut self, min_ms: u64, max_ms: u64, seed: u64) -> Self {
        self.latency_ms = Some((min_ms, max_ms));
        self.seed = seed;
        self
    }
    pub fn words(mut self, words: WordTyping) -> Self {
        self.words = Some(words);
        self
    }
}

/// Progress of a typist.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct TypistStatus {
    pub done: bool,
    /// Characters typed so far.
    pub typed: u64,
    /// Set when the typist failed (it is then `done`).
    pub error: Option<String>,
    /// True once its REST save succeeded.
    pub saved: bool,
    /// True once its provider was synced.
    pub synced: bool,
    /// Its Yjs client id, once it has a document.
    #[serde(default)]
    pub client_id: Option<u64>,
    /// The `commentsPing` awareness fields of other clients it received (what Docs' editor
    /// watches to refresh its threads), each `{clientId, at, docId, threadId}`.
    #[serde(default)]
    pub comments_pings: Vec<Value>,
    /// What its own copy of the document holds (the fragment as XML).
    #[serde(default)]
    pub fragment: String,
}

/// Handle of a running typist.
#[derive(Debug, Clone)]
pub struct Typist {
    pub id: String,
    pub(crate) base: String,
    pub(crate) http: reqwest::Client,
}

impl Typist {
    pub async fn status(&self) -> anyhow::Result<TypistStatus> {
        let v = control(
            &self.http,
            reqwest::Method::GET,
            &format!("{}/__test__/typist/{}", self.base, self.id),
            None,
        )
        .await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Polls until the typist is done (success or error) or `timeout` passes.
    pub async fn wait_done(&self, timeout: Duration) -> anyhow::Result<TypistStatus> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let st = self.status().await?;
            if st.done {
                return Ok(st);
            }
            if tokio::time::Instant::now() >= deadline {
                bail!("typist {} not done after {timeout:?}: {st:?}", self.id);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}
