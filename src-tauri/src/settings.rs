//! What the app remembers between runs that the service does not: the instance URL the
//! user connected, the endpoint's port and the approval wait (`<data_dir>/app-settings.json`).
//! The default policy lives in the service's database; launch at login is the OS's.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AppSettings {
    pub instance: Option<String>,
    /// Port of the MCP endpoint; `None`: the default, 7658.
    pub port: Option<u16>,
    /// How long write tools wait for a decision; `None`: the service's default.
    pub approval_wait_secs: Option<u64>,
    /// Decisions made from a terminal up to this time (ms since the epoch) were announced:
    /// those made later, while the app was not running, are announced at its next start.
    pub terminal_decisions_seen_until: Option<i64>,
}

pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("app-settings.json")
}

impl AppSettings {
    /// The stored settings; defaults when there are none or they cannot be read.
    pub fn load(data_dir: &Path) -> Self {
        match std::fs::read_to_string(path(data_dir)) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "ignoring unreadable app settings");
                AppSettings::default()
            }),
            Err(_) => AppSettings::default(),
        }
    }

    pub fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(data_dir)?;
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(path(data_dir), text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_default_when_missing() {
        let dir = std::env::temp_dir().join(format!("docs-mcp-app-{}", uuid::Uuid::new_v4()));
        assert_eq!(AppSettings::load(&dir), AppSettings::default());
        let settings = AppSettings {
            instance: Some("https://docs.example.org".into()),
            port: Some(7700),
            approval_wait_secs: Some(45),
            terminal_decisions_seen_until: Some(1795000000000),
        };
        settings.save(&dir).unwrap();
        assert_eq!(AppSettings::load(&dir), settings);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn settings_of_an_older_version_still_load() {
        let dir = std::env::temp_dir().join(format!("docs-mcp-app-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(path(&dir), r#"{"instance": "https://docs.example.org"}"#).unwrap();
        assert_eq!(
            AppSettings::load(&dir),
            AppSettings {
                instance: Some("https://docs.example.org".into()),
                ..AppSettings::default()
            }
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
