//! Agents' comments: a new thread attached to text, a reply, resolving or reopening a thread.
//! Each is an edit record of its own (`proposed_comment`), so it follows the document's
//! policy like an edit: made at once (`auto`, `comment-only`), waiting on a card for a person
//! (`review`, or paused), refused (`read-only`). Once decided it is carried out over Docs'
//! REST API — and, for a new thread, by the `comment` mark on its text in the live document
//! (see `commenting`): `applied` once Docs holds the thread and, for a mark, once a save holds
//! it; `failed` and `conflict` mean "not in Docs".
//!
//! A comment is checked when proposed: the block and the exact text it quotes, the thread.

use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use docs_client::blocknote::comments::{
    comment_anchors, comment_body_from_markdown, text_occurrences,
};
use docs_client::blocknote::{self, ModelError};
use uuid::Uuid;

use super::{DocsService, OpenDocument};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{
    AgentInfo, Channel, CommentAction, EditPayload, EditRecord, Policy, ProposedComment,
};

/// The longest comment an agent may write, in bytes of markdown.
pub const MAX_COMMENT_BYTES: usize = 10_000;

/// How long a count of a document's open threads is shown before Docs is asked again: each
/// ask spends one of the 80 calls a minute Docs allows the user's browser tabs and agents.
const OPEN_THREADS_TTL: Duration = Duration::from_secs(60);

/// An agent's call of a comment tool.
#[derive(Debug, Clone)]
pub struct CommentRequest {
    /// Document id or URL.
    pub document: String,
    pub action: CommentAction,
    /// The thread (`reply`, `resolve`, `reopen`).
    pub thread_id: Option<Uuid>,
    /// Where a new thread goes (`add`): a block, and optionally the exact text in it.
    pub block_id: Option<String>,
    pub text: Option<String>,
    /// The comment as markdown (`add`, `reply`).
    pub body: Option<String>,
    pub tool: String,
    pub arguments: serde_json::Value,
    pub reason: Option<String>,
    pub agent: AgentInfo,
}

impl DocsService {
    /// Records an agent's comment under the document's policy and, when that decides it at
    /// once, carries it out. Bad input (a block or text that is not there, an unknown
    /// thread, an empty body) is refused before anything is recorded.
    pub async fn submit_comment(&self, mut request: CommentRequest) -> ServiceResult<EditRecord> {
        request.reason = super::checked_reason(request.reason.take())?;
        let doc = self.open(&request.document, Some(&request.agent)).await?;
        if !doc.session.metadata().abilities.can_comment() {
            return Err(docs_client::Error::Forbidden {
                detail: format!("this user may not comment on document {}", doc.id),
            }
            .into());
        }
        // Refused at once under Read-only, before Docs is asked about the thread.
        if self.policy_for(doc.id).await? == Policy::ReadOnly {
            return Err(ServiceError::PolicyReadOnly);
        }
        let proposal = self.proposal(&doc, &request).await?;
        let record = EditRecord {
            touched_blocks: proposal.block_id.iter().cloned().collect(),
            proposed_comment: Some(proposal),
            ..EditRecord::pending(
                doc.id,
                doc.session.metadata().title.clone(),
                request.agent,
                request.tool,
                request.arguments,
                request.reason,
            )
        };
        let guard = self.doc_locks.lock(doc.id).await;
        // Decided where it is decided: the policy and Pause as they are now, after the REST
        // calls that checked the proposal and the wait for the document's lock.
        let decided_by = match self.policy_for(doc.id).await? {
            Policy::ReadOnly => return Err(ServiceError::PolicyReadOnly),
            Policy::Auto | Policy::CommentOnly if !self.is_paused() => Some(Channel::Policy),
            _ => None,
        };
        self.queue(&doc, record, EditPayload::none(), decided_by, 0, guard)
            .await
    }

    /// What the agent asks, checked against the document and its threads as they are.
    async fn proposal(
        &self,
        doc: &OpenDocument,
        request: &CommentRequest,
    ) -> ServiceResult<ProposedComment> {
        let body = match &request.body {
            Some(body) => Some(checked_body(body)?),
            None if matches!(request.action, CommentAction::Add | CommentAction::Reply) => {
                return Err(ServiceError::invalid(
                    "the comment has no body",
                    "Give the comment's text in `body` (markdown).",
                ));
            }
            None => None,
        };
        let (_, document) = doc.tracker.read_async().await?;
        if request.action == CommentAction::Add {
            let block_id = request.block_id.clone().ok_or_else(|| {
                ServiceError::invalid(
                    "a new comment needs the block it is about",
                    "Give block_id (from read_document), and text to comment on part of it.",
                )
            })?;
            let (_, quoted) = anchor_in(&document, &block_id, request.text.as_deref())?;
            return Ok(ProposedComment {
                action: CommentAction::Add,
                thread_id: None,
                block_id: Some(block_id),
                quoted_text: Some(quoted),
                body_blocks: body
                    .as_deref()
                    .map(comment_body_from_markdown)
                    .transpose()?,
                body,
                anchored: None,
            });
        }
        let thread = request.thread_id.ok_or_else(|| {
            ServiceError::invalid(
                "no thread_id",
                "Give the thread_id of a thread from list_comments.",
            )
        })?;
        let current = self.client()?.thread(doc.id, thread).await?;
        match (request.action, current.resolved) {
            (CommentAction::Resolve, true) => {
                return Err(ServiceError::invalid(
                    format!("thread {thread} is resolved already"),
                    "Nothing to do; reopen_comment reopens it.",
                ));
            }
            (CommentAction::Reopen, false) => {
                return Err(ServiceError::invalid(
                    format!("thread {thread} is open"),
                    "Nothing to do; only a resolved thread can be reopened.",
                ));
            }
            _ => {}
        }
        let anchor = comment_anchors(&document.blocks)
            .into_iter()
            .find(|a| a.thread_id == thread.to_string() && !a.orphan);
        Ok(ProposedComment {
            action: request.action,
            thread_id: Some(thread.to_string()),
            block_id: anchor.as_ref().map(|a| a.block_id.clone()),
            quoted_text: anchor.map(|a| a.text),
            body_blocks: body
                .as_deref()
                .map(comment_body_from_markdown)
                .transpose()?,
            body,
            anchored: None,
        })
    }

    /// The unresolved comment threads of each document (those Docs could list): counts at
    /// most [`OPEN_THREADS_TTL`] old, asked of Docs together.
    pub async fn open_threads(&self, documents: &[Uuid]) -> HashMap<Uuid, usize> {
        let fresh = |id: &Uuid| {
            let counts = self.open_threads.lock().expect("open threads");
            counts
                .get(id)
                .filter(|(_, at)| at.elapsed() < OPEN_THREADS_TTL)
                .map(|(count, _)| *count)
        };
        let mut found = HashMap::new();
        let mut asked = vec![];
        for id in documents {
            match fresh(id) {
                Some(count) => {
                    found.insert(*id, count);
                }
                None => asked.push(*id),
            }
        }
        let Ok(client) = self.client() else {
            return found;
        };
        let answers = futures_util::future::join_all(
            asked
                .iter()
                .map(|id| async { (*id, client.threads(*id).await) }),
        )
        .await;
        for (id, answer) in answers {
            match answer {
                Ok(threads) => {
                    found.insert(id, self.note_threads(id, &threads));
                }
                Err(e) => tracing::debug!(document = %id, error = %e, "no thread count"),
            }
        }
        found
    }

    /// Keeps the count of a document's open threads from a list of them just fetched.
    pub fn note_threads(&self, document: Uuid, threads: &[docs_client::Thread]) -> usize {
        let open = threads.iter().filter(|t| !t.resolved).count();
        self.open_threads
            .lock()
            .expect("open threads")
            .insert(document, (open, Instant::now()));
        open
    }

    pub(super) fn forget_open_threads(&self, document: Uuid) {
        self.open_threads
            .lock()
            .expect("open threads")
            .remove(&document);
    }
}

/// Why a new thread could not be attached to the text its card quotes any more, if so.
pub(super) async fn text_gone(
    doc: &OpenDocument,
    proposal: &ProposedComment,
) -> ServiceResult<Option<String>> {
    if proposal.action != CommentAction::Add {
        return Ok(None);
    }
    let (_, document) = doc.tracker.read_async().await?;
    Ok(anchor_in(
        &document,
        proposal.block_id.as_deref().unwrap_or_default(),
        proposal.quoted_text.as_deref(),
    )
    .err()
    .map(|e| changed_since(&e)))
}

pub(super) fn changed_since(error: &ServiceError) -> String {
    format!("the text the comment is about changed since it was proposed: {error}")
}

/// The body as agents give it: not empty, not too long, a comment Docs' editor can show.
fn checked_body(body: &str) -> ServiceResult<String> {
    let body = body.trim();
    if body.is_empty() {
        return Err(ServiceError::invalid(
            "the comment is empty",
            "Write what you want to say in `body` (markdown).",
        ));
    }
    if body.len() > MAX_COMMENT_BYTES {
        return Err(ServiceError::invalid(
            format!(
                "the comment is {} bytes; the limit is {MAX_COMMENT_BYTES}",
                body.len()
            ),
            "Say it in fewer words, or in several replies.",
        ));
    }
    comment_body_from_markdown(body)?;
    Ok(body.to_owned())
}

/// Where in `block_id` a thread goes: the one place `text` occurs, or the whole text of the
/// block; with the text it covers.
pub(super) fn anchor_in(
    document: &blocknote::Document,
    block_id: &str,
    text: Option<&str>,
) -> ServiceResult<(Range<usize>, String)> {
    let block = document.find(block_id).ok_or_else(|| {
        ServiceError::from(ModelError::BlockNotFound {
            id: block_id.to_owned(),
        })
    })?;
    let plain = block.plain_text();
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        let len = plain.chars().count();
        if plain.trim().is_empty() {
            return Err(ServiceError::invalid(
                format!("block {block_id} has no text to comment on"),
                "Comment on a block with text.",
            ));
        }
        return Ok((0..len, plain));
    };
    let found = text_occurrences(&plain, text);
    match found.len() {
        1 => Ok((found[0].clone(), text.to_owned())),
        0 => Err(ServiceError::TextNotFound {
            needle: text.to_owned(),
            scope: format!("block {block_id}"),
        }),
        count => Err(ServiceError::AmbiguousMatch {
            needle: text.to_owned(),
            count,
            block_ids: vec![block_id.to_owned()],
        }),
    }
}
