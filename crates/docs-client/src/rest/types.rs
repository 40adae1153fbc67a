//! What the instance's REST API answers and takes, as typed values: its settings, a
//! document's metadata and abilities, pages of lists, the signed-in user, stored content.
//!
//! `Abilities::can_comment` is Docs' `comment` ability.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::collaboration::CollaborationServer;

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

#[cfg(test)]
mod tests {
    use super::*;

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
