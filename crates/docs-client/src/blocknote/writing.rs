//! How content is written: for the editor schema of the instance it goes to (what its
//! browsers know), and whether it is new — its link targets and media URLs checked
//! ([`urls`](super::urls)) — or put back as it was read (an undo).

use super::schema::EditorSchema;
use super::urls::UrlInput;

/// Where written content comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentOrigin {
    /// An agent's: its URLs must be allowed ones.
    New,
    /// Read from the document and put back as it was (an undo): the document holds its URLs.
    AsRead,
}

/// How content is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writing {
    pub schema: EditorSchema,
    pub origin: ContentOrigin,
}

impl Writing {
    /// New content for an instance of `schema`.
    pub const fn new_content(schema: EditorSchema) -> Self {
        Writing {
            schema,
            origin: ContentOrigin::New,
        }
    }

    /// Content read from the document, put back as it was, to an instance of `schema`.
    pub const fn as_read(schema: EditorSchema) -> Self {
        Writing {
            schema,
            origin: ContentOrigin::AsRead,
        }
    }

    /// The URLs it may hold.
    pub(crate) fn urls(&self) -> UrlInput {
        match self.origin {
            ContentOrigin::New => UrlInput::new_content(),
            ContentOrigin::AsRead => UrlInput::Any,
        }
    }
}
