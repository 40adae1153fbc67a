//! `docs-mcp`: the headless service, the stdio bridge and the control CLI.

/// jemalloc on Linux: its threads' caches keep the threads that decode and read documents
/// from waiting for each other's allocations, in one arena that keeps little of what was
/// freed (options in `.cargo/config.toml`; figures in `docs/benchmarks.md`).
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    docs_mcp::cli_main()
}
