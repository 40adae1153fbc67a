//! Notifications of new pending edits, one per burst: an agent proposing twelve edits at once
//! raises "12 new edits from Claude in Plan", not twelve notifications. The person's own
//! actions are never announced (their undo is never pending).
//!
//! A burst is what comes within `BURST_WINDOW` (1.5 s).

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

/// How long after the first new edit of a burst its notification waits for more.
pub const BURST_WINDOW: Duration = Duration::from_millis(1500);
/// Most edits a burst keeps the names of; the count stays exact beyond.
const KEPT: usize = 256;

/// A new pending edit, as a notification names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEdit {
    pub agent: String,
    pub document: String,
}

/// What a notification says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub title: String,
    pub body: String,
}

/// The burst being gathered.
#[derive(Default)]
pub struct Bursts {
    burst: Mutex<Burst>,
}

#[derive(Default)]
struct Burst {
    edits: Vec<NewEdit>,
    count: usize,
}

impl Bursts {
    /// Adds a new edit to the burst; true when it starts one (the caller then calls
    /// [`Bursts::finish`] after [`BURST_WINDOW`]).
    pub fn add(&self, edit: NewEdit) -> bool {
        let mut burst = self.burst.lock().expect("burst");
        burst.count += 1;
        if burst.edits.len() < KEPT {
            burst.edits.push(edit);
        }
        burst.count == 1
    }

    /// Ends the burst: the notice that tells of it, if it had any edit.
    pub fn finish(&self) -> Option<Notice> {
        let burst = std::mem::take(&mut *self.burst.lock().expect("burst"));
        (burst.count > 0).then(|| notice(&burst.edits, burst.count))
    }
}

/// The notice of `count` new edits, of which `edits` are named.
pub fn notice(edits: &[NewEdit], count: usize) -> Notice {
    let agents: BTreeSet<&str> = edits.iter().map(|e| e.agent.as_str()).collect();
    let documents: BTreeSet<&str> = edits.iter().map(|e| e.document.as_str()).collect();
    let first = &edits[0];
    if count == 1 {
        return Notice {
            title: format!("{} wants to edit {}", first.agent, first.document),
            body: "Open Docs MCP to approve or reject the edit.".into(),
        };
    }
    let body = "Open Docs MCP to approve or reject them.".to_owned();
    let place = match documents.len() {
        1 => format!("in {}", first.document),
        n => format!("in {n} documents"),
    };
    match agents.len() {
        1 => Notice {
            title: format!("{count} new edits from {} {place}", first.agent),
            body,
        },
        _ => Notice {
            title: format!("{count} new edits {place}"),
            body: format!("From {}. {body}", names(&agents)),
        },
    }
}

/// The notice of applied edits the document no longer has (Docs lost them before a save, and
/// they could not be applied again): `count` of them in `document`.
pub fn lost(count: usize, document: &str) -> Notice {
    Notice {
        title: match count {
            1 => format!("An applied edit is not in {document}"),
            n => format!("{n} applied edits are not in {document}"),
        },
        body: match count {
            1 => "Docs lost it before saving it, and it could not be applied again. History says why.",
            _ => "Docs lost them before saving them, and they could not be applied again. History says why.",
        }
        .into(),
    }
}

/// What the quit says when it left applied edits unsaved (`None` when it saved everything):
/// how many documents, and why, the first document's reason standing for the others'.
pub fn left_unsaved(report: &docs_mcp::StopReport) -> Option<Notice> {
    let first = report.left.first()?;
    let edits: usize = report.left.iter().map(|l| l.edits).sum();
    let title = match (report.left.len(), edits) {
        (1, 1) => "An applied edit is not saved in Docs yet".to_owned(),
        (1, n) => format!("{n} applied edits are not saved in Docs yet"),
        (documents, n) => {
            format!("{n} applied edits in {documents} documents are not saved in Docs yet")
        }
    };
    let them = if edits == 1 { "it" } else { "them" };
    Some(Notice {
        title,
        body: format!(
            "Docs MCP saves {them} when it starts again. Not saved now: {}.",
            first.reason
        ),
    })
}

/// "A, B and C", or "A, B, C and 2 others".
fn names(names: &BTreeSet<&str>) -> String {
    const SHOWN: usize = 3;
    let listed: Vec<&str> = names.iter().take(SHOWN).copied().collect();
    let others = names.len().saturating_sub(SHOWN);
    match (listed.as_slice(), others) {
        ([one], 0) => (*one).to_owned(),
        (all, 0) => format!(
            "{} and {}",
            all[..all.len() - 1].join(", "),
            all[all.len() - 1]
        ),
        (all, 1) => format!("{} and 1 other", all.join(", ")),
        (all, n) => format!("{} and {n} others", all.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(agent: &str, document: &str) -> NewEdit {
        NewEdit {
            agent: agent.into(),
            document: document.into(),
        }
    }

    #[test]
    fn one_edit_is_named() {
        let bursts = Bursts::default();
        assert!(bursts.add(edit("Claude", "Plan")));
        assert_eq!(
            bursts.finish(),
            Some(Notice {
                title: "Claude wants to edit Plan".into(),
                body: "Open Docs MCP to approve or reject the edit.".into(),
            })
        );
        assert_eq!(bursts.finish(), None, "a finished burst is gone");
    }

    #[test]
    fn a_burst_is_one_notice_counting_every_edit() {
        let bursts = Bursts::default();
        assert!(bursts.add(edit("Claude", "Plan")));
        for _ in 0..4 {
            assert!(
                !bursts.add(edit("Claude", "Plan")),
                "the burst is under way"
            );
        }
        let notice = bursts.finish().unwrap();
        assert_eq!(notice.title, "5 new edits from Claude in Plan");
        assert_eq!(notice.body, "Open Docs MCP to approve or reject them.");
        // The next edit starts a new burst.
        assert!(bursts.add(edit("Claude", "Plan")));
    }

    #[test]
    fn bursts_across_documents_and_agents_say_so() {
        let edits = [edit("Claude", "Plan"), edit("Claude", "Notes")];
        assert_eq!(
            notice(&edits, 2).title,
            "2 new edits from Claude in 2 documents"
        );
        let edits = [
            edit("Claude", "Plan"),
            edit("Cursor", "Plan"),
            edit("Codex", "Plan"),
        ];
        let both = notice(&edits, 3);
        assert_eq!(both.title, "3 new edits in Plan");
        assert_eq!(
            both.body,
            "From Claude, Codex and Cursor. Open Docs MCP to approve or reject them."
        );
        let many: Vec<NewEdit> = (0..6)
            .map(|i| edit(&format!("A{i}"), &format!("D{i}")))
            .collect();
        let notice = notice(&many, 300);
        assert_eq!(notice.title, "300 new edits in 6 documents");
        assert!(
            notice.body.starts_with("From A0, A1, A2 and 3 others."),
            "{}",
            notice.body
        );
    }

    #[test]
    fn applied_edits_docs_lost_are_counted_in_their_document() {
        assert_eq!(
            lost(1, "Plan"),
            Notice {
                title: "An applied edit is not in Plan".into(),
                body: "Docs lost it before saving it, and it could not be applied again. History says why.".into(),
            }
        );
        assert_eq!(lost(3, "Plan").title, "3 applied edits are not in Plan");
    }

    #[test]
    fn a_quit_that_left_edits_unsaved_says_how_many_and_why() {
        use docs_mcp::{LeftUnsaved, StopReport};
        assert_eq!(left_unsaved(&StopReport::default()), None);
        let left = |edits: usize| LeftUnsaved {
            document_id: uuid::Uuid::new_v4(),
            document_title: Some("Plan".into()),
            edits,
            reason: "the Docs instance is throttling requests; retry in 42 s".into(),
        };
        let one = left_unsaved(&StopReport {
            left: vec![left(1)],
        })
        .unwrap();
        assert_eq!(
            one,
            Notice {
                title: "An applied edit is not saved in Docs yet".into(),
                body: "Docs MCP saves it when it starts again. Not saved now: the Docs instance is throttling requests; retry in 42 s.".into(),
            }
        );
        let many = left_unsaved(&StopReport {
            left: vec![left(2), left(3)],
        })
        .unwrap();
        assert_eq!(
            many.title,
            "5 applied edits in 2 documents are not saved in Docs yet"
        );
    }

    #[test]
    fn a_huge_burst_keeps_a_bounded_list_and_an_exact_count() {
        let bursts = Bursts::default();
        for i in 0..10_000 {
            bursts.add(edit("Claude", &format!("Doc {}", i % 3)));
        }
        assert_eq!(bursts.burst.lock().unwrap().edits.len(), KEPT);
        assert_eq!(
            bursts.finish().unwrap().title,
            "10000 new edits from Claude in 3 documents"
        );
    }
}
