//! The tool schemas as clients get them.
//!
//! schemars marks integers with formats of its own (`uint`, `uint8`, `int64`, `double`…) that
//! JSON Schema does not define: Ajv, which the TypeScript SDK (Claude Code, VS Code, Cursor…)
//! compiles every output schema with, warns about each one on the client's console at every
//! `tools/list`, and spends time doing so. The ranges they stand for are kept as
//! `minimum`/`maximum`, which schemars writes too.
//!
//! Input schemas say no `null`: an optional parameter is one left out (not `required`), which
//! every client understands, where the `["string", "null"]` type arrays and `anyOf […, null]`
//! schemars writes for `Option`s are what strict clients (the MCP Inspector's `--strict`) warn
//! about. Output schemas keep them: a field the service answers with `null` must validate
//! (the TypeScript SDK checks every structured answer against its output schema).
//!
//! Each output schema is named by its content (`$id`): the TypeScript SDK compiles a schema
//! with an `$id` once per client and reuses it for every tool that has the same one (twelve
//! tools answer with an edit's outcome). Compiling them is most of a client's start: with
//! the names, half as many are compiled.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::JsonObject;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The formats JSON Schema 2020-12 defines.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// A tool's input and output schemas.
type Schemas = (Arc<JsonObject>, Option<Arc<JsonObject>>);

/// Gives the router's tools their schemas as clients get them: without non-standard
/// `format`s, output schemas named by their content. Made once per process (every connection
/// builds the same router), then shared.
pub(super) fn for_clients<S>(router: &mut ToolRouter<S>) {
    static CLEANED: OnceLock<HashMap<String, Schemas>> = OnceLock::new();
    let cleaned = CLEANED.get_or_init(|| {
        router
            .map
            .values()
            .map(|route| {
                let mut input = (*route.attr.input_schema).clone();
                clean(&mut input);
                without_null(&mut input);
                let output = route.attr.output_schema.as_deref().map(|output| {
                    let mut output = output.clone();
                    clean(&mut output);
                    name_by_content(&mut output);
                    Arc::new(output)
                });
                (route.attr.name.to_string(), (Arc::new(input), output))
            })
            .collect()
    });
    for route in router.map.values_mut() {
        if let Some((input, output)) = cleaned.get(route.attr.name.as_ref()) {
            route.attr.input_schema = input.clone();
            route.attr.output_schema = output.clone();
        }
    }
}

fn clean(schema: &mut JsonObject) {
    let mut stack: Vec<&mut JsonObject> = vec![schema];
    while let Some(object) = stack.pop() {
        if object
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|format| !STANDARD_FORMATS.contains(&format))
        {
            object.remove("format");
        }
        for value in object.values_mut() {
            push_objects(value, &mut stack);
        }
    }
}

/// An input schema without `null`: `type` arrays lose it, `anyOf [X, null]` becomes X, and a
/// `null` default or enum value goes.
fn without_null(schema: &mut JsonObject) {
    let mut stack: Vec<&mut JsonObject> = vec![schema];
    while let Some(object) = stack.pop() {
        if let Some(Value::Array(types)) = object.get_mut("type") {
            types.retain(|t| t != "null");
            if let [only] = types.as_slice() {
                let only = only.clone();
                object.insert("type".to_owned(), only);
            }
        }
        if let Some(Value::Array(values)) = object.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        if object.get("default").is_some_and(Value::is_null) {
            object.remove("default");
        }
        let is_null = |schema: &Value| schema.get("type").is_some_and(|t| t == "null");
        let single = match object.get("anyOf") {
            Some(Value::Array(options)) if options.len() == 2 && options.iter().any(is_null) => {
                options.iter().find(|o| !is_null(o)).cloned()
            }
            _ => None,
        };
        if let Some(Value::Object(single)) = single {
            object.remove("anyOf");
            for (key, value) in single {
                object.entry(key).or_insert(value);
            }
        }
        for value in object.values_mut() {
            push_objects(value, &mut stack);
        }
    }
}

/// Sets the schema's `$id` to a name drawn from its content: equal schemas get the same
/// name, different ones different names (a client that caches compiled schemas by `$id`
/// must never take one for another).
fn name_by_content(schema: &mut JsonObject) {
    schema.remove("$id");
    let json = serde_json::to_vec(schema).expect("a JSON object serializes");
    let digest = Sha256::digest(&json);
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    schema.insert(
        "$id".to_owned(),
        Value::String(format!("urn:lasuite-docs-mcp:schema:{hex}")),
    );
}

fn push_objects<'a>(value: &'a mut Value, stack: &mut Vec<&'a mut JsonObject>) {
    match value {
        Value::Object(object) => stack.push(object),
        Value::Array(items) => {
            for item in items {
                push_objects(item, stack);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn output_schemas_are_named_by_their_content() {
        let named = |schema: Value| {
            let mut schema = schema.as_object().unwrap().clone();
            name_by_content(&mut schema);
            schema["$id"].as_str().unwrap().to_owned()
        };
        let outcome = json!({"type": "object", "properties": {"status": {"type": "string"}}});
        let id = named(outcome.clone());
        assert!(id.starts_with("urn:lasuite-docs-mcp:schema:"), "{id}");
        assert_eq!(id.len(), "urn:lasuite-docs-mcp:schema:".len() + 32);
        assert_eq!(named(outcome), id);
        let other = json!({"type": "object", "properties": {"status": {"type": "integer"}}});
        assert_ne!(named(other), id);
        // Named again, a schema keeps its name.
        let mut renamed =
            json!({"$id": id, "type": "object", "properties": {"status": {"type": "string"}}})
                .as_object()
                .unwrap()
                .clone();
        name_by_content(&mut renamed);
        assert_eq!(renamed["$id"], id);
    }

    #[test]
    fn input_schemas_leave_null_out() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "reason": {"type": ["string", "null"], "description": "Why."},
                "limit": {"type": ["integer", "null"], "default": null, "minimum": 1},
                "policy": {"anyOf": [{"$ref": "#/$defs/Policy"}, {"type": "null"}], "description": "Which."},
                "at": {"enum": ["start", "end", null]},
                "pages": {"type": "array", "items": {"type": ["integer", "null"]}},
                "both": {"type": ["string", "integer", "null"]}
            },
            "required": []
        })
        .as_object()
        .unwrap()
        .clone();
        without_null(&mut schema);
        assert_eq!(
            Value::Object(schema),
            json!({
                "type": "object",
                "properties": {
                    "reason": {"type": "string", "description": "Why."},
                    "limit": {"type": "integer", "minimum": 1},
                    "policy": {"$ref": "#/$defs/Policy", "description": "Which."},
                    "at": {"enum": ["start", "end"]},
                    "pages": {"type": "array", "items": {"type": "integer"}},
                    "both": {"type": ["string", "integer"]}
                },
                "required": []
            })
        );
    }

    #[test]
    fn only_formats_json_schema_defines_are_kept() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "format": "uint", "minimum": 0},
                "level": {"type": ["integer", "null"], "format": "uint8", "minimum": 0, "maximum": 255},
                "id": {"type": "string", "format": "uuid"},
                "format": {"type": "string", "format": "date-time"},
                "pages": {"type": "array", "items": {"type": "integer", "format": "uint32"}},
                "either": {"anyOf": [{"type": "number", "format": "double"}, {"type": "null"}]}
            },
            "$defs": {"Seq": {"type": "integer", "format": "uint64", "minimum": 0}}
        })
        .as_object()
        .unwrap()
        .clone();
        clean(&mut schema);
        assert_eq!(
            Value::Object(schema),
            json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "minimum": 0},
                    "level": {"type": ["integer", "null"], "minimum": 0, "maximum": 255},
                    "id": {"type": "string", "format": "uuid"},
                    "format": {"type": "string", "format": "date-time"},
                    "pages": {"type": "array", "items": {"type": "integer"}},
                    "either": {"anyOf": [{"type": "number"}, {"type": "null"}]}
                },
                "$defs": {"Seq": {"type": "integer", "minimum": 0}}
            })
        );
    }
}
