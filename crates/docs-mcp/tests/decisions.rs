//! Only a person decides. A decision asked over the control channel — by `docs-mcp edits`, or
//! by a `curl` holding the control token the service published — is never made by the token
//! alone: with the app, it waits for a click in the window; headless, it needs the asker's own
//! terminal and the code the service writes there, typed back by that same process. Whoever
//! asks, the channel a decision is recorded with is the one it was settled through.

mod support;

use std::time::Duration;

use docs_mcp::record::{Channel, EditStatus, Policy};
use docs_mcp::{Action, AskError, Asker, Outcome, PersonAt, RequestState, ServiceError};
use serde_json::{Value, json};
use support::hosted::{Hosted, cli, cli_in_terminal, control, temp_dir};
use test_harness::{DocsServer, DocumentSpec};
use uuid::Uuid;

/// An agent (an in-process MCP client named "Claude Code") proposes an edit; it waits.
async fn proposed(hosted: &Hosted, doc: Uuid, text: &str) -> Uuid {
    let agent = support::connect(hosted.service.clone(), "Claude Code").await;
    let result = agent
        .call_tool(
            rmcp::model::CallToolRequestParams::new("insert_blocks").with_arguments(
                json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": text})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .unwrap();
    let result = result.structured_content.expect("structured content");
    assert_eq!(result["status"], "pending", "{result}");
    agent.cancel().await.unwrap();
    result["edit_id"].as_str().unwrap().parse().unwrap()
}

async fn seed(server: &DocsServer, title: &str) -> Uuid {
    server
        .create_document(DocumentSpec::new(title).markdown("First paragraph."))
        .await
        .unwrap()
}

/// `curl` with the control token read from the data directory, as an agent's shell would.
async fn curl(hosted: &Hosted, method: &str, path: &str, body: Value) -> Value {
    let token = std::fs::read_to_string(hosted.data_dir().join("control-token")).unwrap();
    let output = tokio::process::Command::new("curl")
        .args(["-s", "-X", method, "-H"])
        .arg(format!("Authorization: Bearer {token}"))
        .args(["-H", "Content-Type: application/json", "-d"])
        .arg(body.to_string())
        .arg(format!("{}{path}", hosted.base()))
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("curl");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stdout)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_headless_service_refuses_decisions_asked_without_a_terminal() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Headless doc").await;
    let hosted = Hosted::start(Some(server.url())).await;
    let edit = proposed(&hosted, doc, "Injected.").await;
    let home = temp_dir("no-terminal");

    // `docs-mcp edits approve` from an agent's shell: pipes, no terminal.
    let (ok, _, stderr) = cli(
        &home,
        &hosted.data_dir(),
        &[
            "edits",
            "approve",
            &edit.to_string(),
            "--url",
            &hosted.base(),
        ],
    )
    .await;
    assert!(!ok);
    assert!(
        stderr.starts_with(
            "docs-mcp: HTTP 403 TERMINAL_REQUIRED: a decision asked of a headless Docs MCP needs a person at a terminal; it was asked by `docs-mcp` (process "
        ) && stderr.contains(", without a terminal\nhint: Run `docs-mcp edits approve|reject ID` yourself, in a terminal"),
        "{stderr}"
    );

    // `curl` with the published control token: every decision is refused the same way.
    let attempts = [
        ("POST", format!("/control/edits/{edit}/approve"), json!({})),
        (
            "POST",
            format!("/control/edits/{edit}/reject"),
            json!({"comment": "x"}),
        ),
        (
            "PUT",
            "/control/policies".to_owned(),
            json!({"document_id": null, "policy": "auto"}),
        ),
        (
            "POST",
            "/control/clients".to_owned(),
            json!({"name": "Sneaky"}),
        ),
    ];
    for (method, path, body) in attempts {
        let answer = curl(&hosted, method, &path, body).await;
        assert_eq!(
            answer["error"]["code"], "TERMINAL_REQUIRED",
            "{method} {path}: {answer}"
        );
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("it was asked by `curl` (process "),
            "{answer}"
        );
    }
    // Pausing only holds edits back: the brake needs no person; letting them through does.
    let paused = curl(&hosted, "POST", "/control/pause", json!({"paused": true})).await;
    assert_eq!(paused, json!({"paused": true}));
    let unpause = curl(&hosted, "POST", "/control/pause", json!({"paused": false})).await;
    assert_eq!(unpause["error"]["code"], "TERMINAL_REQUIRED");

    // Nothing was decided.
    let record = hosted.service.edit(edit).await.unwrap();
    assert_eq!(record.status, EditStatus::Pending);
    assert_eq!(
        hosted.service.policy_for(doc).await.unwrap(),
        Policy::Review
    );
    assert!(hosted.service.is_paused());
    assert!(hosted.service.agent_clients().await.unwrap().is_empty());
    assert_eq!(
        server.stored_settled(doc).await.unwrap().markdown,
        "First paragraph.\n"
    );
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_at_a_terminal_types_back_the_code_shown_there() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Terminal doc").await;
    let hosted = Hosted::start(Some(server.url())).await;
    let home = temp_dir("terminal");
    let (url, data) = (hosted.base(), hosted.data_dir());

    let edit = proposed(&hosted, doc, "Approved in a terminal.").await;
    let (ok, shown) = cli_in_terminal(
        &home,
        &data,
        &["edits", "approve", &edit.to_string(), "--url", &url],
        str::to_owned,
    )
    .await;
    assert!(ok, "{shown}");
    assert!(
        shown.contains(
            "Docs MCP: Approve the edit of “Terminal doc” by Claude Code (insert_blocks).\r\n"
        ),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "{edit}  applied  Claude Code  \"Terminal doc\"  insert_blocks"
        )),
        "{shown}"
    );
    let record = hosted.service.edit(edit).await.unwrap();
    assert_eq!(record.status, EditStatus::Applied);
    assert_eq!(record.decided_by, Some(Channel::Terminal));
    assert_eq!(
        server.stored_settled(doc).await.unwrap().markdown,
        "First paragraph.\n\nApproved in a terminal.\n"
    );

    // A wrong code cancels the request: nothing is decided.
    let second = proposed(&hosted, doc, "Not this one.").await;
    let (ok, shown) = cli_in_terminal(
        &home,
        &data,
        &[
            "edits",
            "reject",
            &second.to_string(),
            "--comment",
            "no",
            "--url",
            &url,
        ],
        |_| "AAAA-AAAA".to_owned(),
    )
    .await;
    assert!(!ok);
    assert!(
        shown.contains("HTTP 403 WRONG_CODE: the code typed back is not the one shown: the request is cancelled"),
        "{shown}"
    );
    assert_eq!(
        hosted.service.edit(second).await.unwrap().status,
        EditStatus::Pending
    );
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

/// The code goes to the asker's terminal only, and only that process, from that terminal,
/// settles the request with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_the_asker_settles_a_terminal_request_with_its_code() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Asker doc").await;
    let hosted = Hosted::start(Some(server.url())).await;
    let edit = proposed(&hosted, doc, "Asked.").await;
    // The terminal stood in for by a file: the code is written there, not answered.
    let terminal = hosted.dir.join("pts");
    std::fs::write(&terminal, "").unwrap();
    let asker = Asker {
        pid: Some(4242),
        program: Some("docs-mcp".into()),
        terminal: Some(terminal.clone()),
        known: true,
    };
    let action = Action::Approve {
        edit_id: edit,
        parts: None,
    };
    let asked = hosted.service.ask(action, asker.clone()).await.unwrap();
    assert_eq!(asked.code, None, "the code is not in the answer");
    assert_eq!(asked.settle_in, "terminal");
    let written = std::fs::read_to_string(&terminal).unwrap();
    let code = written
        .split("To confirm, type this code: ")
        .nth(1)
        .unwrap()
        .trim()
        .to_owned();
    assert_eq!(code.len(), 9, "{written}");
    // Not in the window's list, not grantable by a click.
    assert!(hosted.service.decision_requests().is_empty());
    let clicked = hosted.service.grant_in_window(asked.request.id).await;
    assert!(matches!(
        clicked,
        Err(ServiceError::Ask(AskError::UnknownRequest { .. }))
    ));

    for other in [
        Asker {
            pid: Some(4343),
            ..asker.clone()
        },
        Asker {
            terminal: None,
            ..asker.clone()
        },
    ] {
        let refused = hosted
            .service
            .confirm_in_terminal(asked.request.id, &code, other)
            .await;
        assert!(matches!(
            refused,
            Err(ServiceError::Ask(AskError::NotTheAsker))
        ));
    }
    assert_eq!(
        hosted.service.edit(edit).await.unwrap().status,
        EditStatus::Pending
    );
    let (request, outcome) = hosted
        .service
        .confirm_in_terminal(asked.request.id, &code, asker.clone())
        .await
        .unwrap();
    assert!(matches!(request.state, RequestState::Done { .. }));
    let Outcome::Edit(record) = outcome else {
        panic!("an edit's decision")
    };
    assert_eq!(record.status, EditStatus::Applied);
    assert_eq!(record.decided_by, Some(Channel::Terminal));
    // Once settled, the code is spent.
    let again = hosted
        .service
        .confirm_in_terminal(asked.request.id, &code, asker)
        .await;
    assert!(matches!(
        again,
        Err(ServiceError::Ask(AskError::Settled { .. }))
    ));
    hosted.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn while_the_app_runs_a_decision_asked_from_a_terminal_waits_for_a_click() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Window doc").await;
    let hosted = Hosted::start_for(Some(server.url()), PersonAt::Window).await;
    let home = temp_dir("window");
    let edit = proposed(&hosted, doc, "Asked from a shell.").await;

    // The CLI asks (no terminal needed: the window decides) and waits.
    let asking = {
        let (home, data, url) = (home.clone(), hosted.data_dir(), hosted.base());
        tokio::spawn(async move {
            cli(
                &home,
                &data,
                &["edits", "approve", &edit.to_string(), "--url", &url],
            )
            .await
        })
    };
    let request = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Some(request) = hosted.service.decision_requests().pop() {
                return request;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the request reaches the window");
    assert_eq!(
        request.action,
        Action::Approve {
            edit_id: edit,
            parts: None
        }
    );
    assert_eq!(
        request.summary,
        "Approve the edit of “Window doc” by Claude Code (insert_blocks)"
    );
    assert_eq!(request.asker.program.as_deref(), Some("docs-mcp"));
    assert_eq!(request.asker.terminal, None);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        hosted.service.edit(edit).await.unwrap().status,
        EditStatus::Pending
    );
    assert!(!asking.is_finished(), "the CLI waits for the window");

    let (granted, outcome) = hosted.service.grant_in_window(request.id).await.unwrap();
    assert!(matches!(granted.state, RequestState::Done { .. }));
    let Outcome::Edit(record) = outcome else {
        panic!("an edit's decision")
    };
    assert_eq!(record.decided_by, Some(Channel::Window));
    let (ok, stdout, stderr) = asking.await.unwrap();
    assert!(ok, "{stderr}");
    assert_eq!(
        stdout,
        format!("{edit}  applied  Claude Code  \"Window doc\"  insert_blocks\n")
    );
    assert!(
        stderr.starts_with("Asked Docs MCP: Approve the edit of “Window doc” by Claude Code (insert_blocks).\nConfirm it in the Docs MCP window"),
        "{stderr}"
    );
    assert_eq!(
        server.stored_settled(doc).await.unwrap().markdown,
        "First paragraph.\n\nAsked from a shell.\n"
    );
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_window_settles_every_kind_of_request_and_a_flood_is_bounded() {
    let server = DocsServer::start().await.unwrap();
    let doc = seed(&server, "Requests doc").await;
    let hosted = Hosted::start_for(Some(server.url()), PersonAt::Window).await;
    let (base, token) = (hosted.base(), hosted.control());
    let post = |path: String, body: Value| {
        let token = token.clone();
        async move { control(reqwest::Method::POST, path, Some(&token), Some(body)).await }
    };

    // Who decided is the service's to say: a body naming it is refused.
    let edit = proposed(&hosted, doc, "Rejected in the window.").await;
    for body in [json!({"decided_by": "auto"}), json!({"decided_by": "app"})] {
        let (status, answer) = post(format!("{base}/control/edits/{edit}/approve"), body).await;
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (400, Some("INVALID_INPUT"))
        );
    }

    // A rejection asked, then declined in the window: nothing happens.
    let (status, asked) = post(
        format!("{base}/control/edits/{edit}/reject"),
        json!({"comment": "not now"}),
    )
    .await;
    assert_eq!(
        (status, asked["settle_in"].as_str()),
        (202, Some("window")),
        "{asked}"
    );
    let id: Uuid = asked["request"]["id"].as_str().unwrap().parse().unwrap();
    // Asked again: the same request.
    let (_, again) = post(
        format!("{base}/control/edits/{edit}/reject"),
        json!({"comment": "not now"}),
    )
    .await;
    assert_eq!(again["request"]["id"], asked["request"]["id"]);
    hosted.service.decline_in_window(id).unwrap();
    let (status, settled) = control(
        reqwest::Method::GET,
        format!("{base}/control/requests/{id}?wait=1"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!((status, settled["state"].as_str()), (200, Some("declined")));
    assert_eq!(
        hosted.service.edit(edit).await.unwrap().status,
        EditStatus::Pending
    );

    // A policy, unpausing, a client: each waits for the click, then is done in the window.
    hosted.service.set_paused(true).await.unwrap();
    let asks = [
        (
            reqwest::Method::PUT,
            "/control/policies".to_owned(),
            json!({"document_id": doc.to_string(), "policy": "auto"}),
        ),
        (
            reqwest::Method::POST,
            "/control/pause".to_owned(),
            json!({"paused": false}),
        ),
        (
            reqwest::Method::POST,
            "/control/clients".to_owned(),
            json!({"name": "Cursor"}),
        ),
    ];
    let mut requests = vec![];
    for (method, path, body) in asks {
        let (status, asked) =
            control(method, format!("{base}{path}"), Some(&token), Some(body)).await;
        assert_eq!(status, 202, "{path}: {asked}");
        requests.push(
            asked["request"]["id"]
                .as_str()
                .unwrap()
                .parse::<Uuid>()
                .unwrap(),
        );
    }
    assert_eq!(
        hosted.service.policy_for(doc).await.unwrap(),
        Policy::Review
    );
    assert!(hosted.service.is_paused());
    assert!(hosted.service.agent_clients().await.unwrap().is_empty());
    let mut outcomes = vec![];
    for id in requests {
        outcomes.push(hosted.service.grant_in_window(id).await.unwrap().1);
    }
    assert_eq!(hosted.service.policy_for(doc).await.unwrap(), Policy::Auto);
    assert!(!hosted.service.is_paused());
    let Outcome::ClientAdded(added) = &outcomes[2] else {
        panic!("the client's outcome")
    };
    assert_eq!(added.client.name, "Cursor");
    assert_eq!(
        hosted
            .service
            .active_clients()
            .find(&added.token)
            .map(|c| c.name),
        Some("Cursor".to_owned())
    );

    // At most 16 wait at once.
    hosted
        .service
        .set_policy(Some(doc), Some(Policy::Review))
        .await
        .unwrap();
    let mut last = (0, Value::Null);
    for _ in 0..17 {
        let edit = proposed(&hosted, doc, "More.").await;
        last = post(format!("{base}/control/edits/{edit}/approve"), json!({})).await;
    }
    assert_eq!(last.0, 429, "{}", last.1);
    assert_eq!(last.1["error"]["code"], "TOO_MANY_REQUESTS");
    assert_eq!(hosted.service.decision_requests().len(), 16);
    hosted.stop().await;
}
