//! What a person sees before deciding: the touched blocks before and after (as BlockNote JSON,
//! which the app renders as Docs does, and as markdown), the blocks around them, a
//! word-level diff of their markdown, and the link targets and media URLs the edit adds or
//! changes.
//!
//! The context is one block each side, and the headings the change is under.

use docs_client::blocknote::tree::{Block, Document};
use docs_client::blocknote::{self, BlockUrl, EditorSchema, ExportOptions, Outermost, UrlUse};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::record::{DiffSpan, LinkKind, Preview, PreviewBlock, PreviewLink};

/// `b` as shown, its markdown as the instance of `schema` would read it back.
fn preview_block(b: &Block, schema: EditorSchema) -> PreviewBlock {
    let options = ExportOptions {
        schema,
        ..ExportOptions::default()
    };
    PreviewBlock {
        block_id: b.id.clone(),
        block_type: b.kind.clone(),
        markdown: blocknote::export_markdown(std::slice::from_ref(b), &options)
            .markdown
            .trim_end()
            .to_owned(),
        text: b.inline().map(|_| blocknote::inline_markdown_in(b, schema)),
        block: Some(blocknote::json::block_json(b)),
    }
}

/// The block just before the first shown one and just after the last (in reading order,
/// children left out), in a whole document: around the blocks an edit removes.
fn context(
    document: &Document,
    shown: &[PreviewBlock],
    schema: EditorSchema,
) -> (Option<PreviewBlock>, Option<PreviewBlock>) {
    let (Some(first), Some(last)) = (shown.first(), shown.last()) else {
        return (None, None);
    };
    let order = document.all_blocks();
    let position = |id: &str| order.iter().position(|b| b.id == id);
    let lone = |b: &Block| {
        let mut b = b.clone();
        b.children.clear();
        preview_block(&b, schema)
    };
    let before = position(&first.block_id)
        .and_then(|i| i.checked_sub(1))
        .map(|i| lone(order[i]));
    let after = position(&last.block_id)
        .map(|i| i + order[i].walk().len())
        .and_then(|i| order.get(i))
        .map(|b| lone(b));
    (before, after)
}

/// The blocks of `ids` in reading order, but for those whose parent is among them: they are
/// shown with it. One walk, nothing built for the blocks not wanted (the whole document).
fn preview_blocks(document: &Document, ids: &[String], schema: EditorSchema) -> Vec<PreviewBlock> {
    if ids.is_empty() {
        return vec![];
    }
    let wanted: FxHashSet<&str> = ids.iter().map(String::as_str).collect();
    let mut shown = vec![];
    // Blocks still to visit, last first, each with whether its parent is wanted.
    let mut stack: Vec<(&Block, bool)> = document.blocks.iter().rev().map(|b| (b, false)).collect();
    while let Some((block, parent_wanted)) = stack.pop() {
        let is_wanted = wanted.contains(block.id.as_str());
        if is_wanted && !parent_wanted {
            shown.push(preview_block(block, schema));
        }
        stack.extend(block.children.iter().rev().map(|c| (c, is_wanted)));
    }
    shown
}

fn heading_level(block: &Block) -> f64 {
    block
        .props
        .get("level")
        .and_then(|v| v.as_f64())
        .unwrap_or(1.0)
}

/// The headings above `id` in `document`, with their levels (reading order, each under the
/// last heading of a lower level). One walk of the blocks in reading order, which copies
/// nothing but the texts of the headings found above.
fn levelled(document: &Document, id: &str) -> Vec<(f64, String)> {
    let mut path: Vec<(f64, &Block)> = vec![];
    let mut walk = vec![document.blocks.iter()];
    while let Some(blocks) = walk.last_mut() {
        let Some(block) = blocks.next() else {
            walk.pop();
            continue;
        };
        let heading = (block.kind == "heading").then(|| heading_level(block));
        if let Some(level) = heading {
            path.retain(|(above, _)| *above < level);
        }
        // A UUID's first byte tells most blocks apart: most are not compared whole.
        if block.id.as_bytes().first() == id.as_bytes().first() && block.id == id {
            return path
                .into_iter()
                .map(|(level, heading)| (level, heading.plain_text()))
                .collect();
        }
        if let Some(level) = heading {
            path.push((level, block));
        }
        walk.push(block.children.iter());
    }
    vec![]
}

/// The headings a change is under: those above the first block it shows (or above the block
/// it comes after), then the shown headings it leaves as they are before its first real change
/// (an insert after a heading lands under that heading).
fn where_it_lands(
    before: &Document,
    before_blocks: &[PreviewBlock],
    after_blocks: &[PreviewBlock],
    context_before: Option<&PreviewBlock>,
) -> Vec<String> {
    let (mut path, walked): (Vec<(f64, String)>, Vec<&PreviewBlock>) = match before_blocks.first() {
        Some(first) => (
            levelled(before, &first.block_id),
            after_blocks.iter().collect(),
        ),
        None => match context_before {
            Some(context) => (levelled(before, &context.block_id), vec![context]),
            None => (vec![], vec![]),
        },
    };
    let unchanged = |b: &PreviewBlock| {
        context_before.is_some_and(|c| c.block_id == b.block_id)
            || before_blocks
                .iter()
                .any(|old| old.block_id == b.block_id && old.block == b.block)
    };
    for block in walked.into_iter().take_while(|b| unchanged(b)) {
        if block.block_type == "heading"
            && let Some(heading) = before.find(&block.block_id)
        {
            let level = heading_level(heading);
            path.retain(|(above, _)| *above < level);
            path.push((level, heading.plain_text()));
        }
    }
    path.into_iter().map(|(_, title)| title).collect()
}

/// The link targets and media URLs of the blocks `ids` in `after` (in its reading order) that
/// the same block did not hold in `before`: all of a new block's, a changed one's (of
/// `touched`, the only ones `before` has) new ones.
fn added_links(
    before: &Document,
    after: &Document,
    touched: &[String],
    ids: &[String],
) -> Vec<PreviewLink> {
    let had: FxHashMap<&str, Vec<BlockUrl>> = if touched.is_empty() {
        FxHashMap::default()
    } else {
        let touched: FxHashSet<&str> = touched.iter().map(String::as_str).collect();
        before
            .all_blocks()
            .into_iter()
            .filter(|block| touched.contains(block.id.as_str()))
            .map(|block| (block.id.as_str(), blocknote::block_urls(block)))
            .collect()
    };
    let wanted: FxHashSet<&str> = ids.iter().map(String::as_str).collect();
    let is_wanted = |block: &&Block| wanted.contains(block.id.as_str());
    let mut links = vec![];
    for block in after.all_blocks().into_iter().filter(is_wanted) {
        let had = had.get(block.id.as_str()).map_or(&[][..], Vec::as_slice);
        for url in blocknote::block_urls(block) {
            if had
                .iter()
                .any(|old| old.url == url.url && old.url_use == url.url_use)
            {
                continue;
            }
            links.push(PreviewLink {
                block_id: block.id.clone(),
                kind: match url.url_use {
                    UrlUse::Link => LinkKind::Link,
                    UrlUse::Media => LinkKind::Media,
                },
                host: blocknote::host_of(&url.url),
                url: url.url,
                text: url.text,
            });
        }
    }
    links
}

/// `text` cut into what a word diff compares: runs of letters and digits (a word), runs of
/// whitespace, and every other character alone — so a comma added after a word is an added
/// comma, not the word removed and the word with its comma added.
fn word_tokens(text: &str) -> Vec<&str> {
    #[derive(PartialEq)]
    enum Class {
        Word,
        Space,
        Mark,
    }
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            Class::Word
        } else if c.is_whitespace() {
            Class::Space
        } else {
            Class::Mark
        }
    };
    let mut tokens = vec![];
    let mut start = 0;
    let mut previous: Option<Class> = None;
    for (i, c) in text.char_indices() {
        let this = class(c);
        let joins = previous.as_ref() == Some(&this) && this != Class::Mark;
        if !joins && i > start {
            tokens.push(&text[start..i]);
            start = i;
        }
        previous = Some(this);
    }
    if start < text.len() {
        tokens.push(&text[start..]);
    }
    tokens
}

/// `before`: the whole document; `after`: the blocks the edit changes or creates, read with
/// the two around them.
pub(super) fn preview(
    before: &Document,
    after: &Outermost,
    touched: &[String],
    new: &[String],
    schema: EditorSchema,
) -> Preview {
    let mut ids: Vec<String> = touched.to_vec();
    ids.extend(new.iter().cloned());
    // New blocks have ids the document did not hold: only the touched ones are in it.
    let before_blocks = preview_blocks(before, touched, schema);
    let after_blocks = preview_blocks(&after.document, &ids, schema);
    let join = |blocks: &[PreviewBlock]| {
        blocks
            .iter()
            .map(|b| b.markdown.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let (old, new_text) = (join(&before_blocks), join(&after_blocks));
    let (old_tokens, new_tokens) = (word_tokens(&old), word_tokens(&new_text));
    let diff = similar::TextDiff::from_slices(&old_tokens, &new_tokens);
    let mut spans: Vec<DiffSpan> = vec![];
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        let kind = match change.tag() {
            similar::ChangeTag::Equal => "equal",
            similar::ChangeTag::Insert => "added",
            similar::ChangeTag::Delete => "removed",
        };
        let words = usize::from(change.value().chars().any(char::is_alphanumeric));
        match kind {
            "added" => added += words,
            "removed" => removed += words,
            _ => {}
        }
        match spans.last_mut() {
            Some(last) if last.kind == kind => last.text.push_str(change.value()),
            _ => spans.push(DiffSpan {
                kind: kind.into(),
                text: change.value().to_owned(),
            }),
        }
    }
    // Around the blocks as they will be; around the removed ones when nothing remains.
    let (context_before, context_after) = if after_blocks.is_empty() {
        context(before, &before_blocks, schema)
    } else {
        (
            after.before.as_ref().map(|b| preview_block(b, schema)),
            after.after.as_ref().map(|b| preview_block(b, schema)),
        )
    };
    let headings = where_it_lands(
        before,
        &before_blocks,
        &after_blocks,
        context_before.as_ref(),
    );
    Preview {
        heading_path: headings,
        before: before_blocks,
        after: after_blocks,
        context_before,
        context_after,
        diff: spans,
        words_added: added,
        words_removed: removed,
        links: added_links(before, &after.document, touched, &ids),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_spaces_and_marks_are_apart() {
        assert_eq!(
            word_tokens("Ada, **Grace**  and x_1!"),
            [
                "Ada", ",", " ", "*", "*", "Grace", "*", "*", "  ", "and", " ", "x_1", "!"
            ]
        );
        assert_eq!(word_tokens(""), Vec::<&str>::new());
        assert_eq!(word_tokens("é"), ["é"]);
    }
}
