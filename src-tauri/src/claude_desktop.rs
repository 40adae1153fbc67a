//! "Add to Claude Desktop": this app's stdio bridge written into Claude Desktop's own
//! configuration file (`mcpServers`), beside the servers already there, which are kept as
//! they are. The file is replaced whole (written beside it, then renamed) and the previous
//! one kept as `.bak`; a file that is not a JSON object is left alone and reported.
//!
//! The bridge's arguments are the host's `bridge_args`; the file is where Claude Desktop reads it
//! on each OS (`config_path`).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::api::{CommandError, invalid};

/// Where Claude Desktop reads its configuration on this system.
pub fn config_path() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let dir = if cfg!(target_os = "macos") {
        home.map(|h| h.join("Library/Application Support/Claude"))
    } else if cfg!(target_os = "windows") {
        std::env::var_os("APPDATA").map(|a| PathBuf::from(a).join("Claude"))
    } else {
        std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| home.map(|h| h.join(".config")))
            .map(|c| c.join("Claude"))
    };
    dir.map(|d| d.join("claude_desktop_config.json"))
}

/// What adding did.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaudeDesktopAdded {
    /// The configuration file written.
    pub path: String,
    /// An entry of that name was there, and is now this app's.
    pub replaced: bool,
    /// Where the previous file was kept, if there was one.
    pub backup: Option<String>,
}

/// Writes `name` → `{command: app, args}` (the bridge's arguments, which name the endpoint
/// and data directory of the service it reaches) into the configuration at `path`.
pub fn add(
    path: &Path,
    name: &str,
    app: &Path,
    args: &[String],
) -> Result<ClaudeDesktopAdded, CommandError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(invalid(
            format!("Claude Desktop's folder {} does not exist", dir.display()),
            "Install Claude Desktop and open it once, or paste the configuration by hand.",
        ));
    }
    let previous = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_error(path, e)),
    };
    let mut config = match previous.as_deref().map(str::trim) {
        None | Some("") => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(config)) => config,
            _ => {
                return Err(invalid(
                    format!(
                        "{} is not a JSON object; it was left as it is",
                        path.display()
                    ),
                    "Fix the file (Claude Desktop: Settings → Developer → Edit Config), or paste the configuration by hand.",
                ));
            }
        },
    };
    let servers = config
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        return Err(invalid(
            format!(
                "`mcpServers` in {} is not an object; the file was left as it is",
                path.display()
            ),
            "Fix the file, or paste the configuration by hand.",
        ));
    };
    let entry = json!({ "command": app.display().to_string(), "args": args });
    let replaced = servers.get(name).is_some_and(|old| old != &entry);
    servers.insert(name.to_owned(), entry);
    let text = serde_json::to_string_pretty(&Value::Object(config)).expect("JSON serializes");

    let backup = match previous {
        Some(previous) if previous.trim() != text.trim() => {
            let backup = path.with_extension("json.bak");
            std::fs::write(&backup, previous).map_err(|e| io_error(&backup, e))?;
            Some(backup.display().to_string())
        }
        _ => None,
    };
    let written = path.with_extension("json.docs-mcp-tmp");
    std::fs::write(&written, format!("{text}\n")).map_err(|e| io_error(&written, e))?;
    std::fs::rename(&written, path).map_err(|e| io_error(path, e))?;
    Ok(ClaudeDesktopAdded {
        path: path.display().to_string(),
        replaced,
        backup,
    })
}

fn io_error(path: &Path, error: std::io::Error) -> CommandError {
    invalid(
        format!("cannot write {}: {error}", path.display()),
        "Check the file's permissions, or paste the configuration by hand.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(port: u16) -> Vec<String> {
        [
            "bridge",
            "--url",
            &format!("http://127.0.0.1:{port}/mcp"),
            "--data-dir",
            "/d",
        ]
        .map(String::from)
        .to_vec()
    }

    fn folder() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("claude-config-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_bridge_is_added_beside_the_other_servers_and_the_previous_file_kept() {
        let dir = folder();
        let path = dir.join("claude_desktop_config.json");
        let before =
            r#"{"globalShortcut": "Ctrl+Space", "mcpServers": {"other": {"command": "x"}}}"#;
        std::fs::write(&path, before).unwrap();
        let added = add(
            &path,
            "lasuite-docs",
            Path::new("/opt/Docs MCP/docs-mcp-app"),
            &args(7658),
        )
        .unwrap();
        assert!(!added.replaced);
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            written,
            json!({
                "globalShortcut": "Ctrl+Space",
                "mcpServers": {
                    "other": {"command": "x"},
                    "lasuite-docs": {
                        "command": "/opt/Docs MCP/docs-mcp-app",
                        "args": ["bridge", "--url", "http://127.0.0.1:7658/mcp", "--data-dir", "/d"],
                    },
                },
            })
        );
        let backup = added.backup.unwrap();
        assert_eq!(std::fs::read_to_string(backup).unwrap(), before);
        // Again: nothing to replace, nothing to back up.
        let again = add(
            &path,
            "lasuite-docs",
            Path::new("/opt/Docs MCP/docs-mcp-app"),
            &args(7658),
        )
        .unwrap();
        assert_eq!((again.replaced, again.backup), (false, None));
        // Another binary, or another port: the entry is replaced.
        let moved = add(
            &path,
            "lasuite-docs",
            Path::new("/usr/bin/docs-mcp-app"),
            &args(7658),
        )
        .unwrap();
        assert!(moved.replaced);
        let ported = add(
            &path,
            "lasuite-docs",
            Path::new("/usr/bin/docs-mcp-app"),
            &args(7700),
        )
        .unwrap();
        assert!(ported.replaced);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_missing_file_is_created_and_a_broken_one_left_alone() {
        let dir = folder();
        let path = dir.join("claude_desktop_config.json");
        let added = add(&path, "lasuite-docs", Path::new("/app"), &args(7658)).unwrap();
        assert_eq!(added.backup, None);
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            written,
            json!({"mcpServers": {"lasuite-docs": {"command": "/app", "args": args(7658)}}})
        );
        std::fs::write(&path, "{ not json").unwrap();
        let refused = add(&path, "lasuite-docs", Path::new("/app"), &args(7658)).unwrap_err();
        assert!(
            refused.0.message.contains("is not a JSON object"),
            "{refused:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
        let nowhere = add(
            &dir.join("absent/claude_desktop_config.json"),
            "x",
            Path::new("/app"),
            &args(7658),
        )
        .unwrap_err();
        assert!(nowhere.0.message.contains("does not exist"), "{nowhere:?}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
