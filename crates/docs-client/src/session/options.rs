//! How a session behaves (`SessionOptions`: presence, time-outs, intervals, save timing), with
//! defaults that suit a desktop agent, and the hook run once its document is loaded.

use std::sync::Arc;
use std::time::Duration;

use uuid::Uuid;
use yrs::Doc;

use crate::presence::Presence;

/// How a session behaves; the defaults suit a desktop agent.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// Who we are in the document's collaborator list.
    pub presence: Presence,
    /// How long opening may take (load, connect, first sync).
    pub sync_timeout: Duration,
    /// How long [`PendingWrite::wait`] waits for acknowledgement and save; also the longest
    /// [`DocumentSession::close`] takes.
    pub write_timeout: Duration,
    /// How long an acknowledged write waits for others to be saved with it (Docs keeps each
    /// save as a version; its editor saves every minute). A write somebody waits on
    /// ([`PendingWrite::saved`], [`DocumentSession::persist`], [`DocumentSession::flush`]) or
    /// a closing session is saved at once.
    pub save_interval: Duration,
    /// Alone in the room (no other participant present), acknowledged writes are saved once
    /// none came for this long, without waiting for the rest of `save_interval`: nobody
    /// else's save would hold them, and the room forgets them when we leave it.
    pub save_alone_after: Duration,
    /// How often our presence is renewed (remote states expire after 30 s; Hocuspocus 4
    /// closes sockets idle of data for 60 s).
    pub awareness_interval: Duration,
    /// How often a WebSocket ping is sent, so a live server always has something to answer.
    pub ping_interval: Duration,
    /// A connection from which nothing arrived (message or pong) for this long is dead: it is
    /// dropped and redone. Browsers' providers give up after 30 s.
    pub liveness_timeout: Duration,
    /// First and longest reconnect delay (exponential backoff with jitter in between).
    pub reconnect_initial: Duration,
    pub reconnect_max: Duration,
    /// Timeout of one WebSocket connection attempt.
    pub connect_timeout: Duration,
    /// Called once a session's document holds the content stored in Docs, before the
    /// session syncs with the room: work on the document (reading it) can start while the
    /// sync is made. Not called when there was no stored content to load.
    pub on_loaded: Option<LoadedHook>,
}

/// What [`SessionOptions::on_loaded`] calls: with the document's id and its Y.Doc, on a
/// runtime worker — it must return at once (spawn what takes time).
#[derive(Clone)]
pub struct LoadedHook(pub(super) Arc<OnLoaded>);

type OnLoaded = dyn Fn(Uuid, &Doc) + Send + Sync;

impl LoadedHook {
    pub fn new(hook: impl Fn(Uuid, &Doc) + Send + Sync + 'static) -> Self {
        LoadedHook(Arc::new(hook))
    }
}

impl std::fmt::Debug for LoadedHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LoadedHook")
    }
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            presence: Presence::new("AI agent"),
            sync_timeout: Duration::from_secs(15),
            write_timeout: Duration::from_secs(20),
            save_interval: Duration::from_secs(60),
            save_alone_after: Duration::from_secs(2),
            awareness_interval: Duration::from_secs(10),
            ping_interval: Duration::from_secs(10),
            liveness_timeout: Duration::from_secs(30),
            reconnect_initial: Duration::from_secs(1),
            reconnect_max: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            on_loaded: None,
        }
    }
}
