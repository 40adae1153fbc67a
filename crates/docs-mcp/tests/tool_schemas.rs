//! Tool definitions are an interface: each tool's schema is snapshotted (a change shows up
//! in review; `INSTA_UPDATE=always cargo test -p docs-mcp --test tool_schemas` accepts it),
//! and the tool reference in `docs/tools.md` is generated from the definitions
//! (`UPDATE_TOOL_DOCS=1 cargo test -p docs-mcp --test tool_schemas` rewrites it).

use std::fmt::Write as _;
use std::path::PathBuf;

use docs_mcp::{DocsMcp, DocsService, ServiceConfig};
use serde_json::Value;

fn tools() -> Vec<rmcp::model::Tool> {
    let dir = std::env::temp_dir().join(format!("docs-mcp-schemas-{}", uuid::Uuid::new_v4()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let service = runtime
        .block_on(DocsService::start(ServiceConfig::new(dir.clone())))
        .unwrap();
    let mut tools = DocsMcp::new(service.clone(), "schemas").tools();
    runtime.block_on(service.shutdown());
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    std::fs::remove_dir_all(dir).unwrap();
    tools
}

#[test]
fn every_tool_schema_matches_its_snapshot() {
    for tool in tools() {
        let value = serde_json::to_value(&tool).unwrap();
        insta::assert_json_snapshot!(tool.name.to_string(), value);
    }
}

/// What MCP clients demand of a tool's schemas (the TypeScript SDK's `ToolSchema` refuses the
/// whole tool list otherwise): an object at the root, and every property an object schema
/// (`true`, which schemars makes of `serde_json::Value`, is refused).
#[test]
fn every_schema_is_an_object_whose_properties_are_object_schemas() {
    for tool in tools() {
        let mut schemas = vec![("input", serde_json::to_value(&*tool.input_schema).unwrap())];
        if let Some(output) = &tool.output_schema {
            schemas.push(("output", serde_json::to_value(&**output).unwrap()));
        }
        for (kind, schema) in schemas {
            assert_eq!(schema["type"], "object", "{} {kind}", tool.name);
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                assert!(
                    property.is_object(),
                    "{} {kind} schema: property {name} is {property}, not an object schema",
                    tool.name
                );
            }
        }
    }
}

/// Every schema inside a schema (under properties, items, `$defs`, `anyOf`…), with its path.
fn subschemas<'a>(schema: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    out.push((path.clone(), schema));
    let Value::Object(object) = schema else {
        return;
    };
    for (key, value) in object {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "patternProperties", Value::Object(named)) => {
                for (name, sub) in named {
                    subschemas(sub, format!("{path}.{key}.{name}"), out);
                }
            }
            ("items" | "additionalProperties" | "not" | "contains", sub) => {
                subschemas(sub, format!("{path}.{key}"), out)
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(options)) => {
                for (i, sub) in options.iter().enumerate() {
                    subschemas(sub, format!("{path}.{key}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
}

/// What a strict client checks (the MCP Inspector's `--strict`): no schema is a bare
/// boolean where an item or a property is described (`additionalProperties: true` says
/// "any other key", and stays), and no input says `null` — an optional argument is one
/// left out. (Outputs may: a field answered `null` must validate.)
#[test]
fn schemas_pass_a_strict_clients_checks() {
    for tool in tools() {
        let input = serde_json::to_value(&*tool.input_schema).unwrap();
        let output = tool
            .output_schema
            .as_ref()
            .map(|output| serde_json::to_value(&**output).unwrap());
        let mut found = vec![];
        subschemas(&input, "input".into(), &mut found);
        if let Some(output) = &output {
            subschemas(output, "output".into(), &mut found);
        }
        for (path, schema) in found {
            assert!(
                schema.is_object() || path.ends_with(".additionalProperties"),
                "{} {path}: a bare {schema} schema",
                tool.name
            );
            if path.starts_with("input") {
                let says_null = schema.get("type").is_some_and(|t| {
                    t == "null" || t.as_array().is_some_and(|a| a.iter().any(|t| t == "null"))
                }) || schema.get("default").is_some_and(Value::is_null)
                    || schema.get("enum").is_some_and(|e| {
                        e.as_array().is_some_and(|a| a.iter().any(Value::is_null))
                    });
                assert!(!says_null, "{} {path}: says null: {schema}", tool.name);
            }
        }
    }
}

fn type_of(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => format!(
            "array of {}",
            schema
                .get("items")
                .map(type_of)
                .unwrap_or_else(|| "any".into())
        ),
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join(" or "),
        _ if schema.get("enum").is_some() => "string".into(),
        _ if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() => {
            "one of several shapes".into()
        }
        _ => "any".into(),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn render(tools: &[rmcp::model::Tool]) -> String {
    let mut out = String::from(
        "# Tool reference\n\n<!-- Generated from the tool definitions by `UPDATE_TOOL_DOCS=1 cargo test -p docs-mcp --test tool_schemas`. Do not edit. -->\n\n",
    );
    out.push_str("| tool | kind | what it does |\n|---|---|---|\n");
    for tool in tools {
        let hints = tool.annotations.clone().unwrap_or_default();
        let kind = match (hints.read_only_hint, hints.destructive_hint) {
            (Some(true), _) => "read",
            (_, Some(true)) => "write (destructive)",
            _ => "write",
        };
        let description = one_line(tool.description.as_deref().unwrap_or_default());
        let first = description
            .split(". ")
            .next()
            .unwrap_or_default()
            .trim_end_matches('.');
        writeln!(out, "| `{}` | {kind} | {first}. |", tool.name).unwrap();
    }
    for tool in tools {
        writeln!(
            out,
            "\n## `{}`\n\n{}\n",
            tool.name,
            one_line(tool.description.as_deref().unwrap_or_default())
        )
        .unwrap();
        let schema = serde_json::to_value(&*tool.input_schema).unwrap();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = schema["properties"].as_object().filter(|p| !p.is_empty()) else {
            out.push_str("No arguments.\n");
            continue;
        };
        out.push_str("| argument | type | required | description |\n|---|---|---|---|\n");
        for (name, property) in properties {
            writeln!(
                out,
                "| `{name}` | {} | {} | {} |",
                type_of(property),
                if required.contains(&name.as_str()) {
                    "yes"
                } else {
                    "no"
                },
                one_line(property["description"].as_str().unwrap_or_default()).replace('|', "\\|")
            )
            .unwrap();
        }
    }
    out
}

#[test]
fn the_tool_reference_is_generated_from_the_definitions() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/tools.md");
    let rendered = render(&tools());
    if std::env::var_os("UPDATE_TOOL_DOCS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &rendered).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == rendered,
        "docs/tools.md is out of date: run `UPDATE_TOOL_DOCS=1 cargo test -p docs-mcp --test tool_schemas`"
    );
}
