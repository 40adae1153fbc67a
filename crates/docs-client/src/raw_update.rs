//! A v1 Yjs update read the way yrs decodes it, without building its contents: its structs
//! (the depth door's `blocknote::yjs_depth` follows their parents) and what it inserts and
//! deletes (`yjs::contains_encoded`). A whole document's update is read this way in a
//! fraction of what decoding it costs.

use std::collections::HashMap;

use yrs::block::ItemContent;
use yrs::encoding::read::{Cursor, Read};
use yrs::updates::decoder::{Decode, Decoder, DecoderV1};

/// Why an update cannot be read (yrs's decoding would fail too).
pub(crate) type RawResult<T> = Result<T, String>;

fn unreadable(e: impl std::fmt::Display) -> String {
    e.to_string()
}

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
pub(crate) type Id = (u64, u32);

/// Where an update's item says its parent is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Parent {
    /// A root type.
    Root,
    /// The type created by the item with this id (in the update or in the document).
    Type(Id),
    /// The parent of the item with this id, next to which the item was inserted (its origin).
    SameAs(Id),
}

fn read_id(decoder: &mut DecoderV1) -> RawResult<Id> {
    Ok((
        decoder.read_var().map_err(unreadable)?,
        decoder.read_var().map_err(unreadable)?,
    ))
}

/// One struct of a v1 update, as far as a raw reading of it goes.
pub(crate) enum RawStruct {
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
pub(crate) fn read_structs<'a>(
    update: &'a [u8],
    mut each: impl FnMut(u64, u32, u32, RawStruct),
) -> RawResult<DecoderV1<'a>> {
    let mut decoder = DecoderV1::new(Cursor::new(update));
    let clients: u32 = decoder.read_var().map_err(unreadable)?;
    for _ in 0..clients {
        let structs: u32 = decoder.read_var().map_err(unreadable)?;
        let client: u64 = decoder.read_var().map_err(unreadable)?;
        let mut clock: u32 = decoder.read_var().map_err(unreadable)?;
        for _ in 0..structs {
            let info = decoder.read_info().map_err(unreadable)?;
            let (len, raw) = match info {
                SKIP_REF => (
                    decoder.read_var::<u32>().map_err(unreadable)?,
                    RawStruct::Skip,
                ),
                GC_REF => (decoder.read_len().map_err(unreadable)?, RawStruct::Gc),
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
                            let parent = if decoder.read_parent_info().map_err(unreadable)? {
                                decoder.read_string().map_err(unreadable)?;
                                Parent::Root
                            } else {
                                Parent::Type(read_id(&mut decoder)?)
                            };
                            if info & HAS_PARENT_SUB != 0 {
                                decoder.read_string().map_err(unreadable)?;
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
                .ok_or_else(|| unreadable("clocks overflow"))?;
        }
    }
    Ok(decoder)
}

/// What a v1 update inserts and deletes, read without building its contents.
pub(crate) struct UpdateReach {
    /// Per client, the clock after its last insertion (items and garbage-collected ranges,
    /// as `yrs::Update::insertions(true)`).
    pub inserted_up_to: Vec<(yrs::block::ClientID, u32)>,
    pub deleted: yrs::IdSet,
}

/// [`UpdateReach`] of a v1 update; `None` when it cannot be read (yrs's decoding tells why).
pub(crate) fn update_reach(update: &[u8]) -> Option<UpdateReach> {
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
fn skip_content(decoder: &mut DecoderV1, info: u8) -> RawResult<(u32, bool)> {
    match info & 0b1111 {
        CONTENT_DELETED => Ok((decoder.read_len().map_err(unreadable)?, false)),
        CONTENT_STRING => {
            let text = decoder.read_string().map_err(unreadable)?;
            let len = text.encode_utf16().count();
            Ok((u32::try_from(len).map_err(unreadable)?, false))
        }
        CONTENT_TYPE => {
            match decoder.read_type_ref().map_err(unreadable)? {
                TYPE_XML_ELEMENT => {
                    decoder.read_string().map_err(unreadable)?;
                }
                // (weak links are not built into this yrs: it refuses them too)
                0..=2 | 4..=6 | 9 | 15 => {}
                other => return Err(unreadable(format!("unknown type {other}"))),
            }
            Ok((1, true))
        }
        CONTENT_FORMAT => {
            // a key, and its value as JSON (yrs parses it; a malformed one fails its decoding)
            decoder.read_string().map_err(unreadable)?;
            decoder.read_string().map_err(unreadable)?;
            Ok((1, false))
        }
        CONTENT_ANY => {
            let values = decoder.read_len().map_err(unreadable)?;
            for _ in 0..values {
                skip_any(decoder)?;
            }
            Ok((values, false))
        }
        _ => {
            let content = ItemContent::decode(decoder, info).map_err(unreadable)?;
            Ok((content.len_utf16(), matches!(content, ItemContent::Type(_))))
        }
    }
}

/// Reads past one lib0 `Any` value, as yrs decodes it, without building it; iteratively
/// (arrays and maps may nest as deep as the update is long).
fn skip_any(decoder: &mut DecoderV1) -> RawResult<()> {
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
            decoder.read_string().map_err(unreadable)?;
        }
        match decoder.read_u8().map_err(unreadable)? {
            // undefined, null, false, true
            127 | 126 | 121 | 120 => {}
            125 => {
                decoder.read_var::<i64>().map_err(unreadable)?;
            }
            124 => {
                decoder.read_exact(4).map_err(unreadable)?;
            }
            123 | 122 => {
                decoder.read_exact(8).map_err(unreadable)?;
            }
            119 => {
                decoder.read_string().map_err(unreadable)?;
            }
            118 => remaining.push((true, decoder.read_var().map_err(unreadable)?)),
            117 => remaining.push((false, decoder.read_var().map_err(unreadable)?)),
            116 => {
                decoder.read_buf().map_err(unreadable)?;
            }
            other => return Err(unreadable(format!("unknown value type {other}"))),
        }
    }
    Ok(())
}
