//! Loading the content stored in Docs (a whole-document update) into a session's new
//! document: most of what the first read of a large document waits for.
//!
//! The depth door (`blocknote::yjs_depth`) reads the update first; a large update is cut in two
//! where the door passes its middle (`raw_update::halves`), and nothing is applied before the
//! door's verdict (see `load_stored`).

use std::sync::mpsc;

use uuid::Uuid;
use yrs::updates::decoder::Decode;
use yrs::{Doc, ReadTxn, StateVector, Transact, Update};

use super::{depth_after, too_deep};
use crate::blocknote::DoorPass;
use crate::out_of_order::{FromNothing, OutOfOrder};
use crate::raw_update::{Halves, halves};
use crate::{Error, REMOTE_ORIGIN, Result};

/// Below this size the stored content is decoded whole: cutting it would save little.
const CUT_FROM_BYTES: usize = 256 * 1024;

/// Applies `stored` to the session's new document; returns what of it follows clocks it
/// lacks (`out_of_order`: what a browser saves of what it holds aside), not applied.
///
/// Nesting yrs cannot delete without overflowing its stack is refused at the door, which
/// reads the update as decoding it does, in a fraction of the time; nothing is applied before
/// the door let it in. Decoding is most of a load: a large update is cut in two where the
/// door passes its middle. The first half is decoded on this thread as soon as it is cut,
/// the second on the door's thread once the door let the update in; each half is applied as
/// it is ready, in order, in one transaction.
pub(super) fn load_stored(id: Uuid, doc: &Doc, stored: &[u8]) -> Result<Stored> {
    let mut held = OutOfOrder::new();
    if let Some(items) = load_from_nothing(id, doc, stored)? {
        return Ok(Stored { held, items });
    }
    // Rare: a browser saved what it held aside. What of it follows from nothing is loaded.
    let parts = held
        .admit(&StateVector::default(), stored)
        .map_err(|e| bad_content(id, e.to_string()))?;
    let mut items = 0;
    for part in parts {
        let Some(loaded) = load_from_nothing(id, doc, &part)? else {
            return Err(bad_content(id, "its state cannot be split in order".into()));
        };
        items += loaded;
    }
    Ok(Stored { held, items })
}

/// What loading the stored content left.
#[derive(Debug)]
pub(super) struct Stored {
    /// What of it follows clocks the document lacks, not applied.
    pub held: OutOfOrder,
    /// How many items the document took in.
    pub items: usize,
}

/// Applies `stored` to the session's new document if it follows from nothing (`FromNothing`,
/// told by the door), and says how many items it held; `None`, and nothing applied, if it
/// does not.
fn load_from_nothing(id: Uuid, doc: &Doc, stored: &[u8]) -> Result<Option<usize>> {
    // Into an empty document, the door's depth of the update's types is the document's.
    let empty = doc.transact().state_vector().is_empty();
    let nesting = std::thread::scope(|scope| {
        let (cut_sender, first_half) = mpsc::sync_channel::<Vec<u8>>(1);
        let (verdict_sender, verdict) = mpsc::sync_channel::<Result<(DoorPass, bool)>>(1);
        let door = scope.spawn(move || {
            // A small update is not cut: the sender gone, it is decoded whole at once.
            let mut cut = (stored.len() >= CUT_FROM_BYTES).then_some(cut_sender);
            let middle = stored.len() / 2;
            let mut second_half = None;
            let mut from_nothing = FromNothing::default();
            let nesting = crate::blocknote::check_update_depth_with(stored, |place, raw| {
                from_nothing.struct_read(place, raw);
                if place.end >= middle
                    && place.index + 1 < place.structs
                    && let Some(sender) = cut.take()
                {
                    let Halves { first, second } = halves(stored, place);
                    second_half = Some(second);
                    // (the receiver waits for it, or for the sender to be dropped)
                    let _ = sender.send(first);
                }
            })
            .map_err(|e| too_deep(id, e))
            .map(|pass| (pass, from_nothing.follows(stored)));
            // Not cut (no struct to cut after): the update is decoded whole.
            drop(cut);
            let passed = nesting.as_ref().is_ok_and(|&(_, follows)| follows);
            let _ = verdict_sender.send(nesting);
            second_half
                .filter(|_| passed)
                .map(|second| decode(id, &second))
        });
        let first = match first_half.recv() {
            Ok(first) => decode(id, &first),
            Err(_) => decode(id, stored),
        };
        let nesting = match verdict.recv() {
            Ok(nesting) => nesting,
            // The door sends its verdict unless it panicked.
            Err(_) => std::panic::resume_unwind(
                door.join().expect_err("the door ended without a verdict"),
            ),
        };
        let (pass, follows) = nesting?;
        if !follows {
            return Ok(None);
        }
        let first = first?;
        let mut txn = doc.transact_mut_with(REMOTE_ORIGIN);
        txn.apply_update(first)
            .map_err(|e| bad_content(id, e.to_string()))?;
        let second = door
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        if let Some(second) = second {
            txn.apply_update(second?)
                .map_err(|e| bad_content(id, e.to_string()))?;
        }
        super::touch::collect(&mut txn);
        Ok::<_, Error>(Some(pass))
    })?;
    let Some(pass) = nesting else {
        return Ok(None);
    };
    // Loaded into a document that held types already, the update's may sit under theirs.
    if pass.nesting > 0 && !empty {
        let fragment = crate::blocknote::document_fragment(doc);
        depth_after(id, &doc.transact(), &fragment)?;
    }
    Ok(Some(pass.items))
}

fn decode(id: Uuid, update: &[u8]) -> Result<Update> {
    Update::decode_v1(update).map_err(|e| bad_content(id, e.to_string()))
}

fn bad_content(id: Uuid, detail: String) -> Error {
    Error::BadContent {
        document: id.to_string(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use yrs::{ReadTxn, XmlElementPrelim, XmlFragment};

    use super::*;
    use crate::blocknote::{self, MAX_YJS_DEPTH, NewBlock, Position, insert_blocks};

    /// The whole state of a document of `blocks` paragraphs, then, when `deep`, of types
    /// nested past the door's limit after them.
    fn stored(blocks: usize, deep: bool) -> Vec<u8> {
        let doc = Doc::new();
        let fragment = blocknote::document_fragment(&doc);
        let paragraphs: Vec<NewBlock> = (0..blocks)
            .map(|i| {
                NewBlock::new("paragraph").text(format!("Paragraph {i}, with **some** words."))
            })
            .collect();
        insert_blocks(
            &mut doc.transact_mut(),
            &fragment,
            &Position::End,
            &paragraphs,
        )
        .unwrap();
        if deep {
            let mut txn = doc.transact_mut();
            let mut element = fragment.push_back(&mut txn, XmlElementPrelim::empty("deep"));
            for _ in 0..MAX_YJS_DEPTH {
                element = element.push_back(&mut txn, XmlElementPrelim::empty("deep"));
            }
        }
        doc.transact()
            .encode_state_as_update_v1(&StateVector::default())
    }

    #[test]
    fn a_large_update_loads_as_applying_it_whole_does() {
        let update = stored(3_000, false);
        assert!(update.len() > 2 * CUT_FROM_BYTES, "{} bytes", update.len());
        let expected = Doc::new();
        expected
            .transact_mut()
            .apply_update(Update::decode_v1(&update).unwrap())
            .unwrap();
        let doc = Doc::new();
        load_stored(Uuid::nil(), &doc, &update).unwrap();
        assert_eq!(doc.transact().snapshot(), expected.transact().snapshot());
        let read = |doc: &Doc| {
            let fragment = blocknote::document_fragment(doc);
            blocknote::read_document(&doc.transact(), &fragment)
        };
        assert_eq!(read(&doc), read(&expected));
        assert_eq!(read(&doc).blocks.len(), 3_000);
    }

    /// Past the cut, the door finds nesting too deep: nothing of the update is applied, the
    /// first half included.
    #[test]
    fn a_large_update_nesting_too_deep_leaves_the_document_empty() {
        let update = stored(3_000, true);
        let doc = Doc::new();
        let refused = load_stored(Uuid::nil(), &doc, &update);
        assert!(matches!(refused, Err(Error::TooDeep { .. })), "{refused:?}");
        assert_eq!(doc.transact().state_vector(), StateVector::default());
    }

    /// A large update cut short is bad content, and nothing of it is applied.
    #[test]
    fn a_truncated_large_update_is_bad_content() {
        let update = stored(3_000, false);
        let doc = Doc::new();
        let refused = load_stored(Uuid::nil(), &doc, &update[..update.len() * 3 / 4]);
        assert!(
            matches!(refused, Err(Error::BadContent { .. })),
            "{refused:?}"
        );
        assert_eq!(doc.transact().state_vector(), StateVector::default());
    }

    /// A state a browser saved with what it held aside (structs past a gap, merged in as Yjs
    /// 13 does): what follows from nothing is loaded, the rest held, and given back once the
    /// gap's update comes.
    #[test]
    fn a_state_with_a_gap_loads_what_follows_from_nothing_and_holds_the_rest() {
        use yrs::{GetString, Text};
        let writer = Doc::new();
        let text = writer.get_or_insert_text("t");
        let updates: Vec<Vec<u8>> = ["a", "b", "c"]
            .iter()
            .enumerate()
            .map(|(i, word)| {
                let mut txn = writer.transact_mut();
                text.insert(&mut txn, i as u32, word);
                txn.encode_update_v1()
            })
            .collect();
        let stored = yrs::merge_updates_v1([&updates[0], &updates[2]]).unwrap();
        let doc = Doc::new();
        let mut held = load_stored(Uuid::nil(), &doc, &stored).unwrap().held;
        let read = |doc: &Doc| doc.get_or_insert_text("t").get_string(&doc.transact());
        assert_eq!(read(&doc), "a");
        assert!(!held.is_empty());
        let mut txn = doc.transact_mut();
        for part in held.admit(&txn.state_vector(), &updates[1]).unwrap() {
            txn.apply_update(Update::decode_v1(&part).unwrap()).unwrap();
        }
        drop(txn);
        assert_eq!(read(&doc), "abc");
        assert!(held.is_empty());
    }

    /// A document never written to (its state: no struct, no deletion) loads, empty.
    #[test]
    fn an_empty_state_loads() {
        let empty = Doc::new()
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        let doc = Doc::new();
        let held = load_stored(Uuid::nil(), &doc, &empty).unwrap().held;
        assert!(held.is_empty());
        assert_eq!(doc.transact().state_vector(), StateVector::default());
    }
}
