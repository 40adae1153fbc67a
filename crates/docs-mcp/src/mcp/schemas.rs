//! The tool schemas as clients validate them. schemars marks integers with formats of its own
//! (`uint`, `uint8`, `int64`, `double`…) that JSON Schema does not define: Ajv, which the
//! TypeScript SDK (Claude Code, VS Code, Cursor…) compiles every output schema with, warns
//! about each one on the client's console at every `tools/list`, and spends time doing so.
//! The ranges they stand for are kept as `minimum`/`maximum`, which schemars writes too.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::JsonObject;
use serde_json::Value;

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

/// Removes every non-standard `format` from the router's input and output schemas.
pub(super) fn standard_formats_only<S>(router: &mut ToolRouter<S>) {
    for route in router.map.values_mut() {
        clean(std::sync::Arc::make_mut(&mut route.attr.input_schema));
        if let Some(output) = &mut route.attr.output_schema {
            clean(std::sync::Arc::make_mut(output));
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
