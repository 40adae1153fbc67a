//! The agents that used each open document since its session opened: the Sessions screen
//! says who has a document open, not only that the service does (a session is shared by
//! every agent that reads or edits the document).
//!
//! Most recent first; forgotten with the session.

use std::collections::HashMap;
use std::sync::Mutex;

use uuid::Uuid;

/// Names kept per document; older ones drop off.
const NAMES_KEPT: usize = 8;

#[derive(Default)]
pub(super) struct DocumentUsers(Mutex<HashMap<Uuid, Vec<String>>>);

impl DocumentUsers {
    /// `name` used document `id`; a new session forgets the previous one's agents. Whether
    /// the list changed (the screen is told only then, not at every call).
    pub(super) fn used(&self, id: Uuid, name: &str, new_session: bool) -> bool {
        let mut users = self.0.lock().expect("document users");
        let names = users.entry(id).or_default();
        if new_session {
            names.clear();
        }
        if names.first().is_some_and(|first| first == name) {
            return false;
        }
        names.retain(|n| n != name);
        names.insert(0, name.to_owned());
        names.truncate(NAMES_KEPT);
        true
    }

    /// The agents of each document still `open`, most recent first; the others are forgotten.
    pub(super) fn of_open(&self, open: impl Fn(Uuid) -> bool) -> HashMap<Uuid, Vec<String>> {
        let mut users = self.0.lock().expect("document users");
        users.retain(|id, _| open(*id));
        users.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_most_recent_first_once_each_and_a_new_session_starts_over() {
        let users = DocumentUsers::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        assert!(users.used(a, "Claude Code", true));
        assert!(
            !users.used(a, "Claude Code", false),
            "the same agent again changes nothing"
        );
        assert!(users.used(a, "Cursor", false));
        assert!(users.used(a, "Claude Code", false));
        assert!(users.used(b, "Codex", true));
        let all = users.of_open(|_| true);
        assert_eq!(all[&a], ["Claude Code", "Cursor"]);
        assert_eq!(all[&b], ["Codex"]);

        users.used(a, "Zed", true);
        assert_eq!(
            users.of_open(|id| id == a),
            HashMap::from([(a, vec!["Zed".to_owned()])])
        );
        assert!(
            !users.of_open(|_| true).contains_key(&b),
            "a closed session's agents are forgotten"
        );
    }

    #[test]
    fn at_most_a_few_names_are_kept() {
        let users = DocumentUsers::default();
        let id = Uuid::new_v4();
        for i in 0..20 {
            users.used(id, &format!("agent {i}"), false);
        }
        let names = &users.of_open(|_| true)[&id];
        assert_eq!(names.len(), NAMES_KEPT);
        assert_eq!(names[0], "agent 19");
    }
}
