//! Find and replace in inline content: matches are found in the blocks' plain text, and each
//! replacement takes the formatting of the run it starts in. Linear in the text's length,
//! however many matches (`all`) there are. Where the agent read the block before, the
//! replacement made in what it read must merge, word by word, with what others changed since
//! ([`rebases`]): "Human" is not replaced in the "Humankind" a person made of it meanwhile.

use docs_client::blocknote::tree::{Block, BlockContent, Document, Inline, NewContent, TextRun};
use docs_client::blocknote::{self, EditorSchema, Writing};
use yrs::TransactionMut;

use super::ReplaceText;
use super::merge::{Overlap, merge3};
use crate::error::{ServiceError, ServiceResult};

/// Plain text of inline content with one character per inline piece that is not text, so
/// offsets map back to pieces: hard breaks are `\n`, inline elements and inline math U+FFFC.
fn flat_text(inline: &[Inline]) -> String {
    inline
        .iter()
        .map(|piece| match piece {
            Inline::Text(run) => run.text.clone(),
            Inline::HardBreak => "\n".into(),
            Inline::Element { .. } | Inline::Math { .. } => "\u{fffc}".into(),
        })
        .collect()
}

/// Char offsets of the non-overlapping matches of `needle` in `text`, in one pass.
fn match_offsets(text: &str, needle: &str) -> Vec<usize> {
    let mut offsets = vec![];
    let (mut chars_before, mut byte_before) = (0, 0);
    for (byte, _) in text.match_indices(needle) {
        chars_before += text[byte_before..byte].chars().count();
        byte_before = byte;
        offsets.push(chars_before);
    }
    offsets
}

/// One character of inline content: a character of run `run`, or a whole non-text piece.
enum Unit {
    Char { run: usize, c: char },
    Piece(usize),
}

/// Replaces each range `[start, start + len)` (char offsets in [`flat_text`], ordered, not
/// overlapping) by `new_text`, which takes the formatting of the first text run it starts in
/// (plain text when there is none); breaks and elements inside a range go with it.
fn splice_all(inline: &[Inline], starts: &[usize], len: usize, new_text: &str) -> Vec<Inline> {
    let units: Vec<Unit> = inline
        .iter()
        .enumerate()
        .flat_map(|(i, piece)| -> Box<dyn Iterator<Item = Unit>> {
            match piece {
                Inline::Text(run) => {
                    Box::new(run.text.chars().map(move |c| Unit::Char { run: i, c }))
                }
                _ => Box::new(std::iter::once(Unit::Piece(i))),
            }
        })
        .collect();
    // Text pieces as (style source run, text), non-text pieces as their index.
    let mut out: Vec<Result<(Option<usize>, String), usize>> = vec![];
    let push_char =
        |out: &mut Vec<Result<(Option<usize>, String), usize>>, run: Option<usize>, c: char| {
            match out.last_mut() {
                Some(Ok((last, text))) if *last == run => text.push(c),
                _ => out.push(Ok((run, c.to_string()))),
            }
        };
    let mut next = starts.iter().peekable();
    let mut i = 0;
    while i < units.len() {
        if next.peek().is_some_and(|start| **start == i) {
            next.next();
            let end = (i + len).min(units.len());
            let style = units[i..end].iter().find_map(|u| match u {
                Unit::Char { run, .. } => Some(*run),
                Unit::Piece(_) => None,
            });
            for c in new_text.chars() {
                push_char(&mut out, style, c);
            }
            i = end;
            continue;
        }
        match units[i] {
            Unit::Char { run, c } => push_char(&mut out, Some(run), c),
            Unit::Piece(piece) => out.push(Err(piece)),
        }
        i += 1;
    }
    out.into_iter()
        .map(|piece| match piece {
            Ok((Some(run), text)) => {
                let Inline::Text(source) = &inline[run] else {
                    unreachable!("characters come from text runs")
                };
                Inline::Text(TextRun {
                    text,
                    ..source.clone()
                })
            }
            Ok((None, text)) => Inline::Text(TextRun::plain(text)),
            Err(piece) => inline[piece].clone(),
        })
        .collect()
}

/// Whether `replace`, made in the text the agent read of `block` (`base`, its inline markdown),
/// merges with what others changed in the block since ([`merge3`] on the plain texts). Where
/// `base` does not hold the text once (or, with `all`, at all), it says nothing of what the
/// agent meant to replace: nothing to check.
pub(super) fn rebases(
    base: &str,
    block: &Block,
    replace: &ReplaceText,
    schema: EditorSchema,
) -> Result<(), Overlap> {
    let (Ok(read), BlockContent::Inline { inline }) =
        (blocknote::parse_inline_in(base, schema), &block.content)
    else {
        return Ok(());
    };
    let read = flat_text(&read);
    let found = match_offsets(&read, &replace.old_text).len();
    if found == 0 || (found > 1 && !replace.all) {
        return Ok(());
    }
    let wanted = read.replace(&replace.old_text, &replace.new_text);
    merge3(&read, &wanted, &flat_text(inline)).map(drop)
}

/// Finds `old_text` (in one block, or the whole document) and replaces it; returns the
/// blocks changed.
pub(super) fn replace_text(
    txn: &mut TransactionMut<'_>,
    fragment: &yrs::XmlFragmentRef,
    document: &Document,
    replace: &ReplaceText,
    schema: EditorSchema,
) -> ServiceResult<Vec<String>> {
    if replace.old_text.is_empty() {
        return Err(ServiceError::invalid(
            "old_text is empty",
            "Quote the text to replace.",
        ));
    }
    let candidates: Vec<&Block> = match &replace.block_id {
        Some(id) => vec![document.find(id).ok_or_else(|| {
            ServiceError::Model(blocknote::error::ModelError::BlockNotFound { id: id.clone() })
        })?],
        None => document.all_blocks(),
    };
    let mut matches: Vec<(&Block, &[Inline], Vec<usize>)> = vec![];
    for block in candidates {
        let BlockContent::Inline { inline } = &block.content else {
            continue;
        };
        let starts = match_offsets(&flat_text(inline), &replace.old_text);
        if !starts.is_empty() {
            matches.push((block, inline, starts));
        }
    }
    let total: usize = matches.iter().map(|(_, _, s)| s.len()).sum();
    let scope = match &replace.block_id {
        Some(id) => format!("block {id}"),
        None => "the document".into(),
    };
    if total == 0 {
        return Err(ServiceError::TextNotFound {
            needle: replace.old_text.clone(),
            scope,
        });
    }
    if total > 1 && !replace.all {
        return Err(ServiceError::AmbiguousMatch {
            needle: replace.old_text.clone(),
            count: total,
            block_ids: matches.iter().map(|(b, _, _)| b.id.clone()).collect(),
        });
    }
    let old_len = replace.old_text.chars().count();
    let mut changed = vec![];
    for (block, inline, starts) in matches {
        let replaced = splice_all(inline, &starts, old_len, &replace.new_text);
        let content = NewContent::Inline(replaced);
        let writing = Writing::new_content(schema);
        blocknote::set_block_content_in(txn, fragment, &block.id, &content, writing)?;
        changed.push(block.id.clone());
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use docs_client::blocknote::tree::Styles;

    #[test]
    fn splicing_across_runs_and_breaks() {
        let bold = Styles {
            bold: true,
            ..Styles::default()
        };
        let inline = vec![
            Inline::Text(TextRun::plain("ab")),
            Inline::HardBreak,
            Inline::Text(TextRun::styled("cd", bold.clone())),
        ];
        assert_eq!(flat_text(&inline), "ab\ncd");
        assert_eq!(
            splice_all(&inline, &[1], 3, "X"),
            vec![
                Inline::Text(TextRun::plain("aX")),
                Inline::Text(TextRun::styled("d", bold.clone()))
            ]
        );
        // A match starting at a break takes the formatting of the first run inside it.
        assert_eq!(
            splice_all(&inline, &[2], 2, "YZ"),
            vec![
                Inline::Text(TextRun::plain("ab")),
                Inline::Text(TextRun::styled("YZd", bold))
            ]
        );
        assert_eq!(
            splice_all(&[Inline::HardBreak], &[0], 1, "x"),
            vec![Inline::Text(TextRun::plain("x"))]
        );
    }

    #[test]
    fn every_match_is_replaced_in_one_pass() {
        let text = "ab".repeat(50_000);
        let inline = vec![Inline::Text(TextRun::plain(text.as_str()))];
        let starts = match_offsets(&flat_text(&inline), "b");
        assert_eq!(starts.len(), 50_000);
        assert_eq!(starts[..3], [1, 3, 5]);
        assert_eq!(
            splice_all(&inline, &starts, 1, "é"),
            vec![Inline::Text(TextRun::plain("aé".repeat(50_000)))]
        );
        assert_eq!(match_offsets("héhé", "é"), vec![1, 3]);
    }
}
