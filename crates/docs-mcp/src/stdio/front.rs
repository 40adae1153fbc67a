//! The client's side of a stdio server: its messages in, one JSON-RPC message per line, and
//! the answers out, whichever service answers them. What a new service must be told about
//! a client that already initialized (its `initialize`, its `initialized`) is kept here.
//!
//! The answers go out through a bounded queue.

use std::pin::Pin;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Messages waiting to be written to stdout. When the client stops reading, the services'
/// answers wait instead of piling up in memory.
const OUTPUT_QUEUE: usize = 64;

type Input = Lines<BufReader<Pin<Box<dyn AsyncRead + Send>>>>;

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
        mut output: impl AsyncWrite + Unpin + Send + 'static,
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
            input: BufReader::new(input).lines(),
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
                Err(e) => {
                    let error = json!({
                        "jsonrpc": "2.0",
                        "id": null,
                        "error": {"code": -32700, "message": format!("Parse error: {e}")},
                    });
                    let _ = self.out.send(error.to_string()).await;
                }
            }
        }
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
