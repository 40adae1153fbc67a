//! Placing a new outermost block right after a known one by its Yjs item. yrs inserts into a
//! list by index, walking every item before it: the end of a document of 50 000 blocks walks
//! the 50 000, on the path of an agent's insert. A new blockContainer is instead written as
//! what a peer would send for it (an update of one item whose origins are the container
//! before it and the one after it), which yrs integrates by looking its origins up. What
//! the container then holds is written as usual, inside it.

use yrs::block::{BLOCK_ITEM_TYPE_REF_NUMBER, HAS_ORIGIN, HAS_RIGHT_ORIGIN};
use yrs::encoding::write::Write;
use yrs::types::TYPE_REFS_XML_ELEMENT;
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::{Encoder, EncoderV1};
use yrs::{BranchID, ID, ReadTxn, TransactionMut, Update, Xml, XmlElementRef};

use super::error::{ModelError, ModelResult};
use super::read::{item_of, outermost_at, with_container_id};
use super::schema::BLOCK_CONTAINER;

/// Where new outermost blocks go, as the caller's read of the document tells it.
pub(crate) enum Known {
    /// After the last outermost block.
    End,
    /// After the outermost block with this id.
    After(String),
}

/// The outermost container whose item is `item`, when it is the block `known` says the new
/// blocks go after: an outermost one still ([`outermost_at`]), the last of them for
/// [`Known::End`], or with that id for [`Known::After`]. `None` otherwise: the caller places
/// them by index.
pub(crate) fn known_container<T: ReadTxn>(
    txn: &T,
    root: &XmlElementRef,
    item: &ID,
    known: &Known,
) -> Option<XmlElementRef> {
    let container = outermost_at(txn, root, item)?;
    let is_it = match known {
        Known::End => container.siblings(txn).next().is_none(),
        Known::After(id) => with_container_id(txn, &container, |own| own == id),
    };
    is_it.then_some(container)
}

/// A new, empty blockContainer right after `left`, an outermost one: between it and the next
/// node of its list (the next one not deleted: a local insert by index would name the very
/// next item, deleted or not; either integrates between the two the same way everywhere).
/// Written by `txn`'s client at its next clock, as an insert by index would have been.
pub(crate) fn container_after(
    txn: &mut TransactionMut,
    left: &XmlElementRef,
) -> ModelResult<XmlElementRef> {
    let malformed = |problem: &str| ModelError::MalformedDocument {
        problem: problem.to_owned(),
    };
    let origin = item_of(left).ok_or_else(|| malformed("a block without an item"))?;
    let right = left.siblings(txn).next().and_then(|next| match next.id() {
        BranchID::Nested(id) => Some(id),
        BranchID::Root(_) => None,
    });
    let client = txn.doc().client_id();
    let at = ID::new(client, txn.state_vector().get(&client));

    let mut encoder = EncoderV1::new();
    encoder.write_var(1u32); // clients
    encoder.write_var(1u32); // structs of this client
    encoder.write_client(client);
    encoder.write_var(at.clock);
    let origins = HAS_ORIGIN | if right.is_some() { HAS_RIGHT_ORIGIN } else { 0 };
    encoder.write_info(origins | BLOCK_ITEM_TYPE_REF_NUMBER);
    encoder.write_left_id(&origin);
    if let Some(right) = &right {
        encoder.write_right_id(right);
    }
    encoder.write_type_ref(TYPE_REFS_XML_ELEMENT);
    encoder.write_key(BLOCK_CONTAINER);
    encoder.write_var(0u32); // deleted: none
    let update = Update::decode_v1(&encoder.to_vec())
        .map_err(|e| malformed(&format!("a new block's item: {e}")))?;
    txn.apply_update(update)
        .map_err(|e| malformed(&format!("a new block's item: {e}")))?;
    BranchID::get_nested(txn, &at)
        .filter(|branch| !branch.is_deleted())
        .map(XmlElementRef::from)
        .ok_or_else(|| malformed("a new block's item was not integrated"))
}
