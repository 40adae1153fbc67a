//! docs-client

pub mod blocknote;
