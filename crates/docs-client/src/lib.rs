//! docs-client
