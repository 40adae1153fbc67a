//! MCP service figures against the Docs-like test server: `read_document` round trip on a
//! cached 1 000-block document, `insert_blocks` until applied (acknowledged by the room; the
//! journal holds it until the save, a save interval later), a person's
//! "Approve all" of 49 pending edits (over 7 documents, and in one), and the memory of the
//! service with 20 open documents. The client is rmcp over an in-process
//! stream, so the figures are the service's, not a network's.
//!
//! `cargo bench -p docs-mcp --bench mcp` — prints one `name: value` line per figure.

use std::time::{Duration, Instant};

use docs_mcp::record::Policy;
use docs_mcp::{DocsMcp, DocsService, ServiceConfig};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec, ServerOptions, rss_kib};

fn markdown_of(blocks: usize) -> String {
    (0..blocks)
        .map(|i| match i % 10 {
            0 => format!("## Section {i}"),
            _ => format!("Paragraph {i} with **some** ordinary words in it."),
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn p99(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1]
}

#[tokio::main]
async fn main() {
    let server = DocsServer::start_with(ServerOptions {
        throttle_rate: Some(0),
        ..ServerOptions::default()
    })
    .await
    .expect("the test server starts (run `npm ci --prefix tests/docs-server` first)");
    let data = std::env::temp_dir().join(format!("docs-mcp-bench-{}", uuid::Uuid::new_v4()));
    let mut config = ServiceConfig::new(data.clone());
    config.instance = Some(docs_client::InstanceUrl::parse(server.url()).unwrap());
    config.default_policy = Policy::Auto;
    // The bench measures the service, not the instance's rate budget.
    config.requests_per_minute = 100_000;
    // Edits under Review are answered `pending` at once: the bench decides them itself.
    config.approval_wait = Duration::from_millis(1);
    let service = DocsService::start(config).await.unwrap();

    let (server_io, client_io) = tokio::io::duplex(1 << 22);
    let handler = DocsMcp::new(service.clone(), "bench");
    tokio::spawn(async move {
        if let Ok(running) = handler.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bench", "1"),
    )
    .serve(client_io)
    .await
    .unwrap();
    let call = |tool: &'static str, args: Value| {
        let client = &client;
        async move {
            let result = client
                .call_tool(
                    CallToolRequestParams::new(tool)
                        .with_arguments(args.as_object().unwrap().clone()),
                )
                .await
                .unwrap();
            assert_ne!(result.is_error, Some(true), "{tool}: {:?}", result.content);
            result.structured_content.unwrap()
        }
    };

    // read_document on a cached (already open) 1 000-block document.
    let big = server
        .create_document(DocumentSpec::new("big").markdown(&markdown_of(1_000)))
        .await
        .unwrap()
        .to_string();
    call("get_outline", json!({"document": big})).await;
    let mut reads = vec![];
    let mut chars = 0;
    for _ in 0..30 {
        let start = Instant::now();
        let page = call(
            "read_document",
            json!({"document": big, "max_chars": 100_000}),
        )
        .await;
        reads.push(start.elapsed().as_secs_f64() * 1000.0);
        chars = page["markdown"].as_str().unwrap().len();
    }
    println!(
        "read_document_1000_blocks_median_ms: {:.1} (p99 {:.1}; {chars} bytes of markdown)",
        median(reads.clone()),
        p99(reads)
    );
    let mut outlines = vec![];
    for _ in 0..30 {
        let start = Instant::now();
        call("get_outline", json!({"document": big})).await;
        outlines.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    println!("get_outline_1000_blocks_median_ms: {:.1}", median(outlines));

    // insert_blocks until applied: acknowledged by the room (auto policy); saved later.
    let small = server
        .create_document(DocumentSpec::new("writes").markdown("Start"))
        .await
        .unwrap()
        .to_string();
    call("get_document", json!({"document": small})).await;
    let mut first = None;
    let mut inserts = vec![];
    for i in 0..20 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let start = Instant::now();
        let result = call(
            "insert_blocks",
            json!({"document": small, "position": {"at": "end"}, "markdown": format!("Line {i}")}),
        )
        .await;
        assert_eq!(result["status"], "applied");
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        first.get_or_insert(ms);
        inserts.push(ms);
    }
    println!(
        "insert_blocks_first_applied_ms: {:.1}\ninsert_blocks_applied_median_ms: {:.1} (saved together {:?} after the first)",
        first.unwrap(),
        median(inserts),
        docs_client::SessionOptions::default().save_interval
    );

    // "Approve all" of 49 pending edits: 7 in each of 7 documents (documents in parallel),
    // then 49 in one document; from the decision to every edit confirmed applied.
    for (documents, per_document) in [(7, 7), (1, 49)] {
        let mut pending = vec![];
        for d in 0..documents {
            let id = server
                .create_document(
                    DocumentSpec::new(&format!("review {d}")).markdown(&markdown_of(100)),
                )
                .await
                .unwrap();
            service
                .set_policy(Some(id), Some(Policy::Review))
                .await
                .unwrap();
            for i in 0..per_document {
                let result = call(
                    "insert_blocks",
                    json!({"document": id.to_string(), "position": {"at": "end"}, "markdown": format!("Proposal {i}")}),
                )
                .await;
                assert_eq!(result["status"], "pending");
                pending.push(result["edit_id"].as_str().unwrap().parse().unwrap());
            }
        }
        let start = Instant::now();
        let decided = service
            .decide_all(
                true,
                &pending,
                None,
                docs_mcp::record::Channel::Window,
                &tokio_util::sync::CancellationToken::new(),
            )
            .await
            .unwrap()
            .decided;
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        assert!(
            decided
                .iter()
                .all(|e| e.status == docs_mcp::record::EditStatus::Applied)
        );
        println!(
            "approve_all_{}_edits_in_{documents}_documents_ms: {ms:.0} (every one confirmed applied)",
            decided.len()
        );
    }

    // Memory of the service with 20 open documents of 1 000 blocks.
    let mut ids = vec![];
    for i in 0..20 {
        ids.push(
            server
                .create_document(
                    DocumentSpec::new(&format!("open {i}")).markdown(&markdown_of(1_000)),
                )
                .await
                .unwrap()
                .to_string(),
        );
    }
    let before = rss_kib();
    for id in &ids {
        call("get_document", json!({"document": id})).await;
    }
    let after = rss_kib();
    println!(
        "memory_20_open_documents_kib: {} ({} KiB per 1 000-block document; rss {after} KiB)",
        after.saturating_sub(before),
        after.saturating_sub(before) / 20
    );
    client.cancel().await.unwrap();
    service.shutdown().await;
    let _ = std::fs::remove_dir_all(data);
}
