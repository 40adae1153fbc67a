//! End to end: the real app (`docs-mcp-app`) under Xvfb, driven through tauri-driver and
//! WebKitWebDriver, against the Docs-like test server. An agent inserts a block over MCP; the
//! pending card shows in the window; clicking Approve applies it, and the server stores it.
//! Signing in opens the real sign-in window, which goes through the server's login
//! (authenticate → callback → home); the agent then reads a private document, until sign-out.
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
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec};

const APP: &str = env!("CARGO_BIN_EXE_docs-mcp-app");
/// How long the window may take to show what a step waits for. Generous, as a wait ends as
/// soon as it is shown: on a loaded 2-core machine (CI's) two apps and their web views run at
/// once, and a screen may come seconds after the click that asks for it.
const SHOWN: Duration = Duration::from_secs(20);
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
            if Instant::now() >= deadline {
                panic!(
                    "no element {css} after {timeout:?}; the window shows:\n{}",
                    self.shown().await
                );
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// The text of the screen shown and of its notice: what a failed wait saw.
    async fn shown(&self) -> String {
        let script = "const panel = document.querySelector('[data-panel]:not([hidden])'); \
             return (panel ? panel.getAttribute('data-panel') + ': ' + panel.innerText : 'no screen');";
        let value = self
            .post("/execute/sync", json!({"script": script, "args": []}))
            .await;
        value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned)
    }

    async fn click(&self, element: &str) {
        self.post(&format!("/element/{element}/click"), json!({}))
            .await;
    }

    /// The element's text as the page renders it (its `innerText`: WebKitWebDriver's text
    /// endpoint leaves out one-line clamped spans, the agent and document names among them).
    async fn text(&self, element: &str) -> String {
        let value = self
            .get(&format!("/element/{element}/property/innerText"))
            .await;
        value
            .as_str()
            .unwrap_or_else(|| panic!("no text for {element}: {value}"))
            .to_owned()
    }

    /// The text of the first element matching `css` once it is `expected`: the screen may
    /// render it again meanwhile (an element found then replaced goes stale), so both the
    /// element and its text are looked up again until they match or `timeout` passes.
    async fn wait_for_text(&self, css: &str, expected: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let mut last = Value::Null;
        loop {
            if let Some(id) = self.find_all(css).await.into_iter().next() {
                last = self.get(&format!("/element/{id}/property/innerText")).await;
                if last.as_str() == Some(expected) {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "{css} does not read {expected:?} after {timeout:?}: {last}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    async fn attribute(&self, element: &str, name: &str) -> String {
        let value = self
            .get(&format!("/element/{element}/attribute/{name}"))
            .await;
        value
            .as_str()
            .unwrap_or_else(|| panic!("no {name} on {element}: {value}"))
            .to_owned()
    }

    /// Types `text` into a field.
    async fn type_text(&self, element: &str, text: &str) {
        self.post(&format!("/element/{element}/value"), json!({"text": text}))
            .await;
    }

    /// Shows a screen through its tab, waits for `ready` in it, lets it paint, and saves a
    /// screenshot as `tests/artifacts/<file>`; returns the `ready` element.
    async fn screen(&self, screen: &str, ready: &str, file: &str) -> String {
        let tab = self
            .wait_for(&format!(r#"button[data-screen="{screen}"]"#), SHOWN)
            .await;
        self.click(&tab).await;
        let element = self
            .wait_for(
                &format!(r#"[data-panel="{screen}"]:not([hidden]) {ready}"#),
                Duration::from_secs(30),
            )
            .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        self.screenshot(&artifacts().join(file)).await;
        element
    }

    /// Runs `script` in the window; it ends by calling `done(value)`.
    async fn execute_async(&self, script: &str, timeout: Duration) -> Value {
        self.post(
            "/timeouts",
            json!({"script": u64::try_from(timeout.as_millis()).unwrap()}),
        )
        .await;
        let script = format!("const done = arguments[arguments.length - 1];\n{script}");
        self.post("/execute/async", json!({"script": script, "args": []}))
            .await
    }

    /// Calls a command of the app through its IPC, as the UI does: `Ok(result)` or
    /// `Err({code, message, hint})`.
    async fn invoke(&self, command: &str, timeout: Duration) -> Result<Value, Value> {
        let value = self
            .execute_async(
                &format!(
                    "window.__TAURI_INTERNALS__.invoke({command:?}).then(\
                     (ok) => done({{ok}}), (err) => done({{err}}));"
                ),
                timeout,
            )
            .await;
        match (value.get("ok"), value.get("err")) {
            (Some(ok), None) => Ok(ok.clone()),
            (None, Some(err)) => Err(err.clone()),
            _ => panic!("{command}: unexpected answer {value}"),
        }
    }

    /// Sets the window's outer size (no window manager under Xvfb: no decorations), and waits
    /// until the window has it: X may give it late on a loaded machine.
    async fn resize(&self, width: u32, height: u32) {
        let deadline = Instant::now() + SHOWN;
        let mut rect = self
            .post("/window/rect", json!({"width": width, "height": height}))
            .await;
        loop {
            let sized = (rect["width"].as_u64(), rect["height"].as_u64())
                == (Some(u64::from(width)), Some(u64::from(height)));
            if sized {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the window was not resized to {width}×{height}: {rect}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
            rect = self.get("/window/rect").await;
        }
    }

    /// At the default and at the minimum window size, as the screen first shows (not
    /// scrolled): the first card's title and its Approve are on screen together, photographed
    /// as `tests/artifacts/<name>-<width>x<height>.png`. Leaves the default size. The layout
    /// is looked at until it holds (a loaded machine lays out late), at most `SHOWN`.
    async fn card_at_window_sizes(&self, name: &str) {
        for (width, height) in [(960, 720), (560, 420)] {
            self.resize(width, height).await;
            let deadline = Instant::now() + SHOWN;
            loop {
                let seen = self
                    .execute_async(
                        "const seen = (css) => { \
                           const r = document.querySelector(css).getBoundingClientRect(); \
                           return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth; }; \
                         done({title: seen('.edit-card h3'), approve: seen('.edit-card button.primary'), \
                               reject: seen('.edit-card button.reject'), width: window.innerWidth});",
                        SHOWN,
                    )
                    .await;
                let together = (&seen["title"], &seen["approve"], &seen["reject"])
                    == (&json!(true), &json!(true), &json!(true));
                if together && seen["width"] == json!(width) {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "at {width}×{height} the card's title and its decision are not on screen together: {seen}"
                );
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            self.screenshot(&artifacts().join(format!("{name}-{width}x{height}.png")))
                .await;
        }
        self.resize(960, 720).await;
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

/// The app running under Xvfb, driven through tauri-driver, with its own home and MCP port.
struct App {
    driver: WebDriver,
    home: PathBuf,
    mcp_port: u16,
    // Dropped (killed) after the WebDriver session ended.
    _driver_process: Process,
    _xvfb: Process,
}

impl App {
    /// Launches the app, connected to `server` through the environment when `connected`,
    /// and waits until its window shows a screen.
    async fn launch(server: &DocsServer, connected: bool) -> App {
        App::launch_on(connected.then(|| server.url()), Theme::Light).await
    }

    /// Launches the app on `instance` (through the environment), or on none: the first start;
    /// in the desktop's light or dark theme.
    async fn launch_on(instance: Option<&str>, theme: Theme) -> App {
        App::launch_in(new_home(), instance, theme, ".panel:not([hidden]) section").await
    }

    /// [`App::launch_on`] in `home` (its data directory: `home/docs-mcp`), ready once the
    /// window shows `ready`.
    async fn launch_in(home: PathBuf, instance: Option<&str>, theme: Theme, ready: &str) -> App {
        let mcp_port = free_port();
        let (driver_port, native_port) = (free_port(), free_port());
        let (xvfb, display) = start_xvfb();
        // The app is started by WebKitWebDriver, a child of tauri-driver: it inherits this
        // environment. Without a session bus there is no Secret Service: the bearer token
        // comes from DOCS_MCP_TOKEN, and a Docs session stays in memory.
        let mut driver_command = Command::new(find_program("tauri-driver"));
        driver_command
            .args([
                "--port",
                &driver_port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            .arg("--native-driver")
            .arg(find_program("WebKitWebDriver"));
        let driver_process = Process(
            in_home(&mut driver_command, &home)
                .env("DISPLAY", &display)
                .env("DOCS_MCP_LISTEN", format!("127.0.0.1:{mcp_port}"))
                .env("DOCS_MCP_TOKEN", TOKEN)
                .env("DOCS_MCP_SAVE_INTERVAL", "0.2")
                // The libraries that print cookies at these levels: the app's logs must not.
                .env(
                    "RUST_LOG",
                    "info,cookie_store=trace,tungstenite=trace,tokio_tungstenite=trace",
                )
                .env("DOCS_INSTANCE_URL", instance.unwrap_or_default())
                .env(
                    "GTK_THEME",
                    match theme {
                        Theme::Light => "Adwaita",
                        Theme::Dark => "Adwaita:dark",
                    },
                )
                .env_remove("DBUS_SESSION_BUS_ADDRESS")
                // GTK's GL on, as a person may ask (`gl`): the app turns it off by default and
                // WebKit then draws in software, where its WebDriver's screenshot waits for a
                // GL presentation that never comes (the window itself draws and answers, seen
                // on Xvfb's screen: docs/install.md). The default is checked by
                // `in_the_tray_the_app_holds_no_gl_driver_unless_asked`.
                .env("GDK_GL", "")
                .stdout(Stdio::null())
                .spawn()
                .expect("starting tauri-driver"),
        );
        let driver = WebDriver::start(&format!("http://127.0.0.1:{driver_port}"), APP).await;
        // Loaded: the overview is in, and a screen is shown.
        driver.wait_for(ready, Duration::from_secs(30)).await;
        App {
            driver,
            home,
            mcp_port,
            _driver_process: driver_process,
            _xvfb: xvfb,
        }
    }

    /// An MCP client of the app's endpoint, named `name`.
    async fn agent(&self, name: &str) -> RunningService<RoleClient, ClientConfig> {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(format!(
                "http://127.0.0.1:{}/mcp",
                self.mcp_port
            ))
            .auth_header(TOKEN),
        );
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(name, "1.0"),
        )
        .serve(transport)
        .await
        .expect("the app's MCP endpoint")
    }

    /// `docs-mcp-app` as a command line on this app's data directory and endpoint.
    fn cli(&self, args: &[&str]) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(APP);
        command
            .args(args)
            .args(["--url", &format!("http://127.0.0.1:{}", self.mcp_port)])
            .env("HOME", &self.home)
            .env("DOCS_MCP_DATA_DIR", self.home.join("docs-mcp"))
            .env("DOCS_MCP_TOKEN", TOKEN)
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .kill_on_drop(true);
        command
    }

    async fn quit(self) {
        self.driver.end().await;
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// A home directory of a test's own.
fn new_home() -> PathBuf {
    let home = std::env::temp_dir().join(format!("docs-mcp-app-e2e-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&home).unwrap();
    home
}

/// Has the app live in `home`: its XDG directories and its data directory under it.
fn in_home<'a>(command: &'a mut Command, home: &Path) -> &'a mut Command {
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("DOCS_MCP_DATA_DIR", home.join("docs-mcp"))
}

fn artifacts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/artifacts")
}

/// Polls the stored document until `check` holds on its markdown.
async fn wait_stored(server: &DocsServer, id: uuid::Uuid, check: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let markdown = server.stored(id).await.unwrap().markdown;
        if check(&markdown) {
            return markdown;
        }
        assert!(Instant::now() < deadline, "stored document: {markdown}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A tool's structured result, or its `{code, message, hint}` error.
async fn call_tool(
    agent: &rmcp::Peer<RoleClient>,
    tool: &'static str,
    args: Value,
) -> Result<Value, Value> {
    let result = agent
        .call_tool(
            CallToolRequestParams::new(tool).with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    if result.is_error == Some(true) {
        let body: Value = serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap();
        return Err(body["error"].clone());
    }
    Ok(result.structured_content.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_edit_is_approved_in_the_window() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Plan").markdown("First paragraph."))
        .await
        .unwrap();

    let app = App::launch(&server, false).await;
    let driver = &app.driver;

    // A first start: the Connect screen asks for the instance, checks it and connects.
    let url_field = driver
        .wait_for(
            r#"[data-panel="connect"]:not([hidden]) #instance-url"#,
            Duration::from_secs(10),
        )
        .await;
    driver.type_text(&url_field, server.url()).await;
    let connect = driver
        .wait_for("form.connect-form button[type=submit]", SHOWN)
        .await;
    driver.click(&connect).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let current = driver.wait_for(".current-instance", SHOWN).await;
        let text = driver.text(&current).await;
        if text.starts_with("Connected to http://127.0.0.1") {
            break;
        }
        assert!(Instant::now() < deadline, "not connected: {text}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // let it paint
    driver
        .screenshot(&artifacts().join("e2e-connected.png"))
        .await;

    // The agent connects over MCP and inserts a block; the write waits for the human.
    let agent = app.agent("E2E agent").await;
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
        .wait_for(r#"button[data-screen="pending"]"#, SHOWN)
        .await;
    driver.click(&tab).await;
    let card = driver
        .wait_for(
            r#"[data-panel="pending"]:not([hidden]) .edit-card"#,
            Duration::from_secs(30),
        )
        .await;
    driver.card_at_window_sizes("e2e-pending-edit").await;
    let text = driver.text(&card).await;
    assert!(text.contains("E2E agent wants to edit Plan"), "{text}");
    assert!(text.contains("close the plan"), "{text}");
    assert!(text.contains("Added by the agent."), "{text}");

    let approve = driver.wait_for(".edit-card button.primary", SHOWN).await;
    assert_eq!(driver.text(&approve).await, "Approve");
    driver.click(&approve).await;
    driver
        .wait_for_text(
            "#main .empty",
            "No edit waits for you.",
            Duration::from_secs(30),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    driver
        .screenshot(&artifacts().join("e2e-approved.png"))
        .await;

    // The tool answers `applied` when the decision came within its wait (20 s), else
    // `pending`; either way the block must now be stored.
    let result = call.await.unwrap().expect("insert_blocks");
    let structured = result.structured_content.clone().unwrap_or(Value::Null);
    assert!(
        structured["status"] == "applied" || structured["status"] == "pending",
        "{result:?}"
    );
    let stored = server.stored_settled(id).await.unwrap();
    assert!(
        stored.markdown.contains("First paragraph.")
            && stored.markdown.contains("Added by the agent."),
        "{}",
        stored.markdown
    );

    // Rejected with a comment: the agent gets the comment (in the tool's answer when the
    // decision came within its wait, else from edit_status), and nothing is applied.
    let call = {
        let peer = agent.peer().clone();
        tokio::spawn(async move {
            call_tool(
                &peer,
                "insert_blocks",
                json!({"document": id.to_string(), "position": {"at": "end"},
                    "markdown": "Dear Sir,", "reason": "a formal opening"}),
            )
            .await
        })
    };
    let reject = driver
        .wait_for(
            r#"[data-panel="pending"]:not([hidden]) .edit-card .actions button.reject"#,
            Duration::from_secs(30),
        )
        .await;
    assert_eq!(driver.text(&reject).await, "Reject…");
    driver.click(&reject).await;
    let comment = driver
        .wait_for(".edit-card textarea[name=comment]", SHOWN)
        .await;
    driver.type_text(&comment, "Too formal for us").await;
    driver
        .screenshot(&artifacts().join("e2e-reject-with-comment.png"))
        .await;
    let send = driver
        .wait_for(".edit-card .reject-form button.danger", SHOWN)
        .await;
    driver.click(&send).await;
    driver
        .wait_for("#main .empty", Duration::from_secs(30))
        .await;
    match call.await.unwrap() {
        Err(error) => {
            assert_eq!(error["code"], "EDIT_REJECTED", "{error}");
            assert!(
                error["message"]
                    .as_str()
                    .unwrap()
                    .contains("Too formal for us"),
                "{error}"
            );
        }
        Ok(pending) => {
            assert_eq!(pending["status"], "pending", "{pending}");
            let status = call_tool(
                &agent,
                "edit_status",
                json!({"edit_id": pending["edit_id"]}),
            )
            .await
            .unwrap();
            assert_eq!(
                (status["status"].as_str(), status["comment"].as_str()),
                (Some("rejected"), Some("Too formal for us"))
            );
        }
    }
    assert!(
        !server
            .stored_settled(id)
            .await
            .unwrap()
            .markdown
            .contains("Dear Sir")
    );

    // History: both decisions, newest first; Undo takes the applied block out again.
    let newest = driver
        .screen("history", ".history-entry", "e2e-history.png")
        .await;
    let text = driver.text(&newest).await;
    assert!(
        text.contains("Rejected") && text.contains("Too formal for us"),
        "{text}"
    );
    let entries = driver
        .find_all(r#"[data-panel="history"] .history-entry"#)
        .await;
    assert_eq!(entries.len(), 2);
    let undo = driver
        .wait_for(
            r#"[data-panel="history"] .history-entry .actions button"#,
            SHOWN,
        )
        .await;
    assert_eq!(driver.text(&undo).await, "Undo");
    driver.click(&undo).await;
    let markdown = wait_stored(&server, id, |m| !m.contains("Added by the agent.")).await;
    assert!(markdown.contains("First paragraph."), "{markdown}");

    // Documents: the agent's document is known; another is added by its URL; setting the
    // first one to Automatic lets the next agent edit through without a card.
    let notes = server
        .create_document(
            DocumentSpec::new("Public notes")
                .markdown("Notes.")
                .link("public", "editor"),
        )
        .await
        .unwrap();
    driver
        .screen(
            "documents",
            &format!(r#"tr[data-document-id="{id}"]"#),
            "e2e-documents-known.png",
        )
        .await;
    let url_field = driver.wait_for("#add-document-url", SHOWN).await;
    driver
        .type_text(&url_field, &format!("{}/docs/{notes}/", server.url()))
        .await;
    let add = driver
        .wait_for("form.add-document button[type=submit]", SHOWN)
        .await;
    driver.click(&add).await;
    let added = driver
        .wait_for(
            &format!(r#"tr[data-document-id="{notes}"]"#),
            Duration::from_secs(30),
        )
        .await;
    assert!(driver.text(&added).await.contains("Public notes"));
    let automatic = driver
        .wait_for(
            &format!(r#"tr[data-document-id="{id}"] select.policy option[value="auto"]"#),
            SHOWN,
        )
        .await;
    driver.click(&automatic).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    driver
        .screenshot(&artifacts().join("e2e-documents.png"))
        .await;
    let applied = call_tool(
        &agent,
        "insert_blocks",
        json!({"document": id.to_string(), "position": {"at": "end"},
            "markdown": "Applied at once.", "reason": "policy is automatic"}),
    )
    .await
    .unwrap();
    assert_eq!(applied["status"], "applied", "{applied}");
    assert!(
        server
            .stored_settled(id)
            .await
            .unwrap()
            .markdown
            .contains("Applied at once.")
    );

    // Change by change: the person refuses the middle part of a three-part edit of the
    // other document (still under Review), rewrites the last one and approves.
    let read = call_tool(
        &agent,
        "read_document",
        json!({"document": notes.to_string(), "format": "blocks"}),
    )
    .await
    .unwrap();
    let first_block = read["blocks"][0]["id"].as_str().unwrap().to_owned();
    let mut parts_call = {
        let peer = agent.peer().clone();
        let block = first_block.clone();
        tokio::spawn(async move {
            call_tool(
                &peer,
                "apply_edits",
                json!({"document": notes.to_string(), "reason": "tidy the notes", "edits": [
                    {"op": "insert_blocks", "position": {"at": "end"}, "markdown": "Part one."},
                    {"op": "insert_blocks", "position": {"at": "end"}, "markdown": "Part two."},
                    {"op": "update_block", "block_id": block, "text": "Notes, kept."},
                ]}),
            )
            .await
        })
    };
    // The card, while the agent waits; an agent told something else than "pending" meanwhile
    // says why no card comes.
    let (middle, answered_first) = {
        let card = driver.screen(
            "pending",
            r#".edit-card .parts input[value="1"]"#,
            "e2e-parts.png",
        );
        tokio::pin!(card);
        tokio::select! {
            middle = &mut card => (middle, None),
            answered = &mut parts_call => {
                let answered = answered.unwrap();
                assert!(
                    answered.as_ref().is_ok_and(|a| a["status"] == "pending"),
                    "apply_edits answered before its card was shown: {answered:?}"
                );
                (card.await, Some(answered))
            }
        }
    };
    driver.click(&middle).await;
    let edit_last = driver.wait_for(".edit-card .parts .edit-part", SHOWN).await;
    driver.click(&edit_last).await;
    let text = driver
        .wait_for(".edit-card .parts textarea.part-text", SHOWN)
        .await;
    driver.type_text(&text, " For **later**.").await;
    let approve_parts = driver
        .wait_for(".edit-card button.approve-parts:not([disabled])", SHOWN)
        .await;
    // In the middle of the window: the notice held at its bottom does not cover it.
    driver
        .execute_async(
            "document.querySelector('.edit-card button.approve-parts').scrollIntoView({block: 'center'}); \
             arguments[arguments.length - 1](null);",
            SHOWN,
        )
        .await;
    driver.screenshot(&artifacts().join("e2e-parts.png")).await;
    assert_eq!(driver.text(&approve_parts).await, "Approve checked parts");
    driver.click(&approve_parts).await;
    let markdown = wait_stored(&server, notes, |m| m.contains("Part one.")).await;
    assert_eq!(markdown, "Notes, kept. For **later**.\n\nPart one.\n");
    let answered = match answered_first {
        Some(answered) => answered,
        None => parts_call.await.unwrap(),
    }
    .expect("apply_edits");
    let edit_id = answered["edit_id"].clone();
    let status = call_tool(&agent, "edit_status", json!({"edit_id": edit_id}))
        .await
        .unwrap();
    assert_eq!(
        (
            &status["status"],
            &status["applied_parts"],
            &status["part_texts"]
        ),
        (
            &json!("applied"),
            &json!([0, 2]),
            &json!({"2": "Notes, kept. For **later**."})
        ),
        "{status}"
    );

    // An agent's comment waits on a card like an edit, and is made once approved: the thread
    // in Docs, its mark on the quoted word (read back by BlockNote's parser).
    let comment_call = {
        let peer = agent.peer().clone();
        let block = first_block.clone();
        tokio::spawn(async move {
            call_tool(
                &peer,
                "add_comment",
                json!({"document": notes.to_string(), "block_id": block, "text": "kept",
                    "body": "Kept until **when**?", "reason": "unclear"}),
            )
            .await
        })
    };
    let comment_card = driver
        .screen(
            "pending",
            ".edit-card .comment-preview",
            "e2e-comment-card.png",
        )
        .await;
    assert_eq!(
        driver.text(&comment_card).await.trim_end(),
        "On kept\nKept until when?"
    );
    let approve = driver
        .wait_for(".edit-card .actions button.primary", SHOWN)
        .await;
    driver.click(&approve).await;
    driver
        .wait_for("#main .empty", Duration::from_secs(30))
        .await;
    let commented = comment_call.await.unwrap().expect("add_comment");
    let thread = match commented["status"].as_str() {
        Some("applied") => commented["thread_id"].clone(),
        _ => call_tool(
            &agent,
            "edit_status",
            json!({"edit_id": commented["edit_id"]}),
        )
        .await
        .unwrap()["thread_id"]
            .clone(),
    };
    let marks = server.comment_marks(notes).await.unwrap();
    let live = marks.live.unwrap_or_default();
    assert!(
        live.iter()
            .any(|m| m.thread_id == thread.as_str().unwrap() && m.text == "kept"),
        "{live:?}"
    );

    // A decision asked from a terminal (or an agent's shell) waits for the window: the CLI
    // reads and asks, the window shows who asked, and only the click there approves.
    let asked_call = {
        let peer = agent.peer().clone();
        tokio::spawn(async move {
            call_tool(
                &peer,
                "insert_blocks",
                json!({"document": notes.to_string(), "position": {"at": "end"},
                    "markdown": "Asked from a terminal.", "reason": "asked"}),
            )
            .await
        })
    };
    driver
        .screen("pending", ".edit-card", "e2e-before-cli-request.png")
        .await;
    let listed = app
        .cli(&["edits", "list", "--status", "pending", "--json"])
        .output()
        .await
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let asked_id = listed["edits"][0]["id"].as_str().unwrap().to_owned();
    let mut approving = app
        .cli(&["edits", "approve", &asked_id])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    if approving.try_wait().unwrap().is_some() {
        panic!(
            "the CLI did not wait for the window: {:?}",
            approving.wait_with_output().await.unwrap()
        );
    }
    let request = driver
        .wait_for(".requests-banner .request", Duration::from_secs(30))
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await; // let it paint
    driver
        .screenshot(&artifacts().join("e2e-cli-request.png"))
        .await;
    let text = driver.text(&request).await;
    assert!(
        text.contains("Approve the edit of “Public notes” by E2E agent (insert_blocks)")
            && text.contains("without a terminal"),
        "{text}"
    );
    assert!(
        !server
            .stored_settled(notes)
            .await
            .unwrap()
            .markdown
            .contains("Asked from a terminal."),
        "nothing is applied before the click"
    );
    let grant = driver
        .wait_for(".requests-banner .request button.primary", SHOWN)
        .await;
    assert_eq!(driver.text(&grant).await, "Approve");
    driver.click(&grant).await;
    let approved = tokio::time::timeout(Duration::from_secs(30), approving.wait_with_output())
        .await
        .expect("the CLI ends once the window decided")
        .unwrap();
    let stdout = String::from_utf8_lossy(&approved.stdout);
    assert!(approved.status.success(), "{approved:?}");
    assert!(
        stdout.starts_with(&format!("{asked_id}  applied  E2E agent")),
        "{stdout}"
    );
    wait_stored(&server, notes, |m| m.contains("Asked from a terminal.")).await;
    let _ = asked_call.await;

    // Sessions: the open document with its edits; then the remaining screens.
    let row = driver
        .screen(
            "sessions",
            &format!(r#"tr[data-document-id="{id}"]"#),
            "e2e-sessions.png",
        )
        .await;
    let text = driver.text(&row).await;
    assert!(text.contains("Plan"), "{text}");
    driver
        .screen("agents", "section", "e2e-connect-agents.png")
        .await;
    driver.screen("settings", "form", "e2e-settings.png").await;
    driver.screen("connect", "section", "e2e-connect.png").await;

    let _ = agent.cancel().await;
    app.quit().await;
}

/// The desktop theme the app starts in (the window follows it).
#[derive(Clone, Copy)]
enum Theme {
    Light,
    Dark,
}

/// The markdown the demo server stores for a document.
async fn demo_stored(url: &str, id: &str) -> String {
    let stored: Value = reqwest::get(format!("{url}/__test__/documents/{id}/stored"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    stored["markdown"].as_str().unwrap().to_owned()
}

/// A newcomer without a Docs instance: the first screen offers the demo; its agent's edit
/// waits, is approved, lands in the sample document, and History undoes it.
#[tokio::test(flavor = "multi_thread")]
async fn the_demo_from_the_first_screen_to_an_undone_edit() {
    // In the dark theme: the demo's screenshots show the app's dark look.
    let app = App::launch_on(None, Theme::Dark).await;
    let driver = &app.driver;
    let offer = driver
        .wait_for(
            r#"[data-panel="connect"]:not([hidden]) .demo-offer:not([hidden]) button"#,
            Duration::from_secs(10),
        )
        .await;
    assert_eq!(driver.text(&offer).await, "Try with a demo document");
    tokio::time::sleep(Duration::from_millis(500)).await;
    driver
        .screenshot(&artifacts().join("e2e-first-start.png"))
        .await;
    driver.click(&offer).await;

    // The demo is labelled, its documents listed, each under Review.
    let banner = driver
        .wait_for(".demo-banner:not([hidden])", Duration::from_secs(60))
        .await;
    assert!(
        driver
            .text(&banner)
            .await
            .contains("nothing reaches a real Docs instance")
    );
    let current = driver
        .text(&driver.wait_for(".current-instance", SHOWN).await)
        .await;
    let url = current
        .strip_prefix("Connected to the demo server, ")
        .and_then(|rest| rest.split(": sample").next())
        .unwrap_or_else(|| panic!("{current}"))
        .to_owned();
    driver
        .wait_for(
            r#"[data-panel="documents"]:not([hidden]) tr[data-document-id]"#,
            Duration::from_secs(30),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    driver.screenshot(&artifacts().join("e2e-demo.png")).await;
    let rows = driver
        .find_all(r#"[data-panel="documents"] tr[data-document-id]"#)
        .await;
    assert_eq!(rows.len(), 2);
    let mut welcome = None;
    for row in &rows {
        if driver
            .text(row)
            .await
            .contains("Welcome to the Docs MCP demo")
        {
            welcome = Some(driver.attribute(row, "data-document-id").await);
        }
    }
    let welcome = welcome.expect("the welcome document is listed");

    let propose = driver.wait_for(".demo-banner button", SHOWN).await;
    driver.click(&propose).await;
    let card = driver
        .wait_for(
            r#"[data-panel="pending"]:not([hidden]) .edit-card"#,
            Duration::from_secs(30),
        )
        .await;
    let text = driver.text(&card).await;
    assert!(
        text.contains("Demo agent wants to edit Welcome to the Docs MCP demo"),
        "{text}"
    );
    let dark = driver
        .execute_async(
            "done(window.matchMedia('(prefers-color-scheme: dark)').matches);",
            SHOWN,
        )
        .await;
    assert_eq!(dark, json!(true), "the window follows the dark theme");
    driver.card_at_window_sizes("e2e-demo-card-dark").await;
    assert!(
        !demo_stored(&url, &welcome)
            .await
            .contains("Added by the demo agent")
    );
    let approve = driver.wait_for(".edit-card button.primary", SHOWN).await;
    driver.click(&approve).await;
    driver
        .wait_for("#main .empty", Duration::from_secs(30))
        .await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !demo_stored(&url, &welcome)
        .await
        .contains("Added by the demo agent")
    {
        assert!(
            Instant::now() < deadline,
            "the approved edit was not stored"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    let entry = driver
        .screen("history", ".history-entry", "e2e-demo-history.png")
        .await;
    assert!(driver.text(&entry).await.contains("Demo agent"));
    let undo = driver
        .wait_for(
            r#"[data-panel="history"] .history-entry .actions button"#,
            SHOWN,
        )
        .await;
    assert_eq!(driver.text(&undo).await, "Undo");
    driver.click(&undo).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let markdown = demo_stored(&url, &welcome).await;
        if !markdown.contains("Added by the demo agent") {
            assert!(markdown.contains("# Welcome"), "{markdown}");
            break;
        }
        assert!(Instant::now() < deadline, "not undone: {markdown}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    // Three more proposals, approved together while the server holds its answers back: the
    // group's toolbar counts them and offers Stop until the instance confirms.
    for _ in 0..3 {
        driver.click(&propose).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let approve_all = driver
        .wait_for(
            r#"[data-panel="pending"]:not([hidden]) .group button.secondary"#,
            Duration::from_secs(30),
        )
        .await;
    assert_eq!(driver.text(&approve_all).await, "Approve all (3)");
    let control = |path: &str| {
        let url = format!("{url}/__test__/{path}");
        async move {
            reqwest::Client::new()
                .post(url)
                .json(&json!({}))
                .send()
                .await
                .unwrap()
                .error_for_status()
                .unwrap();
        }
    };
    control("freeze").await;
    driver.click(&approve_all).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = driver
            .text(&driver.wait_for(".group-status", SHOWN).await)
            .await;
        if status == "All 3 approved; waiting for Docs to confirm them…" {
            break;
        }
        assert!(Instant::now() < deadline, "no progress: {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let stop = driver.wait_for(".group button.stop", SHOWN).await;
    assert_eq!(driver.text(&stop).await, "Stop");
    driver
        .screenshot(&artifacts().join("e2e-bulk-approval.png"))
        .await;
    control("unfreeze").await;
    driver
        .wait_for("#main .empty", Duration::from_secs(30))
        .await;
    driver
        .wait_for_text(".notice p", "Applied 3 edits by Demo agent.", SHOWN)
        .await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn signing_in_through_the_window_opens_private_documents_to_agents() {
    let server = DocsServer::start().await.unwrap();
    let ada = server
        .create_user("ada@example.org", "Ada Lovelace")
        .await
        .unwrap();
    let private = server
        .create_document(
            DocumentSpec::new("Ada's plan")
                .markdown("Only for Ada.")
                .link("restricted", "reader")
                .access(&ada.id, "owner"),
        )
        .await
        .unwrap();
    let app = App::launch(&server, true).await;
    let agent = app.agent("E2E reader").await;
    let read = json!({"document": private.to_string(), "anchors": false});

    let before = app
        .driver
        .invoke("overview", Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(
        (
            &before["signed_in"],
            &before["account"],
            &before["session_persisted"]
        ),
        (&json!(false), &Value::Null, &json!(false))
    );
    // Anonymous: Docs answers 401 for a restricted document.
    let refused = call_tool(&agent, "read_document", read.clone())
        .await
        .unwrap_err();
    assert_eq!(refused["code"], "NOT_SIGNED_IN", "{refused}");

    // The next login signs Ada in without the provider's form; the window goes through
    // authenticate → callback → the instance's home by itself.
    server.auto_sign_in("ada@example.org").await.unwrap();
    let overview = app
        .driver
        .invoke("sign_in", Duration::from_secs(60))
        .await
        .unwrap_or_else(|e| panic!("sign_in failed: {e}"));
    assert_eq!(overview["signed_in"], json!(true));
    assert_eq!(
        overview["account"],
        json!({"id": ada.id, "email": "ada@example.org", "full_name": "Ada Lovelace", "short_name": "Ada"})
    );
    // No Secret Service under this test: the session is in the app's memory only.
    assert_eq!(overview["session_persisted"], json!(false));

    // The agent reads the private document through the app.
    let content = call_tool(&agent, "read_document", read.clone())
        .await
        .unwrap_or_else(|e| panic!("read_document as Ada: {e}"));
    assert_eq!(content["markdown"], "Only for Ada.\n");

    // Signed out: private again.
    let overview = app
        .driver
        .invoke("sign_out", Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(
        (&overview["signed_in"], &overview["account"]),
        (&json!(false), &Value::Null)
    );
    let refused = call_tool(&agent, "read_document", read).await.unwrap_err();
    assert_eq!(refused["code"], "NOT_SIGNED_IN", "{refused}");

    // The session was written nowhere under the app's home: not in its data, not in a
    // webview cookie store or cache (the sign-in webview is incognito), not in its log files
    // (~/.local/state/…/logs here), though the app logs tungstenite's handshake at trace.
    assert_eq!(
        files_containing(&app.home, b"docs_sessionid"),
        Vec::<PathBuf>::new()
    );

    let _ = agent.cancel().await;
    app.quit().await;
}

/// Files under `dir` (recursively) whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_containing(&path, needle));
        } else if std::fs::read(&path)
            .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
        {
            found.push(path);
        }
    }
    found
}

/// Another service holds the app's data directory and does not hand it over (`docs-mcp
/// serve`, started by the person): the window says so, naming it, instead of the app
/// vanishing at login.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_data_directory_held_by_another_service_is_explained_in_the_window() {
    let home = new_home();
    let mut config = docs_mcp::ServiceConfig::new(home.join("docs-mcp"));
    config.owner = "docs-mcp serve".into();
    config.credentials = docs_mcp::CredentialStore::MemoryOnly;
    let holder = docs_mcp::DocsService::start(config).await.unwrap();
    let app = App::launch_in(home, None, Theme::Light, ".startup-problem").await;
    let alert = app
        .driver
        .wait_for(".startup-problem [role=alert]", SHOWN)
        .await;
    let text = app.driver.text(&alert).await;
    assert!(
        text.contains(&format!("docs-mcp serve (process {}", std::process::id())),
        "{text}"
    );
    app.driver
        .screenshot(&artifacts().join("e2e-startup-problem.png"))
        .await;
    holder.shutdown().await;
    app.quit().await;
}

/// Started where no display can be opened (a service account, a broken session), the app says
/// so, names what to run instead, and exits with 2, instead of the windowing library's
/// event loop panicking with no word of why. Nothing of the service is started.
#[test]
fn without_a_display_the_app_says_so_and_exits() {
    let home = new_home();
    let output = in_home(&mut Command::new(APP), &home)
        .arg("--minimized")
        .env_remove("WAYLAND_DISPLAY")
        // A display number no X server holds.
        .env("DISPLAY", ":1999")
        .env("DOCS_MCP_LOG_DIR", home.join("logs"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("docs-mcp-app: cannot open a display")
            && stderr.contains("`docs-mcp serve`")
            && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert!(!home.join("docs-mcp").exists(), "the service started");
    let _ = std::fs::remove_dir_all(&home);
}

/// In the tray only (as started at login) the app holds no GL driver: it starts itself again
/// with GTK's GL off (`gl`), which under Xvfb keeps Mesa and its LLVM out (26 MiB of the
/// tray-only app's 100 MiB PSS). A `GDK_GL` already set, even empty, is the person's: kept as
/// it is, and GTK then loads its GL as before.
#[test]
fn in_the_tray_the_app_holds_no_gl_driver_unless_asked() {
    for (given, kept, gl_loaded) in [(None, "disable", false), (Some(""), "", true)] {
        let home = new_home();
        let (_xvfb, display) = start_xvfb();
        let port = free_port();
        let mut command = Command::new(APP);
        in_home(&mut command, &home)
            .arg("--minimized")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("GDK_GL")
            .env("DISPLAY", &display)
            .env("DOCS_MCP_LOG_DIR", home.join("logs"))
            .env("DOCS_MCP_LISTEN", format!("127.0.0.1:{port}"))
            .env("DOCS_MCP_TOKEN", TOKEN)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(given) = given {
            command.env("GDK_GL", given);
        }
        let app = Process(command.spawn().unwrap());
        // The service listens once GTK has started (the tray is built after it).
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the app's endpoint never listened"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let pid = app.0.id();
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        let gdk_gl: Vec<&[u8]> = environ
            .split(|b| *b == 0)
            .filter_map(|var| var.strip_prefix(b"GDK_GL="))
            .collect();
        assert_eq!(gdk_gl, [kept.as_bytes()], "GDK_GL given {given:?}");
        // The GL driver's vendor library (libGLX_mesa, libGLX_nvidia), which GDK's GL loads;
        // libGLX itself comes in with WebKit either way.
        let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
        assert_eq!(
            maps.contains("/libGLX_"),
            gl_loaded,
            "GDK_GL given {given:?}: {}",
            maps.lines()
                .filter(|l| l.contains("GL"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        drop(app);
        let _ = std::fs::remove_dir_all(&home);
    }
}
