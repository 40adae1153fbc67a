//! Tool arguments, decoded so that a wrong one is an `INVALID_INPUT` the agent can act on —
//! which field, what was expected — like every other tool error, instead of the SDK's
//! generic "failed to deserialize parameters". Tools take `Parameters<T>` (the input schema
//! is `T`'s) and start with `let args = args?;`.

use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::errors::ToolError;
use crate::error::ServiceError;

/// A tool's arguments, or why they are not valid.
pub struct Parameters<T>(pub Result<T, ToolError>);

impl<T: JsonSchema> JsonSchema for Parameters<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

impl<S, T: DeserializeOwned> FromContextPart<ToolCallContext<'_, S>> for Parameters<T> {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, rmcp::ErrorData> {
        let arguments = serde_json::Value::Object(context.arguments.take().unwrap_or_default());
        Ok(Parameters(decode(&context.name, arguments)))
    }
}

/// Decodes `arguments` for `tool`, naming the field at fault.
fn decode<T: DeserializeOwned>(tool: &str, arguments: serde_json::Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(arguments).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner().to_string();
        // serde_json says where in its own text; the field path is what helps here.
        let inner = inner
            .split(" at line ")
            .next()
            .unwrap_or(&inner)
            .to_owned();
        let message = if path == "." {
            format!("invalid arguments for {tool}: {inner}")
        } else {
            format!("invalid argument `{path}` for {tool}: {inner}")
        };
        ServiceError::invalid(
            message,
            format!("Fix that argument and call {tool} again; its input schema lists every field and its type."),
        )
        .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Args {
        document: String,
        max_chars: Option<u64>,
        position: Option<Position>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    #[serde(rename_all = "snake_case")]
    enum At {
        Start,
        End,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Position {
        at: At,
    }

    fn message(arguments: serde_json::Value) -> (String, String) {
        let ToolError(info) = decode::<Args>("read_document", arguments).unwrap_err();
        assert_eq!(info.code, "INVALID_INPUT");
        (info.message, info.hint)
    }

    #[test]
    fn the_field_at_fault_is_named() {
        assert_eq!(
            message(serde_json::json!({})).0,
            "invalid arguments for read_document: missing field `document`"
        );
        assert_eq!(
            message(serde_json::json!({"document": 5})).0,
            "invalid argument `document` for read_document: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            message(serde_json::json!({"document": "d", "max_chars": -3})).0,
            "invalid argument `max_chars` for read_document: invalid value: integer `-3`, expected u64"
        );
        let (unknown, hint) =
            message(serde_json::json!({"document": "d", "position": {"at": "middle"}}));
        assert_eq!(
            unknown,
            "invalid argument `position.at` for read_document: unknown variant `middle`, expected `start` or `end`"
        );
        assert_eq!(
            hint,
            "Fix that argument and call read_document again; its input schema lists every field and its type."
        );
    }
}
