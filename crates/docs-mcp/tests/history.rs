//! get_history: who changed a document and when, where the instance keeps it (yhub), agents'
//! changes told apart by their tags; elsewhere a clear error pointing to get_changes.

mod support;

use std::time::Duration;

use docs_mcp::record::Policy;
use serde_json::json;
use support::*;
use test_harness::{Collaboration, DocsServer, DocumentSpec, ServerOptions, TypistSpec};

const WAIT: Duration = Duration::from_secs(20);

async fn server_of(collaboration: Collaboration) -> DocsServer {
    DocsServer::start_with(ServerOptions {
        collaboration: Some(collaboration.as_str().to_owned()),
        ..ServerOptions::default()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn on_yhub_the_history_says_who_changed_the_document_and_marks_the_agents_changes() {
    let server = server_of(Collaboration::Yhub).await;
    let ada = server
        .create_user("ada@example.org", "Ada Lovelace")
        .await
        .unwrap();
    let id = server
        .create_document(DocumentSpec::new("History").markdown("Hello"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let empty = agent.ok("get_history", json!({"document": doc})).await;
    assert_eq!(empty, json!({"document_id": doc, "entries": []}));

    let typist = server
        .start_typist(TypistSpec::new(id, " world").interval_ms(5).as_user(&ada))
        .await
        .unwrap();
    assert_eq!(typist.wait_done(WAIT).await.unwrap().error, None);
    let inserted = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"}, "markdown": "By the agent", "reason": "test"}),
        )
        .await;
    assert_eq!(inserted["status"], "applied", "{inserted}");

    let history = agent.ok("get_history", json!({"document": doc})).await;
    let entries = history["entries"].as_array().unwrap();
    let who: Vec<(&str, bool)> = entries
        .iter()
        .map(|e| (e["by"].as_str().unwrap(), e["by_agent"].as_bool().unwrap()))
        .collect();
    let anonymous_agent = who[0].0;
    assert!(anonymous_agent.starts_with("anon:"), "{history}");
    assert_eq!(who, [(anonymous_agent, true), (ada.id.as_str(), false)]);
    assert_eq!(
        entries[0]["tags"],
        json!(["source: ai", "tool: lasuite-docs-mcp"])
    );
    assert_eq!(entries[1]["tags"], json!([]));
    let (from, to) = (&entries[1]["from_ms"], &entries[1]["to_ms"]);
    assert!(from.as_i64().unwrap() <= to.as_i64().unwrap(), "{history}");
    assert!(entries[0]["from_ms"].as_i64() >= entries[1]["to_ms"].as_i64());

    let newest = agent
        .ok("get_history", json!({"document": doc, "limit": 1}))
        .await;
    assert_eq!(newest["entries"].as_array().unwrap().len(), 1);
    assert_eq!(newest["entries"][0]["by_agent"], true);
}

#[tokio::test]
async fn without_yhub_there_is_no_history_and_the_error_says_what_to_use() {
    let server = server_of(Collaboration::Hocuspocus).await;
    let id = server
        .create_document(DocumentSpec::new("No history").markdown("Hello"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let error = agent
        .err("get_history", json!({"document": id.to_string()}))
        .await;
    assert_eq!(error["code"], "HISTORY_UNAVAILABLE", "{error}");
    assert_eq!(
        error["message"],
        "this Docs instance keeps no history of who changed what that can be read (its collaboration server, hocuspocus, has none)"
    );
    assert!(
        error["hint"].as_str().unwrap().contains("get_changes"),
        "{error}"
    );
}
