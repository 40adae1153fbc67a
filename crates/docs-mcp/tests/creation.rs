//! Creating a document is an edit like any other: under Review it waits as a card, with
//! nothing made in Docs until a person approves; Read-only, Comment only and Pause refuse it;
//! a creation decided while Docs could not answer is never made twice.

mod support;

use docs_mcp::record::{Channel, EditStatus, Policy};
use docs_mcp::{DocsService, ServiceError};
use serde_json::json;
use support::{Agent, config, connect, temp_dir};
use test_harness::{DocsServer, TestUser};
use uuid::Uuid;

async fn signed_in(server: &DocsServer, user: &TestUser, policy: Policy) -> Agent {
    let data = temp_dir();
    let mut config = config(server, &data.0, policy);
    config.session_cookie = Some(docs_client::Secret::new(&user.session_cookie));
    config.csrf_token = Some(docs_client::Secret::new(&user.csrf_token));
    let service = DocsService::start(config).await.unwrap();
    Agent {
        client: connect(service.clone(), "Claude Code").await,
        service,
        data,
    }
}

/// Whether Docs has a document with this id (as its owner sees it).
async fn exists(agent: &Agent, id: Uuid) -> bool {
    match agent.service.client().unwrap().document(id).await {
        Ok(_) => true,
        Err(docs_client::Error::NotFound { .. }) => false,
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_review_a_document_is_made_only_once_a_person_approves_it() {
    let server = DocsServer::start().await.unwrap();
    let user = server.create_user("ada@example.org", "Ada").await.unwrap();
    let agent = signed_in(&server, &user, Policy::Review).await;
    let parent = agent
        .service
        .client()
        .unwrap()
        .create_document(Uuid::new_v4(), "Projects", None)
        .await
        .unwrap()
        .id;

    let asked = agent
        .ok(
            "create_document",
            json!({"title": "Minutes", "parent": parent.to_string(),
                   "markdown": "# Minutes\n\n- [ ] follow up", "reason": "meeting notes"}),
        )
        .await;
    assert_eq!(asked["status"], "pending", "{asked}");
    assert!(asked.get("content").is_none());
    let id: Uuid = asked["document_id"].as_str().unwrap().parse().unwrap();
    let edit: Uuid = asked["edit_id"].as_str().unwrap().parse().unwrap();
    assert!(
        !exists(&agent, id).await,
        "nothing is made before the decision"
    );

    // The card: what is made, where, with its content rendered.
    let card = agent.service.edit(edit).await.unwrap();
    let proposed = card.proposed_document.clone().unwrap();
    assert_eq!(
        (
            card.status,
            proposed.title.as_str(),
            proposed.parent_id,
            proposed.parent_title.as_deref()
        ),
        (
            EditStatus::Pending,
            "Minutes",
            Some(parent),
            Some("Projects")
        )
    );
    assert_eq!(card.tool, "create_document");
    assert_eq!(card.reason.as_deref(), Some("meeting notes"));
    let rendered: Vec<&str> = card
        .preview
        .after
        .iter()
        .map(|b| b.markdown.as_str())
        .collect();
    assert_eq!(rendered, ["# Minutes", "- [ ] follow up"]);

    let approved = agent.service.approve(edit, Channel::Window).await.unwrap();
    assert_eq!(approved.status, EditStatus::Applied, "{:?}", approved.error);
    assert_eq!(approved.decided_by, Some(Channel::Window));
    assert!(exists(&agent, id).await);
    let info = agent
        .ok("get_document", json!({"document": id.to_string()}))
        .await;
    assert_eq!(info["title"], "Minutes");
    // Its content: an edit decided by the same decision, applied in the new document.
    let content = approved.proposed_document.unwrap().content_edit.unwrap();
    let content = agent
        .ok(
            "edit_status",
            json!({"edit_id": content.to_string(), "wait_seconds": 10}),
        )
        .await;
    assert_eq!(content["status"], "applied", "{content}");
    let stored = server.stored_settled(id).await.unwrap();
    assert_eq!(stored.markdown, "# Minutes\n\n* [ ] follow up\n");
    let journal = agent
        .service
        .edits(&docs_mcp::record::EditFilter {
            document_id: Some(id),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(journal.len(), 2, "the creation and its content");
    assert!(
        journal
            .iter()
            .all(|e| e.decided_by == Some(Channel::Window))
    );

    // Rejected: nothing is made.
    let refused = agent
        .ok("create_document", json!({"title": "Draft nobody wants"}))
        .await;
    let refused_id: Uuid = refused["document_id"].as_str().unwrap().parse().unwrap();
    let rejected = agent
        .service
        .reject(
            refused["edit_id"].as_str().unwrap().parse().unwrap(),
            Some("not now".into()),
            Channel::Window,
        )
        .await
        .unwrap();
    assert_eq!(rejected.status, EditStatus::Rejected);
    assert!(!exists(&agent, refused_id).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn read_only_comment_only_and_pause_refuse_a_creation_and_record_nothing() {
    let server = DocsServer::start().await.unwrap();
    let user = server.create_user("ada@example.org", "Ada").await.unwrap();
    let agent = signed_in(&server, &user, Policy::Review).await;
    let before = agent
        .service
        .edits(&Default::default())
        .await
        .unwrap()
        .len();
    for (policy, paused, code) in [
        (Policy::ReadOnly, false, "EDIT_REJECTED"),
        (Policy::CommentOnly, false, "EDIT_REJECTED"),
        (Policy::Auto, true, "EDIT_REJECTED"),
    ] {
        agent.service.set_policy(None, Some(policy)).await.unwrap();
        agent.service.set_paused(paused).await.unwrap();
        let refused = agent
            .err(
                "create_document",
                json!({"title": "Blocked", "markdown": "x"}),
            )
            .await;
        assert_eq!(
            refused["code"], code,
            "{policy:?} paused={paused}: {refused}"
        );
    }
    assert_eq!(
        agent
            .service
            .edits(&Default::default())
            .await
            .unwrap()
            .len(),
        before
    );
    let titles: Vec<String> = agent.ok("list_documents", json!({})).await["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(!titles.contains(&"Blocked".to_owned()), "{titles:?}");
}

/// A creation approved while Docs refuses every call stays `applying` (never `failed` while it
/// may exist, never made twice), and is made once Docs answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_creation_decided_while_docs_is_throttled_is_made_once_when_it_answers() {
    let server = DocsServer::start().await.unwrap();
    let user = server.create_user("ada@example.org", "Ada").await.unwrap();
    let agent = signed_in(&server, &user, Policy::Review).await;
    let asked = agent
        .ok(
            "create_document",
            json!({"title": "Later", "markdown": "Body."}),
        )
        .await;
    let id: Uuid = asked["document_id"].as_str().unwrap().parse().unwrap();
    let edit: Uuid = asked["edit_id"].as_str().unwrap().parse().unwrap();
    // Docs refuses the next calls for a minute: the creation, then the look-up of its id,
    // twice over (the service asks again after 1 s, then 2 s), past the approval's wait.
    server.throttle_next(6, 60).await.unwrap();
    let approved = agent.service.approve(edit, Channel::Window).await.unwrap();
    assert_eq!(
        approved.status,
        EditStatus::Applying,
        "{:?}",
        approved.error
    );
    assert!(!exists(&agent, id).await);
    let settled = agent
        .service
        .wait_for_decision(edit, std::time::Duration::from_secs(90))
        .await
        .unwrap();
    assert_eq!(settled.status, EditStatus::Applied, "{:?}", settled.error);
    assert_eq!(server.stored_settled(id).await.unwrap().markdown, "Body.\n");
    let titles: Vec<String> = agent.ok("list_documents", json!({})).await["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        titles.iter().filter(|t| *t == "Later").count(),
        1,
        "{titles:?}"
    );
    // An approval of a creation that is not pending any more is refused as any.
    let again = agent.service.approve(edit, Channel::Window).await;
    assert!(matches!(again, Err(ServiceError::NotPending { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_automatic_policy_makes_the_document_at_once() {
    let server = DocsServer::start().await.unwrap();
    let user = server.create_user("ada@example.org", "Ada").await.unwrap();
    let agent = signed_in(&server, &user, Policy::Auto).await;
    let created = agent
        .ok(
            "create_document",
            json!({"title": "Now", "markdown": "Made."}),
        )
        .await;
    assert_eq!(created["status"], "applied", "{created}");
    assert_eq!(created["content"]["status"], "applied", "{created}");
    let id: Uuid = created["document_id"].as_str().unwrap().parse().unwrap();
    assert_eq!(created["url"], format!("{}/docs/{id}/", server.url()));
    let record = agent
        .service
        .edit(created["edit_id"].as_str().unwrap().parse().unwrap())
        .await
        .unwrap();
    assert_eq!(record.decided_by, Some(Channel::Policy));
    assert_eq!(server.stored_settled(id).await.unwrap().markdown, "Made.\n");
}
