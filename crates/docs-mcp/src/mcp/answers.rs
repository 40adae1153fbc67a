//! The last answers of `read_document`, kept per MCP session: the same read of a document at
//! the same revision (nothing changed since, deletions included) is answered again without
//! rendering the markdown again. An agent reads the same page again more often than not (after
//! an edit of another document, to check, to continue from the top); the answer is the same
//! bytes, so the work is not done twice.
//!
//! Bounded: a few answers, each small enough, the newest kept; the answers of a document
//! at an older revision are dropped as soon as it is read at a newer one, and all of it when the
//! agent writes to it. An answer given again tells the read memory nothing new: it holds what
//! the answer read, at its revision, unless the agent wrote since (fewer answers are kept than
//! documents remembered, and each answer was remembered when made).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

/// Answers kept per session.
const MAX_ANSWERS: usize = 8;
/// Answers longer than this (in characters of markdown or JSON) are not kept.
const MAX_ANSWER_CHARS: usize = 1 << 20;

/// What identifies a read: the document at an exact revision, and every argument the answer
/// depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadKey {
    pub document: Uuid,
    pub revision: String,
    /// The rest of the arguments, as given (the budget clamped).
    pub asked: String,
}

pub struct Answers<R> {
    kept: Mutex<VecDeque<(ReadKey, Arc<R>)>>,
}

impl<R> Default for Answers<R> {
    fn default() -> Self {
        Answers {
            kept: Mutex::new(VecDeque::new()),
        }
    }
}

impl<R> Answers<R> {
    /// The answer given to `key` before, if kept.
    pub fn get(&self, key: &ReadKey) -> Option<Arc<R>> {
        let mut kept = self.kept.lock().expect("answers");
        // Answers of this document at another revision will never be asked again.
        kept.retain(|(k, _)| k.document != key.document || k.revision == key.revision);
        let at = kept.iter().position(|(k, _)| k == key)?;
        let entry = kept.remove(at).expect("found above");
        let answer = entry.1.clone();
        kept.push_front(entry);
        Some(answer)
    }

    /// Forgets the answers about `document` (the agent wrote to it).
    pub fn forget(&self, document: Uuid) {
        let mut kept = self.kept.lock().expect("answers");
        kept.retain(|(k, _)| k.document != document);
    }

    /// Keeps `answer` to `key` when it is small enough (`chars` long).
    pub fn keep(&self, key: ReadKey, answer: R, chars: usize) {
        if chars > MAX_ANSWER_CHARS {
            return;
        }
        let mut kept = self.kept.lock().expect("answers");
        kept.retain(|(k, _)| k.document != key.document || k.revision == key.revision);
        kept.retain(|(k, _)| k != &key);
        kept.push_front((key, Arc::new(answer)));
        kept.truncate(MAX_ANSWERS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(document: Uuid, revision: &str, asked: &str) -> ReadKey {
        ReadKey {
            document,
            revision: revision.into(),
            asked: asked.into(),
        }
    }

    fn answer(result: &str) -> String {
        result.into()
    }

    #[test]
    fn an_answer_is_given_again_for_the_same_read_at_the_same_revision_only() {
        let answers = Answers::default();
        let doc = Uuid::new_v4();
        answers.keep(key(doc, "e-1", "page"), answer("first"), 5);
        let again = answers.get(&key(doc, "e-1", "page")).expect("kept");
        assert_eq!(*again, "first");
        assert!(answers.get(&key(doc, "e-1", "other page")).is_none());
        // Read at a newer revision: the older answers go.
        assert!(answers.get(&key(doc, "e-2", "page")).is_none());
        assert!(answers.get(&key(doc, "e-1", "page")).is_none());
    }

    #[test]
    fn answers_are_few_and_small() {
        let answers = Answers::default();
        let doc = Uuid::new_v4();
        answers.keep(key(doc, "e-1", "big"), answer("big"), MAX_ANSWER_CHARS + 1);
        assert!(answers.get(&key(doc, "e-1", "big")).is_none());
        for i in 0..=MAX_ANSWERS {
            answers.keep(key(doc, "e-1", &i.to_string()), answer("a"), 1);
        }
        assert!(
            answers.get(&key(doc, "e-1", "0")).is_none(),
            "the oldest went"
        );
        assert!(answers.get(&key(doc, "e-1", "1")).is_some());
        // Another document's answers stay when this one changes.
        let other = Uuid::new_v4();
        answers.keep(key(other, "f-1", "page"), answer("other"), 1);
        assert!(answers.get(&key(doc, "e-9", "page")).is_none());
        assert!(answers.get(&key(other, "f-1", "page")).is_some());
        // The agent writes to it: its answers go.
        answers.forget(other);
        assert!(answers.get(&key(other, "f-1", "page")).is_none());
    }
}
