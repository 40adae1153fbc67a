//! The `docs-mcp` command line: the headless service (`serve`), the stdio bridge, and a
//! client of the running service's control API (`control`: `edits`, `clients`).
//!
//! Here: the arguments, `docs-mcp token` (where the agents' token is stored, or a new one), and
//! logging, every log starting with the secret guard (`guarded_registry`).

mod control;
mod serve;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use tracing_subscriber::EnvFilter;

use crate::config::{DEFAULT_PORT, default_data_dir};
use crate::record::Policy;
use crate::token::{TOKEN_ENV, TokenSource, TokenStore};

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
/// The arguments that run the stdio bridge to the service at `url` holding `data_dir` (what
/// a client configuration that starts a program gives it): declared here, beside the
/// arguments' definitions, so that what is written into clients' files is what parses.
pub fn bridge_args(url: &str, data_dir: &std::path::Path) -> Vec<String> {
    vec![
        "bridge".into(),
        "--url".into(),
        url.into(),
        "--data-dir".into(),
        data_dir.display().to_string(),
    ]
}

/// The runtime's threads for blocking work: decoding documents, typed reads, plans, SQLite,
/// and `--stdio`'s stdin (held for as long as it reads) and stdout. Enough that a document
/// being decoded, one read ahead in the background and SQLite leave a thread to write an
/// answer to stdout (with three, the answers of a whole read waited for a read ahead); few, as
/// each thread that allocates keeps a cache of what it freed (jemalloc's).
const BLOCKING_THREADS: usize = 6;

/// The runtime the service runs on, in the CLI and in the app alike.
pub fn service_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(BLOCKING_THREADS)
        .enable_all()
        .build()
}

pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    init_logging();
    let runtime = match service_runtime() {
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
        Command::Serve(args) => serve::serve(args, data_dir).await,
        Command::Bridge(args) => {
            let token = TokenStore::new(&data_dir).load()?.map(|(token, _)| token);
            if token.is_none() {
                eprintln!(
                    "docs-mcp bridge: no bearer token found (set {TOKEN_ENV}, or start the service once so it creates one)"
                );
            }
            let url = bridge_url(args.url, &data_dir)?;
            crate::stdio::bridge::run_bridge(url, token, Some(data_dir)).await
        }
        Command::Edits(args) => control::edits(args, data_dir).await,
        Command::Clients(args) => control::clients(args, data_dir).await,
        Command::Token(args) => token(args, data_dir),
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

    /// What the app writes into clients' configurations parses as the bridge to that endpoint
    /// and data directory, spaces and all.
    #[test]
    fn bridge_arguments_parse_as_the_bridge_to_their_service() {
        let dir = std::path::Path::new("/home/ada/.local/share/Docs MCP/demo");
        let args = bridge_args("http://127.0.0.1:7659/mcp", dir);
        let cli =
            Cli::try_parse_from(std::iter::once("docs-mcp-app".to_owned()).chain(args)).unwrap();
        assert_eq!(cli.data_dir.as_deref(), Some(dir));
        match cli.command {
            Command::Bridge(bridge) => {
                assert_eq!(bridge.url.as_deref(), Some("http://127.0.0.1:7659/mcp"))
            }
            other => panic!("{other:?}"),
        }
    }
}
