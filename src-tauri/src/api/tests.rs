use super::*;
use docs_mcp::record::{EditRecord, EditStatus};
use std::time::{Duration, UNIX_EPOCH};

fn snapshot(id: Uuid, at_ms: u64) -> SessionSnapshot {
    SessionSnapshot {
        collaboration: docs_client::CollaborationServer::Hocuspocus,
        document_id: id,
        connected: true,
        read_only: false,
        error: None,
        last_activity: UNIX_EPOCH + Duration::from_millis(at_ms),
        pending_acks: 0,
        pending_saves: 1,
        bytes_in: 10,
        bytes_out: 20,
        connects: 1,
        collaborators: vec!["Ada".into()],
    }
}

#[test]
fn session_rows_have_titles_and_newest_first() {
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    let known = [KnownDocument {
        id: b,
        title: Some("Minutes".into()),
        last_opened_at: 0,
    }];
    let counts = HashMap::from([(
        b,
        EditCounts {
            applied: 3,
            pending: 1,
        },
    )]);
    let rows = session_rows(
        vec![snapshot(a, 1_000), snapshot(b, 2_000)],
        &known,
        &counts,
        &HashMap::from([(b, 2)]),
        &HashMap::from([(a, vec!["Claude Code".to_owned()])]),
    );
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].document_id, b);
    assert_eq!(rows[0].title.as_deref(), Some("Minutes"));
    assert_eq!(rows[0].last_activity, 2_000);
    assert_eq!((rows[0].edits_applied, rows[0].edits_pending), (3, 1));
    assert_eq!(rows[1].title, None);
    assert_eq!((rows[1].edits_applied, rows[1].edits_pending), (0, 0));
    assert_eq!(
        (rows[0].open_threads, rows[1].open_threads),
        (Some(2), None)
    );
    assert_eq!(rows[1].collaborators, vec!["Ada".to_owned()]);
    assert_eq!(rows[1].agents, vec!["Claude Code".to_owned()]);
    assert!(rows[0].agents.is_empty());
}

/// The UI tests render `ui/test/fixtures/edit-record.json`: it must be what the service
/// sends. (Changing `EditRecord` breaks this test; update the fixture.)
#[test]
fn ui_fixture_is_a_serialized_edit_record() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ui/test/fixtures/edit-record.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let record: EditRecord = serde_json::from_value(fixture.clone()).unwrap();
    assert_eq!(record.status, EditStatus::Pending);
    assert_eq!(serde_json::to_value(&record).unwrap(), fixture);
}

#[test]
fn errors_cross_ipc_as_code_message_hint() {
    let error: CommandError = ServiceError::NoInstance.into();
    let json = serde_json::to_value(&error).unwrap();
    assert_eq!(json["code"], "NOT_SIGNED_IN");
    assert_eq!(json["message"], "no instance is configured");
    assert!(json["hint"].as_str().unwrap().contains("instance URL"));
    assert_eq!(json.as_object().unwrap().len(), 3);
    assert_eq!(
        serde_json::to_value(CommandError::sign_in_cancelled()).unwrap(),
        serde_json::json!({
            "code": "SIGN_IN_CANCELLED",
            "message": "the sign-in window was closed before signing in",
            "hint": "Sign in again when you are ready; public documents work meanwhile."
        })
    );
}

#[test]
fn a_server_that_is_not_docs_gets_one_sentence_not_its_error_page() {
    let url = "https://intranet.example.org";
    for error in [
        docs_client::Error::NotFound {
            what: "the instance configuration (<html>Not Found</html>)".into(),
        },
        docs_client::Error::Unauthorized {
            detail: "Authentication credentials were not provided.".into(),
        },
        docs_client::Error::BadResponse {
            status: 200,
            detail: r#"the instance configuration: {"status":"ok","version":3}"#.into(),
        },
    ] {
        let json = serde_json::to_value(instance_check_failed(url, error)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "code": "NOT_A_DOCS_INSTANCE",
                "message": "https://intranet.example.org answers, but not as a La Suite Docs instance",
                "hint": "Give the address you open Docs at in your browser, for example https://docs.numerique.gouv.fr."
            })
        );
    }
}

#[test]
fn an_unreachable_address_says_what_to_check() {
    let error = docs_client::Error::Network {
        detail: "connection failed (dns error)".into(),
    };
    let json =
        serde_json::to_value(instance_check_failed("https://docs.example.org", error)).unwrap();
    assert_eq!(json["code"], "INSTANCE_UNREACHABLE");
    assert_eq!(
        json["message"],
        "cannot reach https://docs.example.org: connection failed (dns error)"
    );
    assert_eq!(
        json["hint"],
        "Check the address, and that this computer reaches it (a company's instance may need its VPN)."
    );
    let throttled = docs_client::Error::Throttled {
        retry_after: std::time::Duration::from_secs(30),
    };
    assert_eq!(
        serde_json::to_value(instance_check_failed("https://docs.example.org", throttled)).unwrap()
            ["code"],
        "RATE_LIMITED"
    );
}

#[test]
fn a_browser_that_does_not_open_is_told_without_the_exit_status() {
    let json = serde_json::to_value(browser_failed("https://docs.example.org/docs/1/")).unwrap();
    assert_eq!(
        json["message"],
        "no web browser opened https://docs.example.org/docs/1/"
    );
    assert_eq!(
        json["hint"],
        "Copy the address into your browser; check the system's default browser."
    );
}

/// `ui/src/bindings.ts` is the TypeScript of every type crossing IPC, generated from the
/// Rust types: a change to them fails this test until the file is regenerated with
/// `UPDATE_BINDINGS=1 cargo test -p docs-mcp-app --bin docs-mcp-app bindings`.
#[test]
fn ui_bindings_are_generated_from_the_rust_types() {
    use docs_mcp::ServiceEvent;
    use docs_mcp::record::{
        AgentInfo, CommentAction, DiffSpan, EditPart, LinkKind, Preview, PreviewBlock, PreviewLink,
        ProposedComment,
    };
    use ts_rs::TS;

    let declarations = [
        ErrorInfo::decl(),
        EditStatus::decl(),
        Policy::decl(),
        AgentInfo::decl(),
        PreviewBlock::decl(),
        DiffSpan::decl(),
        LinkKind::decl(),
        PreviewLink::decl(),
        Preview::decl(),
        EditPart::decl(),
        CommentAction::decl(),
        ProposedComment::decl(),
        docs_mcp::record::ProposedDocument::decl(),
        docs_mcp::record::UndecidedEdit::decl(),
        docs_mcp::record::GroupDecision::decl(),
        EditRecord::decl(),
        ServiceEvent::decl(),
        Account::decl(),
        Overview::decl(),
        InstanceCheck::decl(),
        SessionRow::decl(),
        ChangedEdit::decl(),
        DocumentSource::decl(),
        DocumentRow::decl(),
        DocumentList::decl(),
        HistoryFilter::decl(),
        Decision::decl(),
        Settings::decl(),
        docs_mcp::AgentClient::decl(),
        docs_mcp::NewAgentClient::decl(),
        docs_mcp::record::Channel::decl(),
        docs_mcp::Asker::decl(),
        docs_mcp::Action::decl(),
        docs_mcp::RequestState::decl(),
        docs_mcp::DecisionRequest::decl(),
        docs_mcp::Outcome::decl(),
        GrantedRequest::decl(),
        crate::claude_desktop::ClaudeDesktopAdded::decl(),
        LaunchAtLogin::decl(),
        TextPreview::decl(),
    ];
    let mut generated = String::from(
        "// Generated from the Rust types by `api::tests::ui_bindings_are_generated_from_the_rust_types`\n\
         // (src-tauri/src/api.rs): do not edit. Regenerate with\n\
         // `UPDATE_BINDINGS=1 cargo test -p docs-mcp-app --bin docs-mcp-app bindings`.\n\n\
         import type { BlockJson, InlineJson } from \"./blocknote\";\n",
    );
    for declaration in declarations {
        generated.push_str("\nexport ");
        generated.push_str(&declaration);
        generated.push('\n');
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/src/bindings.ts");
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::write(path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "ui/src/bindings.ts is not what the Rust types generate: run \
         UPDATE_BINDINGS=1 cargo test -p docs-mcp-app --bin docs-mcp-app bindings"
    );
}

/// `Account` and the new `Overview` fields as the UI reads them.
#[test]
fn overview_carries_the_account() {
    let overview = Overview {
        version: "0.1.0".into(),
        instance: Some("https://docs.example.org".into()),
        signed_in: true,
        account: Some(Account::from(User {
            id: "u1".into(),
            email: Some("ada@example.org".into()),
            full_name: Some("Ada Lovelace".into()),
            short_name: Some("Ada".into()),
            language: Some("en-us".into()),
        })),
        session_persisted: false,
        paused: false,
        pending_count: 0,
        endpoint: "http://127.0.0.1:7658/mcp".into(),
        listening: true,
        listen_error: None,
        token: None,
        app_path: "/usr/bin/docs-mcp-app".into(),
        bridge_args: vec!["bridge".into()],
        data_dir: "/home/ada/.local/share/lasuite-docs-mcp".into(),
        demo: false,
        demo_starting: false,
        demo_available: true,
    };
    assert_eq!(
        serde_json::to_value(&overview).unwrap(),
        serde_json::json!({
            "version": "0.1.0",
            "instance": "https://docs.example.org",
            "signed_in": true,
            "account": {"id": "u1", "email": "ada@example.org", "full_name": "Ada Lovelace", "short_name": "Ada"},
            "session_persisted": false,
            "paused": false,
            "pending_count": 0,
            "endpoint": "http://127.0.0.1:7658/mcp",
            "listening": true,
            "listen_error": null,
            "token": null,
            "app_path": "/usr/bin/docs-mcp-app",
            "bridge_args": ["bridge"],
            "data_dir": "/home/ada/.local/share/lasuite-docs-mcp",
            "demo": false,
            "demo_starting": false,
            "demo_available": true
        })
    );
}
