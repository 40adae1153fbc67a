//! Revisions: a counter per live document that moves on every change, and for each block the
//! revision of its last change and who made it. An agent quotes the revision it read; a write
//! whose target block changed since is refused (STALE_REVISION) instead of overwriting what
//! a person just did, and `get_changes` lists what others changed since.
//!
//! A revision is `<epoch>-<counter>`: the epoch names one live session, so a revision from a
//! session that has since been closed is recognisably stale.
//!
//! A tracker walks the block ids as it attaches (only blockGroups and blockContainers, not what the
//! blocks hold) and reads no block: the first read of a document usually wants its first page.
//! `read_opening_async` reads a page from the start or from an outermost block alone (the whole
//! document's read when one is at hand at this revision; a page holding the whole document is kept
//! as its read), then reads the whole document off the answer's path for the calls that follow.
//!
//! `RecentReads` keeps the blocks of the last four documents read, each at its exact revision:
//! reads of an unchanged document, and plans on it, reuse them. A read after changes that stayed
//! inside some outermost blocks, or added some, reads those alone, found by their containers'
//! items, which the tracker keeps (`blocknote::reread_containers`, no walk of the document);
//! after other changes it reads the outermost blocks holding a change and moves the others from
//! the last read, matched in order (`blocknote::reread_document`: a block out of place makes it
//! read the whole document); a change no block owns makes it read the whole document. One read
//! at a time per document, so a read that comes while another is under way takes what it read.
//! `read` blocks; async code calls `read_async`. A plan reads before it takes its fork, so the
//! fork's blocks come from that read.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use docs_client::blocknote::{self, Block, Document};
use docs_client::{DOCUMENT_FRAGMENT, DocumentSession, LOCAL_ORIGIN};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use yrs::{DeepObservable, Doc, ID, Transact};

use crate::error::{ServiceError, ServiceResult};
use nodes::all_block_ids;

/// Who made a change, as far as this service can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeAuthor {
    /// An agent, through this service.
    Agent,
    /// Someone else in the document (a person in a browser, or another client).
    Others,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

/// One block's latest change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BlockChange {
    pub block_id: String,
    pub kind: ChangeKind,
    pub by: ChangeAuthor,
    /// The counter part of the revision at which it happened.
    #[serde(skip)]
    pub at: u64,
}

#[derive(Default)]
struct State {
    counter: u64,
    changes: HashMap<String, BlockChange>,
    known: HashSet<String>,
    /// The last revision with a change not told apart as some block's: a read of the blocks
    /// made before it is not reused (see [`RevisionTracker::read`]).
    unattributed_at: u64,
    /// The items of the outermost blocks' containers changed (inside, or added), each with
    /// the revision of its last change: a read after changes told this way only reads
    /// those blocks (`blocknote::reread_containers`).
    containers: FxHashMap<ID, u64>,
    /// The last revision with a change not told apart this way (an outermost block deleted
    /// or moved, a change outside the blocks, too many blocks).
    uncontained_at: u64,
}

/// How many documents' blocks [`RecentReads`] keeps.
const RECENT_DOCUMENTS: usize = 4;

/// The blocks last read of the few documents read most recently, shared by their trackers: a
/// read of an unchanged document reuses them, and memory stays bounded (the blocks of a
/// 1 000-block document take about 1 MiB; every open document keeping its own would add that
/// to each).
#[derive(Default)]
pub struct RecentReads {
    /// (tracker, revision counter, blocks), most recent first.
    entries: Mutex<VecDeque<(u64, u64, Arc<Document>)>>,
}

impl RecentReads {
    fn get(&self, tracker: u64, counter: u64) -> Option<Arc<Document>> {
        let entries = self.entries.lock().expect("recent reads");
        entries
            .iter()
            .find(|(t, c, _)| *t == tracker && *c == counter)
            .map(|(_, _, blocks)| blocks.clone())
    }

    /// Takes out the tracker's latest read, whatever its revision, and that revision.
    fn take_latest(&self, tracker: u64) -> Option<(u64, Arc<Document>)> {
        let mut entries = self.entries.lock().expect("recent reads");
        let at = entries.iter().position(|(t, _, _)| *t == tracker)?;
        entries.remove(at).map(|(_, c, blocks)| (c, blocks))
    }

    fn put(&self, tracker: u64, counter: u64, blocks: Arc<Document>) {
        let mut entries = self.entries.lock().expect("recent reads");
        entries.retain(|(t, _, _)| *t != tracker);
        entries.push_front((tracker, counter, blocks));
        entries.truncate(RECENT_DOCUMENTS);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().expect("recent reads").len()
    }
}

/// What [`RevisionTracker::read_opening_async`] read.
pub enum OpeningRead {
    /// The whole document, read at this revision already.
    Whole(Arc<Document>),
    /// The blocks asked for, and whether more follow them.
    Part(blocknote::Opening),
}

/// Tracks the changes of one live session's document.
pub struct RevisionTracker {
    /// Tells this tracker's entries apart in [`RecentReads`].
    key: u64,
    observer_key: String,
    epoch: String,
    state: Arc<Mutex<State>>,
    doc: Doc,
    fragment: yrs::XmlFragmentRef,
    recent: Arc<RecentReads>,
    /// Held through a read: a read that comes while another is under way waits for it and
    /// takes what it read, instead of reading the whole document (the first took the last
    /// read out of `recent`, to move its blocks).
    reading: Mutex<()>,
    /// The count of the last change made by others (people, other clients): a UI showing
    /// cards of this document checks them again when it moves.
    others: tokio::sync::watch::Sender<u64>,
    /// How many reads took only the outermost blocks changed.
    #[cfg(test)]
    spliced: std::sync::atomic::AtomicUsize,
}

const OBSERVER_KEY: &str = "lasuite-docs-mcp/revisions";

impl RevisionTracker {
    pub fn attach(session: &DocumentSession, recent: Arc<RecentReads>) -> Self {
        Self::of(session.doc().clone(), recent)
    }

    /// Tracks `doc` from now on, knowing the ids of its blocks. Their content is not read:
    /// the first read of a document follows its opening, and often wants only its first page.
    pub fn of(doc: Doc, recent: Arc<RecentReads>) -> Self {
        static NEXT_KEY: AtomicU64 = AtomicU64::new(0);
        let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        // Its own: a tracker dropped (one that lost a race to attach) ends only its own.
        let observer_key = format!("{OBSERVER_KEY}/{key}");
        let epoch = format!("{:08x}", rand::random::<u32>());
        let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
        let state = Arc::new(Mutex::new(State::default()));
        // The blocks known and the subscription under one read transaction: no change can
        // come between them.
        let txn = doc.transact();
        state.lock().expect("revision state").known = all_block_ids(&txn, &fragment);
        let observed = state.clone();
        let root = fragment.clone();
        let root_fragment = fragment.clone();
        let others = tokio::sync::watch::Sender::new(0);
        let told = others.clone();
        fragment.observe_deep(observer_key.clone(), move |txn, events| {
            let by = match txn.origin() {
                Some(origin) if origin.as_ref() == LOCAL_ORIGIN.as_bytes() => ChangeAuthor::Agent,
                _ => ChangeAuthor::Others,
            };
            let mut state = observed.lock().expect("revision state");
            state.counter += 1;
            let at = state.counter;
            if by == ChangeAuthor::Others {
                told.send_replace(at);
            }
            changes::record(&mut state, txn, events, &root, by, at);
        });
        drop(txn);
        RevisionTracker {
            key,
            observer_key,
            epoch,
            state,
            doc,
            fragment: root_fragment,
            recent,
            reading: Mutex::new(()),
            others,
            #[cfg(test)]
            spliced: Default::default(),
        }
    }

    /// Whether this tracker follows `doc` (and not the document of an earlier session).
    pub fn tracks(&self, doc: &Doc) -> bool {
        self.doc.client_id() == doc.client_id()
    }

    /// How many changes the document has seen in this session: equal counts mean nothing
    /// changed in between (deletions included, unlike a state vector).
    pub fn counter(&self) -> u64 {
        self.state.lock().expect("revision state").counter
    }

    /// The document's blocks and the revision they are exactly at (both taken in one read
    /// transaction, which no change can cross). Read again only when the document changed
    /// since the last read, and then only the blocks that changed since (the others are
    /// taken from that read): a person typing, or an agent's edit, costs the next read what
    /// changed, not the whole document. Blocking (it waits for the document's lock): async
    /// code calls [`read_async`](Self::read_async).
    pub fn read(&self) -> (String, Arc<Document>) {
        let reading = self.reading.lock().expect("reading");
        self.read_holding(reading)
    }

    /// [`read`](Self::read), by the one reader holding `reading`.
    fn read_holding(&self, _reading: std::sync::MutexGuard<'_, ()>) -> (String, Arc<Document>) {
        let txn = self.doc.transact();
        if let Some(read) = self.read_already() {
            return read;
        }
        let counter = self.counter();
        let revision = self.revision_at(counter);
        let blocks = Arc::new(match self.recent.take_latest(self.key) {
            Some((at, previous)) => self.reread(&txn, at, previous),
            None => blocknote::read_document(&txn, &self.fragment),
        });
        self.recent.put(self.key, counter, blocks.clone());
        (revision, blocks)
    }

    /// What [`read`](Self::read) gives, without a runtime worker ever waiting for the
    /// document's lock: a change waiting for it holds back new readers until it is applied,
    /// on a worker (the session's), and a worker waiting to read may be the one it needs:
    /// the service would stop. Blocks already read at the current revision are taken without
    /// the lock; otherwise the document is read on the blocking pool.
    pub async fn read_async(self: &Arc<Self>) -> ServiceResult<(String, Arc<Document>)> {
        if let Some(read) = self.read_already() {
            return Ok(read);
        }
        let tracker = self.clone();
        tokio::task::spawn_blocking(move || tracker.read())
            .await
            .map_err(|e| ServiceError::Internal(format!("reading the document: {e}")))
    }

    /// The outermost blocks from the one with id `from` (the first when `None`) on, until
    /// `enough` is true of the last one read (see [`blocknote::read_opening`]), and the
    /// revision they are at; the whole document when it was read at this revision already.
    /// `None` when `from` is not an outermost block. A first page of a large document costs
    /// what the page holds; the whole document is read after it, off the answer's path, for
    /// the calls that follow (other pages, the outline, an edit's plan).
    pub async fn read_opening_async(
        self: &Arc<Self>,
        from: Option<String>,
        enough: impl FnMut(&Block) -> bool + Send + 'static,
    ) -> ServiceResult<Option<(String, OpeningRead)>> {
        if let Some((revision, blocks)) = self.read_already() {
            return Ok(Some((revision, OpeningRead::Whole(blocks))));
        }
        let tracker = self.clone();
        let read = tokio::task::spawn_blocking(move || {
            let txn = tracker.doc.transact();
            let counter = tracker.counter();
            let whole = from.is_none();
            let opening =
                blocknote::read_opening(&txn, &tracker.fragment, from.as_deref(), enough)?;
            let read = if whole && !opening.more {
                let blocks = Arc::new(opening.document);
                tracker.recent.put(tracker.key, counter, blocks.clone());
                OpeningRead::Whole(blocks)
            } else {
                OpeningRead::Part(opening)
            };
            Some((tracker.revision_at(counter), read))
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("reading the document: {e}")))?;
        if let Some((_, OpeningRead::Part(_))) = &read {
            self.read_in_background();
        }
        Ok(read)
    }

    /// Reads the whole document on the blocking pool, for the calls to come, unless a read is
    /// under way: its blocks are what they will take (or what a read after will move), and a
    /// second read would only wait for it, holding one of the pool's few threads — which the
    /// answers to the agent, written to stdout, may be waiting for.
    fn read_in_background(self: &Arc<Self>) {
        let tracker = self.clone();
        drop(tokio::task::spawn_blocking(move || {
            if let Ok(reading) = tracker.reading.try_lock() {
                tracker.read_holding(reading);
            }
        }));
    }

    /// The blocks at the current revision when they were read already, taken without the
    /// document's lock: the counter moves inside the transaction of each change, so they are
    /// the document as it was before a change under way, or after it.
    fn read_already(&self) -> Option<(String, Arc<Document>)> {
        let counter = self.counter();
        let blocks = self.recent.get(self.key, counter)?;
        Some((self.revision_at(counter), blocks))
    }

    /// The document read again at the state of `txn`, after `previous`, its read at the
    /// revision counter `at`: only the outermost blocks changed since when every change
    /// since is told by them, else only the blocks changed when every change since is some
    /// block's (the others moved from `previous`), else whole.
    fn reread(&self, txn: &yrs::Transaction, at: u64, previous: Arc<Document>) -> Document {
        let previous = match self.containers_changed_since(at) {
            Some(items) => {
                let previous = Arc::unwrap_or_clone(previous);
                match blocknote::reread_containers(txn, &self.fragment, previous, &items) {
                    Ok(document) => {
                        #[cfg(test)]
                        self.spliced.fetch_add(1, Ordering::Relaxed);
                        return document;
                    }
                    Err(previous) => Arc::new(previous),
                }
            }
            None => previous,
        };
        match self.blocks_changed_since(at) {
            // Its blocks are moved when no one else holds it (the usual case: it was taken
            // out of the recent reads, to be replaced by this read), else copied.
            Some(changed) => blocknote::reread_document(
                txn,
                &self.fragment,
                Arc::unwrap_or_clone(previous),
                |id| changed.contains(id),
            ),
            None => blocknote::read_document(txn, &self.fragment),
        }
    }

    /// The outermost blocks' containers changed since the revision counter `at`, when every
    /// change since is told by them. Call it inside a read transaction, for the read that
    /// follows: what it needs is taken, and no later read needs what came before it.
    fn containers_changed_since(&self, at: u64) -> Option<Vec<ID>> {
        let mut state = self.state.lock().expect("revision state");
        let items = (state.uncontained_at <= at).then(|| {
            state
                .containers
                .iter()
                .filter(|(_, changed)| **changed > at)
                .map(|(item, _)| *item)
                .collect()
        });
        state.containers.clear();
        items
    }

    /// The ids of the blocks changed since the revision counter `at`, when every change
    /// since is some block's. Call it inside a read transaction: the changes are those up to
    /// its state. The ids are hashed fast: a read again asks the set of every block.
    fn blocks_changed_since(&self, at: u64) -> Option<FxHashSet<String>> {
        let state = self.state.lock().expect("revision state");
        (state.unattributed_at <= at).then(|| {
            state
                .changes
                .values()
                .filter(|c| c.at > at)
                .map(|c| c.block_id.clone())
                .collect()
        })
    }

    /// The blocks as last read at `counter`, if they are still at hand.
    pub fn blocks_at(&self, counter: u64) -> Option<Arc<Document>> {
        self.recent.get(self.key, counter)
    }

    /// The current revision.
    /// Moves whenever others change the document; closed when the tracker goes.
    pub fn others_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.others.subscribe()
    }

    pub fn revision(&self) -> String {
        self.revision_at(self.counter())
    }

    fn revision_at(&self, counter: u64) -> String {
        format!("{}-{counter}", self.epoch)
    }

    /// The counter of a revision of this session; `None` when it is not one of ours.
    fn counter_of(&self, revision: &str) -> Option<u64> {
        let (epoch, counter) = revision.trim().split_once('-')?;
        if epoch != self.epoch {
            return None;
        }
        counter.parse().ok()
    }

    /// Whether the revision was handed out by this session (else it predates it).
    pub fn knows(&self, revision: &str) -> bool {
        self.counter_of(revision)
            .is_some_and(|c| c <= self.state.lock().expect("revision state").counter)
    }

    /// The first of `blocks` that changed after `revision`, with its change. A revision this
    /// session did not hand out counts as changed for every block.
    pub fn changed_since(
        &self,
        revision: &str,
        blocks: &[String],
    ) -> Option<(String, BlockChange)> {
        let state = self.state.lock().expect("revision state");
        let since = match self.counter_of(revision) {
            Some(c) if c <= state.counter => c,
            _ => {
                let id = blocks.first()?.clone();
                return Some((
                    id.clone(),
                    BlockChange {
                        block_id: id,
                        kind: ChangeKind::Modified,
                        by: ChangeAuthor::Others,
                        at: state.counter,
                    },
                ));
            }
        };
        blocks.iter().find_map(|id| {
            state
                .changes
                .get(id)
                .filter(|c| c.at > since)
                .map(|c| (id.clone(), c.clone()))
        })
    }

    /// The latest change of a block this session saw, if any.
    pub fn last_change(&self, block_id: &str) -> Option<BlockChange> {
        self.state
            .lock()
            .expect("revision state")
            .changes
            .get(block_id)
            .cloned()
    }

    /// Every block changed after `revision`, oldest change first; `None` when the revision is
    /// not one of this session's.
    pub fn changes_since(&self, revision: &str) -> Option<Vec<BlockChange>> {
        let state = self.state.lock().expect("revision state");
        let since = self.counter_of(revision).filter(|c| *c <= state.counter)?;
        let mut changes: Vec<BlockChange> = state
            .changes
            .values()
            .filter(|c| c.at > since)
            .cloned()
            .collect();
        changes.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.block_id.cmp(&b.block_id)));
        Some(changes)
    }
}

impl Drop for RevisionTracker {
    fn drop(&mut self) {
        self.fragment.unobserve_deep(self.observer_key.clone());
    }
}

mod added;
mod changes;
mod nodes;
#[cfg(test)]
mod tests;
