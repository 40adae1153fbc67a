//! The store: durable edits, compare-and-set transitions (also across two connections, as two
//! processes would have), one waiting undo per edit, retention, migration of the first schema.

use rusqlite::params;
use uuid::Uuid;

use super::*;
use crate::record::{
    AgentInfo, BlockState, EditCounts, EditFilter, EditPayload, EditRecord, EditStatus,
    KnownDocument, Policy, Seen, now_ms,
};
use crate::store::Transition;

fn edit(status: EditStatus, created_at: i64, agent: &str) -> EditRecord {
    EditRecord {
        touched_blocks: vec!["b1".into()],
        undoable: true,
        status,
        created_at,
        ..EditRecord::pending(
            Uuid::nil(),
            Some("Doc".into()),
            AgentInfo::new(agent, "c1", "AI agent"),
            "insert_blocks".into(),
            serde_json::json!({"markdown": "x"}),
            Some("because".into()),
        )
    }
}

fn payload() -> EditPayload {
    EditPayload {
        update: vec![1, 2, 3],
        base_state_vector: vec![0],
        depends_on: vec![BlockState {
            block_id: "b1".into(),
            seen: Seen::Content("00ff".into()),
        }],
        leaves: vec![],
        inverse: None,
        texts: vec![],
    }
}

fn temp_db() -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("docs-mcp-store-{}", Uuid::new_v4()));
    let path = dir.join("state.sqlite3");
    (dir, path)
}

fn moved(record: &EditRecord, status: EditStatus, from: EditStatus) -> Transition {
    let mut record = record.clone();
    record.status = status;
    Transition { record, from }
}

#[tokio::test]
async fn edits_survive_reopening_and_lists_leave_payloads_out() {
    let (dir, path) = temp_db();
    let pending = edit(EditStatus::Pending, 1, "claude");
    let applied = edit(EditStatus::Applied, 2, "cursor");
    {
        let store = Store::open(&path).unwrap();
        store.insert_edit(pending.clone(), payload()).await.unwrap();
        store.insert_edit(applied.clone(), payload()).await.unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.edit(pending.id).await.unwrap().as_ref(),
        Some(&pending)
    );
    assert_eq!(store.payload(pending.id).await.unwrap(), Some(payload()));
    assert_eq!(store.count_in(EditStatus::Pending).await.unwrap(), 1);
    let all = store.edits(EditFilter::default()).await.unwrap();
    assert_eq!(all, vec![applied.clone(), pending.clone()]);
    let listed = serde_json::to_value(&all[0]).unwrap();
    assert!(listed.get("update").is_none() && listed.get("inverse").is_none());
    let by_agent = store
        .edits(EditFilter {
            agent: Some("cursor".into()),
            limit: Some(5),
            ..EditFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(by_agent, vec![applied]);
    assert_eq!(
        store.ids_in(EditStatus::Pending).await.unwrap(),
        vec![pending.id]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Two connections on one file, as the app and a headless service would have: of two
/// deciders, exactly one moves the edit.
#[tokio::test]
async fn a_transition_happens_once_even_from_two_connections() {
    let (dir, path) = temp_db();
    let first = Store::open(&path).unwrap();
    let second = Store::open(&path).unwrap();
    let record = edit(EditStatus::Pending, 1, "claude");
    first.insert_edit(record.clone(), payload()).await.unwrap();
    let approve = first.transition(moved(&record, EditStatus::Applying, EditStatus::Pending));
    let reject = second.transition(moved(&record, EditStatus::Rejected, EditStatus::Pending));
    let (approved, rejected) = tokio::join!(approve, reject);
    assert_ne!(approved.unwrap(), rejected.unwrap());
    let status = first.edit(record.id).await.unwrap().unwrap().status;
    assert!(matches!(
        status,
        EditStatus::Applying | EditStatus::Rejected
    ));
    // A stale transition changes nothing.
    assert!(
        !second
            .transition(moved(&record, EditStatus::Failed, EditStatus::Pending))
            .await
            .unwrap()
    );
    assert_eq!(first.edit(record.id).await.unwrap().unwrap().status, status);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn one_undo_of_an_edit_waits_at_a_time_and_both_sides_of_an_undo_move_together() {
    let store = Store::open_in_memory().unwrap();
    let original = edit(EditStatus::Applied, 1, "claude");
    store
        .insert_edit(original.clone(), payload())
        .await
        .unwrap();
    let mut undo = edit(EditStatus::Pending, 2, "claude");
    undo.undoes = Some(original.id);
    store.insert_edit(undo.clone(), payload()).await.unwrap();
    let mut again = edit(EditStatus::Pending, 3, "app");
    again.undoes = Some(original.id);
    let refused = store
        .insert_edit(again.clone(), payload())
        .await
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "an undo of edit {} is already waiting for a decision (edit {})",
            original.id, undo.id
        )
    );
    assert_eq!(store.edit(again.id).await.unwrap(), None);

    // The undo is applied and the original undone in one step...
    store
        .transition(moved(&undo, EditStatus::Applying, EditStatus::Pending))
        .await
        .unwrap();
    assert!(
        store
            .transition_both(
                moved(&undo, EditStatus::Applied, EditStatus::Applying),
                moved(&original, EditStatus::Undone, EditStatus::Applied),
            )
            .await
            .unwrap()
    );
    // ... and a second time, neither moves.
    assert!(
        !store
            .transition_both(
                moved(&undo, EditStatus::Applied, EditStatus::Applying),
                moved(&original, EditStatus::Undone, EditStatus::Applied),
            )
            .await
            .unwrap()
    );
    assert_eq!(
        store.edit(original.id).await.unwrap().unwrap().status,
        EditStatus::Undone
    );
}

#[tokio::test]
async fn a_refused_pair_of_transitions_changes_neither() {
    let store = Store::open_in_memory().unwrap();
    let original = edit(EditStatus::Rejected, 1, "claude");
    let mut undo = edit(EditStatus::Applying, 2, "claude");
    undo.undoes = Some(original.id);
    store
        .insert_edit(original.clone(), payload())
        .await
        .unwrap();
    store.insert_edit(undo.clone(), payload()).await.unwrap();
    assert!(
        !store
            .transition_both(
                moved(&undo, EditStatus::Applied, EditStatus::Applying),
                moved(&original, EditStatus::Undone, EditStatus::Applied),
            )
            .await
            .unwrap()
    );
    assert_eq!(
        store.edit(undo.id).await.unwrap().unwrap().status,
        EditStatus::Applying
    );
}

#[tokio::test]
async fn the_journal_keeps_decided_edits_a_year_and_waiting_ones_forever() {
    let store = Store::open_in_memory().unwrap();
    let year_and_a_day = (JOURNAL_RETENTION_DAYS + 1) * 24 * 3600 * 1000;
    let mut old_applied = edit(EditStatus::Applied, now_ms() - year_and_a_day, "a");
    old_applied.decided_at = Some(old_applied.created_at);
    let old_pending = edit(EditStatus::Pending, now_ms() - year_and_a_day, "a");
    let old_applying = edit(EditStatus::Applying, now_ms() - year_and_a_day, "a");
    let recent = edit(EditStatus::Rejected, now_ms(), "a");
    for record in [&old_applied, &old_pending, &old_applying, &recent] {
        store.insert_edit(record.clone(), payload()).await.unwrap();
    }
    assert_eq!(store.purge_journal().await.unwrap(), 1);
    assert_eq!(store.edit(old_applied.id).await.unwrap(), None);
    assert_eq!(store.edits(EditFilter::default()).await.unwrap().len(), 3);
}

#[tokio::test]
async fn counts_policies_known_documents_and_settings() {
    let store = Store::open_in_memory().unwrap();
    let other = Uuid::new_v4();
    let mut elsewhere = edit(EditStatus::Pending, 4, "claude");
    elsewhere.document_id = other;
    for record in [
        edit(EditStatus::Applied, 1, "claude"),
        edit(EditStatus::Applied, 2, "claude"),
        edit(EditStatus::Pending, 3, "cursor"),
        edit(EditStatus::Rejected, 3, "cursor"),
        elsewhere,
    ] {
        store.insert_edit(record, payload()).await.unwrap();
    }
    let counts = store.edit_counts().await.unwrap();
    assert_eq!(
        counts[&Uuid::nil()],
        EditCounts {
            applied: 2,
            pending: 1
        }
    );
    assert_eq!(
        counts[&other],
        EditCounts {
            applied: 0,
            pending: 1
        }
    );

    let doc = Uuid::new_v4();
    assert_eq!(store.policies().await.unwrap(), StoredPolicies::default());
    store.set_policy(None, Some(Policy::Auto)).await.unwrap();
    store
        .set_policy(Some(doc), Some(Policy::ReadOnly))
        .await
        .unwrap();
    assert_eq!(
        store.policies().await.unwrap(),
        StoredPolicies {
            default: Some(Policy::Auto),
            documents: vec![(doc, Policy::ReadOnly)]
        }
    );
    store.set_policy(Some(doc), None).await.unwrap();
    assert_eq!(store.policies().await.unwrap().documents, vec![]);
    for (title, at) in [(Some("A"), 5), (None, 9)] {
        store
            .remember_document(KnownDocument {
                id: doc,
                title: title.map(str::to_owned),
                last_opened_at: at,
            })
            .await
            .unwrap();
    }
    assert_eq!(
        store.known_documents().await.unwrap(),
        vec![KnownDocument {
            id: doc,
            title: Some("A".into()),
            last_opened_at: 9
        }]
    );
    store.set_setting("port", "7658").await.unwrap();
    assert_eq!(
        store.setting("port").await.unwrap().as_deref(),
        Some("7658")
    );
}

/// An edit is unsaved from `applying` until a save holds it (`saved_at`), and the journal's
/// retention keeps it until then; one that leaves `applied` for a conflict has nothing to save.
#[tokio::test]
async fn a_merged_edit_is_unsaved_until_a_save_holds_it_and_kept_until_then() {
    let store = Store::open_in_memory().unwrap();
    let year_and_a_day = (JOURNAL_RETENTION_DAYS + 1) * 24 * 3600 * 1000;
    let mut auto = edit(EditStatus::Applying, now_ms() - year_and_a_day, "a");
    auto.decided_at = Some(auto.created_at);
    let reviewed = edit(EditStatus::Pending, now_ms() - year_and_a_day, "a");
    let rejected = edit(EditStatus::Pending, now_ms(), "a");
    for record in [&auto, &reviewed, &rejected] {
        store.insert_edit(record.clone(), payload()).await.unwrap();
    }
    let none: Vec<Uuid> = vec![];
    assert_eq!(
        store.unsaved_documents().await.unwrap(),
        none,
        "applying: settle's"
    );
    let mut decided = reviewed.clone();
    decided.decided_at = Some(reviewed.created_at);
    for (record, from) in [
        (&auto, EditStatus::Applying),
        (&decided, EditStatus::Pending),
    ] {
        if from == EditStatus::Pending {
            assert!(
                store
                    .transition(moved(record, EditStatus::Applying, from))
                    .await
                    .unwrap()
            );
        }
        assert!(
            store
                .transition(moved(record, EditStatus::Applied, EditStatus::Applying))
                .await
                .unwrap()
        );
    }
    assert!(
        store
            .transition(moved(&rejected, EditStatus::Rejected, EditStatus::Pending))
            .await
            .unwrap()
    );
    assert_eq!(
        store.unsaved_documents().await.unwrap(),
        vec![auto.document_id]
    );
    let unsaved: Vec<Uuid> = store
        .unsaved_of(auto.document_id)
        .await
        .unwrap()
        .into_iter()
        .map(|(record, _)| record.id)
        .collect();
    assert_eq!(
        unsaved,
        [auto.id, reviewed.id],
        "oldest first, the rejected one never"
    );
    assert_eq!(store.edit(auto.id).await.unwrap().unwrap().saved_at, None);
    assert_eq!(
        store.purge_journal().await.unwrap(),
        0,
        "unsaved edits are kept"
    );

    let before = now_ms();
    assert_eq!(
        store.mark_saved(vec![auto.id, rejected.id]).await.unwrap(),
        [auto.id],
        "only a merged edit not saved yet is saved now"
    );
    let saved_at = store.edit(auto.id).await.unwrap().unwrap().saved_at;
    assert!(saved_at.is_some_and(|at| at >= before), "{saved_at:?}");
    assert_eq!(store.mark_saved(vec![auto.id]).await.unwrap(), none);
    assert_eq!(store.unsaved_of(auto.document_id).await.unwrap().len(), 1);
    assert_eq!(
        store.purge_journal().await.unwrap(),
        1,
        "a saved one is not"
    );
    // The room lost `reviewed` before a save: it is not in the document.
    let lost = store.edit(reviewed.id).await.unwrap().unwrap();
    assert!(
        store
            .transition(moved(&lost, EditStatus::Conflict, EditStatus::Applied))
            .await
            .unwrap()
    );
    assert_eq!(store.unsaved_documents().await.unwrap(), none);
    assert_eq!(store.mark_saved(vec![reviewed.id]).await.unwrap(), none);
    let lost = store.edit(reviewed.id).await.unwrap().unwrap();
    assert_eq!((lost.status, lost.saved_at), (EditStatus::Conflict, None));
}

#[tokio::test]
async fn the_first_schema_is_migrated() {
    let (dir, path) = temp_db();
    std::fs::create_dir_all(&dir).unwrap();
    let original = Uuid::new_v4();
    let legacy = |id: Uuid, status: &str, created_at: i64, undoes: Option<Uuid>| {
        serde_json::json!({
            "id": id, "document_id": Uuid::nil(), "document_title": "Doc",
            "agent": {"name": "claude", "connection": "http"},
            "tool": "insert_blocks", "arguments": {}, "reason": null, "revision": null,
            "preview": {"before": [], "after": [], "diff": [], "words_added": 0, "words_removed": 0},
            "update": "AQID", "base_state_vector": "AA==",
            "touched_blocks": ["b1"], "new_blocks": ["n1"],
            "inverse": [{"op": "delete_blocks", "block_ids": ["n1"]}],
            "undoes": undoes, "status": status, "comment": null, "decided_by": null,
            "error": null, "created_at": created_at, "decided_at": null, "applied_at": null
        })
    };
    let (first_undo, second_undo) = (Uuid::new_v4(), Uuid::new_v4());
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE edits (id TEXT PRIMARY KEY, document_id TEXT NOT NULL, agent TEXT NOT NULL,
                status TEXT NOT NULL, created_at INTEGER NOT NULL, record TEXT NOT NULL);
             CREATE INDEX edits_status ON edits(status);
             CREATE INDEX edits_document ON edits(document_id);
             CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO settings VALUES ('paused', 'true');",
        )
        .unwrap();
        for (id, status, at, undoes) in [
            (original, "applied", 1, None),
            (first_undo, "pending", 2, Some(original)),
            (second_undo, "pending", 3, Some(original)),
        ] {
            conn.execute(
                "INSERT INTO edits VALUES (?1, ?2, 'claude', ?3, ?4, ?5)",
                params![
                    id.to_string(),
                    Uuid::nil().to_string(),
                    status,
                    at,
                    legacy(id, status, at, undoes).to_string()
                ],
            )
            .unwrap();
        }
    }
    let store = Store::open(&path).unwrap();
    let migrated = store.edit(original).await.unwrap().unwrap();
    assert_eq!(migrated.status, EditStatus::Applied);
    assert_eq!(migrated.saved_at, Some(1), "saved when it was made");
    assert!(!migrated.undoable);
    assert_eq!(migrated.new_blocks, vec!["n1".to_owned()]);
    assert_eq!(
        store.payload(original).await.unwrap().unwrap(),
        EditPayload {
            update: vec![1, 2, 3],
            base_state_vector: vec![0],
            depends_on: vec![BlockState {
                block_id: "b1".into(),
                seen: Seen::Exists
            }],
            leaves: vec![],
            inverse: None,
            texts: vec![],
        }
    );
    assert_eq!(
        store.edit(first_undo).await.unwrap().unwrap().status,
        EditStatus::Pending
    );
    let closed = store.edit(second_undo).await.unwrap().unwrap();
    assert_eq!(closed.status, EditStatus::Rejected);
    assert_eq!(
        closed.comment.as_deref(),
        Some("Closed by an upgrade: an undo of the same edit was already queued.")
    );
    assert_eq!(
        store.setting("paused").await.unwrap().as_deref(),
        Some("true")
    );
    assert_eq!(
        store.unsaved_documents().await.unwrap(),
        Vec::<Uuid>::new(),
        "edits of the first schemas were saved before they were applied"
    );
    drop(store);
    // Opening again is a no-op.
    let store = Store::open(&path).unwrap();
    assert_eq!(store.edits(EditFilter::default()).await.unwrap().len(), 3);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `levels` arrays, each holding the next.
fn nested_arrays(levels: usize) -> serde_json::Value {
    crate::json::from_str(&("[".repeat(levels) + &"]".repeat(levels))).unwrap()
}

/// Everything the journal takes reads back (issue 27): records and payloads nested deeper
/// than serde_json's default of 128 levels — blocks nested near the model's limit, in the
/// agent's arguments, the preview and the undo — are listed, read, moved and resaved; what
/// is deeper than the journal reads is refused before anything is written.
#[tokio::test]
async fn records_deeper_than_serde_jsons_default_round_trip_and_deeper_ones_are_refused() {
    let store = Store::open_in_memory().unwrap();
    let mut deep = edit(EditStatus::Applying, 1, "claude");
    deep.arguments = serde_json::json!({"blocks": nested_arrays(200)});
    deep.preview.after = vec![crate::record::PreviewBlock {
        block_id: "b1".into(),
        block_type: "bulletListItem".into(),
        markdown: "- x".into(),
        text: Some("x".into()),
        block: Some(nested_arrays(200)),
    }];
    let mut deep_payload = payload();
    deep_payload.inverse = Some(nested_arrays(200));
    store
        .insert_edit(deep.clone(), deep_payload.clone())
        .await
        .unwrap();
    assert_eq!(store.edit(deep.id).await.unwrap(), Some(deep.clone()));
    assert_eq!(
        store.edits(EditFilter::default()).await.unwrap(),
        [deep.clone()]
    );
    assert_eq!(
        store.payload(deep.id).await.unwrap(),
        Some(deep_payload.clone())
    );
    assert!(
        store
            .transition(moved(&deep, EditStatus::Applied, EditStatus::Applying))
            .await
            .unwrap()
    );
    let unsaved: Vec<(Uuid, EditPayload)> = store
        .unsaved_of(Uuid::nil())
        .await
        .unwrap()
        .into_iter()
        .map(|(record, payload)| (record.id, payload))
        .collect();
    assert_eq!(unsaved, [(deep.id, deep_payload)]);

    let mut deeper = edit(EditStatus::Pending, 2, "claude");
    deeper.arguments = nested_arrays(crate::json::MAX_JSON_DEPTH);
    let refused = store
        .insert_edit(deeper.clone(), payload())
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains(&format!(
            "deeper than the limit of {}",
            crate::json::MAX_JSON_DEPTH
        )),
        "{refused}"
    );
    assert_eq!(store.edit(deeper.id).await.unwrap(), None);
}

/// From schema 3: edits a save held get `saved_at` (their decision's time); applied comments
/// (saved before they were applied) and edits never in the document are left with nothing
/// to save; an applied edit not saved yet stays unsaved.
#[tokio::test]
async fn schema_3_is_migrated_to_saved_at() {
    let (dir, path) = temp_db();
    std::fs::create_dir_all(&dir).unwrap();
    let decided = |status: EditStatus| {
        let mut record = edit(status, 1, "claude");
        record.decided_at = Some(2);
        record
    };
    let saved = decided(EditStatus::Applied);
    let unsaved = decided(EditStatus::Applied);
    let mut comment = decided(EditStatus::Applied);
    comment.proposed_comment = Some(crate::record::ProposedComment {
        action: crate::record::CommentAction::Reply,
        thread_id: Some(Uuid::new_v4().to_string()),
        block_id: None,
        quoted_text: None,
        body: Some("Done".into()),
        body_blocks: None,
        anchored: None,
    });
    let failed = decided(EditStatus::Failed);
    {
        let store = Store::open(&path).unwrap();
        for record in [&saved, &unsaved, &comment, &failed] {
            store.insert_edit(record.clone(), payload()).await.unwrap();
        }
    }
    {
        // As schema 3 left them: merged ones unsaved until a save held them.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("ALTER TABLE edits DROP COLUMN saved_at; PRAGMA user_version = 3;")
            .unwrap();
        for record in [&unsaved, &comment, &failed] {
            conn.execute(
                "UPDATE edits SET unsaved = 1 WHERE id = ?1",
                params![record.id.to_string()],
            )
            .unwrap();
        }
    }
    let store = Store::open(&path).unwrap();
    let saved_at = |id: Uuid| {
        let store = store.clone();
        async move { store.edit(id).await.unwrap().unwrap().saved_at }
    };
    assert_eq!(saved_at(saved.id).await, Some(2));
    assert_eq!(saved_at(comment.id).await, Some(2));
    assert_eq!(saved_at(unsaved.id).await, None);
    assert_eq!(saved_at(failed.id).await, None);
    let still: Vec<Uuid> = store
        .unsaved_of(Uuid::nil())
        .await
        .unwrap()
        .into_iter()
        .map(|(record, _)| record.id)
        .collect();
    assert_eq!(still, [unsaved.id]);
    drop(store);
    std::fs::remove_dir_all(dir).unwrap();
}
