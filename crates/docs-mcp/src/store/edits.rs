//! Edits in the store. Every status change is a compare-and-set (`UPDATE … WHERE id = ? AND
//! status = ?` that must change exactly one row), so two deciders — two windows, the app and
//! the CLI, or two processes on one database — can never both move the same edit.
//!
//! Lists never load the Yjs payloads; counts are `COUNT`s. Decided edits are kept
//! `JOURNAL_RETENTION_DAYS` (365), pending and applying ones forever, unsaved ones until saved.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};
use uuid::Uuid;

use super::{Store, store_err};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{EditCounts, EditFilter, EditPayload, EditRecord, EditStatus, now_ms};

/// A status change: the record as it must be stored once it happened, and the status it
/// must have now.
#[derive(Debug, Clone)]
pub struct Transition {
    pub record: EditRecord,
    pub from: EditStatus,
}

/// JSON the journal can read back (see `crate::json`): what could not be is not written.
fn to_json<T: serde::Serialize>(value: &T) -> ServiceResult<String> {
    let json = serde_json::to_string(value).map_err(store_err)?;
    crate::json::check_depth(&json).map_err(store_err)?;
    Ok(json)
}

/// The columns a record is read from (see [`decode`]).
const RECORD_COLUMNS: &str = "status, saved_at, record";

/// A record as stored (`RECORD_COLUMNS` from `first` on): the outer error is the row's, the
/// inner one the record's.
fn decode(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<ServiceResult<EditRecord>> {
    Ok(record_of(
        &row.get::<_, String>(first)?,
        row.get(first + 1)?,
        &row.get::<_, String>(first + 2)?,
    ))
}

/// The record's JSON, its status and save columns taking precedence over the JSON's copies.
fn record_of(status: &str, saved_at: Option<i64>, json: &str) -> ServiceResult<EditRecord> {
    let mut record: EditRecord = crate::json::from_str(json).map_err(store_err)?;
    record.status = status.parse().map_err(store_err)?;
    record.saved_at = saved_at;
    Ok(record)
}

fn apply_transition(conn: &Connection, change: &Transition) -> ServiceResult<bool> {
    let record = &change.record;
    let changed = conn
        .execute(
            // An edit is unsaved from the moment it is to be merged until a save holds it (a
            // comment is applied once saved), or it is known not to be in the document.
            "UPDATE edits SET status = ?1, decided_at = ?2, record = ?3, \
             saved_at = COALESCE(saved_at, ?6), \
             unsaved = CASE WHEN ?1 = 'applying' THEN 1 \
                 WHEN ?1 IN ('conflict', 'failed') OR ?6 IS NOT NULL THEN 0 ELSE unsaved END \
             WHERE id = ?4 AND status = ?5",
            params![
                record.status.as_str(),
                record.decided_at,
                to_json(record)?,
                record.id.to_string(),
                change.from.as_str(),
                record.saved_at,
            ],
        )
        .map_err(store_err)?;
    Ok(changed == 1)
}

impl Store {
    /// Stores a new edit. A second undo of an edit while one waits or is being applied is
    /// refused (a unique index decides, even across processes).
    pub async fn insert_edit(&self, record: EditRecord, payload: EditPayload) -> ServiceResult<()> {
        self.call(move |conn| {
            let inserted = conn.execute(
                "INSERT INTO edits (id, document_id, agent, status, created_at, decided_at, undoes, record, payload, unsaved)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?4 = 'applying')",
                params![
                    record.id.to_string(),
                    record.document_id.to_string(),
                    record.agent.name,
                    record.status.as_str(),
                    record.created_at,
                    record.decided_at,
                    record.undoes.map(|u| u.to_string()),
                    to_json(&record)?,
                    to_json(&payload)?
                ],
            );
            match inserted {
                Ok(_) => Ok(()),
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::ConstraintViolation =>
                {
                    let queued: Option<String> = conn
                        .query_row(
                            "SELECT id FROM edits WHERE undoes = ?1 AND status IN ('pending', 'applying')",
                            params![record.undoes.map(|u| u.to_string())],
                            |row| row.get(0),
                        )
                        .optional()
                        .map_err(store_err)?;
                    Err(ServiceError::UndoQueued {
                        edit_id: record.undoes.map(|u| u.to_string()).unwrap_or_default(),
                        undo_id: queued.unwrap_or_default(),
                    })
                }
                Err(e) => Err(store_err(e)),
            }
        })
        .await
    }

    pub async fn edit(&self, id: Uuid) -> ServiceResult<Option<EditRecord>> {
        self.call(move |conn| {
            conn.query_row(
                &format!("SELECT {RECORD_COLUMNS} FROM edits WHERE id = ?1"),
                params![id.to_string()],
                |row| decode(row, 0),
            )
            .optional()
            .map_err(store_err)?
            .transpose()
        })
        .await
    }

    /// What applying (or undoing) the edit needs.
    pub async fn payload(&self, id: Uuid) -> ServiceResult<Option<EditPayload>> {
        self.call(move |conn| {
            let json: Option<String> = conn
                .query_row(
                    "SELECT payload FROM edits WHERE id = ?1",
                    params![id.to_string()],
                    |row| row.get(0),
                )
                .optional()
                .map_err(store_err)?;
            json.map(|j| crate::json::from_str(&j).map_err(store_err))
                .transpose()
        })
        .await
    }

    /// Edits matching the filter, newest first, without their payloads.
    pub async fn edits(&self, filter: EditFilter) -> ServiceResult<Vec<EditRecord>> {
        self.call(move |conn| {
            let mut sql = format!("SELECT {RECORD_COLUMNS} FROM edits WHERE 1=1");
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
            sql.push_str(if filter.oldest_first {
                " ORDER BY created_at, rowid"
            } else {
                " ORDER BY created_at DESC, rowid DESC"
            });
            if let Some(limit) = filter.limit {
                sql.push_str(&format!(" LIMIT {limit}"));
            }
            let mut stmt = conn.prepare(&sql).map_err(store_err)?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(args.iter()), |row| {
                    decode(row, 0)
                })
                .map_err(store_err)?;
            rows.map(|r| r.map_err(store_err)?).collect()
        })
        .await
    }

    /// Ids of the edits in `status`, oldest first.
    pub async fn ids_in(&self, status: EditStatus) -> ServiceResult<Vec<Uuid>> {
        self.call(move |conn| {
            let mut stmt = conn
                .prepare("SELECT id FROM edits WHERE status = ?1 ORDER BY created_at, rowid")
                .map_err(store_err)?;
            let rows = stmt
                .query_map(params![status.as_str()], |row| row.get::<_, String>(0))
                .map_err(store_err)?;
            rows.map(|r| r.map_err(store_err)?.parse().map_err(store_err))
                .collect()
        })
        .await
    }

    /// Moves an edit from `change.from` to `change.record.status`; `false` when it was not
    /// in `change.from` any more (someone else decided it), and then nothing changed.
    pub async fn transition(&self, change: Transition) -> ServiceResult<bool> {
        self.call(move |conn| apply_transition(conn, &change)).await
    }

    /// A transition that also replaces what will be merged (a person approving with their
    /// own text): both written together, or neither when the edit is no longer `from`.
    pub async fn transition_with_payload(
        &self,
        change: Transition,
        payload: EditPayload,
    ) -> ServiceResult<bool> {
        self.call(move |conn| {
            let txn = conn.transaction().map_err(store_err)?;
            if !apply_transition(&txn, &change)? {
                return Ok(false);
            }
            txn.execute(
                "UPDATE edits SET payload = ?1 WHERE id = ?2",
                params![to_json(&payload)?, change.record.id.to_string()],
            )
            .map_err(store_err)?;
            txn.commit().map_err(store_err)?;
            Ok(true)
        })
        .await
    }

    /// Two transitions that happen together or not at all (an undo applied, and the edit it
    /// reverts marked undone).
    pub async fn transition_both(
        &self,
        first: Transition,
        second: Transition,
    ) -> ServiceResult<bool> {
        self.call(move |conn| {
            let txn = conn.transaction().map_err(store_err)?;
            if !apply_transition(&txn, &first)? || !apply_transition(&txn, &second)? {
                return Ok(false);
            }
            txn.commit().map_err(store_err)?;
            Ok(true)
        })
        .await
    }

    /// Documents holding merged edits (`applied`, or `undone` since) whose save is not
    /// confirmed.
    pub async fn unsaved_documents(&self) -> ServiceResult<Vec<Uuid>> {
        self.call(|conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT DISTINCT document_id FROM edits \
                     WHERE unsaved = 1 AND status IN ('applied', 'undone')",
                )
                .map_err(store_err)?;
            let rows = stmt
                .query_map([], |row| row.get::<_, String>(0))
                .map_err(store_err)?;
            rows.map(|r| r.map_err(store_err)?.parse().map_err(store_err))
                .collect()
        })
        .await
    }

    /// A document's merged edits whose save is not confirmed, with their changes, oldest
    /// first.
    pub async fn unsaved_of(
        &self,
        document: Uuid,
    ) -> ServiceResult<Vec<(EditRecord, EditPayload)>> {
        self.call(move |conn| {
            let mut stmt = conn
                .prepare(&format!(
                    "SELECT payload, {RECORD_COLUMNS} FROM edits WHERE document_id = ?1 \
                     AND unsaved = 1 AND status IN ('applied', 'undone') ORDER BY created_at, rowid"
                ))
                .map_err(store_err)?;
            let rows = stmt
                .query_map(params![document.to_string()], |row| {
                    Ok((row.get::<_, String>(0)?, decode(row, 1)?))
                })
                .map_err(store_err)?;
            rows.map(|r| {
                let (payload, record) = r.map_err(store_err)?;
                Ok((record?, crate::json::from_str(&payload).map_err(store_err)?))
            })
            .collect()
        })
        .await
    }

    /// A save of the instance holds these edits: they are saved now, unless they were
    /// already (or are no longer merged). Returns those saved now.
    pub async fn mark_saved(&self, ids: Vec<Uuid>) -> ServiceResult<Vec<Uuid>> {
        let at = now_ms();
        self.call(move |conn| {
            let txn = conn.transaction().map_err(store_err)?;
            let mut saved = vec![];
            for id in ids {
                let changed = txn
                    .execute(
                        "UPDATE edits SET unsaved = 0, saved_at = COALESCE(saved_at, ?2) \
                         WHERE id = ?1 AND unsaved = 1 AND status IN ('applied', 'undone')",
                        params![id.to_string(), at],
                    )
                    .map_err(store_err)?;
                if changed == 1 {
                    saved.push(id);
                }
            }
            txn.commit().map_err(store_err)?;
            Ok(saved)
        })
        .await
    }

    /// Undone edits whose room lost them before a save, and that are not merged again: not
    /// in the document, as their undo meant, and nothing of them left to save.
    pub async fn forget_unsaved(&self, ids: Vec<Uuid>) -> ServiceResult<()> {
        self.call(move |conn| {
            let txn = conn.transaction().map_err(store_err)?;
            for id in ids {
                txn.execute(
                    "UPDATE edits SET unsaved = 0 WHERE id = ?1 AND status = 'undone'",
                    params![id.to_string()],
                )
                .map_err(store_err)?;
            }
            txn.commit().map_err(store_err)
        })
        .await
    }

    /// How many edits wait for a person: all of them, and those of the agent named `agent`.
    pub async fn pending_counts(&self, agent: String) -> ServiceResult<(u64, u64)> {
        self.call(move |conn| {
            conn.query_row(
                "SELECT COUNT(*), COALESCE(SUM(agent = ?1), 0) FROM edits WHERE status = 'pending'",
                params![agent],
                |row| Ok((row.get::<_, i64>(0)? as u64, row.get::<_, i64>(1)? as u64)),
            )
            .map_err(store_err)
        })
        .await
    }

    pub async fn count_in(&self, status: EditStatus) -> ServiceResult<u64> {
        self.call(move |conn| {
            conn.query_row(
                "SELECT COUNT(*) FROM edits WHERE status = ?1",
                params![status.as_str()],
                |row| row.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(store_err)
        })
        .await
    }

    /// Applied and pending edits per document.
    pub async fn edit_counts(&self) -> ServiceResult<HashMap<Uuid, EditCounts>> {
        self.call(|conn| {
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
        })
        .await
    }

    /// Deletes decided edits older than the retention period; returns how many.
    pub async fn purge_journal(&self) -> ServiceResult<usize> {
        let cutoff = now_ms() - super::JOURNAL_RETENTION_DAYS * 24 * 3600 * 1000;
        self.call(move |conn| {
            conn.execute(
                "DELETE FROM edits WHERE status NOT IN ('pending', 'applying') AND unsaved = 0 \
                 AND COALESCE(decided_at, created_at) < ?1",
                params![cutoff],
            )
            .map_err(store_err)
        })
        .await
    }
}
