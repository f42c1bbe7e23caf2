//! A server's key (N13): an RSA key of 2,048 bits that signs certified answers as the
//! reference signs them (PKCS #1 v1.5 over SHA-256), kept as PKCS #8, and published in the
//! server's site record as `HS_PUBKEY` data, where clients find it to verify.

use handle_proto::PublicKey;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use rsa::signature::{SignatureEncoding, Signer};
use rsa::traits::PublicKeyParts;
use rsa::RsaPrivateKey;
use sha2::Sha256;

/// A server's signing key.
pub struct ServerKey {
    signing: SigningKey<Sha256>,
    private: RsaPrivateKey,
}

impl ServerKey {
    /// A new key of 2,048 bits (a second or so).
    ///
    /// # Errors
    ///
    /// The system's random source failed.
    pub fn generate() -> Result<Self, String> {
        let private =
            RsaPrivateKey::new(&mut rand::thread_rng(), 2048).map_err(|e| e.to_string())?;
        Ok(Self::of(private))
    }

    fn of(private: RsaPrivateKey) -> Self {
        Self {
            signing: SigningKey::<Sha256>::new(private.clone()),
            private,
        }
    }

    /// The key read from its PKCS #8 (DER) bytes.
    ///
    /// # Errors
    ///
    /// Bytes that are not an RSA key in PKCS #8.
    pub fn from_pkcs8(der: &[u8]) -> Result<Self, String> {
        RsaPrivateKey::from_pkcs8_der(der)
            .map(Self::of)
            .map_err(|e| format!("not an RSA key in PKCS #8: {e}"))
    }

    /// The key as PKCS #8 (DER): what to keep (secret).
    ///
    /// # Errors
    ///
    /// The encoder failed (it does not, for a key it made).
    pub fn to_pkcs8(&self) -> Result<Vec<u8>, String> {
        self.private
            .to_pkcs8_der()
            .map(|d| d.as_bytes().to_vec())
            .map_err(|e| e.to_string())
    }

    /// The public key as `HS_PUBKEY` data (`RSA_PUB_KEY`, exponent, modulus).
    #[must_use]
    pub fn public_key(&self) -> Vec<u8> {
        let mut out = Vec::new();
        PublicKey::rsa(
            &self.private.e().to_bytes_be(),
            &self.private.n().to_bytes_be(),
        )
        .encode(&mut out);
        out
    }

    /// The signature of `data`: RSA PKCS #1 v1.5 over its SHA-256 digest (`SHA256withRSA`).
    #[must_use]
    pub fn sign(&self, data: &[u8]) -> Vec<u8> {
        self.signing.sign(data).to_vec()
    }
}
