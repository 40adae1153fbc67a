//! One data directory, one service. Claude Desktop's extension runs `docs-mcp serve --stdio`,
//! often before the app: when the app starts, the stdio service hands the directory over and
//! its client carries on at the app (a call waiting for approval answers `pending` at once,
//! the decision is the app's); when the app quits, the stdio service takes the directory back.

use std::process::Stdio;
use std::time::Duration;

use docs_client::InstanceUrl;
use docs_mcp::record::{Channel, EditStatus, Policy};
use docs_mcp::{BearerToken, DocsService, ServiceConfig, ServiceError, SharedToken};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

mod support;
use support::process::{BIN, free_port, isolate};

const TOKEN: &str = "handover-token-0123456789abcdefghijklmnopq";

async fn call(
    client: &RunningService<rmcp::RoleClient, ClientConfig>,
    tool: &str,
    args: Value,
) -> Value {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let result: CallToolResult = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
    result.structured_content.expect("structured content")
}

/// The pending edits the stdio service's control API lists.
async fn pending_at(port: u16, data_dir: &std::path::Path) -> usize {
    let Some(control) = docs_mcp::control_token(data_dir) else {
        return 0;
    };
    let Ok(response) = reqwest::Client::new()
        .get(format!(
            "http://127.0.0.1:{port}/control/edits?status=pending"
        ))
        .bearer_auth(control.expose())
        .send()
        .await
    else {
        return 0;
    };
    let body: Value = response.json().await.unwrap_or_default();
    body["edits"].as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stdio_service_hands_over_to_the_app_and_takes_the_directory_back_when_it_quits() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Handover").markdown("First paragraph."))
        .await
        .unwrap();
    let home = support::temp_dir();
    let data_dir = home.0.join("service");
    let stdio_port = free_port();
    let transport =
        TokioChildProcess::builder(tokio::process::Command::new(BIN).configure(|cmd| {
            isolate(cmd, &home.0);
            cmd.env("DOCS_MCP_TOKEN", TOKEN)
                .args(["serve", "--stdio", "--approval", "review"])
                .args(["--approval-wait", "120", "--save-interval", "0.1"])
                .arg("--data-dir")
                .arg(&data_dir)
                .arg("--instance")
                .arg(server.url())
                .arg("--listen")
                .arg(format!("127.0.0.1:{stdio_port}"));
        }))
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
        .0;
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("handover-test", "1.0"),
    )
    .serve(transport)
    .await
    .unwrap();
    let read = call(
        &client,
        "read_document",
        json!({"document": doc.to_string()}),
    )
    .await;
    assert!(
        read["markdown"]
            .as_str()
            .unwrap()
            .contains("First paragraph."),
        "{read}"
    );
    let stdio_holder = docs_mcp::data_dir_holder(&data_dir).expect("the stdio service holds it");
    assert!(stdio_holder.hands_over);
    assert_ne!(stdio_holder.pid, std::process::id());

    // The agent proposes an edit and waits for the person (up to two minutes).
    let peer = client.peer().clone();
    let waiting = tokio::spawn(async move {
        let Value::Object(args) = json!({
            "document": doc.to_string(),
            "position": {"at": "end"},
            "markdown": "Proposed before the app started.",
        }) else {
            unreachable!()
        };
        peer.call_tool(CallToolRequestParams::new("insert_blocks").with_arguments(args))
            .await
    });
    for _ in 0..200 {
        if pending_at(stdio_port, &data_dir).await == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(pending_at(stdio_port, &data_dir).await, 1);

    // The app starts on the same directory and takes it over.
    let app_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut config = ServiceConfig::new(data_dir.clone());
    config.instance = Some(InstanceUrl::parse(server.url()).unwrap());
    config.default_policy = Policy::Review;
    config.save_interval = Duration::from_millis(100);
    config.listen = app_listener.local_addr().unwrap();
    config.owner = "the Docs MCP app".into();
    let app = DocsService::start_taking_over(config.clone())
        .await
        .unwrap();
    // The app names its endpoint once it serves it — here a while after it took the
    // directory, as an installed app starting under load does: the stdio service relays its
    // client there, not to the port it was configured with.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let app_stop = CancellationToken::new();
    let app_http = tokio::spawn(docs_mcp::serve_http(
        app.clone(),
        SharedToken::new(BearerToken::from_string(TOKEN).unwrap()),
        app_listener,
        app_stop.clone(),
    ));
    assert_eq!(
        docs_mcp::data_dir_holder(&data_dir).unwrap().pid,
        std::process::id()
    );
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", stdio_port))
            .await
            .is_err(),
        "the stdio service freed its port"
    );
    // Nobody takes the directory from the app.
    match DocsService::start_taking_over(config.clone()).await {
        Err(ServiceError::DataDirInUse(holder)) => {
            assert!(holder.contains("the Docs MCP app"), "{holder}")
        }
        other => panic!("a second service started: {:?}", other.map(|_| ())),
    }

    // The waiting call was answered `pending` when the stdio service handed over, not lost.
    let answered = tokio::time::timeout(Duration::from_secs(30), waiting)
        .await
        .expect("answered at the handover, not after the approval wait")
        .unwrap()
        .unwrap();
    assert_ne!(answered.is_error, Some(true), "{answered:?}");
    let pending = answered.structured_content.unwrap();
    assert_eq!(pending["status"], "pending", "{pending}");
    let edit_id: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    assert_eq!(app.edit(edit_id).await.unwrap().status, EditStatus::Pending);

    // The person approves in the app; the same client hears it from the app.
    assert_eq!(
        app.approve(edit_id, Channel::Window).await.unwrap().status,
        EditStatus::Applied
    );
    let status = call(
        &client,
        "edit_status",
        json!({"edit_id": edit_id.to_string()}),
    )
    .await;
    assert_eq!(status["status"], "applied", "{status}");

    // The app restarts on the same port before the client's next call: the new one does not
    // know the client's session, and the client is introduced to it again.
    let port = config.listen.port();
    app_stop.cancel();
    let _ = app_http.await;
    app.shutdown().await;
    drop(app);
    let app = DocsService::start_taking_over(config.clone())
        .await
        .unwrap();
    // The app names its endpoint once it serves it — here a while after it took the
    // directory, as an installed app starting under load does: the stdio service relays its
    // client there, not to the port it was configured with.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let app_stop = CancellationToken::new();
    let app_http = tokio::spawn(docs_mcp::serve_http(
        app.clone(),
        SharedToken::new(BearerToken::from_string(TOKEN).unwrap()),
        tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap(),
        app_stop.clone(),
    ));
    let status = call(
        &client,
        "edit_status",
        json!({"edit_id": edit_id.to_string()}),
    )
    .await;
    assert_eq!(status["status"], "applied", "{status}");
    assert_eq!(
        docs_mcp::data_dir_holder(&data_dir).unwrap().pid,
        std::process::id(),
        "the restarted app holds the directory"
    );

    // The app quits: the stdio service takes the directory back and serves its client.
    app_stop.cancel();
    let _ = app_http.await;
    app.shutdown().await;
    drop(app);
    let read = call(
        &client,
        "read_document",
        json!({"document": doc.to_string()}),
    )
    .await;
    let text = read["markdown"].as_str().unwrap();
    assert!(
        text.ends_with("\nProposed before the app started.\n"),
        "{text}"
    );
    assert_eq!(
        server.stored(doc).await.unwrap().markdown,
        "First paragraph.\n\nProposed before the app started.\n"
    );
    assert_eq!(
        docs_mcp::data_dir_holder(&data_dir).unwrap().pid,
        stdio_holder.pid
    );
    let status = call(
        &client,
        "edit_status",
        json!({"edit_id": edit_id.to_string()}),
    )
    .await;
    assert_eq!(status["status"], "applied", "{status}");
    client.cancel().await.unwrap();
}
