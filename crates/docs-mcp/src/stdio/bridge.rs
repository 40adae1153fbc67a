//! The relay of a stdio client to a running service's Streamable HTTP endpoint: all of
//! `docs-mcp bridge` (for clients that only start stdio servers, Claude Desktop), and what
//! `serve --stdio` does while another service holds the data directory (see
//! the parent module). It works at the message level: one line in, one POST; the answer (JSON,
//! or an SSE stream of messages) comes back one message per line. A client that initialized
//! with another service, or whose session the service forgot, is introduced again.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Front;
use super::sse::SseParser;
use crate::token::BearerToken;

const HEADER_SESSION_ID: &str = "mcp-session-id";
const HEADER_PROTOCOL_VERSION: &str = "mcp-protocol-version";
const HEADER_METHOD: &str = "mcp-method";
const HEADER_NAME: &str = "mcp-name";
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// JSON-RPC error code of a failure between the bridge and the service.
pub const BRIDGE_ERROR: i64 = -32000;

/// How long a client's session waits for a service that just took the data directory over
/// to listen.
const INTRODUCTION_WAIT: Duration = Duration::from_secs(10);

/// What the service told us to send back.
#[derive(Debug, Default)]
struct Connection {
    session_id: Option<String>,
    protocol_version: Option<String>,
}

/// Why a message did not reach the service.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SendError {
    /// Nothing listens at the endpoint (the service stopped, or has not started yet).
    #[error(
        "the Docs MCP service is not running at {0}: start the Docs MCP app or `docs-mcp serve`"
    )]
    Unreachable(String),
    #[error("the request to the Docs MCP service at {url} failed: {error}")]
    Failed { url: String, error: String },
}

/// One service endpoint, and the HTTP session the client has there.
pub(crate) struct Bridge {
    url: String,
    token: Option<BearerToken>,
    http: reqwest::Client,
    connection: Mutex<Connection>,
    out: mpsc::Sender<String>,
    /// The data directory whose holder must prove itself before the token is sent.
    holder_of: Option<PathBuf>,
    /// Whether it did (asked again once the service was unreachable: another may hold it).
    proven: std::sync::atomic::AtomicBool,
}

/// How a relay to the service ended.
pub(crate) enum Relayed {
    /// The client closed stdin.
    Ended,
    /// The service is gone and nobody holds the data directory: `Front::hold` keeps the
    /// message that did not reach it.
    Unreachable,
}

/// Proxies stdin/stdout to `url` until stdin closes (and the answers in flight are written).
/// `holder_of`: the data directory whose holder must prove itself before the token goes to
/// `url` (see [`crate::holder`]).
pub async fn run_bridge(
    url: String,
    token: Option<BearerToken>,
    holder_of: Option<PathBuf>,
) -> anyhow::Result<()> {
    run_bridge_on(
        url,
        token,
        holder_of,
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .await
}

/// [`run_bridge`] on any reader and writer.
pub async fn run_bridge_on(
    url: String,
    token: Option<BearerToken>,
    holder_of: Option<PathBuf>,
    input: impl tokio::io::AsyncRead + Send + 'static,
    output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> anyhow::Result<()> {
    let mut front = Front::new(input, output);
    let bridge = Bridge::new(url, token, front.out(), holder_of)?;
    relay_from(&mut front, bridge, None, &CancellationToken::new()).await?;
    front.finish().await;
    Ok(())
}

/// Relays the client's messages to `bridge`'s service until stdin closes or `quit`.
/// With the `data_dir` a failed service is taken over from: when the service cannot be
/// reached and nobody holds the directory any more, returns [`Relayed::Unreachable`] with
/// the message held in `front`. A client that initialized with another backend is
/// introduced to this one first (its `initialize` replayed, the answer kept from it).
pub(crate) async fn relay_from(
    front: &mut Front,
    bridge: Arc<Bridge>,
    data_dir: Option<&Path>,
    quit: &CancellationToken,
) -> anyhow::Result<Relayed> {
    let mut introduced = front.initialize().is_none();
    let mut in_flight = tokio::task::JoinSet::new();
    let ended = loop {
        let message = tokio::select! {
            () = quit.cancelled() => break Relayed::Ended,
            message = front.next() => message?,
        };
        let Some(received) = message else {
            break Relayed::Ended;
        };
        let message = &received.value;
        let sent = match introduced {
            true => bridge.send(message).await,
            false => match bridge.introduce(front, data_dir.is_some()).await {
                Ok(()) => {
                    introduced = true;
                    bridge.send(message).await
                }
                Err(e) => Err(e),
            },
        };
        // The service restarted and forgot the session: the client is introduced again.
        let sent = match sent {
            Ok(response)
                if response.status() == reqwest::StatusCode::NOT_FOUND
                    && bridge.forget_session()
                    && front.initialize().is_some_and(|init| init != message) =>
            {
                tracing::info!(
                    "the service no longer knows this client's session: introducing the client again"
                );
                match bridge.introduce(front, true).await {
                    Ok(()) => bridge.send(message).await,
                    Err(e) => Err(e),
                }
            }
            other => other,
        };
        match sent {
            Ok(body) => {
                let bridge = bridge.clone();
                let message = received.value;
                in_flight.spawn(async move { bridge.relay(message, body).await });
            }
            Err(SendError::Unreachable(_))
                if data_dir.is_some_and(|dir| crate::lock::holder(dir).is_none()) =>
            {
                front.hold(received);
                break Relayed::Unreachable;
            }
            Err(error) => {
                let text = error.to_string();
                eprintln!("docs-mcp bridge: {text}");
                bridge.fail(message, &text).await;
            }
        }
        while in_flight.try_join_next().is_some() {}
    };
    while in_flight.join_next().await.is_some() {}
    if matches!(ended, Relayed::Ended) {
        bridge.close_session().await;
    }
    Ok(ended)
}

/// Ids of the requests in a message (or batch) that expect an answer.
pub(crate) fn request_ids(message: &Value) -> Vec<Value> {
    let one = |m: &Value| -> Option<Value> {
        m.get("method")?;
        m.get("id").filter(|id| !id.is_null()).cloned()
    };
    match message {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        m => one(m).into_iter().collect(),
    }
}

pub(crate) fn error_message(id: Value, message: String) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": BRIDGE_ERROR, "message": message},
    })
}

impl Bridge {
    pub(crate) fn new(
        url: String,
        token: Option<BearerToken>,
        out: mpsc::Sender<String>,
        holder_of: Option<PathBuf>,
    ) -> anyhow::Result<Arc<Bridge>> {
        Ok(Arc::new(Bridge {
            url,
            token,
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()?,
            connection: Mutex::new(Connection::default()),
            out,
            holder_of,
            proven: std::sync::atomic::AtomicBool::new(false),
        }))
    }

    /// Before the token goes out: the service at `url` proves it holds the data directory.
    async fn check_holder(&self) -> Result<(), SendError> {
        use std::sync::atomic::Ordering;
        let (Some(dir), Some(_)) = (&self.holder_of, &self.token) else {
            return Ok(());
        };
        if self.proven.load(Ordering::SeqCst) {
            return Ok(());
        }
        match crate::holder::verified(dir, Some(&self.url)).await {
            Ok(_) => {
                self.proven.store(true, Ordering::SeqCst);
                Ok(())
            }
            Err(
                crate::holder::Unverified::NoService { .. }
                | crate::holder::Unverified::Unreachable { .. },
            ) => Err(SendError::Unreachable(self.url.clone())),
            Err(refused) => Err(SendError::Failed {
                url: self.url.clone(),
                error: refused.to_string(),
            }),
        }
    }

    async fn emit(&self, message: &Value) {
        let _ = self.out.send(message.to_string()).await;
    }

    async fn fail(&self, message: &Value, text: &str) {
        for id in request_ids(message) {
            self.emit(&error_message(id, text.to_owned())).await;
        }
    }

    /// Opens a session for a client that already initialized elsewhere: its `initialize`
    /// and `notifications/initialized` again, the answer read and dropped (the client has
    /// one). A service just taking the directory over may not listen yet: `patient` waits
    /// for it a while.
    async fn introduce(&self, front: &Front, patient: bool) -> Result<(), SendError> {
        let Some(initialize) = front.initialize() else {
            return Ok(());
        };
        let deadline = tokio::time::Instant::now() + INTRODUCTION_WAIT;
        let response = loop {
            match self.send(initialize).await {
                Err(SendError::Unreachable(_))
                    if patient && tokio::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                other => break other?,
            }
        };
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        if !status.is_success() {
            return Err(SendError::Failed {
                url: self.url.clone(),
                error: format!(
                    "initialize answered HTTP {}: {}",
                    status.as_u16(),
                    body.trim()
                ),
            });
        }
        let mut parser = SseParser::default();
        let mut events = parser.push(body.as_bytes());
        events.extend(parser.finish());
        if events.is_empty() {
            events.push(body);
        }
        for event in events {
            if let Some(version) = serde_json::from_str::<Value>(event.trim())
                .ok()
                .as_ref()
                .and_then(|m| m.pointer("/result/protocolVersion"))
                .and_then(Value::as_str)
            {
                self.connection
                    .lock()
                    .expect("bridge connection lock")
                    .protocol_version = Some(version.to_owned());
            }
        }
        if let Some(initialized) = front.initialized() {
            self.send(initialized).await?;
        }
        tracing::info!(url = %self.url, "the client's session continues at this service");
        Ok(())
    }

    /// POSTs one message; returns the response when there is a body to relay.
    async fn send(&self, message: &Value) -> Result<reqwest::Response, SendError> {
        self.check_holder().await?;
        let mut request = self
            .http
            .post(&self.url)
            .header(
                reqwest::header::ACCEPT,
                "application/json, text/event-stream",
            )
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(message.to_string());
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.expose());
        }
        let per_message_version = message
            .pointer("/params/_meta")
            .and_then(|meta| meta.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned);
        // `initialize` opens a session and negotiates its version: neither header goes with it.
        if message.get("method").and_then(Value::as_str) != Some("initialize") {
            let connection = self.connection.lock().expect("bridge connection lock");
            if let Some(id) = &connection.session_id {
                request = request.header(HEADER_SESSION_ID, id);
            }
            if let Some(version) = per_message_version.or(connection.protocol_version.clone()) {
                request = request.header(HEADER_PROTOCOL_VERSION, version);
            }
        }
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            request = request.header(HEADER_METHOD, method);
            let name_key = match method {
                "tools/call" | "prompts/get" => Some("name"),
                "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("uri"),
                _ => None,
            };
            if let Some(name) = name_key
                .and_then(|key| message.pointer(&format!("/params/{key}")))
                .and_then(Value::as_str)
                .filter(|n| n.bytes().all(|b| (0x20..0x7f).contains(&b)))
            {
                request = request.header(HEADER_NAME, name);
            }
        }
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("(response)");
        match request.send().await {
            Ok(response) => {
                tracing::debug!(
                    method,
                    status = response.status().as_u16(),
                    session = ?response.headers().get(HEADER_SESSION_ID),
                    protocol_version = ?response.headers().get(HEADER_PROTOCOL_VERSION),
                    "forwarded"
                );
                let mut connection = self.connection.lock().expect("bridge connection lock");
                if let Some(id) = response
                    .headers()
                    .get(HEADER_SESSION_ID)
                    .and_then(|v| v.to_str().ok())
                {
                    connection.session_id = Some(id.to_owned());
                }
                if let Some(version) = response
                    .headers()
                    .get(HEADER_PROTOCOL_VERSION)
                    .and_then(|v| v.to_str().ok())
                {
                    connection.protocol_version = Some(version.to_owned());
                }
                Ok(response)
            }
            Err(error) if error.is_connect() => {
                // Whoever listens there next proves itself again.
                self.proven
                    .store(false, std::sync::atomic::Ordering::SeqCst);
                Err(SendError::Unreachable(self.url.clone()))
            }
            Err(error) => Err(SendError::Failed {
                url: self.url.clone(),
                error: error.to_string(),
            }),
        }
    }

    /// Writes the messages of a response; answers with an error every request left
    /// unanswered.
    async fn relay(&self, message: Value, response: reqwest::Response) {
        let mut unanswered: HashSet<String> =
            request_ids(&message).iter().map(Value::to_string).collect();
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if status.is_success() && content_type.starts_with("text/event-stream") {
            let mut response = response;
            let mut parser = SseParser::default();
            loop {
                match response.chunk().await {
                    Ok(Some(chunk)) => {
                        for data in parser.push(&chunk) {
                            self.forward_text(&data, &mut unanswered).await;
                        }
                    }
                    Ok(None) => break,
                    Err(error) => {
                        eprintln!("docs-mcp bridge: the event stream broke: {error}");
                        break;
                    }
                }
            }
            for data in parser.finish() {
                self.forward_text(&data, &mut unanswered).await;
            }
        } else {
            let body = response.text().await.unwrap_or_default();
            let forwarded =
                !body.trim().is_empty() && self.forward_text(&body, &mut unanswered).await;
            if !status.is_success() && !forwarded {
                let text = match status.as_u16() {
                    401 => "the Docs MCP service refused the bearer token (HTTP 401): set DOCS_MCP_TOKEN or see `docs-mcp token`".to_owned(),
                    403 => format!("the Docs MCP service refused the request (HTTP 403): {}", body.trim()),
                    404 => "the Docs MCP service no longer knows this session (HTTP 404): restart the MCP client to reconnect".to_owned(),
                    code => format!("the Docs MCP service answered HTTP {code}: {}", body.trim()),
                };
                eprintln!("docs-mcp bridge: {text}");
            }
        }
        if !unanswered.is_empty() {
            let text = if status.is_success() {
                "the Docs MCP service closed the response without answering".to_owned()
            } else {
                format!("the Docs MCP service answered HTTP {}", status.as_u16())
            };
            for id in request_ids(&message) {
                if unanswered.contains(&id.to_string()) {
                    self.emit(&error_message(id, text.clone())).await;
                }
            }
        }
    }

    /// Writes the JSON-RPC message(s) in `text`; false when it is not JSON-RPC.
    async fn forward_text(&self, text: &str, unanswered: &mut HashSet<String>) -> bool {
        let Ok(value) = serde_json::from_str::<Value>(text.trim()) else {
            return false;
        };
        let messages = match value {
            Value::Array(items) => items,
            one => vec![one],
        };
        let mut any = false;
        for message in messages {
            if message.get("jsonrpc").is_none() {
                continue;
            }
            if message.get("method").is_none()
                && let Some(id) = message.get("id")
            {
                unanswered.remove(&id.to_string());
                if let Some(version) = message
                    .pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                {
                    tracing::debug!(version, "negotiated protocol version");
                    self.connection
                        .lock()
                        .expect("bridge connection lock")
                        .protocol_version = Some(version.to_owned());
                }
            }
            self.emit(&message).await;
            any = true;
        }
        any
    }

    /// Drops the session the service gave (and the version it negotiated); whether there
    /// was one.
    fn forget_session(&self) -> bool {
        let mut connection = self.connection.lock().expect("bridge connection lock");
        connection.protocol_version = None;
        connection.session_id.take().is_some()
    }

    /// Ends the HTTP session, if the service opened one.
    async fn close_session(&self) {
        let (session, version) = {
            let connection = self.connection.lock().expect("bridge connection lock");
            (
                connection.session_id.clone(),
                connection.protocol_version.clone(),
            )
        };
        let Some(session) = session else { return };
        let mut request = self
            .http
            .delete(&self.url)
            .header(HEADER_SESSION_ID, session);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.expose());
        }
        if let Some(version) = version {
            request = request.header(HEADER_PROTOCOL_VERSION, version);
        }
        let _ = request.send().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_skip_notifications_and_responses() {
        let batch = json!([
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 7, "result": {}},
        ]);
        assert_eq!(request_ids(&batch), vec![json!(1)]);
    }
}
