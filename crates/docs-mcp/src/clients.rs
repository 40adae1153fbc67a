//! Agent clients a person configured, each with a bearer token of its own: the card, the
//! history and the document's collaborators then name the client the person named, not what
//! the agent calls itself, and one client can be cut off without touching the others. Only
//! a SHA-256 of each token is kept; the token is shown once, when the client is added.
//!
//! The HTTP guard finds the client by its token's hash (`ActiveClients`) and puts it in the
//! request; the MCP handler then names the agent as the person named it (`AgentInfo::configured`,
//! with its `client_id`). A revoked client's token is refused from its next request. Stored since
//! schema 3.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::token::BearerToken;

/// A configured agent client.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentClient {
    pub id: Uuid,
    /// The name the person gave it (cleaned like any agent name).
    pub name: String,
    /// Milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
    /// When its token stopped working.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub revoked_at: Option<i64>,
}

/// A client just added, with its token: shown once, never stored.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewAgentClient {
    pub client: AgentClient,
    pub token: String,
}

/// The SHA-256 of a token, hex.
pub fn token_sha256(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new client token (the same form as the shared one).
pub fn new_token() -> String {
    BearerToken::generate().expose().to_owned()
}

/// The clients whose tokens open `/mcp` now, by token hash: what the HTTP guard asks on every
/// request (shared with the service, which changes it when a person adds or revokes one).
#[derive(Clone, Default)]
pub struct ActiveClients(Arc<RwLock<HashMap<String, AgentClient>>>);

impl ActiveClients {
    /// The active client holding `token`, if one does. The lookup is by the token's hash, so
    /// its time does not depend on how much of a token matches.
    pub fn find(&self, token: &str) -> Option<AgentClient> {
        let hash = token_sha256(token);
        self.0.read().expect("clients lock").get(&hash).cloned()
    }

    pub fn replace(&self, active: HashMap<String, AgentClient>) {
        *self.0.write().expect("clients lock") = active;
    }
}
