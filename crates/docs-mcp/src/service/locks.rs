//! One lock per document: planning and merging an edit of a document happen one at a time,
//! so no two edits are planned from the same state and merged on top of each other. Edits of
//! different documents never wait for each other. Entries are dropped once unused, so the
//! map holds only documents being worked on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};
use uuid::Uuid;

#[derive(Default)]
pub struct DocumentLocks {
    locks: Mutex<HashMap<Uuid, Arc<AsyncMutex<()>>>>,
}

/// Holds a document's lock; dropping it lets the next waiter in (FIFO).
pub struct DocumentGuard<'a> {
    guard: Option<OwnedMutexGuard<()>>,
    document: Uuid,
    locks: &'a DocumentLocks,
}

impl DocumentLocks {
    pub async fn lock(&self, document: Uuid) -> DocumentGuard<'_> {
        let lock = self
            .locks
            .lock()
            .expect("document locks")
            .entry(document)
            .or_default()
            .clone();
        DocumentGuard {
            guard: Some(lock.lock_owned().await),
            document,
            locks: self,
        }
    }

    /// How many wait for `document`'s lock while it is held: tests wait for a caller to be
    /// queued on it, an event, rather than for time to pass.
    #[cfg(test)]
    pub(super) fn waiting(&self, document: Uuid) -> usize {
        // The map's reference and the holder's, then one per waiter.
        self.locks
            .lock()
            .expect("document locks")
            .get(&document)
            .map_or(0, |lock| Arc::strong_count(lock).saturating_sub(2))
    }

    /// Returns once `count` callers wait for `document`'s lock (panics after 10 s).
    #[cfg(test)]
    pub(super) async fn until_waiting(&self, document: Uuid, count: usize) {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        while self.waiting(document) < count {
            assert!(
                tokio::time::Instant::now() < deadline,
                "nobody came to wait for the lock of {document}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.locks.lock().expect("document locks").len()
    }
}

impl Drop for DocumentGuard<'_> {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut locks = self.locks.locks.lock().expect("document locks");
        // Nobody holds or waits for it (the map's own reference is the only one): forget it.
        if locks
            .get(&self.document)
            .is_some_and(|lock| Arc::strong_count(lock) == 1)
        {
            locks.remove(&self.document);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_document_waits_others_do_not_and_unused_locks_are_forgotten() {
        let locks = Arc::new(DocumentLocks::default());
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let held = locks.lock(a).await;
        // Another document goes ahead.
        drop(locks.lock(b).await);
        // The same document waits.
        let waiter = {
            let locks = locks.clone();
            tokio::spawn(async move {
                let _g = locks.lock(a).await;
            })
        };
        locks.until_waiting(a, 1).await;
        assert!(!waiter.is_finished());
        drop(held);
        waiter.await.unwrap();
        assert_eq!(locks.len(), 0);
    }
}
