//! Who a write request is from, and what they may do (SPEC W3–W6): HTTP Basic with
//! `index:handle` as the user name, checked against that handle's `HS_SECKEY` value, as
//! HANDLE.NET's REST API accepts it; then the `HS_ADMIN` values that give the identity the
//! permissions an operation needs, directly or through `HS_VLIST` groups, as the reference
//! server checks them. No I/O: records are read through the caller's [`Lookup`].

use std::collections::{HashSet, VecDeque};

use handle_id::record::{AdminPermissions, Data, HandleValue, ValueReference};
use handle_id::{Handle, HandleRef};

use crate::store::{Lookup, StoreError};

/// The longest `Authorization` header read: a user name and a key fit many times over.
pub const MAX_AUTHORIZATION: usize = 8 * 1024;

/// The most group values (`HS_VLIST`) read in looking for an identity among an operation's
/// admins: the reference reads groups until none is left; a bound keeps a loop or a vast
/// web of groups from holding a write.
pub const MAX_GROUPS: usize = 64;

/// An identity: a handle and the index of its key value (0: any of its keys).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub handle: Handle,
    pub index: u32,
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.index, self.handle.as_str())
    }
}

/// The credentials of a request's `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct Basic {
    pub identity: Identity,
    pub password: Vec<u8>,
}

impl std::fmt::Debug for Basic {
    /// Never the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Basic")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

/// Why an `Authorization` header gives no credentials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// A scheme other than Basic (the reference's `Handle` challenge-response is not
    /// taken here: SPEC W4).
    Scheme(String),
    /// Basic, but not as it is written: said why.
    Malformed(&'static str),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Scheme(s) => write!(
                f,
                "the Authorization scheme {s:?} is not taken here: use Basic with index:handle and the secret key (SPEC W4)"
            ),
            Self::Malformed(why) => write!(f, "the Authorization header: {why}"),
        }
    }
}

/// Reads an `Authorization` header as the reference reads Basic (SPEC W3): `Basic`, one
/// run of white space, base64 of `user:password`; the user name is URL-decoded (a `+`
/// stays), then `index:handle` when what comes before its first `:` is digits, else the
/// whole name is the handle with index 0.
///
/// # Errors
///
/// Another scheme, or Basic that does not read, or a user name that is not a handle.
pub fn parse_authorization(value: &[u8]) -> Result<Basic, HeaderError> {
    if value.len() > MAX_AUTHORIZATION {
        return Err(HeaderError::Malformed("longer than 8 KiB"));
    }
    let text = std::str::from_utf8(value).map_err(|_| HeaderError::Malformed("not UTF-8"))?;
    let mut parts = text.split_ascii_whitespace();
    let (Some(scheme), Some(token), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(match text.split_ascii_whitespace().next() {
            Some(s) if !s.eq_ignore_ascii_case("Basic") => HeaderError::Scheme(s.to_owned()),
            _ => HeaderError::Malformed("not `Basic` and one base64 token"),
        });
    };
    if !scheme.eq_ignore_ascii_case("Basic") {
        return Err(HeaderError::Scheme(scheme.to_owned()));
    }
    let bytes = handle_id::record::base64_decode(token)
        .map_err(|_| HeaderError::Malformed("the token is not base64"))?;
    let colon = memchr::memchr(b':', &bytes).ok_or(HeaderError::Malformed(
        "no ':' between user name and password",
    ))?;
    // `%XX` decoded and a `+` left as it is (the reference's `decodeURLIgnorePlus`).
    let user = String::from_utf8(crate::app::percent_decode(&bytes[..colon]))
        .map_err(|_| HeaderError::Malformed("the user name is not UTF-8"))?;
    let (index, handle) = match user.split_once(':') {
        Some((digits, handle))
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            let index = digits
                .parse()
                .map_err(|_| HeaderError::Malformed("the index is too large"))?;
            (index, handle)
        }
        _ => (0, user.as_str()),
    };
    let handle = Handle::parse(handle)
        .map_err(|_| HeaderError::Malformed("the user name is not index:handle"))?;
    Ok(Basic {
        identity: Identity { handle, index },
        password: bytes[colon + 1..].to_vec(),
    })
}

/// Whether `a` and `b` are the same bytes, in a time that depends on their lengths only.
#[must_use]
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().max(b.len());
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..n {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0);
    }
    std::hint::black_box(diff) == 0
}

/// The identity the credentials prove, if they do (SPEC W3): an `HS_SECKEY` value of the
/// identity's handle, at its index (any, for index 0), whose data is the password. The
/// identity comes back with the index of the key that matched.
///
/// # Errors
///
/// A read of the store failed.
pub fn verify(lookup: &Lookup<'_>, basic: &Basic) -> Result<Option<Identity>, StoreError> {
    let Some(record) = lookup(basic.identity.handle.as_handle_ref())? else {
        return Ok(None);
    };
    // Every candidate compared, so that the time says nothing of which one matched.
    let mut matched = None;
    for v in record.values() {
        if !v.value_type().eq_ignore_ascii_case("HS_SECKEY")
            || (basic.identity.index != 0 && v.index() != basic.identity.index)
        {
            continue;
        }
        let key: &[u8] = match v.data() {
            Data::String(s) => s.as_bytes(),
            Data::Base64 { bytes, .. } | Data::Hex { bytes, .. } => bytes,
            _ => continue,
        };
        if same_secret(key, &basic.password) && matched.is_none() {
            matched = Some(v.index());
        }
    }
    Ok(matched.map(|index| Identity {
        handle: basic.identity.handle.clone(),
        index,
    }))
}

/// Whether an admin reference names `who` (the reference's `isMatchedBy`): the same
/// handle in any ASCII case, and the same index unless the reference's is 0 (any).
fn names(admin: &ValueReference, who: &Identity) -> bool {
    admin
        .handle
        .as_str()
        .eq_ignore_ascii_case(who.handle.as_str())
        && (admin.index == 0 || admin.index == who.index)
}

/// Whether `who` holds every permission of `needed` by the `HS_ADMIN` values among
/// `values` (SPEC W5): an admin value with all of them that names `who`, or names a group
/// (`HS_VLIST` at that handle and index) that holds `who`, directly or through groups
/// within it, at most [`MAX_GROUPS`] groups read. Groups are read from the store only.
///
/// # Errors
///
/// A read of the store failed.
pub fn permitted(
    lookup: &Lookup<'_>,
    who: &Identity,
    needed: u16,
    values: &[HandleValue],
) -> Result<bool, StoreError> {
    let mut queue = VecDeque::new();
    for v in values {
        let Data::Admin(admin) = v.data() else {
            continue;
        };
        if !v.value_type().eq_ignore_ascii_case("HS_ADMIN") || !admin.permissions.contains(needed) {
            continue;
        }
        if names(&admin.admin, who) {
            return Ok(true);
        }
        queue.push_back(admin.admin.clone());
    }
    let mut seen = HashSet::new();
    let mut read = 0;
    while let Some(group) = queue.pop_front() {
        // Index 0 names no one value: no group (as the reference).
        if group.index == 0 || !seen.insert(group.clone()) {
            continue;
        }
        if read == MAX_GROUPS {
            break;
        }
        read += 1;
        let Some(record) = lookup(group.handle.as_handle_ref())? else {
            continue;
        };
        for v in record.values() {
            let Data::Vlist(members) = v.data() else {
                continue;
            };
            if v.index() != group.index || !v.value_type().eq_ignore_ascii_case("HS_VLIST") {
                continue;
            }
            for member in members {
                if names(member, who) {
                    return Ok(true);
                }
                if !seen.contains(member) {
                    queue.push_back(member.clone());
                }
            }
        }
    }
    Ok(false)
}

/// The handle whose `HS_ADMIN` values say who may create `handle` (SPEC W6), and the
/// permission they must give: for a derived prefix's handle (`0.NA/a.b`), its parent's
/// prefix handle (`0.NA/a`) and [`AdminPermissions::ADD_DERIVED_PREFIX`]; for any other,
/// its prefix's handle (`0.NA/<prefix>`) and [`AdminPermissions::ADD_HANDLE`].
#[must_use]
pub fn creator(handle: HandleRef<'_>) -> Option<(Handle, u16)> {
    let (prefix, local) = handle.as_str().split_once('/')?;
    if prefix.eq_ignore_ascii_case("0.NA") {
        if let Some((parent, _)) = local.rsplit_once('.') {
            return Some((
                Handle::parse(&format!("0.NA/{parent}")).ok()?,
                AdminPermissions::ADD_DERIVED_PREFIX,
            ));
        }
    }
    Some((
        Handle::parse(&format!("0.NA/{prefix}")).ok()?,
        AdminPermissions::ADD_HANDLE,
    ))
}

/// Whether a value is an admin value (its changes need the admin permissions).
fn is_admin(v: &HandleValue) -> bool {
    v.value_type().eq_ignore_ascii_case("HS_ADMIN")
}

/// Whether anyone may change the value (`permissions` ending in `1`).
fn public_write(v: &HandleValue) -> bool {
    v.permissions().is_some_and(|p| p.ends_with('1'))
}

/// The permissions a change of `old` (the value at an index before) to `new` (after)
/// needs, as the reference computes them: adding, removing or changing an admin value
/// needs the admin permission, any other value the value permission; a value unchanged
/// (timestamp aside) needs none, and changing one anyone may write needs none.
#[must_use]
pub fn needed(old: Option<&HandleValue>, new: Option<&HandleValue>) -> u16 {
    use AdminPermissions as P;
    match (old, new) {
        (None, None) => 0,
        (None, Some(n)) => {
            if is_admin(n) {
                P::ADD_ADMIN
            } else {
                P::ADD_VALUE
            }
        }
        (Some(o), None) => {
            if is_admin(o) {
                P::REMOVE_ADMIN
            } else {
                P::REMOVE_VALUE
            }
        }
        (Some(o), Some(n)) => {
            if same_value(o, n) {
                return 0;
            }
            match (is_admin(o), is_admin(n)) {
                (true, true) => P::MODIFY_ADMIN,
                // The reference's "admin to value" and "value to admin" permissions are
                // no flags of their own in the REST API's twelve: they need both.
                (true, false) => P::REMOVE_ADMIN | P::ADD_VALUE,
                (false, true) => P::REMOVE_VALUE | P::ADD_ADMIN,
                (false, false) if public_write(o) => 0,
                (false, false) => P::MODIFY_VALUE,
            }
        }
    }
}

/// The same value but for its timestamp.
#[must_use]
pub fn same_value(a: &HandleValue, b: &HandleValue) -> bool {
    a.index() == b.index()
        && a.value_type() == b.value_type()
        && a.data() == b.data()
        && a.ttl() == b.ttl()
        && a.permissions().unwrap_or("1110") == b.permissions().unwrap_or("1110")
        && a.references().unwrap_or_default() == b.references().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> String {
        handle_id::record::base64(s.as_bytes())
    }

    #[test]
    fn basic_reads_as_the_reference_reads_it() {
        let h = format!("Basic {}", b64("300%3A0.NA%2F20.1000:s3cr:et"));
        let basic = parse_authorization(h.as_bytes()).unwrap();
        assert_eq!(basic.identity.to_string(), "300:0.NA/20.1000");
        assert_eq!(basic.password, b"s3cr:et");
        assert!(!format!("{basic:?}").contains("s3cr"), "{basic:?}");
        // The first `:` ends the user name, so that one not encoded is only its index: no
        // handle (as the reference reads it). The scheme in any case, any white space.
        let h = format!("basic   {}", b64("300:0.NA/20.1000:x"));
        assert_eq!(
            parse_authorization(h.as_bytes()),
            Err(HeaderError::Malformed("the user name is not index:handle"))
        );
        // No index: index 0; a `+` stays a `+`.
        let h = format!("Basic {}", b64("20.1000/a+b:x"));
        let basic = parse_authorization(h.as_bytes()).unwrap();
        assert_eq!(basic.identity.to_string(), "0:20.1000/a+b");
    }

    #[test]
    fn what_is_not_basic_is_said() {
        let bad = |h: &str| parse_authorization(h.as_bytes()).unwrap_err();
        assert_eq!(
            bad("Handle sessionId=\"1\""),
            HeaderError::Scheme("Handle".into())
        );
        assert_eq!(bad("Bearer x"), HeaderError::Scheme("Bearer".into()));
        assert_eq!(
            bad("Basic"),
            HeaderError::Malformed("not `Basic` and one base64 token")
        );
        assert_eq!(
            bad("Basic !!!"),
            HeaderError::Malformed("the token is not base64")
        );
        assert_eq!(
            bad(&format!("Basic {}", b64("nocolon"))),
            HeaderError::Malformed("no ':' between user name and password")
        );
        assert_eq!(
            bad(&format!("Basic {}", b64("300:nohandle:x"))),
            HeaderError::Malformed("the user name is not index:handle")
        );
        assert_eq!(
            bad(&format!("Basic {}", b64("99999999999%3A0.NA%2F1:x"))),
            HeaderError::Malformed("the index is too large")
        );
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abc\0"));
        assert!(!same_secret(b"", b"\0"));
        assert!(same_secret(b"", b""));
    }

    #[test]
    fn who_creates_a_handle() {
        let c = |h: &str| {
            let (who, p) = creator(HandleRef::parse(h).unwrap()).unwrap();
            (who.as_str().to_owned(), p)
        };
        assert_eq!(
            c("20.1000/x"),
            ("0.NA/20.1000".into(), AdminPermissions::ADD_HANDLE)
        );
        assert_eq!(
            c("0.NA/20.1000"),
            ("0.NA/20".into(), AdminPermissions::ADD_DERIVED_PREFIX)
        );
        assert_eq!(
            c("0.NA/20"),
            ("0.NA/0.NA".into(), AdminPermissions::ADD_HANDLE)
        );
    }
}
