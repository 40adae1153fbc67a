//! Docs MCP, the desktop app: a tray app hosting the docs-mcp service in-process, with a
//! window to connect an instance, approve agents' edits, watch sessions and connect agents.
//! `docs-mcp-app bridge` is the `docs-mcp bridge` stdio bridge, so Claude Desktop can start
//! the app's own binary; `docs-mcp-app edits|clients|token` are the CLI's, so the app's
//! package holds them too.
//!
//! This crate only wires: the service lives in `docs-mcp`, the Docs client in `docs-client`.
//!
//! Here: the arguments (`--minimized`; `--demo`: a data directory and port of its own, no single
//! instance; `--help`), GTK's GL off (`gl`), the plugins (single-instance, autostart off Linux,
//! notification, opener), logging (stderr, and a daily file in the OS's log directory —
//! `~/.local/state/lasuite-docs-mcp/logs`, `~/Library/Logs/lasuite-docs-mcp`,
//! `%LOCALAPPDATA%\lasuite-docs-mcp\logs` — a week of them kept), the service's runtime, the
//! main window's close (it goes, its web view with it, the app staying in the tray, which builds
//! it again: most of the app's memory is the web view's; it quits when the service did not
//! start, the window then saying why: `StartupProblem`), the `bridge` dispatch, and the
//! forwarding of service events.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod api;
mod autostart;
mod claude_desktop;
#[cfg(test)]
mod command_map;
mod commands;
mod demo;
mod documents;
#[cfg(target_os = "linux")]
mod gl;
#[cfg(target_os = "linux")]
mod gtk_log;
mod host;
mod notify;
mod settings;
mod signin;
mod tray;

use std::sync::Arc;

use tauri::{Emitter, Manager, RunEvent, WindowEvent};
use tokio::sync::broadcast::error::RecvError;

use crate::api::SERVICE_EVENT;
use crate::autostart::MINIMIZED_ARG;
use crate::host::Host;

/// jemalloc on Linux, as in `docs-mcp`: the service hosted here decodes and reads documents
/// on several threads (options in `.cargo/config.toml`). GTK and WebKit allocate with the C
/// library's malloc as before.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Starts the demo: a local Docs-like server with sample documents.
const DEMO_ARG: &str = "--demo";

const USAGE: &str =
    "Docs MCP: lets AI agents read and edit your La Suite Docs documents, with your approval.

Usage: docs-mcp-app [--minimized] [--demo]
       docs-mcp-app bridge [...]    the stdio bridge, for MCP clients that only speak stdio
                                    (docs-mcp-app bridge --help)
       docs-mcp-app edits [...]     list agents' edits; ask to approve or reject one (the
                                    window shows the request: your click there decides)
       docs-mcp-app clients [...]   agent clients with tokens of their own
       docs-mcp-app token [...]     where the agents' bearer token is

  --minimized  start in the tray, without the window (what launch at login does)
  --demo       try it without a Docs instance: a local Docs-like server with sample
               documents and a demo agent (from a checkout: scripts/run.sh --demo)
  -h, --help   print this help
";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some("bridge" | "edits" | "clients" | "token") = args.first().map(String::as_str) {
        return docs_mcp::cli_main();
    }
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{USAGE}");
        return std::process::ExitCode::SUCCESS;
    }
    if let Some(unknown) = args.iter().find(|a| *a != MINIMIZED_ARG && *a != DEMO_ARG) {
        eprintln!("docs-mcp-app: unknown argument {unknown:?}\n\n{USAGE}");
        return std::process::ExitCode::from(2);
    }
    #[cfg(target_os = "linux")]
    let restart_failed = gl::start_without_gtk_gl();
    let _log_guard = init_logging();
    #[cfg(target_os = "linux")]
    if let Some(error) = restart_failed {
        tracing::warn!(%error, "could not start again without GTK's GL: it stays on");
    }
    #[cfg(target_os = "linux")]
    gtk_log::route();
    // Without a display, the windowing library's event loop panics with no word of why.
    #[cfg(target_os = "linux")]
    if let Err(error) = gtk::init() {
        tracing::error!(%error, "Docs MCP cannot open a display");
        eprintln!(
            "docs-mcp-app: cannot open a display ({error}): the app needs a desktop session \
             (DISPLAY or WAYLAND_DISPLAY). Without one, run the service alone: `docs-mcp serve`."
        );
        return std::process::ExitCode::from(2);
    }
    // The service's own runtime (its cap on blocking threads), not Tauri's default one.
    let runtime = match docs_mcp::service_runtime() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("docs-mcp-app: cannot start the runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    tauri::async_runtime::set(runtime.handle().clone());
    let ran = run();
    // A blocking task still running (a read of the keyring) does not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    match ran {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("Docs MCP stopped: {e:#}");
            eprintln!("docs-mcp-app: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Logs to stderr and to a daily file in the OS's log directory (`DOCS_MCP_LOG_DIR`
/// overrides it), keeping a week. The guard flushes the file when the app ends.
fn init_logging() -> Option<tracing_appender::non_blocking::WorkerGuard> {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    let filter = docs_mcp::log_filter();
    let dir = std::env::var_os("DOCS_MCP_LOG_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(docs_mcp::default_log_dir);
    // Made first (a fresh account has none): the appender's clean-up of old files would
    // print "Error reading the log directory" on a first run otherwise.
    let _ = docs_mcp::private_dir(&dir);
    let file = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("docs-mcp-app")
        .filename_suffix("log")
        .max_log_files(7)
        .build(&dir);
    let (file_layer, guard) = match file {
        Ok(appender) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            let layer = tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(writer);
            (Some(layer), Some(guard))
        }
        Err(e) => {
            eprintln!("docs-mcp-app: no log file in {}: {e}", dir.display());
            (None, None)
        }
    };
    // The guarded registry keeps cookie-printing libraries out of both logs.
    let _ = docs_mcp::guarded_registry(filter)
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(file_layer)
        .try_init();
    guard
}

fn run() -> anyhow::Result<()> {
    let demo = std::env::args().any(|a| a == DEMO_ARG);
    let mut builder = tauri::Builder::default();
    // The single-instance plugin goes on without a session bus, but panics on a set-but-empty
    // DBUS_SESSION_BUS_ADDRESS (seen in containers); there, several instances may run. The
    // demo runs beside the app a person uses for real.
    if demo {
        tracing::info!("demo: a data directory and port of its own");
    } else if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none_or(|a| !a.is_empty()) {
        builder = builder.plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| {
            tray::show_window(app, None);
        }));
    } else {
        tracing::warn!("DBUS_SESSION_BUS_ADDRESS is empty: a second launch will not find this one");
    }
    #[cfg(not(target_os = "linux"))]
    {
        builder = builder.plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            Some(vec![MINIMIZED_ARG]),
        ));
    }
    let app = builder
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_opener::init())
        .invoke_handler(tauri::generate_handler![
            commands::overview,
            commands::check_instance,
            commands::connect_instance,
            commands::list_pending,
            commands::pending_count,
            commands::approve_edit,
            commands::reject_edit,
            commands::list_decision_requests,
            commands::grant_decision_request,
            commands::decline_decision_request,
            commands::list_sessions,
            commands::set_paused,
            commands::list_documents,
            commands::add_document,
            commands::set_policy,
            commands::open_in_browser,
            commands::disconnect_session,
            commands::decide_all,
            commands::stop_decisions,
            commands::changed_since_proposed,
            commands::approve_with_text,
            commands::text_preview,
            commands::approve_parts,
            commands::start_demo,
            commands::demo_propose_edit,
            commands::launch_at_login,
            commands::set_launch_at_login,
            commands::list_history,
            commands::undo_edit,
            commands::get_settings,
            commands::save_settings,
            commands::regenerate_token,
            commands::add_to_claude_desktop,
            commands::list_agent_clients,
            commands::add_agent_client,
            commands::revoke_agent_client,
            commands::sign_in,
            commands::sign_out,
            commands::startup_problem,
            commands::asked_screen,
        ])
        .manage(api::AskedScreen::default())
        .manage(signin::SignIn::default())
        .manage(notify::Bursts::default())
        .manage(tray::AnnouncedRequests::default())
        .setup(move |app| {
            let host = match tauri::async_runtime::block_on(Host::start(demo)) {
                Ok(host) => Arc::new(host),
                // Said in the window (closing it quits), not by a silent exit at login.
                Err(e) => {
                    tracing::error!("the service did not start: {e:#}");
                    app.manage(api::StartupProblem(Some(format!("{e:#}"))));
                    tray::show_window(app.handle(), None);
                    return Ok(());
                }
            };
            app.manage(api::StartupProblem(None));
            app.manage(host.clone());
            match tray::build(app.handle(), &host) {
                Ok(tray) => {
                    app.manage(tray);
                }
                Err(e) => tracing::error!(error = %e, "no tray icon; the window stays the way in"),
            }
            forward_events(app.handle().clone(), &host);
            {
                let (app, host) = (app.handle().clone(), host.clone());
                tauri::async_runtime::spawn(async move {
                    tray::announce_decisions_made_elsewhere(&app, &host).await;
                });
            }
            if !std::env::args().any(|a| a == MINIMIZED_ARG) {
                tray::show_window(app.handle(), None);
            }
            if demo {
                start_demo(app.handle().clone(), host);
            }
            Ok(())
        })
        .on_window_event(|window, event| {
            // Closing the main window keeps the app in the tray, the window and its web view
            // gone (their memory with them: most of the app's); the tray builds it again.
            if let WindowEvent::CloseRequested { .. } = event
                && window.label() == tray::MAIN_WINDOW
            {
                let failed = window
                    .try_state::<api::StartupProblem>()
                    .is_some_and(|problem| problem.0.is_some());
                if failed {
                    window.app_handle().exit(1);
                }
            }
        })
        .build(tauri::generate_context!())?;
    app.run(|_app, event| {
        if let RunEvent::ExitRequested { api, code, .. } = event
            && code.is_none()
        {
            api.prevent_exit();
        }
    });
    Ok(())
}

/// Forwards every service event to the UI as one event stream, and to the tray.
fn forward_events(app: tauri::AppHandle, host: &Host) {
    let mut events = host.service.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => {
                    let _ = app.emit(SERVICE_EVENT, &event);
                    tray::on_event(&app, &event).await;
                }
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "service events were dropped; the UI resyncs");
                    let _ = app.emit(SERVICE_EVENT, serde_json::json!({ "type": "resync" }));
                    if let Some(tray) = app.try_state::<tray::Tray>() {
                        tray.refresh(&app.state::<Arc<Host>>()).await;
                    }
                }
                Err(RecvError::Closed) => break,
            }
        }
    });
}

/// `--demo`: starts the demo, then has the window show it (or why it did not start).
fn start_demo(app: tauri::AppHandle, host: Arc<Host>) {
    tauri::async_runtime::spawn(async move {
        let started = host.start_demo().await;
        host.demo_start_ended();
        match started {
            Ok(_) => {
                let _ = app.emit(SERVICE_EVENT, serde_json::json!({ "type": "resync" }));
                let _ = app.emit(api::NAVIGATE_EVENT, "documents");
            }
            Err(e) => {
                tracing::error!(error = ?e, "the demo did not start");
                let _ = app.emit(api::NAVIGATE_EVENT, "connect");
            }
        }
    });
}
