//! BlockNote's (and Docs') schema: node names, each block type's props with their type and
//! default, which content each block holds, and what this crate may write.
//!
//! # Math and diagram blocks (Docs 5.6)
//!
//! Docs 5.6 added BlockNote's `@blocknote/math-block` and `@blocknote/diagram-block` (0.54). What
//! they store, and so what this crate reads:
//!
//! - `mathBlock` (LaTeX) and `diagram` (Mermaid): `propSchema: {}`, `content: "plain"` — a content
//!   node with no attribute holding one unmarked XmlText, newlines as `\n` (like `codeBlock`:
//!   `ContentKind::Code`). Inline `math`: an element between the paragraph's XmlTexts, no
//!   attribute, one XmlText with the LaTeX (`Inline::Math`). BlockNote JSON: `content:
//!   [{type:"text",text,styles:{}}]` (`[]` when empty); `{type:"math",props:{},content:"<latex>"}`.
//! - The stored names are the packages' config types: BlockNote names the ProseMirror/Yjs node
//!   after `config.type`, not after the schema key. Sources: BlockNote's docs
//!   (blocknotejs.org/docs/features/blocks/math, …/diagrams: `mathBlock`, `diagram`, inline
//!   `math`); `@blocknote/core` 0.55.0's own tests (`SyntaxHighlighting.test.ts`: `mathBlock` and
//!   `math`, `content: "plain"`); the packages' source (TypeCellOS/BlockNote branch
//!   `code-block-previews` at e0b2144a64b3:
//!   `packages/math-block/src/block/createReactMathBlockSpec.tsx`,
//!   `…/inlineContent/createReactMathInlineContentSpec.tsx`,
//!   `packages/diagram-block/src/block/createReactDiagramBlockSpec.tsx`: props `{}`, content
//!   `plain`, the diagram's parse rule claiming `mermaid` `<pre><code>` before the code block).
//! - Confirmed from Docs itself (its `BlockNoteEditor.tsx` on the yhub line, Sept 2026:
//!   `blockSpecs: {...defaultBlockSpecs, …, diagram, mathBlock, …}`, `inlineContentSpecs:
//!   {..., math}`): BlockNote's default keys. Written only to an instance whose release is ≥
//!   5.6 ([`EditorSchema`]); read always.
//!
//! To an instance without them, a rewrite of inline content (`set_block_text` or
//! `update_block` text, `replace_text`, an undo) keeps the inline math that content held, each
//! formula at most once: markdown is then read with math on, a `$…$` reproducing a held formula is
//! that element again (the diff keeps it, with whatever others typed in it), and any other `$…$` is
//! text. Deleting and moving these blocks is allowed (a move copies what is there); an edit whose
//! undo would write one again (the delete of such a block) is recorded as not undoable. A refused
//! write is `NotWritable` (tool code `UNSUPPORTED_BLOCK_TYPE`).

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

/// What an instance's editor registers beyond what every Docs release does, and so what this
/// crate writes there: Docs 5.6's math and diagram blocks and inline math only where its
/// browsers know them (a browser deletes any node its schema does not know, text included).
/// Read from the instance's release (`GET config/`'s `RELEASE_VERSION`); a release that
/// cannot be read is taken for one without them.
///
/// Without math and diagrams, they are read typed (`mathBlock` and `diagram` with their
/// source, inline math as [`Inline::Math`](super::tree::Inline::Math)) and shown in markdown
/// (`$$…$$`, ```` ```mermaid ````, `$…$`); a rewrite of a block keeps the inline math it holds,
/// and their blocks may be deleted or moved; but nothing creates or edits them: a typed
/// `mathBlock` or `diagram`, a change of their text or type, or a change into them is refused
/// ([`ModelError::NotWritable`](super::error::ModelError::NotWritable), saying
/// [`MATH_NOT_IN_RELEASE`]), so is typed inline math that the content did not hold, and
/// markdown reads `$…$`, `$$…$$` as text and ```` ```math ````, ```` ```mermaid ```` fences as
/// code blocks of those languages. With them, markdown makes them and they are written like
/// any block. Everything that depends on it asks it through [`Access`] (the blocks) and
/// `markdown::math::MathInput` (inline math, markdown).
///
/// The keys are Docs' own: its `BlockNoteEditor.tsx` registers `mathBlock`, `diagram` and
/// inline `math` under BlockNote's default keys (ARCHITECTURE.md, "Math and diagram blocks").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EditorSchema {
    /// Math (`mathBlock`, inline `math`) and diagram (`diagram`) blocks: Docs ≥ 5.6.
    pub math_and_diagrams: bool,
}

impl EditorSchema {
    /// What every Docs release knows (and an instance whose release is unknown).
    pub const BASE: Self = EditorSchema {
        math_and_diagrams: false,
    };
    /// Docs 5.6 and later.
    pub const WITH_MATH_AND_DIAGRAMS: Self = EditorSchema {
        math_and_diagrams: true,
    };

    /// The schema of an instance of this release (`5.6.0`, `v5.7.1`, `5.6.0-rc1`); an absent
    /// or unreadable one is [`Self::BASE`].
    pub fn of_release(release: Option<&str>) -> Self {
        let numbers = release.and_then(|release| {
            let mut parts = release.trim().trim_start_matches(['v', 'V']).split('.');
            let mut number = || {
                let part = parts.next()?;
                let digits: &str = &part[..part
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(part.len())];
                digits.parse::<u32>().ok()
            };
            Some((number()?, number()?))
        });
        match numbers {
            Some(version) if version >= (5, 6) => Self::WITH_MATH_AND_DIAGRAMS,
            _ => Self::BASE,
        }
    }
}

/// Why math and diagram blocks are not written to an instance without them.
pub const MATH_NOT_IN_RELEASE: &str = "math and diagram blocks are in Docs' editor from 5.6 on, \
     and this instance's release is older (or unknown): its browsers would delete them";

/// Whether this crate writes a block type, and how it reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read typed and written.
    Write,
    /// Read typed (its props and content as specified), never written, for this reason.
    ReadOnly(&'static str),
    /// Read with its attributes as stored (its props are not specified), never written, for
    /// this reason (uploadLoader).
    Placeholder(&'static str),
    /// Read typed; written where the instance's editor has math and diagrams
    /// ([`EditorSchema`]).
    MathAndDiagrams,
}

/// A block type of the schema.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockSpec {
    pub name: &'static str,
    pub props: &'static [PropSpec],
    pub content: ContentKind,
    pub access: Access,
}

impl BlockSpec {
    pub fn writable(&self, schema: EditorSchema) -> bool {
        self.not_written(schema).is_none()
    }
    /// Why this type is not written to an instance of this schema; `None` when it is.
    pub fn not_written(&self, schema: EditorSchema) -> Option<&'static str> {
        match self.access {
            Access::Write => None,
            Access::MathAndDiagrams if schema.math_and_diagrams => None,
            Access::MathAndDiagrams => Some(MATH_NOT_IN_RELEASE),
            Access::ReadOnly(why) | Access::Placeholder(why) => Some(why),
        }
    }
    /// Whether its props and content are read as specified (all but placeholders).
    pub fn read_typed(&self) -> bool {
        !matches!(self.access, Access::Placeholder(_))
    }
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
    access: Access,
) -> BlockSpec {
    BlockSpec {
        name,
        props,
        content,
        access,
    }
}

/// Every block type this crate models.
pub const BLOCKS: &[BlockSpec] = &[
    block(
        "paragraph",
        DEFAULT_PROPS,
        ContentKind::Inline,
        Access::Write,
    ),
    block("heading", HEADING_PROPS, ContentKind::Inline, Access::Write),
    block(
        "bulletListItem",
        DEFAULT_PROPS,
        ContentKind::Inline,
        Access::Write,
    ),
    block(
        "numberedListItem",
        NUMBERED_PROPS,
        ContentKind::Inline,
        Access::Write,
    ),
    block(
        "checkListItem",
        CHECK_PROPS,
        ContentKind::Inline,
        Access::Write,
    ),
    block(
        "toggleListItem",
        DEFAULT_PROPS,
        ContentKind::Inline,
        Access::Write,
    ),
    block("quote", QUOTE_PROPS, ContentKind::Inline, Access::Write),
    block("codeBlock", CODE_PROPS, ContentKind::Code, Access::Write),
    block("divider", &[], ContentKind::None, Access::Write),
    block("pageBreak", &[], ContentKind::None, Access::Write),
    block("image", IMAGE_PROPS, ContentKind::None, Access::Write),
    block("video", IMAGE_PROPS, ContentKind::None, Access::Write),
    block("audio", AUDIO_PROPS, ContentKind::None, Access::Write),
    block("file", FILE_PROPS, ContentKind::None, Access::Write),
    block("table", TABLE_PROPS, ContentKind::Table, Access::Write),
    block("callout", CALLOUT_PROPS, ContentKind::Inline, Access::Write),
    block("pdf", PDF_PROPS, ContentKind::None, Access::Write),
    block(
        "uploadLoader",
        &[],
        ContentKind::None,
        Access::Placeholder("it is a transient upload placeholder"),
    ),
    // Docs 5.6's math and diagram blocks (BlockNote 0.54 `@blocknote/math-block` and
    // `@blocknote/diagram-block`): `propSchema: {}` and `content: "plain"`, so the content
    // node has no attribute and holds one plain text, like codeBlock. The node names are the
    // packages' config types (`mathBlock`, `diagram`, inline `math`), which BlockNote uses as
    // the ProseMirror/Yjs names whatever key a schema registers them under. Sources (commits,
    // paths): ARCHITECTURE.md, "Math and diagram blocks". Written where the instance has
    // them: EditorSchema.
    block(MATH_BLOCK, &[], ContentKind::Code, Access::MathAndDiagrams),
    block(DIAGRAM, &[], ContentKind::Code, Access::MathAndDiagrams),
];

/// What a person calls a block type ("bullet list item" for `bulletListItem`), for labels
/// people read; a type without a name of its own is called by its node name.
pub fn called(name: &str) -> &str {
    match name {
        "bulletListItem" => "bullet list item",
        "numberedListItem" => "numbered list item",
        "checkListItem" => "checklist item",
        "toggleListItem" => "toggle list item",
        "codeBlock" => "code block",
        "pageBreak" => "page break",
        "pdf" => "PDF",
        MATH_BLOCK => "formula",
        other => other,
    }
}

/// Looks a block type up by its node name (case-sensitive).
pub fn block_spec(name: &str) -> Option<&'static BlockSpec> {
    BLOCKS.iter().find(|b| b.name == name)
}

/// Names of the block types written to an instance of this schema, for error messages.
pub fn writable_names(schema: EditorSchema) -> String {
    BLOCKS
        .iter()
        .filter(|b| b.writable(schema))
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
