//! How a live session ends, notices a dead connection and shares the runtime — against the
//! Docs-like test server (real Hocuspocus 3.4.4).

mod support;

use std::sync::Arc;
use std::time::Duration;

use docs_client::{
    ClientConfig, ContentApi, DEFAULT_IDLE_TTL, DocsClient, DocumentSession, Error, InstanceUrl,
    SessionOptions, SessionRegistry,
};
use futures_util::StreamExt;
use support::*;
use test_harness::{Collaboration, DocsServer, DocumentSpec, ServerOptions, TypistSpec};
use tokio::time::Instant;
use uuid::Uuid;

const WAIT: Duration = Duration::from_secs(20);

/// For tests that make many requests: no rate limit on either side.
async fn unthrottled_server() -> DocsServer {
    DocsServer::start_with(ServerOptions {
        throttle_rate: Some(0),
        ..ServerOptions::default()
    })
    .await
    .unwrap()
}

fn unthrottled_client(server: &DocsServer) -> DocsClient {
    let mut config = ClientConfig::new(InstanceUrl::parse(server.url()).unwrap());
    config.requests_per_minute = 1_000_000;
    DocsClient::new(config).unwrap()
}

#[tokio::test]
async fn closing_while_saves_fail_returns_within_the_write_timeout_and_says_why() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("store unreachable"))
        .await
        .unwrap();
    let write_timeout = Duration::from_secs(2);
    let options = SessionOptions {
        write_timeout,
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, options)
        .await
        .unwrap();
    if server.collaboration() == Collaboration::Yhub {
        let not_saved = Error::NotSaved {
            waited: write_timeout,
        };
        // yhub stores what it takes, and takes nothing while it is down (socket and REST
        // route alike): the write is never held, each REST attempt fails and is retried.
        server.set_collaboration_down(true).await.unwrap();
        let mut write = session
            .write(move |txn| append_paragraph(txn, "never stored"))
            .await
            .unwrap();
        let started = Instant::now();
        assert_eq!(session.close().await, Err(not_saved.clone()));
        assert!(started.elapsed() < write_timeout + Duration::from_secs(5));
        assert_eq!(write.saved().await, Err(not_saved));
        let stats = server.stats().await.unwrap();
        assert_eq!(stats.ydoc_patches.get(&id.to_string()), None);
        server.set_collaboration_down(false).await.unwrap();
        assert!(
            !blocknote_texts(&server.stored(id).await.unwrap().blocks)
                .contains(&"never stored".to_owned())
        );
        return;
    }
    // From now on the instance throttles every REST call for longer than the client waits:
    // each save fails (transiently) and is retried.
    server.throttle_next(1_000_000, 120).await.unwrap();
    let mut write = session
        .write(move |txn| append_paragraph(txn, "never stored"))
        .await
        .unwrap();
    write.acknowledged().await.unwrap();

    let started = Instant::now();
    let closed = session.close().await;
    let took = started.elapsed();
    // The instance's budget is not back before the close would give up: it ends at its next
    // attempt, saying why, instead of waiting out its bound.
    let throttled = Error::Throttled {
        retry_after: Duration::from_secs(120),
    };
    assert_eq!(closed, Err(throttled.clone()));
    // The bound is the write timeout (2 s); 5 s more are allowed for a loaded machine.
    // (Before the session was an actor, this close never returned.)
    assert!(took < write_timeout + Duration::from_secs(5), "{took:?}");
    assert_eq!(write.saved().await, Err(throttled.clone()));
    assert!(session.is_failed());
    let late = session
        .write(move |txn| append_paragraph(txn, "too late"))
        .await;
    assert_eq!(late.err(), Some(throttled));
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
async fn a_connection_that_stops_answering_is_replaced_and_pending_writes_are_saved() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("frozen").markdown("Before"))
        .await
        .unwrap();
    // A dead connection must be noticed within `liveness_timeout` (1 s here, 30 s by
    // default). The write timeout (10 s) bounds the whole recovery, generously.
    let options = SessionOptions {
        ping_interval: Duration::from_millis(200),
        liveness_timeout: Duration::from_secs(1),
        write_timeout: Duration::from_secs(10),
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, options)
        .await
        .unwrap();
    let connects = session.snapshot().connects;

    // The server keeps the TCP connection open but reads and answers nothing any more.
    assert_eq!(server.freeze(id).await.unwrap(), 1);
    let writes = [
        session
            .write(move |txn| append_paragraph(txn, "sent into the void"))
            .await
            .unwrap(),
        session
            .write(move |txn| append_paragraph(txn, "and another"))
            .await
            .unwrap(),
    ];
    for write in writes {
        write.wait().await.unwrap();
    }
    assert_eq!(session.snapshot().connects, connects + 1);
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["Before", "sent into the void", "and another"]
    );
    // The frozen connection was never closed by the server: it is still there to thaw.
    assert_eq!(server.unfreeze(id).await.unwrap(), 1);
}

#[tokio::test]
async fn the_reaper_never_loses_a_write_racing_it() {
    let server = unthrottled_server().await;
    let id = server
        .create_document(DocumentSpec::new("reaped"))
        .await
        .unwrap();
    let ttl = Duration::from_millis(200);
    let registry = SessionRegistry::new(unthrottled_client(&server), fast_options("Agent"), ttl);
    let mut expected = vec![];
    // Thirty rounds: in the third order, the session's task sees the close and the write
    // in either order, at random.
    for round in 0..30 {
        let held = registry.open(id).await.unwrap();
        tokio::time::sleep(ttl + Duration::from_millis(100)).await;
        let text = format!("round {round}");
        expected.push(text.clone());
        // `biased`: the first future runs until it waits, then the second — each order of
        // the race in turn.
        let (closed, written) = match round % 3 {
            // The reaper takes the idle session first; the writer gets a fresh one.
            0 => tokio::join!(biased; registry.close_idle(), async {
                write_and_wait(registry.open(id).await?, text).await
            }),
            // The writer asks for the session first: it is in use, not idle.
            1 => {
                let (written, closed) = tokio::join!(biased; async {
                    write_and_wait(registry.open(id).await?, text).await
                }, registry.close_idle());
                (closed, written)
            }
            // The writer held the session from before; the reaper closes it under the write,
            // which is still made, sent and saved.
            _ => tokio::join!(biased; registry.close_idle(), write_and_wait(held.clone(), text)),
        };
        written.unwrap();
        let expected_closed = if round % 3 == 1 { vec![] } else { vec![id] };
        assert_eq!(closed, expected_closed, "round {round}");
    }
    registry.close_all().await;
    assert!(registry.is_empty());
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        expected
    );
}

/// A registry that keeps at most `max_open` sessions (and closes idle ones only when asked).
fn bounded_registry(
    server: &DocsServer,
    options: SessionOptions,
    max_open: usize,
) -> SessionRegistry {
    SessionRegistry::new(unthrottled_client(server), options, DEFAULT_IDLE_TTL)
        .with_max_open(max_open)
}

/// Empty documents of these titles.
async fn documents<const N: usize>(server: &DocsServer, titles: [&str; N]) -> [Uuid; N] {
    let mut ids = [Uuid::nil(); N];
    for (id, title) in ids.iter_mut().zip(titles) {
        *id = server
            .create_document(DocumentSpec::new(title))
            .await
            .unwrap();
    }
    ids
}

async fn write_and_wait(session: Arc<DocumentSession>, text: String) -> docs_client::Result<()> {
    let write = session
        .write(move |txn| append_paragraph(txn, &text))
        .await?;
    write.wait().await.map(|_| ())
}

#[tokio::test]
async fn opening_past_the_bound_closes_the_least_recently_used_session() {
    let server = unthrottled_server().await;
    let [a, b, c] = documents(&server, ["a", "b", "c"]).await;
    let registry = bounded_registry(&server, fast_options("Agent"), 2);
    let first_a = Arc::downgrade(&registry.open(a).await.unwrap());
    tokio::time::sleep(Duration::from_millis(20)).await;
    let first_b = Arc::downgrade(&registry.open(b).await.unwrap());
    tokio::time::sleep(Duration::from_millis(20)).await;
    // `a` used again: `b` is now the least recently used.
    registry.open(a).await.unwrap();
    registry.open(c).await.unwrap();

    assert_eq!(registry.len(), 2);
    assert!(registry.get(b).is_none());
    // Closed and let go, not only forgotten by the registry.
    assert!(first_b.upgrade().is_none());
    assert!(Arc::ptr_eq(
        &registry.get(a).unwrap(),
        &first_a.upgrade().unwrap()
    ));
    eventually("the agent to leave b's room", WAIT, || async {
        server
            .awareness(b)
            .await
            .unwrap_or_default()
            .is_empty()
            .then_some(())
    })
    .await;
    // Opening it again is opening it anew (and closes `a`, now the least recently used).
    let again_b = registry.open(b).await.unwrap();
    assert!(registry.get(a).is_none());
    assert!(!again_b.is_failed());
    registry.close_all().await;
    assert!(registry.is_empty());
}

#[tokio::test]
async fn sessions_in_use_or_with_unsaved_writes_stay_open_past_the_bound() {
    let server = unthrottled_server().await;
    let [held, unsaved, third] = documents(&server, ["held", "unsaved", "third"]).await;
    // Writes wait a minute to be saved, unless somebody waits for their save (alone in the
    // room too).
    let options = SessionOptions {
        save_interval: Duration::from_secs(60),
        save_alone_after: Duration::from_secs(60),
        ..fast_options("Agent")
    };
    let registry = bounded_registry(&server, options, 1);
    let held_session = registry.open(held).await.unwrap();
    let mut write = registry
        .open(unsaved)
        .await
        .unwrap()
        .write(|txn| append_paragraph(txn, "not saved yet"))
        .await
        .unwrap();
    write.acknowledged().await.unwrap();
    assert_eq!(registry.len(), 2, "the held session stays open");

    // Nobody holds `held` any more: it makes room.
    drop(held_session);
    registry.open(third).await.unwrap();
    assert!(registry.get(held).is_none());
    if server.collaboration() == Collaboration::Yhub {
        // yhub holds a write once it acknowledged it: nothing was left to save, so `unsaved`
        // made room too.
        assert!(registry.get(unsaved).is_none());
        assert_eq!(registry.len(), 1);
        assert_eq!(
            blocknote_texts(&server.stored(unsaved).await.unwrap().blocks),
            ["not saved yet"]
        );
        registry.close_all().await;
        return;
    }
    // `unsaved` has a write to save: it stays.
    assert!(registry.get(unsaved).is_some());
    assert_eq!(registry.len(), 2);
    assert!(blocknote_texts(&server.stored(unsaved).await.unwrap().blocks).is_empty());

    // Once saved, the reaper brings the sessions back to the bound, least recently used first.
    write.saved().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(unsaved).await.unwrap().blocks),
        ["not saved yet"]
    );
    assert_eq!(registry.close_idle().await, [unsaved]);
    assert!(registry.get(third).is_some());
    assert_eq!(registry.len(), 1);
    registry.close_all().await;
}

/// Besides the session used last, open sessions hold documents weighing at most the budget:
/// opening one more closes the least recently used until the others fit, sparing one a caller
/// holds; the reaper keeps the one used last whatever it weighs.
#[tokio::test]
async fn opening_past_the_memory_budget_closes_the_least_recently_used_sessions() {
    let server = unthrottled_server().await;
    let markdown: String = (0..50)
        .map(|i| format!("Paragraph {i}, with **some** words.\n\n"))
        .collect();
    let mut ids = vec![];
    for title in ["a", "b", "c", "d"] {
        let spec = DocumentSpec::new(title).markdown(&markdown);
        ids.push(server.create_document(spec).await.unwrap());
    }
    let [a, b, c, d] = ids[..] else {
        unreachable!()
    };
    // What one of these documents weighs once open (each has the same blocks).
    let probe = bounded_registry(&server, fast_options("Probe"), 1);
    let session = probe.open(a).await.unwrap();
    let weight = session.weight();
    // A block is a dozen items or more, each costing more than the bytes it came in: over a
    // kilobyte a block, which the stored content's bytes alone are not (~200 a block), besides
    // the 384 KiB any session holds.
    let blocks_weight = weight.saturating_sub(384 << 10);
    assert!((50_000..500_000).contains(&blocks_weight), "{weight} bytes");
    // A write adds what it wrote.
    write_and_wait(session.clone(), "One more paragraph".into())
        .await
        .unwrap();
    assert!(session.weight() > weight, "{} bytes", session.weight());
    drop(session);
    probe.close_all().await;

    let registry =
        bounded_registry(&server, fast_options("Agent"), 8).with_memory_budget(weight * 5 / 2);
    for id in [a, b, c] {
        registry.open(id).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Two besides the last: within the budget.
    assert_eq!(registry.len(), 3);
    // `a`, used again and held, is spared: `b`, the least recently used after it, makes room.
    let held = registry.open(a).await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    registry.open(d).await.unwrap();
    assert!(registry.get(b).is_none());
    assert_eq!(registry.len(), 3);
    drop(held);
    // The others fit, and the one used last is not weighed: the reaper closes none.
    assert_eq!(registry.close_idle().await, Vec::<Uuid>::new());

    // A budget smaller than one document: the reaper keeps the one used last alone.
    let tight = bounded_registry(&server, fast_options("Tight"), 8).with_memory_budget(weight / 2);
    for id in [a, b] {
        tight.open(id).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Opening `b` found `a` over the budget and closed it.
    assert!(tight.get(a).is_none());
    assert_eq!(tight.close_idle().await, Vec::<Uuid>::new());
    assert!(tight.get(b).is_some());
    registry.close_all().await;
    tight.close_all().await;
}

/// Callers writing to two documents while a third is opened, through a registry that holds
/// one session: opens close the others' sessions to make room when they can, never under a
/// write, and every write is saved.
#[tokio::test]
async fn making_room_never_loses_a_write_racing_it() {
    let server = unthrottled_server().await;
    let [a, b, c] = documents(&server, ["a", "b", "c"]).await;
    let registry = bounded_registry(&server, fast_options("Agent"), 1);
    let mut expected = vec![];
    let mut last_round: Vec<std::sync::Weak<DocumentSession>> = vec![];
    let mut closed_for_room = 0;
    for round in 0..20 {
        let text = format!("round {round}");
        expected.push(text.clone());
        let write = |id| {
            let text = text.clone();
            let registry = &registry;
            async move {
                let session = registry.open(id).await?;
                let weak = Arc::downgrade(&session);
                write_and_wait(session, text).await.map(|()| weak)
            }
        };
        let open_c = async { registry.open(c).await.map(|s| Arc::downgrade(&s)) };
        // `biased`: each future runs until it waits, in this order. Opening `c` first closes
        // the sessions of `a` and `b` for room just before their writers ask for them;
        // opening it last finds them in use.
        let (in_a, in_b, opened_c) = if round % 2 == 0 {
            let (opened_c, in_a, in_b) = tokio::join!(biased; open_c, write(a), write(b));
            (in_a, in_b, opened_c)
        } else {
            tokio::join!(biased; write(a), write(b), open_c)
        };
        closed_for_room += last_round.iter().filter(|s| s.upgrade().is_none()).count();
        last_round = vec![in_a.unwrap(), in_b.unwrap(), opened_c.unwrap()];
        // Back to the bound: the next round opens anew what this closes.
        registry.close_idle().await;
    }
    assert!(closed_for_room > 0, "no session was closed to make room");
    registry.close_all().await;
    for id in [a, b] {
        assert_eq!(
            blocknote_texts(&server.stored(id).await.unwrap().blocks),
            expected
        );
    }
}

#[tokio::test]
async fn failed_opens_leave_the_registry_as_it_was() {
    let server = unthrottled_server().await;
    let id = server
        .create_document(DocumentSpec::new("kept"))
        .await
        .unwrap();
    let registry = SessionRegistry::new(
        unthrottled_client(&server),
        fast_options("Agent"),
        DEFAULT_IDLE_TTL,
    );
    let session = registry.open(id).await.unwrap();
    assert_eq!(registry.len(), 1);

    let failures = futures_util::stream::iter(0..10_000)
        .map(|_| registry.open(Uuid::new_v4()))
        .buffer_unordered(16)
        .filter(|opened| std::future::ready(matches!(opened, Err(Error::NotFound { .. }))))
        .count()
        .await;
    assert_eq!(failures, 10_000);
    assert_eq!(registry.len(), 1);
    assert!(Arc::ptr_eq(&registry.get(id).unwrap(), &session));
    registry.close_all().await;
    assert!(registry.is_empty());
}

#[tokio::test]
async fn persist_saves_edits_the_session_only_received() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("received").markdown("Hello"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    // Someone types and leaves without saving: the room has it, the store does not.
    let typist = server
        .start_typist(TypistSpec::new(id, " world").interval_ms(5))
        .await
        .unwrap();
    assert_eq!(typist.wait_done(WAIT).await.unwrap().error, None);
    eventually("our copy to hold the typing", WAIT, || async {
        (block_texts(session.doc()) == ["Hello world"]).then_some(())
    })
    .await;
    let before = match server.collaboration() {
        Collaboration::Hocuspocus => "Hello",
        // yhub stores what it takes.
        Collaboration::Yhub => "Hello world",
    };
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        [before]
    );

    let receipt = session.persist().await.unwrap().wait().await.unwrap();
    assert_eq!(receipt.seq, 1);
    if server.collaboration() == Collaboration::Yhub {
        // yhub stored the typing itself: nothing for us to save.
        assert_eq!(
            blocknote_texts(&server.stored(id).await.unwrap().blocks),
            ["Hello world"]
        );
        assert_eq!(server.stats().await.unwrap().content_patches.len(), 0);
        session.close().await.unwrap();
        return;
    }
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["Hello world"]
    );
    // Each request is a save of its own, started after it.
    session.persist().await.unwrap().wait().await.unwrap();
    assert_eq!(
        server.stats().await.unwrap().content_patches[&id.to_string()],
        2
    );
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_write_may_use_the_session_and_its_panic_is_the_callers() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("reentrant"))
        .await
        .unwrap();
    let session = Arc::new(
        DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
            .await
            .unwrap(),
    );
    // The change runs with no lock of the session held: it may ask the session anything.
    let inside = session.clone();
    let seen = session
        .write(move |txn| {
            append_paragraph(txn, "first");
            let snapshot = inside.snapshot();
            (
                snapshot.connected,
                inside.is_read_only(),
                inside.progress().borrow().written,
            )
        })
        .await
        .unwrap();
    assert_eq!(*seen.value(), (true, false, 0));
    seen.wait().await.unwrap();

    let writer = session.clone();
    let panicked = tokio::spawn(async move {
        writer
            .write::<_, ()>(|_| panic!("the caller's bug"))
            .await
            .map(|_| ())
    })
    .await
    .unwrap_err();
    assert!(panicked.is_panic());
    // The session lives on.
    session
        .write(move |txn| append_paragraph(txn, "second"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["first", "second"]
    );
}

/// A session joins its room while the stored content loads: when the content cannot be
/// loaded, the open fails with why, and the connection it made meanwhile is closed. The
/// content is held back until the session is in the room, so the connection is surely made.
#[tokio::test]
async fn an_open_whose_content_cannot_be_loaded_leaves_no_connection_in_the_room() {
    let server = DocsServer::start().await.unwrap();
    if server.collaboration() == Collaboration::Yhub {
        // (no stored content there: the room brings the document)
        return;
    }
    let id = server
        .create_document(DocumentSpec::new("garbled").markdown("Text"))
        .await
        .unwrap();
    let client = anonymous_client(&server);
    // Nested deeper than the session's door lets in (Hocuspocus and Docs take it).
    let deep = {
        use yrs::{Doc, ReadTxn, StateVector, Transact, XmlElementPrelim, XmlFragment};
        let doc = Doc::new();
        let fragment = doc.get_or_insert_xml_fragment(docs_client::DOCUMENT_FRAGMENT);
        let mut txn = doc.transact_mut();
        let mut group = fragment.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        for _ in 0..docs_client::blocknote::MAX_YJS_DEPTH {
            group = group.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        }
        txn.encode_state_as_update_v1(&StateVector::default())
    };
    client
        .save_content(id, ContentApi::Endpoint, &deep, false)
        .await
        .unwrap();
    server.hold_content(id).await.unwrap();
    let opening = tokio::spawn(DocumentSession::open(client, id, fast_options("Agent")));
    let room = id.to_string();
    let deadline = Instant::now() + WAIT;
    while server.stats().await.unwrap().room_joins.get(&room).copied() != Some(1) {
        assert!(
            Instant::now() < deadline,
            "the session never joined the room"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.release_content(id).await.unwrap();
    let opened = tokio::time::timeout(WAIT, opening)
        .await
        .expect("the open ends once the content comes")
        .unwrap();
    assert!(
        matches!(opened, Err(Error::TooDeep { .. })),
        "{:?}",
        opened.err()
    );
    loop {
        let stats = server.stats().await.unwrap();
        assert_eq!(stats.room_joins.get(&room).copied(), Some(1), "{stats:?}");
        if stats.ws_connections.get(&room).copied().unwrap_or(0) == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "still in the room: {stats:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Alone in the room, an acknowledged write is saved once writes stop coming, without waiting
/// for the save interval: nobody else's save would hold it, and the room forgets it as soon
/// as we leave. With someone else in the room, it waits for the interval.
#[tokio::test]
async fn alone_in_the_room_a_write_is_saved_without_waiting_for_the_interval() {
    let server = DocsServer::start().await.unwrap();
    if server.collaboration() == Collaboration::Yhub {
        // yhub stores what it takes: nothing waits for a save of ours.
        return;
    }
    let id = server
        .create_document(DocumentSpec::new("alone"))
        .await
        .unwrap();
    let options = SessionOptions {
        save_interval: Duration::from_secs(600),
        save_alone_after: Duration::from_millis(300),
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, options)
        .await
        .unwrap();
    let mut write = session
        .write(move |txn| append_paragraph(txn, "saved soon"))
        .await
        .unwrap();
    write.acknowledged().await.unwrap();
    let mut progress = session.progress();
    tokio::time::timeout(WAIT, progress.wait_for(|p| p.saved >= 1))
        .await
        .expect("saved without waiting for the interval")
        .unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["saved soon"]
    );

    // Ada comes in: a write then waits for the interval (3 s for this session), and is
    // saved no sooner than that after it was made.
    session.close().await.unwrap();
    let ada = DocumentSession::open(anonymous_client(&server), id, fast_options("Ada"))
        .await
        .unwrap();
    let interval = Duration::from_secs(3);
    let options = SessionOptions {
        save_interval: interval,
        save_alone_after: Duration::from_millis(300),
        ..fast_options("Agent")
    };
    let session = DocumentSession::open(anonymous_client(&server), id, options)
        .await
        .unwrap();
    let started = Instant::now();
    while session.collaborators() != ["Ada"] {
        assert!(started.elapsed() < WAIT, "Ada never seen in the room");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let written = Instant::now();
    let mut write = session
        .write(move |txn| append_paragraph(txn, "waits for the interval"))
        .await
        .unwrap();
    write.acknowledged().await.unwrap();
    let mut progress = session.progress();
    tokio::time::timeout(WAIT, progress.wait_for(|p| p.saved >= 1))
        .await
        .expect("saved at the end of the interval")
        .unwrap();
    assert!(
        written.elapsed() >= interval,
        "saved {:?} after the write, before the interval",
        written.elapsed()
    );
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["saved soon", "waits for the interval"]
    );
    ada.close().await.unwrap();
    session.close().await.unwrap();
}
