//! BlockNote's block JSON (`{id, type, props, content, children}`), for comparing with a real
//! BlockNote parser in golden tests.

use serde_json::{Map, Value, json};

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

/// Inline content as BlockNote JSON: styled text, `{type:"link", href, content}`, hard breaks
/// as `\n` inside the text, custom inline content as `{type, props}`.
pub fn inline_json(inline: &[Inline]) -> Value {
    let mut out: Vec<Value> = vec![];
    let push_text = |out: &mut Vec<Value>, r: &TextRun| {
        // BlockNote merges a hard break into the neighbouring text as "\n"
        if let Some(last) = out.last_mut()
            && last["type"] == "text"
            && last["styles"] == styles_json(&r.styles)
        {
            let t = format!("{}{}", last["text"].as_str().unwrap_or(""), r.text);
            last["text"] = Value::String(t);
            return;
        }
        out.push(text_json(r));
    };
    let mut i = 0;
    while i < inline.len() {
        match &inline[i] {
            Inline::Text(r) if r.link.is_some() => {
                let href = r.link.clone().unwrap_or_default();
                let mut content: Vec<Value> = vec![];
                while let Some(Inline::Text(r)) = inline.get(i) {
                    if r.link.as_deref() != Some(href.as_str()) {
                        break;
                    }
                    push_text(&mut content, r);
                    i += 1;
                }
                out.push(json!({"type": "link", "href": href, "content": content}));
                continue;
            }
            Inline::Text(r) => push_text(&mut out, r),
            Inline::HardBreak => push_text(&mut out, &TextRun::plain("\n")),
            Inline::Element { kind, attrs } => {
                let props: Map<String, Value> = attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect();
                out.push(json!({"type": kind, "props": props}));
            }
        }
        i += 1;
    }
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

/// One block as BlockNote JSON.
pub fn block_json(b: &Block) -> Value {
    let content = match &b.content {
        BlockContent::None | BlockContent::Opaque { .. } => Value::Null,
        BlockContent::Inline { inline } => inline_json(inline),
        BlockContent::Table { table } => table_json(table),
    };
    let mut v = json!({
        "id": b.id,
        "type": b.kind,
        "props": props_json(&b.props),
        "children": b.children.iter().map(block_json).collect::<Vec<_>>(),
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
