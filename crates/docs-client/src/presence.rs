//! How we appear in Docs' collaborator list: an awareness state `{"user": {name, color}}`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Presence {
    pub name: String,
    /// `#rrggbb`, as Docs' editor uses for carets and avatars.
    pub color: String,
}

/// Colours that read well on Docs' white background.
const PALETTE: [&str; 8] = [
    "#8b5cf6", "#0ea5e9", "#10b981", "#f59e0b", "#ef4444", "#ec4899", "#6366f1", "#14b8a6",
];

impl Presence {
    /// A presence whose colour is derived from the name, so an agent keeps its colour.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let hash = name
            .bytes()
            .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
        let color = PALETTE[hash as usize % PALETTE.len()].to_owned();
        Presence { name, color }
    }

    pub(crate) fn awareness_state(&self) -> serde_json::Value {
        serde_json::json!({ "user": { "name": self.name, "color": self.color } })
    }

    /// The user name in a remote awareness state (JSON), if it has one.
    pub(crate) fn name_in(state_json: &str) -> Option<String> {
        let value: serde_json::Value = serde_json::from_str(state_json).ok()?;
        value.get("user")?.get("name")?.as_str().map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_shape_and_stable_colour() {
        let p = Presence::new("Claude");
        assert_eq!(p, Presence::new("Claude"));
        assert_eq!(
            p.awareness_state(),
            serde_json::json!({"user": {"name": "Claude", "color": p.color}})
        );
        assert!(PALETTE.contains(&p.color.as_str()));
        assert_eq!(
            Presence::name_in(r##"{"user":{"name":"Ada","color":"#fff"},"cursor":null}"##),
            Some("Ada".into())
        );
        assert_eq!(Presence::name_in("null"), None);
    }
}
