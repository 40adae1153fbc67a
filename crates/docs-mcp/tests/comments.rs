//! Agents that comment: a thread on a word (made over REST, its mark read back through
//! BlockNote, other editors pinged), replies, resolving and reopening — each under the
//! document's policy like an edit: on a card until a person approves (created only then),
//! refused or conflicting without leaving anything behind, the only thing allowed under
//! "comment only", and what a commenter (who may not edit) can do.

mod support;

use std::time::Duration;

use docs_mcp::record::{Channel, EditStatus, Policy};
use serde_json::json;
use support::*;
use test_harness::{CommentMarkSpan, DocsServer, DocumentSpec, TestUser};
use uuid::Uuid;

/// "Intro paragraph." and "The quick brown fox.", `user` in `role`; visitors may only read
/// it unless `public_editing` (a person edits it without signing in).
async fn document_with(
    server: &DocsServer,
    user: &TestUser,
    role: &str,
    public_editing: bool,
) -> (Uuid, Vec<String>) {
    let (reach, link_role) = if public_editing {
        ("public", "editor")
    } else {
        ("restricted", "reader")
    };
    let id = server
        .create_document(
            DocumentSpec::new("Draft")
                .markdown("Intro paragraph.\n\nThe quick brown fox.")
                .link(reach, link_role)
                .access(&user.id, role),
        )
        .await
        .unwrap();
    (id, stored_block_ids(server, id).await)
}

async fn threads(agent: &Agent, id: Uuid) -> Vec<docs_client::Thread> {
    agent.service.client().unwrap().threads(id).await.unwrap()
}

/// The stored marks, once the save holding them is in.
async fn stored_marks(server: &DocsServer, id: Uuid) -> Vec<CommentMarkSpan> {
    server.stored_settled(id).await.unwrap();
    server.comment_marks(id).await.unwrap().stored
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_agent_comments_on_a_word_replies_resolves_and_reopens() {
    let server = DocsServer::start().await.unwrap();
    let ada = server.create_user("ada@example.org", "Ada").await.unwrap();
    let (id, blocks) = document_with(&server, &ada, "editor", false).await;
    let agent = signed_in_agent(&server, Policy::Auto, &ada).await;
    let doc = id.to_string();

    let added = agent
        .ok(
            "add_comment",
            json!({"document": doc, "block_id": blocks[1], "text": "quick", "body": "Which **fox**?"}),
        )
        .await;
    assert_eq!(added["status"], "applied", "{added}");
    assert_eq!(added["anchored"], true);
    let thread = added["thread_id"].as_str().unwrap().to_owned();
    let made = threads(&agent, id).await;
    assert_eq!(made.len(), 1);
    assert_eq!(made[0].id.to_string(), thread);
    assert_eq!(made[0].comments[0].markdown(), "Which **fox**?");
    // The mark covers exactly that word, as BlockNote's parser reads the saved document.
    assert_eq!(
        stored_marks(&server, id).await,
        [CommentMarkSpan {
            block_id: blocks[1].clone(),
            thread_id: thread.clone(),
            orphan: false,
            text: "quick".into(),
            start: 4,
            end: 9,
        }]
    );
    // The other editors in the room are told to load the thread.
    let pings = server.comments_pings(id).await.unwrap();
    assert!(
        pings
            .iter()
            .any(|p| p["threadId"] == thread.as_str() && p["docId"] == doc.as_str()),
        "{pings:?}"
    );

    let replied = agent
        .ok(
            "reply_comment",
            json!({"document": doc, "thread_id": thread, "body": "The *brown* one."}),
        )
        .await;
    assert_eq!(replied["status"], "applied", "{replied}");
    let said: Vec<String> = threads(&agent, id).await[0]
        .comments
        .iter()
        .map(|c| c.markdown())
        .collect();
    assert_eq!(said, ["Which **fox**?", "The *brown* one."]);

    let resolved = agent
        .ok(
            "resolve_comment",
            json!({"document": doc, "thread_id": thread}),
        )
        .await;
    assert_eq!(resolved["status"], "applied", "{resolved}");
    assert!(threads(&agent, id).await[0].resolved);
    // Sessions count the open threads; a comment of the agent's is counted at once.
    assert_eq!(agent.service.open_threads(&[id]).await[&id], 0);
    let again = agent
        .err(
            "resolve_comment",
            json!({"document": doc, "thread_id": thread}),
        )
        .await;
    assert_eq!(again["code"], "INVALID_INPUT", "{again}");
    let reopened = agent
        .ok(
            "reopen_comment",
            json!({"document": doc, "thread_id": thread}),
        )
        .await;
    assert_eq!(reopened["status"], "applied", "{reopened}");
    assert!(!threads(&agent, id).await[0].resolved);
    assert_eq!(agent.service.open_threads(&[id]).await[&id], 1);

    // Bad input is refused and makes nothing.
    for (tool, args, code) in [
        (
            "add_comment",
            json!({"document": doc, "block_id": blocks[1], "text": "wolf", "body": "?"}),
            "TEXT_NOT_FOUND",
        ),
        (
            "add_comment",
            json!({"document": doc, "block_id": "nope", "body": "?"}),
            "BLOCK_NOT_FOUND",
        ),
        (
            "add_comment",
            json!({"document": doc, "block_id": blocks[1], "body": "  "}),
            "INVALID_INPUT",
        ),
        (
            "reply_comment",
            json!({"document": doc, "thread_id": Uuid::new_v4().to_string(), "body": "?"}),
            "DOC_NOT_FOUND",
        ),
    ] {
        let error = agent.err(tool, args).await;
        assert_eq!(error["code"], code, "{tool}: {error}");
    }
    assert_eq!(threads(&agent, id).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_review_a_comment_waits_for_the_person_and_is_made_only_when_approved() {
    let server = DocsServer::start().await.unwrap();
    let ada = server.create_user("ada@example.org", "Ada").await.unwrap();
    let (id, blocks) = document_with(&server, &ada, "editor", false).await;
    let agent = signed_in_agent(&server, Policy::Review, &ada).await;
    let doc = id.to_string();

    let pending = agent
        .ok(
            "add_comment",
            json!({"document": doc, "block_id": blocks[0], "body": "Too long?", "reason": "review"}),
        )
        .await;
    assert_eq!(pending["status"], "pending", "{pending}");
    let edit: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    let card = agent.service.edit(edit).await.unwrap();
    let proposed = card.proposed_comment.clone().unwrap();
    assert_eq!(
        (proposed.quoted_text.as_deref(), proposed.body.as_deref()),
        (Some("Intro paragraph."), Some("Too long?"))
    );
    assert!(
        threads(&agent, id).await.is_empty(),
        "nothing made before approval"
    );

    let approved = agent.service.approve(edit, Channel::Window).await.unwrap();
    assert_eq!(approved.status, EditStatus::Applied);
    let made = threads(&agent, id).await;
    assert_eq!(made.len(), 1);
    let thread = made[0].id.to_string();
    assert_eq!(
        approved.proposed_comment.unwrap().thread_id.as_deref(),
        Some(thread.as_str())
    );
    let status = agent
        .ok("edit_status", json!({"edit_id": edit.to_string()}))
        .await;
    assert_eq!(
        (&status["status"], &status["thread_id"]),
        (&json!("applied"), &json!(thread))
    );
    let marks = stored_marks(&server, id).await;
    assert_eq!(
        marks
            .iter()
            .map(|m| (m.block_id.as_str(), m.text.as_str()))
            .collect::<Vec<_>>(),
        [(blocks[0].as_str(), "Intro paragraph.")]
    );

    // Rejected: nothing is made, the agent hears why.
    let second = agent
        .ok(
            "reply_comment",
            json!({"document": doc, "thread_id": thread, "body": "Or not."}),
        )
        .await;
    let second: Uuid = second["edit_id"].as_str().unwrap().parse().unwrap();
    agent
        .service
        .reject(second, Some("no".into()), Channel::Window)
        .await
        .unwrap();
    assert_eq!(threads(&agent, id).await[0].comments.len(), 1);
}

/// The person changed the commented text before approving: the comment is a conflict, and
/// the thread made for it is deleted again — nothing is left behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_comment_whose_text_changed_before_approval_is_a_conflict_and_leaves_nothing() {
    let server = DocsServer::start().await.unwrap();
    let ada = server.create_user("ada@example.org", "Ada").await.unwrap();
    let (id, blocks) = document_with(&server, &ada, "editor", true).await;
    let agent = signed_in_agent(&server, Policy::Review, &ada).await;
    let doc = id.to_string();
    let pending = agent
        .ok(
            "add_comment",
            json!({"document": doc, "block_id": blocks[1], "text": "quick", "body": "Faster?"}),
        )
        .await;
    let edit: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();

    // A person rewrites the sentence in the meantime.
    person_sets_text(&server, id, &blocks[1], "The slow brown fox.").await;
    let mut reason = None;
    for _ in 0..100 {
        reason = agent
            .service
            .changed_since_proposed(edit)
            .await
            .unwrap()
            .map(|c| c.reason);
        if reason.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        reason.as_deref().is_some_and(|r| r.contains("quick")),
        "the card says so before the person decides: {reason:?}"
    );

    let decided = agent.service.approve(edit, Channel::Window).await.unwrap();
    assert_eq!(decided.status, EditStatus::Conflict, "{decided:?}");
    assert!(threads(&agent, id).await.is_empty());
    assert!(server.comment_marks(id).await.unwrap().stored.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn comment_only_refuses_every_edit_and_makes_comments_at_once() {
    let server = DocsServer::start().await.unwrap();
    let ada = server.create_user("ada@example.org", "Ada").await.unwrap();
    let (id, blocks) = document_with(&server, &ada, "editor", false).await;
    let agent = signed_in_agent(&server, Policy::Review, &ada).await;
    agent
        .service
        .set_policy(Some(id), Some(Policy::CommentOnly))
        .await
        .unwrap();
    let doc = id.to_string();
    for (tool, args) in [
        (
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"}, "markdown": "More."}),
        ),
        (
            "update_block",
            json!({"document": doc, "block_id": blocks[0], "text": "Changed."}),
        ),
        (
            "replace_text",
            json!({"document": doc, "old_text": "quick", "new_text": "slow"}),
        ),
        (
            "delete_blocks",
            json!({"document": doc, "block_ids": [blocks[0]]}),
        ),
    ] {
        let error = agent.err(tool, args).await;
        assert_eq!(error["code"], "EDIT_REJECTED", "{tool}: {error}");
        assert!(
            error["hint"].as_str().unwrap().contains("add_comment"),
            "{error}"
        );
    }
    let added = agent
        .ok(
            "add_comment",
            json!({"document": doc, "block_id": blocks[1], "text": "fox", "body": "Say which fox."}),
        )
        .await;
    assert_eq!(added["status"], "applied", "{added}");
    assert_eq!(
        stored_texts(&server, id).await,
        ["Intro paragraph.", "The quick brown fox."]
    );
    assert_eq!(threads(&agent, id).await.len(), 1);
}

/// A commenter may comment and may not edit (Docs' least-privilege role for an agent). Its
/// connection may not change the document, so its thread is attached to no text — said so.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_commenter_comments_and_is_refused_every_edit() {
    let server = DocsServer::start().await.unwrap();
    let ada = server.create_user("ada@example.org", "Ada").await.unwrap();
    let (id, blocks) = document_with(&server, &ada, "commenter", false).await;
    let agent = signed_in_agent(&server, Policy::Auto, &ada).await;
    let doc = id.to_string();
    let error = agent
        .call(
            "update_block",
            json!({"document": doc, "block_id": blocks[0], "text": "Changed."}),
        )
        .await
        .expect_err("refused");
    assert_eq!(error["code"], "DOC_READONLY", "{error}");
    let added = agent
        .ok(
            "add_comment",
            json!({"document": doc, "block_id": blocks[1], "text": "fox", "body": "Which one?"}),
        )
        .await;
    assert_eq!(added["status"], "applied", "{added}");
    assert_eq!(added["anchored"], false, "{added}");
    let made = threads(&agent, id).await;
    assert_eq!(made.len(), 1);
    assert_eq!(made[0].comments[0].markdown(), "Which one?");
    let listed = agent.ok("list_comments", json!({"document": doc})).await;
    assert_eq!(listed["threads"][0]["orphaned"], true);
}

/// The process died while making a comment: its thread was created, its text not marked (or
/// marked). The next start looks: unmarked, the thread is deleted and the comment `failed`
/// (not in the document); marked, the comment is `applied`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_comment_left_half_made_by_a_dead_process_is_settled_at_the_next_start() {
    settle_half_made_comments(0).await;
}

/// The same while the instance refuses the next start's first calls (429): looking for the
/// marks and deleting the thread are retried after the throttle, never given up.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_half_made_comment_is_settled_at_the_next_start_while_the_instance_throttles() {
    settle_half_made_comments(5).await;
}

/// Two comments left `applying` by a dead process, each with its thread, the second one's
/// text marked; the next start, its first `throttled` calls refused, settles them.
async fn settle_half_made_comments(throttled: u32) {
    let server = DocsServer::start().await.unwrap();
    let ada = server.create_user("ada@example.org", "Ada").await.unwrap();
    let (id, blocks) = document_with(&server, &ada, "editor", false).await;
    let first = signed_in_agent(&server, Policy::Review, &ada).await;
    let doc = id.to_string();
    let mut proposed = vec![];
    for text in ["quick", "fox"] {
        let pending = first
            .ok(
                "add_comment",
                json!({"document": doc, "block_id": blocks[1], "text": text, "body": "?"}),
            )
            .await;
        proposed.push(pending["edit_id"].as_str().unwrap().to_owned());
    }
    // What the dead process did: two threads created; the second one's text marked.
    let rest = first.service.client().unwrap();
    let body = docs_client::blocknote::comment_body_from_markdown("?").unwrap();
    let unmarked = rest.create_thread(id, &body).await.unwrap().id.to_string();
    let marked = rest.create_thread(id, &body).await.unwrap().id.to_string();
    first.service.shutdown().await;
    for _ in 0..200 {
        if server.live(id).await.unwrap().is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server
        .add_comment_mark(id, &blocks[1], "fox", &marked, false)
        .await
        .unwrap();
    // ...and what it wrote in its journal: both `applying`, each with its thread.
    let database = rusqlite::Connection::open(first.data.0.join("docs-mcp.sqlite3")).unwrap();
    for (edit, thread) in proposed.iter().zip([&unmarked, &marked]) {
        let record: String = database
            .query_row("SELECT record FROM edits WHERE id = ?1", [edit], |row| {
                row.get(0)
            })
            .unwrap();
        let mut record: serde_json::Value = serde_json::from_str(&record).unwrap();
        record["status"] = json!("applying");
        record["decided_by"] = json!("app");
        record["proposed_comment"]["thread_id"] = json!(thread);
        database
            .execute(
                "UPDATE edits SET status = 'applying', record = ?1 WHERE id = ?2",
                rusqlite::params![record.to_string(), edit],
            )
            .unwrap();
    }
    drop(database);

    server.throttle_next(throttled, 60).await.unwrap();
    let mut config = config(&server, &first.data.0, Policy::Review);
    config.session_cookie = Some(docs_client::Secret::new(&ada.session_cookie));
    config.csrf_token = Some(docs_client::Secret::new(&ada.csrf_token));
    let second = docs_mcp::DocsService::start(config).await.unwrap();
    let mut statuses = vec![];
    for edit in &proposed {
        let edit: Uuid = edit.parse().unwrap();
        let record = second.wait_for_decision(edit, WAIT).await.unwrap();
        statuses.push(record.status);
    }
    assert_eq!(statuses, [EditStatus::Failed, EditStatus::Applied]);
    let left: Vec<String> = own_client(&server, &ada)
        .threads(id)
        .await
        .unwrap()
        .iter()
        .map(|t| t.id.to_string())
        .collect();
    assert_eq!(left, [marked]);
    assert_eq!(
        server.stats().await.unwrap().throttled,
        u64::from(throttled)
    );
    second.shutdown().await;
}

/// A reader may not comment: refused with DOC_FORBIDDEN before anything is recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_reader_may_not_comment() {
    let server = DocsServer::start().await.unwrap();
    let ada = server.create_user("ada@example.org", "Ada").await.unwrap();
    let (id, blocks) = document_with(&server, &ada, "reader", false).await;
    let agent = signed_in_agent(&server, Policy::Auto, &ada).await;
    let error = agent
        .err(
            "add_comment",
            json!({"document": id.to_string(), "block_id": blocks[1], "text": "fox", "body": "?"}),
        )
        .await;
    assert_eq!(error["code"], "DOC_FORBIDDEN", "{error}");
    assert!(
        agent
            .service
            .edits(&docs_mcp::record::EditFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
}

/// A client of the instance of its own (its own budget of calls), signed in as `user`.
fn own_client(server: &DocsServer, user: &TestUser) -> docs_client::DocsClient {
    docs_client::DocsClient::new(
        docs_client::ClientConfig::new(docs_client::InstanceUrl::parse(server.url()).unwrap())
            .with_session(
                docs_client::Secret::new(&user.session_cookie),
                Some(docs_client::Secret::new(&user.csrf_token)),
            ),
    )
    .unwrap()
}

/// A burst of comments past the budget of REST calls (issue 27): the first ones' threads are
/// created and their marks written, but the save holding the marks may wait up to a minute for the
/// budget; the others' threads cannot be created. Each comment ends whole in Docs (its one
/// thread, its mark saved: `applied`) or absent from it (no thread, no mark: `failed`) — a
/// comment whose mark is in the document is followed until a save holds it, never `failed`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_comments_past_the_rest_budget_leaves_each_whole_or_absent() {
    let server = DocsServer::start().await.unwrap();
    let ada = server.create_user("ada@example.org", "Ada").await.unwrap();
    let (id, blocks) = document_with(&server, &ada, "editor", false).await;
    let data = temp_dir();
    let mut config = config(&server, &data.0, Policy::Auto);
    config.session_cookie = Some(docs_client::Secret::new(&ada.session_cookie));
    config.csrf_token = Some(docs_client::Secret::new(&ada.csrf_token));
    // Opening the document spends most of this budget.
    config.requests_per_minute = 5;
    let service = docs_mcp::DocsService::start(config).await.unwrap();
    let agent = Agent {
        client: connect(service.clone(), "burst").await,
        service,
        data,
    };
    let doc = id.to_string();
    agent.ok("read_document", json!({"document": doc})).await;

    let words = [
        (0, "Intro"),
        (0, "paragraph"),
        (1, "The"),
        (1, "quick"),
        (1, "brown"),
        (1, "fox"),
    ];
    let answers = futures_util::future::join_all(words.iter().map(|(block, word)| {
        agent.call(
            "add_comment",
            json!({"document": doc, "block_id": blocks[*block], "text": word, "body": "?"}),
        )
    }))
    .await;

    let (mut applied, mut failed) = (vec![], vec![]);
    for record in agent
        .service
        .edits(&docs_mcp::record::EditFilter::default())
        .await
        .unwrap()
    {
        let record = agent
            .service
            .wait_for_decision(record.id, Duration::from_secs(150))
            .await
            .unwrap();
        let comment = record.proposed_comment.unwrap();
        match record.status {
            EditStatus::Applied => applied.push((
                comment.thread_id.unwrap(),
                comment.quoted_text.unwrap(),
                comment.anchored,
            )),
            EditStatus::Failed => failed.push(record.error.unwrap().code),
            status => panic!("{status:?}: {:?}", record.error),
        }
    }
    applied.sort();
    // Docs holds the applied comments' threads, each once, and nothing else; the saved
    // document their marks, each on its word.
    let mut in_docs: Vec<String> = own_client(&server, &ada)
        .threads(id)
        .await
        .unwrap()
        .iter()
        .map(|t| t.id.to_string())
        .collect();
    in_docs.sort();
    let expected: Vec<String> = applied.iter().map(|(t, _, _)| t.clone()).collect();
    assert_eq!(in_docs, expected);
    let mut marks: Vec<(String, String, Option<bool>)> = stored_marks(&server, id)
        .await
        .into_iter()
        .map(|m| (m.thread_id, m.text, Some(true)))
        .collect();
    marks.sort();
    assert_eq!(marks, applied);
    assert!(!applied.is_empty());
    // Only a comment whose thread could not be created failed, and the agent heard so.
    assert!(
        failed.iter().all(|code| code == "RATE_LIMITED"),
        "{failed:?}"
    );
    // Each answer says what Docs held when it was given: `applied` only with its mark saved,
    // `applying` while the mark waited for a save the budget had not allowed yet (how many
    // did depends on how fast the budget refilled on this machine).
    for answer in &answers {
        match answer {
            Ok(made) if made["status"] == "applied" => assert_eq!(made["saved"], true, "{made}"),
            Ok(made) => {
                assert_eq!(made["status"], "applying", "{made}");
                assert_eq!(made["saved"], false, "{made}");
            }
            Err(error) => assert_eq!(error["code"], "RATE_LIMITED", "{error}"),
        }
    }
    agent.service.shutdown().await;
}
