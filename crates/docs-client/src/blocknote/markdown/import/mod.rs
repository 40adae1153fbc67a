//! Markdown import (pulldown-cmark with tables, task lists, strikethrough and, as
//! `MathInput` says, math) into [`NewBlock`]s. Never panics: anything it does not map becomes
//! plain text or is skipped. Lists nested deeper than [`MAX_NESTING`] are refused; the import
//! never recurses on the input's depth.
//!
//! Math and diagrams (Docs ≥ 5.6) are read-only for an instance without them
//! (`schema::EditorSchema`): `$…$`
//! and `$$…$$` are text, ```` ```math ```` and ```` ```mermaid ```` fences code blocks of those
//! languages; only a rewrite of inline content holding inline math reads the `$…$` that
//! reproduce it as that math again (`MathInput::Kept`). Where it has them (`MathInput::Any`), a
//! paragraph that is only `$$…$$`, or a ```` ```math ```` fence (GitHub's display math, which
//! holds any source), becomes a math block; a ```` ```mermaid ```` fence a diagram block (as
//! pasting it does in Docs' editor, where the diagram block claims `mermaid` code before the
//! code block); `$…$` (and `$$…$$` within text) inline math. Wherever `$` is read as math, a
//! dollar that opens math but should not is written `\$`, and, as in Pandoc, `$…$` starting
//! with a digit and followed by one is not math, so `$5,$10` stays text.

mod inline;
mod runs;
mod table;

pub(crate) use inline::parse_inline_with;
pub use inline::{parse_inline, parse_inline_in};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::blocknote::error::ModelResult;
use crate::blocknote::inline::normalize_inline;
use crate::blocknote::markdown::math::MathInput;
use crate::blocknote::nesting::{MAX_NESTING, check_depth};
use crate::blocknote::schema::{DIAGRAM, EditorSchema, MATH_BLOCK};
use crate::blocknote::tree::{Inline, NewBlock, NewContent, PropValue, TextRun};
use runs::InlineState;
use table::TableBuilder;

fn options(math: &MathInput) -> Options {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH;
    if math.reads_dollars() {
        options | Options::ENABLE_MATH
    } else {
        options
    }
}

enum Frame {
    Root(Vec<NewBlock>),
    Quote(Vec<NewBlock>),
    List {
        ordered: bool,
        start: u64,
        items: Vec<NewBlock>,
    },
    Item {
        content: Option<Vec<Inline>>,
        checked: Option<bool>,
        children: Vec<NewBlock>,
    },
}

#[derive(PartialEq)]
enum Leaf {
    Paragraph,
    Implicit,
    Heading(u8),
    Code(String),
    Cell,
}

struct Importer {
    math: MathInput,
    stack: Vec<Frame>,
    leaf: Option<Leaf>,
    inl: InlineState,
    code: String,
    table: Option<TableBuilder>,
}

fn block(kind: &str, content: Option<NewContent>) -> NewBlock {
    NewBlock {
        kind: kind.into(),
        props: Default::default(),
        content,
        children: vec![],
    }
}

impl Importer {
    fn emit(&mut self, b: NewBlock) {
        match self.stack.last_mut() {
            Some(Frame::Root(v)) | Some(Frame::Quote(v)) => v.push(b),
            Some(Frame::Item {
                content, children, ..
            }) => {
                if content.is_none() && children.is_empty() && b.kind == "paragraph" {
                    *content = Some(match b.content {
                        Some(NewContent::Inline(i)) => i,
                        _ => vec![],
                    });
                } else {
                    children.push(b);
                }
            }
            Some(Frame::List { items, .. }) => items.push(b),
            None => {}
        }
    }

    fn start_leaf(&mut self, leaf: Leaf) {
        self.close_implicit();
        self.leaf = Some(leaf);
        self.inl = InlineState::default();
    }

    fn ensure_leaf(&mut self) {
        if self.leaf.is_none() {
            self.start_leaf(Leaf::Implicit);
        }
    }

    fn close_implicit(&mut self) {
        if self.leaf == Some(Leaf::Implicit) {
            self.end_paragraph();
        }
    }

    fn take_inline(&mut self) -> Vec<Inline> {
        let runs = std::mem::take(&mut self.inl.runs);
        trim_inline(normalize_inline(runs))
    }

    fn end_paragraph(&mut self) {
        self.leaf = None;
        let only_images = !self.inl.images.is_empty() && !self.inl.other;
        if only_images {
            let images = std::mem::take(&mut self.inl.images);
            self.inl.runs.clear();
            for (url, alt) in images {
                let mut b = block("image", None);
                b.props.insert("url".into(), PropValue::String(url));
                if !alt.is_empty() {
                    b.props.insert("caption".into(), PropValue::String(alt));
                }
                self.emit(b);
            }
            return;
        }
        let display_math = self.inl.display_math == 1 && self.math == MathInput::Any;
        let inline = self.take_inline();
        if let ([Inline::Math { latex }], true) = (inline.as_slice(), display_math) {
            let latex = latex.trim().to_string();
            self.emit(block(MATH_BLOCK, Some(NewContent::Markdown(latex))));
            return;
        }
        if inline.is_empty() && !matches!(self.stack.last(), Some(Frame::Item { .. })) {
            return;
        }
        self.emit(block("paragraph", Some(NewContent::Inline(inline))));
    }

    /// Handles one event; `digit_next` tells whether the next one is text starting with a
    /// digit (`$5,$10`: not math).
    fn event(&mut self, ev: Event, digit_next: bool) {
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                if let Some(Leaf::Code(_)) = self.leaf {
                    self.code.push_str(&t);
                } else {
                    self.ensure_leaf();
                    self.inl.text(&t, false);
                }
            }
            Event::Code(t) => {
                self.ensure_leaf();
                self.inl.text(&t, true);
            }
            Event::InlineMath(t) if digit_next && t.starts_with(|c: char| c.is_ascii_digit()) => {
                self.ensure_leaf();
                self.inl.text(&format!("${t}$"), false);
            }
            Event::InlineMath(t) => {
                self.ensure_leaf();
                if self.math.take(&t) {
                    self.inl.math(&t);
                } else {
                    self.inl.text(&format!("${t}$"), false);
                }
            }
            Event::DisplayMath(t) => {
                self.ensure_leaf();
                if self.math.take(t.trim()) {
                    self.inl.display_math += 1;
                    self.inl.math(t.trim());
                } else {
                    self.inl
                        .text(&format!("$${}$$", t.replace('\n', " ")), false);
                }
            }
            Event::SoftBreak => {
                if self.leaf.is_some() {
                    self.inl.text(" ", false);
                }
            }
            Event::HardBreak => {
                if self.leaf.is_some() {
                    self.inl.runs.push(Inline::HardBreak);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                let t = h.trim();
                if t.eq_ignore_ascii_case("<br>")
                    || t.eq_ignore_ascii_case("<br/>")
                    || t.eq_ignore_ascii_case("<br />")
                {
                    if self.leaf.is_some() {
                        self.inl.runs.push(Inline::HardBreak);
                    }
                } else if !t.starts_with("<!--") && !t.is_empty() {
                    self.ensure_leaf();
                    self.inl.text(&h, false);
                }
            }
            Event::Rule => {
                self.close_implicit();
                self.emit(block("divider", None));
            }
            Event::TaskListMarker(checked) => {
                if let Some(Frame::Item { checked: c, .. }) = self.stack.last_mut() {
                    *c = Some(checked);
                }
            }
            Event::FootnoteReference(r) => {
                self.ensure_leaf();
                self.inl.text(&format!("[^{r}]"), false);
            }
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Paragraph => self.start_leaf(Leaf::Paragraph),
            Tag::Heading { level, .. } => self.start_leaf(Leaf::Heading(level as u8)),
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => {
                        l.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.start_leaf(Leaf::Code(lang));
                self.code.clear();
            }
            Tag::BlockQuote(_) => {
                self.close_implicit();
                self.stack.push(Frame::Quote(vec![]));
            }
            Tag::List(start) => {
                self.close_implicit();
                self.stack.push(Frame::List {
                    ordered: start.is_some(),
                    start: start.unwrap_or(1),
                    items: vec![],
                });
            }
            Tag::Item => {
                self.close_implicit();
                self.stack.push(Frame::Item {
                    content: None,
                    checked: None,
                    children: vec![],
                });
            }
            Tag::Table(_) => {
                self.close_implicit();
                self.table = Some(TableBuilder::default());
            }
            Tag::TableHead => {
                if let Some(table) = &mut self.table {
                    table.start_head();
                }
            }
            Tag::TableRow => {
                if let Some(table) = &mut self.table {
                    table.start_row();
                }
            }
            Tag::TableCell => self.start_leaf(Leaf::Cell),
            Tag::Emphasis => self.inl.italic += 1,
            Tag::Strong => self.inl.bold += 1,
            Tag::Strikethrough => self.inl.strike += 1,
            Tag::Link { dest_url, .. } => {
                self.ensure_leaf();
                self.inl.links.push(dest_url.to_string());
            }
            Tag::Image { dest_url, .. } => {
                self.ensure_leaf();
                self.inl.image = Some((dest_url.to_string(), String::new()));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph if self.leaf.is_some() => self.end_paragraph(),
            TagEnd::Heading(_) => {
                let level = match self.leaf {
                    Some(Leaf::Heading(l)) => l,
                    _ => 1,
                };
                self.leaf = None;
                let inline = self.take_inline();
                let mut b = block("heading", Some(NewContent::Inline(inline)));
                b.props
                    .insert("level".into(), PropValue::Number(level.min(6) as f64));
                self.emit(b);
            }
            TagEnd::CodeBlock => {
                let lang = match self.leaf.take() {
                    Some(Leaf::Code(l)) => l,
                    _ => String::new(),
                };
                let mut text = std::mem::take(&mut self.code);
                if text.ends_with('\n') {
                    text.pop();
                }
                match lang.as_str() {
                    "mermaid" if self.math == MathInput::Any => {
                        return self.emit(block(DIAGRAM, Some(NewContent::Markdown(text))));
                    }
                    "math" if self.math == MathInput::Any => {
                        return self.emit(block(MATH_BLOCK, Some(NewContent::Markdown(text))));
                    }
                    _ => {}
                }
                let mut b = block("codeBlock", Some(NewContent::Markdown(text)));
                if !lang.is_empty() {
                    b.props.insert("language".into(), PropValue::String(lang));
                }
                self.emit(b);
            }
            TagEnd::BlockQuote(_) => {
                self.close_implicit();
                if let Some(Frame::Quote(blocks)) = self.stack.pop() {
                    for mut b in blocks {
                        if b.kind == "paragraph" {
                            b.kind = "quote".into();
                        }
                        self.emit(b);
                    }
                }
            }
            TagEnd::Item => {
                self.close_implicit();
                if let Some(Frame::Item {
                    content,
                    checked,
                    children,
                }) = self.stack.pop()
                {
                    let (ordered, first) = match self.stack.last() {
                        Some(Frame::List { ordered, items, .. }) => (*ordered, items.is_empty()),
                        _ => (false, false),
                    };
                    let kind = match (checked, ordered) {
                        (Some(_), _) => "checkListItem",
                        (None, true) => "numberedListItem",
                        (None, false) => "bulletListItem",
                    };
                    let mut b = block(kind, Some(NewContent::Inline(content.unwrap_or_default())));
                    b.children = children;
                    if let Some(c) = checked {
                        b.props.insert("checked".into(), PropValue::Bool(c));
                    }
                    if let (true, true, Some(Frame::List { start, .. })) =
                        (ordered, first, self.stack.last())
                        && *start != 1
                        && checked.is_none()
                    {
                        b.props
                            .insert("start".into(), PropValue::Number(*start as f64));
                    }
                    self.emit(b);
                }
            }
            TagEnd::List(_) => {
                self.close_implicit();
                if let Some(Frame::List { items, .. }) = self.stack.pop() {
                    for b in items {
                        self.emit(b);
                    }
                }
            }
            TagEnd::TableCell => {
                self.leaf = None;
                let content = self.take_inline();
                if let Some(table) = &mut self.table {
                    table.cell(content);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = &mut self.table {
                    table.end_row();
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take().and_then(TableBuilder::finish) {
                    self.emit(block("table", Some(NewContent::Table(table))));
                }
            }
            TagEnd::Emphasis => self.inl.italic = self.inl.italic.saturating_sub(1),
            TagEnd::Strong => self.inl.bold = self.inl.bold.saturating_sub(1),
            TagEnd::Strikethrough => self.inl.strike = self.inl.strike.saturating_sub(1),
            TagEnd::Link => {
                self.inl.links.pop();
            }
            TagEnd::Image => {
                if let Some((url, alt)) = self.inl.image.take() {
                    let shown = if alt.is_empty() {
                        url.clone()
                    } else {
                        alt.clone()
                    };
                    self.inl.runs.push(Inline::Text(TextRun {
                        text: shown,
                        styles: self.inl.styles(),
                        link: Some(url.clone()),
                        comments: vec![],
                    }));
                    self.inl.images.push((url, alt));
                }
            }
            _ => {}
        }
    }
}

fn trim_inline(mut v: Vec<Inline>) -> Vec<Inline> {
    while matches!(v.last(), Some(Inline::HardBreak)) {
        v.pop();
    }
    if let Some(Inline::Text(r)) = v.first_mut() {
        let t = r.text.trim_start().to_string();
        r.text = t;
    }
    if let Some(Inline::Text(r)) = v.last_mut() {
        let t = r.text.trim_end().to_string();
        r.text = t;
    }
    normalize_inline(v)
}

/// Imports a markdown document into new blocks for an instance of Docs' base schema (no math
/// or diagram: [`import_markdown_in`]). Lists nested deeper than [`MAX_NESTING`] are refused
/// with [`ModelError::NestingTooDeep`](crate::blocknote::ModelError::NestingTooDeep), which
/// says how deep they go.
pub fn import_markdown(markdown: &str) -> ModelResult<Vec<NewBlock>> {
    import_markdown_in(markdown, EditorSchema::BASE)
}

/// [`import_markdown`] for an instance of this schema: where it has math, `$…$`, `$$…$$`
/// and ```` ```math ````, ```` ```mermaid ```` fences make math and diagrams.
pub fn import_markdown_in(markdown: &str, schema: EditorSchema) -> ModelResult<Vec<NewBlock>> {
    import_with(markdown, MathInput::new_content(schema))
}

/// [`import_markdown`], reading math as `math` says.
pub(crate) fn import_with(markdown: &str, math: MathInput) -> ModelResult<Vec<NewBlock>> {
    let options = options(&math);
    let mut imp = Importer {
        math,
        stack: vec![Frame::Root(vec![])],
        leaf: None,
        inl: InlineState::default(),
        code: String::new(),
        table: None,
    };
    // A list item is a block, nested in the item around it (quotes add no level): the items
    // open at once are the depth of the blocks being built. Past the limit nothing more is
    // built, the events are only counted to tell how deep the input goes.
    let (mut depth, mut deepest) = (0usize, 0);
    let mut events = Parser::new_ext(markdown, options).peekable();
    while let Some(ev) = events.next() {
        match ev {
            Event::Start(Tag::Item) => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            Event::End(TagEnd::Item) => depth = depth.saturating_sub(1),
            _ => {}
        }
        if deepest <= MAX_NESTING {
            let digit_next = matches!(events.peek(),
                Some(Event::Text(t)) if t.starts_with(|c: char| c.is_ascii_digit()));
            imp.event(ev, digit_next);
        }
    }
    check_depth(deepest)?;
    imp.close_implicit();
    // unwind anything left open (malformed input cannot happen with pulldown-cmark, but be safe)
    while imp.stack.len() > 1 {
        match imp.stack.pop() {
            Some(Frame::Quote(v)) | Some(Frame::List { items: v, .. }) => {
                for b in v {
                    imp.emit(b)
                }
            }
            Some(Frame::Item {
                content, children, ..
            }) => {
                let mut b = block(
                    "bulletListItem",
                    Some(NewContent::Inline(content.unwrap_or_default())),
                );
                b.children = children;
                imp.emit(b);
            }
            _ => {}
        }
    }
    Ok(match imp.stack.pop() {
        Some(Frame::Root(v)) => v,
        _ => vec![],
    })
}
