//! How deep Yjs content nests, measured without recursion, and the checks that keep a document
//! within what yrs can handle.
//!
//! yrs applies, encodes and drops arbitrarily deep content, but it deletes and garbage-collects
//! nested types recursively (`TransactionMut::delete` calls itself for every nested type,
//! about 290 bytes of stack a level; `Item::gc` likewise): deleting a subtree some 7 000
//! levels deep overflows a 2 MiB stack (tokio's default) and aborts the process, whether the
//! deletion is ours or comes in a collaborator's update. Content nested deeper than
//! [`MAX_YJS_DEPTH`] is therefore refused: an incoming update is checked before it is applied
//! ([`check_update_depth`]), the document after it ([`check_document_depth`]), and the model
//! never removes a node holding deeper content (`check_removable`).
//!
//! The session calls `check_update_depth` before applying the stored content (on a second thread,
//! while the content is decoded: see `session::load`) and `check_document_depth` after it. An
//! update of the room goes through [`update_types`] (the same door, which also lists the types
//! the update creates), and the document after it through [`check_depth_after`]: only new types
//! make a document deeper (Yjs moves nothing), so the levels above the topmost of them are
//! counted, not the whole document walked — a walk of 50 000 blocks on every update that adds
//! one. The door reads the update's structs as yrs
//! decodes them but past their contents, without building them (`raw_update::read_structs`, shared
//! with `yjs::contains_encoded`); a test checks that every kind of content is counted as yrs counts
//! it, since a miscount would move the clocks types are found by. A large update of the room the
//! document holds already (our own document, sent back by Hocuspocus once we pushed it:
//! `yjs::contains_encoded`) is neither decoded nor applied again. A document past the limit fails
//! to open, or ends its session, with `Error::TooDeep`.

use std::collections::HashMap;

use yrs::{ReadTxn, XmlElementRef, XmlFragment, XmlFragmentRef, XmlOut};

use super::error::{ModelError, ModelResult};
use crate::raw_update::{Id, Parent, Place, RawStruct, read_structs};

/// The deepest nesting of Yjs types a document may hold (a block at the model's nesting limit
/// sits about 130 levels deep, a block nested 250 times about 500). yrs's recursion over it
/// then stays near 300 KiB of stack even when an update nests that much again under it.
pub const MAX_YJS_DEPTH: usize = 512;

/// An id as the door keeps it: the client's index among the update's clients (see
/// [`Clients`]) and the clock. Half the size of an [`Id`]: the door keeps one or two per item of
/// an update, 120 000 of them in a 10 000-block document's state, in memory a fresh process
/// touches for the first time (each page of it a fault).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ref {
    client: u32,
    clock: u32,
}

/// The clients an update names (its own, and those of the parents and origins it points to),
/// each given a small index in the order met.
#[derive(Default)]
struct Clients {
    index: rustc_hash::FxHashMap<u64, u32>,
    ids: Vec<u64>,
    /// The last client looked up: an update's items mostly point to their own client.
    last: Option<(u64, u32)>,
}

impl Clients {
    fn intern(&mut self, client: u64) -> u32 {
        if let Some((id, at)) = self.last
            && id == client
        {
            return at;
        }
        let next = self.ids.len() as u32;
        let at = *self.index.entry(client).or_insert(next);
        if at == next {
            self.ids.push(client);
        }
        self.last = Some((client, at));
        at
    }

    fn reference(&mut self, (client, clock): Id) -> Ref {
        Ref {
            client: self.intern(client),
            clock,
        }
    }
}

/// Where an item's parent is, as the door keeps it ([`Parent`] with [`Ref`]s).
#[derive(Debug, Clone, Copy)]
enum ItemParent {
    Root,
    Type(Ref),
    SameAs(Ref),
}

/// One item of an update, as far as nesting goes.
#[derive(Debug)]
struct UpdateItem {
    id: Ref,
    parent: ItemParent,
    /// The item creates a type (XML element, text, map, array...).
    is_type: bool,
}

/// (first clock, length, item index) of one client's items.
type ClockRanges = Vec<(u32, u32, u32)>;

/// The items of an update and where each client's clocks map to them.
#[derive(Default)]
struct UpdateItems {
    items: Vec<UpdateItem>,
    clients: Clients,
    /// Per client (by its index): its items' clocks, by increasing clock.
    clocks: Vec<ClockRanges>,
}

impl UpdateItems {
    /// The item holding `id`, when the update has it.
    fn find(&self, id: Ref) -> Option<usize> {
        let ranges = self.clocks.get(id.client as usize)?;
        let i = ranges.partition_point(|(start, _, _)| *start <= id.clock);
        let (start, len, item) = *ranges.get(i.checked_sub(1)?)?;
        // (a malformed update may list a client's clocks out of order)
        let offset = id.clock.checked_sub(start)?;
        (offset < len).then_some(item as usize)
    }

    /// The id of the item at `index`, as yrs names it.
    fn id(&self, index: usize) -> yrs::ID {
        let Ref { client, clock } = self.items[index].id;
        yrs::ID::new(
            yrs::block::ClientID::new(self.clients.ids[client as usize]),
            clock,
        )
    }
}

fn malformed(e: impl std::fmt::Display) -> ModelError {
    ModelError::MalformedDocument {
        problem: format!("an update cannot be decoded: {e}"),
    }
}

/// Reads the structure of a v1 update (its items' parents and which create types), the way
/// yrs decodes it; the delete set that follows is not needed. Each client's items are reserved
/// for at once (its section says how many structs it holds): lists grown by doubling would
/// copy them, and touch twice the memory.
fn decode_items(
    update: &[u8],
    mut on_struct: impl FnMut(&Place, &RawStruct),
) -> ModelResult<UpdateItems> {
    let mut out = UpdateItems::default();
    read_structs(update, |place, raw| {
        on_struct(place, &raw);
        let &Place {
            client, clock, len, ..
        } = place;
        let RawStruct::Item {
            parent, is_type, ..
        } = raw
        else {
            return;
        };
        if len == 0 {
            return;
        }
        let at = out.clients.intern(client) as usize;
        if out.clocks.len() <= at {
            out.clocks.resize_with(at + 1, Vec::new);
        }
        let remaining = place.structs_left(update);
        out.clocks[at].reserve(remaining);
        out.items.reserve(remaining);
        out.clocks[at].push((clock, len, out.items.len() as u32));
        let parent = match parent {
            Parent::Root => ItemParent::Root,
            Parent::Type(id) => ItemParent::Type(out.clients.reference(id)),
            Parent::SameAs(id) => ItemParent::SameAs(out.clients.reference(id)),
        };
        out.items.push(UpdateItem {
            id: Ref {
                client: at as u32,
                clock,
            },
            parent,
            is_type,
        });
    })
    .map_err(malformed)?;
    Ok(out)
}

/// How deep the types an update creates nest among themselves, without the depth of the
/// document they attach to: 0 when the update creates no type (typing, formatting, deleting),
/// the full depth for a document's whole state. Parents given by an item of another client
/// that comes later in the update are resolved too.
fn nesting_within(items: &UpdateItems) -> usize {
    levels_within(items).1.into_iter().max().unwrap_or(0) as usize
}

/// In [`levels_within`]'s list of parents: an item whose parent is not resolved yet, and one
/// whose parent is outside the update.
const UNRESOLVED: u32 = u32::MAX;
const OUTSIDE: u32 = u32::MAX - 1;

/// For each item of the update: the type item of the update it sits in (`OUTSIDE`: its parent
/// is outside the update), and for a type item how many levels of the update's types it sits
/// under, itself included (1 for a type whose parent is outside; 0 for other items).
fn levels_within(items: &UpdateItems) -> (Vec<u32>, Vec<u32>) {
    let n = items.items.len();
    // Each item's parent type when the update holds it, resolved through origins iteratively:
    // an origin chain is as long as a run of siblings. Items on the walk are marked outside
    // until resolved, so a malformed update's cycle ends the walk.
    let mut parent: Vec<u32> = vec![UNRESOLVED; n];
    let mut chain = vec![];
    for start in 0..n {
        let mut at = start;
        let resolved = loop {
            if parent[at] != UNRESOLVED {
                break parent[at];
            }
            parent[at] = OUTSIDE;
            chain.push(at);
            match items.items[at].parent {
                ItemParent::Root => break OUTSIDE,
                ItemParent::Type(id) => {
                    break items
                        .find(id)
                        .filter(|&p| items.items[p].is_type)
                        .map_or(OUTSIDE, |p| p as u32);
                }
                ItemParent::SameAs(id) => match items.find(id) {
                    Some(next) => at = next,
                    None => break OUTSIDE,
                },
            }
        };
        for i in chain.drain(..) {
            parent[i] = resolved;
        }
    }
    // The depth of each type: one more than its parent type's, iteratively (0: not known yet;
    // a type met again on the same walk is a cycle, counted from there).
    let mut depth: Vec<u32> = vec![0; n];
    let mut on_path = vec![false; n];
    let mut path = vec![];
    for start in (0..n).filter(|&i| items.items[i].is_type) {
        let mut at = start as u32;
        let mut base = 0;
        while at != OUTSIDE {
            let i = at as usize;
            if depth[i] > 0 || on_path[i] {
                base = depth[i];
                break;
            }
            on_path[i] = true;
            path.push(i);
            at = parent[i];
        }
        for (k, i) in path.drain(..).rev().enumerate() {
            depth[i] = base + k as u32 + 1;
            on_path[i] = false;
        }
    }
    (parent, depth)
}

/// The types an update creates, as the checks after it is applied need them: for each, its
/// id, the topmost type of the update it hangs under (itself, when its parent is outside the
/// update), and how many of the update's levels it sits under. What can make a document deeper,
/// or give a block a second group or content, is one of them: the checks look at them and
/// their parents instead of walking the whole document.
#[derive(Debug, Default)]
pub struct UpdateTypes {
    /// (id, topmost's id, levels from that topmost down to it: 1 for a topmost).
    types: Vec<(yrs::ID, yrs::ID, usize)>,
    /// How many items the update holds, types or not: what it adds to a document's memory.
    items: usize,
}

impl UpdateTypes {
    /// Whether the update creates no type (typing, formatting, deleting).
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// The ids of the types created.
    pub fn ids(&self) -> impl Iterator<Item = yrs::ID> + '_ {
        self.types.iter().map(|(id, _, _)| *id)
    }

    /// How many items the update holds (types or not).
    pub fn items(&self) -> usize {
        self.items
    }

    /// Adds the types of another part of the same change.
    pub fn extend(&mut self, other: UpdateTypes) {
        self.types.extend(other.types);
        self.items += other.items;
    }
}

/// The types `update` creates, after the door's check ([`check_update_depth`]).
pub fn update_types(update: &[u8]) -> ModelResult<UpdateTypes> {
    let items = decode_items(update, |_, _| {})?;
    let (parent, depth) = levels_within(&items);
    too_deep(depth.iter().copied().max().unwrap_or(0) as usize)?;
    // The topmost of each type: found once per chain, going up from the deepest.
    let mut top: Vec<Option<usize>> = vec![None; items.items.len()];
    let mut order: Vec<usize> = (0..items.items.len())
        .filter(|&i| items.items[i].is_type)
        .collect();
    order.sort_by_key(|&i| depth[i]);
    for &i in &order {
        let above = (parent[i] != OUTSIDE).then(|| parent[i] as usize);
        top[i] = Some(above.and_then(|p| top[p]).unwrap_or(i));
    }
    Ok(UpdateTypes {
        items: items.items.len(),
        types: order
            .into_iter()
            .map(|i| {
                (
                    items.id(i),
                    items.id(top[i].unwrap_or(i)),
                    depth[i] as usize,
                )
            })
            .collect(),
    })
}

/// Refuses a document that, once `types` were applied to it, nests deeper than
/// [`MAX_YJS_DEPTH`]: what [`check_document_depth`] finds after them, from the levels above
/// the topmost of them alone (types are never moved: only new ones make a document deeper).
pub fn check_depth_after<T: ReadTxn>(txn: &T, types: &UpdateTypes) -> ModelResult<()> {
    let mut levels_above: HashMap<yrs::ID, usize> = HashMap::new();
    for &(_, top, depth) in &types.types {
        let above = *levels_above
            .entry(top)
            .or_insert_with(|| levels_above_type(txn, top));
        too_deep(above + depth)?;
    }
    Ok(())
}

/// How many XML levels hold the type `id` created, under the root fragment (0 for a child of
/// the fragment; 0 too for a type gone, or not in an XML tree); past [`MAX_YJS_DEPTH`] the count
/// stops.
fn levels_above_type<T: ReadTxn>(txn: &T, id: yrs::ID) -> usize {
    let Some(node) = xml_node(txn, id) else {
        return 0;
    };
    let mut above = 0;
    let mut parent = xml_parent(&node);
    while let Some(node) = parent {
        if let XmlOut::Fragment(fragment) = &node
            && fragment.parent().is_none()
        {
            break;
        }
        above += 1;
        if above > MAX_YJS_DEPTH {
            break;
        }
        parent = xml_parent(&node);
    }
    above
}

/// The XML node holding `node`.
pub(crate) fn xml_parent(node: &XmlOut) -> Option<XmlOut> {
    match node {
        XmlOut::Element(e) => yrs::Xml::parent(e),
        XmlOut::Text(t) => yrs::Xml::parent(t),
        XmlOut::Fragment(f) => f.parent(),
    }
}

/// The XML node the type `id` created is, when the document holds it.
pub(crate) fn xml_node<T: ReadTxn>(txn: &T, id: yrs::ID) -> Option<XmlOut> {
    let nested = yrs::StickyIndex::new(yrs::IndexScope::Nested(id), yrs::Assoc::After);
    XmlOut::try_from(nested.get_offset(txn)?.branch).ok()
}

/// Refuses a v1 update that nests types deeper than [`MAX_YJS_DEPTH`] among themselves, before
/// it is applied (yrs would overflow its stack deleting them, even within the same update).
/// Returns that depth: 0 when the update creates no type, so the document's depth cannot have
/// grown; otherwise check the document after applying it ([`check_document_depth`]).
pub fn check_update_depth(update: &[u8]) -> ModelResult<usize> {
    check_update_depth_with(update, |_, _| {}).map(|pass| pass.nesting)
}

/// [`check_update_depth`], telling `on_struct` each struct of the update and where it sits as
/// the door reads past it (the session cuts a large update in two on the way, and sees whether
/// it follows from nothing); also tells how many items the update holds.
pub(crate) fn check_update_depth_with(
    update: &[u8],
    on_struct: impl FnMut(&Place, &RawStruct),
) -> ModelResult<DoorPass> {
    let items = decode_items(update, on_struct)?;
    let nesting = nesting_within(&items);
    too_deep(nesting)?;
    Ok(DoorPass {
        nesting,
        items: items.items.len(),
    })
}

/// What the door found of an update it let in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DoorPass {
    /// How deep its types nest among themselves ([`check_update_depth`]).
    pub nesting: usize,
    /// How many items it holds.
    pub items: usize,
}

/// Refuses a document whose `document-store` nests deeper than [`MAX_YJS_DEPTH`]; such a
/// document must be dropped (dropping is safe) rather than edited.
pub fn check_document_depth<T: ReadTxn>(txn: &T, frag: &XmlFragmentRef) -> ModelResult<()> {
    let deepest = frag
        .children(txn)
        .map(|c| node_depth(txn, c, MAX_YJS_DEPTH))
        .max()
        .unwrap_or(0);
    too_deep(deepest)
}

/// Refuses to remove `node` when it holds content nested deeper than [`MAX_YJS_DEPTH`]: yrs
/// would overflow its stack deleting it.
pub(crate) fn check_removable<T: ReadTxn>(txn: &T, node: &XmlElementRef) -> ModelResult<()> {
    too_deep(node_depth(
        txn,
        XmlOut::Element(node.clone()),
        MAX_YJS_DEPTH,
    ))
}

fn too_deep(depth: usize) -> ModelResult<()> {
    if depth > MAX_YJS_DEPTH {
        return Err(ModelError::DocumentTooDeep {
            depth,
            limit: MAX_YJS_DEPTH,
        });
    }
    Ok(())
}

/// Levels of XML under and including `node` (1 for a leaf), counted iteratively; the walk
/// stops past `limit` and returns `limit + 1`.
pub(crate) fn node_depth<T: ReadTxn>(txn: &T, node: XmlOut, limit: usize) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(node, 1)];
    while let Some((n, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if depth > limit {
            return depth;
        }
        let children = match &n {
            XmlOut::Element(e) => e.children(txn),
            XmlOut::Fragment(f) => f.children(txn),
            XmlOut::Text(_) => continue,
        };
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    deepest
}
