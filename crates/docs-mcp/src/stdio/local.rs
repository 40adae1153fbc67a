//! The client served by this process's own service: an MCP server over an in-memory pipe,
//! so that the client's messages can go to another service when this one hands the data
//! directory over (the client keeps its session: it is introduced to the next service).
//!
//! Calls under way are tracked, so that a handover answers them first.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

use super::Front;
use super::bridge::{error_message, request_ids};
use crate::DocsService;

/// Bytes in flight between the client's side and the server in each direction.
const PIPE: usize = 1 << 16;

/// How long the calls under way may take to be answered when the service stops serving
/// this client (a wait for approval ends at once when handing over; a write being applied
/// is confirmed or followed in the journal).
const CALLS_WAIT: Duration = Duration::from_secs(10);

/// How serving the client here ended.
pub(crate) enum Served {
    /// The client closed stdin, or the process is quitting.
    Ended,
    /// Another service asked for the data directory: the client goes on there.
    HandedOver,
}

/// Requests sent to the server and not answered yet, by JSON id.
type Calls = Arc<Mutex<HashSet<String>>>;

/// Serves `front`'s client with `service` until the client leaves, `quit`, or the service
/// hands over. A client that initialized with another service is introduced first.
pub(crate) async fn serve_here(
    front: &mut Front,
    service: &Arc<DocsService>,
    quit: &CancellationToken,
) -> anyhow::Result<Served> {
    let (ours, theirs) = tokio::io::duplex(PIPE);
    let server_stop = CancellationToken::new();
    let server = {
        let mcp = crate::mcp::DocsMcp::new(service.clone(), "stdio");
        let stop = server_stop.clone();
        tokio::spawn(async move {
            match mcp.serve_with_ct(tokio::io::split(theirs), stop).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => tracing::warn!(error = %e, "the MCP server did not start"),
            }
        })
    };
    let (our_read, mut our_write) = tokio::io::split(ours);
    let calls = Calls::default();
    // The answer to a replayed `initialize` is the server's, not the client's (it has one).
    let introduction = front.initialize().map(|m| m["id"].to_string());
    let answers = tokio::spawn(forward_answers(
        our_read,
        front.out(),
        calls.clone(),
        introduction,
    ));
    if let Some(initialize) = front.initialize() {
        write_line(&mut our_write, initialize.to_string()).await?;
        if let Some(initialized) = front.initialized() {
            write_line(&mut our_write, initialized.to_string()).await?;
        }
        tracing::info!("the client's session continues at this process's own service");
    }

    let served = loop {
        let message = tokio::select! {
            biased;
            () = service.handing_over() => break Served::HandedOver,
            () = quit.cancelled() => break Served::Ended,
            message = front.next() => message?,
        };
        let Some(message) = message else {
            break Served::Ended;
        };
        let ids = request_ids(&message.value);
        calls
            .lock()
            .expect("calls lock")
            .extend(ids.iter().map(Value::to_string));
        if write_line(&mut our_write, message.line).await.is_err() {
            for id in ids {
                front
                    .emit(&error_message(
                        id,
                        "the Docs MCP server of this process stopped".into(),
                    ))
                    .await;
            }
        }
    };

    // Calls under way are answered before the server goes (not when the process quits).
    if !quit.is_cancelled() {
        let deadline = tokio::time::Instant::now() + CALLS_WAIT;
        while !calls.lock().expect("calls lock").is_empty()
            && tokio::time::Instant::now() < deadline
            && !quit.is_cancelled()
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    server_stop.cancel();
    drop(our_write);
    let _ = tokio::time::timeout(Duration::from_secs(2), server).await;
    // The server gone, its last answers are read to the end of the pipe.
    let mut answers = answers;
    if tokio::time::timeout(Duration::from_secs(2), &mut answers)
        .await
        .is_err()
    {
        answers.abort();
    }
    let cut: Vec<String> = calls.lock().expect("calls lock").drain().collect();
    if matches!(served, Served::HandedOver) {
        for id in cut {
            let id = serde_json::from_str(&id).unwrap_or(Value::Null);
            front
                .emit(&error_message(
                    id,
                    "this call was cut: another Docs MCP service (the app) took over while it ran. \
                     If it proposed an edit, the edit is in the journal: call edit_status or list_sessions."
                        .into(),
                ))
                .await;
        }
    }
    Ok(served)
}

async fn write_line(
    pipe: &mut (impl tokio::io::AsyncWrite + Unpin),
    mut line: String,
) -> std::io::Result<()> {
    line.push('\n');
    pipe.write_all(line.as_bytes()).await?;
    pipe.flush().await
}

/// The server's messages to the client, the answers crossed off `calls`.
async fn forward_answers(
    server: impl tokio::io::AsyncRead + Unpin,
    out: tokio::sync::mpsc::Sender<String>,
    calls: Calls,
    mut introduction: Option<String>,
) {
    /// What is read of an answer: its id, and whether it is a request or notification of the
    /// server's (the rest is skipped, not built: answers can be large).
    #[derive(serde::Deserialize)]
    struct Envelope {
        #[serde(default)]
        id: Option<Value>,
        #[serde(default)]
        method: Option<serde::de::IgnoredAny>,
    }
    let mut lines = BufReader::new(server).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Ok(envelope) = serde_json::from_str::<Envelope>(&line)
            && envelope.method.is_none()
            && let Some(id) = envelope.id.as_ref().map(Value::to_string)
        {
            if introduction.as_ref() == Some(&id) {
                introduction = None;
                continue;
            }
            calls.lock().expect("calls lock").remove(&id);
        }
        if out.send(line).await.is_err() {
            break;
        }
    }
}
