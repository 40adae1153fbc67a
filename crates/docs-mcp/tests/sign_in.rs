//! Signing in and out of the service with the cookies of a real session of the Docs-like test
//! server: the session is checked before anything changes, private documents open for the
//! signed-in user (reads and CSRF-checked saves), and signing out makes them private again.
//! Sessions stay in memory here (`CredentialStore::MemoryOnly`): tests never touch the
//! user's keyring.

use std::sync::Arc;

use docs_client::{InstanceUrl, Secret, User};
use docs_mcp::record::Policy;
use docs_mcp::{
    CredentialStore, DocsMcp, DocsService, ErrorCode, ErrorInfo, ServiceConfig, ServiceEvent,
};
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use test_harness::{DocsServer, DocumentSpec, TestUser};
use tokio::sync::broadcast;
use uuid::Uuid;

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir() -> TempDir {
    let dir = std::env::temp_dir().join(format!("docs-mcp-sign-in-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

async fn start(
    server: &DocsServer,
    data: &TempDir,
    session: Option<&TestUser>,
) -> Arc<DocsService> {
    let mut config = ServiceConfig::new(data.0.clone());
    config.instance = Some(InstanceUrl::parse(server.url()).unwrap());
    config.credentials = CredentialStore::MemoryOnly;
    config.default_policy = Policy::Auto;
    config.save_interval = std::time::Duration::from_millis(100);
    if let Some(user) = session {
        config.session_cookie = Some(Secret::new(&user.session_cookie));
        config.csrf_token = Some(Secret::new(&user.csrf_token));
    }
    DocsService::start(config).await.unwrap()
}

async fn agent(service: Arc<DocsService>) -> RunningService<RoleClient, ClientConfig> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = DocsMcp::new(service, "test").serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("sign-in test", "1.0"),
    )
    .serve(client_io)
    .await
    .unwrap()
}

/// A tool's structured result, or its `{code, message, hint}` error.
async fn call(
    agent: &RunningService<RoleClient, ClientConfig>,
    tool: &'static str,
    args: Value,
) -> Result<Value, Value> {
    let result = agent
        .call_tool(
            CallToolRequestParams::new(tool).with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    if result.is_error == Some(true) {
        let body: Value = serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap();
        return Err(body["error"].clone());
    }
    Ok(result.structured_content.unwrap())
}

/// The account events received so far (other events skipped).
fn account_events(events: &mut broadcast::Receiver<ServiceEvent>) -> Vec<ServiceEvent> {
    std::iter::from_fn(|| events.try_recv().ok())
        .filter(|e| matches!(e, ServiceEvent::AccountChanged { .. }))
        .collect()
}

fn ada(user: &TestUser) -> User {
    User {
        id: user.id.clone(),
        email: Some("ada@example.org".into()),
        full_name: Some("Ada Lovelace".into()),
        short_name: Some("Ada".into()),
        language: Some("en-us".into()),
    }
}

#[tokio::test]
async fn signing_in_opens_private_documents_and_signing_out_closes_them() {
    let server = DocsServer::start().await.unwrap();
    let user = server
        .create_user("ada@example.org", "Ada Lovelace")
        .await
        .unwrap();
    let private = server
        .create_document(
            DocumentSpec::new("Private plan")
                .markdown("Only for Ada.")
                .link("restricted", "reader")
                .access(&user.id, "owner"),
        )
        .await
        .unwrap();
    let data = temp_dir();
    let service = start(&server, &data, None).await;
    let mut events = service.subscribe();
    let agent = agent(service.clone()).await;
    let read = json!({"document": private.to_string(), "anchors": false});

    // Anonymous: the private document is refused (Docs answers 401).
    assert_eq!(
        (service.account(), service.session_persisted()),
        (None, false)
    );
    let refused = call(&agent, "read_document", read.clone())
        .await
        .unwrap_err();
    assert_eq!(refused["code"], "NOT_SIGNED_IN");

    // A cookie the instance does not know: refused, and nothing changed.
    let error = service
        .sign_in(Secret::new("not-a-session"), Some(Secret::new("x")))
        .await
        .unwrap_err();
    assert_eq!(
        error.info(),
        ErrorInfo {
            code: "NOT_SIGNED_IN".into(),
            message: "the Docs instance does not accept this session (it expired, was signed out, or is not a signed-in one)".into(),
            hint: "Sign in again in the Docs MCP app (or give the session of a freshly signed-in browser in DOCS_SESSION_COOKIE).".into(),
        }
    );
    assert!(!service.has_user_session());
    assert_eq!(service.account(), None);
    assert_eq!(account_events(&mut events), vec![]);

    // Signed in: the account is Ada, the document reads, and an edit is saved (CSRF checked).
    let account = service
        .sign_in(
            Secret::new(&user.session_cookie),
            Some(Secret::new(&user.csrf_token)),
        )
        .await
        .unwrap();
    assert_eq!(account, ada(&user));
    assert_eq!(service.account(), Some(ada(&user)));
    assert!(service.has_user_session());
    // Memory only: nothing was written anywhere.
    assert!(!service.session_persisted());
    assert_eq!(
        account_events(&mut events),
        vec![ServiceEvent::AccountChanged { signed_in: true }]
    );
    let opened = service.open(&private.to_string(), None).await.unwrap();
    assert_eq!(
        opened.session.metadata().title.as_deref(),
        Some("Private plan")
    );
    assert!(!opened.session.is_read_only());
    let content = call(&agent, "read_document", read.clone()).await.unwrap();
    assert_eq!(content["markdown"], "Only for Ada.\n");
    let inserted = call(
        &agent,
        "insert_blocks",
        json!({"document": private.to_string(), "position": {"at": "end"}, "markdown": "Added while signed in."}),
    )
    .await
    .unwrap();
    assert_eq!(inserted["status"], "applied");
    assert_eq!(
        server.stored_settled(private).await.unwrap().markdown,
        "Only for Ada.\n\nAdded while signed in.\n"
    );

    // Signed out: private again, public documents only.
    service.sign_out().await.unwrap();
    assert_eq!(
        (
            service.account(),
            service.has_user_session(),
            service.session_persisted()
        ),
        (None, false, false)
    );
    assert_eq!(
        account_events(&mut events),
        vec![ServiceEvent::AccountChanged { signed_in: false }]
    );
    let error = service
        .open(&private.to_string(), None)
        .await
        .err()
        .unwrap();
    assert_eq!(error.code(), ErrorCode::NotSignedIn);
    let refused = call(&agent, "read_document", read).await.unwrap_err();
    assert_eq!(refused["code"], "NOT_SIGNED_IN");
    // The session was ended on the instance too: a copy of the cookie no longer works.
    let me = reqwest::Client::new()
        .get(format!("{}/api/v1.0/users/me/", server.url()))
        .header("Cookie", format!("docs_sessionid={}", user.session_cookie))
        .send()
        .await
        .unwrap();
    assert_eq!(me.status().as_u16(), 401);

    assert_eq!(
        serde_json::to_value(ServiceEvent::AccountChanged { signed_in: true }).unwrap(),
        json!({"type": "account_changed", "signed_in": true})
    );
}

#[tokio::test]
async fn a_configured_session_is_checked_and_a_refused_one_dropped() {
    let server = DocsServer::start().await.unwrap();
    let user = server
        .create_user("ada@example.org", "Ada Lovelace")
        .await
        .unwrap();

    let data = temp_dir();
    let service = start(&server, &data, Some(&user)).await;
    assert_eq!(service.account(), None);
    assert_eq!(service.restore_session().await.unwrap(), Some(ada(&user)));
    assert_eq!(service.account(), Some(ada(&user)));
    assert!(service.has_user_session());
    assert!(!service.session_persisted());

    // An expired (unknown) session: dropped, anonymous.
    let expired = TestUser {
        session_cookie: "expired-session".into(),
        ..user.clone()
    };
    let data = temp_dir();
    let service = start(&server, &data, Some(&expired)).await;
    let mut events = service.subscribe();
    assert_eq!(service.restore_session().await.unwrap(), None);
    assert_eq!(
        (service.account(), service.has_user_session()),
        (None, false)
    );
    assert_eq!(
        account_events(&mut events),
        vec![ServiceEvent::AccountChanged { signed_in: false }]
    );

    // Nothing configured, nothing stored: anonymous, no event.
    let data = temp_dir();
    let service = start(&server, &data, None).await;
    let mut events = service.subscribe();
    assert_eq!(service.restore_session().await.unwrap(), None);
    assert_eq!(account_events(&mut events), vec![]);
}

#[tokio::test]
async fn signing_in_needs_an_instance() {
    let data = temp_dir();
    let mut config = ServiceConfig::new(data.0.clone());
    config.credentials = CredentialStore::MemoryOnly;
    let service = DocsService::start(config).await.unwrap();
    let error = service.sign_in(Secret::new("abc"), None).await.unwrap_err();
    assert_eq!(
        (error.code(), error.to_string()),
        (ErrorCode::NotSignedIn, "no instance is configured".into())
    );
    assert_eq!(
        service.sign_out().await.unwrap_err().code(),
        ErrorCode::NotSignedIn
    );
    assert_eq!(service.restore_session().await.unwrap(), None);
}
