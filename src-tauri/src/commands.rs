//! The Tauri commands: one-line adapters into the service (or the host around it). Types
//! live in `api`; no decision is made here.

use std::sync::Arc;

use docs_mcp::record::EditRecord;
use tauri::{AppHandle, State};
use uuid::Uuid;

use crate::api::{CommandResult, InstanceCheck, Overview, SessionRow};
use crate::host::{DECIDER, Host};

type HostState<'a> = State<'a, Arc<Host>>;

#[tauri::command]
pub fn overview(host: HostState<'_>) -> CommandResult<Overview> {
    host.overview()
}

#[tauri::command]
pub async fn check_instance(host: HostState<'_>, url: String) -> CommandResult<InstanceCheck> {
    host.check_instance(&url).await
}

#[tauri::command]
pub async fn connect_instance(host: HostState<'_>, url: String) -> CommandResult<Overview> {
    host.connect_instance(&url).await
}

#[tauri::command]
pub fn list_pending(host: HostState<'_>) -> CommandResult<Vec<EditRecord>> {
    host.pending()
}

#[tauri::command]
pub async fn approve_edit(host: HostState<'_>, id: Uuid) -> CommandResult<EditRecord> {
    Ok(host.service.approve(id, DECIDER).await?)
}

#[tauri::command]
pub async fn reject_edit(
    host: HostState<'_>,
    id: Uuid,
    comment: Option<String>,
) -> CommandResult<EditRecord> {
    Ok(host.service.reject(id, comment, DECIDER).await?)
}

#[tauri::command]
pub fn list_sessions(host: HostState<'_>) -> CommandResult<Vec<SessionRow>> {
    host.sessions()
}

#[tauri::command]
pub fn set_paused(host: HostState<'_>, paused: bool) -> CommandResult<()> {
    Ok(host.service.set_paused(paused)?)
}

/// Resolves once the sign-in window has signed the user in (`SIGN_IN_CANCELLED` if closed).
#[tauri::command]
pub async fn sign_in(app: AppHandle, host: HostState<'_>) -> CommandResult<Overview> {
    crate::signin::sign_in(&app, &host).await?;
    host.overview()
}

#[tauri::command]
pub async fn sign_out(host: HostState<'_>) -> CommandResult<Overview> {
    host.service.sign_out().await?;
    host.overview()
}
