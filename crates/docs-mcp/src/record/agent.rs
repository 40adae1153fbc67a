//! Who asked for an edit (`AgentInfo`: a cleaned, capped name, self-reported or the configured
//! client's), and `visible`: text with control characters made visible, for printing.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Who asked for an edit: the MCP client's name and the connection it came through.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentInfo {
    pub name: String,
    pub connection: String,
    /// The configured client whose token made the call: `name` is then the name the person
    /// gave it. `None`: `name` is what the agent calls itself (the shared token, stdio).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub client_id: Option<Uuid>,
    /// With a configured client: what the agent calls itself, when that differs.
    #[serde(default)]
    pub reported_name: Option<String>,
}

/// Longest agent name kept, in characters.
pub const MAX_AGENT_NAME_CHARS: usize = 64;

impl AgentInfo {
    /// An agent as it names itself: the name is the client's own claim (MCP `clientInfo`),
    /// shown on cards, in notifications and to the document's collaborators, so it is
    /// cleaned: control and bidirectional-override characters removed, whitespace collapsed,
    /// at most [`MAX_AGENT_NAME_CHARS`]; `fallback` when nothing is left.
    pub fn new(name: &str, connection: impl Into<String>, fallback: &str) -> Self {
        let cleaned = clean_name(name);
        AgentInfo {
            name: if cleaned.is_empty() {
                clean_name(fallback)
            } else {
                cleaned
            },
            connection: connection.into(),
            client_id: None,
            reported_name: None,
        }
    }

    /// An agent calling with the token of a client a person configured: named as they named
    /// it, with what it calls itself (`reported`, cleaned) beside when that differs.
    pub fn configured(
        client: &crate::clients::AgentClient,
        reported: &str,
        connection: impl Into<String>,
    ) -> Self {
        let reported = clean_name(reported);
        AgentInfo {
            name: client.name.clone(),
            connection: connection.into(),
            client_id: Some(client.id),
            reported_name: (!reported.is_empty() && reported != client.name).then_some(reported),
        }
    }
}

/// `name` without control, format (bidi overrides, zero-width) characters, with whitespace
/// runs collapsed to one space, trimmed and cut to [`MAX_AGENT_NAME_CHARS`] (an ellipsis
/// marks the cut).
pub(crate) fn clean_name(name: &str) -> String {
    let is_invisible = |c: char| {
        c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{061C}')
    };
    let words: Vec<&str> = name
        .split(|c: char| c.is_whitespace() || is_invisible(c))
        .filter(|w| !w.is_empty())
        .collect();
    let joined = words.join(" ");
    if joined.chars().count() <= MAX_AGENT_NAME_CHARS {
        return joined;
    }
    let mut cut: String = joined.chars().take(MAX_AGENT_NAME_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// `text` with every control character (escape sequences that would clear the screen, move
/// the cursor or rewrite what the person reads), bidirectional override and zero-width
/// character made visible as `\u{..}`: what an agent wrote is printed, never obeyed by the
/// terminal.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let hidden = c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{061C}');
        if hidden {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
