//! The canonical tree of a document, as `tree` in `tests/docs-server/src/browser.mjs` writes
//! it for a Yjs document: element names, sorted attributes (`undefined` kept as
//! `{"$undefined": true}`), text runs with their formatting. Two documents that read the same
//! here hold the same XML, whatever their histories.

use docs_client::DOCUMENT_FRAGMENT;
use serde_json::{Map, Value, json};
use yrs::types::text::YChange;
use yrs::types::xml::XmlOut;
use yrs::{Any, Doc, Number, Out, ReadTxn, Text, Transact, Xml, XmlFragment};

pub fn of_doc(doc: &Doc) -> Value {
    let fragment = doc.get_or_insert_xml_fragment(DOCUMENT_FRAGMENT);
    let txn = doc.transact();
    Value::Array(fragment.children(&txn).map(|n| node(&txn, n)).collect())
}

fn node<T: ReadTxn>(txn: &T, xml: XmlOut) -> Value {
    match xml {
        XmlOut::Text(text) => {
            let runs = text.diff(txn, YChange::identity).into_iter().map(|d| {
                let insert = match d.insert {
                    Out::Any(any) => any_json(&any),
                    other => json!(format!("{other:?}")),
                };
                let attributes: Map<String, Value> = d
                    .attributes
                    .map(|attrs| {
                        attrs
                            .iter()
                            .map(|(k, v)| (k.to_string(), any_json(v)))
                            .collect()
                    })
                    .unwrap_or_default();
                json!({"insert": insert, "attributes": attributes})
            });
            json!({"text": runs.collect::<Vec<_>>()})
        }
        XmlOut::Element(el) => {
            let mut attrs: Vec<(String, Value)> = el
                .attributes(txn)
                .map(|(k, v)| (k.to_owned(), out_json(&v)))
                .collect();
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
            json!({
                "name": el.tag().to_string(),
                "attrs": attrs.into_iter().collect::<Map<_, _>>(),
                "children": el.children(txn).map(|n| node(txn, n)).collect::<Vec<_>>(),
            })
        }
        XmlOut::Fragment(f) => {
            json!({"fragment": f.children(txn).map(|n| node(txn, n)).collect::<Vec<_>>()})
        }
    }
}

fn out_json(out: &Out) -> Value {
    match out {
        Out::Any(any) => any_json(any),
        other => json!(format!("{other:?}")),
    }
}

/// As `JSON.stringify` writes a Yjs value: whole numbers without a fraction.
fn any_json(any: &Any) -> Value {
    match any {
        Any::Undefined => json!({"$undefined": true}),
        Any::Null => Value::Null,
        Any::Bool(b) => json!(b),
        Any::Number(Number::Int(n)) => json!(n),
        Any::Number(Number::Float(n)) if n.fract() == 0.0 && n.abs() < 9e15 => json!(*n as i64),
        Any::Number(Number::Float(n)) => json!(n),
        Any::String(s) => json!(s.as_ref()),
        Any::Buffer(b) => json!(b.as_ref()),
        Any::Array(items) => Value::Array(items.iter().map(any_json).collect()),
        Any::Map(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), any_json(v)))
                    .collect(),
            )
        }
    }
}

/// Runs of text side by side with the same formatting made one (Yjs and yrs may cut them
/// differently), and empty runs dropped, throughout a tree.
pub fn normalized(tree: &Value) -> Value {
    match tree {
        Value::Object(map) if map.contains_key("text") => {
            let mut runs: Vec<Value> = vec![];
            for run in map["text"].as_array().into_iter().flatten() {
                let text = run["insert"].as_str().unwrap_or_default();
                if text.is_empty() {
                    continue;
                }
                match runs.last_mut() {
                    Some(last) if last["attributes"] == run["attributes"] => {
                        let joined =
                            format!("{}{text}", last["insert"].as_str().unwrap_or_default());
                        last["insert"] = json!(joined);
                    }
                    _ => runs.push(run.clone()),
                }
            }
            json!({"text": runs})
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), normalized(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalized).collect()),
        other => other.clone(),
    }
}
