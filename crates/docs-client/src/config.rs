//! Where the instance is and who we are on it.
//!
//! `InstanceUrl`: the instance's normalized origin, https except on loopback. `DocumentRef`: a
//! document given by UUID or Docs URL. `ClientConfig`: how the client reaches the instance.
//! `Secret`: a cookie value, redacted in `Debug`.

use std::fmt;
use std::time::Duration;

use url::Url;

use crate::error::{Error, Result};

/// The origin of a Docs instance (`https://docs.example.org`), normalized: scheme and host
/// lower-cased, no path, query or fragment. `https` is required except on loopback, where
/// test and development instances run over plain `http`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InstanceUrl(Url);

impl InstanceUrl {
    /// Parses an instance URL. A URL of a page of the instance (a document link) is accepted
    /// and reduced to the instance origin.
    pub fn parse(input: &str) -> Result<Self> {
        let trimmed = input.trim();
        let invalid = |reason: &str| Error::InvalidUrl {
            url: trimmed.to_owned(),
            reason: reason.to_owned(),
        };
        let with_scheme = if trimmed.contains("://") {
            trimmed.to_owned()
        } else {
            format!("https://{trimmed}")
        };
        let url = Url::parse(&with_scheme).map_err(|e| invalid(&e.to_string()))?;
        let host = url.host_str().ok_or_else(|| invalid("it has no host"))?;
        match url.scheme() {
            "https" => {}
            "http" if is_loopback(host) => {}
            "http" => {
                return Err(invalid(
                    "plain http is only allowed for loopback addresses; use https",
                ));
            }
            other => return Err(invalid(&format!("unsupported scheme {other:?}"))),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid("credentials in the URL are not allowed"));
        }
        let origin = url.origin().ascii_serialization();
        let normalized = Url::parse(&origin).map_err(|e| invalid(&e.to_string()))?;
        Ok(InstanceUrl(normalized))
    }

    /// `scheme://host[:port]`, the value browsers send as `Origin`.
    pub fn origin(&self) -> String {
        self.0.origin().ascii_serialization()
    }

    /// The URL of a REST API path, e.g. `api("documents/")` → `…/api/v1.0/documents/`.
    pub fn api(&self, path: &str) -> Url {
        self.0
            .join(&format!("api/v1.0/{path}"))
            .expect("API paths are relative URL references")
    }

    /// The collaboration WebSocket URL Docs derives when the instance does not configure one.
    pub fn default_collaboration_ws(&self) -> Url {
        let mut url = self.0.join("collaboration/ws/").expect("static path");
        let scheme = if self.0.scheme() == "https" {
            "wss"
        } else {
            "ws"
        };
        url.set_scheme(scheme).expect("ws schemes are valid");
        url
    }

    /// The collaboration WebSocket URL the instance configures (`COLLABORATION_WS_URL`),
    /// accepted only where the session cookie may go: the instance's own host, over TLS
    /// (`wss`) unless the instance is on loopback.
    pub fn collaboration_ws(&self, configured: &str) -> Result<Url> {
        let refuse = |reason: String| Error::UntrustedCollaborationUrl {
            url: configured.to_owned(),
            reason,
        };
        let url = Url::parse(configured).map_err(|e| refuse(format!("it is not a URL ({e})")))?;
        let instance_host = self.0.host_str().unwrap_or_default();
        match url.scheme() {
            "wss" => {}
            "ws" if is_loopback(instance_host) => {}
            "ws" => {
                return Err(refuse(format!(
                    "it is not encrypted (ws://) while the instance {} is not on this machine",
                    self.origin()
                )));
            }
            other => return Err(refuse(format!("{other}:// is not a WebSocket scheme"))),
        }
        if url.host_str() != Some(instance_host) {
            return Err(refuse(format!(
                "its host {} is not the instance's host {instance_host}",
                url.host_str().unwrap_or("(none)")
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(refuse("it carries credentials".into()));
        }
        Ok(url)
    }

    /// The browser address of a document.
    pub fn document_page(&self, id: &uuid::Uuid) -> Url {
        self.0.join(&format!("docs/{id}/")).expect("static path")
    }

    /// A link to one block of a document (`…/docs/<id>/#<block id>`, Docs' "Copy link to
    /// block", which scrolls to it since 5.6); the page itself when `block` is not a block id.
    pub fn block_link(&self, id: &uuid::Uuid, block: &str) -> Url {
        let mut url = self.document_page(id);
        if is_block_id(block) {
            url.set_fragment(Some(block));
        }
        url
    }

    pub fn as_url(&self) -> &Url {
        &self.0
    }
}

impl fmt::Display for InstanceUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.origin())
    }
}

/// A document named by its UUID, or by its address on an instance
/// (`https://docs.example.org/docs/<uuid>/`), or by a link to one of its blocks
/// (`…/docs/<uuid>/#<block id>`, Docs' "Copy link to block").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentRef {
    /// The instance, when the document was named by URL.
    pub instance: Option<InstanceUrl>,
    pub id: uuid::Uuid,
    /// The block a block link points at.
    pub block: Option<String>,
}

impl DocumentRef {
    pub fn parse(input: &str) -> Result<Self> {
        let trimmed = input.trim();
        if let Ok(id) = uuid::Uuid::parse_str(trimmed) {
            return Ok(DocumentRef {
                instance: None,
                id,
                block: None,
            });
        }
        let invalid = || Error::InvalidDocumentRef {
            input: trimmed.to_owned(),
        };
        let url = Url::parse(trimmed).map_err(|_| invalid())?;
        let id = url
            .path_segments()
            .into_iter()
            .flatten()
            .find_map(|segment| uuid::Uuid::parse_str(segment).ok())
            .ok_or_else(invalid)?;
        // A block id is BlockNote's (a UUID, or a short name like "initialBlockId"): any
        // other anchor is not a block link.
        let block = url
            .fragment()
            .filter(|f| {
                (1..=64).contains(&f.len())
                    && f.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            })
            .map(str::to_owned);
        Ok(DocumentRef {
            instance: Some(InstanceUrl::parse(trimmed)?),
            id,
            block,
        })
    }
}

/// A block id is BlockNote's (a UUID, or a short name like "initialBlockId"): any other
/// anchor is not a block link.
fn is_block_id(text: &str) -> bool {
    (1..=64).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A secret string (a session cookie) that never shows in `Debug` output or logs.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Everything the client needs to talk to one instance.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub instance: InstanceUrl,
    /// The `docs_sessionid` cookie of a signed-in user; `None` works for public documents.
    pub session_cookie: Option<Secret>,
    /// The `csrftoken` cookie that goes with a signed-in session (needed for unsafe requests).
    pub csrf_token: Option<Secret>,
    /// Client-side budget of REST calls per minute (Docs throttles at 80 per user).
    pub requests_per_minute: u32,
    /// Timeout of one HTTP request.
    pub request_timeout: Duration,
    /// How many times a throttled (429) request is retried after waiting `Retry-After`.
    pub max_throttle_retries: u32,
    /// The longest `Retry-After` worth waiting for inside one call.
    pub max_throttle_wait: Duration,
}

impl ClientConfig {
    pub fn new(instance: InstanceUrl) -> Self {
        ClientConfig {
            instance,
            session_cookie: None,
            csrf_token: None,
            requests_per_minute: 80,
            request_timeout: Duration::from_secs(30),
            max_throttle_retries: 3,
            max_throttle_wait: Duration::from_secs(30),
        }
    }

    pub fn with_session(mut self, cookie: Secret, csrf_token: Option<Secret>) -> Self {
        self.session_cookie = Some(cookie);
        self.csrf_token = csrf_token;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_to_the_origin() {
        let url = InstanceUrl::parse(" https://Docs.Example.org/docs/abc/?x=1#y ").unwrap();
        assert_eq!(url.origin(), "https://docs.example.org");
        assert_eq!(
            url.api("documents/").as_str(),
            "https://docs.example.org/api/v1.0/documents/"
        );
        assert_eq!(
            url.default_collaboration_ws().as_str(),
            "wss://docs.example.org/collaboration/ws/"
        );
    }

    #[test]
    fn bare_host_means_https() {
        let url = InstanceUrl::parse("docs.numerique.gouv.fr").unwrap();
        assert_eq!(url.origin(), "https://docs.numerique.gouv.fr");
    }

    #[test]
    fn http_only_on_loopback() {
        assert_eq!(
            InstanceUrl::parse("http://127.0.0.1:8071/")
                .unwrap()
                .origin(),
            "http://127.0.0.1:8071"
        );
        assert_eq!(
            InstanceUrl::parse("http://localhost:3000")
                .unwrap()
                .default_collaboration_ws()
                .as_str(),
            "ws://localhost:3000/collaboration/ws/"
        );
        assert!(InstanceUrl::parse("http://[::1]:80").is_ok());
        let err = InstanceUrl::parse("http://docs.example.org").unwrap_err();
        assert!(matches!(err, Error::InvalidUrl { ref reason, .. } if reason.contains("https")));
        assert!(InstanceUrl::parse("ftp://docs.example.org").is_err());
        assert!(InstanceUrl::parse("https://user:pw@docs.example.org").is_err());
        assert!(InstanceUrl::parse("https://").is_err());
    }

    #[test]
    fn the_collaboration_url_must_be_the_instances_host_over_tls() {
        let instance = InstanceUrl::parse("https://docs.example.org").unwrap();
        let accepted = |raw: &str| instance.collaboration_ws(raw).map(|u| u.to_string());
        assert_eq!(
            accepted("wss://docs.example.org/collaboration/ws/").unwrap(),
            "wss://docs.example.org/collaboration/ws/"
        );
        assert_eq!(
            accepted("wss://DOCS.example.org:8443/ws").unwrap(),
            "wss://docs.example.org:8443/ws",
            "another port of the same host receives the same cookies anyway"
        );
        let refusal = |raw: &str| match instance.collaboration_ws(raw).unwrap_err() {
            Error::UntrustedCollaborationUrl { url, reason } => {
                assert_eq!(url, raw);
                reason
            }
            other => panic!("{raw}: {other:?}"),
        };
        assert_eq!(
            refusal("wss://collab.evil.example/ws/"),
            "its host collab.evil.example is not the instance's host docs.example.org"
        );
        assert_eq!(
            refusal("wss://example.org/ws/"),
            "its host example.org is not the instance's host docs.example.org"
        );
        assert_eq!(
            refusal("ws://docs.example.org/collaboration/ws/"),
            "it is not encrypted (ws://) while the instance https://docs.example.org is not on this machine"
        );
        assert_eq!(
            refusal("https://docs.example.org/collaboration/ws/"),
            "https:// is not a WebSocket scheme"
        );
        assert_eq!(
            refusal("wss://user:pw@docs.example.org/ws/"),
            "it carries credentials"
        );
        assert!(refusal("not a url").starts_with("it is not a URL"));

        let error = instance
            .collaboration_ws("wss://collab.evil.example/ws/")
            .unwrap_err();
        assert!(!error.is_transient());
        assert_eq!(
            error.to_string(),
            "refused to send the session cookie to the collaboration server \"wss://collab.evil.example/ws/\" named by the instance's configuration: its host collab.evil.example is not the instance's host docs.example.org. The cookie goes only to the instance's own host, over TLS; check the instance URL, or ask its administrator to set COLLABORATION_WS_URL to wss://<instance host>/…"
        );

        // A loopback instance (tests, development) may use plain ws:// — on its own host.
        let local = InstanceUrl::parse("http://127.0.0.1:8071").unwrap();
        assert_eq!(
            local
                .collaboration_ws("ws://127.0.0.1:8071/collaboration/ws/")
                .unwrap()
                .as_str(),
            "ws://127.0.0.1:8071/collaboration/ws/"
        );
        assert!(local.collaboration_ws("ws://localhost:8071/ws/").is_err());
        assert!(local.collaboration_ws("ws://10.0.0.2:8071/ws/").is_err());
    }

    #[test]
    fn documents_by_id_or_url() {
        let id: uuid::Uuid = "6f1c2a4e-3b7d-4c1a-9e2f-0a1b2c3d4e5f".parse().unwrap();
        assert_eq!(
            DocumentRef::parse(" 6f1c2a4e-3b7d-4c1a-9e2f-0a1b2c3d4e5f ").unwrap(),
            DocumentRef {
                instance: None,
                id,
                block: None
            }
        );
        let by_url = DocumentRef::parse(
            "https://docs.example.org/docs/6f1c2a4e-3b7d-4c1a-9e2f-0a1b2c3d4e5f/",
        )
        .unwrap();
        assert_eq!(by_url.id, id);
        assert_eq!(
            by_url.instance.unwrap().origin(),
            "https://docs.example.org"
        );
        assert_eq!(by_url.block, None);
        let block_link = DocumentRef::parse(
            "https://docs.example.org/docs/6f1c2a4e-3b7d-4c1a-9e2f-0a1b2c3d4e5f/#0b1d6e0c-8d0e-4c55-9a55-2f6d2b1d9a10",
        )
        .unwrap();
        assert_eq!(
            (block_link.id, block_link.block.as_deref()),
            (id, Some("0b1d6e0c-8d0e-4c55-9a55-2f6d2b1d9a10"))
        );
        let instance = InstanceUrl::parse("https://docs.example.org").unwrap();
        assert_eq!(
            DocumentRef::parse(instance.block_link(&id, "0b1d6e0c-8d0e").as_str()).unwrap(),
            DocumentRef {
                instance: Some(instance.clone()),
                id,
                block: Some("0b1d6e0c-8d0e".into())
            }
        );
        assert_eq!(
            instance.block_link(&id, "a b").as_str(),
            format!("https://docs.example.org/docs/{id}/")
        );
        for not_a_block in ["#", "#a%20b", "#x/y"] {
            let url = format!("https://docs.example.org/docs/{id}/{not_a_block}");
            let parsed = DocumentRef::parse(&url).unwrap();
            assert_eq!((parsed.id, parsed.block), (id, None), "{url}");
        }
        for bad in ["hello", "https://docs.example.org/docs/", ""] {
            assert_eq!(
                DocumentRef::parse(bad).unwrap_err(),
                Error::InvalidDocumentRef {
                    input: bad.to_owned()
                }
            );
        }
    }

    #[test]
    fn secrets_are_redacted() {
        let s = Secret::new("abc123");
        assert_eq!(format!("{s:?}"), "Secret(<redacted>)");
        assert_eq!(s.expose(), "abc123");
    }
}
