//! Golden tests of the BlockNote model against BlockNote 0.55's own parser (through the
//! Docs-like test server): what we read equals what BlockNote reads, what we write is parsed
//! by BlockNote exactly as meant, minimal diffs keep concurrent human typing.
//!
//! Discrepancies found between our model and BlockNote, and fixed in the model:
//! (listed at each test)

mod support;

use std::time::Duration;

use docs_client::DocumentSession;
use docs_client::blocknote::{self, json::blocks_json};
use serde_json::{Value, json};
use support::*;
use test_harness::{DocsServer, DocumentSpec};

const WAIT: Duration = Duration::from_secs(20);

fn our_json(session: &DocumentSession) -> Value {
    let doc = session.doc();
    let frag = blocknote::document_fragment(doc);
    let txn = yrs::Transact::transact(doc);
    blocks_json(&blocknote::read_document(&txn, &frag).blocks)
}

/// Prints the first difference between two JSON values, for readable failures.
fn first_diff(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (va, vb) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                if x.contains_key(k) != y.contains_key(k) {
                    return Some(format!("{path}.{k}: ours {:?} / blocknote {:?}", x.get(k), y.get(k)));
                }
                if let Some(d) = first_diff(&format!("{path}.{k}"), va, vb) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_diff(&format!("{path}[{i}]"), va, vb) {
                    return Some(d);
                }
            }
            (x.len() != y.len())
                .then(|| format!("{path}: length ours {} / blocknote {}", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path}: ours {a} / blocknote {b}")),
    }
}

fn assert_same(ours: &Value, blocknote: &Value) {
    if let Some(d) = first_diff("", ours, blocknote) {
        panic!(
            "differs at {d}\nours: {}\nblocknote: {}",
            serde_json::to_string_pretty(ours).unwrap(),
            serde_json::to_string_pretty(blocknote).unwrap()
        );
    }
}

const RICH_MARKDOWN: &str = "# Heading one

## Heading two

### Heading three

Some **bold**, *italic*, ~~struck~~, `code` and a [link](https://example.com/page) here.

- bullet one
  - nested bullet
    - deeper bullet
- bullet two

1. first
2. second
   1. nested numbered

- [ ] todo item
- [x] done item

```rust
fn main() {
    println!(\"hi\");
}
```

> A quoted line

| Name | Value |
| --- | --- |
| a | **1** |
| b | 2 |

---

Last paragraph.
";

#[tokio::test]
async fn seeded_markdown_reads_as_the_expected_tree() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("rich").markdown(RICH_MARKDOWN))
        .await
        .unwrap();
    let stored = server.stored(id).await.unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let ours = our_json(&session);
    assert_same(&ours, &stored.blocks);
    session.close().await.unwrap();
}
