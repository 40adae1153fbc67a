//! Reading back the JSON the service writes (the journal's records and payloads, the control
//! API's answers). serde_json refuses JSON nested more than 128 levels by default, and the
//! record of blocks nested near `MAX_NESTING` takes more — two levels a block, then, under
//! the deepest, its preview's link or table — so an edit the model accepted could be merged,
//! then never read back. JSON is read here up to [`MAX_JSON_DEPTH`] levels, counted before
//! parsing so that the parse's recursion stays bounded (a runtime thread's 2 MiB stack parses
//! more than 800 levels even in a debug build), and the journal refuses to write deeper.
//!
//! `MAX_JSON_DEPTH` is 4 × `MAX_NESTING`.

use docs_client::blocknote::MAX_NESTING;
use serde::de::{DeserializeOwned, Error as _};

/// The deepest JSON the service writes to its journal and reads back: four levels per level
/// of blocks, twice what blocks nested [`MAX_NESTING`] deep and their envelopes take.
pub const MAX_JSON_DEPTH: usize = 4 * MAX_NESTING;

/// `serde_json::from_str`, for JSON up to [`MAX_JSON_DEPTH`] levels deep.
pub fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    check_depth(text)?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.disable_recursion_limit();
    let value = T::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// An error when `text` nests arrays and objects deeper than [`MAX_JSON_DEPTH`].
pub fn check_depth(text: &str) -> serde_json::Result<()> {
    let depth = depth(text.as_bytes());
    if depth > MAX_JSON_DEPTH {
        return Err(serde_json::Error::custom(format!(
            "JSON nested {depth} levels deep, deeper than the limit of {MAX_JSON_DEPTH}"
        )));
    }
    Ok(())
}

/// How deep arrays and objects nest in `json`, strings skipped. Of invalid JSON, exact up to
/// where a parser stops.
fn depth(json: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &byte in json {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn nested(levels: usize) -> String {
        "[".repeat(levels) + &"]".repeat(levels)
    }

    #[test]
    fn depth_counts_arrays_and_objects_not_brackets_in_strings() {
        assert_eq!(depth(b"1"), 0);
        assert_eq!(depth(br#"{"a":[1,{"b":"[[[{"}],"c":"\"[["}"#), 3);
        assert_eq!(depth(nested(300).as_bytes()), 300);
    }

    #[test]
    fn json_deeper_than_serde_jsons_default_reads_up_to_the_limit_only() {
        assert!(serde_json::from_str::<Value>(&nested(200)).is_err());
        let read: Value = from_str(&nested(MAX_JSON_DEPTH)).unwrap();
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            nested(MAX_JSON_DEPTH)
        );
        let error = from_str::<Value>(&nested(MAX_JSON_DEPTH + 1)).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "JSON nested {} levels deep, deeper than the limit of {MAX_JSON_DEPTH}",
                MAX_JSON_DEPTH + 1
            )
        );
        // Still a whole document, and typed.
        assert!(from_str::<Value>("[] []").is_err());
        assert_eq!(from_str::<Vec<u8>>("[1, 2]").unwrap(), [1, 2]);
        assert_eq!(from_str::<Value>(r#"{"a": 1}"#).unwrap(), json!({"a": 1}));
    }
}
