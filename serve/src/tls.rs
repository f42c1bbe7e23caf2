//! TLS for `hdl serve --tls-cert --tls-key` (SPEC W4): rustls on ring, TLS 1.2 and 1.3,
//! HTTP/1.1 by ALPN.

use std::path::Path;
use std::sync::Arc;

use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{crypto::ring, ServerConfig};

/// The server's TLS configuration: the certificate chain of `cert` (PEM, the server's
/// certificate first) and the private key of `key` (PEM: PKCS #8, PKCS #1 or SEC1).
///
/// # Errors
///
/// A file cannot be read, holds no certificate or key, or the key is not the
/// certificate's, each said with the file.
pub fn config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert {}: no PEM certificate in it",
            cert.display()
        ));
    }
    let private = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("--tls-key {}: {e}", key.display()))?;
    let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| {
            format!(
                "--tls-cert {} and --tls-key {}: {e}",
                cert.display(),
                key.display()
            )
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
