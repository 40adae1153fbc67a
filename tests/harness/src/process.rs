//! Starting the test server: which collaboration server and Docs release it plays, the
//! Node child and its `LISTENING` line.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

use crate::DocsServer;
use crate::tls::TestTls;

/// How long to wait for the `LISTENING` line.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Environment variable choosing the collaboration server when
/// [`ServerOptions::collaboration`] is `None`: `hocuspocus` (default) or `yhub`.
pub const COLLABORATION_ENV: &str = "DOCS_TEST_COLLABORATION";

/// The collaboration server the test instance runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Collaboration {
    /// Docs up to 5.x: `@hocuspocus/server` at `/collaboration/ws/?room=<id>`; clients save the
    /// content through `documents/<id>/content/`.
    #[default]
    Hocuspocus,
    /// Docs' next major: yhub, plain y-websocket at `/collaboration/ws/v1/docs/<id>`, REST
    /// `/collaboration/ydoc/v1/docs/<id>`; the server persists (no `content/` endpoint).
    Yhub,
}

impl Collaboration {
    /// The `--collaboration` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hocuspocus => "hocuspocus",
            Self::Yhub => "yhub",
        }
    }

    /// Parses `hocuspocus` / `yhub` (case-insensitive).
    pub fn parse(s: &str) -> anyhow::Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "hocuspocus" => Ok(Self::Hocuspocus),
            "yhub" => Ok(Self::Yhub),
            other => bail!("unknown collaboration server {other:?} (hocuspocus|yhub)"),
        }
    }

    /// What `DOCS_TEST_COLLABORATION` asks for (Hocuspocus when unset or empty).
    pub fn from_env() -> anyhow::Result<Self> {
        match std::env::var(COLLABORATION_ENV) {
            Ok(v) if !v.trim().is_empty() => {
                Self::parse(&v).with_context(|| format!("{COLLABORATION_ENV}={v}"))
            }
            _ => Ok(Self::Hocuspocus),
        }
    }
}

/// Options of the test server.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// Behave like Docs < 5.0: no `content/` endpoint, `content` is a field of the document.
    pub legacy_content: bool,
    /// The Docs release to behave as (`X.Y.Z`; the server's default is its newest, 5.7.0).
    pub docs_version: Option<String>,
    /// Document API throttle in requests/minute (default 80, like Docs). `Some(0)` disables it.
    pub throttle_rate: Option<u32>,
    /// `hocuspocus` or `yhub`; `None`: the `DOCS_TEST_COLLABORATION` environment variable
    /// decides (Hocuspocus when unset).
    pub collaboration: Option<String>,
    /// Every REST answer waits this long first, as a backend a round trip away would (for
    /// benchmarks; the collaboration socket is not delayed).
    pub latency: Option<std::time::Duration>,
    /// Serve HTTPS and WSS with this certificate (its authority trusted by this harness).
    pub tls: Option<TestTls>,
}

/// Root of the repository (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

impl DocsServer {
    /// Starts a server with default options.
    pub async fn start() -> anyhow::Result<Self> {
        Self::start_with(ServerOptions::default()).await
    }

    /// Starts a server: `node tests/docs-server/src/main.mjs --port 0 ...`, waits for its
    /// `LISTENING` line (30 s).
    pub async fn start_with(opts: ServerOptions) -> anyhow::Result<Self> {
        let root = repo_root();
        let dir = root.join("tests/docs-server");
        if !dir.join("node_modules").is_dir() {
            bail!(
                "the test server's Node dependencies are missing ({}): run `npm ci --prefix tests/docs-server` in {}",
                dir.join("node_modules").display(),
                root.display()
            );
        }
        let legacy = opts.legacy_content
            || opts
                .docs_version
                .as_deref()
                .and_then(|v| v.split('.').next()?.parse::<u32>().ok())
                .is_some_and(|major| major < 5);
        let collaboration = match &opts.collaboration {
            Some(c) => Collaboration::parse(c)?,
            // Docs before 5.0 never ran yhub: the environment does not apply to it.
            None if legacy => Collaboration::Hocuspocus,
            None => Collaboration::from_env()?,
        };
        let mut cmd = Command::new("node");
        cmd.arg(dir.join("src/main.mjs"))
            .args(["--port", "0"])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if opts.legacy_content {
            cmd.arg("--legacy-content");
        }
        if let Some(version) = &opts.docs_version {
            cmd.args(["--docs-version", version]);
        }
        if let Some(rate) = opts.throttle_rate {
            cmd.args(["--throttle-rate", &rate.to_string()]);
        }
        if let Some(latency) = opts.latency {
            cmd.args(["--latency-ms", &latency.as_millis().to_string()]);
        }
        cmd.args(["--collaboration", collaboration.as_str()]);
        if let Some(tls) = &opts.tls {
            cmd.arg("--tls-cert")
                .arg(tls.cert_file())
                .arg("--tls-key")
                .arg(tls.key_file());
        }
        let mut child = cmd
            .spawn()
            .context("could not start `node` (is Node.js ≥ 20 installed?)")?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().context("no stdout")?;
        let stderr = child.stderr.take().context("no stderr")?;

        // Forward node's stderr to the test's stderr, keeping the tail for error messages.
        let tail: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
        {
            let tail = tail.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    eprintln!("[docs-server] {line}");
                    let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                    t.push(line);
                    if t.len() > 200 {
                        t.remove(0);
                    }
                }
            });
        }

        let mut out = BufReader::new(stdout).lines();
        let first = tokio::time::timeout(START_TIMEOUT, out.next_line()).await;
        let stderr_tail = |tail: &Arc<Mutex<Vec<String>>>| {
            tail.lock().unwrap_or_else(|e| e.into_inner()).join("\n")
        };
        let url = match first {
            Ok(Ok(Some(line))) if line.starts_with("LISTENING ") => {
                line["LISTENING ".len()..].trim().to_owned()
            }
            Ok(Ok(other)) => {
                // Give the stderr forwarder a moment to collect the reason.
                tokio::time::sleep(Duration::from_millis(200)).await;
                let status = child.try_wait().ok().flatten();
                bail!(
                    "docs-server did not start (first stdout line {other:?}, exit {status:?}); stderr:\n{}",
                    stderr_tail(&tail)
                );
            }
            Ok(Err(e)) => bail!(
                "reading docs-server stdout: {e}; stderr:\n{}",
                stderr_tail(&tail)
            ),
            Err(_) => {
                let _ = child.start_kill();
                bail!(
                    "docs-server printed no LISTENING line within {START_TIMEOUT:?}; stderr:\n{}",
                    stderr_tail(&tail)
                );
            }
        };
        // Keep draining stdout (nothing is expected there).
        tokio::spawn(async move {
            while let Ok(Some(line)) = out.next_line().await {
                eprintln!("[docs-server stdout] {line}");
            }
        });

        let mut http = reqwest::Client::builder().timeout(Duration::from_secs(30));
        if let Some(tls) = &opts.tls {
            let ca = std::fs::read(tls.ca_file())?;
            http = http.tls_certs_only([reqwest::Certificate::from_pem(&ca)?]);
        }
        let http = http.build()?;
        Ok(Self {
            url,
            collaboration,
            http,
            child,
            _stdin: stdin,
        })
    }
}
