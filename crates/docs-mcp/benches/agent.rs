//! What an agent waits for, measured the way it experiences it: the release `docs-mcp serve
//! --stdio --approval auto` as a child process, driven by an MCP client (rmcp) over its stdin
//! and stdout, against the Docs-like test server (the real Hocuspocus 3.4.4, documents
//! seeded through BlockNote). The six figures of issue 11, and the REST budget figures:
//!
//! 1. start → first `tools/list` answered: from spawning the process to the answer of the
//!    first `tools/list` (MCP handshake included); a fresh process each run, on a data
//!    directory that exists already (the first start, which creates it, is printed apart).
//! 2. first read of a 10 000-block document: `read_document` (default budget) of a document
//!    the service has not opened, from the call to its answer (REST load, WebSocket connect,
//!    sync, answer); a fresh document each run, in a service already started.
//! 3. `read_document` of a cached 1 000-block document: the same open document read again
//!    and again, with the default budget (what an agent asks first) and with the largest.
//! 4. insert → visible at another client: from the `insert_blocks` call to the moment another
//!    participant of the room has applied the Yjs update that carries the new block. That
//!    participant is a live session of this process (`docs_client::DocumentSession`, a
//!    Hocuspocus client over its own WebSocket to the room), and the moment is taken in a
//!    yrs `observe_update_v1` callback on its document, i.e. when the update is applied, not
//!    when some task polling for it wakes up. Both ends are read from this process's
//!    monotonic clock. An observer in the Node server (a JavaScript provider, or the room's
//!    own Y.Doc) would have needed timestamps of two processes compared, and the room's doc
//!    is one hop short of another client. Calls are made one after the other, each once the
//!    previous one was answered, like an agent; the answer comes once the edit is applied
//!    (acknowledged by the room; saved later), printed as `insert_answered_ms`.
//! 5. RSS of the `docs-mcp` process (`VmRSS` of `/proc/<pid>/status`) after reading 20
//!    documents of 1 000 blocks (and, in another fresh process, of 100 blocks).
//! 6. bytes the service sends for a one-word change in a 2 KB paragraph: the growth of the
//!    session's `bytes_out` (`/control/sessions`) over one `replace_text` (and one
//!    `update_block` carrying the whole text with one word changed), answered once applied.
//!    `bytes_out` counts the payloads of the WebSocket messages the session sent: the
//!    Hocuspocus frame (room name, message and sync types, length) around the Yjs update;
//!    the 40 framing bytes are printed apart. An awareness renewal (every 10 s) landing in a
//!    measured window would add to it: the median of several edits leaves it out.
//! 7. the REST budget: requests the server received for opening one document (its `stats`);
//!    50 documents opened at once (50 concurrent `get_document`) by a fresh service on a
//!    server that throttles like Docs (80 requests/min): answered, `RATE_LIMITED`, total
//!    time; and open + `get_outline` of a 50 000-block document.
//!
//! 8. a 50 000-block document a person holds in the room (an observer session opened it
//!    first), in a fresh service: the open (`get_document`, the process's first call), the
//!    whole document read page after page (`read_document` at the largest budget, from
//!    `next_block_id` on) and its calls, then inserts one after the other: each answered, the
//!    service's CPU per insert (utime + stime of `/proc/<pid>/stat` over all of them) and its
//!    RSS after the open and after each insert.
//!
//! Medians are printed with the p99 where it says something; below 100 runs, the p99 is the
//! slowest run.
//!
//! Documents are seeded as BlockNote JSON (a level-2 heading every 10 blocks, paragraphs
//! otherwise), which BlockNote turns into Yjs in 0.6 s for 10 000 blocks, where its markdown
//! import takes 13 s.
//! Processes whose rows open many documents are started apart, so that no row waits for the
//! service's own rate budget (80 REST calls a minute, like Docs) spent by another.
//!
//! `cargo bench -p docs-mcp --bench agent` — prints `name: value` lines, then a table.
//! To measure part of it, or another build: `AGENT_BENCH_ROWS=start,insert` (of `start`,
//! `reads` — rows 3, 2, 6, 7a and 7c, which share one service —, `insert`, `rss`,
//! `at-once`, `huge`), `AGENT_BENCH_INSERTS=200`, `AGENT_BENCH_BIN=/path/to/docs-mcp`, and
//! `AGENT_BENCH_WRAP=perf` with `AGENT_BENCH_WRAP_ARGS="record -g -o /tmp/p.data --"` to run
//! the service under a profiler, `AGENT_BENCH_REST_LATENCY_MS=25` to answer every REST call
//! that much later (an instance across a network; the test server's `--latency-ms`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use docs_client::{DocsClient, DocumentSession, InstanceUrl, Presence, SessionOptions};
use futures_util::future::join_all;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec, ServerOptions};
use tokio::sync::oneshot;
use uuid::Uuid;

#[path = "../tests/support/process.rs"]
mod process;

use process::{BIN, free_port, isolate};
/// The agents' bearer token of the HTTP endpoint, given so that no keyring is looked for.
const TOKEN: &str = "bench-token-0123456789abcdefghijklmnopqrstuvw";
/// What a Hocuspocus frame adds around a Yjs update: the room name (a length byte and a
/// 36-character UUID), the message type, the sync type and the update's length (one byte
/// up to 127 bytes, which a one-word change stays under).
const FRAME_BYTES: u64 = 1 + 36 + 1 + 1 + 1;

const STARTS: usize = 15;
const FIRST_READS: usize = 8;
const CACHED_READS: usize = 100;
const INSERTS: usize = 40;
const ONE_WORD_EDITS: usize = 5;
const OPEN_AT_ONCE: usize = 50;
const HUGE_BLOCKS: usize = 50_000;
const HUGE_INSERTS: usize = 10;

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

fn median(v: &[f64]) -> f64 {
    let v = sorted(v.to_vec());
    v[v.len() / 2]
}

fn p99(v: &[f64]) -> f64 {
    let v = sorted(v.to_vec());
    v[((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1]
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// A run of inline text in BlockNote JSON.
fn text(text: &str, bold: bool) -> Value {
    json!({"type": "text", "text": text, "styles": if bold { json!({"bold": true}) } else { json!({}) }})
}

/// BlockNote blocks: a level-2 heading every 10 blocks, paragraphs with a bold word otherwise.
fn blocks_of(count: usize) -> Value {
    (0..count)
        .map(|i| {
            let id = Uuid::new_v4().to_string();
            if i % 10 == 0 {
                json!({"id": id, "type": "heading", "props": {"level": 2},
                       "content": [text(&format!("Section {i}"), false)], "children": []})
            } else {
                json!({"id": id, "type": "paragraph", "children": [], "content": [
                    text(&format!("Paragraph {i} with "), false),
                    text("some", true),
                    text(" ordinary words in it.", false),
                ]})
            }
        })
        .collect()
}

async fn seed(server: &DocsServer, blocks: usize) -> String {
    server
        .create_document(DocumentSpec::new(&format!("{blocks} blocks")).blocks(blocks_of(blocks)))
        .await
        .unwrap()
        .to_string()
}

/// The first line of `/proc/loadavg`: how busy the machine was.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The rows asked for (`AGENT_BENCH_ROWS`; all when unset).
fn wants(row: &str) -> bool {
    std::env::var("AGENT_BENCH_ROWS")
        .map(|rows| rows.split(',').any(|r| r.trim() == row))
        .unwrap_or(true)
}

/// `AGENT_BENCH_REST_LATENCY_MS`: each REST answer of the test server waits this long, as an
/// instance a round trip away would.
fn rest_latency() -> Option<Duration> {
    let ms = std::env::var("AGENT_BENCH_REST_LATENCY_MS").ok()?;
    Some(Duration::from_millis(
        ms.parse()
            .expect("AGENT_BENCH_REST_LATENCY_MS: milliseconds"),
    ))
}

/// `docs-mcp` (`AGENT_BENCH_BIN`, else the one cargo built), under `AGENT_BENCH_WRAP` when set.
fn service_command() -> tokio::process::Command {
    let bin = std::env::var("AGENT_BENCH_BIN").unwrap_or_else(|_| BIN.to_owned());
    match std::env::var("AGENT_BENCH_WRAP") {
        Ok(wrapper) => {
            let mut cmd = tokio::process::Command::new(wrapper);
            let args = std::env::var("AGENT_BENCH_WRAP_ARGS").unwrap_or_default();
            cmd.args(args.split_whitespace()).arg(bin);
            cmd
        }
        Err(_) => tokio::process::Command::new(bin),
    }
}

/// One `docs-mcp serve --stdio` child process and the MCP client talking to it.
struct Agent {
    client: RunningService<RoleClient, ClientConfig>,
    pid: u32,
    port: u16,
    data_dir: PathBuf,
    http: reqwest::Client,
}

impl Agent {
    /// Spawns the service and waits for the answer to a first `tools/list`; returns the
    /// milliseconds from the spawn to that answer.
    async fn start(instance: &str, home: &Path, data_dir: &Path) -> (Agent, f64) {
        let port = free_port();
        let start = Instant::now();
        let transport = TokioChildProcess::builder(service_command().configure(|cmd| {
            // Nothing under the real home, no keyring, no settings from the environment.
            isolate(cmd, home);
            cmd.env("DOCS_MCP_TOKEN", TOKEN)
                .args([
                    "serve",
                    "--stdio",
                    "--approval",
                    "auto",
                    "--instance",
                    instance,
                ])
                .arg("--data-dir")
                .arg(data_dir)
                .args(["--listen", &format!("127.0.0.1:{port}")]);
        }))
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
        .0;
        let pid = transport.id().unwrap();
        let client = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("agent-bench", "1"),
        )
        .serve(transport)
        .await
        .unwrap();
        assert!(!client.list_all_tools().await.unwrap().is_empty());
        let elapsed = ms(start);
        let agent = Agent {
            client,
            pid,
            port,
            data_dir: data_dir.to_owned(),
            http: reqwest::Client::new(),
        };
        (agent, elapsed)
    }

    /// Calls a tool: its structured result, or the error code of a failed call.
    async fn call(&self, tool: &'static str, args: Value) -> Result<Value, String> {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        let result = self
            .client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
            .await
            .unwrap();
        if result.is_error == Some(true) {
            let body: String = result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect();
            let code = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| v["error"]["code"].as_str().map(str::to_owned));
            return Err(code.unwrap_or(body));
        }
        Ok(result.structured_content.unwrap_or(Value::Null))
    }

    /// [`Agent::call`] of a call that must succeed.
    async fn ok(&self, tool: &'static str, args: Value) -> Value {
        match self.call(tool, args).await {
            Ok(value) => value,
            Err(code) => panic!("{tool} failed: {code}"),
        }
    }

    /// Resident memory of the service process, in KiB.
    fn rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.pid))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// CPU time the service process has used (user and system), in milliseconds.
    fn cpu_ms(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).unwrap_or_default();
        // Fields after the command name (which may hold spaces), from the last ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .collect();
        let ticks: u64 =
            fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0);
        // (the kernel's USER_HZ is 100 on every Linux this runs on)
        ticks as f64 * 10.0
    }

    /// What the document's session has sent on its WebSocket, from the control API (with
    /// the control token the service publishes in its data directory).
    async fn bytes_out(&self, document: &str) -> u64 {
        let token = std::fs::read_to_string(self.data_dir.join("control-token")).unwrap();
        let body: Value = self
            .http
            .get(format!("http://127.0.0.1:{}/control/sessions", self.port))
            .bearer_auth(token.trim())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["document_id"] == document)
            .and_then(|s| s["bytes_out"].as_u64())
            .expect("the document's session is open")
    }

    /// Ends the MCP session: stdin closes and the service shuts down (awaited).
    async fn stop(self) {
        self.client.cancel().await.unwrap();
    }
}

/// A participant waiting for a given Yjs update: the text it looks for, and where to say when.
type Probe = (Vec<u8>, oneshot::Sender<Instant>);

/// Another participant of a document's room: a live session of this process that notes when
/// the update carrying an awaited text is applied to its document.
struct Observer {
    session: DocumentSession,
    probe: Arc<Mutex<Option<Probe>>>,
}

impl Observer {
    async fn join(server: &DocsServer, document: &str) -> Observer {
        let mut config = docs_client::ClientConfig::new(InstanceUrl::parse(server.url()).unwrap());
        config.requests_per_minute = 100_000;
        let options = SessionOptions {
            presence: Presence::new("observer"),
            sync_timeout: Duration::from_secs(120),
            ..SessionOptions::default()
        };
        let session = DocumentSession::open(
            DocsClient::new(config).unwrap(),
            document.parse().unwrap(),
            options,
        )
        .await
        .unwrap();
        let probe: Arc<Mutex<Option<Probe>>> = Arc::default();
        let awaited = probe.clone();
        session
            .doc()
            .observe_update_v1("agent-bench", move |_, event| {
                let applied = Instant::now();
                let mut awaited = awaited.lock().unwrap();
                // Inserted text travels as plain UTF-8 in a v1 update.
                if let Some((text, _)) = awaited.as_ref()
                    && event.update.windows(text.len()).any(|w| w == text)
                    && let Some((_, seen)) = awaited.take()
                {
                    let _ = seen.send(applied);
                }
            })
            .unwrap();
        Observer { session, probe }
    }

    /// The moment the update carrying `text` will be applied here.
    fn await_text(&self, text: &str) -> oneshot::Receiver<Instant> {
        let (seen, when) = oneshot::channel();
        *self.probe.lock().unwrap() = Some((text.as_bytes().to_vec(), seen));
        when
    }
}

/// Figures kept for the closing table.
#[derive(Default)]
struct Table(Vec<(String, String)>);

impl Table {
    fn row(&mut self, what: &str, figure: String) {
        println!("{what}: {figure}");
        self.0.push((what.to_owned(), figure));
    }
}

#[tokio::main]
async fn main() {
    println!("load_average_at_start: {}", load_average());
    let server = DocsServer::start_with(ServerOptions {
        throttle_rate: Some(0),
        latency: rest_latency(),
        ..ServerOptions::default()
    })
    .await
    .expect("the test server starts (run `npm ci --prefix tests/docs-server` first)");
    let home = std::env::temp_dir().join(format!("docs-mcp-agent-bench-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&home).unwrap();
    let mut table = Table::default();

    if wants("start") {
        // 1. start → first tools/list answered.
        let data_dir = home.join("starts");
        let (agent, cold) = Agent::start(server.url(), &home, &data_dir).await;
        agent.stop().await;
        let mut starts = vec![];
        for _ in 0..STARTS {
            let (agent, elapsed) = Agent::start(server.url(), &home, &data_dir).await;
            starts.push(elapsed);
            agent.stop().await;
        }
        table.row(
            "start_to_first_tools_list_ms",
            format!(
                "{:.1} (p99 {:.1}; first start, creating the data directory: {cold:.1}), n={STARTS}",
                median(&starts),
                p99(&starts)
            ),
        );
    }

    if wants("reads") {
        let (agent, _) = Agent::start(server.url(), &home, &home.join("main")).await;

        // 7a. REST requests spent by opening one document: the first open of a process also
        // asks for the instance's configuration (once). The service also counts one call of its
        // budget per WebSocket connect, for the backend call Docs' collaboration server makes.
        let requests = async || server.stats().await.unwrap().requests;
        let cached = seed(&server, 1_000).await;
        let mut opens = vec![];
        for document in [cached.clone(), seed(&server, 1_000).await] {
            let before = requests().await;
            agent
                .ok("get_document", json!({"document": document}))
                .await;
            opens.push(requests().await - before);
        }
        let before = requests().await;
        agent.ok("read_document", json!({"document": cached})).await;
        table.row(
            "rest_requests_to_open_one_document",
            format!(
                "{} ({} for the first of the process; then {} for a read of it)",
                opens[1],
                opens[0],
                requests().await - before
            ),
        );

        // 3. read_document of a cached 1 000-block document.
        for (name, args) in [
            ("read_cached_1000_blocks_ms", json!({"document": cached})),
            (
                "read_cached_1000_blocks_whole_ms",
                json!({"document": cached, "max_chars": 100_000}),
            ),
        ] {
            let mut reads = vec![];
            let mut chars = 0;
            for _ in 0..CACHED_READS {
                let start = Instant::now();
                let page = agent.ok("read_document", args.clone()).await;
                reads.push(ms(start));
                chars = page["markdown"].as_str().unwrap().chars().count();
            }
            table.row(
                name,
                format!(
                    "{:.1} (p99 {:.1}; {chars} characters of markdown), n={CACHED_READS}",
                    median(&reads),
                    p99(&reads)
                ),
            );
        }

        // 2. first read of a 10 000-block document.
        let mut first_reads = vec![];
        let mut document = String::new();
        for _ in 0..FIRST_READS {
            document = seed(&server, 10_000).await;
            let start = Instant::now();
            agent
                .ok("read_document", json!({"document": document}))
                .await;
            first_reads.push(ms(start));
        }
        let last = agent
            .ok("get_document", json!({"document": document}))
            .await;
        assert_eq!(last["blocks"], 10_000, "{last}");
        table.row(
            "first_read_10000_blocks_ms",
            format!(
                "{:.1} (p99 {:.1}), n={FIRST_READS}",
                median(&first_reads),
                p99(&first_reads)
            ),
        );

        // 6. bytes sent for a one-word change in a 2 KB paragraph.
        let words: Vec<String> = (0..300).map(|i| format!("word{i}")).collect();
        let (head, tail) = words.split_at(150);
        let paragraph = |word: &str| format!("{} {word} {}", head.join(" "), tail.join(" "));
        let document = server
            .create_document(DocumentSpec::new("2 KB").markdown(&paragraph("pivotal")))
            .await
            .unwrap()
            .to_string();
        let block = agent
            .ok(
                "read_document",
                json!({"document": document, "anchors": false}),
            )
            .await["block_ids"][0]
            .as_str()
            .unwrap()
            .to_owned();
        let mut replaced = vec![];
        let mut updated = vec![];
        let mut word = "pivotal";
        for i in 0..2 * ONE_WORD_EDITS {
            let other = if word == "pivotal" {
                "central"
            } else {
                "pivotal"
            };
            // An agent rewrites what it read: a rewrite is merged with what changed since.
            agent
                .ok("read_document", json!({"document": document}))
                .await;
            let before = agent.bytes_out(&document).await;
            let result = if i % 2 == 0 {
                agent
                    .ok(
                        "replace_text",
                        json!({"document": document, "old_text": word, "new_text": other}),
                    )
                    .await
            } else {
                agent
                    .ok(
                        "update_block",
                        json!({"document": document, "block_id": block, "text": paragraph(other)}),
                    )
                    .await
            };
            assert_eq!(result["status"], "applied", "{result}");
            let sent = (agent.bytes_out(&document).await - before) as f64;
            let edits = if i % 2 == 0 {
                &mut replaced
            } else {
                &mut updated
            };
            edits.push(sent);
            word = other;
        }
        for (name, sent) in [
            ("one_word_change_bytes_replace_text", &replaced),
            ("one_word_change_bytes_update_block", &updated),
        ] {
            let sent = median(sent) as u64;
            table.row(
                name,
                format!(
                    "{sent} (the Yjs update {} B + the Hocuspocus frame {FRAME_BYTES} B; paragraph of {} B), n={ONE_WORD_EDITS}",
                    sent - FRAME_BYTES,
                    paragraph(word).len()
                ),
            );
        }

        // 7c. open and outline of a 50 000-block document.
        let huge = seed(&server, 50_000).await;
        let start = Instant::now();
        let opened = agent.ok("get_document", json!({"document": huge})).await;
        let open = ms(start);
        assert_eq!(opened["blocks"], 50_000, "{opened}");
        let start = Instant::now();
        agent.ok("get_outline", json!({"document": huge})).await;
        let outline = ms(start);
        table.row(
            "open_50000_blocks_ms",
            format!("{open:.0}, then get_outline {outline:.0}, n=1"),
        );
        agent.stop().await;
    }

    if wants("insert") {
        // 4. insert → visible at another client, in a service of its own.
        let (agent, _) = Agent::start(server.url(), &home, &home.join("inserts")).await;
        let document = seed(&server, 1_000).await;
        let observer = Observer::join(&server, &document).await;
        agent
            .ok("read_document", json!({"document": document}))
            .await;
        let inserts = std::env::var("AGENT_BENCH_INSERTS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(INSERTS);
        let mut visible = vec![];
        let mut answered = vec![];
        for i in 0..inserts {
            let marker = Uuid::new_v4().simple().to_string();
            let seen = observer.await_text(&marker);
            let start = Instant::now();
            let result = agent
                .ok(
                    "insert_blocks",
                    json!({"document": document, "position": {"at": "end"},
                           "markdown": format!("Probe {i} {marker}")}),
                )
                .await;
            answered.push(ms(start));
            assert_eq!(result["status"], "applied", "{result}");
            let seen = tokio::time::timeout(Duration::from_secs(10), seen)
                .await
                .expect("the other client sees the insert")
                .unwrap();
            visible.push(seen.duration_since(start).as_secs_f64() * 1000.0);
        }
        table.row(
            "insert_visible_at_other_client_ms",
            format!(
                "{:.1} (p99 {:.1}; in a 1 000-block document), n={inserts}",
                median(&visible),
                p99(&visible)
            ),
        );
        table.row(
            "insert_answered_ms",
            format!(
                "{:.1} (p99 {:.1}; saved together {:?} after the first), n={inserts}",
                median(&answered),
                p99(&answered),
                SessionOptions::default().save_interval
            ),
        );
        observer.session.close().await.unwrap();
        agent.stop().await;
    }

    if wants("rss") {
        // 5. RSS after reading 20 documents, in a fresh service per document size.
        let mut rss = vec![];
        for blocks in [1_000, 100] {
            let mut documents = vec![];
            for _ in 0..20 {
                documents.push(seed(&server, blocks).await);
            }
            let data_dir = home.join(format!("memory-{blocks}"));
            let (agent, _) = Agent::start(server.url(), &home, &data_dir).await;
            let at_start = agent.rss_kib();
            for document in &documents {
                agent
                    .ok("read_document", json!({"document": document}))
                    .await;
            }
            rss.push((blocks, at_start, agent.rss_kib()));
            agent.stop().await;
        }
        let mib = |kib: u64| kib as f64 / 1024.0;
        table.row(
            "rss_after_reading_20_documents_mib",
            format!(
                "{:.1} ({} blocks each; {:.1} with {} blocks each; {:.1} after start)",
                mib(rss[0].2),
                rss[0].0,
                mib(rss[1].2),
                rss[1].0,
                mib(rss[0].1)
            ),
        );
    }
    if wants("huge") {
        // 8. a 50 000-block document a person holds in the room, in a fresh service.
        let huge = seed(&server, HUGE_BLOCKS).await;
        let observer = Observer::join(&server, &huge).await;
        // The room holds the person's document before the agent comes (the server took in
        // what the person's client pushed, a second of its time for 50 000 blocks).
        let pushed: u64 =
            yrs::ReadTxn::state_vector(&yrs::Transact::transact(observer.session.doc()))
                .iter()
                .map(|(_, clock)| u64::from(*clock))
                .sum();
        let held = async || server.live_clocks(huge.parse().unwrap()).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        while held().await != Some(pushed) {
            assert!(
                Instant::now() < deadline,
                "the room never held the document"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let (agent, _) = Agent::start(server.url(), &home, &home.join("huge")).await;
        let at_start = agent.rss_kib();
        let start = Instant::now();
        let opened = agent.ok("get_document", json!({"document": huge})).await;
        let open = ms(start);
        assert_eq!(opened["blocks"], HUGE_BLOCKS, "{opened}");
        let after_open = agent.rss_kib();
        let start = Instant::now();
        let mut calls = 0;
        let mut from: Option<String> = None;
        let mut chars = 0;
        loop {
            let mut args = json!({"document": huge, "max_chars": 100_000});
            if let Some(block) = &from {
                args["from_block"] = json!(block);
            }
            let page = agent.ok("read_document", args).await;
            calls += 1;
            chars += page["markdown"].as_str().map_or(0, str::len);
            match page["next_block_id"].as_str() {
                Some(next) if page["truncated"] == true => from = Some(next.to_owned()),
                _ => break,
            }
        }
        let whole = ms(start);
        let mut answered = vec![];
        let mut rss = vec![];
        let mut cpu_each = vec![];
        let cpu_before = agent.cpu_ms();
        for i in 0..HUGE_INSERTS {
            let cpu_at = agent.cpu_ms();
            let start = Instant::now();
            let result = agent
                .ok(
                    "insert_blocks",
                    json!({"document": huge, "position": {"at": "end"},
                           "markdown": format!("Probe {i} in a large document")}),
                )
                .await;
            answered.push(ms(start));
            assert_eq!(result["status"], "applied", "{result}");
            // What the insert leaves to do after its answer (the next fork) is done by the next.
            tokio::time::sleep(Duration::from_millis(1_500)).await;
            cpu_each.push(agent.cpu_ms() - cpu_at);
            rss.push(agent.rss_kib());
        }
        let cpu = (agent.cpu_ms() - cpu_before) / HUGE_INSERTS as f64;
        let mib = |kib: u64| kib as f64 / 1024.0;
        table.row(
            "huge_open_ms",
            format!("{open:.0} ({HUGE_BLOCKS} blocks, a person in the room, the process's first call), n=1"),
        );
        table.row(
            "huge_whole_read_ms",
            format!(
                "{whole:.0} ({calls} calls of 100 000 characters at most, {chars} characters), n=1"
            ),
        );
        table.row(
            "huge_insert_answered_ms",
            format!(
                "{:.1} (p99 {:.1}), service CPU per insert {cpu:.1} ms (each, with what it leaves to do: {}), n={HUGE_INSERTS}",
                median(&answered),
                p99(&answered),
                cpu_each.iter().map(|c| format!("{c:.0}")).collect::<Vec<_>>().join(" ")
            ),
        );
        table.row(
            "huge_rss_mib",
            format!(
                "{:.0} after start, {:.0} after the open, after each insert: {}",
                mib(at_start),
                mib(after_open),
                rss.iter()
                    .map(|k| format!("{:.0}", mib(*k)))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        );
        observer.session.close().await.unwrap();
        agent.stop().await;
    }

    drop(server);

    if wants("at-once") {
        // 7b. 50 documents opened at once, on a server that throttles like Docs.
        let throttled = DocsServer::start_with(ServerOptions::default())
            .await
            .unwrap();
        let mut documents = vec![];
        for _ in 0..OPEN_AT_ONCE {
            documents.push(seed(&throttled, 10).await);
        }
        let (agent, _) = Agent::start(throttled.url(), &home, &home.join("at-once")).await;
        let before = throttled.stats().await.unwrap();
        let start = Instant::now();
        let opens = join_all(
            documents
                .iter()
                .map(|d| agent.call("get_document", json!({"document": d}))),
        )
        .await;
        let total = ms(start);
        let after = throttled.stats().await.unwrap();
        let answered = opens.iter().filter(|r| r.is_ok()).count();
        let limited = opens
            .iter()
            .filter(|r| matches!(r, Err(code) if code == "RATE_LIMITED"))
            .count();
        table.row(
            "open_50_documents_at_once",
            format!(
                "{answered} answered, {limited} RATE_LIMITED, {} other errors in {total:.0} ms; {} REST requests, {} of them refused 429",
                OPEN_AT_ONCE - answered - limited,
                after.requests - before.requests,
                after.throttled - before.throttled
            ),
        );
        agent.stop().await;
    }
    let _ = std::fs::remove_dir_all(&home);

    println!("\n| what an agent waits for | docs-mcp |\n|---|---|");
    for (what, figure) in &table.0 {
        println!("| {what} | {figure} |");
    }
}
