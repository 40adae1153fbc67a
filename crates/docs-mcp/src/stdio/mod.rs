//! `docs-mcp serve --stdio`: one MCP client on stdin/stdout (Claude Desktop's extension, an
//! editor), served by a service of this process or by the one holding the data directory.
//!
//! One journal, one authority: a data directory has one service. A stdio service runs for
//! one client, the app (or `docs-mcp serve`) for the person, so the stdio service gives the
//! directory up when a lasting one asks (`POST /control/handover`) and relays its client
//! there; when that service goes and nobody holds the directory, it serves the client itself
//! again. The client notices neither: it keeps one session, introduced to each service.
//!
//! Here: serving here or relaying to the holder, handing over, and taking the directory back;
//! `bridge` relays, `front` is the client's side, `local` the client served here.

pub mod bridge;
mod front;
mod local;
mod sse;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

pub(crate) use front::Front;
use local::Served;

use crate::config::ServiceConfig;
use crate::error::ServiceError;
use crate::service::DocsService;
use crate::token::BearerToken;
use bridge::{Bridge, Relayed, relay_from};

/// How long a service that handed over waits for the one that asked to take the directory.
const TAKER_WAIT: Duration = Duration::from_secs(20);
/// How long a service that holds the directory may take to name the endpoint it bound.
const ENDPOINT_WAIT: Duration = Duration::from_secs(5);

/// Serves the client on stdin/stdout until it closes stdin or `quit`.
pub async fn serve_stdio(
    config: ServiceConfig,
    token: BearerToken,
    quit: CancellationToken,
) -> anyhow::Result<()> {
    let mut front = Front::new(tokio::io::stdin(), tokio::io::stdout());
    let served = serve(&mut front, &config, &token, &quit).await;
    front.finish().await;
    served
}

async fn serve(
    front: &mut Front,
    config: &ServiceConfig,
    token: &BearerToken,
    quit: &CancellationToken,
) -> anyhow::Result<()> {
    loop {
        let in_use = match Hosted::start(config, token).await {
            Ok(hosted) => {
                let served = local::serve_here(front, &hosted.service, quit).await;
                hosted.stop().await;
                match served? {
                    Served::Ended => return Ok(()),
                    Served::HandedOver => {
                        if !taker_arrived(config).await {
                            tracing::warn!(
                                "the service that asked for the data directory did not take it: serving this client here again"
                            );
                            continue;
                        }
                    }
                }
                None
            }
            Err(ServiceError::DataDirInUse(holder)) => Some(holder),
            Err(e) => {
                return Err(anyhow::anyhow!("{} ({})", e, e.hint()))
                    .context("starting the service");
            }
        };
        let url = endpoint(config).await;
        if let Some(holder) = in_use {
            tracing::info!("{holder}; relaying this stdio client to {url}");
        }
        // The agents' token goes only to the holder, once it proved it holds the directory.
        let bridge = Bridge::new(
            url.clone(),
            Some(token.clone()),
            front.out(),
            Some(config.data_dir.clone()),
        )?;
        match relay_from(front, bridge, Some(&config.data_dir), quit).await? {
            Relayed::Ended => return Ok(()),
            Relayed::Unreachable => tracing::info!(
                "the service at {url} is gone and the data directory free: serving this client here"
            ),
        }
    }
}

/// The MCP endpoint of the service holding the data directory. A service that just took it
/// names its endpoint once it bound it: waited for, within [`ENDPOINT_WAIT`]. The configured one
/// when it names none by then (its port taken): the bridge asks whatever listens there to
/// prove it holds the directory, which it cannot.
async fn endpoint(config: &ServiceConfig) -> String {
    let deadline = tokio::time::Instant::now() + ENDPOINT_WAIT;
    loop {
        let holder = crate::lock::holder(&config.data_dir);
        if let Some(endpoint) = holder.as_ref().and_then(|h| h.endpoint.clone()) {
            return endpoint;
        }
        if holder.is_none() || tokio::time::Instant::now() >= deadline {
            return format!("http://{}/mcp", config.listen);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether another process took the data directory within [`TAKER_WAIT`].
async fn taker_arrived(config: &ServiceConfig) -> bool {
    let deadline = tokio::time::Instant::now() + TAKER_WAIT;
    loop {
        if crate::lock::holder(&config.data_dir).is_some_and(|h| h.pid != std::process::id()) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// This process's service, and its HTTP endpoint when the port is free.
struct Hosted {
    service: Arc<DocsService>,
    http: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    shutdown: CancellationToken,
}

impl Hosted {
    async fn start(config: &ServiceConfig, token: &BearerToken) -> Result<Hosted, ServiceError> {
        let service = DocsService::start(config.clone()).await?;
        service.announce_in_background();
        let shutdown = CancellationToken::new();
        let http = match tokio::net::TcpListener::bind(config.listen).await {
            Ok(listener) => {
                let (service, token, shutdown) = (service.clone(), token.clone(), shutdown.clone());
                Some(tokio::spawn(async move {
                    crate::http::serve_http(service, token, listener, shutdown).await
                }))
            }
            Err(e) => {
                tracing::warn!(
                    address = %config.listen,
                    error = %e,
                    "the HTTP endpoint is not served (is another Docs MCP service running?); \
                     MCP runs over stdio only and `docs-mcp edits` talks to the other service"
                );
                None
            }
        };
        Ok(Hosted {
            service,
            http,
            shutdown,
        })
    }

    /// Stops the endpoint (freeing the port), then the service (saving, freeing the
    /// directory), in that order: whoever takes the directory next can listen at once.
    async fn stop(self) {
        self.shutdown.cancel();
        if let Some(http) = self.http {
            match tokio::time::timeout(Duration::from_secs(5), http).await {
                Ok(Ok(Err(e))) => {
                    tracing::warn!(error = %e, "the HTTP endpoint stopped with an error")
                }
                Ok(Err(e)) => tracing::warn!(error = %e, "the HTTP endpoint task failed"),
                _ => {}
            }
        }
        tracing::info!("saving pending work and freeing the data directory");
        self.service.shutdown().await;
    }
}
