//! When the session saves through REST: after acknowledged writes, at most once per
//! `save_interval` (bursts coalesce into one save), retrying transient failures with
//! backoff. The save itself runs as a stored future the actor polls, never blocking it.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tokio::time::Instant;

use super::SessionOptions;
use super::link::backoff;
use crate::error::Result;

#[derive(Default)]
pub(super) struct Saver {
    last_start: Option<Instant>,
    /// After a failed save: not before this.
    retry_at: Option<Instant>,
    failures: u32,
    /// The save under way and the write it covers.
    running: Option<(u64, BoxFuture<'static, Result<()>>)>,
}

impl Saver {
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// When the next save may start. Closing skips the interval: no burst is coming.
    pub fn due(&self, options: &SessionOptions, closing: bool) -> Instant {
        let now = Instant::now();
        let interval = match self.last_start {
            Some(start) if !closing => start + options.save_interval,
            _ => now,
        };
        interval.max(self.retry_at.unwrap_or(now))
    }

    pub fn start(&mut self, target: u64, save: impl Future<Output = Result<()>> + Send + 'static) {
        self.last_start = Some(Instant::now());
        self.running = Some((target, save.boxed()));
    }

    /// Waits for the save under way; returns the write it covers and how it went.
    pub async fn finished(&mut self) -> (u64, Result<()>) {
        let Some((target, save)) = &mut self.running else {
            return std::future::pending().await;
        };
        let outcome = save.await;
        let target = *target;
        self.running = None;
        (target, outcome)
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
