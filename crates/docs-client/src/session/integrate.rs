//! A room's update integrated into the session's document with yrs' own failures caught.
//! yrs 0.28.1 panics on some updates Yjs sends (a sync step 2 whose deleted range overlaps
//! items yrs keeps aside, their dependencies missing: found by the convergence test, its
//! reduced case in `docs-mcp/tests/convergence/fixtures/yrs-pending-gc-panic.json`). Such a
//! panic must end the session — its document may be half integrated, and nothing of it may
//! be written or saved — never the process, and never leave the document locked.
//!
//! The commit is inside the guard too. A caught failure ends the session with
//! `Error::NotIntegrated` (the service tells agents `NOT_ACKNOWLEDGED`); nothing more of that
//! copy is written or saved, and the document is opened afresh at the next call. yrs is built
//! with overflow checks in release too (the workspace's `Cargo.toml`), so a wrapped clock is a
//! caught panic there as well, never a silently wrong document.

use std::panic::AssertUnwindSafe;

use yrs::{TransactionMut, Update};

/// How integrating an update went wrong.
#[derive(Debug, PartialEq)]
pub(super) enum NotIntegrated {
    /// yrs refused it (a malformed update): nothing of it was applied.
    Refused(String),
    /// yrs panicked integrating it, or committing it: the document cannot be trusted.
    Panicked(String),
}

/// Applies `updates` in `txn`, in order, then `then` (the transaction's own checks and bookkeeping),
/// and commits; a panic anywhere in that is caught and told. The transaction is committed
/// (dropped) under a guard of its own, never while a panic unwinds: yrs may panic again
/// committing a half-integrated update, and a panic during unwinding aborts the process.
pub(super) fn integrate<T>(
    txn: TransactionMut<'_>,
    updates: Vec<Update>,
    then: impl FnOnce(&mut TransactionMut<'_>) -> T,
) -> Result<T, NotIntegrated> {
    let mut txn = txn;
    let applied = std::panic::catch_unwind(AssertUnwindSafe(|| {
        updates
            .into_iter()
            .try_for_each(|update| txn.apply_update(update))
            .map(|()| then(&mut txn))
    }));
    // The commit (observers included), and with it the document's lock released.
    let committed = std::panic::catch_unwind(AssertUnwindSafe(move || drop(txn)));
    match (applied, committed) {
        (Ok(Ok(value)), Ok(())) => Ok(value),
        (Ok(Err(error)), Ok(())) => Err(NotIntegrated::Refused(error.to_string())),
        (Err(panic), _) | (Ok(_), Err(panic)) => Err(NotIntegrated::Panicked(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "no message".to_owned()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use yrs::updates::decoder::Decode;
    use yrs::{Doc, Options, ReadTxn, Transact};

    /// The convergence test's reduced case: a state, an update whose dependencies are
    /// missing, then Yjs' sync step 2 that makes yrs 0.28.1 panic.
    fn fixture() -> Vec<Vec<u8>> {
        let fixture: serde_json::Value = serde_json::from_str(include_str!(
            "../../../docs-mcp/tests/convergence/fixtures/yrs-pending-gc-panic.json"
        ))
        .unwrap();
        fixture["updates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| {
                base64::engine::general_purpose::STANDARD
                    .decode(u.as_str().unwrap())
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn a_panic_of_yrs_is_told_and_the_document_stays_usable() {
        let doc = Doc::with_options(Options {
            skip_gc: true,
            ..Options::default()
        });
        let outcomes: Vec<_> = fixture()
            .into_iter()
            .map(|bytes| {
                integrate(
                    doc.transact_mut(),
                    vec![Update::decode_v1(&bytes).unwrap()],
                    |_| (),
                )
            })
            .collect();
        assert_eq!(outcomes[..2], [Ok(()), Ok(())]);
        assert!(
            matches!(&outcomes[2], Err(NotIntegrated::Panicked(m)) if m.contains("overflow")),
            "{:?}",
            outcomes[2]
        );
        // Not left locked: the document can be read and written after.
        let _ = doc.transact().state_vector();
        drop(doc.transact_mut());
    }
}
