//! The service, hosted in-process: `DocsService` on the OS data directory, and its HTTP
//! endpoint on the default loopback port. A taken port is logged and reported to the UI;
//! the app keeps working (approvals, sessions) without it.
//!
//! Here: starting and stopping the service and its endpoint (the token is a `SharedToken`:
//! regenerating it takes effect at once); the overview; the instance check (`GET
//! /api/v1.0/config/`) and connection; the session stored for the instance taken up (in the
//! background, at start); settings (the port at the next start, the approval wait and the default
//! policy at once); history, and undo by the user (applied at once); decide all, stoppable
//! (`stop_decisions` cancels the group decisions under way; the edits they have not reached stay
//! pending).
//!
//! The demo, run by the host: `demo`.
//!
//! `bridge_args`: the stdio bridge pointed at this endpoint and data directory
//! (`docs_mcp::bridge_args`), what every configuration that starts a program gives, so that
//! another port, or the demo's, is reached.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use docs_client::{ClientConfig, DocsClient, InstanceUrl};
use docs_mcp::record::{AgentInfo, Channel, EditFilter, EditRecord, EditStatus, GroupDecision};
use docs_mcp::{DocsService, ServiceConfig, ServiceError, SharedToken, TokenStore};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::api::{
    Account, ChangedEdit, CommandResult, Decision, HistoryFilter, InstanceCheck, Overview,
    SessionRow, Settings, instance_check_failed, invalid, session_rows,
};
use crate::demo::DemoServer;
use crate::settings::AppSettings;

mod demo;

/// How decisions made in the app reach the service: the person's click in its window.
pub const DECIDER: Channel = Channel::Window;

/// Who undoes an edit from the app, as the journal and the document's collaborators see it.
const UNDO_AGENT: &str = "Docs MCP (undo)";

/// `docs-mcp-app --demo` listens here, beside an app running for real on the default port.
const DEMO_PORT: u16 = 7659;

pub struct Host {
    pub service: Arc<DocsService>,
    data_dir: PathBuf,
    listen: SocketAddr,
    token_store: TokenStore,
    token: Option<SharedToken>,
    listen_error: Option<String>,
    http: std::sync::Mutex<Option<tokio::task::JoinHandle<anyhow::Result<()>>>>,
    shutdown: CancellationToken,
    /// The demo's server while the demo runs; starts are serialized.
    demo: std::sync::Mutex<Option<DemoServer>>,
    demo_start: tokio::sync::Mutex<()>,
    demo_proposals: std::sync::atomic::AtomicUsize,
    /// Stops the group decisions under way (the person's "Stop"); replaced once used.
    stop_decisions: std::sync::Mutex<CancellationToken>,
    /// This run is `--demo`.
    pub demo_run: bool,
    /// `--demo`'s start is under way (the window says so from its first frame).
    demo_pending: std::sync::atomic::AtomicBool,
}

impl Host {
    /// Starts the service. `DOCS_MCP_DATA_DIR`, `DOCS_INSTANCE_URL`, `DOCS_MCP_LISTEN` and
    /// `DOCS_MCP_SAVE_INTERVAL` override the data directory, the instance, the endpoint
    /// address and the save interval (tests use them).
    /// `demo` (`docs-mcp-app --demo`): a data directory (`demo` under the usual one, emptied
    /// at each start) and port of the demo's own, so the demo neither reaches nor changes what
    /// a real instance's app keeps, and starts clean.
    pub async fn start(demo: bool) -> anyhow::Result<Host> {
        let base = std::env::var_os("DOCS_MCP_DATA_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(docs_mcp::default_data_dir);
        let data_dir = if demo {
            demo::forget_demo(&base)?
        } else {
            base
        };
        std::fs::create_dir_all(&data_dir)?;
        let settings = AppSettings::load(&data_dir);
        let mut config = ServiceConfig::new(data_dir.clone());
        if demo {
            config.listen.set_port(DEMO_PORT);
        }
        if let Some(port) = settings.port {
            config.listen.set_port(port);
        }
        if let Some(secs) = settings.approval_wait_secs {
            config.approval_wait = Duration::from_secs(secs);
        }
        if let Ok(secs) = std::env::var(docs_mcp::SAVE_INTERVAL_ENV) {
            config.save_interval = docs_mcp::parse_save_interval(&secs)
                .map_err(|e| anyhow::anyhow!("{}: {e}", docs_mcp::SAVE_INTERVAL_ENV))?;
        }
        if let Ok(listen) = std::env::var("DOCS_MCP_LISTEN") {
            config.listen = listen
                .parse()
                .map_err(|e| anyhow::anyhow!("DOCS_MCP_LISTEN={listen}: {e}"))?;
        }
        docs_mcp::ensure_loopback(config.listen)?;
        config.owner = "the Docs MCP app".into();
        // Every decision asked over the control channel waits for a click in the window.
        config.person_at = docs_mcp::PersonAt::Window;
        let instance = std::env::var("DOCS_INSTANCE_URL")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .or(settings.instance);
        config.instance = instance.and_then(|url| match InstanceUrl::parse(url.trim()) {
            Ok(url) => Some(url),
            Err(e) => {
                tracing::error!(error = %e, "ignoring the stored instance URL");
                None
            }
        });
        let listen = config.listen;
        // A stdio service (Claude Desktop's extension, started first) hands the directory over.
        let service = DocsService::start_taking_over(config)
            .await
            .map_err(|e| anyhow::anyhow!("starting the service: {e} ({})", e.hint()))?;
        // The session stored by an earlier sign-in, checked in the background: the window
        // does not wait for the instance (the UI hears `account_changed`), tool calls do.
        service.announce_in_background();

        let shutdown = CancellationToken::new();
        let token_store = TokenStore::new(&data_dir);
        let token = match token_store.load_or_create() {
            Ok((token, source)) => {
                tracing::info!("MCP bearer token: in {source}");
                Some(SharedToken::new(token))
            }
            Err(e) => {
                tracing::error!(error = %e, "no bearer token: the MCP endpoint is not served");
                None
            }
        };
        let (http, listen_error) = match &token {
            None => (None, Some("no bearer token could be stored".to_owned())),
            Some(token) => match tokio::net::TcpListener::bind(listen).await {
                Ok(listener) => {
                    let (service, token, shutdown) =
                        (service.clone(), token.clone(), shutdown.clone());
                    let task = tokio::spawn(async move {
                        docs_mcp::serve_http(service, token, listener, shutdown).await
                    });
                    (Some(task), None)
                }
                Err(e) => {
                    let message = format!(
                        "cannot listen on {listen}: {e}. Is another Docs MCP app or `docs-mcp serve` running? \
                         Agents cannot connect to this app until it is stopped and the app restarted."
                    );
                    tracing::error!("{message}");
                    (None, Some(message))
                }
            },
        };
        Ok(Host {
            service,
            data_dir,
            listen,
            token_store,
            token,
            listen_error,
            http: std::sync::Mutex::new(http),
            shutdown,
            demo: std::sync::Mutex::new(None),
            demo_start: tokio::sync::Mutex::new(()),
            demo_proposals: std::sync::atomic::AtomicUsize::new(0),
            stop_decisions: std::sync::Mutex::new(CancellationToken::new()),
            demo_run: demo,
            demo_pending: std::sync::atomic::AtomicBool::new(demo),
        })
    }

    pub async fn overview(&self) -> CommandResult<Overview> {
        let service = &self.service;
        Ok(Overview {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instance: service.client().ok().map(|c| c.instance().to_string()),
            signed_in: service.has_user_session(),
            account: service.account().map(Account::from),
            session_persisted: service.session_persisted(),
            paused: service.is_paused(),
            pending_count: self.pending_count().await,
            endpoint: format!("http://{}/mcp", self.listen),
            listening: self.listen_error.is_none(),
            listen_error: self.listen_error.clone(),
            token: self.token.as_ref().map(|t| t.current().expose().to_owned()),
            app_path: std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "docs-mcp-app".into()),
            bridge_args: self.bridge_args(),
            data_dir: self.data_dir.display().to_string(),
            demo: self.demo_documents().is_some(),
            demo_starting: self.demo_pending.load(std::sync::atomic::Ordering::Relaxed),
            demo_available: crate::demo::server_script().is_some(),
        })
    }

    /// The arguments that make this app's binary a stdio bridge to this service: its endpoint
    /// and data directory named, so that a port of Settings or the demo's are reached (the
    /// bridge reads the token and checks the holder there).
    pub fn bridge_args(&self) -> Vec<String> {
        docs_mcp::bridge_args(&format!("http://{}/mcp", self.listen), &self.data_dir)
    }

    pub async fn pending_count(&self) -> u64 {
        self.service.pending_count().await.unwrap_or(0)
    }

    /// The pending edits the window shows: the oldest [`PENDING_PAGE`], the order they are
    /// reviewed in (the overview counts them all), without the agents' raw arguments (up to
    /// the request's 4 MiB each, and shown nowhere): what crosses to the webview on every
    /// change stays bounded however much an agent proposes.
    pub async fn pending(&self) -> CommandResult<Vec<docs_mcp::record::EditRecord>> {
        let edits = self
            .service
            .edits(&EditFilter {
                status: Some(vec![EditStatus::Pending]),
                limit: Some(PENDING_PAGE),
                oldest_first: true,
                ..EditFilter::default()
            })
            .await?;
        Ok(edits.into_iter().map(without_arguments).collect())
    }

    /// The pending edits among `ids` whose approval would now be a conflict (a block they
    /// depend on changed since they were proposed), with why; those of documents not open
    /// now are not checked.
    pub async fn changed_since_proposed(&self, ids: &[Uuid]) -> CommandResult<Vec<ChangedEdit>> {
        let mut changed = vec![];
        for id in ids {
            match self.service.changed_since_proposed(*id).await {
                Ok(Some(change)) => changed.push(ChangedEdit {
                    id: *id,
                    reason: change.reason,
                    now: change.now,
                }),
                Ok(None) => {}
                // Decided meanwhile: its card goes with the next reload.
                Err(ServiceError::NotPending { .. } | ServiceError::EditNotFound { .. }) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Ok(changed)
    }

    pub async fn sessions(&self) -> CommandResult<Vec<SessionRow>> {
        let sessions = self.service.sessions();
        let documents: Vec<Uuid> = sessions.iter().map(|s| s.document_id).collect();
        Ok(session_rows(
            sessions,
            &self.service.known_documents().await?,
            &self.service.edit_counts().await?,
            &self.service.open_threads(&documents).await,
            &self.service.session_agents(),
        ))
    }

    /// Asks the instance for `GET /api/v1.0/config/`.
    pub async fn check_instance(&self, url: &str) -> CommandResult<InstanceCheck> {
        let url = InstanceUrl::parse(url.trim())?;
        let client = DocsClient::new(ClientConfig::new(url.clone()))?;
        let failed = |e| instance_check_failed(&url.to_string(), e);
        let config = client.instance_config().await.map_err(failed)?;
        let collaboration = client.configured_collaboration().await.map_err(failed)?;
        Ok(InstanceCheck {
            url: url.to_string(),
            release_version: config.release_version,
            collaboration_server: collaboration.map(|c| c.server().as_str().to_owned()),
        })
    }

    /// Checks the instance, connects the service to it and remembers it.
    pub async fn connect_instance(&self, url: &str) -> CommandResult<Overview> {
        let checked = self.check_instance(url).await?;
        let url = InstanceUrl::parse(&checked.url)?;
        self.service.connect_instance(url, None, None)?;
        if let Err(e) = self.service.restore_session().await {
            tracing::warn!(error = %e, "could not check the stored Docs session");
        }
        if let Err(e) = self.update_settings(|s| s.instance = Some(checked.url)) {
            tracing::warn!(error = %e, "could not remember the instance");
        }
        self.overview().await
    }

    fn update_settings(&self, change: impl FnOnce(&mut AppSettings)) -> std::io::Result<()> {
        let mut settings = AppSettings::load(&self.data_dir);
        change(&mut settings);
        settings.save(&self.data_dir)
    }

    /// The settings as they apply now.
    pub async fn settings(&self) -> CommandResult<Settings> {
        Ok(Settings {
            port: AppSettings::load(&self.data_dir)
                .port
                .unwrap_or(docs_mcp::DEFAULT_PORT),
            approval_wait_secs: self.service.approval_wait().as_secs(),
            default_policy: self
                .service
                .policies()
                .await?
                .default
                .unwrap_or(self.service.config().default_policy),
            active_port: self.listen.port(),
        })
    }

    /// Stores the settings and applies what can be at once (all but the port).
    pub async fn save_settings(&self, settings: &Settings) -> CommandResult<()> {
        settings.validate()?;
        self.update_settings(|s| {
            s.port = Some(settings.port).filter(|p| *p != docs_mcp::DEFAULT_PORT);
            s.approval_wait_secs = Some(settings.approval_wait_secs);
        })
        .map_err(|e| {
            invalid(
                format!("cannot save the settings: {e}"),
                format!("Check that {} is writable.", self.data_dir.display()),
            )
        })?;
        self.service
            .set_approval_wait(Duration::from_secs(settings.approval_wait_secs));
        if self.service.policies().await?.default != Some(settings.default_policy) {
            self.service
                .set_policy(None, Some(settings.default_policy))
                .await?;
        }
        Ok(())
    }

    /// Replaces the bearer token where it is stored and in the running endpoint.
    pub async fn regenerate_token(&self) -> CommandResult<Overview> {
        let Some(shared) = &self.token else {
            return Err(invalid(
                "there is no token to regenerate: the endpoint is not served",
                "Restart Docs MCP; the log says why no token could be stored.",
            ));
        };
        let (token, source) = self.token_store.regenerate().map_err(|e| {
            invalid(
                format!("cannot regenerate the token: {e:#}"),
                "Unset DOCS_MCP_TOKEN if it is set, or check the OS keyring.",
            )
        })?;
        tracing::info!("MCP bearer token regenerated, in {source}");
        shared.replace(token);
        self.overview().await
    }

    /// The edits decided from a terminal (by a headless service on this data directory)
    /// since the app last looked, newest first; from now on, those are seen. The first run
    /// looks back a week.
    pub async fn decided_outside_the_window(&self) -> Vec<EditRecord> {
        let now = docs_mcp::record::now_ms();
        let since = AppSettings::load(&self.data_dir)
            .terminal_decisions_seen_until
            .unwrap_or(now - 7 * 24 * 3600 * 1000);
        let decided = self
            .service
            .edits(&EditFilter {
                status: Some(
                    EditStatus::ALL
                        .into_iter()
                        .filter(|s| *s != EditStatus::Pending)
                        .collect(),
                ),
                limit: Some(500),
                ..EditFilter::default()
            })
            .await
            .unwrap_or_default();
        if let Err(e) = self.update_settings(|s| s.terminal_decisions_seen_until = Some(now)) {
            tracing::warn!(error = %e, "cannot remember the decisions announced");
        }
        decided
            .into_iter()
            .filter(|e| {
                e.decided_by == Some(Channel::Terminal) && e.decided_at.is_some_and(|t| t > since)
            })
            .collect()
    }

    /// The journal: decided edits, newest first (without the agents' raw arguments).
    pub async fn history(&self, filter: &HistoryFilter) -> CommandResult<Vec<EditRecord>> {
        let edits = self.service.edits(&filter.to_edit_filter()).await?;
        Ok(edits.into_iter().map(without_arguments).collect())
    }

    /// Undoes an applied edit at once: the user asked for it, so it is decided by them (never
    /// pending, never announced as an agent's edit).
    pub async fn undo(&self, id: Uuid) -> CommandResult<EditRecord> {
        let agent = AgentInfo::new(UNDO_AGENT, "app", UNDO_AGENT);
        let record = self.service.undo(id, None, agent, Some(DECIDER)).await?;
        Ok(self.service.confirmed(record).await?)
    }

    /// Approves an agent's rewrite of a block with the person's own text.
    pub async fn approve_parts(
        &self,
        id: Uuid,
        parts: &[usize],
        texts: &std::collections::BTreeMap<usize, String>,
    ) -> CommandResult<EditRecord> {
        Ok(self
            .service
            .approve_parts(id, DECIDER, parts, texts)
            .await?)
    }

    pub async fn approve_with_text(&self, id: Uuid, text: &str) -> CommandResult<EditRecord> {
        Ok(self.service.approve_with_text(id, DECIDER, text).await?)
    }

    /// Decides the edits the person had on screen (ids); those decided elsewhere meanwhile
    /// are skipped.
    pub async fn decide_all(
        &self,
        decision: Decision,
        ids: &[Uuid],
        comment: Option<String>,
    ) -> CommandResult<GroupDecision> {
        if ids.is_empty() {
            return Err(invalid(
                "no edit to decide",
                "Pick the group's \"Approve all\" / \"Reject all\".",
            ));
        }
        let approve = decision == Decision::Approve;
        let stop = self.stop_decisions.lock().expect("stop lock").clone();
        Ok(self
            .service
            .decide_all(approve, ids, comment, DECIDER, &stop)
            .await?)
    }

    /// Stops the group decisions under way: the edits they have not reached stay pending.
    pub fn stop_decisions(&self) {
        let mut stop = self.stop_decisions.lock().expect("stop lock");
        stop.cancel();
        *stop = CancellationToken::new();
    }

    /// The Docs instance the service is connected to.
    pub fn instance(&self) -> CommandResult<InstanceUrl> {
        Ok(self.service.client()?.instance().clone())
    }

    /// Stops the endpoint and closes the sessions, saving what is pending; returns what it
    /// left unsaved.
    pub async fn shutdown(&self) -> docs_mcp::StopReport {
        self.shutdown.cancel();
        let http = self.http.lock().expect("http lock").take();
        if let Some(http) = http {
            let _ = tokio::time::timeout(Duration::from_secs(3), http).await;
        }
        self.service.shutdown().await
    }
}

/// How many pending edits the window shows at once.
pub const PENDING_PAGE: u32 = 50;

/// A record as the window gets it: the agent's raw arguments stay in the service.
fn without_arguments(mut record: EditRecord) -> EditRecord {
    record.arguments = serde_json::Value::Null;
    record
}
