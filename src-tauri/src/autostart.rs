//! Launch at login, read from the OS every time, so the tray and Settings always show the
//! same thing. On Linux the XDG autostart entry is written here: the plugin's entry has no
//! icon, a garbled comment and an unquoted `Exec`, ignores `XDG_CONFIG_HOME`, and fails on
//! an account without `~/.config`. Elsewhere tauri-plugin-autostart does it.
//!
//! The XDG entry goes under `$XDG_CONFIG_HOME` or `~/.config` (created if missing), with `Icon=`, a
//! real `Comment=` and a quoted `Exec`; the plugin's old entry is taken over. `refused` in `--demo`
//! (it would register the real app: the tray's item is disabled and Settings says why); `caveat`
//! for a binary under a cargo `target/` folder.
//!
//! The tray announces a change as the `launch-at-login` event.

use tauri::AppHandle;

/// Passed by the login item: start in the tray, without the window.
pub const MINIMIZED_ARG: &str = "--minimized";

/// Why launch at login is not offered in this run: the demo (`--demo`) would register the
/// app a person uses for real.
pub fn refused(demo_run: bool) -> Option<String> {
    demo_run.then(|| {
        "Not in the demo: launch at login starts the app you use for real. Turn it on there."
            .to_owned()
    })
}

/// What to know before turning it on from this binary: one run from a cargo build folder
/// (`target/…`) registers that path, which a `cargo clean` or a moved checkout breaks.
pub fn caveat(exe: &std::path::Path) -> Option<String> {
    let from_build = exe
        .ancestors()
        .any(|dir| dir.file_name().is_some_and(|name| name == "target"));
    from_build.then(|| {
        format!(
            "This copy runs from a build folder ({}): the login entry points there and stops working if that build is cleaned or moved. The installed app (.deb, .rpm) keeps a lasting one.",
            exe.display()
        )
    })
}

/// Whether the OS starts the app at login.
pub fn is_enabled(app: &AppHandle) -> bool {
    platform::is_enabled(app)
}

/// Turns launch at login on or off; the error is a sentence for the person.
pub fn set(app: &AppHandle, enabled: bool) -> Result<(), String> {
    platform::set(app, enabled)
}

#[cfg(not(target_os = "linux"))]
mod platform {
    use tauri::AppHandle;
    use tauri_plugin_autostart::ManagerExt as _;

    pub fn is_enabled(app: &AppHandle) -> bool {
        app.autolaunch().is_enabled().unwrap_or(false)
    }

    pub fn set(app: &AppHandle, enabled: bool) -> Result<(), String> {
        let launcher = app.autolaunch();
        let result = if enabled {
            launcher.enable()
        } else {
            launcher.disable()
        };
        result.map_err(|e| e.to_string())
    }
}

#[cfg(target_os = "linux")]
mod platform {
    use tauri::{AppHandle, Manager as _};

    use super::xdg::Entry;

    fn entry(app: &AppHandle) -> Result<Entry, String> {
        let exec = std::env::current_exe()
            .map_err(|e| format!("cannot tell where Docs MCP is installed: {e}"))?;
        let icon_dir = app
            .path()
            .app_data_dir()
            .map_err(|e| format!("no data directory for the icon: {e}"))?;
        Entry::new(
            std::env::var_os("XDG_CONFIG_HOME").map(Into::into),
            std::env::var_os("HOME").map(Into::into),
            exec,
            icon_dir.join("docs-mcp.png"),
        )
    }

    pub fn is_enabled(app: &AppHandle) -> bool {
        entry(app).is_ok_and(|entry| entry.is_enabled())
    }

    pub fn set(app: &AppHandle, enabled: bool) -> Result<(), String> {
        entry(app)?.set(enabled)
    }
}

/// The XDG autostart entry (freedesktop's Desktop Application Autostart and Desktop Entry
/// specifications).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
mod xdg {
    use std::path::{Path, PathBuf};

    use super::MINIMIZED_ARG;

    const ICON: &[u8] = include_bytes!("../../icons/128x128.png");
    const FILE_NAME: &str = "org.lasuite.docs-mcp.desktop";
    /// Where tauri-plugin-autostart wrote it in earlier versions.
    const PLUGIN_FILE_NAME: &str = "Docs MCP.desktop";

    pub struct Entry {
        dir: PathBuf,
        exec: PathBuf,
        icon: PathBuf,
    }

    impl Entry {
        /// `config_home`: `$XDG_CONFIG_HOME`; `home`: `$HOME` (the fallback `~/.config`).
        pub fn new(
            config_home: Option<PathBuf>,
            home: Option<PathBuf>,
            exec: PathBuf,
            icon: PathBuf,
        ) -> Result<Entry, String> {
            let config = config_home
                .filter(|p| p.is_absolute())
                .or_else(|| home.map(|h| h.join(".config")))
                .ok_or("neither XDG_CONFIG_HOME nor HOME is set: no place for a login item")?;
            Ok(Entry {
                dir: config.join("autostart"),
                exec,
                icon,
            })
        }

        fn path(&self) -> PathBuf {
            self.dir.join(FILE_NAME)
        }

        /// An entry that exists, is not `Hidden` and not switched off by GNOME's key; or
        /// the plugin's entry of an earlier version.
        pub fn is_enabled(&self) -> bool {
            [self.path(), self.dir.join(PLUGIN_FILE_NAME)]
                .iter()
                .any(|path| std::fs::read_to_string(path).is_ok_and(|text| starts(&text)))
        }

        pub fn set(&self, enabled: bool) -> Result<(), String> {
            let legacy = self.dir.join(PLUGIN_FILE_NAME);
            if legacy.exists() {
                std::fs::remove_file(&legacy)
                    .map_err(|e| format!("cannot remove {}: {e}", legacy.display()))?;
            }
            let path = self.path();
            if !enabled {
                return match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        Err(format!("cannot remove {}: {e}", path.display()))
                    }
                    _ => Ok(()),
                };
            }
            if let Some(dir) = self.icon.parent() {
                std::fs::create_dir_all(dir)
                    .and_then(|()| std::fs::write(&self.icon, ICON))
                    .map_err(|e| format!("cannot write {}: {e}", self.icon.display()))?;
            }
            std::fs::create_dir_all(&self.dir)
                .and_then(|()| std::fs::write(&path, desktop_entry(&self.exec, &self.icon)))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
    }

    fn starts(entry: &str) -> bool {
        !entry.lines().map(str::trim).any(|line| {
            line.eq_ignore_ascii_case("Hidden=true")
                || line.eq_ignore_ascii_case("X-GNOME-Autostart-enabled=false")
        })
    }

    pub fn desktop_entry(exec: &Path, icon: &Path) -> String {
        format!(
            "[Desktop Entry]\n\
             Type=Application\n\
             Version=1.0\n\
             Name=Docs MCP\n\
             Comment=Lets AI agents edit your La Suite Docs documents, with your approval\n\
             Exec={} {MINIMIZED_ARG}\n\
             Icon={}\n\
             Terminal=false\n\
             StartupNotify=false\n\
             X-GNOME-Autostart-enabled=true\n",
            exec_argument(&exec.to_string_lossy()),
            icon.display(),
        )
    }

    /// An `Exec` argument: quoted when it holds a reserved character, `"`, `` ` ``, `$` and
    /// `\` escaped inside the quotes, `%` doubled (field codes).
    fn exec_argument(arg: &str) -> String {
        let arg = arg.replace('%', "%%");
        let reserved = |c: char| " \t\n\"'\\><~|&;$*?#()`".contains(c);
        if !arg.contains(reserved) {
            return arg;
        }
        let mut quoted = String::from("\"");
        for c in arg.chars() {
            if matches!(c, '"' | '`' | '$' | '\\') {
                quoted.push('\\');
            }
            quoted.push(c);
        }
        quoted.push('"');
        quoted
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn temp_home(name: &str) -> PathBuf {
            let dir = std::env::temp_dir()
                .join(format!("docs-mcp-autostart-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            dir
        }

        #[test]
        fn an_account_without_config_gets_its_entry_with_icon_and_comment() {
            let home = temp_home("fresh");
            let entry = Entry::new(
                None,
                Some(home.clone()),
                "/opt/Docs MCP/docs-mcp-app".into(),
                home.join(".local/share/org.lasuite.docs-mcp/docs-mcp.png"),
            )
            .unwrap();
            assert!(!entry.is_enabled());
            entry.set(true).unwrap();
            assert!(entry.is_enabled());
            let written = std::fs::read_to_string(
                home.join(".config/autostart/org.lasuite.docs-mcp.desktop"),
            )
            .unwrap();
            assert_eq!(
                written,
                format!(
                    "[Desktop Entry]\nType=Application\nVersion=1.0\nName=Docs MCP\n\
                     Comment=Lets AI agents edit your La Suite Docs documents, with your approval\n\
                     Exec=\"/opt/Docs MCP/docs-mcp-app\" --minimized\n\
                     Icon={}/.local/share/org.lasuite.docs-mcp/docs-mcp.png\n\
                     Terminal=false\nStartupNotify=false\nX-GNOME-Autostart-enabled=true\n",
                    home.display()
                )
            );
            assert_eq!(
                std::fs::read(home.join(".local/share/org.lasuite.docs-mcp/docs-mcp.png")).unwrap(),
                ICON
            );
            entry.set(false).unwrap();
            assert!(!entry.is_enabled());
            entry.set(false).unwrap();
            std::fs::remove_dir_all(&home).unwrap();
        }

        #[test]
        fn xdg_config_home_wins_and_a_hidden_entry_is_off() {
            let home = temp_home("xdg");
            let config = home.join("elsewhere");
            let entry = Entry::new(
                Some(config.clone()),
                Some(home.clone()),
                "/usr/bin/docs-mcp-app".into(),
                home.join("icon.png"),
            )
            .unwrap();
            entry.set(true).unwrap();
            let path = config.join("autostart/org.lasuite.docs-mcp.desktop");
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.contains("Exec=/usr/bin/docs-mcp-app --minimized\n"),
                "{text}"
            );
            std::fs::write(&path, format!("{text}Hidden=true\n")).unwrap();
            assert!(!entry.is_enabled());
            std::fs::remove_dir_all(&home).unwrap();
        }

        #[test]
        fn the_plugins_entry_of_an_earlier_version_counts_and_is_replaced() {
            let home = temp_home("legacy");
            let dir = home.join(".config/autostart");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("Docs MCP.desktop"), "[Desktop Entry]\nExec=x\n").unwrap();
            let entry =
                Entry::new(None, Some(home.clone()), "/x".into(), home.join("i.png")).unwrap();
            assert!(entry.is_enabled());
            entry.set(true).unwrap();
            assert!(!dir.join("Docs MCP.desktop").exists());
            assert!(dir.join("org.lasuite.docs-mcp.desktop").exists());
            entry.set(false).unwrap();
            assert!(!entry.is_enabled());
            std::fs::remove_dir_all(&home).unwrap();
        }

        #[test]
        fn no_home_at_all_is_a_sentence_not_a_panic() {
            let error = Entry::new(None, None, "/x".into(), "/i.png".into())
                .err()
                .unwrap();
            assert!(error.contains("HOME"), "{error}");
        }

        #[test]
        fn exec_arguments_are_quoted_as_the_spec_says() {
            assert_eq!(exec_argument("/usr/bin/app"), "/usr/bin/app");
            assert_eq!(exec_argument("/a b/$x\"y"), "\"/a b/\\$x\\\"y\"");
            assert_eq!(exec_argument("/100%/app"), "/100%%/app");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn the_demo_does_not_offer_it_and_a_build_folder_says_what_it_risks() {
        assert!(refused(true).unwrap().starts_with("Not in the demo"));
        assert_eq!(refused(false), None);
        assert_eq!(caveat(Path::new("/usr/bin/docs-mcp-app")), None);
        assert_eq!(caveat(Path::new("/home/ada/targets/docs-mcp-app")), None);
        let built = caveat(Path::new(
            "/home/ada/src/lasuite-docs-mcp/target/release/docs-mcp-app",
        ))
        .unwrap();
        assert!(
            built.starts_with(
                "This copy runs from a build folder (/home/ada/src/lasuite-docs-mcp/target/release/docs-mcp-app)"
            ),
            "{built}"
        );
    }
}
