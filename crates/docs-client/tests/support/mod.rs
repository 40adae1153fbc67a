//! Shared helpers of the live tests: clients for the test server, a minimal BlockNote
//! paragraph writer (the exact layout of `blocknote-yjs.md`), and readers of both sides.

#![allow(dead_code)] // each test binary uses its own subset

use std::future::Future;
use std::time::Duration;

use docs_client::{
    ClientConfig, DOCUMENT_FRAGMENT, DocsClient, InstanceUrl, Presence, Secret, SessionOptions,
};
use serde_json::Value;
use test_harness::{DocsServer, TestUser};
use yrs::types::xml::{XmlElementPrelim, XmlOut, XmlTextPrelim};
use yrs::{Doc, GetString, ReadTxn, Transact, TransactionMut, WriteTxn, Xml, XmlFragment};

pub fn anonymous_client(server: &DocsServer) -> DocsClient {
    DocsClient::new(ClientConfig::new(InstanceUrl::parse(server.url()).unwrap())).unwrap()
}

pub fn user_client(server: &DocsServer, user: &TestUser) -> DocsClient {
    let config = ClientConfig::new(InstanceUrl::parse(server.url()).unwrap()).with_session(
        Secret::new(&user.session_cookie),
        Some(Secret::new(&user.csrf_token)),
    );
    DocsClient::new(config).unwrap()
}

/// Options with fast reconnects, so tests of drops do not wait for production backoff.
pub fn fast_options(agent: &str) -> SessionOptions {
    SessionOptions {
        presence: Presence::new(agent),
        reconnect_initial: Duration::from_millis(100),
        reconnect_max: Duration::from_millis(500),
        save_interval: Duration::from_millis(200),
        ..SessionOptions::default()
    }
}

/// Appends a paragraph block exactly as BlockNote stores it; returns its block id.
pub fn append_paragraph(txn: &mut TransactionMut<'_>, text: &str) -> String {
    let fragment = txn.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let group = match fragment.get(txn, 0) {
        Some(XmlOut::Element(group)) => group,
        _ => fragment.insert(txn, 0, XmlElementPrelim::empty("blockGroup")),
    };
    let id = uuid::Uuid::new_v4().to_string();
    let container = group.push_back(txn, XmlElementPrelim::empty("blockContainer"));
    container.insert_attribute(txn, "id", id.clone());
    let paragraph = container.push_back(txn, XmlElementPrelim::empty("paragraph"));
    paragraph.insert_attribute(txn, "backgroundColor", "default");
    paragraph.insert_attribute(txn, "textColor", "default");
    paragraph.insert_attribute(txn, "textAlignment", "left");
    if !text.is_empty() {
        paragraph.push_back(txn, XmlTextPrelim::new(text));
    }
    id
}

/// The plain text of each top-level block of a live Y.Doc, in order.
pub fn block_texts(doc: &Doc) -> Vec<String> {
    let txn = doc.transact();
    let Some(fragment) = txn.get_xml_fragment(DOCUMENT_FRAGMENT) else {
        return Vec::new();
    };
    let Some(XmlOut::Element(group)) = fragment.get(&txn, 0) else {
        return Vec::new();
    };
    group
        .children(&txn)
        .filter_map(|container| match container {
            XmlOut::Element(container) => match container.get(&txn, 0) {
                Some(XmlOut::Element(content)) => Some(
                    content
                        .children(&txn)
                        .map(|child| match child {
                            XmlOut::Text(text) => text.get_string(&txn),
                            _ => String::new(),
                        })
                        .collect::<String>(),
                ),
                _ => Some(String::new()),
            },
            _ => None,
        })
        .collect()
}

/// The plain text of each top-level block as BlockNote's parser returns them.
pub fn blocknote_texts(blocks: &Value) -> Vec<String> {
    blocks
        .as_array()
        .expect("blocks are an array")
        .iter()
        .map(|block| {
            block["content"]
                .as_array()
                .map(|runs| {
                    runs.iter()
                        .map(|run| run["text"].as_str().unwrap_or_default())
                        .collect::<String>()
                })
                .unwrap_or_default()
        })
        .collect()
}

/// Polls `check` every 20 ms until it returns `Some`, or panics after `timeout`.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "docs_client=info".into()),
        )
        .with_test_writer()
        .try_init();
}
