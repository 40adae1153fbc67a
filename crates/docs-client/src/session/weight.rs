//! What a session's document weighs in memory, estimated, so that the registry can bound what
//! the sessions it keeps hold together (`SessionRegistry::with_memory_budget`) and not only
//! how many there are: a 50 000-block document weighs as much as two hundred small ones.
//!
//! yrs does not say what a document holds. The depth door counts the items of every update it
//! lets in — the stored content at the open, then each update of the room integrated and each
//! of our writes — and an item costs about [`ITEM_BYTES`] in yrs, besides its content, which
//! takes about the bytes it took in the update; a session costs [`SESSION_BYTES`] whatever its
//! document. The estimate only grows: with `skip_gc`, a deleted item stays an item.

use std::sync::atomic::{AtomicU64, Ordering};

/// What an item costs besides its content: its block, its place in its client's list, for a
/// type its branch and map, and what the typed read and the trackers keep of it. Measured with
/// `heaptrack` (`docs/benchmarks.md`): 20 sessions of 200 and of 1 000 blocks (2 400 and
/// 12 200 items) hold 1.15 and 4.3 MB each, ~290 B an item besides [`SESSION_BYTES`].
pub(super) const ITEM_BYTES: u64 = 300;

/// What a session holds whatever its document: its socket's buffers (grown to the largest
/// frame, a Step2), its tasks, its trackers' tables — ~0.36 MB in the same measure.
pub(super) const SESSION_BYTES: u64 = 384 << 10;

/// The estimate, in bytes, of a session's document.
#[derive(Debug)]
pub(super) struct Weight(AtomicU64);

impl Default for Weight {
    fn default() -> Self {
        Self(AtomicU64::new(SESSION_BYTES))
    }
}

impl Weight {
    /// The document took in `items` items, from an update of `bytes` bytes.
    pub(super) fn add(&self, items: usize, bytes: usize) {
        self.0
            .fetch_add(items as u64 * ITEM_BYTES + bytes as u64, Ordering::Relaxed);
    }

    pub(super) fn bytes(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}
