//! Approval policies, documents known here, and settings.

use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

use super::{Store, store_err};
use crate::error::ServiceResult;
use crate::record::{KnownDocument, Policy};

/// Approval policies as stored: the default (if the user set one) and per document.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct StoredPolicies {
    pub default: Option<Policy>,
    pub documents: Vec<(Uuid, Policy)>,
}

impl StoredPolicies {
    /// The document's own policy, if it has one.
    pub fn own(&self, document: Uuid) -> Option<Policy> {
        self.documents
            .iter()
            .find_map(|(id, p)| (*id == document).then_some(*p))
    }
}

/// The key under which the default policy is stored in `policies`.
const DEFAULT_POLICY_KEY: &str = "*";

impl Store {
    /// Sets the policy of one document, or the default (`None`); `policy: None` removes it.
    pub async fn set_policy(
        &self,
        document: Option<Uuid>,
        policy: Option<Policy>,
    ) -> ServiceResult<()> {
        let key = document.map_or(DEFAULT_POLICY_KEY.to_owned(), |d| d.to_string());
        self.call(move |conn| {
            match policy {
                Some(p) => conn.execute(
                    "INSERT OR REPLACE INTO policies (document_id, policy) VALUES (?1, ?2)",
                    params![key, p.as_str()],
                ),
                None => conn.execute("DELETE FROM policies WHERE document_id = ?1", params![key]),
            }
            .map_err(store_err)?;
            Ok(())
        })
        .await
    }

    /// The stored default policy (if set) and the per-document ones.
    pub async fn policies(&self) -> ServiceResult<StoredPolicies> {
        self.call(|conn| {
            let mut stmt = conn
                .prepare("SELECT document_id, policy FROM policies ORDER BY document_id")
                .map_err(store_err)?;
            let rows = stmt
                .query_map([], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
                })
                .map_err(store_err)?;
            let mut default = None;
            let mut documents = vec![];
            for row in rows {
                let (key, policy) = row.map_err(store_err)?;
                let policy: Policy = policy.parse().map_err(store_err)?;
                if key == DEFAULT_POLICY_KEY {
                    default = Some(policy);
                } else if let Ok(id) = key.parse() {
                    documents.push((id, policy));
                }
            }
            Ok(StoredPolicies { default, documents })
        })
        .await
    }

    pub async fn remember_document(&self, doc: KnownDocument) -> ServiceResult<()> {
        self.call(move |conn| {
            conn.execute(
                "INSERT INTO known_documents (id, title, last_opened_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET title = COALESCE(excluded.title, title),
                 last_opened_at = excluded.last_opened_at",
                params![doc.id.to_string(), doc.title, doc.last_opened_at],
            )
            .map_err(store_err)?;
            Ok(())
        })
        .await
    }

    /// Documents known here, most recently opened first.
    pub async fn known_documents(&self) -> ServiceResult<Vec<KnownDocument>> {
        self.call(|conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT id, title, last_opened_at FROM known_documents ORDER BY last_opened_at DESC",
                )
                .map_err(store_err)?;
            let rows = stmt
                .query_map([], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, Option<String>>(1)?,
                        row.get::<_, i64>(2)?,
                    ))
                })
                .map_err(store_err)?;
            let mut out = vec![];
            for row in rows {
                let (id, title, last_opened_at) = row.map_err(store_err)?;
                if let Ok(id) = id.parse() {
                    out.push(KnownDocument {
                        id,
                        title,
                        last_opened_at,
                    });
                }
            }
            Ok(out)
        })
        .await
    }

    pub async fn setting(&self, key: &str) -> ServiceResult<Option<String>> {
        let key = key.to_owned();
        self.call(move |conn| {
            conn.query_row(
                "SELECT value FROM settings WHERE key = ?1",
                params![key],
                |row| row.get(0),
            )
            .optional()
            .map_err(store_err)
        })
        .await
    }

    pub async fn set_setting(&self, key: &str, value: &str) -> ServiceResult<()> {
        let (key, value) = (key.to_owned(), value.to_owned());
        self.call(move |conn| {
            conn.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map_err(store_err)?;
            Ok(())
        })
        .await
    }
}
