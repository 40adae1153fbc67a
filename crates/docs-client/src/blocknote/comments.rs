//! Comments in the document: BlockNote's `comment` mark, which anchors a Docs comment thread
//! to a stretch of text, and the bodies of comments (BlockNote blocks of their own).
//!
//! Docs keeps threads and their comments behind its REST API; the document only holds where
//! each thread is. BlockNote's `CommentMark` (name `comment`, attributes `orphan` — default
//! false — then `threadId`; `excludes: ""`, so it may overlap itself; not inclusive) is
//! stored by y-prosemirror like any mark, as a formatting attribute of the text's Y.XmlText.
//! Because the mark may overlap itself, the attribute's key is `comment--` followed by a hash
//! of the mark's JSON, and its value is the mark's attributes:
//!
//! ```text
//! key   "comment--" + base64(fold6(sha256(lib0.encodeAny({"type":"comment",
//!                                   "attrs":{"orphan":false,"threadId":"<id>"}}))))
//! value {"orphan": false, "threadId": "<id>"}
//! ```
//!
//! (y-prosemirror 1.3.7 `hashOfJSON`; `fold6` XORs the 32-byte digest down to 6 bytes:
//! `d[i % 6] ^= d[i]` for `i` in 6..32.) Readers take the thread from the value, never from
//! the key: BlockNote's editor flips `orphan` (a new key) when a thread is resolved.
//!
//! A commented run read back has its [`CommentMark`]s; [`comment_anchors`] lists, per block,
//! the exact text each thread covers; [`add_comment_mark`] anchors a thread on a range of a
//! block's text. A comment's body is BlockNote block JSON, written by Docs' comment editor
//! (paragraphs only): [`comment_body_from_markdown`] and [`comment_body_to_markdown`].
//!
//! A run's marks are `TextRun.comments`. An anchor's `start` and `end` are character offsets in the
//! block's `plain_text`, where `text_occurrences` finds a quoted text; `add_comment_mark` writes in
//! the caller's transaction. The key is `comment_mark_key`.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use yrs::types::Attrs;
use yrs::types::text::YChange;
use yrs::{
    Any, Doc, Out, Text, Transact, TransactionMut, Xml, XmlFragment, XmlFragmentRef, XmlOut,
};

use super::error::{ModelError, ModelResult};
use super::inline::{char_len, offset_kind};
use super::json::{blocks_from_json, blocks_json};
use super::markdown::export::{ExportOptions, export_markdown};
use super::markdown::import::{import_markdown, parse_inline};
use super::read::read_document;
use super::schema::{ContentKind, EditorSchema, HARD_BREAK, block_spec};
use super::tree::{
    Block, BlockContent, CommentMark, Inline, NewBlock, NewContent, PropValue, Styles,
    TableContent, TextRun,
};
use super::write::{Position, editable_block, insert_blocks};

/// The name of BlockNote's comment mark.
pub const COMMENT_MARK: &str = "comment";

/// A value of the small JSON subset a mark's JSON needs, to encode in lib0's `encodeAny`
/// binary format. Object keys keep their order: the hash depends on it. Only built here, from
/// a fixed shape (never from input), so the recursion of [`encode_any`] is two levels deep.
enum Lib0<'a> {
    Str(&'a str),
    Bool(bool),
    Object(Vec<(&'a str, Lib0<'a>)>),
}

fn write_var_uint(out: &mut Vec<u8>, mut n: usize) {
    while n > 0x7f {
        out.push(0x80 | (n & 0x7f) as u8);
        n >>= 7;
    }
    out.push(n as u8);
}

fn write_var_string(out: &mut Vec<u8>, s: &str) {
    write_var_uint(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// lib0 `encoding.writeAny`: type 119 + var-string for a string, 120/121 for true/false,
/// 118 + var-uint count + (var-string key, value)… for an object.
fn encode_any(out: &mut Vec<u8>, value: &Lib0) {
    match value {
        Lib0::Str(s) => {
            out.push(119);
            write_var_string(out, s);
        }
        Lib0::Bool(b) => out.push(if *b { 120 } else { 121 }),
        Lib0::Object(fields) => {
            out.push(118);
            write_var_uint(out, fields.len());
            for (key, value) in fields {
                write_var_string(out, key);
                encode_any(out, value);
            }
        }
    }
}

/// y-prosemirror's `hashOfJSON`: SHA-256 of lib0 `encodeAny(json)`, XOR-folded to 6 bytes,
/// in base64 (8 characters).
fn hash_of_json(value: &Lib0) -> String {
    let mut bytes = Vec::new();
    encode_any(&mut bytes, value);
    let digest = Sha256::digest(&bytes);
    let mut folded = [0u8; 6];
    for (i, byte) in digest.iter().enumerate() {
        folded[i % 6] ^= byte;
    }
    BASE64.encode(folded)
}

/// The formatting attribute key y-prosemirror gives a comment mark: `comment--<hash>` of the
/// mark's JSON `{"type":"comment","attrs":{"orphan":…,"threadId":…}}` (ProseMirror's
/// `Mark.toJSON`: `type` then `attrs`, the attributes in the order of the mark's spec).
pub fn comment_mark_key(thread_id: &str, orphan: bool) -> String {
    let json = Lib0::Object(vec![
        ("type", Lib0::Str(COMMENT_MARK)),
        (
            "attrs",
            Lib0::Object(vec![
                ("orphan", Lib0::Bool(orphan)),
                ("threadId", Lib0::Str(thread_id)),
            ]),
        ),
    ]);
    format!("{COMMENT_MARK}--{}", hash_of_json(&json))
}

/// The formatting attribute value of a comment mark: its attributes `{orphan, threadId}`.
fn comment_mark_value(thread_id: &str, orphan: bool) -> Any {
    Any::Map(Arc::new(HashMap::from([
        ("orphan".to_owned(), Any::Bool(orphan)),
        ("threadId".to_owned(), Any::String(thread_id.into())),
    ])))
}

// ---------------------------------------------------------------------------------------------
// Reading anchors

/// Where a thread is anchored: a stretch of one block's text carrying its comment mark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentAnchor {
    pub thread_id: String,
    /// BlockNote marked the anchor orphaned (its thread resolved or deleted).
    #[serde(default)]
    pub orphan: bool,
    pub block_id: String,
    /// The exact text the mark covers.
    pub text: String,
    /// Where that text is in the block's plain text ([`Block::plain_text`]), in characters
    /// (Unicode scalar values): `start..end`.
    pub start: usize,
    pub end: usize,
}

/// The inline pieces of a block, each with where it starts in the block's plain text (in
/// characters): the inline content, or each table cell's.
fn inline_segments(block: &Block) -> Vec<(usize, &[Inline])> {
    fn chars(inline: &[Inline]) -> usize {
        super::tree::inline_plain_text(inline).chars().count()
    }
    match &block.content {
        BlockContent::Inline { inline } => vec![(0, inline.as_slice())],
        BlockContent::Table { table } => {
            let mut out = vec![];
            let mut at = 0;
            for (r, row) in table.rows.iter().enumerate() {
                if r > 0 {
                    at += 1; // "\n" between rows
                }
                for (c, cell) in row.cells.iter().enumerate() {
                    if c > 0 {
                        at += 3; // " | " between cells
                    }
                    out.push((at, cell.content.as_slice()));
                    at += chars(&cell.content);
                }
            }
            out
        }
        BlockContent::None | BlockContent::Opaque { .. } => vec![],
    }
}

/// Every stretch of text carrying a comment mark, block by block in document order (nested
/// blocks after their parent): adjacent runs with the same mark are one anchor, anything
/// else (a hard break, an inline element, a cell boundary) ends it. A thread anchored in two
/// places has two anchors; a thread with none has no anchor left in the document (its text
/// was deleted). Opaque blocks are not looked into.
pub fn comment_anchors(blocks: &[Block]) -> Vec<CommentAnchor> {
    let mut out: Vec<CommentAnchor> = vec![];
    for block in blocks.iter().flat_map(Block::walk) {
        for (start, inline) in inline_segments(block) {
            let mut at = start;
            // Anchors still growing: mark → index in `out`.
            let mut open: HashMap<&CommentMark, usize> = HashMap::new();
            for item in inline {
                let Inline::Text(run) = item else {
                    open.clear();
                    at += match item {
                        Inline::HardBreak => 1,
                        other => super::tree::inline_plain_text(std::slice::from_ref(other))
                            .chars()
                            .count(),
                    };
                    continue;
                };
                let len = run.text.chars().count();
                open.retain(|mark, _| run.comments.contains(mark));
                for mark in &run.comments {
                    match open.get(mark) {
                        Some(&i) => {
                            out[i].text.push_str(&run.text);
                            out[i].end += len;
                        }
                        None => {
                            open.insert(mark, out.len());
                            out.push(CommentAnchor {
                                thread_id: mark.thread_id.clone(),
                                orphan: mark.orphan,
                                block_id: block.id.clone(),
                                text: run.text.clone(),
                                start: at,
                                end: at + len,
                            });
                        }
                    }
                }
                at += len;
            }
        }
    }
    out
}

/// [`comment_anchors`] grouped by thread id (each thread's anchors in document order).
pub fn anchors_by_thread(anchors: Vec<CommentAnchor>) -> BTreeMap<String, Vec<CommentAnchor>> {
    let mut out: BTreeMap<String, Vec<CommentAnchor>> = BTreeMap::new();
    for anchor in anchors {
        out.entry(anchor.thread_id.clone())
            .or_default()
            .push(anchor);
    }
    out
}

/// Where `needle` occurs in `haystack` (not overlapping), as character ranges: what
/// [`add_comment_mark`] takes, found in a block's [`Block::plain_text`].
pub fn text_occurrences(haystack: &str, needle: &str) -> Vec<Range<usize>> {
    if needle.is_empty() {
        return vec![];
    }
    let len = needle.chars().count();
    let (mut chars_before, mut bytes_seen) = (0, 0);
    haystack
        .match_indices(needle)
        .map(|(byte, _)| {
            chars_before += haystack[bytes_seen..byte].chars().count();
            bytes_seen = byte;
            chars_before..chars_before + len
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Writing the mark

/// Anchors thread `thread_id` on the characters `range` of a block's plain text
/// ([`Block::plain_text`]; find them with [`text_occurrences`]), as Docs' editor does: every
/// piece of text in the range gets the comment mark (`orphan: false`), under the key
/// y-prosemirror gives it ([`comment_mark_key`]), so browsers read the very mark their editor
/// would have written. Hard breaks and inline elements in the range keep no mark. Returns the
/// text covered.
///
/// Only blocks with inline text can hold the mark (not code blocks, whose text takes no
/// marks, nor tables); a range that is empty or past the end is refused
/// ([`ModelError::InvalidTextRange`]). Nothing is changed when refused.
pub fn add_comment_mark(
    txn: &mut TransactionMut,
    frag: &XmlFragmentRef,
    block_id: &str,
    range: Range<usize>,
    thread_id: &str,
) -> ModelResult<String> {
    // (whether the instance has math matters not: a mark goes into inline content only, as
    // checked next)
    let (_, block, node) =
        editable_block(txn, frag, block_id, EditorSchema::WITH_MATH_AND_DIAGRAMS)?;
    let spec = block_spec(&block.kind).expect("an editable block has a spec");
    if spec.content != ContentKind::Inline {
        return Err(ModelError::WrongBlockKind {
            id: block_id.into(),
            block_type: block.kind.clone(),
            what: match spec.content {
                ContentKind::Code => "code, whose text takes no marks".into(),
                ContentKind::Table => "table content; comment the text of another block".into(),
                _ => "no text to anchor a comment to".into(),
            },
        });
    }
    if thread_id.is_empty() {
        return Err(ModelError::InvalidContent {
            block_type: COMMENT_MARK.into(),
            problem: "needs the id of its thread".into(),
        });
    }
    let text = block.plain_text();
    let len = text.chars().count();
    if range.start >= range.end || range.end > len {
        return Err(ModelError::InvalidTextRange {
            id: block_id.into(),
            start: range.start,
            end: range.end,
            len,
        });
    }
    // Where the range lies in each Y.XmlText, in the document's offset unit. Characters are
    // counted as `plain_text` counts them: a hard break is one, an inline element its title.
    let kind = offset_kind(txn);
    let mut targets = vec![];
    let mut at = 0usize;
    for child in node.children(txn) {
        match child {
            XmlOut::Text(t) => {
                let (mut unit, mut from, mut length) = (0u32, None, 0u32);
                for chunk in t.diff(txn, YChange::identity) {
                    match &chunk.insert {
                        Out::Any(Any::String(s)) => {
                            for c in s.chars() {
                                let l = char_len(kind, c);
                                if range.contains(&at) {
                                    from.get_or_insert(unit);
                                    length += l;
                                }
                                unit += l;
                                at += 1;
                            }
                        }
                        _ => unit += 1, // an embed: no text
                    }
                }
                if let Some(from) = from {
                    targets.push((t, from, length));
                }
            }
            XmlOut::Element(e) if e.tag().as_ref() == HARD_BREAK => at += 1,
            XmlOut::Element(e) => {
                if let Some(Out::Any(Any::String(title))) = e.get_attribute(txn, "title") {
                    at += title.chars().count();
                }
            }
            XmlOut::Fragment(_) => {}
        }
    }
    let attrs = Attrs::from([(
        comment_mark_key(thread_id, false).into(),
        comment_mark_value(thread_id, false),
    )]);
    for (t, from, length) in targets {
        t.format(txn, from, length, attrs.clone());
    }
    Ok(text.chars().skip(range.start).take(range.len()).collect())
}

// ---------------------------------------------------------------------------------------------
// Comment bodies

/// The styles Docs' comment editor has (BlockNote's default comment schema: no colours).
fn comment_styles(styles: &Styles) -> Styles {
    Styles {
        text_color: None,
        background_color: None,
        ..styles.clone()
    }
}

fn inline_of(content: Option<&NewContent>) -> ModelResult<Vec<Inline>> {
    Ok(match content {
        None => vec![],
        Some(NewContent::Markdown(md)) => parse_inline(md)?,
        Some(NewContent::Inline(inline)) => inline.clone(),
        Some(NewContent::Table(table)) => table_lines(table),
    })
}

/// A table as lines of text: each row's cells separated by ` | `.
fn table_lines(table: &TableContent) -> Vec<Inline> {
    let mut out = vec![];
    for (r, row) in table.rows.iter().enumerate() {
        if r > 0 {
            out.push(Inline::HardBreak);
        }
        for (c, cell) in row.cells.iter().enumerate() {
            if c > 0 {
                out.push(Inline::Text(TextRun::plain(" | ")));
            }
            out.extend(cell.content.iter().cloned());
        }
    }
    out
}

/// One block of markdown as a paragraph of Docs' comment editor, whose schema has paragraphs
/// only: headings become bold, list items and quotes keep a textual marker, code blocks
/// become code-styled lines, tables lines of cells; `indent` is the block's nesting.
fn comment_paragraph(block: &NewBlock, number: usize, indent: usize) -> ModelResult<NewBlock> {
    let mut inline = match block.kind.as_str() {
        "codeBlock" => {
            let code = match &block.content {
                Some(NewContent::Markdown(s)) => s.clone(),
                other => super::tree::inline_plain_text(&inline_of(other.as_ref())?),
            };
            let code_style = Styles {
                code: true,
                ..Styles::default()
            };
            let mut out = vec![];
            for (i, line) in code.split('\n').enumerate() {
                if i > 0 {
                    out.push(Inline::HardBreak);
                }
                if !line.is_empty() {
                    out.push(Inline::Text(TextRun::styled(line, code_style.clone())));
                }
            }
            out
        }
        "divider" => vec![Inline::Text(TextRun::plain("———"))],
        _ => inline_of(block.content.as_ref())?,
    };
    for item in &mut inline {
        if let Inline::Text(run) = item {
            run.styles = comment_styles(&run.styles);
            if block.kind == "heading" {
                run.styles.bold = true;
            }
        }
    }
    let checked = matches!(block.props.get("checked"), Some(PropValue::Bool(true)));
    let marker = match block.kind.as_str() {
        "bulletListItem" | "toggleListItem" => "• ".to_owned(),
        "numberedListItem" => format!("{number}. "),
        "checkListItem" if checked => "☑ ".to_owned(),
        "checkListItem" => "☐ ".to_owned(),
        "quote" => "> ".to_owned(),
        _ => String::new(),
    };
    let prefix = format!("{}{marker}", "  ".repeat(indent));
    if !prefix.is_empty() {
        inline.insert(0, Inline::Text(TextRun::plain(prefix)));
    }
    Ok(NewBlock::new("paragraph").inline(super::inline::normalize_inline(inline)))
}

/// A comment body, as Docs' comment editor writes it (BlockNote blocks JSON: paragraphs with
/// their default props, bold/italic/underline/strike/code and links), from markdown. The
/// comment editor has paragraphs only, so other blocks are flattened into paragraphs (see
/// `comment_paragraph`); nested blocks follow their parent, indented.
pub fn comment_body_from_markdown(markdown: &str) -> ModelResult<serde_json::Value> {
    let imported = import_markdown(markdown)?;
    // Siblings as (block, its number in a run of numbered items, nesting), last first.
    fn siblings(blocks: &[NewBlock], indent: usize) -> Vec<(&NewBlock, usize, usize)> {
        let mut number = 0;
        let mut out: Vec<_> = blocks
            .iter()
            .map(|b| {
                number = if b.kind == "numberedListItem" {
                    number + 1
                } else {
                    0
                };
                (b, number, indent)
            })
            .collect();
        out.reverse();
        out
    }
    let mut paragraphs = vec![];
    // Depth-first and iterative (import_markdown bounds the nesting, not the width).
    let mut stack = siblings(&imported, 0);
    while let Some((block, number, indent)) = stack.pop() {
        paragraphs.push(comment_paragraph(block, number, indent)?);
        stack.extend(siblings(&block.children, indent + 1));
    }
    if paragraphs.is_empty() {
        paragraphs.push(NewBlock::new("paragraph"));
    }
    // Built through the model itself, so the JSON is what reading such blocks gives.
    let doc = Doc::new();
    let frag = doc.get_or_insert_xml_fragment(super::FRAGMENT_NAME);
    let mut txn = doc.transact_mut();
    insert_blocks(&mut txn, &frag, &Position::End, &paragraphs)?;
    let blocks = read_document(&txn, &frag).blocks;
    Ok(blocks_json(&blocks))
}

/// A comment body (BlockNote blocks JSON) as markdown: what an agent reads of a comment.
/// Whatever the model does not know reads as its text.
pub fn comment_body_to_markdown(body: &serde_json::Value) -> String {
    let blocks = blocks_from_json(body);
    export_markdown(&blocks, &ExportOptions::default())
        .markdown
        .trim_end()
        .to_owned()
}
