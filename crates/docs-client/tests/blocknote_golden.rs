//! Golden tests of the BlockNote model against BlockNote 0.55's own parser (through the
//! Docs-like test server): what we read equals what BlockNote reads, what we write is parsed
//! by BlockNote exactly as meant, minimal diffs keep concurrent human typing.
//!
//! Discrepancies found between our model and BlockNote, and fixed in the model:
//! - Hard breaks in block JSON (`json::inline_json`): BlockNote appends a hard break as `"\n"`
//!   to the inline content it is building, whatever its styles, and into the last text of a
//!   link (`"a link\n"` inside the link); it starts a plain `"\n"` text only when nothing
//!   precedes the break. We emitted a separate plain `"\n"` text (merged only with plain
//!   neighbours), so a break after a link or styled text differed. Found by
//!   `every_writable_block_type_is_parsed_by_blocknote_as_written`.
//! - Set text trimmed the text's leading/trailing spaces (`markdown::import::parse_inline`
//!   went through block markdown, which trims): rewriting a block while a human's last typed
//!   character was a space deleted that space (" — typed" converged as " —typed"). Found by
//!   `minimal_diff_keeps_a_humans_concurrent_typing`; leading/trailing spaces are now kept.
//! - Everything else (ids, prop JSON types, numberedListItem `start` absent when undefined,
//!   link/colour marks, tables with headerRows/columnWidths/colspan, media and pdf defaults,
//!   callout emoji, interlinkingLinkInline props, codeBlock text) already matched exactly.

mod support;

use std::time::Duration;

use docs_client::DocumentSession;
use docs_client::blocknote::{
    self, ChildrenMode, EditorSchema, Inline, ModelError, NewBlock, NewContent, Position,
    PropValue, Props, Styles, TableCell, TableContent, TableRow, TextRun, Writing,
    json::blocks_json,
};
use serde_json::{Value, json};
use support::*;
use test_harness::{DocsServer, DocumentSpec, ServerOptions, TypistSpec};

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
                let (va, vb) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                if x.contains_key(k) != y.contains_key(k) {
                    return Some(format!(
                        "{path}.{k}: ours {:?} / blocknote {:?}",
                        x.get(k),
                        y.get(k)
                    ));
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

/// Closes the session (saving what it wrote) and returns what Docs stores, read by BlockNote,
/// after checking it is what our reader read.
async fn closed_as_stored(
    session: DocumentSession,
    server: &DocsServer,
    id: uuid::Uuid,
) -> test_harness::ParsedDocument {
    let ours = our_json(&session);
    session.close().await.unwrap();
    let stored = server.stored(id).await.unwrap();
    assert_same(&ours, &stored.blocks);
    stored
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

fn styled(text: &str, f: impl FnOnce(&mut Styles)) -> Inline {
    let mut s = Styles::default();
    f(&mut s);
    Inline::Text(TextRun::styled(text, s))
}

fn cell(header: bool, text: &str) -> TableCell {
    TableCell {
        header,
        props: Props::new(),
        colwidth: None,
        content: vec![Inline::Text(TextRun::plain(text))],
    }
}

fn every_writable_block() -> Vec<NewBlock> {
    let link = Inline::Text(TextRun {
        text: "a link".into(),
        link: Some("https://example.com/x?y=1".into()),
        ..Default::default()
    });
    let paragraph = NewBlock::new("paragraph")
        .prop("textColor", "red")
        .prop("backgroundColor", "yellow")
        .prop("textAlignment", "center")
        .inline(vec![
            Inline::Text(TextRun::plain("plain ")),
            styled("bold", |s| s.bold = true),
            styled(" italic", |s| s.italic = true),
            styled(" underline", |s| s.underline = true),
            styled(" strike", |s| s.strike = true),
            styled(" code", |s| s.code = true),
            styled(" red", |s| s.text_color = Some("red".into())),
            styled(" on blue", |s| s.background_color = Some("blue".into())),
            styled(" all", |s| {
                s.bold = true;
                s.italic = true;
                s.text_color = Some("green".into());
            }),
            Inline::Text(TextRun::plain(" ")),
            link,
            Inline::HardBreak,
            Inline::Text(TextRun::plain("after the break")),
        ]);
    let mut table_rows = vec![
        TableRow {
            cells: vec![cell(true, "Name"), cell(true, "Value")],
        },
        TableRow {
            cells: vec![cell(false, "spans two"), cell(false, "x")],
        },
        TableRow {
            cells: vec![cell(false, "a"), cell(false, "b")],
        },
    ];
    table_rows[0].cells[0].colwidth = Some(vec![180.0]);
    table_rows[1].cells[0]
        .props
        .insert("colspan".into(), PropValue::Number(2.0));
    table_rows[1].cells.pop();
    table_rows[2].cells[1]
        .props
        .insert("backgroundColor".into(), "purple".into());
    let mut interlink = Props::new();
    interlink.insert(
        "docId".into(),
        "0b3b8a1e-8d3c-4b7a-9f5e-1c2d3e4f5a6b".into(),
    );
    interlink.insert("title".into(), "Another doc".into());
    interlink.insert("trigger".into(), "/".into());
    interlink.insert("disabled".into(), false.into());
    vec![
        paragraph,
        NewBlock::new("heading").prop("level", 1).text("Heading 1"),
        NewBlock::new("heading")
            .prop("level", 2)
            .text("Heading *2*"),
        NewBlock::new("heading")
            .prop("level", 3)
            .prop("isToggleable", true)
            .text("Toggle heading 3")
            .child(NewBlock::new("paragraph").text("inside the toggle")),
        NewBlock::new("bulletListItem")
            .text("bullet")
            .child(NewBlock::new("bulletListItem").text("nested bullet")),
        NewBlock::new("numberedListItem")
            .prop("start", 5)
            .text("numbered from 5"),
        NewBlock::new("numberedListItem").text("numbered next"),
        NewBlock::new("checkListItem")
            .prop("checked", true)
            .text("checked"),
        NewBlock::new("checkListItem").text("unchecked"),
        NewBlock::new("toggleListItem")
            .text("toggle")
            .child(NewBlock::new("paragraph").text("hidden")),
        NewBlock::new("quote")
            .prop("textColor", "blue")
            .text("a quote"),
        NewBlock::new("codeBlock")
            .prop("language", "python")
            .text("def f(x):\n    return x * 2\n\nprint(f(**{'x': 1}))"),
        NewBlock::new("divider"),
        NewBlock::new("pageBreak"),
        NewBlock::new("image")
            .prop("url", "https://example.com/a.png")
            .prop("caption", "An image")
            .prop("name", "a.png")
            .prop("previewWidth", 320)
            .prop("textAlignment", "center"),
        NewBlock::new("video")
            .prop("url", "https://example.com/v.mp4")
            .prop("caption", "A video")
            .prop("name", "v.mp4")
            .prop("previewWidth", 480),
        NewBlock::new("audio")
            .prop("url", "https://example.com/s.mp3")
            .prop("caption", "A sound")
            .prop("name", "s.mp3"),
        NewBlock::new("file")
            .prop("url", "https://example.com/f.zip")
            .prop("caption", "A file")
            .prop("name", "f.zip"),
        NewBlock {
            content: Some(NewContent::Table(TableContent { rows: table_rows })),
            ..NewBlock::new("table")
        },
        NewBlock::new("callout")
            .prop("emoji", "🚀")
            .prop("backgroundColor", "green")
            .text("a **callout**"),
        NewBlock::new("pdf")
            .prop("url", "https://example.com/d.pdf")
            .prop("name", "d.pdf")
            .prop("caption", "A pdf")
            .prop("previewWidth", 600),
        // Hard breaks: leading, after styled text, and two in a row.
        NewBlock::new("paragraph").inline(vec![
            Inline::HardBreak,
            styled("bold", |s| s.bold = true),
            Inline::HardBreak,
            Inline::Text(TextRun::plain("plain")),
            Inline::HardBreak,
            Inline::HardBreak,
            styled("italic", |s| s.italic = true),
        ]),
        NewBlock::new("paragraph").inline(vec![
            Inline::Text(TextRun::plain("see ")),
            Inline::Element {
                kind: "interlinkingLinkInline".into(),
                attrs: interlink,
            },
            Inline::Text(TextRun::plain(" for more")),
        ]),
    ]
}

fn count_json(blocks: &Value) -> usize {
    blocks
        .as_array()
        .map(|a| a.iter().map(|b| 1 + count_json(&b["children"])).sum())
        .unwrap_or(0)
}

#[tokio::test]
async fn every_writable_block_type_is_parsed_by_blocknote_as_written() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("every type").markdown("Existing first block"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let frag = blocknote::document_fragment(session.doc());
    let receipt = session
        .write(move |txn| {
            blocknote::insert_blocks(txn, &frag, &Position::End, &every_writable_block())
        })
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    let ids = receipt.value.unwrap();
    let ours = our_json(&session);
    session.close().await.unwrap();
    let stored = server.stored(id).await.unwrap();
    let bn = &stored.blocks;

    // Nothing deleted or added by BlockNote: same number of blocks, recursively.
    assert_eq!(count_json(bn), 1 + ids.len());
    assert_eq!(count_json(&ours), count_json(bn));
    assert_same(&ours, bn);

    // Key values, checked explicitly against BlockNote's JSON.
    let by_type = |t: &str| -> Vec<&Value> {
        bn.as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == t)
            .collect()
    };
    let p = &bn[1];
    assert_eq!(p["props"]["textAlignment"], "center");
    let content = p["content"].as_array().unwrap();
    assert_eq!(
        content[0],
        json!({"type": "text", "text": "plain ", "styles": {}})
    );
    assert_eq!(content[1]["styles"], json!({"bold": true}));
    assert_eq!(content[3]["styles"], json!({"underline": true}));
    assert_eq!(content[5]["styles"], json!({"code": true}));
    assert_eq!(content[6]["styles"], json!({"textColor": "red"}));
    assert_eq!(content[7]["styles"], json!({"backgroundColor": "blue"}));
    assert_eq!(
        content[8]["styles"],
        json!({"bold": true, "italic": true, "textColor": "green"})
    );
    // A hard break is a "\n" appended to the text BlockNote is building: here the link's.
    assert_eq!(
        content[10],
        json!({"type": "link", "href": "https://example.com/x?y=1",
               "content": [{"type": "text", "text": "a link\n", "styles": {}}]})
    );
    assert_eq!(
        content[11],
        json!({"type": "text", "text": "after the break", "styles": {}})
    );
    let headings = by_type("heading");
    assert_eq!(headings[0]["props"]["level"], json!(1));
    assert_eq!(headings[2]["props"]["level"], json!(3));
    assert_eq!(headings[2]["props"]["isToggleable"], json!(true));
    assert_eq!(
        headings[2]["children"][0]["content"][0]["text"],
        "inside the toggle"
    );
    let numbered = by_type("numberedListItem");
    assert_eq!(numbered[0]["props"]["start"], json!(5));
    assert_eq!(numbered[1]["props"].get("start"), None);
    let checks = by_type("checkListItem");
    assert_eq!(checks[0]["props"]["checked"], json!(true));
    assert_eq!(checks[1]["props"]["checked"], json!(false));
    let code = &by_type("codeBlock")[0];
    assert_eq!(code["props"]["language"], "python");
    assert_eq!(
        code["content"][0]["text"],
        "def f(x):\n    return x * 2\n\nprint(f(**{'x': 1}))"
    );
    let image = &by_type("image")[0];
    assert_eq!(image["props"]["previewWidth"], json!(320));
    assert_eq!(image["props"]["showPreview"], json!(true));
    assert_eq!(image["props"]["url"], "https://example.com/a.png");
    assert_eq!(by_type("audio")[0]["props"]["name"], "s.mp3");
    assert_eq!(by_type("file")[0]["props"]["caption"], "A file");
    let table = &by_type("table")[0]["content"];
    assert_eq!(table["headerRows"], json!(1));
    assert_eq!(table["columnWidths"][0], json!(180));
    assert_eq!(table["rows"][1]["cells"][0]["props"]["colspan"], json!(2));
    assert_eq!(
        table["rows"][2]["cells"][1]["props"]["backgroundColor"],
        "purple"
    );
    let callout = &by_type("callout")[0];
    assert_eq!(callout["props"]["emoji"], "🚀");
    assert_eq!(callout["content"][1]["styles"], json!({"bold": true}));
    let pdf = &by_type("pdf")[0];
    assert_eq!(pdf["props"]["previewWidth"], json!(600));
    assert_eq!(pdf["props"]["url"], "https://example.com/d.pdf");
    let breaks = &bn[bn.as_array().unwrap().len() - 2]["content"];
    assert_eq!(
        breaks,
        &json!([
            {"type": "text", "text": "\n", "styles": {}},
            {"type": "text", "text": "bold\n", "styles": {"bold": true}},
            {"type": "text", "text": "plain\n\n", "styles": {}},
            {"type": "text", "text": "italic", "styles": {"italic": true}},
        ])
    );
    let last = bn.as_array().unwrap().last().unwrap();
    assert_eq!(last["content"][1]["type"], "interlinkingLinkInline");
    assert_eq!(last["content"][1]["props"]["title"], "Another doc");
    assert_eq!(last["content"][1]["props"]["disabled"], json!(false));
}

/// Math and diagram blocks and inline math as BlockNote stores them (Docs 5.6's specs), and
/// a paragraph of dollars without math.
fn math_blocks_json() -> Value {
    json!([
        {"type": "mathBlock", "content": "E = mc^2\n\\frac{a}{b}"},
        {"type": "diagram", "content": "sequenceDiagram\n  Alice->>Bob: Hi\n\n  Bob-->>Alice: Hello"},
        {"type": "paragraph", "content": [
            {"type": "text", "text": "Area ", "styles": {}},
            {"type": "math", "content": "\\pi r^2"},
            {"type": "text", "text": " of a disc, ", "styles": {}},
            {"type": "text", "text": "for $5.", "styles": {"italic": true}},
        ]},
        {"type": "codeBlock", "props": {"language": "mermaid"}, "content": "graph LR\n  A --> B"},
        {"type": "mathBlock"},
        {"type": "paragraph", "content": "Costs $5, or $x$ and $10"},
    ])
}

fn block_ids(session: &DocumentSession) -> Vec<String> {
    let frag = blocknote::document_fragment(session.doc());
    let txn = yrs::Transact::transact(session.doc());
    blocknote::read_document(&txn, &frag)
        .blocks
        .iter()
        .map(|b| b.id.clone())
        .collect()
}

#[tokio::test]
async fn math_and_diagrams_seeded_by_blocknote_read_as_blocknote_reads_them() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("math").blocks(math_blocks_json()))
        .await
        .unwrap();
    let stored = server.stored(id).await.unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    assert_same(&our_json(&session), &stored.blocks);
    let document = {
        let frag = blocknote::document_fragment(session.doc());
        blocknote::read_document(&yrs::Transact::transact(session.doc()), &frag)
    };
    session.close().await.unwrap();
    // Typed, not opaque; inline math with its LaTeX.
    assert!(document.blocks.iter().all(|b| !b.is_opaque()));
    assert_eq!(
        document.blocks[2].inline().unwrap()[1],
        Inline::Math {
            latex: "\\pi r^2".into()
        }
    );
    // Our markdown: what BlockNote's own export writes, but for dollars in text next to
    // inline math (escaped, so a rewrite of that text reads them back as text and keeps the
    // formula) and the empty math block (`$$` lines BlockNote separates with a blank line,
    // which would read back as two paragraphs). Dollars elsewhere stay as they are.
    let ours = blocknote::export_markdown(&document.blocks, &Default::default());
    assert_eq!(ours.fidelity, vec![]);
    assert_eq!(
        ours.markdown,
        "$$\nE = mc^2\n\\frac{a}{b}\n$$\n\n\
         ```mermaid\nsequenceDiagram\n  Alice->>Bob: Hi\n\n  Bob-->>Alice: Hello\n```\n\n\
         Area $\\pi r^2$ of a disc, *for \\$5.*\n\n\
         ```mermaid\ngraph LR\n  A --> B\n```\n\n$$\n$$\n\n\
         Costs $5, or $x$ and $10\n"
    );
    assert_eq!(
        stored.markdown,
        "$$\nE = mc^2\n\\frac{a}{b}\n$$\n\n\
         ```mermaid\nsequenceDiagram\n  Alice->>Bob: Hi\n\n  Bob-->>Alice: Hello\n```\n\n\
         Area $\\pi r^2$ of a disc, *for $5.*\n\n\
         ```mermaid\ngraph LR\n  A --> B\n```\n\n$$\n\n$$\n\n\
         Costs $5, or $x$ and $10\n"
    );
}

#[tokio::test]
async fn before_5_6_math_and_diagrams_are_not_written_their_markdown_is_text_and_code() {
    let server = DocsServer::start_with(ServerOptions {
        docs_version: Some("5.5.0".into()),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    assert_eq!(
        anonymous_client(&server).editor_schema().await,
        EditorSchema::BASE
    );
    let id = server
        .create_document(DocumentSpec::new("math md").markdown("Existing first block"))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    // Typed math and diagram blocks are refused, saying why; their markdown is text and code
    // blocks, as before math and diagrams.
    let markdown = "$$\n\\sum_{i=1}^n i = \\frac{n(n+1)}{2}\n$$\n\n\
                    ```mermaid\nflowchart LR\n  A --> B\n```\n\n\
                    ```math\na\n\n- b\n```\n\n\
                    Inline $e^{i\\pi}$ and **$x$** cost \\$5, or $5,$10.\n";
    let blocks = blocknote::import_markdown(markdown).unwrap();
    let frag = blocknote::document_fragment(session.doc());
    let refused = session
        .write(move |txn| {
            let refused = ["mathBlock", "diagram"].map(|kind| {
                blocknote::insert_blocks(
                    txn,
                    &frag,
                    &Position::End,
                    &[NewBlock::new(kind).text("x")],
                )
                .unwrap_err()
            });
            blocknote::insert_blocks(txn, &frag, &Position::End, &blocks).map(|_| refused)
        })
        .await
        .unwrap()
        .wait()
        .await
        .unwrap()
        .value
        .unwrap();
    for (error, kind) in refused.iter().zip(["mathBlock", "diagram"]) {
        assert!(
            matches!(error, ModelError::NotWritable { block_type, .. } if block_type == kind),
            "{error}"
        );
        assert!(
            error.to_string().contains(
                "math and diagram blocks are in Docs' editor from 5.6 on, and this instance's \
                 release is older (or unknown)"
            ),
            "{error}"
        );
    }
    let stored = closed_as_stored(session, &server, id).await;
    let bn = stored.blocks.as_array().unwrap();
    assert_eq!(bn.len(), 5);
    assert_eq!(
        bn[1]["content"],
        json!([{"type": "text", "text": "$$ \\sum_{i=1}^n i = \\frac{n(n+1)}{2} $$", "styles": {}}])
    );
    assert_eq!(
        (&bn[2]["type"], &bn[2]["props"]["language"]),
        (&json!("codeBlock"), &json!("mermaid"))
    );
    assert_eq!(bn[2]["content"][0]["text"], "flowchart LR\n  A --> B");
    assert_eq!(
        (&bn[3]["type"], &bn[3]["props"]["language"]),
        (&json!("codeBlock"), &json!("math"))
    );
    assert_eq!(bn[3]["content"][0]["text"], "a\n\n- b");
    assert_eq!(
        bn[4]["content"],
        json!([
            {"type": "text", "text": "Inline $e^{i\\pi}$ and ", "styles": {}},
            {"type": "text", "text": "$x$", "styles": {"bold": true}},
            {"type": "text", "text": " cost $5, or $5,$10.", "styles": {}},
        ])
    );
}

#[tokio::test]
async fn rewrites_keep_math_and_diagrams_as_blocknote_reads_them() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("math edits").blocks(math_blocks_json()))
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let ids = block_ids(&session);
    let frag = blocknote::document_fragment(session.doc());
    let ops = ids.clone();
    let refused = session
        .write(move |txn| {
            let document = blocknote::read_document(txn, &frag);
            // Math and diagram blocks: their text and type are not edited, nothing becomes
            // one.
            let refused = [
                blocknote::set_block_text(txn, &frag, &ops[0], "e^{i\\pi} + 1 = 0"),
                blocknote::set_block_text(txn, &frag, &ops[1], "graph TD\n  X --> Y"),
                blocknote::update_block(txn, &frag, &ops[4], Some("paragraph"), &Props::new()),
                blocknote::update_block(txn, &frag, &ops[3], Some("diagram"), &Props::new()),
            ];
            // The paragraph's words change around its inline math, as an agent would rewrite
            // the markdown it read.
            let text = blocknote::inline_markdown(&document.blocks[2]).replace("disc", "circle");
            blocknote::set_block_text(txn, &frag, &ops[2], &text)?;
            // New inline math is text.
            let text = format!(
                "{}, now $\\alpha$",
                blocknote::inline_markdown(&document.blocks[5])
            );
            blocknote::set_block_text(txn, &frag, &ops[5], &text)?;
            // A math block is deleted like any block.
            blocknote::delete_blocks(txn, &frag, &ops[4..5], ChildrenMode::Delete)?;
            Ok::<_, blocknote::ModelError>(refused)
        })
        .await
        .unwrap()
        .wait()
        .await
        .unwrap()
        .value
        .unwrap();
    for error in refused {
        assert!(
            matches!(error, Err(ModelError::NotWritable { .. })),
            "{error:?}"
        );
    }
    let stored = closed_as_stored(session, &server, id).await;
    let seeded = math_blocks_json();
    let bn = stored.blocks.as_array().unwrap();
    assert_eq!(bn.len(), 5);
    assert_eq!(bn[0]["content"][0]["text"], seeded[0]["content"]);
    assert_eq!(bn[1]["content"][0]["text"], seeded[1]["content"]);
    assert_eq!(
        bn[2]["content"],
        json!([
            {"type": "text", "text": "Area ", "styles": {}},
            {"type": "math", "props": {}, "content": "\\pi r^2"},
            {"type": "text", "text": " of a circle, ", "styles": {}},
            {"type": "text", "text": "for $5.", "styles": {"italic": true}},
        ])
    );
    assert_eq!(
        (
            &bn[3]["type"],
            &bn[3]["props"]["language"],
            &bn[3]["content"][0]["text"]
        ),
        (
            &json!("codeBlock"),
            &json!("mermaid"),
            &json!("graph LR\n  A --> B")
        )
    );
    assert_eq!(
        bn[4]["content"],
        json!([{"type": "text", "text": "Costs $5, or $x$ and $10, now $\\alpha$", "styles": {}}])
    );
}

/// A markdown list nested `depth` levels deep, one item (`l1`, `l2`...) a line.
fn nested_list(depth: usize) -> String {
    (1..=depth)
        .map(|level| format!("{}- l{level}\n", "  ".repeat(level - 1)))
        .collect()
}

/// The texts of a document's first block and its first descendants, as we read them, and the
/// content of the deepest one.
fn first_descendants(session: &DocumentSession) -> (Vec<String>, blocknote::BlockContent) {
    let frag = blocknote::document_fragment(session.doc());
    let document = blocknote::read_document(&yrs::Transact::transact(session.doc()), &frag);
    let mut block = &document.blocks[0];
    let mut texts = vec![block.plain_text()];
    while let Some(child) = block.children.first() {
        block = child;
        texts.push(block.plain_text());
    }
    (texts, block.content.clone())
}

#[tokio::test]
async fn a_list_nested_past_the_limit_reads_to_the_limit_and_keeps_the_rest() {
    // Seeded through BlockNote 70 levels deep, the list reads to the 64th level, which is
    // opaque and hides 6; an edit above it is saved and leaves the rest intact. (BlockNote's
    // own reading of it cannot be compared: its JSON is deeper than serde_json's recursion
    // limit of 128, two levels a block.)
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("deep").markdown(&nested_list(70)))
        .await
        .unwrap();
    let levels: Vec<String> = (1..=64).map(|level| format!("l{level}")).collect();
    let hidden = blocknote::BlockContent::Opaque {
        text: "l64".into(),
        hidden_blocks: 6,
    };
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    assert_eq!(
        first_descendants(&session),
        (levels.clone(), hidden.clone())
    );
    let frag = blocknote::document_fragment(session.doc());
    let above = blocknote::read_document(&yrs::Transact::transact(session.doc()), &frag)
        .all_blocks()[62]
        .id
        .clone();
    session
        .write(move |txn| blocknote::set_block_text(txn, &frag, &above, "l63 **edited**"))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap()
        .value
        .unwrap();
    session.close().await.unwrap();
    let reopened = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let mut edited = levels;
    edited[62] = "l63 edited".into();
    assert_eq!(first_descendants(&reopened), (edited, hidden));
    reopened.close().await.unwrap();
}

fn block_text(session: &DocumentSession, id: &str) -> Option<String> {
    let doc = session.doc();
    let frag = blocknote::document_fragment(doc);
    let txn = yrs::Transact::transact(doc);
    blocknote::read_document(&txn, &frag)
        .find(id)
        .map(|b| b.plain_text())
}

fn bn_text(block: &Value) -> String {
    block["content"]
        .as_array()
        .map(|runs| {
            runs.iter()
                .map(|r| r["text"].as_str().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn minimal_diff_keeps_a_humans_concurrent_typing() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("typing").markdown("The quick brown fox jumps over the lazy dog"),
        )
        .await
        .unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    let block_id = {
        let frag = blocknote::document_fragment(session.doc());
        let txn = yrs::Transact::transact(session.doc());
        blocknote::read_document(&txn, &frag).blocks[0].id.clone()
    };
    let typed = " — typed by a human";
    let typist = server
        .start_typist(TypistSpec::new(id, typed).block(&block_id).interval_ms(15))
        .await
        .unwrap();
    // Wait until the human's first characters reached us, then edit while they type.
    eventually("the human to start typing", WAIT, || async {
        block_text(&session, &block_id).filter(|t| t.len() > 45)
    })
    .await;
    let frag = blocknote::document_fragment(session.doc());
    let (fragment, block) = (frag.clone(), block_id.clone());
    let pending = session
        .write(move |txn| {
            let doc = blocknote::read_document(txn, &fragment);
            let current = doc.find(&block).unwrap().plain_text();
            let new = current
                .replacen("quick", "slow", 1)
                .replacen("lazy", "**lazy**", 1);
            blocknote::set_block_text(txn, &fragment, &block, &new).map(|_| current)
        })
        .await
        .unwrap();
    let before = pending.value().as_ref().unwrap().clone();
    assert!(
        before.len() < "The quick brown fox jumps over the lazy dog".len() + typed.len(),
        "the edit happened while the human was typing: {before:?}"
    );
    pending.wait().await.unwrap();
    let status = typist.wait_done(WAIT).await.unwrap();
    assert_eq!(status.error, None);
    assert_eq!(status.typed as usize, typed.chars().count());

    let expected = format!("The slow brown fox jumps over the lazy dog{typed}");
    let live = eventually("the room to converge", WAIT, || async {
        server
            .live(id)
            .await
            .unwrap()
            .filter(|d| bn_text(&d.blocks[0]) == expected)
    })
    .await;
    eventually("our copy to converge", WAIT, || async {
        (block_text(&session, &block_id).as_deref() == Some(expected.as_str())).then_some(())
    })
    .await;
    let content = live.blocks[0]["content"].as_array().unwrap();
    assert_eq!(
        content
            .iter()
            .find(|r| r["styles"]["bold"] == json!(true))
            .map(|r| r["text"].clone()),
        Some(json!("lazy"))
    );
    assert_same(&our_json(&session), &live.blocks);

    // Deterministically, the race this test once lost: the agent rewrote the text while it
    // ended with the space the human had just typed, and markdown trimmed it (" —typed").
    // `parse_inline` now keeps leading/trailing spaces, so they survive a rewrite.
    let spaced = format!("  {} ", expected.replacen("lazy", "**lazy**", 1));
    let (fragment, block) = (frag.clone(), block_id.clone());
    session
        .write(move |txn| blocknote::set_block_text(txn, &fragment, &block, &spaced))
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    let want = format!("  {expected} ");
    assert_eq!(
        block_text(&session, &block_id).as_deref(),
        Some(want.as_str())
    );
    let live = eventually("the room to see the spaces", WAIT, || async {
        server
            .live(id)
            .await
            .unwrap()
            .filter(|d| bn_text(&d.blocks[0]) == want)
    })
    .await;
    assert_same(&our_json(&session), &live.blocks);
    session.close().await.unwrap();
}

/// A small deterministic generator (xorshift), so failures are reproducible by seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn all_ids(session: &DocumentSession) -> Vec<String> {
    let frag = blocknote::document_fragment(session.doc());
    let txn = yrs::Transact::transact(session.doc());
    blocknote::read_document(&txn, &frag)
        .all_blocks()
        .iter()
        .map(|b| b.id.clone())
        .collect()
}

fn random_position(rng: &mut Rng, ids: &[String]) -> Position {
    if ids.is_empty() {
        return Position::End;
    }
    let id = ids[rng.below(ids.len())].clone();
    match rng.below(6) {
        0 => Position::Start,
        1 => Position::End,
        2 => Position::Before { id },
        3 => Position::After { id },
        4 => Position::FirstChildOf { id },
        _ => Position::LastChildOf { id },
    }
}

fn random_block(rng: &mut Rng, depth: usize) -> NewBlock {
    let words = [
        "alpha",
        "**beta**",
        "*gamma*",
        "`delta`",
        "[eps](https://e.x)",
    ];
    let text = format!("{} {}", words[rng.below(5)], words[rng.below(5)]);
    let mut b = match rng.below(6) {
        0 => NewBlock::new("heading").prop("level", (1 + rng.below(3)) as i64),
        1 => NewBlock::new("bulletListItem"),
        2 => NewBlock::new("numberedListItem"),
        3 => NewBlock::new("checkListItem").prop("checked", rng.below(2) == 0),
        4 => NewBlock::new("quote"),
        _ => NewBlock::new("paragraph"),
    }
    .text(text);
    if depth < 2 && rng.below(3) == 0 {
        for _ in 0..=rng.below(2) {
            b = b.child(random_block(rng, depth + 1));
        }
    }
    b
}

/// One operation of the random test, drawn before it runs.
enum RandomOp {
    Insert(Position, Vec<NewBlock>),
    Delete(String, ChildrenMode),
    Move(String, Position),
    Update(String, &'static str, Props),
    SetText(String),
}

impl RandomOp {
    fn apply(
        self,
        txn: &mut yrs::TransactionMut<'_>,
        frag: &yrs::XmlFragmentRef,
    ) -> Result<(), blocknote::error::ModelError> {
        match self {
            RandomOp::Insert(pos, blocks) => {
                blocknote::insert_blocks(txn, frag, &pos, &blocks).map(|_| ())
            }
            RandomOp::Delete(target, mode) => blocknote::delete_blocks(txn, frag, &[target], mode),
            RandomOp::Move(target, pos) => blocknote::move_block(txn, frag, &target, &pos),
            RandomOp::Update(target, ty, props) => {
                blocknote::update_block(txn, frag, &target, Some(ty), &props)
            }
            RandomOp::SetText(target) => {
                blocknote::set_block_text(txn, frag, &target, "new **text** here")
            }
        }
    }
}

#[tokio::test]
async fn random_operations_parse_in_blocknote_with_the_expected_block_count() {
    let server = DocsServer::start().await.unwrap();
    for seed in 1..=8u64 {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let id = server
            .create_document(DocumentSpec::new("random").markdown("# Start\n\n- one\n- two"))
            .await
            .unwrap();
        let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
            .await
            .unwrap();
        let frag = blocknote::document_fragment(session.doc());
        let mut log = vec![];
        for _ in 0..12 {
            let ids = all_ids(&session);
            let pick = |rng: &mut Rng| ids[rng.below(ids.len())].clone();
            // The operation is drawn first; the write then runs it on the session's task.
            let op = match rng.below(5) {
                0 => {
                    let pos = random_position(&mut rng, &ids);
                    let blocks: Vec<NewBlock> = (0..=rng.below(2))
                        .map(|_| random_block(&mut rng, 0))
                        .collect();
                    log.push(format!("insert {} at {pos:?}", blocks.len()));
                    RandomOp::Insert(pos, blocks)
                }
                1 => {
                    let target = pick(&mut rng);
                    let mode = if rng.below(2) == 0 {
                        ChildrenMode::Delete
                    } else {
                        ChildrenMode::Lift
                    };
                    log.push(format!("delete {target} {mode:?}"));
                    RandomOp::Delete(target, mode)
                }
                2 => {
                    let target = pick(&mut rng);
                    let pos = random_position(&mut rng, &ids);
                    log.push(format!("move {target} to {pos:?}"));
                    RandomOp::Move(target, pos)
                }
                3 => {
                    let target = pick(&mut rng);
                    let (ty, props): (&str, Props) = match rng.below(3) {
                        0 => (
                            "heading",
                            [("level".to_string(), PropValue::Number(2.0))].into(),
                        ),
                        1 => (
                            "paragraph",
                            [("textColor".to_string(), "red".into())].into(),
                        ),
                        _ => (
                            "checkListItem",
                            [("checked".to_string(), true.into())].into(),
                        ),
                    };
                    log.push(format!("update {target} to {ty}"));
                    RandomOp::Update(target, ty, props)
                }
                _ => {
                    let target = pick(&mut rng);
                    log.push(format!("set_text {target}"));
                    RandomOp::SetText(target)
                }
            };
            let fragment = frag.clone();
            let result = session
                .write(move |txn| op.apply(txn, &fragment))
                .await
                .unwrap();
            let last = log.last_mut().unwrap();
            if let Err(e) = result.value() {
                // Refused operations (e.g. moving a block into itself) change nothing.
                last.push_str(&format!(" -> refused: {e}"));
            }
            result.wait().await.unwrap();
        }
        let ours = our_json(&session);
        session.close().await.unwrap();
        let stored = server.stored(id).await.unwrap();
        assert_eq!(
            count_json(&stored.blocks),
            count_json(&ours),
            "seed {seed}, operations:\n{}",
            log.join("\n")
        );
        assert_same(&ours, &stored.blocks);
    }
}

/// Docs' user mentions (on its branch, not released): a `userMentionInline {userId,
/// fullName}` reads as `@Full Name`, as BlockNote reads it; a rewrite of the text around it
/// keeps it where its `@Full Name` stays; a `@Name` an agent writes is text, never a mention.
#[tokio::test]
async fn user_mentions_read_as_at_names_and_are_kept_through_a_rewrite_never_made() {
    let server = DocsServer::start().await.unwrap();
    let mention = json!({"type": "userMentionInline", "props": {"userId": "u-ada", "fullName": "Ada Lovelace"}});
    let id = server
        .create_document(DocumentSpec::new("mentions").blocks(json!([
            {"type": "paragraph", "content": [
                {"type": "text", "text": "Ask ", "styles": {}},
                mention,
                {"type": "text", "text": " about it", "styles": {}},
            ]},
        ])))
        .await
        .unwrap();
    let seeded = server.stored(id).await.unwrap();
    let session = DocumentSession::open(anonymous_client(&server), id, fast_options("Agent"))
        .await
        .unwrap();
    assert_same(&our_json(&session), &seeded.blocks);
    let frag = blocknote::document_fragment(session.doc());
    let document = blocknote::read_document(&yrs::Transact::transact(session.doc()), &frag);
    assert_eq!(
        blocknote::export_markdown(&document.blocks, &Default::default()).markdown,
        "Ask @Ada Lovelace about it\n"
    );
    let block = document.blocks[0].id.clone();
    let written = frag.clone();
    session
        .write(move |txn| {
            blocknote::set_block_text(
                txn,
                &written,
                &block,
                "Please ask @Ada Lovelace about it today, and @Grace Hopper",
            )?;
            blocknote::insert_blocks(
                txn,
                &written,
                &Position::End,
                &blocknote::import_markdown("Thanks @Ada Lovelace")?,
            )
            .map(drop)
        })
        .await
        .unwrap()
        .wait()
        .await
        .unwrap()
        .value
        .unwrap();
    let stored = closed_as_stored(session, &server, id).await;
    let blocks = stored.blocks.as_array().unwrap();
    assert_eq!(
        blocks[0]["content"],
        json!([
            {"type": "text", "text": "Please ask ", "styles": {}},
            {"type": "userMentionInline", "props": {"userId": "u-ada", "fullName": "Ada Lovelace"}},
            {"type": "text", "text": " about it today, and @Grace Hopper", "styles": {}},
        ])
    );
    assert_eq!(
        blocks[1]["content"],
        json!([{"type": "text", "text": "Thanks @Ada Lovelace", "styles": {}}])
    );
}

/// To an instance from 5.6 on (the test server is 5.7.0), markdown's math and diagrams are
/// written — a math block, a diagram, inline math — and a math block's source rewritten, and
/// BlockNote reads them back as written.
#[tokio::test]
async fn from_5_6_math_and_diagrams_are_written_as_blocknote_reads_them() {
    let server = DocsServer::start().await.unwrap();
    let client = anonymous_client(&server);
    let schema = client.editor_schema().await;
    assert_eq!(schema, EditorSchema::WITH_MATH_AND_DIAGRAMS);
    let id = server
        .create_document(DocumentSpec::new("math written").markdown("Existing first block"))
        .await
        .unwrap();
    let session = DocumentSession::open(client, id, fast_options("Agent"))
        .await
        .unwrap();
    let markdown = "$$\n\\sum_{i=1}^n i\n$$\n\n\
                    ```mermaid\nflowchart LR\n  A --> B\n```\n\n\
                    Inline $e^{i\\pi}$ costs \\$5.\n";
    let blocks = blocknote::import_markdown_in(markdown, schema).unwrap();
    let frag = blocknote::document_fragment(session.doc());
    let writing = Writing::new_content(schema);
    session
        .write(move |txn| {
            let ids = blocknote::insert_blocks_in(txn, &frag, &Position::End, &blocks, writing)?;
            let source = NewContent::Markdown("E = mc^2".into());
            blocknote::set_block_content_in(txn, &frag, &ids[0], &source, writing)
        })
        .await
        .unwrap()
        .wait()
        .await
        .unwrap()
        .value
        .unwrap();
    let stored = closed_as_stored(session, &server, id).await;
    let bn = stored.blocks.as_array().unwrap();
    assert_eq!(bn.len(), 4);
    assert_eq!(
        (&bn[1]["type"], &bn[1]["content"]),
        (
            &json!("mathBlock"),
            &json!([{"type": "text", "text": "E = mc^2", "styles": {}}])
        )
    );
    assert_eq!(
        (&bn[2]["type"], &bn[2]["content"]),
        (
            &json!("diagram"),
            &json!([{"type": "text", "text": "flowchart LR\n  A --> B", "styles": {}}])
        )
    );
    assert_eq!(
        bn[3]["content"],
        json!([
            {"type": "text", "text": "Inline ", "styles": {}},
            {"type": "math", "props": {}, "content": "e^{i\\pi}"},
            {"type": "text", "text": " costs $5.", "styles": {}},
        ])
    );
}
