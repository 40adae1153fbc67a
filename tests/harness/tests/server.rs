//! Tests of the Docs-like test server itself, through the harness and raw HTTP/WebSocket clients.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec, ServerOptions, TypistSpec};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

fn http() -> reqwest::Client {
    reqwest::Client::builder().build().unwrap()
}

/// Opens a raw WebSocket to the room and returns the close frame the server sends first.
async fn ws_close_frame(
    server: &DocsServer,
    room: &str,
    origin: Option<&str>,
    cookie: Option<&str>,
) -> (u16, String) {
    let mut req = format!("{}?room={room}", server.ws_url())
        .into_client_request()
        .unwrap();
    if let Some(o) = origin {
        req.headers_mut()
            .insert("Origin", HeaderValue::from_str(o).unwrap());
    }
    if let Some(c) = cookie {
        req.headers_mut()
            .insert("Cookie", HeaderValue::from_str(c).unwrap());
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let msg = tokio::time::timeout(Duration::from_secs(5), ws.next())
        .await
        .expect("no frame within 5 s");
    match msg {
        Some(Ok(Message::Close(Some(frame)))) => (u16::from(frame.code), frame.reason.to_string()),
        Some(Err(WsError::ConnectionClosed)) | None => panic!("closed without a close frame"),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn starts_and_serves_config() {
    let server = DocsServer::start().await.unwrap();
    assert!(server.url().starts_with("http://127.0.0.1:"));
    let res = http()
        .get(format!("{}/api/v1.0/config/", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let set_cookie = res.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(set_cookie.starts_with("docs_sessionid="), "{set_cookie}");
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("Path=/"), "{set_cookie}");
    let cfg: Value = res.json().await.unwrap();
    assert_eq!(
        cfg["COLLABORATION_WS_URL"],
        json!(format!(
            "{}/collaboration/ws/",
            server.url().replace("http", "ws")
        ))
    );
    assert_eq!(cfg["COLLABORATION_WS_NOT_CONNECTED_READ_ONLY"], json!(true));
    assert_eq!(cfg["RELEASE_VERSION"], json!("5.7.0"));

    let legacy = DocsServer::start_with(ServerOptions {
        legacy_content: true,
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let cfg: Value = http()
        .get(format!("{}/api/v1.0/config/", legacy.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(cfg["RELEASE_VERSION"], json!("4.8.0"));
}

#[tokio::test]
async fn exits_when_stdin_closes() {
    let server = DocsServer::start().await.unwrap();
    let url = server.url().to_owned();
    let pid = server.pid().unwrap();
    drop(server);
    // kill_on_drop kills it; in any case the port must stop answering soon.
    let mut gone = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if http()
            .get(format!("{url}/api/v1.0/config/"))
            .send()
            .await
            .is_err()
        {
            gone = true;
            break;
        }
    }
    assert!(gone, "server {pid} still answering at {url}");
}

#[tokio::test]
async fn websocket_refuses_bad_origin_and_missing_cookie() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("ws"))
        .await
        .unwrap()
        .to_string();
    let origin = server.url().to_owned();

    assert_eq!(
        ws_close_frame(&server, &id, None, Some("docs_sessionid=x")).await,
        (4001, "Origin not allowed".to_owned())
    );
    assert_eq!(
        ws_close_frame(
            &server,
            &id,
            Some("http://evil.example"),
            Some("docs_sessionid=x")
        )
        .await,
        (4001, "Origin not allowed".to_owned())
    );
    assert_eq!(
        ws_close_frame(&server, &id, Some(&origin), None).await,
        (4001, "No cookies".to_owned())
    );
}

#[tokio::test]
async fn content_round_trip_with_etag() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("c").markdown("Hello"))
        .await
        .unwrap();
    let client = http();
    let url = format!("{}/api/v1.0/documents/{id}/content/", server.url());

    let res = client.get(&url).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/plain");
    let etag = res.headers()["etag"].to_str().unwrap().to_owned();
    let body = res.text().await.unwrap();
    let stored = server.stored(id).await.unwrap();
    use base64::Engine;
    assert_eq!(
        body,
        base64::engine::general_purpose::STANDARD.encode(&stored.update)
    );

    let res = client
        .get(&url)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);
    assert_eq!(res.text().await.unwrap(), "");

    // Anonymous PATCH on a public editor document: allowed, no CSRF.
    let other = server
        .create_document(DocumentSpec::new("o").markdown("Other text"))
        .await
        .unwrap();
    let other_b64 = client
        .get(format!(
            "{}/api/v1.0/documents/{other}/content/",
            server.url()
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let res = client
        .patch(&url)
        .json(&json!({"content": other_b64, "websocket": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(res.text().await.unwrap(), "");

    let res = client
        .get(&url)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_ne!(res.headers()["etag"].to_str().unwrap(), etag);
    assert_eq!(res.text().await.unwrap(), other_b64);
    assert_eq!(server.stored(id).await.unwrap().markdown, "Other text\n");
    assert_eq!(
        server.stats().await.unwrap().content_patches[&id.to_string()],
        1
    );

    // Invalid base64 → 400 like DRF.
    let res = client
        .patch(&url)
        .json(&json!({"content": "not base64!", "websocket": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"content": ["Invalid base64 content."]})
    );

    // A document without content: empty body, no ETag.
    let empty = server
        .create_document(DocumentSpec::new("e"))
        .await
        .unwrap();
    let res = client
        .get(format!(
            "{}/api/v1.0/documents/{empty}/content/",
            server.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("etag").is_none());
    assert_eq!(res.text().await.unwrap(), "");
}

#[tokio::test]
async fn legacy_content_lives_on_the_document() {
    let server = DocsServer::start_with(ServerOptions {
        legacy_content: true,
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let id = server
        .create_document(DocumentSpec::new("l").markdown("Hello"))
        .await
        .unwrap();
    let client = http();
    let res = client
        .get(format!("{}/api/v1.0/documents/{id}/content/", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let doc: Value = client
        .get(format!("{}/api/v1.0/documents/{id}/", server.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let content = doc["content"].as_str().unwrap().to_owned();
    use base64::Engine;
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(&content)
            .unwrap(),
        server.stored(id).await.unwrap().update
    );
    let res = client
        .patch(format!("{}/api/v1.0/documents/{id}/", server.url()))
        .json(&json!({"content": content, "websocket": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        server.stats().await.unwrap().content_patches[&id.to_string()],
        1
    );
}

async fn get_doc(server: &DocsServer, id: &str, cookie: Option<&str>) -> (u16, Value) {
    let mut req = http().get(format!("{}/api/v1.0/documents/{id}/", server.url()));
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

#[tokio::test]
async fn abilities_follow_link_reach_and_roles() {
    let server = DocsServer::start().await.unwrap();
    let alice = server
        .create_user("alice@example.org", "Alice")
        .await
        .unwrap();
    let bob = server.create_user("bob@example.org", "Bob").await.unwrap();

    // Restricted: anonymous → 401 with WWW-Authenticate: Session; stranger → 403; owner → 200.
    let restricted = server
        .create_document(
            DocumentSpec::new("r")
                .link("restricted", "reader")
                .access(&alice.id, "owner")
                .creator(&alice.id),
        )
        .await
        .unwrap()
        .to_string();
    let res = http()
        .get(format!("{}/api/v1.0/documents/{restricted}/", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(res.headers()["www-authenticate"], "Session");
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"detail": "Authentication credentials were not provided."})
    );
    assert_eq!(
        get_doc(&server, &restricted, Some(&bob.cookie_header())).await,
        (
            403,
            json!({"detail": "You do not have permission to perform this action."})
        )
    );
    let (status, doc) = get_doc(&server, &restricted, Some(&alice.cookie_header())).await;
    assert_eq!(status, 200);
    assert_eq!(doc["user_role"], json!("owner"));
    assert_eq!(doc["creator"], json!(alice.id));
    assert_eq!(doc["computed_link_reach"], json!("restricted"));
    assert_eq!(doc["computed_link_role"], Value::Null);
    for key in [
        "retrieve",
        "update",
        "partial_update",
        "content_retrieve",
        "content_patch",
        "destroy",
        "favorite",
        "children_list",
        "children_create",
    ] {
        assert_eq!(doc["abilities"][key], json!(true), "owner {key}");
    }

    // Unknown document → 404.
    assert_eq!(
        get_doc(&server, "8f8d2bd8-64b3-4ae4-9b0c-0c2f9dc4fc59", None).await,
        (
            404,
            json!({"detail": "No Document matches the given query."})
        )
    );

    // Public reader: anonymous can retrieve but not update.
    let public_reader = server
        .create_document(DocumentSpec::new("p").link("public", "reader"))
        .await
        .unwrap()
        .to_string();
    let (status, doc) = get_doc(&server, &public_reader, None).await;
    assert_eq!(status, 200);
    let a = &doc["abilities"];
    assert_eq!(
        (
            &a["retrieve"],
            &a["content_retrieve"],
            &a["update"],
            &a["partial_update"],
            &a["content_patch"],
            &a["favorite"],
            &a["destroy"]
        ),
        (
            &json!(true),
            &json!(true),
            &json!(false),
            &json!(false),
            &json!(false),
            &json!(false),
            &json!(false)
        )
    );
    assert_eq!(doc["user_role"], Value::Null);
    let res = http()
        .patch(format!(
            "{}/api/v1.0/documents/{public_reader}/content/",
            server.url()
        ))
        .json(&json!({"content": "", "websocket": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);

    // Authenticated editor link: anonymous 401, any signed-in user can update.
    let auth_editor = server
        .create_document(DocumentSpec::new("a").link("authenticated", "editor"))
        .await
        .unwrap()
        .to_string();
    assert_eq!(get_doc(&server, &auth_editor, None).await.0, 401);
    let (status, doc) = get_doc(&server, &auth_editor, Some(&bob.cookie_header())).await;
    assert_eq!(status, 200);
    assert_eq!(doc["abilities"]["update"], json!(true));
    assert_eq!(doc["abilities"]["favorite"], json!(true));
    assert_eq!(doc["abilities"]["destroy"], json!(false));

    // A reader access on a restricted doc: retrieve but no update; changed at runtime.
    server
        .set_access(restricted.parse().unwrap(), &bob.id, Some("reader"))
        .await
        .unwrap();
    let (status, doc) = get_doc(&server, &restricted, Some(&bob.cookie_header())).await;
    assert_eq!(status, 200);
    assert_eq!(doc["user_role"], json!("reader"));
    assert_eq!(doc["abilities"]["update"], json!(false));
    server
        .set_link(restricted.parse().unwrap(), "public", "editor")
        .await
        .unwrap();
    let (_, doc) = get_doc(&server, &restricted, None).await;
    assert_eq!(doc["abilities"]["update"], json!(true));
    assert_eq!(doc["abilities"]["destroy"], json!(false));

    // Listing: signed-in users see the documents they have access to; anonymous an empty page.
    let list: Value = http()
        .get(format!("{}/api/v1.0/documents/", server.url()))
        .header("Cookie", bob.cookie_header())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["count"], json!(2)); // restricted (access) + auth_editor (visited)
    assert_eq!(list["next"], Value::Null);
    let list: Value = http()
        .get(format!("{}/api/v1.0/documents/", server.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        list,
        json!({"count": 0, "next": null, "previous": null, "results": []})
    );

    // users/me
    let me: Value = http()
        .get(format!("{}/api/v1.0/users/me/", server.url()))
        .header("Cookie", alice.cookie_header())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        me,
        json!({"id": alice.id, "email": "alice@example.org", "full_name": "Alice", "short_name": "Alice", "language": "en-us"})
    );
    let res = http()
        .get(format!("{}/api/v1.0/users/me/", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
}

#[tokio::test]
async fn csrf_is_enforced_for_signed_in_unsafe_requests() {
    let server = DocsServer::start().await.unwrap();
    let alice = server
        .create_user("alice@example.org", "Alice")
        .await
        .unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("csrf")
                .link("restricted", "reader")
                .access(&alice.id, "owner"),
        )
        .await
        .unwrap();
    let url = format!("{}/api/v1.0/documents/{id}/", server.url());
    let patch = |origin: Option<&str>, token: Option<&str>| {
        let mut req = http()
            .patch(&url)
            .header("Cookie", alice.cookie_header())
            .json(&json!({"title": "New title"}));
        if let Some(o) = origin {
            req = req.header("Origin", o.to_owned());
        }
        if let Some(t) = token {
            req = req.header("X-CSRFToken", t.to_owned());
        }
        req.send()
    };
    let res = patch(Some(server.url()), None).await.unwrap();
    assert_eq!(res.status(), 403);
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"detail": "CSRF Failed: CSRF token missing."})
    );
    let res = patch(Some(server.url()), Some("wrong")).await.unwrap();
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"detail": "CSRF Failed: CSRF token incorrect."})
    );
    let res = patch(Some("http://evil.example"), Some(&alice.csrf_token))
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"detail": "CSRF Failed: Origin checking failed - http://evil.example does not match any trusted origins."})
    );
    let res = patch(None, Some(&alice.csrf_token)).await.unwrap();
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"detail": "CSRF Failed: Referer checking failed - no Referer."})
    );
    let res = patch(Some(server.url()), Some(&alice.csrf_token))
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.json::<Value>().await.unwrap()["title"],
        json!("New title")
    );
}

#[tokio::test]
async fn throttle_next_gives_429() {
    let server = DocsServer::start().await.unwrap();
    server.throttle_next(2, 7).await.unwrap();
    let url = format!("{}/api/v1.0/config/", server.url());
    for _ in 0..2 {
        let res = http().get(&url).send().await.unwrap();
        assert_eq!(res.status(), 429);
        assert_eq!(res.headers()["retry-after"], "7");
        assert_eq!(
            res.json::<Value>().await.unwrap(),
            json!({"detail": "Request was throttled. Expected available in 7 seconds."})
        );
    }
    assert_eq!(http().get(&url).send().await.unwrap().status(), 200);
    let stats = server.stats().await.unwrap();
    assert_eq!((stats.requests, stats.throttled), (3, 2));
}

#[tokio::test]
async fn rate_throttle_per_session() {
    let server = DocsServer::start_with(ServerOptions {
        throttle_rate: Some(3),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let id = server
        .create_document(DocumentSpec::new("t"))
        .await
        .unwrap();
    let url = format!("{}/api/v1.0/documents/{id}/", server.url());
    let cookie = "docs_sessionid=throttled-session";
    for _ in 0..3 {
        let res = http()
            .get(&url)
            .header("Cookie", cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    let res = http()
        .get(&url)
        .header("Cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429);
    assert_eq!(res.headers()["retry-after"], "60");
    // Another session is not affected.
    let res = http()
        .get(&url)
        .header("Cookie", "docs_sessionid=other-session")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn seeded_markdown_is_stored_as_blocknote_does() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("md").markdown("# Title\n\nHello **bold**"))
        .await
        .unwrap();
    let stored = server.stored(id).await.unwrap();
    let mut blocks = stored.blocks.clone();
    for b in blocks.as_array_mut().unwrap() {
        let bid = b["id"].as_str().unwrap();
        assert_eq!(uuid::Uuid::parse_str(bid).unwrap().get_version_num(), 4);
        b["id"] = json!("<id>");
    }
    assert_eq!(
        blocks,
        json!([
            {
                "id": "<id>",
                "type": "heading",
                "props": {"backgroundColor": "default", "textColor": "default", "textAlignment": "left", "level": 1, "isToggleable": false},
                "content": [{"type": "text", "text": "Title", "styles": {}}],
                "children": []
            },
            {
                "id": "<id>",
                "type": "paragraph",
                "props": {"backgroundColor": "default", "textColor": "default", "textAlignment": "left"},
                "content": [
                    {"type": "text", "text": "Hello ", "styles": {}},
                    {"type": "text", "text": "bold", "styles": {"bold": true}}
                ],
                "children": []
            }
        ])
    );
    assert_eq!(stored.markdown, "# Title\n\nHello **bold**\n");
    // No room is loaded until a client connects.
    assert_eq!(server.live(id).await.unwrap(), None);
}

#[tokio::test]
async fn docs_custom_blocks_round_trip() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("custom").blocks(json!([
            {"type": "callout", "content": "Note"},
            {"type": "paragraph", "content": [
                {"type": "interlinkingLinkInline", "props": {"docId": "abc", "title": "Other"}},
                " after"
            ]}
        ])))
        .await
        .unwrap();
    let stored = server.stored(id).await.unwrap();
    assert_eq!(stored.blocks[0]["type"], json!("callout"));
    assert_eq!(
        stored.blocks[0]["props"],
        json!({"textAlignment": "left", "backgroundColor": "default", "emoji": "💡"})
    );
    assert_eq!(
        stored.blocks[1]["content"][0],
        json!({"type": "interlinkingLinkInline", "props": {"docId": "abc", "disabled": false, "trigger": "/", "title": "Other"}})
    );
}

#[tokio::test]
async fn typist_types_live_and_saves() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("typing").markdown("# Title\n\nHello"))
        .await
        .unwrap();
    let typist = server
        .start_typist(
            TypistSpec::new(id, " world")
                .interval_ms(20)
                .save(true)
                .stay_connected(),
        )
        .await
        .unwrap();
    let st = typist.wait_done(Duration::from_secs(20)).await.unwrap();
    assert_eq!(
        (st.done, st.typed, st.error.clone(), st.saved, st.synced),
        (true, 6, None, true, true)
    );
    let live = server.live(id).await.unwrap().expect("room loaded");
    assert_eq!(live.markdown, "# Title\n\nHello world\n");
    assert_eq!(
        server.stored(id).await.unwrap().markdown,
        "# Title\n\nHello world\n"
    );
    let stats = server.stats().await.unwrap();
    assert_eq!(stats.ws_connections[&id.to_string()], 1);
    assert_eq!(stats.content_patches[&id.to_string()], 1);
    let awareness = server.awareness(id).await.unwrap();
    assert_eq!(awareness.len(), 1);
    assert_eq!(awareness[0]["state"]["user"]["name"], json!("Typist"));

    // Rights change: the room's connections are reset; a network drop closes sockets.
    server.reset_connections(id).await.unwrap();
    server.drop_connections().await.unwrap();
}

/// A client that shows redirects instead of following them, and keeps no cookies.
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

fn location(res: &reqwest::Response) -> String {
    res.headers()["location"].to_str().unwrap().to_owned()
}

/// The `Set-Cookie` headers of a response, without their changing `expires=` attribute.
fn set_cookies(res: &reqwest::Response) -> Vec<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| {
            v.to_str()
                .unwrap()
                .split("; ")
                .filter(|part| !part.starts_with("expires="))
                .collect::<Vec<_>>()
                .join("; ")
        })
        .collect()
}

/// The value of cookie `name` in a `Set-Cookie` header.
fn cookie_value(set_cookie: &str, name: &str) -> String {
    set_cookie
        .split(';')
        .next()
        .and_then(|pair| pair.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} in {set_cookie}"))
        .to_owned()
}

async fn me(server: &DocsServer, cookie: &str) -> (u16, Value) {
    let res = http()
        .get(format!("{}/api/v1.0/users/me/", server.url()))
        .header("Cookie", cookie)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

#[tokio::test]
async fn signing_in_goes_through_the_identity_provider_like_docs() {
    let server = DocsServer::start().await.unwrap();
    let alice = server
        .create_user("alice@example.org", "Alice")
        .await
        .unwrap();
    let doc = server
        .create_document(
            DocumentSpec::new("private")
                .link("restricted", "reader")
                .access(&alice.id, "owner"),
        )
        .await
        .unwrap();
    let client = no_redirects();
    let base = server.url();

    // authenticate → the provider's form, with a state kept in a (new, anonymous) session.
    let res = client
        .get(format!("{base}/api/v1.0/authenticate/?next=/docs/{doc}/"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 302);
    let form_url = location(&res);
    let state = form_url
        .strip_prefix("/__test__/oidc/login?state=")
        .unwrap_or_else(|| panic!("{form_url}"))
        .to_owned();
    let cookies = set_cookies(&res);
    assert_eq!(cookies.len(), 1);
    let anonymous = cookie_value(&cookies[0], "docs_sessionid");
    assert_eq!(
        cookies[0],
        format!("docs_sessionid={anonymous}; HttpOnly; Max-Age=43200; Path=/; SameSite=Lax")
    );

    let res = client
        .get(format!("{base}{form_url}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/html; charset=utf-8");
    let page = res.text().await.unwrap();
    assert!(page.contains(&format!(
        r#"<input type="hidden" name="state" value="{state}">"#
    )));
    assert!(page.contains(r#"<label for="email">Email</label>"#));
    assert!(page.contains(r#"<button type="submit">Sign in</button>"#));

    // An invalid email shows the form again.
    let res = client
        .post(format!("{base}/__test__/oidc/login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(format!("email=nobody&state={state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert!(
        res.text()
            .await
            .unwrap()
            .contains(r#"<p role="alert">Enter a valid email address.</p>"#)
    );

    let res = client
        .post(format!("{base}/__test__/oidc/login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(format!("email=alice%40example.org&state={state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 302);
    let callback = location(&res);
    assert!(
        callback.starts_with("/api/v1.0/callback/?code=")
            && callback.ends_with(&format!("&state={state}")),
        "{callback}"
    );

    // The callback needs the session that started the login.
    let res = client
        .get(format!("{base}{callback}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(
        res.text().await.unwrap(),
        "OIDC callback state not found in session `oidc_states`!"
    );

    let res = client
        .get(format!("{base}{callback}"))
        .header("Cookie", format!("docs_sessionid={anonymous}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 302);
    assert_eq!(location(&res), format!("/docs/{doc}/"));
    let cookies = set_cookies(&res);
    assert_eq!(cookies.len(), 2);
    let session = cookie_value(&cookies[0], "docs_sessionid");
    let csrf = cookie_value(&cookies[1], "csrftoken");
    assert_ne!(session, anonymous);
    assert_eq!(
        cookies,
        vec![
            format!("docs_sessionid={session}; HttpOnly; Max-Age=43200; Path=/; SameSite=Lax"),
            format!("csrftoken={csrf}; Max-Age=31449600; Path=/; SameSite=Lax"),
        ]
    );

    // The new session is Alice's; the CSRF token is the one unsafe requests need.
    let browser = format!("docs_sessionid={session}; csrftoken={csrf}");
    assert_eq!(
        me(&server, &browser).await,
        (
            200,
            json!({"id": alice.id, "email": "alice@example.org", "full_name": "Alice", "short_name": "Alice", "language": "en-us"})
        )
    );
    let res = http()
        .patch(format!("{base}/api/v1.0/documents/{doc}/"))
        .header("Cookie", &browser)
        .header("Origin", base)
        .header("X-CSRFToken", &csrf)
        .json(&json!({"title": "Renamed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // The session that started the login is gone (Django's login() cycles the key), so the
    // callback cannot be replayed.
    let res = client
        .get(format!("{base}{callback}"))
        .header("Cookie", format!("docs_sessionid={anonymous}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);

    // The frontend's pages.
    for path in ["/", &format!("/docs/{doc}/")] {
        let res = client.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["content-type"], "text/html; charset=utf-8");
        assert!(res.headers().get("set-cookie").is_none());
        assert!(res.text().await.unwrap().contains("<title>Docs</title>"));
    }
}

#[tokio::test]
async fn auto_sign_in_skips_the_form_once_and_creates_the_user() {
    let server = DocsServer::start().await.unwrap();
    let client = no_redirects();
    let base = server.url();
    server.auto_sign_in("carol@example.org").await.unwrap();

    let res = client
        .get(format!("{base}/api/v1.0/authenticate/"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 302);
    let callback = location(&res);
    assert!(
        callback.starts_with("/api/v1.0/callback/?code="),
        "{callback}"
    );
    let anonymous = cookie_value(&set_cookies(&res)[0], "docs_sessionid");
    let res = client
        .get(format!("{base}{callback}"))
        .header("Cookie", format!("docs_sessionid={anonymous}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 302);
    assert_eq!(location(&res), "/");
    let cookies = set_cookies(&res);
    let browser = format!(
        "docs_sessionid={}; csrftoken={}",
        cookie_value(&cookies[0], "docs_sessionid"),
        cookie_value(&cookies[1], "csrftoken")
    );
    let (status, user) = me(&server, &browser).await;
    assert_eq!(status, 200);
    assert_eq!(
        (&user["email"], &user["full_name"], &user["short_name"]),
        (&json!("carol@example.org"), &json!(""), &json!("carol"))
    );

    // Once only: the next login shows the form again.
    let res = client
        .get(format!("{base}/api/v1.0/authenticate/"))
        .send()
        .await
        .unwrap();
    assert!(location(&res).starts_with("/__test__/oidc/login?state="));

    // Without a session, users/me is refused like Docs does.
    let res = http()
        .get(format!("{base}/api/v1.0/users/me/"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert!(server.auto_sign_in("not an email").await.is_err());
}

type RoomSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A raw collaboration socket of a room that passes the server's Origin/Cookie checks.
async fn open_room_socket(server: &DocsServer, room: uuid::Uuid) -> RoomSocket {
    let mut req = format!("{}?room={room}", server.ws_url())
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Origin", HeaderValue::from_str(server.url()).unwrap());
    req.headers_mut()
        .insert("Cookie", HeaderValue::from_static("docs_sessionid=x"));
    tokio_tungstenite::connect_async(req).await.unwrap().0
}

/// Sends a WebSocket ping and returns the payload of the next pong, if one comes within
/// `within` (pings are answered by the server's WebSocket layer, below Hocuspocus).
async fn ping(
    socket: &mut RoomSocket,
    payload: &'static [u8],
    within: Duration,
) -> Option<Vec<u8>> {
    socket.send(Message::Ping(payload.into())).await.unwrap();
    pong(socket, within).await
}

async fn pong(socket: &mut RoomSocket, within: Duration) -> Option<Vec<u8>> {
    tokio::time::timeout(within, async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Pong(bytes))) => return bytes.to_vec(),
                Some(Ok(_)) => continue,
                other => panic!("socket ended: {other:?}"),
            }
        }
    })
    .await
    .ok()
}

#[tokio::test]
async fn a_frozen_room_keeps_its_connections_open_but_answers_nothing_until_unfrozen() {
    let server = DocsServer::start().await.unwrap();
    let frozen = server
        .create_document(DocumentSpec::new("frozen"))
        .await
        .unwrap();
    let other = server
        .create_document(DocumentSpec::new("other"))
        .await
        .unwrap();
    let answer = Duration::from_secs(10);
    let mut a = open_room_socket(&server, frozen).await;
    let mut b = open_room_socket(&server, other).await;
    assert_eq!(
        ping(&mut a, b"a1", answer).await.as_deref(),
        Some(&b"a1"[..])
    );

    assert_eq!(server.freeze(frozen).await.unwrap(), 1);
    // Nothing comes back from the frozen connection. (Asserting an absence needs a window:
    // 1 s; a broken freeze answers in milliseconds.)
    assert_eq!(ping(&mut a, b"a2", Duration::from_secs(1)).await, None);
    // Other rooms, and new connections to the frozen room, are served as usual.
    assert_eq!(
        ping(&mut b, b"b1", answer).await.as_deref(),
        Some(&b"b1"[..])
    );
    let mut c = open_room_socket(&server, frozen).await;
    assert_eq!(
        ping(&mut c, b"c1", answer).await.as_deref(),
        Some(&b"c1"[..])
    );

    // Unfrozen, the connection was never closed: the ping sent meanwhile is answered now.
    assert_eq!(server.unfreeze(frozen).await.unwrap(), 1);
    assert_eq!(pong(&mut a, answer).await.as_deref(), Some(&b"a2"[..]));
    assert_eq!(
        ping(&mut a, b"a3", answer).await.as_deref(),
        Some(&b"a3"[..])
    );

    // Every room at once.
    assert_eq!(server.freeze_all().await.unwrap(), 3);
    assert_eq!(server.freeze_all().await.unwrap(), 0, "already frozen");
    assert_eq!(ping(&mut b, b"b2", Duration::from_secs(1)).await, None);
    assert_eq!(server.unfreeze_all().await.unwrap(), 3);
    assert_eq!(pong(&mut b, answer).await.as_deref(), Some(&b"b2"[..]));
    assert_eq!(server.unfreeze(frozen).await.unwrap(), 0, "nothing frozen");
}
