//! A service hosted in this process with its HTTP endpoint on a random loopback port, and
//! the person's tools around it: raw control requests, the `docs-mcp` CLI as a child process
//! with pipes (as an agent's shell runs it), and the CLI in a terminal (a pseudo-terminal
//! from `script`, where a person — or a test standing in for one — reads the code the
//! service shows and types it back).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use docs_client::InstanceUrl;
use docs_mcp::record::Policy;
use docs_mcp::{BearerToken, DocsService, PersonAt, ServiceConfig, SharedToken};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::process::{BIN, isolate};

/// The agents' shared token of hosted services.
pub const TOKEN: &str = "test-token-0123456789abcdefghijklmnopqrstuv";

pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("docs-mcp-{name}-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A service hosted in this process on a random loopback port.
pub struct Hosted {
    pub service: Arc<DocsService>,
    pub token: SharedToken,
    pub port: u16,
    pub shutdown: CancellationToken,
    pub dir: PathBuf,
}

impl Hosted {
    /// A headless service: decisions asked over `/control` need the asker's terminal.
    pub async fn start(instance: Option<&str>) -> Hosted {
        Self::start_for(instance, PersonAt::Terminal).await
    }

    /// A service whose person decides at `person_at` (the app: its window).
    pub async fn start_for(instance: Option<&str>, person_at: PersonAt) -> Hosted {
        let dir = temp_dir("hosted");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut config = ServiceConfig::new(dir.join("data"));
        config.instance = instance.map(|url| InstanceUrl::parse(url).unwrap());
        config.default_policy = Policy::Review;
        config.approval_wait = Duration::from_secs(1);
        config.save_interval = Duration::from_millis(100);
        config.listen = listener.local_addr().unwrap();
        config.person_at = person_at;
        let service = DocsService::start(config).await.unwrap();
        let shutdown = CancellationToken::new();
        let token = SharedToken::new(BearerToken::from_string(TOKEN).unwrap());
        tokio::spawn(docs_mcp::serve_http(
            service.clone(),
            token.clone(),
            listener,
            shutdown.clone(),
        ));
        Hosted {
            service,
            token,
            port,
            shutdown,
            dir,
        }
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The control token the service published (what `docs-mcp edits` reads).
    pub fn control(&self) -> String {
        self.service.control_token().expose().to_owned()
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    pub async fn stop(self) {
        self.shutdown.cancel();
        self.service.shutdown().await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One request to the endpoint from this process: status and JSON body.
pub async fn control(
    method: reqwest::Method,
    url: String,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = reqwest::Client::new().request(method, url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Runs `docs-mcp` with pipes for its input and output — as an agent's shell tool runs it —
/// on the service's data directory `data_dir` (where the running service published its
/// control token).
pub async fn cli(home: &Path, data_dir: &Path, args: &[&str]) -> (bool, String, String) {
    let mut cmd = tokio::process::Command::new(BIN);
    isolate(&mut cmd, home);
    let output = cmd
        .env("DOCS_MCP_TOKEN", TOKEN)
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The line the service writes to the asker's terminal, before the code.
pub const CODE_PROMPT: &str = "To confirm, type this code: ";

/// Runs `docs-mcp` in a pseudo-terminal (`script`), waits for the code the service writes
/// there, and types back what `answer` makes of it. Returns success, and everything the
/// terminal showed.
pub async fn cli_in_terminal(
    home: &Path,
    data_dir: &Path,
    args: &[&str],
    answer: impl FnOnce(&str) -> String,
) -> (bool, String) {
    let mut command = format!("{BIN} --data-dir '{}'", data_dir.display());
    for arg in args {
        command.push_str(&format!(" '{}'", arg.replace('\'', r"'\''")));
    }
    let mut cmd = tokio::process::Command::new("script");
    isolate(&mut cmd, home);
    let mut child = cmd
        .env("DOCS_MCP_TOKEN", TOKEN)
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("script (util-linux) runs the CLI in a pseudo-terminal");
    let mut stdout = child.stdout.take().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut shown = String::new();
    let mut buffer = [0u8; 4096];
    let code = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let n = stdout.read(&mut buffer).await.unwrap();
            if n == 0 {
                return None;
            }
            shown.push_str(&String::from_utf8_lossy(&buffer[..n]));
            if let Some(at) = shown.find(CODE_PROMPT)
                && let Some(code) = shown[at + CODE_PROMPT.len()..].get(..9)
                && shown.contains("Code: ")
            {
                return Some(code.to_owned());
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no code shown on the terminal: {shown:?}"));
    if let Some(code) = code {
        stdin
            .write_all(format!("{}\n", answer(&code)).as_bytes())
            .await
            .unwrap();
    }
    let mut rest = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stdout.read_to_string(&mut rest)).await;
    shown.push_str(&rest);
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the CLI ends")
        .unwrap();
    (status.success(), shown)
}
