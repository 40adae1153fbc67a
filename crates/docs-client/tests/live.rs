//! The live client against the Docs-like test server: real Hocuspocus 3.4.4, content
//! judged by BlockNote's own parser.

mod support;

use std::time::Duration;

use docs_client::protocol::{Frame, Message};
use docs_client::{DocumentSession, Error, SessionOptions, SessionRegistry};
use futures_util::{SinkExt, StreamExt};
use support::*;
use test_harness::{Collaboration, DocsServer, DocumentSpec, ServerOptions, TypistSpec};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

const WAIT: Duration = Duration::from_secs(20);

/// Opens a raw socket with the given headers and returns what the server does first.
async fn raw_handshake(
    server: &DocsServer,
    room: &str,
    origin: Option<&str>,
    cookie: Option<&str>,
) -> RawOutcome {
    let url = format!("{}?room={room}", server.ws_url());
    let mut request = url.into_client_request().unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
    }
    if let Some(cookie) = cookie {
        request
            .headers_mut()
            .insert("Cookie", cookie.parse().unwrap());
    }
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    socket
        .send(tungstenite::Message::Binary(
            Frame::new(room, Message::AuthToken(String::new()))
                .encode()
                .into(),
        ))
        .await
        .ok();
    let next = tokio::time::timeout(WAIT, async {
        loop {
            match socket.next().await {
                Some(Ok(tungstenite::Message::Close(Some(frame)))) => {
                    return RawOutcome::Closed(u16::from(frame.code), frame.reason.to_string());
                }
                Some(Ok(tungstenite::Message::Binary(bytes))) => {
                    let frame = Frame::decode(&bytes).unwrap();
                    match frame.message {
                        Message::PermissionDenied(reason) => return RawOutcome::Denied(reason),
                        Message::Authenticated { read_only } => {
                            return RawOutcome::Authenticated { read_only };
                        }
                        _ => continue,
                    }
                }
                Some(Ok(_)) => continue,
                other => panic!("socket ended without an answer: {other:?}"),
            }
        }
    })
    .await;
    next.expect("the server answered")
}

#[derive(Debug, PartialEq)]
enum RawOutcome {
    Closed(u16, String),
    Denied(String),
    Authenticated { read_only: bool },
}

#[tokio::test]
async fn handshake_rejections_match_docs() {
    let server = DocsServer::start().await.unwrap();
    if server.collaboration() == Collaboration::Yhub {
        // yhub refuses with HTTP statuses before the upgrade: tests/yhub.rs.
        return;
    }
    let public = server
        .create_document(DocumentSpec::new("public"))
        .await
        .unwrap()
        .to_string();
    let restricted = server
        .create_document(DocumentSpec::new("restricted").link("restricted", "reader"))
        .await
        .unwrap()
        .to_string();
    let origin = server.url();

    assert_eq!(
        raw_handshake(&server, &public, Some("https://evil.example"), Some("a=b")).await,
        RawOutcome::Closed(4001, "Origin not allowed".into())
    );
    assert_eq!(
        raw_handshake(&server, &public, None, Some("a=b")).await,
        RawOutcome::Closed(4001, "Origin not allowed".into())
    );
    assert_eq!(
        raw_handshake(&server, &public, Some(origin), None).await,
        RawOutcome::Closed(4001, "No cookies".into())
    );
    // A UUID, but version 1: refused like any room Docs does not serve.
    let v1 = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
    assert_eq!(
        raw_handshake(&server, v1, Some(origin), Some("a=b")).await,
        RawOutcome::Denied("permission-denied".into())
    );
    assert_eq!(
        raw_handshake(&server, &restricted, Some(origin), Some("a=b")).await,
        RawOutcome::Denied("permission-denied".into())
    );
    assert_eq!(
        raw_handshake(&server, &public, Some(origin), Some("a=b")).await,
        RawOutcome::Authenticated { read_only: false }
    );

    // Our client never gets that far on a document it may not read: REST says no first.
    let err = DocumentSession::open(
        anonymous_client(&server),
        restricted.parse().unwrap(),
        SessionOptions::default(),
    )
    .await
    .err()
    .expect("refused");
    assert!(
        matches!(err, Error::Unauthorized { .. } | Error::NotFound { .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn content_is_loaded_from_rest_into_an_empty_room() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("seeded").markdown("# Title\n\nFirst paragraph"))
        .await
        .unwrap();
    assert_eq!(server.live(id).await.unwrap(), None, "rooms start empty");

    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    assert_eq!(block_texts(session.doc()), ["Title", "First paragraph"]);
    assert!(!session.is_read_only());
    // The room received the REST content from us through the sync handshake.
    let live = eventually("the room to hold the content", WAIT, || async {
        server
            .live(id)
            .await
            .unwrap()
            .filter(|doc| blocknote_texts(&doc.blocks) == ["Title", "First paragraph"])
    })
    .await;
    assert_eq!(live.blocks[0]["type"], "heading");
    session.close().await.unwrap();
    // Nothing was written: nothing was saved.
    assert_eq!(
        server
            .stats()
            .await
            .unwrap()
            .content_patches
            .get(&id.to_string()),
        None
    );
}

#[tokio::test]
async fn anonymous_edit_survives_close_and_is_seen_by_a_fresh_client() {
    support::init_tracing();
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("public editor").markdown("Existing text"))
        .await
        .unwrap();
    let client = anonymous_client(&server);
    let session = DocumentSession::open(client.clone(), id, fast_options("Agent"))
        .await
        .unwrap();
    assert!(
        client.has_session_cookie(),
        "the instance handed out a session"
    );
    let receipt = session
        .write(move |txn| append_paragraph(txn, "Written by the agent"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    assert_eq!(receipt.seq, 1);
    assert!(receipt.saved_after >= receipt.acknowledged_after);
    session.close().await.unwrap();
    drop(session);

    // Saved through REST, exactly as BlockNote reads it.
    let stored = server.stored(id).await.unwrap();
    assert_eq!(
        blocknote_texts(&stored.blocks),
        ["Existing text", "Written by the agent"]
    );
    assert_eq!(stored.blocks[1]["id"], receipt.value);
    assert_eq!(stored.blocks[1]["type"], "paragraph");
    assert_eq!(
        stored.blocks[1]["props"],
        serde_json::json!({"backgroundColor": "default", "textColor": "default", "textAlignment": "left"})
    );

    // The room is gone (the last client left); a fresh client loads the saved content.
    let fresh = DocumentSession::open(anonymous_client(&server), id, fast_options("Other"))
        .await
        .unwrap();
    assert_eq!(
        block_texts(fresh.doc()),
        ["Existing text", "Written by the agent"]
    );
    fresh.close().await.unwrap();
}

#[tokio::test]
async fn read_only_is_detected_and_writes_are_refused_without_change() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("public reader")
                .markdown("Read me")
                .link("public", "reader"),
        )
        .await
        .unwrap();
    // Presence would be due before the first ping, which is sent after any presence due.
    let options = SessionOptions {
        awareness_interval: Duration::from_millis(50),
        ping_interval: Duration::from_millis(150),
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, options)
        .await
        .unwrap();
    assert!(session.is_read_only());
    match server.collaboration() {
        // The handshake offered the empty room the state loaded from REST, which a read-only
        // connection may not push: the room refuses it, and that refusal is not a failure.
        // Our presence, sent after the handshake, shows the room had refused it; another
        // reader joining after that is seen by the session after the refusal, on one socket.
        Collaboration::Hocuspocus => {
            eventually("the room's answer to our handshake", WAIT, || async {
                server.awareness(id).await.unwrap().first().cloned()
            })
            .await;
            let typist = server
                .start_typist(TypistSpec::new(id, "").name("Ada").stay_connected())
                .await
                .unwrap();
            eventually("the agent to see Ada, after the refusal", WAIT, || async {
                (session.collaborators() == ["Ada"]).then_some(())
            })
            .await;
            typist.wait_done(WAIT).await.unwrap();
        }
        // yhub refuses a reader's awareness: a read-only session sends none. Its first ping
        // comes after any presence it would have sent, on the same socket.
        Collaboration::Yhub => {
            let connections = eventually("a ping of the reader", WAIT, || async {
                let connections = server.attributions(id).await.unwrap().connections;
                connections
                    .iter()
                    .all(|c| c.pings_received > 0)
                    .then_some(connections)
            })
            .await;
            let seen: Vec<_> = connections
                .iter()
                .map(|c| (c.read_only, c.awareness_received))
                .collect();
            assert_eq!(seen, [(true, 0)]);
            assert_eq!(
                server.awareness(id).await.unwrap(),
                Vec::<serde_json::Value>::new()
            );
        }
    }
    assert!(!session.is_failed(), "{:?}", session.snapshot().error);
    let err = session
        .write(move |txn| append_paragraph(txn, "must not land"))
        .await
        .err()
        .expect("refused");
    assert_eq!(
        err,
        Error::ReadOnly {
            document: id.to_string()
        }
    );
    assert_eq!(block_texts(session.doc()), ["Read me"]);
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["Read me"]
    );
    assert_eq!(
        server
            .stats()
            .await
            .unwrap()
            .content_patches
            .get(&id.to_string()),
        None
    );
}

#[tokio::test]
async fn acknowledgements_arrive_in_order_and_saves_are_coalesced() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("burst"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();

    // Record every value the acknowledged counter takes.
    let mut progress = session.progress();
    let observer = tokio::spawn(async move {
        let mut seen = vec![];
        while progress.changed().await.is_ok() {
            let acknowledged = progress.borrow().acknowledged;
            if seen.last() != Some(&acknowledged) {
                seen.push(acknowledged);
            }
            if acknowledged == 50 {
                break;
            }
        }
        seen
    });

    let mut writes = vec![];
    for i in 1..=50 {
        writes.push(
            session
                .write(move |txn| append_paragraph(txn, &format!("line {i}")))
                .await
                .unwrap(),
        );
    }
    for (i, mut write) in writes.into_iter().enumerate() {
        assert_eq!(write.seq(), i as u64 + 1);
        write.acknowledged().await.unwrap();
        write.saved().await.unwrap();
    }
    let seen = observer.await.unwrap();
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    assert_eq!(seen.last(), Some(&50));

    let expected: Vec<String> = (1..=50).map(|i| format!("line {i}")).collect();
    let live = server.live(id).await.unwrap().expect("room loaded");
    assert_eq!(blocknote_texts(&live.blocks), expected);
    let patches = server.stats().await.unwrap().content_patches;
    match server.collaboration() {
        Collaboration::Hocuspocus => {
            let patches = patches[&id.to_string()];
            assert!(
                (1..50).contains(&patches),
                "50 writes in a burst took {patches} saves"
            );
        }
        // yhub stores what it takes: no save of ours.
        Collaboration::Yhub => assert_eq!(patches.get(&id.to_string()), None),
    }
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        expected
    );
}

#[tokio::test]
async fn no_acknowledged_edit_is_lost_when_every_connection_drops_mid_burst() {
    support::init_tracing();
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("drops"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();

    let mut writes = vec![];
    for i in 1..=100 {
        writes.push(
            session
                .write(move |txn| append_paragraph(txn, &format!("edit {i}")))
                .await
                .unwrap(),
        );
        if i == 30 || i == 70 {
            server.drop_connections().await.unwrap();
        }
        if i % 10 == 0 {
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }
    for write in writes {
        write.wait().await.unwrap();
    }
    let snapshot = session.snapshot();
    assert!(snapshot.connects >= 2, "{snapshot:?}");
    assert_eq!(snapshot.pending_acks, 0);
    assert_eq!(snapshot.pending_saves, 0);

    let expected: Vec<String> = (1..=100).map(|i| format!("edit {i}")).collect();
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        expected
    );
}

#[tokio::test]
async fn edits_made_while_disconnected_are_sent_on_reconnect() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("offline"))
        .await
        .unwrap();
    let options = SessionOptions {
        reconnect_initial: Duration::from_millis(600),
        reconnect_max: Duration::from_millis(600),
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, options)
        .await
        .unwrap();
    server.drop_connections().await.unwrap();
    let mut progress = session.progress();
    progress.wait_for(|p| !p.connected).await.unwrap();
    // Written while no socket is open: kept locally, sent in the next handshake's Step2.
    let write = session
        .write(move |txn| append_paragraph(txn, "written offline"))
        .await
        .unwrap();
    write.wait().await.unwrap();
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["written offline"]
    );
}

#[tokio::test]
async fn a_waiting_caller_gets_a_clear_timeout_when_the_room_never_comes_back() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("timeout"))
        .await
        .unwrap();
    let options = SessionOptions {
        write_timeout: Duration::from_millis(300),
        reconnect_initial: Duration::from_secs(30),
        reconnect_max: Duration::from_secs(30),
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, options)
        .await
        .unwrap();
    server.drop_connections().await.unwrap();
    session.progress().wait_for(|p| !p.connected).await.unwrap();
    let err = session
        .write(move |txn| append_paragraph(txn, "stuck"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap_err();
    assert_eq!(
        err,
        Error::NotAcknowledged {
            waited: Duration::from_millis(300)
        }
    );
    assert!(err.is_transient());
    assert_eq!(session.snapshot().pending_acks, 1);
}

#[tokio::test]
async fn concurrent_typing_from_another_client_converges() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        // BlockNote trims trailing spaces when importing markdown: the space is typed.
        .create_document(DocumentSpec::new("typing").markdown("Human:"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let typed = " hello from a person typing";
    let typist = server
        .start_typist(TypistSpec::new(id, typed).interval_ms(15).stay_connected())
        .await
        .unwrap();
    let mut writes = vec![];
    for i in 1..=20 {
        writes.push(
            session
                .write(move |txn| append_paragraph(txn, &format!("agent {i}")))
                .await
                .unwrap(),
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for write in writes {
        write.wait().await.unwrap();
    }
    let status = typist.wait_done(WAIT).await.unwrap();
    assert_eq!(status.error, None);
    assert_eq!(status.typed, typed.chars().count() as u64);

    let mut expected = vec![format!("Human:{typed}")];
    expected.extend((1..=20).map(|i| format!("agent {i}")));
    let ours = eventually("our copy to hold every typed character", WAIT, || async {
        let texts = block_texts(session.doc());
        (texts == expected).then_some(texts)
    })
    .await;
    let live = server.live(id).await.unwrap().expect("room loaded");
    assert_eq!(blocknote_texts(&live.blocks), ours);
    session.close().await.unwrap();
}

#[tokio::test]
async fn throttled_requests_wait_for_retry_after_then_succeed() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("throttle"))
        .await
        .unwrap();
    let client = anonymous_client(&server);
    server.throttle_next(2, 1).await.unwrap();
    let doc = client.document(id).await.unwrap();
    assert_eq!(doc.title.as_deref(), Some("throttle"));
    assert_eq!(server.stats().await.unwrap().throttled, 2);

    // A wait longer than the client accepts inside one call is reported, not slept through.
    server.throttle_next(1, 120).await.unwrap();
    let err = client.document(id).await.unwrap_err();
    assert_eq!(
        err,
        Error::Throttled {
            retry_after: Duration::from_secs(120)
        }
    );
}

/// Opens at once share one budget: each takes all the calls it needs or none, so the budget
/// opens as many documents as it can pay for and the others are told when to retry, having
/// spent nothing.
#[tokio::test]
async fn concurrent_opens_each_pay_for_all_their_calls_or_none() {
    let server = DocsServer::start().await.unwrap();
    let mut ids = Vec::new();
    for i in 0..8 {
        ids.push(
            server
                .create_document(DocumentSpec::new(&format!("budget {i}")))
                .await
                .unwrap(),
        );
    }
    let mut config =
        docs_client::ClientConfig::new(docs_client::InstanceUrl::parse(server.url()).unwrap());
    // Documents of two throttled calls each (Hocuspocus: two of them, one call left over) or
    // one (yhub, no content to load: five of them). Neither the instance config (a throttle of
    // its own) nor the collaboration server's check of our rights counts.
    config.requests_per_minute = 5;
    let (affordable, rest_calls) = match server.collaboration() {
        Collaboration::Hocuspocus => (2, 2),
        Collaboration::Yhub => (5, 1),
    };
    config.max_throttle_wait = Duration::from_secs(2);
    let client = docs_client::DocsClient::new(config).unwrap();
    client.configured_collaboration().await.unwrap();
    let before = server.stats().await.unwrap().requests;
    let opens = ids.iter().map(|id| {
        let client = client.clone();
        async move { DocumentSession::open(client, *id, fast_options("Agent")).await }
    });
    let results = futures_util::future::join_all(opens).await;
    let (opened, refused): (Vec<_>, Vec<_>) = results.into_iter().partition(Result::is_ok);
    assert_eq!((opened.len(), refused.len()), (affordable, 8 - affordable));
    for refusal in &refused {
        match refusal {
            Err(Error::Throttled { retry_after }) => {
                assert!(*retry_after > Duration::from_secs(50), "{retry_after:?}")
            }
            Err(other) => panic!("expected a throttle, got {other:?}"),
            Ok(_) => unreachable!("partitioned"),
        }
    }
    // Our REST calls per open, none for refusals.
    assert_eq!(
        server.stats().await.unwrap().requests - before,
        affordable as u64 * rest_calls
    );
    for session in opened.into_iter().flatten() {
        session.close().await.unwrap();
    }
}

/// An instance before Docs 5 keeps the content in the document, and its throttle counts only
/// that call: `content/`, which opens ask for beside the document until one showed where the
/// content is, is a path no view of Docs answers (an HTML 404), not counted. Opens at once
/// spend what Docs counts: those that found the budget short waited for the calls given back,
/// and every document opened, as many as the instance allows, none throttled by it.
#[tokio::test]
async fn opens_at_once_spend_only_the_calls_docs_counts() {
    let server = DocsServer::start_with(ServerOptions {
        legacy_content: true,
        throttle_rate: Some(6),
        collaboration: Some("hocuspocus".into()),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let mut ids = Vec::new();
    for i in 0..6 {
        ids.push(
            server
                .create_document(
                    DocumentSpec::new(&format!("old {i}")).markdown(&format!("old {i}")),
                )
                .await
                .unwrap(),
        );
    }
    let mut config =
        docs_client::ClientConfig::new(docs_client::InstanceUrl::parse(server.url()).unwrap());
    config.requests_per_minute = 6;
    config.max_throttle_wait = Duration::from_secs(10);
    let client = docs_client::DocsClient::new(config).unwrap();
    client.configured_collaboration().await.unwrap();
    let opens = ids.iter().map(|id| {
        let client = client.clone();
        async move { DocumentSession::open(client, *id, fast_options("Agent")).await }
    });
    let started = tokio::time::Instant::now();
    let sessions: Vec<DocumentSession> = futures_util::future::join_all(opens)
        .await
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    // Not a minute's wait for the window: the calls given back made room.
    assert!(started.elapsed() < Duration::from_secs(10));
    let texts: Vec<Vec<String>> = sessions.iter().map(|s| block_texts(s.doc())).collect();
    let expected: Vec<Vec<String>> = (0..6).map(|i| vec![format!("old {i}")]).collect();
    assert_eq!(texts, expected);
    assert_eq!(server.stats().await.unwrap().throttled, 0);
    for session in sessions {
        session.close().await.unwrap();
    }
}

#[tokio::test]
async fn rights_changes_reset_the_connection_and_are_rechecked() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("rights"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    assert!(!session.is_read_only());
    let before = session.snapshot().connects;

    server.set_link(id, "public", "reader").await.unwrap();
    eventually("the session to turn read-only", WAIT, || async {
        session.is_read_only().then_some(())
    })
    .await;
    assert!(matches!(
        session.write(move |txn| append_paragraph(txn, "x")).await,
        Err(Error::ReadOnly { .. })
    ));

    server.set_link(id, "public", "editor").await.unwrap();
    eventually(
        "the session to be writable and connected again",
        WAIT,
        || async { (!session.is_read_only() && session.snapshot().connected).then_some(()) },
    )
    .await;
    assert!(session.snapshot().connects > before);
    session
        .write(move |txn| append_paragraph(txn, "after the reset"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();

    // Withdrawn access ends the session with a final error.
    server.set_link(id, "restricted", "reader").await.unwrap();
    let mut progress = session.progress();
    let failure = progress
        .wait_for(|p| p.failure.is_some())
        .await
        .unwrap()
        .failure
        .clone()
        .unwrap();
    assert!(
        matches!(
            failure.error,
            Error::Unauthorized { .. } | Error::NotFound { .. } | Error::Forbidden { .. }
        ),
        "{failure:?}"
    );
    assert!(session.is_failed());
}

#[tokio::test]
async fn presence_is_published_and_cleared_on_close() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("presence").markdown("Someone types here"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Claude"))
        .await
        .unwrap();
    let names = |states: Vec<serde_json::Value>| -> Vec<String> {
        states
            .iter()
            .filter_map(|s| s["state"]["user"]["name"].as_str().map(str::to_owned))
            .collect()
    };
    eventually("the room to list the agent", WAIT, || async {
        let states = server.awareness(id).await.unwrap();
        (names(states) == ["Claude"]).then_some(())
    })
    .await;
    let user = eventually("the agent's colour", WAIT, || async {
        server.awareness(id).await.unwrap().into_iter().next()
    })
    .await;
    assert!(
        user["state"]["user"]["color"]
            .as_str()
            .unwrap()
            .starts_with('#')
    );

    // A human joins: we see them.
    let typist = server
        .start_typist(TypistSpec::new(id, "hi").name("Ada").stay_connected())
        .await
        .unwrap();
    assert_eq!(typist.wait_done(WAIT).await.unwrap().error, None);
    eventually("the agent to see Ada", WAIT, || async {
        (session.collaborators() == ["Ada"]).then_some(())
    })
    .await;

    session.close().await.unwrap();
    eventually("the agent to leave the room", WAIT, || async {
        let states = server.awareness(id).await.unwrap_or_default();
        (!names(states).contains(&"Claude".to_owned())).then_some(())
    })
    .await;
}

#[tokio::test]
async fn instances_before_5_0_keep_content_in_the_document() {
    let server = DocsServer::start_with(ServerOptions {
        legacy_content: true,
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let id = server
        .create_document(DocumentSpec::new("legacy").markdown("Old instance"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    assert_eq!(block_texts(session.doc()), ["Old instance"]);
    // The field holds the whole state in base64: a session that lives for minutes keeps
    // the document, not a second copy of it.
    assert_eq!(session.metadata().content, None);
    session
        .write(move |txn| append_paragraph(txn, "saved the old way"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["Old instance", "saved the old way"]
    );
}

/// REST calls an open makes once the instance configuration is known: Docs 5, the document
/// and its content (fetched side by side); before 5.0, the document alone (its content comes
/// with it) once an open showed there is no `content/`; on yhub, the document alone (the
/// room holds the content).
#[tokio::test]
async fn an_open_asks_for_the_document_and_its_content_once() {
    for legacy_content in [false, true] {
        let server = DocsServer::start_with(ServerOptions {
            legacy_content,
            ..ServerOptions::default()
        })
        .await
        .unwrap();
        let mut ids = vec![];
        for title in ["first", "second"] {
            ids.push(
                server
                    .create_document(DocumentSpec::new(title).markdown(title))
                    .await
                    .unwrap(),
            );
        }
        let calls = match server.collaboration() {
            Collaboration::Hocuspocus if !legacy_content => 2,
            _ => 1,
        };
        let client = anonymous_client(&server);
        let first = DocumentSession::open(client.clone(), ids[0], fast_options("Agent"))
            .await
            .unwrap();
        first.close().await.unwrap();
        let before = server.stats().await.unwrap().requests;
        let second = DocumentSession::open(client, ids[1], fast_options("Agent"))
            .await
            .unwrap();
        assert_eq!(block_texts(second.doc()), ["second"]);
        assert_eq!(
            server.stats().await.unwrap().requests - before,
            calls,
            "legacy content: {legacy_content}"
        );
        second.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_signed_in_editor_edits_a_restricted_document() {
    let server = DocsServer::start().await.unwrap();
    let user = server
        .create_user("ada@example.org", "Ada Lovelace")
        .await
        .unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("private")
                .markdown("Private notes")
                .link("restricted", "reader")
                .access(&user.id, "editor"),
        )
        .await
        .unwrap();
    let client = user_client(&server, &user);
    let me = client.me().await.unwrap();
    assert_eq!(me.email.as_deref(), Some("ada@example.org"));
    let session = DocumentSession::open(client, id, fast_options("Agent"))
        .await
        .unwrap();
    assert!(!session.is_read_only());
    session
        .write(move |txn| append_paragraph(txn, "by Ada's agent"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["Private notes", "by Ada's agent"]
    );
}

#[tokio::test]
async fn the_registry_shares_sessions_and_closes_idle_ones() {
    let server = DocsServer::start().await.unwrap();
    let a = server
        .create_document(DocumentSpec::new("a"))
        .await
        .unwrap();
    let b = server
        .create_document(DocumentSpec::new("b"))
        .await
        .unwrap();
    let registry = SessionRegistry::new(
        anonymous_client(&server),
        fast_options("Agent"),
        Duration::from_millis(300),
    );
    let (first, second) = tokio::join!(registry.open(a), registry.open(a));
    assert!(std::sync::Arc::ptr_eq(&first.unwrap(), &second.unwrap()));
    let session_b = registry.open(b).await.unwrap();
    session_b
        .write(move |txn| append_paragraph(txn, "hello"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    let snapshot = registry.snapshot();
    let mut expected_ids = vec![a, b];
    expected_ids.sort();
    assert_eq!(
        snapshot.iter().map(|s| s.document_id).collect::<Vec<_>>(),
        expected_ids
    );
    assert!(snapshot.iter().all(|s| s.connected && !s.read_only));
    let b_line = snapshot.iter().find(|s| s.document_id == b).unwrap();
    assert!(b_line.bytes_out > 0 && b_line.bytes_in > 0);
    assert_eq!((b_line.pending_acks, b_line.pending_saves), (0, 0));
    drop(session_b);

    tokio::time::sleep(Duration::from_millis(350)).await;
    let mut closed = registry.close_idle().await;
    closed.sort();
    assert_eq!(closed, expected_ids);
    assert!(registry.snapshot().is_empty());
}

/// Docs 5.7 moved the favorites to `documents/favorites/`; older releases answer at
/// `documents/favorite_list/`. One client call finds them on both.
#[tokio::test]
async fn favorites_are_found_before_and_after_docs_5_7() {
    for version in ["5.4.1", "5.7.0"] {
        let server = DocsServer::start_with(ServerOptions {
            docs_version: Some(version.into()),
            ..ServerOptions::default()
        })
        .await
        .unwrap();
        let user = server
            .create_user("ada@example.org", "Ada Lovelace")
            .await
            .unwrap();
        let mut ids = Vec::new();
        for title in ["starred", "not starred"] {
            ids.push(
                server
                    .create_document(DocumentSpec::new(title).access(&user.id, "owner"))
                    .await
                    .unwrap(),
            );
        }
        let marked = reqwest::Client::new()
            .post(format!(
                "{}/api/v1.0/documents/{}/favorite/",
                server.url(),
                ids[0]
            ))
            .header("Cookie", user.cookie_header())
            .header("X-CSRFToken", &user.csrf_token)
            .header("Origin", server.url())
            .header("Referer", format!("{}/", server.url()))
            .send()
            .await
            .unwrap();
        assert!(
            marked.status().is_success(),
            "{version}: {}",
            marked.status()
        );

        let client = user_client(&server, &user);
        for _ in 0..2 {
            let favorites = client.favorite_documents(None).await.unwrap();
            let titles: Vec<_> = favorites
                .results
                .iter()
                .map(|d| d.title.as_deref().unwrap_or_default())
                .collect();
            assert_eq!(titles, ["starred"], "Docs {version}");
        }
        let config = client.instance_config().await.unwrap();
        assert_eq!(config.release_version.as_deref(), Some(version));
    }
}

/// Docs keeps every save as a version: writes nobody waits on are saved together, once the
/// save interval after the first of them ran out; a write somebody waits on is saved at once.
#[tokio::test]
async fn writes_nobody_waits_on_are_saved_together_after_the_interval() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("rhythm"))
        .await
        .unwrap();
    let options = SessionOptions {
        save_interval: Duration::from_secs(4),
        // Alone in the room, writes are saved once they stop coming: not here.
        save_alone_after: Duration::from_secs(600),
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, options)
        .await
        .unwrap();
    let patches = async || {
        let stats = server.stats().await.unwrap();
        let of = |counts: &std::collections::HashMap<String, u64>| {
            counts.get(&id.to_string()).copied().unwrap_or(0)
        };
        (of(&stats.content_patches), of(&stats.saves_off_websocket))
    };

    for i in 1..=20 {
        let mut write = session
            .write(move |txn| append_paragraph(txn, &format!("line {i}")))
            .await
            .unwrap();
        write.acknowledged().await.unwrap();
    }
    if server.collaboration() == Collaboration::Yhub {
        // yhub stores what it takes: held is saved, and nothing is saved through REST.
        assert_eq!(session.progress().borrow().saved, 20);
        assert_eq!(patches().await, (0, 0));
        session.close().await.unwrap();
        let stored = blocknote_texts(&server.stored(id).await.unwrap().blocks);
        assert_eq!(stored.len(), 20);
        return;
    }
    assert_eq!(patches().await, (0, 0), "acknowledged, not saved yet");
    let mut progress = session.progress();
    tokio::time::timeout(WAIT, progress.wait_for(|p| p.saved >= 20))
        .await
        .expect("saved after the interval")
        .unwrap();
    assert_eq!(
        patches().await,
        (1, 0),
        "twenty writes, one save, from the room"
    );

    // A caller waiting for the save does not wait for the interval.
    session
        .write(move |txn| append_paragraph(txn, "waited on"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    assert_eq!(patches().await, (2, 0));
    session.close().await.unwrap();
    assert_eq!(patches().await, (2, 0), "nothing left to save at close");
    let stored = blocknote_texts(&server.stored(id).await.unwrap().blocks);
    assert_eq!(stored.len(), 21);
    assert_eq!(stored.last().map(String::as_str), Some("waited on"));
}

/// Takes the collaboration server down and waits until `session` noticed.
async fn take_collaboration_down(server: &DocsServer, session: &DocumentSession) {
    server.set_collaboration_down(true).await.unwrap();
    let mut progress = session.progress();
    tokio::time::timeout(WAIT, progress.wait_for(|p| !p.connected))
        .await
        .unwrap()
        .unwrap();
}

/// A save says whether we are in the room (Docs' `websocket` field), so Docs' "read-only
/// unless connected" rule applies to us: out of the room while someone else edits there,
/// the save is refused, and it is made again once we are back.
#[tokio::test]
async fn a_save_tells_whether_we_are_in_the_room_and_a_refused_one_is_retried_from_it() {
    let server = DocsServer::start().await.unwrap();
    if server.collaboration() == Collaboration::Yhub {
        // No saves on yhub: writes off the socket go through its REST route (tests/yhub.rs).
        return;
    }
    let id = server
        .create_document(DocumentSpec::new("out of the room").link("public", "editor"))
        .await
        .unwrap();
    let ours = SessionOptions {
        save_interval: Duration::from_secs(600),
        save_alone_after: Duration::from_secs(600),
        // Back in the room only seconds after the other participant.
        reconnect_initial: Duration::from_secs(4),
        reconnect_max: Duration::from_secs(4),
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, ours)
        .await
        .unwrap();
    let ada = server
        .create_user("ada@example.org", "Ada Lovelace")
        .await
        .unwrap();
    let other = DocumentSession::open(user_client(&server, &ada), id, fast_options("Ada"))
        .await
        .unwrap();

    let mut write = session
        .write(move |txn| append_paragraph(txn, "made before the outage"))
        .await
        .unwrap();
    write.acknowledged().await.unwrap();
    take_collaboration_down(&server, &session).await;
    server.set_collaboration_down(false).await.unwrap();
    let mut theirs = other.progress();
    tokio::time::timeout(WAIT, theirs.wait_for(|p| p.connected))
        .await
        .unwrap()
        .unwrap();
    assert!(!session.progress().borrow().connected, "we are still out");

    // Refused out of the room (Ada edits there), saved once we are back.
    session.flush(Duration::from_secs(30)).await.unwrap();
    let stats = server.stats().await.unwrap();
    assert_eq!(stats.content_patches.get(&id.to_string()), Some(&1));
    assert_eq!(stats.saves_off_websocket.get(&id.to_string()), None);
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["made before the outage"]
    );
    other.close().await.unwrap();
    session.close().await.unwrap();

    // Alone and out of the room, the save goes through, saying so.
    let session = DocumentSession::open(
        anonymous_client(&server),
        id,
        SessionOptions {
            save_interval: Duration::from_secs(600),
            save_alone_after: Duration::from_secs(600),
            ..fast_options("Agent")
        },
    )
    .await
    .unwrap();
    let mut write = session
        .write(move |txn| append_paragraph(txn, "saved off the room"))
        .await
        .unwrap();
    write.acknowledged().await.unwrap();
    take_collaboration_down(&server, &session).await;
    session.flush(WAIT).await.unwrap();
    let stats = server.stats().await.unwrap();
    assert_eq!(stats.saves_off_websocket.get(&id.to_string()), Some(&1));
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["made before the outage", "saved off the room"]
    );
    server.set_collaboration_down(false).await.unwrap();
    session.close().await.unwrap();
}

/// An instance whose configuration names no collaboration endpoint, or cannot be read, is
/// reached at the one Docs derives on its own origin (`/collaboration/ws/`).
#[tokio::test]
async fn without_a_configured_collaboration_url_the_derived_one_is_used() {
    for (unset, missing) in [(true, false), (false, true)] {
        let server = DocsServer::start().await.unwrap();
        server.set_instance_config(unset, missing).await.unwrap();
        let id = server
            .create_document(DocumentSpec::new("derived").markdown("Hello"))
            .await
            .unwrap();
        let client = anonymous_client(&server);
        let document = client.document(id).await.unwrap();
        let rooms = match server.collaboration() {
            Collaboration::Hocuspocus => "/collaboration/ws/",
            // Docs' yhub frontend's own fallback.
            Collaboration::Yhub => "/collaboration/ws/v1/docs",
        };
        let endpoint = client.collaboration(&document).await.unwrap();
        assert_eq!(
            endpoint.base().as_str(),
            format!("{}{rooms}", server.url().replace("http", "ws"))
        );
        let session = DocumentSession::open(client, id, fast_options("Agent"))
            .await
            .unwrap();
        session
            .write(move |txn| append_paragraph(txn, "through the derived endpoint"))
            .await
            .unwrap()
            .wait()
            .await
            .unwrap();
        session.close().await.unwrap();
        assert_eq!(
            blocknote_texts(&server.stored(id).await.unwrap().blocks),
            ["Hello", "through the derived endpoint"],
            "unset {unset}, missing {missing}"
        );
    }
}

/// A chain of `levels` nested elements under `parent` (raw Yjs: no model check), returning
/// the deepest.
fn nest(
    txn: &mut yrs::TransactionMut<'_>,
    mut parent: yrs::XmlElementRef,
    levels: usize,
) -> yrs::XmlElementRef {
    use yrs::XmlFragment;
    for _ in 0..levels {
        parent = parent.push_back(txn, yrs::XmlElementPrelim::empty("blockGroup"));
    }
    parent
}

/// Content nested deeper than yrs can delete, built by a collaborator in two writes that each
/// pass the door, ends the session when the second arrives (only updates that bring new
/// content are checked: Hocuspocus also sends a write back to its writer).
#[tokio::test]
async fn a_collaborator_nesting_too_deep_in_two_writes_ends_the_session() {
    use yrs::{WriteTxn, XmlFragment};
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("deep").markdown("Start"))
        .await
        .unwrap();
    let ours = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let theirs = DocumentSession::open(anonymous_client(&server), id, fast_options("Peer"))
        .await
        .unwrap();
    let first = theirs
        .write(|txn| {
            let fragment = txn.get_or_insert_xml_fragment(docs_client::DOCUMENT_FRAGMENT);
            let top = fragment.push_back(txn, yrs::XmlElementPrelim::empty("blockGroup"));
            nest(txn, top, 399)
        })
        .await
        .unwrap();
    let deepest = first.value().clone();
    first.wait().await.unwrap();
    // Within the limit: both sessions go on, ours writing.
    ours.write(|txn| append_paragraph(txn, "still fine"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    assert!(!ours.is_failed());
    let _deeper = theirs
        .write(move |txn| {
            nest(txn, deepest, 200);
        })
        .await
        .unwrap();
    eventually("our session to end", WAIT, || async {
        ours.is_failed().then_some(())
    })
    .await;
    let refused = ours.write(|txn| append_paragraph(txn, "no")).await.err();
    assert!(
        matches!(refused, Some(Error::TooDeep { depth, .. }) if depth > 512),
        "{refused:?}"
    );
}

/// The children of the first block, as `read` reads them from `doc`.
fn first_block_children(doc: &yrs::Doc) -> Vec<String> {
    let fragment = docs_client::blocknote::document_fragment(doc);
    let read = docs_client::blocknote::read_document(&yrs::Transact::transact(doc), &fragment);
    read.blocks
        .first()
        .map(|b| b.children.iter().map(|c| c.plain_text()).collect())
        .unwrap_or_default()
}

/// An edit planned before a person gave its block a first child, and merged after (as an
/// edit a person approves later is), gives the block a second child group, which BlockNote's
/// browsers refuse by deleting the block — its text and both children. The session re-creates
/// the block at once with one group holding both children; that is what is stored, and what
/// the person's client ends with.
#[tokio::test]
async fn a_block_given_a_second_child_group_is_recreated_with_one() {
    use docs_client::blocknote::{self, Position, groups};
    use yrs::updates::decoder::Decode;
    use yrs::{ReadTxn, Transact, WriteTxn};
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("groups").markdown("Parent\n\nOther"))
        .await
        .unwrap();
    let ours = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let theirs = DocumentSession::open(anonymous_client(&server), id, fast_options("Person"))
        .await
        .unwrap();
    let parent = {
        let read = blocknote::read_document(&ours.doc().transact(), ours.fragment());
        read.blocks[0].id.clone()
    };
    let first_child = Position::FirstChildOf { id: parent };
    // Both mend child groups, and each knows the other does: one of them will.
    for (session, other) in [(&ours, "Person"), (&theirs, "Agent")] {
        eventually(
            &format!("{other} among the collaborators"),
            WAIT,
            || async {
                session
                    .collaborators()
                    .contains(&other.to_owned())
                    .then_some(())
            },
        )
        .await;
    }
    // Planned on a copy of the document as it is now, by a client of its own (as an edit is).
    let planned = {
        let fork = yrs::Doc::with_options(yrs::Options {
            offset_kind: yrs::OffsetKind::Utf16,
            ..yrs::Options::default()
        });
        let state = ours
            .doc()
            .transact()
            .encode_state_as_update_v1(&Default::default());
        let fragment = blocknote::document_fragment(&fork);
        let mut txn = fork.transact_mut();
        txn.apply_update(yrs::Update::decode_v1(&state).unwrap())
            .unwrap();
        let before = txn.state_vector();
        let blocks = blocknote::import_markdown("Ours").unwrap();
        blocknote::insert_blocks(&mut txn, &fragment, &first_child, &blocks).unwrap();
        txn.encode_state_as_update_v1(&before)
    };
    // Meanwhile the person gives the block its first child; our session sees it.
    let position = first_child.clone();
    theirs
        .write(move |txn| {
            let fragment = txn.get_or_insert_xml_fragment(docs_client::DOCUMENT_FRAGMENT);
            let blocks = blocknote::import_markdown("Theirs").unwrap();
            blocknote::insert_blocks(txn, &fragment, &position, &blocks).unwrap();
        })
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    eventually("our session to have the person's child", WAIT, || async {
        (first_block_children(ours.doc()) == ["Theirs"]).then_some(())
    })
    .await;

    ours.apply_update(&planned)
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    // One of the two sessions mends the block (the one of lower client id); both end with it.
    for (who, session) in [("ours", &ours), ("theirs", &theirs)] {
        eventually(
            &format!("{who}: the block with one group of both children"),
            WAIT,
            || async {
                let doubled =
                    groups::has_doubled_child_groups(&session.doc().transact(), session.fragment());
                let mut children = first_block_children(session.doc());
                children.sort();
                (!doubled && children == ["Ours", "Theirs"]).then_some(())
            },
        )
        .await;
    }
    ours.flush(WAIT).await.unwrap();
    theirs.flush(WAIT).await.unwrap();
    // BlockNote reads the stored document whole: the block, its two children, the next one.
    let stored = server.stored_settled(id).await.unwrap();
    assert_eq!(blocknote_texts(&stored.blocks), ["Parent", "Other"]);
    let mut stored_children = blocknote_texts(&stored.blocks[0]["children"]);
    stored_children.sort();
    assert_eq!(stored_children, ["Ours", "Theirs"]);
}

/// A browser on Yjs 14 that accepted a later suggestion first sends structs past a gap in
/// their client's clocks; Hocuspocus' room (Yjs 13) holds them aside and gives them in its
/// Step2. Our session holds them out of yrs too (yrs 0.28.1 panics on some structs filling
/// such a gap), saves them with the document (a Yjs 13 browser saves what it holds aside),
/// and shows them once the gap's update comes.
#[tokio::test]
async fn structs_past_a_gap_wait_out_of_the_document_are_saved_and_shown_once_the_gap_fills() {
    use docs_client::protocol::Sync;
    use yrs::updates::decoder::Decode;
    use yrs::{GetString, Text, Transact};

    let server = DocsServer::start().await.unwrap();
    if server.collaboration() == Collaboration::Yhub {
        // The browser here speaks Hocuspocus' frames and its room holds aside; on yhub a
        // session takes what it holds from the server's first message, through the same
        // `OutOfOrder` (its unit tests).
        return;
    }
    let id = server
        .create_document(DocumentSpec::new("gap").markdown("Start"))
        .await
        .unwrap();
    let room = id.to_string();
    // The browser's three words, each a write of its own: "a", "b" after it (the gap), "c"
    // before "a" (so that nothing it needs is missing: only its clock is past the gap).
    let browser = yrs::Doc::with_client_id(77);
    let words = browser.get_or_insert_text("suggested");
    let updates: Vec<Vec<u8>> = [(0, "a"), (1, "b"), (0, "c")]
        .into_iter()
        .map(|(at, word)| {
            let mut txn = browser.transact_mut();
            words.insert(&mut txn, at, word);
            txn.encode_update_v1()
        })
        .collect();
    // As a browser connects: from the instance's origin, with a cookie.
    let mut request = format!("{}?room={room}", server.ws_url())
        .into_client_request()
        .unwrap();
    let headers = request.headers_mut();
    headers.insert("Origin", server.url().parse().unwrap());
    headers.insert("Cookie", "a=b".parse().unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let send =
        |message: Message| tungstenite::Message::Binary(Frame::new(&room, message).encode().into());
    socket
        .send(send(Message::AuthToken(String::new())))
        .await
        .unwrap();
    for update in [&updates[0], &updates[2]] {
        socket
            .send(send(Message::Sync(Sync::Update(update.clone()))))
            .await
            .unwrap();
    }
    // The room answers a Step1 after it handled what came before it on the socket.
    socket
        .send(send(Message::Sync(Sync::Step1(Default::default()))))
        .await
        .unwrap();
    tokio::time::timeout(WAIT, async {
        while let Some(Ok(message)) = socket.next().await {
            if let tungstenite::Message::Binary(bytes) = message
                && matches!(
                    Frame::decode(&bytes).unwrap().message,
                    Message::Sync(Sync::Step2(_))
                )
            {
                return;
            }
        }
        panic!("the socket ended");
    })
    .await
    .expect("the room's Step2");

    let ours = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let shown = |session: &DocumentSession| {
        let doc = session.doc();
        doc.get_or_insert_text("suggested")
            .get_string(&doc.transact())
    };
    assert_eq!(shown(&ours), "a");
    ours.write(|txn| append_paragraph(txn, "Saved beside it"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    let stored = yrs::Update::decode_v1(&server.stored(id).await.unwrap().update).unwrap();
    let browsers_clocks: Vec<_> = stored
        .insertions(true)
        .iter()
        .filter(|(client, _)| client.get() == 77)
        .flat_map(|(_, ranges)| ranges.iter().cloned().collect::<Vec<_>>())
        .collect();
    assert_eq!(browsers_clocks, [0..1, 2..3], "saved with what waits");

    socket
        .send(send(Message::Sync(Sync::Update(updates[1].clone()))))
        .await
        .unwrap();
    eventually("the gap filled", WAIT, || async {
        (shown(&ours) == "cab").then_some(())
    })
    .await;
    assert!(!ours.is_failed());
}
