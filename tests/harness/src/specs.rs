//! What the test instance is seeded with: users with a ready session, documents with their
//! content, link reach and accesses.

use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

/// A signed-in user of the test instance, with a ready-to-use session.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct TestUser {
    pub id: String,
    pub email: String,
    pub full_name: String,
    /// Value of the `docs_sessionid` cookie.
    pub session_cookie: String,
    /// Value of the `csrftoken` cookie, to send back as `X-CSRFToken` on unsafe methods.
    pub csrf_token: String,
}

impl TestUser {
    /// The `Cookie` header a browser of this user sends: session + CSRF cookies.
    pub fn cookie_header(&self) -> String {
        format!(
            "docs_sessionid={}; csrftoken={}",
            self.session_cookie, self.csrf_token
        )
    }
}

/// What to seed a document with. Default: untitled "Test document", public editor, empty.
#[derive(Debug, Clone)]
pub struct DocumentSpec {
    pub id: Option<Uuid>,
    pub title: String,
    /// Markdown converted through BlockNote's own importer.
    pub markdown: Option<String>,
    /// BlockNote block JSON (takes precedence over `markdown`).
    pub blocks: Option<Value>,
    /// `restricted`, `authenticated` or `public`.
    pub link_reach: String,
    /// `reader`, `commenter` or `editor`.
    pub link_role: String,
    /// `(user_id, role)` with role in reader/commenter/editor/administrator/owner.
    pub accesses: Vec<(String, String)>,
    pub creator_id: Option<String>,
}

impl Default for DocumentSpec {
    fn default() -> Self {
        Self {
            id: None,
            title: "Test document".to_owned(),
            markdown: None,
            blocks: None,
            link_reach: "public".to_owned(),
            link_role: "editor".to_owned(),
            accesses: Vec::new(),
            creator_id: None,
        }
    }
}

impl DocumentSpec {
    pub fn new(title: &str) -> Self {
        Self {
            title: title.to_owned(),
            ..Self::default()
        }
    }
    pub fn id(mut self, id: Uuid) -> Self {
        self.id = Some(id);
        self
    }
    pub fn title(mut self, title: &str) -> Self {
        self.title = title.to_owned();
        self
    }
    pub fn markdown(mut self, markdown: &str) -> Self {
        self.markdown = Some(markdown.to_owned());
        self
    }
    pub fn blocks(mut self, blocks: Value) -> Self {
        self.blocks = Some(blocks);
        self
    }
    pub fn link(mut self, reach: &str, role: &str) -> Self {
        self.link_reach = reach.to_owned();
        self.link_role = role.to_owned();
        self
    }
    pub fn access(mut self, user_id: &str, role: &str) -> Self {
        self.accesses.push((user_id.to_owned(), role.to_owned()));
        self
    }
    pub fn creator(mut self, user_id: &str) -> Self {
        self.creator_id = Some(user_id.to_owned());
        self
    }

    pub(crate) fn to_json(&self) -> Value {
        let mut v = json!({
            "title": self.title,
            "link_reach": self.link_reach,
            "link_role": self.link_role,
            "accesses": self
                .accesses
                .iter()
                .map(|(user_id, role)| json!({"user_id": user_id, "role": role}))
                .collect::<Vec<_>>(),
        });
        if let Some(id) = self.id {
            v["id"] = json!(id.to_string());
        }
        if let Some(md) = &self.markdown {
            v["markdown"] = json!(md);
        }
        if let Some(blocks) = &self.blocks {
            v["blocks"] = blocks.clone();
        }
        if let Some(creator) = &self.creator_id {
            v["creator_id"] = json!(creator);
        }
        v
    }
}
