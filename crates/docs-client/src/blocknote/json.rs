//! BlockNote's block JSON (`{id, type, props, content, children}`), for comparing with a real
//! BlockNote parser in golden tests.
//!
//! `blocks_from_json` reads another BlockNote's JSON (a comment's body) tolerantly.

use serde_json::{Map, Value, json};

use super::nesting::MAX_NESTING;
use super::schema::{ContentKind, block_spec};
use super::tree::{
    Block, BlockContent, Inline, PropValue, Props, Styles, TableCell, TableContent, TableRow,
    TextRun, inline_plain_text,
};

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

fn props_json(props: &Props) -> Value {
    Value::Object(
        props
            .iter()
            .filter(|(_, v)| **v != PropValue::Undefined)
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect(),
    )
}

/// Columns' widths as BlockNote lists them: each first-row cell's `colwidth`, or one null per
/// column it spans when it has none.
fn column_widths(t: &TableContent) -> Vec<Value> {
    let Some(first) = t.rows.first() else {
        return vec![];
    };
    first
        .cells
        .iter()
        .flat_map(|c| match &c.colwidth {
            Some(w) => w.iter().map(|w| super::tree::number_json(*w)).collect(),
            None => {
                let span = c.props.get("colspan").and_then(PropValue::as_f64);
                vec![Value::Null; span.map_or(1, |s| s.max(0.0) as usize)]
            }
        })
        .collect()
}

/// `headerRows` and `headerCols` as BlockNote 0.54 derives them (`contentNodeToTableContent`):
/// the number of rows made only of `tableHeader` cells, and of first-row positions holding a
/// `tableHeader` in every row — wherever they are, not only leading ones. Rows without cells,
/// which ProseMirror cannot hold, are left out as BlockNote's sparse matrix leaves them.
fn header_counts(t: &TableContent) -> (usize, usize) {
    let rows: Vec<&TableRow> = t.rows.iter().filter(|r| !r.cells.is_empty()).collect();
    let header_rows = rows
        .iter()
        .filter(|r| r.cells.iter().all(|c| c.header))
        .count();
    let width = t.rows.first().map_or(0, |r| r.cells.len());
    let header_cols = (0..width)
        .filter(|&i| {
            rows.iter()
                .all(|r| r.cells.get(i).is_some_and(|c| c.header))
        })
        .count();
    (header_rows, header_cols)
}

fn table_json(t: &TableContent) -> Value {
    let (header_rows, header_cols) = header_counts(t);
    let mut v = json!({
        "type": "tableContent",
        "columnWidths": column_widths(t),
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
    if header_cols > 0 {
        v["headerCols"] = json!(header_cols);
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

// ---------------------------------------------------------------------------------------------
// From BlockNote JSON (what another BlockNote writes: comment bodies, pasted blocks)

fn prop_from_json(v: &Value) -> Option<PropValue> {
    Some(match v {
        Value::String(s) => PropValue::String(s.clone()),
        Value::Bool(b) => PropValue::Bool(*b),
        Value::Number(n) => PropValue::Number(n.as_f64()?),
        Value::Null => PropValue::Undefined,
        _ => return None,
    })
}

fn props_from_json(v: Option<&Value>) -> Props {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), prop_from_json(v)?)))
                .collect()
        })
        .unwrap_or_default()
}

fn styles_from_json(v: Option<&Value>) -> Styles {
    let Some(m) = v.and_then(Value::as_object) else {
        return Styles::default();
    };
    let on = |k: &str| m.get(k).is_some_and(|v| v == &Value::Bool(true));
    let color = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    Styles {
        bold: on("bold"),
        italic: on("italic"),
        underline: on("underline"),
        strike: on("strike"),
        code: on("code"),
        text_color: color("textColor"),
        background_color: color("backgroundColor"),
    }
}

/// Text as runs: a `"\n"` in BlockNote JSON's text is a hard break.
fn push_text(out: &mut Vec<Inline>, text: &str, styles: &Styles, link: Option<&str>) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push(Inline::HardBreak);
        }
        if !line.is_empty() {
            out.push(Inline::Text(TextRun {
                text: line.to_owned(),
                styles: styles.clone(),
                link: link.map(str::to_owned),
                comments: vec![],
            }));
        }
    }
}

/// BlockNote inline content JSON (`"text"`, `[{type:"text", text, styles}, {type:"link",
/// href, content}, {type, props}]`) as inline content: the inverse of [`inline_json`].
/// Anything else is skipped.
pub fn inline_from_json(value: &Value) -> Vec<Inline> {
    let mut out = vec![];
    let items = match value {
        Value::Array(items) => items.as_slice(),
        other => std::slice::from_ref(other),
    };
    for item in items {
        match item {
            Value::String(s) => push_text(&mut out, s, &Styles::default(), None),
            Value::Object(m) => match m.get("type").and_then(Value::as_str) {
                Some("text") => push_text(
                    &mut out,
                    m.get("text").and_then(Value::as_str).unwrap_or_default(),
                    &styles_from_json(m.get("styles")),
                    None,
                ),
                Some("link") => {
                    let href = m.get("href").and_then(Value::as_str).unwrap_or_default();
                    let parts = match m.get("content") {
                        Some(Value::Array(parts)) => parts.as_slice(),
                        Some(other) => std::slice::from_ref(other),
                        None => &[],
                    };
                    for part in parts {
                        match part {
                            Value::String(s) => {
                                push_text(&mut out, s, &Styles::default(), Some(href))
                            }
                            Value::Object(p) => push_text(
                                &mut out,
                                p.get("text").and_then(Value::as_str).unwrap_or_default(),
                                &styles_from_json(p.get("styles")),
                                Some(href),
                            ),
                            _ => {}
                        }
                    }
                }
                Some(kind) => out.push(Inline::Element {
                    kind: kind.to_owned(),
                    attrs: props_from_json(m.get("props")),
                }),
                None => {}
            },
            _ => {}
        }
    }
    super::inline::normalize_inline(out)
}

fn table_from_json(value: &Value) -> TableContent {
    let count = |key| value.get(key).and_then(Value::as_u64).unwrap_or(0) as usize;
    let (header_rows, header_cols) = (count("headerRows"), count("headerCols"));
    // As BlockNote writes them (`tableContentToNodes`): leading rows and leading columns.
    let header = |r: usize, c: usize| r < header_rows || c < header_cols;
    let rows = value
        .get("rows")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    TableContent {
        rows: rows
            .iter()
            .enumerate()
            .map(|(r, row)| TableRow {
                cells: row
                    .get("cells")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .map(|(c, cell)| match cell.get("type").and_then(Value::as_str) {
                        Some("tableCell") => TableCell {
                            header: header(r, c),
                            props: props_from_json(cell.get("props")),
                            colwidth: None,
                            content: cell
                                .get("content")
                                .map(inline_from_json)
                                .unwrap_or_default(),
                        },
                        // Older BlockNote: a cell is its inline content.
                        _ => TableCell {
                            header: header(r, c),
                            props: Props::new(),
                            colwidth: None,
                            content: inline_from_json(cell),
                        },
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn block_from_json(value: &Value, depth: usize) -> Option<Block> {
    let m = value.as_object()?;
    let kind = m.get("type")?.as_str()?.to_owned();
    let content = m.get("content").unwrap_or(&Value::Null);
    let content = match block_spec(&kind).map(|spec| spec.content) {
        Some(ContentKind::Inline) => BlockContent::Inline {
            inline: inline_from_json(content),
        },
        Some(ContentKind::Code) => {
            let text = inline_plain_text(&inline_from_json(content));
            BlockContent::Inline {
                inline: if text.is_empty() {
                    vec![]
                } else {
                    vec![Inline::Text(TextRun::plain(text))]
                },
            }
        }
        Some(ContentKind::Table) => BlockContent::Table {
            table: table_from_json(content),
        },
        Some(ContentKind::None) => BlockContent::None,
        None => BlockContent::Opaque {
            text: inline_plain_text(&inline_from_json(content)),
            hidden_blocks: 0,
        },
    };
    let children = match m.get("children") {
        Some(Value::Array(children)) if depth < MAX_NESTING => children
            .iter()
            .filter_map(|c| block_from_json(c, depth + 1))
            .collect(),
        _ => vec![],
    };
    Some(Block {
        id: m
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        kind,
        props: props_from_json(m.get("props")),
        content,
        children,
    })
}

/// BlockNote blocks JSON (as another BlockNote wrote it, e.g. a comment's body) as blocks, to
/// read: the inverse of [`blocks_json`], tolerant — values that are not blocks are skipped,
/// unknown block types read as opaque text, blocks nested deeper than [`MAX_NESTING`] are
/// left out.
pub fn blocks_from_json(value: &Value) -> Vec<Block> {
    match value {
        Value::Array(items) => items.iter().filter_map(|b| block_from_json(b, 1)).collect(),
        other => block_from_json(other, 1).into_iter().collect(),
    }
}
