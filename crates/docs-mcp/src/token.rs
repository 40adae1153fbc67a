//! The bearer token of the local HTTP endpoint.
//!
//! Generated on first start (32 random bytes, base64url), kept in the OS keyring (service
//! `lasuite-docs-mcp`, user `mcp-bearer-token`). Where no keyring works (headless Linux
//! without a Secret Service, for example) it lives in `<data_dir>/mcp-token`, readable by
//! the user only. `DOCS_MCP_TOKEN` overrides both. The token itself is never logged: its
//! `Debug` and `Display` are redacted.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;

/// Keyring service name.
pub const KEYRING_SERVICE: &str = "lasuite-docs-mcp";
/// Keyring user name.
pub const KEYRING_USER: &str = "mcp-bearer-token";
/// Environment variable that overrides the stored token.
pub const TOKEN_ENV: &str = "DOCS_MCP_TOKEN";
/// Name of the fallback file in the data directory.
pub const TOKEN_FILE: &str = "mcp-token";

/// The secret clients present as `Authorization: Bearer <token>`.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// 32 random bytes, base64url without padding (43 characters).
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        BearerToken(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Wraps a token read from elsewhere (trimmed); `None` when empty.
    pub fn from_string(token: impl Into<String>) -> Option<Self> {
        let token = token.into().trim().to_owned();
        (!token.is_empty()).then_some(BearerToken(token))
    }

    /// The token itself; only for headers and `docs-mcp token --show`.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Compares in time independent of where the strings differ.
    pub fn matches(&self, presented: &str) -> bool {
        constant_time_eq(self.0.as_bytes(), presented.as_bytes())
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

impl fmt::Display for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// The token a running endpoint checks. Replacing it (the app's "Regenerate token") takes
/// effect on the next request, without a restart.
#[derive(Debug, Clone)]
pub struct SharedToken(Arc<RwLock<BearerToken>>);

impl SharedToken {
    pub fn new(token: BearerToken) -> Self {
        SharedToken(Arc::new(RwLock::new(token)))
    }

    pub fn current(&self) -> BearerToken {
        self.0.read().expect("token lock").clone()
    }

    pub fn replace(&self, token: BearerToken) {
        *self.0.write().expect("token lock") = token;
    }

    pub fn matches(&self, presented: &str) -> bool {
        self.0.read().expect("token lock").matches(presented)
    }
}

impl From<BearerToken> for SharedToken {
    fn from(token: BearerToken) -> Self {
        SharedToken::new(token)
    }
}

/// Equality of two byte strings without an early exit on the first difference.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Where the token was found (or put).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// The `DOCS_MCP_TOKEN` environment variable.
    Env,
    /// The OS keyring.
    Keyring,
    /// The fallback file.
    File(PathBuf),
}

impl fmt::Display for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenSource::Env => write!(f, "the {TOKEN_ENV} environment variable"),
            TokenSource::Keyring => write!(
                f,
                "the OS keyring (service \"{KEYRING_SERVICE}\", user \"{KEYRING_USER}\")"
            ),
            TokenSource::File(path) => write!(f, "the file {}", path.display()),
        }
    }
}

/// Finds, creates or replaces the token.
#[derive(Debug, Clone)]
pub struct TokenStore {
    data_dir: PathBuf,
    use_keyring: bool,
    use_env: bool,
}

impl TokenStore {
    /// Environment, then keyring, then file.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        TokenStore {
            data_dir: data_dir.into(),
            use_keyring: true,
            use_env: true,
        }
    }

    /// The file only: no keyring, no environment (tests).
    pub fn file_only(data_dir: impl Into<PathBuf>) -> Self {
        TokenStore {
            data_dir: data_dir.into(),
            use_keyring: false,
            use_env: false,
        }
    }

    pub fn file_path(&self) -> PathBuf {
        self.data_dir.join(TOKEN_FILE)
    }

    fn env_token(&self) -> Option<BearerToken> {
        if !self.use_env {
            return None;
        }
        std::env::var(TOKEN_ENV)
            .ok()
            .and_then(BearerToken::from_string)
    }

    /// The token, created on first use.
    pub fn load_or_create(&self) -> anyhow::Result<(BearerToken, TokenSource)> {
        if let Some(found) = self.load()? {
            return Ok(found);
        }
        self.store(BearerToken::generate())
    }

    /// The token if one exists already (what a client of the running service uses).
    pub fn load(&self) -> anyhow::Result<Option<(BearerToken, TokenSource)>> {
        if let Some(token) = self.env_token() {
            return Ok(Some((token, TokenSource::Env)));
        }
        if self.use_keyring {
            match keyring_get() {
                Ok(Some(token)) => return Ok(Some((token, TokenSource::Keyring))),
                // No entry yet: a token file from a run without keyring still counts.
                Ok(None) => {}
                Err(error) => {
                    tracing::debug!(%error, "the OS keyring is not available");
                }
            }
        }
        let path = self.file_path();
        Ok(read_token_file(&path)?.map(|token| (token, TokenSource::File(path))))
    }

    /// Replaces the token with a new one, where it is stored. A running service keeps the
    /// old one until restarted.
    pub fn regenerate(&self) -> anyhow::Result<(BearerToken, TokenSource)> {
        if self.env_token().is_some() {
            anyhow::bail!(
                "{TOKEN_ENV} is set and overrides the stored token; unset it to regenerate the stored one"
            );
        }
        self.store(BearerToken::generate())
    }

    /// Saves a token in the keyring if it works, else in the file (with a warning).
    fn store(&self, token: BearerToken) -> anyhow::Result<(BearerToken, TokenSource)> {
        if self.use_keyring {
            match keyring_set(&token) {
                Ok(()) => {
                    // A stale fallback file would only confuse; the keyring wins on load.
                    let _ = std::fs::remove_file(self.file_path());
                    return Ok((token, TokenSource::Keyring));
                }
                Err(error) => {
                    tracing::warn!(
                        %error,
                        path = %self.file_path().display(),
                        "no OS keyring available; the MCP bearer token is stored in a file readable only by this user"
                    );
                }
            }
        }
        let path = self.file_path();
        write_token_file(&path, &token)?;
        Ok((token, TokenSource::File(path)))
    }
}

fn keyring_entry() -> Result<keyring::Entry, keyring::Error> {
    keyring::Entry::new(KEYRING_SERVICE, KEYRING_USER)
}

/// Runs a keyring call on a thread of its own: the Secret Service client blocks on its own
/// runtime, which must not run inside the caller's tokio runtime.
fn off_runtime<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, keyring::Error> + Send + 'static,
) -> Result<T, keyring::Error> {
    std::thread::spawn(call).join().unwrap_or_else(|_| {
        Err(keyring::Error::PlatformFailure(
            "the keyring call panicked".into(),
        ))
    })
}

fn keyring_get() -> Result<Option<BearerToken>, keyring::Error> {
    off_runtime(keyring_get_blocking)
}

fn keyring_set(token: &BearerToken) -> Result<(), keyring::Error> {
    let token = token.clone();
    off_runtime(move || keyring_set_blocking(&token))
}

fn keyring_get_blocking() -> Result<Option<BearerToken>, keyring::Error> {
    match keyring_entry()?.get_password() {
        Ok(token) => Ok(BearerToken::from_string(token)),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(error) => Err(error),
    }
}

fn keyring_set_blocking(token: &BearerToken) -> Result<(), keyring::Error> {
    let entry = keyring_entry()?;
    entry.set_password(token.expose())?;
    // Some stores accept a write they cannot read back (a locked or mock store): check.
    match entry.get_password() {
        Ok(read) if read == token.expose() => Ok(()),
        Ok(_) => Err(keyring::Error::Invalid(
            "password".into(),
            "the keyring returned another value than the one stored".into(),
        )),
        Err(error) => Err(error),
    }
}

fn read_token_file(path: &Path) -> anyhow::Result<Option<BearerToken>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(BearerToken::from_string(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading the token file {}", path.display())),
    }
}

/// Writes the token file atomically, readable and writable by the user only (on Windows, as
/// the data directory: [`crate::lock::private_dir`]).
fn write_token_file(path: &Path, token: &BearerToken) -> anyhow::Result<()> {
    let dir = path.parent().context("token file without a directory")?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating the data directory {}", dir.display()))?;
    let tmp = dir.join(format!(".{TOKEN_FILE}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(&tmp)
        .with_context(|| format!("creating {}", tmp.display()))?;
    file.write_all(token.expose().as_bytes())?;
    file.write_all(b"\n")?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_are_43_base64url_chars_and_differ() {
        let a = BearerToken::generate();
        let b = BearerToken::generate();
        assert_eq!(a.expose().len(), 43);
        assert!(
            a.expose()
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), "BearerToken(<redacted>)");
        assert_eq!(format!("{a}"), "<redacted>");
    }

    #[test]
    fn matches_compares_exactly() {
        let token = BearerToken::from_string("abc").unwrap();
        assert!(token.matches("abc"));
        assert!(!token.matches("abd"));
        assert!(!token.matches("ab"));
        assert!(!token.matches("abcd"));
        assert!(!token.matches(""));
    }

    #[test]
    fn file_fallback_is_private_stable_and_regenerates() {
        let dir = std::env::temp_dir().join(format!("docs-mcp-token-{}", uuid::Uuid::new_v4()));
        let store = TokenStore::file_only(dir.join("nested"));
        assert_eq!(store.load().unwrap(), None);

        let (first, source) = store.load_or_create().unwrap();
        let path = dir.join("nested").join(TOKEN_FILE);
        assert_eq!(source, TokenSource::File(path.clone()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{}\n", first.expose())
        );

        let (again, _) = store.load_or_create().unwrap();
        assert_eq!(again, first);
        assert_eq!(store.load().unwrap().unwrap().0, first);

        let (second, source) = store.regenerate().unwrap();
        assert_eq!(source, TokenSource::File(path.clone()));
        assert_ne!(second, first);
        assert_eq!(store.load_or_create().unwrap().0, second);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let leftovers: Vec<_> = std::fs::read_dir(dir.join("nested"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(leftovers, vec![TOKEN_FILE.to_owned()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
