//! End to end: the real app (`docs-mcp-app`) under Xvfb, driven through tauri-driver and
//! WebKitWebDriver, against the Docs-like test server. An agent inserts a block over MCP; the
//! pending card shows in the window; clicking Approve applies it, and the server stores it.
//! Screenshots go to `tests/artifacts/`.
//!
//! Needs `Xvfb`, `WebKitWebDriver` (Debian: xvfb, webkit2gtk-driver) and `tauri-driver`
//! (`cargo install tauri-driver --version 2.1.0 --locked`); `scripts/setup.sh --test`
//! installs them all.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec};

const APP: &str = env!("CARGO_BIN_EXE_docs-mcp-app");
const TOKEN: &str = "e2e-token-0123456789abcdefghijklmnopqrstuvw";

/// Kills the child when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn find_program(name: &str) -> PathBuf {
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|p| p.join("bin"));
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(cargo_bin)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("{name} is missing: run `scripts/setup.sh --test` (it installs Xvfb, WebKitWebDriver and tauri-driver)")
        })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts Xvfb on a free display; returns it and the display (`:N`).
fn start_xvfb() -> (Process, String) {
    let mut child = Command::new(find_program("Xvfb"))
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1280x900x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting Xvfb");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("reading Xvfb's display");
    let display = format!(":{}", line.trim());
    (Process(child), display)
}

/// A minimal W3C WebDriver client.
struct WebDriver {
    http: reqwest::Client,
    session: String,
}

impl WebDriver {
    async fn call(
        http: &reqwest::Client,
        method: reqwest::Method,
        url: String,
        body: Option<Value>,
    ) -> Value {
        let mut request = http.request(method, &url);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request
            .send()
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let value: Value = response.json().await.unwrap();
        value["value"].clone()
    }

    async fn start(base: &str, app: &str) -> WebDriver {
        let http = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if http.get(format!("{base}/status")).send().await.is_ok() {
                break;
            }
            assert!(Instant::now() < deadline, "tauri-driver did not start");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let value = Self::call(
            &http,
            reqwest::Method::POST,
            format!("{base}/session"),
            Some(json!({"capabilities": {"alwaysMatch": {
                "browserName": "wry",
                "tauri:options": {"application": app}
            }}})),
        )
        .await;
        let session = value["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {value}"))
            .to_owned();
        WebDriver {
            http,
            session: format!("{base}/session/{session}"),
        }
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        Self::call(
            &self.http,
            reqwest::Method::POST,
            format!("{}{path}", self.session),
            Some(body),
        )
        .await
    }

    async fn get(&self, path: &str) -> Value {
        Self::call(
            &self.http,
            reqwest::Method::GET,
            format!("{}{path}", self.session),
            None,
        )
        .await
    }

    /// Element ids matching a CSS selector.
    async fn find_all(&self, css: &str) -> Vec<String> {
        let value = self
            .post("/elements", json!({"using": "css selector", "value": css}))
            .await;
        value
            .as_array()
            .map(|elements| {
                elements
                    .iter()
                    .filter_map(|e| e.as_object()?.values().next()?.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    async fn wait_for(&self, css: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(id) = self.find_all(css).await.into_iter().next() {
                return id;
            }
            assert!(
                Instant::now() < deadline,
                "no element {css} after {timeout:?}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    async fn click(&self, element: &str) {
        self.post(&format!("/element/{element}/click"), json!({}))
            .await;
    }

    async fn text(&self, element: &str) -> String {
        self.get(&format!("/element/{element}/text"))
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    async fn screenshot(&self, path: &Path) {
        let value = self.get("/screenshot").await;
        if let Some(data) = value.as_str() {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap();
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
    }

    async fn end(self) {
        let _ = self.http.delete(&self.session).send().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_edit_is_approved_in_the_window() {
    let artifacts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/artifacts");
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Plan").markdown("First paragraph."))
        .await
        .unwrap();

    let home = std::env::temp_dir().join(format!("docs-mcp-app-e2e-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&home).unwrap();
    let mcp_port = free_port();
    let (driver_port, native_port) = (free_port(), free_port());
    let (_xvfb, display) = start_xvfb();
    // The app is started by WebKitWebDriver, a child of tauri-driver: it inherits this
    // environment.
    let _driver = Process(
        Command::new(find_program("tauri-driver"))
            .args([
                "--port",
                &driver_port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            .arg("--native-driver")
            .arg(find_program("WebKitWebDriver"))
            .env("DISPLAY", &display)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("DOCS_MCP_DATA_DIR", home.join("docs-mcp"))
            .env("DOCS_MCP_LISTEN", format!("127.0.0.1:{mcp_port}"))
            .env("DOCS_MCP_TOKEN", TOKEN)
            .env("DOCS_INSTANCE_URL", server.url())
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .stdout(Stdio::null())
            .spawn()
            .expect("starting tauri-driver"),
    );
    let driver = WebDriver::start(&format!("http://127.0.0.1:{driver_port}"), APP).await;
    // Loaded: the overview is in, and a screen is shown.
    driver
        .wait_for(".panel:not([hidden]) section", Duration::from_secs(30))
        .await;

    // The agent connects over MCP and inserts a block; the write waits for the human.
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{mcp_port}/mcp"))
            .auth_header(TOKEN),
    );
    let agent = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("E2E agent", "1.0"),
    )
    .serve(transport)
    .await
    .expect("the app's MCP endpoint");
    let call = {
        let peer = agent.peer().clone();
        let arguments = json!({"document": id.to_string(), "position": {"at": "end"},
            "markdown": "Added by the agent.", "reason": "close the plan"});
        tokio::spawn(async move {
            peer.call_tool(
                CallToolRequestParams::new("insert_blocks")
                    .with_arguments(arguments.as_object().unwrap().clone()),
            )
            .await
        })
    };

    let tab = driver
        .wait_for(r#"button[data-screen="pending"]"#, Duration::from_secs(5))
        .await;
    driver.click(&tab).await;
    let card = driver
        .wait_for(
            r#"[data-panel="pending"]:not([hidden]) .edit-card"#,
            Duration::from_secs(30),
        )
        .await;
    let text = driver.text(&card).await;
    assert!(text.contains("E2E agent wants to edit Plan"), "{text}");
    assert!(text.contains("close the plan"), "{text}");
    assert!(text.contains("Added by the agent."), "{text}");
    tokio::time::sleep(Duration::from_millis(500)).await; // let it paint
    driver
        .screenshot(&artifacts.join("e2e-pending-edit.png"))
        .await;

    let approve = driver
        .wait_for(".edit-card button.primary", Duration::from_secs(5))
        .await;
    assert_eq!(driver.text(&approve).await, "Approve");
    driver.click(&approve).await;
    let notice = driver
        .wait_for("#main .empty", Duration::from_secs(30))
        .await;
    assert_eq!(driver.text(&notice).await, "No edit waits for you.");
    tokio::time::sleep(Duration::from_millis(500)).await;
    driver.screenshot(&artifacts.join("e2e-approved.png")).await;

    // The tool answers `applied` when the decision came within its wait (20 s), else
    // `pending`; either way the block must now be stored.
    let result = call.await.unwrap().expect("insert_blocks");
    let structured = result.structured_content.clone().unwrap_or(Value::Null);
    assert!(
        structured["status"] == "applied" || structured["status"] == "pending",
        "{result:?}"
    );
    let stored = server.stored(id).await.unwrap();
    assert!(
        stored.markdown.contains("First paragraph.")
            && stored.markdown.contains("Added by the agent."),
        "{}",
        stored.markdown
    );

    driver.end().await;
    let _ = agent.cancel().await;
    let _ = std::fs::remove_dir_all(&home);
}
