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
//!
//! Here: the router and `/health`; `guard` is the security layer, `control` the `/control` routes.
//! `/mcp` is Streamable HTTP; an over-size body there is answered with a JSON-RPC error.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::middleware::{self};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

mod control;
mod guard;

use control::{
    add_client, approve_edit, confirm_request, get_edit, get_policies, get_request, hand_over,
    list_clients, list_edits, pause, put_policies, reject_edit, revoke_client, sessions,
};
use guard::{Guard, security};

use crate::error::ErrorCode;
use crate::mcp::DocsMcp;
use crate::record::ErrorInfo;
use crate::service::DocsService;
use crate::token::SharedToken;

/// Largest MCP message accepted from a client, a request's body here and a line of
/// `serve --stdio` (a write's markdown or text is at most 256 KiB; an `apply_edits` of many
/// operations stays well below this).
pub const MAX_MCP_BODY_BYTES: usize = 4 * 1024 * 1024;

#[derive(Clone)]
struct AppState {
    service: Arc<DocsService>,
    guard: Arc<Guard>,
    /// The address this endpoint listens on: with a caller's address, it finds the caller.
    local: SocketAddr,
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
