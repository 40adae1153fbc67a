//! The REST side of a Docs instance (`/api/v1.0/`): configuration, documents and their
//! abilities, the stored Yjs content, the signed-in user. Every call goes through the
//! client-side rate limiter and retries 429s after `Retry-After`.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::cookie::{CookieStore, Jar};
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use url::Url;
use uuid::Uuid;

use crate::collaboration::{CollaborationEndpoint, CollaborationServer};
use crate::config::{ClientConfig, InstanceUrl};
use crate::error::{Error, Result};
use crate::rate_limit::RateLimiter;

/// Name of the Django session cookie of Docs.
pub const SESSION_COOKIE: &str = "docs_sessionid";
/// Name of Django's CSRF cookie.
pub const CSRF_COOKIE: &str = "csrftoken";

/// Public settings of an instance (`GET /api/v1.0/config/`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct InstanceConfig {
    #[serde(rename = "COLLABORATION_WS_URL", default)]
    pub collaboration_ws_url: Option<String>,
    #[serde(rename = "COLLABORATION_WS_NOT_CONNECTED_READ_ONLY", default)]
    pub ws_not_connected_read_only: Option<bool>,
    #[serde(rename = "RELEASE_VERSION", default)]
    pub release_version: Option<String>,
}

/// What the current user may do with a document (the keys of Docs' `abilities`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(default)]
pub struct Abilities {
    pub retrieve: bool,
    pub update: bool,
    pub partial_update: bool,
    pub content_retrieve: Option<bool>,
    pub content_patch: Option<bool>,
    pub children_list: bool,
    pub children_create: bool,
    pub favorite: bool,
    pub destroy: bool,
    /// May take part in the document's comment threads (editors, and the `commenter` link or
    /// access role, who may not edit); absent on instances without comments.
    pub comment: Option<bool>,
}

impl Abilities {
    /// Whether the stored content may be read (instances before 5.0 have no separate ability).
    pub fn can_read_content(&self) -> bool {
        self.content_retrieve.unwrap_or(self.retrieve)
    }

    /// Whether the user may comment (list and create threads, reply).
    pub fn can_comment(&self) -> bool {
        self.comment.unwrap_or(false)
    }

    /// Whether the stored content may be saved (instances before 5.0: the `update` ability).
    pub fn can_save_content(&self) -> bool {
        self.content_patch.unwrap_or(self.update)
    }
}

/// Metadata of one document (`GET /api/v1.0/documents/<id>/`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Document {
    pub id: Uuid,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub excerpt: Option<String>,
    #[serde(default)]
    pub abilities: Abilities,
    #[serde(default)]
    pub link_reach: Option<String>,
    #[serde(default)]
    pub link_role: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub depth: Option<u32>,
    #[serde(default)]
    pub numchild: Option<u32>,
    #[serde(default)]
    pub is_favorite: Option<bool>,
    #[serde(default)]
    pub user_role: Option<String>,
    /// Instances before 5.0 return the stored content (base64) here.
    #[serde(default, skip_serializing)]
    pub content: Option<String>,
}

impl Document {
    /// The collaboration server Docs runs for it, as its frontend tells when nothing is
    /// configured: yhub when the document has neither a content endpoint nor a content field
    /// (yhub removed both), else Hocuspocus.
    pub fn collaboration_server(&self) -> CollaborationServer {
        if self.abilities.content_retrieve.is_none() && self.content.is_none() {
            CollaborationServer::Yhub
        } else {
            CollaborationServer::Hocuspocus
        }
    }
}

/// One page of a paginated list.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Page<T> {
    pub count: u64,
    pub next: Option<String>,
    pub previous: Option<String>,
    pub results: Vec<T>,
}

/// The signed-in user (`GET /api/v1.0/users/me/`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct User {
    pub id: String,
    pub email: Option<String>,
    pub full_name: Option<String>,
    pub short_name: Option<String>,
    pub language: Option<String>,
}

/// Filters of the document list.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ListQuery {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_favorite: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ordering: Option<String>,
}

/// The stored state of a document: a full Yjs update (v1), empty when never saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredContent {
    pub update: Vec<u8>,
    pub etag: Option<String>,
}

/// Where an instance keeps document content: the `content/` endpoint (Docs ≥ 5.0) or the
/// `content` field of the document itself (older instances).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentApi {
    Endpoint,
    LegacyField,
}

#[derive(Serialize)]
struct ContentPatch<'a> {
    content: &'a str,
    websocket: bool,
}

/// A cheap-to-clone REST client of one instance; clones share cookies and the rate budget.
#[derive(Debug, Clone)]
pub struct DocsClient {
    inner: Arc<Inner>,
    /// Calls this handle paid for in advance (see [`DocsClient::prepaid`]).
    prepaid: Option<Arc<Prepaid>>,
    /// The longest this handle waits for the request budget, when shorter than the
    /// configured one (see [`DocsClient::waiting_at_most`]).
    max_wait: Option<Duration>,
}

/// Calls taken from the rate budget at once for a task that needs several; the ones left
/// unused when the last handle goes are given back.
#[derive(Debug)]
struct Prepaid {
    inner: Arc<Inner>,
    at: tokio::time::Instant,
    left: std::sync::atomic::AtomicUsize,
}

impl Prepaid {
    fn take(&self) -> bool {
        use std::sync::atomic::Ordering;
        self.left
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok()
    }
}

impl Drop for Prepaid {
    fn drop(&mut self) {
        let left = *self.left.get_mut();
        self.inner.limiter.refund(self.at, left);
    }
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    config: ClientConfig,
    jar: Arc<Jar>,
    limiter: RateLimiter,
    instance_config: tokio::sync::OnceCell<InstanceConfig>,
    /// Set once the instance answered the favorites at their path before Docs 5.7.
    legacy_favorites: std::sync::atomic::AtomicBool,
    /// Set once a document showed that the instance keeps no content at `content/` (before
    /// 5.0, the field; yhub, the room): opens then stop fetching it beside the metadata.
    no_content_endpoint: std::sync::atomic::AtomicBool,
}

/// What every HTTP client of an instance shares: the time-out and the user agent.
fn http_builder(config: &ClientConfig) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .timeout(config.request_timeout)
        .user_agent(concat!("lasuite-docs-mcp/", env!("CARGO_PKG_VERSION")))
}

impl DocsClient {
    pub fn new(config: ClientConfig) -> Result<Self> {
        crate::tls::install_crypto_provider();
        let jar = Arc::new(Jar::default());
        let base = config.instance.as_url();
        if let Some(cookie) = &config.session_cookie {
            jar.add_cookie_str(
                &format!("{SESSION_COOKIE}={}; Path=/", cookie.expose()),
                base,
            );
        }
        if let Some(token) = &config.csrf_token {
            jar.add_cookie_str(&format!("{CSRF_COOKIE}={}; Path=/", token.expose()), base);
        }
        let http = http_builder(&config)
            .cookie_provider(jar.clone())
            .build()
            .map_err(|e| Error::Network {
                detail: e.to_string(),
            })?;
        let limiter = RateLimiter::new(config.requests_per_minute, Duration::from_secs(60));
        Ok(DocsClient {
            inner: Arc::new(Inner {
                http,
                config,
                jar,
                limiter,
                instance_config: tokio::sync::OnceCell::new(),
                legacy_favorites: std::sync::atomic::AtomicBool::new(false),
                no_content_endpoint: std::sync::atomic::AtomicBool::new(false),
            }),
            prepaid: None,
            max_wait: None,
        })
    }

    pub fn instance(&self) -> &InstanceUrl {
        &self.inner.config.instance
    }

    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

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

    pub async fn me(&self) -> Result<User> {
        self.get_json(self.instance().api("users/me/"), "the signed-in user")
            .await
    }

    /// Which content API the instance has, judged from a document's metadata.
    /// Ends the signed-in session on the instance (`GET /api/v1.0/logout/`, as the Docs
    /// frontend does), so a copy of the cookie stops working too. The redirect that follows
    /// (the identity provider's end-session page, meant for a browser) is not followed.
    pub async fn end_session(&self) -> Result<()> {
        let Some(cookies) = self.cookie_header() else {
            return Ok(());
        };
        self.spend_budget().await?;
        let url = self.instance().api("logout/");
        let no_redirect = http_builder(self.config())
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::Network {
                detail: e.to_string(),
            })?;
        let response = no_redirect
            .get(url)
            .header(reqwest::header::COOKIE, cookies)
            .send()
            .await
            .map_err(|e| Error::Network {
                detail: e.to_string(),
            })?;
        let status = response.status();
        if status.is_success() || status.is_redirection() {
            Ok(())
        } else {
            Err(Error::Network {
                detail: format!("signing out answered HTTP {status}"),
            })
        }
    }

    pub fn content_api_of(document: &Document) -> ContentApi {
        if document.content.is_some() {
            ContentApi::LegacyField
        } else {
            ContentApi::Endpoint
        }
    }

    /// The stored Yjs state of a document: `legacy_field`, the `content` its metadata came
    /// with (instances before 5.0), else `GET content/`. The field is taken by value: it is the
    /// whole state in base64, which the metadata a session keeps should not hold.
    pub async fn content(&self, id: Uuid, legacy_field: Option<String>) -> Result<StoredContent> {
        match legacy_field {
            Some(field) => decoded_content(id, &field, None),
            None => self.content_at_endpoint(id).await,
        }
    }

    /// `GET documents/<id>/content/`, where Docs 5 keeps a document's stored Yjs state.
    pub async fn content_at_endpoint(&self, id: Uuid) -> Result<StoredContent> {
        let url = self.instance().api(&format!("documents/{id}/content/"));
        let response = self
            .send(Method::GET, url, None, &format!("content of document {id}"))
            .await?;
        let etag = response
            .headers()
            .get(header::ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = response.text().await.map_err(|e| Error::Network {
            detail: e.to_string(),
        })?;
        decoded_content(id, &text, etag)
    }

    /// Whether a document's content may be at `content/`: no document opened so far showed
    /// otherwise.
    pub fn may_have_content_endpoint(&self) -> bool {
        !self
            .inner
            .no_content_endpoint
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// What an opened document showed: its content is not at `content/`.
    pub fn note_no_content_endpoint(&self) {
        self.inner
            .no_content_endpoint
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Saves the full Yjs state of a document the way Docs' editor does
    /// (`{"content": <base64>, "websocket": <connected>}`): the stored content is
    /// overwritten. `connected`: whether we are in the document's room right now.
    pub async fn save_content(
        &self,
        id: Uuid,
        api: ContentApi,
        state: &[u8],
        connected: bool,
    ) -> Result<()> {
        let encoded = BASE64.encode(state);
        let body = serde_json::to_vec(&ContentPatch {
            content: &encoded,
            websocket: connected,
        })
        .expect("serializable");
        let path = match api {
            ContentApi::Endpoint => format!("documents/{id}/content/"),
            ContentApi::LegacyField => format!("documents/{id}/"),
        };
        self.send(
            Method::PATCH,
            self.instance().api(&path),
            Some(body),
            &format!("content of document {id}"),
        )
        .await?;
        Ok(())
    }

    /// The `Cookie` header value the instance would receive from us, if any cookie is set.
    pub fn cookie_header(&self) -> Option<String> {
        self.inner
            .jar
            .cookies(self.instance().as_url())
            .and_then(|v| v.to_str().ok().map(str::to_owned))
    }

    fn cookie(&self, name: &str) -> Option<String> {
        let header = self.cookie_header()?;
        header.split(';').find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then(|| v.to_owned())
        })
    }

    /// Whether a session cookie is known (given, or handed out by the instance).
    pub fn has_session_cookie(&self) -> bool {
        self.cookie(SESSION_COOKIE).is_some()
    }

    /// Counts one call against the rate budget without making it: used for calls the
    /// collaboration server makes to the backend on our behalf (one per WebSocket connect).
    pub async fn spend_budget(&self) -> Result<()> {
        self.acquire_budget().await
    }

    /// A handle whose next `calls` calls are taken from the rate budget now, all or none
    /// (waiting as [`DocsClient::spend_budget`] does): a task that needs several calls, such
    /// as opening a document, either gets them all or spends none. Calls beyond those come
    /// from the budget as usual; the unused ones are given back when the handle goes.
    pub async fn prepaid(&self, calls: usize) -> Result<DocsClient> {
        let at = self
            .inner
            .limiter
            .acquire_within(calls, self.max_throttle_wait())
            .await
            .map_err(|retry_after| Error::Throttled { retry_after })?;
        Ok(DocsClient {
            inner: self.inner.clone(),
            prepaid: Some(Arc::new(Prepaid {
                inner: self.inner.clone(),
                at,
                left: calls.into(),
            })),
            max_wait: self.max_wait,
        })
    }

    /// A handle that waits at most `wait` for the request budget (the client's own, or the
    /// instance's `Retry-After`): a task with a deadline (a closing session's save) hears
    /// `Throttled` at once instead of waiting past it.
    pub fn waiting_at_most(&self, wait: Duration) -> DocsClient {
        DocsClient {
            max_wait: Some(self.max_throttle_wait().min(wait)),
            ..self.clone()
        }
    }

    /// How long this handle waits for the request budget.
    fn max_throttle_wait(&self) -> Duration {
        let configured = self.inner.config.max_throttle_wait;
        self.max_wait
            .map_or(configured, |wait| wait.min(configured))
    }

    /// Waits for room in the rate budget, unless that takes longer than the configured
    /// longest wait: then the caller is told to retry later.
    async fn acquire_budget(&self) -> Result<()> {
        if self.prepaid.as_ref().is_some_and(|p| p.take()) {
            return Ok(());
        }
        self.inner
            .limiter
            .acquire_within(1, self.max_throttle_wait())
            .await
            .map(drop)
            .map_err(|retry_after| Error::Throttled { retry_after })
    }

    pub(crate) async fn get_json<T: DeserializeOwned>(&self, url: Url, what: &str) -> Result<T> {
        let response = self.send(Method::GET, url, None, what).await?;
        parse_json(response, what).await
    }

    /// Sends one request: rate-limited, CSRF headers on unsafe methods, 429s retried after
    /// `Retry-After`, non-success statuses mapped to typed errors.
    pub(crate) async fn send(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
        what: &str,
    ) -> Result<reqwest::Response> {
        self.send_with(method, url, body, what, HeaderMap::new())
            .await
    }

    /// [`DocsClient::send`] with `headers` added to every attempt.
    pub(crate) async fn send_with(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
        what: &str,
        headers: HeaderMap,
    ) -> Result<reqwest::Response> {
        let config = &self.inner.config;
        let mut throttled = 0;
        loop {
            self.acquire_budget().await?;
            let mut request = self
                .inner
                .http
                .request(method.clone(), url.clone())
                .headers(headers.clone());
            if method != Method::GET && method != Method::HEAD {
                request = request.headers(self.unsafe_method_headers());
            }
            if let Some(body) = &body {
                request = request
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(body.clone());
            }
            let response = request.send().await.map_err(|e| Error::Network {
                detail: network_detail(&e),
            })?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            if status == StatusCode::TOO_MANY_REQUESTS {
                let retry_after = retry_after(response.headers());
                if throttled < config.max_throttle_retries
                    && retry_after <= self.max_throttle_wait()
                {
                    throttled += 1;
                    tracing::warn!(%url, ?retry_after, "throttled by the instance; waiting");
                    tokio::time::sleep(retry_after).await;
                    continue;
                }
                return Err(Error::Throttled { retry_after });
            }
            let detail = drf_detail(response).await;
            return Err(match status {
                StatusCode::NOT_FOUND => Error::NotFound {
                    what: format!("{what} ({detail})"),
                },
                StatusCode::UNAUTHORIZED => Error::Unauthorized { detail },
                StatusCode::FORBIDDEN => Error::Forbidden {
                    detail: format!("{what}: {detail}"),
                },
                _ => Error::BadResponse {
                    status: status.as_u16(),
                    detail: format!("{what}: {detail}"),
                },
            });
        }
    }

    /// Django wants `X-CSRFToken` plus a matching `Origin`/`Referer` on unsafe requests from a
    /// signed-in session; anonymous requests are not checked, and the headers do no harm.
    fn unsafe_method_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        let origin = self.instance().origin();
        if let Ok(v) = HeaderValue::from_str(&origin) {
            headers.insert(header::ORIGIN, v);
        }
        if let Ok(v) = HeaderValue::from_str(&format!("{origin}/")) {
            headers.insert(header::REFERER, v);
        }
        if let Some(token) = self.cookie(CSRF_COOKIE)
            && let Ok(v) = HeaderValue::from_str(&token)
        {
            headers.insert("X-CSRFToken", v);
        }
        headers
    }
}

pub(crate) async fn parse_json<T: DeserializeOwned>(
    response: reqwest::Response,
    what: &str,
) -> Result<T> {
    let status = response.status();
    let bytes = response.bytes().await.map_err(|e| Error::Network {
        detail: e.to_string(),
    })?;
    serde_json::from_slice(&bytes).map_err(|e| Error::BadResponse {
        status: status.as_u16(),
        detail: format!("{what}: {e}"),
    })
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

fn decoded_content(id: Uuid, body: &str, etag: Option<String>) -> Result<StoredContent> {
    let update = decode_content(body).map_err(|detail| Error::BadContent {
        document: id.to_string(),
        detail,
    })?;
    Ok(StoredContent { update, etag })
}

/// Decodes stored content: base64 of a Yjs update; empty (never saved) is an empty state.
pub fn decode_content(body: &str) -> std::result::Result<Vec<u8>, String> {
    let trimmed = body.trim().trim_matches('"');
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    BASE64
        .decode(trimmed)
        .map_err(|e| format!("not base64: {e}"))
}

fn retry_after(headers: &HeaderMap) -> Duration {
    headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(1))
}

async fn drf_detail(response: reqwest::Response) -> String {
    #[derive(Deserialize)]
    struct Detail {
        detail: String,
    }
    let text = response.text().await.unwrap_or_default();
    match serde_json::from_str::<Detail>(&text) {
        Ok(d) => d.detail,
        Err(_) => text.chars().take(200).collect(),
    }
}

fn network_detail(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "the request timed out".into()
    } else if e.is_connect() {
        format!("connection failed ({e})")
    } else {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_decoding() {
        assert_eq!(decode_content("").unwrap(), Vec::<u8>::new());
        assert_eq!(decode_content("AAA=\n").unwrap(), vec![0, 0]);
        assert!(decode_content("not base64!").is_err());
    }

    #[test]
    fn retry_after_parsing() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), Duration::from_secs(1));
        h.insert(header::RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Duration::from_secs(7));
    }

    #[test]
    fn a_documents_fields_say_which_collaboration_server_serves_it() {
        let document = |json: serde_json::Value| -> Document {
            let mut value = serde_json::json!({"id": "9a3c6c0e-6c9b-4b8e-9d36-1b2a7e0c4f11"});
            value
                .as_object_mut()
                .unwrap()
                .extend(json.as_object().unwrap().clone());
            serde_json::from_value(value).unwrap()
        };
        let docs5 = document(serde_json::json!({"abilities": {"content_retrieve": true}}));
        let docs4 = document(serde_json::json!({"content": ""}));
        let yhub = document(serde_json::json!({"abilities": {"retrieve": true}}));
        assert_eq!(
            [docs5, docs4, yhub].map(|d| d.collaboration_server()),
            [
                CollaborationServer::Hocuspocus,
                CollaborationServer::Hocuspocus,
                CollaborationServer::Yhub
            ]
        );
    }

    #[test]
    fn abilities_fall_back_for_old_instances() {
        let a: Abilities = serde_json::from_str(r#"{"retrieve": true, "update": false}"#).unwrap();
        assert!(a.can_read_content());
        assert!(!a.can_save_content());
        let b: Abilities =
            serde_json::from_str(r#"{"retrieve": true, "update": true, "content_patch": false}"#)
                .unwrap();
        assert!(!b.can_save_content());
    }
}
