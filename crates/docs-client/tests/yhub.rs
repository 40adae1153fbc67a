//! What only Docs' next collaboration server (yhub, plain y-websocket) has: refusals before
//! the upgrade, attributions, writes held once the server shows them, its REST route when
//! no socket gets through, deletion closing the room. Always against the test server's yhub
//! mode (the real y-websocket server); the live suites run in both modes besides.

mod support;

use std::time::Duration;

use docs_client::{CollaborationServer, DocumentSession, Error};
use support::*;
use test_harness::{Collaboration, DocsServer, DocumentSpec, ServerOptions, TypistSpec};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};
use uuid::Uuid;

const WAIT: Duration = Duration::from_secs(20);

async fn yhub_server() -> DocsServer {
    DocsServer::start_with(ServerOptions {
        collaboration: Some(Collaboration::Yhub.as_str().to_owned()),
        ..ServerOptions::default()
    })
    .await
    .unwrap()
}

/// The HTTP status a raw socket upgrade gets (101 when it is accepted).
async fn upgrade_status(server: &DocsServer, id: Uuid, origin: Option<&str>) -> u16 {
    let url = format!("{}/{id}", server.yhub_ws_url());
    let mut request = url.into_client_request().unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
    }
    request
        .headers_mut()
        .insert("Cookie", "docs_mcp_anonymous=1".parse().unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Ok((_, response)) => response.status().as_u16(),
        Err(tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(other) => panic!("no HTTP answer: {other}"),
    }
}

#[tokio::test]
async fn refusals_come_as_http_statuses_before_the_upgrade() {
    let server = yhub_server().await;
    let public = server
        .create_document(DocumentSpec::new("public").link("public", "editor"))
        .await
        .unwrap();
    let private = server
        .create_document(DocumentSpec::new("private").link("restricted", "reader"))
        .await
        .unwrap();
    let origin = server.url().to_owned();
    assert_eq!(upgrade_status(&server, public, Some(&origin)).await, 101);
    assert_eq!(upgrade_status(&server, public, None).await, 401);
    assert_eq!(
        upgrade_status(&server, public, Some("https://evil.example")).await,
        401
    );
    assert_eq!(upgrade_status(&server, private, Some(&origin)).await, 403);
}

#[tokio::test]
async fn an_agents_connection_is_tagged_as_ai_and_shows_its_presence() {
    let server = yhub_server().await;
    let id = server
        .create_document(DocumentSpec::new("tagged").markdown("Hello"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Claude"))
        .await
        .unwrap();
    assert_eq!(session.snapshot().collaboration, CollaborationServer::Yhub);
    assert_eq!(block_texts(session.doc()), ["Hello"], "the room's state");
    session
        .write(move |txn| append_paragraph(txn, "by an agent"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    let connections = server.attributions(id).await.unwrap().connections;
    let tags: Vec<Vec<(String, String)>> = connections
        .iter()
        .map(|c| {
            c.attributions
                .iter()
                .map(|a| (a.k.clone(), a.v.clone()))
                .collect()
        })
        .collect();
    assert_eq!(
        tags,
        [[
            ("source".to_owned(), "ai".to_owned()),
            ("tool".to_owned(), "lasuite-docs-mcp".to_owned())
        ]]
    );
    assert!(connections[0].updates >= 1 && !connections[0].read_only);
    eventually("the room to list the agent", WAIT, || async {
        let states = server.awareness(id).await.unwrap();
        states
            .iter()
            .any(|s| s["state"]["user"]["name"] == "Claude")
            .then_some(())
    })
    .await;
    session.close().await.unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["Hello", "by an agent"]
    );
}

/// yhub sends no acknowledgement: a write counts as held only once the server sent it back,
/// so a room that stops answering holds nothing, and answering again holds the write.
#[tokio::test]
async fn a_write_is_held_only_once_the_server_shows_it() {
    let server = yhub_server().await;
    let id = server
        .create_document(DocumentSpec::new("held"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    assert_eq!(server.freeze(id).await.unwrap(), 1);
    let mut write = session
        .write(move |txn| append_paragraph(txn, "held later"))
        .await
        .unwrap();
    let early = tokio::time::timeout(Duration::from_millis(800), write.acknowledged()).await;
    assert!(early.is_err(), "held before the server showed it");
    assert_eq!(session.progress().borrow().saved, 0);
    server.unfreeze(id).await.unwrap();
    tokio::time::timeout(WAIT, write.wait())
        .await
        .expect("held once the server answers again")
        .unwrap();
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["held later"]
    );
    session.close().await.unwrap();
}

/// A socket that never gets through (a proxy that does not pass WebSockets): the document is
/// read and written through yhub's REST route, and what is written reaches the editors
/// connected; once sockets pass again, the session connects.
#[tokio::test]
async fn without_a_socket_reads_and_writes_go_through_the_rest_route_to_connected_editors() {
    let server = yhub_server().await;
    let id = server
        .create_document(DocumentSpec::new("no socket").markdown("Hello"))
        .await
        .unwrap();
    let browser = server
        .start_typist(
            TypistSpec::new(id, " there")
                .interval_ms(5)
                .stay_connected(),
        )
        .await
        .unwrap();
    let typed = eventually("the browser to have typed", WAIT, || async {
        let status = browser.status().await.unwrap();
        status.done.then_some(status)
    })
    .await;
    assert_eq!(typed.error, None);
    server
        .refuse_sockets_of(Some("lasuite-docs-mcp"))
        .await
        .unwrap();

    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    assert!(!session.snapshot().connected);
    assert_eq!(block_texts(session.doc()), ["Hello there"]);
    session
        .write(move |txn| append_paragraph(txn, "through REST"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    assert!(!session.snapshot().connected, "written without a socket");
    let attributions = server.attributions(id).await.unwrap();
    assert!(!attributions.patches.is_empty());
    assert!(attributions.patches.iter().all(|p| {
        p.update
            && p.attributions
                .iter()
                .any(|a| a.k == "source" && a.v == "ai")
    }));
    eventually("the connected browser to receive it", WAIT, || async {
        let status = browser.status().await.unwrap();
        status.fragment.contains("through REST").then_some(())
    })
    .await;
    assert_eq!(
        blocknote_texts(&server.stored(id).await.unwrap().blocks),
        ["Hello there", "through REST"]
    );

    server.refuse_sockets_of(None).await.unwrap();
    eventually("the session to connect", WAIT, || async {
        session.snapshot().connected.then_some(())
    })
    .await;
    let patches = server.stats().await.unwrap().ydoc_patches[&id.to_string()];
    session
        .write(move |txn| append_paragraph(txn, "over the socket"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    assert_eq!(
        server.stats().await.unwrap().ydoc_patches[&id.to_string()],
        patches,
        "connected again, no REST write"
    );
    eventually("the browser to receive it too", WAIT, || async {
        let status = browser.status().await.unwrap();
        status.fragment.contains("over the socket").then_some(())
    })
    .await;
    session.close().await.unwrap();
}

/// A document deleted while open: yhub closes its room with 4404, which ends the session.
#[tokio::test]
async fn a_deleted_document_ends_the_session() {
    let server = yhub_server().await;
    let owner = server
        .create_user("owner@example.org", "Owner")
        .await
        .unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("to delete")
                .creator(&owner.id)
                .access(&owner.id, "owner"),
        )
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let deleted = reqwest::Client::new()
        .delete(format!("{}/api/v1.0/documents/{id}/", server.url()))
        .header("Cookie", owner.cookie_header())
        .header("X-CSRFToken", &owner.csrf_token)
        .header("Origin", server.url())
        .header("Referer", format!("{}/", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 204);
    let mut progress = session.progress();
    let failure = tokio::time::timeout(WAIT, progress.wait_for(|p| p.failure.is_some()))
        .await
        .expect("the session ends")
        .unwrap()
        .failure
        .clone()
        .unwrap();
    assert!(
        matches!(
            failure.error,
            Error::ConnectionRefused { code: 4404, .. }
                | Error::NotFound { .. }
                | Error::Forbidden { .. }
        ),
        "{failure:?}"
    );
}
