//! GDK's log lines, into the app's log. The tray's menu makes GDK print a critical assertion
//! at start on some desktops (`gdk_window_thaw_toplevel_updates: assertion
//! 'window->update_and_descendants_freeze_count > 0' failed`: harmless, see tauri#9401 and
//! tray-item-rs#11); a first run must print nothing alarming. That known line goes to the
//! debug log; any other warning or critical of GDK is logged as a warning, never dropped.

/// The assertions GDK makes about the tray's menu that do no harm.
const HARMLESS: &[&str] = &["gdk_window_thaw_toplevel_updates"];

/// Whether a GDK message is one of the known harmless ones.
fn harmless(message: &str) -> bool {
    HARMLESS.iter().any(|known| message.contains(known))
}

/// Routes GDK's warnings and criticals to the log (call once, before the tray is made).
pub fn route() {
    use glib::LogLevels;
    glib::log_set_handler(
        Some("Gdk"),
        LogLevels::LEVEL_WARNING | LogLevels::LEVEL_CRITICAL,
        false,
        false,
        |_, _, message| {
            if harmless(message) {
                tracing::debug!(target: "gdk", "{message}");
            } else {
                tracing::warn!(target: "gdk", "{message}");
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_known_assertion_is_quiet() {
        assert!(harmless(
            "gdk_window_thaw_toplevel_updates: assertion 'window->update_and_descendants_freeze_count > 0' failed"
        ));
        assert!(!harmless(
            "gdk_window_get_parent: assertion 'GDK_IS_WINDOW (window)' failed"
        ));
    }

    /// A GDK critical reaches the log through the handler, at the level its kind says.
    #[test]
    fn a_gdk_critical_is_logged_not_printed() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Lines(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Lines {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .without_time()
            .with_writer(move || writer.clone())
            .finish();
        route();
        tracing::subscriber::with_default(subscriber, || {
            glib::g_critical!(
                "Gdk",
                "gdk_window_thaw_toplevel_updates: assertion 'window->update_and_descendants_freeze_count > 0' failed"
            );
            glib::g_warning!(
                "Gdk",
                "gdk_window_get_parent: assertion 'GDK_IS_WINDOW (window)' failed"
            );
        });
        let logged = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        let levels: Vec<&str> = logged
            .lines()
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(levels, ["DEBUG", "WARN"], "{logged}");
    }
}
