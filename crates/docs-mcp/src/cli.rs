//! The `docs-mcp` command line: the headless service, the stdio bridge, and a client of the
//! running service's control API.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use docs_client::{InstanceUrl, Secret};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

use crate::clients::{AgentClient, NewAgentClient};
use crate::config::{DEFAULT_PORT, ServiceConfig, default_data_dir};
use crate::record::{EditRecord, Policy};
use crate::service::DocsService;
use crate::token::{BearerToken, TOKEN_ENV, TokenSource, TokenStore};

/// MCP server that lets AI agents read and edit La Suite Docs documents live.
#[derive(Debug, Parser)]
#[command(
    name = "docs-mcp",
    version,
    about = "MCP server that lets AI agents read and edit La Suite Docs documents live, with human approval."
)]
pub struct Cli {
    /// Data directory (database, and the token file where no keyring works).
    #[arg(long, global = true, env = "DOCS_MCP_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the service: MCP over Streamable HTTP on a loopback address (and over stdio with
    /// --stdio), plus the control API.
    Serve(ServeArgs),
    /// Connect a stdio MCP client to the running service (for clients that only start
    /// stdio servers).
    Bridge(BridgeArgs),
    /// List and decide agents' edits in the running service.
    Edits(EditsArgs),
    /// Show where the bearer token of the HTTP endpoint is stored, or replace it.
    Token(TokenArgs),
    /// Agent clients with a token of their own, named by you (the running service's).
    Clients(ClientsArgs),
}

#[derive(Debug, Args)]
pub struct ClientsArgs {
    /// The running service (its base URL, or its /mcp URL; a loopback address). Default: the
    /// endpoint of the service holding the data directory.
    #[arg(long, global = true, value_name = "URL")]
    pub url: Option<String>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: ClientsCommand,
}

#[derive(Debug, Subcommand)]
pub enum ClientsCommand {
    /// List the configured clients, revoked ones included.
    List,
    /// Add a client: prints its token, this once. Edits it makes show this name.
    Add {
        /// e.g. "Claude Code (laptop)".
        name: String,
    },
    /// Revoke a client: its token stops working at once.
    Revoke {
        /// The client's id (from `docs-mcp clients list`).
        id: String,
    },
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve MCP over stdin/stdout (the HTTP endpoint still runs when its port is free).
    #[arg(long)]
    pub stdio: bool,
    /// The La Suite Docs instance, e.g. https://docs.example.org.
    #[arg(long, env = "DOCS_INSTANCE_URL", value_name = "URL")]
    pub instance: Option<String>,
    /// Policy of documents without their own: auto, review, read-only or comment-only.
    #[arg(
        long,
        env = "DOCS_MCP_APPROVAL",
        default_value = "review",
        value_name = "POLICY"
    )]
    pub approval: Policy,
    /// Loopback address of the HTTP endpoint.
    #[arg(long, default_value_t = SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)), value_name = "ADDR")]
    pub listen: SocketAddr,
    /// Seconds a write tool waits for a decision before answering `pending`.
    #[arg(long, value_name = "SECS")]
    pub approval_wait: Option<u64>,
    /// Seconds an applied edit waits for others to be saved with it (60, like Docs' editor:
    /// each save is a version in the document's history). Until then the journal holds it.
    #[arg(long, env = crate::config::SAVE_INTERVAL_ENV, value_name = "SECS", value_parser = crate::config::parse_save_interval)]
    pub save_interval: Option<Duration>,
    /// `docs_sessionid` cookie of a signed-in user.
    #[arg(long, env = "DOCS_SESSION_COOKIE", hide_env_values = true, hide = true)]
    pub session_cookie: Option<String>,
    /// `csrftoken` cookie of that user.
    #[arg(long, env = "DOCS_CSRF_TOKEN", hide_env_values = true, hide = true)]
    pub csrf_token: Option<String>,
}

#[derive(Debug, Args)]
pub struct BridgeArgs {
    /// MCP endpoint of the running service (a loopback address). Default: the endpoint of the
    /// service holding the data directory.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
}

#[derive(Debug, Args)]
pub struct EditsArgs {
    /// The running service (its base URL, or its /mcp URL; a loopback address). Default: the
    /// endpoint of the service holding the data directory.
    #[arg(long, global = true, value_name = "URL")]
    pub url: Option<String>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: EditsCommand,
}

#[derive(Debug, Subcommand)]
pub enum EditsCommand {
    /// List edits, newest first.
    List {
        /// pending, applying, applied, rejected, conflict, failed or undone (comma-separated
        /// for several).
        #[arg(long)]
        status: Option<String>,
        /// A document id or URL.
        #[arg(long)]
        document: Option<String>,
        /// At most this many.
        #[arg(long)]
        limit: Option<u32>,
    },
    /// Approve a pending edit: it is applied to the live document.
    Approve {
        /// The edit's id (from `docs-mcp edits list`).
        id: String,
        /// Only these parts (0-based, comma-separated, as `docs-mcp edits list --json` lists
        /// the edit's `parts`); the others are refused.
        #[arg(long, value_delimiter = ',')]
        parts: Option<Vec<usize>>,
    },
    /// Reject a pending edit; the agent gets the comment.
    Reject {
        /// The edit's id (from `docs-mcp edits list`).
        id: String,
        /// Why; the agent reads it.
        #[arg(long)]
        comment: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct TokenArgs {
    /// Replace the token (a running service keeps the old one until restarted).
    #[arg(long)]
    pub regenerate: bool,
    /// Print the token itself.
    #[arg(long)]
    pub show: bool,
}

/// The MCP endpoint a bridge relays to: `--url` (loopback only), else the endpoint of the
/// service holding the data directory, else the default one.
fn bridge_url(url: Option<String>, data_dir: &std::path::Path) -> anyhow::Result<String> {
    match url {
        Some(url) => Ok(format!("{}/mcp", crate::holder::loopback_base(&url)?)),
        None => Ok(crate::lock::holder(data_dir)
            .and_then(|h| h.endpoint)
            .unwrap_or_else(|| format!("http://127.0.0.1:{DEFAULT_PORT}/mcp"))),
    }
}

/// Parses the command line and runs it.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("docs-mcp: cannot start the runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("docs-mcp: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr only: stdout is the MCP channel in stdio mode.
fn init_logging() {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let _ = guarded_registry(log_filter())
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())),
        )
        .try_init();
}

/// What to log: `RUST_LOG`, else `info`.
pub fn log_filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}

/// Where every log of this project starts (the CLI's, the app's): `filter`, then
/// [`secret_guard`], so no writer added on top can receive a session cookie.
pub fn guarded_registry(
    filter: EnvFilter,
) -> impl tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span> {
    use tracing_subscriber::layer::SubscriberExt as _;
    tracing_subscriber::registry()
        .with(filter)
        .with(secret_guard())
}

/// Keeps out of every log, whatever `RUST_LOG` says (per-target directives included), what
/// the two libraries that print cookie values log at those levels: cookie_store below info,
/// tungstenite (its handshake request) below debug. A session cookie never reaches a log.
fn secret_guard() -> tracing_subscriber::filter::FilterFn {
    tracing_subscriber::filter::filter_fn(|meta| {
        let target = meta.target();
        let top = target.split("::").next().unwrap_or(target);
        match top {
            "cookie_store" => *meta.level() <= tracing::Level::INFO,
            "tungstenite" | "tokio_tungstenite" => *meta.level() <= tracing::Level::DEBUG,
            _ => true,
        }
    })
}

pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let data_dir = cli.data_dir.clone().unwrap_or_else(default_data_dir);
    match cli.command {
        Command::Serve(args) => serve(args, data_dir).await,
        Command::Bridge(args) => {
            let token = TokenStore::new(&data_dir).load()?.map(|(token, _)| token);
            if token.is_none() {
                eprintln!(
                    "docs-mcp bridge: no bearer token found (set {TOKEN_ENV}, or start the service once so it creates one)"
                );
            }
            let url = bridge_url(args.url, &data_dir)?;
            crate::bridge::run_bridge(url, token, Some(data_dir)).await
        }
        Command::Edits(args) => edits(args, data_dir).await,
        Command::Clients(args) => clients(args, data_dir).await,
        Command::Token(args) => token(args, data_dir),
    }
}

async fn serve(args: ServeArgs, data_dir: PathBuf) -> anyhow::Result<()> {
    crate::http::ensure_loopback(args.listen)?;
    let mut config = ServiceConfig::new(data_dir.clone());
    config.instance = args
        .instance
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(|s| InstanceUrl::parse(s.trim()))
        .transpose()
        .context("invalid --instance")?;
    config.session_cookie = args
        .session_cookie
        .filter(|s| !s.is_empty())
        .map(Secret::new);
    config.csrf_token = args.csrf_token.filter(|s| !s.is_empty()).map(Secret::new);
    config.default_policy = args.approval;
    config.listen = args.listen;
    if let Some(interval) = args.save_interval {
        config.save_interval = interval;
    }
    if let Some(secs) = args.approval_wait {
        config.approval_wait = Duration::from_secs(secs);
    }
    config.owner = if args.stdio {
        "docs-mcp serve --stdio".into()
    } else {
        "docs-mcp serve".into()
    };
    // A stdio service runs for one client: it gives the directory up to a lasting one.
    config.hands_over = args.stdio;
    crate::lock::private_dir(&data_dir)
        .with_context(|| format!("creating the data directory {}", data_dir.display()))?;
    let (token, source) = TokenStore::new(&data_dir).load_or_create()?;
    tracing::info!("MCP bearer token: in {source}");
    if args.stdio {
        let quit = CancellationToken::new();
        let signal = {
            let quit = quit.clone();
            tokio::spawn(async move {
                shutdown_signal().await;
                quit.cancel();
            })
        };
        let served = crate::stdio::serve_stdio(config, token, quit).await;
        signal.abort();
        return served;
    }
    let service = DocsService::start_taking_over(config)
        .await
        .map_err(|e| anyhow::anyhow!("{} ({})", e, e.hint()))
        .context("starting the service")?;
    announce(&service).await;

    let shutdown = CancellationToken::new();
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("listening on {}", args.listen))?;
    tracing::info!(
        "agents send `Authorization: Bearer <token>`; `docs-mcp token --show` prints it"
    );
    let mut http = {
        let service = service.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(
            async move { crate::http::serve_http(service, token, listener, shutdown).await },
        )
    };
    let result = tokio::select! {
        () = shutdown_signal() => Ok(()),
        ended = &mut http => match ended {
            Ok(result) => result,
            Err(e) => Err(anyhow::anyhow!("the HTTP endpoint task failed: {e}")),
        },
    };
    shutdown.cancel();
    if !http.is_finished() {
        match tokio::time::timeout(Duration::from_secs(5), http).await {
            Ok(Ok(Err(e))) => tracing::warn!(error = %e, "the HTTP endpoint stopped with an error"),
            Ok(Err(e)) => tracing::warn!(error = %e, "the HTTP endpoint task failed"),
            _ => {}
        }
    }
    tracing::info!("shutting down: saving pending work");
    service.shutdown().await;
    result
}

/// Checks the stored Docs session and says what the service runs with.
pub(crate) async fn announce(service: &DocsService) {
    // Without DOCS_SESSION_COOKIE, the session the app stored in the keyring is used.
    if let Err(e) = service.restore_session().await {
        tracing::warn!(error = %e, "could not check the Docs session");
    }
    match &service.config().instance {
        Some(instance) => tracing::info!(
            "Docs instance: {instance} ({})",
            if service.has_user_session() {
                "signed in"
            } else {
                "anonymous: public documents only"
            }
        ),
        None => {
            tracing::warn!("no Docs instance configured: pass --instance or set DOCS_INSTANCE_URL")
        }
    }
    let policy = service.config().default_policy;
    tracing::info!(
        "agent edits: {} by default{}",
        policy.as_str(),
        if policy == crate::record::Policy::Review {
            " — review them with `docs-mcp edits list` / `docs-mcp edits approve ID`"
        } else {
            ""
        }
    );
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = async {
                match term.as_mut() {
                    Some(term) => { term.recv().await; }
                    None => std::future::pending::<()>().await,
                }
            } => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn token(args: TokenArgs, data_dir: PathBuf) -> anyhow::Result<()> {
    let store = TokenStore::new(&data_dir);
    let (token, source) = if args.regenerate {
        let found = store.regenerate()?;
        println!("A new token was stored in {}.", found.1);
        println!("Restart the service (or the app) and update the MCP clients that use it.");
        found
    } else {
        match store.load()? {
            Some(found) => {
                println!("The token is in {}.", found.1);
                found
            }
            None => {
                println!(
                    "No token yet: `docs-mcp serve` creates one in the OS keyring (or in {} where no keyring works).",
                    store.file_path().display()
                );
                return Ok(());
            }
        }
    };
    if args.show {
        println!("{}", token.expose());
    } else if source != TokenSource::Env {
        println!("Use --show to print it.");
    }
    Ok(())
}

/// A client of the control API, with the control token the running service published in
/// the data directory (the agents' token is refused there).
struct Control {
    base: String,
    token: Option<BearerToken>,
    http: reqwest::Client,
}

impl Control {
    /// The control channel of the service holding `data_dir` — at `url` when given (a
    /// loopback address of that service) — once it proved it holds the directory: the control
    /// token goes to nothing else.
    async fn connect(url: Option<&str>, data_dir: &std::path::Path) -> anyhow::Result<Self> {
        let verified = crate::holder::verified(data_dir, url).await?;
        Ok(Control {
            base: verified.base,
            token: crate::authority::read(data_dir),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()?,
        })
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> anyhow::Result<Value> {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.expose());
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.map_err(|e| {
            if e.is_connect() {
                anyhow::anyhow!(
                    "the Docs MCP service is not running at {}: start the Docs MCP app or `docs-mcp serve`",
                    self.base
                )
            } else {
                anyhow::anyhow!("calling {}: {e}", self.base)
            }
        })?;
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        // Records as deep as the journal holds (`crate::json`), not only serde_json's 128 levels.
        let parsed = crate::json::from_str::<Value>(&text);
        if status.is_success() {
            return match parsed {
                Ok(body) => Ok(body),
                Err(_) if text.trim().is_empty() => Ok(Value::Null),
                Err(e) => Err(anyhow::anyhow!(
                    "the Docs MCP service at {} answered unreadable JSON: {e}",
                    self.base
                )),
            };
        }
        let body = parsed.unwrap_or(Value::Null);
        let error = body.get("error");
        // The service's words may quote an agent's: printed, never obeyed by the terminal.
        let field = |k: &str| {
            visible(
                error
                    .and_then(|e| e.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            )
        };
        let mut text = format!("HTTP {}", status.as_u16());
        if !field("code").is_empty() {
            text = format!("{text} {}: {}", field("code"), field("message"));
        }
        if !field("hint").is_empty() {
            text = format!("{text}\nhint: {}", field("hint"));
        }
        if status == reqwest::StatusCode::UNAUTHORIZED {
            text = format!(
                "{text}\nthe running service's control token was not found or is stale: pass the service's --data-dir"
            );
        }
        anyhow::bail!(text)
    }
}

impl Control {
    /// Asks the running service for a decision and waits for the person to settle it: a
    /// click in the app's window, or — headless — the code the service shows in this
    /// terminal, typed back here. Returns the outcome (`{"kind", "value"}`); an error when
    /// it ended without a decision (declined, expired, failed).
    async fn decide(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Value,
    ) -> anyhow::Result<Value> {
        let asked = self.call(method, path, Some(body)).await?;
        let request = asked.get("request").cloned().unwrap_or_default();
        let id = request
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow::anyhow!("the service answered without a request: {asked}"))?
            .to_owned();
        let summary = visible(request.get("summary").and_then(Value::as_str).unwrap_or(""));
        if asked.get("settle_in").and_then(Value::as_str) == Some("terminal") {
            return self.confirm_here(&id, &summary, asked.get("code")).await;
        }
        eprintln!(
            "Asked Docs MCP: {summary}.\nConfirm it in the Docs MCP window; waiting (Ctrl-C stops waiting, the request stays in the window)."
        );
        let settled = loop {
            let request = self
                .call(
                    reqwest::Method::GET,
                    &format!("/control/requests/{}?wait=25", encode(&id)),
                    None,
                )
                .await?;
            match request.get("state").and_then(Value::as_str) {
                Some("waiting" | "carrying_out") => continue,
                _ => break request,
            }
        };
        match settled.get("state").and_then(Value::as_str) {
            Some("done") => {}
            Some("failed") => {
                let error = settled.get("error").cloned().unwrap_or_default();
                let field = |k: &str| visible(error.get(k).and_then(Value::as_str).unwrap_or(""));
                anyhow::bail!(
                    "{}: {}\nhint: {}",
                    field("code"),
                    field("message"),
                    field("hint")
                );
            }
            Some("declined") => anyhow::bail!("declined in the Docs MCP window: nothing was done"),
            _ => {
                let why = settled.get("why").and_then(Value::as_str).unwrap_or("");
                anyhow::bail!(
                    "the request ended without a decision ({}): nothing was done",
                    visible(why)
                );
            }
        }
        // The edit as it stands now, for an edit's decision; else what was done.
        let edit = request
            .get("action")
            .and_then(|a| a.get("edit_id"))
            .and_then(Value::as_str);
        Ok(match edit {
            Some(edit) => json!({
                "kind": "edit",
                "value": self.call(reqwest::Method::GET, &format!("/control/edits/{}", encode(edit)), None).await?,
            }),
            None => {
                json!({ "kind": "done", "value": settled.get("outcome").cloned().unwrap_or_default() })
            }
        })
    }

    /// Headless: the service showed a code in this terminal (or, where it cannot, sent it
    /// here): the person types it back.
    async fn confirm_here(
        &self,
        id: &str,
        summary: &str,
        code: Option<&Value>,
    ) -> anyhow::Result<Value> {
        use std::io::IsTerminal as _;
        if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
            anyhow::bail!(
                "a decision needs you at a terminal: run this command yourself, in a terminal (not through a pipe or an agent's shell)"
            );
        }
        match code.and_then(Value::as_str) {
            Some(code) => println!("Docs MCP: {summary}.\nTo confirm, type this code: {code}"),
            None => println!("(Docs MCP wrote the code to this terminal, above.)"),
        }
        print!("Code: ");
        std::io::Write::flush(&mut std::io::stdout())?;
        let typed = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|_| line)
        })
        .await??;
        let confirmed = self
            .call(
                reqwest::Method::POST,
                &format!("/control/requests/{}/confirm", encode(id)),
                Some(json!({ "code": typed.trim() })),
            )
            .await?;
        Ok(confirmed.get("outcome").cloned().unwrap_or_default())
    }
}

async fn clients(args: ClientsArgs, data_dir: PathBuf) -> anyhow::Result<()> {
    let control = Control::connect(args.url.as_deref(), &data_dir).await?;
    let line = |c: &AgentClient| match c.revoked_at {
        Some(_) => format!("{}  {}  (revoked)", c.id, visible(&c.name)),
        None => format!("{}  {}", c.id, visible(&c.name)),
    };
    let (method, path, body) = match &args.command {
        ClientsCommand::List => {
            let body = control
                .call(reqwest::Method::GET, "/control/clients", None)
                .await?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&body)?);
                return Ok(());
            }
            let clients: Vec<AgentClient> =
                serde_json::from_value(body.get("clients").cloned().unwrap_or(json!([])))?;
            if clients.is_empty() {
                println!("No clients: agents use the shared token (`docs-mcp token`).");
            }
            for client in &clients {
                println!("{}", line(client));
            }
            return Ok(());
        }
        ClientsCommand::Add { name } => (
            reqwest::Method::POST,
            "/control/clients".to_owned(),
            json!({ "name": name }),
        ),
        ClientsCommand::Revoke { id } => (
            reqwest::Method::POST,
            format!("/control/clients/{}/revoke", encode(id.trim())),
            json!({}),
        ),
    };
    let outcome = control.decide(method, &path, body).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcome)?);
        return Ok(());
    }
    match outcome.get("kind").and_then(Value::as_str) {
        Some("client_added") => {
            let added: NewAgentClient =
                serde_json::from_value(outcome.get("value").cloned().unwrap_or_default())?;
            println!("{}", line(&added.client));
            println!("Token (shown this once; give it to that client as its bearer token):");
            println!("{}", added.token);
        }
        Some("client_revoked") => {
            let revoked: AgentClient =
                serde_json::from_value(outcome.get("value").cloned().unwrap_or_default())?;
            println!("{}", line(&revoked));
        }
        // Settled in the window, which showed the new client's token to the person.
        _ => println!(
            "{}",
            visible(
                outcome
                    .get("value")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            )
        ),
    }
    Ok(())
}

async fn edits(args: EditsArgs, data_dir: PathBuf) -> anyhow::Result<()> {
    let control = Control::connect(args.url.as_deref(), &data_dir).await?;
    match args.command {
        EditsCommand::List {
            status,
            document,
            limit,
        } => {
            let mut query = Vec::new();
            if let Some(s) = status {
                query.push(format!("status={}", encode(&s)));
            }
            if let Some(d) = document {
                query.push(format!("document={}", encode(&d)));
            }
            if let Some(l) = limit {
                query.push(format!("limit={l}"));
            }
            let path = if query.is_empty() {
                "/control/edits".to_owned()
            } else {
                format!("/control/edits?{}", query.join("&"))
            };
            let body = control.call(reqwest::Method::GET, &path, None).await?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&body)?);
                return Ok(());
            }
            let edits: Vec<EditRecord> =
                serde_json::from_value(body.get("edits").cloned().unwrap_or(json!([])))?;
            if edits.is_empty() {
                println!("No edits.");
            }
            for edit in &edits {
                println!("{}", edit_line(edit));
            }
        }
        EditsCommand::Approve { id, parts } => {
            let request = match parts {
                Some(parts) => json!({ "parts": parts }),
                None => json!({}),
            };
            let path = format!("/control/edits/{}/approve", encode(id.trim()));
            let outcome = control
                .decide(reqwest::Method::POST, &path, request)
                .await?;
            print_decision(&outcome, args.json)?;
        }
        EditsCommand::Reject { id, comment } => {
            let path = format!("/control/edits/{}/reject", encode(id.trim()));
            let request = json!({ "comment": comment });
            let outcome = control
                .decide(reqwest::Method::POST, &path, request)
                .await?;
            print_decision(&outcome, args.json)?;
        }
    }
    Ok(())
}

/// Prints the outcome of a decision on an edit (`{"kind": "edit", "value": <record>}`).
fn print_decision(outcome: &Value, as_json: bool) -> anyhow::Result<()> {
    if as_json {
        println!("{}", serde_json::to_string_pretty(outcome)?);
        return Ok(());
    }
    let edit: EditRecord =
        serde_json::from_value(outcome.get("value").cloned().unwrap_or_default())?;
    println!("{}", edit_line(&edit));
    if let Some(error) = &edit.error
        && edit.status != crate::record::EditStatus::Rejected
    {
        println!(
            "  {}: {} ({})",
            error.code,
            visible(&error.message),
            visible(&error.hint)
        );
    }
    Ok(())
}

/// One line per edit: id, status, agent, document, tool, reason.
pub fn edit_line(edit: &EditRecord) -> String {
    let title = edit
        .document_title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| edit.document_id.to_string());
    let mut line = format!(
        "{}  {:<8} {}  \"{}\"  {}",
        edit.id,
        edit.status.as_str(),
        visible(&edit.agent.name),
        visible(&title),
        visible(&edit.tool)
    );
    if let Some(reason) = edit.reason.as_deref().filter(|r| !r.trim().is_empty()) {
        line.push_str(&format!("  — {}", visible(reason)));
    }
    if let Some(proposed) = &edit.proposed_comment {
        if let Some(quoted) = &proposed.quoted_text {
            line.push_str(&format!("  on \"{}\"", visible(quoted)));
        }
        if let Some(body) = &proposed.body {
            line.push_str(&format!(": {}", visible(&body.replace('\n', " "))));
        }
    }
    if !edit.preview.links.is_empty() {
        // Quoted: a URL's control characters are shown escaped, never sent to the terminal.
        let links: Vec<String> = edit
            .preview
            .links
            .iter()
            .map(|link| match &link.host {
                Some(host) => format!("{:?} ({host})", link.url),
                None => format!("{:?}", link.url),
            })
            .collect();
        line.push_str(&format!("  adds links: {}", links.join(", ")));
    }
    if let Some(comment) = edit.comment.as_deref() {
        line.push_str(&format!("  [comment: {}]", visible(comment)));
    }
    line
}

/// `text` with every control character (escape sequences that would clear the screen, move
/// the cursor or rewrite what the person reads), bidirectional override and zero-width
/// character made visible as `\u{..}`: what an agent wrote is printed, never obeyed by the
/// terminal.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let hidden = c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{061C}');
        if hidden {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Percent-encodes a query or path value.
fn encode(value: &str) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// Log output kept in memory.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn cookies_stay_out_of_logs_even_at_trace() {
        let captured = Captured::default();
        let writer = captured.clone();
        use tracing_subscriber::layer::SubscriberExt as _;
        // Per-target directives more precise than any cap would lift it: the guard holds.
        let subscriber = guarded_registry(EnvFilter::new(
            "trace,cookie_store=trace,cookie_store::cookie_store=trace,tungstenite::handshake::client=trace",
        ))
        .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(move || writer.clone())
                    .with_ansi(false)
                    .without_time(),
            );
        tracing::subscriber::with_default(subscriber, || {
            tracing::debug!(target: "cookie_store::cookie_store", "inserting Set-Cookie 'docs_sessionid=secret'");
            tracing::trace!(target: "cookie_store", "docs_sessionid=secret");
            tracing::trace!(target: "tungstenite::handshake::client", "Request: \"Cookie: docs_sessionid=secret\"");
            tracing::debug!(target: "tungstenite::handshake::client", "Client handshake done.");
            tracing::trace!(target: "docs_client::session", "synced");
        });
        let output = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            output,
            "DEBUG tungstenite::handshake::client: Client handshake done.\nTRACE docs_client::session: synced\n"
        );
    }

    /// `docs-mcp edits list` shows every link target and media URL an edit adds, in full.
    #[test]
    fn an_edit_line_shows_the_links_it_adds() {
        let fixture = include_str!("../../../ui/test/fixtures/edit-record.json");
        let mut edit: EditRecord = serde_json::from_str(fixture).unwrap();
        let link = |url: &str, host: Option<&str>| crate::record::PreviewLink {
            block_id: "b1".into(),
            kind: crate::record::LinkKind::Link,
            url: url.into(),
            host: host.map(str::to_owned),
            text: "here".into(),
        };
        edit.preview.links = vec![
            link("https://evil.example/\u{1b}[2Jx", Some("evil.example")),
            link("/docs/a/", None),
        ];
        assert!(
            edit_line(&edit).ends_with(
                "  adds links: \"https://evil.example/\\u{1b}[2Jx\" (evil.example), \"/docs/a/\""
            ),
            "{}",
            edit_line(&edit)
        );
    }

    /// `docs-mcp edits list` shows what a proposed comment says and the text it is about.
    #[test]
    fn an_edit_line_shows_a_proposed_comment() {
        let fixture = include_str!("../../../ui/test/fixtures/edit-record.json");
        let mut edit: EditRecord = serde_json::from_str(fixture).unwrap();
        edit.tool = "add_comment".into();
        edit.reason = None;
        edit.proposed_comment = Some(crate::record::ProposedComment {
            action: crate::record::CommentAction::Add,
            thread_id: None,
            block_id: Some("b1".into()),
            quoted_text: Some("ship on Monday".into()),
            body: Some("Still right?\nAsk Ada.".into()),
            body_blocks: None,
            anchored: None,
        });
        let line = edit_line(&edit);
        assert!(
            line.ends_with("  add_comment  on \"ship on Monday\": Still right? Ask Ada."),
            "{line}"
        );
    }
}
