//! The REST side of a Docs instance (`/api/v1.0/`): configuration, documents and their
//! abilities, the stored Yjs content, the signed-in user. Every call goes through the
//! client-side rate limiter and retries 429s after `Retry-After`. Here: the client, its
//! cookies, its rate budget and the requests; `types` what the API answers, `documents`,
//! `content` and `account` the calls of each.
//!
//! Unsafe methods carry Django's CSRF header.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::cookie::{CookieStore, Jar};
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use url::Url;

use crate::config::{ClientConfig, InstanceUrl};
use crate::error::{Error, Result};
use crate::rate_limit::RateLimiter;

mod account;
mod content;
mod documents;
mod types;

pub use types::{
    Abilities, ContentApi, Document, InstanceConfig, ListQuery, Page, StoredContent, User,
};

/// Name of the Django session cookie of Docs.
pub const SESSION_COOKIE: &str = "docs_sessionid";
/// Name of Django's CSRF cookie.
pub const CSRF_COOKIE: &str = "csrftoken";

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
/// A call recorded in the rate budget, outstanding until its answer says whether Docs counted
/// it: settled when it goes (a call made, failed or cut short counts), given back by
/// [`not_counted`](Self::not_counted) — or when it was a call to `content/` cut short once a
/// document showed the instance has no such path (an open stops fetching it then).
struct BudgetCall<'a> {
    inner: &'a Inner,
    at: tokio::time::Instant,
    counted: bool,
    content_endpoint: bool,
}

impl<'a> BudgetCall<'a> {
    fn not_counted(mut self) {
        self.counted = false;
        self.inner.limiter.refund(self.at, 1);
    }
}

impl Drop for BudgetCall<'_> {
    fn drop(&mut self) {
        if !self.counted {
            return;
        }
        let no_such_path = self.content_endpoint
            && self
                .inner
                .no_content_endpoint
                .load(std::sync::atomic::Ordering::Relaxed);
        if no_such_path {
            self.inner.limiter.refund(self.at, 1);
        } else {
            self.inner.limiter.settle(1);
        }
    }
}

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
    /// Built at the first request ([`DocsClient::http`]).
    http: OnceLock<reqwest::Client>,
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

/// What every HTTP client of an instance shares: the time-out, the user agent and the
/// process's TLS set-up (`tls`).
fn http_builder(config: &ClientConfig) -> Result<reqwest::ClientBuilder> {
    Ok(reqwest::Client::builder()
        .timeout(config.request_timeout)
        .user_agent(concat!("lasuite-docs-mcp/", env!("CARGO_PKG_VERSION")))
        .tls_backend_preconfigured(crate::tls::rest_config()?))
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
        let limiter = RateLimiter::new(config.requests_per_minute, Duration::from_secs(60));
        Ok(DocsClient {
            inner: Arc::new(Inner {
                http: OnceLock::new(),
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

    /// The HTTP client, built at the first request (with the TLS set-up, which loads the
    /// system's root certificates the first time in the process).
    fn http(&self) -> Result<&reqwest::Client> {
        if let Some(http) = self.inner.http.get() {
            return Ok(http);
        }
        let built = http_builder(&self.inner.config)?
            .cookie_provider(self.inner.jar.clone())
            .build()
            .map_err(|e| Error::Network {
                detail: e.to_string(),
            })?;
        Ok(self.inner.http.get_or_init(|| built))
    }

    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
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

    /// A handle whose next `calls` throttled calls are taken from the rate budget now, all or
    /// none (waiting as any call does for room in the budget): a task that needs several
    /// calls, such as opening a document, either gets them all or spends none. Calls beyond those come
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

    /// Which of Docs' throttles counts a call to `url` (its `core/api/throttling.py` and
    /// viewsets, the same from 4.2 to 5.4.1 and on main): the document viewset and its actions
    /// share the per-user `document` scope (80/min); `config/` has a scope of its own (30/min,
    /// read once per client); `users/me/`, comment threads, logout and the collaboration
    /// server's own endpoints are not throttled.
    fn throttle_scope(&self, url: &Url) -> ThrottleScope {
        let api = self.instance().api("");
        match url.path().strip_prefix(api.path()) {
            Some(path) if path.starts_with("documents/") && !path.contains("/threads/") => {
                ThrottleScope::Document
            }
            _ => ThrottleScope::NotCounted,
        }
    }

    /// Waits for room in the rate budget, unless that takes longer than the configured
    /// longest wait: then the caller is told to retry later.
    async fn acquire_budget(&self, url: &Url) -> Result<BudgetCall<'_>> {
        let call = |at| BudgetCall {
            inner: &self.inner,
            at,
            counted: true,
            content_endpoint: url.path().ends_with("/content/"),
        };
        if let Some(prepaid) = self.prepaid.as_ref().filter(|p| p.take()) {
            return Ok(call(prepaid.at));
        }
        self.inner
            .limiter
            .acquire_within(1, self.max_throttle_wait())
            .await
            .map(call)
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
        let counted = self.throttle_scope(&url) == ThrottleScope::Document;
        loop {
            let recorded = if counted {
                Some(self.acquire_budget(&url).await?)
            } else {
                None
            };
            let mut request = self
                .http()?
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
            // A path no view of Docs answers (`content/` before 5.0): a 404 that is not
            // Django REST Framework's JSON. Docs' throttles run in its views: not counted.
            if status == StatusCode::NOT_FOUND
                && let Some(call) = recorded
                && !is_json(response.headers())
            {
                call.not_counted();
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

fn retry_after(headers: &HeaderMap) -> Duration {
    headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(1))
}

/// Whether a response says it is JSON (Django REST Framework's answers, errors included).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        })
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
        return "the request timed out".into();
    }
    // reqwest's own message says where ("error sending request for url …"); its sources say
    // why (a refused connection, a certificate the system does not trust).
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !detail.contains(&text) {
            detail = format!("{detail}: {text}");
        }
        source = cause.source();
    }
    if e.is_connect() {
        format!("connection failed ({detail})")
    } else {
        detail
    }
}

/// Whether the client's rate budget counts a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ThrottleScope {
    /// Docs' per-user `document` throttle, which the budget mirrors.
    Document,
    /// A call no throttle of that budget counts.
    NotCounted,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_parsing() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), Duration::from_secs(1));
        h.insert(header::RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Duration::from_secs(7));
    }

    #[test]
    fn only_the_document_viewset_is_counted() {
        let id = "0b6e0a4c-4a8e-4d4e-9d8e-2f3a4b5c6d7e";
        for base in ["https://docs.example.org/", "https://example.org/docs/"] {
            let client =
                DocsClient::new(ClientConfig::new(InstanceUrl::parse(base).unwrap())).unwrap();
            let scope = |path: &str| client.throttle_scope(&client.instance().api(path));
            for counted in [
                format!("documents/{id}/"),
                format!("documents/{id}/content/"),
                "documents/".to_owned(),
                "documents/search/".to_owned(),
            ] {
                assert_eq!(scope(&counted), ThrottleScope::Document, "{base}{counted}");
            }
            for free in [
                format!("documents/{id}/threads/"),
                format!("documents/{id}/threads/t1/comments/"),
                "config/".to_owned(),
                "users/me/".to_owned(),
                "logout/".to_owned(),
            ] {
                assert_eq!(scope(&free), ThrottleScope::NotCounted, "{base}{free}");
            }
        }
    }
}
