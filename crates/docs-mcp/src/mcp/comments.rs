//! Comment tools: the document's comment threads as Docs keeps them (REST), each with where it
//! is anchored in the text (BlockNote's `comment` mark in the live document), so an agent can
//! address what people asked for; and comments of the agent's own (a new thread on text, a
//! reply, resolving, reopening), which follow the document's policy like edits.
//!
//! Tools: `list_comments`; `add_comment`, `reply_comment`, `resolve_comment`, `reopen_comment`,
//! answered like writes.

use std::collections::BTreeMap;

use docs_client::blocknote::comments::{CommentAnchor, anchors_by_thread, comment_anchors};
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DocsMcp;
use super::errors::ToolError;
use super::params::Parameters;
use super::write::{EditResult, arguments_of};
use crate::record::CommentAction;
use crate::service::CommentRequest;

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

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct AddCommentArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// The block the comment is about (from read_document).
    pub block_id: String,
    /// The exact text in that block to attach the comment to (it must occur once there);
    /// without it, the block's whole text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The comment, as markdown (bold, italic, links, lists).
    pub body: String,
    /// Why you comment (shown to the user when the comment waits for approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct ReplyCommentArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// The thread to answer (from list_comments).
    pub thread_id: String,
    /// The reply, as markdown.
    pub body: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct ThreadArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// The thread (from list_comments).
    pub thread_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn thread_id(raw: &str) -> Result<uuid::Uuid, ToolError> {
    raw.trim().parse().map_err(|_| {
        crate::error::ServiceError::invalid(
            format!("thread_id {raw:?} is not a thread id"),
            "Use a thread_id from list_comments.",
        )
        .into()
    })
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
        let (revision, document) = open.tracker.read_async().await?;
        let threads = self.service.client()?.threads(open.id).await?;
        self.service.note_threads(open.id, &threads);
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

    /// Comments on a document as a person would in Docs: opens a thread attached to a
    /// block's text (or exactly `text` in it) with `body` as its first comment. Follows the
    /// document's policy like an edit: it may wait for the user's approval (`pending`; call
    /// edit_status). Returns the new `thread_id`. Use it to review without editing, or to
    /// ask before changing something.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn add_comment(
        &self,
        Parameters(args): Parameters<AddCommentArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let request = CommentRequest {
            block_id: Some(args.block_id.clone()),
            text: args.text.clone(),
            body: Some(args.body.clone()),
            ..self.comment_request(
                &args.document,
                CommentAction::Add,
                "add_comment",
                &args,
                &args.reason,
                &context,
            )
        };
        self.comment(request, &context).await
    }

    /// Answers a comment thread (from list_comments) with `body`. Follows the document's
    /// policy like an edit.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = true
    ))]
    async fn reply_comment(
        &self,
        Parameters(args): Parameters<ReplyCommentArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let request = CommentRequest {
            thread_id: Some(thread_id(&args.thread_id)?),
            body: Some(args.body.clone()),
            ..self.comment_request(
                &args.document,
                CommentAction::Reply,
                "reply_comment",
                &args,
                &args.reason,
                &context,
            )
        };
        self.comment(request, &context).await
    }

    /// Marks a comment thread resolved (once what it asked is done). Docs lets a thread's
    /// creator, or an owner or administrator of the document, resolve it. Follows the
    /// document's policy like an edit.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn resolve_comment(
        &self,
        Parameters(args): Parameters<ThreadArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        self.change_thread(args?, CommentAction::Resolve, "resolve_comment", &context)
            .await
    }

    /// Reopens a resolved comment thread. Follows the document's policy like an edit.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn reopen_comment(
        &self,
        Parameters(args): Parameters<ThreadArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        self.change_thread(args?, CommentAction::Reopen, "reopen_comment", &context)
            .await
    }
}

impl DocsMcp {
    /// Resolves or reopens a thread.
    async fn change_thread(
        &self,
        args: ThreadArgs,
        action: CommentAction,
        tool: &str,
        context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let request = CommentRequest {
            thread_id: Some(thread_id(&args.thread_id)?),
            ..self.comment_request(&args.document, action, tool, &args, &args.reason, context)
        };
        self.comment(request, context).await
    }

    /// A comment tool's call, before what is particular to the tool (thread, block, body).
    fn comment_request(
        &self,
        document: &str,
        action: CommentAction,
        tool: &str,
        args: &impl Serialize,
        reason: &Option<String>,
        context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> CommentRequest {
        CommentRequest {
            document: document.to_owned(),
            action,
            thread_id: None,
            block_id: None,
            text: None,
            body: None,
            tool: tool.into(),
            arguments: arguments_of(args),
            reason: reason.clone(),
            agent: self.agent(context),
        }
    }

    /// Submits a comment, waits for its decision as a write tool does, and answers.
    async fn comment(
        &self,
        request: CommentRequest,
        context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let record = self.service.submit_comment(request).await?;
        let record = self.outcome(record, context).await;
        self.finish(record).await
    }
}
