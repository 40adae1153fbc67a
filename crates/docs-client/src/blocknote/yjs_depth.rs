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

use std::collections::HashMap;

use yrs::block::ItemContent;
use yrs::encoding::read::{Cursor, Read};
use yrs::updates::decoder::{Decode, Decoder, DecoderV1};
use yrs::{ReadTxn, XmlElementRef, XmlFragment, XmlFragmentRef, XmlOut};

use super::error::{ModelError, ModelResult};

/// The deepest nesting of Yjs types a document may hold (a block at the model's nesting limit
/// sits about 130 levels deep, a block nested 250 times about 500). yrs's recursion over it
/// then stays near 300 KiB of stack even when an update nests that much again under it.
pub const MAX_YJS_DEPTH: usize = 512;

const GC_REF: u8 = 0;
const SKIP_REF: u8 = 10;
const CONTENT_DELETED: u8 = 1;
const CONTENT_STRING: u8 = 4;
const CONTENT_FORMAT: u8 = 6;
const CONTENT_TYPE: u8 = 7;
const CONTENT_ANY: u8 = 8;
const TYPE_XML_ELEMENT: u8 = 3;
const HAS_ORIGIN: u8 = 0b1000_0000;
const HAS_RIGHT_ORIGIN: u8 = 0b0100_0000;
const HAS_PARENT_SUB: u8 = 0b0010_0000;

/// An item's id: client and clock, read as plain numbers (yrs's `ClientID` asserts, in debug
/// builds, that a client id fits 53 bits: not for the door to panic on).
type Id = (u64, u32);

/// Where an update's item says its parent is.
#[derive(Debug, Clone, Copy)]
enum Parent {
    /// A root type.
    Root,
    /// The type created by the item with this id (in the update or in the document).
    Type(Id),
    /// The parent of the item with this id, next to which the item was inserted (its origin).
    SameAs(Id),
}

/// One item of an update, as far as nesting goes.
#[derive(Debug)]
struct UpdateItem {
    parent: Parent,
    /// The item creates a type (XML element, text, map, array...).
    is_type: bool,
}

/// (first clock, length, item index) of one client's items.
type ClockRanges = Vec<(u32, u32, usize)>;

/// The items of an update and where each client's clocks map to them.
#[derive(Default)]
struct UpdateItems {
    items: Vec<UpdateItem>,
    /// Per client: its items' clocks, by increasing clock.
    clocks: HashMap<u64, ClockRanges>,
}

impl UpdateItems {
    /// The item holding `id`, when the update has it.
    fn find(&self, &(client, clock): &Id) -> Option<usize> {
        let ranges = self.clocks.get(&client)?;
        let i = ranges.partition_point(|(start, _, _)| *start <= clock);
        let (start, len, item) = *ranges.get(i.checked_sub(1)?)?;
        // (a malformed update may list a client's clocks out of order)
        let offset = clock.checked_sub(start)?;
        (offset < len).then_some(item)
    }
}

fn malformed(e: impl std::fmt::Display) -> ModelError {
    ModelError::MalformedDocument {
        problem: format!("an update cannot be decoded: {e}"),
    }
}

fn read_id(decoder: &mut DecoderV1) -> ModelResult<Id> {
    Ok((
        decoder.read_var().map_err(malformed)?,
        decoder.read_var().map_err(malformed)?,
    ))
}

/// One struct of a v1 update, as far as a raw reading of it goes.
enum RawStruct {
    Item {
        parent: Parent,
        is_type: bool,
    },
    /// Garbage-collected content: clocks inserted, then deleted.
    Gc,
    /// A gap in the clocks.
    Skip,
}

/// Reads the structs of a v1 update the way yrs decodes them, without building their
/// contents: `each` gets each struct with its client, first clock and length. Returns the
/// decoder where the delete set starts.
fn read_structs<'a>(
    update: &'a [u8],
    mut each: impl FnMut(u64, u32, u32, RawStruct),
) -> ModelResult<DecoderV1<'a>> {
    let mut decoder = DecoderV1::new(Cursor::new(update));
    let clients: u32 = decoder.read_var().map_err(malformed)?;
    for _ in 0..clients {
        let structs: u32 = decoder.read_var().map_err(malformed)?;
        let client: u64 = decoder.read_var().map_err(malformed)?;
        let mut clock: u32 = decoder.read_var().map_err(malformed)?;
        for _ in 0..structs {
            let info = decoder.read_info().map_err(malformed)?;
            let (len, raw) = match info {
                SKIP_REF => (
                    decoder.read_var::<u32>().map_err(malformed)?,
                    RawStruct::Skip,
                ),
                GC_REF => (decoder.read_len().map_err(malformed)?, RawStruct::Gc),
                _ => {
                    let origin = if info & HAS_ORIGIN != 0 {
                        Some(read_id(&mut decoder)?)
                    } else {
                        None
                    };
                    let right_origin = if info & HAS_RIGHT_ORIGIN != 0 {
                        Some(read_id(&mut decoder)?)
                    } else {
                        None
                    };
                    let parent = match origin.or(right_origin) {
                        Some(next_to) => Parent::SameAs(next_to),
                        None => {
                            let parent = if decoder.read_parent_info().map_err(malformed)? {
                                decoder.read_string().map_err(malformed)?;
                                Parent::Root
                            } else {
                                Parent::Type(read_id(&mut decoder)?)
                            };
                            if info & HAS_PARENT_SUB != 0 {
                                decoder.read_string().map_err(malformed)?;
                            }
                            parent
                        }
                    };
                    let (len, is_type) = skip_content(&mut decoder, info)?;
                    (len, RawStruct::Item { parent, is_type })
                }
            };
            each(client, clock, len, raw);
            clock = clock
                .checked_add(len)
                .ok_or_else(|| malformed("clocks overflow"))?;
        }
    }
    Ok(decoder)
}

/// Reads the structure of a v1 update (its items' parents and which create types), the way
/// yrs decodes it; the delete set that follows is not needed.
fn decode_items(update: &[u8]) -> ModelResult<UpdateItems> {
    let mut out = UpdateItems::default();
    // The ranges of the client being read, filed under it once its structs are read.
    let mut client_ranges: Option<(u64, ClockRanges)> = None;
    read_structs(update, |client, clock, len, raw| {
        let RawStruct::Item { parent, is_type } = raw else {
            return;
        };
        if len == 0 {
            return;
        }
        if client_ranges.as_ref().is_none_or(|(c, _)| *c != client) {
            if let Some((done, ranges)) = client_ranges.take() {
                out.clocks.entry(done).or_default().extend(ranges);
            }
            client_ranges = Some((client, vec![]));
        }
        if let Some((_, ranges)) = client_ranges.as_mut() {
            ranges.push((clock, len, out.items.len()));
        }
        out.items.push(UpdateItem { parent, is_type });
    })?;
    if let Some((client, ranges)) = client_ranges {
        out.clocks.entry(client).or_default().extend(ranges);
    }
    Ok(out)
}

/// What a v1 update inserts and deletes, read without building its contents.
pub struct UpdateReach {
    /// Per client, the clock after its last insertion (items and garbage-collected ranges,
    /// as `yrs::Update::insertions(true)`).
    pub inserted_up_to: Vec<(yrs::block::ClientID, u32)>,
    pub deleted: yrs::IdSet,
}

/// [`UpdateReach`] of a v1 update; `None` when it cannot be read (yrs's decoding tells why).
pub fn update_reach(update: &[u8]) -> Option<UpdateReach> {
    let mut ends: HashMap<u64, u32> = HashMap::new();
    let mut readable = true;
    let mut decoder = read_structs(update, |client, clock, len, raw| {
        // (a client id past 53 bits is no document's: yrs asserts on it in debug builds)
        readable &= client < 1 << 53;
        if !matches!(raw, RawStruct::Skip) && len > 0 {
            let end = ends.entry(client).or_default();
            *end = (*end).max(clock.saturating_add(len));
        }
    })
    .ok()?;
    let deleted = yrs::IdSet::decode(&mut decoder).ok()?;
    readable.then(|| UpdateReach {
        inserted_up_to: ends
            .into_iter()
            .map(|(client, end)| (yrs::block::ClientID::new(client), end))
            .collect(),
        deleted,
    })
}

/// Reads past an item's content (`info`'s kind) as yrs decodes it, and returns its length
/// (in clock units) and whether it creates a type. The kinds BlockNote's documents are made
/// of (text, types, attribute values, formatting, deletions) are read without building them: a whole
/// document's text and attributes would be allocated again only to be dropped.
fn skip_content(decoder: &mut DecoderV1, info: u8) -> ModelResult<(u32, bool)> {
    match info & 0b1111 {
        CONTENT_DELETED => Ok((decoder.read_len().map_err(malformed)?, false)),
        CONTENT_STRING => {
            let text = decoder.read_string().map_err(malformed)?;
            let len = text.encode_utf16().count();
            Ok((u32::try_from(len).map_err(malformed)?, false))
        }
        CONTENT_TYPE => {
            match decoder.read_type_ref().map_err(malformed)? {
                TYPE_XML_ELEMENT => {
                    decoder.read_string().map_err(malformed)?;
                }
                // (weak links are not built into this yrs: it refuses them too)
                0..=2 | 4..=6 | 9 | 15 => {}
                other => return Err(malformed(format!("unknown type {other}"))),
            }
            Ok((1, true))
        }
        CONTENT_FORMAT => {
            // a key, and its value as JSON (yrs parses it; a malformed one fails its decoding)
            decoder.read_string().map_err(malformed)?;
            decoder.read_string().map_err(malformed)?;
            Ok((1, false))
        }
        CONTENT_ANY => {
            let values = decoder.read_len().map_err(malformed)?;
            for _ in 0..values {
                skip_any(decoder)?;
            }
            Ok((values, false))
        }
        _ => {
            let content = ItemContent::decode(decoder, info).map_err(malformed)?;
            Ok((content.len_utf16(), matches!(content, ItemContent::Type(_))))
        }
    }
}

/// Reads past one lib0 `Any` value, as yrs decodes it, without building it; iteratively
/// (arrays and maps may nest as deep as the update is long).
fn skip_any(decoder: &mut DecoderV1) -> ModelResult<()> {
    // What remains to read, innermost last: a number of values, or of map entries (each a
    // key, then a value).
    let mut remaining: Vec<(bool, u64)> = vec![(false, 1)];
    while let Some((entries, left)) = remaining.last_mut() {
        if *left == 0 {
            remaining.pop();
            continue;
        }
        *left -= 1;
        if *entries {
            decoder.read_string().map_err(malformed)?;
        }
        match decoder.read_u8().map_err(malformed)? {
            // undefined, null, false, true
            127 | 126 | 121 | 120 => {}
            125 => {
                decoder.read_var::<i64>().map_err(malformed)?;
            }
            124 => {
                decoder.read_exact(4).map_err(malformed)?;
            }
            123 | 122 => {
                decoder.read_exact(8).map_err(malformed)?;
            }
            119 => {
                decoder.read_string().map_err(malformed)?;
            }
            118 => remaining.push((true, decoder.read_var().map_err(malformed)?)),
            117 => remaining.push((false, decoder.read_var().map_err(malformed)?)),
            116 => {
                decoder.read_buf().map_err(malformed)?;
            }
            other => return Err(malformed(format!("unknown value type {other}"))),
        }
    }
    Ok(())
}

/// How deep the types an update creates nest among themselves, without the depth of the
/// document they attach to: 0 when the update creates no type (typing, formatting, deleting),
/// the full depth for a document's whole state. Parents given by an item of another client
/// that comes later in the update are resolved too.
fn nesting_within(items: &UpdateItems) -> usize {
    let n = items.items.len();
    // Each item's parent type when the update holds it (`Some(None)`: outside the update),
    // resolved through origins iteratively: an origin chain is as long as a run of siblings.
    // Items on the walk are marked outside until resolved, so a malformed update's cycle ends
    // the walk.
    let mut parent: Vec<Option<Option<usize>>> = vec![None; n];
    for start in 0..n {
        let mut chain = vec![];
        let mut at = start;
        let resolved = loop {
            if let Some(p) = parent[at] {
                break p;
            }
            parent[at] = Some(None);
            chain.push(at);
            match items.items[at].parent {
                Parent::Root => break None,
                Parent::Type(id) => break items.find(&id).filter(|&p| items.items[p].is_type),
                Parent::SameAs(id) => match items.find(&id) {
                    Some(next) => at = next,
                    None => break None,
                },
            }
        };
        for i in chain {
            parent[i] = Some(resolved);
        }
    }
    // The depth of each type: one more than its parent type's, iteratively (0: not known yet;
    // a type met again on the same walk is a cycle, counted from there).
    let mut depth = vec![0; n];
    let mut on_path = vec![false; n];
    for start in (0..n).filter(|&i| items.items[i].is_type) {
        let mut path = vec![];
        let mut at = Some(start);
        let mut base = 0;
        while let Some(i) = at {
            if depth[i] > 0 || on_path[i] {
                base = depth[i];
                break;
            }
            on_path[i] = true;
            path.push(i);
            at = parent[i].flatten();
        }
        for (k, i) in path.into_iter().rev().enumerate() {
            depth[i] = base + k + 1;
            on_path[i] = false;
        }
    }
    depth.into_iter().max().unwrap_or(0)
}

/// Refuses a v1 update that nests types deeper than [`MAX_YJS_DEPTH`] among themselves, before
/// it is applied (yrs would overflow its stack deleting them, even within the same update).
/// Returns that depth: 0 when the update creates no type, so the document's depth cannot have
/// grown; otherwise check the document after applying it ([`check_document_depth`]).
pub fn check_update_depth(update: &[u8]) -> ModelResult<usize> {
    let depth = nesting_within(&decode_items(update)?);
    too_deep(depth)?;
    Ok(depth)
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
fn node_depth<T: ReadTxn>(txn: &T, node: XmlOut, limit: usize) -> usize {
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
