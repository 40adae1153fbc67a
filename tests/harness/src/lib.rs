//! test-harness: starts the Docs-like test server (`tests/docs-server`, a Node program that
//! runs the real `@hocuspocus/server` 3.4.4 — or, with [`Collaboration::Yhub`], the real
//! y-websocket server as Docs' next major "yhub" — behind a fake La Suite Docs backend) and drives its
//! test-only control API (`/__test__/...`): seeding, read-back, resets, drops and freezes of
//! connections, throttling, a scripted typist, comment marks (read back through BlockNote,
//! or seeded as Docs' editor writes them).
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use test_harness::{DocsServer, DocumentSpec};
//! let server = DocsServer::start().await?;
//! let id = server
//!     .create_document(DocumentSpec::new("Notes").markdown("# Title\n\nHello"))
//!     .await?;
//! let stored = server.stored(id).await?;
//! assert_eq!(stored.markdown, "# Title\n\nHello\n");
//! # Ok(()) }
//! ```
//!
//! The server needs its Node dependencies: run `npm ci --prefix tests/docs-server` once.

use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use base64::Engine;
use serde_json::{Value, json};
use tokio::process::{Child, ChildStdin};
use uuid::Uuid;

mod process;
mod readings;
mod specs;
mod tls;
mod typist;

pub use process::{COLLABORATION_ENV, Collaboration, ServerOptions, repo_root};
pub use specs::{DocumentSpec, TestUser};
pub use tls::TestTls;

use readings::RawParsed;
pub use readings::{
    Attribution, Attributions, BlockItems, CommentMarkSpan, CommentMarks, ConnectionAttributions,
    ParsedDocument, PatchAttributions, Stats, TextItem, YdocResponse,
};
pub use typist::{Typist, TypistSpec, TypistStatus, WordTyping};

/// A running test server; the Node child is killed when this is dropped.
pub struct DocsServer {
    url: String,
    collaboration: Collaboration,
    http: reqwest::Client,
    child: Child,
    // Held open: the server exits when its stdin reaches EOF.
    _stdin: Option<ChildStdin>,
}

impl std::fmt::Debug for DocsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsServer")
            .field("url", &self.url)
            .finish()
    }
}

async fn control(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    body: Option<Value>,
) -> anyhow::Result<Value> {
    let mut req = http.request(method.clone(), url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req
        .send()
        .await
        .with_context(|| format!("{method} {url}"))?;
    let status = res.status();
    let text = res.text().await?;
    if !status.is_success() {
        bail!("{method} {url}: HTTP {status}: {text}");
    }
    serde_json::from_str(&text).with_context(|| format!("{method} {url}: bad JSON {text}"))
}

impl DocsServer {
    /// The instance origin, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The collaboration server this instance runs.
    pub fn collaboration(&self) -> Collaboration {
        self.collaboration
    }

    /// yhub's WebSocket base, `ws://127.0.0.1:PORT/collaboration/ws/v1/docs` (append
    /// `/<id>`), what `config/` gives as `COLLABORATION_WS_URL` under yhub.
    pub fn yhub_ws_url(&self) -> String {
        format!(
            "{}/collaboration/ws/v1/docs",
            self.url.replacen("http://", "ws://", 1)
        )
    }

    /// `ws://127.0.0.1:PORT/collaboration/ws/` (append `?room=<id>`).
    pub fn ws_url(&self) -> String {
        format!(
            "{}/collaboration/ws/",
            self.url.replacen("http://", "ws://", 1)
        )
    }

    /// Process id of the Node child.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        control(
            &self.http,
            reqwest::Method::POST,
            &format!("{}/__test__/{path}", self.url),
            Some(body),
        )
        .await
    }

    async fn get(&self, path: &str) -> anyhow::Result<Value> {
        control(
            &self.http,
            reqwest::Method::GET,
            &format!("{}/__test__/{path}", self.url),
            None,
        )
        .await
    }

    /// Creates a user with a signed-in session.
    pub async fn create_user(&self, email: &str, full_name: &str) -> anyhow::Result<TestUser> {
        let v = self
            .post("users", json!({"email": email, "full_name": full_name}))
            .await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Makes the next `GET /api/v1.0/authenticate/` sign in `email` without the identity
    /// provider's form (straight to the callback), so a browser signs in unattended. The user
    /// is created at the callback unless one has this email.
    pub async fn auto_sign_in(&self, email: &str) -> anyhow::Result<()> {
        self.post("auto-sign-in", json!({ "email": email })).await?;
        Ok(())
    }

    /// Creates a document; content goes through BlockNote exactly as Docs stores it.
    pub async fn create_document(&self, spec: DocumentSpec) -> anyhow::Result<Uuid> {
        let v = self.post("documents", spec.to_json()).await?;
        let id = v["id"].as_str().ok_or_else(|| anyhow!("no id in {v}"))?;
        Ok(Uuid::parse_str(id)?)
    }

    /// The stored (REST) content, read back through BlockNote.
    pub async fn stored(&self, id: Uuid) -> anyhow::Result<ParsedDocument> {
        let v = self.get(&format!("documents/{id}/stored")).await?;
        serde_json::from_value::<RawParsed>(v)?.into_parsed()
    }

    /// The stored content once it caught up with the room: clients save on their own rhythm
    /// (Docs' editor and Docs MCP once a minute; tests configure less), so this waits, up to
    /// 15 s, until the stored blocks are the room's. With no room loaded, the stored content.
    pub async fn stored_settled(&self, id: Uuid) -> anyhow::Result<ParsedDocument> {
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        loop {
            let stored = self.stored(id).await?;
            match self.live(id).await? {
                Some(live)
                    if live.blocks != stored.blocks && std::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                _ => return Ok(stored),
            }
        }
    }

    /// The room's in-memory document, read back through BlockNote; `None` when no room is loaded.
    pub async fn live(&self, id: Uuid) -> anyhow::Result<Option<ParsedDocument>> {
        let Some(text) = self.room_get(id, "live").await? else {
            return Ok(None);
        };
        Ok(Some(
            serde_json::from_str::<RawParsed>(&text)?.into_parsed()?,
        ))
    }

    /// A control route about the room of `id` (`documents/<id>/<what>`); `None` when no room
    /// is loaded.
    async fn room_get(&self, id: Uuid, what: &str) -> anyhow::Result<Option<String>> {
        let url = format!("{}/__test__/documents/{id}/{what}", self.url);
        let res = self.http.get(&url).send().await?;
        let status = res.status();
        let text = res.text().await?;
        if status == reqwest::StatusCode::NOT_FOUND && text.contains("room not loaded") {
            return Ok(None);
        }
        if !status.is_success() {
            bail!("GET {url}: HTTP {status}: {text}");
        }
        Ok(Some(text))
    }

    /// Replaces the stored content by the same blocks written anew: the same text in another
    /// Yjs history (a lost room made again from a copy). Refused while the room is loaded.
    pub async fn rewrite_history(&self, id: Uuid) -> anyhow::Result<()> {
        self.post(&format!("documents/{id}/new-history"), json!({}))
            .await?;
        Ok(())
    }

    /// Closes every connection of the room like Docs on a rights change (CLOSE "Reset Connection").
    pub async fn reset_connections(&self, id: Uuid) -> anyhow::Result<()> {
        self.post(&format!("documents/{id}/reset-connections"), json!({}))
            .await?;
        Ok(())
    }

    /// Terminates every WebSocket abruptly (no close frame): a network drop.
    pub async fn drop_connections(&self) -> anyhow::Result<()> {
        self.post("drop-connections", json!({})).await?;
        Ok(())
    }

    /// What the instance's `config/` says from now on: no `COLLABORATION_WS_URL`, or no
    /// configuration at all (404).
    pub async fn set_instance_config(
        &self,
        unset_collaboration_url: bool,
        missing: bool,
    ) -> anyhow::Result<()> {
        self.post(
            "instance-config",
            json!({ "unset_collaboration_url": unset_collaboration_url, "missing": missing }),
        )
        .await?;
        Ok(())
    }

    /// Takes the collaboration server down (every WebSocket terminated, new ones refused
    /// with 502 while REST keeps answering) or brings it back.
    /// yhub mode: refuses the WebSockets of clients whose User-Agent contains `agent` (HTTP
    /// 502, as a proxy that does not pass them), terminating theirs open now; REST and the
    /// other clients go on. `None` lets them through again.
    pub async fn refuse_sockets_of(&self, agent: Option<&str>) -> anyhow::Result<()> {
        self.post("refuse-sockets-of", json!({ "agent": agent }))
            .await?;
        Ok(())
    }

    pub async fn set_collaboration_down(&self, down: bool) -> anyhow::Result<()> {
        self.post("collaboration-down", json!({ "down": down }))
            .await?;
        Ok(())
    }

    /// Freezes the collaboration connections open now in a document's room, like a network
    /// path that died without closing them (a laptop asleep, a NAT entry dropped): the server
    /// keeps the TCP connections open but stops reading and writing them — no pongs, no
    /// acknowledgements, no broadcasts; what the client sends waits in the kernel's buffers,
    /// what the server would send is held back. Connections opened afterwards are not frozen,
    /// so a client that notices and reconnects works again at once. Returns how many
    /// connections were frozen (0 when none is open).
    ///
    /// Hocuspocus's own keepalive still runs: a connection frozen past its next ping
    /// (30 s to 60 s) is closed by the server, as a dead one would be. Keep freezes shorter.
    pub async fn freeze(&self, id: Uuid) -> anyhow::Result<u64> {
        let v = self
            .post("freeze", json!({"document_id": id.to_string()}))
            .await?;
        count_in(&v, "frozen")
    }

    /// [`DocsServer::freeze`] for the open connections of every room.
    pub async fn freeze_all(&self) -> anyhow::Result<u64> {
        let v = self.post("freeze", json!({})).await?;
        count_in(&v, "frozen")
    }

    /// Undoes [`DocsServer::freeze`] for a room: what was held back is sent and what the
    /// client sent is read, in order, as when a network path comes back. Returns how many
    /// connections were unfrozen (those the server closed meanwhile are not counted).
    pub async fn unfreeze(&self, id: Uuid) -> anyhow::Result<u64> {
        let v = self
            .post("unfreeze", json!({"document_id": id.to_string()}))
            .await?;
        count_in(&v, "unfrozen")
    }

    /// [`DocsServer::unfreeze`] for every room.
    pub async fn unfreeze_all(&self) -> anyhow::Result<u64> {
        let v = self.post("unfreeze", json!({})).await?;
        count_in(&v, "unfrozen")
    }

    /// Changes the link reach/role, then resets the room's connections.
    pub async fn set_link(&self, id: Uuid, reach: &str, role: &str) -> anyhow::Result<()> {
        self.post(
            &format!("documents/{id}/link"),
            json!({"link_reach": reach, "link_role": role}),
        )
        .await?;
        Ok(())
    }

    /// Gives (or with `None` removes) a user's role, then resets the room's connections.
    pub async fn set_access(
        &self,
        id: Uuid,
        user_id: &str,
        role: Option<&str>,
    ) -> anyhow::Result<()> {
        self.post(
            &format!("documents/{id}/accesses"),
            json!({"user_id": user_id, "role": role}),
        )
        .await?;
        Ok(())
    }

    /// The next `count` REST API requests get 429 with `Retry-After: retry_after_secs`.
    pub async fn throttle_next(&self, count: u32, retry_after_secs: u32) -> anyhow::Result<()> {
        self.post(
            "throttle",
            json!({"count": count, "retry_after": retry_after_secs}),
        )
        .await?;
        Ok(())
    }

    /// Holds back reads of the document's stored content until [`Self::release_content`].
    pub async fn hold_content(&self, id: Uuid) -> anyhow::Result<()> {
        self.post("hold-content", json!({ "document_id": id }))
            .await?;
        Ok(())
    }

    /// Lets the held reads of the document's stored content through.
    pub async fn release_content(&self, id: Uuid) -> anyhow::Result<()> {
        self.post("release-content", json!({ "document_id": id }))
            .await?;
        Ok(())
    }

    /// Starts a scripted human client typing into a document.
    pub async fn start_typist(&self, spec: TypistSpec) -> anyhow::Result<Typist> {
        let mut body = json!({
            "document_id": spec.document_id.to_string(),
            "text": spec.text,
            "interval_ms": spec.interval_ms,
            "save": spec.save,
            "disconnect_when_done": spec.disconnect_when_done,
        });
        if let Some(b) = &spec.block_id {
            body["block_id"] = json!(b);
        }
        if let Some(c) = &spec.session_cookie {
            body["session_cookie"] = json!(c);
        }
        if let Some(c) = &spec.csrf_token {
            body["csrf_token"] = json!(c);
        }
        if let Some(n) = &spec.name {
            body["name"] = json!(n);
        }
        if let Some((min, max)) = spec.latency_ms {
            body["latency_ms"] = json!([min, max]);
            body["seed"] = json!(spec.seed);
        }
        if let Some(words) = &spec.words {
            body["words"] = serde_json::to_value(words)?;
        }
        let v = self.post("typist", body).await?;
        let id = v["typist_id"]
            .as_str()
            .ok_or_else(|| anyhow!("no typist_id in {v}"))?;
        Ok(Typist {
            id: id.to_owned(),
            base: self.url.clone(),
            http: self.http.clone(),
        })
    }

    pub async fn stats(&self) -> anyhow::Result<Stats> {
        let v = self.get("stats").await?;
        Ok(serde_json::from_value(v)?)
    }

    /// How many clocks the room's document holds (its state vector summed); `None` when no
    /// room is loaded. Cheap, unlike [`DocsServer::live`].
    pub async fn live_clocks(&self, id: Uuid) -> anyhow::Result<Option<u64>> {
        let Some(text) = self.room_get(id, "live-clocks").await? else {
            return Ok(None);
        };
        Ok(serde_json::from_str::<Value>(&text)?["clocks"].as_u64())
    }

    /// The Yjs items of each block's inline text in the room, in order: who inserted each
    /// piece of text and between what.
    pub async fn live_text_items(&self, id: Uuid) -> anyhow::Result<Vec<BlockItems>> {
        let v = self.get(&format!("documents/{id}/items")).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// The comment marks BlockNote's editor reads in the stored content and in the room, in
    /// document order.
    pub async fn comment_marks(&self, id: Uuid) -> anyhow::Result<CommentMarks> {
        let v = self.get(&format!("documents/{id}/comment-marks")).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Puts a comment mark for `thread_id` on the first occurrence of `text` in a block of the
    /// stored content, the way Docs' editor writes it (y-prosemirror names the attribute
    /// `comment--<hash>`). The room must not be loaded.
    pub async fn add_comment_mark(
        &self,
        id: Uuid,
        block_id: &str,
        text: &str,
        thread_id: &str,
        orphan: bool,
    ) -> anyhow::Result<()> {
        self.post(
            &format!("documents/{id}/comment-mark"),
            json!({"block_id": block_id, "text": text, "thread_id": thread_id, "orphan": orphan}),
        )
        .await?;
        Ok(())
    }

    /// The `commentsPing` fields (`{at, docId, threadId}`) of the awareness states known to
    /// the room: how Docs' editors tell each other to refresh a thread.
    pub async fn comments_pings(&self, id: Uuid) -> anyhow::Result<Vec<Value>> {
        Ok(self
            .awareness(id)
            .await?
            .into_iter()
            .filter_map(|entry| entry["state"].get("commentsPing").cloned())
            .filter(|ping| !ping.is_null())
            .collect())
    }

    /// The custom attributions of a document's yhub connections and REST PATCHes.
    pub async fn attributions(&self, id: Uuid) -> anyhow::Result<Attributions> {
        let v = self.get(&format!("documents/{id}/attributions")).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// `GET /collaboration/ydoc/v1/docs/<id>` (yhub) as a browser of the session `cookie`
    /// (`None`: no cookie): `Accept: application/json`, the instance's Origin. 200 answers
    /// `{"doc": "<base64 update>"}`.
    pub async fn ydoc_get(&self, id: Uuid, cookie: Option<&str>) -> anyhow::Result<YdocResponse> {
        self.ydoc_call(reqwest::Method::GET, id, cookie, None).await
    }

    /// `PATCH /collaboration/ydoc/v1/docs/<id>` (yhub) with `{"update": base64, "customAttributions": [...]}`.
    pub async fn ydoc_patch(
        &self,
        id: Uuid,
        cookie: Option<&str>,
        update: &[u8],
        custom_attributions: &[(&str, &str)],
    ) -> anyhow::Result<YdocResponse> {
        let mut body = json!({
            "update": base64::engine::general_purpose::STANDARD.encode(update),
        });
        if !custom_attributions.is_empty() {
            body["customAttributions"] = custom_attributions
                .iter()
                .map(|(k, v)| json!({"k": k, "v": v}))
                .collect();
        }
        self.ydoc_call(reqwest::Method::PATCH, id, cookie, Some(body))
            .await
    }

    async fn ydoc_call(
        &self,
        method: reqwest::Method,
        id: Uuid,
        cookie: Option<&str>,
        body: Option<Value>,
    ) -> anyhow::Result<YdocResponse> {
        let url = format!("{}/collaboration/ydoc/v1/docs/{id}", self.url);
        let mut req = self
            .http
            .request(method.clone(), &url)
            .header("Accept", "application/json")
            .header("Origin", &self.url);
        if let Some(c) = cookie {
            req = req.header("Cookie", c);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req
            .send()
            .await
            .with_context(|| format!("{method} {url}"))?;
        let status = res.status().as_u16();
        let text = res.text().await?;
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text)
                .with_context(|| format!("{method} {url}: bad JSON {text}"))?
        };
        Ok(YdocResponse { status, body })
    }

    /// Awareness states known to the room: `[{"clientId": n, "state": {...}}]` (empty when no room).
    pub async fn awareness(&self, id: Uuid) -> anyhow::Result<Vec<Value>> {
        let v = self.get(&format!("documents/{id}/awareness")).await?;
        match v {
            Value::Array(a) => Ok(a),
            other => bail!("unexpected awareness payload {other}"),
        }
    }
}

fn count_in(v: &Value, key: &str) -> anyhow::Result<u64> {
    v[key]
        .as_u64()
        .ok_or_else(|| anyhow!("no {key} count in {v}"))
}

/// Resident memory of this process in KiB (Linux; 0 elsewhere), for benchmarks.
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
