//! Updates held back until what they follow has arrived, as Yjs 13 holds them: yrs never sees
//! a struct past a gap in its client's clocks, nor one whose neighbours or parent it lacks, nor
//! a deletion of clocks it does not have.
//!
//! yrs 0.28.1 integrates a struct past a gap behind a `Skip` it writes into its own store, and
//! panics (`BlockStore::push`, an underflow) when a struct filling the gap runs past it; it
//! panics too when a deletion meets structs it keeps aside (the convergence test's
//! `yrs-pending-gc-panic` fixture). Gaps are what a Yjs 14 browser accepting suggestions out
//! of order sends, and what a Yjs 13 browser saves when it holds such structs itself. Split
//! here at the first struct that cannot be integrated yet, an update goes to yrs in two
//! parts: what it can integrate whole now, and what is held until it can. The held parts are
//! still part of the document for whoever reads it whole: merged into what is saved and what
//! the room is sent ([`OutOfOrder::with_held`]), as Yjs 13 merges its pending structs into
//! `encodeStateAsUpdate`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use yrs::block::ClientID;
use yrs::encoding::write::Write;
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{IdSet, StateVector};

use crate::raw_update::{Id, Parent, Place, RawResult, RawStruct, read_structs};

/// The most held back at once, in bytes: past it the session ends (the document is opened
/// afresh from what Docs stores).
pub const MAX_HELD_BYTES: usize = 32 * 1024 * 1024;
/// Held updates past this count are merged into one.
const MERGE_FROM_UPDATES: usize = 64;

/// Why an update cannot be admitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NotAdmitted {
    #[error("the update cannot be read: {0}")]
    Unreadable(String),
    #[error(
        "{bytes} bytes of updates wait for clocks the document lacks, more than the {limit} held at most"
    )]
    TooMuchHeld { bytes: usize, limit: usize },
}

/// The updates, or parts of updates, a document cannot integrate yet.
#[derive(Debug, Clone)]
pub struct OutOfOrder {
    held: Vec<Vec<u8>>,
    /// [`MAX_HELD_BYTES`], but in tests.
    limit: usize,
}

impl Default for OutOfOrder {
    fn default() -> Self {
        Self::new()
    }
}

impl OutOfOrder {
    pub fn new() -> Self {
        OutOfOrder {
            held: Vec::new(),
            limit: MAX_HELD_BYTES,
        }
    }

    /// Splits `update` for a document whose state vector is `state`. Returns, in the order to
    /// integrate them, what the document can integrate whole now: the part of `update` it can,
    /// then what was held that the part makes integrable. The rest is held. An update with
    /// nothing to hold comes back as it is.
    pub fn admit<'a>(
        &mut self,
        state: &StateVector,
        update: &'a [u8],
    ) -> Result<Vec<Cow<'a, [u8]>>, NotAdmitted> {
        if self.held.is_empty() {
            let mut follows = FromNothing::following(state);
            read_structs(update, |place, raw| follows.struct_read(place, &raw))
                .map_err(NotAdmitted::Unreadable)?;
            if follows.follows(update) {
                return Ok(vec![Cow::Borrowed(update)]);
            }
        }
        let mut known: HashMap<u64, u32> = state.iter().map(|(c, k)| (c.get(), *k)).collect();
        let mut ready = Vec::new();
        let cut = split(update, &mut known).map_err(NotAdmitted::Unreadable)?;
        let mut advanced = false;
        if let Some(part) = cut.ready {
            advanced = part.structs;
            ready.push(if part.whole {
                Cow::Borrowed(update)
            } else {
                Cow::Owned(part.bytes)
            });
        }
        self.held.extend(cut.held);
        // What was held may follow what was just admitted: tried again while that advances.
        while advanced && !self.held.is_empty() {
            advanced = false;
            for held in std::mem::take(&mut self.held) {
                let cut = split(&held, &mut known).map_err(NotAdmitted::Unreadable)?;
                if let Some(part) = cut.ready {
                    advanced |= part.structs;
                    ready.push(Cow::Owned(if part.whole { held } else { part.bytes }));
                }
                self.held.extend(cut.held);
            }
        }
        self.bound()?;
        Ok(ready)
    }

    /// Keeps the held updates few (merged) and bounded in bytes.
    fn bound(&mut self) -> Result<(), NotAdmitted> {
        if self.held.len() > MERGE_FROM_UPDATES
            && let Ok(merged) = yrs::merge_updates_v1(&self.held)
        {
            self.held = vec![merged];
        }
        let bytes = self.held_bytes();
        if bytes > self.limit {
            return Err(NotAdmitted::TooMuchHeld {
                bytes,
                limit: self.limit,
            });
        }
        Ok(())
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    pub fn held_bytes(&self) -> usize {
        self.held.iter().map(Vec::len).sum()
    }

    /// The clocks held, per client, for a report.
    pub fn held_clocks(&self) -> HeldClocks {
        let update = yrs::merge_updates_v1(&self.held)
            .ok()
            .and_then(|merged| yrs::Update::decode_v1(&merged).ok())
            .unwrap_or_default();
        let clocks = |set: &IdSet| {
            set.iter()
                .map(|(client, ranges)| (client.get(), ranges.iter().cloned().collect()))
                .collect()
        };
        HeldClocks {
            inserted: clocks(&update.insertions(true)),
            deleted: clocks(update.delete_set()),
        }
    }

    /// `update` (a document's state, or a diff of it) with what is held merged in: what a
    /// reader of the whole document must be given, held parts included.
    pub fn with_held(&self, update: Vec<u8>) -> Vec<u8> {
        if self.held.is_empty() {
            return update;
        }
        let all = std::iter::once(update.as_slice()).chain(self.held.iter().map(Vec::as_slice));
        // (each part was read before: merging them cannot fail short of a yrs fault, and then
        // the document alone is given, as it was before anything was held)
        yrs::merge_updates_v1(all).unwrap_or(update)
    }
}

/// The clocks of what is held, per client: what it inserts, and what it deletes.
#[derive(Debug, Default, PartialEq)]
pub struct HeldClocks {
    pub inserted: Vec<(u64, Vec<Range<u32>>)>,
    pub deleted: Vec<(u64, Vec<Range<u32>>)>,
}

/// Whether an update, told its structs one by one as they are read, follows a state: every
/// client's clocks on from the state's without a gap, every neighbour or parent an item names
/// in the state or among them, every deletion too. Almost every update does (unless a Yjs 14
/// browser sent it past a gap, or a browser saved what it held aside); then it needs no split.
/// A document's stored state is told so by the door that reads it anyway
/// ([`FromNothing::default`]); a room's update, by a reading of its own, cheaper than a split.
#[derive(Debug, Default)]
pub(crate) struct FromNothing {
    /// Per client, the clock after its last struct (or the state's).
    ends: HashMap<u64, u32>,
    /// Per client, the clock after the last one an item needs.
    needs: HashMap<u64, u32>,
    gap: bool,
    /// Where the structs end (the deletions start), once one was told.
    structs_end: Option<usize>,
}

impl FromNothing {
    /// Following `state`, not from nothing.
    fn following(state: &StateVector) -> Self {
        FromNothing {
            ends: state.iter().map(|(c, k)| (c.get(), *k)).collect(),
            ..Self::default()
        }
    }

    pub(crate) fn struct_read(&mut self, place: &Place, raw: &RawStruct) {
        let end = self.ends.entry(place.client).or_default();
        self.gap |= place.clock > *end || matches!(raw, RawStruct::Skip);
        *end = (*end).max(place.clock.saturating_add(place.len));
        self.structs_end = Some(place.end);
        if let RawStruct::Item {
            parent,
            origin,
            right_origin,
            ..
        } = raw
        {
            let parent = match parent {
                Parent::Type(id) => Some(*id),
                Parent::Root | Parent::SameAs(_) => None,
            };
            for (client, clock) in [*origin, *right_origin, parent].into_iter().flatten() {
                let need = self.needs.entry(client).or_default();
                *need = (*need).max(clock.saturating_add(1));
            }
        }
    }

    /// Whether `update`, whose structs were told, follows from nothing.
    pub(crate) fn follows(&self, update: &[u8]) -> bool {
        let within = |client: u64, end: u32| self.ends.get(&client).is_some_and(|&e| end <= e);
        // (with no struct, the deletions follow the count of sections, 0: one byte)
        let structs_end = self.structs_end.unwrap_or(1).min(update.len());
        let mut decoder = yrs::updates::decoder::DecoderV1::new(yrs::encoding::read::Cursor::new(
            &update[structs_end..],
        ));
        !self.gap
            && self.needs.iter().all(|(&client, &end)| within(client, end))
            && IdSet::decode(&mut decoder).is_ok_and(|deleted| {
                deleted.iter().all(|(client, ranges)| {
                    ranges
                        .iter()
                        .next_back()
                        .is_none_or(|last| within(client.get(), last.end))
                })
            })
    }
}

/// One part of a split update.
struct Part {
    bytes: Vec<u8>,
    /// The part is the whole update (its bytes then left empty: the caller has them).
    whole: bool,
    /// It holds structs (else deletions only).
    structs: bool,
}

struct Split {
    ready: Option<Part>,
    held: Option<Vec<u8>>,
}

/// A struct of a section, as far as splitting goes.
struct Struct {
    clock: u32,
    len: u32,
    /// Its first byte and the byte after it.
    start: usize,
    end: usize,
    skip: bool,
    /// The ids it needs the document to hold: its neighbours when inserted, its parent.
    needs: [Option<Id>; 3],
}

struct Section {
    client: u64,
    structs: Vec<Struct>,
    /// How many of its first structs are ready.
    ready: usize,
}

/// Splits `update` for a document holding, per client, the clocks below `known`; `known` is
/// then raised by what the ready part inserts.
fn split(update: &[u8], known: &mut HashMap<u64, u32>) -> RawResult<Split> {
    let mut sections: Vec<Section> = Vec::new();
    let mut decoder = read_structs(update, |place, raw| {
        if place.index == 0 {
            sections.push(Section {
                client: place.client,
                structs: Vec::with_capacity(place.structs_left(update)),
                ready: 0,
            });
        }
        let section = sections.last_mut().expect("pushed at its first struct");
        let start = section.structs.last().map_or(place.structs_at, |s| s.end);
        let (skip, needs) = match raw {
            RawStruct::Skip => (true, [None; 3]),
            RawStruct::Gc => (false, [None; 3]),
            RawStruct::Item {
                parent,
                origin,
                right_origin,
                ..
            } => {
                let parent = match parent {
                    Parent::Type(id) => Some(id),
                    Parent::Root | Parent::SameAs(_) => None,
                };
                (false, [origin, right_origin, parent])
            }
        };
        section.structs.push(Struct {
            clock: place.clock,
            len: place.len,
            start,
            end: place.end,
            skip,
            needs,
        });
    })?;
    let deleted = IdSet::decode(&mut decoder).map_err(|e| e.to_string())?;

    // Each section's structs that follow the document's clocks without a gap...
    for section in &mut sections {
        let mut next = known.get(&section.client).copied().unwrap_or(0);
        section.ready = section
            .structs
            .iter()
            .take_while(|s| {
                let follows = s.clock <= next && !(s.skip && s.clock + s.len > next);
                next = next.max(s.clock + s.len);
                follows
            })
            .count();
    }
    // ... cut short at the first whose needs are neither in the document nor in what is ready.
    let reach = |sections: &[Section]| {
        let mut reach = known.clone();
        for section in sections {
            if let Some(last) = section.structs[..section.ready].last() {
                let end = reach.entry(section.client).or_default();
                *end = (*end).max(last.clock + last.len);
            }
        }
        reach
    };
    let mut reached = reach(&sections);
    loop {
        let mut cut = false;
        for section in &mut sections {
            let had = known.get(&section.client).copied().unwrap_or(0);
            let missing = section.structs[..section.ready].iter().position(|s| {
                s.clock + s.len > had
                    && s.needs
                        .iter()
                        .flatten()
                        .any(|&(client, clock)| reached.get(&client).is_none_or(|&k| clock >= k))
            });
            if let Some(first) = missing {
                section.ready = first;
                cut = true;
            }
        }
        if !cut {
            break;
        }
        reached = reach(&sections);
    }

    // Deletions of clocks the document will hold are ready; of others, held.
    let (mut deleted_ready, mut deleted_held) = (Vec::new(), Vec::new());
    for (client, ranges) in deleted.iter() {
        let reach = reached.get(&client.get()).copied().unwrap_or(0);
        let (mut ready, mut held) = (Vec::new(), Vec::new());
        for range in ranges.iter() {
            if range.start < reach {
                ready.push(range.start..range.end.min(reach));
            }
            if range.end > reach {
                held.push(range.start.max(reach)..range.end);
            }
        }
        if !ready.is_empty() {
            deleted_ready.push((*client, ready));
        }
        if !held.is_empty() {
            deleted_held.push((*client, held));
        }
    }
    *known = reached;

    let all_ready = sections.iter().all(|s| s.ready == s.structs.len());
    let structs_ready = sections.iter().any(|s| s.ready > 0);
    if all_ready && deleted_held.is_empty() {
        return Ok(Split {
            ready: Some(Part {
                bytes: Vec::new(),
                whole: true,
                structs: structs_ready,
            }),
            held: None,
        });
    }
    let ready = (structs_ready || !deleted_ready.is_empty()).then(|| Part {
        bytes: encode(
            update,
            sections
                .iter()
                .filter(|s| s.ready > 0)
                .map(|s| (s.client, &s.structs[..s.ready])),
            &deleted_ready,
        ),
        whole: false,
        structs: structs_ready,
    });
    // A held section starts at its first struct that is not a gap.
    let held_sections: Vec<(u64, &[Struct])> = sections
        .iter()
        .filter_map(|s| {
            let first = s.ready + s.structs[s.ready..].iter().position(|s| !s.skip)?;
            Some((s.client, &s.structs[first..]))
        })
        .collect();
    let held = (!held_sections.is_empty() || !deleted_held.is_empty())
        .then(|| encode(update, held_sections.into_iter(), &deleted_held));
    Ok(Split { ready, held })
}

/// A v1 update of runs of `update`'s structs, each run consecutive structs of one client's
/// section (copied as they are: a struct's bytes do not depend on its clock, which the
/// section's header gives), then `deleted`.
fn encode<'a>(
    update: &[u8],
    runs: impl Iterator<Item = (u64, &'a [Struct])>,
    deleted: &[(ClientID, Vec<Range<u32>>)],
) -> Vec<u8> {
    let runs: Vec<_> = runs.collect();
    let mut out = Vec::new();
    out.write_var(runs.len() as u64);
    for (client, structs) in runs {
        let (first, last) = (&structs[0], &structs[structs.len() - 1]);
        out.write_var(structs.len() as u64);
        out.write_var(client);
        out.write_var(first.clock);
        out.extend_from_slice(&update[first.start..last.end]);
    }
    let deleted = IdSet::from_iter(deleted.iter().cloned());
    out.extend_from_slice(&deleted.encode_v1());
    out
}

#[cfg(test)]
mod tests;
