//! GFM export with a fidelity report: every block-level or inline feature markdown cannot
//! express is listed with the block id, the block type and what was dropped.
//!
//! Anchors (optional): a line `<!-- block:<id> -->` right before each block, at the block's
//! indentation. Comment markers (optional): `<!-- comment:<thread> -->` and
//! `<!-- /comment:<thread> -->` around the text a comment thread is attached to. Both are
//! HTML comments, which the import drops: markdown read with them can be written back.
//!
//! Math and diagrams: `$$`/source/`$$` (a ```` ```math ```` fence when display math would not hold
//! the source as is), ```` ```mermaid ````, `$…$` (what `$…$` cannot hold is a fidelity loss). A
//! literal `$` is written `\$` only in inline content holding inline math, where a rewrite reads
//! `$` as math; everywhere else it stays as it is, so documents without math (prices like "$5")
//! read exactly as before.

use serde::{Deserialize, Serialize};

mod inline;

use inline::display_math_holds;
pub use inline::escape;
pub(crate) use inline::url_escape;

use crate::blocknote::nesting::MAX_NESTING;
use crate::blocknote::read::default_value;
use crate::blocknote::schema::{ContentKind, DIAGRAM, EditorSchema, MATH_BLOCK, block_spec};
use crate::blocknote::tree::{Block, BlockContent, PropValue, TableContent};

/// Export options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportOptions {
    /// Emit `<!-- block:<id> -->` before each block.
    #[serde(default)]
    pub anchors: bool,
    /// Emit `<!-- comment:<thread> -->…<!-- /comment:<thread> -->` around commented text.
    #[serde(default)]
    pub comments: bool,
    /// The schema of the instance the markdown may be written back to: where it has math, a
    /// literal `$` is `\$` everywhere (markdown read back there reads `$…$` as math).
    #[serde(skip)]
    pub schema: EditorSchema,
}

/// One thing markdown could not express.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FidelityLoss {
    pub block_id: String,
    pub block_type: String,
    /// What was dropped, e.g. `textColor=red`, `textAlignment=center`, `toggle`, `underline`.
    pub dropped: String,
}

/// Markdown and what it lost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkdownExport {
    pub markdown: String,
    pub fidelity: Vec<FidelityLoss>,
}

/// The markdown of one top-level block (with its children).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub id: String,
    /// Separator to put before this chunk when it follows another one.
    pub sep: &'static str,
    pub text: String,
}

/// Anchor comment for a block id.
pub fn anchor(id: &str) -> String {
    format!("<!-- block:{id} -->")
}

/// Opening marker of the text a comment thread is attached to.
pub fn comment_open(thread_id: &str) -> String {
    format!("<!-- comment:{thread_id} -->")
}

/// Closing marker of the text a comment thread is attached to.
pub fn comment_close(thread_id: &str) -> String {
    format!("<!-- /comment:{thread_id} -->")
}

/// Exports blocks to markdown.
pub fn export_markdown(blocks: &[Block], opts: &ExportOptions) -> MarkdownExport {
    let mut losses = vec![];
    let chunks = export_chunks(blocks, opts, &mut losses, None);
    MarkdownExport {
        markdown: join_chunks(&chunks),
        fidelity: losses,
    }
}

/// A block's text as the inline markdown `set_block_text` takes (plain text for blocks of
/// plain content: code, math, diagram): what an agent edits when it rewrites one block.
pub fn inline_markdown(block: &Block) -> String {
    inline_markdown_in(block, EditorSchema::BASE)
}

/// [`inline_markdown`] as an instance of `schema` reads it back (where it has math, a literal
/// `$` is `\$`).
pub fn inline_markdown_in(block: &Block, schema: EditorSchema) -> String {
    if block_spec(&block.kind).is_some_and(|s| s.content == ContentKind::Code) {
        return block.plain_text();
    }
    let mut losses = vec![];
    let mut w = Writer {
        opts: ExportOptions {
            schema,
            ..ExportOptions::default()
        },
        losses: &mut losses,
    };
    w.inline(block, block.inline().unwrap_or(&[]), false)
}

pub(crate) fn join_chunks(chunks: &[Chunk]) -> String {
    let mut s = String::new();
    for (i, c) in chunks.iter().enumerate() {
        if i > 0 {
            s.push_str(c.sep);
        }
        s.push_str(&c.text);
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// The chunks of `blocks`, in order. With a `budget` (characters of markdown, separators
/// included), stops at the first chunk past it, that chunk included: what follows is never
/// rendered (reading the start of a large document costs what is read).
pub(crate) fn export_chunks(
    blocks: &[Block],
    opts: &ExportOptions,
    losses: &mut Vec<FidelityLoss>,
    budget: Option<usize>,
) -> Vec<Chunk> {
    let mut w = Writer {
        opts: *opts,
        losses,
    };
    let mut out = vec![];
    let mut prev: Option<&str> = None;
    let mut number = 0u64;
    let mut size = 0;
    for b in blocks {
        let mut lines = vec![];
        number = next_number(prev, b, number, w.losses);
        w.block(b, "", number, &mut lines, 1);
        let sep = if prev.is_some_and(|p| is_list(p) && p == b.kind) {
            "\n"
        } else {
            "\n\n"
        };
        let text = lines.join("\n");
        size += text.len() + if out.is_empty() { 0 } else { sep.len() };
        out.push(Chunk {
            id: b.id.clone(),
            sep,
            text,
        });
        prev = Some(&b.kind);
        if budget.is_some_and(|budget| out.len() > 1 && size > budget) {
            break;
        }
    }
    out
}

fn is_list(kind: &str) -> bool {
    matches!(
        kind,
        "bulletListItem" | "numberedListItem" | "checkListItem" | "toggleListItem"
    )
}

/// The list marker a list block's line starts with (`- `, `3. `), empty for other blocks.
fn list_marker(b: &Block, number: u64) -> String {
    match b.kind.as_str() {
        "numberedListItem" => format!("{number}. "),
        kind if is_list(kind) => "- ".to_string(),
        _ => String::new(),
    }
}

/// What is lost when blocks nested past the limit are left out.
fn hidden_loss(hidden_blocks: usize) -> String {
    format!("nesting deeper than {MAX_NESTING} levels ({hidden_blocks} nested blocks not shown)")
}

fn next_number(prev: Option<&str>, b: &Block, number: u64, losses: &mut Vec<FidelityLoss>) -> u64 {
    if b.kind != "numberedListItem" {
        return 0;
    }
    let start = b.props.get("start").and_then(PropValue::as_f64);
    let continuing = prev == Some("numberedListItem");
    match (continuing, start) {
        (false, Some(s)) => s.max(0.0) as u64,
        (false, None) => 1,
        (true, Some(s)) => {
            losses.push(loss(b, format!("numberedListItem start={s}")));
            number + 1
        }
        (true, None) => number + 1,
    }
}

fn loss(b: &Block, dropped: impl Into<String>) -> FidelityLoss {
    FidelityLoss {
        block_id: b.id.clone(),
        block_type: b.kind.clone(),
        dropped: dropped.into(),
    }
}

struct Writer<'a> {
    opts: ExportOptions,
    losses: &'a mut Vec<FidelityLoss>,
}

fn fmt_value(v: &PropValue) -> String {
    match v {
        PropValue::String(s) => s.clone(),
        PropValue::Number(n) => crate::blocknote::tree::number_json(*n).to_string(),
        PropValue::Bool(b) => b.to_string(),
        PropValue::Undefined => "undefined".into(),
    }
}

impl Writer<'_> {
    fn lose(&mut self, b: &Block, what: impl Into<String>) {
        self.losses.push(loss(b, what));
    }

    /// Props markdown cannot express, when not at their default.
    fn prop_losses(&mut self, b: &Block) {
        let Some(spec) = block_spec(&b.kind) else {
            return;
        };
        for p in spec.props {
            let Some(v) = b.props.get(p.name) else {
                continue;
            };
            if *v == default_value(p) {
                continue;
            }
            match p.name {
                "backgroundColor" | "textColor" | "textAlignment" | "previewWidth"
                | "showPreview" => self.lose(b, format!("{}={}", p.name, fmt_value(v))),
                "isToggleable" => self.lose(b, "toggle"),
                "emoji" => self.lose(b, format!("callout emoji={}", fmt_value(v))),
                _ => {}
            }
        }
    }

    /// Writes a block at `depth` (1 for a top-level block) and its children, down to
    /// [`MAX_NESTING`]: deeper children (which reading never produces) are left out.
    fn block(&mut self, b: &Block, indent: &str, number: u64, out: &mut Vec<String>, depth: usize) {
        if self.opts.anchors {
            out.push(format!("{indent}{}", anchor(&b.id)));
        }
        let (first, rest_indent) = match &b.content {
            BlockContent::Opaque {
                text,
                hidden_blocks,
            } if *hidden_blocks > 0 => {
                self.lose(b, hidden_loss(*hidden_blocks));
                let marker = list_marker(b, number);
                let rest_indent = format!("{indent}{}", " ".repeat(marker.len()));
                (format!("{marker}{}", escape(text)), rest_indent)
            }
            _ => self.content(b, indent, number),
        };
        // indent continuation lines of the block itself
        let mut lines = first.split('\n');
        if let Some(l) = lines.next() {
            out.push(format!("{indent}{l}"));
        }
        let cont = if is_list(&b.kind) {
            rest_indent.clone()
        } else {
            indent.to_string()
        };
        for l in lines {
            out.push(if l.is_empty() {
                String::new()
            } else {
                format!("{cont}{l}")
            });
        }
        if b.children.is_empty() {
            return;
        }
        if depth >= MAX_NESTING {
            let hidden = b.walk().len() - 1;
            self.lose(b, hidden_loss(hidden));
            return;
        }
        if !is_list(&b.kind) {
            self.lose(b, "nesting (children exported unindented)");
        }
        let mut prev: Option<&str> = None;
        let mut number = 0;
        for c in &b.children {
            number = next_number(prev, c, number, self.losses);
            let tight =
                is_list(&b.kind) && is_list(&c.kind) && (prev.is_none() || prev == Some(&c.kind));
            if !tight {
                out.push(String::new());
            }
            self.block(c, &rest_indent, number, out, depth + 1);
            prev = Some(&c.kind);
        }
    }

    /// The markdown of a block's own content, and the indentation of its children.
    fn content(&mut self, b: &Block, indent: &str, number: u64) -> (String, String) {
        self.prop_losses(b);
        let inline = |w: &mut Self| w.inline(b, b.inline().unwrap_or(&[]), false);
        match b.kind.as_str() {
            "paragraph" => (inline(self), indent.to_string()),
            "heading" => {
                let level = b
                    .props
                    .get("level")
                    .and_then(PropValue::as_f64)
                    .unwrap_or(1.0)
                    .clamp(1.0, 6.0) as usize;
                (
                    format!("{} {}", "#".repeat(level), inline(self)),
                    indent.to_string(),
                )
            }
            "bulletListItem" => (format!("- {}", inline(self)), format!("{indent}  ")),
            "toggleListItem" => {
                self.lose(b, "toggle");
                (format!("- {}", inline(self)), format!("{indent}  "))
            }
            "checkListItem" => {
                let checked = b
                    .props
                    .get("checked")
                    .and_then(PropValue::as_bool)
                    .unwrap_or(false);
                (
                    format!("- [{}] {}", if checked { "x" } else { " " }, inline(self)),
                    format!("{indent}  "),
                )
            }
            "numberedListItem" => {
                let marker = format!("{number}. ");
                let pad = " ".repeat(marker.len());
                (
                    format!("{marker}{}", inline(self)),
                    format!("{indent}{pad}"),
                )
            }
            "quote" => (
                format!("> {}", inline(self).replace('\n', "\n> ")),
                indent.to_string(),
            ),
            "callout" => {
                self.lose(b, "callout");
                (
                    format!("> {}", inline(self).replace('\n', "\n> ")),
                    indent.to_string(),
                )
            }
            "codeBlock" => {
                let lang = b
                    .props
                    .get("language")
                    .and_then(PropValue::as_str)
                    .unwrap_or("text");
                let lang = if lang == "text" { "" } else { lang };
                (fenced(lang, &b.plain_text()), indent.to_string())
            }
            // A diagram is a ```mermaid fence, which imports back as a diagram (as in Docs'
            // editor, where the diagram block claims `mermaid` code before the code block).
            DIAGRAM => (fenced("mermaid", &b.plain_text()), indent.to_string()),
            MATH_BLOCK => (self.math_block(b), indent.to_string()),
            "divider" => ("---".into(), indent.to_string()),
            "pageBreak" => {
                self.lose(b, "pageBreak");
                ("<!-- pageBreak -->".into(), indent.to_string())
            }
            "image" => {
                let url = prop_str(b, "url");
                let alt = first_non_empty(&[prop_str(b, "caption"), prop_str(b, "name")]);
                (
                    format!("![{}]({})", escape(&alt), url_escape(&url)),
                    indent.to_string(),
                )
            }
            "video" | "audio" | "file" | "pdf" => {
                self.lose(b, format!("{} shown as a link", b.kind));
                let url = prop_str(b, "url");
                let label =
                    first_non_empty(&[prop_str(b, "caption"), prop_str(b, "name"), url.clone()]);
                (
                    format!("[{}]({})", escape(&label), url_escape(&url)),
                    indent.to_string(),
                )
            }
            "table" => match &b.content {
                BlockContent::Table { table } => (self.table(b, table, indent), indent.to_string()),
                _ => (String::new(), indent.to_string()),
            },
            "uploadLoader" => {
                self.lose(b, "uploadLoader (upload in progress)");
                (String::new(), indent.to_string())
            }
            other => {
                self.lose(
                    b,
                    format!(
                        "unknown block `{}`",
                        if other.is_empty() { "(empty)" } else { other }
                    ),
                );
                (escape(&b.plain_text()), indent.to_string())
            }
        }
    }

    /// `$$`, the LaTeX source, `$$`, each on its own line (as BlockNote exports it); a
    /// source that this display math would not hold as it is goes in a ```` ```math ```` fence
    /// instead (GitHub's display math), which imports back as a math block too.
    fn math_block(&mut self, b: &Block) -> String {
        let latex = b.plain_text();
        if latex.is_empty() {
            "$$\n$$".into()
        } else if display_math_holds(&latex) {
            format!("$$\n{latex}\n$$")
        } else {
            fenced("math", &latex)
        }
    }

    fn table(&mut self, b: &Block, t: &TableContent, indent: &str) -> String {
        let width = t.width();
        let mut lines = vec![];
        if t.rows
            .first()
            .is_some_and(|r| r.cells.iter().any(|c| !c.header))
        {
            self.lose(b, "table without header row (first row shown as header)");
        }
        if t.rows
            .iter()
            .skip(1)
            .any(|r| r.cells.iter().any(|c| c.header))
        {
            self.lose(b, "header cells outside the first row");
        }
        for (ri, row) in t.rows.iter().enumerate() {
            let mut cells = vec![];
            for c in &row.cells {
                for (k, name) in [("colspan", "colspan"), ("rowspan", "rowspan")] {
                    if c.props.get(k).and_then(PropValue::as_f64).unwrap_or(1.0) != 1.0 {
                        self.lose(b, name);
                    }
                }
                if c.colwidth.is_some() {
                    self.lose(b, "colwidth");
                }
                for (k, d) in [
                    ("backgroundColor", "default"),
                    ("textColor", "default"),
                    ("textAlignment", "left"),
                ] {
                    if let Some(PropValue::String(v)) = c.props.get(k)
                        && v != d
                    {
                        self.lose(b, format!("cell {k}={v}"));
                    }
                }
                cells.push(self.inline(b, &c.content, true));
            }
            while cells.len() < width {
                cells.push(String::new());
            }
            lines.push(format!("| {} |", cells.join(" | ")));
            if ri == 0 {
                lines.push(format!("|{}", " --- |".repeat(width)));
            }
        }
        let _ = indent;
        lines.join("\n")
    }
}

/// A fenced code block, its fence longer than any run of backticks in the code.
fn fenced(lang: &str, code: &str) -> String {
    let mut fence = "```".to_string();
    while code.contains(&fence) {
        fence.push('`');
    }
    format!("{fence}{lang}\n{code}\n{fence}")
}

fn prop_str(b: &Block, k: &str) -> String {
    b.props
        .get(k)
        .and_then(PropValue::as_str)
        .unwrap_or("")
        .to_string()
}

fn first_non_empty(v: &[String]) -> String {
    v.iter()
        .find(|s| !s.is_empty())
        .cloned()
        .unwrap_or_default()
}
