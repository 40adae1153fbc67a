//! The WebSocket side of a session: connecting (rate budget, time-out), the open connection
//! (its outbox, what it has in flight, its liveness deadline and timers), the wait before a
//! reconnect, the rights re-check after a reset.
//!
//! The actor polls [`Link::next_event`] as one branch of its `select!`. Whatever takes time is
//! stored in the [`Link`] itself (boxed futures, deadlines, the outbox), so dropping that
//! future when another branch wins loses nothing.
//!
//! On yhub, a session never synced whose socket does not open reads the room's state through yhub's
//! REST route (`Link::Loading`) and keeps trying to connect.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{FutureExt, Sink, SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, tungstenite};
use url::Url;

use super::Shared;
use super::outbox::{Outbox, Overflow};
use crate::collaboration::CollaborationServer;
use crate::error::{Error, Result};
use crate::protocol::Message;
use crate::rest::{DocsClient, Document};

pub(super) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Where the session's connection stands.
pub(super) enum Link {
    /// Waiting before the next connection attempt.
    Waiting {
        until: Instant,
    },
    /// Asking REST what we may do now, after the room reset or denied our connection.
    Rechecking(BoxFuture<'static, Result<Document>>),
    /// yhub only: the socket could not be opened before the first sync; reading the room's
    /// state through the collaboration server's REST route instead.
    Loading(BoxFuture<'static, Result<Vec<u8>>>),
    Connecting(BoxFuture<'static, Result<Socket, Ended>>),
    Open(Box<Connection>),
    /// No connection is wanted any more (the session is closing or failed).
    Stopped,
}

/// What happened on the link; the actor decides what follows.
pub(super) enum LinkEvent {
    RetryDue,
    Rechecked(Result<Document>),
    Loaded(Result<Vec<u8>>),
    Connected(Box<Socket>),
    Message(Message),
    /// Our presence is due for renewal (remote states expire after 30 s).
    PresenceDue,
    Ended(Ended),
}

/// How a connection (or an attempt) ended.
#[derive(Debug)]
pub(super) enum Ended {
    /// The server closed this document's session (rights changed): re-check and reconnect.
    Reset(String),
    PermissionDenied(String),
    Lost(String),
    Final(Error),
}

impl Link {
    pub async fn next_event(&mut self) -> LinkEvent {
        match self {
            Link::Stopped => std::future::pending().await,
            Link::Waiting { until } => {
                tokio::time::sleep_until(*until).await;
                LinkEvent::RetryDue
            }
            Link::Rechecking(recheck) => LinkEvent::Rechecked(recheck.await),
            Link::Loading(load) => LinkEvent::Loaded(load.await),
            Link::Connecting(attempt) => match attempt.await {
                Ok(socket) => LinkEvent::Connected(Box::new(socket)),
                Err(ended) => LinkEvent::Ended(ended),
            },
            Link::Open(connection) => connection.next_event().await,
        }
    }

    pub fn connection(&mut self) -> Option<&mut Connection> {
        match self {
            Link::Open(connection) => Some(connection),
            _ => None,
        }
    }
}

/// One open WebSocket connection to the document's room.
pub(super) struct Connection {
    shared: Arc<Shared>,
    sink: SplitSink<Socket, tungstenite::Message>,
    stream: SplitStream<Socket>,
    pub outbox: Outbox,
    /// For each Sync message handed to the socket, the highest write it carries: the room
    /// answers one SyncStatus per Step2/Update, in order. Bounded by the outbox's limit.
    pub in_flight: VecDeque<u64>,
    /// Our Step2 was queued: later writes go as Updates (before, the Step2 carries them).
    pub step2_sent: bool,
    /// The socket was given messages it has not flushed yet.
    unflushed: bool,
    /// When something (a message, a pong) last arrived.
    last_heard: Instant,
    next_ping: Instant,
    next_presence: Instant,
    /// Armed at the earliest of the liveness deadline, the next ping and the next presence
    /// renewal; re-armed only when it fires, so traffic costs no timer work.
    timer: Pin<Box<Sleep>>,
}

impl Connection {
    pub fn new(shared: Arc<Shared>, socket: Box<Socket>) -> Self {
        let (sink, stream) = (*socket).split();
        let now = Instant::now();
        let options = &shared.options;
        let mut connection = Connection {
            sink,
            stream,
            outbox: Outbox::new(
                shared.wire.clone(),
                // yhub refuses a reader's awareness: a read-only connection shows no presence.
                shared.endpoint.server() == CollaborationServer::Hocuspocus
                    || !shared.read_only.load(Ordering::Relaxed),
            ),
            in_flight: VecDeque::new(),
            step2_sent: false,
            unflushed: false,
            last_heard: now,
            next_ping: now + options.ping_interval,
            next_presence: now + options.awareness_interval,
            timer: Box::pin(tokio::time::sleep_until(now)),
            shared,
        };
        connection.arm_timer();
        connection
    }

    fn arm_timer(&mut self) {
        let silent_until = self.last_heard + self.shared.options.liveness_timeout;
        let at = silent_until.min(self.next_ping).min(self.next_presence);
        self.timer.as_mut().reset(at);
    }

    /// Sends what the socket takes at once, without waiting: a write goes out before its
    /// caller is answered. What is left is sent by [`Link::next_event`].
    pub fn send_now(&mut self) {
        let sent = send(
            &self.shared,
            &mut self.sink,
            &mut self.outbox,
            &mut self.in_flight,
            &mut self.unflushed,
        )
        .now_or_never();
        if let Some(Err(e)) = sent {
            // The same error ends the connection at the next `next_event`.
            tracing::debug!("sending failed: {e}");
        }
    }

    /// Queues a protocol frame; a socket that lets them pile up is not read: drop it.
    pub fn push_protocol(&mut self, message: Message, covers: Option<u64>) -> Result<(), Ended> {
        self.outbox
            .push_protocol(message, covers)
            .map_err(|Overflow| Ended::Lost("the server does not read what we send".into()))
    }

    async fn next_event(&mut self) -> LinkEvent {
        loop {
            let sendable = self.unflushed || self.outbox.has_sendable(self.in_flight.len());
            let Connection {
                shared,
                sink,
                stream,
                outbox,
                in_flight,
                unflushed,
                timer,
                ..
            } = self;
            tokio::select! {
                incoming = stream.next() => {
                    self.last_heard = Instant::now();
                    if let Some(event) = self.received(incoming) {
                        return event;
                    }
                }
                sent = send(shared, sink, outbox, in_flight, unflushed), if sendable => {
                    if let Err(e) = sent {
                        return LinkEvent::Ended(Ended::Lost(format!("send failed: {e}")));
                    }
                }
                () = timer.as_mut() => {
                    let event = self.on_timer(Instant::now());
                    self.arm_timer();
                    if let Some(event) = event {
                        return event;
                    }
                }
            }
        }
    }

    fn on_timer(&mut self, now: Instant) -> Option<LinkEvent> {
        let options = &self.shared.options;
        if now >= self.last_heard + options.liveness_timeout {
            return Some(lost(&format!(
                "nothing received from the server for {} ms",
                options.liveness_timeout.as_millis()
            )));
        }
        if now >= self.next_ping {
            self.outbox.ping();
            self.next_ping = now + options.ping_interval;
        }
        if now >= self.next_presence {
            self.next_presence = now + options.awareness_interval;
            return Some(LinkEvent::PresenceDue);
        }
        None
    }

    /// What one item of the stream means; `None` when it is nothing for the actor.
    fn received(
        &mut self,
        incoming: Option<Result<tungstenite::Message, tungstenite::Error>>,
    ) -> Option<LinkEvent> {
        let message = match incoming {
            None => return Some(lost("the server closed the connection")),
            Some(Err(e)) => return Some(lost(&e.to_string())),
            Some(Ok(message)) => message,
        };
        match message {
            tungstenite::Message::Binary(bytes) => {
                self.shared
                    .bytes_in
                    .fetch_add(bytes.len() as u64, Ordering::Relaxed);
                match self.shared.wire.decode(&bytes) {
                    Ok(Some(message)) => Some(LinkEvent::Message(message)),
                    Ok(None) => None,
                    Err(e) => {
                        tracing::debug!("ignored message: {e}");
                        None
                    }
                }
            }
            tungstenite::Message::Close(frame) => Some(LinkEvent::Ended(closed_by_server(
                self.shared.endpoint.server(),
                frame,
            ))),
            // Pongs (and the server's pings, answered by tungstenite) only prove liveness.
            _ => None,
        }
    }

    /// Leaves the room: sends what is queued (our presence cleared last), then a Close frame,
    /// within `budget`.
    pub async fn leave(mut self, leaving_presence: Vec<u8>, budget: Duration) {
        self.outbox.set_presence(leaving_presence);
        let Connection {
            shared,
            mut sink,
            mut outbox,
            mut in_flight,
            mut unflushed,
            ..
        } = self;
        let _ = tokio::time::timeout(budget, async {
            while outbox.has_sendable(in_flight.len()) || unflushed {
                send(
                    &shared,
                    &mut sink,
                    &mut outbox,
                    &mut in_flight,
                    &mut unflushed,
                )
                .await?;
            }
            sink.send(tungstenite::Message::Close(None)).await
        })
        .await;
    }
}

fn lost(reason: &str) -> LinkEvent {
    LinkEvent::Ended(Ended::Lost(reason.to_owned()))
}

/// Hands queued messages to the socket as fast as it takes them, then flushes. Cancel-safe:
/// a message leaves the outbox only in the same step that hands it to the socket.
async fn send<S>(
    shared: &Shared,
    sink: &mut S,
    outbox: &mut Outbox,
    in_flight: &mut VecDeque<u64>,
    unflushed: &mut bool,
) -> Result<(), S::Error>
where
    S: Sink<tungstenite::Message> + Unpin,
{
    while outbox.has_sendable(in_flight.len()) {
        std::future::poll_fn(|cx| sink.poll_ready_unpin(cx)).await?;
        let Some(outgoing) = outbox.pop(in_flight.len()) else {
            break;
        };
        if let Some(covers) = outgoing.covers {
            in_flight.push_back(covers);
        }
        shared
            .bytes_out
            .fetch_add(outgoing.message.len() as u64, Ordering::Relaxed);
        *unflushed = true;
        sink.start_send_unpin(outgoing.message)?;
    }
    std::future::poll_fn(|cx| sink.poll_flush_unpin(cx)).await?;
    *unflushed = false;
    Ok(())
}

/// A session's first connection attempt, made while its stored content loads: on
/// Hocuspocus, the connection also authenticates at once (the server asks Docs about our
/// rights meanwhile); the actor then sends the rest of the handshake. Paid by the open.
pub(super) fn connect_first(
    shared: &Arc<Shared>,
    client: &DocsClient,
) -> BoxFuture<'static, Result<Socket, Ended>> {
    let connecting = connect(shared, client, &room_url(shared));
    let shared = shared.clone();
    async move {
        let mut socket = connecting.await?;
        if shared.endpoint.server() == CollaborationServer::Hocuspocus {
            let auth = shared.wire.encode(&Message::AuthToken(String::new()));
            shared
                .bytes_out
                .fetch_add(auth.len() as u64, Ordering::Relaxed);
            tokio::time::timeout(
                shared.options.connect_timeout,
                socket.send(tungstenite::Message::Binary(auth.into())),
            )
            .await
            .map_err(|_| Ended::Lost("authenticating timed out".into()))?
            .map_err(|e| Ended::Lost(e.to_string()))?;
        }
        Ok(socket)
    }
    .boxed()
}

/// The socket URL of the session's room; on yhub it tags what we write as an agent's.
pub(super) fn room_url(shared: &Shared) -> Url {
    shared
        .endpoint
        .room(shared.id, &crate::collaboration::ATTRIBUTIONS)
}

/// One connection attempt to the room at `room_url`: the WebSocket handshake within the
/// connect time-out. (The collaboration server asks the backend about our rights, with its
/// provider key, which Docs' throttle does not count: nothing is taken from the budget.)
pub(super) fn connect(
    shared: &Arc<Shared>,
    client: &DocsClient,
    room_url: &Url,
) -> BoxFuture<'static, Result<Socket, Ended>> {
    let request = ws_request(client, room_url);
    let secure = room_url.scheme() == "wss";
    let shared = shared.clone();
    async move {
        let request = request.map_err(Ended::Final)?;
        // The process's verifier, not a trust store loaded again for this connection.
        let connector = match secure {
            true => Some(tokio_tungstenite::Connector::Rustls(
                crate::tls::websocket_config().map_err(Ended::Final)?,
            )),
            false => None,
        };
        shared.connects.fetch_add(1, Ordering::Relaxed);
        let connected = tokio::time::timeout(
            shared.options.connect_timeout,
            // No Nagle, as browsers: an update is a small frame, and holding it until the
            // previous one is acknowledged (a delayed ACK: up to 40 ms) is the tail of every
            // edit's latency.
            tokio_tungstenite::connect_async_tls_with_config(
                request,
                Some(socket_config()),
                true,
                connector,
            ),
        )
        .await;
        match connected {
            Err(_) => Err(Ended::Lost("connection attempt timed out".into())),
            Ok(Err(tungstenite::Error::Http(response))) => {
                let status = response.status().as_u16();
                Err(if matches!(status, 401 | 403 | 404) {
                    Ended::Final(Error::ConnectionRefused {
                        code: status,
                        reason: format!("HTTP {status} on the collaboration endpoint"),
                    })
                } else {
                    Ended::Lost(format!("HTTP {status} on the collaboration endpoint"))
                })
            }
            Ok(Err(e)) => Err(Ended::Lost(e.to_string())),
            Ok(Ok((socket, _))) => Ok(socket),
        }
    }
    .boxed()
}

/// The room's state read through yhub's REST route (the socket could not be opened).
pub(super) fn load(client: &DocsClient, shared: &Shared) -> BoxFuture<'static, Result<Vec<u8>>> {
    let client = client.clone();
    let (endpoint, id) = (shared.endpoint.clone(), shared.id);
    async move { client.ydoc(&endpoint, id).await }.boxed()
}

/// What the room says about our rights now (after a reset or a denial).
pub(super) fn recheck(
    client: &DocsClient,
    shared: &Shared,
) -> BoxFuture<'static, Result<Document>> {
    let client = client.clone();
    let id = shared.id;
    async move { client.document(id).await }.boxed()
}

/// tungstenite's read buffer is filled with zeros to its size on the first read, so each
/// connection keeps all of it resident: 128 KiB by default, where our frames (updates,
/// awareness) take a few hundred bytes. A larger frame (a whole document in a Step2) grows
/// the buffer to its size in any case.
fn socket_config() -> tungstenite::protocol::WebSocketConfig {
    tungstenite::protocol::WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES)
}

const READ_BUFFER_BYTES: usize = 16 * 1024;

fn ws_request(client: &DocsClient, url: &Url) -> Result<tungstenite::handshake::client::Request> {
    let mut request = url
        .as_str()
        .into_client_request()
        .map_err(|e| Error::Network {
            detail: format!("bad collaboration URL {url}: {e}"),
        })?;
    // The collaboration server refuses sockets without a cookie; an anonymous client
    // that was handed no session cookie still needs to send one.
    let cookie = client
        .cookie_header()
        .unwrap_or_else(|| "docs_mcp_anonymous=1".to_owned());
    let headers = request.headers_mut();
    let header = |v: &str| {
        HeaderValue::from_str(v).map_err(|e| Error::Network {
            detail: format!("bad header value: {e}"),
        })
    };
    headers.insert("Origin", header(&client.instance().origin())?);
    headers.insert("Cookie", header(&cookie)?);
    headers.insert(
        "User-Agent",
        header(concat!("lasuite-docs-mcp/", env!("CARGO_PKG_VERSION")))?,
    );
    Ok(request)
}

/// What a close code means. Hocuspocus (Docs 5): 4001 (origin/cookie), 4401 and 4403 are
/// final, 4205 resets. yhub: 4404 (document deleted) is final; its other 44xx (4401:
/// rights changed) make Docs' editor re-read the document and reconnect if it still may.
/// The rest is retried.
fn closed_by_server(
    server: CollaborationServer,
    frame: Option<tungstenite::protocol::CloseFrame>,
) -> Ended {
    let Some(frame) = frame else {
        return Ended::Lost("the server closed the connection".into());
    };
    let code = u16::from(frame.code);
    let reason = frame.reason.to_string();
    let refused = |code, reason| Ended::Final(Error::ConnectionRefused { code, reason });
    match server {
        CollaborationServer::Hocuspocus => match code {
            4001 | 4401 | 4403 | 1008 => refused(code, reason),
            4205 => Ended::Reset(reason),
            _ => Ended::Lost(format!("closed by the server ({code} {reason})")),
        },
        CollaborationServer::Yhub => match code {
            4404 => refused(code, reason),
            4400..=4499 => Ended::Reset(reason),
            _ => Ended::Lost(format!("closed by the server ({code} {reason})")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tungstenite::protocol::CloseFrame;
    use tungstenite::protocol::frame::coding::CloseCode;

    fn close_by(server: CollaborationServer, code: u16, reason: &'static str) -> Ended {
        closed_by_server(
            server,
            Some(CloseFrame {
                code: CloseCode::from(code),
                reason: reason.into(),
            }),
        )
    }

    fn close(code: u16, reason: &'static str) -> Ended {
        close_by(CollaborationServer::Hocuspocus, code, reason)
    }

    #[test]
    fn yhub_close_codes_end_on_deletion_recheck_on_rights_and_retry_the_rest() {
        let yhub = |code, reason| close_by(CollaborationServer::Yhub, code, reason);
        let Ended::Final(Error::ConnectionRefused { code: 4404, .. }) =
            yhub(4404, "document deleted")
        else {
            panic!("4404 is final")
        };
        assert!(matches!(yhub(4401, "permission revoked"), Ended::Reset(_)));
        assert!(matches!(yhub(1011, "Internal error"), Ended::Lost(_)));
        assert!(matches!(yhub(1013, "auth recheck failed"), Ended::Lost(_)));
    }

    #[test]
    fn close_codes_docs_uses_for_refusals_are_final() {
        let Ended::Final(error) = close(4001, "Origin not allowed") else {
            panic!("4001 is final")
        };
        assert_eq!(
            error.to_string(),
            "the collaboration server refused the connection (4001: Origin not allowed) — the instance refused this client's Origin or cookies; check the instance URL"
        );
        assert!(matches!(close(4401, "Unauthorized"), Ended::Final(_)));
        assert!(matches!(close(4403, "Forbidden"), Ended::Final(_)));
        assert!(
            matches!(close(4205, "Reset Connection"), Ended::Reset(r) if r == "Reset Connection")
        );
        assert!(matches!(close(4408, "Connection Timeout"), Ended::Lost(_)));
        assert!(matches!(close(1001, "going away"), Ended::Lost(_)));
        assert!(matches!(
            closed_by_server(CollaborationServer::Hocuspocus, None),
            Ended::Lost(_)
        ));
    }
}
