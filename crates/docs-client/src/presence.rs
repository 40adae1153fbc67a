//! How we appear in Docs' collaborator list: an awareness state `{"user": {name, color}}`,
//! with, after a change to a comment thread, the `commentsPing` Docs' editors watch, and
//! `mendsChildGroups`: this client re-creates blocks given two child groups (see
//! `blocknote::groups`; of the clients that say so, one does it, lest each make a copy).
//!
//! The state is `{user: {name, color}, mendsChildGroups: true}`; of the sessions that say they mend
//! child groups, the one of lowest client id does. `commentsPing` `{at, docId, threadId}` is set by
//! `DocumentSession::ping_comments` (how Docs' editors tell each other to reload a thread), and
//! `set_presence` keeps it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Presence {
    pub name: String,
    /// `#rrggbb`, as Docs' editor uses for carets and avatars.
    pub color: String,
    /// The last comment ping announced (see [`CommentsPing`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comments_ping: Option<CommentsPing>,
}

/// How Docs' editors tell each other that a comment thread changed: the awareness field
/// `commentsPing` `{at, docId, threadId}`. An editor seeing a ping of another client, for its
/// document and newer than the last it saw (`at`, milliseconds since the epoch), reloads that
/// thread from REST (every thread when `threadId` is absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentsPing {
    pub at: u64,
    pub doc_id: String,
    pub thread_id: Option<String>,
}

/// The awareness field of clients that mend child groups.
const MENDS_CHILD_GROUPS: &str = "mendsChildGroups";

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
        Presence {
            name,
            color,
            comments_ping: None,
        }
    }

    pub(crate) fn awareness_state(&self) -> serde_json::Value {
        let mut state = serde_json::json!({
            "user": { "name": self.name, "color": self.color },
            MENDS_CHILD_GROUPS: true,
        });
        if let Some(ping) = &self.comments_ping {
            let mut field = serde_json::json!({ "at": ping.at, "docId": ping.doc_id });
            if let Some(thread) = &ping.thread_id {
                field["threadId"] = thread.as_str().into();
            }
            state["commentsPing"] = field;
        }
        state
    }

    /// Whether a remote awareness state (JSON) is of a client that mends child groups.
    pub(crate) fn mends_in(state_json: &str) -> bool {
        serde_json::from_str::<serde_json::Value>(state_json)
            .is_ok_and(|state| state[MENDS_CHILD_GROUPS] == true)
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
            serde_json::json!({"user": {"name": "Claude", "color": p.color}, "mendsChildGroups": true})
        );
        assert!(Presence::mends_in(&p.awareness_state().to_string()));
        assert!(!Presence::mends_in(
            r##"{"user":{"name":"Ada","color":"#fff"}}"##
        ));
        assert!(PALETTE.contains(&p.color.as_str()));
        assert_eq!(
            Presence::name_in(r##"{"user":{"name":"Ada","color":"#fff"},"cursor":null}"##),
            Some("Ada".into())
        );
        assert_eq!(Presence::name_in("null"), None);
    }

    #[test]
    fn a_comments_ping_is_docs_awareness_field() {
        let mut p = Presence::new("Claude");
        p.comments_ping = Some(CommentsPing {
            at: 1700000000000,
            doc_id: "d".into(),
            thread_id: Some("t".into()),
        });
        assert_eq!(
            p.awareness_state()["commentsPing"],
            serde_json::json!({"at": 1700000000000u64, "docId": "d", "threadId": "t"})
        );
        p.comments_ping.as_mut().unwrap().thread_id = None;
        assert_eq!(
            p.awareness_state()["commentsPing"],
            serde_json::json!({"at": 1700000000000u64, "docId": "d"})
        );
    }
}
