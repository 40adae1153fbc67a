//! Docs' comment threads over REST (`/api/v1.0/documents/<id>/threads/…`).
//!
//! A thread is created with its first comment (`POST threads/ {body}`); replies are comments
//! of the thread. A comment's `body` is BlockNote blocks JSON, written by Docs' comment
//! editor: [`comment_body_from_markdown`] makes one, [`Comment::markdown`] reads one. Where a
//! thread sits in the text is not kept here but in the document, as BlockNote's `comment`
//! mark (see [`blocknote::comments`](crate::blocknote::comments)): creating a thread over REST
//! does not anchor it.
//!
//! Permissions are Docs': listing and creating need the document ability `comment`
//! ([`Abilities::can_comment`](crate::Abilities::can_comment): editors, and the `commenter`
//! role, who may not edit); resolving or deleting a thread is for its creator or an owner or
//! administrator of the document, editing a comment for its author ([`ThreadAbilities`],
//! [`CommentAbilities`]). A refusal is [`Error::Forbidden`] (or [`Error::Unauthorized`] when
//! not signed in), a missing document or thread [`Error::NotFound`].
//!
//! On `DocsClient`: `threads` (not paginated), `thread`, `create_thread` (with its first comment;
//! it anchors nothing), `reply`, `comments` (paginated), `resolve_thread` / `unresolve_thread`,
//! `edit_comment`, `delete_comment`, `delete_thread`.

use reqwest::Method;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[cfg(doc)]
use crate::blocknote::comments::comment_body_from_markdown;
use crate::blocknote::comments::comment_body_to_markdown;
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::rest::{DocsClient, Page, parse_json};

/// A user as Docs shows them next to threads and comments (`UserLightSerializer`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct UserLight {
    #[serde(default)]
    pub full_name: Option<String>,
    #[serde(default)]
    pub short_name: Option<String>,
}

impl UserLight {
    /// The name to show: the full name, else the short one.
    pub fn name(&self) -> Option<&str> {
        self.full_name
            .as_deref()
            .filter(|s| !s.is_empty())
            .or(self.short_name.as_deref().filter(|s| !s.is_empty()))
    }
}

/// What the current user may do with a thread (`Thread.get_abilities`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(default)]
pub struct ThreadAbilities {
    pub destroy: bool,
    pub update: bool,
    pub partial_update: bool,
    pub resolve: bool,
    pub unresolve: bool,
    pub retrieve: bool,
}

/// What the current user may do with a comment (`Comment.get_abilities`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(default)]
pub struct CommentAbilities {
    pub destroy: bool,
    pub update: bool,
    pub partial_update: bool,
    pub reactions: bool,
    pub retrieve: bool,
}

/// A reaction to a comment: one emoji and who chose it.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
pub struct Reaction {
    #[serde(default)]
    pub id: Option<String>,
    pub emoji: String,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub users: Vec<UserLight>,
}

/// One comment of a thread (`CommentSerializer`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Comment {
    pub id: Uuid,
    /// The author; `None` for an anonymous visitor (or a deleted user).
    #[serde(default)]
    pub user: Option<UserLight>,
    /// BlockNote blocks JSON.
    pub body: serde_json::Value,
    pub created_at: String,
    pub updated_at: String,
    #[serde(default)]
    pub reactions: Vec<Reaction>,
    #[serde(default)]
    pub abilities: CommentAbilities,
}

impl Comment {
    /// The body as markdown.
    pub fn markdown(&self) -> String {
        comment_body_to_markdown(&self.body)
    }
}

/// A comment thread of a document (`ThreadSerializer`; Docs lists them newest first).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Thread {
    pub id: Uuid,
    pub created_at: String,
    pub updated_at: String,
    /// Who opened it; `None` for an anonymous visitor (or a deleted user).
    #[serde(default)]
    pub creator: Option<UserLight>,
    #[serde(default)]
    pub abilities: ThreadAbilities,
    /// The first comment opened the thread; replies follow, oldest first.
    #[serde(default)]
    pub comments: Vec<Comment>,
    #[serde(default)]
    pub resolved: bool,
    #[serde(default)]
    pub resolved_at: Option<String>,
    /// The id of the user who resolved it.
    #[serde(default)]
    pub resolved_by: Option<String>,
    #[serde(default)]
    pub metadata: serde_json::Value,
}

#[derive(Serialize)]
struct BodyPayload<'a> {
    body: &'a serde_json::Value,
}

impl DocsClient {
    fn threads_path(document: Uuid) -> String {
        format!("documents/{document}/threads/")
    }

    fn body_of(body: &serde_json::Value) -> Vec<u8> {
        serde_json::to_vec(&BodyPayload { body }).expect("serializable")
    }

    /// Every thread of a document, resolved ones included, newest first (Docs does not
    /// paginate them).
    pub async fn threads(&self, document: Uuid) -> Result<Vec<Thread>> {
        let url = self.instance().api(&Self::threads_path(document));
        self.get_json(url, &format!("the comment threads of document {document}"))
            .await
    }

    /// One thread with its comments.
    pub async fn thread(&self, document: Uuid, thread: Uuid) -> Result<Thread> {
        let url = self
            .instance()
            .api(&format!("{}{thread}/", Self::threads_path(document)));
        self.get_json(url, &format!("comment thread {thread}"))
            .await
    }

    /// Opens a thread whose first comment is `body` (BlockNote blocks JSON, see
    /// [`comment_body_from_markdown`]). The thread is not anchored to any text yet.
    pub async fn create_thread(&self, document: Uuid, body: &serde_json::Value) -> Result<Thread> {
        let what = format!("a new comment thread in document {document}");
        let url = self.instance().api(&Self::threads_path(document));
        let response = self
            .send(Method::POST, url, Some(Self::body_of(body)), &what)
            .await?;
        parse_json(response, &what).await
    }

    /// Adds a comment (a reply) to a thread (`body`: BlockNote blocks JSON).
    pub async fn reply(
        &self,
        document: Uuid,
        thread: Uuid,
        body: &serde_json::Value,
    ) -> Result<Comment> {
        let what = format!("a reply in comment thread {thread}");
        let url = self.instance().api(&format!(
            "{}{thread}/comments/",
            Self::threads_path(document)
        ));
        let response = self
            .send(Method::POST, url, Some(Self::body_of(body)), &what)
            .await?;
        parse_json(response, &what).await
    }

    /// One page of a thread's comments, oldest first (`page` from 1; Docs pages them by 20).
    pub async fn comments(
        &self,
        document: Uuid,
        thread: Uuid,
        page: Option<u32>,
    ) -> Result<Page<Comment>> {
        let mut url = self.instance().api(&format!(
            "{}{thread}/comments/",
            Self::threads_path(document)
        ));
        if let Some(page) = page {
            url.query_pairs_mut().append_pair("page", &page.to_string());
        }
        self.get_json(url, &format!("the comments of thread {thread}"))
            .await
    }

    async fn thread_action(&self, document: Uuid, thread: Uuid, action: &str) -> Result<()> {
        let url = self.instance().api(&format!(
            "{}{thread}/{action}/",
            Self::threads_path(document)
        ));
        self.send(
            Method::POST,
            url,
            Some(b"{}".to_vec()),
            &format!("{action} comment thread {thread}"),
        )
        .await?;
        Ok(())
    }

    /// Marks a thread resolved (its creator, or an owner or administrator of the document).
    /// Resolving a resolved thread changes nothing.
    pub async fn resolve_thread(&self, document: Uuid, thread: Uuid) -> Result<()> {
        self.thread_action(document, thread, "resolve").await
    }

    /// Reopens a resolved thread (same rights as resolving).
    pub async fn unresolve_thread(&self, document: Uuid, thread: Uuid) -> Result<()> {
        self.thread_action(document, thread, "unresolve").await
    }

    /// Deletes a thread with its comments (its creator, or an owner or administrator). Its
    /// mark stays in the document until an editor's BlockNote marks it orphaned.
    pub async fn delete_thread(&self, document: Uuid, thread: Uuid) -> Result<()> {
        let url = self
            .instance()
            .api(&format!("{}{thread}/", Self::threads_path(document)));
        self.send(
            Method::DELETE,
            url,
            None,
            &format!("comment thread {thread}"),
        )
        .await?;
        Ok(())
    }

    fn comment_url(&self, document: Uuid, thread: Uuid, comment: Uuid) -> url::Url {
        self.instance().api(&format!(
            "{}{thread}/comments/{comment}/",
            Self::threads_path(document)
        ))
    }

    /// Replaces a comment's body (its author only).
    pub async fn edit_comment(
        &self,
        document: Uuid,
        thread: Uuid,
        comment: Uuid,
        body: &serde_json::Value,
    ) -> Result<Comment> {
        let what = format!("comment {comment}");
        let url = self.comment_url(document, thread, comment);
        let response = self
            .send(Method::PATCH, url, Some(Self::body_of(body)), &what)
            .await?;
        parse_json(response, &what).await
    }

    /// Deletes a comment (its author, or an owner or administrator of the document).
    pub async fn delete_comment(&self, document: Uuid, thread: Uuid, comment: Uuid) -> Result<()> {
        let url = self.comment_url(document, thread, comment);
        self.send(Method::DELETE, url, None, &format!("comment {comment}"))
            .await?;
        Ok(())
    }
}
