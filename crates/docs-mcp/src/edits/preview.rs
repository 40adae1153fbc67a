//! What a person sees before deciding: the touched blocks before and after, as markdown,
//! and a word-level diff of the two.

use std::collections::{BTreeSet, HashMap};

use docs_client::blocknote::tree::Document;
use docs_client::blocknote::{self, ExportOptions};

use crate::record::{DiffSpan, Preview, PreviewBlock};

fn preview_blocks(document: &Document, ids: &[String]) -> Vec<PreviewBlock> {
    let mut parents: HashMap<&str, &str> = HashMap::new();
    for block in document.all_blocks() {
        for child in &block.children {
            parents.insert(&child.id, &block.id);
        }
    }
    let wanted: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    document
        .all_blocks()
        .into_iter()
        // A block whose parent is shown is shown with it.
        .filter(|b| wanted.contains(b.id.as_str()))
        .filter(|b| {
            parents
                .get(b.id.as_str())
                .is_none_or(|p| !wanted.contains(p))
        })
        .map(|b| PreviewBlock {
            block_id: b.id.clone(),
            block_type: b.kind.clone(),
            markdown: blocknote::export_markdown(
                std::slice::from_ref(b),
                &ExportOptions::default(),
            )
            .markdown
            .trim_end()
            .to_owned(),
        })
        .collect()
}

pub(super) fn preview(
    before: &Document,
    after: &Document,
    touched: &[String],
    new: &[String],
) -> Preview {
    let mut ids: Vec<String> = touched.to_vec();
    ids.extend(new.iter().cloned());
    let before_blocks = preview_blocks(before, &ids);
    let after_blocks = preview_blocks(after, &ids);
    let join = |blocks: &[PreviewBlock]| {
        blocks
            .iter()
            .map(|b| b.markdown.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let (old, new_text) = (join(&before_blocks), join(&after_blocks));
    let diff = similar::TextDiff::from_words(&old, &new_text);
    let mut spans: Vec<DiffSpan> = vec![];
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        let kind = match change.tag() {
            similar::ChangeTag::Equal => "equal",
            similar::ChangeTag::Insert => "added",
            similar::ChangeTag::Delete => "removed",
        };
        let words = change.value().split_whitespace().count();
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
    Preview {
        before: before_blocks,
        after: after_blocks,
        diff: spans,
        words_added: added,
        words_removed: removed,
    }
}
