//! TLS set-up shared by REST and WebSocket connections.
//!
//! rustls' crypto provider, installed once for the process.

/// Installs aws-lc-rs as rustls' process-wide provider. Two providers are compiled in
/// (through different dependencies), and rustls refuses to pick one by itself.
pub fn install_crypto_provider() {
    // An error only means a provider was installed already, which is what we want.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}
