//! Document tools: the user's documents (or those known here), a search through them, and a
//! document's metadata, size and revision.
//!
//! Tools: `list_documents`, `search`, `get_document`.

use docs_client::ListQuery;
use docs_client::blocknote::{self, OutlineNode};
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DocsMcp;
use super::errors::ToolError;
use super::params::Parameters;
use crate::error::ServiceError;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DocumentArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListDocumentsArgs {
    /// Only documents whose title contains this text.
    #[serde(default)]
    pub query: Option<String>,
    /// Only the user's favorites (signed in only).
    #[serde(default)]
    pub favorites: bool,
    /// Page number, from 1.
    #[serde(default)]
    pub page: Option<u32>,
    /// Documents per page (at most 100; default 20).
    #[serde(default)]
    pub page_size: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DocumentSummary {
    pub id: String,
    pub title: Option<String>,
    pub url: String,
    pub updated_at: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DocumentList {
    pub documents: Vec<DocumentSummary>,
    /// `instance`: the signed-in user's documents; `local`: documents added or opened here.
    pub source: String,
    pub page: u32,
    pub has_more: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    pub query: String,
    /// At most this many results (default 10, at most 50).
    #[serde(default)]
    pub max_results: Option<usize>,
    /// Size budget of all snippets together, in characters (default 8000).
    #[serde(default)]
    pub max_chars: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchHit {
    pub document_id: String,
    pub title: Option<String>,
    /// The matching block, for content matches.
    pub block_id: Option<String>,
    pub snippet: String,
    /// `title` or `content`.
    pub matched: String,
    pub score: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResults {
    pub results: Vec<SearchHit>,
    pub truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DocumentInfo {
    pub id: String,
    pub title: Option<String>,
    pub url: String,
    pub read_only: bool,
    pub link_reach: Option<String>,
    pub link_role: Option<String>,
    pub user_role: Option<String>,
    /// How agent edits are handled here: `auto`, `review`, `read-only` or `comment-only`
    /// (edits refused, comments made at once).
    pub policy: String,
    pub revision: String,
    pub blocks: usize,
    pub words: usize,
    pub headings: usize,
    /// Other people and agents currently in the document.
    pub collaborators: Vec<String>,
}

fn count_headings(nodes: &[OutlineNode]) -> usize {
    nodes.iter().map(|n| 1 + count_headings(&n.children)).sum()
}

fn snippet_around(text: &str, byte: usize, width: usize) -> String {
    let start = text[..byte]
        .char_indices()
        .rev()
        .nth(width / 2)
        .map_or(0, |(i, _)| i);
    let snippet: String = text[start..].chars().take(width).collect();
    let prefix = if start > 0 { "…" } else { "" };
    let suffix = if text[start..].chars().count() > width {
        "…"
    } else {
        ""
    };
    format!("{prefix}{snippet}{suffix}")
}

#[tool_router(router = document_tools, vis = "pub(super)")]
impl DocsMcp {
    /// Lists documents: when signed in, the instance's documents of the user (optionally
    /// favorites or a title filter); otherwise the documents added or opened here.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn list_documents(
        &self,
        Parameters(args): Parameters<ListDocumentsArgs>,
    ) -> Result<Json<DocumentList>, ToolError> {
        let args = args?;
        let client = self.service.client()?;
        let page = args.page.unwrap_or(1).max(1);
        let page_size = args.page_size.unwrap_or(20).clamp(1, 100);
        let url = |id: &uuid::Uuid| client.instance().document_page(id).to_string();
        if self.service.has_user_session() {
            let result = if args.favorites {
                client.favorite_documents(Some(page)).await
            } else {
                client
                    .list_documents(&ListQuery {
                        page: Some(page),
                        page_size: Some(page_size),
                        title: args.query.clone(),
                        ..ListQuery::default()
                    })
                    .await
            }
            .map_err(ToolError::from)?;
            return Ok(Json(DocumentList {
                documents: result
                    .results
                    .iter()
                    .map(|d| DocumentSummary {
                        id: d.id.to_string(),
                        title: d.title.clone(),
                        url: url(&d.id),
                        updated_at: d.updated_at.clone(),
                    })
                    .collect(),
                source: "instance".into(),
                page,
                has_more: result.next.is_some(),
            }));
        }
        let query = args.query.as_deref().map(str::to_lowercase);
        let known: Vec<_> = self
            .service
            .known_documents()
            .await?
            .into_iter()
            .filter(|d| match &query {
                Some(q) => d
                    .title
                    .as_deref()
                    .is_some_and(|t| t.to_lowercase().contains(q)),
                None => true,
            })
            .collect();
        let start = ((page - 1) * page_size) as usize;
        let documents = known
            .iter()
            .skip(start)
            .take(page_size as usize)
            .map(|d| DocumentSummary {
                id: d.id.to_string(),
                title: d.title.clone(),
                url: url(&d.id),
                updated_at: None,
            })
            .collect();
        Ok(Json(DocumentList {
            documents,
            source: "local".into(),
            page,
            has_more: known.len() > start + page_size as usize,
        }))
    }

    /// Searches document titles (through the instance, when signed in) and the content of
    /// the documents open here; returns ranked snippets with document and block ids.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn search(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<Json<SearchResults>, ToolError> {
        let args = args?;
        let query = args.query.trim().to_owned();
        if query.is_empty() {
            return Err(
                ServiceError::invalid("the query is empty", "Give words to search for.").into(),
            );
        }
        let max_results = args.max_results.unwrap_or(10).clamp(1, 50);
        let budget = args.max_chars.unwrap_or(8000).clamp(200, 50_000);
        let needle = query.to_lowercase();
        let mut hits: Vec<SearchHit> = vec![];
        if self.service.has_user_session() {
            let client = self.service.client()?;
            if let Ok(page) = client.search_documents(&query, None).await {
                for doc in page.results {
                    hits.push(SearchHit {
                        document_id: doc.id.to_string(),
                        snippet: doc.title.clone().unwrap_or_default(),
                        title: doc.title,
                        block_id: None,
                        matched: "title".into(),
                        score: 2.0,
                    });
                }
            }
        }
        for snapshot in self.service.sessions() {
            let Ok(open) = self
                .service
                .open(&snapshot.document_id.to_string(), None)
                .await
            else {
                continue;
            };
            let title = open.session.metadata().title.clone();
            let Ok((_, document)) = open.tracker.read_async().await else {
                continue;
            };
            for block in document.all_blocks() {
                let text = block.plain_text();
                let lower = text.to_lowercase();
                let count = lower.matches(&needle).count();
                if count == 0 {
                    continue;
                }
                let byte = lower.find(&needle).unwrap_or(0);
                let byte = if text.is_char_boundary(byte) { byte } else { 0 };
                hits.push(SearchHit {
                    document_id: open.id.to_string(),
                    title: title.clone(),
                    block_id: Some(block.id.clone()),
                    snippet: snippet_around(&text, byte, 160),
                    matched: "content".into(),
                    score: count as f64 / (1.0 + (text.len() as f64 / 500.0)),
                });
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        let mut truncated = hits.len() > max_results;
        hits.truncate(max_results);
        let mut used = 0;
        let mut kept = vec![];
        for hit in hits {
            used += hit.snippet.chars().count();
            if used > budget && !kept.is_empty() {
                truncated = true;
                break;
            }
            kept.push(hit);
        }
        Ok(Json(SearchResults {
            results: kept,
            truncated,
        }))
    }

    /// A document's metadata, abilities, approval policy, size and current revision.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn get_document(
        &self,
        Parameters(args): Parameters<DocumentArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<DocumentInfo>, ToolError> {
        let args = args?;
        let open = self
            .service
            .open(&args.document, Some(&self.agent(&context)))
            .await?;
        let (revision, document) = open.tracker.read_async().await?;
        let outline = blocknote::outline(&document);
        let meta = open.session.metadata();
        Ok(Json(DocumentInfo {
            id: open.id.to_string(),
            title: meta.title.clone(),
            url: self
                .service
                .client()?
                .instance()
                .document_page(&open.id)
                .to_string(),
            read_only: open.session.is_read_only(),
            link_reach: meta.link_reach.clone(),
            link_role: meta.link_role.clone(),
            user_role: meta.user_role.clone(),
            policy: self.service.policy_for(open.id).await?.as_str().into(),
            revision,
            blocks: outline.total_blocks,
            words: outline.total_words,
            headings: count_headings(&outline.headings),
            collaborators: open.session.collaborators(),
        }))
    }
}
