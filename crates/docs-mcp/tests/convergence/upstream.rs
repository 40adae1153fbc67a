//! Upstream reports of yrs and Yjs integrating the same updates differently, as fixed cases:
//! the updates Yjs 13 makes in their shape (`tests/docs-server/src/upstream.mjs`) applied in
//! order to a document held as a session holds it, whose tree must be the one Yjs ends with.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use serde_json::Value;
use yrs::Transact;
use yrs::updates::decoder::Decode;

use crate::agent::Agent;
use crate::browsers::Browsers;
use crate::scenario::first_difference;
use crate::tree;

/// The cases, by name in `upstream.mjs`.
pub const CASES: &[&str] = &[
    "605-temp-before-deleted-by-other",
    "605-temp-after-deleted-by-other",
    "605-temp-before-deleted-by-owner",
    "605-temp-after-deleted-by-owner",
    "632-concurrent-attributes-one-update",
];

/// Where yrs' tree differs from Yjs' for `case`, if it does.
pub fn difference(browsers: &mut Browsers, case: &str) -> Option<String> {
    let (updates, yjs): (Vec<Vec<u8>>, Value) = browsers.upstream(case);
    let (first, rest) = updates.split_first().expect("an update");
    let mut ours = Agent::new(1 << 20, first);
    for update in rest {
        if let Err(panic) = ours.apply(update) {
            return Some(format!("yrs panicked: {panic}"));
        }
    }
    let yrs = tree::normalized(&tree::of_doc(ours.doc()));
    first_difference("tree", &yrs, &tree::normalized(&yjs))
}

/// Found by this test: yrs panics integrating a sync step 2 of Yjs whose GC range overlaps
/// items it keeps aside (their dependencies missing). Whether yrs alone still panics on the
/// reduced fixture, and whether a document held as a session holds it (which keeps such
/// items out of yrs, `OutOfOrder`) panics on it.
pub fn pending_gc_panics() -> PendingGcPanics {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/yrs-pending-gc-panic.json"))
        .expect("the fixture");
    let updates: Vec<Vec<u8>> = fixture["updates"]
        .as_array()
        .expect("updates")
        .iter()
        .map(|u| B64.decode(u.as_str().expect("base64")).expect("base64"))
        .collect();
    let alone = yrs::Doc::with_options(yrs::Options {
        skip_gc: true,
        offset_kind: yrs::OffsetKind::Utf16,
        ..yrs::Options::default()
    });
    let mut txn = alone.transact_mut();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for update in &updates {
            let _ = txn.apply_update(yrs::Update::decode_v1(update).expect("an update"));
        }
    }));
    // (committed apart: yrs may panic again, and a panic while unwinding aborts)
    let committed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(txn)));
    let (first, rest) = updates.split_first().expect("an update");
    let mut ours = Agent::new(1 << 20, first);
    PendingGcPanics {
        alone: panicked.is_err() || committed.is_err(),
        session: rest.iter().any(|update| ours.apply(update).is_err()),
    }
}

pub struct PendingGcPanics {
    pub alone: bool,
    pub session: bool,
}
