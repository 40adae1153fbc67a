//! The tray icon and its menu: Open, Pending edits (count), Pause agents, Launch at login,
//! Quit. The icon shows a dot while edits wait; new pending edits raise a notification, one
//! per burst. Driven by service events, never by polling.
//!
//! A decision asked from outside the window brings the window up and is notified once. At start,
//! the decisions made from a terminal while the app was not running are announced.

use std::sync::Arc;

use docs_mcp::ServiceEvent;
use docs_mcp::record::EditStatus;
use tauri::image::Image;
use tauri::menu::{CheckMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{MouseButton, MouseButtonState, TrayIcon, TrayIconBuilder, TrayIconEvent};
use tauri::{AppHandle, Emitter, Manager, WebviewWindowBuilder, Wry};
use tauri_plugin_notification::NotificationExt as _;

use crate::api::{AskedScreen, LAUNCH_AT_LOGIN_EVENT, NAVIGATE_EVENT};
use crate::autostart;
use crate::host::Host;
use crate::notify::{BURST_WINDOW, Bursts, NewEdit, Notice};

const TRAY_ICON: &[u8] = include_bytes!("../../icons/tray.png");
const TRAY_PENDING_ICON: &[u8] = include_bytes!("../../icons/tray-pending.png");

pub struct Tray {
    icon: TrayIcon,
    pending: MenuItem<Wry>,
    pause: CheckMenuItem<Wry>,
    autostart: CheckMenuItem<Wry>,
}

/// Turns launch at login on or off (tray menu and Settings). The menu's tick and the
/// Settings screen then show the OS's state, whether the change worked or not.
pub fn set_launch_at_login(app: &AppHandle, enabled: bool) -> Result<bool, String> {
    let result = autostart::set(app, enabled);
    let now = autostart::is_enabled(app);
    if let Some(tray) = app.try_state::<Tray>() {
        let _ = tray.autostart.set_checked(now);
    }
    let _ = app.emit(LAUNCH_AT_LOGIN_EVENT, now);
    result.map(|()| now)
}

pub fn build(app: &AppHandle, host: &Host) -> tauri::Result<Tray> {
    let open = MenuItem::with_id(app, "open", "Open Docs MCP", true, None::<&str>)?;
    let pending = MenuItem::with_id(app, "pending", "Pending edits", true, None::<&str>)?;
    let pause = CheckMenuItem::with_id(
        app,
        "pause",
        "Pause agents",
        true,
        host.service.is_paused(),
        None::<&str>,
    )?;
    // Not in the demo: it would register the app a person uses for real.
    let autostart = CheckMenuItem::with_id(
        app,
        "autostart",
        "Launch at login",
        autostart::refused(host.demo_run).is_none(),
        autostart::is_enabled(app),
        None::<&str>,
    )?;
    let quit = MenuItem::with_id(app, "quit", "Quit", true, None::<&str>)?;
    let menu = Menu::with_items(
        app,
        &[
            &open,
            &pending,
            &PredefinedMenuItem::separator(app)?,
            &pause,
            &autostart,
            &PredefinedMenuItem::separator(app)?,
            &quit,
        ],
    )?;
    let icon = TrayIconBuilder::with_id("main")
        .icon(Image::from_bytes(TRAY_ICON)?)
        .tooltip("Docs MCP")
        .menu(&menu)
        .show_menu_on_left_click(false)
        .on_menu_event(move |app, event| match event.id().as_ref() {
            "open" => show_window(app, None),
            "pending" => show_window(app, Some("pending")),
            "pause" => {
                let app = app.clone();
                tauri::async_runtime::spawn(async move {
                    let host = app.state::<Arc<Host>>();
                    let paused = !host.service.is_paused();
                    if let Err(e) = host.service.set_paused(paused).await {
                        tracing::error!(error = %e, "cannot change the pause setting");
                    }
                });
            }
            "autostart" => {
                if let Err(e) = set_launch_at_login(app, !autostart::is_enabled(app)) {
                    tracing::error!(error = %e, "cannot change launch at login");
                    notify(
                        app,
                        &Notice {
                            title: "Launch at login was not changed".into(),
                            body: e,
                        },
                    );
                }
            }
            "quit" => {
                let app = app.clone();
                tauri::async_runtime::spawn(async move {
                    let report = app.state::<Arc<Host>>().shutdown().await;
                    if let Some(notice) = crate::notify::left_unsaved(&report) {
                        notify(&app, &notice);
                    }
                    app.exit(0);
                });
            }
            _ => {}
        })
        .on_tray_icon_event(|tray, event| {
            if let TrayIconEvent::Click {
                button: MouseButton::Left,
                button_state: MouseButtonState::Up,
                ..
            } = event
            {
                show_window(tray.app_handle(), None);
            }
        })
        .build(app)?;
    let tray = Tray {
        icon,
        pending,
        pause,
        autostart,
    };
    tray.show(0, host.service.is_paused());
    Ok(tray)
}

impl Tray {
    /// Count, icon and pause state as the service has them now.
    pub async fn refresh(&self, host: &Host) {
        self.show(host.pending_count().await, host.service.is_paused());
    }

    fn show(&self, count: u64, paused: bool) {
        let label = if count == 0 {
            "Pending edits".to_owned()
        } else {
            format!("Pending edits ({count})")
        };
        let _ = self.pending.set_text(label);
        let bytes = if count == 0 {
            TRAY_ICON
        } else {
            TRAY_PENDING_ICON
        };
        if let Ok(image) = Image::from_bytes(bytes) {
            let _ = self.icon.set_icon(Some(image));
        }
        let tooltip = match count {
            0 => "Docs MCP".to_owned(),
            1 => "Docs MCP — 1 edit waits for you".to_owned(),
            n => format!("Docs MCP — {n} edits wait for you"),
        };
        let _ = self.icon.set_tooltip(Some(tooltip));
        let _ = self.pause.set_checked(paused);
    }
}

/// What the tray does on a service event: refresh, and notify of new pending edits, once per
/// burst.
pub async fn on_event(app: &AppHandle, event: &ServiceEvent) {
    let host = app.state::<Arc<Host>>();
    if let Some(tray) = app.try_state::<Tray>() {
        tray.refresh(&host).await;
    }
    if let ServiceEvent::DecisionRequestsChanged = event {
        announce_requests(app, &host);
    }
    if let ServiceEvent::AppliedEditsLost { edit_ids, .. } = event
        && let Some(first) = edit_ids.first()
    {
        let document = host
            .service
            .edit(*first)
            .await
            .ok()
            .and_then(|e| e.document_title.filter(|t| !t.trim().is_empty()))
            .map(|t| clamp(&t, 60))
            .unwrap_or_else(|| "a document".to_owned());
        notify(app, &crate::notify::lost(edit_ids.len(), &document));
    }
    if let ServiceEvent::EditChanged {
        edit_id,
        status: EditStatus::Pending,
        agent,
        ..
    } = event
    {
        let document = host
            .service
            .edit(*edit_id)
            .await
            .ok()
            .and_then(|e| e.document_title.filter(|t| !t.trim().is_empty()))
            .map(|t| clamp(&t, 60))
            .unwrap_or_else(|| "a document".to_owned());
        let bursts = app.state::<Bursts>();
        let started = bursts.add(NewEdit {
            agent: agent.clone(),
            document,
        });
        if started {
            let app = app.clone();
            tauri::async_runtime::spawn(async move {
                tokio::time::sleep(BURST_WINDOW).await;
                if let Some(notice) = app.state::<Bursts>().finish() {
                    notify(&app, &notice);
                }
            });
        }
    }
}

/// The decisions asked from outside the window that were announced already.
#[derive(Default)]
pub struct AnnouncedRequests(std::sync::Mutex<std::collections::HashSet<uuid::Uuid>>);

/// A decision asked from outside the window (a terminal, a script) waits for the person:
/// the window comes up with it, and a notification says so, once per request.
fn announce_requests(app: &AppHandle, host: &Host) {
    let waiting = host.service.decision_requests();
    let Some(announced) = app.try_state::<AnnouncedRequests>() else {
        return;
    };
    let new: Vec<_> = {
        let mut seen = announced.0.lock().expect("announced requests");
        seen.retain(|id| waiting.iter().any(|r| r.id == *id));
        waiting
            .iter()
            .filter(|r| seen.insert(r.id))
            .cloned()
            .collect()
    };
    let Some(first) = new.first() else {
        return;
    };
    show_window(app, None);
    notify(
        app,
        &Notice {
            title: clamp(&format!("Asked from outside Docs MCP: {}", first.summary), 120),
            body: "Nothing happens unless you confirm it in the Docs MCP window. If you did not ask, decline it.".into(),
        },
    );
}

/// Decisions made from a terminal while the app was not running, announced at its start.
pub async fn announce_decisions_made_elsewhere(app: &AppHandle, host: &Host) {
    let decided = host.decided_outside_the_window().await;
    let Some(first) = decided.first() else {
        return;
    };
    let title = match decided.len() {
        1 => format!(
            "An edit of {} was {} from a terminal",
            clamp(&first.agent.name, 40),
            if first.status == EditStatus::Rejected {
                "rejected"
            } else {
                "approved"
            }
        ),
        n => format!("{n} edits were decided from a terminal"),
    };
    notify(
        app,
        &Notice {
            title,
            body: "Not in the Docs MCP window, while it was closed. History shows them, with Undo."
                .into(),
        },
    );
}

fn notify(app: &AppHandle, notice: &Notice) {
    let result = app
        .notification()
        .builder()
        .title(&notice.title)
        .body(&notice.body)
        .show();
    if let Err(e) = result {
        tracing::warn!(error = %e, "cannot show a notification");
    }
}

/// `text` cut to `max` characters, an ellipsis marking the cut (agent names come cleaned and
/// capped from the service; document titles are up to 255 characters).
fn clamp(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// The main window's label (`tauri.conf.json`).
pub const MAIN_WINDOW: &str = "main";

/// Shows and focuses the main window, optionally on a screen. Closed, it is built again from
/// its configuration (it is not created at start: an app started at login, in the tray only,
/// holds no web view), and takes the screen when its page has loaded (`AskedScreen`).
pub fn show_window(app: &AppHandle, screen: Option<&str>) {
    let window = match app.get_webview_window(MAIN_WINDOW) {
        Some(window) => {
            if let Some(screen) = screen {
                let _ = app.emit_to(MAIN_WINDOW, NAVIGATE_EVENT, screen);
            }
            window
        }
        None => {
            if let Some(asked) = app.try_state::<AskedScreen>() {
                *asked.0.lock().expect("asked screen") = screen.map(str::to_owned);
            }
            let config = app
                .config()
                .app
                .windows
                .iter()
                .find(|w| w.label == MAIN_WINDOW);
            let built = config
                .ok_or_else(|| tauri::Error::WindowNotFound)
                .and_then(|config| WebviewWindowBuilder::from_config(app, config)?.build());
            match built {
                Ok(window) => window,
                Err(e) => {
                    tracing::error!(error = %e, "the window cannot be built");
                    return;
                }
            }
        }
    };
    let _ = window.unminimize();
    let _ = window.show();
    let _ = window.set_focus();
}
