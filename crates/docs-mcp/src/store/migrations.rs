//! The schema, versioned with SQLite's `user_version`, and the migrations from earlier
//! versions. Each migration runs in one transaction: a database is at a version, never
//! between two.
//!
//! Versions: 1 edits, 2 `unsaved`, 3 agent clients, 4 `saved_at`.

use rusqlite::{Connection, params};
use serde_json::Value;

use super::store_err;
use crate::error::ServiceResult;

/// The schema this build writes.
pub const SCHEMA_VERSION: i64 = 4;

/// Tables other than `edits`, unchanged since the first version.
const COMMON: &str = "
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

/// `status` is authoritative (the record's copy is rewritten with it); `record` is the
/// `EditRecord` as JSON without its payload, which lists never read.
const EDITS_V1: &str = "
CREATE TABLE edits (
    id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    decided_at INTEGER,
    undoes TEXT,
    record TEXT NOT NULL,
    payload TEXT NOT NULL
);
";

/// At most one undo of an edit waits or is being applied.
const INDEXES_V1: &str = "
CREATE INDEX IF NOT EXISTS edits_status ON edits(status);
CREATE INDEX IF NOT EXISTS edits_document ON edits(document_id);
CREATE UNIQUE INDEX IF NOT EXISTS edits_one_undo ON edits(undoes)
    WHERE undoes IS NOT NULL AND status IN ('pending', 'applying');
";

/// Version 2: `unsaved` marks an edit merged (from `applying` on) whose save to the instance
/// is not confirmed yet: sessions save on the browser's rhythm, so an applied edit may wait
/// up to a minute, held here, and is saved from here after a crash. Edits of version 1 were
/// saved before they were applied.
const EDITS_V2: &str = "
ALTER TABLE edits ADD COLUMN unsaved INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS edits_unsaved ON edits(document_id) WHERE unsaved = 1;
";

/// Version 3: the agent clients a person configured, each with a token of its own (only its
/// SHA-256 is kept); revoked ones stay listed with when.
const CLIENTS_V3: &str = "
CREATE TABLE agent_clients (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
";

/// Version 4: `saved_at`, when a save of Docs first held an applied edit (authoritative, as
/// `status`). Edits saved before it was recorded get their decision's time. Nothing is left
/// `unsaved` that has nothing to save: comments (applied once their mark was saved), edits
/// never in the document.
const EDITS_V4: &str = "
ALTER TABLE edits ADD COLUMN saved_at INTEGER;
UPDATE edits SET unsaved = 0
    WHERE unsaved = 1 AND status IN ('applied', 'undone')
    AND json_extract(record, '$.proposed_comment') IS NOT NULL;
UPDATE edits SET unsaved = 0 WHERE status IN ('rejected', 'conflict', 'failed');
UPDATE edits SET saved_at = COALESCE(decided_at, created_at)
    WHERE unsaved = 0 AND status IN ('applied', 'undone');
";

pub fn migrate(conn: &mut Connection) -> ServiceResult<()> {
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(store_err)?;
    if version > SCHEMA_VERSION {
        return Err(store_err(format!(
            "the database was written by a newer Docs MCP (schema {version}, this one knows {SCHEMA_VERSION}); update Docs MCP"
        )));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    let txn = conn.transaction().map_err(store_err)?;
    if version < 1 {
        to_v1(&txn)?;
    }
    if version < 2 {
        txn.execute_batch(EDITS_V2).map_err(store_err)?;
    }
    if version < 3 {
        txn.execute_batch(CLIENTS_V3).map_err(store_err)?;
    }
    if version < 4 {
        txn.execute_batch(EDITS_V4).map_err(store_err)?;
    }
    txn.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(store_err)?;
    txn.commit().map_err(store_err)
}

/// Version 1, from an empty database or the unversioned schema.
fn to_v1(txn: &rusqlite::Transaction<'_>) -> ServiceResult<()> {
    let has_edits: bool = txn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'edits'",
            [],
            |row| row.get::<_, i64>(0),
        )
        .map_err(store_err)?
        > 0;
    txn.execute_batch(COMMON).map_err(store_err)?;
    if has_edits {
        from_unversioned(txn)?;
    } else {
        txn.execute_batch(EDITS_V1).map_err(store_err)?;
    }
    txn.execute_batch(INDEXES_V1).map_err(store_err)
}

/// From the first, unversioned schema: each record carried its Yjs update inline. The payload
/// moves to its own column. Those edits were planned without block fingerprints, so they are
/// approved on the existence of their blocks only and cannot be undone (their undo could not
/// tell whether someone changed the blocks since). Undos queued twice (a bug of that version)
/// keep only the oldest.
fn from_unversioned(txn: &rusqlite::Transaction<'_>) -> ServiceResult<()> {
    txn.execute_batch("ALTER TABLE edits RENAME TO edits_v0;")
        .map_err(store_err)?;
    txn.execute_batch(EDITS_V1).map_err(store_err)?;
    let rows: Vec<(String, String, String, i64, String)> = {
        let mut stmt = txn
            .prepare(
                "SELECT id, document_id, agent, created_at, record FROM edits_v0 ORDER BY created_at, rowid",
            )
            .map_err(store_err)?;
        stmt.query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .map_err(store_err)?
        .collect::<Result<_, _>>()
        .map_err(store_err)?
    };
    let mut active_undos = std::collections::HashSet::new();
    for (id, document_id, agent, created_at, record) in rows {
        let mut record: Value = crate::json::from_str(&record).map_err(store_err)?;
        let object = record
            .as_object_mut()
            .ok_or_else(|| store_err(format!("edit {id} is not a JSON object")))?;
        let take = |object: &mut serde_json::Map<String, Value>, key: &str| {
            object.remove(key).unwrap_or(Value::Null)
        };
        let update = take(object, "update");
        let base_state_vector = take(object, "base_state_vector");
        take(object, "inverse");
        let depends_on: Vec<Value> = object
            .get("touched_blocks")
            .and_then(Value::as_array)
            .map(|ids| {
                ids.iter()
                    .map(|id| serde_json::json!({ "block_id": id, "seen": { "kind": "exists" } }))
                    .collect()
            })
            .unwrap_or_default();
        object.insert("undoable".into(), Value::Bool(false));
        let undoes = object
            .get("undoes")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut status = object
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("failed")
            .to_owned();
        if let Some(original) = &undoes
            && status == "pending"
            && !active_undos.insert(original.clone())
        {
            status = "rejected".into();
            object.insert(
                "comment".into(),
                Value::String(
                    "Closed by an upgrade: an undo of the same edit was already queued.".into(),
                ),
            );
        }
        object.insert("status".into(), Value::String(status.clone()));
        let decided_at = object.get("decided_at").and_then(Value::as_i64);
        let payload = serde_json::json!({
            "update": update,
            "base_state_vector": base_state_vector,
            "depends_on": depends_on,
            "leaves": [],
            "inverse": null,
        });
        txn.execute(
            "INSERT INTO edits (id, document_id, agent, status, created_at, decided_at, undoes, record, payload)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                id,
                document_id,
                agent,
                status,
                created_at,
                decided_at,
                undoes,
                record.to_string(),
                payload.to_string()
            ],
        )
        .map_err(store_err)?;
    }
    txn.execute_batch("DROP TABLE edits_v0;")
        .map_err(store_err)?;
    Ok(())
}
