//! The typed tree a document reads into, and the typed input for new blocks.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A prop or attribute value with its stored JSON type.
#[derive(Debug, Clone, PartialEq)]
pub enum PropValue {
    String(String),
    Number(f64),
    Bool(bool),
    /// Stored as `undefined` (BlockNote's "no value", e.g. numberedListItem start).
    Undefined,
}

impl PropValue {
    pub fn type_name(&self) -> &'static str {
        match self {
            PropValue::String(_) => "a string",
            PropValue::Number(_) => "a number",
            PropValue::Bool(_) => "a boolean",
            PropValue::Undefined => "undefined/null",
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PropValue::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            PropValue::Number(n) => Some(*n),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            PropValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// JSON value (integral numbers as integers, undefined as null).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            PropValue::String(s) => serde_json::Value::String(s.clone()),
            PropValue::Number(n) => number_json(*n),
            PropValue::Bool(b) => serde_json::Value::Bool(*b),
            PropValue::Undefined => serde_json::Value::Null,
        }
    }
}

pub(crate) fn number_json(n: f64) -> serde_json::Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        serde_json::Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null)
    }
}

impl From<&str> for PropValue {
    fn from(v: &str) -> Self {
        PropValue::String(v.to_string())
    }
}
impl From<String> for PropValue {
    fn from(v: String) -> Self {
        PropValue::String(v)
    }
}
impl From<f64> for PropValue {
    fn from(v: f64) -> Self {
        PropValue::Number(v)
    }
}
impl From<i64> for PropValue {
    fn from(v: i64) -> Self {
        PropValue::Number(v as f64)
    }
}
impl From<bool> for PropValue {
    fn from(v: bool) -> Self {
        PropValue::Bool(v)
    }
}

impl Serialize for PropValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for PropValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => Ok(PropValue::String(s)),
            serde_json::Value::Bool(b) => Ok(PropValue::Bool(b)),
            serde_json::Value::Number(n) => Ok(PropValue::Number(n.as_f64().unwrap_or(0.0))),
            serde_json::Value::Null => Ok(PropValue::Undefined),
            other => Err(D::Error::custom(format!(
                "a prop must be a string, number, boolean or null, got {other}"
            ))),
        }
    }
}

/// Props / attributes keyed by name.
pub type Props = BTreeMap<String, PropValue>;

/// Text styles (marks) of a run. Unknown style names are refused when deserializing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Styles {
    #[serde(skip_serializing_if = "is_false")]
    pub bold: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub italic: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub underline: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub strike: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub code: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_color: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_color: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Styles {
    pub fn is_plain(&self) -> bool {
        *self == Styles::default()
    }
}

/// A BlockNote `comment` mark on a run of text: the comment thread anchored there (the id of
/// a Docs thread), and whether BlockNote marked it orphaned (its editor does so when the
/// thread is resolved or deleted). See [`comments`](super::comments).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommentMark {
    pub thread_id: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub orphan: bool,
}

/// A run of text sharing the same styles, link and comment marks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextRun {
    pub text: String,
    #[serde(default, skip_serializing_if = "Styles::is_plain")]
    pub styles: Styles,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// The comment marks on the run (sorted, each once): kept by every edit of the text around
    /// them, hidden from markdown. Runs given to a write never carry any (they are not read
    /// from input); [`add_comment_mark`](super::comments::add_comment_mark) puts one on text.
    #[serde(default, skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub comments: Vec<CommentMark>,
}

impl TextRun {
    pub fn plain(text: impl Into<String>) -> Self {
        TextRun {
            text: text.into(),
            ..Default::default()
        }
    }
    pub fn styled(text: impl Into<String>, styles: Styles) -> Self {
        TextRun {
            text: text.into(),
            styles,
            ..Default::default()
        }
    }
}

/// One piece of inline content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Inline {
    /// Styled text (a link is a run with `link` set).
    Text(TextRun),
    /// A line break inside the block (`<hardBreak>`).
    HardBreak,
    /// An inline element such as Docs' `interlinkingLinkInline`.
    Element {
        kind: String,
        #[serde(default)]
        attrs: Props,
    },
    /// Inline math (`$…$` in markdown): a `math` element holding its LaTeX source.
    Math { latex: String },
}

/// One table cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableCell {
    /// `tableHeader` when true, `tableCell` otherwise.
    #[serde(default)]
    pub header: bool,
    /// backgroundColor, textColor, textAlignment, colspan, rowspan (defaults filled on read).
    #[serde(default)]
    pub props: Props,
    /// Column widths in px; `None` when not stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colwidth: Option<Vec<f64>>,
    #[serde(default)]
    pub content: Vec<Inline>,
}

/// One table row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    pub cells: Vec<TableCell>,
}

/// The rows of a table block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableContent {
    pub rows: Vec<TableRow>,
}

impl TableContent {
    /// Its number of columns: its widest row's cells (at least one).
    pub fn width(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r.cells.len())
            .max()
            .unwrap_or(0)
            .max(1)
    }
}

/// Content of a block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BlockContent {
    /// Blocks without content (divider, image...).
    None,
    /// Inline content (for codeBlock: a single unstyled run).
    Inline { inline: Vec<Inline> },
    /// Table rows.
    Table { table: TableContent },
    /// A node this crate does not model: its plain text, for reading only.
    Opaque {
        text: String,
        /// Blocks nested under this one that were not read because they lie deeper than
        /// [`MAX_NESTING`](super::nesting::MAX_NESTING). When non-zero, the block is read as
        /// opaque (never rewritten) whatever its type, and its `children` are empty.
        #[serde(default, skip_serializing_if = "is_zero")]
        hidden_blocks: usize,
    },
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A block as read from the document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub id: String,
    /// Content node name, e.g. `paragraph`, `heading`, or an unknown type's name.
    #[serde(rename = "type")]
    pub kind: String,
    pub props: Props,
    pub content: BlockContent,
    pub children: Vec<Block>,
}

impl Block {
    /// True when this crate does not model the block: it is never rewritten.
    pub fn is_opaque(&self) -> bool {
        matches!(self.content, BlockContent::Opaque { .. })
    }
    /// Inline content, if any.
    pub fn inline(&self) -> Option<&[Inline]> {
        match &self.content {
            BlockContent::Inline { inline } => Some(inline),
            _ => None,
        }
    }
    /// Plain text of the block's own content (hard breaks as `\n`).
    pub fn plain_text(&self) -> String {
        match &self.content {
            BlockContent::Inline { inline } => inline_plain_text(inline),
            BlockContent::Table { table } => table
                .rows
                .iter()
                .map(|r| {
                    r.cells
                        .iter()
                        .map(|c| inline_plain_text(&c.content))
                        .collect::<Vec<_>>()
                        .join(" | ")
                })
                .collect::<Vec<_>>()
                .join("\n"),
            BlockContent::Opaque { text, .. } => text.clone(),
            BlockContent::None => String::new(),
        }
    }
    /// Whether `f` holds of this block or one of its descendants, without a list of them:
    /// asked of every block of a document by the reads that move blocks from an earlier one
    /// (most blocks have no descendants: no walk).
    pub fn any(&self, mut f: impl FnMut(&Block) -> bool) -> bool {
        if self.children.is_empty() {
            return f(self);
        }
        let mut stack = vec![self];
        while let Some(b) = stack.pop() {
            if f(b) {
                return true;
            }
            stack.extend(&b.children);
        }
        false
    }
    /// This block and its descendants, depth first (iterative: safe on any depth).
    pub fn walk(&self) -> Vec<&Block> {
        let mut out = vec![];
        let mut stack = vec![self];
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(b.children.iter().rev());
        }
        out
    }
}

/// Plain text of inline content; hard breaks become `\n`, interlinks their title, inline
/// math its LaTeX source.
pub fn inline_plain_text(inline: &[Inline]) -> String {
    let mut s = String::new();
    for i in inline {
        match i {
            Inline::Text(r) => s.push_str(&r.text),
            Inline::HardBreak => s.push('\n'),
            Inline::Element { attrs, .. } => {
                if let Some(PropValue::String(t)) = attrs.get("title") {
                    s.push_str(t);
                }
            }
            Inline::Math { latex } => s.push_str(latex),
        }
    }
    s
}

/// The whole document: the blocks of the root blockGroup.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Document {
    pub blocks: Vec<Block>,
    /// The Yjs item of each outermost block's blockContainer, in the order of `blocks`, when
    /// they were read from a document (else empty): a read of it again, or of the blocks an
    /// edit changed, knows the blocks it walks past by their items, without reading their ids
    /// (see `partial::reread_document`). Not part of what the document says.
    #[serde(skip)]
    pub containers: Vec<yrs::ID>,
}

/// Documents are equal when their blocks are: where they were read from does not count.
impl PartialEq for Document {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks
    }
}

impl Document {
    /// A document of these blocks, not read from one (no containers known).
    pub fn new(blocks: Vec<Block>) -> Self {
        Document {
            blocks,
            containers: vec![],
        }
    }

    /// Whether each outermost block's container is known.
    pub fn knows_containers(&self) -> bool {
        self.containers.len() == self.blocks.len()
    }

    /// Every block, depth first. One walk into one list (a whole document's blocks, where a
    /// list per block would cost an allocation each).
    pub fn all_blocks(&self) -> Vec<&Block> {
        let mut out = Vec::with_capacity(self.blocks.len());
        let mut stack: Vec<&Block> = self.blocks.iter().rev().collect();
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(b.children.iter().rev());
        }
        out
    }
    /// The block with this id, at any depth (iterative, stops at the first match).
    pub fn find(&self, id: &str) -> Option<&Block> {
        let mut stack: Vec<&Block> = self.blocks.iter().rev().collect();
        while let Some(b) = stack.pop() {
            if b.id == id {
                return Some(b);
            }
            stack.extend(b.children.iter().rev());
        }
        None
    }
}

/// Content of a block to create.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NewContent {
    /// Inline markdown (`**bold**`, `[link](url)`...); plain text for codeBlock.
    Markdown(String),
    /// Explicit inline runs.
    Inline(Vec<Inline>),
    /// Table rows.
    Table(TableContent),
}

/// A block to create: serde-deserializable from JSON such as
/// `{"type":"heading","props":{"level":2},"content":"Hello **world**","children":[]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewBlock {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub props: Props,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<NewContent>,
    #[serde(default)]
    pub children: Vec<NewBlock>,
}

impl NewBlock {
    pub fn new(kind: impl Into<String>) -> Self {
        NewBlock {
            kind: kind.into(),
            props: Props::new(),
            content: None,
            children: vec![],
        }
    }
    pub fn prop(mut self, name: &str, value: impl Into<PropValue>) -> Self {
        self.props.insert(name.to_string(), value.into());
        self
    }
    pub fn text(mut self, markdown: impl Into<String>) -> Self {
        self.content = Some(NewContent::Markdown(markdown.into()));
        self
    }
    pub fn inline(mut self, inline: Vec<Inline>) -> Self {
        self.content = Some(NewContent::Inline(inline));
        self
    }
    pub fn child(mut self, child: NewBlock) -> Self {
        self.children.push(child);
        self
    }
    /// Parses a JSON value into a block, with a typed error. Blocks nested deeper than
    /// [`MAX_NESTING`](super::nesting::MAX_NESTING) are refused
    /// ([`ModelError::NestingTooDeep`](super::ModelError::NestingTooDeep)) before serde
    /// recurses on them.
    /// Levels of blocks in its tree: 1 for a block without children. Iterative, so it is
    /// safe to call before anything recursive looks at the blocks.
    pub(crate) fn height(&self) -> usize {
        let mut height = 0;
        let mut stack = vec![(self, 1)];
        while let Some((b, depth)) = stack.pop() {
            height = height.max(depth);
            stack.extend(b.children.iter().map(|c| (c, depth + 1)));
        }
        height
    }

    /// The tallest of `blocks` (see [`NewBlock::height`]); 0 for none.
    pub(crate) fn tallest(blocks: &[NewBlock]) -> usize {
        blocks.iter().map(NewBlock::height).max().unwrap_or(0)
    }

    pub fn from_json(value: serde_json::Value) -> Result<Self, super::ModelError> {
        if let Err(e) = super::nesting::check_block_json(&value) {
            super::nesting::drop_json(value);
            return Err(e);
        }
        serde_json::from_value(value).map_err(|e| super::ModelError::InvalidJson {
            message: e.to_string(),
        })
    }
}
