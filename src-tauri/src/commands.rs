//! The Tauri commands: one-line adapters into the service (or the host around it). Types
//! live in `api`; no decision is made here. Arguments keep their snake_case names on the
//! wire (`document_id`), as `ui/src/types.ts` declares them, not Tauri's default camelCase.
//!
//! `grant_decision_request` is the only way a request asked over `/control` is carried out in the
//! app.

use std::collections::BTreeMap;

use std::sync::Arc;

use docs_mcp::record::{EditRecord, GroupDecision, Policy};
use docs_mcp::{AgentClient, DecisionRequest, NewAgentClient};
use tauri::{AppHandle, State};
use tauri_plugin_opener::OpenerExt as _;
use uuid::Uuid;

use crate::api::{
    AskedScreen, ChangedEdit, CommandResult, Decision, DocumentList, DocumentRow, DocumentSource,
    GrantedRequest, HistoryFilter, InstanceCheck, LaunchAtLogin, Overview, SessionRow, Settings,
    StartupProblem, TextPreview, browser_failed, invalid,
};
use crate::claude_desktop::ClaudeDesktopAdded;
use crate::host::{DECIDER, Host};
use crate::{autostart, documents, tray};

type HostState<'a> = State<'a, Arc<Host>>;

#[tauri::command(rename_all = "snake_case")]
pub async fn overview(host: HostState<'_>) -> CommandResult<Overview> {
    host.overview().await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn check_instance(host: HostState<'_>, url: String) -> CommandResult<InstanceCheck> {
    host.check_instance(&url).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn connect_instance(host: HostState<'_>, url: String) -> CommandResult<Overview> {
    host.connect_instance(&url).await
}

/// The oldest pending edits, at most a page (50), without the agents' raw arguments.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_pending(host: HostState<'_>) -> CommandResult<Vec<EditRecord>> {
    host.pending().await
}

/// How many edits wait for a decision in all (the window shows a page of them).
#[tauri::command(rename_all = "snake_case")]
pub async fn pending_count(host: HostState<'_>) -> CommandResult<u64> {
    Ok(host.pending_count().await)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn approve_edit(host: HostState<'_>, id: Uuid) -> CommandResult<EditRecord> {
    Ok(host.service.approve(id, DECIDER).await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn reject_edit(
    host: HostState<'_>,
    id: Uuid,
    comment: Option<String>,
) -> CommandResult<EditRecord> {
    Ok(host.service.reject(id, comment, DECIDER).await?)
}

/// The decisions asked from outside the window (a terminal, a script) that wait for the
/// person, oldest first.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_decision_requests(host: HostState<'_>) -> CommandResult<Vec<DecisionRequest>> {
    Ok(host.service.decision_requests())
}

/// The person's click on a request asked from outside the window: carried out, and
/// recorded as decided in the window.
#[tauri::command(rename_all = "snake_case")]
pub async fn grant_decision_request(
    host: HostState<'_>,
    id: Uuid,
) -> CommandResult<GrantedRequest> {
    let (request, outcome) = host.service.grant_in_window(id).await?;
    Ok(GrantedRequest { request, outcome })
}

/// The person declines a request asked from outside the window: nothing is done.
#[tauri::command(rename_all = "snake_case")]
pub async fn decline_decision_request(
    host: HostState<'_>,
    id: Uuid,
) -> CommandResult<DecisionRequest> {
    Ok(host.service.decline_in_window(id)?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn list_sessions(host: HostState<'_>) -> CommandResult<Vec<SessionRow>> {
    host.sessions().await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn set_paused(host: HostState<'_>, paused: bool) -> CommandResult<()> {
    Ok(host.service.set_paused(paused).await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn list_documents(
    host: HostState<'_>,
    source: DocumentSource,
    query: Option<String>,
    page: Option<u32>,
) -> CommandResult<DocumentList> {
    documents::list(&host.service, source, query.as_deref(), page).await
}

/// Adds a document by URL or id (remembered as known); works without sign-in for public ones.
#[tauri::command(rename_all = "snake_case")]
pub async fn add_document(host: HostState<'_>, url: String) -> CommandResult<DocumentRow> {
    documents::add(&host.service, &url).await
}

/// `document_id: null` sets the default policy; `policy: null` clears a document's own.
#[tauri::command(rename_all = "snake_case")]
pub async fn set_policy(
    host: HostState<'_>,
    document_id: Option<Uuid>,
    policy: Option<Policy>,
) -> CommandResult<()> {
    Ok(host.service.set_policy(document_id, policy).await?)
}

/// Opens the document's page, at `block_id` when given (Docs' block links, since 5.6).
#[tauri::command(rename_all = "snake_case")]
pub fn open_in_browser(
    app: AppHandle,
    host: HostState<'_>,
    document_id: Uuid,
    block_id: Option<String>,
) -> CommandResult<()> {
    let client = host.service.client()?;
    let instance = client.instance();
    let url = match &block_id {
        Some(block) => instance.block_link(&document_id, block),
        None => instance.document_page(&document_id),
    };
    app.opener()
        .open_url(url.as_str(), None::<&str>)
        .map_err(|e| {
            tracing::warn!(error = %e, "the system did not open a browser");
            browser_failed(url.as_str())
        })
}

#[tauri::command(rename_all = "snake_case")]
pub async fn disconnect_session(host: HostState<'_>, document_id: Uuid) -> CommandResult<()> {
    Ok(host.service.close_session(document_id).await?)
}

/// Approves or rejects these pending edits (those of a group as the user saw it); says what
/// became of each: decided, left pending because deciding it failed (and why), or decided
/// elsewhere meanwhile (skipped, not an error).
#[tauri::command(rename_all = "snake_case")]
pub async fn decide_all(
    host: HostState<'_>,
    decision: Decision,
    ids: Vec<Uuid>,
    comment: Option<String>,
) -> CommandResult<GroupDecision> {
    host.decide_all(decision, &ids, comment).await
}

/// Starts the demo: a local Docs-like server with sample documents, connected.
#[tauri::command(rename_all = "snake_case")]
pub async fn start_demo(host: HostState<'_>) -> CommandResult<Overview> {
    host.start_demo().await
}

/// The demo agent proposes an edit to a sample document.
#[tauri::command(rename_all = "snake_case")]
pub async fn demo_propose_edit(host: HostState<'_>) -> CommandResult<EditRecord> {
    host.demo_propose_edit().await
}

/// Approves an agent's rewrite of a block with the person's own text (inline markdown).
#[tauri::command(rename_all = "snake_case")]
pub async fn approve_with_text(
    host: HostState<'_>,
    id: Uuid,
    text: String,
) -> CommandResult<EditRecord> {
    host.approve_with_text(id, &text).await
}

/// How a person's text for a block reads (inline markdown rendered as the block will hold
/// it); bad markdown is refused as approving it would be.
#[tauri::command(rename_all = "snake_case")]
pub fn text_preview(text: String) -> CommandResult<TextPreview> {
    Ok(TextPreview {
        content: docs_mcp::text_preview(&text)?,
    })
}

/// Approves some parts of an agent's edit (indexes into its `parts`), with the person's
/// `texts` for parts that rewrite a block (by index), and refuses the others.
#[tauri::command(rename_all = "snake_case")]
pub async fn approve_parts(
    host: HostState<'_>,
    id: Uuid,
    parts: Vec<usize>,
    texts: BTreeMap<usize, String>,
) -> CommandResult<EditRecord> {
    host.approve_parts(id, &parts, &texts).await
}

/// The pending edits among `ids` whose approval would now be a conflict, and why.
#[tauri::command(rename_all = "snake_case")]
pub async fn changed_since_proposed(
    host: HostState<'_>,
    ids: Vec<Uuid>,
) -> CommandResult<Vec<ChangedEdit>> {
    host.changed_since_proposed(&ids).await
}

/// Stops the group decisions under way: the edits they have not reached stay pending.
#[tauri::command(rename_all = "snake_case")]
pub fn stop_decisions(host: HostState<'_>) {
    host.stop_decisions();
}

#[tauri::command(rename_all = "snake_case")]
pub async fn list_history(
    host: HostState<'_>,
    filter: HistoryFilter,
) -> CommandResult<Vec<EditRecord>> {
    host.history(&filter).await
}

/// Undoes an applied edit (as a new edit the user made, applied at once).
#[tauri::command(rename_all = "snake_case")]
pub async fn undo_edit(host: HostState<'_>, id: Uuid) -> CommandResult<EditRecord> {
    host.undo(id).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn get_settings(host: HostState<'_>) -> CommandResult<Settings> {
    host.settings().await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn save_settings(host: HostState<'_>, settings: Settings) -> CommandResult<Settings> {
    host.save_settings(&settings).await?;
    host.settings().await
}

/// Whether the OS starts the app at login, read from the OS; whether this run offers it, and
/// what to know first.
#[tauri::command(rename_all = "snake_case")]
pub fn launch_at_login(app: AppHandle, host: HostState<'_>) -> LaunchAtLogin {
    launch_state(&app, &host)
}

/// Turns launch at login on or off; answers its state after it. Refused in the demo.
#[tauri::command(rename_all = "snake_case")]
pub fn set_launch_at_login(
    app: AppHandle,
    host: HostState<'_>,
    enabled: bool,
) -> CommandResult<LaunchAtLogin> {
    if let Some(refused) = autostart::refused(host.demo_run) {
        return Err(invalid(
            refused,
            "Quit the demo and open Docs MCP to turn it on.",
        ));
    }
    tray::set_launch_at_login(&app, enabled).map_err(|e| {
        invalid(
            format!("launch at login was not changed: {e}"),
            "Start Docs MCP yourself meanwhile; check that your home folder is writable.",
        )
    })?;
    Ok(launch_state(&app, &host))
}

fn launch_state(app: &AppHandle, host: &Host) -> LaunchAtLogin {
    LaunchAtLogin {
        enabled: autostart::is_enabled(app),
        refused: autostart::refused(host.demo_run),
        caveat: std::env::current_exe()
            .ok()
            .and_then(|exe| autostart::caveat(&exe)),
    }
}

/// Adds this app's stdio bridge to Claude Desktop's configuration as `server_name`.
#[tauri::command(rename_all = "snake_case")]
pub async fn add_to_claude_desktop(
    host: HostState<'_>,
    server_name: String,
) -> CommandResult<ClaudeDesktopAdded> {
    let path = crate::claude_desktop::config_path().ok_or_else(|| {
        crate::api::invalid(
            "no home folder to find Claude Desktop's configuration in",
            "Paste the configuration by hand.",
        )
    })?;
    let app = std::env::current_exe().map_err(|e| {
        crate::api::invalid(
            format!("this app's own path is unknown: {e}"),
            "Paste the configuration by hand.",
        )
    })?;
    crate::claude_desktop::add(&path, &server_name, &app, &host.bridge_args())
}

/// Why the app could not start its service, or `null`: asked first, before any other command.
#[tauri::command(rename_all = "snake_case")]
pub fn startup_problem(problem: State<'_, StartupProblem>) -> Option<String> {
    problem.0.clone()
}

/// The screen the tray asked for when it opened this window, or `null`: taken once, when the
/// page has loaded.
#[tauri::command(rename_all = "snake_case")]
pub fn asked_screen(asked: State<'_, AskedScreen>) -> Option<String> {
    asked.0.lock().expect("asked screen").take()
}

/// Replaces the bearer token; agents must be given the new one.
#[tauri::command(rename_all = "snake_case")]
pub async fn regenerate_token(host: HostState<'_>) -> CommandResult<Overview> {
    host.regenerate_token().await
}

/// The agent clients configured with a token of their own, revoked ones included.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_agent_clients(host: HostState<'_>) -> CommandResult<Vec<AgentClient>> {
    Ok(host.service.agent_clients().await?)
}

/// Adds a named client; the answer carries its token, shown this once.
#[tauri::command(rename_all = "snake_case")]
pub async fn add_agent_client(host: HostState<'_>, name: String) -> CommandResult<NewAgentClient> {
    Ok(host.service.add_agent_client(&name).await?)
}

/// Revokes a client: its token stops working at once.
#[tauri::command(rename_all = "snake_case")]
pub async fn revoke_agent_client(host: HostState<'_>, id: Uuid) -> CommandResult<AgentClient> {
    Ok(host.service.revoke_agent_client(id).await?)
}

/// Resolves once the sign-in window has signed the user in (`SIGN_IN_CANCELLED` if closed).
#[tauri::command(rename_all = "snake_case")]
pub async fn sign_in(app: AppHandle, host: HostState<'_>) -> CommandResult<Overview> {
    crate::signin::sign_in(&app, &host).await?;
    host.overview().await
}

/// Forgets the session (keyring and sign-in window cookies); public documents still work.
#[tauri::command(rename_all = "snake_case")]
pub async fn sign_out(host: HostState<'_>) -> CommandResult<Overview> {
    host.service.sign_out().await?;
    host.overview().await
}
