//! The demo: the Docs-like server of the repository's tests (the real Hocuspocus and BlockNote
//! Docs runs) with sample documents, started by the app when a person asks to try Docs MCP
//! without a Docs instance, and a demo agent proposing edits to them. Available in a source
//! checkout once the server's Node packages are installed (`scripts/run.sh --demo` does it).
//! Nothing of the demo is remembered: the next start shows the Connect screen again.
//!
//! The server is `tests/docs-server` started with `--demo` (two sample documents), found next to
//! the build's sources with its Node packages. Its address and documents are read from its stdout;
//! it is killed with the app, and exits by itself when its stdin closes.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context as _, bail};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use uuid::Uuid;

/// How long the server may take to start and seed its documents (BlockNote loads slowly).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The demo's server, stopped when dropped (and by itself when the app goes: it exits once
/// its stdin closes).
pub struct DemoServer {
    _child: Child,
    _stdin: ChildStdin,
    pub url: String,
    /// The sample documents, in order: id and title.
    pub documents: Vec<(Uuid, String)>,
}

/// The server's entry point, when this build comes from a checkout that has it installed
/// (its Node packages) and Node is on the PATH.
pub fn server_script() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/docs-server");
    let script = dir.join("src/main.mjs");
    let installed = script.is_file() && dir.join("node_modules/@hocuspocus/server").is_dir();
    (installed && node().is_some()).then_some(script)
}

fn node() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|candidate| candidate.is_file())
}

impl DemoServer {
    /// Starts the server and waits for its sample documents.
    pub async fn start() -> anyhow::Result<DemoServer> {
        let script = server_script().context(
            "the demo server is not installed (run scripts/run.sh --demo from a checkout)",
        )?;
        let node = node().context("Node.js is not on the PATH")?;
        let mut child = Command::new(node)
            .arg(&script)
            .args(["--demo", "--port", "0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("cannot start the demo server")?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (url, documents) = tokio::time::timeout(START_TIMEOUT, read_ready(stdout))
            .await
            .context("the demo server did not start within a minute")??;
        Ok(DemoServer {
            _child: child,
            _stdin: stdin,
            url,
            documents,
        })
    }
}

/// Reads `LISTENING <url>`, the `DEMO_DOCUMENT <id> <title>` lines, then `DEMO_READY`.
async fn read_ready(
    stdout: impl tokio::io::AsyncRead + Unpin,
) -> anyhow::Result<(String, Vec<(Uuid, String)>)> {
    let mut lines = BufReader::new(stdout).lines();
    let mut url = None;
    let mut documents = vec![];
    while let Some(line) = lines.next_line().await? {
        if let Some(rest) = line.strip_prefix("LISTENING ") {
            url = Some(rest.trim().to_owned());
        } else if let Some(rest) = line.strip_prefix("DEMO_DOCUMENT ") {
            let (id, title) = rest.split_once(' ').unwrap_or((rest, ""));
            documents.push((id.parse()?, title.to_owned()));
        } else if line == "DEMO_READY" {
            let url = url.context("the demo server gave no address")?;
            if documents.is_empty() {
                bail!("the demo server made no document");
            }
            return Ok((url, documents));
        }
    }
    bail!("the demo server stopped while starting")
}

/// What the demo agent proposes, in turn: which sample document (by its index), the markdown
/// appended, and the reason it gives.
pub const PROPOSALS: [(usize, &str, &str); 3] = [
    (
        0,
        "## Added by the demo agent\n\nThis section was proposed by an agent. It reached the document only once you approved it, and History can undo it.",
        "Show how an agent's edit waits for approval",
    ),
    (
        1,
        "## Next meeting\n\nThursday at 10:00, same room.\n\n- [ ] Grace: send the migration guide",
        "Add the next meeting and Grace's action",
    ),
    (
        0,
        "> Tip: set a document's policy to Automatic on the Documents screen to let agents edit it without asking.",
        "Mention the policies",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_server_says_where_it_listens_and_which_documents_it_made() {
        let id = Uuid::new_v4();
        let out = format!(
            "LISTENING http://127.0.0.1:4321\nDEMO_DOCUMENT {id} Welcome to the demo\nDEMO_READY\n"
        );
        let (url, documents) = read_ready(out.as_bytes()).await.unwrap();
        assert_eq!(url, "http://127.0.0.1:4321");
        assert_eq!(documents, [(id, "Welcome to the demo".to_owned())]);
    }

    #[tokio::test]
    async fn a_server_that_stops_or_makes_nothing_is_an_error_not_a_wait() {
        let stopped = read_ready("LISTENING http://127.0.0.1:1\n".as_bytes())
            .await
            .unwrap_err();
        assert_eq!(
            stopped.to_string(),
            "the demo server stopped while starting"
        );
        let empty = read_ready("LISTENING http://127.0.0.1:1\nDEMO_READY\n".as_bytes())
            .await
            .unwrap_err();
        assert_eq!(empty.to_string(), "the demo server made no document");
        let no_address =
            read_ready(format!("DEMO_DOCUMENT {} x\nDEMO_READY\n", Uuid::new_v4()).as_bytes())
                .await
                .unwrap_err();
        assert_eq!(no_address.to_string(), "the demo server gave no address");
    }
}
