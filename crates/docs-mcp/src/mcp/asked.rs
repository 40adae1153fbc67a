//! What an agent asked for: its own edits, and withdrawing one that waits for the person (so
//! that it does not leave stale proposals behind). Never approving nor rejecting: that is the
//! person's.
//!
//! Tools: `my_edits` (the edits this agent asked for, pending ones unless told otherwise) and
//! `withdraw_edit` (its own pending edit → `withdrawn`).

use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DocsMcp;
use super::errors::ToolError;
use super::params::Parameters;
use super::write::EditResult;
use crate::record::EditStatus;

/// Edits listed when the agent does not say.
const DEFAULT_LIMIT: u32 = 50;
const MAX_LIMIT: u32 = 200;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MyEditsArgs {
    /// Only those of this document (id or URL).
    #[serde(default)]
    pub document: Option<String>,
    /// Only edits in these states (default: `pending`, those waiting for the user).
    #[serde(default)]
    pub status: Option<Vec<EditStatus>>,
    /// At most this many, newest first (default 50, at most 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One edit this agent asked for.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MyEdit {
    #[serde(flatten)]
    pub outcome: EditResult,
    pub document_title: Option<String>,
    /// The tool that asked for it.
    pub tool: String,
    /// The reason given with it.
    pub reason: Option<String>,
    /// When it was asked, in ms since the Unix epoch.
    pub created_at: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct MyEdits {
    pub edits: Vec<MyEdit>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WithdrawEditArgs {
    /// The edit_id a write tool returned (the edit must still wait for the user).
    pub edit_id: String,
}

#[tool_router(router = asked_tools, vis = "pub(super)")]
impl DocsMcp {
    /// The edits you asked for that wait for the user (or, with `status`, in other states),
    /// newest first: to see what is still undecided before asking again, or to withdraw one.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn my_edits(
        &self,
        Parameters(args): Parameters<MyEditsArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<MyEdits>, ToolError> {
        let args = args?;
        let document = match &args.document {
            Some(document) => Some(self.service.resolve(document)?),
            None => None,
        };
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
        let records = self
            .service
            .edits_of(&self.agent(&context), args.status, document, limit)
            .await?;
        Ok(Json(MyEdits {
            edits: records
                .into_iter()
                .map(|record| MyEdit {
                    outcome: EditResult::from_record(&record),
                    document_title: record.document_title,
                    tool: record.tool,
                    reason: record.reason,
                    created_at: record.created_at,
                })
                .collect(),
        }))
    }

    /// Withdraws an edit you asked for that still waits for the user: it leaves their queue
    /// and is never applied (status `withdrawn`). Only your own, only while undecided — once
    /// decided, the user's decision stands (NOT_PENDING says which).
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn withdraw_edit(
        &self,
        Parameters(args): Parameters<WithdrawEditArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<Json<EditResult>, ToolError> {
        let args = args?;
        let id = super::parse_edit_id(&args.edit_id)?;
        let record = self
            .service
            .withdraw_edit(id, &self.agent(&context))
            .await?;
        Ok(Json(EditResult::from_record(&record)))
    }
}
