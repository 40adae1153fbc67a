//! yhub's REST routes on the collaboration server: a document's state read, and an update
//! merged, without a socket; who changed it when. yhub checks the session cookie and the
//! Origin, as on its socket.
//!
//! On `DocsClient`: `ydoc` (a document's whole state), `patch_ydoc` (an update merged, tagged with
//! custom attributions) and `activity` (who changed the document when, with the tags). Every call
//! sends the Origin and asks for JSON.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::Method;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use url::Url;
use uuid::Uuid;

use crate::collaboration::CollaborationEndpoint;
use crate::error::{Error, Result};
use crate::rest::{DocsClient, parse_json};

#[derive(Deserialize)]
struct YdocBody {
    doc: String,
}

#[derive(Deserialize)]
struct ActivityBody {
    activity: Vec<Activity>,
}

/// One entry of a document's history on yhub: changes by one author (grouped by yhub) over
/// a span of time.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Activity {
    /// First and last change, in ms since the Unix epoch.
    pub from: i64,
    pub to: i64,
    /// Who: a user id, `anon:<hash>` for an anonymous visitor, `system` for the instance.
    pub by: Option<String>,
    /// The tags the changes carried (`source: ai` for an agent's).
    #[serde(default, rename = "customAttributions")]
    pub custom_attributions: Vec<CustomAttribution>,
}

/// One `key: value` tag of a change.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct CustomAttribution {
    pub k: String,
    pub v: String,
}

#[derive(Serialize)]
struct YdocPatch<'a> {
    update: String,
    #[serde(rename = "customAttributions")]
    custom_attributions: Vec<Attribution<'a>>,
}

#[derive(Serialize)]
struct Attribution<'a> {
    k: &'a str,
    v: &'a str,
}

impl DocsClient {
    /// The whole state of a document as yhub holds it (`GET …/ydoc/v1/docs/<id>`), a Yjs
    /// update.
    pub async fn ydoc(&self, endpoint: &CollaborationEndpoint, id: Uuid) -> Result<Vec<u8>> {
        let url = ydoc_url(endpoint, id)?;
        let what = format!("the state of document {id} on the collaboration server");
        let response = self
            .send_with(Method::GET, url, None, &what, self.collaboration_headers())
            .await?;
        let body: YdocBody = parse_json(response, &what).await?;
        BASE64.decode(body.doc).map_err(|e| Error::BadResponse {
            status: 200,
            detail: format!("{what}: {e}"),
        })
    }

    /// Merges `update` into a document on yhub (`PATCH …/ydoc/v1/docs/<id>`): the server
    /// applies what it lacks, pushes it to the editors connected, and stores it — safe to
    /// send again. `attributions` tag the change in the document's history.
    pub async fn patch_ydoc(
        &self,
        endpoint: &CollaborationEndpoint,
        id: Uuid,
        update: &[u8],
        attributions: &[(&str, &str)],
    ) -> Result<()> {
        let url = ydoc_url(endpoint, id)?;
        let body = serde_json::to_vec(&YdocPatch {
            update: BASE64.encode(update),
            custom_attributions: attributions
                .iter()
                .map(|&(k, v)| Attribution { k, v })
                .collect(),
        })
        .expect("serializable");
        let what = format!("an update of document {id} on the collaboration server");
        self.send_with(
            Method::PATCH,
            url,
            Some(body),
            &what,
            self.collaboration_headers(),
        )
        .await?;
        Ok(())
    }

    /// A document's history on yhub (`GET …/activity/v1/docs/<id>`), newest first, at most
    /// `limit` entries, with their tags.
    pub async fn activity(
        &self,
        endpoint: &CollaborationEndpoint,
        id: Uuid,
        limit: u32,
    ) -> Result<Vec<Activity>> {
        let mut url = endpoint.activity(id).ok_or_else(|| not_yhub(endpoint))?;
        url.query_pairs_mut()
            .append_pair("order", "desc")
            .append_pair("limit", &limit.to_string())
            .append_pair("customAttributions", "true");
        let what = format!("the history of document {id}");
        let response = self
            .send_with(Method::GET, url, None, &what, self.collaboration_headers())
            .await?;
        let body: ActivityBody = parse_json(response, &what).await?;
        Ok(body.activity)
    }

    /// yhub answers JSON when asked, and wants the Origin its editors send, even on reads.
    fn collaboration_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        if let Ok(origin) = HeaderValue::from_str(&self.instance().origin()) {
            headers.insert(header::ORIGIN, origin);
        }
        headers
    }
}

fn ydoc_url(endpoint: &CollaborationEndpoint, id: Uuid) -> Result<Url> {
    endpoint.ydoc(id).ok_or_else(|| not_yhub(endpoint))
}

fn not_yhub(endpoint: &CollaborationEndpoint) -> Error {
    Error::Protocol {
        detail: format!(
            "the collaboration server at {} has no REST access to documents (it is not yhub)",
            endpoint.base()
        ),
    }
}
