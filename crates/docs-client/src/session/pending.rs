//! What callers hold while a write travels: [`Progress`] (published by the session's actor)
//! and [`PendingWrite`], which waits on it.

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::error::{Error, Result};

/// Where the writes of a session stand. Sequence numbers only grow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// Highest sequence number given to a local write (or to a [`persist`] request).
    ///
    /// [`persist`]: super::DocumentSession::persist
    pub written: u64,
    /// Every write up to this one was applied by the room.
    pub acknowledged: u64,
    /// Every write up to this one was saved through REST.
    pub saved: u64,
    /// A failure that ends every write from `from` on: always `saved + 1` when it happened,
    /// since a session that failed saves nothing more.
    pub failure: Option<Failure>,
    /// The first sync completed.
    pub synced: bool,
    /// Currently connected and synced.
    pub connected: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub from: u64,
    pub error: Error,
}

/// A write applied to the local document, on its way to the room and the store.
#[must_use = "a write is only confirmed once waited on"]
pub struct PendingWrite<R> {
    seq: u64,
    value: R,
    progress: watch::Receiver<Progress>,
    /// Raised to this write when its caller waits for the save: the session saves at once.
    save_now: watch::Sender<u64>,
    document: String,
    started: Instant,
    timeout: Duration,
}

/// A write confirmed by the room and saved to the instance.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteReceipt<R> {
    pub value: R,
    /// 0 when the write changed nothing.
    pub seq: u64,
    pub acknowledged_after: Duration,
    pub saved_after: Duration,
}

impl<R> PendingWrite<R> {
    /// `started`: when the caller asked for the write; times and the time-out count from it.
    pub(super) fn new(
        seq: u64,
        value: R,
        progress: watch::Receiver<Progress>,
        save_now: watch::Sender<u64>,
        document: String,
        started: Instant,
        timeout: Duration,
    ) -> Self {
        PendingWrite {
            seq,
            value,
            progress,
            save_now,
            document,
            started,
            timeout,
        }
    }

    /// The same write carrying another value.
    pub(super) fn with_value<S>(self, value: S) -> PendingWrite<S> {
        PendingWrite {
            seq: self.seq,
            value,
            progress: self.progress,
            save_now: self.save_now,
            document: self.document,
            started: self.started,
            timeout: self.timeout,
        }
    }

    /// 0 when the transaction changed nothing (then it is trivially confirmed).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    pub fn value(&self) -> &R {
        &self.value
    }

    /// Waits for the room's acknowledgement; returns the time since the write.
    pub async fn acknowledged(&mut self) -> Result<Duration> {
        let seq = self.seq;
        self.wait_until(|p| p.acknowledged >= seq).await
    }

    /// Waits until the write is acknowledged and saved (asking the session to save it now,
    /// without waiting for its save interval); returns the time since the write.
    pub async fn saved(&mut self) -> Result<Duration> {
        let seq = self.seq;
        self.save_now.send_if_modified(|wanted| {
            let raise = seq > *wanted;
            *wanted = (*wanted).max(seq);
            raise
        });
        self.wait_until(|p| p.saved >= seq).await
    }

    /// Waits until the write is acknowledged and saved.
    pub async fn wait(mut self) -> Result<WriteReceipt<R>> {
        let acknowledged_after = self.acknowledged().await?;
        let saved_after = self.saved().await?;
        Ok(WriteReceipt {
            value: self.value,
            seq: self.seq,
            acknowledged_after,
            saved_after,
        })
    }

    /// Waits until `done`, a failure that covers this write, or the write timeout (counted
    /// from the write). A time-out says which of acknowledgement and save is missing.
    async fn wait_until(&mut self, done: impl Fn(&Progress) -> bool) -> Result<Duration> {
        if self.seq == 0 {
            return Ok(Duration::ZERO);
        }
        let seq = self.seq;
        let waited = tokio::time::timeout_at(
            self.started + self.timeout,
            self.progress
                .wait_for(|p| done(p) || p.failure.as_ref().is_some_and(|f| f.from <= seq)),
        )
        .await
        .map(|r| r.map(|p| p.clone()));
        match waited {
            Err(_) => Err(if self.progress.borrow().acknowledged < seq {
                Error::NotAcknowledged {
                    waited: self.timeout,
                }
            } else {
                Error::NotSaved {
                    waited: self.timeout,
                }
            }),
            Ok(Err(_)) => Err(Error::Closed {
                document: self.document.clone(),
            }),
            Ok(Ok(p)) if done(&p) => Ok(self.started.elapsed()),
            Ok(Ok(p)) => Err(p.failure.expect("checked above").error),
        }
    }
}
