//! The approval path under stress: what a person approves is what lands (or a conflict), a
//! decision is made once, concurrent writes to one block never interleave, and a person's
//! typing survives an agent's rewrite. Against the Docs-like test server (real Hocuspocus
//! 3.4.4; what lands is read back by BlockNote's parser) with a real MCP client.

mod support;

use std::time::Duration;

use docs_mcp::DocsService;
use docs_mcp::record::{AgentInfo, Channel, EditStatus, Policy};
use serde_json::{Value, json};
use support::*;
use test_harness::{DocsServer, DocumentSpec, TypistSpec};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// The block ids of a document, as an agent reads them.
async fn block_ids(agent: &Agent, doc: Uuid) -> Vec<String> {
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc.to_string(), "format": "blocks"}),
        )
        .await;
    read["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect()
}

fn edit_id(result: &Value) -> Uuid {
    result["edit_id"].as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_second_service_on_the_same_data_directory_is_refused() {
    let server = DocsServer::start().await.unwrap();
    let data = temp_dir();
    let first = DocsService::start(config(&server, &data.0, Policy::Review))
        .await
        .unwrap();
    let refused = DocsService::start(config(&server, &data.0, Policy::Auto))
        .await
        .err()
        .expect("the directory is taken");
    assert_eq!(refused.code().as_str(), "INTERNAL");
    assert_eq!(
        refused.to_string(),
        format!(
            "another Docs MCP service uses {}: docs-mcp (process {}, no MCP endpoint)",
            data.0.display(),
            std::process::id()
        )
    );
    assert_eq!(
        refused.hint(),
        "Stop the other Docs MCP service, or connect your agents to it instead."
    );
    first.shutdown().await;
    drop(first);
    // Once the first is gone, the directory is free again.
    let again = DocsService::start(config(&server, &data.0, Policy::Review))
        .await
        .unwrap();
    again.shutdown().await;
}

/// A person edits the block between the preview and the approval: the approval refuses with
/// EDIT_CONFLICT naming the block and who changed it, and the document keeps only the
/// person's text.
#[tokio::test]
async fn a_block_changed_by_a_person_after_the_preview_makes_the_approval_a_conflict() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Minutes").markdown("Attendees: Ada"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let block = block_ids(&agent, doc).await[0].clone();
    let pending = agent
        .ok(
            "update_block",
            json!({"document": doc.to_string(), "block_id": block, "text": "Attendees: Ada, Grace"}),
        )
        .await;
    assert_eq!(pending["status"], "pending");
    // As proposed: the card has nothing to warn of.
    assert_eq!(
        agent
            .service
            .changed_since_proposed(edit_id(&pending))
            .await
            .unwrap(),
        None
    );
    let mut events = agent.service.subscribe();
    let typist = server
        .start_typist(
            TypistSpec::new(doc, " and Linus")
                .block(&block)
                .interval_ms(5)
                .save(true),
        )
        .await
        .unwrap();
    assert!(typist.wait_done(WAIT).await.unwrap().saved);
    // The service's session has the person's text before the person approves.
    let open = agent.service.open(&doc.to_string(), None).await.unwrap();
    let mut changes = open.session.changes();
    tokio::time::timeout(WAIT, async {
        let text = || {
            let doc = open.session.doc();
            let fragment = docs_client::blocknote::document_fragment(doc);
            let blocks =
                docs_client::blocknote::read_document(&yrs::Transact::transact(doc), &fragment);
            blocks.blocks[0].plain_text()
        };
        while !text().contains("Linus") {
            changes.changed().await.unwrap();
        }
    })
    .await
    .unwrap();
    // The card can say so before the person decides: the reason the approval will give.
    let reason = format!(
        "block {block} was changed by someone else in the document since the edit was proposed"
    );
    let change = agent
        .service
        .changed_since_proposed(edit_id(&pending))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(change.reason, reason);
    // ... and what the block reads now, as the person left it.
    assert_eq!(change.now.as_deref(), Some("Attendees: Ada and Linus"));
    // The UI heard of the person's typing as it came, not only of the agents' edits.
    let told = tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(docs_mcp::ServiceEvent::DocumentChanged { document_id, .. }) =
                events.recv().await
                && document_id == doc
            {
                return;
            }
        }
    })
    .await;
    assert!(told.is_ok(), "no DocumentChanged for the person's typing");

    let decided = agent
        .service
        .approve(edit_id(&pending), Channel::Window)
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Conflict);
    let error = decided.error.unwrap();
    assert_eq!(error.code, "EDIT_CONFLICT");
    assert_eq!(
        error.message,
        format!(
            "the edit no longer applies: block {block} was changed by someone else in the document since the edit was proposed"
        )
    );
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Attendees: Ada and Linus"]
    );
    let status = agent
        .ok("edit_status", json!({"edit_id": decided.id.to_string()}))
        .await;
    assert_eq!(status["status"], "conflict");
}

/// A service that holds one session at a time, with an edit of the first block of `First`
/// pending, whose session was then closed to read `Second`: (server, agent, `First`, the
/// block, the pending edit's answer).
async fn an_edit_pending_in_a_closed_document() -> (DocsServer, Agent, Uuid, String, Value) {
    let server = DocsServer::start().await.unwrap();
    let first = server
        .create_document(DocumentSpec::new("First").markdown("Attendees: Ada"))
        .await
        .unwrap();
    let second = server
        .create_document(DocumentSpec::new("Second").markdown("Agenda"))
        .await
        .unwrap();
    let data = temp_dir();
    let mut one_session = config(&server, &data.0, Policy::Review);
    one_session.max_open_sessions = 1;
    let service = DocsService::start(one_session).await.unwrap();
    let agent = Agent {
        client: connect(service.clone(), "test-agent").await,
        service,
        data,
    };
    let block = block_ids(&agent, first).await[0].clone();
    let pending = agent
        .ok(
            "update_block",
            json!({"document": first.to_string(), "block_id": block, "text": "Attendees: Ada, Grace"}),
        )
        .await;
    assert_eq!(pending["status"], "pending");

    agent
        .ok("read_document", json!({"document": second.to_string()}))
        .await;
    let open: Vec<Uuid> = agent
        .service
        .sessions()
        .iter()
        .map(|s| s.document_id)
        .collect();
    assert_eq!(open, [second]);
    // The Sessions screen names the agent that used the open document; the closed one's
    // agents are forgotten with its session.
    assert_eq!(
        agent.service.session_agents(),
        std::collections::HashMap::from([(second, vec!["test-agent".to_owned()])])
    );
    (server, agent, first, block, pending)
}

/// The service holds one session at a time: reading another document closed the session of
/// the one with an edit pending. Approving it later opens the document again and applies
/// what the person saw.
#[tokio::test]
async fn an_edit_pending_in_a_document_closed_for_room_is_applied_when_approved() {
    let (server, agent, first, _, pending) = an_edit_pending_in_a_closed_document().await;
    let decided = agent
        .service
        .approve(edit_id(&pending), Channel::Window)
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Applied);
    assert_eq!(
        stored_texts(&server, first).await,
        ["Attendees: Ada, Grace"]
    );
    let status = agent
        .ok("edit_status", json!({"edit_id": decided.id.to_string()}))
        .await;
    assert_eq!(status["status"], "applied");
}

/// As above, but a person changes the block while no session of the service is in the
/// document: the session opened for the approval never saw the change happen, and the
/// approval is still a conflict, the person's text kept.
#[tokio::test]
async fn a_block_changed_while_its_document_was_closed_for_room_makes_the_approval_a_conflict() {
    let (server, agent, first, block, pending) = an_edit_pending_in_a_closed_document().await;
    let typist = server
        .start_typist(
            TypistSpec::new(first, " and Linus")
                .block(&block)
                .interval_ms(5)
                .save(true),
        )
        .await
        .unwrap();
    assert!(typist.wait_done(WAIT).await.unwrap().saved);

    let decided = agent
        .service
        .approve(edit_id(&pending), Channel::Window)
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Conflict);
    assert_eq!(decided.error.unwrap().code, "EDIT_CONFLICT");
    assert_eq!(
        stored_texts(&server, first).await,
        ["Attendees: Ada and Linus"]
    );
}

/// Two proposals for one block, approved together: the first lands, the second was planned
/// on the text the first replaced, so it is a conflict — never a mix of both.
#[tokio::test]
async fn two_proposals_for_one_block_approved_together_give_the_first_and_a_conflict() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Plan").markdown("Keep it short."))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let block = block_ids(&agent, doc).await[0].clone();
    let mut ids = vec![];
    for text in [
        "First proposal: keep it very short.",
        "Second proposal: replace everything here.",
    ] {
        let pending = agent
            .ok(
                "update_block",
                json!({"document": doc.to_string(), "block_id": block, "text": text}),
            )
            .await;
        ids.push(edit_id(&pending));
    }
    let decided = agent
        .service
        .decide_all(true, &ids, None, Channel::Window, &CancellationToken::new())
        .await
        .unwrap()
        .decided;
    let statuses: Vec<(Uuid, EditStatus)> = decided.iter().map(|e| (e.id, e.status)).collect();
    assert_eq!(
        statuses,
        [
            (ids[0], EditStatus::Applied),
            (ids[1], EditStatus::Conflict)
        ]
    );
    assert_eq!(
        stored_texts(&server, doc).await,
        ["First proposal: keep it very short."]
    );
}

/// A person stops an approve-all: no edit is decided after the stop, every edit is either
/// applied and returned or still pending, and the applied ones are the oldest (a document's
/// edits go in order), so what landed is a prefix of what was proposed.
#[tokio::test]
async fn a_stopped_approve_all_leaves_the_rest_pending_and_nothing_half_decided() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Steps").markdown("Start"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let mut ids = vec![];
    for n in 1..=6 {
        let pending = agent
            .ok(
                "insert_blocks",
                json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": format!("Step {n}")}),
            )
            .await;
        ids.push(edit_id(&pending));
    }

    let stopped = CancellationToken::new();
    stopped.cancel();
    let decided = agent
        .service
        .decide_all(true, &ids, None, Channel::Window, &stopped)
        .await
        .unwrap()
        .decided;
    assert!(decided.is_empty(), "{decided:?}");
    let rejected = agent
        .service
        .decide_all(false, &ids, None, Channel::Window, &stopped)
        .await
        .unwrap()
        .decided;
    assert!(rejected.is_empty(), "{rejected:?}");
    for id in &ids {
        assert_eq!(
            agent.service.edit(*id).await.unwrap().status,
            EditStatus::Pending
        );
    }

    // Stopped as soon as the first edit leaves `pending`, however far the approvals got.
    let stop = CancellationToken::new();
    let mut events = agent.service.subscribe();
    let stopper = {
        let stop = stop.clone();
        tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                if let docs_mcp::ServiceEvent::EditChanged { status, .. } = event
                    && status != EditStatus::Pending
                {
                    stop.cancel();
                    return;
                }
            }
        })
    };
    let decided = agent
        .service
        .decide_all(true, &ids, None, Channel::Window, &stop)
        .await
        .unwrap()
        .decided;
    stopper.await.unwrap();
    assert!(!decided.is_empty());
    let returned: Vec<Uuid> = decided.iter().map(|e| e.id).collect();
    assert_eq!(returned, ids[..decided.len()]);
    assert!(
        decided.iter().all(|e| e.status == EditStatus::Applied),
        "{decided:?}"
    );
    for id in &ids[decided.len()..] {
        assert_eq!(
            agent.service.edit(*id).await.unwrap().status,
            EditStatus::Pending
        );
    }
    let mut expected = vec!["Start".to_owned()];
    expected.extend((1..=decided.len()).map(|n| format!("Step {n}")));
    assert_eq!(stored_texts(&server, doc).await, expected);
}

/// A person approves an agent's rewrite with their own text: that text lands (read back by
/// BlockNote), the agent is told so with the text, the decision is made once, and undo brings
/// back the text from before the edit. Only a block's text can be changed this way.
#[tokio::test]
async fn a_person_approves_with_their_own_text_and_the_agent_is_told() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Minutes").markdown("Attendees: Ada\n\nNotes."))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let blocks = block_ids(&agent, doc).await;
    let pending = agent
        .ok(
            "update_block",
            json!({"document": doc.to_string(), "block_id": blocks[0], "text": "Attendees: Ada, Grace"}),
        )
        .await;
    let id = edit_id(&pending);

    let decided = agent
        .service
        .approve_with_text(id, Channel::Window, "Attendees: Ada, **Grace**, Linus")
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Applied);
    assert_eq!(
        decided.approved_text.as_deref(),
        Some("Attendees: Ada, **Grace**, Linus")
    );
    assert_eq!(
        decided.preview.after[0].markdown,
        "Attendees: Ada, **Grace**, Linus"
    );
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Attendees: Ada, Grace, Linus", "Notes."]
    );
    let stored = server.stored_settled(doc).await.unwrap();
    assert!(
        stored.markdown.contains("Attendees: Ada, **Grace**, Linus"),
        "{}",
        stored.markdown
    );
    let status = agent
        .ok("edit_status", json!({"edit_id": id.to_string()}))
        .await;
    assert_eq!(status["status"], "applied");
    assert_eq!(status["approved_text"], "Attendees: Ada, **Grace**, Linus");
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("Do not redo your version"),
        "{status}"
    );

    // Decided once: a second decision of either kind is refused, nothing changes.
    let again = agent
        .service
        .approve_with_text(id, Channel::Window, "Something else")
        .await
        .unwrap_err();
    assert!(
        matches!(again, docs_mcp::ServiceError::NotPending { .. }),
        "{again:?}"
    );
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Attendees: Ada, Grace, Linus", "Notes."]
    );

    // Undo restores the block as it was before the edit.
    let undone = agent
        .service
        .undo(
            id,
            None,
            AgentInfo::new("person", "app", "person"),
            Some(Channel::Window),
        )
        .await
        .unwrap();
    agent.service.confirmed(undone).await.unwrap();
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Attendees: Ada", "Notes."]
    );

    // An inserted block can be given the person's text too: its text, offered without its
    // block marker, the block staying what the agent made (a quote here).
    let insert = agent
        .ok(
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "> More *soon*."}),
        )
        .await;
    let proposed = agent.service.edit(edit_id(&insert)).await.unwrap();
    assert_eq!(
        (
            proposed.preview.after[0].markdown.as_str(),
            proposed.preview.after[0].text.as_deref()
        ),
        ("> More *soon*.", Some("More *soon*."))
    );
    let inserted = agent
        .service
        .approve_with_text(edit_id(&insert), Channel::Window, "Next **steps**")
        .await
        .unwrap();
    assert_eq!(inserted.status, EditStatus::Applied);
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Attendees: Ada", "Notes.", "Next steps"]
    );
    assert_eq!(
        (
            inserted.preview.after[0].block_type.as_str(),
            inserted.preview.after[0].markdown.as_str()
        ),
        ("quote", "> Next **steps**")
    );

    // A find-and-replace in one block: the person writes that block's text.
    let replace = agent
        .ok(
            "replace_text",
            json!({"document": doc.to_string(), "old_text": "Notes.", "new_text": "Minutes."}),
        )
        .await;
    let replaced = agent
        .service
        .approve_with_text(edit_id(&replace), Channel::Window, "Minutes, *approved*.")
        .await
        .unwrap();
    assert_eq!(replaced.status, EditStatus::Applied, "{replaced:?}");
    assert_eq!(
        replaced.approved_text.as_deref(),
        Some("Minutes, *approved*.")
    );
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Attendees: Ada", "Minutes, approved.", "Next steps"]
    );

    // Other edits cannot be changed (several blocks, a deletion): they stay pending.
    for (tool, arguments) in [
        (
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "One.\n\nTwo."}),
        ),
        (
            "delete_blocks",
            json!({"document": doc.to_string(), "block_ids": [blocks[1]]}),
        ),
    ] {
        let pending = agent.ok(tool, arguments).await;
        let refused = agent
            .service
            .approve_with_text(edit_id(&pending), Channel::Window, "Other")
            .await
            .unwrap_err();
        assert_eq!(refused.info().code, "INVALID_INPUT");
        assert!(
            refused.info().message.contains("only one block's text"),
            "{refused:?}"
        );
        assert_eq!(
            agent.service.edit(edit_id(&pending)).await.unwrap().status,
            EditStatus::Pending
        );
    }
}

/// A person typed in the block since the agent proposed its rewrite: approving it with other
/// text is a conflict, as approving it as it is would be, and only the person's typing stays.
#[tokio::test]
async fn approving_with_own_text_a_block_changed_since_is_a_conflict() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Minutes").markdown("Attendees: Ada"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let block = block_ids(&agent, doc).await[0].clone();
    let pending = agent
        .ok(
            "update_block",
            json!({"document": doc.to_string(), "block_id": block, "text": "Attendees: Ada, Grace"}),
        )
        .await;
    let typist = server
        .start_typist(
            TypistSpec::new(doc, " and Linus")
                .block(&block)
                .interval_ms(5)
                .save(true),
        )
        .await
        .unwrap();
    assert!(typist.wait_done(WAIT).await.unwrap().saved);
    let open = agent.service.open(&doc.to_string(), None).await.unwrap();
    let mut changes = open.session.changes();
    tokio::time::timeout(WAIT, async {
        while agent
            .service
            .changed_since_proposed(edit_id(&pending))
            .await
            .unwrap()
            .is_none()
        {
            changes.changed().await.unwrap();
        }
    })
    .await
    .unwrap();

    let decided = agent
        .service
        .approve_with_text(edit_id(&pending), Channel::Window, "Attendees: everyone")
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Conflict);
    assert_eq!(
        decided.error.unwrap().message,
        format!(
            "the edit no longer applies: block {block} was changed by someone else in the document since the edit was proposed"
        )
    );
    assert_eq!(decided.approved_text, None);
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Attendees: Ada and Linus"]
    );
}

/// An edit is undone once: a second undo while the first waits is refused, and once it is
/// undone, undoing again is refused too. The document reads as before the edit.
#[tokio::test]
async fn an_edit_is_undone_once() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Undo").markdown("Hello old world"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let replaced = agent
        .ok(
            "replace_text",
            json!({"document": doc.to_string(), "old_text": "old", "new_text": "new"}),
        )
        .await;
    assert_eq!(replaced["status"], "applied");
    assert_eq!(stored_texts(&server, doc).await, ["Hello new world"]);
    agent
        .service
        .set_policy(Some(doc), Some(Policy::Review))
        .await
        .unwrap();

    // The agent asks for an undo (it waits for the person)...
    let undo = agent
        .ok("undo_edit", json!({"edit_id": replaced["edit_id"]}))
        .await;
    assert_eq!(undo["status"], "pending");
    // ... the person clicks Undo in History meanwhile: refused, the first one waits.
    let person = AgentInfo::new("Docs MCP (undo)", "app", "app");
    let refused = agent
        .service
        .undo(
            edit_id(&replaced),
            None,
            person.clone(),
            Some(Channel::Window),
        )
        .await
        .unwrap_err();
    assert_eq!(refused.code().as_str(), "EDIT_CONFLICT");
    assert_eq!(
        refused.to_string(),
        format!(
            "an undo of edit {} is already waiting for a decision (edit {})",
            edit_id(&replaced),
            edit_id(&undo)
        )
    );
    // The agent repeats its undo: refused the same way.
    let again = agent
        .err("undo_edit", json!({"edit_id": replaced["edit_id"]}))
        .await;
    assert_eq!(again["code"], "EDIT_CONFLICT");

    let applied = agent
        .service
        .approve(edit_id(&undo), Channel::Window)
        .await
        .unwrap();
    assert_eq!(applied.status, EditStatus::Applied);
    assert_eq!(
        agent.service.edit(edit_id(&replaced)).await.unwrap().status,
        EditStatus::Undone
    );
    assert_eq!(stored_texts(&server, doc).await, ["Hello old world"]);
    let after = agent
        .service
        .undo(edit_id(&replaced), None, person, Some(Channel::Window))
        .await
        .unwrap_err();
    assert_eq!(
        after.to_string(),
        format!(
            "edit {} is undone; only applied edits can be undone",
            edit_id(&replaced)
        )
    );
    assert_eq!(stored_texts(&server, doc).await, ["Hello old world"]);
}

/// A person's own undo (History's Undo) is their decision: under a review policy it is not
/// queued for approval nor announced as a pending edit, it is applied at once.
#[tokio::test]
async fn a_persons_undo_is_decided_at_once_and_never_pending() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Own undo").markdown("Hello old world"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let replaced = agent
        .ok(
            "replace_text",
            json!({"document": doc.to_string(), "old_text": "old", "new_text": "new"}),
        )
        .await;
    assert_eq!(stored_texts(&server, doc).await, ["Hello new world"]);
    agent
        .service
        .set_policy(Some(doc), Some(Policy::Review))
        .await
        .unwrap();
    let mut events = agent.service.subscribe();
    let person = AgentInfo::new("Docs MCP (undo)", "app", "app");
    let undo = agent
        .service
        .undo(edit_id(&replaced), None, person, Some(Channel::Window))
        .await
        .unwrap();
    assert_eq!(undo.decided_by, Some(Channel::Window));
    let undo = agent.service.confirmed(undo).await.unwrap();
    assert_eq!(undo.status, EditStatus::Applied);
    assert_eq!(stored_texts(&server, doc).await, ["Hello old world"]);
    let mut statuses = vec![];
    while let Ok(event) = events.try_recv() {
        if let docs_mcp::ServiceEvent::EditChanged {
            edit_id, status, ..
        } = event
            && edit_id == undo.id
        {
            statuses.push(status);
        }
    }
    assert!(!statuses.is_empty(), "the undo's changes are announced");
    assert!(
        !statuses.contains(&EditStatus::Pending),
        "never pending: {statuses:?}"
    );
}

/// Ten agents read a paragraph, then all rewrite it at once: exactly one rewrite lands; the
/// nine others were made from a text that is gone and are refused, saying so.
#[tokio::test]
async fn ten_concurrent_rewrites_of_one_block_apply_one_and_refuse_nine() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Race").markdown("The original sentence."))
        .await
        .unwrap();
    let first = agent(&server, Policy::Auto).await;
    let block = block_ids(&first, doc).await[0].clone();
    let mut agents = vec![];
    for _ in 0..10 {
        let client = connect(first.service.clone(), "racer").await;
        let racer = Agent {
            client,
            service: first.service.clone(),
            data: temp_dir(),
        };
        block_ids(&racer, doc).await;
        agents.push(racer);
    }
    let texts: Vec<String> = (0..10)
        .map(|i| format!("Variant {i} of the sentence."))
        .collect();
    let calls = agents.iter().zip(&texts).map(|(racer, text)| {
        racer.call(
            "update_block",
            json!({"document": doc.to_string(), "block_id": block, "text": text}),
        )
    });
    let outcomes = futures_util::future::join_all(calls).await;
    let applied: Vec<&Value> = outcomes.iter().filter_map(|o| o.as_ref().ok()).collect();
    assert_eq!(applied.len(), 1, "{outcomes:?}");
    for refused in outcomes.iter().filter_map(|o| o.as_ref().err()) {
        assert_eq!(refused["code"], "STALE_REVISION", "{refused}");
        assert!(
            refused["message"]
                .as_str()
                .unwrap()
                .contains("overlaps a change made since you read it"),
            "{refused}"
        );
    }
    let landed = stored_texts(&server, doc).await;
    assert_eq!(landed.len(), 1);
    assert!(texts.contains(&landed[0]), "{landed:?}");
}

/// A person types 30 characters at the end of a paragraph while an agent, from its earlier
/// read, rewrites a word in it (no revision quoted): every character typed is kept and the
/// agent's change is applied — 20 times in a row.
#[tokio::test]
async fn a_person_typing_while_an_agent_rewrites_the_paragraph_loses_nothing() {
    let server = DocsServer::start().await.unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let typed = "+0123456789abcdefghijklmnopqrs";
    assert_eq!(typed.chars().count(), 30);
    // One document (Docs allows 80 API calls a minute), a paragraph per trial.
    let markdown: Vec<String> = (0..20)
        .map(|i| format!("The quick brown fox {i}."))
        .collect();
    let doc = server
        .create_document(DocumentSpec::new("Typing").markdown(&markdown.join("\n\n")))
        .await
        .unwrap();
    let blocks = block_ids(&agent, doc).await;
    for (trial, block) in blocks.iter().enumerate() {
        // The agent read the paragraph; now the person types into it...
        agent
            .ok("read_document", json!({"document": doc.to_string()}))
            .await;
        let typist = server
            .start_typist(
                TypistSpec::new(doc, typed)
                    .block(block)
                    .interval_ms(10)
                    .save(true),
            )
            .await
            .unwrap();
        // ... and the agent writes while the person types.
        tokio::time::sleep(Duration::from_millis(60 + 7 * trial as u64)).await;
        let result = agent
            .ok(
                "update_block",
                json!({"document": doc.to_string(), "block_id": block, "text": format!("The slow brown fox {trial}.")}),
            )
            .await;
        // Slow to confirm (a busy machine): the agent follows it as it is told to.
        let result = if result["status"] == "applying" {
            agent
                .ok(
                    "edit_status",
                    json!({"edit_id": result["edit_id"], "wait_seconds": 20}),
                )
                .await
        } else {
            result
        };
        assert_eq!(result["status"], "applied", "trial {trial}: {result}");
        let status = typist.wait_done(WAIT).await.unwrap();
        assert_eq!((status.typed, status.error), (30, None), "trial {trial}");
    }
    // Every paragraph has the agent's change and every character typed.
    let expected: Vec<String> = (0..20)
        .map(|i| format!("The slow brown fox {i}.{typed}"))
        .collect();
    let open = agent.service.open(&doc.to_string(), None).await.unwrap();
    open.session.flush(WAIT).await.unwrap();
    let mut stored = stored_texts(&server, doc).await;
    for _ in 0..50 {
        if stored == expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        stored = stored_texts(&server, doc).await;
    }
    assert_eq!(stored, expected);
}

/// An agent's self-reported name is cleaned before anyone sees it: no markup-breaking
/// control or direction characters, one line, at most 64 characters.
#[tokio::test]
async fn agent_names_are_cleaned_and_capped() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Names").markdown("Text"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let name = format!("Evil\u{202E}gnp.exe\n\tbot{}", "x".repeat(500));
    let client = connect(agent.service.clone(), &name).await;
    let shouty = Agent {
        client,
        service: agent.service.clone(),
        data: temp_dir(),
    };
    let pending = shouty
        .ok(
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Hi"}),
        )
        .await;
    let record = agent.service.edit(edit_id(&pending)).await.unwrap();
    let expected = format!("Evil gnp.exe bot{}…", "x".repeat(47));
    assert_eq!(record.agent.name, expected);
    assert_eq!(record.agent.name.chars().count(), 64);
    let presence = server.awareness(doc).await.unwrap();
    assert!(
        presence
            .iter()
            .any(|presence| presence["state"]["user"]["name"] == expected.as_str()),
        "{presence:?}"
    );
}

/// Moves an edit to `status` in the database of a stopped service, as a crash at that point
/// would have left it.
async fn left_as(data: &std::path::Path, id: Uuid, status: EditStatus) {
    let store = docs_mcp::Store::open(&data.join("docs-mcp.sqlite3")).unwrap();
    let mut record = store.edit(id).await.unwrap().unwrap();
    let from = record.status;
    record.status = status;
    record.decided_by = Some(Channel::Window);
    assert!(
        store
            .transition(docs_mcp::Transition { record, from })
            .await
            .unwrap()
    );
}

/// A run stopped between `applying` and the merge (the change is not in the document): the
/// next start merges it, after the same checks, and confirms it.
#[tokio::test]
async fn an_approval_cut_short_before_its_merge_is_completed_at_the_next_start() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Resume").markdown("Start"))
        .await
        .unwrap();
    let data = temp_dir();
    let first = DocsService::start(config(&server, &data.0, Policy::Review))
        .await
        .unwrap();
    let client = connect(first.clone(), "resumer").await;
    let agent = Agent {
        client,
        service: first.clone(),
        data: temp_dir(),
    };
    let pending = agent
        .ok(
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Approved before the crash"}),
        )
        .await;
    first.shutdown().await;
    drop(agent);
    drop(first);
    left_as(&data.0, edit_id(&pending), EditStatus::Applying).await;

    let second = DocsService::start(config(&server, &data.0, Policy::Review))
        .await
        .unwrap();
    let record = second
        .wait_for_decision(edit_id(&pending), WAIT)
        .await
        .unwrap();
    assert_eq!(record.status, EditStatus::Applied);
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Start", "Approved before the crash"]
    );
    second.shutdown().await;
}

/// A run stopped after the save but before recording it: the next start finds the change in
/// the document and records it applied — without merging it a second time.
#[tokio::test]
async fn an_applied_edit_recorded_as_applying_is_found_and_not_applied_twice() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Twice").markdown("Start"))
        .await
        .unwrap();
    let data = temp_dir();
    let first = DocsService::start(config(&server, &data.0, Policy::Auto))
        .await
        .unwrap();
    let client = connect(first.clone(), "once").await;
    let agent = Agent {
        client,
        service: first.clone(),
        data: temp_dir(),
    };
    let applied = agent
        .ok(
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Only once"}),
        )
        .await;
    assert_eq!(applied["status"], "applied");
    first.shutdown().await;
    drop(agent);
    drop(first);
    left_as(&data.0, edit_id(&applied), EditStatus::Applying).await;

    let second = DocsService::start(config(&server, &data.0, Policy::Auto))
        .await
        .unwrap();
    let record = second
        .wait_for_decision(edit_id(&applied), WAIT)
        .await
        .unwrap();
    assert_eq!(record.status, EditStatus::Applied);
    assert_eq!(stored_texts(&server, doc).await, ["Start", "Only once"]);
    second.shutdown().await;
}

/// Two pending insertions into `doc`, returning their edit ids.
async fn pending_inserts(agent: &Agent, doc: Uuid, texts: &[&str]) -> Vec<Uuid> {
    let mut ids = vec![];
    for text in texts {
        let pending = agent
            .ok(
                "insert_blocks",
                json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": text}),
            )
            .await;
        assert_eq!(pending["status"], "pending");
        ids.push(edit_id(&pending));
    }
    ids
}

/// The collaboration server stops answering (a frozen room) while a person approves: the
/// edit is `applying` — never `failed` while it may land — and becomes `applied` once the
/// server answers again; the agent's edit_status follows it there.
#[tokio::test]
async fn an_approval_while_the_server_does_not_answer_is_applying_then_applied() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Frozen").markdown("Start"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let ids = pending_inserts(&agent, doc, &["While frozen"]).await;
    assert!(server.freeze(doc).await.unwrap() > 0);

    let decided = agent
        .service
        .approve(ids[0], Channel::Window)
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Applying);
    assert_eq!(decided.error, None);
    let status = agent
        .ok("edit_status", json!({"edit_id": ids[0].to_string()}))
        .await;
    assert_eq!(status["status"], "applying");
    assert_eq!(stored_texts(&server, doc).await, ["Start"]);

    server.unfreeze(doc).await.unwrap();
    let status = agent
        .ok(
            "edit_status",
            json!({"edit_id": ids[0].to_string(), "wait_seconds": 45}),
        )
        .await;
    assert_eq!(status["status"], "applied", "{status}");
    assert_eq!(stored_texts(&server, doc).await, ["Start", "While frozen"]);
}

/// The collaboration server is down (its proxy answers 502) while a person approves: the edit
/// is merged into the session and `applying` — not in the stored content, never `failed` —
/// and `applied` once the server is back and acknowledged it.
#[tokio::test]
async fn an_approval_while_the_collaboration_server_is_down_is_applying_then_applied() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Down").markdown("Start"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let ids = pending_inserts(&agent, doc, &["While down"]).await;
    server.set_collaboration_down(true).await.unwrap();

    let decided = agent
        .service
        .approve(ids[0], Channel::Window)
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Applying);
    assert_eq!(decided.error, None);
    assert_eq!(stored_texts(&server, doc).await, ["Start"]);

    server.set_collaboration_down(false).await.unwrap();
    let status = agent
        .ok(
            "edit_status",
            json!({"edit_id": ids[0].to_string(), "wait_seconds": 45}),
        )
        .await;
    assert_eq!(status["status"], "applied", "{status}");
    assert_eq!(stored_texts(&server, doc).await, ["Start", "While down"]);
}

/// What the service keeps (the journal holds document text; the control token decides
/// edits) is the user's only: the data directory 0700, every file in it 0600.
#[cfg(unix)]
#[tokio::test]
async fn the_data_directory_and_its_files_are_the_users_only() {
    use std::os::unix::fs::PermissionsExt;
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Private").markdown("Start"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let applied = agent
        .ok(
            "insert_blocks",
            json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Journaled text"}),
        )
        .await;
    assert_eq!(applied["status"], "applied");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let dir = &agent.data.0;
    assert_eq!(mode(dir), 0o700);
    let mut files: Vec<(String, u32)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                mode(&p),
            )
        })
        .collect();
    files.sort();
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    assert!(
        names.iter().any(|n| n.ends_with(".sqlite3"))
            && names.iter().any(|n| n.ends_with("-wal"))
            && names.contains(&"control-token"),
        "{names:?}"
    );
    for (name, mode) in &files {
        assert_eq!(*mode, 0o600, "{name}");
    }
}

/// The person's approval call goes away mid-way (a closed window, Ctrl-C on the CLI): the
/// decision is made anyway and recorded — never an edit in the document still `pending`.
#[tokio::test]
async fn an_approval_whose_caller_goes_away_is_completed() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Dropped").markdown("Start"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let ids = pending_inserts(&agent, doc, &["Approved then dropped"]).await;
    // Slow to confirm: the caller gives up before the service is done.
    server.freeze(doc).await.unwrap();
    let dropped = tokio::time::timeout(
        Duration::from_millis(300),
        agent.service.approve(ids[0], Channel::Window),
    )
    .await;
    assert!(dropped.is_err(), "the approval should still be running");
    let status = agent.service.edit(ids[0]).await.unwrap().status;
    assert!(
        matches!(status, EditStatus::Applying),
        "the decision was cut short: {status:?}"
    );
    server.unfreeze(doc).await.unwrap();
    let record = agent
        .service
        .wait_for_decision(ids[0], Duration::from_secs(45))
        .await
        .unwrap();
    assert_eq!(record.status, EditStatus::Applied);
    assert_eq!(
        stored_texts(&server, doc).await,
        ["Start", "Approved then dropped"]
    );
}

/// One document's server hangs while the person approves 20 edits in 20 documents: the 19
/// others are applied, confirmed, without waiting for it; the hung one is `applying`.
#[tokio::test]
async fn approvals_in_other_documents_do_not_wait_for_a_hung_one() {
    let server = DocsServer::start().await.unwrap();
    let agent = agent(&server, Policy::Review).await;
    let mut docs = vec![];
    let mut ids = vec![];
    for i in 0..20 {
        let doc = server
            .create_document(DocumentSpec::new(&format!("Doc {i}")).markdown("Start"))
            .await
            .unwrap();
        ids.extend(pending_inserts(&agent, doc, &[&format!("Edit {i}")]).await);
        docs.push(doc);
    }
    server.freeze(docs[7]).await.unwrap();
    let decided = agent
        .service
        .decide_all(true, &ids, None, Channel::Window, &CancellationToken::new())
        .await
        .unwrap()
        .decided;
    let statuses: Vec<EditStatus> = decided.iter().map(|e| e.status).collect();
    let hung = decided
        .iter()
        .position(|e| e.document_id == docs[7])
        .unwrap();
    for (i, status) in statuses.iter().enumerate() {
        let expected = if i == hung {
            EditStatus::Applying
        } else {
            EditStatus::Applied
        };
        assert_eq!(*status, expected, "{i}: {statuses:?}");
    }
    for (i, doc) in docs.iter().enumerate() {
        if i != 7 {
            assert_eq!(
                stored_texts(&server, *doc).await,
                ["Start", &format!("Edit {i}")]
            );
        }
    }
    server.unfreeze(docs[7]).await.unwrap();
    let record = agent
        .service
        .wait_for_decision(ids[7], Duration::from_secs(45))
        .await
        .unwrap();
    assert_eq!(record.status, EditStatus::Applied);
}

/// An agent proposing in a loop cannot bury the review: at most 50 of its edits wait (by the
/// name on its cards), another agent still gets through, and a reason is at most 1000
/// characters.
#[tokio::test]
async fn pending_edits_per_agent_and_reasons_are_bounded() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Flooded").markdown("First."))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let request = |name: &str, reason: Option<String>| docs_mcp::EditRequest {
        document: doc.to_string(),
        arguments: json!({}),
        ops: vec![docs_mcp::edits::EditOp::InsertBlocks(
            docs_mcp::edits::InsertBlocks {
                position: docs_mcp::edits::Position {
                    at: docs_mcp::edits::Anchor::End,
                    block_id: None,
                },
                markdown: Some("More.".into()),
                blocks: None,
            },
        )],
        tool: "insert_blocks".into(),
        reason,
        revision: None,
        agent: AgentInfo::new(name, "test", name),
        bases: docs_mcp::edits::TextBases::new(),
    };
    for _ in 0..docs_mcp::MAX_PENDING_PER_AGENT {
        let record = agent
            .service
            .submit(request("Looping agent", None))
            .await
            .unwrap();
        assert_eq!(record.status, EditStatus::Pending);
    }
    let refused = agent
        .service
        .submit(request("Looping agent", None))
        .await
        .unwrap_err();
    assert_eq!(refused.code().as_str(), "TOO_MANY_PENDING");
    assert_eq!(
        refused.to_string(),
        "50 edits already wait for the user (50 of them yours); no more are taken until they decide some"
    );
    let other = agent
        .service
        .submit(request("Other agent", None))
        .await
        .unwrap();
    assert_eq!(other.status, EditStatus::Pending);

    let long = agent
        .service
        .submit(request("Other agent", Some("why ".repeat(300))))
        .await
        .unwrap_err();
    assert_eq!(
        (long.code().as_str(), long.to_string()),
        (
            "INVALID_INPUT",
            "the reason is 1199 characters; at most 1000".to_owned()
        )
    );
    assert_eq!(agent.service.pending_count().await.unwrap(), 51);
}

/// "Approve all" says what became of each edit: one whose approval could not even start
/// (its document out of reach) still waits and is listed with why, not counted as decided
/// elsewhere; one decided elsewhere is listed as such.
#[tokio::test]
async fn a_group_decision_says_which_edits_it_could_not_decide_and_why() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Out of reach").markdown("First."))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let waits = edit_id(
        &agent
            .ok(
                "insert_blocks",
                json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "One."}),
            )
            .await,
    );
    let decided_before = edit_id(
        &agent
            .ok(
                "insert_blocks",
                json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Two."}),
            )
            .await,
    );
    agent
        .service
        .reject(decided_before, None, Channel::Window)
        .await
        .unwrap();
    // The document's session closed, and the instance refusing every call for a minute.
    agent.service.close_session(doc).await.unwrap();
    server.throttle_next(20, 60).await.unwrap();
    let outcome = agent
        .service
        .decide_all(
            true,
            &[waits, decided_before],
            None,
            Channel::Window,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(outcome.decided.is_empty(), "{outcome:?}");
    assert_eq!(outcome.elsewhere, [decided_before]);
    assert_eq!(outcome.failed.len(), 1, "{outcome:?}");
    assert_eq!(outcome.failed[0].id, waits);
    assert_eq!(outcome.failed[0].error.code, "RATE_LIMITED");
    assert_eq!(
        agent.service.edit(waits).await.unwrap().status,
        EditStatus::Pending
    );
}

/// A stop saves what it holds; what the instance's request budget does not let it save before
/// its bound, it leaves in the journal and says so — which documents, how many edits, why —
/// at once rather than at the end of its bound. The next start saves it.
#[tokio::test]
async fn a_stop_with_the_request_budget_spent_says_what_it_left_and_the_next_start_saves_it() {
    let server = DocsServer::start().await.unwrap();
    if server.collaboration() == test_harness::Collaboration::Yhub {
        // yhub stores what it takes: nothing waits for a save of ours.
        return;
    }
    let mut docs = vec![];
    for title in ["Spent 1", "Spent 2", "Spent 3"] {
        let spec = DocumentSpec::new(title).markdown("Start");
        docs.push(server.create_document(spec).await.unwrap());
    }
    let data = temp_dir();
    let first = DocsService::start(config(&server, &data.0, Policy::Auto))
        .await
        .unwrap();
    let agent = Agent {
        client: connect(first.clone(), "spender").await,
        service: first.clone(),
        data: temp_dir(),
    };
    for doc in &docs {
        agent
            .ok("read_document", json!({"document": doc.to_string()}))
            .await;
    }
    // The instance's request budget is spent from now on, for a minute.
    server.throttle_next(1_000_000, 60).await.unwrap();
    let mut edits = vec![];
    for doc in &docs {
        let applied = agent
            .ok(
                "insert_blocks",
                json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": "Applied, unsaved"}),
            )
            .await;
        assert_eq!(
            (&applied["status"], &applied["saved"]),
            (&json!("applied"), &json!(false)),
            "{applied}"
        );
        edits.push(edit_id(&applied));
    }

    let report = first.shutdown().await;
    let mut left: Vec<_> = report
        .left
        .iter()
        .map(|l| {
            (
                l.document_id,
                l.document_title.as_deref(),
                l.edits,
                l.reason.as_str(),
            )
        })
        .collect();
    left.sort_by_key(|l| l.1);
    let why = "the Docs instance is throttling requests; retry in 60 s";
    assert_eq!(
        left,
        [
            (docs[0], Some("Spent 1"), 1, why),
            (docs[1], Some("Spent 2"), 1, why),
            (docs[2], Some("Spent 3"), 1, why),
        ]
    );
    for doc in &docs {
        assert_eq!(texts(&server.stored(*doc).await.unwrap().blocks), ["Start"]);
    }
    drop(agent);
    drop(first);

    server.throttle_next(0, 0).await.unwrap();
    let second = DocsService::start(config(&server, &data.0, Policy::Auto))
        .await
        .unwrap();
    for id in &edits {
        let mut record = second.edit(*id).await.unwrap();
        for _ in 0..300 {
            if record.saved_at.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            record = second.edit(*id).await.unwrap();
        }
        assert_eq!(record.status, EditStatus::Applied);
        assert!(record.saved_at.is_some(), "{record:?}");
    }
    for doc in &docs {
        assert_eq!(
            texts(&server.stored(*doc).await.unwrap().blocks),
            ["Start", "Applied, unsaved"]
        );
    }
    assert_eq!(second.shutdown().await.left, []);
}

/// An agent lists what it asked that still waits and withdraws its own proposal: it leaves
/// the person's queue, is never applied, and the person's later Approve says it is no longer
/// pending. Another agent cannot withdraw it, nor a decided edit be withdrawn.
#[tokio::test]
async fn an_agent_withdraws_its_own_pending_edit_and_only_its_own() {
    let server = DocsServer::start().await.unwrap();
    let doc = server
        .create_document(DocumentSpec::new("Plan").markdown("Keep it short."))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let block = block_ids(&agent, doc).await[0].clone();
    let mut ids = vec![];
    for text in ["A first idea.", "A better idea."] {
        let pending = agent
            .ok(
                "update_block",
                json!({"document": doc.to_string(), "block_id": block, "text": text, "reason": text}),
            )
            .await;
        ids.push(edit_id(&pending));
    }
    let mine = agent.ok("my_edits", json!({})).await;
    let listed: Vec<(&str, &str, &str)> = mine["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["edit_id"].as_str().unwrap(),
                e["status"].as_str().unwrap(),
                e["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (ids[1].to_string().as_str(), "pending", "A better idea."),
            (ids[0].to_string().as_str(), "pending", "A first idea."),
        ]
    );

    // Another agent of the same service cannot take it back.
    let other = Agent {
        client: connect(agent.service.clone(), "someone-else").await,
        service: agent.service.clone(),
        data: temp_dir(),
    };
    let refused = other
        .call("withdraw_edit", json!({"edit_id": ids[0].to_string()}))
        .await
        .unwrap_err();
    assert_eq!(refused["code"], "INVALID_INPUT", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("another agent"),
        "{refused}"
    );
    assert_eq!(other.ok("my_edits", json!({})).await["edits"], json!([]));

    let withdrawn = agent
        .ok("withdraw_edit", json!({"edit_id": ids[0].to_string()}))
        .await;
    assert_eq!(withdrawn["status"], "withdrawn");
    let record = agent.service.edit(ids[0]).await.unwrap();
    assert_eq!(
        (record.status, record.decided_by),
        (EditStatus::Withdrawn, None)
    );
    // The person's queue holds only the other one; approving the withdrawn one is refused.
    let pending: Vec<Uuid> = agent
        .service
        .edits(&docs_mcp::record::EditFilter {
            status: Some(vec![EditStatus::Pending]),
            ..Default::default()
        })
        .await
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(pending, [ids[1]]);
    let decided = agent
        .service
        .decide_all(true, &ids, None, Channel::Window, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        decided.decided.iter().map(|e| e.id).collect::<Vec<_>>(),
        [ids[1]]
    );
    assert_eq!(decided.elsewhere, [ids[0]]);
    assert_eq!(stored_texts(&server, doc).await, ["A better idea."]);
    // Decided, it can no longer be withdrawn; the listing says what became of both.
    let late = agent
        .call("withdraw_edit", json!({"edit_id": ids[1].to_string()}))
        .await
        .unwrap_err();
    assert_eq!(late["code"], "INVALID_INPUT", "{late}");
    assert!(
        late["message"]
            .as_str()
            .unwrap()
            .contains("is applied, not pending"),
        "{late}"
    );
    let all = agent
        .ok("my_edits", json!({"status": ["applied", "withdrawn"]}))
        .await;
    let statuses: Vec<&str> = all["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["applied", "withdrawn"]);
}
