//! Decisions asked over the control channel (`docs-mcp edits approve`, a `curl` to
//! `/control`): a token alone never decides. Each ask becomes a [`DecisionRequest`] the
//! service holds until a person settles it where the service says a person is:
//! - the app's window ([`PersonAt::Window`]): the window shows the request and only the
//!   person's click carries it out;
//! - a terminal ([`PersonAt::Terminal`], headless): the asker must run in a terminal, and a
//!   code the service shows there must be typed back. This raises the bar from one line to a
//!   deliberate circumvention (driving a terminal); it cannot close it for a program running
//!   as the same user — the app can.
//!
//! The requests are few and short-lived: in memory, bounded ([`MAX_WAITING`]), expiring.
//!
//! An `Action` is an approval, a rejection, a policy, unpausing, or a client added or revoked;
//! `ServiceConfig::person_at` says where the person is. At most 16 requests wait; the same waiting
//! action asked again is the same request; a request taken is `carrying_out`, so a second click
//! finds nothing.

use std::time::{Duration, Instant};

use serde::Serialize;
use uuid::Uuid;

use crate::peer::Asker;
use crate::record::{Policy, now_ms};

/// At most this many requests wait at once; more are refused until some are settled.
pub const MAX_WAITING: usize = 16;

/// How long a request waits for the person before it expires.
pub const REQUEST_TTL: Duration = Duration::from_secs(10 * 60);

/// How long a terminal's code can be typed back.
pub const CODE_TTL: Duration = Duration::from_secs(2 * 60);

/// How long a settled request stays readable by the one who asked.
const SETTLED_TTL: Duration = Duration::from_secs(10 * 60);

/// Where the person makes the decisions asked over the control channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonAt {
    /// The app's window: every decision is a click there.
    Window,
    /// A terminal (headless service): the asker's terminal, with a code typed back.
    Terminal,
}

/// A decision someone asked for.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    Approve {
        edit_id: Uuid,
        /// Only these parts (the others refused).
        #[cfg_attr(feature = "ts", ts(type = "Array<number> | null"))]
        parts: Option<Vec<usize>>,
    },
    Reject {
        edit_id: Uuid,
        comment: Option<String>,
    },
    SetPolicy {
        /// `None`: the default policy.
        document_id: Option<Uuid>,
        /// `None`: remove it.
        policy: Option<Policy>,
    },
    /// Let agents' edits through again (pausing needs no person: it only holds edits back).
    Unpause,
    AddClient {
        name: String,
    },
    RevokeClient {
        client_id: Uuid,
    },
}

/// Where a request stands.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum RequestState {
    /// Waiting for the person.
    Waiting,
    /// The person settled it; it is being carried out.
    CarryingOut,
    /// Carried out; `outcome` says how it ended (e.g. the edit's status).
    Done { outcome: String },
    /// The person declined it in the window.
    Declined,
    /// Nobody settled it in time, or a wrong code was typed.
    Expired { why: String },
    /// Carrying it out failed (e.g. the edit was decided meanwhile).
    Failed { error: crate::record::ErrorInfo },
}

/// A decision asked over the control channel, as the window and the asker see it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionRequest {
    pub id: Uuid,
    pub action: Action,
    /// What it does, in words: "Approve the edit of “Plan” by Claude Code (insert_blocks)".
    pub summary: String,
    /// Who asked, as the service found the caller (never as the caller says).
    pub asker: Asker,
    /// Milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub asked_at: i64,
    #[serde(flatten)]
    pub state: RequestState,
}

struct Entry {
    request: DecisionRequest,
    /// A terminal's code, while it may be typed back.
    code: Option<String>,
    asked: Instant,
    settled: Option<Instant>,
}

/// Why a request cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskRefused {
    /// [`MAX_WAITING`] requests wait already.
    TooMany,
}

/// The requests a service holds.
#[derive(Default)]
pub struct Requests {
    entries: std::sync::Mutex<Vec<Entry>>,
}

impl Requests {
    /// Holds a new request (the same waiting action asked again is the same request).
    pub fn ask(
        &self,
        action: Action,
        summary: String,
        asker: Asker,
        code: Option<String>,
    ) -> Result<DecisionRequest, AskRefused> {
        let mut entries = self.entries();
        if code.is_none()
            && let Some(same) = entries.iter().find(|e| {
                e.request.state == RequestState::Waiting
                    && e.request.action == action
                    && e.code.is_none()
            })
        {
            return Ok(same.request.clone());
        }
        let waiting = entries
            .iter()
            .filter(|e| e.request.state == RequestState::Waiting)
            .count();
        if waiting >= MAX_WAITING {
            return Err(AskRefused::TooMany);
        }
        let request = DecisionRequest {
            id: Uuid::new_v4(),
            action,
            summary,
            asker,
            asked_at: now_ms(),
            state: RequestState::Waiting,
        };
        entries.push(Entry {
            request: request.clone(),
            code,
            asked: Instant::now(),
            settled: None,
        });
        Ok(request)
    }

    /// The requests waiting for the person, oldest first.
    pub fn waiting(&self) -> Vec<DecisionRequest> {
        self.entries()
            .iter()
            .filter(|e| e.request.state == RequestState::Waiting && e.code.is_none())
            .map(|e| e.request.clone())
            .collect()
    }

    pub fn get(&self, id: Uuid) -> Option<DecisionRequest> {
        self.entries()
            .iter()
            .find(|e| e.request.id == id)
            .map(|e| e.request.clone())
    }

    /// Takes a waiting request to carry it out (it is no longer waiting: a second click or
    /// code finds nothing). `code`: the code typed back, for a terminal's request; a wrong
    /// one ends the request.
    pub fn take(&self, id: Uuid, code: Option<&str>) -> Result<DecisionRequest, TakeRefused> {
        let mut entries = self.entries();
        let entry = entries
            .iter_mut()
            .find(|e| e.request.id == id)
            .ok_or(TakeRefused::Unknown)?;
        if entry.request.state != RequestState::Waiting {
            return Err(TakeRefused::Settled(entry.request.state.clone()));
        }
        match (&entry.code, code) {
            (None, None) => {}
            (Some(expected), Some(typed)) if same_code(expected, typed) => {}
            (Some(_), Some(_)) => {
                settle(
                    entry,
                    RequestState::Expired {
                        why: "a wrong code was typed".into(),
                    },
                );
                return Err(TakeRefused::WrongCode);
            }
            // A terminal's request is settled by its code only; a window's by a click only.
            _ => return Err(TakeRefused::Unknown),
        }
        entry.code = None;
        entry.request.state = RequestState::CarryingOut;
        Ok(entry.request.clone())
    }

    /// Records how a request taken with [`Requests::take`] or declined ended.
    pub fn finish(&self, id: Uuid, state: RequestState) -> Option<DecisionRequest> {
        let mut entries = self.entries();
        let entry = entries.iter_mut().find(|e| e.request.id == id)?;
        settle(entry, state);
        Some(entry.request.clone())
    }

    /// Declines a waiting request (the person's "Decline" in the window).
    pub fn decline(&self, id: Uuid) -> Option<DecisionRequest> {
        let mut entries = self.entries();
        let entry = entries
            .iter_mut()
            .find(|e| e.request.id == id && e.request.state == RequestState::Waiting)?;
        settle(entry, RequestState::Declined);
        Some(entry.request.clone())
    }

    /// The entries, with those past their time expired or forgotten.
    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        let mut entries = self.entries.lock().expect("requests lock");
        let now = Instant::now();
        for entry in entries.iter_mut() {
            if entry.request.state != RequestState::Waiting {
                continue;
            }
            let ttl = if entry.code.is_some() {
                CODE_TTL
            } else {
                REQUEST_TTL
            };
            if now.duration_since(entry.asked) > ttl {
                settle(
                    entry,
                    RequestState::Expired {
                        why: "nobody settled it in time".into(),
                    },
                );
            }
        }
        entries.retain(|e| {
            e.settled
                .is_none_or(|t| now.duration_since(t) < SETTLED_TTL)
        });
        entries
    }
}

fn settle(entry: &mut Entry, state: RequestState) {
    entry.request.state = state;
    entry.code = None;
    entry.settled = Some(Instant::now());
}

/// Why a request cannot be carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TakeRefused {
    Unknown,
    Settled(RequestState),
    WrongCode,
}

/// Codes compared without regard to case or spacing, in time independent of where they
/// differ.
fn same_code(expected: &str, typed: &str) -> bool {
    let norm = |s: &str| -> Vec<u8> {
        s.bytes()
            .filter(|b| b.is_ascii_alphanumeric())
            .map(|b| b.to_ascii_uppercase())
            .collect()
    };
    let (a, b) = (norm(expected), norm(typed));
    a.len() == b.len() && a.iter().zip(&b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A code to type back: 8 characters a person reads without confusion (no 0/O, 1/I/L).
pub fn new_code() -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
    let mut rng = rand::rng();
    let chars: String = (0..8)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    format!("{}-{}", &chars[..4], &chars[4..])
}

/// Why a decision asked over the control channel was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    #[error(
        "a decision asked of a headless Docs MCP needs a person at a terminal; it was asked by {asker}"
    )]
    TerminalRequired { asker: String },
    #[error("{} decisions already wait for the person", MAX_WAITING)]
    TooMany,
    #[error("no decision request {id}")]
    UnknownRequest { id: String },
    #[error("decision request {id} is {state} already")]
    Settled { id: String, state: String },
    #[error("the code typed back is not the one shown: the request is cancelled")]
    WrongCode,
    #[error("the code could not be shown on the asker's terminal: {reason}")]
    TerminalUnreachable { reason: String },
    #[error("the code must be typed back by the process that asked, in its terminal")]
    NotTheAsker,
}

impl AskError {
    /// The control API's code for it.
    pub fn code(&self) -> &'static str {
        match self {
            AskError::TerminalRequired { .. } => "TERMINAL_REQUIRED",
            AskError::TooMany => "TOO_MANY_REQUESTS",
            AskError::UnknownRequest { .. } => "REQUEST_NOT_FOUND",
            AskError::Settled { .. } => "REQUEST_SETTLED",
            AskError::WrongCode => "WRONG_CODE",
            AskError::TerminalUnreachable { .. } => "TERMINAL_UNREACHABLE",
            AskError::NotTheAsker => "NOT_THE_ASKER",
        }
    }

    pub fn hint(&self) -> &'static str {
        match self {
            AskError::TerminalRequired { .. } => {
                "Run `docs-mcp edits approve|reject ID` yourself, in a terminal, and type back the code it shows. Agents with a shell cannot decide; where they have one, prefer the Docs MCP app: every decision is then a click in its window."
            }
            AskError::TooMany => {
                "Settle or decline the waiting requests (in the Docs MCP window), or wait for them to expire (10 minutes)."
            }
            AskError::UnknownRequest { .. } | AskError::Settled { .. } => {
                "Ask again: `docs-mcp edits approve|reject ID`."
            }
            AskError::WrongCode => {
                "Ask again, and type the code exactly as your terminal shows it."
            }
            AskError::TerminalUnreachable { .. } => {
                "Run the command in an ordinary terminal window."
            }
            AskError::NotTheAsker => "Type the code in the terminal that asked, at its prompt.",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approve(edit_id: Uuid) -> Action {
        Action::Approve {
            edit_id,
            parts: None,
        }
    }

    #[test]
    fn a_window_request_is_taken_once_by_a_click_and_never_by_a_code() {
        let requests = Requests::default();
        let asked = requests
            .ask(approve(Uuid::new_v4()), "s".into(), Asker::default(), None)
            .unwrap();
        assert_eq!(requests.waiting(), vec![asked.clone()]);
        assert_eq!(
            requests.take(asked.id, Some("ABCD-EFGH")),
            Err(TakeRefused::Unknown)
        );
        assert_eq!(requests.take(asked.id, None).unwrap().id, asked.id);
        // A second click while it is carried out finds nothing to do.
        assert_eq!(
            requests.take(asked.id, None),
            Err(TakeRefused::Settled(RequestState::CarryingOut))
        );
        assert!(requests.waiting().is_empty());
    }

    #[test]
    fn a_terminal_request_needs_its_code_and_a_wrong_one_ends_it() {
        let requests = Requests::default();
        let code = new_code();
        let asked = requests
            .ask(
                approve(Uuid::new_v4()),
                "s".into(),
                Asker::default(),
                Some(code.clone()),
            )
            .unwrap();
        // Not shown in the window, not taken by a click.
        assert!(requests.waiting().is_empty());
        assert_eq!(requests.take(asked.id, None), Err(TakeRefused::Unknown));
        assert_eq!(
            requests.take(asked.id, Some("WRONG-CODE")),
            Err(TakeRefused::WrongCode)
        );
        assert!(matches!(
            requests.take(asked.id, Some(&code)),
            Err(TakeRefused::Settled(RequestState::Expired { .. }))
        ));

        let code = new_code();
        let asked = requests
            .ask(
                approve(Uuid::new_v4()),
                "s".into(),
                Asker::default(),
                Some(code.clone()),
            )
            .unwrap();
        let typed = code.to_lowercase().replace('-', " ");
        assert_eq!(requests.take(asked.id, Some(&typed)).unwrap().id, asked.id);
    }

    #[test]
    fn waiting_requests_are_bounded_and_the_same_ask_is_one_request() {
        let requests = Requests::default();
        let edit = Uuid::new_v4();
        let first = requests
            .ask(approve(edit), "s".into(), Asker::default(), None)
            .unwrap();
        let again = requests
            .ask(approve(edit), "s".into(), Asker::default(), None)
            .unwrap();
        assert_eq!(first.id, again.id);
        for _ in 1..MAX_WAITING {
            requests
                .ask(approve(Uuid::new_v4()), "s".into(), Asker::default(), None)
                .unwrap();
        }
        assert_eq!(
            requests.ask(approve(Uuid::new_v4()), "s".into(), Asker::default(), None),
            Err(AskRefused::TooMany)
        );
        requests.decline(first.id).unwrap();
        assert!(
            requests
                .ask(approve(Uuid::new_v4()), "s".into(), Asker::default(), None)
                .is_ok()
        );
    }

    #[test]
    fn codes_are_read_without_confusion() {
        let code = new_code();
        assert_eq!(code.len(), 9);
        assert!(!code.contains(['0', 'O', '1', 'I', 'L']));
        assert!(same_code(&code, &code.to_lowercase()));
        assert!(!same_code(&code, "AAAA-AAAA"));
    }
}
