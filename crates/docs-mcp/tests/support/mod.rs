//! What the service's end-to-end tests share: a service on a temporary data directory, an
//! agent connected to it through a real MCP client (rmcp), and readings of what the test
//! server stored.

#![allow(dead_code)]

pub mod hosted;
pub mod process;

use std::sync::Arc;
use std::time::Duration;

use docs_mcp::record::Policy;
use docs_mcp::{DocsMcp, DocsService, ServiceConfig};
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use test_harness::DocsServer;
use uuid::Uuid;

pub const WAIT: Duration = Duration::from_secs(20);

pub struct Agent {
    pub client: RunningService<RoleClient, ClientConfig>,
    pub service: Arc<DocsService>,
    pub data: TempDir,
}

pub struct TempDir(pub std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn temp_dir() -> TempDir {
    let dir = std::env::temp_dir().join(format!("docs-mcp-test-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

pub fn config(server: &DocsServer, data: &std::path::Path, policy: Policy) -> ServiceConfig {
    let mut config = ServiceConfig::new(data.to_path_buf());
    config.instance = Some(docs_client::InstanceUrl::parse(server.url()).unwrap());
    config.default_policy = policy;
    config.approval_wait = Duration::from_millis(800);
    config.confirm_wait = Duration::from_secs(3);
    // Saves soon after an edit, so a test reads the stored content without a minute's wait.
    config.save_interval = Duration::from_millis(100);
    config
}

pub async fn connect(
    service: Arc<DocsService>,
    name: &str,
) -> RunningService<RoleClient, ClientConfig> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let handler = DocsMcp::new(service, "test");
    tokio::spawn(async move {
        if let Ok(running) = handler.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(name, "1.0"),
    )
    .serve(client_io)
    .await
    .unwrap()
}

pub async fn agent(server: &DocsServer, policy: Policy) -> Agent {
    let data = temp_dir();
    let service = DocsService::start(config(server, &data.0, policy))
        .await
        .unwrap();
    Agent {
        client: connect(service.clone(), "test-agent").await,
        service,
        data,
    }
}

/// An agent whose service is signed in as `user`.
pub async fn signed_in_agent(
    server: &DocsServer,
    policy: Policy,
    user: &test_harness::TestUser,
) -> Agent {
    let data = temp_dir();
    let mut config = config(server, &data.0, policy);
    config.session_cookie = Some(docs_client::Secret::new(&user.session_cookie));
    config.csrf_token = Some(docs_client::Secret::new(&user.csrf_token));
    let service = DocsService::start(config).await.unwrap();
    Agent {
        client: connect(service.clone(), "reviewer").await,
        service,
        data,
    }
}

impl Agent {
    /// Calls a tool; `Ok(structured result)` or `Err(error body {code, message, hint})`.
    pub async fn call(&self, tool: &'static str, args: Value) -> Result<Value, Value> {
        let result = self
            .client
            .call_tool(
                CallToolRequestParams::new(tool)
                    .with_arguments(args.as_object().expect("object arguments").clone()),
            )
            .await
            .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"));
        if result.is_error == Some(true) {
            let text = &result.content[0].as_text().expect("text error").text;
            let body: Value = serde_json::from_str(text).expect("JSON error body");
            return Err(body["error"].clone());
        }
        Ok(result.structured_content.expect("structured content"))
    }

    pub async fn ok(&self, tool: &'static str, args: Value) -> Value {
        self.call(tool, args)
            .await
            .unwrap_or_else(|e| panic!("{tool} failed: {e}"))
    }

    pub async fn err(&self, tool: &'static str, args: Value) -> Value {
        self.call(tool, args)
            .await
            .err()
            .unwrap_or_else(|| panic!("{tool} should have failed"))
    }
}

pub fn texts(blocks: &Value) -> Vec<String> {
    blocks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b["content"]
                .as_array()
                .map(|runs| {
                    runs.iter()
                        .map(|r| r["text"].as_str().unwrap_or_default())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

pub async fn stored_texts(server: &DocsServer, id: Uuid) -> Vec<String> {
    texts(&server.stored_settled(id).await.unwrap().blocks)
}

/// A person's own live client of the room (anonymous: the document must be publicly
/// editable).
pub async fn person_session(server: &DocsServer, id: Uuid) -> docs_client::DocumentSession {
    let human = docs_client::DocsClient::new(docs_client::ClientConfig::new(
        docs_client::InstanceUrl::parse(server.url()).unwrap(),
    ))
    .unwrap();
    docs_client::DocumentSession::open(human, id, docs_client::SessionOptions::default())
        .await
        .unwrap()
}

/// A person sets the whole text of `block` from another live client of the room (anonymous:
/// the document must be publicly editable), and the room acknowledged it.
pub async fn person_sets_text(server: &DocsServer, id: Uuid, block: &str, text: &str) {
    let session = person_session(server, id).await;
    let fragment = docs_client::blocknote::document_fragment(session.doc());
    let (block, text) = (block.to_owned(), text.to_owned());
    session
        .write(move |txn| docs_client::blocknote::set_block_text(txn, &fragment, &block, &text))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
}

/// The ids of the document's top-level blocks, as stored.
pub async fn stored_block_ids(server: &DocsServer, id: Uuid) -> Vec<String> {
    server
        .stored(id)
        .await
        .unwrap()
        .blocks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Typed bullet items nested `depth` levels deep, each holding the next and a link ("level
/// 1" holds "level 2" …): in a preview, a link's text is three levels under its block.
pub fn nested_items(depth: usize) -> Value {
    let item = |level: usize| json!({"type": "bulletListItem", "content": format!("[level {level}](https://example.org/{level})")});
    let mut block = item(depth);
    for level in (1..depth).rev() {
        let mut outer = item(level);
        outer["children"] = json!([block]);
        block = outer;
    }
    json!([block])
}

/// The text of `block` (its links' included) and of the first child of each block under it,
/// outermost first.
pub fn nested_texts(block: &Value) -> Vec<String> {
    let text = |run: &Value| -> String {
        match run["content"].as_array() {
            Some(inner) => inner.iter().filter_map(|r| r["text"].as_str()).collect(),
            None => run["text"].as_str().unwrap_or_default().to_owned(),
        }
    };
    let mut found = vec![];
    let mut at = Some(block);
    while let Some(block) = at {
        found.push(
            block["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(text)
                .collect(),
        );
        at = block["children"].get(0);
    }
    found
}
