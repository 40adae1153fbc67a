//! The data directory belongs to one service at a time, and to its user only.
//!
//! A running service holds an OS lock on `<data_dir>/service.lock` (released by the OS when
//! the process ends, however it ends) and writes there who it is, so a second one can say
//! which process holds the directory. Two services on one journal would decide the same
//! edits from two in-memory states.
//!
//! The lock file holds who runs the service: its process, its endpoint once bound (none while its
//! port was taken) and a proof key. The data directory is made `0700`, its files `0600`.
//!
//! Windows: a lock there (`LockFileEx`) keeps every other process from reading the locked file,
//! so who holds the directory is written beside it, in [`HOLDER_FILE`]; the directory and its
//! files keep the access list they inherit (see [`private_dir`]).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The lock file's name in the data directory.
pub const LOCK_FILE: &str = "service.lock";

/// The file that says who holds the directory: the lock file itself where its lock is advisory
/// (Unix); beside it on Windows, where the lock denies other processes any read of it.
pub const HOLDER_FILE: &str = if cfg!(windows) {
    "service.holder"
} else {
    LOCK_FILE
};

/// Who holds the data directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    /// What runs: `docs-mcp serve`, `Docs MCP app`, ...
    pub program: String,
    /// The MCP endpoint it listens on, e.g. `http://127.0.0.1:7658/mcp` — written once it
    /// is bound; `None` while it is not (its port taken: whatever listens there is not it).
    #[serde(default)]
    pub endpoint: Option<String>,
    /// Whether it gives the directory up when asked (`POST /control/handover`).
    #[serde(default)]
    pub hands_over: bool,
    /// The secret it proves it holds the directory with, before anyone sends it a token
    /// (`GET /health?proof=<nonce>` answers [`proof`] of it): readable only by the user,
    /// like the file.
    #[serde(default)]
    pub proof_key: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.endpoint {
            Some(endpoint) => write!(
                f,
                "{} (process {}, MCP endpoint {endpoint})",
                self.program, self.pid
            ),
            None => write!(
                f,
                "{} (process {}, no MCP endpoint)",
                self.program, self.pid
            ),
        }
    }
}

/// What a holder answers to `nonce`: the SHA-256 of its key and the nonce, hex. Only the
/// process that wrote the key into the lock file (the user's own) can answer it.
pub fn proof(key: &str, nonce: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(format!("{key}\n{nonce}").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new proof key.
pub fn new_proof_key() -> String {
    crate::token::BearerToken::generate().expose().to_owned()
}

/// The held lock; dropping it (or the process ending) releases the directory.
#[derive(Debug)]
pub struct DataDirLock {
    /// Locked for as long as this lives.
    _lock: File,
    /// [`HOLDER_FILE`], open for rewriting.
    holder: File,
    path: PathBuf,
}

/// Why the directory could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another Docs MCP service uses {}: {}", dir.display(), holder.as_ref().map_or_else(|| "a process that did not say who it is".to_owned(), |h| h.to_string()))]
    Held {
        dir: PathBuf,
        holder: Option<Holder>,
    },
    #[error("cannot lock the data directory {}: {source}", dir.display())]
    Io {
        dir: PathBuf,
        source: std::io::Error,
    },
}

impl DataDirLock {
    /// Takes the directory for `holder`, or says who has it.
    pub fn acquire(dir: &Path, holder: &Holder) -> Result<Self, LockError> {
        let io = |source| LockError::Io {
            dir: dir.to_owned(),
            source,
        };
        private_dir(dir).map_err(io)?;
        let path = dir.join(LOCK_FILE);
        let lock = private_open(&path, false).map_err(io)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    dir: dir.to_owned(),
                    holder: read_holder_of(dir),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let mut file = if cfg!(windows) {
            private_open(&dir.join(HOLDER_FILE), false)
        } else {
            lock.try_clone()
        }
        .map_err(io)?;
        write_holder(&mut file, holder).map_err(io)?;
        Ok(DataDirLock {
            _lock: lock,
            holder: file,
            path,
        })
    }

    /// Says who holds the directory now (the endpoint once bound).
    pub fn rewrite(&mut self, holder: &Holder) -> std::io::Result<()> {
        write_holder(&mut self.holder, holder)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Who holds the directory now, if anyone (what a second process reads).
pub fn holder(dir: &Path) -> Option<Holder> {
    let file = File::open(dir.join(LOCK_FILE)).ok()?;
    match file.try_lock_shared() {
        // Nobody holds it: what the file says is stale.
        Ok(()) => None,
        Err(_) => read_holder_of(dir),
    }
}

/// What [`HOLDER_FILE`] in `dir` says.
fn read_holder_of(dir: &Path) -> Option<Holder> {
    read_holder(&mut File::open(dir.join(HOLDER_FILE)).ok()?)
}

/// Writes who holds the directory over what the file said, in one write and never shorter
/// (padded with spaces): a reader never finds it empty or cut while it is rewritten.
fn write_holder(file: &mut File, holder: &Holder) -> std::io::Result<()> {
    let mut json = serde_json::to_vec(holder).expect("a holder serializes");
    let before = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
    if json.len() < before {
        json.resize(before, b' ');
    }
    file.rewind()?;
    file.write_all(&json)?;
    file.set_len(json.len() as u64)?;
    file.flush()
}

/// What the file says; read again once after a moment when it does not parse (a write under
/// way on a system that lets a read see part of it).
fn read_holder(file: &mut File) -> Option<Holder> {
    let mut read = || {
        let mut text = String::new();
        file.rewind().ok()?;
        file.read_to_string(&mut text).ok()?;
        serde_json::from_str(&text).ok()
    };
    read().or_else(|| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        read()
    })
}

/// Creates `dir` (and its parents) and makes it the user's only (0700 on Unix). On Windows it
/// keeps the access list it inherits: under the default `%APPDATA%`, the user's profile, that is
/// the user, SYSTEM and the Administrators only; a `--data-dir` elsewhere gets that place's.
/// (Setting an access list takes Win32 calls this workspace's `forbid(unsafe_code)` rules out,
/// or a crate wrapping them.)
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Creates `path` if needed, readable and writable by the user only (0600 on Unix, also
/// when it existed with a wider mode; on Windows, its directory's access list: [`private_dir`]).
pub fn private_file(path: &Path) -> std::io::Result<()> {
    private_open(path, false).map(drop)
}

/// Opens (creating) a file for reading and writing, readable by the user only; `truncate`
/// empties it.
pub fn private_open(path: &Path, truncate: bool) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .write(true)
        .create(true)
        .truncate(truncate);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder_named(program: &str) -> Holder {
        Holder {
            pid: std::process::id(),
            program: program.into(),
            endpoint: Some("http://127.0.0.1:7658/mcp".into()),
            hands_over: false,
            proof_key: "k".into(),
        }
    }

    /// A lock file written before `hands_over` existed reads as a holder that does not.
    #[test]
    fn an_older_lock_file_reads_as_a_holder_that_does_not_hand_over() {
        let old = r#"{"pid":7,"program":"docs-mcp serve","endpoint":"http://127.0.0.1:7658/mcp"}"#;
        let holder: Holder = serde_json::from_str(old).unwrap();
        assert!(!holder.hands_over);
        assert_eq!(holder.pid, 7);
        // ... and can prove nothing: no token is sent to it.
        assert_eq!(holder.proof_key, "");
    }

    #[test]
    fn a_second_holder_is_refused_and_told_who_holds_the_directory() {
        let dir = std::env::temp_dir().join(format!("docs-mcp-lock-{}", uuid::Uuid::new_v4()));
        let first = DataDirLock::acquire(&dir, &holder_named("docs-mcp serve")).unwrap();
        assert_eq!(holder(&dir), Some(holder_named("docs-mcp serve")));
        let second = DataDirLock::acquire(&dir, &holder_named("Docs MCP app")).unwrap_err();
        assert_eq!(
            second.to_string(),
            format!(
                "another Docs MCP service uses {}: docs-mcp serve (process {}, MCP endpoint http://127.0.0.1:7658/mcp)",
                dir.display(),
                std::process::id()
            )
        );
        drop(first);
        assert_eq!(holder(&dir), None);
        let third = DataDirLock::acquire(&dir, &holder_named("Docs MCP app")).unwrap();
        assert_eq!(holder(&dir), Some(holder_named("Docs MCP app")));
        drop(third);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// While the holder says what it bound (again and again, longer and shorter), every
    /// reader finds it named: a service asking who holds the directory is never told nobody.
    #[test]
    fn a_holder_rewriting_the_lock_is_always_read_whole() {
        let dir = std::env::temp_dir().join(format!("docs-mcp-lock-{}", uuid::Uuid::new_v4()));
        let mut lock = DataDirLock::acquire(&dir, &holder_named("Docs MCP app")).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reader = {
            let (dir, stop) = (dir.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut reads = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let read = holder(&dir).expect("the holder is named");
                    assert_eq!(read.program, "Docs MCP app");
                    reads += 1;
                }
                reads
            })
        };
        for i in 0..2_000 {
            let mut holder = holder_named("Docs MCP app");
            holder.endpoint = (i % 2 == 0).then(|| format!("http://127.0.0.1:{i}/mcp"));
            lock.rewrite(&holder).unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
        drop(lock);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn the_directory_and_its_files_are_the_users_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("docs-mcp-perm-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.join("state");
        std::fs::write(&file, "x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        private_dir(&dir).unwrap();
        private_file(&file).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&file), 0o600);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
