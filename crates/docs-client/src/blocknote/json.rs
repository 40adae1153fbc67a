//! BlockNote's block JSON (`{id, type, props, content, children}`), for comparing with a real
//! BlockNote parser in golden tests.

use serde_json::{Map, Value, json};

use super::nesting::MAX_NESTING;
use super::tree::{Block, BlockContent, Inline, PropValue, Styles, TableContent, TextRun};

fn styles_json(s: &Styles) -> Value {
    let mut m = Map::new();
    for (k, on) in [
        ("bold", s.bold),
        ("italic", s.italic),
        ("underline", s.underline),
        ("strike", s.strike),
        ("code", s.code),
    ] {
        if on {
            m.insert(k.into(), Value::Bool(true));
        }
    }
    if let Some(c) = &s.text_color {
        m.insert("textColor".into(), Value::String(c.clone()));
    }
    if let Some(c) = &s.background_color {
        m.insert("backgroundColor".into(), Value::String(c.clone()));
    }
    Value::Object(m)
}

fn text_json(r: &TextRun) -> Value {
    json!({"type": "text", "text": r.text, "styles": styles_json(&r.styles)})
}

/// Inline content as BlockNote JSON, built exactly like BlockNote's
/// `contentNodeToInlineContent`: styled text, `{type:"link", href, content}`, custom inline
/// content as `{type, props}` (inline math, whose content is `"plain"`, as `{type: "math",
/// props: {}, content: "<latex>"}`). A hard break is appended as `"\n"` to the text being built,
/// whatever its styles, or to the last text of the link being built (so `"a link\n"` inside
/// the link); only with nothing before it does it start a plain text.
pub fn inline_json(inline: &[Inline]) -> Value {
    fn append(v: &mut Value, s: &str) {
        let t = format!("{}{s}", v.as_str().unwrap_or(""));
        *v = Value::String(t);
    }
    let mut out: Vec<Value> = vec![];
    let mut cur: Option<Value> = None;
    for item in inline {
        match item {
            Inline::HardBreak => match cur.as_mut() {
                Some(c) if c["type"] == "text" => append(&mut c["text"], "\n"),
                Some(c) => {
                    if let Some(last) = c["content"].as_array_mut().and_then(|a| a.last_mut()) {
                        append(&mut last["text"], "\n");
                    }
                }
                None => cur = Some(json!({"type": "text", "text": "\n", "styles": {}})),
            },
            Inline::Element { kind, attrs } => {
                out.extend(cur.take());
                let props: Map<String, Value> = attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect();
                out.push(json!({"type": kind, "props": props}));
            }
            Inline::Math { latex } => {
                out.extend(cur.take());
                out.push(json!({"type": "math", "props": {}, "content": latex}));
            }
            Inline::Text(r) => {
                let styles = styles_json(&r.styles);
                match (cur.as_mut(), &r.link) {
                    (Some(c), None) if c["type"] == "text" && c["styles"] == styles => {
                        append(&mut c["text"], &r.text);
                    }
                    (Some(c), Some(href)) if c["type"] == "link" && c["href"] == *href => {
                        let content = c["content"].as_array_mut().expect("link content");
                        match content.last_mut() {
                            Some(last) if last["styles"] == styles => {
                                append(&mut last["text"], &r.text)
                            }
                            _ => content.push(text_json(r)),
                        }
                    }
                    _ => {
                        out.extend(cur.take());
                        cur = Some(match &r.link {
                            Some(href) => {
                                json!({"type": "link", "href": href, "content": [text_json(r)]})
                            }
                            None => text_json(r),
                        });
                    }
                }
            }
        }
    }
    out.extend(cur);
    Value::Array(out)
}

fn props_json(props: &super::tree::Props) -> Value {
    Value::Object(
        props
            .iter()
            .filter(|(_, v)| **v != PropValue::Undefined)
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect(),
    )
}

fn table_json(t: &TableContent) -> Value {
    let width = t.rows.first().map(|r| r.cells.len()).unwrap_or(0);
    let widths: Vec<Value> = (0..width)
        .map(|i| {
            t.rows
                .first()
                .and_then(|r| r.cells.get(i))
                .and_then(|c| c.colwidth.as_ref())
                .and_then(|w| w.first())
                .map(|w| super::tree::number_json(*w))
                .unwrap_or(Value::Null)
        })
        .collect();
    let header_rows = t
        .rows
        .iter()
        .take_while(|r| !r.cells.is_empty() && r.cells.iter().all(|c| c.header))
        .count();
    let mut v = json!({
        "type": "tableContent",
        "columnWidths": widths,
        "rows": t.rows.iter().map(|r| json!({
            "cells": r.cells.iter().map(|c| json!({
                "type": "tableCell",
                "props": props_json(&c.props),
                "content": inline_json(&c.content),
            })).collect::<Vec<_>>()
        })).collect::<Vec<_>>(),
    });
    if header_rows > 0 {
        v["headerRows"] = json!(header_rows);
    }
    v
}

/// One block as BlockNote JSON, with its children down to [`MAX_NESTING`] (deeper children,
/// which reading never produces, are left out).
pub fn block_json(b: &Block) -> Value {
    block_json_at(b, 1)
}

fn block_json_at(b: &Block, depth: usize) -> Value {
    let content = match &b.content {
        BlockContent::None | BlockContent::Opaque { .. } => Value::Null,
        BlockContent::Inline { inline } => inline_json(inline),
        BlockContent::Table { table } => table_json(table),
    };
    let mut v = json!({
        "id": b.id,
        "type": b.kind,
        "props": props_json(&b.props),
        "children": if depth < MAX_NESTING {
            b.children.iter().map(|c| block_json_at(c, depth + 1)).collect::<Vec<_>>()
        } else {
            vec![]
        },
    });
    if !content.is_null() {
        v["content"] = content;
    }
    v
}

/// Blocks as BlockNote JSON.
pub fn blocks_json(blocks: &[Block]) -> Value {
    Value::Array(blocks.iter().map(block_json).collect())
}
