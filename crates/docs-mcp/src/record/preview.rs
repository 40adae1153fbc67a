//! What a person sees of an edit before deciding: the blocks before and after, their changed
//! spans and the links they hold.

use serde::{Deserialize, Serialize};

/// One block as shown in a preview: its id, type and markdown, and the block as BlockNote
/// JSON (with its children), which the app renders (absent in records of earlier versions).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PreviewBlock {
    pub block_id: String,
    pub block_type: String,
    pub markdown: String,
    /// The block's own text as inline markdown (plain for code), without its block marker:
    /// what a person rewrites before approving. Absent for blocks with no text (an image, a
    /// table, a divider) and in records of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "BlockJson"))]
    pub block: Option<serde_json::Value>,
}

/// A run of words in a word-level diff.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DiffSpan {
    /// `equal`, `added` or `removed`.
    pub kind: String,
    pub text: String,
}

/// What a URL in a preview is for.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// A link's target (or a link to another document, `/docs/<id>/`).
    Link,
    /// The file of an image, video, audio, file or PDF block.
    Media,
}

/// A link target or media URL an edit adds or changes, shown in full to the person deciding:
/// a link's text alone does not say where it goes.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PreviewLink {
    pub block_id: String,
    pub kind: LinkKind,
    /// The URL as written.
    pub url: String,
    /// The host it goes to, with its port when not the default (an internationalized name in
    /// its ASCII form); none for a path on the Docs instance, nor for an address without a
    /// host (`mailto:`).
    pub host: Option<String>,
    /// The text the link is on, or the media's name (else its caption).
    pub text: String,
}

/// What an edit changes, for a human to judge: the touched blocks before and after, and a
/// word-level diff of their markdown.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Preview {
    /// The headings the change is under, outermost first (empty at the top of the document).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub heading_path: Vec<String>,
    pub before: Vec<PreviewBlock>,
    pub after: Vec<PreviewBlock>,
    /// The block before the change and the one after it, without children: where it lands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub context_before: Option<PreviewBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub context_after: Option<PreviewBlock>,
    pub diff: Vec<DiffSpan>,
    pub words_added: usize,
    pub words_removed: usize,
    /// The link targets and media URLs the blocks after the edit hold that the same blocks did
    /// not hold before (all of a new block's), in reading order (absent in records of earlier
    /// versions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<PreviewLink>>", optional))]
    pub links: Vec<PreviewLink>,
}
