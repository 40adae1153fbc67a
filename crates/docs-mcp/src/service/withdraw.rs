//! What an agent asked, from its side: its own edits, and withdrawing one nobody decided yet
//! (a proposal it no longer stands by, so that it does not wait for the person in vain). An
//! agent never approves nor rejects: a withdrawn edit was never in the document.
//!
//! Withdrawing is `pending` → `withdrawn` by compare-and-set, by the same configured client, or on
//! the shared token by an agent of the same name; a withdrawn edit records no decider.

use uuid::Uuid;

use super::DocsService;
use crate::error::{ServiceError, ServiceResult};
use crate::record::{AgentInfo, EditFilter, EditRecord, EditStatus, now_ms};

/// Whether `asker` is the agent that asked for an edit of `owner`'s: the same configured
/// client, or — on the shared token — an agent of the same name.
fn same_agent(owner: &AgentInfo, asker: &AgentInfo) -> bool {
    match (owner.client_id, asker.client_id) {
        (Some(owner), Some(asker)) => owner == asker,
        (None, None) => owner.name == asker.name,
        _ => false,
    }
}

impl DocsService {
    /// The edits `agent` asked for (pending ones unless `status` says which), newest first.
    pub async fn edits_of(
        &self,
        agent: &AgentInfo,
        status: Option<Vec<EditStatus>>,
        document_id: Option<Uuid>,
        limit: u32,
    ) -> ServiceResult<Vec<EditRecord>> {
        let mut mine: Vec<EditRecord> = self
            .edits(&EditFilter {
                status: Some(status.unwrap_or_else(|| vec![EditStatus::Pending])),
                document_id,
                agent: Some(agent.name.clone()),
                // The journal's newest of that name; those of another agent of the name drop.
                limit: Some(1000),
                oldest_first: false,
            })
            .await?
            .into_iter()
            .filter(|record| same_agent(&record.agent, agent))
            .collect();
        mine.truncate(limit as usize);
        Ok(mine)
    }

    /// Withdraws `agent`'s own pending edit: `pending` → `withdrawn` (a compare-and-set: a
    /// person's decision that came first stands, and says so).
    pub async fn withdraw_edit(&self, id: Uuid, agent: &AgentInfo) -> ServiceResult<EditRecord> {
        let mut record = self.pending(id).await?;
        if !same_agent(&record.agent, agent) {
            return Err(ServiceError::invalid(
                format!("edit {id} was asked for by another agent"),
                "Withdraw only your own edits: my_edits lists them.",
            ));
        }
        record.status = EditStatus::Withdrawn;
        record.decided_at = Some(now_ms());
        self.leave_pending(record).await
    }
}
