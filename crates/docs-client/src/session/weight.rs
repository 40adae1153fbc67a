//! What a session's document weighs in memory, estimated, so that the registry can bound what
//! the sessions it keeps hold together (`SessionRegistry::with_memory_budget`) and not only
//! how many there are: a 50 000-block document weighs as much as two hundred small ones.
//!
//! yrs does not say what a document holds. The depth door counts the items of every update it
//! lets in — the stored content at the open, then each update of the room integrated and each
//! of our writes — and an item costs about [`ITEM_BYTES`] in yrs, besides its content, which
//! takes about the bytes it took in the update. The estimate only grows: with `skip_gc`, a
//! deleted item stays an item.

use std::sync::atomic::{AtomicU64, Ordering};

/// What an item costs in yrs besides its content: its block, its place in its client's list,
/// and for a type its branch (measured: a 1 000-paragraph document of 23 600 items holds 4 MiB
/// in yrs, `heaptrack`, `docs/benchmarks.md`).
pub(super) const ITEM_BYTES: u64 = 160;

/// The estimate, in bytes, of a session's document.
#[derive(Debug, Default)]
pub(super) struct Weight(AtomicU64);

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
