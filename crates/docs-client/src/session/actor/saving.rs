//! The actor's saves: what a save would cover now, starting it (a REST save of the whole
//! document on Hocuspocus, the REST merge of untaken writes on yhub) as a future the actor
//! polls, and its outcome into the ledger. When to save is `session::save`'s.

use tokio::time::Instant;
use yrs::{ReadTxn, StateVector};

use super::Actor;
use crate::collaboration::CollaborationServer;
use crate::error::{Error, Result};
use crate::out_of_order::OutOfOrder;
use crate::rest::DocsClient;
use crate::session::save::Started;

impl Actor {
    /// What a save would cover now. Hocuspocus: the acknowledged writes no save holds yet.
    /// yhub stores what it takes: the writes it has not taken while no socket reaches it
    /// (two attempts failed in a row, or closing), merged through its REST route.
    pub(super) fn save_target(&self) -> Option<u64> {
        match self.server() {
            CollaborationServer::Hocuspocus => self.ledger.save_target(),
            CollaborationServer::Yhub => {
                let offline =
                    !self.ledger.connected() && (self.attempt >= 2 || self.give_up_at.is_some());
                (offline && self.ledger.synced_once())
                    .then(|| self.ledger.unacknowledged())
                    .flatten()
            }
        }
    }

    pub(super) fn start_save(&mut self) {
        let Some(target) = self.save_target() else {
            return;
        };
        if self.server() == CollaborationServer::Yhub {
            self.start_patch(target);
            return;
        }
        let client = self.save_client();
        let (doc, id, api) = (self.shared.doc.clone(), self.shared.id, self.content_api);
        let held = self.out_of_order.clone();
        // Docs lets a save from a client off the collaboration server through only when no
        // one else edits there (COLLABORATION_WS_NOT_CONNECTED_READ_ONLY): say the truth.
        let connected = self.ledger.connected();
        self.saver.start(Started { target, connected }, async move {
            let state = encode_state(doc, id, held).await?;
            client.save_content(id, api, &state, connected).await
        });
    }

    /// Merges the document into yhub's copy through its REST route (what it has is skipped
    /// there): every write up to `target` is then held by the server.
    pub(super) fn start_patch(&mut self, target: u64) {
        let client = self.save_client();
        let (doc, id, endpoint) = (
            self.shared.doc.clone(),
            self.shared.id,
            self.shared.endpoint.clone(),
        );
        let started = Started {
            target,
            connected: false,
        };
        let held = self.out_of_order.clone();
        self.saver.start(started, async move {
            let state = encode_state(doc, id, held).await?;
            client
                .patch_ydoc(&endpoint, id, &state, &crate::collaboration::ATTRIBUTIONS)
                .await
        });
    }

    /// The client a save is made with: closing, it waits for the instance's request budget
    /// only as long as the close has left.
    pub(super) fn save_client(&self) -> DocsClient {
        match self.give_up_at {
            Some(give_up_at) => self
                .client
                .waiting_at_most(give_up_at.saturating_duration_since(Instant::now())),
            None => self.client.clone(),
        }
    }

    pub(super) fn on_saved(&mut self, started: Started, outcome: Result<()>) {
        let hocuspocus = self.server() == CollaborationServer::Hocuspocus;
        match outcome {
            // Closing, and the instance's request budget is not back before the close gives
            // up: the close ends now, saying why.
            Err(Error::Throttled { retry_after })
                if self
                    .give_up_at
                    .is_some_and(|at| Instant::now() + retry_after >= at) =>
            {
                self.ledger.fail(Error::Throttled { retry_after });
            }
            Ok(()) if hocuspocus => {
                self.saver.succeeded();
                self.ledger.saved(started.target);
            }
            Ok(()) => {
                self.saver.succeeded();
                self.unconfirmed.held_up_to(started.target);
                self.ledger.acknowledge(started.target);
            }
            // Docs refuses a save made off the room while others edit there
            // (COLLABORATION_WS_NOT_CONNECTED_READ_ONLY); made from the room, it goes through.
            Err(Error::Forbidden { detail }) if !started.connected && hocuspocus => {
                let delay = self.saver.failed(&self.shared.options);
                tracing::info!(%detail, ?delay, "save refused while out of the room; retrying");
            }
            Err(error) if !error.is_transient() => self.ledger.fail(error),
            Err(error) => {
                let delay = self.saver.failed(&self.shared.options);
                tracing::warn!(%error, ?delay, "save failed; retrying");
            }
        }
    }
}

/// The whole document as one update, with what waits for clocks it lacks (as Yjs 13 saves
/// its pending structs: they are the document's too). Encoding a large document is CPU work:
/// off the runtime's workers.
async fn encode_state(doc: yrs::Doc, id: uuid::Uuid, held: OutOfOrder) -> Result<Vec<u8>> {
    let encoded = tokio::task::spawn_blocking(move || {
        held.with_held(
            yrs::Transact::transact(&doc).encode_state_as_update_v1(&StateVector::default()),
        )
    })
    .await;
    match encoded {
        Ok(state) => Ok(state),
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // The runtime is shutting down.
            Err(_) => Err(Error::Closed {
                document: id.to_string(),
            }),
        },
    }
}
