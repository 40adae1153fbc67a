//! Every tool end to end: a real MCP client (rmcp) talks to the service, which edits
//! documents of the Docs-like test server (real Hocuspocus 3.4.4); what lands is judged by
//! BlockNote's own parser on the server.

mod support;

use std::time::Duration;

use docs_mcp::DocsService;
use docs_mcp::record::{Channel, EditFilter, EditStatus, Policy};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use support::*;
use test_harness::{Collaboration, DocsServer, DocumentSpec, ServerOptions, TypistSpec};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

const REPORT: &str = "# Report\n\nIntro paragraph.\n\n## Findings\n\nThe quick brown fox.\n\nSecond finding.\n\n## Next steps\n\n- [ ] call Ada\n- [x] write notes";

#[tokio::test]
async fn tools_are_listed_with_hints_descriptions_and_flat_input_schemas() {
    let server = DocsServer::start().await.unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let tools = agent.client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "add_comment",
            "apply_edits",
            "create_document",
            "delete_blocks",
            "edit_status",
            "get_changes",
            "get_document",
            "get_history",
            "get_outline",
            "insert_blocks",
            "list_comments",
            "list_documents",
            "list_sessions",
            "move_block",
            "my_edits",
            "read_document",
            "reopen_comment",
            "replace_text",
            "reply_comment",
            "resolve_comment",
            "search",
            "undo_edit",
            "update_block",
            "withdraw_edit"
        ]
    );
    for tool in &tools {
        let name = tool.name.as_ref();
        assert!(
            tool.description.as_ref().is_some_and(|d| d.len() > 20),
            "{name} needs a description"
        );
        let hints = tool.annotations.as_ref().expect("annotations");
        let read_only = hints.read_only_hint.expect("read_only_hint set");
        assert!(hints.destructive_hint.is_some(), "{name}: destructive_hint");
        assert!(hints.idempotent_hint.is_some(), "{name}: idempotent_hint");
        let writes = !matches!(
            name,
            "list_documents"
                | "search"
                | "get_document"
                | "read_document"
                | "get_outline"
                | "get_changes"
                | "list_sessions"
                | "edit_status"
                | "list_comments"
                | "get_history"
                | "my_edits"
        );
        assert_eq!(read_only, !writes, "{name}: read-only hint");
        let schema = serde_json::to_value(&*tool.input_schema).unwrap();
        for key in ["oneOf", "anyOf", "allOf"] {
            assert!(schema.get(key).is_none(), "{name}: top-level {key}");
        }
        assert_eq!(schema["type"], "object", "{name}");
        assert!(tool.output_schema.is_some(), "{name}: output schema");
    }
}

#[tokio::test]
async fn reading_outline_sections_pages_and_blocks() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Report").markdown(REPORT))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let url = format!("{}/docs/{id}/", server.url());

    let info = agent.ok("get_document", json!({"document": url})).await;
    assert_eq!(info["id"], id.to_string());
    assert_eq!(info["title"], "Report");
    assert_eq!(info["read_only"], false);
    assert_eq!(info["policy"], "auto");
    assert_eq!(
        (info["blocks"].as_u64(), info["headings"].as_u64()),
        (Some(8), Some(3))
    );

    let outline = agent
        .ok("get_outline", json!({"document": id.to_string()}))
        .await;
    let top = &outline["headings"][0];
    assert_eq!(top["text"], "Report");
    let sections: Vec<&str> = top["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].as_str().unwrap())
        .collect();
    assert_eq!(sections, ["Findings", "Next steps"]);
    assert_eq!(top["children"][0]["blocks"], 3);

    let section = agent
        .ok(
            "read_document",
            json!({"document": id.to_string(), "section": "Findings", "anchors": false}),
        )
        .await;
    assert_eq!(
        section["markdown"].as_str().unwrap().trim_end(),
        "## Findings\n\nThe quick brown fox.\n\nSecond finding."
    );
    assert_eq!(section["truncated"], false);

    // Paging: a small budget, followed by next_block_id, yields every block once.
    let mut ids = vec![];
    let mut from: Option<String> = None;
    for _ in 0..10 {
        let mut args = json!({"document": id.to_string(), "max_chars": 500, "anchors": false});
        if let Some(from) = &from {
            args["from_block"] = json!(from);
        }
        let page = agent.ok("read_document", args.clone()).await;
        // With the anchors (the default), the ids are said there, once: not listed again.
        args["anchors"] = json!(true);
        let anchored = agent.ok("read_document", args).await;
        assert!(anchored.get("block_ids").is_none(), "{anchored}");
        let first_anchor = format!(
            "<!-- block:{} -->\n",
            page["block_ids"][0].as_str().unwrap()
        );
        assert!(
            anchored["markdown"]
                .as_str()
                .unwrap()
                .starts_with(&first_anchor),
            "{anchored}"
        );
        ids.extend(
            page["block_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned()),
        );
        match page["next_block_id"].as_str() {
            Some(next) => from = Some(next.to_owned()),
            None => break,
        }
    }
    let whole = agent
        .ok(
            "read_document",
            json!({"document": id.to_string(), "format": "blocks"}),
        )
        .await;
    let all_ids: Vec<String> = whole["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, all_ids);
    assert_eq!(
        whole["blocks"],
        server.stored_settled(id).await.unwrap().blocks
    );

    // A block link (Docs' "Copy link to block") reads from the block it points at.
    let linked = agent
        .ok(
            "read_document",
            json!({"document": format!("{url}#{}", all_ids[4]), "anchors": false}),
        )
        .await;
    assert_eq!(linked["block_ids"].as_array().unwrap().len(), 4);
    assert_eq!(linked["block_ids"][0], all_ids[4].as_str());
    assert!(
        linked["markdown"]
            .as_str()
            .unwrap()
            .starts_with("Second finding.\n"),
        "{linked}"
    );

    // Anchors name every block, so an agent can target them.
    let anchored = agent
        .ok("read_document", json!({"document": id.to_string()}))
        .await;
    let markdown = anchored["markdown"].as_str().unwrap();
    for block_id in &all_ids {
        assert!(
            markdown.contains(&format!("<!-- block:{block_id} -->")),
            "{block_id}"
        );
    }
    assert!(anchored["revision"].as_str().unwrap().contains('-'));
}

/// A page is read without the rest of the document until the whole document was read at
/// the same revision: both ways give the same page, from the start and from a block. The same
/// read asked again is the same answer until the document changes.
#[tokio::test]
async fn a_page_read_alone_is_the_page_of_the_whole_document() {
    let server = DocsServer::start().await.unwrap();
    let markdown: String = (0..120)
        .map(|i| match i % 4 {
            0 => format!("## Part {i}\n\n"),
            1 => format!("1. step {i}\n2. step **{i}**\n3. step {i}\n\n"),
            2 => format!("- point {i}\n  - nested under {i}\n\n"),
            _ => format!("| cell {i} | b |\n|---|---|\n| c | d |\n\nParagraph {i}, *words*.\n\n"),
        })
        .collect();
    let id = server
        .create_document(DocumentSpec::new("Long").markdown(&markdown))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let page = |from: Option<&str>| {
        let mut args = json!({"document": id.to_string(), "max_chars": 1500, "anchors": false});
        if let Some(from) = from {
            args["from_block"] = json!(from);
        }
        args
    };
    let first = agent.ok("read_document", page(None)).await;
    let next = first["next_block_id"].as_str().unwrap().to_owned();
    let second = agent.ok("read_document", page(Some(&next))).await;
    let blocks = agent
        .ok(
            "read_document",
            json!({"document": id.to_string(), "format": "blocks", "max_chars": 100_000}),
        )
        .await;
    // The outline reads the whole document, which the reads below are then taken from (by
    // another MCP session: this one answers the same read of the same revision as before).
    agent
        .ok("get_outline", json!({"document": id.to_string()}))
        .await;
    let other = connect(agent.service.clone(), "other").await;
    let read_by_other = async |args: Value| {
        let result = other
            .call_tool(
                CallToolRequestParams::new("read_document")
                    .with_arguments(args.as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        result.structured_content.unwrap()
    };
    assert_eq!(read_by_other(page(None)).await, first);
    assert_eq!(read_by_other(page(Some(&next))).await, second);
    assert_eq!(agent.ok("read_document", page(None)).await, first);
    assert_eq!(first["truncated"], true);
    // A person's change: the same read answers what the document holds now.
    let first_block = first["block_ids"][0].as_str().unwrap().to_owned();
    person_sets_text(&server, id, &first_block, "Renamed part").await;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = agent.ok("read_document", page(None)).await;
        if now["markdown"]
            .as_str()
            .unwrap()
            .contains("## Renamed part")
        {
            assert_ne!(now["revision"], first["revision"]);
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{now}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let page_ids = |page: &Value| page["block_ids"].as_array().unwrap().clone();
    let all: Vec<Value> = blocks["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].clone())
        .collect();
    let (a, b) = (page_ids(&first), page_ids(&second));
    assert_eq!([a.clone(), b.clone()].concat(), all[..a.len() + b.len()]);
    assert_eq!(all.len(), 210);
}

#[tokio::test]
async fn writes_apply_and_are_saved_as_blocknote_reads_them() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Report").markdown(REPORT))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let block = |i: usize| read["blocks"][i]["id"].as_str().unwrap().to_owned();
    let revision = read["revision"].as_str().unwrap().to_owned();

    let inserted = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "after", "block_id": block(1)},
                   "markdown": "A **new** paragraph.", "reason": "add context", "revision": revision}),
        )
        .await;
    assert_eq!(inserted["status"], "applied");
    let new_id = inserted["new_block_ids"][0].as_str().unwrap().to_owned();
    assert_eq!(
        stored_texts(&server, id).await[..3],
        ["Report", "Intro paragraph.", "A new paragraph."]
    );
    let stored = server.stored_settled(id).await.unwrap();
    assert_eq!(stored.blocks[2]["id"], new_id);
    assert_eq!(
        stored.blocks[2]["content"][1],
        json!({"type": "text", "text": "new", "styles": {"bold": true}})
    );

    let replaced = agent
        .ok(
            "replace_text",
            json!({"document": doc, "old_text": "quick", "new_text": "slow", "reason": "tone"}),
        )
        .await;
    assert_eq!(
        (
            replaced["words_added"].as_u64(),
            replaced["words_removed"].as_u64()
        ),
        (Some(1), Some(1))
    );
    let updated = agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": block(2), "type": "heading", "props": {"level": 3}}),
        )
        .await;
    assert_eq!(updated["status"], "applied");
    agent
        .ok(
            "move_block",
            json!({"document": doc, "block_id": new_id, "position": {"at": "end"}}),
        )
        .await;
    agent
        .ok(
            "delete_blocks",
            json!({"document": doc, "block_ids": [block(4)]}),
        )
        .await;

    let stored = server.stored_settled(id).await.unwrap();
    assert_eq!(
        texts(&stored.blocks),
        [
            "Report",
            "Intro paragraph.",
            "Findings",
            "The slow brown fox.",
            "Next steps",
            "call Ada",
            "write notes",
            "A new paragraph."
        ]
    );
    assert_eq!(stored.blocks[2]["type"], "heading");
    assert_eq!(stored.blocks[2]["props"]["level"], 3);

    // The journal holds every applied edit, with the agent's name and reason.
    let journal = agent
        .service
        .edits(&EditFilter {
            status: Some(vec![EditStatus::Applied]),
            ..EditFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(journal.len(), 5);
    assert!(journal.iter().all(|e| e.agent.name == "test-agent"));
    assert_eq!(
        journal.last().unwrap().reason.as_deref(),
        Some("add context")
    );
}

#[tokio::test]
async fn apply_edits_is_atomic_and_errors_have_stable_codes() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Report").markdown(REPORT))
        .await
        .unwrap();
    let reader_doc = server
        .create_document(
            DocumentSpec::new("Readable")
                .markdown("Look")
                .link("public", "reader"),
        )
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let before = stored_texts(&server, id).await;

    let err = agent
        .err(
            "apply_edits",
            json!({"document": doc, "edits": [
                {"op": "insert_blocks", "position": {"at": "start"}, "markdown": "first"},
                {"op": "replace_text", "old_text": "no such words", "new_text": "x"}
            ]}),
        )
        .await;
    assert_eq!(err["code"], "TEXT_NOT_FOUND");
    assert!(!err["hint"].as_str().unwrap().is_empty());
    assert_eq!(stored_texts(&server, id).await, before, "nothing applied");

    let both = agent
        .ok(
            "apply_edits",
            json!({"document": doc, "reason": "two at once", "edits": [
                {"op": "insert_blocks", "position": {"at": "start"}, "markdown": "first"},
                {"op": "replace_text", "old_text": "Second finding", "new_text": "2nd finding"}
            ]}),
        )
        .await;
    assert_eq!(both["status"], "applied");
    let after = stored_texts(&server, id).await;
    assert_eq!(after[0], "first");
    assert!(after.contains(&"2nd finding.".to_owned()));

    let code = |v: Value| v["code"].as_str().unwrap().to_owned();
    assert_eq!(
        code(
            agent
                .err(
                    "replace_text",
                    json!({"document": doc, "old_text": "in", "new_text": "x"})
                )
                .await
        ),
        "AMBIGUOUS_MATCH"
    );
    assert_eq!(
        code(
            agent
                .err(
                    "update_block",
                    json!({"document": doc, "block_id": "nope", "text": "x"})
                )
                .await
        ),
        "BLOCK_NOT_FOUND"
    );
    assert_eq!(
        code(
            agent
                .err(
                    "get_document",
                    json!({"document": Uuid::new_v4().to_string()})
                )
                .await
        ),
        "DOC_NOT_FOUND"
    );
    assert_eq!(
        code(
            agent
                .err("get_document", json!({"document": "not a document"}))
                .await
        ),
        "INVALID_INPUT"
    );
    assert_eq!(
        code(agent.err("insert_blocks", json!({"document": reader_doc.to_string(), "position": {"at": "end"}, "markdown": "x"})).await),
        "DOC_READONLY"
    );
    assert_eq!(
        code(agent.err("insert_blocks", json!({"document": doc, "position": {"at": "end"}, "blocks": [{"type": "madeUpBlock"}]})).await),
        "UNSUPPORTED_BLOCK_TYPE"
    );
    agent
        .service
        .set_policy(Some(id), Some(Policy::ReadOnly))
        .await
        .unwrap();
    assert_eq!(
        code(
            agent
                .err(
                    "insert_blocks",
                    json!({"document": doc, "position": {"at": "end"}, "markdown": "x"})
                )
                .await
        ),
        "EDIT_REJECTED"
    );
}

/// The math and diagram blocks of a document on an instance before 5.6 (a browser there would
/// delete them): read, kept through rewrites, deleted, never written.
#[tokio::test]
async fn before_5_6_math_and_diagrams_are_read_kept_and_deleted_but_not_written() {
    let server = DocsServer::start_with(ServerOptions {
        docs_version: Some("5.5.0".into()),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let id = server
        .create_document(DocumentSpec::new("Maths").blocks(json!([
            {"type": "mathBlock", "content": "E = mc^2"},
            {"type": "diagram", "content": "graph TD\n  A --> B"},
            {"type": "paragraph", "content": [
                {"type": "text", "text": "Area ", "styles": {}},
                {"type": "math", "content": "\\pi r^2"},
                {"type": "text", "text": " of a disc", "styles": {}},
            ]},
            {"type": "paragraph", "content": "Costs $5 or $10"},
        ])))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();

    // Read: typed blocks, their source in markdown; dollars without math stay as they are.
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let blocks = read["blocks"].as_array().unwrap();
    assert_eq!(blocks[0]["type"], "mathBlock");
    assert_eq!(blocks[1]["type"], "diagram");
    assert_eq!(
        blocks[2]["content"][1],
        json!({"type": "math", "props": {}, "content": "\\pi r^2"})
    );
    let block = |i: usize| blocks[i]["id"].as_str().unwrap().to_owned();
    let markdown = agent.ok("read_document", json!({"document": doc})).await["markdown"]
        .as_str()
        .unwrap()
        .to_owned();
    for shown in [
        "$$\nE = mc^2\n$$",
        "```mermaid\ngraph TD\n  A --> B\n```",
        "Area $\\pi r^2$ of a disc",
        "Costs $5 or $10",
    ] {
        assert!(markdown.contains(shown), "{shown:?} in {markdown}");
    }

    // Not written: typed blocks, their text; the error says why, with a stable code.
    let before = server.stored_settled(id).await.unwrap().blocks;
    for (tool, arguments) in [
        (
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"},
                   "blocks": [{"type": "mathBlock", "content": "x^2"}]}),
        ),
        (
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"},
                   "blocks": [{"type": "diagram", "content": "graph LR"}]}),
        ),
        (
            "update_block",
            json!({"document": doc, "block_id": block(0), "text": "x^2"}),
        ),
        (
            "update_block",
            json!({"document": doc, "block_id": block(3), "type": "diagram"}),
        ),
    ] {
        let error = agent.err(tool, arguments).await;
        assert_eq!(error["code"], "UNSUPPORTED_BLOCK_TYPE", "{error}");
        assert!(
            error["message"].as_str().unwrap().contains(
                "math and diagram blocks are in Docs' editor from 5.6 on, and this instance's \
                 release is older (or unknown)"
            ),
            "{error}"
        );
        assert!(!error["hint"].as_str().unwrap().is_empty());
    }
    assert_eq!(server.stored_settled(id).await.unwrap().blocks, before);

    // Markdown of math and diagrams is text and code.
    agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"},
                   "markdown": "```mermaid\ngraph LR\n```\n\nNew $x^2$ here"}),
        )
        .await;
    let stored = server.stored_settled(id).await.unwrap().blocks;
    assert_eq!(
        (&stored[4]["type"], &stored[4]["props"]["language"]),
        (&json!("codeBlock"), &json!("mermaid"))
    );
    assert_eq!(
        stored[5]["content"],
        json!([{"type": "text", "text": "New $x^2$ here", "styles": {}}])
    );

    // A rewrite around inline math keeps it.
    agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": block(2), "text": "Area $\\pi r^2$ of a circle"}),
        )
        .await;
    assert_eq!(
        server.stored_settled(id).await.unwrap().blocks[2]["content"],
        json!([
            {"type": "text", "text": "Area ", "styles": {}},
            {"type": "math", "props": {}, "content": "\\pi r^2"},
            {"type": "text", "text": " of a circle", "styles": {}},
        ])
    );

    // Deleted like any block; its undo would write one, so the edit cannot be undone.
    let deleted = agent
        .ok(
            "delete_blocks",
            json!({"document": doc, "block_ids": [block(1)]}),
        )
        .await;
    assert_eq!(deleted["status"], "applied");
    assert_eq!(
        server.stored_settled(id).await.unwrap().blocks[1]["type"],
        "paragraph"
    );
    let undo = agent
        .err(
            "undo_edit",
            json!({"edit_id": deleted["edit_id"].as_str().unwrap()}),
        )
        .await;
    assert_eq!(undo["code"], "EDIT_CONFLICT", "{undo}");
}

/// On an instance from 5.6 on (the test server is 5.7.0), agents write math and diagrams:
/// from markdown, as typed blocks, as a block's new source; a dollar that is not math is
/// read as `\$`, so that writing back what was read keeps it a dollar; and the deletion of a
/// math block can be undone.
#[tokio::test]
async fn from_5_6_agents_write_math_and_diagrams() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Maths").blocks(json!([
            {"type": "paragraph", "content": "Costs $5 or $10"},
        ])))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let markdown = agent
        .ok("read_document", json!({"document": doc, "anchors": false}))
        .await["markdown"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(markdown, "Costs \\$5 or \\$10\n");

    agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"},
                   "markdown": "$$\nE = mc^2\n$$\n\n```mermaid\ngraph LR\n  A --> B\n```\n\nArea $\\pi r^2$ here"}),
        )
        .await;
    agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"},
                   "blocks": [{"type": "mathBlock", "content": "x^2"}]}),
        )
        .await;
    let stored = server.stored_settled(id).await.unwrap().blocks;
    let ids: Vec<String> = stored
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        (&stored[1]["type"], &stored[1]["content"][0]["text"]),
        (&json!("mathBlock"), &json!("E = mc^2"))
    );
    assert_eq!(
        (&stored[2]["type"], &stored[2]["content"][0]["text"]),
        (&json!("diagram"), &json!("graph LR\n  A --> B"))
    );
    assert_eq!(
        stored[3]["content"],
        json!([
            {"type": "text", "text": "Area ", "styles": {}},
            {"type": "math", "props": {}, "content": "\\pi r^2"},
            {"type": "text", "text": " here", "styles": {}},
        ])
    );
    assert_eq!(
        (&stored[4]["type"], &stored[4]["content"][0]["text"]),
        (&json!("mathBlock"), &json!("x^2"))
    );

    // The paragraph written back as it was read keeps its dollars; a math block's source is
    // rewritten.
    agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": ids[0], "text": "Costs \\$5 or \\$10!"}),
        )
        .await;
    agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": ids[4], "text": "y^3"}),
        )
        .await;
    let stored = server.stored_settled(id).await.unwrap().blocks;
    assert_eq!(
        stored[0]["content"],
        json!([{"type": "text", "text": "Costs $5 or $10!", "styles": {}}])
    );
    assert_eq!(stored[4]["content"][0]["text"], "y^3");

    // Deleted, and put back by its undo.
    let deleted = agent
        .ok(
            "delete_blocks",
            json!({"document": doc, "block_ids": [ids[1]]}),
        )
        .await;
    assert_eq!(deleted["status"], "applied");
    agent
        .ok(
            "undo_edit",
            json!({"edit_id": deleted["edit_id"].as_str().unwrap()}),
        )
        .await;
    let stored = server.stored_settled(id).await.unwrap().blocks;
    assert_eq!(
        (&stored[1]["type"], &stored[1]["content"][0]["text"]),
        (&json!("mathBlock"), &json!("E = mc^2"))
    );
}

/// A link or media URL of another scheme is refused with its own code and changes nothing;
/// the links a person wrote are read as they are.
#[tokio::test]
async fn links_and_media_of_other_schemes_are_refused_and_change_nothing() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Links").blocks(json!([
            {"type": "paragraph", "content": [
                {"type": "link", "href": "tel:+33123456789", "content": "Call us"},
            ]},
        ])))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let markdown = agent.ok("read_document", json!({"document": doc})).await["markdown"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        markdown.contains("[Call us](tel:+33123456789)"),
        "{markdown}"
    );

    let before = server.stored_settled(id).await.unwrap().blocks;
    let link = agent
        .err(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"},
                   "markdown": "[here](javascript:alert(1))"}),
        )
        .await;
    assert_eq!(
        link,
        json!({
            "code": "UNSAFE_URL",
            "message": "the link target \"javascript:alert(1)\" is refused: its scheme \
                        `javascript:` is not allowed; links may be http, https or mailto URLs, \
                        media http or https URLs, or either a path on the Docs instance \
                        (/docs/<id>/, /media/...)",
            "hint": "Give the full web address (https://…), a mailto: address for a link, or a \
                     path on the Docs instance (/docs/<id>/); write the text without the link \
                     when it has none of these.",
        })
    );
    let image = agent
        .err(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"},
                   "blocks": [{"type": "image", "props": {"url": "file:///etc/passwd"}}]}),
        )
        .await;
    assert_eq!(image["code"], "UNSAFE_URL");
    assert!(
        image["message"]
            .as_str()
            .unwrap()
            .starts_with("prop `url` of `image` \"file:///etc/passwd\" is refused"),
        "{image}"
    );
    assert_eq!(server.stored_settled(id).await.unwrap().blocks, before);

    let allowed = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"},
                   "markdown": "[the spec](https://example.org/spec)"}),
        )
        .await;
    assert_eq!(allowed["status"], "applied");
    let stored = server.stored_settled(id).await.unwrap().blocks;
    assert_eq!(stored[0], before[0]);
    assert_eq!(
        stored[1]["content"],
        json!([{"type": "link", "href": "https://example.org/spec",
                "content": [{"type": "text", "text": "the spec", "styles": {}}]}])
    );
}

/// A person makes "Humankind" of the "Human" an agent read and rewrites (issue 27, item 9):
/// the rewrite is refused, with or without the revision, by `update_block` and by
/// `replace_text`; a rewrite of another word is merged beside the person's.
#[tokio::test]
async fn a_word_a_person_extended_since_the_agent_read_it_is_not_rewritten() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Words").markdown("The Human race\n\nOther"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let revision = read["revision"].clone();
    let block = read["blocks"][0]["id"].as_str().unwrap().to_owned();
    person_sets_text(&server, id, &block, "The Humankind race").await;
    // Another session waits until the service has it (the agent's own reads would be new
    // bases for its rewrites).
    let watcher = connect(agent.service.clone(), "watcher").await;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = watcher
            .call_tool(
                CallToolRequestParams::new("read_document")
                    .with_arguments(json!({"document": doc}).as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        if now.structured_content.unwrap()["markdown"]
            .as_str()
            .unwrap()
            .contains("Humankind")
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "typing never arrived"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for quoted in [revision.clone(), Value::Null] {
        for (tool, mut args) in [
            (
                "update_block",
                json!({"document": doc, "block_id": block, "text": "The Agent-edited race"}),
            ),
            (
                "replace_text",
                json!({"document": doc, "block_id": block, "old_text": "Human", "new_text": "Agent-edited"}),
            ),
        ] {
            if !quoted.is_null() {
                args["revision"] = quoted.clone();
            }
            let err = agent.err(tool, args).await;
            assert_eq!(err["code"], "STALE_REVISION", "{tool} {quoted}: {err}");
            assert!(
                err["message"]
                    .as_str()
                    .unwrap()
                    .ends_with("\"Human\" now reads \"Humankind\""),
                "{err}"
            );
        }
    }
    assert_eq!(stored_texts(&server, id).await[0], "The Humankind race");
    agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": block, "text": "The Human crowd", "revision": revision}),
        )
        .await;
    assert_eq!(stored_texts(&server, id).await[0], "The Humankind crowd");
}

#[tokio::test]
async fn a_write_quoting_an_old_revision_is_refused_after_a_human_edit() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Stale").markdown("Human text\n\nOther block"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let revision = read["revision"].as_str().unwrap().to_owned();
    let first = read["blocks"][0]["id"].as_str().unwrap().to_owned();
    let second = read["blocks"][1]["id"].as_str().unwrap().to_owned();

    let typist = server
        .start_typist(TypistSpec::new(id, " typed").block(&first).interval_ms(5))
        .await
        .unwrap();
    typist.wait_done(WAIT).await.unwrap();
    // Wait until our copy saw the typing.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = agent
            .ok("read_document", json!({"document": doc, "anchors": false}))
            .await;
        if now["markdown"]
            .as_str()
            .unwrap()
            .contains("Human text typed")
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "typing never arrived"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let err = agent
        .err(
            "update_block",
            json!({"document": doc, "block_id": first, "text": "Agent text", "revision": revision}),
        )
        .await;
    assert_eq!(err["code"], "STALE_REVISION");
    // A block nobody touched can still be edited with the same revision.
    agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": second, "text": "Edited other", "revision": revision}),
        )
        .await;
    let changes = agent
        .ok(
            "get_changes",
            json!({"document": doc, "since_revision": revision}),
        )
        .await;
    let by: Vec<(String, String)> = changes["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["block_id"].as_str().unwrap().to_owned(),
                c["by"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        by,
        [(first, "others".to_owned()), (second, "agent".to_owned())]
    );
    assert_eq!(stored_texts(&server, id).await[1], "Edited other");
}

/// The service reads a document while it joins the room (its blocks as loaded from REST):
/// what the room holds beyond that, typed by a person and not saved yet, is in the first read
/// and is the person's change.
#[tokio::test]
async fn the_first_read_has_what_the_room_holds_beyond_the_stored_content() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Room").markdown("Stored text\n\nOther block"))
        .await
        .unwrap();
    let typist = server
        .start_typist(
            TypistSpec::new(id, " and typed")
                .interval_ms(1)
                .stay_connected(),
        )
        .await
        .unwrap();
    typist.wait_done(WAIT).await.unwrap();
    if server.collaboration() == Collaboration::Hocuspocus {
        // (not saved: the content a session loads from REST is not the room's; yhub's room
        // stores what it takes, and a session loads nothing from REST there)
        assert_eq!(
            texts(&server.stored(id).await.unwrap().blocks)[0],
            "Stored text"
        );
    }

    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let read = agent
        .ok("read_document", json!({"document": doc, "anchors": false}))
        .await;
    assert_eq!(
        read["markdown"].as_str().unwrap(),
        "Stored text and typed\n\nOther block\n"
    );
    let outline = agent.ok("get_outline", json!({"document": doc})).await;
    assert_eq!(outline["total_blocks"], 2, "{outline}");
    // A write quoting the first read's revision is judged against it: the person's typing
    // came before it.
    agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": read["block_ids"][0], "text": "Agent text",
                   "revision": read["revision"]}),
        )
        .await;
    assert_eq!(stored_texts(&server, id).await[0], "Agent text");
}

#[tokio::test]
async fn review_approve_reject_and_timeout_then_edit_status() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Review").markdown("Original"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let doc = id.to_string();

    // Times out waiting for a human: pending with an edit id; nothing applied yet.
    let pending = agent
        .ok("insert_blocks", json!({"document": doc, "position": {"at": "end"}, "markdown": "Proposed", "reason": "suggest"}))
        .await;
    assert_eq!(pending["status"], "pending");
    let edit_id: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    assert_eq!(stored_texts(&server, id).await, ["Original"]);
    let queued = agent.service.edit(edit_id).await.unwrap();
    assert_eq!(queued.preview.after[0].markdown, "Proposed");
    assert_eq!(queued.reason.as_deref(), Some("suggest"));

    // A human approves while the agent waits on edit_status (once it waits: not before).
    let service = agent.service.clone();
    let approver = tokio::spawn(async move {
        let deadline = tokio::time::Instant::now() + WAIT;
        while service.decision_waiters() == 0 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "edit_status never waited"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        service.approve(edit_id, Channel::Window).await.unwrap()
    });
    let status = agent
        .ok(
            "edit_status",
            json!({"edit_id": edit_id.to_string(), "wait_seconds": 10}),
        )
        .await;
    assert_eq!(status["status"], "applied");
    assert_eq!(approver.await.unwrap().status, EditStatus::Applied);
    assert_eq!(stored_texts(&server, id).await, ["Original", "Proposed"]);

    // Rejected while the write tool waits: the agent gets EDIT_REJECTED with the comment.
    let service = agent.service.clone();
    let rejecter = tokio::spawn(async move {
        let mut events = service.subscribe();
        loop {
            if let Ok(docs_mcp::ServiceEvent::EditChanged {
                edit_id,
                status: EditStatus::Pending,
                ..
            }) = events.recv().await
            {
                return service
                    .reject(edit_id, Some("Too formal".into()), Channel::Window)
                    .await
                    .unwrap();
            }
        }
    });
    let err = agent
        .err(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"}, "markdown": "Dear Sir"}),
        )
        .await;
    assert_eq!(err["code"], "EDIT_REJECTED");
    assert!(
        err["message"].as_str().unwrap().contains("Too formal"),
        "{err}"
    );
    let rejected = rejecter.await.unwrap();
    let status = agent
        .ok("edit_status", json!({"edit_id": rejected.id.to_string()}))
        .await;
    assert_eq!(
        (status["status"].as_str(), status["comment"].as_str()),
        (Some("rejected"), Some("Too formal"))
    );
    assert_eq!(stored_texts(&server, id).await, ["Original", "Proposed"]);
}

#[tokio::test]
async fn approving_after_a_human_deleted_the_target_is_a_conflict() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Conflict").markdown("Keep\n\nTarget"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let doc = id.to_string();
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let target = read["blocks"][1]["id"].as_str().unwrap().to_owned();
    let pending = agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": target, "text": "Changed"}),
        )
        .await;
    let edit_id: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();

    // A person deletes the block meanwhile (another live client of the same room).
    let session = person_session(&server, id).await;
    let fragment = docs_client::blocknote::document_fragment(session.doc());
    let deleted = target.clone();
    session
        .write(move |txn| {
            docs_client::blocknote::delete_blocks(
                txn,
                &fragment,
                std::slice::from_ref(&deleted),
                docs_client::blocknote::ChildrenMode::Delete,
            )
        })
        .await
        .unwrap()
        .wait()
        .await
        .unwrap();
    session.close().await.unwrap();
    // Our live copy receives the deletion.
    let deadline = tokio::time::Instant::now() + WAIT;
    while agent
        .ok("read_document", json!({"document": doc, "anchors": false}))
        .await["block_ids"]
        .as_array()
        .unwrap()
        .len()
        != 1
    {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let decided = agent
        .service
        .approve(edit_id, Channel::Window)
        .await
        .unwrap();
    assert_eq!(decided.status, EditStatus::Conflict);
    assert_eq!(decided.error.as_ref().unwrap().code, "EDIT_CONFLICT");
    assert_eq!(stored_texts(&server, id).await, ["Keep"]);
    let status = agent
        .ok("edit_status", json!({"edit_id": edit_id.to_string()}))
        .await;
    assert_eq!(status["status"], "conflict");
}

#[tokio::test]
async fn pending_edits_survive_a_restart_and_can_be_approved_after_it() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Restart").markdown("Before"))
        .await
        .unwrap();
    let data = temp_dir();
    let edit_id: Uuid = {
        let service = DocsService::start(config(&server, &data.0, Policy::Review))
            .await
            .unwrap();
        let client = connect(service.clone(), "first-run").await;
        let result = client
            .call_tool(CallToolRequestParams::new("insert_blocks").with_arguments(
                json!({"document": id.to_string(), "position": {"at": "end"}, "markdown": "After restart"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ))
            .await
            .unwrap();
        let structured = result.structured_content.unwrap();
        assert_eq!(structured["status"], "pending");
        client.cancel().await.unwrap();
        service.shutdown().await;
        structured["edit_id"].as_str().unwrap().parse().unwrap()
    };

    let service = DocsService::start(config(&server, &data.0, Policy::Review))
        .await
        .unwrap();
    let pending = service
        .edits(&EditFilter {
            status: Some(vec![EditStatus::Pending]),
            ..EditFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(pending.iter().map(|e| e.id).collect::<Vec<_>>(), [edit_id]);
    assert_eq!(pending[0].agent.name, "first-run");
    let applied = service.approve(edit_id, Channel::Window).await.unwrap();
    assert_eq!(applied.status, EditStatus::Applied);
    assert_eq!(stored_texts(&server, id).await, ["Before", "After restart"]);
    service.shutdown().await;
}

#[tokio::test]
async fn the_agent_is_listed_among_the_collaborators_by_its_client_name() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Presence").markdown("Hi"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    agent
        .ok("get_document", json!({"document": id.to_string()}))
        .await;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let names: Vec<String> = server
            .awareness(id)
            .await
            .unwrap()
            .iter()
            .filter_map(|s| s["state"]["user"]["name"].as_str().map(str::to_owned))
            .collect();
        if names == ["test-agent"] {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{names:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let sessions = agent.ok("list_sessions", json!({})).await;
    assert_eq!(sessions["sessions"][0]["document_id"], id.to_string());
    assert_eq!(sessions["sessions"][0]["connected"], true);
}

#[tokio::test]
async fn listing_and_searching_documents() {
    let server = DocsServer::start().await.unwrap();
    let user = server.create_user("ada@example.org", "Ada").await.unwrap();
    let mine = server
        .create_document(
            DocumentSpec::new("Quarterly plan")
                .markdown("Budget for the lighthouse project")
                .link("restricted", "reader")
                .access(&user.id, "owner"),
        )
        .await
        .unwrap();
    let public = server
        .create_document(DocumentSpec::new("Public notes").markdown("Nothing about lighthouses"))
        .await
        .unwrap();

    // Anonymous: the list is what was opened here.
    let anonymous = agent(&server, Policy::Auto).await;
    let empty = anonymous.ok("list_documents", json!({})).await;
    assert_eq!(
        (
            empty["source"].as_str(),
            empty["documents"].as_array().unwrap().len()
        ),
        (Some("local"), 0)
    );
    anonymous
        .ok("get_document", json!({"document": public.to_string()}))
        .await;
    let local = anonymous.ok("list_documents", json!({})).await;
    assert_eq!(local["documents"][0]["id"], public.to_string());
    assert_eq!(local["documents"][0]["title"], "Public notes");
    let found = anonymous.ok("search", json!({"query": "lighthouse"})).await;
    assert_eq!(found["results"][0]["document_id"], public.to_string());
    assert_eq!(found["results"][0]["matched"], "content");

    // Signed in: the instance's list and title search.
    let data = temp_dir();
    let mut signed_in = config(&server, &data.0, Policy::Auto);
    signed_in.session_cookie = Some(docs_client::Secret::new(&user.session_cookie));
    signed_in.csrf_token = Some(docs_client::Secret::new(&user.csrf_token));
    let service = DocsService::start(signed_in).await.unwrap();
    let client = connect(service, "signed-in").await;
    let call = |tool: &'static str, args: Value| {
        let client = &client;
        async move {
            client
                .call_tool(
                    CallToolRequestParams::new(tool)
                        .with_arguments(args.as_object().unwrap().clone()),
                )
                .await
                .unwrap()
                .structured_content
                .unwrap()
        }
    };
    let list = call("list_documents", json!({})).await;
    assert_eq!(list["source"], "instance");
    let titles: Vec<&str> = list["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&"Quarterly plan"), "{titles:?}");
    let hits = call("search", json!({"query": "Quarterly"})).await;
    assert_eq!(hits["results"][0]["document_id"], mine.to_string());
    assert_eq!(hits["results"][0]["matched"], "title");
}

#[tokio::test]
async fn creating_documents_needs_a_user_and_follows_the_policy() {
    let server = DocsServer::start().await.unwrap();
    let anonymous = agent(&server, Policy::Auto).await;
    let err = anonymous
        .err("create_document", json!({"title": "Nope"}))
        .await;
    assert_eq!(err["code"], "NOT_SIGNED_IN");

    let user = server.create_user("ada@example.org", "Ada").await.unwrap();
    let data = temp_dir();
    let mut signed_in = config(&server, &data.0, Policy::Auto);
    signed_in.session_cookie = Some(docs_client::Secret::new(&user.session_cookie));
    signed_in.csrf_token = Some(docs_client::Secret::new(&user.csrf_token));
    let service = DocsService::start(signed_in).await.unwrap();
    let agent = Agent {
        client: connect(service.clone(), "writer").await,
        service,
        data,
    };
    let created = agent
        .ok(
            "create_document",
            json!({"title": "Minutes", "markdown": "# Minutes\n\n- [ ] follow up", "reason": "meeting notes"}),
        )
        .await;
    let id: Uuid = created["document_id"].as_str().unwrap().parse().unwrap();
    assert_eq!(created["title"], "Minutes");
    assert_eq!(created["url"], format!("{}/docs/{id}/", server.url()));
    assert_eq!(created["content"]["status"], "applied");
    let stored = server.stored_settled(id).await.unwrap();
    assert_eq!(texts(&stored.blocks), ["Minutes", "follow up"]);
    assert_eq!(stored.blocks[1]["type"], "checkListItem");
    assert_eq!(stored.blocks[1]["props"]["checked"], false);

    let child = agent
        .ok(
            "create_document",
            json!({"title": "Annex", "parent": id.to_string()}),
        )
        .await;
    assert!(child.get("content").is_none());
    let child_id: Uuid = child["document_id"].as_str().unwrap().parse().unwrap();
    let info = agent
        .ok("get_document", json!({"document": child_id.to_string()}))
        .await;
    assert_eq!(info["title"], "Annex");

    // Content that cannot be written is refused before a document is made.
    let unsafe_content = agent
        .err(
            "create_document",
            json!({"title": "Unsafe", "markdown": "[here](javascript:alert(1))"}),
        )
        .await;
    assert_eq!(unsafe_content["code"], "UNSAFE_URL");
    let titles = agent.ok("list_documents", json!({})).await["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap().to_owned())
        .collect::<Vec<_>>();
    assert!(!titles.contains(&"Unsafe".to_owned()), "{titles:?}");

    agent
        .service
        .set_policy(None, Some(Policy::ReadOnly))
        .await
        .unwrap();
    let refused = agent
        .err("create_document", json!({"title": "Blocked"}))
        .await;
    assert_eq!(refused["code"], "EDIT_REJECTED");
}

#[tokio::test]
async fn undo_reverts_applied_edits_and_refuses_when_later_changes_depend_on_them() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("Undo").markdown("One **bold** two\n\nSecond\n\nThird\n\nFourth"),
        )
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let original = server.stored_settled(id).await.unwrap().blocks;
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let block = |i: usize| read["blocks"][i]["id"].as_str().unwrap().to_owned();
    let edit_id = |v: &Value| v["edit_id"].as_str().unwrap().to_owned();

    // One atomic edit of every kind, then its undo: the document reads as before
    // (deleted blocks come back with new ids).
    let edit = agent
        .ok(
            "apply_edits",
            json!({"document": doc, "reason": "rework", "edits": [
                {"op": "replace_text", "old_text": "bold", "new_text": "strong"},
                {"op": "insert_blocks", "position": {"at": "after", "block_id": block(1)}, "markdown": "Inserted\n\n- item"},
                {"op": "delete_blocks", "block_ids": [block(2)]},
                {"op": "move_block", "block_id": block(3), "position": {"at": "start"}},
                {"op": "update_block", "block_id": block(1), "type": "heading", "props": {"level": 2}}
            ]}),
        )
        .await;
    assert_eq!(
        stored_texts(&server, id).await,
        ["Fourth", "One strong two", "Second", "Inserted", "item"]
    );
    let undone = agent
        .ok(
            "undo_edit",
            json!({"edit_id": edit_id(&edit), "reason": "user asked"}),
        )
        .await;
    assert_eq!(undone["status"], "applied");
    let restored = server.stored_settled(id).await.unwrap().blocks;
    let strip_ids = |blocks: &Value| -> Value {
        let mut blocks = blocks.clone();
        for b in blocks.as_array_mut().unwrap() {
            b.as_object_mut().unwrap().remove("id");
        }
        blocks
    };
    assert_eq!(strip_ids(&restored), strip_ids(&original));
    assert_eq!(restored[0]["content"][1]["styles"]["bold"], true);
    let status = agent
        .ok("edit_status", json!({"edit_id": edit_id(&edit)}))
        .await;
    assert_eq!(status["status"], "undone");
    let again = agent
        .err("undo_edit", json!({"edit_id": edit_id(&edit)}))
        .await;
    assert_eq!(again["code"], "INVALID_INPUT");

    // A later edit of the same block: undoing the first one is refused.
    let first_block = restored[0]["id"].as_str().unwrap().to_owned();
    let first = agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": first_block, "text": "Changed once"}),
        )
        .await;
    agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": first_block, "text": "Changed twice"}),
        )
        .await;
    let refused = agent
        .err("undo_edit", json!({"edit_id": edit_id(&first)}))
        .await;
    assert_eq!(refused["code"], "EDIT_CONFLICT");

    // A person typed in the block since: undoing would overwrite it, so it is refused.
    let second_block = restored[1]["id"].as_str().unwrap().to_owned();
    let edit = agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": second_block, "text": "Agent wording"}),
        )
        .await;
    server
        .start_typist(TypistSpec::new(id, "!").block(&second_block).interval_ms(5))
        .await
        .unwrap()
        .wait_done(WAIT)
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = agent
            .ok("read_document", json!({"document": doc, "anchors": false}))
            .await;
        if now["markdown"].as_str().unwrap().contains("Agent wording!") {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let refused = agent
        .err("undo_edit", json!({"edit_id": edit_id(&edit)}))
        .await;
    assert_eq!(refused["code"], "EDIT_CONFLICT");
    assert!(
        refused["message"].as_str().unwrap().ends_with(&format!(
            "block {second_block} was changed by someone else in the document since the edit was applied; undoing the edit would overwrite that"
        )),
        "{refused}"
    );
}

#[tokio::test]
async fn deciding_the_edits_on_screen_at_once() {
    let server = DocsServer::start().await.unwrap();
    let (a, b) = (
        server
            .create_document(DocumentSpec::new("A").markdown("Alpha"))
            .await
            .unwrap(),
        server
            .create_document(DocumentSpec::new("B").markdown("Beta"))
            .await
            .unwrap(),
    );
    let agent = agent(&server, Policy::Review).await;
    let insert = |doc: Uuid, text: &str| json!({"document": doc.to_string(), "position": {"at": "end"}, "markdown": text});
    for (doc, text) in [(a, "A1"), (a, "A2"), (b, "B1")] {
        assert_eq!(
            agent.ok("insert_blocks", insert(doc, text)).await["status"],
            "pending"
        );
    }
    let counts = agent.service.edit_counts().await.unwrap();
    assert_eq!((counts[&a].pending, counts[&b].pending), (2, 1));

    let pending = agent
        .service
        .edits(&EditFilter {
            status: Some(vec![EditStatus::Pending]),
            ..EditFilter::default()
        })
        .await
        .unwrap();
    let ids_of = |doc: Uuid| -> Vec<Uuid> {
        pending
            .iter()
            .filter(|e| e.document_id == doc)
            .map(|e| e.id)
            .collect()
    };
    // Approving the two edits of document A shown on screen applies them in the order they
    // came.
    let approved = agent
        .service
        .decide_all(
            true,
            &ids_of(a),
            None,
            Channel::Window,
            &CancellationToken::new(),
        )
        .await
        .unwrap()
        .decided;
    assert_eq!(approved.len(), 2);
    assert!(approved.iter().all(|e| e.status == EditStatus::Applied));
    assert_eq!(stored_texts(&server, a).await, ["Alpha", "A1", "A2"]);

    // Rejecting all three (A's are decided already: skipped) leaves B untouched and carries
    // the comment.
    let all: Vec<Uuid> = pending.iter().map(|e| e.id).collect();
    let rejected = agent
        .service
        .decide_all(
            false,
            &all,
            Some("not now".into()),
            Channel::Window,
            &CancellationToken::new(),
        )
        .await
        .unwrap()
        .decided;
    assert_eq!(rejected.len(), 1);
    assert_eq!(
        (
            rejected[0].document_id,
            rejected[0].status,
            rejected[0].comment.as_deref()
        ),
        (b, EditStatus::Rejected, Some("not now"))
    );
    assert_eq!(stored_texts(&server, b).await, ["Beta"]);
    let counts = agent.service.edit_counts().await.unwrap();
    assert_eq!((counts[&a].applied, counts[&a].pending), (2, 0));
    assert!(!counts.contains_key(&b) || counts[&b] == Default::default());
}

#[tokio::test]
async fn adding_a_document_by_url_remembers_it_with_its_title() {
    let server = DocsServer::start().await.unwrap();
    let public = server
        .create_document(DocumentSpec::new("Public notes").link("public", "reader"))
        .await
        .unwrap();
    let private = server
        .create_document(DocumentSpec::new("Secret").link("restricted", "reader"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let (known, metadata) = agent
        .service
        .add_document(&format!("{}/docs/{public}/", server.url()))
        .await
        .unwrap();
    assert_eq!(
        (known.id, known.title.as_deref()),
        (public, Some("Public notes"))
    );
    assert_eq!(metadata.link_reach.as_deref(), Some("public"));
    assert_eq!(
        agent
            .service
            .known_documents()
            .await
            .unwrap()
            .iter()
            .map(|k| k.id)
            .collect::<Vec<_>>(),
        [public]
    );
    let refused = agent
        .service
        .add_document(&private.to_string())
        .await
        .unwrap_err();
    assert_eq!(refused.code().as_str(), "NOT_SIGNED_IN");
    let elsewhere = agent
        .service
        .add_document(&format!("https://other.example.org/docs/{public}/"))
        .await
        .unwrap_err();
    assert_eq!(elsewhere.code().as_str(), "INVALID_INPUT");
    assert_eq!(agent.service.known_documents().await.unwrap().len(), 1);
}

/// Wrong arguments of every kind are INVALID_INPUT naming the field, with a hint — never the
/// SDK's bare "failed to deserialize parameters" — and change nothing.
#[tokio::test]
async fn wrong_arguments_are_invalid_input_naming_the_field() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Args").markdown("Only"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let cases: Vec<(&'static str, serde_json::Value, &str)> = vec![
        (
            "read_document",
            json!({}),
            "invalid arguments for read_document: missing field `document`",
        ),
        (
            "read_document",
            json!({"document": 7}),
            "invalid argument `document` for read_document: invalid type: integer `7`, expected a string",
        ),
        (
            "read_document",
            json!({"document": doc, "max_chars": -1}),
            "invalid argument `max_chars` for read_document: invalid value: integer `-1`, expected usize",
        ),
        (
            "read_document",
            json!({"document": doc, "format": "html"}),
            "invalid argument `format` for read_document: unknown variant `html`, expected `markdown` or `blocks`",
        ),
        (
            "insert_blocks",
            json!({"document": doc, "position": {"at": "middle"}, "markdown": "x"}),
            "invalid argument `position.at` for insert_blocks: unknown variant `middle`, expected one of `start`, `end`, `before`, `after`, `first_child_of`, `last_child_of`",
        ),
        (
            "insert_blocks",
            json!({"document": doc, "position": "end", "markdown": "x"}),
            "invalid argument `position` for insert_blocks: invalid type: string \"end\", expected struct Position",
        ),
        (
            "delete_blocks",
            json!({"document": doc, "block_ids": "b1"}),
            "invalid argument `block_ids` for delete_blocks: invalid type: string \"b1\", expected a sequence",
        ),
        (
            "apply_edits",
            json!({"document": doc, "edits": [{"op": "explode"}]}),
            "invalid argument `edits[0].op` for apply_edits: unknown variant `explode`, expected one of `insert_blocks`, `update_block`, `replace_text`, `delete_blocks`, `move_block`",
        ),
        (
            "apply_edits",
            json!({"document": doc, "edits": [{"op": "move_block", "block_id": "b"}]}),
            "invalid argument `edits[0]` for apply_edits: missing field `position`",
        ),
        (
            "replace_text",
            json!({"document": doc, "old_text": "a", "new_text": "b", "all": "yes"}),
            "invalid argument `all` for replace_text: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "edit_status",
            json!({"edit_id": "x", "wait_seconds": 1.5}),
            "invalid argument `wait_seconds` for edit_status: invalid type: floating point `1.5`, expected u64",
        ),
    ];
    for (tool, args, message) in cases {
        let error = agent.err(tool, args).await;
        assert_eq!(error["code"], "INVALID_INPUT", "{tool}: {error}");
        assert_eq!(error["message"], message, "{tool}");
        assert!(
            error["hint"]
                .as_str()
                .unwrap()
                .starts_with("Fix that argument"),
            "{error}"
        );
    }
    assert_eq!(stored_texts(&server, id).await, ["Only"]);
}

/// Nesting from outside cannot take the service down: a 100 000-level markdown list (a
/// bullet and an ordered one) is refused with its depth, and the service goes on serving.
#[tokio::test]
async fn lists_nested_too_deep_are_refused_and_the_service_keeps_serving() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Deep").markdown("Top"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    for markdown in ["- ".repeat(100_000) + "x", "1. ".repeat(80_000) + "x"] {
        let error = agent
            .err(
                "insert_blocks",
                json!({"document": doc, "position": {"at": "end"}, "markdown": markdown}),
            )
            .await;
        assert_eq!(error["code"], "INVALID_INPUT", "{error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with("this would nest blocks ")
                && message.contains("levels deep, deeper than the limit of 64"),
            "{message}"
        );
    }
    // Still serving, this document and others.
    let applied = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"}, "markdown": "- a\n  - b"}),
        )
        .await;
    assert_eq!(applied["status"], "applied");
    assert_eq!(stored_texts(&server, id).await, ["Top", "a"]);
}

/// A Yjs state nesting `depth` bullet list items, then a paragraph (as a person could build
/// it in Docs, one Tab at a time).
fn deeply_nested_state(depth: usize) -> Vec<u8> {
    use yrs::{
        Doc, ReadTxn, StateVector, Text, Transact, Xml, XmlElementPrelim, XmlFragment,
        XmlTextPrelim,
    };
    let doc = Doc::new();
    let fragment = doc.get_or_insert_xml_fragment(docs_client::DOCUMENT_FRAGMENT);
    let mut txn = doc.transact_mut();
    let container =
        |txn: &mut yrs::TransactionMut, group: &yrs::XmlElementRef, id: &str, kind: &str| {
            let at = group.len(txn);
            let c = group.insert(txn, at, XmlElementPrelim::empty("blockContainer"));
            c.insert_attribute(txn, "id", id);
            let node = c.insert(txn, 0, XmlElementPrelim::empty(kind));
            (c, node)
        };
    let root = fragment.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
    let mut group = root.clone();
    for level in 1..=depth {
        let (c, node) = container(&mut txn, &group, &format!("b{level}"), "bulletListItem");
        let text = node.insert(&mut txn, 0, XmlTextPrelim::new(""));
        text.push(&mut txn, &format!("item {level}"));
        if level < depth {
            group = c.insert(&mut txn, 1, XmlElementPrelim::empty("blockGroup"));
        }
    }
    let (_, after) = container(&mut txn, &root, "after", "paragraph");
    after.insert(&mut txn, 0, XmlTextPrelim::new("after"));
    txn.encode_state_as_update_v1(&StateVector::default())
}

/// A document someone nested 1 000 or 100 000 levels deep in Docs cannot take the service
/// down: opening it is DOC_UNSUPPORTED, and every other document keeps working.
#[tokio::test]
async fn a_document_nested_too_deep_is_refused_and_the_others_keep_working() {
    use base64::Engine;
    let server = DocsServer::start().await.unwrap();
    let fine = server
        .create_document(DocumentSpec::new("Fine").markdown("Still here"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    for depth in [1_000, 100_000] {
        let deep = server
            .create_document(DocumentSpec::new("Deep").link("public", "editor"))
            .await
            .unwrap();
        let state = deeply_nested_state(depth);
        if server.collaboration() == Collaboration::Yhub {
            // Written through yhub's REST route (it has no content endpoint).
            let cookie = "docs_mcp_anonymous=1";
            let patched = server
                .ydoc_patch(deep, Some(cookie), &state, &[])
                .await
                .unwrap();
            assert_eq!(patched.status, 200, "{patched:?}");
        } else {
            let content = base64::engine::general_purpose::STANDARD.encode(state);
            let saved = reqwest::Client::new()
                .patch(format!(
                    "{}/api/v1.0/documents/{deep}/content/",
                    server.url()
                ))
                .header("Origin", server.url())
                .json(&json!({"content": content, "websocket": false}))
                .send()
                .await
                .unwrap();
            assert!(saved.status().is_success(), "{}", saved.status());
        }
        for tool in ["get_document", "read_document"] {
            let error = agent.err(tool, json!({"document": deep.to_string()})).await;
            assert_eq!(error["code"], "DOC_UNSUPPORTED", "{depth}: {error}");
            assert!(
                error["message"]
                    .as_str()
                    .unwrap()
                    .contains("levels this client can safely edit"),
                "{error}"
            );
        }
        let read = agent
            .ok(
                "read_document",
                json!({"document": fine.to_string(), "anchors": false}),
            )
            .await;
        assert_eq!(read["markdown"], "Still here\n");
    }
}

/// Rewriting a 250 000-character paragraph is heavy work; it runs off the runtime's workers,
/// so other agents' calls keep being answered meanwhile: calls made while the rewrite is under
/// way are answered before it ends. (How fast they are answered is a benchmark's question,
/// not this test's.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_rewrite_does_not_hold_up_other_calls() {
    let server = DocsServer::start().await.unwrap();
    let words: Vec<String> = (0..25_000).map(|i| format!("w{:07}", i)).collect();
    let id = server
        .create_document(DocumentSpec::new("Huge").markdown(&words.join(" ")))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let block = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks", "max_chars": 50_000}),
        )
        .await["blocks"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let rewritten: String = words
        .iter()
        .map(|w| w.chars().rev().collect::<String>())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(rewritten.len() < 256 * 1024);
    let other = connect(agent.service.clone(), "other").await;
    let written_yet = std::sync::atomic::AtomicBool::new(false);
    let write = async {
        let written = agent
            .call(
                "update_block",
                json!({"document": doc, "block_id": block, "text": rewritten}),
            )
            .await;
        written_yet.store(true, std::sync::atomic::Ordering::SeqCst);
        written
    };
    // Calls asked and answered while the rewrite is under way.
    let probe = async {
        let mut answered_meanwhile = 0;
        while !written_yet.load(std::sync::atomic::Ordering::SeqCst) {
            other
                .call_tool(CallToolRequestParams::new("list_sessions"))
                .await
                .unwrap();
            if !written_yet.load(std::sync::atomic::Ordering::SeqCst) {
                answered_meanwhile += 1;
            }
        }
        answered_meanwhile
    };
    let (written, answered_meanwhile) = tokio::join!(write, probe);
    let written = written.unwrap();
    assert!(
        matches!(written["status"].as_str(), Some("applied" | "applying")),
        "{written}"
    );
    assert!(
        answered_meanwhile >= 1,
        "no other call was answered while the rewrite ran"
    );
}

/// What the app renders for a decision: the touched blocks as BlockNote JSON (type, props,
/// styled text) before and after, and the blocks around them, as they will read.
#[tokio::test]
async fn a_preview_carries_the_typed_blocks_and_their_surroundings() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("Plan").markdown("# Plan\n\nFirst.\n\nSecond.\n\nThird."),
        )
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let doc = id.to_string();
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let second = read["blocks"][2]["id"].as_str().unwrap().to_owned();

    let pending = agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": second, "text": "Second, **now bold**."}),
        )
        .await;
    let edit_id: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    let preview = agent.service.edit(edit_id).await.unwrap().preview;
    let before = preview.before[0].block.as_ref().unwrap();
    let after = preview.after[0].block.as_ref().unwrap();
    assert_eq!(before["type"], "paragraph");
    assert_eq!(
        before["content"],
        json!([{"type": "text", "text": "Second.", "styles": {}}])
    );
    assert_eq!(after["id"], second.as_str());
    assert_eq!(
        after["content"],
        json!([
            {"type": "text", "text": "Second, ", "styles": {}},
            {"type": "text", "text": "now bold", "styles": {"bold": true}},
            {"type": "text", "text": ".", "styles": {}}
        ])
    );
    let context =
        |block: &Option<docs_mcp::record::PreviewBlock>| block.as_ref().map(|b| b.markdown.clone());
    assert_eq!(context(&preview.context_before).as_deref(), Some("First."));
    assert_eq!(context(&preview.context_after).as_deref(), Some("Third."));
    assert_eq!(preview.heading_path, ["Plan"]);

    // At the end: context above only. Deleted: around the block as it was.
    let pending = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"}, "markdown": "## Next\n\n- [x] done"}),
        )
        .await;
    let edit_id: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    let preview = agent.service.edit(edit_id).await.unwrap().preview;
    let types: Vec<&str> = preview
        .after
        .iter()
        .map(|b| b.block.as_ref().unwrap()["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["heading", "checkListItem"]);
    assert_eq!(
        preview.after[1].block.as_ref().unwrap()["props"]["checked"],
        true
    );
    assert_eq!(context(&preview.context_after), None);
    assert!(preview.context_before.is_some());

    let pending = agent
        .ok(
            "delete_blocks",
            json!({"document": doc, "block_ids": [second]}),
        )
        .await;
    let edit_id: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    let preview = agent.service.edit(edit_id).await.unwrap().preview;
    assert!(preview.after.is_empty());
    assert_eq!(context(&preview.context_before).as_deref(), Some("First."));
    assert_eq!(context(&preview.context_after).as_deref(), Some("Third."));
}

/// Where a change lands: the headings above it, each under the last heading of a lower level.
#[tokio::test]
async fn a_preview_names_the_headings_above_the_change() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("Guide")
                .markdown("# A\n\n## B\n\nUnder B.\n\n## C\n\n### D\n\nUnder D."),
        )
        .await
        .unwrap();
    let agent = agent(&server, Policy::Review).await;
    let doc = id.to_string();
    let read = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    let ids: Vec<String> = read["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect();
    let path_of = |result: Value| {
        let service = agent.service.clone();
        async move {
            let edit_id: Uuid = result["edit_id"].as_str().unwrap().parse().unwrap();
            service.edit(edit_id).await.unwrap().preview.heading_path
        }
    };
    let under_d = agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": ids[5], "text": "Under D, changed."}),
        )
        .await;
    assert_eq!(path_of(under_d).await, ["A", "C", "D"]);
    let after_b = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "after", "block_id": ids[1]}, "markdown": "New under B."}),
        )
        .await;
    assert_eq!(path_of(after_b).await, ["A", "B"]);
    let heading_c = agent
        .ok(
            "update_block",
            json!({"document": doc, "block_id": ids[3], "text": "C, renamed"}),
        )
        .await;
    assert_eq!(path_of(heading_c).await, ["A"]);
    let at_start = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "start"}, "markdown": "Preface."}),
        )
        .await;
    assert!(path_of(at_start).await.is_empty());
}

/// Docs keeps every save as a version of the document: an agent's burst of edits is saved
/// once, not once per edit (each edit is still answered `applied` at once).
#[tokio::test]
async fn a_burst_of_agent_edits_is_one_version_of_the_document() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Versions").markdown("Start"))
        .await
        .unwrap();
    let data = temp_dir();
    let mut config = config(&server, &data.0, Policy::Auto);
    config.save_interval = Duration::from_secs(4);
    let service = DocsService::start(config).await.unwrap();
    let agent = Agent {
        client: connect(service.clone(), "burst-agent").await,
        service,
        data,
    };
    let doc = id.to_string();
    for i in 1..=10 {
        let applied = agent
            .ok(
                "insert_blocks",
                json!({"document": doc, "position": {"at": "end"}, "markdown": format!("Edit {i}")}),
            )
            .await;
        assert_eq!(applied["status"], "applied", "{applied}");
    }
    let mut expected = vec!["Start".to_owned()];
    expected.extend((1..=10).map(|i| format!("Edit {i}")));
    assert_eq!(stored_texts(&server, id).await, expected);
    let stats = server.stats().await.unwrap();
    let saves = match server.collaboration() {
        Collaboration::Hocuspocus => Some(&1),
        // yhub stores what it takes: no save of ours.
        Collaboration::Yhub => None,
    };
    assert_eq!(
        stats.content_patches.get(&doc),
        saves,
        "one save, one version"
    );
    assert_eq!(stats.saves_off_websocket.get(&doc), None);
}

/// An agent asked to address the comments reads every thread with who said what, whether it
/// is resolved, and the exact text it is attached to (or that its text is gone).
#[tokio::test]
async fn comment_threads_are_listed_with_their_anchored_text() {
    use docs_client::blocknote::comment_body_from_markdown;
    let server = DocsServer::start().await.unwrap();
    let user = server
        .create_user("ada@example.org", "Ada Lovelace")
        .await
        .unwrap();
    let id = server
        .create_document(
            DocumentSpec::new("Draft")
                .markdown("Intro paragraph.\n\nThe quick brown fox.")
                .access(&user.id, "editor"),
        )
        .await
        .unwrap();
    let blocks = server.stored(id).await.unwrap().blocks;
    let block = |i: usize| blocks[i]["id"].as_str().unwrap().to_owned();
    let data = temp_dir();
    let mut signed_in = config(&server, &data.0, Policy::Review);
    signed_in.session_cookie = Some(docs_client::Secret::new(&user.session_cookie));
    signed_in.csrf_token = Some(docs_client::Secret::new(&user.csrf_token));
    let service = DocsService::start(signed_in).await.unwrap();
    let rest = service.client().unwrap();
    let body = |markdown: &str| comment_body_from_markdown(markdown).unwrap();
    let fox = rest
        .create_thread(id, &body("Say **which** fox."))
        .await
        .unwrap();
    rest.reply(id, fox.id, &body("A red one.")).await.unwrap();
    let intro = rest.create_thread(id, &body("Shorter?")).await.unwrap();
    rest.resolve_thread(id, intro.id).await.unwrap();
    let gone = rest
        .create_thread(id, &body("About a deleted sentence."))
        .await
        .unwrap();
    server
        .add_comment_mark(id, &block(1), "quick brown", &fox.id.to_string(), false)
        .await
        .unwrap();
    server
        .add_comment_mark(id, &block(0), "Intro", &intro.id.to_string(), false)
        .await
        .unwrap();
    let agent = Agent {
        client: connect(service.clone(), "reviewer").await,
        service,
        data,
    };
    let doc = id.to_string();

    let listed = agent.ok("list_comments", json!({"document": doc})).await;
    let threads = listed["threads"].as_array().unwrap();
    let view = |thread: &Uuid| {
        threads
            .iter()
            .find(|t| t["thread_id"] == thread.to_string())
            .unwrap_or_else(|| panic!("{thread} not listed: {listed}"))
            .clone()
    };
    let fox_view = view(&fox.id);
    assert_eq!(
        fox_view["anchors"],
        json!([{"block_id": block(1), "quoted_text": "quick brown"}])
    );
    assert_eq!(
        (&fox_view["resolved"], &fox_view["orphaned"]),
        (&json!(false), &json!(false))
    );
    let said: Vec<(&str, &str)> = fox_view["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["author"].as_str().unwrap(),
                c["markdown"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("Ada Lovelace", "Say **which** fox."),
            ("Ada Lovelace", "A red one.")
        ]
    );
    assert_eq!(view(&intro.id)["resolved"], true);
    assert_eq!(view(&intro.id)["anchors"][0]["quoted_text"], "Intro");
    let gone_view = view(&gone.id);
    assert_eq!(
        (&gone_view["anchors"], &gone_view["orphaned"]),
        (&json!([]), &json!(true))
    );

    let open: Vec<String> = agent
        .ok(
            "list_comments",
            json!({"document": doc, "unresolved_only": true}),
        )
        .await["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["thread_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(open.len(), 2);
    assert!(!open.contains(&intro.id.to_string()));
    let in_block: Vec<Value> = agent
        .ok(
            "list_comments",
            json!({"document": doc, "block_id": block(1)}),
        )
        .await["threads"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(in_block.len(), 1);
    assert_eq!(in_block[0]["thread_id"], fox.id.to_string());
    let error = agent
        .err(
            "list_comments",
            json!({"document": doc, "block_id": "nope"}),
        )
        .await;
    assert_eq!(error["code"], "BLOCK_NOT_FOUND", "{error}");

    // Reading the document shows where the threads are, in the text and by block.
    let read = agent.ok("read_document", json!({"document": doc})).await;
    assert_eq!(
        read["markdown"],
        format!(
            "<!-- block:{b0} -->\n<!-- comment:{intro} -->Intro<!-- /comment:{intro} --> paragraph.\n\n\
             <!-- block:{b1} -->\nThe <!-- comment:{fox} -->quick brown<!-- /comment:{fox} --> fox.\n",
            b0 = block(0),
            b1 = block(1),
            intro = intro.id,
            fox = fox.id,
        )
    );
    let by_block = json!({block(0): [intro.id.to_string()], block(1): [fox.id.to_string()]});
    assert_eq!(read["comment_threads"], by_block);
    let typed = agent
        .ok(
            "read_document",
            json!({"document": doc, "format": "blocks"}),
        )
        .await;
    assert_eq!(typed["comment_threads"], by_block);
    let bare = agent
        .ok("read_document", json!({"document": doc, "anchors": false}))
        .await;
    assert_eq!(
        bare["markdown"],
        "Intro paragraph.\n\nThe quick brown fox.\n"
    );

    // The block rewritten from what was read, markers kept: the text around changes, the
    // commented words keep their thread.
    let proposed = agent
        .ok(
            "update_block",
            json!({
                "document": doc,
                "block_id": block(1),
                "text": format!("The <!-- comment:{fox} -->quick brown<!-- /comment:{fox} --> fox jumps.", fox = fox.id),
            }),
        )
        .await;
    let edit: Uuid = proposed["edit_id"].as_str().unwrap().parse().unwrap();
    agent.service.approve(edit, Channel::Window).await.unwrap();
    let reread = agent
        .ok(
            "read_document",
            json!({"document": doc, "from_block": block(1)}),
        )
        .await;
    assert_eq!(
        reread["markdown"],
        format!(
            "<!-- block:{b1} -->\nThe <!-- comment:{fox} -->quick brown<!-- /comment:{fox} --> fox jumps.\n",
            b1 = block(1),
            fox = fox.id,
        )
    );
    assert_eq!(
        stored_texts(&server, id).await,
        ["Intro paragraph.", "The quick brown fox jumps."]
    );
}

/// No worker of the service's runtime waits for a document's lock. A collaborator's change
/// waits for the lock while a long read of the document holds it; a tool reading the document
/// meanwhile is answered (it once waited for the lock on the worker that the change needed to
/// go on, and the service stopped for good: on one worker always, on two now and then).
#[test]
fn a_read_while_a_collaborators_change_waits_for_the_document_is_answered() {
    // One worker: a worker stopped on the document's lock stops the whole service.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (done, finished) = std::sync::mpsc::channel();
    runtime.spawn(async move {
        let server = DocsServer::start().await.unwrap();
        let id = server
            .create_document(
                DocumentSpec::new("Held")
                    .markdown("First.")
                    .link("public", "editor"),
            )
            .await
            .unwrap();
        let agent = agent(&server, Policy::Auto).await;
        let doc = id.to_string();
        let read = json!({"document": doc, "format": "blocks"});
        let before = agent.ok("read_document", read.clone()).await;
        let block = before["blocks"][0]["id"].as_str().unwrap().to_owned();
        let session = agent.service.open(&doc, None).await.unwrap().session;
        let live = session.doc().clone();
        // The person is in the room (seen by the agent's session) before anything is held.
        let person = person_session(&server, id).await;
        tokio::time::timeout(WAIT, async {
            while session.collaborators().is_empty() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the person is seen in the room");
        let received = session.snapshot().bytes_in;

        // A long read of the document (a walk of a large one, say), on a thread of its own.
        let (held, holding) = tokio::sync::oneshot::channel();
        let holder = std::thread::spawn(move || {
            let _txn = yrs::Transact::transact(&live);
            held.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(1500));
        });
        holding.await.unwrap();
        // The person's change reaches the session, which waits for the lock to apply it.
        let fragment = docs_client::blocknote::document_fragment(person.doc());
        let typed = block.clone();
        person
            .write(move |txn| {
                docs_client::blocknote::set_block_text(txn, &fragment, &typed, "Typed meanwhile.")
            })
            .await
            .unwrap()
            .acknowledged()
            .await
            .unwrap();
        tokio::time::timeout(WAIT, async {
            while session.snapshot().bytes_in == received {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("the change reaches the agent's session");
        let meanwhile = agent.ok("read_document", read.clone()).await;
        holder.join().unwrap();
        // The change applied, the next read has it.
        let after = tokio::time::timeout(WAIT, async {
            loop {
                let after = agent.ok("read_document", read.clone()).await;
                if texts(&after["blocks"]) == ["Typed meanwhile."] {
                    break after;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
        .expect("the change is read");
        person.close().await.unwrap();
        done.send((before, meanwhile, after)).unwrap();
    });
    let Ok((before, meanwhile, after)) = finished.recv_timeout(Duration::from_secs(60)) else {
        // Its worker never comes back: the runtime is left behind, not waited for.
        runtime.shutdown_background();
        panic!("the service stopped: a worker waited for the document's lock");
    };
    assert_eq!(texts(&before["blocks"]), ["First."]);
    // Read before the change or after it, with the revision it was read at.
    let seen = texts(&meanwhile["blocks"]);
    if seen == ["First."] {
        assert_eq!(meanwhile["revision"], before["revision"]);
    } else {
        assert_eq!(seen, ["Typed meanwhile."]);
        assert_eq!(meanwhile["revision"], after["revision"]);
    }
    assert_ne!(after["revision"], before["revision"]);
}

/// Everything the model accepts round-trips through the journal (issue 27): typed blocks
/// nested 60 levels deep (the limit is 64) are applied and answered so, and their record reads
/// back (edit_status, the journal's list); under review, their card reads back and is approved.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_insert_nested_60_deep_is_applied_and_its_record_reads_back() {
    let server = DocsServer::start().await.unwrap();
    let id = server
        .create_document(DocumentSpec::new("Deep").markdown("Top"))
        .await
        .unwrap();
    let agent = agent(&server, Policy::Auto).await;
    let doc = id.to_string();
    let levels: Vec<String> = (1..=60).map(|l| format!("level {l}")).collect();

    let applied = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "end"}, "blocks": nested_items(60)}),
        )
        .await;
    assert_eq!(applied["status"], "applied", "{applied}");
    let status = agent
        .ok("edit_status", json!({"edit_id": applied["edit_id"]}))
        .await;
    assert_eq!(status["status"], "applied", "{status}");
    let journal = agent.service.edits(&EditFilter::default()).await.unwrap();
    assert_eq!(journal.len(), 1);
    assert_eq!(journal[0].arguments["blocks"], nested_items(60));
    let stored = server.stored_settled(id).await.unwrap();
    assert_eq!(nested_texts(&stored.blocks[1]), levels);

    // Under review: the card reads back, shows all 60 levels, and is approved.
    agent
        .service
        .set_policy(Some(id), Some(Policy::Review))
        .await
        .unwrap();
    let pending = agent
        .ok(
            "insert_blocks",
            json!({"document": doc, "position": {"at": "start"}, "blocks": nested_items(60)}),
        )
        .await;
    assert_eq!(pending["status"], "pending", "{pending}");
    let edit: Uuid = pending["edit_id"].as_str().unwrap().parse().unwrap();
    let card = agent
        .service
        .edits(&EditFilter {
            status: Some(vec![EditStatus::Pending]),
            ..EditFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(card.len(), 1);
    let shown = card[0].preview.after[0].block.as_ref().unwrap();
    assert_eq!(nested_texts(shown), levels);
    let approved = agent.service.approve(edit, Channel::Window).await.unwrap();
    assert_eq!(approved.status, EditStatus::Applied, "{:?}", approved.error);
    let stored = server.stored_settled(id).await.unwrap();
    assert_eq!(nested_texts(&stored.blocks[0]), levels);
}
