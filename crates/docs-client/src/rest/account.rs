//! The signed-in user: who it is (`users/me`), and ending the session on the instance.

use super::types::User;
use super::{DocsClient, http_builder};
use crate::error::{Error, Result};

impl DocsClient {
    pub async fn me(&self) -> Result<User> {
        self.get_json(self.instance().api("users/me/"), "the signed-in user")
            .await
    }

    /// Ends the signed-in session on the instance (`GET /api/v1.0/logout/`, as the Docs
    /// frontend does), so a copy of the cookie stops working too. The redirect that follows
    /// (the identity provider's end-session page, meant for a browser) is not followed.
    pub async fn end_session(&self) -> Result<()> {
        let Some(cookies) = self.cookie_header() else {
            return Ok(());
        };
        let url = self.instance().api("logout/");
        let no_redirect = http_builder(self.config())?
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::Network {
                detail: e.to_string(),
            })?;
        let response = no_redirect
            .get(url)
            .header(reqwest::header::COOKIE, cookies)
            .send()
            .await
            .map_err(|e| Error::Network {
                detail: e.to_string(),
            })?;
        let status = response.status();
        if status.is_success() || status.is_redirection() {
            Ok(())
        } else {
            Err(Error::Network {
                detail: format!("signing out answered HTTP {status}"),
            })
        }
    }
}
