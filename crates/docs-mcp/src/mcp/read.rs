//! Read tools: reading (whole, by section, by page), outline, changes since a revision,
//! sessions, and the status of an edit.
//!
//! Tools: `read_document`, `get_outline`, `get_changes`, `list_sessions`, `edit_status`. A page of
//! `read_document` from the start or from an outermost block is read alone — blocks until their
//! text passes the budget, and one more — and is the answer when the budget cut inside them or
//! nothing follows them; else the page is taken from the whole document, as a section or a block
//! link are.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use docs_client::blocknote::{
    self, Block, Document, ExportOptions, OutlineNode, SectionSelector, Slice, StartAt,
    comments::comment_anchors,
};
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DocsMcp;
use super::answers::ReadKey;
use super::documents::DocumentArgs;
use super::errors::ToolError;
use super::params::Parameters;
use super::write::EditResult;
use crate::error::ServiceError;
use crate::revisions::{BlockChange, ChangeAuthor, ChangeKind, OpeningRead};
use crate::service::OpenDocument;

/// Default and largest size of one read, in characters of markdown.
const DEFAULT_READ_CHARS: usize = 20_000;
const MAX_READ_CHARS: usize = 100_000;

#[derive(Debug, Default, Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReadFormat {
    /// GitHub-flavoured markdown with `<!-- block:ID -->` anchors.
    #[default]
    Markdown,
    /// BlockNote's typed block JSON.
    Blocks,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadDocumentArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/). A block link
    /// (https://HOST/docs/<id>/#<block id>) reads from the top-level block holding that block.
    pub document: String,
    #[serde(default)]
    pub format: ReadFormat,
    /// Read one section: a heading's block id or its text.
    #[serde(default)]
    pub section: Option<String>,
    /// Start at this top-level block (e.g. the `next_block_id` of the previous read).
    #[serde(default)]
    pub from_block: Option<String>,
    /// Size budget in characters (default 20000, at most 100000).
    #[serde(default)]
    pub max_chars: Option<usize>,
    /// Put `<!-- block:ID -->` anchors before each block (default true).
    #[serde(default)]
    pub anchors: Option<bool>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FidelityNote {
    pub block_id: String,
    pub block_type: String,
    /// What markdown could not show (e.g. `textColor=red`).
    pub dropped: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadResult {
    pub document_id: String,
    pub title: Option<String>,
    /// Quote it back in writes to refuse them if the targets changed meanwhile.
    pub revision: String,
    pub format: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// The blocks as BlockNote JSON (format `blocks`).
    // An array of objects in the schema, not `true`: MCP clients (the TypeScript SDK) refuse
    // a tool whose output schema has a property that is not an object schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<serde_json::Map<String, serde_json::Value>>>")]
    pub blocks: Option<serde_json::Value>,
    /// Ids of the top-level blocks returned, only for markdown without anchors
    /// (`anchors: false`): otherwise the anchors or the blocks' JSON carry them, said once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_ids: Option<Vec<String>>,
    /// The budget stopped the read before the end of what was asked.
    pub truncated: bool,
    /// Where to continue (`from_block`) when truncated.
    pub next_block_id: Option<String>,
    /// What the markdown could not express (colours, alignment, ...).
    pub fidelity: Vec<FidelityNote>,
    /// Comment threads attached to text in the blocks read, by block id (any nesting
    /// depth), in the order they appear; see `list_comments`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub comment_threads: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct OutlineEntry {
    pub block_id: String,
    pub level: u8,
    pub text: String,
    /// Blocks in the section (heading included).
    pub blocks: usize,
    pub words: usize,
    pub children: Vec<OutlineEntry>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct OutlineResult {
    pub document_id: String,
    pub title: Option<String>,
    pub revision: String,
    pub total_blocks: usize,
    pub total_words: usize,
    /// Blocks before the first heading.
    pub preamble_blocks: usize,
    pub headings: Vec<OutlineEntry>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChangesArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// A revision from an earlier read.
    pub since_revision: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedBlock {
    pub block_id: String,
    pub kind: ChangeKind,
    pub by: ChangeAuthor,
    /// The block's markdown now (absent for deleted blocks).
    pub markdown: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangesResult {
    pub document_id: String,
    pub revision: String,
    pub changes: Vec<ChangedBlock>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionInfo {
    pub document_id: String,
    pub connected: bool,
    pub read_only: bool,
    pub pending_acks: u64,
    pub pending_saves: u64,
    pub collaborators: Vec<String>,
    pub error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionList {
    pub sessions: Vec<SessionInfo>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditStatusArgs {
    pub edit_id: String,
    /// Wait up to this many seconds for a decision (default 0, at most 50).
    #[serde(default)]
    pub wait_seconds: Option<u64>,
}

fn outline_entry(node: &OutlineNode) -> OutlineEntry {
    OutlineEntry {
        block_id: node.id.clone(),
        level: node.level,
        text: node.text.clone(),
        blocks: node.blocks,
        words: node.words,
        children: node.children.iter().map(outline_entry).collect(),
    }
}

/// A section, kept within the budget: when it is longer, the first blocks that fit.
/// A page (or section) of a read, found in the whole document.
fn read_whole(
    document: &Document,
    args: &ReadDocumentArgs,
    linked: Option<String>,
    budget: usize,
    opts: &ExportOptions,
) -> Result<Slice, ServiceError> {
    // A block link with nothing else asked: start where the link points.
    let from_block = args.from_block.clone().or_else(|| {
        let linked = linked?;
        (args.section.is_none()).then(|| {
            document
                .blocks
                .iter()
                .find(|top| top.walk().iter().any(|b| b.id == linked))
                .map_or(linked, |top| top.id.clone())
        })
    });
    Ok(match (&args.section, &from_block) {
        (Some(section), _) => {
            let selector = if document.find(section).is_some() {
                SectionSelector::Id(section.clone())
            } else {
                SectionSelector::Heading(section.clone())
            };
            section_within(document, &selector, budget, opts)?
        }
        (None, Some(from)) => {
            blocknote::read_budget(document, &StartAt::Block(from.clone()), budget, opts)?
        }
        (None, None) => blocknote::read_budget(document, &StartAt::Beginning, budget, opts)?,
    })
}

/// A page from the start, or from the outermost block `from`, read without the rest of the
/// document: blocks are read until their text passes the budget, and one more. The page is
/// the whole document's when the budget cut it inside the blocks read, or when no block
/// follows them; `None` otherwise (it is then found in the whole document), and when `from`
/// is not an outermost block.
async fn read_page(
    open: &OpenDocument,
    from: Option<String>,
    budget: usize,
    opts: &ExportOptions,
) -> Result<Option<(String, Arc<Document>, Slice)>, ServiceError> {
    // What the markdown of the blocks read holds at least: their text and a line each, and
    // their anchors. Once past the budget, the page is cut inside them. (Their text alone
    // read twice the blocks a page with anchors holds.)
    let anchors = opts.anchors;
    let anchor_line = blocknote::anchor("").len() + 1;
    let mut text = 0;
    let enough = move |block: &Block| {
        let passed = text > budget;
        text += block
            .walk()
            .iter()
            .map(|b| {
                let anchor = if anchors { anchor_line + b.id.len() } else { 0 };
                b.plain_text().len() + 1 + anchor
            })
            .sum::<usize>();
        passed
    };
    let Some((revision, opening)) = open
        .tracker
        .read_opening_async(from.clone(), enough)
        .await?
    else {
        return Ok(None);
    };
    let (document, whole) = match opening {
        OpeningRead::Whole(document) => (document, true),
        OpeningRead::Part(part) => (Arc::new(part.document), !part.more),
    };
    let start = from.map_or(StartAt::Beginning, StartAt::Block);
    let slice = blocknote::read_budget(&document, &start, budget, opts)?;
    Ok((whole || slice.truncated).then_some((revision, document, slice)))
}

fn section_within(
    document: &Document,
    selector: &SectionSelector,
    budget: usize,
    opts: &ExportOptions,
) -> Result<Slice, ServiceError> {
    let section = blocknote::read_section(document, selector, opts)?;
    if section.markdown.chars().count() <= budget || section.block_ids.is_empty() {
        return Ok(section);
    }
    let mut page = blocknote::read_budget(
        document,
        &StartAt::Block(section.block_ids[0].clone()),
        budget,
        opts,
    )?;
    page.truncated = true;
    page.next_block_id = page
        .next_block_id
        .filter(|next| section.block_ids.contains(next));
    Ok(page)
}

#[tool_router(router = read_tools, vis = "pub(super)")]
impl DocsMcp {
    /// Reads a document as markdown with block-id anchors (or as typed blocks): whole, one
    /// section, or a page from a block, within a size budget. Returns the revision to quote
    /// in writes, and what markdown could not express. Text people commented on is shown
    /// between `<!-- comment:THREAD -->` and `<!-- /comment:THREAD -->` (with the anchors),
    /// and `comment_threads` lists the threads of each block read: `list_comments` has what
    /// they say. Markdown written back (update_block, insert_blocks) may keep the markers:
    /// they are dropped, and text left as it was keeps its comments.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn read_document(
        &self,
        Parameters(args): Parameters<ReadDocumentArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<ReadResult>, ToolError> {
        let args = args?;
        let budget = args
            .max_chars
            .unwrap_or(DEFAULT_READ_CHARS)
            .clamp(500, MAX_READ_CHARS);
        if args.section.is_some() && args.from_block.is_some() {
            return Err(ServiceError::invalid(
                "give either section or from_block, not both",
                "Read a section, or continue from a block.",
            )
            .into());
        }
        let open = self
            .service
            .open(&args.document, Some(&self.agent(&context)))
            .await?;
        let anchors = args.anchors.unwrap_or(true);
        let opts = ExportOptions {
            anchors,
            comments: anchors,
            schema: open.schema(),
        };
        let linked = docs_client::DocumentRef::parse(&args.document)
            .ok()
            .and_then(|r| r.block);
        // The same read of the document at the same revision was answered already.
        let asked = format!(
            "{:?} {:?} {:?} {budget} {anchors} {linked:?}",
            args.format, args.section, args.from_block
        );
        let key = |revision: String| ReadKey {
            document: open.id,
            revision,
            asked: asked.clone(),
        };
        if let Some(answer) = self.answers.get(&key(open.tracker.revision())) {
            return Ok(Json(ReadResult::clone(&answer)));
        }
        // A page from the start or from an outermost block is read alone; a section, or the
        // block a link points to, is found in the whole document.
        let page = if args.section.is_none() && (args.from_block.is_some() || linked.is_none()) {
            read_page(&open, args.from_block.clone(), budget, &opts).await?
        } else {
            None
        };
        let (revision, document, slice) = match page {
            Some(page) => page,
            None => {
                let (revision, document) = open.tracker.read_async().await?;
                let slice = read_whole(&document, &args, linked, budget, &opts)?;
                (revision, document, slice)
            }
        };
        let tops = &document.blocks[slice.tops.clone()];
        self.reads.saw(open.id, &revision, tops, open.schema());
        let mut comment_threads: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for anchor in tops
            .iter()
            .flat_map(|top| comment_anchors(std::slice::from_ref(top)))
            .filter(|a| !a.orphan && !a.thread_id.is_empty())
        {
            let threads = comment_threads.entry(anchor.block_id).or_default();
            if !threads.contains(&anchor.thread_id) {
                threads.push(anchor.thread_id);
            }
        }
        let (markdown, blocks, format) = match args.format {
            ReadFormat::Markdown => (Some(slice.markdown), None, "markdown"),
            ReadFormat::Blocks => (None, Some(blocknote::json::blocks_json(tops)), "blocks"),
        };
        let result = ReadResult {
            document_id: open.id.to_string(),
            title: open.session.metadata().title.clone(),
            revision: revision.clone(),
            format: format.into(),
            markdown,
            blocks,
            block_ids: (args.format == ReadFormat::Markdown && !anchors).then_some(slice.block_ids),
            truncated: slice.truncated,
            next_block_id: slice.next_block_id,
            fidelity: slice
                .fidelity
                .into_iter()
                .map(|f| FidelityNote {
                    block_id: f.block_id,
                    block_type: f.block_type,
                    dropped: f.dropped,
                })
                .collect(),
            comment_threads,
        };
        let chars = result.markdown.as_ref().map_or(0, String::len)
            + result.blocks.as_ref().map_or(0, |b| b.to_string().len());
        self.answers.keep(key(revision), result.clone(), chars);
        Ok(Json(result))
    }

    /// The heading tree of a document with block ids and, per section, counts of blocks and
    /// words: call it first on large documents, then read sections.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn get_outline(
        &self,
        Parameters(args): Parameters<DocumentArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<OutlineResult>, ToolError> {
        let args = args?;
        let open = self
            .service
            .open(&args.document, Some(&self.agent(&context)))
            .await?;
        let (revision, document) = open.tracker.read_async().await?;
        let outline = blocknote::outline(&document);
        Ok(Json(OutlineResult {
            document_id: open.id.to_string(),
            title: open.session.metadata().title.clone(),
            revision,
            total_blocks: outline.total_blocks,
            total_words: outline.total_words,
            preamble_blocks: outline.preamble_blocks,
            headings: outline.headings.iter().map(outline_entry).collect(),
        }))
    }

    /// What changed in a document since a revision you read: blocks added, modified or
    /// deleted, by others or by agents, with their current markdown.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn get_changes(
        &self,
        Parameters(args): Parameters<ChangesArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<ChangesResult>, ToolError> {
        let args = args?;
        let open = self
            .service
            .open(&args.document, Some(&self.agent(&context)))
            .await?;
        let (revision, document) = open.tracker.read_async().await?;
        let changes: Vec<BlockChange> = open
            .tracker
            .changes_since(&args.since_revision)
            .ok_or_else(|| ServiceError::StaleRevision {
                block_id: String::new(),
                revision: args.since_revision.clone(),
                current: revision.clone(),
            })?;
        self.reads.saw(
            open.id,
            &revision,
            changes.iter().filter_map(|c| document.find(&c.block_id)),
            open.schema(),
        );
        let changes = changes
            .into_iter()
            .map(|c| {
                let options = ExportOptions {
                    schema: open.schema(),
                    ..ExportOptions::default()
                };
                let markdown = document.find(&c.block_id).map(|b| {
                    blocknote::export_markdown(std::slice::from_ref(b), &options)
                        .markdown
                        .trim_end()
                        .to_owned()
                });
                ChangedBlock {
                    block_id: c.block_id,
                    kind: c.kind,
                    by: c.by,
                    markdown,
                }
            })
            .collect();
        Ok(Json(ChangesResult {
            document_id: open.id.to_string(),
            revision,
            changes,
        }))
    }

    /// The documents open live here, with their connection state and who else is in them.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn list_sessions(&self) -> Result<Json<SessionList>, ToolError> {
        Ok(Json(SessionList {
            sessions: self
                .service
                .sessions()
                .into_iter()
                .map(|s| SessionInfo {
                    document_id: s.document_id.to_string(),
                    connected: s.connected,
                    read_only: s.read_only,
                    pending_acks: s.pending_acks,
                    pending_saves: s.pending_saves,
                    collaborators: s.collaborators,
                    error: s.error,
                })
                .collect(),
        }))
    }

    /// The status of an edit (pending, applied, rejected with the user's comment, conflict,
    /// failed); waits up to `wait_seconds` for a decision.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn edit_status(
        &self,
        Parameters(args): Parameters<EditStatusArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let id = super::parse_edit_id(&args.edit_id)?;
        let wait = Duration::from_secs(args.wait_seconds.unwrap_or(0).min(50));
        let record = self.wait_with_progress(id, wait, &context).await?;
        Ok(Json(EditResult::from_record(&record)))
    }
}
