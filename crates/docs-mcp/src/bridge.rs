//! `docs-mcp bridge`: a stdio MCP server that forwards every JSON-RPC message to a running
//! service's Streamable HTTP endpoint, for clients that only start stdio servers (Claude
//! Desktop). It works at the message level: one line in, one POST; the answer (JSON, or an
//! SSE stream of messages) comes back one message per line.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::token::BearerToken;

const HEADER_SESSION_ID: &str = "mcp-session-id";
const HEADER_PROTOCOL_VERSION: &str = "mcp-protocol-version";
const HEADER_METHOD: &str = "mcp-method";
const HEADER_NAME: &str = "mcp-name";
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// JSON-RPC error code of a failure between the bridge and the service.
pub const BRIDGE_ERROR: i64 = -32000;

/// Messages waiting to be written to stdout. When the client stops reading, relays wait
/// (and stop reading the service's answers) instead of piling messages up in memory.
const OUTPUT_QUEUE: usize = 64;

/// What the service told us to send back.
#[derive(Debug, Default)]
struct Connection {
    session_id: Option<String>,
    protocol_version: Option<String>,
}

struct Bridge {
    url: String,
    token: Option<BearerToken>,
    http: reqwest::Client,
    connection: Mutex<Connection>,
    out: mpsc::Sender<String>,
}

/// Proxies stdin/stdout to `url` until stdin closes (and the answers in flight are written).
pub async fn run_bridge(url: String, token: Option<BearerToken>) -> anyhow::Result<()> {
    run_bridge_on(url, token, tokio::io::stdin(), tokio::io::stdout()).await
}

/// [`run_bridge`] on any reader and writer.
pub async fn run_bridge_on(
    url: String,
    token: Option<BearerToken>,
    input: impl tokio::io::AsyncRead + Unpin,
    mut output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> anyhow::Result<()> {
    let (out, mut lines) = mpsc::channel::<String>(OUTPUT_QUEUE);
    let writer = tokio::spawn(async move {
        while let Some(line) = lines.recv().await {
            if output.write_all(line.as_bytes()).await.is_err()
                || output.write_all(b"\n").await.is_err()
                || output.flush().await.is_err()
            {
                break;
            }
        }
    });
    let bridge = Arc::new(Bridge {
        url,
        token,
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()?,
        connection: Mutex::new(Connection::default()),
        out,
    });

    let mut input = BufReader::new(input).lines();
    let mut in_flight = tokio::task::JoinSet::new();
    while let Some(line) = input.next_line().await? {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(line) {
            Ok(message) => message,
            Err(e) => {
                bridge
                    .emit(&json!({
                        "jsonrpc": "2.0",
                        "id": null,
                        "error": {"code": -32700, "message": format!("Parse error: {e}")},
                    }))
                    .await;
                continue;
            }
        };
        // Sent in order (up to the response headers), answered concurrently: a write waiting
        // for approval does not hold up other requests.
        if let Some(body) = bridge.post(&message).await {
            let bridge = bridge.clone();
            in_flight.spawn(async move { bridge.relay(message, body).await });
        }
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
    bridge.close_session().await;
    drop(bridge);
    let _ = writer.await;
    Ok(())
}

/// Ids of the requests in a message (or batch) that expect an answer.
fn request_ids(message: &Value) -> Vec<Value> {
    let one = |m: &Value| -> Option<Value> {
        m.get("method")?;
        m.get("id").filter(|id| !id.is_null()).cloned()
    };
    match message {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        m => one(m).into_iter().collect(),
    }
}

fn error_message(id: Value, message: String) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": BRIDGE_ERROR, "message": message},
    })
}

impl Bridge {
    async fn emit(&self, message: &Value) {
        let _ = self.out.send(message.to_string()).await;
    }

    async fn fail(&self, message: &Value, text: &str) {
        for id in request_ids(message) {
            self.emit(&error_message(id, text.to_owned())).await;
        }
    }

    /// POSTs one message; returns the response when there is a body to relay.
    async fn post(&self, message: &Value) -> Option<reqwest::Response> {
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
        {
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
                Some(response)
            }
            Err(error) => {
                let text = if error.is_connect() {
                    format!(
                        "the Docs MCP service is not running at {}: start the Docs MCP app or `docs-mcp serve`",
                        self.url
                    )
                } else {
                    format!(
                        "the request to the Docs MCP service at {} failed: {error}",
                        self.url
                    )
                };
                eprintln!("docs-mcp bridge: {text}");
                self.fail(message, &text).await;
                None
            }
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

/// Just enough of an SSE parser: the `data` of each event, joined by newlines.
#[derive(Debug, Default)]
struct SseParser {
    buffer: Vec<u8>,
    data: Vec<String>,
}

impl SseParser {
    fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            self.line(line, &mut events);
        }
        events
    }

    fn line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            if !self.data.is_empty() {
                let data = self.data.join("\n");
                self.data.clear();
                if !data.trim().is_empty() {
                    events.push(data);
                }
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        if field == "data" {
            self.data
                .push(value.strip_prefix(' ').unwrap_or(value).to_owned());
        }
    }

    fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        let rest = std::mem::take(&mut self.buffer);
        if !rest.is_empty() {
            let line = String::from_utf8_lossy(&rest).into_owned();
            self.line(line.trim_end_matches('\r'), &mut events);
        }
        self.line("", &mut events);
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_parser_splits_events_across_chunks() {
        let mut parser = SseParser::default();
        assert!(parser.push(b"id: 0\nretry: 3000\ndata:\n\n").is_empty());
        assert!(parser.push(b": keep-alive\n\ndata: {\"a\"").is_empty());
        assert_eq!(
            parser.push(b":1}\r\n\r\ndata: x\ndata: y\n"),
            vec!["{\"a\":1}"]
        );
        assert_eq!(parser.finish(), vec!["x\ny"]);
    }

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
