//! End to end with the official TypeScript MCP SDK (`@modelcontextprotocol/sdk`, pinned in
//! `tests/mcp-client-ts`), the library most real agents are built on: a scripted agent
//! (`tests/mcp-client-ts/client.mjs`) talks to the service over Streamable HTTP and over
//! stdio, and the SDK checks protocol negotiation and every structured result against the
//! tool's output schema. What lands is judged by BlockNote on the Docs-like test server.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use docs_client::InstanceUrl;

mod support;
use docs_mcp::record::Policy;
use docs_mcp::{BearerToken, DocsMcp, DocsService, ServiceConfig};
use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec, repo_root};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

const TOKEN: &str = "ts-sdk-token-0123456789abcdefghijklmnopqrstuv";
const BIN: &str = env!("CARGO_BIN_EXE_docs-mcp");
const CLIENT_TIMEOUT: Duration = Duration::from_secs(90);

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("docs-mcp-ts-sdk-{name}-{}", Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The client project; fails (never skips) when its packages are not installed.
fn client_dir() -> PathBuf {
    let dir = repo_root().join("tests/mcp-client-ts");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "the TypeScript SDK client's packages are missing ({}): run npm ci --prefix tests/mcp-client-ts",
        dir.join("node_modules").display()
    );
    dir
}

/// The service's tool names, sorted.
async fn service_tool_names() -> Vec<String> {
    let data = TempDir::new("names");
    let service = DocsService::start(ServiceConfig::new(data.0.clone()))
        .await
        .unwrap();
    let mut names: Vec<String> = DocsMcp::new(service.clone(), "names")
        .tools()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    service.shutdown().await;
    names
}

async fn seed(server: &DocsServer) -> Uuid {
    server
        .create_document(DocumentSpec::new("Plan").markdown("# Plan\n\nFirst paragraph."))
        .await
        .unwrap()
}

/// Runs `node client.mjs <args>` and returns its one JSON summary line.
async fn run_client(args: &[&str], home: Option<&Path>) -> Value {
    let dir = client_dir();
    let mut cmd = tokio::process::Command::new("node");
    cmd.current_dir(&dir)
        .arg(dir.join("client.mjs"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(home) = home {
        // What the client passes on to docs-mcp: nothing under the real home, no keyring.
        support::process::isolate(&mut cmd, home);
        cmd.env("DOCS_MCP_TOKEN", TOKEN);
    }
    let output = tokio::time::timeout(CLIENT_TIMEOUT, cmd.output())
        .await
        .expect("the TypeScript client did not finish in time")
        .expect("node could not be started (is Node.js installed?)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the TypeScript client failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        output.status
    );
    // The SDK compiles each output schema with Ajv, which warns on the console about every
    // format JSON Schema does not define.
    assert!(
        !stderr.contains("unknown format"),
        "the client warned about our schemas:\n{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "one summary line expected; stderr: {stderr}"
    );
    serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{e}: {}", lines[0]))
}

/// The summary and the document as BlockNote reads it back.
async fn check(summary: &Value, server: &DocsServer, doc: Uuid) {
    let tools: Vec<String> = serde_json::from_value(summary["tools"].clone()).unwrap();
    assert_eq!(tools, service_tool_names().await);
    assert_eq!(summary["outline_title"], "Plan");
    assert!(
        summary["revision"].as_str().is_some_and(|r| !r.is_empty()),
        "{summary}"
    );
    assert_eq!(summary["insert_status"], "applied");
    let new_ids = summary["new_block_ids"].as_array().expect("new_block_ids");
    assert_eq!(new_ids.len(), 1, "{summary}");
    assert_eq!(summary["error_code"], "TEXT_NOT_FOUND");
    assert_eq!(summary["server_name"], "lasuite-docs-mcp");

    let stored = server.stored_settled(doc).await.unwrap();
    let blocks = stored.blocks.as_array().unwrap();
    let last = blocks.last().unwrap();
    assert_eq!(last["id"], new_ids[0], "{}", stored.blocks);
    assert_eq!(last["type"], "paragraph");
    assert_eq!(
        last["content"],
        json!([
            {"type": "text", "text": "Written by the ", "styles": {}},
            {"type": "text", "text": "TypeScript", "styles": {"bold": true}},
            {"type": "text", "text": " SDK", "styles": {}}
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typescript_sdk_over_streamable_http() {
    client_dir();
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server).await;

    let data = TempDir::new("http");
    let mut config = ServiceConfig::new(data.0.join("data"));
    config.instance = Some(InstanceUrl::parse(server.url()).unwrap());
    config.default_policy = Policy::Auto;
    config.save_interval = Duration::from_millis(100);
    let service: Arc<DocsService> = DocsService::start(config).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let shutdown = CancellationToken::new();
    tokio::spawn(docs_mcp::serve_http(
        service.clone(),
        BearerToken::from_string(TOKEN).unwrap(),
        listener,
        shutdown.clone(),
    ));

    let url = format!("http://127.0.0.1:{port}/mcp");
    let summary = run_client(&["http", &url, TOKEN, &doc.to_string()], None).await;
    check(&summary, &server, doc).await;
    // The edit is attributed to the SDK client by the name it gave.
    let edits = service
        .edits(&docs_mcp::record::EditFilter::default())
        .await
        .unwrap();
    assert_eq!(edits.len(), 1, "{edits:?}");
    assert_eq!(edits[0].agent.name, "ts-sdk-agent");
    assert_eq!(edits[0].agent.connection, "http");

    shutdown.cancel();
    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typescript_sdk_over_stdio() {
    client_dir();
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server).await;
    let home = TempDir::new("stdio");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let data_dir = home.0.join("service");
    let summary = run_client(
        &[
            "stdio",
            BIN,
            &doc.to_string(),
            "--",
            "serve",
            "--stdio",
            "--approval",
            "auto",
            "--instance",
            server.url(),
            "--data-dir",
            data_dir.to_str().unwrap(),
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--save-interval",
            "0.1",
        ],
        Some(&home.0),
    )
    .await;
    check(&summary, &server, doc).await;
}
