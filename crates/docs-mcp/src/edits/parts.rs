//! The parts of an edit a person may accept or refuse one by one: each operation of an
//! `apply_edits`, each top-level block an `insert_blocks` adds, each block a `delete_blocks`
//! removes. Any other edit is one part. The accepted parts make one edit again, planned like
//! any (see `service::amend`).
//!
//! Each part is labelled for the person.

use std::collections::BTreeMap;

use docs_client::blocknote::{self, EditorSchema, NewBlock, NewContent};
use serde_json::Value;

use super::{DeleteBlocks, EditOp, InsertBlocks};
use crate::error::{ServiceError, ServiceResult};

/// Longest excerpt of text in a part's label, in characters.
const EXCERPT: usize = 60;

/// One part: what a person reads on the card, and the operation it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub label: String,
    pub op: EditOp,
    /// The text a person may rewrite before accepting the part: a block rewrite's new text
    /// (inline markdown). `None`: the part is taken or refused as it is.
    pub text: Option<String>,
}

/// The parts of an edit made with `tool` and `arguments` (as the agent sent them); `text_of`
/// gives the current text of a block by id (for the labels of deletions).
pub fn parts(
    tool: &str,
    arguments: &Value,
    text_of: impl Fn(&str) -> Option<String>,
    schema: EditorSchema,
) -> ServiceResult<Vec<Part>> {
    let stored = |e: serde_json::Error| {
        ServiceError::Internal(format!("the stored arguments of a {tool}: {e}"))
    };
    Ok(match tool {
        "apply_edits" => {
            let ops: Vec<EditOp> =
                serde_json::from_value(arguments["edits"].clone()).map_err(stored)?;
            ops.into_iter()
                .map(|op| Part {
                    label: op_label(&op, &text_of, schema),
                    text: match &op {
                        EditOp::UpdateBlock(update) => update.text.clone(),
                        _ => None,
                    },
                    op,
                })
                .collect()
        }
        "insert_blocks" => {
            let insert: InsertBlocks = serde_json::from_value(arguments.clone()).map_err(stored)?;
            insert
                .new_blocks(schema)?
                .into_iter()
                .map(|block| Part {
                    label: format!("Insert {}", block_label(&block)),
                    text: None,
                    op: EditOp::InsertBlocks(InsertBlocks {
                        position: insert.position.clone(),
                        markdown: None,
                        blocks: Some(vec![
                            serde_json::to_value(&block).expect("a block serializes"),
                        ]),
                    }),
                })
                .collect()
        }
        "delete_blocks" => {
            let delete: DeleteBlocks = serde_json::from_value(arguments.clone()).map_err(stored)?;
            delete
                .block_ids
                .iter()
                .map(|id| Part {
                    label: format!("Delete {}", quoted(text_of(id).as_deref(), id)),
                    text: None,
                    op: EditOp::DeleteBlocks(DeleteBlocks {
                        block_ids: vec![id.clone()],
                        keep_children: delete.keep_children,
                    }),
                })
                .collect()
        }
        _ => vec![],
    })
}

/// The operations of the `accepted` parts, in order, as one edit — with the person's `texts`
/// in place of the agent's for the parts they rewrote: the blocks of an insert together at
/// its position, the deletions together.
pub fn accepted_ops(
    tool: &str,
    parts: Vec<Part>,
    accepted: &[usize],
    texts: &BTreeMap<usize, String>,
) -> ServiceResult<Vec<EditOp>> {
    let mut chosen = vec![];
    for (i, part) in parts.into_iter().enumerate() {
        if !accepted.contains(&i) {
            continue;
        }
        chosen.push(match (texts.get(&i), part.op) {
            (None, op) => op,
            (Some(text), EditOp::UpdateBlock(mut update)) if part.text.is_some() => {
                update.text = Some(text.clone());
                EditOp::UpdateBlock(update)
            }
            (Some(_), _) => {
                return Err(ServiceError::invalid(
                    format!("part {i} ({}) has no text to rewrite", part.label),
                    "Give your own text only for a part that rewrites a block's text.",
                ));
            }
        });
    }
    if let Some(i) = texts.keys().find(|i| !accepted.contains(i)) {
        return Err(ServiceError::invalid(
            format!("part {i} is given a text but is not accepted"),
            "Accept the parts you give your text for.",
        ));
    }
    match tool {
        "insert_blocks" => {
            let mut blocks = vec![];
            let mut position = None;
            for op in chosen {
                if let EditOp::InsertBlocks(insert) = op {
                    position.get_or_insert(insert.position);
                    blocks.extend(insert.blocks.unwrap_or_default());
                }
            }
            Ok(position
                .map(|position| {
                    EditOp::InsertBlocks(InsertBlocks {
                        position,
                        markdown: None,
                        blocks: Some(blocks),
                    })
                })
                .into_iter()
                .collect())
        }
        "delete_blocks" => {
            let mut ids = vec![];
            let mut keep_children = false;
            for op in chosen {
                if let EditOp::DeleteBlocks(delete) = op {
                    keep_children = delete.keep_children;
                    ids.extend(delete.block_ids);
                }
            }
            Ok(vec![EditOp::DeleteBlocks(DeleteBlocks {
                block_ids: ids,
                keep_children,
            })])
        }
        _ => Ok(chosen),
    }
}

fn op_label(
    op: &EditOp,
    text_of: &impl Fn(&str) -> Option<String>,
    schema: EditorSchema,
) -> String {
    match op {
        EditOp::InsertBlocks(insert) => match insert.new_blocks(schema) {
            Ok(blocks) if blocks.len() == 1 => format!("Insert {}", block_label(&blocks[0])),
            Ok(blocks) => format!("Insert {} blocks", blocks.len()),
            Err(_) => "Insert blocks".into(),
        },
        EditOp::UpdateBlock(update) => match &update.text {
            Some(text) => format!(
                "Rewrite {} as “{}”",
                quoted(text_of(&update.block_id).as_deref(), &update.block_id),
                excerpt(text)
            ),
            None => format!(
                "Change {}",
                quoted(text_of(&update.block_id).as_deref(), &update.block_id)
            ),
        },
        EditOp::ReplaceText(replace) => format!(
            "Replace “{}” with “{}”",
            excerpt(&replace.old_text),
            excerpt(&replace.new_text)
        ),
        EditOp::DeleteBlocks(delete) => match delete.block_ids.as_slice() {
            [one] => format!("Delete {}", quoted(text_of(one).as_deref(), one)),
            ids => format!("Delete {} blocks", ids.len()),
        },
        EditOp::MoveBlock(moved) => format!(
            "Move {}",
            quoted(text_of(&moved.block_id).as_deref(), &moved.block_id)
        ),
    }
}

/// "heading “Title”", "paragraph “Some text…”", "table".
fn block_label(block: &NewBlock) -> String {
    let text = match &block.content {
        Some(NewContent::Markdown(markdown)) => markdown.clone(),
        Some(NewContent::Inline(inline)) => blocknote::tree::inline_plain_text(inline),
        Some(NewContent::Table(_)) | None => String::new(),
    };
    let kind = blocknote::schema::called(&block.kind);
    if text.trim().is_empty() {
        kind.to_owned()
    } else {
        format!("{kind} “{}”", excerpt(&text))
    }
}

/// A block by its text, else by its id.
fn quoted(text: Option<&str>, id: &str) -> String {
    match text.filter(|t| !t.trim().is_empty()) {
        Some(text) => format!("“{}”", excerpt(text)),
        None => format!("block {id}"),
    }
}

/// The start of `text` on one line, at most [`EXCERPT`] characters.
fn excerpt(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= EXCERPT {
        return line;
    }
    let cut: String = line.chars().take(EXCERPT - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_insert_is_one_part_per_top_level_block_and_the_accepted_ones_insert_together() {
        let arguments = json!({
            "document": "d",
            "position": {"at": "end"},
            "markdown": "# Plan\n\nFirst step.\n\n- a\n- b",
        });
        let parts = parts("insert_blocks", &arguments, |_| None, EditorSchema::BASE).unwrap();
        let labels: Vec<&str> = parts.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "Insert heading “Plan”",
                "Insert paragraph “First step.”",
                "Insert bullet list item “a”",
                "Insert bullet list item “b”"
            ]
        );
        let ops = accepted_ops("insert_blocks", parts, &[0, 2], &BTreeMap::new()).unwrap();
        let [EditOp::InsertBlocks(insert)] = ops.as_slice() else {
            panic!("{ops:?}")
        };
        let blocks: Vec<NewBlock> = insert
            .blocks
            .clone()
            .unwrap()
            .into_iter()
            .map(|v| NewBlock::from_json(v).unwrap())
            .collect();
        let all = blocknote::import_markdown("# Plan\n\nFirst step.\n\n- a\n- b").unwrap();
        assert_eq!(blocks, [all[0].clone(), all[2].clone()]);
    }

    #[test]
    fn deletions_and_operations_are_parts_and_other_edits_are_not_divided() {
        let text_of = |id: &str| (id == "b1").then(|| "Old intro paragraph".to_owned());
        let delete = json!({"document": "d", "block_ids": ["b1", "b2"], "keep_children": true});
        let parts_of_delete = parts("delete_blocks", &delete, text_of, EditorSchema::BASE).unwrap();
        assert_eq!(
            parts_of_delete
                .iter()
                .map(|p| p.label.as_str())
                .collect::<Vec<_>>(),
            ["Delete “Old intro paragraph”", "Delete block b2"]
        );
        assert_eq!(
            accepted_ops("delete_blocks", parts_of_delete, &[1], &BTreeMap::new()).unwrap(),
            [EditOp::DeleteBlocks(DeleteBlocks {
                block_ids: vec!["b2".into()],
                keep_children: true
            })]
        );
        let apply = json!({"document": "d", "edits": [
            {"op": "replace_text", "old_text": "Monday", "new_text": "Friday"},
            {"op": "update_block", "block_id": "b1", "text": "New intro"},
            {"op": "move_block", "block_id": "b2", "position": {"at": "start"}},
        ]});
        let parts_of_apply = parts("apply_edits", &apply, text_of, EditorSchema::BASE).unwrap();
        assert_eq!(
            parts_of_apply
                .iter()
                .map(|p| p.label.as_str())
                .collect::<Vec<_>>(),
            [
                "Replace “Monday” with “Friday”",
                "Rewrite “Old intro paragraph” as “New intro”",
                "Move block b2"
            ]
        );
        let ops = accepted_ops(
            "apply_edits",
            parts_of_apply.clone(),
            &[0, 2],
            &BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(
            ops,
            [parts_of_apply[0].op.clone(), parts_of_apply[2].op.clone()]
        );
        // The rewrite's text may be the person's; only a rewrite's.
        assert_eq!(
            parts_of_apply
                .iter()
                .map(|p| p.text.as_deref())
                .collect::<Vec<_>>(),
            [None, Some("New intro"), None]
        );
        let mine = BTreeMap::from([(1, "My intro".to_owned())]);
        let ops = accepted_ops("apply_edits", parts_of_apply.clone(), &[1], &mine).unwrap();
        let [EditOp::UpdateBlock(update)] = ops.as_slice() else {
            panic!("{ops:?}")
        };
        assert_eq!(update.text.as_deref(), Some("My intro"));
        let not_a_rewrite = BTreeMap::from([(0, "x".to_owned())]);
        assert!(accepted_ops("apply_edits", parts_of_apply.clone(), &[0], &not_a_rewrite).is_err());
        assert!(accepted_ops("apply_edits", parts_of_apply, &[0], &mine).is_err());
        let update = json!({"document": "d", "block_id": "b1", "text": "x"});
        assert!(
            parts("update_block", &update, text_of, EditorSchema::BASE)
                .unwrap()
                .is_empty()
        );
    }
}
