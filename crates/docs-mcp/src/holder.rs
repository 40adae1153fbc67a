//! Before a token goes to the service holding a data directory — the CLI's control token, the
//! agents' token relayed by the bridge or a stdio service, a stdio service's control token
//! sent by the service taking its directory over — that service proves it is the holder: the
//! lock names the endpoint it bound (none while its port was taken), and it answers a fresh
//! nonce with the proof of a key only the lock file holds ([`crate::lock::proof`]). Whatever
//! else listens on that port (a process that took it first) receives nothing.
//!
//! The proof is asked as `GET /health?proof=<nonce>`; tokens go to loopback addresses only
//! (`loopback_base`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::lock::Holder;

/// How long the holder has to answer the challenge.
const PROOF_WAIT: Duration = Duration::from_secs(5);

/// The holder of a data directory, proven, and where to reach it.
#[derive(Debug, Clone)]
pub struct Verified {
    pub holder: Holder,
    /// Its base URL, e.g. `http://127.0.0.1:7658`.
    pub base: String,
}

/// Why no token is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unverified {
    #[error(
        "the Docs MCP service is not running (no service holds the data directory {}): start the Docs MCP app or `docs-mcp serve`",
        dir.display()
    )]
    NoService { dir: PathBuf },
    #[error(
        "{holder} holds the data directory but listens on no HTTP endpoint (its port was taken when it started): stop whatever uses the port, then restart it"
    )]
    NotListening { holder: String },
    #[error(
        "{url} is not an address of this computer: tokens are only sent to 127.0.0.1, [::1] or localhost"
    )]
    NotLoopback { url: String },
    #[error("{url} is not where the Docs MCP service of this data directory listens ({endpoint})")]
    Elsewhere { url: String, endpoint: String },
    #[error(
        "what answers at {base} is not the Docs MCP service holding the data directory (it could not prove it): nothing was sent to it. Another program may have taken the port"
    )]
    Impostor { base: String },
    #[error("the Docs MCP service at {base} did not answer: {error}")]
    Unreachable { base: String, error: String },
}

/// The holder of `data_dir`, proven — reached at `url` when one is given (a loopback address
/// of the holder's port), else at the endpoint the lock names.
pub async fn verified(data_dir: &Path, url: Option<&str>) -> Result<Verified, Unverified> {
    let asked = url.map(loopback_base).transpose()?;
    let Some(holder) = crate::lock::holder(data_dir) else {
        return Err(Unverified::NoService {
            dir: data_dir.to_owned(),
        });
    };
    let Some(endpoint) = holder.endpoint.clone() else {
        return Err(Unverified::NotListening {
            holder: holder.to_string(),
        });
    };
    let bound = loopback_base(&endpoint)?;
    let base = match (url, asked) {
        (Some(url), Some(asked)) => {
            if port_of(&asked) != port_of(&bound) {
                return Err(Unverified::Elsewhere {
                    url: url.to_owned(),
                    endpoint,
                });
            }
            asked
        }
        _ => bound.clone(),
    };
    let nonce = crate::clients::new_token();
    let answered = reqwest::Client::new()
        .get(format!("{base}/health"))
        .query(&[("proof", nonce.as_str())])
        .timeout(PROOF_WAIT)
        .send()
        .await;
    let unreachable = |error: String| Unverified::Unreachable {
        base: base.clone(),
        error,
    };
    let body: serde_json::Value = match answered {
        Ok(response) => response.json().await.unwrap_or_default(),
        Err(e) => return Err(unreachable(e.to_string())),
    };
    let proven = !holder.proof_key.is_empty()
        && body.get("proof").and_then(|p| p.as_str())
            == Some(crate::lock::proof(&holder.proof_key, &nonce).as_str());
    if !proven {
        return Err(Unverified::Impostor { base });
    }
    Ok(Verified { holder, base })
}

/// `http://HOST:PORT` of a loopback URL (an `/mcp` endpoint or a base), else why not.
pub fn loopback_base(url: &str) -> Result<String, Unverified> {
    let refused = || Unverified::NotLoopback {
        url: url.to_owned(),
    };
    let parsed = reqwest::Url::parse(url.trim()).map_err(|_| refused())?;
    let host = parsed.host_str().ok_or_else(refused)?.to_owned();
    let loopback = match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
    {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    };
    if parsed.scheme() != "http" || !loopback {
        return Err(refused());
    }
    let port = parsed.port_or_known_default().ok_or_else(refused)?;
    Ok(format!("http://{host}:{port}"))
}

fn port_of(base: &str) -> &str {
    base.rsplit_once(':').map_or("", |(_, port)| port)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_go_to_loopback_addresses_only() {
        assert_eq!(
            loopback_base("http://127.0.0.1:7658/mcp").unwrap(),
            "http://127.0.0.1:7658"
        );
        assert_eq!(
            loopback_base("http://localhost:7700").unwrap(),
            "http://localhost:7700"
        );
        assert_eq!(
            loopback_base("http://[::1]:7658/").unwrap(),
            "http://[::1]:7658"
        );
        for refused in [
            "http://example.org:7658/mcp",
            "https://127.0.0.1:7658",
            "http://10.0.0.1:7658",
            "http://127.0.0.1.example.org:7658",
            "http://localhost.example.org",
            "not a url",
        ] {
            assert_eq!(
                loopback_base(refused),
                Err(Unverified::NotLoopback {
                    url: refused.to_owned()
                }),
                "{refused}"
            );
        }
    }
}
