//! How the service is set up: instance, credentials, data directory, approvals, listening.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use docs_client::{InstanceUrl, Secret};

use crate::credentials::CredentialStore;
use crate::record::Policy;

/// The fixed default port of the local MCP endpoint.
pub const DEFAULT_PORT: u16 = 7658;

#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// The Docs instance; `None` until the user configures one.
    pub instance: Option<InstanceUrl>,
    /// `docs_sessionid` of a signed-in user (headless sign-in); `None` = anonymous.
    pub session_cookie: Option<Secret>,
    pub csrf_token: Option<Secret>,
    /// Where a signed-in session is kept between runs (the OS keyring; tests: memory only).
    pub credentials: CredentialStore,
    /// Where the database (and, without a keyring, the token file) live.
    pub data_dir: PathBuf,
    /// Policy of documents without their own, unless the user stored another default.
    pub default_policy: Policy,
    /// Loopback address of the HTTP endpoint.
    pub listen: SocketAddr,
    /// How long a write tool waits for a human decision before answering `pending`.
    pub approval_wait: Duration,
    /// How long an approval waits for the collaboration server to acknowledge the change
    /// before answering `applying`; the change is followed after that anyway.
    pub confirm_wait: Duration,
    /// How long an applied edit waits for others to be saved with it: Docs keeps every save
    /// as a version of the document, and its editor saves once a minute. Until saved, the
    /// edit is held in the journal and saved from there after a crash.
    pub save_interval: Duration,
    /// What runs the service, as a second service on the same data directory is told.
    pub owner: String,
    /// Whether the service gives the data directory up when a lasting one (the app,
    /// `docs-mcp serve`) asks for it: a stdio service runs for one client only.
    pub hands_over: bool,
    /// Sessions unused for this long are closed.
    pub idle_ttl: Duration,
    /// At most this many sessions stay open: the least recently used one that nobody holds
    /// and that has nothing left to save is closed to open one more.
    pub max_open_sessions: usize,
    /// What the documents of open sessions may weigh together (estimated), besides the one
    /// used last: the least recently used are closed first, as for the count.
    pub memory_budget: u64,
    /// Name shown in Docs when the agent's own name is unknown.
    pub fallback_agent_name: String,
    /// Browser origins allowed on the HTTP endpoint besides the loopback ones of its port
    /// (e.g. the desktop app's webview). Exact `scheme://host[:port]` strings.
    pub allowed_origins: Vec<String>,
    /// Where the person makes the decisions asked over the control channel: the app's
    /// window (the app), else the asker's terminal with a code typed back (headless).
    pub person_at: crate::decisions::PersonAt,
    /// Budget of REST calls per minute to the instance (Docs throttles at 80 per user).
    pub requests_per_minute: u32,
}

/// Seconds an applied edit waits for others to be saved with it (`--save-interval`).
pub const SAVE_INTERVAL_ENV: &str = "DOCS_MCP_SAVE_INTERVAL";

/// A save interval given in seconds (`0.5`, `60`).
pub fn parse_save_interval(secs: &str) -> Result<Duration, String> {
    secs.trim()
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{secs:?} is not a number of seconds"))
}

impl ServiceConfig {
    pub fn new(data_dir: PathBuf) -> Self {
        ServiceConfig {
            instance: None,
            session_cookie: None,
            csrf_token: None,
            credentials: CredentialStore::OsKeyring,
            data_dir,
            default_policy: Policy::Review,
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT)),
            approval_wait: Duration::from_secs(20),
            confirm_wait: Duration::from_secs(20),
            save_interval: Duration::from_secs(60),
            owner: "docs-mcp".into(),
            hands_over: false,
            idle_ttl: docs_client::DEFAULT_IDLE_TTL,
            max_open_sessions: docs_client::DEFAULT_MAX_OPEN,
            memory_budget: docs_client::DEFAULT_MEMORY_BUDGET,
            fallback_agent_name: "AI agent".into(),
            requests_per_minute: 80,
            allowed_origins: Vec::new(),
            person_at: crate::decisions::PersonAt::Terminal,
        }
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("docs-mcp.sqlite3")
    }
}

/// The data directory this OS expects for the app (e.g. `~/.local/share/lasuite-docs-mcp`).
pub fn default_data_dir() -> PathBuf {
    let base = if cfg!(target_os = "windows") {
        std::env::var_os("APPDATA").map(PathBuf::from)
    } else if cfg!(target_os = "macos") {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join("Library/Application Support"))
    } else {
        std::env::var_os("XDG_DATA_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
    };
    base.unwrap_or_else(std::env::temp_dir)
        .join("lasuite-docs-mcp")
}

/// Where this OS keeps an app's logs (e.g. `~/.local/state/lasuite-docs-mcp/logs`).
pub fn default_log_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let base = if cfg!(target_os = "windows") {
        std::env::var_os("LOCALAPPDATA")
            .map(|p| PathBuf::from(p).join("lasuite-docs-mcp").join("logs"))
    } else if cfg!(target_os = "macos") {
        home.map(|h| h.join("Library/Logs/lasuite-docs-mcp"))
    } else {
        std::env::var_os("XDG_STATE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| home.map(|h| h.join(".local/state")))
            .map(|p| p.join("lasuite-docs-mcp").join("logs"))
    };
    base.unwrap_or_else(|| std::env::temp_dir().join("lasuite-docs-mcp-logs"))
}
