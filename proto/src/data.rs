//! The data of the values the protocol itself reads: `HS_ADMIN`, `HS_VLIST` and
//! `HS_PUBKEY` (the site record, `HS_SITE`, is in `site.rs`).

use crate::wire::{DecodeError, DecodeErrorKind, Reader, Write};

/// An `HS_ADMIN` value's data: who administers the handle and with what permissions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AdminRef {
    /// The permission bits (`handle_id::record::AdminPermissions` names them).
    pub permissions: u16,
    /// The administrator's handle.
    pub handle: Vec<u8>,
    /// The index of the administrator's key or group value there.
    pub index: u32,
    /// Two bytes a server before 7.3 wrote after the index, kept as they were.
    pub legacy: Option<[u8; 2]>,
}

impl AdminRef {
    /// Reads `HS_ADMIN` data.
    ///
    /// # Errors
    ///
    /// Lengths past the end, or bytes left over other than the two of the legacy form.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let permissions = r.u16()?;
        let handle = r.bytes()?.to_vec();
        let index = r.u32()?;
        let legacy = match r.remaining() {
            0 => None,
            2 => Some([r.u8()?, r.u8()?]),
            _ => return Err(r.error(DecodeErrorKind::TrailingBytes)),
        };
        Ok(Self {
            permissions,
            handle,
            index,
            legacy,
        })
    }

    /// Writes it.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.permissions.to_be_bytes());
        out.bytes(&self.handle);
        out.u32(self.index);
        if let Some(legacy) = self.legacy {
            out.extend_from_slice(&legacy);
        }
    }
}

/// An `HS_VLIST` value's data: a group, as references to values of handles.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueRefList(pub Vec<(Vec<u8>, u32)>);

impl ValueRefList {
    /// Reads `HS_VLIST` data.
    ///
    /// # Errors
    ///
    /// Lengths past the end, or bytes left over.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let n = r.count(8)?;
        let list = (0..n)
            .map(|_| Ok((r.bytes()?.to_vec(), r.u32()?)))
            .collect::<Result<_, DecodeError>>()?;
        r.end()?;
        Ok(Self(list))
    }

    /// Writes it.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.count(self.0.len());
        for (handle, index) in &self.0 {
            out.bytes(handle);
            out.u32(*index);
        }
    }
}

/// A public key as `HS_PUBKEY` data and a site's server records hold it: its type and
/// its numbers (big-endian, as Java's `BigInteger` writes them, sign byte included).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PublicKey {
    /// `DSA_PUB_KEY`, `RSA_PUB_KEY` or `DH_PUB_KEY`.
    pub kind: Vec<u8>,
    /// Reserved, 0.
    pub flags: u16,
    /// The numbers, in the order of the type: DSA q, p, g, y; RSA exponent, modulus;
    /// DH y, p, g.
    pub numbers: Vec<Vec<u8>>,
    /// Bytes after the numbers, which no reader reads: the reference writes an RSA key
    /// with four zero bytes there (its buffer has room for a length it does not write).
    pub rest: Vec<u8>,
}

impl PublicKey {
    /// An RSA public key from the magnitudes (big-endian) of its exponent and modulus.
    #[must_use]
    pub fn rsa(exponent: &[u8], modulus: &[u8]) -> Self {
        Self {
            kind: b"RSA_PUB_KEY".to_vec(),
            flags: 0,
            numbers: vec![java_integer(exponent), java_integer(modulus)],
            rest: Vec::new(),
        }
    }

    /// Reads `HS_PUBKEY` data.
    ///
    /// # Errors
    ///
    /// A key type this crate does not know, lengths past the end.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let kind = r.bytes()?.to_vec();
        let flags = r.u16()?;
        let n = match &kind[..] {
            b"DSA_PUB_KEY" => 4,
            b"RSA_PUB_KEY" => 2,
            b"DH_PUB_KEY" => 3,
            _ => {
                return Err(DecodeError::new(
                    0,
                    DecodeErrorKind::Invalid("an unknown key type"),
                ))
            }
        };
        let numbers = (0..n)
            .map(|_| r.bytes().map(<[u8]>::to_vec))
            .collect::<Result<_, _>>()?;
        let rest = r.take(r.remaining())?.to_vec();
        Ok(Self {
            kind,
            flags,
            numbers,
            rest,
        })
    }

    /// Writes it.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.bytes(&self.kind);
        out.extend_from_slice(&self.flags.to_be_bytes());
        for n in &self.numbers {
            out.bytes(n);
        }
        out.extend_from_slice(&self.rest);
    }
}

/// A big-endian magnitude as Java's `BigInteger.toByteArray` writes it (as the reference
/// writes a key's numbers): no leading zeros, but one when the top bit is set.
#[must_use]
pub fn java_integer(magnitude: &[u8]) -> Vec<u8> {
    let start = magnitude
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(magnitude.len());
    let n = &magnitude[start..];
    let mut out = Vec::with_capacity(n.len() + 1);
    if n.first().is_none_or(|&b| b & 0x80 != 0) {
        out.push(0);
    }
    out.extend_from_slice(n);
    out
}

/// Decodes with `decode` and re-encodes: for tests of the exact inverse.
#[cfg(test)]
pub(crate) fn round_trip<T>(
    bytes: &[u8],
    decode: impl Fn(&[u8]) -> Result<T, DecodeError>,
    encode: impl Fn(&T, &mut Vec<u8>),
) -> Vec<u8> {
    let value = decode(bytes).expect("decodes");
    let mut out = Vec::new();
    encode(&value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_and_vlist_round_trip() {
        let admin = AdminRef {
            permissions: 0x0fff,
            handle: b"0.NA/10.1000".to_vec(),
            index: 200,
            legacy: None,
        };
        let mut bytes = Vec::new();
        admin.encode(&mut bytes);
        assert_eq!(AdminRef::decode(&bytes).unwrap(), admin);
        bytes.extend_from_slice(&[0, 0, 0]);
        assert!(AdminRef::decode(&bytes).is_err());
        let list = ValueRefList(vec![(b"0.NA/1".to_vec(), 300), (b"1/2".to_vec(), 1)]);
        let mut bytes = Vec::new();
        list.encode(&mut bytes);
        assert_eq!(
            round_trip(&bytes, ValueRefList::decode, ValueRefList::encode),
            bytes
        );
    }
}
