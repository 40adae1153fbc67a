//! What applying an edit needs, kept apart from its record: the change as a Yjs update, what
//! it was computed against, and how to check and revert it.

use serde::{Deserialize, Serialize};

/// What applying an edit needs, kept apart from the record (lists never load it): the
/// change, what it was computed against, and how to check and revert it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditPayload {
    /// The change as a Yjs update (v1), computed on a fork of the document.
    #[serde(with = "base64_bytes")]
    pub update: Vec<u8>,
    /// The state vector of the document the update was computed against (v1).
    #[serde(with = "base64_bytes")]
    pub base_state_vector: Vec<u8>,
    /// The blocks the edit depends on, as they were when it was planned (what the person
    /// saw): an approval refuses the edit when one of them changed since.
    pub depends_on: Vec<BlockState>,
    /// The blocks the edit changes or creates, as it leaves them: undoing it is refused when
    /// one of them changed since.
    pub leaves: Vec<BlockState>,
    /// How to revert it once applied (`edits::UndoOp`s as JSON); `None` when it cannot be.
    pub inverse: Option<serde_json::Value>,
    /// The texts it rewrites, before and after: an automatic edit is still merged when
    /// someone typed in one of these blocks meanwhile, elsewhere than the edit changes.
    #[serde(default)]
    pub texts: Vec<PlannedText>,
}

impl EditPayload {
    /// The payload of a record that changes nothing in the document by itself (a comment).
    pub fn none() -> Self {
        EditPayload {
            update: vec![],
            base_state_vector: vec![],
            depends_on: vec![],
            leaves: vec![],
            inverse: None,
            texts: vec![],
        }
    }
}

/// A block's text as an edit found it (when planned) and leaves it, as inline markdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedText {
    pub block_id: String,
    pub before: String,
    pub after: String,
    /// Fingerprint of the block's type and props when planned.
    pub shape: String,
}

/// A block as an edit saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockState {
    pub block_id: String,
    pub seen: Seen,
}

/// What of a block an edit depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "fingerprint", rename_all = "snake_case")]
pub enum Seen {
    /// That it exists (a position's anchor).
    Exists,
    /// Its own type, props and content (a block whose text or props change).
    Content(String),
    /// It and everything nested under it (a block deleted or moved).
    Subtree(String),
}

mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}
