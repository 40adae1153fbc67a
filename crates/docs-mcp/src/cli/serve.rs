//! `docs-mcp serve`: the headless service on a loopback address (and over stdio), until a
//! signal stops it.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use docs_client::{InstanceUrl, Secret};
use tokio_util::sync::CancellationToken;

use super::ServeArgs;
use crate::config::ServiceConfig;
use crate::service::DocsService;
use crate::token::TokenStore;

pub(super) async fn serve(args: ServeArgs, data_dir: PathBuf) -> anyhow::Result<()> {
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
    service.announce_in_background();

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

/// Ctrl-C or SIGTERM; on Windows, Ctrl-C, Ctrl-Break or the console window closed (Windows
/// ends the process about 5 s after that last one: what is not saved by then waits in the
/// journal for the next start). Logoff and shutdown reach only Windows services, and end this.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = when_installed(term.as_mut().map(|s| s.recv())) => {}
        }
    }
    #[cfg(windows)]
    {
        use tokio::signal::windows::{ctrl_break, ctrl_close};
        // A handler that could not be installed never fires.
        let mut ctrl_break = ctrl_break().ok();
        let mut ctrl_close = ctrl_close().ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = when_installed(ctrl_break.as_mut().map(|s| s.recv())) => {}
            () = when_installed(ctrl_close.as_mut().map(|s| s.recv())) => {}
        }
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Waits for a signal whose handler was installed; for ever when it could not be (`None`).
#[cfg(any(unix, windows))]
async fn when_installed(signal: Option<impl std::future::Future>) {
    match signal {
        Some(signal) => {
            signal.await;
        }
        None => std::future::pending().await,
    }
}
