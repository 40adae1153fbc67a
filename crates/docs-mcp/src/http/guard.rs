//! The one security layer every request passes: only loopback `Host`s of the listening port,
//! no foreign `Origin`, and the bearer token of the route's audience (agents' on `/mcp`, the
//! control token on `/control`, none on `/health`).

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::{AppState, error_response};
use crate::clients::{ActiveClients, AgentClient};
use crate::token::{BearerToken, SharedToken};

/// What the security layer accepts.
pub(super) struct Guard {
    agent_token: SharedToken,
    /// Tokens of the agent clients a person configured (each opens `/mcp` as that client).
    clients: ActiveClients,
    control_token: BearerToken,
    hosts: Vec<String>,
    /// The origins `/mcp` also checks (rmcp's own check, the same list).
    pub(super) origins: Vec<String>,
}

impl Guard {
    pub(super) fn new(
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

pub(super) async fn security(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
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
