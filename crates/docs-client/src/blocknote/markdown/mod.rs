//! Markdown (GFM) export with a fidelity report, and markdown import into new blocks.

pub mod export;
pub mod import;
pub(crate) mod math;
