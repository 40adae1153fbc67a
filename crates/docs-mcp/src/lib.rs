//! The MCP service of lasuite-docs-mcp.
//!
//! [`DocsService`] is the authority: it opens documents through `docs-client`, plans agent
//! edits on forks, queues them for approval, applies them and keeps the journal in SQLite.
//! [`DocsMcp`] exposes it as MCP tools, [`serve_http`] over loopback HTTP. This crate knows
//! nothing of Tauri: the desktop app and the headless `docs-mcp` binary ([`cli_main`]) both
//! host the same service.
//!
//! Two modules are public, each a vocabulary used wherever the service is: [`record`], the
//! journal's types (an edit's record, its status, a document's policy, previews), and
//! [`edits`], the operations agents ask for and their planning. The other modules are
//! private; what the app, the binary, the tests and the benches use of them is re-exported
//! here.

mod authority;
mod cli;
mod clients;
mod config;
mod credentials;
mod decisions;
pub mod edits;
mod error;
mod events;
mod holder;
mod http;
mod json;
mod lock;
mod mcp;
mod peer;
pub mod record;
mod restart;
mod revisions;
#[cfg(test)]
mod seeded;
mod service;
mod stdio;
mod store;
mod token;

pub use authority::read as control_token;
pub use cli::{bridge_args, guarded_registry, log_filter, main as cli_main, service_runtime};
pub use clients::{AgentClient, NewAgentClient};
pub use config::{
    DEFAULT_PORT, SAVE_INTERVAL_ENV, ServiceConfig, default_data_dir, default_log_dir,
    parse_save_interval,
};
pub use credentials::CredentialStore;
pub use decisions::{Action, AskError, DecisionRequest, PersonAt, RequestState};
pub use error::{ErrorCode, ServiceError, ServiceResult};
pub use events::ServiceEvent;
pub use http::{MAX_MCP_BODY_BYTES, ensure_loopback, serve_http};
pub use json::from_str as from_deep_json;
pub use lock::{DataDirLock, Holder, holder as data_dir_holder, private_dir};
pub use mcp::DocsMcp;
pub use peer::Asker;
pub use record::ErrorInfo;
pub use restart::EnvDefault;
#[cfg(unix)]
pub use restart::start_again_with;
pub use service::{
    DocsService, EditRequest, LeftUnsaved, MAX_PENDING_PER_AGENT, Outcome, StopReport, text_preview,
};
pub use store::{Store, StoredPolicies, Transition};
pub use token::{BearerToken, SharedToken, TokenStore};
