//! What one change of the document tells the tracker: the blocks it added, changed or
//! removed, by whom and at which revision, and the outermost blocks' containers it changed in
//! (or added), when every part of it is in one.

use yrs::types::xml::XmlOut;
use yrs::types::{Event, Events};
use yrs::{ID, TransactionMut, Xml, XmlFragmentRef};

use super::nodes::{
    all_block_ids, block_id, is_container, is_outermost_list, outermost_container, owning_block,
};
use super::{BlockChange, ChangeAuthor, ChangeKind, State, added};

/// Most outermost blocks [`State::containers`] holds; past them, the next read walks the
/// document (each is looked up in the last read, then read).
const MAX_CONTAINERS_CHANGED: usize = 64;

/// Records in `state` the change of `txn`, whose events on the document's fragment `root`
/// are `events`, made by `by`, at revision counter `at`.
pub(super) fn record(
    state: &mut State,
    txn: &TransactionMut,
    events: &Events,
    root: &XmlFragmentRef,
    by: ChangeAuthor,
    at: u64,
) {
    let mut rescan = false;
    let mut unattributed = false;
    let mut touched: Vec<(String, ChangeKind)> = vec![];
    // The outermost blocks' containers it changed; `None` once one of its changes is
    // not told apart this way.
    let mut containers: Option<Vec<ID>> = Some(vec![]);
    // The blocks added, told once for the whole change by the items it inserted when
    // it can be, else by the delta of each list whose children changed.
    let lists_changed = events
        .iter()
        .any(|e| matches!(e, Event::XmlFragment(e) if e.children_changed()));
    let by_inserts = lists_changed.then(|| added::by_inserts(txn)).flatten();
    for container in by_inserts.iter().flatten() {
        touched.extend(block_id(txn, container).map(|id| (id, ChangeKind::Added)));
        contain(&mut containers, XmlOut::Element(container.clone()));
    }
    for event in events.iter() {
        match event {
            Event::XmlText(e) => {
                contain(&mut containers, XmlOut::Text(e.target().clone()));
                match owning_block(txn, e.target().parent()) {
                    Some(id) => touched.push((id, ChangeKind::Modified)),
                    None => unattributed = true,
                }
            }
            Event::XmlFragment(e) => {
                let target = e.target().clone();
                match &target {
                    // The outermost blocks' list: blocks added to it are told by
                    // their items, when they can be.
                    XmlOut::Element(_)
                        if is_outermost_list(&target)
                            && by_inserts.is_some()
                            && e.keys(txn).is_empty() => {}
                    other => contain(&mut containers, other.clone()),
                }
                if e.children_changed() && by_inserts.is_none() {
                    let mut ids = vec![];
                    rescan |= added::by_delta(txn, e, &mut ids);
                    touched.extend(ids.into_iter().map(|id| (id, ChangeKind::Added)));
                }
                let owner = match &target {
                    // A block given another id: the read again knows blocks by
                    // their containers, and would keep the old one's.
                    XmlOut::Element(el) if is_container(el) && e.keys(txn).contains_key("id") => {
                        unattributed = true;
                        block_id(txn, el)
                    }
                    XmlOut::Element(el) if is_container(el) => block_id(txn, el),
                    other => owning_block(txn, Some(other.clone())),
                };
                match owner {
                    Some(id) => touched.push((id, ChangeKind::Modified)),
                    // The blocks' list itself: a read walks it again anyway.
                    None if is_outermost_list(&target) => {}
                    None => unattributed = true,
                }
            }
            _ => {
                unattributed = true;
                containers = None;
            }
        }
    }
    if unattributed {
        state.unattributed_at = at;
    }
    match containers {
        Some(items) if state.containers.len() + items.len() <= MAX_CONTAINERS_CHANGED => {
            state
                .containers
                .extend(items.into_iter().map(|item| (item, at)));
        }
        _ => {
            state.containers.clear();
            state.uncontained_at = at;
        }
    }
    for (id, kind) in touched {
        let kind = match state.changes.get(&id) {
            // A block added and edited in the same revision stays "added".
            Some(previous) if previous.at == at && previous.kind == ChangeKind::Added => {
                ChangeKind::Added
            }
            _ => kind,
        };
        if kind == ChangeKind::Added {
            state.known.insert(id.clone());
        }
        state.changes.insert(
            id.clone(),
            BlockChange {
                block_id: id,
                kind,
                by,
                at,
            },
        );
    }
    if rescan {
        let now = all_block_ids(txn, root);
        let gone: Vec<String> = state.known.difference(&now).cloned().collect();
        for id in gone {
            state.changes.insert(
                id.clone(),
                BlockChange {
                    block_id: id,
                    kind: ChangeKind::Deleted,
                    by,
                    at,
                },
            );
        }
        state.known = now;
    }
}

/// Adds the outermost container holding `node` to `containers`; none when there is none.
fn contain(containers: &mut Option<Vec<ID>>, node: XmlOut) {
    match (outermost_container(node), containers.as_mut()) {
        (Some(item), Some(items)) => items.push(item),
        _ => *containers = None,
    }
}
