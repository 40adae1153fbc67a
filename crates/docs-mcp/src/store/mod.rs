//! Durable state in SQLite, in the data directory: edits (pending ones survive a restart,
//! decided ones form the journal), approval policies, documents known here, settings, the
//! agent clients a person configured.
//!
//! SQLite is blocking: every call runs on tokio's blocking pool ([`Store::call`]), never on
//! a runtime worker or the GUI thread. The database file is the user's alone (0600, in a
//! 0700 directory): it holds document text. Its schema is versioned with `user_version` and
//! migrated forward at open.
//!
//! Every record and payload the journal takes reads back: it is written and read through
//! `crate::json`, and refused before anything is written when nested deeper than that reads. Here:
//! `edits` (insert, compare-and-set transitions, lists without payloads, counts, retention),
//! `settings`, `clients`, `migrations`.

mod clients;
mod edits;
mod migrations;
mod settings;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use crate::error::{ServiceError, ServiceResult};

pub use edits::Transition;
pub use settings::StoredPolicies;

/// How long the journal keeps decided edits: older ones are deleted when the service
/// starts. Pending and applying edits are never deleted.
pub const JOURNAL_RETENTION_DAYS: i64 = 365;

#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
}

fn store_err(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(format!("local database: {e}"))
}

impl Store {
    /// Opens (and creates, readable by the user only) the database file, migrated to the
    /// current schema.
    pub fn open(path: &Path) -> ServiceResult<Self> {
        if let Some(dir) = path.parent() {
            crate::lock::private_dir(dir).map_err(store_err)?;
        }
        // SQLite gives its -wal and -shm files the mode of the database file.
        crate::lock::private_file(path).map_err(store_err)?;
        Self::init(Connection::open(path).map_err(store_err)?)
    }

    pub fn open_in_memory() -> ServiceResult<Self> {
        Self::init(Connection::open_in_memory().map_err(store_err)?)
    }

    fn init(mut conn: Connection) -> ServiceResult<Self> {
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(store_err)?;
        // Two processes on one database wait for each other's writes instead of failing.
        conn.pragma_update(None, "busy_timeout", 5000)
            .map_err(store_err)?;
        migrations::migrate(&mut conn)?;
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Runs `work` with the connection on the blocking pool.
    async fn call<R: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> ServiceResult<R> + Send + 'static,
    ) -> ServiceResult<R> {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            work(&mut conn)
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("database task: {e}")))?
    }
}
