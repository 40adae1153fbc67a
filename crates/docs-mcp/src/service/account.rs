//! The account the service works as on its instance: a session checked with `users/me`
//! before the instance is reconnected with it (`sign_in`), ended on the instance too
//! (`sign_out`, `GET /api/v1.0/logout/` without following the redirect), or taken up at the
//! start from the configuration or the keyring (`restore_session`) — off the MCP handshake's
//! path, tool calls waiting for it (`announce_in_background`, `session_restored`).

use std::sync::Arc;
use std::time::Duration;

use docs_client::{InstanceUrl, Secret, User};
use tokio::sync::watch;

use super::DocsService;
use crate::credentials::SessionCredentials;
use crate::error::{ServiceError, ServiceResult};
use crate::events::ServiceEvent;

impl DocsService {
    /// The user a session belongs to, asked with a client of its own so that nothing changes
    /// when the instance refuses it.
    async fn verify(&self, url: &InstanceUrl, session: &SessionCredentials) -> ServiceResult<User> {
        let probe = self.client_for(url.clone(), Some(session.clone()))?;
        probe.me().await.map_err(|error| match error {
            docs_client::Error::Unauthorized { .. } => ServiceError::SessionInvalid,
            other => other.into(),
        })
    }

    /// Signs in with the cookies of a browser session (`docs_sessionid`, `csrftoken`): checked
    /// with `users/me` first, then the instance is reconnected as that user and the session
    /// kept in the OS keyring (in memory only where there is none). A refused session changes
    /// nothing.
    pub async fn sign_in(
        &self,
        session_cookie: Secret,
        csrf_token: Option<Secret>,
    ) -> ServiceResult<User> {
        let url = self.instance()?.client.instance().clone();
        let session = SessionCredentials {
            session_cookie,
            csrf_token,
        };
        let user = self.verify(&url, &session).await?;
        let persisted = self.config.credentials.save(&url, &session).await;
        self.switch_account(&url, Some(session), Some(user.clone()), persisted)?;
        tracing::info!(instance = %url, persisted, "signed in");
        Ok(user)
    }

    /// Ends the session on the instance, forgets it (keyring included) and goes on
    /// anonymously: public documents still work.
    pub async fn sign_out(&self) -> ServiceResult<()> {
        let client = self.instance()?.client.clone();
        let url = client.instance().clone();
        // Best effort: the session is forgotten here whether or not the instance answers.
        if client.config().session_cookie.is_some()
            && let Err(error) = client.end_session().await
        {
            tracing::warn!(%error, instance = %url, "the instance did not end the session");
        }
        self.config.credentials.forget(&url).await;
        self.switch_account(&url, None, None, false)?;
        tracing::info!(instance = %url, "signed out");
        Ok(())
    }

    /// Takes up the session given in the configuration or, without one, the session stored
    /// for the connected instance (by the app's sign-in), once the instance accepts it. A
    /// refused session is dropped (and removed from the keyring): the service stays
    /// anonymous. When the instance cannot be asked, a stored session is used unchecked.
    pub async fn restore_session(&self) -> ServiceResult<Option<User>> {
        let _restoring = Restoring::start(&self.restoring);
        let Ok(instance) = self.instance() else {
            return Ok(None);
        };
        let url = instance.client.instance().clone();
        let config = instance.client.config();
        let (session, stored) = match &config.session_cookie {
            Some(cookie) => (
                SessionCredentials {
                    session_cookie: cookie.clone(),
                    csrf_token: config.csrf_token.clone(),
                },
                false,
            ),
            None => match self.config.credentials.load(&url).await {
                Some(session) => (session, true),
                None => return Ok(None),
            },
        };
        match self.verify(&url, &session).await {
            Ok(user) => {
                if stored {
                    self.switch_account(&url, Some(session), Some(user.clone()), true)?;
                } else {
                    let _ = instance.account.set(user.clone());
                    self.emit(ServiceEvent::AccountChanged { signed_in: true });
                }
                tracing::info!(instance = %url, "signed in with the {} session", if stored { "stored" } else { "configured" });
                Ok(Some(user))
            }
            Err(ServiceError::SessionInvalid) => {
                tracing::info!(
                    instance = %url,
                    "the {} session was refused (expired or signed out): public documents only",
                    if stored { "stored" } else { "configured" }
                );
                if stored {
                    self.config.credentials.forget(&url).await;
                } else {
                    self.switch_account(&url, None, None, false)?;
                }
                Ok(None)
            }
            Err(error) => {
                if stored {
                    self.switch_account(&url, Some(session), None, true)?;
                }
                Err(error)
            }
        }
    }

    /// Reconnects the instance `url` with another session (or none), and tells the UIs.
    fn switch_account(
        &self,
        url: &InstanceUrl,
        session: Option<SessionCredentials>,
        account: Option<User>,
        persisted: bool,
    ) -> ServiceResult<()> {
        if self.instance()?.client.instance() != url {
            return Err(ServiceError::invalid(
                format!("the instance changed to another one than {url} meanwhile"),
                "Sign in again, on the instance now connected.",
            ));
        }
        let signed_in = session.is_some();
        self.connect(url.clone(), session, account, persisted)?;
        self.emit(ServiceEvent::AccountChanged { signed_in });
        Ok(())
    }

    /// The signed-in user, once the instance confirmed the session.
    pub fn account(&self) -> Option<User> {
        self.instance().ok()?.account.get().cloned()
    }

    /// Whether the session is kept in the OS keyring; `false` when there is none, or when it
    /// lives in memory only (no keyring, or given in the configuration).
    pub fn session_persisted(&self) -> bool {
        self.instance().is_ok_and(|i| i.session_persisted)
    }

    /// Whether a session cookie of a user was given (not just an anonymous one).
    pub fn has_user_session(&self) -> bool {
        self.instance()
            .is_ok_and(|i| i.client.config().session_cookie.is_some())
    }

    /// [`DocsService::announce`] off the caller's path, so that a client's MCP handshake is
    /// answered at once (the keyring, and Docs asked whether the stored session still holds,
    /// are a network round trip or more); tool calls wait for it ([`Self::session_restored`]).
    pub fn announce_in_background(self: &Arc<Self>) {
        let restoring = Restoring::start(&self.restoring);
        let service = self.clone();
        tokio::spawn(async move {
            service.announce().await;
            drop(restoring);
        });
    }

    /// Returns once no restoration of the Docs session is under way (or after
    /// [`SESSION_RESTORE_WAIT`]: a call then goes on with what the service has).
    pub async fn session_restored(&self) {
        let mut restoring = self.restoring.subscribe();
        let _ = tokio::time::timeout(SESSION_RESTORE_WAIT, restoring.wait_for(|n| *n == 0)).await;
    }

    /// Checks the stored Docs session and says what the service runs with.
    pub async fn announce(&self) {
        // Without DOCS_SESSION_COOKIE, the session the app stored in the keyring is used.
        if let Err(e) = self.restore_session().await {
            tracing::warn!(error = %e, "could not check the Docs session");
        }
        match &self.config().instance {
            Some(instance) => tracing::info!(
                "Docs instance: {instance} ({})",
                if self.has_user_session() {
                    "signed in"
                } else {
                    "anonymous: public documents only"
                }
            ),
            None => {
                tracing::warn!(
                    "no Docs instance configured: pass --instance or set DOCS_INSTANCE_URL"
                )
            }
        }
        let policy = self.config().default_policy;
        tracing::info!(
            "agent edits: {} by default{}",
            policy.as_str(),
            if policy == crate::record::Policy::Review {
                " — review them with `docs-mcp edits list` / `docs-mcp edits approve ID`"
            } else {
                ""
            }
        );
    }
}

/// The longest a tool call waits for the Docs session to be restored.
const SESSION_RESTORE_WAIT: Duration = Duration::from_secs(15);

/// One restoration of the Docs session under way, counted while it lives.
struct Restoring(watch::Sender<u32>);

impl Restoring {
    fn start(count: &watch::Sender<u32>) -> Self {
        count.send_modify(|n| *n += 1);
        Restoring(count.clone())
    }
}

impl Drop for Restoring {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}
