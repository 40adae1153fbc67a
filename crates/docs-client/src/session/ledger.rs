//! The bookkeeping of writes: sequence numbers, what the room acknowledged, what was saved,
//! where a failure starts. The actor feeds it events; every change is published at once as
//! [`Progress`], which is what waiters watch.

use std::collections::VecDeque;

use tokio::sync::watch;

use super::pending::{Failure, Progress};
use crate::error::Error;

pub(super) struct Ledger {
    progress: watch::Sender<Progress>,
    /// [`Ledger::persist`] requests not yet acknowledged, in order. They carry no change of
    /// their own, so each is acknowledged as soon as every write before it is.
    marks: VecDeque<u64>,
    /// The server persists what it acknowledges (yhub): acknowledged is saved.
    server_persists: bool,
}

impl Ledger {
    pub fn new(progress: watch::Sender<Progress>, server_persists: bool) -> Self {
        Ledger {
            progress,
            marks: VecDeque::new(),
            server_persists,
        }
    }

    pub fn written(&self) -> u64 {
        self.progress.borrow().written
    }

    pub fn acknowledged(&self) -> u64 {
        self.progress.borrow().acknowledged
    }

    /// Every write up to this one is saved.
    pub fn saved_up_to(&self) -> u64 {
        self.progress.borrow().saved
    }

    /// Connected and synced: what a save tells the instance (Docs' `websocket` field).
    pub fn connected(&self) -> bool {
        self.progress.borrow().connected
    }

    /// The session synced once (its document is there to read).
    pub fn synced_once(&self) -> bool {
        self.progress.borrow().synced
    }

    /// Every write made so far, when some are not acknowledged (and nothing failed).
    pub fn unacknowledged(&self) -> Option<u64> {
        let p = self.progress.borrow();
        (p.failure.is_none() && p.written > p.acknowledged).then_some(p.written)
    }

    pub fn failure(&self) -> Option<Error> {
        self.progress
            .borrow()
            .failure
            .as_ref()
            .map(|f| f.error.clone())
    }

    /// Every write made so far is saved, or can no longer be.
    pub fn settled(&self) -> bool {
        let p = self.progress.borrow();
        p.failure.is_some() || p.saved >= p.written
    }

    /// A local change was applied: its sequence number.
    pub fn write(&mut self) -> u64 {
        let mut seq = 0;
        self.progress.send_modify(|p| {
            p.written += 1;
            seq = p.written;
        });
        seq
    }

    /// A request to save the current state: a sequence number that is acknowledged once
    /// every write before it is, hence saved by a save that starts after the request.
    pub fn persist(&mut self) -> u64 {
        let seq = self.write();
        self.marks.push_back(seq);
        let (marks, persists) = (&mut self.marks, self.server_persists);
        self.progress
            .send_if_modified(|p| absorb(p, marks) && persisted(p, persists));
        seq
    }

    /// The room applied a message carrying every write up to `covers`.
    pub fn acknowledge(&mut self, covers: u64) {
        let (marks, persists) = (&mut self.marks, self.server_persists);
        self.progress.send_if_modified(|p| {
            let advanced = covers > p.acknowledged;
            p.acknowledged = p.acknowledged.max(covers);
            (absorb(p, marks) || advanced) && persisted(p, persists)
        });
    }

    /// What a save starting now would cover, when one is needed.
    pub fn save_target(&self) -> Option<u64> {
        let p = self.progress.borrow();
        (p.failure.is_none() && p.acknowledged > p.saved).then_some(p.acknowledged)
    }

    /// A save that started when `target` was acknowledged succeeded.
    pub fn saved(&mut self, target: u64) {
        self.progress.send_if_modified(|p| {
            let advanced = target > p.saved;
            p.saved = p.saved.max(target);
            advanced
        });
    }

    pub fn synced(&mut self) {
        self.progress.send_if_modified(|p| {
            let changed = !(p.synced && p.connected);
            p.synced = true;
            p.connected = true;
            changed
        });
    }

    /// The room's state arrived without a connection (yhub's REST route): reads may go on,
    /// writes wait for a connection or go through that route.
    pub fn loaded(&mut self) {
        self.progress
            .send_if_modified(|p| !std::mem::replace(&mut p.synced, true));
    }

    pub fn disconnected(&mut self) {
        self.progress
            .send_if_modified(|p| std::mem::replace(&mut p.connected, false));
    }

    /// Ends the session: see [`fail`].
    pub fn fail(&mut self, error: Error) {
        fail(&self.progress, error);
    }
}

/// Acknowledges the persist requests whose earlier writes are all acknowledged.
fn absorb(p: &mut Progress, marks: &mut VecDeque<u64>) -> bool {
    let mut changed = false;
    while let Some(&mark) = marks.front()
        && mark <= p.acknowledged + 1
    {
        marks.pop_front();
        if mark > p.acknowledged {
            p.acknowledged = mark;
            changed = true;
        }
    }
    changed
}

/// Where the server persists what it acknowledges, the acknowledged writes are saved;
/// always true, so it chains after "changed".
fn persisted(p: &mut Progress, server_persists: bool) -> bool {
    if server_persists {
        p.saved = p.saved.max(p.acknowledged);
    }
    true
}

/// Ends the session with `error`, the first failure only. The one failure boundary: every
/// write not saved yet fails (`from = saved + 1`), since nothing is saved after a failure —
/// so every waiter is answered at once.
pub(super) fn fail(progress: &watch::Sender<Progress>, error: Error) {
    progress.send_modify(|p| {
        if p.failure.is_none() {
            tracing::warn!(%error, "session ended");
            p.failure = Some(Failure {
                from: p.saved + 1,
                error,
            });
        }
        p.connected = false;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger() -> (Ledger, watch::Receiver<Progress>) {
        let (tx, rx) = watch::channel(Progress::default());
        (Ledger::new(tx, false), rx)
    }

    #[test]
    fn where_the_server_persists_acknowledged_is_saved() {
        let (tx, progress) = watch::channel(Progress::default());
        let mut ledger = Ledger::new(tx, true);
        assert_eq!((ledger.write(), ledger.write()), (1, 2));
        assert_eq!(ledger.persist(), 3);
        ledger.acknowledge(1);
        assert_eq!(progress.borrow().saved, 1);
        assert_eq!(ledger.save_target(), None, "nothing to save through REST");
        ledger.acknowledge(2);
        let p = progress.borrow().clone();
        assert_eq!(
            (p.acknowledged, p.saved),
            (3, 3),
            "the request after write 2 too"
        );
        assert_eq!(ledger.persist(), 4);
        assert_eq!(progress.borrow().saved, 4);
        assert!(ledger.settled());
    }

    #[test]
    fn writes_are_numbered_acknowledged_then_saved() {
        let (mut ledger, progress) = ledger();
        assert_eq!((ledger.write(), ledger.write(), ledger.write()), (1, 2, 3));
        assert_eq!(ledger.save_target(), None, "nothing acknowledged yet");
        ledger.acknowledge(2);
        assert_eq!(ledger.save_target(), Some(2));
        ledger.saved(2);
        ledger.acknowledge(1); // an older message's acknowledgement changes nothing
        let p = progress.borrow().clone();
        assert_eq!((p.written, p.acknowledged, p.saved), (3, 2, 2));
        assert!(!ledger.settled());
        ledger.acknowledge(3);
        ledger.saved(3);
        assert!(ledger.settled());
    }

    #[test]
    fn a_persist_request_waits_for_the_writes_before_it_only() {
        let (mut ledger, progress) = ledger();
        // Nothing before it: acknowledged at once, so the next save covers it.
        assert_eq!(ledger.persist(), 1);
        assert_eq!(ledger.save_target(), Some(1));
        ledger.saved(1);

        assert_eq!(ledger.write(), 2);
        assert_eq!(ledger.persist(), 3);
        assert_eq!(ledger.persist(), 4);
        assert_eq!(ledger.write(), 5);
        assert_eq!(progress.borrow().acknowledged, 1);
        ledger.acknowledge(2);
        assert_eq!(
            progress.borrow().acknowledged,
            4,
            "both requests follow write 2"
        );
        ledger.acknowledge(5);
        assert_eq!(ledger.save_target(), Some(5));
    }

    #[test]
    fn a_failure_ends_every_write_not_saved() {
        let (mut ledger, progress) = ledger();
        for _ in 0..4 {
            ledger.write();
        }
        ledger.acknowledge(3);
        ledger.saved(1);
        ledger.fail(Error::ReadOnly {
            document: "d".into(),
        });
        ledger.fail(Error::Closed {
            document: "d".into(),
        });
        let p = progress.borrow().clone();
        let failure = p.failure.unwrap();
        assert_eq!(
            failure.from, 2,
            "acknowledged writes 2 and 3 are not saved either"
        );
        assert!(
            matches!(failure.error, Error::ReadOnly { .. }),
            "the first failure stays"
        );
        assert_eq!(ledger.save_target(), None);
        assert!(ledger.settled());
    }
}
