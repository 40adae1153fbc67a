//! An agent creating a document is an edit like any other: a record in the journal with a
//! card (the title, where the document goes, its content rendered), refused by Read-only,
//! Comment only and Pause, and made only once decided — by the Automatic policy, or by a
//! person. Until then nothing exists in Docs.
//!
//! The document's id is chosen when the agent asks (Docs takes one on creation): making it is
//! idempotent, so a creation whose answer was lost, or left `applying` by a stopped run, is
//! looked for by that id and never made twice. `applied` means the document exists; its
//! content is a second edit, decided by the same decision, written once it does.
//!
//! The record holds a `ProposedDocument`, its content previewed on an empty document. The creation
//! is `failed` only when Docs refused it and has no document with that id; when that cannot be told
//! yet, it stays `applying` and is asked again.

use docs_client::blocknote::EditorSchema;
use uuid::Uuid;

use super::DocsService;
use super::merge::MergeRefused;
use super::submit::{EditRequest, StoredPlan};
use crate::edits::{self, EditOp, TextBases};
use crate::error::{ServiceError, ServiceResult};
use crate::record::{
    AgentInfo, Channel, EditFilter, EditPayload, EditRecord, EditStatus, KnownDocument, Policy,
    Preview, ProposedDocument, now_ms,
};

/// The tool a creation and its content are recorded under.
const TOOL: &str = "create_document";

/// What making a document found.
enum Made {
    Document(docs_client::Document),
    /// Docs refused it, and no document has the id: nothing was made.
    Refused(ServiceError),
    /// Docs could not be asked (or its answer was lost) and could not say whether the document
    /// exists: the creation stays `applying` and is asked again.
    Unknown(ServiceError),
}

impl DocsService {
    /// An agent asks to create a document (signed in), at the top level or under `parent`,
    /// with optional markdown content. Returns the creation's record: `pending` under Review,
    /// or decided by the Automatic policy and carried out (`applied`: the document exists).
    /// Content that could not be written is refused before anything is recorded.
    pub async fn create_document(
        &self,
        title: &str,
        parent: Option<&str>,
        markdown: Option<String>,
        reason: Option<String>,
        agent: AgentInfo,
    ) -> ServiceResult<EditRecord> {
        if !self.has_user_session() {
            return Err(ServiceError::NotSignedIn);
        }
        if title.trim().is_empty() || title.chars().count() > 255 {
            return Err(ServiceError::invalid(
                "a title needs 1 to 255 characters",
                "Give a short title.",
            ));
        }
        let reason = super::checked_reason(reason)?;
        let parent = parent.map(|p| self.resolve(p)).transpose()?;
        // The parent is read now: it exists and this user sees it, and the card names it.
        let parent_title = match parent {
            Some(parent) => self.client()?.document(parent).await?.title,
            None => None,
        };
        let markdown = markdown.filter(|m| !m.trim().is_empty());
        let preview = match markdown.clone() {
            Some(markdown) => {
                let schema = self.client()?.editor_schema().await;
                tokio::task::spawn_blocking(move || content_preview(markdown, schema))
                    .await
                    .map_err(|e| ServiceError::Internal(format!("planning task: {e}")))??
            }
            None => Preview::default(),
        };
        let record = EditRecord {
            preview,
            proposed_document: Some(ProposedDocument {
                title: title.to_owned(),
                parent_id: parent,
                parent_title,
                content_edit: None,
            }),
            ..EditRecord::pending(
                Uuid::new_v4(),
                Some(title.to_owned()),
                agent,
                TOOL.into(),
                serde_json::json!({
                    "title": title,
                    "parent": parent.map(|p| p.to_string()),
                    "markdown": markdown,
                }),
                reason,
            )
        };
        // Decided where the record is made: the policy and Pause as they are now.
        let decided_by = self.automatic(self.creation_policy(parent).await?);
        let mut record = record;
        match decided_by {
            Some(channel) => {
                record.status = EditStatus::Applying;
                record.decided_by = Some(channel);
                record.decided_at = Some(now_ms());
            }
            None => self.room_for_pending(&record.agent).await?,
        }
        self.store
            .insert_edit(record.clone(), EditPayload::none())
            .await?;
        self.changed(&record);
        if decided_by.is_none() {
            return Ok(record);
        }
        self.carry_out_creation(record).await
    }

    /// The policy a new document is made under: its parent's, else the default. Agents may
    /// create none under Read-only or Comment only, nor while paused.
    async fn creation_policy(&self, parent: Option<Uuid>) -> ServiceResult<Policy> {
        let policy = match parent {
            Some(parent) => self.policy_for(parent).await?,
            None => self
                .policies()
                .await?
                .default
                .unwrap_or(self.config.default_policy),
        };
        match policy {
            Policy::ReadOnly => Err(ServiceError::PolicyReadOnly),
            Policy::CommentOnly => Err(ServiceError::PolicyCommentOnly),
            _ if self.is_paused() => Err(ServiceError::Paused),
            policy => Ok(policy),
        }
    }

    /// Makes the document of an `applying` creation, then writes its content as an edit
    /// decided by the same decision. A creation Docs could not be asked about stays `applying`
    /// and is taken up again (`resume_creation`).
    pub(super) async fn carry_out_creation(
        &self,
        applying: EditRecord,
    ) -> ServiceResult<EditRecord> {
        match self.make(&applying).await {
            Made::Document(document) => self.created(applying, document).await,
            Made::Refused(error) => self.finish(applying, MergeRefused::Failed(error)).await,
            Made::Unknown(error) => {
                tracing::info!(edit = %applying.id, %error, "cannot tell yet whether the document was made; asking again");
                self.spawn_creation(applying.id);
                Ok(applying)
            }
        }
    }

    /// Asks Docs for the document, by the id the creation chose. A refusal is checked: when a
    /// document has the id already, an earlier attempt made it.
    async fn make(&self, applying: &EditRecord) -> Made {
        let Some(proposed) = &applying.proposed_document else {
            return Made::Refused(ServiceError::Internal("not a creation".into()));
        };
        let client = match self.client() {
            Ok(client) => client,
            Err(error) => return Made::Unknown(error),
        };
        let asked = client
            .create_document(applying.document_id, &proposed.title, proposed.parent_id)
            .await;
        let refusal = match asked {
            Ok(document) => return Made::Document(document),
            Err(error) => ServiceError::from(error),
        };
        match client.document(applying.document_id).await {
            Ok(document) => Made::Document(document),
            Err(docs_client::Error::NotFound { .. }) if !super::settle::is_transient(&refusal) => {
                Made::Refused(refusal)
            }
            Err(docs_client::Error::NotFound { .. }) => Made::Unknown(refusal),
            Err(error) => Made::Unknown(error.into()),
        }
    }

    /// The document exists: it is remembered, its content written (once: a content edit
    /// recorded by an earlier attempt is the one), and the creation is `applied`.
    async fn created(
        &self,
        mut applying: EditRecord,
        document: docs_client::Document,
    ) -> ServiceResult<EditRecord> {
        self.store
            .remember_document(KnownDocument {
                id: document.id,
                title: document.title.clone(),
                last_opened_at: now_ms(),
            })
            .await?;
        let markdown = applying.arguments["markdown"]
            .as_str()
            .map(str::to_owned)
            .filter(|m| !m.trim().is_empty());
        let mut content_error = None;
        let content = match markdown {
            None => None,
            Some(markdown) => match self.content_edit_of(document.id).await? {
                Some(written) => Some(written),
                None => {
                    let channel = applying.decided_by.unwrap_or(Channel::Policy);
                    match self.write_content(&applying, markdown, channel).await {
                        Ok(record) => Some(record.id),
                        Err(error) => {
                            tracing::warn!(edit = %applying.id, %error, "the document was made; its content was not written");
                            content_error = Some(error);
                            None
                        }
                    }
                }
            },
        };
        if let Some(proposed) = &mut applying.proposed_document {
            proposed.content_edit = content;
        }
        applying.status = EditStatus::Applied;
        applying.applied_at = Some(now_ms());
        // In Docs: the document exists (its content is the content edit's to save).
        applying.saved_at = applying.applied_at;
        applying.error = content_error.map(|error| {
            let mut info = error.info();
            info.message = format!(
                "the document was created, empty: its content could not be written ({})",
                info.message
            );
            info
        });
        let applied = self.leave_applying(applying).await?;
        // Nothing of the creation itself is left for a save to hold.
        self.store.mark_saved(vec![applied.id]).await?;
        Ok(applied)
    }

    /// The content edit an earlier attempt recorded for the new document, if any.
    async fn content_edit_of(&self, document: Uuid) -> ServiceResult<Option<Uuid>> {
        let edits = self
            .edits(&EditFilter {
                document_id: Some(document),
                ..EditFilter::default()
            })
            .await?;
        Ok(edits
            .iter()
            .find(|e| e.tool == TOOL && e.proposed_document.is_none())
            .map(|e| e.id))
    }

    /// The creation's content, written into the new document as an edit decided by the same
    /// decision (the card showed it).
    async fn write_content(
        &self,
        creation: &EditRecord,
        markdown: String,
        channel: Channel,
    ) -> ServiceResult<EditRecord> {
        let request = EditRequest {
            document: creation.document_id.to_string(),
            arguments: creation.arguments.clone(),
            ops: vec![content_op(markdown)],
            tool: TOOL.into(),
            reason: creation.reason.clone(),
            revision: None,
            agent: creation.agent.clone(),
            bases: TextBases::new(),
        };
        self.submit_decided(request, Some(channel)).await
    }

    /// A creation left `applying` (a stopped run, or Docs out of reach): asked again until
    /// Docs says whether the document exists, in a task of its own.
    pub(super) fn spawn_creation(&self, id: Uuid) {
        if !self.settling.lock().expect("settling").insert(id) {
            return;
        }
        let service = self.arc();
        self.settle_tasks.spawn(async move {
            let mut attempts = 0;
            loop {
                let record = match service.edit(id).await {
                    Ok(record) if record.status == EditStatus::Applying => record,
                    _ => break,
                };
                match service.make(&record).await {
                    Made::Document(document) => {
                        if let Err(error) = service.created(record, document).await {
                            tracing::warn!(edit = %id, %error, "cannot record a created document");
                        }
                        break;
                    }
                    Made::Refused(error) => {
                        if let Err(error) = service.finish(record, MergeRefused::Failed(error)).await {
                            tracing::warn!(edit = %id, %error, "cannot record a refused creation");
                        }
                        break;
                    }
                    Made::Unknown(error) => {
                        attempts += 1;
                        tracing::info!(edit = %id, %error, "cannot reach Docs to make a document; retrying");
                        if !service.pause(attempts).await {
                            break;
                        }
                    }
                }
            }
            service.settling.lock().expect("settling").remove(&id);
        });
    }
}

/// The operation writing a new document's content.
fn content_op(markdown: String) -> EditOp {
    EditOp::InsertBlocks(edits::InsertBlocks {
        position: edits::Position {
            at: edits::Anchor::Start,
            block_id: None,
        },
        markdown: Some(markdown),
        blocks: None,
    })
}

/// The content as the new document will show it, planned on an empty document: what the card
/// renders. Content the model refuses (an unsafe link, too deep, math the instance lacks) is
/// refused here.
fn content_preview(markdown: String, schema: EditorSchema) -> ServiceResult<Preview> {
    let doc = yrs::Doc::with_options(yrs::Options {
        offset_kind: yrs::OffsetKind::Utf16,
        ..yrs::Options::default()
    });
    let fork = edits::Fork {
        doc,
        blocks: None,
        schema,
    };
    let plan = edits::plan(&fork, &[content_op(markdown)], &TextBases::new())?;
    Ok(StoredPlan::from(plan).preview)
}
