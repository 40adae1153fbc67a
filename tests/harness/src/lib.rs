//! test-harness
