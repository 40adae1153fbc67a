//! The control API (`/control/...`) the CLI and the app use: reading edits, sessions,
//! policies and clients; and asking for decisions — approving, rejecting, a policy, unpausing,
//! a client added or revoked — which only ask ([`crate::decisions`]): the person settles them.
//!
//! A decision asked is answered 202 with its request; the asker follows it with `GET
//! /control/requests/{id}?wait=` and, headless, `POST /control/requests/{id}/confirm`. A body
//! naming a decider is refused, not ignored. The caller is identified from the connection
//! (`ConnectInfo` → `crate::peer`).

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::{AppState, error_info_response, error_response};
use crate::decisions::Action;
use crate::error::{ErrorCode, ServiceError};
use crate::record::{EditFilter, EditStatus, Policy};

/// The longest a control request waits for a decision request to be settled.
const MAX_REQUEST_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// A service error as the control API answers it.
pub(super) struct ApiError(ServiceError);

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

pub(super) type ApiResult = Result<Response, ApiError>;

fn invalid(message: impl Into<String>, hint: impl Into<String>) -> ApiError {
    ApiError(ServiceError::invalid(message, hint))
}

fn ok(value: impl serde::Serialize) -> ApiResult {
    Ok(axum::Json(value).into_response())
}

#[derive(Debug, Deserialize)]
pub(super) struct EditsQuery {
    /// One status or several, comma-separated.
    status: Option<String>,
    /// A document id or URL.
    document: Option<String>,
    agent: Option<String>,
    limit: Option<u32>,
}

pub(super) async fn list_edits(
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

pub(super) async fn get_edit(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult {
    ok(state.service.edit(edit_id(&id)?).await?)
}

/// The process of this user that made a request, found from its connection.
pub(super) async fn asker(state: &AppState, peer: SocketAddr) -> crate::peer::Asker {
    let local = state.local;
    tokio::task::spawn_blocking(move || crate::peer::identify(peer, local))
        .await
        .unwrap_or_default()
}

/// A decision asked over the control channel: held for the person, never made here.
pub(super) async fn ask(state: &AppState, peer: SocketAddr, action: Action) -> ApiResult {
    let asker = asker(state, peer).await;
    let asked = state.service.ask(action, asker).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(asked)).into_response())
}

/// Who decides is the service's to say, from where the decision is made: a body naming a
/// decider is refused, not ignored.
const NO_DECIDER: &str = "Send only what the route takes; who decided is recorded by the service (the app's window, your terminal), never taken from the request.";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ApproveBody {
    /// Only these parts of the edit (indexes into its `parts`); the others are refused.
    parts: Option<Vec<usize>>,
}

pub(super) async fn approve_edit(
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
pub(super) struct RejectBody {
    comment: Option<String>,
}

pub(super) async fn reject_edit(
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
pub(super) struct RequestQuery {
    /// Seconds to wait for the request to be settled (at most 30).
    wait: Option<u64>,
}

/// A decision request as it stands (its asker polls it until the person settled it).
pub(super) async fn get_request(
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
pub(super) struct ConfirmBody {
    code: String,
}

/// Headless: the code the service showed in the asker's terminal, typed back from there.
pub(super) async fn confirm_request(
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

pub(super) async fn list_clients(State(state): State<AppState>) -> ApiResult {
    ok(json!({ "clients": state.service.agent_clients().await? }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AddClientBody {
    name: String,
}

/// Asks to add an agent client; once the person settles it, its token is shown to them
/// (in the window, or in the terminal's answer), this once.
pub(super) async fn add_client(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> ApiResult {
    let body: AddClientBody = optional_body(&body, r#"Send {"name": "<client name>"}."#)?;
    ask(&state, peer, Action::AddClient { name: body.name }).await
}

pub(super) async fn revoke_client(
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

pub(super) async fn sessions(State(state): State<AppState>) -> ApiResult {
    ok(json!({ "sessions": state.service.sessions() }))
}

pub(super) async fn policies_json(state: &AppState) -> Result<Value, ApiError> {
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

pub(super) async fn get_policies(State(state): State<AppState>) -> ApiResult {
    ok(policies_json(&state).await?)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PolicyBody {
    /// `null` or absent: the default policy.
    #[serde(default)]
    document_id: Option<String>,
    /// `null`: remove the document's own policy (or the stored default).
    policy: Option<Policy>,
}

pub(super) async fn put_policies(
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
pub(super) struct PauseBody {
    paused: bool,
}

/// Pausing holds agents' edits back: anyone with the control token may pull that brake.
/// Letting them through again is a decision, asked like the others.
pub(super) async fn pause(
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
pub(super) async fn hand_over(State(state): State<AppState>) -> ApiResult {
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
