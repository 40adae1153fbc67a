//! The client's side of a stdio server: its messages in, one JSON-RPC message per line, and
//! the answers out, whichever service answers them. What a new service must be told about
//! a client that already initialized (its `initialize`, its `initialized`) is kept here.
//!
//! The answers go out through a bounded queue, and a message in is at most
//! [`MAX_MESSAGE_BYTES`]: a longer line is answered with an error and skipped, not kept.

use std::pin::Pin;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Messages waiting to be written to stdout. When the client stops reading, the services'
/// answers wait instead of piling up in memory.
const OUTPUT_QUEUE: usize = 64;
/// The longest message a client may send, as over HTTP: a line with no end is not kept.
const MAX_MESSAGE_BYTES: usize = crate::http::MAX_MCP_BODY_BYTES;

/// The client's bytes, cut into lines of at most `max` bytes.
struct Input {
    reader: BufReader<Pin<Box<dyn AsyncRead + Send>>>,
    max: usize,
    /// The line being read (kept across a cancelled read).
    line: Vec<u8>,
    /// The line being read is past `max`: the rest of it is skipped.
    too_long: bool,
}

/// JSON-RPC's codes for a line that is not JSON, and for one that is no valid request.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// A line of the client that is not a message.
enum BadLine {
    TooLong,
    NotUtf8,
}

impl BadLine {
    /// The error code and message it is answered with; `max` is the longest message.
    fn answer(&self, max: usize) -> (i64, String) {
        match self {
            BadLine::TooLong => (
                INVALID_REQUEST,
                format!(
                    "Invalid request: a message is at most {} MiB; send the content in several calls",
                    max >> 20
                ),
            ),
            BadLine::NotUtf8 => (PARSE_ERROR, "Parse error: the message is not UTF-8".into()),
        }
    }
}

impl Input {
    /// The next line; `None` at the end of the input. Cancel-safe: what was read of a line
    /// is kept for the next call.
    async fn next_line(&mut self) -> std::io::Result<Option<Result<String, BadLine>>> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if self.line.is_empty() && !self.too_long {
                    return Ok(None);
                }
                return Ok(Some(self.take()));
            }
            let end = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..end.unwrap_or(available.len())];
            if !self.too_long {
                if self.line.len() + chunk.len() > self.max {
                    self.too_long = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            let used = end.map_or(available.len(), |end| end + 1);
            self.reader.consume(used);
            if end.is_some() {
                return Ok(Some(self.take()));
            }
        }
    }

    fn take(&mut self) -> Result<String, BadLine> {
        let line = std::mem::take(&mut self.line);
        if std::mem::replace(&mut self.too_long, false) {
            return Err(BadLine::TooLong);
        }
        let mut line = String::from_utf8(line).map_err(|_| BadLine::NotUtf8)?;
        if line.ends_with('\r') {
            line.pop();
        }
        Ok(line)
    }
}

/// One message of the client: parsed, and the line it came as (passed on as it is).
#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub value: Value,
    pub line: String,
}

pub(crate) struct Front {
    input: Input,
    out: mpsc::Sender<String>,
    writer: JoinHandle<()>,
    initialize: Option<Value>,
    initialized: Option<Value>,
    /// A message read but not delivered: the service went away; the next one gets it.
    held: Option<Message>,
}

impl Front {
    pub(crate) fn new(
        input: impl AsyncRead + Send + 'static,
        output: impl AsyncWrite + Unpin + Send + 'static,
    ) -> Front {
        Self::with_max_message(input, output, MAX_MESSAGE_BYTES)
    }

    fn with_max_message(
        input: impl AsyncRead + Send + 'static,
        mut output: impl AsyncWrite + Unpin + Send + 'static,
        max: usize,
    ) -> Front {
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
        let input: Pin<Box<dyn AsyncRead + Send>> = Box::pin(input);
        Front {
            input: Input {
                reader: BufReader::new(input),
                max,
                line: Vec::new(),
                too_long: false,
            },
            out,
            writer,
            initialize: None,
            initialized: None,
            held: None,
        }
    }

    /// Where answers go, one message per line.
    pub(crate) fn out(&self) -> mpsc::Sender<String> {
        self.out.clone()
    }

    /// The next message (a held one first); `None` once the client closed stdin.
    /// Cancel-safe: a message read is never dropped.
    pub(crate) async fn next(&mut self) -> std::io::Result<Option<Message>> {
        if let Some(message) = self.held.take() {
            return Ok(Some(message));
        }
        loop {
            let Some(line) = self.input.next_line().await? else {
                return Ok(None);
            };
            let line = match line {
                Ok(line) => line,
                Err(bad) => {
                    let (code, message) = bad.answer(self.input.max);
                    self.refuse(code, message).await;
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(&line) {
                Ok(value) => {
                    match value.get("method").and_then(Value::as_str) {
                        Some("initialize") => self.initialize = Some(value.clone()),
                        Some("notifications/initialized") => self.initialized = Some(value.clone()),
                        _ => {}
                    }
                    return Ok(Some(Message { value, line }));
                }
                Err(e) => self.refuse(PARSE_ERROR, format!("Parse error: {e}")).await,
            }
        }
    }

    /// Answers a line that is no message (so no id is known): JSON-RPC's error with id null.
    async fn refuse(&self, code: i64, message: String) {
        let error = json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": code, "message": message},
        });
        let _ = self.out.send(error.to_string()).await;
    }

    /// Keeps a message the service did not get, for the next one.
    pub(crate) fn hold(&mut self, message: Message) {
        self.held = Some(message);
    }

    /// The client's `initialize` request, once it sent one.
    pub(crate) fn initialize(&self) -> Option<&Value> {
        self.initialize.as_ref()
    }

    /// The client's `notifications/initialized`, once it sent one.
    pub(crate) fn initialized(&self) -> Option<&Value> {
        self.initialized.as_ref()
    }

    pub(crate) async fn emit(&self, message: &Value) {
        let _ = self.out.send(message.to_string()).await;
    }

    /// Writes what is queued; returns once every sender of answers is gone.
    pub(crate) async fn finish(self) {
        drop(self.out);
        let _ = self.writer.await;
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::*;

    /// A line past the limit is answered with an error and skipped, in pieces as it comes,
    /// and the messages around it are delivered: nothing of it is kept.
    #[tokio::test]
    async fn a_message_past_the_limit_is_refused_and_the_next_one_read() {
        let (mut client, input) = tokio::io::duplex(64);
        let (output, answers) = tokio::io::duplex(4096);
        let mut front = Front::with_max_message(input, output, 100);
        let mut answers = BufReader::new(answers).lines();
        let writer = tokio::spawn(async move {
            client.write_all(b"{\"id\":1}\r\n").await.unwrap();
            for _ in 0..50 {
                client.write_all(&[b'x'; 100]).await.unwrap();
            }
            client.write_all(b"\n\xff\n{\"id\":2}").await.unwrap();
        });
        let first = front.next().await.unwrap().unwrap();
        assert_eq!(first.value, json!({"id": 1}));
        let second = front.next().await.unwrap().unwrap();
        assert_eq!(
            second.value,
            json!({"id": 2}),
            "the last line needs no newline"
        );
        assert!(front.next().await.unwrap().is_none());
        writer.await.unwrap();
        let too_long: Value =
            serde_json::from_str(&answers.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(too_long["error"]["code"], -32600, "{too_long}");
        assert_eq!(too_long["id"], Value::Null);
        let not_utf8: Value =
            serde_json::from_str(&answers.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(not_utf8["error"]["code"], -32700, "{not_utf8}");
        assert!(front.input.line.capacity() <= 100);
    }
}
