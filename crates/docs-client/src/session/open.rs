//! Opening a session: the REST calls of an open paid for at once, the content asked for
//! beside the document's metadata (Docs 5), the room joined while the content is fetched and
//! loaded, and the first sync waited for.
//!
//! The content is asked for beside the metadata as a task, aborted if the open fails or the
//! metadata says the content is elsewhere, and not asked once a document showed that the instance
//! has no `content/`. The first connection is made (and, on Hocuspocus, authenticated:
//! `link::connect_first`) while the stored content is fetched and loaded; the actor, started once
//! the document is loaded, sends the rest of the handshake, so nothing of the document reaches the
//! room before it holds the stored content. A load that fails drops that connection
//! (`lifecycle::an_open_whose_content_cannot_be_loaded_leaves_no_connection_in_the_room`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};

use futures_util::FutureExt;
use futures_util::future::{Either, ready, select};
use tokio::sync::{mpsc, watch};
use tracing::Instrument;
use uuid::Uuid;
use yrs::sync::Awareness;
use yrs::{Doc, OffsetKind, Options};

use super::actor::{Actor, COMMAND_QUEUE, Inbox, Loaded};
use super::{DocumentSession, LoadedHook, Progress, SessionOptions, Shared, link, load, now_ms};
use crate::collaboration::{CollaborationEndpoint, CollaborationServer};
use crate::error::{Error, Result};
use crate::protocol::Wire;
use crate::rest::{ContentApi, DocsClient, StoredContent};

/// The content of a document being fetched while its metadata is, aborted when the open no
/// longer needs it (it failed, or the document keeps its content elsewhere).
struct Fetching(tokio::task::JoinHandle<Result<StoredContent>>);

impl Drop for Fetching {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Throttled calls an open costs: the document, and its content at `content/` (Docs 5 on
/// Hocuspocus; before 5.0 it comes with the document, and yhub's room holds it: once an
/// opened document showed so, opens take one). The collaboration server's check of our rights
/// when we connect is made with its provider key, which Docs' throttle does not count.
fn open_calls(server: Option<CollaborationServer>, content_endpoint: bool) -> usize {
    match server {
        Some(CollaborationServer::Yhub) => 1,
        _ if !content_endpoint => 1,
        _ => 2,
    }
}

impl DocumentSession {
    /// Opens a document and returns once the first sync with the room completed. On
    /// Hocuspocus (Docs 5) its stored content is loaded from REST first, the room holding
    /// nothing; on yhub the room sends it.
    pub async fn open(client: DocsClient, id: Uuid, options: SessionOptions) -> Result<Self> {
        let started = std::time::Instant::now();
        let configured = client.configured_collaboration().await?;
        let configured_server = configured.as_ref().map(|e| e.server());
        // Every call of the open or none, so that opens at once do not share out the budget
        // until none can finish. What an open costs is known once a document showed where the
        // instance keeps content: one refused while another found out that it costs less
        // asks again for that.
        let mut calls = open_calls(configured_server, client.may_have_content_endpoint());
        let paying = loop {
            match client.prepaid(calls).await {
                Err(Error::Throttled { .. })
                    if open_calls(configured_server, client.may_have_content_endpoint())
                        < calls =>
                {
                    calls = open_calls(configured_server, client.may_have_content_endpoint());
                }
                paid => break paid?,
            }
        };
        // Docs 5 keeps the content at its own endpoint: it is fetched beside the document,
        // a round trip to the instance fewer before the content is loaded. Not once an opened
        // document showed the instance keeps it elsewhere (before 5.0, or yhub).
        let early_content = (configured_server != Some(CollaborationServer::Yhub)
            && client.may_have_content_endpoint())
        .then(|| {
            let fetching = paying.clone();
            Fetching(tokio::spawn(async move {
                fetching.content_at_endpoint(id).await
            }))
        });
        let mut meta = paying.document(id).await?;
        if !meta.abilities.retrieve {
            return Err(Error::Forbidden {
                detail: format!("document {id} may not be read by this user"),
            });
        }
        let endpoint = configured.unwrap_or_else(|| {
            CollaborationEndpoint::derived(client.instance(), meta.collaboration_server())
        });
        let content_api = DocsClient::content_api_of(&meta);
        let legacy_content = meta.content.take();
        let at_endpoint = endpoint.server() == CollaborationServer::Hocuspocus
            && content_api == ContentApi::Endpoint;
        if !at_endpoint {
            client.note_no_content_endpoint();
        }
        // Fetched for nothing, when the document said so: not waited for.
        let early_content = early_content.filter(|_| at_endpoint);
        if endpoint.server() == CollaborationServer::Hocuspocus
            && !meta.abilities.can_read_content()
        {
            return Err(Error::Forbidden {
                detail: format!("document {id} may not be read by this user"),
            });
        }

        let doc = Doc::with_options(Options {
            guid: id.to_string().into(),
            offset_kind: OffsetKind::Utf16,
            // Deleted content is collected by the session: a watched write's is kept until
            // its watch ends, to be restored if it is taken back (`touch`).
            skip_gc: true,
            ..Options::default()
        });
        let fragment = crate::blocknote::document_fragment(&doc);
        let mut awareness = Awareness::new(doc.clone());
        awareness
            .set_local_state(options.presence.awareness_state())
            .expect("presence serializes");

        let wire = match endpoint.server() {
            CollaborationServer::Hocuspocus => Wire::Hocuspocus {
                document: id.to_string(),
            },
            CollaborationServer::Yhub => Wire::YWebsocket,
        };
        let shared = Arc::new(Shared {
            id,
            name: id.to_string(),
            endpoint,
            wire,
            doc,
            fragment,
            read_only: AtomicBool::new(!meta.abilities.update),
            progress: watch::Sender::new(Progress::default()),
            save_now: watch::Sender::new(0),
            version: watch::Sender::new(0),
            peers: watch::Sender::new(Vec::new()),
            touches: watch::Sender::new(Default::default()),
            bytes_in: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            connects: AtomicU64::new(0),
            weight: Default::default(),
            last_activity_ms: AtomicU64::new(now_ms()),
            options: options.clone(),
        });
        // The room is joined while the stored content is fetched and loaded: the handshake
        // and the server's check of our rights (a call to Docs' backend) then cost no time
        // of their own. Nothing of the document is sent before it is loaded.
        let connecting = link::connect_first(&shared, &client);
        let loading = async {
            if shared.endpoint.server() == CollaborationServer::Yhub {
                return Ok(None);
            }
            let stored = match early_content {
                Some(mut fetching) => (&mut fetching.0).await.map_err(|e| Error::Network {
                    detail: format!("fetching the content stopped: {e}"),
                })??,
                None => paying.content(id, legacy_content).await?,
            }
            .update;
            let fetched = started.elapsed();
            if stored.is_empty() {
                return Ok(None);
            }
            // CPU work in proportion to the document (a second for 50 000 blocks): off the
            // runtime's workers, which every other session and call share.
            let loading = shared.doc.clone();
            let stored = tokio::task::spawn_blocking(move || {
                load::load_stored(id, &loading, &stored).map(|held| (stored, held))
            })
            .await
            .map_err(|e| Error::BadContent {
                document: id.to_string(),
                detail: format!("loading the content stopped: {e}"),
            })??;
            let (stored, load::Stored { held, items }) = stored;
            shared.weight.add(items, stored.len());
            tracing::debug!(document = %id, bytes = stored.len(), fetched = ?fetched, loaded = ?started.elapsed(), "stored content loaded");
            if let Some(LoadedHook(hook)) = &options.on_loaded {
                hook(id, &shared.doc);
            }
            Ok(Some(Loaded {
                update: stored,
                version: *shared.version.borrow(),
                held,
            }))
        };
        let (loaded, first_connection) = match select(Box::pin(loading), connecting).await {
            Either::Left((loaded, connecting)) => (loaded, connecting),
            Either::Right((connected, loading)) => {
                tracing::debug!(document = %id, connected = ?started.elapsed(), "room joined before the content was loaded");
                (loading.await, ready(connected).boxed())
            }
        };
        drop(paying);
        let loaded = loaded?;
        let (commands, command_queue) = mpsc::channel(COMMAND_QUEUE);
        let (presence, presence_changes) = watch::channel(options.presence.clone());
        let (closing, closing_signal) = watch::channel(false);
        let inbox = Inbox {
            commands: command_queue,
            presence: presence_changes,
            closing: closing_signal,
        };
        let actor = Actor::new(
            shared.clone(),
            client,
            content_api,
            awareness,
            first_connection,
            loaded,
        );
        let task = tokio::spawn(
            actor
                .run(inbox)
                .instrument(tracing::info_span!("session", document = %id)),
        );
        let session = DocumentSession {
            abort: task.abort_handle(),
            actor: tokio::sync::Mutex::new(Some(task)),
            shared,
            metadata: meta,
            commands,
            presence,
            closing,
        };

        let mut progress = session.progress();
        let synced = tokio::time::timeout(
            options.sync_timeout,
            progress.wait_for(|p| p.synced || p.failure.is_some()),
        )
        .await;
        tracing::debug!(document = %id, synced = ?started.elapsed(), "opened");
        let outcome = match synced {
            Ok(Ok(p)) => match &p.failure {
                Some(f) => Err(f.error.clone()),
                None => Ok(()),
            },
            Ok(Err(_)) => Err(session.closed_error()),
            Err(_) => Err(Error::SyncTimeout {
                waited: options.sync_timeout,
            }),
        };
        outcome.map(|()| session)
    }
}
