//! `docs-mcp`: the headless service, the stdio bridge and the control CLI.

fn main() -> std::process::ExitCode {
    docs_mcp::cli_main()
}
