//! Documents on the instance: its settings and collaboration endpoint, a document's
//! metadata, the lists (the user's, search, favorites) and creating one.
//!
//! The collaboration endpoint: `configured_collaboration` (`COLLABORATION_WS_URL`; the session
//! cookie goes there, so it must name the instance's own host over `wss`, plain `ws` only for a
//! loopback instance, else `UntrustedCollaborationUrl`) and `collaboration_of` a document (the
//! configured one, else derived from the document).

use reqwest::Method;
use url::Url;
use uuid::Uuid;

use super::types::{Document, InstanceConfig, ListQuery, Page};
use super::{DocsClient, parse_json};
use crate::blocknote::EditorSchema;
use crate::collaboration::CollaborationEndpoint;
use crate::error::{Error, Result};

impl DocsClient {
    /// The instance's public settings, fetched once per client.
    pub async fn instance_config(&self) -> Result<InstanceConfig> {
        self.inner
            .instance_config
            .get_or_try_init(|| async {
                let url = self.instance().api("config/");
                self.get_json(url, "the instance configuration").await
            })
            .await
            .cloned()
    }

    /// The editor schema of the instance, from its release (`config/`'s `RELEASE_VERSION`):
    /// what may be written there. One whose configuration cannot be read is taken for a
    /// release without math and diagrams.
    pub async fn editor_schema(&self) -> EditorSchema {
        match self.instance_config().await {
            Ok(config) => EditorSchema::of_release(config.release_version.as_deref()),
            Err(_) => EditorSchema::BASE,
        }
    }

    /// The collaboration endpoint the instance configures, if it configures one (else Docs
    /// derives it: [`CollaborationEndpoint::derived`], from a document).
    /// The session cookie is sent there, so a configured endpoint off the instance's host,
    /// or unencrypted for a remote instance, is refused
    /// ([`Error::UntrustedCollaborationUrl`]).
    pub async fn configured_collaboration(&self) -> Result<Option<CollaborationEndpoint>> {
        // An instance without the setting, or whose configuration cannot be read (a proxy
        // answering 404/5xx for it), uses the endpoint Docs derives on its own origin.
        let configured = match self.instance_config().await {
            Ok(config) => config.collaboration_ws_url,
            Err(error @ (Error::NotFound { .. } | Error::BadResponse { .. })) => {
                tracing::info!(%error, "no instance configuration: the collaboration endpoint is derived");
                None
            }
            Err(error) => return Err(error),
        };
        configured
            .filter(|s| !s.is_empty())
            .map(|raw| {
                self.instance()
                    .collaboration_ws(&raw)
                    .map(CollaborationEndpoint::configured)
            })
            .transpose()
    }

    /// The collaboration endpoint of `document`'s room: the configured one, else the one
    /// Docs derives.
    pub async fn collaboration(&self, document: &Document) -> Result<CollaborationEndpoint> {
        Ok(match self.configured_collaboration().await? {
            Some(endpoint) => endpoint,
            None => {
                CollaborationEndpoint::derived(self.instance(), document.collaboration_server())
            }
        })
    }

    /// The collaboration endpoint of document `id`'s room: the configured one (no request
    /// beyond the cached configuration), else the one Docs derives from the document.
    pub async fn collaboration_of(&self, id: Uuid) -> Result<CollaborationEndpoint> {
        match self.configured_collaboration().await? {
            Some(endpoint) => Ok(endpoint),
            None => self.collaboration(&self.document(id).await?).await,
        }
    }

    pub async fn document(&self, id: Uuid) -> Result<Document> {
        let url = self.instance().api(&format!("documents/{id}/"));
        self.get_json(url, &format!("document {id}")).await
    }

    /// The documents of the signed-in user (an anonymous caller gets an empty page).
    pub async fn list_documents(&self, query: &ListQuery) -> Result<Page<Document>> {
        let mut url = self.instance().api("documents/");
        append_query(&mut url, query);
        self.get_json(url, "the document list").await
    }

    /// Title search (full text when the instance has a search indexer). Signed in only.
    pub async fn search_documents(&self, q: &str, page: Option<u32>) -> Result<Page<Document>> {
        let mut url = self.instance().api("documents/search/");
        url.query_pairs_mut().append_pair("q", q);
        if let Some(page) = page {
            url.query_pairs_mut().append_pair("page", &page.to_string());
        }
        self.get_json(url, "the document search").await
    }

    /// The signed-in user's favorites: at `documents/favorites/` since Docs 5.7, at
    /// `documents/favorite_list/` before. The new path is asked first; a 404 there tries the
    /// old one, which is then used for good if it answers.
    pub async fn favorite_documents(&self, page: Option<u32>) -> Result<Page<Document>> {
        use std::sync::atomic::Ordering;
        let ask = |path: &str| {
            let mut url = self.instance().api(path);
            if let Some(page) = page {
                url.query_pairs_mut().append_pair("page", &page.to_string());
            }
            self.get_json::<Page<Document>>(url, "the favorite documents")
        };
        const CURRENT: &str = "documents/favorites/";
        const BEFORE_5_7: &str = "documents/favorite_list/";
        if self.inner.legacy_favorites.load(Ordering::Relaxed) {
            return ask(BEFORE_5_7).await;
        }
        match ask(CURRENT).await {
            Err(Error::NotFound { .. }) => {
                let page = ask(BEFORE_5_7).await?;
                self.inner.legacy_favorites.store(true, Ordering::Relaxed);
                Ok(page)
            }
            other => other,
        }
    }

    /// Creates a document (signed in), at the top level or as a sub-page of `parent`.
    /// Creates a document with the id the caller chose (Docs takes one on creation and
    /// refuses it when it exists already): a creation retried after a lost answer finds the
    /// document it made, it never makes a second one.
    pub async fn create_document(
        &self,
        id: Uuid,
        title: &str,
        parent: Option<Uuid>,
    ) -> Result<Document> {
        let path = match parent {
            Some(parent) => format!("documents/{parent}/children/"),
            None => "documents/".to_owned(),
        };
        let body = serde_json::to_vec(&serde_json::json!({ "id": id, "title": title }))
            .expect("serializable");
        let what = "the new document";
        let response = self
            .send(Method::POST, self.instance().api(&path), Some(body), what)
            .await?;
        parse_json(response, what).await
    }
}

fn append_query(url: &mut Url, query: &ListQuery) {
    let mut pairs = url.query_pairs_mut();
    if let Some(page) = query.page {
        pairs.append_pair("page", &page.to_string());
    }
    if let Some(size) = query.page_size {
        pairs.append_pair("page_size", &size.to_string());
    }
    if let Some(title) = &query.title {
        pairs.append_pair("title", title);
    }
    if let Some(fav) = query.is_favorite {
        pairs.append_pair("is_favorite", if fav { "true" } else { "false" });
    }
    if let Some(ordering) = &query.ordering {
        pairs.append_pair("ordering", ordering);
    }
}
