//! The document's history as the instance keeps it: on yhub (Docs' next collaboration
//! server), who changed the document and when, agents' changes told apart by their tags.
//!
//! Tool: `get_history`; without yhub it answers `HISTORY_UNAVAILABLE`.

use docs_client::{Activity, CollaborationServer};
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DocsMcp;
use super::errors::ToolError;
use super::params::Parameters;
use crate::error::ServiceError;

/// Entries returned when the agent does not say.
const DEFAULT_LIMIT: u32 = 20;
const MAX_LIMIT: u32 = 200;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct HistoryArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// At most this many entries, newest first (default 20, at most 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Changes by one author over a span of time.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryEntry {
    /// First and last change of the span, in ms since the Unix epoch.
    pub from_ms: i64,
    pub to_ms: i64,
    /// Who: a Docs user id, `anon:…` for an anonymous visitor, `system` for the instance.
    pub by: Option<String>,
    /// Made by an AI agent (tagged `source: ai`), this service's or another's.
    pub by_agent: bool,
    /// The tags the changes carried, as `key: value`.
    pub tags: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryResult {
    pub document_id: String,
    pub entries: Vec<HistoryEntry>,
}

fn entry(activity: Activity) -> HistoryEntry {
    let by_agent = activity
        .custom_attributions
        .iter()
        .any(|a| a.k == "source" && a.v == "ai");
    HistoryEntry {
        from_ms: activity.from,
        to_ms: activity.to,
        by: activity.by,
        by_agent,
        tags: activity
            .custom_attributions
            .into_iter()
            .map(|a| format!("{}: {}", a.k, a.v))
            .collect(),
    }
}

#[tool_router(router = history_tools, vis = "pub(super)")]
impl DocsMcp {
    /// Who changed a document and when, newest first, agents' changes marked — where the
    /// instance keeps such a history (Docs' next collaboration server, yhub); elsewhere the
    /// error HISTORY_UNAVAILABLE says to use get_changes.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn get_history(
        &self,
        Parameters(args): Parameters<HistoryArgs>,
    ) -> Result<Json<HistoryResult>, ToolError> {
        let args = args?;
        let id = self.service.resolve(&args.document)?;
        let client = self.service.client()?;
        let endpoint = client.collaboration_of(id).await?;
        if endpoint.server() != CollaborationServer::Yhub {
            return Err(ServiceError::HistoryUnavailable {
                server: endpoint.server().as_str().to_owned(),
            }
            .into());
        }
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
        let activity = client.activity(&endpoint, id, limit).await?;
        Ok(Json(HistoryResult {
            document_id: id.to_string(),
            entries: activity.into_iter().map(entry).collect(),
        }))
    }
}
