//! GDK's and WebKit's log lines, into the app's log. The tray's menu makes GDK print a critical
//! assertion at start on some desktops (`gdk_window_thaw_toplevel_updates: assertion
//! 'window->update_and_descendants_freeze_count > 0' failed`: harmless, see tauri#9401 and
//! tray-item-rs#11), and WebKit warns each time the window opens that it draws in software
//! when GTK's GL is off, as the app has it (`gl`); a first run must print nothing alarming.
//! Those known lines go to the debug log; any other warning or critical of GDK, or of a
//! library logging without a domain as WebKit does, is logged as a warning, never dropped.

/// The lines GDK and WebKit print that do no harm: GDK's assertion about the tray's menu,
/// WebKit's word that it draws without GL.
const HARMLESS: &[&str] = &[
    "gdk_window_thaw_toplevel_updates",
    "Disabled hardware acceleration because GTK failed to initialize GL",
];

/// The log domains routed: GDK's, and none (WebKit's, and any other library's without one).
const DOMAINS: [Option<&str>; 2] = [Some("Gdk"), None];

/// Whether a message is one of the known harmless ones.
fn harmless(message: &str) -> bool {
    HARMLESS.iter().any(|known| message.contains(known))
}

/// Routes GDK's and domainless warnings and criticals to the log (call once, before GTK
/// starts).
pub fn route() {
    use glib::LogLevels;
    for domain in DOMAINS {
        glib::log_set_handler(
            domain,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_known_lines_are_quiet() {
        assert!(harmless(
            "gdk_window_thaw_toplevel_updates: assertion 'window->update_and_descendants_freeze_count > 0' failed"
        ));
        assert!(!harmless(
            "gdk_window_get_parent: assertion 'GDK_IS_WINDOW (window)' failed"
        ));
        assert!(harmless(
            "Disabled hardware acceleration because GTK failed to initialize GL: GL support disabled via GDK_DEBUG."
        ));
    }

    /// GDK's lines and lines without a domain reach the log through the handler, at the level
    /// their kind says.
    #[test]
    fn gdk_and_domainless_lines_are_logged_not_printed() {
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
            glib::g_log!(
                glib::LogLevel::Warning,
                "Disabled hardware acceleration because GTK failed to initialize GL: GL support disabled via GDK_DEBUG."
            );
            glib::g_log!(
                glib::LogLevel::Critical,
                "a library's critical without a domain"
            );
        });
        let logged = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        let levels: Vec<&str> = logged
            .lines()
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(levels, ["DEBUG", "WARN", "DEBUG", "WARN"], "{logged}");
    }
}
