//! The one place service errors become MCP tool results: `isError: true` with a text body
//! `{"error": {"code", "message", "hint"}}`. User-actionable failures are tool results, not
//! protocol errors, so agents can read and act on them.

use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};

use crate::error::ServiceError;
use crate::record::ErrorInfo;

/// A failed tool call, as the agent receives it.
#[derive(Debug)]
pub struct ToolError(pub ErrorInfo);

impl From<ServiceError> for ToolError {
    fn from(error: ServiceError) -> Self {
        ToolError(error.info())
    }
}

impl From<docs_client::Error> for ToolError {
    fn from(error: docs_client::Error) -> Self {
        ServiceError::from(error).into()
    }
}

impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, rmcp::ErrorData> {
        let body = serde_json::json!({ "error": self.0 });
        Ok(CallToolResult::error(vec![ContentBlock::text(body.to_string())]).into())
    }
}
