//! When the session saves through REST. Docs keeps every save as a version of the document,
//! so saves follow the browser's rhythm: a write acknowledged by the room is saved
//! `save_interval` after the first acknowledged write not saved yet (every write of that
//! window goes into one save), unless somebody waits for it — a caller waiting for a save
//! ([`PendingWrite::saved`], [`DocumentSession::persist`], `flush`) or the session closing —
//! when it is saved at once. Alone in the room, nobody else's save can hold our writes and
//! the room is gone as soon as we are: they are saved once no write came for
//! `save_alone_after` (a burst of writes is still one save). Transient failures are retried
//! with backoff. The save itself runs as a stored future the actor polls, never blocking it.
//!
//! On yhub the same timing applies to the REST merge of the writes the server has not taken while
//! no socket gets through (`actor::saving`).
//!
//!
//! [`PendingWrite::saved`]: super::PendingWrite::saved
//! [`DocumentSession::persist`]: super::DocumentSession::persist

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tokio::time::Instant;

use super::SessionOptions;
use super::retry::backoff;
use crate::error::Result;

/// What a save started from.
#[derive(Debug, Clone, Copy)]
pub(super) struct Started {
    /// Every write up to this one is in the saved state.
    pub target: u64,
    /// We were in the document's room (what the save told the instance).
    pub connected: bool,
}

#[derive(Default)]
pub(super) struct Saver {
    /// When an acknowledged write no save covers was first seen: its save is due
    /// `save_interval` later.
    window_start: Option<Instant>,
    /// The last write a save would cover, and when it was first seen: alone in the room, the
    /// save is due once none came for `save_alone_after`.
    last_target: (u64, Option<Instant>),
    /// After a failed save: not before this.
    retry_at: Option<Instant>,
    failures: u32,
    /// The save under way: the write it covers, whether it was made from the room.
    running: Option<(Started, BoxFuture<'static, Result<()>>)>,
}

impl Saver {
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Acknowledged writes up to `target` wait for a save: the window opens now unless it is
    /// open.
    pub fn wanted(&mut self, target: u64) {
        let now = Instant::now();
        self.window_start.get_or_insert(now);
        if target > self.last_target.0 {
            self.last_target = (target, Some(now));
        }
    }

    /// When the next save may start: at the end of the window, sooner when we are `alone` in
    /// the room (once writes stopped coming), at once when somebody waits for it; never
    /// before a retry is due.
    pub fn due(&self, options: &SessionOptions, urgent: bool, alone: bool) -> Instant {
        let now = Instant::now();
        let planned = match self.window_start {
            Some(start) if !urgent => {
                let end = start + options.save_interval;
                match self.last_target.1 {
                    Some(last) if alone => end.min(last + options.save_alone_after),
                    _ => end,
                }
            }
            _ => now,
        };
        planned.max(self.retry_at.unwrap_or(now))
    }

    pub fn start(
        &mut self,
        started: Started,
        save: impl Future<Output = Result<()>> + Send + 'static,
    ) {
        // Writes acknowledged from now on open a window of their own.
        self.window_start = None;
        self.running = Some((started, save.boxed()));
    }

    /// Waits for the save under way; returns what it started from and how it went.
    pub async fn finished(&mut self) -> (Started, Result<()>) {
        let Some((started, save)) = &mut self.running else {
            return std::future::pending().await;
        };
        let outcome = save.await;
        let started = *started;
        self.running = None;
        (started, outcome)
    }

    pub fn succeeded(&mut self) {
        self.failures = 0;
        self.retry_at = None;
    }

    /// A transient failure: the next attempt waits a growing delay.
    pub fn failed(&mut self, options: &SessionOptions) -> std::time::Duration {
        self.failures += 1;
        let delay = backoff(options, self.failures);
        self.retry_at = Some(Instant::now() + delay);
        delay
    }
}
