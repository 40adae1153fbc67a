//! Signing in to the Docs instance the way its own frontend does: a window on
//! `{instance}/api/v1.0/authenticate/`, where the user meets the instance's identity provider;
//! once the window is back on a page of the instance, its cookies (`docs_sessionid`,
//! `csrftoken`, HttpOnly included) go to the service, which checks them before using them.
//!
//! The webview is incognito: its cookies live in memory and vanish with the window, so the
//! session is on disk nowhere but in the OS keyring (through the service).
//!
//! A page of the instance is one not under `/api/`; the cookies are read with `cookies_for_url` off
//! the main thread and handed to `DocsService::sign_in`. A session the instance refuses leaves the
//! window open; closing the window is `SIGN_IN_CANCELLED`; a second `sign_in` focuses the window
//! and waits for the same outcome.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use docs_client::{InstanceUrl, Secret, User};
use docs_mcp::ServiceError;
use tauri::webview::PageLoadEvent;
use tauri::{
    AppHandle, Manager, Url, WebviewUrl, WebviewWindow, WebviewWindowBuilder, WindowEvent,
};
use tokio::sync::watch;

use crate::api::{CommandError, CommandResult};
use crate::host::Host;

/// The sign-in window's size: 900 × 760, or less on a smaller screen (it must fit whole,
/// centered, with the desktop's panels).
fn fitted_size(app: &AppHandle) -> (f64, f64) {
    let screen = app.primary_monitor().ok().flatten().map(|monitor| {
        let size = monitor.size().to_logical::<f64>(monitor.scale_factor());
        (size.width, size.height)
    });
    fit((900.0, 760.0), screen)
}

/// `wanted`, shrunk to 90 % of the screen's width and 80 % of its height.
fn fit(wanted: (f64, f64), screen: Option<(f64, f64)>) -> (f64, f64) {
    match screen {
        Some((width, height)) => (wanted.0.min(width * 0.9), wanted.1.min(height * 0.8)),
        None => wanted,
    }
}

/// Label of the sign-in window.
pub const WINDOW: &str = "sign-in";

const SESSION_COOKIE: &str = "docs_sessionid";
const CSRF_COOKIE: &str = "csrftoken";

type Outcome = Option<CommandResult<User>>;

/// The sign-in under way, if any: a second `sign_in` waits for the same outcome.
#[derive(Default)]
pub struct SignIn(Mutex<Option<watch::Receiver<Outcome>>>);

/// Opens the sign-in window (or focuses the one already open) and waits until the user is
/// signed in, or the window is closed (`SIGN_IN_CANCELLED`).
pub async fn sign_in(app: &AppHandle, host: &Arc<Host>) -> CommandResult<User> {
    let mut outcome = {
        let state = app.state::<SignIn>();
        let mut current = state.0.lock().expect("sign-in lock");
        match app.get_webview_window(WINDOW) {
            Some(window) if current.is_some() => {
                let _ = window.set_focus();
                current.clone().expect("checked above")
            }
            _ => {
                let receiver = open_window(app, host.clone(), host.instance()?)?;
                *current = Some(receiver.clone());
                receiver
            }
        }
    };
    match outcome.wait_for(Option::is_some).await {
        Ok(done) => done.clone().expect("waited for it"),
        Err(_) => Err(CommandError::sign_in_cancelled()),
    }
}

fn open_window(
    app: &AppHandle,
    host: Arc<Host>,
    instance: InstanceUrl,
) -> CommandResult<watch::Receiver<Outcome>> {
    let (outcome, receiver) = watch::channel(None);
    let outcome = Arc::new(outcome);
    let checking = Arc::new(AtomicBool::new(false));
    let start = instance.api("authenticate/");
    let window = {
        let (outcome, instance) = (outcome.clone(), instance.clone());
        let (width, height) = fitted_size(app);
        WebviewWindowBuilder::new(app, WINDOW, WebviewUrl::External(start))
            .title(format!("Sign in to {instance}"))
            .inner_size(width, height)
            .center()
            .incognito(true)
            .focused(true)
            .on_page_load(move |window, payload| {
                if payload.event() == PageLoadEvent::Finished
                    && back_on_instance(&instance, payload.url())
                    && !checking.swap(true, Ordering::SeqCst)
                {
                    tauri::async_runtime::spawn(take_session(
                        window,
                        host.clone(),
                        instance.clone(),
                        outcome.clone(),
                        checking.clone(),
                    ));
                }
            })
            .build()?
    };
    window.on_window_event(move |event| {
        if let WindowEvent::Destroyed = event {
            finish(&outcome, Err(CommandError::sign_in_cancelled()));
        }
    });
    Ok(receiver)
}

/// Whether the window shows a page of the instance itself (its frontend), not one of the
/// backend's sign-in redirects: the identity provider has sent the user back.
fn back_on_instance(instance: &InstanceUrl, url: &Url) -> bool {
    url.origin().ascii_serialization() == instance.origin() && !url.path().starts_with("/api/")
}

/// Reads the window's cookies and signs the service in with them. A session the instance
/// does not accept (the user is not signed in yet) leaves the window open.
async fn take_session(
    window: WebviewWindow,
    host: Arc<Host>,
    instance: InstanceUrl,
    outcome: Arc<watch::Sender<Outcome>>,
    checking: Arc<AtomicBool>,
) {
    // Waits for the main thread (WebKitGTK answers there): never call it on that thread.
    let url = instance.as_url().clone();
    let reader = window.clone();
    let cookies = tauri::async_runtime::spawn_blocking(move || reader.cookies_for_url(url)).await;
    let cookies = match cookies {
        Ok(Ok(cookies)) => cookies,
        Ok(Err(e)) => return fail(&window, &outcome, e.into()),
        Err(e) => {
            return fail(
                &window,
                &outcome,
                ServiceError::Internal(e.to_string()).into(),
            );
        }
    };
    let value = |name: &str| {
        cookies
            .iter()
            .find(|c| c.name() == name && !c.value().is_empty())
            .map(|c| Secret::new(c.value()))
    };
    let Some(session) = value(SESSION_COOKIE) else {
        tracing::debug!("back on the instance without a session cookie: still signing in");
        checking.store(false, Ordering::SeqCst);
        return;
    };
    match host.service.sign_in(session, value(CSRF_COOKIE)).await {
        Ok(user) => {
            finish(&outcome, Ok(user));
            let _ = window.destroy();
        }
        Err(ServiceError::SessionInvalid) => {
            tracing::debug!("the window's session is not signed in yet");
            checking.store(false, Ordering::SeqCst);
        }
        Err(e) => fail(&window, &outcome, e.into()),
    }
}

fn fail(window: &WebviewWindow, outcome: &watch::Sender<Outcome>, error: CommandError) {
    tracing::warn!(error = ?error, "signing in failed");
    finish(outcome, Err(error));
    let _ = window.destroy();
}

/// Records the outcome, once: the first one wins (closing the window after success is not a
/// cancellation).
fn finish(outcome: &watch::Sender<Outcome>, result: CommandResult<User>) {
    outcome.send_if_modified(|current| {
        let first = current.is_none();
        if first {
            *current = Some(result);
        }
        first
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_fits_a_small_screen_and_keeps_its_size_on_a_large_one() {
        let rounded = |(w, h): (f64, f64)| (w.round(), h.round());
        assert_eq!(
            rounded(fit((900.0, 760.0), Some((1366.0, 768.0)))),
            (900.0, 614.0)
        );
        assert_eq!(
            rounded(fit((900.0, 760.0), Some((800.0, 600.0)))),
            (720.0, 480.0)
        );
        assert_eq!(fit((900.0, 760.0), Some((2560.0, 1440.0))), (900.0, 760.0));
        assert_eq!(fit((900.0, 760.0), None), (900.0, 760.0));
    }

    #[test]
    fn only_pages_of_the_instance_outside_the_api_count() {
        let instance = InstanceUrl::parse("https://docs.example.org").unwrap();
        let back = |url: &str| back_on_instance(&instance, &Url::parse(url).unwrap());
        assert!(back("https://docs.example.org/"));
        assert!(back(
            "https://docs.example.org/docs/6f1c2a4e-3b7d-4c1a-9e2f-0a1b2c3d4e5f/"
        ));
        assert!(!back("https://docs.example.org/api/v1.0/authenticate/"));
        assert!(!back(
            "https://docs.example.org/api/v1.0/callback/?code=x&state=y"
        ));
        assert!(!back(
            "https://id.example.org/login?next=https://docs.example.org/"
        ));
        assert!(!back("http://docs.example.org/"));
    }
}
