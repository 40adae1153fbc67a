//! Durable state in SQLite, in the data directory: edits (pending ones survive a restart,
//! applied ones form the journal), approval policies, and documents known here.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};
use uuid::Uuid;

use crate::error::{ServiceError, ServiceResult};
use crate::record::{EditCounts, EditFilter, EditRecord, EditStatus, KnownDocument, Policy};

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

pub struct Store {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS edits (
    id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS edits_status ON edits(status);
CREATE INDEX IF NOT EXISTS edits_document ON edits(document_id);
CREATE TABLE IF NOT EXISTS policies (
    document_id TEXT PRIMARY KEY,
    policy TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS known_documents (
    id TEXT PRIMARY KEY,
    title TEXT,
    last_opened_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
";

/// The key under which the default policy is stored in `policies`.
const DEFAULT_POLICY_KEY: &str = "*";

fn store_err(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(format!("local database: {e}"))
}

impl Store {
    /// Opens (and creates) the database file.
    pub fn open(path: &Path) -> ServiceResult<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(store_err)?;
        }
        Self::init(Connection::open(path).map_err(store_err)?)
    }

    pub fn open_in_memory() -> ServiceResult<Self> {
        Self::init(Connection::open_in_memory().map_err(store_err)?)
    }

    fn init(conn: Connection) -> ServiceResult<Self> {
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(store_err)?;
        conn.pragma_update(None, "busy_timeout", 5000)
            .map_err(store_err)?;
        conn.execute_batch(SCHEMA).map_err(store_err)?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().expect("store lock")
    }

    /// Inserts or replaces an edit (by id).
    pub fn put_edit(&self, edit: &EditRecord) -> ServiceResult<()> {
        let json = serde_json::to_string(edit).map_err(store_err)?;
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO edits (id, document_id, agent, status, created_at, record)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    edit.id.to_string(),
                    edit.document_id.to_string(),
                    edit.agent.name,
                    edit.status.as_str(),
                    edit.created_at,
                    json
                ],
            )
            .map_err(store_err)?;
        Ok(())
    }

    pub fn edit(&self, id: Uuid) -> ServiceResult<Option<EditRecord>> {
        let json: Option<String> = self
            .conn()
            .query_row(
                "SELECT record FROM edits WHERE id = ?1",
                params![id.to_string()],
                |row| row.get(0),
            )
            .optional()
            .map_err(store_err)?;
        json.map(|j| serde_json::from_str(&j).map_err(store_err))
            .transpose()
    }

    /// Edits matching the filter, newest first.
    pub fn edits(&self, filter: &EditFilter) -> ServiceResult<Vec<EditRecord>> {
        let mut sql = String::from("SELECT record FROM edits WHERE 1=1");
        let mut args: Vec<String> = vec![];
        if let Some(statuses) = &filter.status {
            let marks: Vec<String> = statuses
                .iter()
                .map(|s| {
                    args.push(s.as_str().to_owned());
                    format!("?{}", args.len())
                })
                .collect();
            sql.push_str(&format!(" AND status IN ({})", marks.join(",")));
        }
        if let Some(doc) = filter.document_id {
            args.push(doc.to_string());
            sql.push_str(&format!(" AND document_id = ?{}", args.len()));
        }
        if let Some(agent) = &filter.agent {
            args.push(agent.clone());
            sql.push_str(&format!(" AND agent = ?{}", args.len()));
        }
        sql.push_str(" ORDER BY created_at DESC, rowid DESC");
        if let Some(limit) = filter.limit {
            sql.push_str(&format!(" LIMIT {limit}"));
        }
        let conn = self.conn();
        let mut stmt = conn.prepare(&sql).map_err(store_err)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |row| {
                row.get::<_, String>(0)
            })
            .map_err(store_err)?;
        rows.map(|r| {
            let json = r.map_err(store_err)?;
            serde_json::from_str(&json).map_err(store_err)
        })
        .collect()
    }

    pub fn pending_count(&self) -> ServiceResult<u64> {
        self.conn()
            .query_row(
                "SELECT COUNT(*) FROM edits WHERE status = ?1",
                params![EditStatus::Pending.as_str()],
                |row| row.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(store_err)
    }

    /// Applied and pending edits per document.
    pub fn edit_counts(&self) -> ServiceResult<HashMap<Uuid, EditCounts>> {
        let conn = self.conn();
        let mut statement = conn
            .prepare(
                "SELECT document_id, status, COUNT(*) FROM edits \
                 WHERE status IN (?1, ?2) GROUP BY document_id, status",
            )
            .map_err(store_err)?;
        let rows = statement
            .query_map(
                params![EditStatus::Applied.as_str(), EditStatus::Pending.as_str()],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, i64>(2)?,
                    ))
                },
            )
            .map_err(store_err)?;
        let mut counts: HashMap<Uuid, EditCounts> = HashMap::new();
        for row in rows {
            let (document, status, n) = row.map_err(store_err)?;
            let document = Uuid::parse_str(&document).map_err(store_err)?;
            let entry = counts.entry(document).or_default();
            if status == EditStatus::Applied.as_str() {
                entry.applied = n as u64;
            } else {
                entry.pending = n as u64;
            }
        }
        Ok(counts)
    }

    /// Sets the policy of one document, or the default (`None`); `policy: None` removes it.
    pub fn set_policy(&self, document: Option<Uuid>, policy: Option<Policy>) -> ServiceResult<()> {
        let key = document.map_or(DEFAULT_POLICY_KEY.to_owned(), |d| d.to_string());
        let conn = self.conn();
        match policy {
            Some(p) => conn.execute(
                "INSERT OR REPLACE INTO policies (document_id, policy) VALUES (?1, ?2)",
                params![key, p.as_str()],
            ),
            None => conn.execute("DELETE FROM policies WHERE document_id = ?1", params![key]),
        }
        .map_err(store_err)?;
        Ok(())
    }

    /// The stored default policy (if set) and the per-document ones.
    pub fn policies(&self) -> ServiceResult<StoredPolicies> {
        let conn = self.conn();
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
    }

    pub fn remember_document(&self, doc: &KnownDocument) -> ServiceResult<()> {
        self.conn()
            .execute(
                "INSERT INTO known_documents (id, title, last_opened_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET title = COALESCE(excluded.title, title),
                 last_opened_at = excluded.last_opened_at",
                params![doc.id.to_string(), doc.title, doc.last_opened_at],
            )
            .map_err(store_err)?;
        Ok(())
    }

    /// Documents known here, most recently opened first.
    pub fn known_documents(&self) -> ServiceResult<Vec<KnownDocument>> {
        let conn = self.conn();
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
    }

    pub fn setting(&self, key: &str) -> ServiceResult<Option<String>> {
        self.conn()
            .query_row(
                "SELECT value FROM settings WHERE key = ?1",
                params![key],
                |row| row.get(0),
            )
            .optional()
            .map_err(store_err)
    }

    pub fn set_setting(&self, key: &str, value: &str) -> ServiceResult<()> {
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map_err(store_err)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{AgentInfo, Preview};

    fn edit(status: EditStatus, created_at: i64, agent: &str) -> EditRecord {
        EditRecord {
            id: Uuid::new_v4(),
            document_id: Uuid::nil(),
            document_title: Some("Doc".into()),
            agent: AgentInfo {
                name: agent.into(),
                connection: "c1".into(),
            },
            tool: "insert_blocks".into(),
            arguments: serde_json::json!({"markdown": "x"}),
            reason: Some("because".into()),
            revision: None,
            preview: Preview::default(),
            update: vec![1, 2, 3],
            base_state_vector: vec![0],
            touched_blocks: vec!["b1".into()],
            new_blocks: vec![],
            inverse: None,
            undoes: None,
            status,
            comment: None,
            decided_by: None,
            error: None,
            created_at,
            decided_at: None,
            applied_at: None,
        }
    }

    #[test]
    fn edits_survive_reopening_and_filter() {
        let dir = std::env::temp_dir().join(format!("docs-mcp-store-{}", Uuid::new_v4()));
        let path = dir.join("state.sqlite3");
        let pending = edit(EditStatus::Pending, 1, "claude");
        let applied = edit(EditStatus::Applied, 2, "cursor");
        {
            let store = Store::open(&path).unwrap();
            store.put_edit(&pending).unwrap();
            store.put_edit(&applied).unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.edit(pending.id).unwrap().as_ref(), Some(&pending));
        assert_eq!(store.pending_count().unwrap(), 1);
        let all = store.edits(&EditFilter::default()).unwrap();
        assert_eq!(all, vec![applied.clone(), pending.clone()]);
        let only_pending = store
            .edits(&EditFilter {
                status: Some(vec![EditStatus::Pending]),
                ..EditFilter::default()
            })
            .unwrap();
        assert_eq!(only_pending, vec![pending.clone()]);
        let by_agent = store
            .edits(&EditFilter {
                agent: Some("cursor".into()),
                limit: Some(5),
                ..EditFilter::default()
            })
            .unwrap();
        assert_eq!(by_agent, vec![applied]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn policies_and_known_documents() {
        let store = Store::open_in_memory().unwrap();
        let doc = Uuid::new_v4();
        assert_eq!(store.policies().unwrap(), StoredPolicies::default());
        store.set_policy(None, Some(Policy::Auto)).unwrap();
        store.set_policy(Some(doc), Some(Policy::ReadOnly)).unwrap();
        assert_eq!(
            store.policies().unwrap(),
            StoredPolicies {
                default: Some(Policy::Auto),
                documents: vec![(doc, Policy::ReadOnly)]
            }
        );
        store.set_policy(Some(doc), None).unwrap();
        assert_eq!(
            store.policies().unwrap(),
            StoredPolicies {
                default: Some(Policy::Auto),
                documents: vec![]
            }
        );

        store
            .remember_document(&KnownDocument {
                id: doc,
                title: Some("A".into()),
                last_opened_at: 5,
            })
            .unwrap();
        store
            .remember_document(&KnownDocument {
                id: doc,
                title: None,
                last_opened_at: 9,
            })
            .unwrap();
        assert_eq!(
            store.known_documents().unwrap(),
            vec![KnownDocument {
                id: doc,
                title: Some("A".into()),
                last_opened_at: 9
            }]
        );
        store.set_setting("port", "7658").unwrap();
        assert_eq!(store.setting("port").unwrap().as_deref(), Some("7658"));
    }

    #[test]
    fn edit_counts_per_document() {
        let store = Store::open_in_memory().unwrap();
        let other = Uuid::new_v4();
        let mut elsewhere = edit(EditStatus::Pending, 4, "claude");
        elsewhere.document_id = other;
        for record in [
            edit(EditStatus::Applied, 1, "claude"),
            edit(EditStatus::Applied, 2, "claude"),
            edit(EditStatus::Pending, 3, "cursor"),
            edit(EditStatus::Rejected, 3, "cursor"),
            elsewhere,
        ] {
            store.put_edit(&record).unwrap();
        }
        let counts = store.edit_counts().unwrap();
        assert_eq!(counts.len(), 2);
        assert_eq!(
            counts[&Uuid::nil()],
            EditCounts {
                applied: 2,
                pending: 1
            }
        );
        assert_eq!(
            counts[&other],
            EditCounts {
                applied: 0,
                pending: 1
            }
        );
    }
}
