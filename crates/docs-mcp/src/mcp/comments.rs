//! Comment tools: the document's comment threads as Docs keeps them (REST), each with where it
//! is anchored in the text (BlockNote's `comment` mark in the live document), so an agent can
//! address what people asked for.

use std::collections::BTreeMap;

use docs_client::blocknote::comments::{CommentAnchor, anchors_by_thread, comment_anchors};
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DocsMcp;
use super::errors::ToolError;
use super::params::Parameters;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListCommentsArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// Only the threads nobody resolved yet.
    #[serde(default)]
    pub unresolved_only: bool,
    /// Only the threads anchored in this block (or in blocks nested in it).
    #[serde(default)]
    pub block_id: Option<String>,
}

/// Where a thread is in the text.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CommentAnchorView {
    pub block_id: String,
    /// The exact text the thread is attached to.
    pub quoted_text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CommentView {
    pub comment_id: String,
    /// The author's name; `null` for an anonymous visitor.
    pub author: Option<String>,
    /// The comment as markdown.
    pub markdown: String,
    pub created_at: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ThreadView {
    pub thread_id: String,
    pub resolved: bool,
    /// Where it is anchored (usually one place); empty when its text was deleted.
    pub anchors: Vec<CommentAnchorView>,
    /// Its anchor text is gone (or Docs' editor marked it orphaned): the thread is no longer
    /// shown at a place in the document.
    pub orphaned: bool,
    /// The first comment opened the thread; replies follow, oldest first.
    pub comments: Vec<CommentView>,
    pub created_at: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CommentsResult {
    pub document_id: String,
    /// The document's revision the anchors were read at.
    pub revision: String,
    /// Newest first, as Docs lists them.
    pub threads: Vec<ThreadView>,
}

#[tool_router(router = comment_tools, vis = "pub(super)")]
impl DocsMcp {
    /// Lists the document's comment threads (Docs' comments): who said what, whether resolved,
    /// and the exact text each thread is attached to (block id and quoted text; `orphaned`
    /// when that text was deleted). Use it to address what people asked for: read the
    /// anchored blocks, then edit them as usual.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn list_comments(
        &self,
        Parameters(args): Parameters<ListCommentsArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<CommentsResult>, ToolError> {
        let args = args?;
        let open = self
            .service
            .open(&args.document, Some(&self.agent(&context)))
            .await?;
        let (revision, document) = open.tracker.read();
        let threads = self.service.client()?.threads(open.id).await?;
        // The blocks a `block_id` filter covers: the block and those nested in it.
        let within: Option<Vec<String>> = match &args.block_id {
            Some(id) => {
                let block = document.find(id).ok_or_else(|| {
                    crate::error::ServiceError::from(
                        docs_client::blocknote::error::ModelError::BlockNotFound { id: id.clone() },
                    )
                })?;
                Some(block.walk().iter().map(|b| b.id.clone()).collect())
            }
            None => None,
        };
        let mut anchors: BTreeMap<String, Vec<CommentAnchor>> =
            anchors_by_thread(comment_anchors(&document.blocks));
        let threads = threads
            .into_iter()
            .filter(|t| !(args.unresolved_only && t.resolved))
            .filter_map(|thread| {
                let found = anchors.remove(&thread.id.to_string()).unwrap_or_default();
                if let Some(within) = &within
                    && !found.iter().any(|a| within.contains(&a.block_id))
                {
                    return None;
                }
                let orphaned = found.is_empty() || found.iter().all(|a| a.orphan);
                Some(ThreadView {
                    thread_id: thread.id.to_string(),
                    resolved: thread.resolved,
                    anchors: found
                        .into_iter()
                        .map(|a| CommentAnchorView {
                            block_id: a.block_id,
                            quoted_text: a.text,
                        })
                        .collect(),
                    orphaned,
                    comments: thread
                        .comments
                        .iter()
                        .map(|c| CommentView {
                            comment_id: c.id.to_string(),
                            author: c.user.as_ref().and_then(|u| u.name()).map(str::to_owned),
                            markdown: c.markdown(),
                            created_at: c.created_at.clone(),
                        })
                        .collect(),
                    created_at: thread.created_at,
                })
            })
            .collect();
        Ok(Json(CommentsResult {
            document_id: open.id.to_string(),
            revision,
            threads,
        }))
    }
}
