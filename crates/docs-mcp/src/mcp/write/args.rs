//! The write tools' arguments, as agents send them (their schemas are these structs').
//!
//! Each tool has its own fields, so that a wrong one is named by its path.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::edits::{
    DeleteBlocks, EditOp, InsertBlocks, MoveBlock, Position, ReplaceText, UpdateBlock,
};

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct InsertBlocksArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// Where: `{"at": "start"|"end"}`, or `{"at": "before"|"after"|"first_child_of"|"last_child_of", "block_id": ID}`.
    pub position: Position,
    /// Markdown to insert (headings, lists, task lists, tables, code fences, quotes...).
    /// On Docs 5.6 and later, `$$…$$` (or a `math` fence) is a math block, a `mermaid` fence a
    /// diagram, `$…$` inline math, and a literal dollar is `\$`; before 5.6 they stay text and
    /// code blocks (UNSUPPORTED_BLOCK_TYPE for typed ones). Links go to http(s) or mailto:
    /// URLs, images and other media to
    /// http(s) ones, or to paths on the instance (/docs/<id>/); others are refused
    /// (UNSAFE_URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// Typed blocks instead of markdown, e.g. `{"type": "callout", "props": {"emoji": "💡"},
    /// "content": "Inline **markdown**"}`. Types: paragraph, heading (props.level 1-6),
    /// bulletListItem, numberedListItem, checkListItem (props.checked), toggleListItem,
    /// quote, codeBlock (props.language), divider, pageBreak, image, video, audio, file, pdf
    /// (props.url), table, callout; mathBlock (LaTeX) and diagram (Mermaid) on Docs 5.6+.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    // Each an object (a bare `true` item schema is refused by strict clients).
    #[schemars(with = "Option<Vec<serde_json::Map<String, serde_json::Value>>>")]
    pub blocks: Option<Vec<serde_json::Value>>,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if the anchor block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct UpdateBlockArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    pub block_id: String,
    /// The block's whole new text as inline markdown; applied as a minimal diff (a math
    /// block's LaTeX, a diagram's Mermaid: their source as plain text). Inline math it holds
    /// (read as `$…$`) is kept where you leave it. On Docs 5.6+ other `$…$` is new inline math
    /// (a literal dollar is `\$`); before, it is text, and math and diagram blocks cannot be
    /// edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A new block type, keeping the text (e.g. paragraph → heading).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub block_type: Option<String>,
    /// Props to set, e.g. `{"level": 2}`, `{"checked": true}`, `{"textAlignment": "center"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub props: Option<serde_json::Map<String, serde_json::Value>>,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if the block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct ReplaceTextArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// The text to find, exactly as it reads (no markdown).
    pub old_text: String,
    /// Its replacement (plain text, taking the formatting of the replaced text).
    pub new_text: String,
    /// Only look in this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_id: Option<String>,
    /// Replace every match (default: exactly one match is required).
    #[serde(default)]
    pub all: bool,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if the block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct DeleteBlocksArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    pub block_ids: Vec<String>,
    /// Keep the blocks nested under a deleted block (they move up a level).
    #[serde(default)]
    pub keep_children: bool,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if a block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct MoveBlockArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    pub block_id: String,
    /// Where to: `{"at": "start"|"end"}`, or `{"at": "before"|"after"|"first_child_of"|"last_child_of", "block_id": ID}`.
    pub position: Position,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if a block changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct ApplyEditsArgs {
    /// Document id (UUID) or URL (https://HOST/docs/<id>/).
    pub document: String,
    /// Operations applied in order, all or none, as one edit and one approval. Each has an
    /// `op` (insert_blocks, update_block, replace_text, delete_blocks, move_block) and the
    /// fields of the tool of that name (without document, reason, revision).
    pub edits: Vec<EditOp>,
    /// Why you make this edit (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The revision you read; refused with STALE_REVISION if a target changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct UndoEditArgs {
    /// The id of an applied edit (from a write tool's result).
    pub edit_id: String,
    /// Why you undo it (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
pub struct CreateDocumentArgs {
    pub title: String,
    /// Initial content as markdown; it is an edit like any other (it may wait for approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// Create it as a sub-page of this document (id or URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Why you create it (shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The arguments of a tool that writes one operation: the document, the operation, and the
/// agent's reason and revision — taken apart the same way for every such tool
/// ([`super::DocsMcp::write_one`]). Each keeps its own fields, not the operation's struct
/// flattened in: an argument at fault is then named by its path (`position.at`), which
/// serde cannot do through a flattened struct.
pub(super) trait OneOperation: Serialize {
    /// The tool's name, as the journal records it.
    const TOOL: &'static str;
    /// The document, the operation, the reason, the revision.
    fn split(self) -> (String, EditOp, Option<String>, Option<String>);
}

impl OneOperation for InsertBlocksArgs {
    const TOOL: &'static str = "insert_blocks";
    fn split(self) -> (String, EditOp, Option<String>, Option<String>) {
        let op = EditOp::InsertBlocks(InsertBlocks {
            position: self.position,
            markdown: self.markdown,
            blocks: self.blocks,
        });
        (self.document, op, self.reason, self.revision)
    }
}

impl OneOperation for UpdateBlockArgs {
    const TOOL: &'static str = "update_block";
    fn split(self) -> (String, EditOp, Option<String>, Option<String>) {
        let op = EditOp::UpdateBlock(UpdateBlock {
            block_id: self.block_id,
            text: self.text,
            block_type: self.block_type,
            props: self.props,
        });
        (self.document, op, self.reason, self.revision)
    }
}

impl OneOperation for ReplaceTextArgs {
    const TOOL: &'static str = "replace_text";
    fn split(self) -> (String, EditOp, Option<String>, Option<String>) {
        let op = EditOp::ReplaceText(ReplaceText {
            old_text: self.old_text,
            new_text: self.new_text,
            block_id: self.block_id,
            all: self.all,
        });
        (self.document, op, self.reason, self.revision)
    }
}

impl OneOperation for DeleteBlocksArgs {
    const TOOL: &'static str = "delete_blocks";
    fn split(self) -> (String, EditOp, Option<String>, Option<String>) {
        let op = EditOp::DeleteBlocks(DeleteBlocks {
            block_ids: self.block_ids,
            keep_children: self.keep_children,
        });
        (self.document, op, self.reason, self.revision)
    }
}

impl OneOperation for MoveBlockArgs {
    const TOOL: &'static str = "move_block";
    fn split(self) -> (String, EditOp, Option<String>, Option<String>) {
        let op = EditOp::MoveBlock(MoveBlock {
            block_id: self.block_id,
            position: self.position,
        });
        (self.document, op, self.reason, self.revision)
    }
}
