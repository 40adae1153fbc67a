//! The Documents screen's rows: the instance's documents (signed in) or the ones known here,
//! each with its approval policy.
//!
//! Signed in: the instance's list (filtered by title, most recently updated first) or the
//! favorites; otherwise the known documents. A document is added by URL. Each row has its own
//! policy and its effective one.

use docs_client::{Document, InstanceUrl, ListQuery};
use docs_mcp::record::{KnownDocument, Policy};
use docs_mcp::{DocsService, StoredPolicies};

use crate::api::{CommandResult, DocumentList, DocumentRow, DocumentSource};

/// Documents per page asked of the instance.
const PAGE_SIZE: u32 = 30;

/// Lists one page of `source`; `query` filters by title.
pub async fn list(
    service: &DocsService,
    source: DocumentSource,
    query: Option<&str>,
    page: Option<u32>,
) -> CommandResult<DocumentList> {
    let query = query.map(str::trim).filter(|q| !q.is_empty());
    let policies = service.policies().await?;
    let client = service.client()?;
    let instance = client.instance().clone();
    let page = page.unwrap_or(1).max(1);
    let needle = query.map(str::to_lowercase);
    let result = match source {
        DocumentSource::Known => {
            let documents = service
                .known_documents()
                .await?
                .iter()
                .filter(|k| title_matches(k.title.as_deref(), needle.as_deref()))
                .map(|k| known_row(&instance, k, &policies))
                .collect();
            return Ok(DocumentList {
                documents,
                has_more: false,
            });
        }
        DocumentSource::All => {
            client
                .list_documents(&ListQuery {
                    page: Some(page),
                    page_size: Some(PAGE_SIZE),
                    title: query.map(str::to_owned),
                    ordering: Some("-updated_at".into()),
                    ..ListQuery::default()
                })
                .await?
        }
        DocumentSource::Favorites => client.favorite_documents(Some(page)).await?,
    };
    Ok(DocumentList {
        has_more: result.next.is_some(),
        documents: result
            .results
            .iter()
            // The favorites endpoint has no title filter; the list filtered already.
            .filter(|d| {
                source != DocumentSource::Favorites
                    || title_matches(d.title.as_deref(), needle.as_deref())
            })
            .map(|d| instance_row(&instance, d, &policies))
            .collect(),
    })
}

/// Adds a document by URL or id; its row as the instance describes it.
pub async fn add(service: &DocsService, url: &str) -> CommandResult<DocumentRow> {
    let (_, document) = service.add_document(url).await?;
    let instance = service.client()?.instance().clone();
    Ok(instance_row(
        &instance,
        &document,
        &service.policies().await?,
    ))
}

/// Whether a title contains `needle` (lower case), ignoring case; no needle matches all.
fn title_matches(title: Option<&str>, needle: Option<&str>) -> bool {
    needle.is_none_or(|needle| title.is_some_and(|t| t.to_lowercase().contains(needle)))
}

/// The document's own policy, and the one that applies. `policies` come from
/// `DocsService::policies`, whose default is always set.
fn policy_of(id: &uuid::Uuid, policies: &StoredPolicies) -> (Option<Policy>, Policy) {
    let own = policies.own(*id);
    (own, own.or(policies.default).unwrap_or(Policy::Review))
}

fn instance_row(
    instance: &InstanceUrl,
    document: &Document,
    policies: &StoredPolicies,
) -> DocumentRow {
    let (policy, effective_policy) = policy_of(&document.id, policies);
    let abilities = &document.abilities;
    // Lists of old instances carry no abilities: unknown rather than "cannot".
    let known_abilities = abilities.retrieve || abilities.update || abilities.partial_update;
    DocumentRow {
        id: document.id,
        title: document.title.clone().filter(|t| !t.is_empty()),
        url: instance.document_page(&document.id).to_string(),
        updated_at: document.updated_at.clone(),
        last_used_at: None,
        is_favorite: document.is_favorite.unwrap_or(false),
        can_edit: known_abilities.then(|| abilities.can_save_content()),
        policy,
        effective_policy,
    }
}

fn known_row(
    instance: &InstanceUrl,
    known: &KnownDocument,
    policies: &StoredPolicies,
) -> DocumentRow {
    let (policy, effective_policy) = policy_of(&known.id, policies);
    DocumentRow {
        id: known.id,
        title: known.title.clone().filter(|t| !t.is_empty()),
        url: instance.document_page(&known.id).to_string(),
        updated_at: None,
        last_used_at: Some(known.last_opened_at),
        is_favorite: false,
        can_edit: None,
        policy,
        effective_policy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    #[test]
    fn rows_carry_their_own_policy_or_the_default() {
        let instance = InstanceUrl::parse("https://docs.example.org").unwrap();
        let (own, other) = (Uuid::new_v4(), Uuid::new_v4());
        let policies = StoredPolicies {
            default: Some(Policy::Auto),
            documents: vec![(own, Policy::ReadOnly)],
        };
        let document: Document = serde_json::from_value(serde_json::json!({
            "id": own, "title": "Plan", "updated_at": "2026-11-20T10:00:00Z",
            "is_favorite": true,
            "abilities": {"retrieve": true, "update": true, "partial_update": true}
        }))
        .unwrap();
        let row = instance_row(&instance, &document, &policies);
        assert_eq!(
            row,
            DocumentRow {
                id: own,
                title: Some("Plan".into()),
                url: format!("https://docs.example.org/docs/{own}/"),
                updated_at: Some("2026-11-20T10:00:00Z".into()),
                last_used_at: None,
                is_favorite: true,
                can_edit: Some(true),
                policy: Some(Policy::ReadOnly),
                effective_policy: Policy::ReadOnly,
            }
        );
        let known = KnownDocument {
            id: other,
            title: Some(String::new()),
            last_opened_at: 1_795_000_000_000,
        };
        let row = known_row(&instance, &known, &policies);
        assert_eq!(
            (row.title, row.can_edit, row.policy, row.effective_policy),
            (None, None, None, Policy::Auto)
        );
        // The instance does not date it: the row says when it was last used here.
        assert_eq!(
            (row.updated_at, row.last_used_at),
            (None, Some(1_795_000_000_000))
        );
    }
}
