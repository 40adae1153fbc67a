//! The local HTTP endpoint: MCP over Streamable HTTP at `/mcp`, `GET /health`, and the
//! control API (`/control/...`) the CLI and the desktop app use to decide edits.
//!
//! Everything passes one security layer: only loopback `Host`s of the listening port, no
//! foreign `Origin` (DNS rebinding and browser pages), and a bearer token on everything
//! but `/health`. Two tokens, two audiences: `/mcp` takes the agents' token only, `/control`
//! the control token only (see [`crate::authority`]). And no token decides: on `/control`,
//! approving, rejecting, changing a policy, unpausing and adding or revoking a client only
//! ask ([`crate::decisions`]); the person settles the request in the app's window or,
//! headless, by typing back in their terminal the code the service shows there. The caller
//! is identified by the service from the connection ([`crate::peer`]), never from the body.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::clients::{ActiveClients, AgentClient};
use crate::decisions::Action;
use crate::error::{ErrorCode, ServiceError};
use crate::mcp::DocsMcp;
use crate::record::ErrorInfo;
use crate::record::{EditFilter, EditStatus, Policy};
use crate::service::DocsService;
use crate::token::{BearerToken, SharedToken};

/// Largest MCP request body accepted (a write's markdown or text is at most 256 KiB; an
/// `apply_edits` of many operations stays well below this).
pub const MAX_MCP_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The longest a control request waits for a decision request to be settled.
const MAX_REQUEST_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

#[derive(Clone)]
struct AppState {
    service: Arc<DocsService>,
    guard: Arc<Guard>,
    /// The address this endpoint listens on: with a caller's address, it finds the caller.
    local: SocketAddr,
}

/// What the security layer accepts.
struct Guard {
    agent_token: SharedToken,
    /// Tokens of the agent clients a person configured (each opens `/mcp` as that client).
    clients: ActiveClients,
    control_token: BearerToken,
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl Guard {
    fn new(
        agent_token: SharedToken,
        clients: ActiveClients,
        control_token: BearerToken,
        port: u16,
        extra_origins: &[String],
    ) -> Self {
        let authorities = [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        let mut origins: Vec<String> = authorities.iter().map(|a| format!("http://{a}")).collect();
        origins.extend(
            extra_origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase()),
        );
        Guard {
            agent_token,
            clients,
            control_token,
            hosts: authorities.to_vec(),
            origins,
        }
    }

    /// `Ok(Some(client))` when a configured client's token opened `/mcp`.
    fn check(&self, request: &Request) -> Result<Option<AgentClient>, Box<Response>> {
        let headers = request.headers();
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(|h| h.trim().to_ascii_lowercase());
        if !host.as_ref().is_some_and(|h| self.hosts.contains(h)) {
            return Err(Box::new(error_response(
                StatusCode::FORBIDDEN,
                "FORBIDDEN_HOST",
                format!(
                    "Host {} is not accepted",
                    host.as_deref().unwrap_or("(missing)")
                ),
                "This endpoint only answers requests addressed to 127.0.0.1, localhost or [::1] on its own port.",
            )));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin
                .to_str()
                .unwrap_or("")
                .trim()
                .trim_end_matches('/')
                .to_ascii_lowercase();
            if !self.origins.contains(&origin) {
                return Err(Box::new(error_response(
                    StatusCode::FORBIDDEN,
                    "FORBIDDEN_ORIGIN",
                    format!("Origin {origin} is not allowed"),
                    "Web pages may not call the local Docs MCP service; use an MCP client, the CLI or the app.",
                )));
            }
        }
        if request.method() == axum::http::Method::GET && request.uri().path() == "/health" {
            return Ok(None);
        }
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| {
                let (scheme, rest) = h.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
            });
        let path = request.uri().path();
        let control = path == "/control" || path.starts_with("/control/");
        // A named client's token is looked up (a hash) only when no other token matched.
        let refused = match presented {
            Some(token) if control => {
                if self.control_token.matches(token) {
                    return Ok(None);
                }
                self.agent_token.matches(token) || self.clients.find(token).is_some()
            }
            Some(token) => {
                if self.agent_token.matches(token) {
                    return Ok(None);
                }
                if let Some(client) = self.clients.find(token) {
                    return Ok(Some(client));
                }
                false
            }
            None => false,
        };
        if refused {
            return Err(Box::new(error_response(
                StatusCode::FORBIDDEN,
                "AGENT_TOKEN_REFUSED",
                "agents' tokens cannot decide edits, change policies or pause agents",
                "Only a person decides: use the Docs MCP app, or `docs-mcp edits` in your own terminal.",
            )));
        }
        let mut response = error_response(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            if presented.is_some() {
                "the bearer token is wrong"
            } else {
                "a bearer token is required"
            },
            "Send `Authorization: Bearer <token>`; `docs-mcp token` shows where the token is stored.",
        );
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        Err(Box::new(response))
    }
}

async fn security(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    match state.guard.check(&request) {
        Ok(client) => {
            // The MCP handler reads it from the request's parts (`DocsMcp::agent`).
            if let Some(client) = client {
                request.extensions_mut().insert(client);
            }
            next.run(request).await
        }
        Err(response) => {
            tracing::debug!(
                method = %request.method(),
                path = %request.uri().path(),
                status = %response.status(),
                "refused an HTTP request"
            );
            *response
        }
    }
}

/// Serves the endpoint on `listener` until `shutdown` is cancelled. The listener must be
/// bound to a loopback address.
pub async fn serve_http(
    service: Arc<DocsService>,
    token: impl Into<SharedToken>,
    listener: tokio::net::TcpListener,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let local = listener.local_addr()?;
    ensure_loopback(local)?;
    service.listening_at(local);
    let router = router(service, token.into(), local, shutdown.child_token());
    tracing::info!(address = %local, "MCP endpoint listening on http://{local}/mcp");
    // Answers are small and written as they come: no Nagle delay behind a delayed ACK.
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set on an MCP connection");
        }
    });
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown.cancelled_owned())
    .await?;
    Ok(())
}

/// Refuses anything but a loopback address: the endpoint is for this machine only.
pub fn ensure_loopback(address: SocketAddr) -> anyhow::Result<()> {
    if !address.ip().is_loopback() {
        anyhow::bail!(
            "refusing to listen on {address}: the Docs MCP endpoint only listens on a loopback address (127.0.0.1 or [::1])"
        );
    }
    Ok(())
}

fn router(
    service: Arc<DocsService>,
    token: SharedToken,
    local: SocketAddr,
    mcp_shutdown: CancellationToken,
) -> Router {
    let port = local.port();
    let guard = Arc::new(Guard::new(
        token,
        service.active_clients(),
        service.control_token().clone(),
        port,
        &service.config().allowed_origins,
    ));
    let mcp_service = {
        let service = service.clone();
        // rmcp checks Origin too, against the same list as the guard (which runs first): a
        // second lock on the same door, should a route ever reach it another way.
        StreamableHttpService::new(
            move || Ok(DocsMcp::new(service.clone(), "http")),
            LocalSessionManager::default().into(),
            StreamableHttpServerConfig::default()
                .with_cancellation_token(mcp_shutdown)
                .with_max_request_body_bytes(MAX_MCP_BODY_BYTES)
                .with_allowed_origins(guard.origins.clone())
                .enforce_origin_validation(),
        )
    };
    let state = AppState {
        service,
        guard,
        local,
    };
    Router::new()
        .route("/health", get(health))
        .route("/control/edits", get(list_edits))
        .route("/control/edits/{id}", get(get_edit))
        .route("/control/edits/{id}/approve", post(approve_edit))
        .route("/control/edits/{id}/reject", post(reject_edit))
        .route("/control/sessions", get(sessions))
        .route("/control/policies", get(get_policies).put(put_policies))
        .route("/control/pause", post(pause))
        .route("/control/handover", post(hand_over))
        .route("/control/clients", get(list_clients).post(add_client))
        .route("/control/clients/{id}/revoke", post(revoke_client))
        .route("/control/requests/{id}", get(get_request))
        .route("/control/requests/{id}/confirm", post(confirm_request))
        .route_service(
            "/mcp",
            tower::ServiceBuilder::new()
                .map_response(too_large_as_json_rpc)
                .service(mcp_service),
        )
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), security))
        .with_state(state)
}

fn error_response(
    status: StatusCode,
    code: &str,
    message: impl Into<String>,
    hint: impl Into<String>,
) -> Response {
    error_info_response(
        status,
        ErrorInfo {
            code: code.to_owned(),
            message: message.into(),
            hint: hint.into(),
        },
    )
}

fn error_info_response(status: StatusCode, info: ErrorInfo) -> Response {
    (status, axum::Json(json!({ "error": info }))).into_response()
}

/// A service error as the control API answers it.
struct ApiError(ServiceError);

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        ApiError(error)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ServiceError::Ask(ask) = &self.0 {
            use crate::decisions::AskError as A;
            let status = match ask {
                A::TooMany => StatusCode::TOO_MANY_REQUESTS,
                A::UnknownRequest { .. } => StatusCode::NOT_FOUND,
                A::Settled { .. } => StatusCode::CONFLICT,
                A::TerminalRequired { .. }
                | A::WrongCode
                | A::TerminalUnreachable { .. }
                | A::NotTheAsker => StatusCode::FORBIDDEN,
            };
            return error_response(status, ask.code(), ask.to_string(), ask.hint());
        }
        let status = match (&self.0, self.0.code()) {
            (ServiceError::EditNotFound { .. }, _) => StatusCode::NOT_FOUND,
            (_, ErrorCode::DocNotFound | ErrorCode::BlockNotFound) => StatusCode::NOT_FOUND,
            (_, ErrorCode::DocForbidden) => StatusCode::FORBIDDEN,
            (_, ErrorCode::RateLimited) => StatusCode::TOO_MANY_REQUESTS,
            (_, ErrorCode::InstanceUnreachable) => StatusCode::BAD_GATEWAY,
            (_, ErrorCode::Internal) => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        error_info_response(status, self.0.info())
    }
}

type ApiResult = Result<Response, ApiError>;

fn invalid(message: impl Into<String>, hint: impl Into<String>) -> ApiError {
    ApiError(ServiceError::invalid(message, hint))
}

fn ok(value: impl serde::Serialize) -> ApiResult {
    Ok(axum::Json(value).into_response())
}

/// An over-size MCP request is answered with a JSON-RPC error an agent can read (code, what
/// the limit is, what to do), not a bare 413.
fn too_large_as_json_rpc<B>(response: axum::http::Response<B>) -> Response
where
    B: axum::body::HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    if response.status() != StatusCode::PAYLOAD_TOO_LARGE {
        return response.map(axum::body::Body::new);
    }
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32600,
            "message": format!("the request is larger than {} MiB, the most this server accepts", MAX_MCP_BODY_BYTES / (1024 * 1024)),
            "data": {
                "code": ErrorCode::InvalidInput.as_str(),
                "hint": "Send less at once: split the content into several edits (each markdown or text input takes at most 256 KiB).",
            },
        },
    });
    (StatusCode::PAYLOAD_TOO_LARGE, axum::Json(body)).into_response()
}

async fn not_found() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "no such route",
        "Routes: /mcp, /health, /control/edits, /control/sessions, /control/policies, /control/pause.",
    )
}

#[derive(Debug, Deserialize)]
struct HealthQuery {
    /// A nonce: the answer carries the proof that this service holds its data directory.
    proof: Option<String>,
}

async fn health(State(state): State<AppState>, Query(query): Query<HealthQuery>) -> Response {
    let mut health = serde_json::to_value(state.service.health().await).unwrap_or_default();
    if let Some(nonce) = query.proof.filter(|n| !n.is_empty() && n.len() <= 256) {
        health["proof"] = Value::String(state.service.proof(&nonce));
    }
    axum::Json(health).into_response()
}

#[derive(Debug, Deserialize)]
struct EditsQuery {
    /// One status or several, comma-separated.
    status: Option<String>,
    /// A document id or URL.
    document: Option<String>,
    agent: Option<String>,
    limit: Option<u32>,
}

async fn list_edits(
    State(state): State<AppState>,
    query: Result<Query<EditsQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult {
    let Query(query) =
        query.map_err(|e| invalid(e.body_text(), "Use ?status=pending&document=<id>&limit=N."))?;
    let status = match query.status.as_deref().filter(|s| !s.trim().is_empty()) {
        None => None,
        Some(list) => Some(
            list.split(',')
                .map(|s| s.trim().parse::<EditStatus>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| {
                    invalid(
                        e,
                        "Statuses are pending, applying, applied, rejected, conflict, failed, undone.",
                    )
                })?,
        ),
    };
    let document_id = match query.document.as_deref().filter(|s| !s.trim().is_empty()) {
        None => None,
        Some(doc) => Some(state.service.resolve(doc.trim())?),
    };
    let filter = EditFilter {
        status,
        document_id,
        agent: query.agent.filter(|a| !a.trim().is_empty()),
        limit: query.limit,
        oldest_first: false,
    };
    let edits = state.service.edits(&filter).await?;
    ok(json!({ "edits": edits }))
}

fn edit_id(raw: &str) -> Result<Uuid, ApiError> {
    raw.trim().parse().map_err(|_| {
        invalid(
            format!("{raw:?} is not an edit id"),
            "Use an edit id from GET /control/edits.",
        )
    })
}

/// A JSON body that may be empty.
fn optional_body<T: for<'de> Deserialize<'de> + Default>(
    body: &Bytes,
    hint: &str,
) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|e| invalid(format!("invalid JSON body: {e}"), hint))
}

async fn get_edit(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult {
    ok(state.service.edit(edit_id(&id)?).await?)
}

/// The process of this user that made a request, found from its connection.
async fn asker(state: &AppState, peer: SocketAddr) -> crate::peer::Asker {
    let local = state.local;
    tokio::task::spawn_blocking(move || crate::peer::identify(peer, local))
        .await
        .unwrap_or_default()
}

/// A decision asked over the control channel: held for the person, never made here.
async fn ask(state: &AppState, peer: SocketAddr, action: Action) -> ApiResult {
    let asker = asker(state, peer).await;
    let asked = state.service.ask(action, asker).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(asked)).into_response())
}

/// Who decides is the service's to say, from where the decision is made: a body naming a
/// decider is refused, not ignored.
const NO_DECIDER: &str = "Send only what the route takes; who decided is recorded by the service (the app's window, your terminal), never taken from the request.";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproveBody {
    /// Only these parts of the edit (indexes into its `parts`); the others are refused.
    parts: Option<Vec<usize>>,
}

async fn approve_edit(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
    let edit_id = edit_id(&id)?;
    let body: ApproveBody = optional_body(&body, NO_DECIDER)?;
    ask(
        &state,
        peer,
        Action::Approve {
            edit_id,
            parts: body.parts,
        },
    )
    .await
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RejectBody {
    comment: Option<String>,
}

async fn reject_edit(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
    let edit_id = edit_id(&id)?;
    let body: RejectBody = optional_body(&body, NO_DECIDER)?;
    let comment = body.comment.filter(|c| !c.trim().is_empty());
    if comment
        .as_ref()
        .is_some_and(|c| c.len() > MAX_REJECT_COMMENT_BYTES)
    {
        return Err(invalid(
            format!("the comment is longer than {MAX_REJECT_COMMENT_BYTES} bytes"),
            "Say it in fewer words: the agent reads it.",
        ));
    }
    ask(&state, peer, Action::Reject { edit_id, comment }).await
}

/// The longest comment a rejection carries back to the agent.
const MAX_REJECT_COMMENT_BYTES: usize = 4096;

#[derive(Debug, Deserialize)]
struct RequestQuery {
    /// Seconds to wait for the request to be settled (at most 30).
    wait: Option<u64>,
}

/// A decision request as it stands (its asker polls it until the person settled it).
async fn get_request(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<RequestQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult {
    let Query(query) = query.map_err(|e| invalid(e.body_text(), "Use ?wait=SECONDS."))?;
    let id = request_id(&id)?;
    let wait = std::time::Duration::from_secs(query.wait.unwrap_or(0)).min(MAX_REQUEST_WAIT);
    ok(state.service.decision_request(id, wait).await?)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfirmBody {
    code: String,
}

/// Headless: the code the service showed in the asker's terminal, typed back from there.
async fn confirm_request(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
    let id = request_id(&id)?;
    let body: ConfirmBody = serde_json::from_slice(&body).map_err(|e| {
        invalid(
            format!("invalid JSON body: {e}"),
            r#"Send {"code": "<the code your terminal shows>"}."#,
        )
    })?;
    let asker = asker(&state, peer).await;
    let (request, outcome) = state
        .service
        .confirm_in_terminal(id, &body.code, asker)
        .await?;
    ok(json!({ "request": request, "outcome": outcome }))
}

fn request_id(raw: &str) -> Result<Uuid, ApiError> {
    raw.trim().parse().map_err(|_| {
        invalid(
            format!("{raw:?} is not a request id"),
            "Use the id of the request the decision route answered with.",
        )
    })
}

async fn list_clients(State(state): State<AppState>) -> ApiResult {
    ok(json!({ "clients": state.service.agent_clients().await? }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AddClientBody {
    name: String,
}

/// Asks to add an agent client; once the person settles it, its token is shown to them
/// (in the window, or in the terminal's answer), this once.
async fn add_client(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> ApiResult {
    let body: AddClientBody = optional_body(&body, r#"Send {"name": "<client name>"}."#)?;
    ask(&state, peer, Action::AddClient { name: body.name }).await
}

async fn revoke_client(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
) -> ApiResult {
    let client_id = id.trim().parse().map_err(|_| {
        invalid(
            format!("{id:?} is not a client id"),
            "Use a client id from GET /control/clients.",
        )
    })?;
    ask(&state, peer, Action::RevokeClient { client_id }).await
}

async fn sessions(State(state): State<AppState>) -> ApiResult {
    ok(json!({ "sessions": state.service.sessions() }))
}

async fn policies_json(state: &AppState) -> Result<Value, ApiError> {
    let stored = state.service.policies().await?;
    Ok(json!({
        "default": stored.default,
        "paused": state.service.is_paused(),
        "documents": stored
            .documents
            .iter()
            .map(|(id, policy)| json!({ "document_id": id, "policy": policy }))
            .collect::<Vec<_>>(),
    }))
}

async fn get_policies(State(state): State<AppState>) -> ApiResult {
    ok(policies_json(&state).await?)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyBody {
    /// `null` or absent: the default policy.
    #[serde(default)]
    document_id: Option<String>,
    /// `null`: remove the document's own policy (or the stored default).
    policy: Option<Policy>,
}

async fn put_policies(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> ApiResult {
    let body: PolicyBody = serde_json::from_slice(&body).map_err(|e| {
        invalid(
            format!("invalid JSON body: {e}"),
            r#"Send {"document_id": "<id>" or null, "policy": "auto" | "review" | "read-only" | "comment-only" | null}."#,
        )
    })?;
    let document = match body.document_id.as_deref().filter(|d| !d.trim().is_empty()) {
        None => None,
        Some(doc) => Some(state.service.resolve(doc.trim())?),
    };
    ask(
        &state,
        peer,
        Action::SetPolicy {
            document_id: document,
            policy: body.policy,
        },
    )
    .await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PauseBody {
    paused: bool,
}

/// Pausing holds agents' edits back: anyone with the control token may pull that brake.
/// Letting them through again is a decision, asked like the others.
async fn pause(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> ApiResult {
    let body: PauseBody = serde_json::from_slice(&body).map_err(|e| {
        invalid(
            format!("invalid JSON body: {e}"),
            r#"Send {"paused": true} or {"paused": false}."#,
        )
    })?;
    if !body.paused {
        return ask(&state, peer, Action::Unpause).await;
    }
    state.service.set_paused(true).await?;
    ok(json!({ "paused": state.service.is_paused() }))
}

/// A lasting service (the app) asks this stdio service for the data directory.
async fn hand_over(State(state): State<AppState>) -> ApiResult {
    if state.service.hand_over() {
        Ok((
            StatusCode::ACCEPTED,
            axum::Json(json!({ "handing_over": true })),
        )
            .into_response())
    } else {
        Err(invalid(
            "this service does not hand its data directory over",
            "Only `docs-mcp serve --stdio` hands over; stop this service to start another on its data directory.",
        ))
    }
}
