//! Comment threads against the Docs-like test server: threads over REST, BlockNote's comment
//! mark written through a live session and read back by BlockNote's own editor.

mod support;

use std::time::Duration;

use docs_client::blocknote::{
    CommentMark, Inline, add_comment_mark, comment_anchors, comment_body_from_markdown,
    document_fragment, read_document, set_block_text, text_occurrences,
};
use docs_client::{DocumentSession, Error};
use support::*;
use test_harness::{CommentMarkSpan, DocsServer, DocumentSpec, TypistSpec};
use yrs::{Transact, WriteTxn};

const WAIT: Duration = Duration::from_secs(20);

/// The id and plain text of the document's top-level blocks, read from a live session.
fn blocks(session: &DocumentSession) -> Vec<(String, String)> {
    let doc = session.doc();
    let fragment = document_fragment(doc); // before the read transaction: it may create it
    read_document(&doc.transact(), &fragment)
        .blocks
        .iter()
        .map(|b| (b.id.clone(), b.plain_text()))
        .collect()
}

#[tokio::test]
async fn a_thread_anchored_on_one_word_is_where_blocknote_reads_it() {
    let server = DocsServer::start().await.unwrap();
    let ada = server
        .create_user("ada@example.org", "Ada Lovelace")
        .await
        .unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("reviewed")
                .markdown("Please review this **sentence** carefully.\n\nSecond paragraph")
                .link("restricted", "reader")
                .access(&ada.id, "editor"),
        )
        .await
        .unwrap();
    let client = user_client(&server, &ada);
    assert!(client.document(id).await.unwrap().abilities.can_comment());

    // The thread, over REST, with a markdown body.
    let body = comment_body_from_markdown("Is **this** the right word?").unwrap();
    let thread = client.create_thread(id, &body).await.unwrap();
    assert_eq!(thread.comments.len(), 1);
    assert_eq!(thread.comments[0].markdown(), "Is **this** the right word?");
    assert_eq!(
        thread.creator.as_ref().and_then(|c| c.name()),
        Some("Ada Lovelace")
    );
    assert!(thread.abilities.resolve && !thread.resolved);
    let tid = thread.id.to_string();

    // Another editor is in the room, as Docs' editor: it hears the comments ping.
    let watcher = server
        .start_typist(
            TypistSpec::new(id, "")
                .as_user(&ada)
                .name("Watcher")
                .stay_connected(),
        )
        .await
        .unwrap();
    let status = watcher.wait_done(WAIT).await.unwrap();
    assert!(status.synced && status.error.is_none(), "{status:?}");

    // The mark, through the live session, on exactly one word.
    let session = DocumentSession::open(client.clone(), id, fast_options("Agent"))
        .await
        .unwrap();
    let (block, text) = blocks(&session).remove(0);
    assert_eq!(text, "Please review this sentence carefully.");
    let range = text_occurrences(&text, "sentence").remove(0);
    let (anchor_block, anchor_thread) = (block.clone(), tid.clone());
    let covered = session
        .write(move |txn| {
            let frag = txn.get_or_insert_xml_fragment(docs_client::DOCUMENT_FRAGMENT);
            add_comment_mark(txn, &frag, &anchor_block, range, &anchor_thread)
        })
        .await
        .unwrap();
    session.ping_comments(Some(thread.id));
    let covered = covered.wait().await.unwrap().value;
    assert_eq!(covered.unwrap(), "sentence");

    // The room holds it as BlockNote reads it, and the other editor got the ping.
    let expected = vec![CommentMarkSpan {
        block_id: block.clone(),
        thread_id: tid.clone(),
        orphan: false,
        text: "sentence".into(),
        start: 19,
        end: 27,
    }];
    eventually("the mark in the room", WAIT, || async {
        (server.comment_marks(id).await.unwrap().live.as_ref() == Some(&expected)).then_some(())
    })
    .await;
    let ping = eventually("the ping at the other editor", WAIT, || async {
        watcher
            .status()
            .await
            .unwrap()
            .comments_pings
            .first()
            .cloned()
    })
    .await;
    assert_eq!(ping["docId"], id.to_string());
    assert_eq!(ping["threadId"], tid);
    assert_eq!(
        server.comments_pings(id).await.unwrap()[0]["threadId"],
        tid,
        "visible in the room's awareness"
    );
    session.close().await.unwrap();

    // Saved: the stored document, read by BlockNote's editor, has the mark on that word only,
    // and the word is still bold and in place.
    let marks = server.comment_marks(id).await.unwrap();
    assert_eq!(marks.stored, expected);
    let stored = server.stored(id).await.unwrap();
    assert_eq!(
        stored.markdown,
        "Please review this **sentence** carefully.\n\nSecond paragraph\n"
    );
    // And it reads back here with its thread.
    let session = DocumentSession::open(client, id, fast_options("Agent"))
        .await
        .unwrap();
    let anchors = {
        let doc = session.doc();
        let fragment = document_fragment(doc);
        comment_anchors(&read_document(&doc.transact(), &fragment).blocks)
    };
    assert_eq!(anchors.len(), 1);
    assert_eq!(
        (anchors[0].thread_id.as_str(), anchors[0].text.as_str()),
        (tid.as_str(), "sentence")
    );
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_mark_written_by_docs_editor_reads_with_its_thread_and_survives_edits() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("seeded").markdown("Keep this word here.\n\nOther"))
        .await
        .unwrap();
    let client = anonymous_client(&server);
    let thread = client
        .create_thread(id, &comment_body_from_markdown("Why?").unwrap())
        .await
        .unwrap();
    let resolved = client
        .create_thread(id, &comment_body_from_markdown("Done").unwrap())
        .await
        .unwrap();
    let block = server.stored(id).await.unwrap().blocks[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // As Docs' editor writes them (y-prosemirror's own key), one of them orphaned.
    let (tid, rid) = (thread.id.to_string(), resolved.id.to_string());
    server
        .add_comment_mark(id, &block, "this word", &tid, false)
        .await
        .unwrap();
    server
        .add_comment_mark(id, &block, "here", &rid, true)
        .await
        .unwrap();

    let session = DocumentSession::open(client, id, fast_options("Agent"))
        .await
        .unwrap();
    let read = |session: &DocumentSession| {
        let doc = session.doc();
        let fragment = document_fragment(doc);
        read_document(&doc.transact(), &fragment)
    };
    let document = read(&session);
    let runs: Vec<(String, Vec<CommentMark>)> = document.blocks[0]
        .inline()
        .unwrap()
        .iter()
        .filter_map(|i| match i {
            Inline::Text(r) if !r.comments.is_empty() => Some((r.text.clone(), r.comments.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        runs,
        [
            (
                "this word".to_string(),
                vec![CommentMark {
                    thread_id: tid.clone(),
                    orphan: false
                }]
            ),
            (
                "here".to_string(),
                vec![CommentMark {
                    thread_id: rid.clone(),
                    orphan: true
                }]
            ),
        ]
    );
    let anchors = comment_anchors(&document.blocks);
    assert_eq!(
        anchors
            .iter()
            .map(|a| (a.thread_id.as_str(), a.text.as_str(), a.orphan, a.start))
            .collect::<Vec<_>>(),
        [
            (tid.as_str(), "this word", false, 5),
            (rid.as_str(), "here", true, 15)
        ]
    );

    // An edit of the text around the mark keeps it, on the same word.
    let edited = block.clone();
    session
        .write(move |txn| {
            let frag = txn.get_or_insert_xml_fragment(docs_client::DOCUMENT_FRAGMENT);
            set_block_text(txn, &frag, &edited, "Please keep this word here, thanks.").unwrap();
        })
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    session.close().await.unwrap();
    let stored: Vec<(String, String)> = server
        .comment_marks(id)
        .await
        .unwrap()
        .stored
        .into_iter()
        .map(|m| (m.thread_id, m.text))
        .collect();
    assert_eq!(stored, [(tid, "this word".into()), (rid, "here".into())]);
    assert_eq!(
        server.stored(id).await.unwrap().markdown,
        "Please keep this word here, thanks.\n\nOther\n"
    );
}

#[tokio::test]
async fn replies_resolution_and_permissions_round_trip() {
    let server = DocsServer::start().await.unwrap();
    let owner = server
        .create_user("owner@example.org", "Olga Owner")
        .await
        .unwrap();
    let commenter = server
        .create_user("cam@example.org", "Cam Commenter")
        .await
        .unwrap();
    let reader = server
        .create_user("rea@example.org", "Rea Reader")
        .await
        .unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("review")
                .markdown("Draft")
                .link("restricted", "reader")
                .access(&owner.id, "owner")
                .access(&commenter.id, "commenter")
                .access(&reader.id, "reader"),
        )
        .await
        .unwrap();
    let (as_owner, as_commenter, as_reader) = (
        user_client(&server, &owner),
        user_client(&server, &commenter),
        user_client(&server, &reader),
    );

    // The commenter may comment, not edit: Docs' collaboration server gives it a read-only
    // connection (so it cannot anchor a thread in the text itself).
    let abilities = as_commenter.document(id).await.unwrap().abilities;
    assert!(abilities.can_comment() && !abilities.update && !abilities.can_save_content());
    let session = DocumentSession::open(as_commenter.clone(), id, fast_options("Agent"))
        .await
        .unwrap();
    assert!(session.is_read_only());
    session.close().await.unwrap();

    let thread = as_commenter
        .create_thread(id, &comment_body_from_markdown("Is *this* clear?").unwrap())
        .await
        .unwrap();
    let reply = as_owner
        .reply(
            id,
            thread.id,
            &comment_body_from_markdown("Now it is.").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(reply.markdown(), "Now it is.");
    assert_eq!(
        reply.user.as_ref().and_then(|u| u.name()),
        Some("Olga Owner")
    );
    assert!(reply.abilities.partial_update);

    let threads = as_commenter.threads(id).await.unwrap();
    assert_eq!(threads.len(), 1);
    let listed = &threads[0];
    assert_eq!(
        listed
            .comments
            .iter()
            .map(|c| c.markdown())
            .collect::<Vec<_>>(),
        ["Is *this* clear?", "Now it is."]
    );
    let page = as_commenter.comments(id, thread.id, None).await.unwrap();
    assert_eq!(page.count, 2);
    assert_eq!(page.results[1].id, reply.id);

    // Resolving: the creator may (and reopen); the reader may not even see the threads.
    as_commenter.resolve_thread(id, thread.id).await.unwrap();
    let resolved = as_owner.thread(id, thread.id).await.unwrap();
    assert!(resolved.resolved);
    assert_eq!(resolved.resolved_by.as_deref(), Some(commenter.id.as_str()));
    assert!(resolved.resolved_at.is_some());
    as_commenter.resolve_thread(id, thread.id).await.unwrap();
    as_commenter.unresolve_thread(id, thread.id).await.unwrap();
    let reopened = as_commenter.thread(id, thread.id).await.unwrap();
    assert!(!reopened.resolved && reopened.resolved_by.is_none());
    for refused in [
        as_reader.threads(id).await.map(drop),
        as_reader
            .create_thread(id, &comment_body_from_markdown("x").unwrap())
            .await
            .map(drop),
    ] {
        assert!(
            matches!(refused, Err(Error::Forbidden { .. })),
            "{refused:?}"
        );
    }
    let anonymous = anonymous_client(&server);
    assert!(matches!(
        anonymous.threads(id).await,
        Err(Error::Unauthorized { .. })
    ));
    assert!(matches!(
        as_owner.thread(id, uuid::Uuid::new_v4()).await,
        Err(Error::NotFound { .. })
    ));

    // Editing is the author's; deleting the author's or an owner's.
    let refused = as_commenter
        .edit_comment(
            id,
            thread.id,
            reply.id,
            &comment_body_from_markdown("no").unwrap(),
        )
        .await;
    assert!(
        matches!(refused, Err(Error::Forbidden { .. })),
        "{refused:?}"
    );
    let edited = as_owner
        .edit_comment(
            id,
            thread.id,
            reply.id,
            &comment_body_from_markdown("Now it **is**.").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(edited.markdown(), "Now it **is**.");
    as_owner
        .delete_comment(id, thread.id, reply.id)
        .await
        .unwrap();
    assert_eq!(
        as_owner.thread(id, thread.id).await.unwrap().comments.len(),
        1
    );
    as_commenter.delete_thread(id, thread.id).await.unwrap();
    assert!(as_owner.threads(id).await.unwrap().is_empty());
}
