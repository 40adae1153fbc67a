//! Child processes of the `docs-mcp` binary, isolated from the real home and keyring.

use std::path::Path;

pub const BIN: &str = env!("CARGO_BIN_EXE_docs-mcp");

/// Child processes write nothing under the real home and find no keyring.
pub fn isolate(cmd: &mut tokio::process::Command, home: &Path) {
    cmd.env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_RUNTIME_DIR", home.join("run"))
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("DOCS_INSTANCE_URL")
        .env_remove("DOCS_MCP_DATA_DIR")
        .env_remove("DOCS_MCP_APPROVAL")
        .env_remove("DOCS_SESSION_COOKIE")
        .env_remove("DOCS_CSRF_TOKEN")
        .env(
            "RUST_LOG",
            std::env::var("DOCS_MCP_TEST_CHILD_LOG").unwrap_or_else(|_| "warn".into()),
        );
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
