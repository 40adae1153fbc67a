//! `docs-mcp`: the headless service.

fn main() {
    println!("docs-mcp {}", env!("CARGO_PKG_VERSION"));
}
