//! The test server's comment threads (Docs' ThreadViewSet and CommentViewSet) and comment
//! marks (BlockNote's `comment` mark, read back through BlockNote's editor).

use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec, TestUser};
use uuid::Uuid;

/// Calls the REST API as a browser of `user` would (session + CSRF), or anonymously.
struct Api<'a> {
    server: &'a DocsServer,
    user: Option<&'a TestUser>,
    http: reqwest::Client,
}

impl<'a> Api<'a> {
    fn new(server: &'a DocsServer, user: Option<&'a TestUser>) -> Self {
        Api {
            server,
            user,
            http: reqwest::Client::new(),
        }
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let url = format!("{}/api/v1.0/{path}", self.server.url());
        let mut req = self
            .http
            .request(method, url)
            .header("Origin", self.server.url());
        if let Some(user) = self.user {
            req = req
                .header("Cookie", user.cookie_header())
                .header("X-CSRFToken", &user.csrf_token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        let value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, value)
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::GET, path, None).await
    }
    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }
    async fn patch(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(reqwest::Method::PATCH, path, Some(body)).await
    }
    async fn delete(&self, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::DELETE, path, None).await
    }
}

/// A comment body as Docs' comment editor sends it: BlockNote blocks.
fn body(text: &str) -> Value {
    json!([{
        "id": Uuid::new_v4().to_string(),
        "type": "paragraph",
        "props": {"backgroundColor": "default", "textColor": "default", "textAlignment": "left"},
        "content": [{"type": "text", "text": text, "styles": {}}],
        "children": []
    }])
}

const FORBIDDEN: &str = "You do not have permission to perform this action.";

fn keys(v: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

#[tokio::test]
async fn threads_have_docs_shapes_statuses_and_permissions() {
    let server = DocsServer::start().await.unwrap();
    let owner = server
        .create_user("owner@example.org", "Olga Owner")
        .await
        .unwrap();
    let commenter = server
        .create_user("com@example.org", "Cam Commenter")
        .await
        .unwrap();
    let editor = server
        .create_user("ed@example.org", "Ed Editor")
        .await
        .unwrap();
    let reader = server
        .create_user("re@example.org", "Rea Reader")
        .await
        .unwrap();
    let stranger = server
        .create_user("st@example.org", "Stan Stranger")
        .await
        .unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("reviewed")
                .markdown("Some text")
                .link("restricted", "reader")
                .access(&owner.id, "owner")
                .access(&commenter.id, "commenter")
                .access(&editor.id, "editor")
                .access(&reader.id, "reader"),
        )
        .await
        .unwrap();
    let threads = format!("documents/{id}/threads/");
    let (as_owner, as_commenter, as_editor) = (
        Api::new(&server, Some(&owner)),
        Api::new(&server, Some(&commenter)),
        Api::new(&server, Some(&editor)),
    );

    // The commenter may comment and may not edit.
    let (_, doc) = as_commenter.get(&format!("documents/{id}/")).await;
    assert_eq!(doc["abilities"]["comment"], json!(true));
    assert_eq!(doc["abilities"]["update"], json!(false));
    assert_eq!(doc["abilities"]["content_patch"], json!(false));
    assert_eq!(doc["user_role"], json!("commenter"));

    // Creating: `body` is required; 201 with Docs' ThreadSerializer shape.
    assert_eq!(
        as_commenter.post(&threads, json!({})).await,
        (400, json!({"body": ["This field is required."]}))
    );
    let why = body("Why?");
    let (status, thread) = as_commenter.post(&threads, json!({"body": why})).await;
    assert_eq!(status, 201, "{thread}");
    assert_eq!(
        keys(&thread),
        [
            "abilities",
            "comments",
            "created_at",
            "creator",
            "id",
            "metadata",
            "resolved",
            "resolved_at",
            "resolved_by",
            "updated_at"
        ]
    );
    let tid = thread["id"].as_str().unwrap().to_owned();
    assert_eq!(Uuid::parse_str(&tid).unwrap().get_version_num(), 4);
    assert_eq!(
        thread["creator"],
        json!({"full_name": "Cam Commenter", "short_name": "Cam"})
    );
    assert_eq!(
        thread["abilities"],
        json!({"destroy": true, "update": true, "partial_update": true, "resolve": true, "unresolve": true, "retrieve": true})
    );
    assert_eq!(
        (
            &thread["resolved"],
            &thread["resolved_at"],
            &thread["resolved_by"],
            &thread["metadata"]
        ),
        (&json!(false), &Value::Null, &Value::Null, &json!({}))
    );
    let first = &thread["comments"][0];
    assert_eq!(
        keys(first),
        [
            "abilities",
            "body",
            "created_at",
            "id",
            "reactions",
            "updated_at",
            "user"
        ]
    );
    assert_eq!(first["body"], why, "the body is kept as sent");
    assert_eq!(first["reactions"], json!([]));
    assert_eq!(
        first["abilities"],
        json!({"destroy": true, "update": true, "partial_update": true, "reactions": true, "retrieve": true})
    );

    // Who may list: the `comment` ability. Readers and strangers are refused, anonymous
    // callers asked to sign in; an unknown document is Docs' own 404.
    for user in [&reader, &stranger] {
        assert_eq!(
            Api::new(&server, Some(user)).get(&threads).await,
            (403, json!({"detail": FORBIDDEN}))
        );
        assert_eq!(
            Api::new(&server, Some(user))
                .post(&threads, json!({"body": body("x")}))
                .await
                .0,
            403
        );
    }
    assert_eq!(Api::new(&server, None).get(&threads).await.0, 401);
    assert_eq!(
        as_owner
            .get(&format!("documents/{}/threads/", Uuid::new_v4()))
            .await,
        (404, json!({"detail": "Document not found."}))
    );

    // The list is not paginated, newest first; the editor sees the thread but may not
    // resolve or delete it (only its creator, or an owner or administrator).
    let (_, second) = as_editor
        .post(&threads, json!({"body": body("Typo")}))
        .await;
    let (status, list) = as_editor.get(&threads).await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [second["id"].as_str().unwrap(), tid.as_str()]);
    assert_eq!(list[1]["abilities"]["resolve"], json!(false));
    assert_eq!(
        as_editor
            .post(&format!("{threads}{tid}/resolve/"), json!({}))
            .await,
        (403, json!({"detail": FORBIDDEN}))
    );
    assert_eq!(as_editor.delete(&format!("{threads}{tid}/")).await.0, 403);
    assert_eq!(
        as_editor
            .patch(&format!("{threads}{tid}/"), json!({}))
            .await
            .0,
        405,
        "threads are not updated"
    );

    // Replies: comments/ creates (201) and lists, paginated.
    let comments = format!("{threads}{tid}/comments/");
    let (status, reply) = as_editor
        .post(&comments, json!({"body": body("Because.")}))
        .await;
    assert_eq!(status, 201, "{reply}");
    assert_eq!(
        reply["user"],
        json!({"full_name": "Ed Editor", "short_name": "Ed"})
    );
    let (status, page) = as_commenter.get(&comments).await;
    assert_eq!(status, 200);
    assert_eq!((&page["count"], &page["next"]), (&json!(2), &Value::Null));
    assert_eq!(page["results"][1]["id"], reply["id"]);
    let (_, thread) = as_commenter.get(&format!("{threads}{tid}/")).await;
    assert_eq!(thread["comments"].as_array().unwrap().len(), 2);

    // Resolving: the owner may (204, resolved_by is a user id), and the creator may reopen.
    assert_eq!(
        as_owner
            .post(&format!("{threads}{tid}/resolve/"), json!({}))
            .await,
        (204, Value::Null)
    );
    let (_, thread) = as_commenter.get(&format!("{threads}{tid}/")).await;
    assert_eq!(thread["resolved"], json!(true));
    assert_eq!(thread["resolved_by"], json!(owner.id));
    assert!(thread["resolved_at"].is_string());
    assert_eq!(
        as_commenter
            .post(&format!("{threads}{tid}/unresolve/"), json!({}))
            .await
            .0,
        204
    );
    let (_, thread) = as_commenter.get(&format!("{threads}{tid}/")).await;
    assert_eq!(
        (
            &thread["resolved"],
            &thread["resolved_at"],
            &thread["resolved_by"]
        ),
        (&json!(false), &Value::Null, &Value::Null)
    );

    // A comment is edited by its author only, deleted by its author or an owner.
    let reply_url = format!("{comments}{}/", reply["id"].as_str().unwrap());
    assert_eq!(
        as_owner
            .patch(&reply_url, json!({"body": body("no")}))
            .await
            .0,
        403
    );
    let (status, edited) = as_editor
        .patch(&reply_url, json!({"body": body("Because!")}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(edited["body"][0]["content"][0]["text"], json!("Because!"));
    assert_eq!(as_commenter.delete(&reply_url).await.0, 403);
    assert_eq!(as_owner.delete(&reply_url).await, (204, Value::Null));
    assert_eq!(
        as_owner.get(&reply_url).await,
        (
            404,
            json!({"detail": "No Comment matches the given query."})
        )
    );

    // Deleting the thread: its creator may.
    assert_eq!(
        as_commenter.delete(&format!("{threads}{tid}/")).await.0,
        204
    );
    assert_eq!(
        as_commenter.get(&format!("{threads}{tid}/")).await,
        (404, json!({"detail": "No Thread matches the given query."}))
    );
    // A thread of another document is not found through this one.
    let other = server
        .create_document(DocumentSpec::new("other").access(&owner.id, "owner"))
        .await
        .unwrap();
    let second_id = second["id"].as_str().unwrap();
    assert_eq!(
        as_owner
            .get(&format!("documents/{other}/threads/{second_id}/"))
            .await
            .0,
        404
    );
}

#[tokio::test]
async fn a_public_commenter_link_lets_anonymous_visitors_comment_but_not_resolve() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("open")
                .markdown("Text")
                .link("public", "commenter"),
        )
        .await
        .unwrap();
    let anonymous = Api::new(&server, None);
    let (_, doc) = anonymous.get(&format!("documents/{id}/")).await;
    assert_eq!(
        (&doc["abilities"]["comment"], &doc["abilities"]["update"]),
        (&json!(true), &json!(false))
    );
    let threads = format!("documents/{id}/threads/");
    let (status, thread) = anonymous.post(&threads, json!({"body": body("Hi")})).await;
    assert_eq!(status, 201, "{thread}");
    assert_eq!(thread["creator"], Value::Null);
    assert_eq!(thread["comments"][0]["user"], Value::Null);
    assert_eq!(thread["abilities"]["resolve"], json!(false));
    let tid = thread["id"].as_str().unwrap();
    assert_eq!(anonymous.get(&threads).await.1.as_array().unwrap().len(), 1);
    assert_eq!(
        anonymous
            .post(&format!("{threads}{tid}/resolve/"), json!({}))
            .await
            .0,
        401
    );
}

#[tokio::test]
async fn comment_marks_are_read_back_through_blocknote() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("marked").markdown("Hello **brave** new world\n\nSecond"),
        )
        .await
        .unwrap();
    let stored = server.stored(id).await.unwrap();
    let block = stored.blocks[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(server.comment_marks(id).await.unwrap().stored, []);

    server
        .add_comment_mark(id, &block, "brave new", "thread-1", false)
        .await
        .unwrap();
    server
        .add_comment_mark(id, &block, "world", "thread-2", true)
        .await
        .unwrap();
    let err = server
        .add_comment_mark(id, &block, "absent", "thread-3", false)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("404"), "{err}");

    let marks = server.comment_marks(id).await.unwrap();
    assert_eq!(marks.live, None, "no room is loaded");
    let seen: Vec<(&str, &str, bool, u64, u64)> = marks
        .stored
        .iter()
        .map(|m| {
            assert_eq!(m.block_id, block);
            (
                m.thread_id.as_str(),
                m.text.as_str(),
                m.orphan,
                m.start,
                m.end,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("thread-1", "brave new", false, 6, 15),
            ("thread-2", "world", true, 16, 21)
        ]
    );
    // The marked text stays in the document (BlockNote's editor knows the mark).
    let stored = server.stored(id).await.unwrap();
    assert_eq!(stored.markdown, "Hello **brave** new world\n\nSecond\n");
}
