//! The transports with real sockets and processes: the HTTP endpoint's security layer, the
//! control API, `docs-mcp serve --stdio`, `docs-mcp bridge` and the `docs-mcp edits` CLI.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use docs_mcp::record::{Channel, EditStatus, Policy};
use docs_mcp::{BearerToken, Outcome, PersonAt};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use test_harness::{Collaboration, DocsServer, DocumentSpec};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use uuid::Uuid;

mod support;
use support::hosted::{Hosted, TOKEN, cli, cli_in_terminal, control, temp_dir};
use support::process::{BIN, free_port, isolate};

const TOOLS: [&str; 24] = [
    "add_comment",
    "apply_edits",
    "create_document",
    "delete_blocks",
    "edit_status",
    "get_changes",
    "get_document",
    "get_history",
    "get_outline",
    "insert_blocks",
    "list_comments",
    "list_documents",
    "list_sessions",
    "move_block",
    "my_edits",
    "read_document",
    "reopen_comment",
    "replace_text",
    "reply_comment",
    "resolve_comment",
    "search",
    "undo_edit",
    "update_block",
    "withdraw_edit",
];

fn client_info() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("transport-test", "1.0"),
    )
}

async fn http_client(url: &str, token: &str) -> RunningService<RoleClient, ClientConfig> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token),
    );
    client_info().serve(transport).await.unwrap()
}

async fn tool_names(client: &RunningService<RoleClient, ClientConfig>) -> Vec<String> {
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    names
}

async fn call(
    client: &RunningService<RoleClient, ClientConfig>,
    tool: &'static str,
    args: Value,
) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap()
}

fn structured(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "tool error: {result:?}");
    result
        .structured_content
        .clone()
        .expect("structured content")
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One raw HTTP/1.1 request; returns the status code and the body.
async fn raw(port: u16, request_line: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut text = format!("{request_line} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("Content-Length: 0\r\n\r\n");
    stream.write_all(text.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        // One chunk is enough for these small bodies.
        let body = body.split_once("\r\n").map(|(_, rest)| rest).unwrap_or("");
        let body = body.split("\r\n").next().unwrap_or("");
        return (status, body.to_owned());
    }
    (status, body.to_owned())
}

async fn seed(server: &DocsServer, title: &str) -> Uuid {
    server
        .create_document(DocumentSpec::new(title).markdown("First paragraph."))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_endpoint_refuses_missing_or_wrong_tokens_and_foreign_hosts_and_origins() {
    let hosted = Hosted::start(None).await;
    let port = hosted.port;
    let host = format!("127.0.0.1:{port}");
    let init = "POST /mcp";

    let (status, body) = raw(port, init, &[("Host", &host)]).await;
    assert_eq!(status, 401);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], "UNAUTHORIZED");
    assert_eq!(body["error"]["message"], "a bearer token is required");

    let response = reqwest::Client::new()
        .get(format!("{}/control/edits", hosted.base()))
        .bearer_auth("wrong-token")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["message"], "the bearer token is wrong");

    let auth = format!("Bearer {TOKEN}");
    let (status, body) = raw(
        port,
        "GET /control/edits",
        &[
            ("Host", &host),
            ("Authorization", &auth),
            ("Origin", "https://evil.example"),
        ],
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["code"],
        "FORBIDDEN_ORIGIN"
    );

    let evil_host = format!("evil.example:{port}");
    let (status, body) = raw(
        port,
        "GET /control/edits",
        &[("Host", &evil_host), ("Authorization", &auth)],
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["code"],
        "FORBIDDEN_HOST"
    );
    // /health needs no token but passes the same Host check.
    let (status, _) = raw(port, "GET /health", &[("Host", &evil_host)]).await;
    assert_eq!(status, 403);
    // A loopback origin of the same port is fine; another port is not.
    let (status, _) = raw(
        port,
        "GET /health",
        &[
            ("Host", &host),
            ("Origin", &format!("http://localhost:{port}")),
        ],
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = raw(
        port,
        "GET /health",
        &[("Host", &host), ("Origin", "http://localhost:1")],
    )
    .await;
    assert_eq!(status, 403);

    let (status, body) = raw(port, "GET /health", &[("Host", &host)]).await;
    assert_eq!(status, 200);
    let health: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(health["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(health["pending_edits"], 0);
    assert_eq!(health["paused"], false);

    let client = http_client(&format!("{}/mcp", hosted.base()), TOKEN).await;
    assert_eq!(tool_names(&client).await, TOOLS);
    client.cancel().await.unwrap();
    hosted.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replaced_token_is_refused_at_once_and_the_new_one_accepted() {
    let hosted = Hosted::start(None).await;
    // Whether `/mcp` lets the token through (an initialize answered, not a 401).
    let accepted = |token: String| {
        let url = format!("{}/mcp", hosted.base());
        async move {
            let status = reqwest::Client::new()
                .post(url)
                .bearer_auth(token)
                .header("Accept", "application/json, text/event-stream")
                .json(
                    &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}}),
                )
                .send()
                .await
                .unwrap()
                .status()
                .as_u16();
            assert!(status == 200 || status == 401, "{status}");
            status == 200
        }
    };
    assert!(accepted(TOKEN.to_owned()).await);
    let fresh = BearerToken::generate();
    hosted.token.replace(fresh.clone());
    assert!(!accepted(TOKEN.to_owned()).await);
    assert!(accepted(fresh.expose().to_owned()).await);
    assert_eq!(hosted.token.current(), fresh);
    hosted.stop().await;
}

/// Only a person decides: everything an agent's configuration holds (the endpoint and its
/// bearer token) reaches no route that decides an edit, changes a policy or pauses agents.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_agents_token_can_neither_decide_nor_change_policies_nor_pause() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Guarded doc").await;
    let hosted = Hosted::start(Some(server.url())).await;
    let client = http_client(&format!("{}/mcp", hosted.base()), TOKEN).await;
    let pending = structured(
        &call(
            &client,
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Sneaky."}),
        )
        .await,
    );
    assert_eq!(pending["status"], "pending");
    let id = pending["edit_id"].as_str().unwrap().to_owned();
    let base = hosted.base();
    let attempts = [
        (
            reqwest::Method::POST,
            format!("{base}/control/edits/{id}/approve"),
            None,
        ),
        (
            reqwest::Method::POST,
            format!("{base}/control/edits/{id}/reject"),
            Some(json!({"comment": "x"})),
        ),
        (
            reqwest::Method::PUT,
            format!("{base}/control/policies"),
            Some(json!({"document_id": null, "policy": "auto"})),
        ),
        (
            reqwest::Method::PUT,
            format!("{base}/control/policies"),
            Some(json!({"document_id": doc.to_string(), "policy": "auto"})),
        ),
        (
            reqwest::Method::POST,
            format!("{base}/control/pause"),
            Some(json!({"paused": true})),
        ),
        (
            reqwest::Method::POST,
            format!("{base}/control/pause"),
            Some(json!({"paused": false})),
        ),
        (reqwest::Method::GET, format!("{base}/control/edits"), None),
        (
            reqwest::Method::GET,
            format!("{base}/control/policies"),
            None,
        ),
        (
            reqwest::Method::GET,
            format!("{base}/control/sessions"),
            None,
        ),
        (
            reqwest::Method::POST,
            format!("{base}/control/handover"),
            None,
        ),
        (reqwest::Method::POST, format!("{base}/control"), None),
    ];
    for (method, url, body) in attempts {
        let (status, answer) = control(method.clone(), url.clone(), Some(TOKEN), body).await;
        assert_eq!(status, 403, "{method} {url}: {answer}");
        assert_eq!(
            answer["error"]["code"], "AGENT_TOKEN_REFUSED",
            "{method} {url}"
        );
    }
    // Nothing changed.
    let record = hosted.service.edit(id.parse().unwrap()).await.unwrap();
    assert_eq!(record.status, EditStatus::Pending);
    assert_eq!(
        hosted.service.policy_for(doc).await.unwrap(),
        Policy::Review
    );
    assert!(!hosted.service.is_paused());
    assert_eq!(
        server.stored_settled(doc).await.unwrap().markdown,
        "First paragraph.\n"
    );

    // The CLI with only the agent's token (no access to the service's data directory) fails.
    let home = temp_dir("agent-cli");
    let (ok, _, stderr) = cli(&home, &home, &["edits", "approve", &id, "--url", &base]).await;
    assert!(!ok, "{stderr}");
    assert_eq!(
        hosted
            .service
            .edit(id.parse().unwrap())
            .await
            .unwrap()
            .status,
        EditStatus::Pending
    );
    // The control token is the person's: it opens /control, not /mcp.
    let (status, _) = control(
        reqwest::Method::GET,
        format!("{base}/control/edits"),
        Some(&hosted.control()),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = control(
        reqwest::Method::POST,
        format!("{base}/mcp"),
        Some(&hosted.control()),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 401);
    // ... and it is not what `docs-mcp token --show` prints.
    let (ok, stdout, _) = cli(&home, &hosted.data_dir(), &["token", "--show"]).await;
    assert!(ok);
    assert!(!stdout.contains(&hosted.control()), "{stdout}");

    client.cancel().await.unwrap();
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn control_api_lists_reads_and_asks_for_decisions() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Control doc").await;
    let hosted = Hosted::start_for(Some(server.url()), PersonAt::Window).await;
    let client = http_client(&format!("{}/mcp", hosted.base()), TOKEN).await;
    let control_token = hosted.control();

    let first = structured(
        &call(
            &client,
            "insert_blocks",
            json!({
                "document": doc.to_string(),
                "position": {"at": "end"},
                "markdown": "Approved paragraph.",
                "reason": "add a line",
            }),
        )
        .await,
    );
    assert_eq!(first["status"], "pending");
    let first_id = first["edit_id"].as_str().unwrap().to_owned();

    let (status, listed) = control(
        reqwest::Method::GET,
        format!(
            "{}/control/edits?status=pending&document={doc}&limit=10",
            hosted.base()
        ),
        Some(&control_token),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let edits = listed["edits"].as_array().unwrap();
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["id"], first_id.as_str());
    assert_eq!(edits[0]["status"], "pending");
    assert_eq!(edits[0]["tool"], "insert_blocks");
    assert_eq!(edits[0]["reason"], "add a line");
    assert_eq!(
        edits[0]["agent"],
        json!({"name": "transport-test", "connection": "http", "client_id": null, "reported_name": null})
    );
    assert_eq!(edits[0]["document_title"], "Control doc");

    let (status, one) = control(
        reqwest::Method::GET,
        format!("{}/control/edits/{first_id}", hosted.base()),
        Some(&control_token),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(one["id"], first_id.as_str());

    // A decision is asked (the window settles it: `decisions.rs`); the first is approved in
    // the window, the second rejected there with the person's comment.
    let (status, asked) = control(
        reqwest::Method::POST,
        format!("{}/control/edits/{first_id}/approve", hosted.base()),
        Some(&control_token),
        None,
    )
    .await;
    assert_eq!(status, 202, "{asked}");
    assert_eq!(asked["request"]["state"], "waiting");
    let request = asked["request"]["id"].as_str().unwrap().parse().unwrap();
    hosted.service.grant_in_window(request).await.unwrap();
    let stored = server.stored_settled(doc).await.unwrap();
    assert_eq!(stored.markdown, "First paragraph.\n\nApproved paragraph.\n");

    let second = structured(
        &call(
            &client,
            "insert_blocks",
            json!({
                "document": doc.to_string(),
                "position": {"at": "start"},
                "markdown": "Rejected paragraph.",
                "reason": "another line",
            }),
        )
        .await,
    );
    assert_eq!(second["status"], "pending");
    let second_id = second["edit_id"].as_str().unwrap().to_owned();
    let (status, asked) = control(
        reqwest::Method::POST,
        format!("{}/control/edits/{second_id}/reject", hosted.base()),
        Some(&control_token),
        Some(json!({"comment": "Not at the top, please"})),
    )
    .await;
    assert_eq!(status, 202, "{asked}");
    let request = asked["request"]["id"].as_str().unwrap().parse().unwrap();
    hosted.service.grant_in_window(request).await.unwrap();
    let status_now = structured(&call(&client, "edit_status", json!({"edit_id": second_id})).await);
    assert_eq!(status_now["status"], "rejected");
    assert_eq!(status_now["comment"], "Not at the top, please");
    assert_eq!(
        server.stored_settled(doc).await.unwrap().markdown,
        "First paragraph.\n\nApproved paragraph.\n"
    );

    // Errors: deciding twice, an unknown edit, a malformed id, a bad filter.
    let (status, body) = control(
        reqwest::Method::POST,
        format!("{}/control/edits/{second_id}/approve", hosted.base()),
        Some(&control_token),
        None,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "INVALID_INPUT");
    assert_eq!(
        body["error"]["message"],
        format!("edit {second_id} is rejected, not pending")
    );
    let (status, body) = control(
        reqwest::Method::GET,
        format!("{}/control/edits/{}", hosted.base(), Uuid::nil()),
        Some(&control_token),
        None,
    )
    .await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "INVALID_INPUT");
    let (status, _) = control(
        reqwest::Method::GET,
        format!("{}/control/edits/not-an-id", hosted.base()),
        Some(&control_token),
        None,
    )
    .await;
    assert_eq!(status, 400);
    let (status, body) = control(
        reqwest::Method::GET,
        format!("{}/control/edits?status=bogus", hosted.base()),
        Some(&control_token),
        None,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], "unknown edit status \"bogus\"");

    // Pausing needs no person (it only holds edits back).
    let (status, paused) = control(
        reqwest::Method::POST,
        format!("{}/control/pause", hosted.base()),
        Some(&control_token),
        Some(json!({"paused": true})),
    )
    .await;
    assert_eq!((status, paused), (200, json!({"paused": true})));
    assert!(hosted.service.is_paused());
    let (status, sessions) = control(
        reqwest::Method::GET,
        format!("{}/control/sessions", hosted.base()),
        Some(&control_token),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(sessions["sessions"][0]["document_id"], doc.to_string());

    client.cancel().await.unwrap();
    hosted.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serve_stdio_answers_over_stdin_and_still_serves_http() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Stdio doc").await;
    let home = temp_dir("stdio");
    let port = free_port();
    let transport =
        TokioChildProcess::builder(tokio::process::Command::new(BIN).configure(|cmd| {
            isolate(cmd, &home);
            cmd.env("DOCS_MCP_TOKEN", TOKEN)
                .arg("serve")
                .arg("--stdio")
                .arg("--data-dir")
                .arg(home.join("service"))
                .arg("--instance")
                .arg(server.url())
                .arg("--listen")
                .arg(format!("127.0.0.1:{port}"));
        }))
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
        .0;
    let client = client_info().serve(transport).await.unwrap();
    assert_eq!(tool_names(&client).await, TOOLS);
    let document = structured(
        &call(
            &client,
            "get_document",
            json!({"document": doc.to_string()}),
        )
        .await,
    );
    assert_eq!(document["title"], "Stdio doc");
    assert_eq!(document["id"], doc.to_string());

    let (status, health) = control(
        reqwest::Method::GET,
        format!("http://127.0.0.1:{port}/health"),
        None,
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(health["sessions"], 1);
    // The instance's configuration names its collaboration server.
    assert_eq!(
        health["collaboration_server"],
        server.collaboration().as_str()
    );
    assert_eq!(health["instance_reachable"], true);
    client.cancel().await.unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

async fn spawn_bridge(url: &str, home: &Path, data_dir: &Path) -> TokioChildProcess {
    TokioChildProcess::builder(tokio::process::Command::new(BIN).configure(|cmd| {
        isolate(cmd, home);
        cmd.env("DOCS_MCP_TOKEN", TOKEN)
            .arg("--data-dir")
            .arg(data_dir)
            .arg("bridge")
            .arg("--url")
            .arg(url);
    }))
    .stderr(Stdio::inherit())
    .spawn()
    .unwrap()
    .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bridge_relays_a_stdio_client_to_the_http_service() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Bridge doc").await;
    let hosted = Hosted::start(Some(server.url())).await;
    let home = temp_dir("bridge");
    let transport =
        spawn_bridge(&format!("{}/mcp", hosted.base()), &home, &hosted.data_dir()).await;
    let client = client_info().serve(transport).await.unwrap();
    assert_eq!(tool_names(&client).await, TOOLS);
    let read = call(
        &client,
        "read_document",
        json!({"document": doc.to_string()}),
    )
    .await;
    assert_ne!(read.is_error, Some(true), "{read:?}");
    let text = format!(
        "{}{}",
        text_of(&read),
        read.structured_content.clone().unwrap_or_default()
    );
    assert!(text.contains("First paragraph."), "{text}");

    // A write waits for approval through the bridge too, and is attributed to the client.
    let pending = structured(
        &call(
            &client,
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Via bridge."}),
        )
        .await,
    );
    assert_eq!(pending["status"], "pending");
    let id: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    let record = hosted.service.edit(id).await.unwrap();
    assert_eq!(record.agent.name, "transport-test");
    assert_eq!(record.agent.connection, "http");

    client.cancel().await.unwrap();
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bridge_answers_requests_with_an_error_when_the_service_is_not_running() {
    let home = temp_dir("bridge-down");
    let port = free_port();
    let mut cmd = tokio::process::Command::new(BIN);
    isolate(&mut cmd, &home);
    let mut child = cmd
        .env("DOCS_MCP_TOKEN", TOKEN)
        .arg("bridge")
        .arg("--url")
        .arg(format!("http://127.0.0.1:{port}/mcp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}\n")
        .await
        .unwrap();
    drop(stdin);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next_line().await.unwrap().unwrap();
    let message: Value = serde_json::from_str(&line).unwrap();
    let expected = format!(
        "the Docs MCP service is not running at http://127.0.0.1:{port}/mcp: start the Docs MCP app or `docs-mcp serve`"
    );
    assert_eq!(
        message,
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32000, "message": expected}})
    );
    assert_eq!(lines.next_line().await.unwrap(), None);
    let output = child.wait_with_output().await.unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("docs-mcp bridge: {expected}")),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn edits_cli_lists_and_decides_in_a_terminal() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "CLI doc").await;
    let hosted = Hosted::start(Some(server.url())).await;
    let client = http_client(&format!("{}/mcp", hosted.base()), TOKEN).await;
    let home = temp_dir("cli");
    let url = hosted.base();
    let data = hosted.data_dir();

    let mut ids = Vec::new();
    for (text, reason) in [("One.", "first"), ("Two.", "second")] {
        let result = structured(
            &call(
                &client,
                "insert_blocks",
                json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": text, "reason": reason}),
            )
            .await,
        );
        assert_eq!(result["status"], "pending");
        ids.push(result["edit_id"].as_str().unwrap().to_owned());
    }

    let (ok, stdout, stderr) = cli(
        &home,
        &data,
        &[
            "edits", "list", "--json", "--status", "pending", "--url", &url,
        ],
    )
    .await;
    assert!(ok, "{stderr}");
    let listed: Value = serde_json::from_str(&stdout).unwrap();
    let listed_ids: Vec<&str> = listed["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed_ids, vec![ids[1].as_str(), ids[0].as_str()]);

    let (ok, stdout, stderr) = cli(
        &home,
        &data,
        &[
            "edits",
            "list",
            "--document",
            &doc.to_string(),
            "--url",
            &url,
        ],
    )
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(
        stdout,
        format!(
            "{}  pending  transport-test  \"CLI doc\"  insert_blocks  — second\n{}  pending  transport-test  \"CLI doc\"  insert_blocks  — first\n",
            ids[1], ids[0]
        )
    );

    // Decided in a terminal, the code the service shows there typed back.
    let (ok, shown) = cli_in_terminal(
        &home,
        &data,
        &["edits", "approve", &ids[0], "--url", &url],
        str::to_owned,
    )
    .await;
    assert!(ok, "{shown}");
    assert!(
        shown.ends_with(&format!(
            "{}  applied  transport-test  \"CLI doc\"  insert_blocks  — first\r\n",
            ids[0]
        )),
        "{shown}"
    );
    let (ok, shown) = cli_in_terminal(
        &home,
        &data,
        &[
            "edits",
            "reject",
            &ids[1],
            "--comment",
            "no thanks",
            "--url",
            &url,
        ],
        str::to_owned,
    )
    .await;
    assert!(ok, "{shown}");
    assert!(
        shown.ends_with(&format!(
            "{}  rejected transport-test  \"CLI doc\"  insert_blocks  — second  [comment: no thanks]\r\n",
            ids[1]
        )),
        "{shown}"
    );
    let record = hosted.service.edit(ids[1].parse().unwrap()).await.unwrap();
    assert_eq!(record.status, EditStatus::Rejected);
    assert_eq!(record.comment.as_deref(), Some("no thanks"));
    assert_eq!(record.decided_by, Some(Channel::Terminal));
    assert_eq!(
        server.stored_settled(doc).await.unwrap().markdown,
        "First paragraph.\n\nOne.\n"
    );

    // Deciding twice fails with the service's message, before any code is asked.
    let (ok, _, stderr) = cli(&home, &data, &["edits", "approve", &ids[1], "--url", &url]).await;
    assert!(!ok);
    assert_eq!(
        stderr,
        format!(
            "docs-mcp: HTTP 400 INVALID_INPUT: edit {} is rejected, not pending\nhint: Use an edit_id returned by a write tool.\n",
            ids[1]
        )
    );
    // On another data directory, which no service holds, nothing is sent at all.
    let (ok, _, stderr) = cli(&home, &home, &["edits", "list", "--url", &url]).await;
    assert!(!ok);
    assert_eq!(
        stderr,
        format!(
            "docs-mcp: the Docs MCP service is not running (no service holds the data directory {}): start the Docs MCP app or `docs-mcp serve`\n",
            home.display()
        )
    );

    // Some parts of an edit: the others are refused.
    let three = structured(
        &call(
            &client,
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "A.\n\nB.\n\nC."}),
        )
        .await,
    );
    let three = three["edit_id"].as_str().unwrap();
    let (ok, shown) = cli_in_terminal(
        &home,
        &data,
        &["edits", "approve", three, "--parts", "0,2", "--url", &url],
        str::to_owned,
    )
    .await;
    assert!(ok, "{shown}");
    assert!(shown.contains(&format!("{three}  applied ")), "{shown}");
    assert_eq!(
        server.stored_settled(doc).await.unwrap().markdown,
        "First paragraph.\n\nOne.\n\nA.\n\nC.\n"
    );

    client.cancel().await.unwrap();
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn token_command_falls_back_to_a_private_file_without_a_keyring() {
    let home = temp_dir("token");
    let data = home.join("data-dir");
    let run = |args: &'static [&'static str]| {
        let home = home.clone();
        let data = data.clone();
        async move {
            let mut cmd = tokio::process::Command::new(BIN);
            isolate(&mut cmd, &home);
            let output = cmd
                .env_remove("DOCS_MCP_TOKEN")
                .arg("--data-dir")
                .arg(&data)
                .args(args)
                .output()
                .await
                .unwrap();
            assert!(output.status.success(), "{output:?}");
            (
                String::from_utf8_lossy(&output.stdout).into_owned(),
                String::from_utf8_lossy(&output.stderr).into_owned(),
            )
        }
    };
    let file = data.join("mcp-token");
    let (stdout, _) = run(&["token"]).await;
    assert_eq!(
        stdout,
        format!(
            "No token yet: `docs-mcp serve` creates one in the OS keyring (or in {} where no keyring works).\n",
            file.display()
        )
    );
    let (stdout, stderr) = run(&["token", "--regenerate"]).await;
    assert_eq!(
        stdout,
        format!(
            "A new token was stored in the file {}.\nRestart the service (or the app) and update the MCP clients that use it.\nUse --show to print it.\n",
            file.display()
        )
    );
    assert!(stderr.contains("no OS keyring available"), "{stderr}");
    let stored = std::fs::read_to_string(&file).unwrap();
    assert!(!stderr.contains(stored.trim()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let (stdout, _) = run(&["token", "--show"]).await;
    assert_eq!(
        stdout,
        format!("The token is in the file {}.\n{}", file.display(), stored)
    );
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serve_stdio_runs_without_http_when_the_port_is_taken() {
    let hosted = Hosted::start(None).await;
    let home = temp_dir("stdio-busy");
    let (transport, stderr) =
        TokioChildProcess::builder(tokio::process::Command::new(BIN).configure(|cmd| {
            isolate(cmd, &home);
            cmd.env("DOCS_MCP_TOKEN", TOKEN)
                .arg("serve")
                .arg("--stdio")
                .arg("--data-dir")
                .arg(home.join("service"))
                .arg("--listen")
                .arg(format!("127.0.0.1:{}", hosted.port));
        }))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let client = client_info().serve(transport).await.unwrap();
    assert_eq!(tool_names(&client).await, TOOLS);
    client.cancel().await.unwrap();
    let mut log = String::new();
    stderr.unwrap().read_to_string(&mut log).await.unwrap();
    assert!(
        log.contains("the HTTP endpoint is not served (is another Docs MCP service running?)"),
        "{log}"
    );
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

/// `docs-mcp serve --stdio` on the data directory of a running service (the app, say) does not
/// start a second service on the same journal: it relays its client to the running one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serve_stdio_on_a_taken_data_directory_relays_to_the_running_service() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Shared doc").await;
    let hosted = Hosted::start(Some(server.url())).await;
    let home = temp_dir("stdio-relay");
    let (transport, stderr) =
        TokioChildProcess::builder(tokio::process::Command::new(BIN).configure(|cmd| {
            isolate(cmd, &home);
            cmd.env("DOCS_MCP_TOKEN", TOKEN)
                .env("RUST_LOG", "info")
                .arg("serve")
                .arg("--stdio")
                .arg("--data-dir")
                .arg(hosted.data_dir())
                .arg("--instance")
                .arg(server.url());
        }))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let client = client_info().serve(transport).await.unwrap();
    let pending = structured(
        &call(
            &client,
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Via the relay."}),
        )
        .await,
    );
    // The edit is in the running service's queue: one journal, one authority.
    assert_eq!(pending["status"], "pending");
    let id: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        hosted.service.edit(id).await.unwrap().status,
        EditStatus::Pending
    );
    client.cancel().await.unwrap();
    let mut log = String::new();
    stderr.unwrap().read_to_string(&mut log).await.unwrap();
    assert!(
        log.contains(&format!(
            "another Docs MCP service uses {}: docs-mcp (process {}, MCP endpoint http://127.0.0.1:{}/mcp); relaying this stdio client to http://127.0.0.1:{}/mcp",
            hosted.data_dir().display(),
            std::process::id(),
            hosted.port,
            hosted.port
        )),
        "{log}"
    );
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

/// A request body over the limit gets a JSON-RPC error an agent can read, not a bare 413.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_over_size_request_is_a_json_rpc_error_with_a_code() {
    let hosted = Hosted::start(None).await;
    let huge = "x".repeat(docs_mcp::MAX_MCP_BODY_BYTES + 1);
    let response = reqwest::Client::new()
        .post(format!("{}/mcp", hosted.base()))
        .bearer_auth(TOKEN)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"insert_blocks","arguments":{{"markdown":"{huge}"}}}}}}"#
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {
                "code": -32600,
                "message": "the request is larger than 4 MiB, the most this server accepts",
                "data": {
                    "code": "INVALID_INPUT",
                    "hint": "Send less at once: split the content into several edits (each markdown or text input takes at most 256 KiB)."
                }
            }
        })
    );
    hosted.stop().await;
}

/// `docs-mcp serve` (HTTP) on `data_dir`, saving edits only after an hour.
fn spawn_serve(home: &Path, data_dir: &Path, instance: &str, port: u16) -> tokio::process::Child {
    serve_command(home, data_dir, instance, port)
        .spawn()
        .unwrap()
}

fn serve_command(
    home: &Path,
    data_dir: &Path,
    instance: &str,
    port: u16,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(BIN);
    isolate(&mut cmd, home);
    cmd.env("DOCS_MCP_TOKEN", TOKEN)
        .arg("serve")
        .arg("--data-dir")
        .arg(data_dir)
        .arg("--instance")
        .arg(instance)
        .arg("--approval")
        .arg("auto")
        .arg("--save-interval")
        .arg("3600")
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    cmd
}

async fn wait_for_health(port: u16) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            let host = format!("127.0.0.1:{port}");
            assert_eq!(raw(port, "GET /health", &[("Host", &host)]).await.0, 200);
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the service did not start on port {port}");
}

/// Ada, a person with the document open: the agent is not alone in the room, so its edit
/// waits for the save interval (alone, it is saved as soon as edits stop coming).
async fn person_in_the_room(server: &DocsServer, doc: Uuid) -> docs_client::DocumentSession {
    let url = docs_client::InstanceUrl::parse(server.url()).unwrap();
    let client = docs_client::DocsClient::new(docs_client::ClientConfig::new(url)).unwrap();
    let options = docs_client::SessionOptions {
        presence: docs_client::Presence::new("Ada"),
        ..docs_client::SessionOptions::default()
    };
    docs_client::DocumentSession::open(client, doc, options)
        .await
        .unwrap()
}

/// A service applies an edit while Ada has the document open, and is killed before its save:
/// then Ada leaves, and the room, unloaded, forgets the edit. Returns the edit's id, the data
/// directory and the port, the stored document holding only `FIRST`.
async fn an_edit_the_room_lost(
    server: &DocsServer,
    doc: Uuid,
    home: &Path,
) -> (Uuid, std::path::PathBuf, u16) {
    let data_dir = home.join("service");
    let port = free_port();
    let ada = person_in_the_room(server, doc).await;
    let mut first = spawn_serve(home, &data_dir, server.url(), port);
    wait_for_health(port).await;
    let client = http_client(&format!("http://127.0.0.1:{port}/mcp"), TOKEN).await;
    let inserted = structured(
        &call(
            &client,
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Acknowledged, not saved yet."}),
        )
        .await,
    );
    assert_eq!(inserted["status"], "applied", "{inserted}");
    assert_eq!(inserted["saved"], false, "{inserted}");
    let in_the_room = server.live(doc).await.unwrap().expect("room loaded");
    assert_eq!(in_the_room.markdown, BOTH);
    assert_eq!(
        server.stored(doc).await.unwrap().markdown,
        FIRST,
        "not saved within the save interval"
    );

    // Killed: no close, no save. Ada leaves (she wrote nothing, she saves nothing): the room
    // is unloaded and forgets.
    first.start_kill().unwrap();
    first.wait().await.unwrap();
    drop(client);
    ada.close().await.unwrap();
    for _ in 0..200 {
        if server.live(doc).await.unwrap().is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(server.live(doc).await.unwrap().is_none(), "room unloaded");
    assert_eq!(server.stored(doc).await.unwrap().markdown, FIRST);
    let id = inserted["edit_id"].as_str().unwrap().parse().unwrap();
    (id, data_dir, port)
}

const FIRST: &str = "First paragraph.\n";
const BOTH: &str = "First paragraph.\n\nAcknowledged, not saved yet.\n";

/// `edit_status` of `id` once it is `settled` (up to 15 s): its result, or its error body.
async fn status_once(
    client: &RunningService<RoleClient, ClientConfig>,
    id: Uuid,
    settled: impl Fn(&Value) -> bool,
) -> Value {
    let mut seen = Value::Null;
    for _ in 0..300 {
        let result = call(client, "edit_status", json!({"edit_id": id.to_string()})).await;
        seen = match result.is_error {
            Some(true) => serde_json::from_str(&text_of(&result)).unwrap(),
            _ => structured(&result),
        };
        if settled(&seen) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    seen
}

/// The journal holds an applied edit until a save does: a service that died before saving
/// it merges it again at its next start, saves it at once, and says it is saved.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_applied_edit_not_saved_when_the_process_dies_is_saved_at_the_next_start() {
    let server = DocsServer::start().await.unwrap();
    if server.collaboration() == Collaboration::Yhub {
        // yhub stores what it takes: an applied edit is saved, nothing waits for a save.
        return;
    }
    let doc = seed(&server, "crash between ack and save").await;
    let home = temp_dir("crash");
    let (id, data_dir, port) = an_edit_the_room_lost(&server, doc, &home).await;

    // The next start finds the edit unsaved in its journal and saves it at once.
    let second = spawn_serve(&home, &data_dir, server.url(), port);
    wait_for_health(port).await;
    let client = http_client(&format!("http://127.0.0.1:{port}/mcp"), TOKEN).await;
    let status = status_once(&client, id, |s| s["saved"] == true).await;
    assert_eq!(
        (&status["status"], &status["saved"]),
        (&json!("applied"), &json!(true)),
        "{status}"
    );
    assert_eq!(server.stored(doc).await.unwrap().markdown, BOTH);
    drop(client);
    drop(second);
    let _ = std::fs::remove_dir_all(&home);
}

/// The room lost an applied edit, and the document came back as another Yjs history of the
/// same text: the edit cannot be merged into it as it was made. The next start does not apply
/// it (yrs would keep it aside and say `Ok`) nor record it saved: it is a conflict that says
/// why, and the stored document is left as it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_applied_edit_the_document_lost_the_history_of_ends_a_conflict_never_saved() {
    let server = DocsServer::start().await.unwrap();
    if server.collaboration() == Collaboration::Yhub {
        return;
    }
    let doc = seed(&server, "history lost").await;
    let home = temp_dir("history-lost");
    let (id, data_dir, port) = an_edit_the_room_lost(&server, doc, &home).await;
    server.rewrite_history(doc).await.unwrap();
    let stored = server.stored(doc).await.unwrap();
    assert_eq!(stored.markdown, FIRST);

    let second = spawn_serve(&home, &data_dir, server.url(), port);
    wait_for_health(port).await;
    let client = http_client(&format!("http://127.0.0.1:{port}/mcp"), TOKEN).await;
    let error = status_once(&client, id, |s| s["status"] != "applied").await;
    assert_eq!(error["error"]["code"], "EDIT_CONFLICT", "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the edit no longer applies: Docs did not keep it (its room was lost before a save held it), and it cannot be applied again: the document no longer has the history the edit was made on"
        ),
        "{message}"
    );
    // Nothing was saved: the stored document is the one the room came back as.
    assert_eq!(server.stored(doc).await.unwrap(), stored);
    let stats = server.stats().await.unwrap();
    assert_eq!(stats.content_patches.get(&doc.to_string()), None);
    drop(client);
    drop(second);
    let _ = std::fs::remove_dir_all(&home);
}

/// A person adds an agent client (a name, a token of its own): its edits and its presence in
/// the document carry that name, whatever the agent calls itself; its token never reaches
/// the person's channel; revoked, it is refused at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_configured_client_is_named_as_the_person_named_it_and_can_be_revoked() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Who asked").await;
    let hosted = Hosted::start_for(Some(server.url()), PersonAt::Window).await;
    let base = hosted.base();
    let person = hosted.control();

    let (status, asked) = control(
        reqwest::Method::POST,
        format!("{base}/control/clients"),
        Some(&person),
        Some(json!({"name": "  Claude Code\u{202E} (laptop) "})),
    )
    .await;
    assert_eq!(status, 202, "{asked}");
    let request = asked["request"]["id"].as_str().unwrap().parse().unwrap();
    let Outcome::ClientAdded(added) = hosted.service.grant_in_window(request).await.unwrap().1
    else {
        panic!("a client's outcome")
    };
    assert_eq!(added.client.name, "Claude Code (laptop)");
    let client_id = added.client.id.to_string();
    let token = added.token.clone();
    assert_ne!(token, TOKEN);
    for name in ["claude code (LAPTOP)", "\u{200B} "] {
        let (status, asked) = control(
            reqwest::Method::POST,
            format!("{base}/control/clients"),
            Some(&person),
            Some(json!({ "name": name })),
        )
        .await;
        assert_eq!(status, 202, "{asked}");
        let request = asked["request"]["id"].as_str().unwrap().parse().unwrap();
        let refused = hosted.service.grant_in_window(request).await.unwrap_err();
        assert_eq!(refused.code().as_str(), "INVALID_INPUT", "{refused}");
    }
    // An agent's token, shared or its own, cannot add clients.
    for agent_token in [TOKEN, token.as_str()] {
        let (status, refused) = control(
            reqwest::Method::POST,
            format!("{base}/control/clients"),
            Some(agent_token),
            Some(json!({"name": "Sneaky"})),
        )
        .await;
        assert_eq!(
            (status, refused["error"]["code"].as_str()),
            (403, Some("AGENT_TOKEN_REFUSED"))
        );
    }

    // The agent calls itself "transport-test"; the card says what the person named it.
    let client = http_client(&format!("{base}/mcp"), &token).await;
    let pending = structured(
        &call(
            &client,
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Named."}),
        )
        .await,
    );
    assert_eq!(pending["status"], "pending");
    let (_, edits) = control(
        reqwest::Method::GET,
        format!("{base}/control/edits?status=pending"),
        Some(&person),
        None,
    )
    .await;
    let agent = &edits["edits"][0]["agent"];
    assert_eq!(
        (
            agent["name"].as_str(),
            agent["client_id"].as_str(),
            agent["reported_name"].as_str()
        ),
        (
            Some("Claude Code (laptop)"),
            Some(client_id.as_str()),
            Some("transport-test")
        ),
        "{edits}"
    );
    let mut names = vec![];
    for _ in 0..100 {
        names = server
            .awareness(doc)
            .await
            .unwrap()
            .iter()
            .filter_map(|s| s["state"]["user"]["name"].as_str().map(str::to_owned))
            .collect();
        if names == ["Claude Code (laptop)"] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(names, ["Claude Code (laptop)"]);

    // Revoked: the next request with its token is refused, the shared token still works.
    let (status, asked) = control(
        reqwest::Method::POST,
        format!("{base}/control/clients/{client_id}/revoke"),
        Some(&person),
        None,
    )
    .await;
    assert_eq!(status, 202, "{asked}");
    let request = asked["request"]["id"].as_str().unwrap().parse().unwrap();
    let Outcome::ClientRevoked(revoked) = hosted.service.grant_in_window(request).await.unwrap().1
    else {
        panic!("a client's outcome")
    };
    let revoked = serde_json::to_value(revoked).unwrap();
    assert!(revoked["revoked_at"].is_i64());
    let (status, listed) = control(
        reqwest::Method::GET,
        format!("{base}/control/clients"),
        Some(&person),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(listed["clients"][0]["revoked_at"], revoked["revoked_at"]);
    let host = format!("127.0.0.1:{}", hosted.port);
    let bearer = format!("Bearer {token}");
    let (status, _) = raw(
        hosted.port,
        "POST /mcp",
        &[("Host", &host), ("Authorization", &bearer)],
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(
        tool_names(&http_client(&format!("{}/mcp", hosted.base()), TOKEN).await).await,
        TOOLS
    );
    drop(client);
    hosted.stop().await;
}

/// `docs-mcp clients` adds (printing the token once), lists and revokes clients of the
/// running service, through the person's channel.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn clients_cli_adds_lists_and_revokes() {
    let hosted = Hosted::start(None).await;
    let home = temp_dir("clients-cli");
    let url = hosted.base();
    let data = hosted.data_dir();
    let (ok, out) = cli_in_terminal(
        &home,
        &data,
        &["clients", "--url", &url, "add", "Cursor (desktop)"],
        str::to_owned,
    )
    .await;
    assert!(ok, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.ends_with("  Cursor (desktop)"))
        .unwrap_or_else(|| panic!("{out:?}"));
    let id = lines[at].split_whitespace().next().unwrap().to_owned();
    assert_eq!(
        lines[at + 1],
        "Token (shown this once; give it to that client as its bearer token):"
    );
    let token = lines[at + 2];
    assert_eq!(
        hosted.service.active_clients().find(token).map(|c| c.name),
        Some("Cursor (desktop)".to_owned())
    );
    let (ok, out, _) = cli(&home, &data, &["clients", "--url", &url, "list"]).await;
    assert!(ok);
    assert_eq!(out, format!("{id}  Cursor (desktop)\n"));
    // Without a terminal, nothing is revoked.
    let (ok, _, err) = cli(&home, &data, &["clients", "--url", &url, "revoke", &id]).await;
    assert!(!ok);
    assert!(err.contains("TERMINAL_REQUIRED"), "{err}");
    let (ok, out) = cli_in_terminal(
        &home,
        &data,
        &["clients", "--url", &url, "revoke", &id],
        str::to_owned,
    )
    .await;
    assert!(ok, "{out}");
    assert!(
        out.ends_with(&format!("{id}  Cursor (desktop)  (revoked)\r\n")),
        "{out}"
    );
    assert_eq!(hosted.service.active_clients().find(token), None);
    let (ok, _, err) = cli(&home, &data, &["clients", "--url", &url, "revoke", &id]).await;
    assert!(!ok);
    assert!(err.contains("no active client"), "{err}");
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

/// An edit as deep as the model accepts (typed blocks nested 60 levels, a link in each) is
/// listed by the control API and by `docs-mcp edits list`, as JSON and as lines (issue 27):
/// its record reads back, and the CLI reads answers deeper than serde_json's 128 levels.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_control_api_and_the_cli_list_an_edit_nested_60_deep() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Deep doc").await;
    let hosted = Hosted::start(Some(server.url())).await;
    let client = http_client(&format!("{}/mcp", hosted.base()), TOKEN).await;
    let home = temp_dir("cli");
    let (url, data) = (hosted.base(), hosted.data_dir());
    let blocks = support::nested_items(60);
    let pending = structured(
        &call(
            &client,
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "blocks": blocks}),
        )
        .await,
    );
    assert_eq!(pending["status"], "pending", "{pending}");
    let id = pending["edit_id"].as_str().unwrap().to_owned();

    let response = reqwest::Client::new()
        .get(format!("{url}/control/edits"))
        .bearer_auth(hosted.control())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let listed: Value = docs_mcp::from_deep_json(&response.text().await.unwrap()).unwrap();
    assert_eq!(listed["edits"][0]["id"], id.as_str());
    assert_eq!(listed["edits"][0]["arguments"]["blocks"], blocks);

    let (ok, stdout, stderr) = cli(&home, &data, &["edits", "list", "--json", "--url", &url]).await;
    assert!(ok, "{stderr}");
    let printed: Value = docs_mcp::from_deep_json(&stdout).unwrap();
    assert!(
        printed == listed,
        "the CLI prints the list it read: {stdout:.300}"
    );
    let (ok, stdout, stderr) = cli(&home, &data, &["edits", "list", "--url", &url]).await;
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "{id}  pending  transport-test  \"Deep doc\"  insert_blocks"
        )),
        "{stdout}"
    );
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

/// The MCP handshake and the tool list do not wait on Docs: with an instance that takes the
/// check of the configured session and never answers it, a client is served while that
/// check is still open (the service has neither given up on it nor been answered).
#[tokio::test]
async fn the_handshake_is_answered_while_docs_is_still_asked_about_the_session() {
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let instance = format!("http://{}", silent.local_addr().unwrap());
    let home = temp_dir("silent-instance");
    let data_dir = home.join("data-dir");
    let port = free_port();
    let mut cmd = tokio::process::Command::new(BIN);
    isolate(&mut cmd, &home);
    cmd.env("DOCS_MCP_TOKEN", TOKEN)
        .env("DOCS_SESSION_COOKIE", "a-session-docs-never-answers-about")
        .args(["serve", "--data-dir"])
        .arg(&data_dir)
        .args(["--instance", &instance, "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let _serve = cmd.spawn().unwrap();

    let (mut held, _) = tokio::time::timeout(Duration::from_secs(30), silent.accept())
        .await
        .expect("the service asks Docs about its session")
        .unwrap();
    let mut request = Vec::new();
    while !request.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        assert_eq!(held.read(&mut byte).await.unwrap(), 1, "a whole request");
        request.push(byte[0]);
    }
    let request = String::from_utf8(request).unwrap();
    assert!(request.starts_with("GET /api/v1.0/users/me/"), "{request}");

    wait_for_health(port).await;
    let client = http_client(&format!("http://127.0.0.1:{port}/mcp"), TOKEN).await;
    assert_eq!(tool_names(&client).await, TOOLS);

    let mut rest = [0u8; 1];
    match held.try_read(&mut rest) {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the session check was closed before the client was served: {other:?}"),
    }
    client.cancel().await.unwrap();
}

/// An instance served over HTTPS and WSS, as every real one is: with its certificate's
/// authority trusted (`SSL_CERT_FILE`, which the system's verifier reads), a document is read
/// and edited live through the collaboration WebSocket; without it, the read is refused with a
/// reason that names the certificate, and nothing is sent in clear.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_instance_over_https_and_wss_is_read_and_edited_only_when_its_certificate_is_trusted() {
    let home = temp_dir("tls");
    let tls = test_harness::TestTls::generate(&home.join("tls")).unwrap();
    let server = DocsServer::start_with(test_harness::ServerOptions {
        tls: Some(tls.clone()),
        ..Default::default()
    })
    .await
    .unwrap();
    assert!(server.url().starts_with("https://"), "{}", server.url());
    let doc = seed(&server, "over TLS").await;

    let port = free_port();
    let mut trusted = serve_command(&home, &home.join("trusted"), server.url(), port);
    trusted.env("SSL_CERT_FILE", tls.ca_file());
    let trusted = trusted.spawn().unwrap();
    wait_for_health(port).await;
    let client = http_client(&format!("http://127.0.0.1:{port}/mcp"), TOKEN).await;
    let read = structured(
        &call(
            &client,
            "read_document",
            json!({"document": doc.to_string(), "format": "blocks"}),
        )
        .await,
    );
    assert_eq!(
        read["blocks"][0]["content"][0]["text"], "First paragraph.",
        "{read}"
    );
    let block = read["blocks"][0]["id"].as_str().unwrap().to_owned();
    let edit = structured(
        &call(
            &client,
            "update_block",
            json!({"document": doc.to_string(), "block_id": block, "text": "Edited over WSS."}),
        )
        .await,
    );
    assert_eq!(edit["status"], "applied", "{edit}");
    let live = server
        .live(doc)
        .await
        .unwrap()
        .expect("the room holds the document");
    assert_eq!(live.markdown, "Edited over WSS.\n");
    client.cancel().await.unwrap();
    drop(trusted);

    let port = free_port();
    let _untrusted = spawn_serve(&home, &home.join("untrusted"), server.url(), port);
    wait_for_health(port).await;
    let client = http_client(&format!("http://127.0.0.1:{port}/mcp"), TOKEN).await;
    let refused = call(
        &client,
        "read_document",
        json!({"document": doc.to_string()}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let text = text_of(&refused);
    assert!(text.contains("certificate"), "{text}");
    client.cancel().await.unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

/// The binary allocates with jemalloc, built with its options (`.cargo/config.toml`): one
/// arena, freed pages handed back within a second, threads caching small blocks only. jemalloc prints the options it runs with
/// when asked to print its statistics at exit.
#[cfg(target_os = "linux")]
#[test]
fn the_binary_allocates_with_jemalloc_in_one_arena() {
    let out = std::process::Command::new(BIN)
        .arg("--version")
        .env("_RJEM_MALLOC_CONF", "stats_print:true")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stats = String::from_utf8_lossy(&out.stderr);
    let option = |name: &str| {
        stats
            .lines()
            .find_map(|line| line.trim().strip_prefix(&format!("opt.{name}: ")))
            .map(|value| value.split(' ').next().unwrap_or_default().to_owned())
    };
    assert_eq!(
        [
            option("narenas"),
            option("dirty_decay_ms"),
            option("muzzy_decay_ms"),
            option("tcache_max"),
        ],
        [
            Some("1".into()),
            Some("1000".into()),
            Some("0".into()),
            Some("1024".into())
        ],
        "{stats}"
    );
}
