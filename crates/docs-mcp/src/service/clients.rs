//! Configuring agent clients: a person adds one (named, with its own token), lists them,
//! revokes one. The HTTP guard reads the active ones from [`ActiveClients`].

use std::collections::HashMap;

use uuid::Uuid;

use super::DocsService;
use crate::clients::{ActiveClients, AgentClient, NewAgentClient, new_token, token_sha256};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{MAX_AGENT_NAME_CHARS, clean_name, now_ms};

impl DocsService {
    /// The clients whose tokens open `/mcp`, as the HTTP guard sees them.
    pub fn active_clients(&self) -> ActiveClients {
        self.clients.clone()
    }

    /// Every configured client, revoked ones included, oldest first.
    pub async fn agent_clients(&self) -> ServiceResult<Vec<AgentClient>> {
        Ok(self
            .store
            .agent_clients()
            .await?
            .into_iter()
            .map(|(client, _)| client)
            .collect())
    }

    /// Adds a client named `name`; its token is in the answer and nowhere else.
    pub async fn add_agent_client(&self, name: &str) -> ServiceResult<NewAgentClient> {
        let name = clean_name(name);
        if name.is_empty() {
            return Err(ServiceError::invalid(
                "a client needs a name",
                format!(
                    "Name it after the agent and the machine, e.g. \"Claude Code (laptop)\" (at most {MAX_AGENT_NAME_CHARS} characters)."
                ),
            ));
        }
        let taken = self
            .agent_clients()
            .await?
            .into_iter()
            .any(|c| c.revoked_at.is_none() && c.name.eq_ignore_ascii_case(&name));
        if taken {
            return Err(ServiceError::invalid(
                format!("a client is already named {name:?}"),
                "Give each client a name of its own, so a card says which one asked.",
            ));
        }
        let client = AgentClient {
            id: Uuid::new_v4(),
            name,
            created_at: now_ms(),
            revoked_at: None,
        };
        let token = new_token();
        self.store
            .insert_agent_client(client.clone(), token_sha256(&token))
            .await?;
        self.load_clients().await?;
        Ok(NewAgentClient { client, token })
    }

    /// Revokes a client: its token stops working at once.
    pub async fn revoke_agent_client(&self, id: Uuid) -> ServiceResult<AgentClient> {
        if !self.store.revoke_agent_client(id, now_ms()).await? {
            return Err(ServiceError::invalid(
                format!("no active client {id}"),
                "List the clients: it may have been revoked already.",
            ));
        }
        self.load_clients().await?;
        self.agent_clients()
            .await?
            .into_iter()
            .find(|c| c.id == id)
            .ok_or_else(|| ServiceError::Internal(format!("client {id} vanished")))
    }

    /// Reads the active clients into what the HTTP guard asks.
    pub(super) async fn load_clients(&self) -> ServiceResult<()> {
        let active: HashMap<String, AgentClient> = self
            .store
            .agent_clients()
            .await?
            .into_iter()
            .filter(|(client, _)| client.revoked_at.is_none())
            .map(|(client, hash)| (hash, client))
            .collect();
        self.clients.replace(active);
        Ok(())
    }
}
