//! The BlockNote document model over Yjs — pure data, no I/O.
//!
//! La Suite Docs stores a document in the Y.XmlFragment `document-store`: one root
//! `blockGroup` of `blockContainer`s (attribute `id`), each holding a content node
//! (`paragraph`, `heading`, ...) and optionally a nested `blockGroup`.
//!
//! - [`schema`]: node names, each block type's props (type + default), what is writable.
//! - [`tree`]: the typed tree ([`Document`], [`Block`], [`Inline`]) and the input [`NewBlock`].
//! - [`read`]: Y → typed tree ([`read_document`]). Unknown blocks read as opaque, and so do
//!   blocks at [`MAX_NESTING`] that hold deeper ones.
//! - [`validate`]: new blocks and content checked against the schema before any write.
//! - [`urls`]: which link targets and media URLs new content may hold (`http`, `https`,
//!   `mailto` for links, paths on the instance), and where a URL goes.
//! - [`locate`]: finding blocks, and [`Position`]s to put blocks at.
//! - [`write`]: builders and operations on a `TransactionMut` (insert, delete, move, change
//!   type/props, set text with a minimal diff). Each validates before mutating.
//! - `snapshot`: deep copies of Yjs subtrees, to move blocks.
//! - [`groups`]: a block given two child groups by concurrent writers, re-created with one
//!   (BlockNote's browsers delete such a block).
//! - [`diff`]: the minimal inline diff used by [`set_block_text`], at word granularity.
//! - [`words`]: what a word is, for the diff and for merging an agent's rewrite.
//! - [`markdown`]: GFM export with a fidelity report, and import.
//! - [`outline`]: heading tree with counts; reading by section, range or size budget.
//! - [`json`]: BlockNote's block JSON, for golden comparisons.
//! - [`nesting`]: the nesting limit ([`MAX_NESTING`]) and the checks of trees entering the
//!   model; every walk over blocks is bounded by it or iterative.
//! - [`yjs_depth`]: how deep Yjs content nests, for refusing updates and documents nested
//!   deeper than yrs can safely delete.
//! - [`comments`]: BlockNote's `comment` mark (where a Docs comment thread is anchored):
//!   reading anchors, writing the mark; comment bodies from and to markdown.

pub mod comments;
pub mod diff;
pub mod error;
pub mod groups;
pub mod inline;
pub mod json;
pub mod locate;
pub mod markdown;
pub mod mentions;
pub mod nesting;
mod nodes;
pub mod outline;
pub mod partial;
mod place;
pub mod read;
pub mod schema;
mod snapshot;
pub mod tree;
pub mod urls;
pub mod validate;
pub mod words;
pub mod write;
pub mod writing;
pub mod yjs_depth;

#[cfg(test)]
mod tests;

pub use comments::{
    COMMENT_MARK, CommentAnchor, add_comment_mark, anchors_by_thread, comment_anchors,
    comment_body_from_markdown, comment_body_to_markdown, comment_mark_key, text_occurrences,
};
pub use error::{ModelError, ModelResult};
pub use locate::Position;
pub use markdown::export::{
    ExportOptions, FidelityLoss, MarkdownExport, anchor, export_markdown, inline_markdown,
    inline_markdown_in,
};
pub use markdown::import::{import_markdown, import_markdown_in, parse_inline, parse_inline_in};
pub use nesting::MAX_NESTING;
pub use outline::{
    Outline, OutlineNode, SectionSelector, Slice, StartAt, outline, read_budget, read_range,
    read_section,
};
pub use partial::{
    Opening, Outermost, read_blocks, read_opening, read_outermost, reread_containers,
    reread_document,
};
pub use read::{read_document, root_group};
pub use schema::{EditorSchema, FRAGMENT_NAME};
pub use tree::{
    Block, BlockContent, CommentMark, Document, Inline, NewBlock, NewContent, PropValue, Props,
    Styles, TableCell, TableContent, TableRow, TextRun,
};
pub use urls::{BlockUrl, UrlUse, block_urls, host_of};
pub use validate::{validate_block, validate_block_in};
pub use write::{
    ChildrenMode, delete_blocks, ensure_root, insert_blocks, insert_blocks_in, insert_blocks_known,
    move_block, set_block_content, set_block_content_in, set_block_text, update_block,
    update_block_in,
};
pub use writing::{ContentOrigin, Writing};
pub(crate) use yjs_depth::{DoorPass, check_update_depth_with};
pub use yjs_depth::{
    MAX_YJS_DEPTH, UpdateTypes, check_depth_after, check_document_depth, check_update_depth,
    update_types,
};

/// The `document-store` fragment of a doc.
pub fn document_fragment(doc: &yrs::Doc) -> yrs::XmlFragmentRef {
    doc.get_or_insert_xml_fragment(FRAGMENT_NAME)
}
