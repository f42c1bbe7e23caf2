//! A server's key (N13): an RSA key of 2,048 bits that signs certified answers as the
//! reference signs them (PKCS #1 v1.5 over SHA-256), kept as PKCS #8, and published in the
//! server's site record as `HS_PUBKEY` data, where clients find it to verify. The same key
//! signs an administrator's answer to a challenge (`hdl create --key`).
//!
//! [`verify`] checks any signature made by an `HS_PUBKEY` key, as the reference verifies
//! them: a challenge's answer, a certified message.

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

    /// A private key as a file holds it: PKCS #8 or PKCS #1, DER or PEM (`PRIVATE KEY`,
    /// `RSA PRIVATE KEY`, unencrypted), as OpenSSL writes RSA keys. The reference's own
    /// key files (`admpriv.bin`, its encoding, often encrypted) are not read.
    ///
    /// # Errors
    ///
    /// Bytes that are none of these.
    pub fn read(bytes: &[u8]) -> Result<Self, String> {
        use rsa::pkcs1::DecodeRsaPrivateKey;
        let text = std::str::from_utf8(bytes).unwrap_or("");
        if let Some(begin) = text.find("-----BEGIN ") {
            let rest = &text[begin + 11..];
            let label_end = rest.find("-----").ok_or("a PEM header without its end")?;
            let label = &rest[..label_end];
            let body = &rest[label_end + 5..];
            let end = body
                .find("-----END ")
                .ok_or("a PEM key without its END line")?;
            let b64: String = body[..end].split_ascii_whitespace().collect();
            let der =
                handle_id::record::base64_decode(&b64).map_err(|_| "the PEM body is not base64")?;
            return match label {
                "PRIVATE KEY" => Self::from_pkcs8(&der),
                "RSA PRIVATE KEY" => RsaPrivateKey::from_pkcs1_der(&der)
                    .map(Self::of)
                    .map_err(|e| format!("not an RSA key in PKCS #1: {e}")),
                other => Err(format!(
                    "a PEM {other:?}: an unencrypted RSA PRIVATE KEY or PRIVATE KEY is read"
                )),
            };
        }
        Self::from_pkcs8(bytes).or_else(|e| {
            RsaPrivateKey::from_pkcs1_der(bytes)
                .map(Self::of)
                .map_err(|_| e)
        })
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

/// Why a signature was not verified by an `HS_PUBKEY` key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// The key's bytes are not `HS_PUBKEY` data of a key that can verify (an unknown or
    /// Diffie-Hellman key, numbers out of bounds): said why.
    Key(&'static str),
    /// A digest algorithm that is not taken: unknown, or MD5, which is refused.
    Algorithm(String),
    /// The signature is not the key's signature of the data.
    Signature,
    /// A certified answer without a signature to check: none, one that does not read, or
    /// a session's MAC (no session is kept).
    Unsigned(&'static str),
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Key(why) => write!(f, "the public key: {why}"),
            Self::Algorithm(name) => write!(
                f,
                "the digest algorithm {name:?} is not taken (SHA1 or SHA-256)"
            ),
            Self::Signature => f.write_str("the signature does not verify"),
            Self::Unsigned(why) => write!(f, "the answer is not signed: {why}"),
        }
    }
}

impl std::error::Error for VerifyError {}

/// A digest a signature is made over, as the protocol names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digest {
    /// `SHA1`, `SHA-1` (or the code 2).
    Sha1,
    /// `SHA-256`, `SHA256` (or the code 3).
    Sha256,
}

impl Digest {
    /// The digest a hash algorithm identifier names, as the reference's
    /// `getSigIdFromHashAlgId` reads it: the names exactly as written, or a one-byte code.
    ///
    /// # Errors
    ///
    /// Any other name; MD5 (`MD5`, code 1), which the reference takes, is refused here: a
    /// digest with practical collisions proves nothing a signer meant.
    pub fn from_wire(name: &[u8]) -> Result<Self, VerifyError> {
        match name {
            b"SHA1" | b"SHA-1" | [2] => Ok(Self::Sha1),
            b"SHA-256" | b"SHA256" | [3] => Ok(Self::Sha256),
            _ => Err(VerifyError::Algorithm(
                String::from_utf8_lossy(&name[..name.len().min(32)]).into_owned(),
            )),
        }
    }

    /// The name the reference writes for it (`Common.HASH_ALG_SHA1`, `HASH_ALG_SHA256`).
    #[must_use]
    pub fn wire_name(self) -> &'static [u8] {
        match self {
            Self::Sha1 => b"SHA1",
            Self::Sha256 => b"SHA-256",
        }
    }
}

/// The largest RSA modulus and DSA prime taken, in bits: what the reference's keys are and
/// more, and a bound on the work a key from elsewhere can ask of a verification.
pub const MAX_KEY_BITS: usize = 4096;

/// Checks `signature` against `public_key` (`HS_PUBKEY` data, read as the reference reads
/// it: bytes after the key's numbers are not read) over `data`, with the digest `algorithm` names as
/// the wire names it (`SHA1`, `SHA-1`, `SHA-256`, `SHA256`; [`Digest::from_wire`]), as the
/// reference's `Signature` objects verify: RSA keys by PKCS #1 v1.5 (`SHA1withRSA`,
/// `SHA256withRSA`), DSA keys by a DER `(r, s)` (`SHA1withDSA`, `SHA256withDSA`).
///
/// What is signed is the caller's: a challenge's nonces one after the other, a message's
/// bytes. No panic on any input; the work is bounded by [`MAX_KEY_BITS`].
///
/// # Errors
///
/// The key does not read or cannot verify, the algorithm is not taken, or the signature
/// is not the key's over the data.
pub fn verify(
    public_key: &[u8],
    algorithm: &[u8],
    data: &[u8],
    signature: &[u8],
) -> Result<(), VerifyError> {
    use rsa::BigUint;
    let digest = Digest::from_wire(algorithm)?;
    // (Bytes after the numbers are not read, as the reference's `getPublicKeyFromBytes`
    // does not read them: its RSA keys end with four zero bytes.)
    let key = PublicKey::decode(public_key).map_err(|_| VerifyError::Key("not HS_PUBKEY data"))?;
    let number = |i: usize| -> Result<BigUint, VerifyError> {
        let bytes = &key.numbers[i][..];
        // Java's sign byte is no magnitude: a key is too large by its numbers, not bytes.
        let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
        if (bytes.len() - start) * 8 > MAX_KEY_BITS {
            return Err(VerifyError::Key("a number larger than 4,096 bits"));
        }
        Ok(BigUint::from_bytes_be(&bytes[start..]))
    };
    match &key.kind[..] {
        b"RSA_PUB_KEY" => {
            let public = rsa::RsaPublicKey::new(number(1)?, number(0)?)
                .map_err(|_| VerifyError::Key("not an RSA public key"))?;
            let (scheme, hashed) = match digest {
                Digest::Sha1 => {
                    use sha1::Digest as _;
                    (
                        rsa::Pkcs1v15Sign::new::<sha1::Sha1>(),
                        sha1::Sha1::digest(data).to_vec(),
                    )
                }
                Digest::Sha256 => {
                    use sha2::Digest as _;
                    (
                        rsa::Pkcs1v15Sign::new::<Sha256>(),
                        Sha256::digest(data).to_vec(),
                    )
                }
            };
            public
                .verify(scheme, &hashed, signature)
                .map_err(|_| VerifyError::Signature)
        }
        b"DSA_PUB_KEY" => {
            use rsa::signature::DigestVerifier;
            let (q, p, g, y) = (number(0)?, number(1)?, number(2)?, number(3)?);
            // q is 160, 224 or 256 bits in every DSA size (FIPS 186-4).
            if q.bits() > 256 {
                return Err(VerifyError::Key("a DSA q larger than 256 bits"));
            }
            let components = dsa::Components::from_components(p, q, g)
                .map_err(|_| VerifyError::Key("not DSA parameters"))?;
            let public = dsa::VerifyingKey::from_components(components, y)
                .map_err(|_| VerifyError::Key("not a DSA public key"))?;
            let signature =
                dsa::Signature::try_from(signature).map_err(|_| VerifyError::Signature)?;
            match digest {
                Digest::Sha1 => {
                    use sha1::Digest as _;
                    public.verify_digest(sha1::Sha1::new_with_prefix(data), &signature)
                }
                Digest::Sha256 => {
                    use sha2::Digest as _;
                    public.verify_digest(Sha256::new_with_prefix(data), &signature)
                }
            }
            .map_err(|_| VerifyError::Signature)
        }
        _ => Err(VerifyError::Key(
            "a key type that does not sign (DH_PUB_KEY)",
        )),
    }
}

/// Checks a certified answer as the reference's client checks one (N13,
/// `verifyResponseWithServerPublicKey`): its credential an `HS_SIGNED` signature, by the
/// key of the server that answered (`public_key`, `HS_PUBKEY` data from its site), over the
/// answer's envelope fields, the counter the credential gives, and its header and body as
/// sent (the encoder is the decoder's exact inverse: the answer written again is the
/// bytes that came).
///
/// # Errors
///
/// [`VerifyError`]: no signature, or one that does not verify by that key.
pub fn verify_answer(
    envelope: &handle_proto::Envelope,
    answer: &handle_proto::Message,
    public_key: &[u8],
) -> Result<(), VerifyError> {
    use handle_proto::credential::{signed_data, SignedCredential};
    let handle_proto::Credential::Signed(bytes) = &answer.credential else {
        return Err(VerifyError::Unsigned("no signature"));
    };
    let credential = SignedCredential::decode(bytes)
        .map_err(|_| VerifyError::Unsigned("a credential that does not read"))?;
    if credential.kind != b"HS_SIGNED" {
        return Err(VerifyError::Unsigned("not an HS_SIGNED credential"));
    }
    if public_key.is_empty() {
        return Err(VerifyError::Key("the server publishes none"));
    }
    let written = answer.to_bytes();
    let header_and_body = &written[..written.len() - 4 - bytes.len()];
    let data = signed_data(envelope, credential.index, header_and_body);
    verify(
        public_key,
        &credential.algorithm,
        &data,
        &credential.signature,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> &'static ServerKey {
        static KEY: std::sync::OnceLock<ServerKey> = std::sync::OnceLock::new();
        KEY.get_or_init(|| ServerKey::generate().unwrap())
    }

    #[test]
    fn a_signature_verifies_with_its_key_and_data_only() {
        let k = key();
        let signature = k.sign(b"nonce+cnonce");
        for alg in [&b"SHA-256"[..], b"SHA256", &[3]] {
            assert_eq!(
                verify(&k.public_key(), alg, b"nonce+cnonce", &signature),
                Ok(())
            );
        }
        // Other data, another digest, a changed signature, another key: no.
        assert_eq!(
            verify(&k.public_key(), b"SHA-256", b"nonce+cnoncf", &signature),
            Err(VerifyError::Signature)
        );
        assert_eq!(
            verify(&k.public_key(), b"SHA1", b"nonce+cnonce", &signature),
            Err(VerifyError::Signature)
        );
        let mut bad = signature.clone();
        bad[10] ^= 1;
        assert_eq!(
            verify(&k.public_key(), b"SHA-256", b"nonce+cnonce", &bad),
            Err(VerifyError::Signature)
        );
        assert_eq!(
            verify(
                &k.public_key(),
                b"SHA-256",
                b"nonce+cnonce",
                &signature[1..]
            ),
            Err(VerifyError::Signature)
        );
        let other = ServerKey::generate().unwrap();
        assert_eq!(
            verify(&other.public_key(), b"SHA-256", b"nonce+cnonce", &signature),
            Err(VerifyError::Signature)
        );
    }

    #[test]
    fn sha1_signatures_verify_as_the_reference_takes_them() {
        use rsa::signature::{SignatureEncoding, Signer};
        let signer = SigningKey::<sha1::Sha1>::new(key().private.clone());
        let signature = signer.sign(b"data").to_vec();
        for alg in [&b"SHA1"[..], b"SHA-1", &[2]] {
            assert_eq!(
                verify(&key().public_key(), alg, b"data", &signature),
                Ok(())
            );
        }
        assert_eq!(
            verify(&key().public_key(), b"SHA-256", b"data", &signature),
            Err(VerifyError::Signature)
        );
    }

    #[test]
    fn md5_and_unknown_digests_are_refused() {
        let k = key();
        let signature = k.sign(b"x");
        for alg in [&b"MD5"[..], &[1], b"sha-256", b"", b"SHA-512"] {
            assert!(
                matches!(
                    verify(&k.public_key(), alg, b"x", &signature),
                    Err(VerifyError::Algorithm(_))
                ),
                "{alg:?}"
            );
        }
    }

    // 1,024 bits: the size of the DSA keys the reference made (and quick to make here).
    #[allow(deprecated)]
    #[test]
    fn dsa_signatures_verify() {
        use dsa::signature::{DigestSigner, SignatureEncoding};
        use sha2::Digest as _;
        let components =
            dsa::Components::generate(&mut rand::thread_rng(), dsa::KeySize::DSA_1024_160);
        let signing = dsa::SigningKey::generate(&mut rand::thread_rng(), components);
        let v = signing.verifying_key();
        let c = v.components();
        let public = PublicKey {
            kind: b"DSA_PUB_KEY".to_vec(),
            flags: 0,
            numbers: [c.q(), c.p(), c.g(), v.y()]
                .iter()
                .map(|n| handle_proto::java_integer(&n.to_bytes_be()))
                .collect(),
            rest: Vec::new(),
        };
        let mut bytes = Vec::new();
        public.encode(&mut bytes);
        let sig256: dsa::Signature = signing.sign_digest(Sha256::new_with_prefix(b"data"));
        let sig1: dsa::Signature = signing.sign_digest(sha1::Sha1::new_with_prefix(b"data"));
        assert_eq!(
            verify(&bytes, b"SHA-256", b"data", &sig256.to_vec()),
            Ok(())
        );
        assert_eq!(verify(&bytes, b"SHA1", b"data", &sig1.to_vec()), Ok(()));
        assert_eq!(
            verify(&bytes, b"SHA1", b"data", &sig256.to_vec()),
            Err(VerifyError::Signature)
        );
        assert_eq!(
            verify(&bytes, b"SHA-256", b"other", &sig256.to_vec()),
            Err(VerifyError::Signature)
        );
        assert_eq!(
            verify(&bytes, b"SHA-256", b"data", b"\x30\x00"),
            Err(VerifyError::Signature)
        );
    }

    #[test]
    fn malformed_keys_fail_without_panic() {
        let k = key();
        let signature = k.sign(b"x");
        let good = k.public_key();
        let mut cases: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"RSA_PUB_KEY".to_vec(),
            good[..good.len() - 1].to_vec(),
        ];
        // Every prefix, and every byte of the key's framing changed but the reserved flags
        // (bytes 15 and 16), which are not read.
        cases.extend((0..40).map(|n| good[..n].to_vec()));
        for i in (0..24).filter(|i| !(15..17).contains(i)) {
            let mut b = good.clone();
            b[i] ^= 0xff;
            cases.push(b);
        }
        let dh = |numbers: Vec<Vec<u8>>, kind: &[u8]| {
            let mut out = Vec::new();
            PublicKey {
                kind: kind.to_vec(),
                flags: 0,
                numbers,
                rest: Vec::new(),
            }
            .encode(&mut out);
            out
        };
        cases.push(dh(vec![vec![1], vec![2], vec![3]], b"DH_PUB_KEY"));
        // Zero numbers, a modulus far too large, DSA parameters that are no group.
        cases.push(dh(vec![vec![], vec![]], b"RSA_PUB_KEY"));
        cases.push(dh(vec![vec![1, 0, 1], vec![0xff; 1024]], b"RSA_PUB_KEY"));
        cases.push(dh(vec![vec![0]; 4], b"DSA_PUB_KEY"));
        cases.push(dh(
            vec![vec![7], vec![23], vec![5], vec![9]],
            b"DSA_PUB_KEY",
        ));
        cases.push(dh(
            vec![vec![0xff; 64], vec![0xff; 600], vec![2], vec![3]],
            b"DSA_PUB_KEY",
        ));
        for case in cases {
            assert!(
                verify(&case, b"SHA-256", b"x", &signature).is_err(),
                "{case:?}"
            );
        }
    }

    /// An RSA key as the reference writes it: four zero bytes after the modulus, which
    /// its reader does not read (nor anything else after the numbers).
    #[test]
    fn keys_as_the_reference_writes_them_verify() {
        let k = key();
        let signature = k.sign(b"x");
        let reference = [&k.public_key()[..], &[0, 0, 0, 0]].concat();
        assert_eq!(verify(&reference, b"SHA-256", b"x", &signature), Ok(()));
        // The codec keeps them, to write the key back as it came.
        let read = PublicKey::decode(&reference).unwrap();
        assert_eq!(read.rest, [0, 0, 0, 0]);
        let mut again = Vec::new();
        read.encode(&mut again);
        assert_eq!(again, reference);
    }

    #[test]
    fn private_keys_read_from_pem_and_der() {
        let k = key();
        let der = k.to_pkcs8().unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            handle_id::record::base64(&der)
        );
        for bytes in [der.clone(), pem.into_bytes()] {
            let read = ServerKey::read(&bytes).unwrap();
            assert_eq!(read.public_key(), k.public_key());
        }
        assert!(
            ServerKey::read(b"-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----").is_err()
        );
        assert!(ServerKey::read(b"junk").is_err());
    }
}
