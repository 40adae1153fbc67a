//! Only a person decides. Agents hold the MCP bearer token, which reaches `/mcp` and nothing
//! else; decisions, policies and pausing go through `/control`, which takes another secret:
//! the control token. The running service makes a new one at every start and keeps it in the
//! data directory, readable by the user only, for the person's own tools (`docs-mcp edits`;
//! the desktop app calls the service in-process). It is never shown in the app's agent
//! screen, never in an agent configuration, never printed by `docs-mcp token`.

use std::io::Write;
use std::path::Path;

use crate::token::BearerToken;

/// The control token's file in the data directory.
pub const CONTROL_TOKEN_FILE: &str = "control-token";

/// Writes the running service's control token where the person's CLI finds it.
pub fn publish(data_dir: &Path, token: &BearerToken) -> std::io::Result<()> {
    let mut file = crate::lock::private_open(&data_dir.join(CONTROL_TOKEN_FILE), true)?;
    file.write_all(token.expose().as_bytes())?;
    file.sync_all()
}

/// The control token of the service running on `data_dir`, if one published it.
pub fn read(data_dir: &Path) -> Option<BearerToken> {
    std::fs::read_to_string(data_dir.join(CONTROL_TOKEN_FILE))
        .ok()
        .and_then(BearerToken::from_string)
}
