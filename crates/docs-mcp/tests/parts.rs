//! Change by change: a person accepts some parts of an agent's edit (operations of an
//! apply_edits, blocks of an insert_blocks or a delete_blocks) and refuses the others. The
//! accepted parts are planned again and land exactly (read back by BlockNote's parser), the
//! refused ones leave their blocks untouched, the conflict rules hold for what is accepted,
//! and the agent hears which parts were applied.

mod support;

use std::collections::BTreeMap;

use docs_mcp::record::{Channel, EditStatus, Policy};
use serde_json::{Value, json};
use support::*;
use test_harness::{DocsServer, DocumentSpec};
use uuid::Uuid;

async fn seeded(server: &DocsServer) -> (Uuid, Vec<String>) {
    let id = server
        .create_document(
            DocumentSpec::new("Plan").markdown("Ship on Monday.\n\nOld intro.\n\nKeep me."),
        )
        .await
        .unwrap();
    (id, stored_block_ids(server, id).await)
}

fn edit_id(result: &Value) -> Uuid {
    result["edit_id"].as_str().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn some_operations_of_an_edit_are_applied_and_the_agent_hears_which() {
    let server = DocsServer::start().await.unwrap();
    let (id, blocks) = seeded(&server).await;
    let agent = agent(&server, Policy::Review).await;
    let doc = id.to_string();
    let proposed = agent
        .ok(
            "apply_edits",
            json!({"document": doc, "edits": [
                {"op": "replace_text", "old_text": "Monday", "new_text": "Friday"},
                {"op": "insert_blocks", "position": {"at": "end"}, "markdown": "Added at the end."},
                {"op": "delete_blocks", "block_ids": [blocks[1]]},
            ]}),
        )
        .await;
    assert_eq!(proposed["status"], "pending");
    let edit = edit_id(&proposed);
    let record = agent.service.edit(edit).await.unwrap();
    assert_eq!(
        record
            .parts
            .iter()
            .map(|p| p.label.as_str())
            .collect::<Vec<_>>(),
        [
            "Replace “Monday” with “Friday”",
            "Insert paragraph “Added at the end.”",
            "Delete “Old intro.”"
        ]
    );

    let decided = agent
        .service
        .approve_parts(edit, Channel::Window, &[2, 0], &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Applied, "{decided:?}");
    assert_eq!(decided.approved_parts, Some(vec![0, 2]));
    assert_eq!(
        stored_texts(&server, id).await,
        ["Ship on Friday.", "Keep me."]
    );
    let status = agent
        .ok("edit_status", json!({"edit_id": edit.to_string()}))
        .await;
    assert_eq!(status["status"], "applied");
    assert_eq!(status["applied_parts"], json!([0, 2]));
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains("0: Replace “Monday” with “Friday”; 2: Delete “Old intro.”")
            && message.contains("Refused: 1: Insert paragraph “Added at the end.”"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn some_blocks_of_an_insert_land_together_where_the_agent_asked() {
    let server = DocsServer::start().await.unwrap();
    let (id, blocks) = seeded(&server).await;
    let agent = agent(&server, Policy::Review).await;
    let proposed = agent
        .ok(
            "insert_blocks",
            json!({
                "document": id.to_string(),
                "position": {"at": "after", "block_id": blocks[0]},
                "markdown": "## Steps\n\nFirst **bold** step.\n\nSecond step.",
            }),
        )
        .await;
    let edit = edit_id(&proposed);
    assert_eq!(agent.service.edit(edit).await.unwrap().parts.len(), 3);
    let decided = agent
        .service
        .approve_parts(edit, Channel::Window, &[0, 2], &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Applied, "{decided:?}");
    assert_eq!(decided.new_blocks.len(), 2);
    assert_eq!(
        server.stored_settled(id).await.unwrap().markdown,
        "Ship on Monday.\n\n## Steps\n\nSecond step.\n\nOld intro.\n\nKeep me.\n"
    );
}

/// A person changed a block only a refused part touches: accepting the others is no
/// conflict. Accepting a part whose block changed is one, and nothing of the edit lands.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_the_accepted_parts_must_be_as_the_person_saw_them() {
    let server = DocsServer::start().await.unwrap();
    let (id, blocks) = seeded(&server).await;
    let agent = agent(&server, Policy::Review).await;
    let doc = id.to_string();
    let delete_two = json!({"document": doc, "block_ids": [blocks[1], blocks[2]]});
    let first = edit_id(&agent.ok("delete_blocks", delete_two.clone()).await);
    let second = edit_id(&agent.ok("delete_blocks", delete_two).await);

    // A person rewrites "Keep me." meanwhile (another live client of the same room).
    person_sets_text(&server, id, &blocks[2], "Keep me, really.").await;
    for _ in 0..100 {
        if agent
            .service
            .changed_since_proposed(first)
            .await
            .unwrap()
            .is_some()
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let conflict = agent
        .service
        .approve_parts(second, Channel::Window, &[1], &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(conflict.status, EditStatus::Conflict, "{conflict:?}");
    let decided = agent
        .service
        .approve_parts(first, Channel::Window, &[0], &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Applied, "{decided:?}");
    assert_eq!(
        stored_texts(&server, id).await,
        ["Ship on Monday.", "Keep me, really."]
    );

    // Bad choices are refused and change nothing.
    let whole = edit_id(
        &agent
            .ok(
                "update_block",
                json!({"document": doc, "block_id": blocks[0], "text": "Ship later."}),
            )
            .await,
    );
    for (edit, parts) in [(whole, vec![0]), (second, vec![0])] {
        let refused = agent
            .service
            .approve_parts(edit, Channel::Window, &parts, &BTreeMap::new())
            .await;
        assert!(refused.is_err(), "{edit} {parts:?}: {refused:?}");
    }
    let three = edit_id(
        &agent
            .ok(
                "insert_blocks",
                json!({"document": doc, "position": {"at": "end"}, "markdown": "a\n\nb"}),
            )
            .await,
    );
    for parts in [vec![], vec![5]] {
        let refused = agent
            .service
            .approve_parts(three, Channel::Window, &parts, &BTreeMap::new())
            .await;
        assert!(
            matches!(refused, Err(docs_mcp::ServiceError::InvalidInput { .. })),
            "{parts:?}: {refused:?}"
        );
    }
    assert_eq!(
        agent.service.edit(three).await.unwrap().status,
        EditStatus::Pending
    );
}

/// One part accepted as is, one rewritten by the person, one refused: what lands is what the
/// person chose, and the agent hears the person's text.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_part_may_be_accepted_with_the_persons_own_text() {
    let server = DocsServer::start().await.unwrap();
    let (id, blocks) = seeded(&server).await;
    let agent = agent(&server, Policy::Review).await;
    let doc = id.to_string();
    let proposed = agent
        .ok(
            "apply_edits",
            json!({"document": doc, "edits": [
                {"op": "update_block", "block_id": blocks[0], "text": "Ship on Friday."},
                {"op": "update_block", "block_id": blocks[1], "text": "New intro."},
                {"op": "insert_blocks", "position": {"at": "end"}, "markdown": "Extra."},
            ]}),
        )
        .await;
    let edit = edit_id(&proposed);
    let record = agent.service.edit(edit).await.unwrap();
    assert_eq!(
        record
            .parts
            .iter()
            .map(|p| p.text.as_deref())
            .collect::<Vec<_>>(),
        [Some("Ship on Friday."), Some("New intro."), None]
    );
    let texts = BTreeMap::from([(1, "A **better** intro.".to_owned())]);
    // A text for a part that has none, or for a refused part: refused, nothing decided.
    for (parts, bad) in [
        (vec![0, 2], BTreeMap::from([(2, "x".to_owned())])),
        (vec![0], texts.clone()),
    ] {
        assert!(
            agent
                .service
                .approve_parts(edit, Channel::Window, &parts, &bad)
                .await
                .is_err()
        );
    }
    assert_eq!(
        agent.service.edit(edit).await.unwrap().status,
        EditStatus::Pending
    );
    let decided = agent
        .service
        .approve_parts(edit, Channel::Window, &[0, 1], &texts)
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Applied, "{decided:?}");
    assert_eq!(
        stored_texts(&server, id).await,
        ["Ship on Friday.", "A better intro.", "Keep me."]
    );
    let status = agent
        .ok("edit_status", json!({"edit_id": edit.to_string()}))
        .await;
    assert_eq!(status["applied_parts"], json!([0, 1]));
    assert_eq!(status["part_texts"], json!({"1": "A **better** intro."}));
}
