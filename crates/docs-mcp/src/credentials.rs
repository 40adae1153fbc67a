//! The Docs session of a signed-in user, kept per instance in the OS keyring (service
//! `lasuite-docs-mcp`, user `docs-session <origin>`), so the app and `docs-mcp serve` share it.
//!
//! There is deliberately no file fallback: a session cookie is as good as the user's password
//! for 12 hours. Where no keyring works (headless Linux without a Secret Service), the session
//! lives only in the running service's memory, and the service says so (`session_persisted`).

use docs_client::{InstanceUrl, Secret};
use serde::{Deserialize, Serialize};

use crate::token::KEYRING_SERVICE;

/// The cookies of a signed-in browser session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCredentials {
    /// `docs_sessionid`.
    pub session_cookie: Secret,
    /// `csrftoken`, sent back as `X-CSRFToken` on unsafe requests.
    pub csrf_token: Option<Secret>,
}

/// What the keyring holds: one JSON value, so both cookies change together.
#[derive(Serialize, Deserialize)]
struct Stored {
    docs_sessionid: String,
    csrftoken: Option<String>,
}

impl SessionCredentials {
    fn to_stored(&self) -> String {
        serde_json::to_string(&Stored {
            docs_sessionid: self.session_cookie.expose().to_owned(),
            csrftoken: self.csrf_token.as_ref().map(|t| t.expose().to_owned()),
        })
        .expect("serializable")
    }

    fn from_stored(text: &str) -> Option<Self> {
        let stored: Stored = serde_json::from_str(text).ok()?;
        (!stored.docs_sessionid.is_empty()).then(|| SessionCredentials {
            session_cookie: Secret::new(stored.docs_sessionid),
            csrf_token: stored.csrftoken.filter(|t| !t.is_empty()).map(Secret::new),
        })
    }
}

/// The keyring user name of an instance's session.
pub fn keyring_user(instance: &InstanceUrl) -> String {
    format!("docs-session {}", instance.origin())
}

/// Where sessions are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialStore {
    /// The OS keyring (falls back to memory only when it does not work).
    OsKeyring,
    /// Never persisted: sessions live in the service's memory (tests, or by choice).
    MemoryOnly,
}

impl CredentialStore {
    /// The session stored for an instance, if the keyring works and has one.
    pub async fn load(self, instance: &InstanceUrl) -> Option<SessionCredentials> {
        if self == CredentialStore::MemoryOnly {
            return None;
        }
        let user = keyring_user(instance);
        match on_keyring_thread(move || match entry(&user)?.get_password() {
            Ok(text) => Ok(Some(text)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(error) => Err(error),
        })
        .await
        {
            Ok(Some(text)) => {
                let found = SessionCredentials::from_stored(&text);
                if found.is_none() {
                    tracing::warn!(%instance, "ignoring an unreadable session in the OS keyring");
                }
                found
            }
            Ok(None) => None,
            Err(error) => {
                tracing::debug!(%error, "the OS keyring is not available");
                None
            }
        }
    }

    /// Keeps a session; `true` when it is in the keyring, `false` when it lives in memory only.
    pub async fn save(self, instance: &InstanceUrl, credentials: &SessionCredentials) -> bool {
        if self == CredentialStore::MemoryOnly {
            return false;
        }
        let user = keyring_user(instance);
        let value = credentials.to_stored();
        let saved = on_keyring_thread(move || {
            let entry = entry(&user)?;
            entry.set_password(&value)?;
            // Some stores accept a write they cannot read back (a locked or mock store): check.
            match entry.get_password() {
                Ok(read) if read == value => Ok(()),
                Ok(_) => Err(keyring::Error::Invalid(
                    "password".into(),
                    "the keyring returned another value than the one stored".into(),
                )),
                Err(error) => Err(error),
            }
        })
        .await;
        match saved {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!(
                    %error,
                    %instance,
                    "no OS keyring available: the Docs session is kept in memory only, until Docs MCP quits"
                );
                false
            }
        }
    }

    /// Forgets the session of an instance (nothing to do when none is stored).
    pub async fn forget(self, instance: &InstanceUrl) {
        if self == CredentialStore::MemoryOnly {
            return;
        }
        let user = keyring_user(instance);
        match on_keyring_thread(move || entry(&user)?.delete_credential()).await {
            Ok(()) | Err(keyring::Error::NoEntry) => {}
            Err(error) => {
                tracing::debug!(%error, %instance, "could not remove the session from the OS keyring");
            }
        }
    }
}

fn entry(user: &str) -> Result<keyring::Entry, keyring::Error> {
    keyring::Entry::new(KEYRING_SERVICE, user)
}

/// Runs a keyring call on a thread of its own (the Secret Service client blocks on its own
/// runtime, which must not run inside tokio's) without blocking the async caller.
async fn on_keyring_thread<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, keyring::Error> + Send + 'static,
) -> Result<T, keyring::Error> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = tx.send(call());
    });
    rx.await.unwrap_or_else(|_| {
        Err(keyring::Error::PlatformFailure(
            "the keyring call panicked".into(),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyring_user_names_the_instance_origin() {
        let instance = InstanceUrl::parse("https://Docs.Example.org/docs/x/").unwrap();
        assert_eq!(
            keyring_user(&instance),
            "docs-session https://docs.example.org"
        );
    }

    #[test]
    fn stored_value_round_trips_both_cookies() {
        let credentials = SessionCredentials {
            session_cookie: Secret::new("abc"),
            csrf_token: Some(Secret::new("xyz")),
        };
        let text = credentials.to_stored();
        assert_eq!(text, r#"{"docs_sessionid":"abc","csrftoken":"xyz"}"#);
        assert_eq!(SessionCredentials::from_stored(&text), Some(credentials));
        assert_eq!(
            SessionCredentials::from_stored(r#"{"docs_sessionid":"abc","csrftoken":null}"#),
            Some(SessionCredentials {
                session_cookie: Secret::new("abc"),
                csrf_token: None
            })
        );
        assert_eq!(
            SessionCredentials::from_stored(r#"{"docs_sessionid":""}"#),
            None
        );
        assert_eq!(SessionCredentials::from_stored("not json"), None);
    }

    #[tokio::test]
    async fn memory_only_never_persists() {
        let instance = InstanceUrl::parse("https://docs.example.org").unwrap();
        let store = CredentialStore::MemoryOnly;
        let credentials = SessionCredentials {
            session_cookie: Secret::new("abc"),
            csrf_token: None,
        };
        assert!(!store.save(&instance, &credentials).await);
        assert_eq!(store.load(&instance).await, None);
        store.forget(&instance).await;
    }
}
