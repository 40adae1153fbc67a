//! A document's stored Yjs state: where the instance keeps it (the `content/` endpoint, or
//! the document's `content` field on older instances), reading it and saving it back.
//!
//! Docs ≥ 5.0 keeps it at `content/`; the older `content` field is taken out of the metadata a
//! session keeps, which should not hold the whole state.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::{Method, header};
use serde::Serialize;
use uuid::Uuid;

use super::DocsClient;
use super::types::{ContentApi, Document, StoredContent};
use crate::error::{Error, Result};

#[derive(Serialize)]
struct ContentPatch<'a> {
    content: &'a str,
    websocket: bool,
}

impl DocsClient {
    /// Which content API the instance has, judged from a document's metadata.
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
}

fn decoded_content(id: Uuid, body: &str, etag: Option<String>) -> Result<StoredContent> {
    let update = decode_content(body).map_err(|detail| Error::BadContent {
        document: id.to_string(),
        detail,
    })?;
    Ok(StoredContent { update, etag })
}

/// Decodes stored content: base64 of a Yjs update; empty (never saved) is an empty state.
fn decode_content(body: &str) -> std::result::Result<Vec<u8>, String> {
    let trimmed = body.trim().trim_matches('"');
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    BASE64
        .decode(trimmed)
        .map_err(|e| format!("not base64: {e}"))
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
}
