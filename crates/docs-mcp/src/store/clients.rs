//! The agent clients a person configured: a name and the SHA-256 of the token given to it.

use rusqlite::params;
use uuid::Uuid;

use super::{Store, store_err};
use crate::clients::AgentClient;
use crate::error::ServiceResult;

/// A configured client as stored: its record, and its token's hash (hex).
pub type StoredClient = (AgentClient, String);

impl Store {
    pub async fn insert_agent_client(
        &self,
        client: AgentClient,
        token_sha256: String,
    ) -> ServiceResult<()> {
        self.call(move |conn| {
            conn.execute(
                "INSERT INTO agent_clients (id, name, token_sha256, created_at, revoked_at) VALUES (?1, ?2, ?3, ?4, NULL)",
                params![client.id.to_string(), client.name, token_sha256, client.created_at],
            )
            .map_err(store_err)?;
            Ok(())
        })
        .await
    }

    /// Every configured client, revoked ones included, oldest first.
    pub async fn agent_clients(&self) -> ServiceResult<Vec<StoredClient>> {
        self.call(|conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT id, name, token_sha256, created_at, revoked_at FROM agent_clients \
                     ORDER BY created_at, rowid",
                )
                .map_err(store_err)?;
            let rows = stmt
                .query_map([], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, i64>(3)?,
                        row.get::<_, Option<i64>>(4)?,
                    ))
                })
                .map_err(store_err)?;
            rows.map(|r| {
                let (id, name, hash, created_at, revoked_at) = r.map_err(store_err)?;
                Ok((
                    AgentClient {
                        id: id.parse().map_err(store_err)?,
                        name,
                        created_at,
                        revoked_at,
                    },
                    hash,
                ))
            })
            .collect()
        })
        .await
    }

    /// Revokes a client; `false` when there is none by that id or it was revoked already.
    pub async fn revoke_agent_client(&self, id: Uuid, at: i64) -> ServiceResult<bool> {
        self.call(move |conn| {
            let changed = conn
                .execute(
                    "UPDATE agent_clients SET revoked_at = ?1 WHERE id = ?2 AND revoked_at IS NULL",
                    params![at, id.to_string()],
                )
                .map_err(store_err)?;
            Ok(changed == 1)
        })
        .await
    }
}
