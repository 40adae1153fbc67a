//! TLS set-up shared by REST and WebSocket connections: rustls' crypto provider, installed
//! once for the process, and the platform's certificate verifier, made once for it too.
//! Making a verifier loads the system's root certificates (on Linux, every file under
//! `/etc/ssl/certs`: tens of milliseconds), which each HTTP client and, left to itself, each
//! `wss://` connection would otherwise do again; it is made at the first connection, not
//! when a client is built, so that a service starting does not wait for it.

use std::sync::{Arc, OnceLock};

use rustls::ClientConfig;
use rustls::client::danger::ServerCertVerifier;

use crate::error::{Error, Result};

/// Installs aws-lc-rs as rustls' process-wide provider. Two providers are compiled in
/// (through different dependencies), and rustls refuses to pick one by itself.
pub fn install_crypto_provider() {
    // An error only means a provider was installed already, which is what we want.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}

/// The provider of our connections' cryptography, named rather than taken from the process
/// default (which another library may have set, or not yet).
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// The platform's verifier (the OS's trust store and its checks), made at the first call.
fn verifier() -> Result<Arc<dyn ServerCertVerifier>> {
    static VERIFIER: OnceLock<std::result::Result<Arc<dyn ServerCertVerifier>, String>> =
        OnceLock::new();
    VERIFIER
        .get_or_init(|| {
            rustls_platform_verifier::Verifier::new(provider())
                .map(|v| Arc::new(v) as Arc<dyn ServerCertVerifier>)
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|detail| Error::Network {
            detail: format!("the system's certificate verifier could not be set up: {detail}"),
        })
}

fn config_with(alpn: &[&[u8]]) -> Result<ClientConfig> {
    let mut config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Network {
            detail: format!("TLS set-up: {e}"),
        })?
        .dangerous()
        .with_custom_certificate_verifier(verifier()?)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(config)
}

/// For REST: HTTP/2 where the instance offers it, else HTTP/1.1.
pub(crate) fn rest_config() -> Result<ClientConfig> {
    config_with(&[b"h2", b"http/1.1"])
}

/// For the collaboration WebSocket (an HTTP/1.1 upgrade: no ALPN, as browsers' WebSockets).
pub(crate) fn websocket_config() -> Result<Arc<ClientConfig>> {
    static CONFIG: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    if let Some(config) = CONFIG.get() {
        return Ok(config.clone());
    }
    let config = Arc::new(config_with(&[])?);
    Ok(CONFIG.get_or_init(|| config).clone())
}
