//! Live-client figures against the Docs-like test server (real Hocuspocus 3.4.4):
//! connect+sync time by document size, write→ack latency (from the `write` call, as the
//! caller sees it), memory per open session.
//!
//! `cargo bench -p docs-client --bench live` — prints one `name: value` line per figure.

use std::time::{Duration, Instant};

use docs_client::{
    ClientConfig, DocsClient, DocumentSession, InstanceUrl, Presence, SessionOptions,
};
use test_harness::{DocsServer, DocumentSpec, ServerOptions, rss_kib};
use yrs::types::xml::{XmlElementPrelim, XmlOut, XmlTextPrelim};
use yrs::{WriteTxn, Xml, XmlFragment};

fn client(server: &DocsServer) -> DocsClient {
    let mut config = ClientConfig::new(InstanceUrl::parse(server.url()).unwrap());
    // The bench measures the protocol, not the instance's rate budget.
    config.requests_per_minute = 100_000;
    DocsClient::new(config).unwrap()
}

fn options() -> SessionOptions {
    SessionOptions {
        presence: Presence::new("bench"),
        sync_timeout: Duration::from_secs(120),
        ..SessionOptions::default()
    }
}

fn markdown_of(blocks: usize) -> String {
    (0..blocks)
        .map(|i| format!("Paragraph {i} with a few words of ordinary text in it."))
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn median(sorted: &[f64]) -> f64 {
    sorted[sorted.len() / 2]
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((sorted.len() as f64) * p).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}

fn append_paragraph(txn: &mut yrs::TransactionMut<'_>, text: &str) {
    let fragment = txn.get_or_insert_xml_fragment(docs_client::DOCUMENT_FRAGMENT);
    let group = match fragment.get(txn, 0) {
        Some(XmlOut::Element(group)) => group,
        _ => fragment.insert(txn, 0, XmlElementPrelim::empty("blockGroup")),
    };
    let container = group.push_back(txn, XmlElementPrelim::empty("blockContainer"));
    container.insert_attribute(txn, "id", uuid::Uuid::new_v4().to_string());
    let paragraph = container.push_back(txn, XmlElementPrelim::empty("paragraph"));
    paragraph.insert_attribute(txn, "backgroundColor", "default");
    paragraph.insert_attribute(txn, "textColor", "default");
    paragraph.insert_attribute(txn, "textAlignment", "left");
    paragraph.push_back(txn, XmlTextPrelim::new(text));
}

#[tokio::main]
async fn main() {
    let server = DocsServer::start_with(ServerOptions {
        throttle_rate: Some(0),
        ..ServerOptions::default()
    })
    .await
    .expect("the test server starts (run `npm ci --prefix tests/docs-server` first)");
    let client = client(&server);

    // Connect + sync: REST load, WebSocket handshake, first sync, by document size.
    for blocks in [100, 1_000, 10_000] {
        let id = server
            .create_document(DocumentSpec::new("bench").markdown(&markdown_of(blocks)))
            .await
            .unwrap();
        let runs = if blocks >= 10_000 { 3 } else { 7 };
        let mut times = vec![];
        for _ in 0..runs {
            let start = Instant::now();
            let session = DocumentSession::open(client.clone(), id, options())
                .await
                .unwrap();
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            session.close().await.unwrap();
        }
        let times = sorted(times);
        println!(
            "connect_sync_{blocks}_blocks_median_ms: {:.1} (runs: {runs})",
            median(&times)
        );
    }

    // Write → acknowledgement latency, one small paragraph at a time.
    let id = server
        .create_document(DocumentSpec::new("latency").markdown(&markdown_of(100)))
        .await
        .unwrap();
    let session = DocumentSession::open(client.clone(), id, options())
        .await
        .unwrap();
    let mut ack = vec![];
    let mut saved = vec![];
    for i in 0..300 {
        let mut write = session
            .write(move |txn| append_paragraph(txn, &format!("latency probe {i}")))
            .await
            .unwrap();
        ack.push(write.acknowledged().await.unwrap().as_secs_f64() * 1000.0);
        if i % 30 == 0 {
            saved.push(write.saved().await.unwrap().as_secs_f64() * 1000.0);
        }
    }
    let ack = sorted(ack);
    println!(
        "write_ack_median_ms: {:.2}\nwrite_ack_p99_ms: {:.2} (writes: {})",
        median(&ack),
        percentile(&ack, 0.99),
        ack.len()
    );
    let saved = sorted(saved);
    println!(
        "write_saved_median_ms: {:.1} (save_interval: {:?})",
        median(&saved),
        options().save_interval
    );
    session.close().await.unwrap();

    // Memory per open session (resident set growth / sessions), 1 000-block documents.
    let count = 20;
    let mut ids = vec![];
    for _ in 0..count {
        ids.push(
            server
                .create_document(DocumentSpec::new("memory").markdown(&markdown_of(1_000)))
                .await
                .unwrap(),
        );
    }
    let before = rss_kib();
    let mut sessions = vec![];
    for id in ids {
        sessions.push(
            DocumentSession::open(client.clone(), id, options())
                .await
                .unwrap(),
        );
    }
    let after = rss_kib();
    println!(
        "memory_per_session_1000_blocks_kib: {} (sessions: {count}, rss before {before} KiB, after {after} KiB)",
        after.saturating_sub(before) / count as u64
    );
    for session in sessions {
        session.close().await.unwrap();
    }
}
