//! Inline markdown into new inline content: a block's text as an agent writes it (the
//! markdown imported as blocks, their inline content joined with hard breaks; the spaces at
//! its ends kept).

use super::import_with;
use crate::blocknote::error::ModelResult;
use crate::blocknote::inline::normalize_inline;
use crate::blocknote::markdown::math::MathInput;
use crate::blocknote::schema::{EditorSchema, MATH_BLOCK};
use crate::blocknote::tree::{Inline, NewBlock, NewContent, TextRun, inline_plain_text};

/// Parses inline markdown (`**bold**`, `*italic*`, `~~strike~~`, `` `code` ``, `[link](url)`,
/// hard breaks) into new inline content (no math: [`parse_inline_in`]).
/// Several paragraphs are joined with hard breaks.
///
/// Leading and trailing spaces/tabs are kept as plain text (markdown would trim them): text
/// read from a block and written back must not lose, e.g., the space a human just typed at
/// its end. Like [`import_markdown`](super::import_markdown), refuses lists nested deeper than
/// [`MAX_NESTING`](crate::blocknote::MAX_NESTING).
pub fn parse_inline(markdown: &str) -> ModelResult<Vec<Inline>> {
    parse_inline_in(markdown, EditorSchema::BASE)
}

/// [`parse_inline`] for an instance of this schema (where it has math, `$…$` is inline math).
pub fn parse_inline_in(markdown: &str, schema: EditorSchema) -> ModelResult<Vec<Inline>> {
    parse_inline_with(markdown, MathInput::new_content(schema))
}

/// [`parse_inline`], reading math as `math` says.
pub(crate) fn parse_inline_with(markdown: &str, math: MathInput) -> ModelResult<Vec<Inline>> {
    let is_blank = |c: char| c == ' ' || c == '\t';
    let body = markdown.trim_matches(is_blank);
    if body.is_empty() {
        return Ok(normalize_inline(vec![Inline::Text(TextRun::plain(
            markdown,
        ))]));
    }
    let lead = &markdown[..markdown.len() - markdown.trim_start_matches(is_blank).len()];
    let trail = &markdown[markdown.trim_end_matches(is_blank).len()..];
    let mut out: Vec<Inline> = vec![];
    if !lead.is_empty() {
        out.push(Inline::Text(TextRun::plain(lead)));
    }
    let mut first = true;
    for b in import_with(body, math)? {
        let mut parts = vec![];
        collect_inline(&b, &mut parts);
        for p in parts {
            if !first {
                out.push(Inline::HardBreak);
            }
            first = false;
            out.extend(p);
        }
    }
    if !trail.is_empty() {
        out.push(Inline::Text(TextRun::plain(trail)));
    }
    Ok(normalize_inline(out))
}

/// The inline content of a block and its children, in order (recursing no deeper than
/// imported blocks nest: [`MAX_NESTING`](crate::blocknote::MAX_NESTING)).
fn collect_inline(b: &NewBlock, out: &mut Vec<Vec<Inline>>) {
    match &b.content {
        Some(NewContent::Inline(i)) => out.push(i.clone()),
        Some(NewContent::Markdown(s)) if b.kind == MATH_BLOCK => {
            out.push(vec![Inline::Math { latex: s.clone() }])
        }
        Some(NewContent::Markdown(s)) => out.push(vec![Inline::Text(TextRun::plain(s.clone()))]),
        Some(NewContent::Table(t)) => {
            for r in &t.rows {
                for c in &r.cells {
                    out.push(vec![Inline::Text(TextRun::plain(inline_plain_text(
                        &c.content,
                    )))]);
                }
            }
        }
        None => {}
    }
    for c in &b.children {
        collect_inline(c, out);
    }
}
