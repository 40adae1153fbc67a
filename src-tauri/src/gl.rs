//! GTK's OpenGL, off unless the person asks for it. On X11, GDK opens GL when it starts, to
//! choose its visuals, and so loads the display's GL driver even if no window is ever shown:
//! under Xvfb or in a VM that is Mesa's software renderer and its LLVM, 26 MiB of the
//! tray-only app's 100 MiB PSS. Without it WebKit draws the window in software, which the
//! app's forms and lists do not notice (tray only 68 MiB PSS, window open 228 against 304:
//! `docs/install.md`). GTK reads `GDK_GL` from the environment once, when it starts, and a
//! process may set its environment safely only before it runs: the app starts itself again,
//! once, with `GDK_GL=disable`. A `GDK_GL` already set, even empty, is left as it is
//! (`GDK_GL= docs-mcp-app` keeps GTK's GL).

use docs_mcp::EnvDefault;

/// GTK's GL off, when the person did not say otherwise.
const GTK_GL_OFF: EnvDefault = EnvDefault {
    name: "GDK_GL",
    value: "disable",
};

/// Starts this program again with GTK's GL off, unless `GDK_GL` is set; returns only when it
/// does not (the variable was set, or the new start failed: then why, and the app goes on
/// with GL).
pub fn start_without_gtk_gl() -> Option<std::io::Error> {
    docs_mcp::start_again_with(&[GTK_GL_OFF])
}
