//! Decisions asked over the control channel, settled only by the person (see
//! [`crate::decisions`]): held for a click in the app's window, or — headless — for a code
//! typed back in the asker's own terminal. The channel a decision is recorded with is the one
//! it was settled through; nothing the asker sends chooses it.
//!
//! A request is checked when asked (the edit waits, the client exists), then held:
//! `grant_in_window` (only the app calls it, in-process) or, headless, `confirm_in_terminal` (the
//! process that asked, from its terminal, with the code the service wrote there). It is carried out
//! through `decide` with `Channel::Window` or `Channel::Terminal`; a decision from a terminal is
//! logged.

use std::time::Duration;

use serde::Serialize;
use uuid::Uuid;

use super::DocsService;
use crate::clients::{AgentClient, NewAgentClient};
use crate::decisions::{
    Action, AskError, AskRefused, DecisionRequest, PersonAt, RequestState, TakeRefused, new_code,
};
use crate::error::{ServiceError, ServiceResult};
use crate::events::ServiceEvent;
use crate::peer::Asker;
use crate::record::{Channel, EditRecord, Policy};

/// A decision held for the person, and how the asker learns what to do.
#[derive(Debug, Clone, Serialize)]
pub struct Asked {
    pub request: DecisionRequest,
    /// Where the person settles it: `window` or `terminal`.
    pub settle_in: &'static str,
    /// Headless on a system where the service cannot write to the asker's terminal: the
    /// code to type back (shown by the CLI). Where it can, the code goes to the terminal only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// What carrying a decision out gave.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Outcome {
    Edit(Box<EditRecord>),
    Policy {
        document_id: Option<Uuid>,
        policy: Option<Policy>,
    },
    Unpaused,
    ClientAdded(NewAgentClient),
    ClientRevoked(AgentClient),
}

impl Outcome {
    /// How it ended, in a few words, for the request's record.
    fn summary(&self) -> String {
        match self {
            Outcome::Edit(record) => format!("the edit is {}", record.status.as_str()),
            Outcome::Policy { .. } => "the policy is changed".into(),
            Outcome::Unpaused => "agents are no longer paused".into(),
            Outcome::ClientAdded(added) => format!(
                "client {} added; its token was shown to the person who added it, this once",
                added.client.name
            ),
            Outcome::ClientRevoked(client) => format!("client {} revoked", client.name),
        }
    }
}

impl DocsService {
    /// A decision asked over the control channel by `asker` (found by the service, not said
    /// by the request). Checked at once (the edit exists and waits...); then held for the
    /// person. Headless, the asker must run in a terminal: the code to type back is written
    /// to that terminal (on Linux) or returned (elsewhere, where the terminal is unknown).
    pub async fn ask(&self, action: Action, asker: Asker) -> ServiceResult<Asked> {
        let summary = self.describe(&action).await?;
        let (code, shown) = match self.config.person_at {
            PersonAt::Window => (None, false),
            PersonAt::Terminal => {
                if (asker.known || crate::peer::IDENTIFIES) && asker.terminal.is_none() {
                    return Err(AskError::TerminalRequired {
                        asker: asker.describe(),
                    }
                    .into());
                }
                (Some(new_code()), asker.terminal.is_some())
            }
        };
        let request = self
            .requests
            .ask(action, summary, asker.clone(), code.clone())
            .map_err(|AskRefused::TooMany| AskError::TooMany)?;
        if let (Some(code), Some(terminal)) = (&code, &asker.terminal)
            && let Err(e) = show_code(terminal, &request.summary, code)
        {
            self.requests.finish(
                request.id,
                RequestState::Expired {
                    why: "the code could not be shown".into(),
                },
            );
            return Err(AskError::TerminalUnreachable {
                reason: e.to_string(),
            }
            .into());
        }
        tracing::info!(request = %request.id, asker = %asker.describe(), "asked: {}", request.summary);
        self.requests_changed();
        Ok(Asked {
            request,
            settle_in: match self.config.person_at {
                PersonAt::Window => "window",
                PersonAt::Terminal => "terminal",
            },
            code: code.filter(|_| !shown),
        })
    }

    /// The requests waiting for a click in the window, oldest first.
    pub fn decision_requests(&self) -> Vec<DecisionRequest> {
        self.requests.waiting()
    }

    /// A request as it stands, waiting up to `wait` for it to be settled.
    pub async fn decision_request(
        &self,
        id: Uuid,
        wait: Duration,
    ) -> ServiceResult<DecisionRequest> {
        let mut changed = self.requests_version.subscribe();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            changed.mark_unchanged();
            let request = self
                .requests
                .get(id)
                .ok_or_else(|| AskError::UnknownRequest { id: id.to_string() })?;
            if !matches!(
                request.state,
                RequestState::Waiting | RequestState::CarryingOut
            ) {
                return Ok(request);
            }
            tokio::select! {
                _ = changed.changed() => {}
                _ = tokio::time::sleep_until(deadline) => return Ok(request),
            }
        }
    }

    /// The person's click in the app's window: carries the request out, decided in the window.
    /// Only the app calls this, in its own process; no route of the HTTP endpoint does.
    pub async fn grant_in_window(&self, id: Uuid) -> ServiceResult<(DecisionRequest, Outcome)> {
        let request = self.requests.take(id, None).map_err(|e| refused(id, e))?;
        self.carry_out(request, Channel::Window).await
    }

    /// The person's "Decline" in the window.
    pub fn decline_in_window(&self, id: Uuid) -> ServiceResult<DecisionRequest> {
        let declined = self
            .requests
            .decline(id)
            .ok_or_else(|| AskError::UnknownRequest { id: id.to_string() })?;
        self.requests_changed();
        Ok(declined)
    }

    /// Headless: the code shown in the asker's terminal, typed back by the same process from
    /// that terminal. A wrong code cancels the request.
    pub async fn confirm_in_terminal(
        &self,
        id: Uuid,
        code: &str,
        asker: Asker,
    ) -> ServiceResult<(DecisionRequest, Outcome)> {
        let asked = self
            .requests
            .get(id)
            .ok_or_else(|| AskError::UnknownRequest { id: id.to_string() })?;
        if self.config.person_at != PersonAt::Terminal
            || asker.pid != asked.asker.pid
            || asker.terminal != asked.asker.terminal
        {
            return Err(AskError::NotTheAsker.into());
        }
        let taken = self.requests.take(id, Some(code));
        if taken.is_err() {
            self.requests_changed();
        }
        let request = taken.map_err(|e| refused(id, e))?;
        self.carry_out(request, Channel::Terminal).await
    }

    /// Carries a settled request out through `channel`, and records how it ended.
    async fn carry_out(
        &self,
        request: DecisionRequest,
        channel: Channel,
    ) -> ServiceResult<(DecisionRequest, Outcome)> {
        self.requests_changed();
        let outcome = self.decide(&request.action, channel).await;
        let state = match &outcome {
            Ok(outcome) => RequestState::Done {
                outcome: outcome.summary(),
            },
            Err(error) => RequestState::Failed {
                error: error.info(),
            },
        };
        let settled = self.requests.finish(request.id, state).unwrap_or(request);
        self.requests_changed();
        if channel != Channel::Window {
            tracing::warn!(
                request = %settled.id,
                asker = %settled.asker.describe(),
                "decided from a terminal: {}",
                settled.summary
            );
        }
        Ok((settled, outcome?))
    }

    /// Makes the decision, recorded as made through `channel`.
    async fn decide(&self, action: &Action, channel: Channel) -> ServiceResult<Outcome> {
        Ok(match action {
            Action::Approve {
                edit_id,
                parts: None,
            } => Outcome::Edit(Box::new(self.approve(*edit_id, channel).await?)),
            Action::Approve {
                edit_id,
                parts: Some(parts),
            } => Outcome::Edit(Box::new(
                self.approve_parts(*edit_id, channel, parts, &Default::default())
                    .await?,
            )),
            Action::Reject { edit_id, comment } => Outcome::Edit(Box::new(
                self.reject(*edit_id, comment.clone(), channel).await?,
            )),
            Action::SetPolicy {
                document_id,
                policy,
            } => {
                self.set_policy(*document_id, *policy).await?;
                Outcome::Policy {
                    document_id: *document_id,
                    policy: *policy,
                }
            }
            Action::Unpause => {
                self.set_paused(false).await?;
                Outcome::Unpaused
            }
            Action::AddClient { name } => Outcome::ClientAdded(self.add_agent_client(name).await?),
            Action::RevokeClient { client_id } => {
                Outcome::ClientRevoked(self.revoke_agent_client(*client_id).await?)
            }
        })
    }

    /// What `action` does, in words — checked against what is there now, so a request for an
    /// edit that does not wait, or a client that does not exist, is refused at once.
    async fn describe(&self, action: &Action) -> ServiceResult<String> {
        let edit = |record: &EditRecord| {
            let title = record
                .document_title
                .as_deref()
                .filter(|t| !t.trim().is_empty())
                .map(crate::record::clean_name)
                .unwrap_or_else(|| record.document_id.to_string());
            format!(
                "the edit of “{title}” by {} ({})",
                record.agent.name, record.tool
            )
        };
        Ok(match action {
            Action::Approve { edit_id, parts } => {
                let record = self.pending(*edit_id).await?;
                match parts {
                    None => format!("Approve {}", edit(&record)),
                    Some(parts) => format!("Approve parts {parts:?} of {}", edit(&record)),
                }
            }
            Action::Reject { edit_id, .. } => {
                format!("Reject {}", edit(&self.pending(*edit_id).await?))
            }
            Action::SetPolicy {
                document_id,
                policy,
            } => {
                let policy = policy.map_or("its default", |p| p.as_str());
                match document_id {
                    None => format!("Set the default policy to {policy}"),
                    Some(id) => format!("Set the policy of document {id} to {policy}"),
                }
            }
            Action::Unpause => "Let agents' edits through again (unpause)".into(),
            Action::AddClient { name } => format!(
                "Add the agent client “{}” (a new token)",
                crate::record::clean_name(name)
            ),
            Action::RevokeClient { client_id } => {
                let client = self
                    .agent_clients()
                    .await?
                    .into_iter()
                    .find(|c| c.id == *client_id && c.revoked_at.is_none())
                    .ok_or_else(|| {
                        ServiceError::invalid(
                            format!("no active client {client_id}"),
                            "List the clients: it may have been revoked already.",
                        )
                    })?;
                format!("Revoke the agent client “{}”", client.name)
            }
        })
    }

    fn requests_changed(&self) {
        self.requests_version.send_modify(|n| *n += 1);
        self.emit(ServiceEvent::DecisionRequestsChanged);
    }
}

fn refused(id: Uuid, refused: TakeRefused) -> ServiceError {
    match refused {
        TakeRefused::Unknown => AskError::UnknownRequest { id: id.to_string() },
        TakeRefused::WrongCode => AskError::WrongCode,
        TakeRefused::Settled(state) => AskError::Settled {
            id: id.to_string(),
            state: state_name(&state).into(),
        },
    }
    .into()
}

fn state_name(state: &RequestState) -> &'static str {
    match state {
        RequestState::Waiting => "waiting",
        RequestState::CarryingOut => "being carried out",
        RequestState::Done { .. } => "done",
        RequestState::Declined => "declined",
        RequestState::Expired { .. } => "expired",
        RequestState::Failed { .. } => "failed",
    }
}

/// Writes the code to the asker's terminal: only someone reading that terminal learns it.
fn show_code(terminal: &std::path::Path, summary: &str, code: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut tty = std::fs::OpenOptions::new().write(true).open(terminal)?;
    // Control characters of the summary (an agent's name, a title) are made visible.
    let summary = crate::record::visible(summary);
    write!(
        tty,
        "\nDocs MCP: {summary}.\nTo confirm, type this code: {code}\n"
    )?;
    tty.flush()
}
