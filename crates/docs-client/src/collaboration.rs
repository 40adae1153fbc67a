//! Which collaboration server an instance runs, and where a document's room is on it.
//!
//! Docs 5 runs Hocuspocus (`…/collaboration/ws/?room=<id>`, content saved back through REST);
//! its next major runs yhub, a y-websocket server (`…/collaboration/ws/v1/docs/<id>`) that
//! stores the document itself. Instances say which through the URL they configure
//! (`COLLABORATION_WS_URL`: yhub deployments end it in `/ws/v1/docs`); an instance that
//! configures none is told apart by its documents' abilities (yhub has no content endpoint).
//!
//! `CollaborationEndpoint` holds which server (`CollaborationServer::Hocuspocus` or `Yhub`): a
//! configured URL ending in `/ws/v1/docs` is yhub's; with none configured, `derived` from the
//! server a document says it has (`rest::Document::collaboration_server`: yhub has no content
//! endpoint nor field). It gives a room's socket URL (`?room=<id>`, or
//! `/<id>?customAttributions=source:ai,tool:lasuite-docs-mcp` on yhub: `ATTRIBUTIONS`) and yhub's
//! REST address of a document (`ydoc`).

use serde::Serialize;
use url::Url;
use uuid::Uuid;

use crate::config::InstanceUrl;

/// What an agent's connection tags its writes with where the server keeps such tags (yhub):
/// in the room's URL, and on a write merged over REST.
pub const ATTRIBUTIONS: [(&str, &str); 2] = [("source", "ai"), ("tool", "lasuite-docs-mcp")];

/// The kind of collaboration server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CollaborationServer {
    /// Docs 5 and before: Hocuspocus; clients save the content through REST.
    Hocuspocus,
    /// Docs' next major: yhub (y-websocket); the server persists what it receives.
    Yhub,
}

impl CollaborationServer {
    pub fn as_str(self) -> &'static str {
        match self {
            CollaborationServer::Hocuspocus => "hocuspocus",
            CollaborationServer::Yhub => "yhub",
        }
    }
}

/// Where the rooms of an instance are, and which server holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollaborationEndpoint {
    server: CollaborationServer,
    /// The configured (or derived) URL, trailing slashes as given.
    base: Url,
}

/// The path yhub's rooms are under; Docs' yhub deployments configure it as the URL.
const YHUB_ROOMS: &str = "/ws/v1/docs";

impl CollaborationEndpoint {
    /// The endpoint a configured `COLLABORATION_WS_URL` names (already checked to be the
    /// instance's own host).
    pub fn configured(url: Url) -> Self {
        let server = if url.path().trim_end_matches('/').ends_with(YHUB_ROOMS) {
            CollaborationServer::Yhub
        } else {
            CollaborationServer::Hocuspocus
        };
        CollaborationEndpoint { server, base: url }
    }

    /// What Docs' frontend falls back to on the instance's origin when nothing is configured,
    /// for a document served by `server` (`Document::collaboration_server`): yhub's path, or
    /// Hocuspocus's.
    pub fn derived(instance: &InstanceUrl, server: CollaborationServer) -> Self {
        let base = instance.default_collaboration_ws();
        match server {
            CollaborationServer::Yhub => CollaborationEndpoint {
                server,
                base: base.join("v1/docs").expect("static path"),
            },
            CollaborationServer::Hocuspocus => CollaborationEndpoint { server, base },
        }
    }

    pub fn server(&self) -> CollaborationServer {
        self.server
    }

    pub fn base(&self) -> &Url {
        &self.base
    }

    /// The socket URL of a document's room. `attributions` (`key`, `value`) tag what this
    /// connection writes, where the server keeps such tags (yhub's `customAttributions`);
    /// `,` and `:` separate them there, so they are replaced in values.
    pub fn room(&self, document: Uuid, attributions: &[(&str, &str)]) -> Url {
        let mut url = self.base.clone();
        match self.server {
            CollaborationServer::Hocuspocus => {
                url.query_pairs_mut()
                    .append_pair("room", &document.to_string());
            }
            CollaborationServer::Yhub => {
                // y-websocket's provider: the base without trailing slashes, `/`, the room.
                let path = format!("{}/{document}", url.path().trim_end_matches('/'));
                url.set_path(&path);
                if !attributions.is_empty() {
                    let tags: Vec<String> = attributions
                        .iter()
                        .map(|(k, v)| format!("{}:{}", clean(k), clean(v)))
                        .collect();
                    url.query_pairs_mut()
                        .append_pair("customAttributions", &tags.join(","));
                }
            }
        }
        url
    }
}

impl CollaborationEndpoint {
    /// yhub's REST address of a document's state (`…/collaboration/ydoc/v1/docs/<id>`, beside
    /// its `…/collaboration/ws/v1/docs`); Hocuspocus has none.
    pub fn ydoc(&self, document: Uuid) -> Option<Url> {
        self.yhub_route("ydoc", document)
    }

    /// yhub's REST address of a document's history (`…/collaboration/activity/v1/docs/<id>`).
    pub fn activity(&self, document: Uuid) -> Option<Url> {
        self.yhub_route("activity", document)
    }

    fn yhub_route(&self, route: &str, document: Uuid) -> Option<Url> {
        if self.server != CollaborationServer::Yhub {
            return None;
        }
        let rooms = self.base.path().trim_end_matches('/');
        let prefix = rooms.strip_suffix(YHUB_ROOMS)?;
        let mut url = self.base.clone();
        let scheme = if url.scheme() == "wss" {
            "https"
        } else {
            "http"
        };
        url.set_scheme(scheme).ok()?;
        url.set_path(&format!("{prefix}/{route}/v1/docs/{document}"));
        url.set_query(None);
        Some(url)
    }
}

fn clean(tag: &str) -> String {
    tag.replace([',', ':'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "9a3c6c0e-6c9b-4b8e-9d36-1b2a7e0c4f11";

    #[test]
    fn the_configured_url_says_which_server() {
        let hocuspocus = CollaborationEndpoint::configured(
            Url::parse("wss://docs.example.org/collaboration/ws/").unwrap(),
        );
        assert_eq!(hocuspocus.server(), CollaborationServer::Hocuspocus);
        assert_eq!(hocuspocus.ydoc(DOC.parse().unwrap()), None);
        assert_eq!(
            hocuspocus
                .room(DOC.parse().unwrap(), &[("source", "ai")])
                .as_str(),
            format!("wss://docs.example.org/collaboration/ws/?room={DOC}")
        );
        for configured in [
            "wss://docs.example.org/collaboration/ws/v1/docs",
            "wss://docs.example.org/collaboration/ws/v1/docs/",
        ] {
            let yhub = CollaborationEndpoint::configured(Url::parse(configured).unwrap());
            assert_eq!(yhub.server(), CollaborationServer::Yhub, "{configured}");
            assert_eq!(
                yhub.ydoc(DOC.parse().unwrap()).unwrap().as_str(),
                format!("https://docs.example.org/collaboration/ydoc/v1/docs/{DOC}")
            );
            assert_eq!(
                yhub.activity(DOC.parse().unwrap()).unwrap().as_str(),
                format!("https://docs.example.org/collaboration/activity/v1/docs/{DOC}")
            );
            assert_eq!(
                yhub.room(
                    DOC.parse().unwrap(),
                    &[("source", "ai"), ("tool", "docs-mcp, 1:2")]
                )
                .as_str(),
                format!(
                    "wss://docs.example.org/collaboration/ws/v1/docs/{DOC}?customAttributions=source%3Aai%2Ctool%3Adocs-mcp++1+2"
                )
            );
        }
    }

    #[test]
    fn without_configuration_the_server_gives_the_path() {
        let instance = InstanceUrl::parse("https://docs.example.org").unwrap();
        let hocuspocus = CollaborationEndpoint::derived(&instance, CollaborationServer::Hocuspocus);
        assert_eq!(hocuspocus.server(), CollaborationServer::Hocuspocus);
        assert_eq!(
            hocuspocus.base().as_str(),
            "wss://docs.example.org/collaboration/ws/"
        );
        let yhub = CollaborationEndpoint::derived(&instance, CollaborationServer::Yhub);
        assert_eq!(yhub.server(), CollaborationServer::Yhub);
        assert_eq!(
            yhub.room(DOC.parse().unwrap(), &[]).as_str(),
            format!("wss://docs.example.org/collaboration/ws/v1/docs/{DOC}")
        );
    }
}
