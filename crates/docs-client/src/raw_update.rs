//! A v1 Yjs update read the way yrs decodes it, without building its contents: its structs
//! (the depth door's `blocknote::yjs_depth` follows their parents), what it inserts and
//! deletes (`yjs::contains_encoded`), and where to cut it in two updates that can be decoded
//! at once ([`halves`], as a session loads a large document). A whole document's update is
//! read this way in a fraction of what decoding it costs.
//!
//! Here: `read_structs` (the structs with their parents, for the depth door), `update_reach` (what
//! an update inserts and deletes) and `halves`.

use std::collections::HashMap;

use yrs::block::ItemContent;
use yrs::encoding::read::{Cursor, Read};
use yrs::encoding::write::Write;
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
        /// Its neighbours when it was inserted: on the left, on the right.
        origin: Option<Id>,
        right_origin: Option<Id>,
    },
    /// Garbage-collected content: clocks inserted, then deleted.
    Gc,
    /// A gap in the clocks.
    Skip,
}

/// Where a struct sits in a v1 update: its client, clocks, and what it takes to cut the update
/// right after it ([`halves`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    pub client: u64,
    /// The struct's first clock, and its length in clocks.
    pub clock: u32,
    pub len: u32,
    /// The struct's index among the `structs` of its client's section.
    pub index: u32,
    pub structs: u32,
    /// The section's index among the update's `sections`, and its first clock.
    pub section: u32,
    pub sections: u32,
    pub section_clock: u32,
    /// Byte offsets: the start of the update's first section, of this struct's section, of
    /// the section's first struct; the end of this struct.
    pub sections_at: usize,
    pub section_at: usize,
    pub structs_at: usize,
    pub end: usize,
}

impl Place {
    /// How many structs of its section, this one included, are still to come, for reserving
    /// room: the section's count is the update's word, so it is capped by the bytes left in
    /// `update` (every struct takes one at least) and a few bytes cannot claim gigabytes.
    pub fn structs_left(&self, update: &[u8]) -> usize {
        ((self.structs - self.index) as usize).min(1 + update.len().saturating_sub(self.end))
    }
}

/// How far `decoder` has read into `update`.
fn position(update: &[u8], decoder: &mut DecoderV1) -> usize {
    update.len() - decoder.read_to_end().map_or(0, <[u8]>::len)
}

/// Reads the structs of a v1 update the way yrs decodes them, without building their
/// contents: `each` gets each struct with where it sits. Returns the decoder where the
/// delete set starts.
pub(crate) fn read_structs<'a>(
    update: &'a [u8],
    mut each: impl FnMut(&Place, RawStruct),
) -> RawResult<DecoderV1<'a>> {
    let mut decoder = DecoderV1::new(Cursor::new(update));
    let sections: u32 = decoder.read_var().map_err(unreadable)?;
    let sections_at = position(update, &mut decoder);
    for section in 0..sections {
        let section_at = position(update, &mut decoder);
        let structs: u32 = decoder.read_var().map_err(unreadable)?;
        let client: u64 = decoder.read_var().map_err(unreadable)?;
        let section_clock: u32 = decoder.read_var().map_err(unreadable)?;
        let structs_at = position(update, &mut decoder);
        let mut clock = section_clock;
        for index in 0..structs {
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
                    (
                        len,
                        RawStruct::Item {
                            parent,
                            is_type,
                            origin,
                            right_origin,
                        },
                    )
                }
            };
            let place = Place {
                client,
                clock,
                len,
                index,
                structs,
                section,
                sections,
                section_clock,
                sections_at,
                section_at,
                structs_at,
                end: position(update, &mut decoder),
            };
            each(&place, raw);
            clock = clock
                .checked_add(len)
                .ok_or_else(|| unreadable("clocks overflow"))?;
        }
    }
    Ok(decoder)
}

/// A v1 update cut in two after one of its structs, each half an update of its own: the
/// structs up to the cut (and no deletions), then the structs after it and the update's
/// deletions. Applied in that order they make what the update makes; each decodes in about
/// half the time, so the two can be decoded at once.
pub(crate) struct Halves {
    pub first: Vec<u8>,
    pub second: Vec<u8>,
}

/// Cuts `update` after the struct at `place` (read from it), which must not be the last of
/// its section: the second half starts inside that section.
pub(crate) fn halves(update: &[u8], place: &Place) -> Halves {
    assert!(place.index + 1 < place.structs, "a cut inside a section");
    let mut first = Vec::with_capacity(place.end + 16);
    first.write_var(place.section + 1);
    first.extend_from_slice(&update[place.sections_at..place.section_at]);
    first.write_var(place.index + 1);
    first.write_var(place.client);
    first.write_var(place.section_clock);
    first.extend_from_slice(&update[place.structs_at..place.end]);
    first.write_var(0u32);
    let mut second = Vec::with_capacity(update.len() - place.end + 16);
    second.write_var(place.sections - place.section);
    second.write_var(place.structs - place.index - 1);
    second.write_var(place.client);
    second.write_var(place.clock + place.len);
    second.extend_from_slice(&update[place.end..]);
    Halves { first, second }
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
    let mut decoder = read_structs(
        update,
        |&Place {
             client, clock, len, ..
         },
         raw| {
            // (a client id past 53 bits is no document's: yrs asserts on it in debug builds)
            readable &= client < 1 << 53;
            if !matches!(raw, RawStruct::Skip) && len > 0 {
                let end = ends.entry(client).or_default();
                *end = (*end).max(clock.saturating_add(len));
            }
        },
    )
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

#[cfg(test)]
mod tests {
    use yrs::updates::decoder::Decode;
    use yrs::{Doc, ReadTxn, StateVector, Transact, Update, XmlFragmentRef};

    use super::*;
    use crate::blocknote::{
        self, Document, NewBlock, Position, delete_blocks, insert_blocks, set_block_text,
    };

    /// A document three clients wrote in turns, each building on the others' blocks, with
    /// blocks deleted (their content garbage-collected) and text rewritten: its whole state.
    fn written_by_three() -> Vec<u8> {
        let docs: Vec<Doc> = (1..=3).map(Doc::with_client_id).collect();
        let sync = |from: &Doc, to: &Doc| {
            let update = from
                .transact()
                .encode_state_as_update_v1(&to.transact().state_vector());
            to.transact_mut()
                .apply_update(Update::decode_v1(&update).unwrap())
                .unwrap();
        };
        let mut ids: Vec<String> = vec![];
        for round in 0..6 {
            for (k, doc) in docs.iter().enumerate() {
                let fragment = blocknote::document_fragment(doc);
                let mut txn = doc.transact_mut();
                let new = insert_blocks(
                    &mut txn,
                    &fragment,
                    &Position::End,
                    &[
                        NewBlock::new("heading")
                            .prop("level", 2i64)
                            .text(format!("{round}.{k}")),
                        NewBlock::new("paragraph")
                            .text(format!("**{round}** by {k}"))
                            .child(NewBlock::new("bulletListItem").text("nested")),
                    ],
                )
                .unwrap();
                // (a block deleted already is left as it is)
                if let Some(earlier) = ids.get(round * 2) {
                    let _ = set_block_text(&mut txn, &fragment, earlier, &format!("rewritten {k}"));
                }
                if round % 2 == 1
                    && let Some(gone) = ids.get(round + k)
                {
                    let _ = delete_blocks(
                        &mut txn,
                        &fragment,
                        std::slice::from_ref(gone),
                        blocknote::ChildrenMode::Delete,
                    );
                }
                ids.extend(new);
                drop(txn);
                for other in &docs {
                    sync(doc, other);
                }
            }
        }
        docs[0]
            .transact()
            .encode_state_as_update_v1(&StateVector::default())
    }

    fn loaded(updates: &[&[u8]]) -> (Doc, XmlFragmentRef) {
        let doc = Doc::new();
        let fragment = blocknote::document_fragment(&doc);
        let mut txn = doc.transact_mut();
        for update in updates {
            txn.apply_update(Update::decode_v1(update).unwrap())
                .unwrap();
        }
        drop(txn);
        (doc, fragment)
    }

    fn read(doc: &Doc, fragment: &XmlFragmentRef) -> Document {
        blocknote::read_document(&doc.transact(), fragment)
    }

    /// Cut after any struct that is not the last of its section, the two halves applied in
    /// order make the document the whole update makes: same clocks, deletions and blocks.
    #[test]
    fn an_update_cut_after_any_struct_loads_as_the_whole() {
        let whole = written_by_three();
        let (expected, fragment) = loaded(&[&whole]);
        let mut places = vec![];
        read_structs(&whole, |place, _| places.push(*place)).unwrap();
        let clients: std::collections::HashSet<u64> = places.iter().map(|p| p.client).collect();
        assert_eq!(clients.len(), 3);
        let mut cuts = 0;
        for place in places.iter().filter(|p| p.index + 1 < p.structs) {
            let Halves { first, second } = halves(&whole, place);
            let (doc, fragment_of) = loaded(&[&first, &second]);
            let txn = doc.transact();
            assert!(!txn.has_missing_updates(), "cut after {place:?}");
            assert_eq!(
                txn.snapshot(),
                expected.transact().snapshot(),
                "cut after {place:?}"
            );
            drop(txn);
            assert_eq!(read(&doc, &fragment_of), read(&expected, &fragment));
            cuts += 1;
        }
        assert!(cuts > 100, "{cuts} cuts");
    }

    /// The first half holds the structs before the cut, and nothing of the deletions.
    #[test]
    fn the_first_half_is_the_update_up_to_the_cut() {
        let whole = written_by_three();
        let mut places = vec![];
        read_structs(&whole, |place, _| places.push(*place)).unwrap();
        let place = places
            .iter()
            .find(|p| p.section == 1 && p.index + 1 < p.structs)
            .unwrap();
        let Halves { first, .. } = halves(&whole, place);
        let mut read_back = vec![];
        let mut decoder =
            read_structs(&first, |p, _| read_back.push((p.client, p.clock, p.len))).unwrap();
        let before: Vec<_> = places
            .iter()
            .take_while(|p| (p.section, p.index) <= (place.section, place.index))
            .map(|p| (p.client, p.clock, p.len))
            .collect();
        assert_eq!(read_back, before);
        assert!(yrs::IdSet::decode(&mut decoder).unwrap().is_empty());
    }
}
