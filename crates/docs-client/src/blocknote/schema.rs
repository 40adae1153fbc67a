//! BlockNote's (and Docs') schema: node names, each block type's props with their type and
//! default, which content each block holds, and what this crate may write.

/// Name of the Y.XmlFragment holding the document.
pub const FRAGMENT_NAME: &str = "document-store";
/// Node holding a list of blocks.
pub const BLOCK_GROUP: &str = "blockGroup";
/// Node wrapping one block: its content node, then an optional child blockGroup.
pub const BLOCK_CONTAINER: &str = "blockContainer";
/// Inline line break element.
pub const HARD_BREAK: &str = "hardBreak";
/// Docs' inline link to another document.
pub const INTERLINKING_LINK_INLINE: &str = "interlinkingLinkInline";
/// Inline math (`@blocknote/math-block`, Docs ≥ 5.6): an element holding its LaTeX source as
/// one plain text, no attributes.
pub const INLINE_MATH: &str = "math";
/// Math block (`@blocknote/math-block`, Docs ≥ 5.6): its LaTeX source as plain content.
pub const MATH_BLOCK: &str = "mathBlock";
/// Diagram block (`@blocknote/diagram-block`, Docs ≥ 5.6): its Mermaid source as plain
/// content.
pub const DIAGRAM: &str = "diagram";
pub const TABLE_ROW: &str = "tableRow";
pub const TABLE_HEADER: &str = "tableHeader";
pub const TABLE_CELL: &str = "tableCell";
pub const TABLE_PARAGRAPH: &str = "tableParagraph";

/// Type of a prop value as stored in Yjs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropType {
    String,
    Number,
    Bool,
}

impl PropType {
    pub fn describe(self) -> &'static str {
        match self {
            PropType::String => "a string",
            PropType::Number => "a number",
            PropType::Bool => "a boolean",
        }
    }
}

/// Default value of a prop. `Undefined` means BlockNote stores the attribute with the value
/// `undefined`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PropDefault {
    Str(&'static str),
    Num(f64),
    Bool(bool),
    Undefined,
}

/// One prop of a block type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PropSpec {
    pub name: &'static str,
    pub ty: PropType,
    pub default: PropDefault,
    /// Allowed string values, when the prop is an enumeration.
    pub values: Option<&'static [&'static str]>,
}

/// What a block's content node holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    /// Styled text, links, hard breaks and inline elements.
    Inline,
    /// One plain text without marks, newlines as `\n` (BlockNote's `plain` content:
    /// codeBlock, mathBlock, diagram).
    Code,
    /// Nothing (divider, media...).
    None,
    /// Rows of cells (table).
    Table,
}

/// A block type of the schema.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockSpec {
    pub name: &'static str,
    pub props: &'static [PropSpec],
    pub content: ContentKind,
    /// `false` for types that are read but never written (uploadLoader).
    pub writable: bool,
}

impl BlockSpec {
    pub fn prop(&self, name: &str) -> Option<&'static PropSpec> {
        self.props.iter().find(|p| p.name == name)
    }
    pub fn prop_names(&self) -> String {
        if self.props.is_empty() {
            "(none)".to_string()
        } else {
            self.props
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        }
    }
}

/// BlockNote's color names (text and background).
pub const COLORS: &[&str] = &[
    "default", "gray", "brown", "red", "orange", "yellow", "green", "blue", "purple", "pink",
];
/// Text alignments.
pub const ALIGNMENTS: &[&str] = &["left", "center", "right", "justify"];

const fn s(name: &'static str, default: &'static str) -> PropSpec {
    PropSpec {
        name,
        ty: PropType::String,
        default: PropDefault::Str(default),
        values: None,
    }
}
const fn b(name: &'static str, default: bool) -> PropSpec {
    PropSpec {
        name,
        ty: PropType::Bool,
        default: PropDefault::Bool(default),
        values: None,
    }
}
const fn n(name: &'static str, default: PropDefault) -> PropSpec {
    PropSpec {
        name,
        ty: PropType::Number,
        default,
        values: None,
    }
}
const BG: PropSpec = PropSpec {
    name: "backgroundColor",
    ty: PropType::String,
    default: PropDefault::Str("default"),
    values: Some(COLORS),
};
const TC: PropSpec = PropSpec {
    name: "textColor",
    ty: PropType::String,
    default: PropDefault::Str("default"),
    values: Some(COLORS),
};
const TA: PropSpec = PropSpec {
    name: "textAlignment",
    ty: PropType::String,
    default: PropDefault::Str("left"),
    values: Some(ALIGNMENTS),
};

const DEFAULT_PROPS: &[PropSpec] = &[BG, TC, TA];
const HEADING_PROPS: &[PropSpec] = &[
    BG,
    TC,
    TA,
    n("level", PropDefault::Num(1.0)),
    b("isToggleable", false),
];
const NUMBERED_PROPS: &[PropSpec] = &[BG, TC, TA, n("start", PropDefault::Undefined)];
const CHECK_PROPS: &[PropSpec] = &[BG, TC, TA, b("checked", false)];
const QUOTE_PROPS: &[PropSpec] = &[BG, TC];
const CODE_PROPS: &[PropSpec] = &[s("language", "text")];
const IMAGE_PROPS: &[PropSpec] = &[
    TA,
    BG,
    s("name", ""),
    s("url", ""),
    s("caption", ""),
    b("showPreview", true),
    n("previewWidth", PropDefault::Undefined),
];
const AUDIO_PROPS: &[PropSpec] = &[
    BG,
    s("name", ""),
    s("url", ""),
    s("caption", ""),
    b("showPreview", true),
];
const FILE_PROPS: &[PropSpec] = &[BG, s("name", ""), s("url", ""), s("caption", "")];
const TABLE_PROPS: &[PropSpec] = &[TC];
const CALLOUT_PROPS: &[PropSpec] = &[TA, BG, s("emoji", "💡")];
const PDF_PROPS: &[PropSpec] = &[
    BG,
    s("caption", ""),
    s("name", ""),
    n("previewWidth", PropDefault::Undefined),
    b("showPreview", true),
    TA,
    s("url", ""),
];
/// Props of tableHeader / tableCell (colwidth is handled apart: an array, omitted when null).
pub const CELL_PROPS: &[PropSpec] = &[
    BG,
    TC,
    TA,
    n("colspan", PropDefault::Num(1.0)),
    n("rowspan", PropDefault::Num(1.0)),
];

const fn block(
    name: &'static str,
    props: &'static [PropSpec],
    content: ContentKind,
    writable: bool,
) -> BlockSpec {
    BlockSpec {
        name,
        props,
        content,
        writable,
    }
}

/// Every block type this crate models.
pub const BLOCKS: &[BlockSpec] = &[
    block("paragraph", DEFAULT_PROPS, ContentKind::Inline, true),
    block("heading", HEADING_PROPS, ContentKind::Inline, true),
    block("bulletListItem", DEFAULT_PROPS, ContentKind::Inline, true),
    block(
        "numberedListItem",
        NUMBERED_PROPS,
        ContentKind::Inline,
        true,
    ),
    block("checkListItem", CHECK_PROPS, ContentKind::Inline, true),
    block("toggleListItem", DEFAULT_PROPS, ContentKind::Inline, true),
    block("quote", QUOTE_PROPS, ContentKind::Inline, true),
    block("codeBlock", CODE_PROPS, ContentKind::Code, true),
    block("divider", &[], ContentKind::None, true),
    block("pageBreak", &[], ContentKind::None, true),
    block("image", IMAGE_PROPS, ContentKind::None, true),
    block("video", IMAGE_PROPS, ContentKind::None, true),
    block("audio", AUDIO_PROPS, ContentKind::None, true),
    block("file", FILE_PROPS, ContentKind::None, true),
    block("table", TABLE_PROPS, ContentKind::Table, true),
    block("callout", CALLOUT_PROPS, ContentKind::Inline, true),
    block("pdf", PDF_PROPS, ContentKind::None, true),
    block("uploadLoader", &[], ContentKind::None, false),
    // Docs 5.6's math and diagram blocks (BlockNote 0.54 `@blocknote/math-block` and
    // `@blocknote/diagram-block`): `propSchema: {}` and `content: "plain"`, so the content
    // node has no attribute and holds one plain text, like codeBlock. The node names are the
    // packages' config types (`mathBlock`, `diagram`, inline `math`), which BlockNote uses as
    // the ProseMirror/Yjs names whatever key a schema registers them under. Sources (commits,
    // paths) and what stays unconfirmed: ARCHITECTURE.md, "Math and diagram blocks".
    block(MATH_BLOCK, &[], ContentKind::Code, true),
    block(DIAGRAM, &[], ContentKind::Code, true),
];

/// Looks a block type up by its node name (case-sensitive).
pub fn block_spec(name: &str) -> Option<&'static BlockSpec> {
    BLOCKS.iter().find(|b| b.name == name)
}

/// Names of the writable block types, for error messages.
pub fn writable_names() -> String {
    BLOCKS
        .iter()
        .filter(|b| b.writable)
        .map(|b| b.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Marks without a value (`{}` in Yjs).
pub const FLAG_MARKS: &[&str] = &["bold", "italic", "underline", "strike", "code"];
/// Marks with `{"stringValue": color}`.
pub const COLOR_MARKS: &[&str] = &["textColor", "backgroundColor"];
/// The link mark, `{"href": url}`.
pub const LINK_MARK: &str = "link";
/// Prefix of comment marks (`comment--<hash>`); kept when read, never written.
pub const COMMENT_MARK_PREFIX: &str = "comment";

/// Attributes of `interlinkingLinkInline` and their types.
pub const INTERLINK_ATTRS: &[(&str, PropType)] = &[
    ("docId", PropType::String),
    ("title", PropType::String),
    ("trigger", PropType::String),
    ("disabled", PropType::Bool),
];
