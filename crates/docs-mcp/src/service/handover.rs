//! One data directory, one service: a lasting service (the app, `docs-mcp serve`) asks a
//! stdio service holding the directory to hand it over, and takes it (see [`crate::stdio`]
//! for the stdio side).
//!
//! `start_taking_over` is the taking side; `hand_over` and `handing_over` the stdio side's.
//!
//! A stdio service says in the lock that it hands over (`hands_over`). Asked over the control
//! channel, it answers its calls under way (a wait for approval ends `pending`), frees its port,
//! saves, frees the directory, and relays its client to the taker, replaying the client's
//! `initialize` so that the client keeps its session; when the taker goes and the directory is
//! free, it serves the client again the same way.

use std::sync::Arc;
use std::time::Duration;

use super::DocsService;
use crate::config::ServiceConfig;
use crate::error::{ServiceError, ServiceResult};
use crate::lock::Holder;

/// How long a lasting service waits for a stdio service to finish its calls, save and
/// free the directory (it waits 10 s at most for its calls, then saves).
const HANDOVER_WAIT: Duration = Duration::from_secs(25);

impl DocsService {
    /// [`DocsService::start`]; when a stdio service holds the data directory, asks it to
    /// hand the directory over and takes it. Any other holder is refused as by `start`.
    pub async fn start_taking_over(config: ServiceConfig) -> ServiceResult<Arc<Self>> {
        let refused = match Self::start(config.clone()).await {
            Err(ServiceError::DataDirInUse(refused)) => refused,
            started => return started,
        };
        let Some(holder) = crate::lock::holder(&config.data_dir).filter(|h| h.hands_over) else {
            return Err(ServiceError::DataDirInUse(refused));
        };
        if let Err(e) = ask_to_hand_over(&config, &holder).await {
            return Err(ServiceError::DataDirInUse(format!(
                "{refused}; it did not hand the directory over: {e}"
            )));
        }
        tracing::info!("{holder} hands the data directory over");
        let deadline = tokio::time::Instant::now() + HANDOVER_WAIT;
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            match Self::start(config.clone()).await {
                Err(ServiceError::DataDirInUse(_)) if tokio::time::Instant::now() < deadline => {}
                started => return started,
            }
        }
    }

    /// Another service asked for the data directory: waits for approval end, the stdio
    /// client's calls are answered and it goes on at the other service. `false` (and
    /// nothing happens) for a service that does not hand over.
    pub fn hand_over(&self) -> bool {
        if !self.config.hands_over {
            return false;
        }
        self.handover.cancel();
        true
    }

    /// Resolves once [`DocsService::hand_over`] was called.
    pub async fn handing_over(&self) {
        self.handover.cancelled().await
    }

    pub fn is_handing_over(&self) -> bool {
        self.handover.is_cancelled()
    }
}

/// `POST /control/handover` to the holder, with the control token it published.
async fn ask_to_hand_over(config: &ServiceConfig, holder: &Holder) -> Result<(), String> {
    let control = crate::authority::read(&config.data_dir)
        .ok_or("it published no control token in the data directory")?;
    // Only to the holder, proven: never to whatever else listens on its port.
    let verified = crate::holder::verified(&config.data_dir, None)
        .await
        .map_err(|e| e.to_string())?;
    if verified.holder.pid != holder.pid {
        return Err(format!("{} holds the directory now", verified.holder));
    }
    let base = verified.base.as_str();
    let response = reqwest::Client::new()
        .post(format!("{base}/control/handover"))
        .bearer_auth(control.expose())
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .map_err(|e| format!("{base} did not answer: {e}"))?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(format!(
            "{base} answered HTTP {}: {}",
            response.status().as_u16(),
            response.text().await.unwrap_or_default().trim()
        ))
    }
}
