//! Outline (heading tree with counts) and partial reading: by section, by block-id range, or
//! from a block with a size budget. Sections and ranges work on top-level blocks (a block's
//! children always come with it).

use serde::{Deserialize, Serialize};

use super::error::{ModelError, ModelResult};
use super::markdown::export::{Chunk, ExportOptions, FidelityLoss, export_chunks, join_chunks};
use super::tree::{Block, Document, PropValue};

/// One heading of the outline with the size of its section (up to the next heading of the
/// same or a higher level).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlineNode {
    pub id: String,
    pub level: u8,
    pub text: String,
    /// Blocks in the section, the heading and all nested blocks included.
    pub blocks: usize,
    /// Words in the section.
    pub words: usize,
    pub children: Vec<OutlineNode>,
}

/// The outline of a document, plus counts of what comes before the first heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outline {
    pub preamble_blocks: usize,
    pub preamble_words: usize,
    pub total_blocks: usize,
    pub total_words: usize,
    pub headings: Vec<OutlineNode>,
}

fn heading_level(b: &Block) -> Option<u8> {
    (b.kind == "heading").then(|| {
        b.props
            .get("level")
            .and_then(PropValue::as_f64)
            .unwrap_or(1.0)
            .clamp(1.0, 6.0) as u8
    })
}

fn block_counts(b: &Block) -> (usize, usize) {
    b.walk().iter().fold((0, 0), |(n, w), x| {
        (n + 1, w + x.plain_text().split_whitespace().count())
    })
}

/// End (exclusive) of the section starting at top-level index `i` (a heading).
fn section_end(blocks: &[Block], i: usize) -> usize {
    let level = heading_level(&blocks[i]).unwrap_or(1);
    blocks[i + 1..]
        .iter()
        .position(|b| heading_level(b).is_some_and(|l| l <= level))
        .map(|p| i + 1 + p)
        .unwrap_or(blocks.len())
}

/// Builds the outline.
pub fn outline(doc: &Document) -> Outline {
    let blocks = &doc.blocks;
    let counts: Vec<(usize, usize)> = blocks.iter().map(block_counts).collect();
    let first = blocks
        .iter()
        .position(|b| heading_level(b).is_some())
        .unwrap_or(blocks.len());
    let sum =
        |r: std::ops::Range<usize>| counts[r].iter().fold((0, 0), |a, c| (a.0 + c.0, a.1 + c.1));
    let (pb, pw) = sum(0..first);
    let (tb, tw) = sum(0..blocks.len());
    let mut flat = vec![];
    for (i, b) in blocks.iter().enumerate() {
        if let Some(level) = heading_level(b) {
            let (n, w) = sum(i..section_end(blocks, i));
            flat.push(OutlineNode {
                id: b.id.clone(),
                level,
                text: b.plain_text(),
                blocks: n,
                words: w,
                children: vec![],
            });
        }
    }
    Outline {
        preamble_blocks: pb,
        preamble_words: pw,
        total_blocks: tb,
        total_words: tw,
        headings: nest(flat),
    }
}

fn nest(flat: Vec<OutlineNode>) -> Vec<OutlineNode> {
    let mut roots: Vec<OutlineNode> = vec![];
    let mut stack: Vec<OutlineNode> = vec![];
    for n in flat {
        while stack.last().is_some_and(|t| t.level >= n.level) {
            let done = stack.pop().expect("non-empty");
            match stack.last_mut() {
                Some(p) => p.children.push(done),
                None => roots.push(done),
            }
        }
        stack.push(n);
    }
    while let Some(done) = stack.pop() {
        match stack.last_mut() {
            Some(p) => p.children.push(done),
            None => roots.push(done),
        }
    }
    roots
}

/// A slice of the document as markdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slice {
    pub markdown: String,
    pub fidelity: Vec<FidelityLoss>,
    /// Ids of the top-level blocks in the slice.
    pub block_ids: Vec<String>,
    /// True when the budget stopped the slice before the end of what was asked.
    pub truncated: bool,
    /// Block to continue from (pass it as `start` of the next budgeted read).
    pub next_block_id: Option<String>,
    /// Where the slice's top-level blocks are in the document's: `block_ids`, as indices.
    #[serde(skip)]
    pub tops: std::ops::Range<usize>,
}

/// Which section to read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SectionSelector {
    /// A heading block id.
    Id(String),
    /// A heading's text (exact, then case-insensitive trimmed match; first match wins).
    Heading(String),
}

fn find_section(doc: &Document, sel: &SectionSelector) -> ModelResult<usize> {
    let blocks = &doc.blocks;
    let found = match sel {
        SectionSelector::Id(id) => blocks
            .iter()
            .position(|b| &b.id == id && heading_level(b).is_some()),
        SectionSelector::Heading(t) => blocks
            .iter()
            .position(|b| heading_level(b).is_some() && b.plain_text() == *t)
            .or_else(|| {
                let t = t.trim().to_lowercase();
                blocks.iter().position(|b| {
                    heading_level(b).is_some() && b.plain_text().trim().to_lowercase() == t
                })
            }),
    };
    found.ok_or_else(|| ModelError::SectionNotFound {
        selector: match sel {
            SectionSelector::Id(s) | SectionSelector::Heading(s) => s.clone(),
        },
    })
}

fn top_index(doc: &Document, id: &str) -> ModelResult<usize> {
    doc.blocks
        .iter()
        .position(|b| b.id == id)
        .ok_or_else(|| ModelError::BlockNotFound { id: id.to_string() })
}

fn slice_of(
    doc: &Document,
    range: std::ops::Range<usize>,
    opts: &ExportOptions,
    budget: Option<usize>,
) -> Slice {
    let mut losses = vec![];
    // export the range in one pass so list numbering flows, up to the first block past the
    // budget
    let chunks: Vec<Chunk> = export_chunks(&doc.blocks[range.clone()], opts, &mut losses, budget);
    let mut taken = 0;
    let mut size = 0;
    for c in &chunks {
        let add = c.text.len() + if taken > 0 { c.sep.len() } else { 0 };
        if let Some(b) = budget
            && taken > 0
            && size + add > b
        {
            break;
        }
        size += add;
        taken += 1;
    }
    let kept = &chunks[..taken];
    let ids: Vec<String> = kept.iter().map(|c| c.id.clone()).collect();
    let truncated = taken < chunks.len();
    // (a chunk per top-level block of the range, in order)
    let tops = range.start..range.start + taken;
    let within: std::collections::HashSet<&str> = doc.blocks[tops.clone()]
        .iter()
        .flat_map(Block::walk)
        .map(|b| b.id.as_str())
        .collect();
    let fidelity = losses
        .into_iter()
        .filter(|l| within.contains(l.block_id.as_str()))
        .collect();
    Slice {
        markdown: join_chunks(kept),
        fidelity,
        block_ids: ids,
        truncated,
        next_block_id: if truncated {
            Some(chunks[taken].id.clone())
        } else {
            None
        },
        tops,
    }
}

/// Reads a section: the heading and everything under it until the next heading of the same or
/// a higher level.
pub fn read_section(
    doc: &Document,
    sel: &SectionSelector,
    opts: &ExportOptions,
) -> ModelResult<Slice> {
    let i = find_section(doc, sel)?;
    Ok(slice_of(doc, i..section_end(&doc.blocks, i), opts, None))
}

/// Reads top-level blocks from `from` to `to` (both included, in document order).
pub fn read_range(
    doc: &Document,
    from: &str,
    to: &str,
    opts: &ExportOptions,
) -> ModelResult<Slice> {
    let (a, b) = (top_index(doc, from)?, top_index(doc, to)?);
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    Ok(slice_of(doc, a..b + 1, opts, None))
}

/// Where a budgeted read starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StartAt {
    Beginning,
    /// A top-level block id (e.g. the `next_block_id` of the previous read).
    Block(String),
    /// A top-level block index.
    Index(usize),
}

/// Reads from `start` as many top-level blocks as fit in `budget` characters (at least one).
pub fn read_budget(
    doc: &Document,
    start: &StartAt,
    budget: usize,
    opts: &ExportOptions,
) -> ModelResult<Slice> {
    let i = match start {
        StartAt::Beginning => 0,
        StartAt::Block(id) => top_index(doc, id)?,
        StartAt::Index(i) => (*i).min(doc.blocks.len()),
    };
    Ok(slice_of(doc, i..doc.blocks.len(), opts, Some(budget)))
}
