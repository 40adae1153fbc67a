//! Typed errors of the document model. Every message says what to do next.

use thiserror::Error;

/// Why a read or an operation on the BlockNote document was refused.
///
/// A refused operation has changed nothing: every operation validates first and mutates after.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ModelError {
    #[error("unknown block type `{block_type}`; use one of: {allowed}")]
    UnknownBlockType { block_type: String, allowed: String },
    #[error(
        "block type `{block_type}` cannot be written: {reason}; use a writable type, or leave such blocks as they are"
    )]
    NotWritable { block_type: String, reason: String },
    #[error("block type `{block_type}` has no prop `{prop}`; its props are: {allowed}")]
    UnknownProp {
        block_type: String,
        prop: String,
        allowed: String,
    },
    #[error("prop `{prop}` of `{block_type}` must be {expected}, got {got}")]
    WrongPropType {
        block_type: String,
        prop: String,
        expected: String,
        got: String,
    },
    #[error("block type `{block_type}` {problem}; fix the content and retry")]
    InvalidContent { block_type: String, problem: String },
    #[error("unknown inline element `{kind}`; only `interlinkingLinkInline` can be written")]
    UnknownInlineElement { kind: String },
    #[error(
        "inline element `{kind}` has no attribute `{attr}` (or it has the wrong type); allowed: {allowed}"
    )]
    InvalidInlineAttr {
        kind: String,
        attr: String,
        allowed: String,
    },
    #[error(
        "{what} {url:?} is refused: {reason}; links may be http, https or mailto URLs, media \
         http or https URLs, or either a path on the Docs instance (/docs/<id>/, /media/...)"
    )]
    UnsafeUrl {
        what: String,
        url: String,
        reason: String,
    },
    #[error("invalid JSON for a block: {message}; see the NewBlock shape")]
    InvalidJson { message: String },
    #[error("no block with id `{id}`; read the outline or the document again to get current ids")]
    BlockNotFound { id: String },
    #[error("no heading matches `{selector}`; read the outline to get heading ids and texts")]
    SectionNotFound { selector: String },
    #[error(
        "block `{id}` is a `{block_type}` this server does not model; it can only be deleted or moved as a whole"
    )]
    OpaqueBlock { id: String, block_type: String },
    #[error("block `{id}` is a `{block_type}`, which has {what}; use an operation suited to it")]
    WrongBlockKind {
        id: String,
        block_type: String,
        what: String,
    },
    #[error(
        "cannot change block `{id}` from `{from}` to `{to}`: {reason}; delete it and insert a new block instead"
    )]
    IncompatibleTypeChange {
        id: String,
        from: String,
        to: String,
        reason: String,
    },
    #[error(
        "cannot move block `{id}` into itself or one of its descendants; choose a target outside it"
    )]
    MoveIntoItself { id: String },
    #[error(
        "the document structure is malformed ({problem}); reload the document, it may still be loading"
    )]
    MalformedDocument { problem: String },
    #[error(
        "characters {start}..{end} are not a stretch of block `{id}`'s text, which has {len} \
         characters; give a non-empty range within it (read the block again)"
    )]
    InvalidTextRange {
        id: String,
        start: usize,
        end: usize,
        len: usize,
    },
    #[error("block id `{id}` is listed twice; list each block once")]
    DuplicateId { id: String },
    #[error(
        "this would nest blocks {depth} levels deep, deeper than the limit of {limit}; flatten \
         the nesting (fewer indentation levels in lists) or put the blocks higher in the \
         document, and retry"
    )]
    NestingTooDeep { depth: usize, limit: usize },
    #[error(
        "block `{id}` holds {hidden_blocks} blocks nested deeper than the limit of {limit} \
         levels, which this server does not read; it can only be deleted or moved as a whole"
    )]
    HiddenNesting {
        id: String,
        hidden_blocks: usize,
        limit: usize,
    },
    #[error(
        "the document nests its content {depth} levels deep, deeper than the {limit} levels \
         this server can safely edit; flatten it in Docs (fewer indentation levels) and open \
         it again"
    )]
    DocumentTooDeep { depth: usize, limit: usize },
}

/// Result alias of the model.
pub type ModelResult<T> = Result<T, ModelError>;
