//! Opens a document of a Docs instance live and prints what it holds.
//!
//! ```text
//! cargo run --example open_document -- https://docs.example.org/docs/<uuid>/
//! cargo run --example open_document -- --instance https://docs.example.org <uuid>
//! ```
//! For documents that are not public, set `DOCS_SESSION_COOKIE` to the value of the
//! `docs_sessionid` cookie of a signed-in browser (and `DOCS_CSRF_TOKEN` to `csrftoken`).

use std::process::ExitCode;

use yrs::Transact;

use docs_client::{
    ClientConfig, DocsClient, DocumentRef, DocumentSession, InstanceUrl, Presence, Secret,
    SessionOptions, blocknote,
};

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut instance = std::env::var("DOCS_INSTANCE_URL").ok();
    let mut document = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--instance" => instance = args.next(),
            "-h" | "--help" => {
                println!("usage: open_document [--instance URL] <document URL or id>");
                return Ok(());
            }
            _ => document = Some(arg),
        }
    }
    let document = document.ok_or("give a document URL or id (see --help)")?;
    let doc_ref = DocumentRef::parse(&document).map_err(|e| e.to_string())?;
    let instance = match (doc_ref.instance, instance) {
        (Some(from_url), _) => from_url,
        (None, Some(raw)) => InstanceUrl::parse(&raw).map_err(|e| e.to_string())?,
        (None, None) => return Err("a bare id needs --instance or DOCS_INSTANCE_URL".into()),
    };
    let mut config = ClientConfig::new(instance);
    if let Ok(cookie) = std::env::var("DOCS_SESSION_COOKIE") {
        let csrf = std::env::var("DOCS_CSRF_TOKEN").ok().map(Secret::new);
        config = config.with_session(Secret::new(cookie), csrf);
    }
    let client = DocsClient::new(config).map_err(|e| e.to_string())?;
    let meta = client
        .document(doc_ref.id)
        .await
        .map_err(|e| e.to_string())?;
    let options = SessionOptions {
        presence: Presence::new("Docs MCP (reading)"),
        ..SessionOptions::default()
    };
    let session = DocumentSession::open(client, doc_ref.id, options)
        .await
        .map_err(|e| e.to_string())?;
    println!("# {}", meta.title.as_deref().unwrap_or("(untitled)"));
    println!(
        "<!-- {} · {} -->\n",
        doc_ref.id,
        if session.is_read_only() {
            "read-only"
        } else {
            "editable"
        }
    );
    let document = {
        let doc = session.doc();
        let fragment = blocknote::document_fragment(doc);
        blocknote::read_document(&doc.transact(), &fragment)
    };
    let export = blocknote::export_markdown(&document.blocks, &blocknote::ExportOptions::default());
    println!("{}", export.markdown);
    if !export.fidelity.is_empty() {
        eprintln!(
            "\n{} detail(s) markdown cannot show:",
            export.fidelity.len()
        );
        for loss in &export.fidelity {
            eprintln!(
                "  - {} ({}): {}",
                loss.block_type, loss.block_id, loss.dropped
            );
        }
    }
    session.close().await.map_err(|e| e.to_string())
}
