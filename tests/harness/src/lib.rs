//! test-harness: starts the Docs-like test server (`tests/docs-server`, a Node program that
//! runs the real `@hocuspocus/server` 3.4.4 — or, with [`Collaboration::Yhub`], the real
//! y-websocket server as Docs' next major "yhub" — behind a fake La Suite Docs backend) and drives its
//! test-only control API (`/__test__/...`): seeding, read-back, resets, drops and freezes of
//! connections, throttling, a scripted typist, comment marks (read back through BlockNote,
//! or seeded as Docs' editor writes them).
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use test_harness::{DocsServer, DocumentSpec};
//! let server = DocsServer::start().await?;
//! let id = server
//!     .create_document(DocumentSpec::new("Notes").markdown("# Title\n\nHello"))
//!     .await?;
//! let stored = server.stored(id).await?;
//! assert_eq!(stored.markdown, "# Title\n\nHello\n");
//! # Ok(()) }
//! ```
//!
//! The server needs its Node dependencies: run `npm ci --prefix tests/docs-server` once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use base64::Engine;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use uuid::Uuid;

/// How long to wait for the `LISTENING` line.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Environment variable choosing the collaboration server when
/// [`ServerOptions::collaboration`] is `None`: `hocuspocus` (default) or `yhub`.
pub const COLLABORATION_ENV: &str = "DOCS_TEST_COLLABORATION";

/// The collaboration server the test instance runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Collaboration {
    /// Docs up to 5.x: `@hocuspocus/server` at `/collaboration/ws/?room=<id>`; clients save the
    /// content through `documents/<id>/content/`.
    #[default]
    Hocuspocus,
    /// Docs' next major: yhub, plain y-websocket at `/collaboration/ws/v1/docs/<id>`, REST
    /// `/collaboration/ydoc/v1/docs/<id>`; the server persists (no `content/` endpoint).
    Yhub,
}

impl Collaboration {
    /// The `--collaboration` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hocuspocus => "hocuspocus",
            Self::Yhub => "yhub",
        }
    }

    /// Parses `hocuspocus` / `yhub` (case-insensitive).
    pub fn parse(s: &str) -> anyhow::Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "hocuspocus" => Ok(Self::Hocuspocus),
            "yhub" => Ok(Self::Yhub),
            other => bail!("unknown collaboration server {other:?} (hocuspocus|yhub)"),
        }
    }

    /// What `DOCS_TEST_COLLABORATION` asks for (Hocuspocus when unset or empty).
    pub fn from_env() -> anyhow::Result<Self> {
        match std::env::var(COLLABORATION_ENV) {
            Ok(v) if !v.trim().is_empty() => {
                Self::parse(&v).with_context(|| format!("{COLLABORATION_ENV}={v}"))
            }
            _ => Ok(Self::Hocuspocus),
        }
    }
}

/// Options of the test server.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// Behave like Docs < 5.0: no `content/` endpoint, `content` is a field of the document.
    pub legacy_content: bool,
    /// The Docs release to behave as (`X.Y.Z`; the server's default is its newest, 5.7.0).
    pub docs_version: Option<String>,
    /// Document API throttle in requests/minute (default 80, like Docs). `Some(0)` disables it.
    pub throttle_rate: Option<u32>,
    /// `hocuspocus` or `yhub`; `None`: the `DOCS_TEST_COLLABORATION` environment variable
    /// decides (Hocuspocus when unset).
    pub collaboration: Option<String>,
    /// Every REST answer waits this long first, as a backend a round trip away would (for
    /// benchmarks; the collaboration socket is not delayed).
    pub latency: Option<std::time::Duration>,
}

/// A signed-in user of the test instance, with a ready-to-use session.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct TestUser {
    pub id: String,
    pub email: String,
    pub full_name: String,
    /// Value of the `docs_sessionid` cookie.
    pub session_cookie: String,
    /// Value of the `csrftoken` cookie, to send back as `X-CSRFToken` on unsafe methods.
    pub csrf_token: String,
}

impl TestUser {
    /// The `Cookie` header a browser of this user sends: session + CSRF cookies.
    pub fn cookie_header(&self) -> String {
        format!(
            "docs_sessionid={}; csrftoken={}",
            self.session_cookie, self.csrf_token
        )
    }
}

/// What to seed a document with. Default: untitled "Test document", public editor, empty.
#[derive(Debug, Clone)]
pub struct DocumentSpec {
    pub id: Option<Uuid>,
    pub title: String,
    /// Markdown converted through BlockNote's own importer.
    pub markdown: Option<String>,
    /// BlockNote block JSON (takes precedence over `markdown`).
    pub blocks: Option<Value>,
    /// `restricted`, `authenticated` or `public`.
    pub link_reach: String,
    /// `reader`, `commenter` or `editor`.
    pub link_role: String,
    /// `(user_id, role)` with role in reader/commenter/editor/administrator/owner.
    pub accesses: Vec<(String, String)>,
    pub creator_id: Option<String>,
}

impl Default for DocumentSpec {
    fn default() -> Self {
        Self {
            id: None,
            title: "Test document".to_owned(),
            markdown: None,
            blocks: None,
            link_reach: "public".to_owned(),
            link_role: "editor".to_owned(),
            accesses: Vec::new(),
            creator_id: None,
        }
    }
}

impl DocumentSpec {
    pub fn new(title: &str) -> Self {
        Self {
            title: title.to_owned(),
            ..Self::default()
        }
    }
    pub fn id(mut self, id: Uuid) -> Self {
        self.id = Some(id);
        self
    }
    pub fn title(mut self, title: &str) -> Self {
        self.title = title.to_owned();
        self
    }
    pub fn markdown(mut self, markdown: &str) -> Self {
        self.markdown = Some(markdown.to_owned());
        self
    }
    pub fn blocks(mut self, blocks: Value) -> Self {
        self.blocks = Some(blocks);
        self
    }
    pub fn link(mut self, reach: &str, role: &str) -> Self {
        self.link_reach = reach.to_owned();
        self.link_role = role.to_owned();
        self
    }
    pub fn access(mut self, user_id: &str, role: &str) -> Self {
        self.accesses.push((user_id.to_owned(), role.to_owned()));
        self
    }
    pub fn creator(mut self, user_id: &str) -> Self {
        self.creator_id = Some(user_id.to_owned());
        self
    }

    fn to_json(&self) -> Value {
        let mut v = json!({
            "title": self.title,
            "link_reach": self.link_reach,
            "link_role": self.link_role,
            "accesses": self
                .accesses
                .iter()
                .map(|(user_id, role)| json!({"user_id": user_id, "role": role}))
                .collect::<Vec<_>>(),
        });
        if let Some(id) = self.id {
            v["id"] = json!(id.to_string());
        }
        if let Some(md) = &self.markdown {
            v["markdown"] = json!(md);
        }
        if let Some(blocks) = &self.blocks {
            v["blocks"] = blocks.clone();
        }
        if let Some(creator) = &self.creator_id {
            v["creator_id"] = json!(creator);
        }
        v
    }
}

/// A document read back through BlockNote's own parser.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedDocument {
    /// BlockNote blocks (`yDocToBlocks(ydoc, "document-store")`).
    pub blocks: Value,
    /// `blocksToMarkdownLossy(blocks)`.
    pub markdown: String,
    /// The full Yjs update (v1 encoding).
    pub update: Vec<u8>,
}

#[derive(Deserialize)]
struct RawParsed {
    blocks: Value,
    markdown: String,
    update_b64: String,
}

impl RawParsed {
    fn into_parsed(self) -> anyhow::Result<ParsedDocument> {
        let update = base64::engine::general_purpose::STANDARD
            .decode(self.update_b64.as_bytes())
            .context("update_b64 is not base64")?;
        Ok(ParsedDocument {
            blocks: self.blocks,
            markdown: self.markdown,
            update,
        })
    }
}

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

/// The Yjs items of one block's inline text (see [`DocsServer::live_text_items`]).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct BlockItems {
    pub block_id: String,
    pub items: Vec<TextItem>,
}

/// One Yjs item: `length` characters (or a format marker) inserted by `client` at `clock`,
/// between the characters `origin` and `right_origin` (client, clock) as it saw them.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct TextItem {
    pub client: u64,
    pub clock: u64,
    pub length: u64,
    pub deleted: bool,
    /// The text, unless it is not text or was deleted (and is no longer kept).
    pub text: Option<String>,
    /// The attribute of a format marker.
    pub format: Option<String>,
    pub origin: Option<(u64, u64)>,
    pub right_origin: Option<(u64, u64)>,
}

/// A run of text carrying a comment mark, as BlockNote's editor reads the document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct CommentMarkSpan {
    pub block_id: String,
    pub thread_id: String,
    pub orphan: bool,
    /// The exact text the mark covers (contiguous marked text merged).
    pub text: String,
    /// Offsets in the block's own inline text, in UTF-16 code units (a hard break counts 1).
    pub start: u64,
    pub end: u64,
}

/// The comment marks of a document, in the stored content and in the room.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct CommentMarks {
    pub stored: Vec<CommentMarkSpan>,
    /// `None` when no room is loaded.
    pub live: Option<Vec<CommentMarkSpan>>,
}

/// Handle of a running typist.
#[derive(Debug, Clone)]
pub struct Typist {
    pub id: String,
    base: String,
    http: reqwest::Client,
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

/// Counters of the test server.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, Default)]
pub struct Stats {
    /// REST API requests received (`/api/v1.0/...`).
    pub requests: u64,
    /// Successful content saves per document id.
    pub content_patches: HashMap<String, u64>,
    /// Of those, the saves that said the client was not on the collaboration server
    /// (`websocket` not `true`).
    #[serde(default)]
    pub saves_off_websocket: HashMap<String, u64>,
    /// Open collaboration connections per loaded room.
    pub ws_connections: HashMap<String, u64>,
    /// Hocuspocus: connections that asked to join each room (their rights were checked).
    #[serde(default)]
    pub room_joins: HashMap<String, u64>,
    /// 429 responses sent.
    pub throttled: u64,
    /// The collaboration server: `hocuspocus` or `yhub`.
    #[serde(default)]
    pub collaboration: String,
    /// `PATCH /collaboration/ydoc/v1/docs/<id>` calls that succeeded, per document id (yhub).
    #[serde(default)]
    pub ydoc_patches: HashMap<String, u64>,
}

/// The custom attributions a yhub collaboration connection carried
/// (`?customAttributions=k:v,...` on its URL), closed connections included.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ConnectionAttributions {
    /// The signed-in user of the connection (`None`: anonymous).
    pub user_id: Option<String>,
    /// `[{k, v}]` pairs, in URL order.
    pub attributions: Vec<Attribution>,
    pub read_only: bool,
    pub open: bool,
    /// Sync messages (step 2 / update) accepted from it.
    #[serde(default)]
    pub updates: u64,
    /// Messages dropped (read-only, or sent while the server was closing it).
    #[serde(default)]
    pub dropped: u64,
    /// Awareness messages it sent (taken or dropped): a reader must send none.
    #[serde(default)]
    pub awareness_received: u64,
    /// WebSocket pings it sent.
    #[serde(default)]
    pub pings_received: u64,
    /// Close code once closed.
    #[serde(default)]
    pub close_code: Option<u16>,
}

/// One `k:v` custom attribution.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Attribution {
    pub k: String,
    pub v: String,
}

/// A REST `PATCH /collaboration/ydoc/v1/docs/<id>` as the yhub test server recorded it.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct PatchAttributions {
    pub user_id: Option<String>,
    /// Its `customAttributions`.
    pub attributions: Vec<Attribution>,
    /// Whether it carried an `update` / an `awareness`.
    pub update: bool,
    pub awareness: bool,
}

/// Custom attributions seen by the yhub test server for one document (always empty under
/// Hocuspocus).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, Default)]
pub struct Attributions {
    pub connections: Vec<ConnectionAttributions>,
    pub patches: Vec<PatchAttributions>,
}

/// The answer of a REST call to the yhub collaboration server: status and JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct YdocResponse {
    pub status: u16,
    pub body: Value,
}

/// A running test server; the Node child is killed when this is dropped.
pub struct DocsServer {
    url: String,
    collaboration: Collaboration,
    http: reqwest::Client,
    child: Child,
    // Held open: the server exits when its stdin reaches EOF.
    _stdin: Option<ChildStdin>,
}

impl std::fmt::Debug for DocsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsServer")
            .field("url", &self.url)
            .finish()
    }
}

/// Root of the repository (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

async fn control(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    body: Option<Value>,
) -> anyhow::Result<Value> {
    let mut req = http.request(method.clone(), url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req
        .send()
        .await
        .with_context(|| format!("{method} {url}"))?;
    let status = res.status();
    let text = res.text().await?;
    if !status.is_success() {
        bail!("{method} {url}: HTTP {status}: {text}");
    }
    serde_json::from_str(&text).with_context(|| format!("{method} {url}: bad JSON {text}"))
}

impl DocsServer {
    /// Starts a server with default options.
    pub async fn start() -> anyhow::Result<Self> {
        Self::start_with(ServerOptions::default()).await
    }

    /// Starts a server: `node tests/docs-server/src/main.mjs --port 0 ...`, waits for its
    /// `LISTENING` line (30 s).
    pub async fn start_with(opts: ServerOptions) -> anyhow::Result<Self> {
        let root = repo_root();
        let dir = root.join("tests/docs-server");
        if !dir.join("node_modules").is_dir() {
            bail!(
                "the test server's Node dependencies are missing ({}): run `npm ci --prefix tests/docs-server` in {}",
                dir.join("node_modules").display(),
                root.display()
            );
        }
        let legacy = opts.legacy_content
            || opts
                .docs_version
                .as_deref()
                .and_then(|v| v.split('.').next()?.parse::<u32>().ok())
                .is_some_and(|major| major < 5);
        let collaboration = match &opts.collaboration {
            Some(c) => Collaboration::parse(c)?,
            // Docs before 5.0 never ran yhub: the environment does not apply to it.
            None if legacy => Collaboration::Hocuspocus,
            None => Collaboration::from_env()?,
        };
        let mut cmd = Command::new("node");
        cmd.arg(dir.join("src/main.mjs"))
            .args(["--port", "0"])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if opts.legacy_content {
            cmd.arg("--legacy-content");
        }
        if let Some(version) = &opts.docs_version {
            cmd.args(["--docs-version", version]);
        }
        if let Some(rate) = opts.throttle_rate {
            cmd.args(["--throttle-rate", &rate.to_string()]);
        }
        if let Some(latency) = opts.latency {
            cmd.args(["--latency-ms", &latency.as_millis().to_string()]);
        }
        cmd.args(["--collaboration", collaboration.as_str()]);
        let mut child = cmd
            .spawn()
            .context("could not start `node` (is Node.js ≥ 20 installed?)")?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().context("no stdout")?;
        let stderr = child.stderr.take().context("no stderr")?;

        // Forward node's stderr to the test's stderr, keeping the tail for error messages.
        let tail: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
        {
            let tail = tail.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    eprintln!("[docs-server] {line}");
                    let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                    t.push(line);
                    if t.len() > 200 {
                        t.remove(0);
                    }
                }
            });
        }

        let mut out = BufReader::new(stdout).lines();
        let first = tokio::time::timeout(START_TIMEOUT, out.next_line()).await;
        let stderr_tail = |tail: &Arc<Mutex<Vec<String>>>| {
            tail.lock().unwrap_or_else(|e| e.into_inner()).join("\n")
        };
        let url = match first {
            Ok(Ok(Some(line))) if line.starts_with("LISTENING ") => {
                line["LISTENING ".len()..].trim().to_owned()
            }
            Ok(Ok(other)) => {
                // Give the stderr forwarder a moment to collect the reason.
                tokio::time::sleep(Duration::from_millis(200)).await;
                let status = child.try_wait().ok().flatten();
                bail!(
                    "docs-server did not start (first stdout line {other:?}, exit {status:?}); stderr:\n{}",
                    stderr_tail(&tail)
                );
            }
            Ok(Err(e)) => bail!(
                "reading docs-server stdout: {e}; stderr:\n{}",
                stderr_tail(&tail)
            ),
            Err(_) => {
                let _ = child.start_kill();
                bail!(
                    "docs-server printed no LISTENING line within {START_TIMEOUT:?}; stderr:\n{}",
                    stderr_tail(&tail)
                );
            }
        };
        // Keep draining stdout (nothing is expected there).
        tokio::spawn(async move {
            while let Ok(Some(line)) = out.next_line().await {
                eprintln!("[docs-server stdout] {line}");
            }
        });

        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()?;
        Ok(Self {
            url,
            collaboration,
            http,
            child,
            _stdin: stdin,
        })
    }

    /// The instance origin, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The collaboration server this instance runs.
    pub fn collaboration(&self) -> Collaboration {
        self.collaboration
    }

    /// yhub's WebSocket base, `ws://127.0.0.1:PORT/collaboration/ws/v1/docs` (append
    /// `/<id>`), what `config/` gives as `COLLABORATION_WS_URL` under yhub.
    pub fn yhub_ws_url(&self) -> String {
        format!(
            "{}/collaboration/ws/v1/docs",
            self.url.replacen("http://", "ws://", 1)
        )
    }

    /// `ws://127.0.0.1:PORT/collaboration/ws/` (append `?room=<id>`).
    pub fn ws_url(&self) -> String {
        format!(
            "{}/collaboration/ws/",
            self.url.replacen("http://", "ws://", 1)
        )
    }

    /// Process id of the Node child.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        control(
            &self.http,
            reqwest::Method::POST,
            &format!("{}/__test__/{path}", self.url),
            Some(body),
        )
        .await
    }

    async fn get(&self, path: &str) -> anyhow::Result<Value> {
        control(
            &self.http,
            reqwest::Method::GET,
            &format!("{}/__test__/{path}", self.url),
            None,
        )
        .await
    }

    /// Creates a user with a signed-in session.
    pub async fn create_user(&self, email: &str, full_name: &str) -> anyhow::Result<TestUser> {
        let v = self
            .post("users", json!({"email": email, "full_name": full_name}))
            .await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Makes the next `GET /api/v1.0/authenticate/` sign in `email` without the identity
    /// provider's form (straight to the callback), so a browser signs in unattended. The user
    /// is created at the callback unless one has this email.
    pub async fn auto_sign_in(&self, email: &str) -> anyhow::Result<()> {
        self.post("auto-sign-in", json!({ "email": email })).await?;
        Ok(())
    }

    /// Creates a document; content goes through BlockNote exactly as Docs stores it.
    pub async fn create_document(&self, spec: DocumentSpec) -> anyhow::Result<Uuid> {
        let v = self.post("documents", spec.to_json()).await?;
        let id = v["id"].as_str().ok_or_else(|| anyhow!("no id in {v}"))?;
        Ok(Uuid::parse_str(id)?)
    }

    /// The stored (REST) content, read back through BlockNote.
    pub async fn stored(&self, id: Uuid) -> anyhow::Result<ParsedDocument> {
        let v = self.get(&format!("documents/{id}/stored")).await?;
        serde_json::from_value::<RawParsed>(v)?.into_parsed()
    }

    /// The stored content once it caught up with the room: clients save on their own rhythm
    /// (Docs' editor and Docs MCP once a minute; tests configure less), so this waits, up to
    /// 15 s, until the stored blocks are the room's. With no room loaded, the stored content.
    pub async fn stored_settled(&self, id: Uuid) -> anyhow::Result<ParsedDocument> {
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        loop {
            let stored = self.stored(id).await?;
            match self.live(id).await? {
                Some(live)
                    if live.blocks != stored.blocks && std::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                _ => return Ok(stored),
            }
        }
    }

    /// The room's in-memory document, read back through BlockNote; `None` when no room is loaded.
    pub async fn live(&self, id: Uuid) -> anyhow::Result<Option<ParsedDocument>> {
        let Some(text) = self.room_get(id, "live").await? else {
            return Ok(None);
        };
        Ok(Some(
            serde_json::from_str::<RawParsed>(&text)?.into_parsed()?,
        ))
    }

    /// A control route about the room of `id` (`documents/<id>/<what>`); `None` when no room
    /// is loaded.
    async fn room_get(&self, id: Uuid, what: &str) -> anyhow::Result<Option<String>> {
        let url = format!("{}/__test__/documents/{id}/{what}", self.url);
        let res = self.http.get(&url).send().await?;
        let status = res.status();
        let text = res.text().await?;
        if status == reqwest::StatusCode::NOT_FOUND && text.contains("room not loaded") {
            return Ok(None);
        }
        if !status.is_success() {
            bail!("GET {url}: HTTP {status}: {text}");
        }
        Ok(Some(text))
    }

    /// Replaces the stored content by the same blocks written anew: the same text in another
    /// Yjs history (a lost room made again from a copy). Refused while the room is loaded.
    pub async fn rewrite_history(&self, id: Uuid) -> anyhow::Result<()> {
        self.post(&format!("documents/{id}/new-history"), json!({}))
            .await?;
        Ok(())
    }

    /// Closes every connection of the room like Docs on a rights change (CLOSE "Reset Connection").
    pub async fn reset_connections(&self, id: Uuid) -> anyhow::Result<()> {
        self.post(&format!("documents/{id}/reset-connections"), json!({}))
            .await?;
        Ok(())
    }

    /// Terminates every WebSocket abruptly (no close frame): a network drop.
    pub async fn drop_connections(&self) -> anyhow::Result<()> {
        self.post("drop-connections", json!({})).await?;
        Ok(())
    }

    /// What the instance's `config/` says from now on: no `COLLABORATION_WS_URL`, or no
    /// configuration at all (404).
    pub async fn set_instance_config(
        &self,
        unset_collaboration_url: bool,
        missing: bool,
    ) -> anyhow::Result<()> {
        self.post(
            "instance-config",
            json!({ "unset_collaboration_url": unset_collaboration_url, "missing": missing }),
        )
        .await?;
        Ok(())
    }

    /// Takes the collaboration server down (every WebSocket terminated, new ones refused
    /// with 502 while REST keeps answering) or brings it back.
    /// yhub mode: refuses the WebSockets of clients whose User-Agent contains `agent` (HTTP
    /// 502, as a proxy that does not pass them), terminating theirs open now; REST and the
    /// other clients go on. `None` lets them through again.
    pub async fn refuse_sockets_of(&self, agent: Option<&str>) -> anyhow::Result<()> {
        self.post("refuse-sockets-of", json!({ "agent": agent }))
            .await?;
        Ok(())
    }

    pub async fn set_collaboration_down(&self, down: bool) -> anyhow::Result<()> {
        self.post("collaboration-down", json!({ "down": down }))
            .await?;
        Ok(())
    }

    /// Freezes the collaboration connections open now in a document's room, like a network
    /// path that died without closing them (a laptop asleep, a NAT entry dropped): the server
    /// keeps the TCP connections open but stops reading and writing them — no pongs, no
    /// acknowledgements, no broadcasts; what the client sends waits in the kernel's buffers,
    /// what the server would send is held back. Connections opened afterwards are not frozen,
    /// so a client that notices and reconnects works again at once. Returns how many
    /// connections were frozen (0 when none is open).
    ///
    /// Hocuspocus's own keepalive still runs: a connection frozen past its next ping
    /// (30 s to 60 s) is closed by the server, as a dead one would be. Keep freezes shorter.
    pub async fn freeze(&self, id: Uuid) -> anyhow::Result<u64> {
        let v = self
            .post("freeze", json!({"document_id": id.to_string()}))
            .await?;
        count_in(&v, "frozen")
    }

    /// [`DocsServer::freeze`] for the open connections of every room.
    pub async fn freeze_all(&self) -> anyhow::Result<u64> {
        let v = self.post("freeze", json!({})).await?;
        count_in(&v, "frozen")
    }

    /// Undoes [`DocsServer::freeze`] for a room: what was held back is sent and what the
    /// client sent is read, in order, as when a network path comes back. Returns how many
    /// connections were unfrozen (those the server closed meanwhile are not counted).
    pub async fn unfreeze(&self, id: Uuid) -> anyhow::Result<u64> {
        let v = self
            .post("unfreeze", json!({"document_id": id.to_string()}))
            .await?;
        count_in(&v, "unfrozen")
    }

    /// [`DocsServer::unfreeze`] for every room.
    pub async fn unfreeze_all(&self) -> anyhow::Result<u64> {
        let v = self.post("unfreeze", json!({})).await?;
        count_in(&v, "unfrozen")
    }

    /// Changes the link reach/role, then resets the room's connections.
    pub async fn set_link(&self, id: Uuid, reach: &str, role: &str) -> anyhow::Result<()> {
        self.post(
            &format!("documents/{id}/link"),
            json!({"link_reach": reach, "link_role": role}),
        )
        .await?;
        Ok(())
    }

    /// Gives (or with `None` removes) a user's role, then resets the room's connections.
    pub async fn set_access(
        &self,
        id: Uuid,
        user_id: &str,
        role: Option<&str>,
    ) -> anyhow::Result<()> {
        self.post(
            &format!("documents/{id}/accesses"),
            json!({"user_id": user_id, "role": role}),
        )
        .await?;
        Ok(())
    }

    /// The next `count` REST API requests get 429 with `Retry-After: retry_after_secs`.
    pub async fn throttle_next(&self, count: u32, retry_after_secs: u32) -> anyhow::Result<()> {
        self.post(
            "throttle",
            json!({"count": count, "retry_after": retry_after_secs}),
        )
        .await?;
        Ok(())
    }

    /// Holds back reads of the document's stored content until [`Self::release_content`].
    pub async fn hold_content(&self, id: Uuid) -> anyhow::Result<()> {
        self.post("hold-content", json!({ "document_id": id }))
            .await?;
        Ok(())
    }

    /// Lets the held reads of the document's stored content through.
    pub async fn release_content(&self, id: Uuid) -> anyhow::Result<()> {
        self.post("release-content", json!({ "document_id": id }))
            .await?;
        Ok(())
    }

    /// Starts a scripted human client typing into a document.
    pub async fn start_typist(&self, spec: TypistSpec) -> anyhow::Result<Typist> {
        let mut body = json!({
            "document_id": spec.document_id.to_string(),
            "text": spec.text,
            "interval_ms": spec.interval_ms,
            "save": spec.save,
            "disconnect_when_done": spec.disconnect_when_done,
        });
        if let Some(b) = &spec.block_id {
            body["block_id"] = json!(b);
        }
        if let Some(c) = &spec.session_cookie {
            body["session_cookie"] = json!(c);
        }
        if let Some(c) = &spec.csrf_token {
            body["csrf_token"] = json!(c);
        }
        if let Some(n) = &spec.name {
            body["name"] = json!(n);
        }
        if let Some((min, max)) = spec.latency_ms {
            body["latency_ms"] = json!([min, max]);
            body["seed"] = json!(spec.seed);
        }
        if let Some(words) = &spec.words {
            body["words"] = serde_json::to_value(words)?;
        }
        let v = self.post("typist", body).await?;
        let id = v["typist_id"]
            .as_str()
            .ok_or_else(|| anyhow!("no typist_id in {v}"))?;
        Ok(Typist {
            id: id.to_owned(),
            base: self.url.clone(),
            http: self.http.clone(),
        })
    }

    pub async fn stats(&self) -> anyhow::Result<Stats> {
        let v = self.get("stats").await?;
        Ok(serde_json::from_value(v)?)
    }

    /// How many clocks the room's document holds (its state vector summed); `None` when no
    /// room is loaded. Cheap, unlike [`DocsServer::live`].
    pub async fn live_clocks(&self, id: Uuid) -> anyhow::Result<Option<u64>> {
        let Some(text) = self.room_get(id, "live-clocks").await? else {
            return Ok(None);
        };
        Ok(serde_json::from_str::<Value>(&text)?["clocks"].as_u64())
    }

    /// The Yjs items of each block's inline text in the room, in order: who inserted each
    /// piece of text and between what.
    pub async fn live_text_items(&self, id: Uuid) -> anyhow::Result<Vec<BlockItems>> {
        let v = self.get(&format!("documents/{id}/items")).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// The comment marks BlockNote's editor reads in the stored content and in the room, in
    /// document order.
    pub async fn comment_marks(&self, id: Uuid) -> anyhow::Result<CommentMarks> {
        let v = self.get(&format!("documents/{id}/comment-marks")).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Puts a comment mark for `thread_id` on the first occurrence of `text` in a block of the
    /// stored content, the way Docs' editor writes it (y-prosemirror names the attribute
    /// `comment--<hash>`). The room must not be loaded.
    pub async fn add_comment_mark(
        &self,
        id: Uuid,
        block_id: &str,
        text: &str,
        thread_id: &str,
        orphan: bool,
    ) -> anyhow::Result<()> {
        self.post(
            &format!("documents/{id}/comment-mark"),
            json!({"block_id": block_id, "text": text, "thread_id": thread_id, "orphan": orphan}),
        )
        .await?;
        Ok(())
    }

    /// The `commentsPing` fields (`{at, docId, threadId}`) of the awareness states known to
    /// the room: how Docs' editors tell each other to refresh a thread.
    pub async fn comments_pings(&self, id: Uuid) -> anyhow::Result<Vec<Value>> {
        Ok(self
            .awareness(id)
            .await?
            .into_iter()
            .filter_map(|entry| entry["state"].get("commentsPing").cloned())
            .filter(|ping| !ping.is_null())
            .collect())
    }

    /// The custom attributions of a document's yhub connections and REST PATCHes.
    pub async fn attributions(&self, id: Uuid) -> anyhow::Result<Attributions> {
        let v = self.get(&format!("documents/{id}/attributions")).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// `GET /collaboration/ydoc/v1/docs/<id>` (yhub) as a browser of the session `cookie`
    /// (`None`: no cookie): `Accept: application/json`, the instance's Origin. 200 answers
    /// `{"doc": "<base64 update>"}`.
    pub async fn ydoc_get(&self, id: Uuid, cookie: Option<&str>) -> anyhow::Result<YdocResponse> {
        self.ydoc_call(reqwest::Method::GET, id, cookie, None).await
    }

    /// `PATCH /collaboration/ydoc/v1/docs/<id>` (yhub) with `{"update": base64, "customAttributions": [...]}`.
    pub async fn ydoc_patch(
        &self,
        id: Uuid,
        cookie: Option<&str>,
        update: &[u8],
        custom_attributions: &[(&str, &str)],
    ) -> anyhow::Result<YdocResponse> {
        let mut body = json!({
            "update": base64::engine::general_purpose::STANDARD.encode(update),
        });
        if !custom_attributions.is_empty() {
            body["customAttributions"] = custom_attributions
                .iter()
                .map(|(k, v)| json!({"k": k, "v": v}))
                .collect();
        }
        self.ydoc_call(reqwest::Method::PATCH, id, cookie, Some(body))
            .await
    }

    async fn ydoc_call(
        &self,
        method: reqwest::Method,
        id: Uuid,
        cookie: Option<&str>,
        body: Option<Value>,
    ) -> anyhow::Result<YdocResponse> {
        let url = format!("{}/collaboration/ydoc/v1/docs/{id}", self.url);
        let mut req = self
            .http
            .request(method.clone(), &url)
            .header("Accept", "application/json")
            .header("Origin", &self.url);
        if let Some(c) = cookie {
            req = req.header("Cookie", c);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req
            .send()
            .await
            .with_context(|| format!("{method} {url}"))?;
        let status = res.status().as_u16();
        let text = res.text().await?;
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text)
                .with_context(|| format!("{method} {url}: bad JSON {text}"))?
        };
        Ok(YdocResponse { status, body })
    }

    /// Awareness states known to the room: `[{"clientId": n, "state": {...}}]` (empty when no room).
    pub async fn awareness(&self, id: Uuid) -> anyhow::Result<Vec<Value>> {
        let v = self.get(&format!("documents/{id}/awareness")).await?;
        match v {
            Value::Array(a) => Ok(a),
            other => bail!("unexpected awareness payload {other}"),
        }
    }
}

fn count_in(v: &Value, key: &str) -> anyhow::Result<u64> {
    v[key]
        .as_u64()
        .ok_or_else(|| anyhow!("no {key} count in {v}"))
}

/// Resident memory of this process in KiB (Linux; 0 elsewhere), for benchmarks.
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
