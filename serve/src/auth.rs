//! Who a write request is from, and what they may do (SPEC W3–W6): HTTP Basic with
//! `index:handle` as the user name, checked against that handle's `HS_SECKEY` value, or the
//! `Handle` scheme's challenge-response signed by a key of its `HS_PUBKEY` values (the
//! sessions are [`crate::sessions`]'), as HANDLE.NET's REST API accepts them; then the
//! `HS_ADMIN` values that give the identity the
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

/// The `Handle` scheme's fields (SPEC W3), as the reference reads them: each absent
/// unless given; `id` percent-decoded (a `+` stays). Nothing here is secret: the
/// signature proves a key against a nonce, and is no key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HandleHeader {
    pub version: Option<String>,
    pub session_id: Option<String>,
    pub id: Option<String>,
    pub cnonce: Option<String>,
    pub kind: Option<String>,
    pub alg: Option<String>,
    pub signature: Option<String>,
}

impl HandleHeader {
    /// Whether it tries to authenticate (the reference's `isAuthenticating`): any of
    /// `id`, `type`, `alg` or `signature` given. Else it names a session, at most.
    #[must_use]
    pub fn is_authenticating(&self) -> bool {
        self.id.is_some() || self.kind.is_some() || self.alg.is_some() || self.signature.is_some()
    }
}

/// The credentials of a request's `Authorization` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credentials {
    Basic(Basic),
    Handle(HandleHeader),
}

/// Why an `Authorization` header gives no credentials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// A scheme other than Basic or Handle.
    Scheme(String),
    /// Basic or Handle, but not as it is written: said why.
    Malformed(&'static str),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Scheme(s) => write!(
                f,
                "the Authorization scheme {s:?} is not taken here: Basic or Handle (SPEC W3)"
            ),
            Self::Malformed(why) => write!(f, "the Authorization header: {why}"),
        }
    }
}

/// Reads an `Authorization` header (SPEC W3): Basic or Handle ([`parse_handle`]).
///
/// # Errors
///
/// Another scheme, or one that does not read as [`parse_basic`] or [`parse_handle`] say.
pub fn parse_authorization(value: &[u8]) -> Result<Credentials, HeaderError> {
    if value.len() > MAX_AUTHORIZATION {
        return Err(HeaderError::Malformed("longer than 8 KiB"));
    }
    let text = std::str::from_utf8(value).map_err(|_| HeaderError::Malformed("not UTF-8"))?;
    let scheme = text.trim_start_matches(is_space);
    if scheme
        .get(..6)
        .is_some_and(|s| s.eq_ignore_ascii_case("Handle"))
        && scheme[6..].starts_with(is_space)
    {
        return parse_handle(&scheme[6..]).map(Credentials::Handle);
    }
    parse_basic(text).map(Credentials::Basic)
}

/// White space as Java's regular expressions' `\s` has it.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// The characters of an HTTP token (RFC 9110 `tchar`).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Reads the `Handle` scheme's parameters (what follows `Handle` and white space), as
/// the reference reads them: `name=value` pairs, each value a token or a quoted string
/// (`\` escapes the next character), separated by commas (and white space; a run of
/// commas is one); names in any ASCII case, unknown ones passed over, the last of a name
/// kept; `id` percent-decoded. Stricter than the reference in one way: text that is no
/// pair is refused, where the reference's search passes over it to the next pair.
///
/// # Errors
///
/// No parameters, a pair that does not read, two pairs without a comma between them.
pub fn parse_handle(params: &str) -> Result<HandleHeader, HeaderError> {
    let b = params.as_bytes();
    let mut i = 0;
    let skip = |i: &mut usize| {
        while *i < b.len() && is_space(b[*i] as char) {
            *i += 1;
        }
    };
    let mut header = HandleHeader::default();
    let mut any = false;
    skip(&mut i);
    while i < b.len() {
        let start = i;
        while i < b.len() && is_tchar(b[i]) {
            i += 1;
        }
        let name = &params[start..i];
        if name.is_empty() {
            return Err(HeaderError::Malformed("a Handle parameter without a name"));
        }
        skip(&mut i);
        if b.get(i) != Some(&b'=') {
            return Err(HeaderError::Malformed("a Handle parameter without '='"));
        }
        i += 1;
        skip(&mut i);
        let value = if b.get(i) == Some(&b'"') {
            i += 1;
            let mut v = String::new();
            loop {
                let Some(c) = params[i..].chars().next() else {
                    return Err(HeaderError::Malformed("a quoted string without its end"));
                };
                i += c.len_utf8();
                match c {
                    '"' => break,
                    '\\' => {
                        let Some(e) = params[i..].chars().next() else {
                            return Err(HeaderError::Malformed("a quoted string without its end"));
                        };
                        i += e.len_utf8();
                        v.push(e);
                    }
                    c => v.push(c),
                }
            }
            v
        } else {
            let start = i;
            while i < b.len() && is_tchar(b[i]) {
                i += 1;
            }
            if start == i {
                return Err(HeaderError::Malformed("a Handle parameter without a value"));
            }
            params[start..i].to_owned()
        };
        any = true;
        let field = match name.to_ascii_lowercase().as_str() {
            "version" => &mut header.version,
            "sessionid" => &mut header.session_id,
            "cnonce" => &mut header.cnonce,
            "type" => &mut header.kind,
            "alg" => &mut header.alg,
            "signature" => &mut header.signature,
            "id" => {
                let id = String::from_utf8(crate::app::percent_decode(value.as_bytes()))
                    .map_err(|_| HeaderError::Malformed("the id is not UTF-8"))?;
                header.id = Some(id);
                skip_commas(b, &mut i, &skip)?;
                continue;
            }
            _ => {
                skip_commas(b, &mut i, &skip)?;
                continue;
            }
        };
        *field = Some(value);
        skip_commas(b, &mut i, &skip)?;
    }
    if !any {
        return Err(HeaderError::Malformed("Handle without parameters"));
    }
    Ok(header)
}

/// After a pair: white space, then commas and white space, or the end; a pair must have
/// a comma before the next.
fn skip_commas(b: &[u8], i: &mut usize, skip: &dyn Fn(&mut usize)) -> Result<(), HeaderError> {
    skip(i);
    let mut comma = false;
    while b.get(*i) == Some(&b',') {
        comma = true;
        *i += 1;
        skip(i);
    }
    if !comma && *i < b.len() {
        return Err(HeaderError::Malformed(
            "two Handle parameters without a comma between them",
        ));
    }
    Ok(())
}

/// Reads Basic as the reference reads it (SPEC W3): `Basic`, one run of white space,
/// base64 of `user:password`; the user name is URL-decoded (a `+` stays), then
/// `index:handle` when what comes before its first `:` is digits, else the whole name is
/// the handle with index 0.
///
/// # Errors
///
/// Another scheme, or Basic that does not read, or a user name that is not a handle.
pub fn parse_basic(text: &str) -> Result<Basic, HeaderError> {
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
    Ok(Basic {
        identity: identity_of(&user)?,
        password: bytes[colon + 1..].to_vec(),
    })
}

/// An identity as the reference reads a user name or a `Handle` `id`: `index:handle` when
/// what comes before the first `:` is digits, else the whole of it the handle, index 0.
///
/// # Errors
///
/// An index too large, or a handle that does not parse.
pub fn identity_of(user: &str) -> Result<Identity, HeaderError> {
    let (index, handle) = match user.split_once(':') {
        Some((digits, handle))
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            let index = digits
                .parse()
                .map_err(|_| HeaderError::Malformed("the index is too large"))?;
            (index, handle)
        }
        _ => (0, user),
    };
    let handle = Handle::parse(handle)
        .map_err(|_| HeaderError::Malformed("the user name is not index:handle"))?;
    Ok(Identity { handle, index })
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

/// The longest identity handle a `Handle` header is taken for: identities are short
/// (`0.NA/20.1000`), and a session keeps its identity, so that this bounds a session.
pub const MAX_IDENTITY: usize = 1024;

/// The digest a `Handle` header's `alg` names, as the wire names it for
/// [`handle_net::key::verify`] (the reference's `constructSignedResponse`: `SHA`, `SHA1`,
/// `SHA-1`; `SHA-256`, `SHA256`, `SHA-2`, `SHA2`; any ASCII case). MD5, which the
/// reference also takes, is not (SPEC W3); the HMAC names are for secret keys.
#[must_use]
pub fn handle_alg(alg: &str) -> Option<&'static [u8]> {
    let a = alg.to_ascii_uppercase();
    match a.as_str() {
        "SHA" | "SHA1" | "SHA-1" => Some(b"SHA1"),
        "SHA-256" | "SHA256" | "SHA-2" | "SHA2" => Some(b"SHA-256"),
        _ => None,
    }
}

/// The identity a `Handle` header's answer to the session's `nonce` proves, if it does
/// (SPEC W3): `type` `HS_PUBKEY`, and `signature` a signature of the nonce followed by the
/// client's `cnonce` by a key of the identity's `HS_PUBKEY` values (at its index, or any
/// for index 0, in index order); or `type` `HS_SECKEY`, and `signature` their MAC
/// ([`mac_alg`]) by a key of its `HS_SECKEY` values; read from this server's store. The
/// identity comes back with the index of the key that verified. `Ok(Err(why))` says why not, in the words the
/// reference puts in its `WWW-Authenticate` `error`.
///
/// # Errors
///
/// A read of the store failed.
pub fn verify_handle(
    lookup: &Lookup<'_>,
    header: &HandleHeader,
    nonce: &[u8],
) -> Result<Result<Identity, String>, StoreError> {
    if header.version.as_deref().is_some_and(|v| v != "0") {
        return Ok(Err("Unknown version in Authorization: Handle".into()));
    }
    let (Some(id), Some(cnonce), Some(kind), Some(alg), Some(signature)) = (
        &header.id,
        &header.cnonce,
        &header.kind,
        &header.alg,
        &header.signature,
    ) else {
        return Ok(Err("Missing fields in authentication data".into()));
    };
    let secret = match kind.as_str() {
        "HS_PUBKEY" => None,
        "HS_SECKEY" => match mac_alg(alg) {
            Some(mac) => Some(mac),
            None => {
                return Ok(Err(
                    "Error parsing Authorization: Handle: an HS_SECKEY answer's alg is HMAC-SHA256, HMAC-SHA1, SHA-256 or SHA1".into(),
                ))
            }
        },
        _ => {
            return Ok(Err(format!(
                "Unknown authType {}",
                kind.chars().take(64).collect::<String>()
            )))
        }
    };
    let alg = match (secret, handle_alg(alg)) {
        (Some(_), _) => &b""[..],
        (None, Some(alg)) => alg,
        (None, None) => {
            return Ok(Err(
                "Error parsing Authorization: Handle: the alg is not SHA1 or SHA-256".into(),
            ))
        }
    };
    let (Ok(cnonce), Ok(signature)) = (
        handle_id::record::base64_decode(cnonce),
        handle_id::record::base64_decode(signature),
    ) else {
        return Ok(Err(
            "Error parsing Authorization: Handle: cnonce and signature are base64".into(),
        ));
    };
    let who = match identity_of(id) {
        Ok(who) if who.handle.as_str().len() <= MAX_IDENTITY => who,
        _ => {
            return Ok(Err(
                "Error parsing Authorization: Handle: the id is not index:handle".into(),
            ))
        }
    };
    let Some(record) = lookup(who.handle.as_handle_ref())? else {
        return Ok(Err("Identity not verified, signature failed".into()));
    };
    let mut signed = Vec::with_capacity(nonce.len() + cnonce.len());
    signed.extend_from_slice(nonce);
    signed.extend_from_slice(&cnonce);
    if let Some(mac) = secret {
        return Ok(verify_secret(&record, &who, mac, &signed, &signature)
            .ok_or_else(|| "Identity not verified".to_owned()));
    }
    let mut keys: Vec<&HandleValue> = record
        .values()
        .iter()
        .filter(|v| {
            v.value_type().eq_ignore_ascii_case("HS_PUBKEY")
                && (who.index == 0 || v.index() == who.index)
        })
        .collect();
    keys.sort_by_key(|v| v.index());
    for v in keys {
        // The key's bytes as the protocol holds them, whatever format the record writes
        // them in (`base64`, `hex`, or the reference's `key`, a JWK).
        let Ok(wire) = handle_proto::rest::from_rest(v) else {
            continue;
        };
        if handle_net::key::verify(&wire.data, alg, &signed, &signature).is_ok() {
            return Ok(Ok(Identity {
                handle: who.handle,
                index: v.index(),
            }));
        }
    }
    Ok(Err("Identity not verified, signature failed".into()))
}

/// How an `HS_SECKEY` answer is made of the secret key and the nonces (the reference's
/// `Util.doMac`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mac {
    /// HMAC-SHA256 keyed by the secret key.
    HmacSha256,
    /// HMAC-SHA1 keyed by the secret key.
    HmacSha1,
    /// SHA-256 of the key, the nonces and the key again.
    Sha256,
    /// SHA-1 of the key, the nonces and the key again.
    Sha1,
}

/// The MAC a `Handle` header's `alg` names for an `HS_SECKEY` answer, as the reference's
/// `constructSignedResponse` reads it: the digest names of [`handle_alg`], and
/// `HMAC-SHA256` and `HMAC-SHA1` compared without ASCII case or punctuation. MD5 and
/// PBKDF2-HMAC-SHA1, which the reference also takes, are not (SPEC W3).
#[must_use]
pub fn mac_alg(alg: &str) -> Option<Mac> {
    let bare: String = alg
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    match (bare.as_str(), handle_alg(alg)) {
        ("HMACSHA256", _) => Some(Mac::HmacSha256),
        ("HMACSHA1", _) => Some(Mac::HmacSha1),
        (_, Some(b"SHA-256")) => Some(Mac::Sha256),
        (_, Some(_)) => Some(Mac::Sha1),
        _ => None,
    }
}

/// `mac` of `data` with `key`.
#[must_use]
pub fn mac(mac: Mac, key: &[u8], data: &[u8]) -> Vec<u8> {
    use hmac::{Hmac, Mac as _};
    use sha2::Digest as _;
    match mac {
        Mac::HmacSha256 => {
            let mut m = <Hmac<sha2::Sha256>>::new_from_slice(key).expect("HMAC takes any key");
            m.update(data);
            m.finalize().into_bytes().to_vec()
        }
        Mac::HmacSha1 => {
            let mut m = <Hmac<sha1::Sha1>>::new_from_slice(key).expect("HMAC takes any key");
            m.update(data);
            m.finalize().into_bytes().to_vec()
        }
        Mac::Sha256 => sha2::Sha256::new()
            .chain_update(key)
            .chain_update(data)
            .chain_update(key)
            .finalize()
            .to_vec(),
        Mac::Sha1 => sha1::Sha1::new()
            .chain_update(key)
            .chain_update(data)
            .chain_update(key)
            .finalize()
            .to_vec(),
    }
}

/// The identity an `HS_SECKEY` answer proves: `answer` the MAC of the nonces by a secret
/// key of the identity's (at its index, or any for index 0), compared in constant time,
/// every candidate compared (as the reference's server checks it, `verifyChallenge`).
fn verify_secret(
    record: &handle_id::record::Response,
    who: &Identity,
    kind: Mac,
    data: &[u8],
    answer: &[u8],
) -> Option<Identity> {
    let mut matched = None;
    for v in record.values() {
        if !v.value_type().eq_ignore_ascii_case("HS_SECKEY")
            || (who.index != 0 && v.index() != who.index)
        {
            continue;
        }
        let key: &[u8] = match v.data() {
            Data::String(s) => s.as_bytes(),
            Data::Base64 { bytes, .. } | Data::Hex { bytes, .. } => bytes,
            _ => continue,
        };
        if same_secret(&mac(kind, key, data), answer) && matched.is_none() {
            matched = Some(v.index());
        }
    }
    // With the index of the key that matched, as Basic's (W3).
    matched.map(|index| Identity {
        handle: who.handle.clone(),
        index,
    })
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

    fn basic(h: &str) -> Basic {
        match parse_authorization(h.as_bytes()).unwrap() {
            Credentials::Basic(b) => b,
            other => panic!("{other:?}"),
        }
    }

    fn handle(h: &str) -> Result<HandleHeader, HeaderError> {
        match parse_authorization(h.as_bytes())? {
            Credentials::Handle(h) => Ok(h),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_handle_scheme_reads_as_the_reference_reads_it() {
        let h = handle(
            "Handle version=\"0\", sessionId=\"abc\", cnonce=\"Y24=\", id=\"300%3A0.NA%2F20.1000\", type=\"HS_PUBKEY\", alg=\"SHA256\", signature=\"c2ln\"",
        )
        .unwrap();
        assert_eq!(h.version.as_deref(), Some("0"));
        assert_eq!(h.session_id.as_deref(), Some("abc"));
        assert_eq!(h.id.as_deref(), Some("300:0.NA/20.1000"));
        assert_eq!(h.kind.as_deref(), Some("HS_PUBKEY"));
        assert_eq!(h.alg.as_deref(), Some("SHA256"));
        assert_eq!(h.signature.as_deref(), Some("c2ln"));
        assert!(h.is_authenticating());
        // The scheme and names in any case; tokens unquoted; white space around `=` and
        // commas, several commas; escapes in quoted strings; unknown names passed over;
        // the last of a name kept; `+` in the id stays.
        let h = handle(
            "  hANDLE\tSESSIONID = x1 ,, nonce=\"n\", id=\"20.1000/a+b\",ID=\"0.NA/%32\" , foo=\"a\\\"b\\\\\" ,",
        )
        .unwrap();
        assert_eq!(h.session_id.as_deref(), Some("x1"));
        assert_eq!(h.id.as_deref(), Some("0.NA/2"));
        assert!(h.is_authenticating());
        let h = handle("Handle sessionId=\"s\"").unwrap();
        assert!(!h.is_authenticating());
        assert_eq!(
            handle("Handle id=\"a+b\"").unwrap().id.as_deref(),
            Some("a+b")
        );
        assert_eq!(
            handle("Handle x=\"a\\\\b\"").unwrap(),
            HandleHeader::default()
        );
        for bad in [
            "Handle ",
            "Handle",
            "Handle a",
            "Handle a=",
            "Handle =b",
            "Handle a=b c=d",
            "Handle a=\"b",
            "Handle a=\"b\\",
            "Handle a=(b)",
            "Handle id=\"%ff\"",
        ] {
            assert!(
                !matches!(
                    parse_authorization(bad.as_bytes()),
                    Ok(Credentials::Handle(_))
                ),
                "{bad}"
            );
        }
        // `Handle` is a scheme only before white space.
        assert_eq!(
            parse_authorization(b"Handles a=b"),
            Err(HeaderError::Scheme("Handles".into()))
        );
    }

    /// The answer to a nonce proves the identity by a key of its `HS_PUBKEY` values in any
    /// format the record writes (`base64`, or the reference's `key`, a JWK); index 0 takes
    /// the first key that verifies, in index order; anything else says why not.
    #[test]
    fn an_answer_proves_its_identity_by_any_of_its_keys() {
        use handle_id::record::{base64, Response};
        let key = handle_net::key::ServerKey::generate().unwrap();
        let public = handle_proto::PublicKey::decode(&key.public_key()).unwrap();
        let b64url = |b: &[u8]| {
            let start = b.iter().position(|&x| x != 0).unwrap_or(b.len());
            base64(&b[start..])
                .replace('+', "-")
                .replace('/', "_")
                .trim_end_matches('=')
                .to_owned()
        };
        let jwk = format!(
            r#"{{"kty":"RSA","n":"{}","e":"{}"}}"#,
            b64url(&public.numbers[1]),
            b64url(&public.numbers[0])
        );
        let record = Response::parse(&format!(
            r#"{{"responseCode":1,"handle":"20.1000/k","values":[{{"index":300,"type":"HS_PUBKEY","data":{{"format":"key","value":{jwk}}}}},{{"index":301,"type":"HS_PUBKEY","data":{{"format":"base64","value":"{}"}}}}]}}"#,
            base64(&key.public_key())
        ))
        .unwrap();
        let lookup = move |_: HandleRef<'_>| Ok(Some(record.clone()));
        let nonce = [9_u8; 16];
        let signature = key.sign(&[&nonce[..], b"cn"].concat());
        let header = |id: &str| HandleHeader {
            version: Some("0".into()),
            session_id: Some("s".into()),
            id: Some(id.into()),
            cnonce: Some(base64(b"cn")),
            kind: Some("HS_PUBKEY".into()),
            alg: Some("SHA-256".into()),
            signature: Some(base64(&signature)),
        };
        let proved = |h: &HandleHeader, nonce: &[u8]| {
            verify_handle(&lookup, h, nonce)
                .unwrap()
                .map(|who| who.to_string())
        };
        assert_eq!(
            proved(&header("300:20.1000/k"), &nonce),
            Ok("300:20.1000/k".into())
        );
        assert_eq!(
            proved(&header("301:20.1000/k"), &nonce),
            Ok("301:20.1000/k".into())
        );
        assert_eq!(
            proved(&header("20.1000/k"), &nonce),
            Ok("300:20.1000/k".into())
        );
        assert!(proved(&header("302:20.1000/k"), &nonce).is_err());
        assert!(proved(&header("300:20.1000/k"), &[8; 16]).is_err());
        let mut h = header("300:20.1000/k");
        h.version = Some("1".into());
        assert_eq!(
            proved(&h, &nonce),
            Err("Unknown version in Authorization: Handle".into())
        );
        let mut h = header("300:20.1000/k");
        h.cnonce = None;
        assert_eq!(
            proved(&h, &nonce),
            Err("Missing fields in authentication data".into())
        );
        let mut h = header("300:20.1000/k");
        h.kind = Some("HS_PUBKEX".into());
        assert!(proved(&h, &nonce).unwrap_err().contains("Unknown authType"));
        let mut h = header("300:20.1000/k");
        h.alg = Some("MD5".into());
        assert!(proved(&h, &nonce).is_err());
        let mut h = header("300:20.1000/k");
        h.signature = Some("not base64!".into());
        assert!(proved(&h, &nonce).is_err());
    }

    /// An `HS_SECKEY` answer: the MAC of the nonces by the secret key, by each MAC the
    /// reference takes but MD5 and PBKDF2; the index of the key that matched.
    #[test]
    fn a_secret_key_answer_proves_its_identity() {
        use handle_id::record::{base64, Response};
        let record = Response::parse(
            r#"{"responseCode":1,"handle":"20.1000/s","values":[{"index":7,"type":"HS_SECKEY","data":{"format":"string","value":"pw7"},"permissions":"1100"},{"index":8,"type":"HS_SECKEY","data":{"format":"string","value":"pw8"},"permissions":"1100"}]}"#,
        )
        .unwrap();
        let lookup = move |_: HandleRef<'_>| Ok(Some(record.clone()));
        let nonce = [5_u8; 16];
        let data = [&nonce[..], b"cn"].concat();
        let header = |id: &str, alg: &str, answer: &[u8]| HandleHeader {
            version: None,
            session_id: Some("s".into()),
            id: Some(id.into()),
            cnonce: Some(base64(b"cn")),
            kind: Some("HS_SECKEY".into()),
            alg: Some(alg.into()),
            signature: Some(base64(answer)),
        };
        let proved = |h: &HandleHeader| verify_handle(&lookup, h, &nonce).unwrap();
        for (alg, kind) in [
            ("HMAC-SHA256", Mac::HmacSha256),
            ("hmac_sha256", Mac::HmacSha256),
            ("HMAC-SHA1", Mac::HmacSha1),
            ("SHA-256", Mac::Sha256),
            ("SHA1", Mac::Sha1),
        ] {
            assert_eq!(mac_alg(alg), Some(kind), "{alg}");
            let answer = mac(kind, b"pw8", &data);
            assert_eq!(
                proved(&header("8:20.1000/s", alg, &answer)).map(|w| w.to_string()),
                Ok("8:20.1000/s".into()),
                "{alg}"
            );
            assert_eq!(
                proved(&header("20.1000/s", alg, &answer)).map(|w| w.to_string()),
                Ok("8:20.1000/s".into()),
                "{alg}"
            );
            assert!(
                proved(&header("7:20.1000/s", alg, &answer)).is_err(),
                "{alg}"
            );
        }
        // The well-known example of HMAC-SHA256 (key "key", the quick brown fox).
        assert_eq!(
            mac(
                Mac::HmacSha256,
                b"key",
                b"The quick brown fox jumps over the lazy dog"
            ),
            [
                0xf7, 0xbc, 0x83, 0xf4, 0x30, 0x53, 0x84, 0x24, 0xb1, 0x32, 0x98, 0xe6, 0xaa, 0x6f,
                0xb1, 0x43, 0xef, 0x4d, 0x59, 0xa1, 0x49, 0x46, 0x17, 0x59, 0x97, 0x47, 0x9d, 0xbc,
                0x2d, 0x1a, 0x3c, 0xd8
            ]
        );
        for alg in ["MD5", "PBKDF2-HMAC-SHA1", "HMAC-MD5", ""] {
            assert_eq!(mac_alg(alg), None, "{alg}");
        }
        let answer = mac(Mac::HmacSha256, b"pw8", &data);
        assert!(proved(&header("8:20.1000/s", "MD5", &answer)).is_err());
        assert!(proved(&header("8:20.1000/s", "HMAC-SHA256", &answer[1..])).is_err());
    }

    #[test]
    fn handle_algorithms_are_named_as_the_reference_names_them() {
        for (alg, wire) in [
            ("SHA", &b"SHA1"[..]),
            ("sha1", b"SHA1"),
            ("SHA-1", b"SHA1"),
            ("SHA-256", b"SHA-256"),
            ("sha256", b"SHA-256"),
            ("SHA-2", b"SHA-256"),
            ("SHA2", b"SHA-256"),
        ] {
            assert_eq!(handle_alg(alg), Some(wire), "{alg}");
        }
        for alg in ["MD5", "HMAC-SHA256", "SHA-512", ""] {
            assert_eq!(handle_alg(alg), None, "{alg}");
        }
    }

    #[test]
    fn basic_reads_as_the_reference_reads_it() {
        let h = format!("Basic {}", b64("300%3A0.NA%2F20.1000:s3cr:et"));
        let basic = basic(&h);
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
        let basic = self::basic(&h);
        assert_eq!(basic.identity.to_string(), "0:20.1000/a+b");
    }

    #[test]
    fn what_is_not_basic_is_said() {
        let bad = |h: &str| parse_authorization(h.as_bytes()).unwrap_err();
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
