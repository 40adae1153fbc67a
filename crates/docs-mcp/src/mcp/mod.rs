//! The MCP face of the service — the only module that knows MCP. Tools are thin: they check
//! and translate arguments, call [`DocsService`], and shape the answer.
//!
//! Here: `DocsMcp`, the rmcp handler, with the server's instructions; the agent making a call is
//! named from a configured client's token, else by its own claim. The tool families: `documents`,
//! `read`, `write`, `comments`, `history`, `asked`; their arguments in `params`, the schemas
//! clients get in `schemas`, errors mapped in `errors`, what each agent last read in `reads`.

mod answers;
mod asked;
mod comments;
mod documents;
mod errors;
mod history;
mod params;
mod read;
mod reads;
mod schemas;
mod write;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool_handler};

use crate::record::AgentInfo;
use crate::service::DocsService;

/// What agents are told about working with this server.
pub const INSTRUCTIONS: &str = "\
Tools to read and edit documents of a La Suite Docs instance, live, beside the people \
editing them. Documents are named by id (UUID) or by URL (https://HOST/docs/<id>/).
How to work:
1. Find the document (list_documents, search), then call get_outline (or get_document) \
before reading: large documents are read by section (read_document with `section`) or in \
pages (`from_block` + `max_chars`, following `next_block_id` while `truncated`).
2. Every read returns a `revision`. Quote it back in writes: if someone changed the blocks \
you target since, the write is refused with STALE_REVISION instead of overwriting them; \
read again and redo the edit.
3. Prefer small, surgical edits: replace_text or update_block for wording, insert_blocks \
for new content. Use block ids from read_document (the `<!-- block:ID -->` anchors). \
apply_edits groups several operations into one atomic edit and one approval.
4. Always give a short `reason`: the user sees it when approving.
5. A write may wait for the user's approval. If it returns status `pending`, call \
edit_status with its edit_id (and wait_seconds) instead of repeating the write. A \
rejection (EDIT_REJECTED) carries the user's comment: do not retry the same edit. \
my_edits lists what you asked that still waits; withdraw_edit takes back a proposal you no \
longer stand by (e.g. before proposing a better one).
6. Errors have a stable `code` and a `hint` saying what to do next.
7. Asked to address the comments of a document: list_comments gives each thread (who said what, resolved or not) with the block and exact text it is attached to; read_document marks that text with <!-- comment:THREAD --> … <!-- /comment:THREAD --> (markers may stay in text you write back); read those blocks and edit them as usual.
8. To review without editing, or to ask before changing something, comment: add_comment on a block (or exact text in it), reply_comment, resolve_comment once addressed. Comments follow the document's policy like edits; under `comment-only` (get_document's `policy`) edits are refused and comments are the way.";

/// An edit id as an agent quotes it.
fn parse_edit_id(raw: &str) -> Result<uuid::Uuid, crate::error::ServiceError> {
    raw.trim().parse().map_err(|_| {
        crate::error::ServiceError::invalid(
            format!("{raw:?} is not an edit id"),
            "Use the edit_id a write tool returned.",
        )
    })
}

/// One MCP connection's handler. The service behind it is shared by every connection.
#[derive(Clone)]
pub struct DocsMcp {
    service: Arc<DocsService>,
    /// Names the transport connection in the journal (e.g. `http`, `stdio`).
    connection: String,
    /// What this agent read, to rebase its rewrites onto what others typed since.
    reads: Arc<reads::ReadMemory>,
    /// The last answers of `read_document`, given again for the same read of an unchanged
    /// document.
    answers: Arc<answers::Answers<read::ReadResult>>,
    tool_router: ToolRouter<Self>,
}

impl DocsMcp {
    pub fn new(service: Arc<DocsService>, connection: impl Into<String>) -> Self {
        let mut tool_router = Self::document_tools()
            + Self::read_tools()
            + Self::write_tools()
            + Self::comment_tools()
            + Self::history_tools()
            + Self::asked_tools();
        schemas::for_clients(&mut tool_router);
        DocsMcp {
            service,
            connection: connection.into(),
            reads: Arc::default(),
            answers: Arc::default(),
            tool_router,
        }
    }

    /// Every tool this server offers, as listed to clients.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    /// The agent making a request: its MCP client name (cleaned), or the configured
    /// fallback.
    fn agent(&self, context: &RequestContext<RoleServer>) -> AgentInfo {
        let reported = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone())
            .unwrap_or_default();
        // A configured client's token (the HTTP guard put the client in the request).
        let configured = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::clients::AgentClient>());
        match configured {
            Some(client) => AgentInfo::configured(client, &reported, self.connection.clone()),
            None => AgentInfo::new(
                &reported,
                self.connection.clone(),
                &self.service.config().fallback_agent_name,
            ),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DocsMcp {
    /// A tool runs once the Docs session the service starts with is taken up (the handshake
    /// and the tool list do not wait for it).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let started = std::time::Instant::now();
        self.service.session_restored().await;
        let tool = request.name.clone();
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let answer = self.tool_router.call(call).await;
        tracing::debug!(%tool, elapsed = ?started.elapsed(), "tool call answered");
        answer
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new(
                "lasuite-docs-mcp",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS)
    }
}
