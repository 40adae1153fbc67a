//! Tokens go only to the service holding the data directory, once it proved it: a process
//! already listening on the service's port — another user's, say, that took it first —
//! receives neither the control token (the CLI, a lasting service taking the directory over)
//! nor the agents' token (the bridge, a relaying `serve --stdio`).

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use docs_mcp::{DataDirLock, DocsService, Holder, ServiceConfig};
use support::hosted::{Hosted, TOKEN, cli, temp_dir};
use support::process::{BIN, isolate};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A process listening on a loopback port that answers every request `200 {}` and keeps
/// everything it was sent.
struct Squatter {
    port: u16,
    received: Arc<Mutex<String>>,
}

impl Squatter {
    async fn start() -> Squatter {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(String::new()));
        let kept = received.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let kept = kept.clone();
                tokio::spawn(async move {
                    let mut buffer = vec![0u8; 64 * 1024];
                    let n = socket.read(&mut buffer).await.unwrap_or(0);
                    kept.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buffer[..n]));
                    let _ = socket
                        .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")
                        .await;
                });
            }
        });
        Squatter { port, received }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Everything sent to it holds none of these secrets, nor any bearer token.
    fn got_no_secret(&self, secrets: &[&str]) {
        let received = self.received.lock().unwrap().clone();
        assert!(
            !received.to_ascii_lowercase().contains("authorization"),
            "{received}"
        );
        for secret in secrets {
            assert!(!received.contains(secret), "{received}");
        }
    }
}

/// The lock of a service that says it listens at the squatter's port, as a service that
/// recorded its endpoint would, with a proof key the squatter does not have.
fn claimed_by(dir: &std::path::Path, squatter: &Squatter) -> DataDirLock {
    DataDirLock::acquire(
        dir,
        &Holder {
            pid: std::process::id(),
            program: "docs-mcp serve --stdio".into(),
            endpoint: Some(format!("{}/mcp", squatter.url())),
            hands_over: true,
            proof_key: "only-the-holder-knows".into(),
        },
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_process_on_the_holders_port_that_cannot_prove_it_receives_no_token() {
    let squatter = Squatter::start().await;
    let home = temp_dir("squatter");
    let data = home.join("data");
    let _lock = claimed_by(&data, &squatter);
    std::fs::write(
        data.join("control-token"),
        "control-secret-0123456789abcdefghij",
    )
    .unwrap();

    // The CLI with the control token.
    let (ok, _, stderr) = cli(&home, &data, &["edits", "list"]).await;
    assert!(!ok);
    assert_eq!(
        stderr,
        format!(
            "docs-mcp: what answers at {} is not the Docs MCP service holding the data directory (it could not prove it): nothing was sent to it. Another program may have taken the port\n",
            squatter.url()
        )
    );

    // A lasting service asking the (claimed) stdio holder to hand the directory over.
    let mut config = ServiceConfig::new(data.clone());
    config.listen = "127.0.0.1:0".parse().unwrap();
    let refused = match DocsService::start_taking_over(config).await {
        Ok(_) => panic!("started on a directory another holds"),
        Err(e) => e.to_string(),
    };
    assert!(
        refused.contains("it did not hand the directory over: what answers at"),
        "{refused}"
    );

    // The bridge, with the agents' token: every request answered with why, none relayed.
    let mut bridge = tokio::process::Command::new(BIN);
    isolate(&mut bridge, &home);
    let mut child = bridge
        .env("DOCS_MCP_TOKEN", TOKEN)
        .arg("--data-dir")
        .arg(&data)
        .arg("bridge")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n")
        .await
        .unwrap();
    drop(stdin);
    let output = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let answer: serde_json::Value =
        serde_json::from_slice(output.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is not the Docs MCP service holding the data directory"),
        "{answer}"
    );

    squatter.got_no_secret(&["control-secret-0123456789abcdefghij", TOKEN]);
    let _ = std::fs::remove_dir_all(&home);
}

/// A service whose port was taken when it started records no endpoint: nothing is sent to
/// the port it was configured with.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_service_that_could_not_bind_its_port_names_no_endpoint_and_nothing_goes_there() {
    let squatter = Squatter::start().await;
    let home = temp_dir("unbound");
    let data = home.join("data");
    // `serve --stdio` on the squatter's port: it runs over stdio only.
    let mut serve = tokio::process::Command::new(BIN);
    isolate(&mut serve, &home);
    let mut stdio = serve
        .env("DOCS_MCP_TOKEN", TOKEN)
        .arg("--data-dir")
        .arg(&data)
        .args(["serve", "--stdio", "--listen"])
        .arg(format!("127.0.0.1:{}", squatter.port))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let holder = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Some(holder) = docs_mcp::data_dir_holder(&data) {
                return holder;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap();
    assert_eq!(holder.endpoint, None, "{holder}");

    let (ok, _, stderr) = cli(&home, &data, &["edits", "list", "--url", &squatter.url()]).await;
    assert!(!ok);
    assert!(
        stderr.contains("holds the data directory but listens on no HTTP endpoint"),
        "{stderr}"
    );
    // `--url` takes loopback addresses only.
    let (ok, _, stderr) = cli(
        &home,
        &data,
        &["edits", "list", "--url", "http://docs.example.org:7658"],
    )
    .await;
    assert!(!ok);
    assert_eq!(
        stderr,
        "docs-mcp: http://docs.example.org:7658 is not an address of this computer: tokens are only sent to 127.0.0.1, [::1] or localhost\n"
    );
    let control = std::fs::read_to_string(data.join("control-token")).unwrap();
    squatter.got_no_secret(&[control.trim(), TOKEN]);
    drop(stdio.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(20), stdio.wait()).await;
    let _ = std::fs::remove_dir_all(&home);
}

/// The real holder proves itself, at its endpoint or at a loopback `--url` of its port; a
/// `--url` of another port is refused before anything is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_holder_proves_itself_and_another_port_is_refused() {
    let hosted = Hosted::start(None).await;
    let home = temp_dir("proven");
    let data = hosted.data_dir();
    // Recorded once the endpoint is bound.
    let endpoint = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Some(endpoint) = docs_mcp::data_dir_holder(&data).and_then(|h| h.endpoint) {
                return endpoint;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap();
    assert_eq!(endpoint, format!("{}/mcp", hosted.base()));
    for args in [
        vec!["clients", "list"],
        vec![
            "clients",
            "list",
            "--url",
            &format!("http://localhost:{}/mcp", hosted.port),
        ],
    ] {
        let (ok, stdout, stderr) = cli(&home, &data, &args).await;
        assert!(ok, "{args:?}: {stderr}");
        assert_eq!(
            stdout,
            "No clients: agents use the shared token (`docs-mcp token`).\n"
        );
    }
    let squatter = Squatter::start().await;
    let (ok, _, stderr) = cli(&home, &data, &["clients", "list", "--url", &squatter.url()]).await;
    assert!(!ok);
    assert_eq!(
        stderr,
        format!(
            "docs-mcp: {} is not where the Docs MCP service of this data directory listens ({}/mcp)\n",
            squatter.url(),
            hosted.base()
        )
    );
    squatter.got_no_secret(&[hosted.control().as_str(), TOKEN]);
    assert_eq!(*squatter.received.lock().unwrap(), "");
    hosted.stop().await;
    let _ = std::fs::remove_dir_all(&home);
}
