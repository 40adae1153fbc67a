//! The MCP service of lasuite-docs-mcp.
//!
//! [`DocsService`] is the authority: it opens documents through `docs-client`, plans agent
//! edits on forks, queues them for approval, applies them and keeps the journal in SQLite.
//! [`mcp::DocsMcp`] exposes it as MCP tools. This crate knows nothing of Tauri: the desktop
//! app and the headless `docs-mcp` binary both host the same service.

pub mod authority;
pub mod cli;
pub mod clients;
pub mod config;
pub mod credentials;
pub mod decisions;
pub mod edits;
pub mod error;
pub mod events;
mod holder;
pub mod http;
pub mod json;
pub mod lock;
pub mod mcp;
pub mod peer;
pub mod record;
mod revisions;
pub mod service;
mod stdio;
pub mod store;
pub mod token;

pub use config::ServiceConfig;
pub use error::{ErrorCode, ServiceError, ServiceResult};
pub use record::ErrorInfo;
pub use service::DocsService;
