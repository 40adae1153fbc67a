//! Decisions taken where they are taken: the policy and Pause are read once an edit holds its
//! document, not when it asked — a switch made while it waited is honoured.

use std::time::Duration;

use test_harness::{DocsServer, DocumentSpec};

use super::*;
use crate::edits::{Anchor, EditOp, InsertBlocks, Position, TextBases};
use crate::record::AgentInfo;

async fn service(server: &DocsServer, data: &std::path::Path) -> Arc<DocsService> {
    let mut config = ServiceConfig::new(data.to_path_buf());
    config.instance = Some(docs_client::InstanceUrl::parse(server.url()).unwrap());
    config.default_policy = Policy::Auto;
    config.approval_wait = Duration::from_millis(500);
    config.save_interval = Duration::from_millis(100);
    DocsService::start(config).await.unwrap()
}

fn insert(document: Uuid, text: &str) -> EditRequest {
    let position = Position {
        at: Anchor::End,
        block_id: None,
    };
    EditRequest {
        document: document.to_string(),
        arguments: serde_json::json!({ "markdown": text }),
        ops: vec![EditOp::InsertBlocks(InsertBlocks {
            position,
            markdown: Some(text.to_owned()),
            blocks: None,
        })],
        tool: "insert_blocks".into(),
        reason: None,
        revision: None,
        agent: AgentInfo::new("Queued agent", "test", "agent"),
        bases: TextBases::new(),
    }
}

/// Submits an edit while the document's lock is held (as by another edit being merged), then
/// `meanwhile` changes what decides it; the edit is decided once the lock is released.
async fn decided_after(
    service: &Arc<DocsService>,
    document: Uuid,
    meanwhile: impl std::future::Future<Output = ()>,
) -> ServiceResult<EditRecord> {
    let guard = service.doc_locks.lock(document).await;
    let submitted = {
        let service = service.clone();
        tokio::spawn(async move { service.submit(insert(document, "Queued.")).await })
    };
    service.doc_locks.until_waiting(document, 1).await;
    assert!(!submitted.is_finished(), "the edit waits for its document");
    meanwhile.await;
    drop(guard);
    submitted.await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_or_pause_switched_while_an_edit_waits_for_its_document_is_honoured() {
    let server = DocsServer::start().await.unwrap();
    let document = server
        .create_document(DocumentSpec::new("Queued").markdown("First."))
        .await
        .unwrap();
    let data = std::env::temp_dir().join(format!("docs-mcp-queued-{}", Uuid::new_v4()));
    let service = service(&server, &data).await;
    // Opened first: the lock is taken on the document the edit will use.
    service.open(&document.to_string(), None).await.unwrap();

    let to_review = decided_after(&service, document, async {
        service
            .set_policy(Some(document), Some(Policy::Review))
            .await
            .unwrap();
    })
    .await
    .unwrap();
    assert_eq!(to_review.status, EditStatus::Pending);

    service.set_policy(Some(document), None).await.unwrap();
    let paused = decided_after(&service, document, async {
        service.set_paused(true).await.unwrap();
    })
    .await
    .unwrap();
    assert_eq!(paused.status, EditStatus::Pending);

    service.set_paused(false).await.unwrap();
    let read_only = decided_after(&service, document, async {
        service
            .set_policy(Some(document), Some(Policy::ReadOnly))
            .await
            .unwrap();
    })
    .await;
    assert!(matches!(read_only, Err(ServiceError::PolicyReadOnly)));

    // Nothing of the three reached the document.
    assert_eq!(
        server.stored_settled(document).await.unwrap().markdown,
        "First.\n"
    );
    service.shutdown().await;
    let _ = std::fs::remove_dir_all(&data);
}

/// The same for an agent's comment: its decision reads the policy after Docs was asked about
/// its thread and once it holds the document.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_waiting_for_its_document_is_decided_by_the_policy_as_it_is_then() {
    let server = DocsServer::start().await.unwrap();
    let document = server
        .create_document(
            DocumentSpec::new("Commented")
                .markdown("Ship on Monday.")
                .link("public", "editor"),
        )
        .await
        .unwrap();
    let data = std::env::temp_dir().join(format!("docs-mcp-queued-comment-{}", Uuid::new_v4()));
    let service = service(&server, &data).await;
    let open = service.open(&document.to_string(), None).await.unwrap();
    let (_, read) = open.tracker.read_async().await.unwrap();
    let block = read.blocks[0].id.clone();
    let guard = service.doc_locks.lock(document).await;
    let submitted = {
        let service = service.clone();
        tokio::spawn(async move {
            service
                .submit_comment(CommentRequest {
                    document: document.to_string(),
                    action: crate::record::CommentAction::Add,
                    thread_id: None,
                    block_id: Some(block),
                    text: Some("Monday".into()),
                    body: Some("Still right?".into()),
                    tool: "add_comment".into(),
                    arguments: serde_json::json!({}),
                    reason: None,
                    agent: AgentInfo::new("Queued agent", "test", "agent"),
                })
                .await
        })
    };
    service.doc_locks.until_waiting(document, 1).await;
    assert!(
        !submitted.is_finished(),
        "the comment waits for its document"
    );
    service
        .set_policy(Some(document), Some(Policy::Review))
        .await
        .unwrap();
    drop(guard);
    let record = submitted.await.unwrap().unwrap();
    assert_eq!(record.status, EditStatus::Pending);
    service.shutdown().await;
    let _ = std::fs::remove_dir_all(&data);
}
