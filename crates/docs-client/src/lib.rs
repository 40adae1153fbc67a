//! A live client for a La Suite Docs instance.
//!
//! Docs keeps a document as a Yjs document in BlockNote's structure. Its collaboration
//! server (Hocuspocus, up to Docs 5) relays updates between the people editing but stores
//! nothing: the content lives behind the REST API, and every client must save its own edits
//! there. Docs' next major replaces it with yhub, a y-websocket server that stores what it
//! takes ([`CollaborationEndpoint`] tells them apart; the session speaks both).
//! This crate does both halves:
//!
//! - [`DocsClient`]: the REST API (configuration, documents and abilities, stored content,
//!   the signed-in user), rate-limited to the instance's budget;
//! - [`DocumentSession`]: one document kept live over the collaboration WebSocket. Writes
//!   are yrs transactions; each completes only once the room acknowledged it *and* it was
//!   saved through REST;
//! - [`SessionRegistry`]: shared sessions with an idle TTL and a snapshot for a UI;
//! - comment threads over REST ([`DocsClient::threads`], [`Thread`], [`Comment`]); where they
//!   are anchored in the text is the model's [`blocknote::comments`].
//!
//! ```no_run
//! # async fn demo() -> docs_client::Result<()> {
//! use docs_client::{ClientConfig, DocsClient, InstanceUrl, SessionOptions, DocumentSession};
//! use yrs::{GetString, Transact, XmlFragment};
//!
//! let client = DocsClient::new(ClientConfig::new(InstanceUrl::parse("docs.example.org")?))?;
//! let id = "6f1c2a4e-3b7d-4c1a-9e2f-0a1b2c3d4e5f".parse().unwrap();
//! let session = DocumentSession::open(client, id, SessionOptions::default()).await?;
//! let fragment = session.doc().get_or_insert_xml_fragment("document-store");
//! println!("{}", fragment.get_string(&session.doc().transact()));
//! session.close().await?;
//! # Ok(()) }
//! ```
//!
//! This crate knows nothing of MCP or of the desktop app.

pub mod blocknote;
mod collaboration;
mod config;
mod error;
mod out_of_order;
mod presence;
pub mod protocol;
mod rate_limit;
mod raw_update;
mod registry;
mod rest;
mod session;
mod threads;
mod tls;
mod ydoc;
pub mod yjs;

pub use collaboration::{CollaborationEndpoint, CollaborationServer};
pub use config::{ClientConfig, DocumentRef, InstanceUrl, Secret};
pub use error::{Error, Result};
pub use out_of_order::{HeldClocks, NotAdmitted, OutOfOrder};
pub use presence::{CommentsPing, Presence};
pub use registry::{DEFAULT_IDLE_TTL, DEFAULT_MAX_OPEN, DEFAULT_MEMORY_BUDGET, SessionRegistry};
pub use rest::{
    Abilities, CSRF_COOKIE, ContentApi, DocsClient, Document, InstanceConfig, ListQuery, Page,
    SESSION_COOKIE, StoredContent, User,
};
pub use session::{
    DocumentSession, Failure, LOCAL_ORIGIN, LoadedHook, PendingWrite, Progress, REMOTE_ORIGIN,
    SessionOptions, SessionSnapshot, Touch, WriteReceipt,
};
pub use threads::{Comment, CommentAbilities, Reaction, Thread, ThreadAbilities, UserLight};
pub use ydoc::{Activity, CustomAttribution};

/// The name of the XmlFragment that holds a Docs document.
pub const DOCUMENT_FRAGMENT: &str = "document-store";
