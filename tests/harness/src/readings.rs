//! What the test server's control API reads back: documents through BlockNote's parser,
//! Yjs items, comment marks, counters, the attributions yhub saw.

use std::collections::HashMap;

use anyhow::Context;
use base64::Engine;
use serde::Deserialize;
use serde_json::Value;

/// A document read back through BlockNote's own parser.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedDocument {
    /// BlockNote blocks (`yDocToBlocks(ydoc, "document-store")`).
    pub blocks: Value,
    /// `blocksToMarkdownLossy(blocks)`.
    pub markdown: String,
    /// The full Yjs update (v1 encoding).
    pub update: Vec<u8>,
}

#[derive(Deserialize)]
pub(crate) struct RawParsed {
    blocks: Value,
    markdown: String,
    update_b64: String,
}

impl RawParsed {
    pub(crate) fn into_parsed(self) -> anyhow::Result<ParsedDocument> {
        let update = base64::engine::general_purpose::STANDARD
            .decode(self.update_b64.as_bytes())
            .context("update_b64 is not base64")?;
        Ok(ParsedDocument {
            blocks: self.blocks,
            markdown: self.markdown,
            update,
        })
    }
}

/// The Yjs items of one block's inline text (see [`DocsServer::live_text_items`]).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct BlockItems {
    pub block_id: String,
    pub items: Vec<TextItem>,
}

/// One Yjs item: `length` characters (or a format marker) inserted by `client` at `clock`,
/// between the characters `origin` and `right_origin` (client, clock) as it saw them.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct TextItem {
    pub client: u64,
    pub clock: u64,
    pub length: u64,
    pub deleted: bool,
    /// The text, unless it is not text or was deleted (and is no longer kept).
    pub text: Option<String>,
    /// The attribute of a format marker.
    pub format: Option<String>,
    pub origin: Option<(u64, u64)>,
    pub right_origin: Option<(u64, u64)>,
}

/// A run of text carrying a comment mark, as BlockNote's editor reads the document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct CommentMarkSpan {
    pub block_id: String,
    pub thread_id: String,
    pub orphan: bool,
    /// The exact text the mark covers (contiguous marked text merged).
    pub text: String,
    /// Offsets in the block's own inline text, in UTF-16 code units (a hard break counts 1).
    pub start: u64,
    pub end: u64,
}

/// The comment marks of a document, in the stored content and in the room.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct CommentMarks {
    pub stored: Vec<CommentMarkSpan>,
    /// `None` when no room is loaded.
    pub live: Option<Vec<CommentMarkSpan>>,
}

/// Counters of the test server.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, Default)]
pub struct Stats {
    /// REST API requests received (`/api/v1.0/...`).
    pub requests: u64,
    /// Successful content saves per document id.
    pub content_patches: HashMap<String, u64>,
    /// Of those, the saves that said the client was not on the collaboration server
    /// (`websocket` not `true`).
    #[serde(default)]
    pub saves_off_websocket: HashMap<String, u64>,
    /// Open collaboration connections per loaded room.
    pub ws_connections: HashMap<String, u64>,
    /// Hocuspocus: connections that asked to join each room (their rights were checked).
    #[serde(default)]
    pub room_joins: HashMap<String, u64>,
    /// 429 responses sent.
    pub throttled: u64,
    /// The collaboration server: `hocuspocus` or `yhub`.
    #[serde(default)]
    pub collaboration: String,
    /// `PATCH /collaboration/ydoc/v1/docs/<id>` calls that succeeded, per document id (yhub).
    #[serde(default)]
    pub ydoc_patches: HashMap<String, u64>,
}

/// The custom attributions a yhub collaboration connection carried
/// (`?customAttributions=k:v,...` on its URL), closed connections included.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ConnectionAttributions {
    /// The signed-in user of the connection (`None`: anonymous).
    pub user_id: Option<String>,
    /// `[{k, v}]` pairs, in URL order.
    pub attributions: Vec<Attribution>,
    pub read_only: bool,
    pub open: bool,
    /// Sync messages (step 2 / update) accepted from it.
    #[serde(default)]
    pub updates: u64,
    /// Messages dropped (read-only, or sent while the server was closing it).
    #[serde(default)]
    pub dropped: u64,
    /// Awareness messages it sent (taken or dropped): a reader must send none.
    #[serde(default)]
    pub awareness_received: u64,
    /// WebSocket pings it sent.
    #[serde(default)]
    pub pings_received: u64,
    /// Close code once closed.
    #[serde(default)]
    pub close_code: Option<u16>,
}

/// One `k:v` custom attribution.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Attribution {
    pub k: String,
    pub v: String,
}

/// A REST `PATCH /collaboration/ydoc/v1/docs/<id>` as the yhub test server recorded it.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct PatchAttributions {
    pub user_id: Option<String>,
    /// Its `customAttributions`.
    pub attributions: Vec<Attribution>,
    /// Whether it carried an `update` / an `awareness`.
    pub update: bool,
    pub awareness: bool,
}

/// Custom attributions seen by the yhub test server for one document (always empty under
/// Hocuspocus).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, Default)]
pub struct Attributions {
    pub connections: Vec<ConnectionAttributions>,
    pub patches: Vec<PatchAttributions>,
}

/// The answer of a REST call to the yhub collaboration server: status and JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct YdocResponse {
    pub status: u16,
    pub body: Value,
}
