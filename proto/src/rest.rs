//! One model, two encodings: a value as it travels ([`WireValue`]) and as the REST API's
//! JSON has it ([`HandleValue`], `handle_id::record`), each into the other as HANDLE.NET's
//! REST API converts them (N8): data by type (`HS_ADMIN` as `admin`, `HS_VLIST` as
//! `vlist`, `HS_SITE` as `site`, `HS_PUBKEY` as `key`), else text as `string` and bytes
//! that do not read as text as `base64`; a timestamp of 0 left out; permissions only when
//! they are not the default; an absolute TTL as a time.

use handle_id::record::{
    base64, Admin, AdminPermissions, Data, HandleValue, Response, ResponseCode as RestCode,
    Ttl as RestTtl, ValueReference,
};
use handle_id::Handle;
use serde_json::{json, Map, Value};

use crate::codes::ResponseCode;
use crate::data::{AdminRef, PublicKey, ValueRefList};
use crate::message::{Body, Message};
use crate::site::{Interface, ServerInfo, SiteInfo};
use crate::value::{Permissions, Reference, Ttl, WireValue};

/// Why a value has no form in the other encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertError(pub String);

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConvertError {}

fn error(what: impl Into<String>) -> ConvertError {
    ConvertError(what.into())
}

/// A server's answer to a resolution of `handle` as the REST API writes it: the values, or
/// the code and the message.
#[must_use]
pub fn answer(handle: &str, answer: &Message) -> Response {
    let parsed = handle.parse().ok();
    match &answer.body {
        Body::Resolution {
            handle: h, values, ..
        } => response(h, values).unwrap_or_else(|e| {
            Response::error(
                RestCode::Error,
                parsed,
                Some(&format!("the answer has no REST form: {e}")),
            )
        }),
        Body::Error { message, .. } => {
            let message = String::from_utf8_lossy(message);
            let message = (!message.is_empty()).then_some(&*message);
            Response::error(
                RestCode::from_u32(answer.header.response_code.0),
                parsed,
                message,
            )
        }
        _ => Response::error(
            RestCode::from_u32(answer.header.response_code.0),
            parsed,
            Some(&format!(
                "answered {}",
                ResponseCode(answer.header.response_code.0)
            )),
        ),
    }
}

/// A successful resolution's REST response: the handle as asked, and its values.
///
/// # Errors
///
/// A handle that is not one (H1), or a value whose type is not UTF-8.
pub fn response(handle: &[u8], values: &[WireValue]) -> Result<Response, ConvertError> {
    let handle = std::str::from_utf8(handle)
        .ok()
        .and_then(|h| h.parse::<Handle>().ok())
        .ok_or_else(|| error("the handle is not one"))?;
    let values = values.iter().map(to_rest).collect::<Result<_, _>>()?;
    Ok(Response::new(handle, values))
}

/// The value as the REST API writes it.
///
/// # Errors
///
/// A type that is not UTF-8 (the JSON has no place for it).
pub fn to_rest(v: &WireValue) -> Result<HandleValue, ConvertError> {
    let value_type = v
        .type_str()
        .ok_or_else(|| error(format!("the type of value {} is not UTF-8", v.index)))?;
    let mut value = HandleValue::new(v.index, value_type, data_to_rest(value_type, &v.data));
    value = value.with_ttl(match v.ttl {
        Ttl::Relative(s) => RestTtl::Seconds(i64::from(s)),
        Ttl::Absolute(t) => RestTtl::Until(iso8601(i64::from(t))),
    });
    if v.permissions.0 & 0x0F != Permissions::DEFAULT.0 {
        value = value.with_permissions(&v.permissions.to_rest());
    }
    if v.timestamp != 0 {
        value = value.with_timestamp(&iso8601(i64::from(v.timestamp)));
    }
    if !v.references.is_empty() {
        let references = v
            .references
            .iter()
            .map(|r| {
                Ok(ValueReference {
                    handle: handle_of(&r.handle)?,
                    index: r.index,
                })
            })
            .collect::<Result<_, ConvertError>>()?;
        value = value.with_references(references);
    }
    Ok(value)
}

/// The value as it travels.
///
/// # Errors
///
/// Data of a format with no bytes this crate knows how to make (`site` or `key` JSON not
/// in the reference's shape, a format it does not know), or a timestamp or TTL that is not
/// an ISO 8601 time in the protocol's range.
pub fn from_rest(v: &HandleValue) -> Result<WireValue, ConvertError> {
    let ttl = match v.ttl() {
        None => Ttl::Relative(86_400),
        Some(RestTtl::Seconds(s)) => {
            Ttl::Relative(i32::try_from(*s).map_err(|_| error(format!("ttl {s} is out of range")))?)
        }
        Some(RestTtl::Until(t)) => Ttl::Absolute(seconds(t)?),
    };
    let timestamp = match v.timestamp() {
        Some(t) => u32::try_from(seconds(t)?)
            .map_err(|_| error(format!("timestamp {t} is before 1970")))?,
        None => 0,
    };
    let permissions = match v.permissions() {
        Some(p) => permissions(p)?,
        None => Permissions::DEFAULT,
    };
    let references = v
        .references()
        .unwrap_or_default()
        .iter()
        .map(|r| Reference {
            handle: r.handle.as_str().as_bytes().to_vec(),
            index: r.index,
        })
        .collect();
    Ok(WireValue {
        index: v.index(),
        timestamp,
        ttl,
        permissions,
        value_type: v.value_type().as_bytes().to_vec(),
        data: data_from_rest(v.data())?,
        references,
    })
}

/// A value's data in the REST API's form, by its type (N8).
fn data_to_rest(value_type: &str, data: &[u8]) -> Data {
    let typed = || -> Option<Data> {
        if has_type(value_type, "HS_ADMIN") {
            let a = AdminRef::decode(data).ok()?;
            return Some(Data::Admin(Admin {
                admin: ValueReference {
                    handle: handle_of(&a.handle).ok()?,
                    index: a.index,
                },
                permissions: AdminPermissions::from_bits(a.permissions),
            }));
        }
        if has_type(value_type, "HS_VLIST") {
            let list = ValueRefList::decode(data).ok()?;
            let refs = list
                .0
                .iter()
                .map(|(h, i)| {
                    Some(ValueReference {
                        handle: handle_of(h).ok()?,
                        index: *i,
                    })
                })
                .collect::<Option<_>>()?;
            return Some(Data::Vlist(refs));
        }
        if ["HS_SITE", "HS_SITE.PREFIX", "HS_NA_DELEGATE"]
            .iter()
            .any(|t| has_type(value_type, t))
        {
            return Some(Data::Site(site_json(&SiteInfo::decode(data).ok()?)));
        }
        if has_type(value_type, "HS_PUBKEY") {
            return Some(Data::Other {
                format: "key".into(),
                value: key_json(&PublicKey::decode(data).ok().filter(|k| k.rest.is_empty())?)?,
            });
        }
        None
    };
    if let Some(d) = typed() {
        return d;
    }
    match std::str::from_utf8(data) {
        Ok(text) if !looks_binary(data) => Data::String(text.into()),
        _ => {
            let text = base64(data);
            Data::Base64 {
                bytes: data.to_vec(),
                text,
            }
        }
    }
}

fn data_from_rest(data: &Data) -> Result<Vec<u8>, ConvertError> {
    let mut out = Vec::new();
    match data {
        Data::String(s) => out.extend_from_slice(s.as_bytes()),
        Data::Base64 { bytes, .. } | Data::Hex { bytes, .. } => out.extend_from_slice(bytes),
        Data::Admin(a) => AdminRef {
            permissions: a.permissions.bits(),
            handle: a.admin.handle.as_str().as_bytes().to_vec(),
            index: a.admin.index,
            legacy: None,
        }
        .encode(&mut out),
        Data::Vlist(list) => ValueRefList(
            list.iter()
                .map(|r| (r.handle.as_str().as_bytes().to_vec(), r.index))
                .collect(),
        )
        .encode(&mut out),
        Data::Site(value) => site_from_json(value)?.encode(&mut out),
        Data::Other { format, value } if format.eq_ignore_ascii_case("key") => {
            key_from_json(value)?.encode(&mut out);
        }
        other => {
            return Err(error(format!(
                "data of format {:?} has no bytes here",
                other.format()
            )))
        }
    }
    Ok(out)
}

/// The reference's `HandleValue.hasType`: the type, or one of its subtypes, ignoring ASCII
/// case.
fn has_type(value_type: &str, t: &str) -> bool {
    value_type.eq_ignore_ascii_case(t)
        || (value_type.len() > t.len()
            && value_type.as_bytes()[t.len()] == b'.'
            && value_type[..t.len()].eq_ignore_ascii_case(t))
}

/// The reference's test for data to write as `base64` rather than `string`: not UTF-8, or
/// a control character other than white space.
fn looks_binary(data: &[u8]) -> bool {
    data.iter()
        .any(|&b| (b < 0x20 && !(0x09..=0x13).contains(&b)) || b == 0x7F)
}

fn handle_of(bytes: &[u8]) -> Result<Handle, ConvertError> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|h| h.parse().ok())
        .ok_or_else(|| {
            error(format!(
                "{:?} is not a handle",
                String::from_utf8_lossy(bytes)
            ))
        })
}

fn permissions(text: &str) -> Result<Permissions, ConvertError> {
    if text == "*" {
        return Ok(Permissions(0x0F));
    }
    if text.len() != 4 || !text.bytes().all(|b| b == b'0' || b == b'1') {
        return Err(error(format!(
            "permissions {text:?} are not four 0s and 1s"
        )));
    }
    Ok(Permissions(
        text.bytes().fold(0, |acc, b| acc << 1 | (b - b'0')),
    ))
}

/// A site record as the REST API writes it (the reference's `SiteInfoGsonTypeAdapter`,
/// also the form of its `siteinfo.json`).
#[must_use]
pub fn site_json(site: &SiteInfo) -> Value {
    let mut o = Map::new();
    o.insert("version".into(), json!(site.format_version));
    o.insert(
        "protocolVersion".into(),
        json!(format!("{}.{}", site.protocol.0, site.protocol.1)),
    );
    o.insert("serialNumber".into(), json!(site.serial));
    o.insert("primarySite".into(), json!(site.is_primary()));
    o.insert("multiPrimary".into(), json!(site.is_multi_primary()));
    if site.hash_option != 2 {
        o.insert("hashOption".into(), json!(site.hash_option));
    }
    if !site.hash_filter.is_empty() {
        o.insert(
            "hashFilter".into(),
            json!(String::from_utf8_lossy(&site.hash_filter)),
        );
    }
    let attributes: Vec<Value> = site
        .attributes
        .iter()
        .map(|(n, v)| json!({"name": String::from_utf8_lossy(n), "value": String::from_utf8_lossy(v)}))
        .collect();
    o.insert("attributes".into(), json!(attributes));
    let servers: Vec<Value> = site
        .servers
        .iter()
        .map(|s| {
            let key = PublicKey::decode(&s.public_key)
                .ok()
                .filter(|k| k.rest.is_empty())
                .and_then(|k| key_json(&k))
                .map_or_else(
                    || json!({"format": "base64", "value": base64(&s.public_key)}),
                    |k| json!({"format": "key", "value": k}),
                );
            let interfaces: Vec<Value> = s
                .interfaces
                .iter()
                .map(|i| {
                    let protocol = match i.transport {
                        0 => json!("UDP"),
                        1 => json!("TCP"),
                        2 => json!("HTTP"),
                        3 => json!("HTTPS"),
                        n => json!(n),
                    };
                    json!({"query": i.service & 2 != 0, "admin": i.service & 1 != 0, "protocol": protocol, "port": i.port})
                })
                .collect();
            json!({"serverId": s.id, "address": s.ip().to_string(), "publicKey": key, "interfaces": interfaces})
        })
        .collect();
    o.insert("servers".into(), json!(servers));
    Value::Object(o)
}

fn site_from_json(v: &Value) -> Result<SiteInfo, ConvertError> {
    let bad = || error("a site record not in the REST API's shape");
    let field = |name: &str| v.get(name);
    let protocol = match field("protocolVersion").and_then(Value::as_str) {
        Some(text) => {
            let (major, minor) = text.split_once('.').ok_or_else(bad)?;
            (
                major.parse().map_err(|_| bad())?,
                minor.parse().map_err(|_| bad())?,
            )
        }
        None => (2, 11),
    };
    let flag = |name: &str| field(name).and_then(Value::as_bool).unwrap_or(false);
    let number =
        |v: Option<&Value>, default: u64| v.map_or(Some(default), Value::as_u64).ok_or_else(bad);
    let attributes = match field("attributes") {
        None => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .map(|a| {
                let text = |k: &str| {
                    a.get(k)
                        .and_then(Value::as_str)
                        .map(|s| s.as_bytes().to_vec())
                };
                Some((text("name")?, text("value")?))
            })
            .collect::<Option<_>>()
            .ok_or_else(bad)?,
        Some(_) => return Err(bad()),
    };
    let servers = field("servers")
        .or_else(|| field("serverList"))
        .and_then(Value::as_array)
        .ok_or_else(bad)?
        .iter()
        .map(|s| {
            let address: std::net::IpAddr = s
                .get("address")
                .and_then(Value::as_str)
                .and_then(|a| a.parse().ok())
                .ok_or_else(bad)?;
            let public_key = match s.get("publicKey") {
                Some(k) if k.get("format").and_then(Value::as_str) == Some("key") => {
                    let mut out = Vec::new();
                    key_from_json(k.get("value").ok_or_else(bad)?)?.encode(&mut out);
                    out
                }
                Some(k) => match k.get("value").and_then(Value::as_str) {
                    Some(text) => unbase64(text).ok_or_else(bad)?,
                    None => Vec::new(),
                },
                None => Vec::new(),
            };
            let interfaces = s
                .get("interfaces")
                .or_else(|| s.get("interfaceList"))
                .and_then(Value::as_array)
                .ok_or_else(bad)?
                .iter()
                .map(|i| {
                    let on = |k: &str| i.get(k).and_then(Value::as_bool).unwrap_or(false);
                    let transport = match i.get("protocol") {
                        Some(Value::String(p)) => match p.as_str() {
                            "UDP" => 0,
                            "TCP" => 1,
                            "HTTP" => 2,
                            "HTTPS" => 3,
                            _ => return Err(bad()),
                        },
                        Some(n) => n
                            .as_u64()
                            .and_then(|n| u8::try_from(n).ok())
                            .ok_or_else(bad)?,
                        None => return Err(bad()),
                    };
                    Ok(Interface {
                        service: u8::from(on("admin")) | u8::from(on("query")) << 1,
                        transport,
                        port: u32::try_from(number(i.get("port"), 0)?).map_err(|_| bad())?,
                    })
                })
                .collect::<Result<_, ConvertError>>()?;
            Ok(ServerInfo {
                id: u32::try_from(number(s.get("serverId"), 0)?).map_err(|_| bad())?,
                address: ServerInfo::address_bytes(address),
                public_key,
                interfaces,
            })
        })
        .collect::<Result<_, ConvertError>>()?;
    Ok(SiteInfo {
        format_version: u16::try_from(number(field("version"), 1)?).map_err(|_| bad())?,
        protocol,
        serial: u16::try_from(number(field("serialNumber"), 0)?).map_err(|_| bad())?,
        primary_mask: u8::from(flag("primarySite")) << 7 | u8::from(flag("multiPrimary")) << 6,
        hash_option: u8::try_from(number(field("hashOption"), 2)?).map_err(|_| bad())?,
        hash_filter: field("hashFilter")
            .and_then(Value::as_str)
            .map(|f| f.as_bytes().to_vec())
            .unwrap_or_default(),
        attributes,
        servers,
    })
}

/// A public key as the REST API writes it: a JWK of its numbers (DSA or RSA).
fn key_json(key: &PublicKey) -> Option<Value> {
    let n = |i: usize| base64url(unsigned(&key.numbers[i]));
    match &key.kind[..] {
        b"DSA_PUB_KEY" => Some(json!({"kty": "DSA", "y": n(3), "p": n(1), "q": n(0), "g": n(2)})),
        b"RSA_PUB_KEY" => Some(json!({"kty": "RSA", "n": n(1), "e": n(0)})),
        _ => None,
    }
}

fn key_from_json(v: &Value) -> Result<PublicKey, ConvertError> {
    let bad = || error("a key not in the REST API's shape (a DSA or RSA JWK)");
    let number = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .and_then(unbase64)
            .map(|b| crate::data::java_integer(&b))
            .ok_or_else(bad)
    };
    match v.get("kty").and_then(Value::as_str) {
        Some(k) if k.eq_ignore_ascii_case("DSA") => Ok(PublicKey {
            kind: b"DSA_PUB_KEY".to_vec(),
            flags: 0,
            numbers: vec![number("q")?, number("p")?, number("g")?, number("y")?],
            rest: Vec::new(),
        }),
        Some(k) if k.eq_ignore_ascii_case("RSA") => Ok(PublicKey {
            kind: b"RSA_PUB_KEY".to_vec(),
            flags: 0,
            numbers: vec![number("e")?, number("n")?],
            rest: Vec::new(),
        }),
        _ => Err(bad()),
    }
}

/// A big-endian number without the sign byte Java's `BigInteger` writes.
fn unsigned(n: &[u8]) -> &[u8] {
    match n {
        [0, rest @ ..] if !rest.is_empty() => rest,
        n => n,
    }
}

fn base64url(bytes: &[u8]) -> String {
    base64(bytes)
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_")
}

/// Base64 in either alphabet, padded or not.
fn unbase64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0_u32, 0);
    for c in text.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Seconds since 1970 as the REST API writes a time: `2000-04-10T22:41:46Z`.
#[must_use]
pub fn iso8601(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// The seconds since 1970 of a time written `YYYY-MM-DDTHH:MM:SS[.fff]Z`.
///
/// # Errors
///
/// Another shape, or a time outside what 4 signed bytes hold.
pub fn seconds(text: &str) -> Result<i32, ConvertError> {
    let bad = || {
        error(format!(
            "{text:?} is not a time written YYYY-MM-DDTHH:MM:SSZ"
        ))
    };
    time_seconds(text)
        .and_then(|total| i32::try_from(total).ok())
        .ok_or_else(bad)
}

/// The seconds since 1970 of a time written `YYYY-MM-DDTHH:MM:SS[.fff]Z`, of any year;
/// `None` for another shape.
#[must_use]
pub fn time_seconds(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let tail = text.get(19..)?;
    let zone_ok = tail == "Z"
        || (tail.starts_with('.')
            && tail.ends_with('Z')
            && tail[1..tail.len() - 1].bytes().all(|c| c.is_ascii_digit()));
    if !zone_ok {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(days_from_civil(y, m, d) * 86_400 + h * 3600 + mi * 60 + s)
}

/// The date (year, month, day) of a day counted from 1970-01-01 (Howard Hinnant's
/// algorithm).
#[must_use]
pub fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_both_ways() {
        assert_eq!(iso8601(955_406_506), "2000-04-10T22:41:46Z");
        assert_eq!(seconds("2000-04-10T22:41:46Z"), Ok(955_406_506));
        assert_eq!(seconds("1970-01-01T00:00:00.000Z"), Ok(0));
        for t in [
            0,
            1,
            86_399,
            951_782_400,
            1_700_000_000,
            i64::from(i32::MAX),
        ] {
            assert_eq!(i64::from(seconds(&iso8601(t)).unwrap()), t);
        }
        assert!(seconds("2000-04-10 22:41:46").is_err());
    }

    #[test]
    fn base64_both_ways() {
        for n in 0..20_u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(unbase64(&base64(&bytes)).unwrap(), bytes);
            assert_eq!(unbase64(&base64url(&bytes)).unwrap(), bytes);
        }
        assert_eq!(base64(b"hello"), "aGVsbG8=");
    }
}
