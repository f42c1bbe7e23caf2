//! Reading and writing the REST API's JSON (R1–R3, R5). Reading goes through
//! `serde_json::Value` so that every error names the path it is at; writing keeps the
//! proxy's field order.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::error::{RecordError, RecordErrorKind};
use super::value::{Admin, AdminPermissions, Data, HandleValue, Ttl, ValueReference};
use super::{Response, ResponseCode};
use crate::handle::Handle;

impl Response {
    /// Reads a REST API response: JSON, or JSONP (`callback(<json>);`, R5).
    ///
    /// # Errors
    ///
    /// A [`RecordError`] naming where: the line and column of text that is not JSON, or the
    /// JSON path of a field that is missing, of the wrong type, out of range, a `handle`
    /// that is not a handle, or data that its format does not allow (bad base64 or hex,
    /// admin permissions that are not bits). JSON nested deeper than 128 levels is an error.
    pub fn parse(text: &str) -> Result<Self, RecordError> {
        let json = strip_jsonp(text).unwrap_or(text);
        let value: Value = serde_json::from_str(json).map_err(|e| {
            RecordError::new(
                RecordErrorKind::Json,
                format!("line {}, column {}", e.line(), e.column()),
                format!("not JSON: {e}"),
            )
        })?;
        Self::from_json(&value)
    }

    /// Reads a response from JSON already parsed.
    ///
    /// # Errors
    ///
    /// As [`Response::parse`], without the syntax errors.
    pub fn from_json(value: &Value) -> Result<Self, RecordError> {
        let object = as_object(value, "")?;
        let code = object
            .get("responseCode")
            .ok_or_else(|| missing("", "responseCode"))?;
        let code = ResponseCode::from_u32(as_u32(code, "responseCode")?);
        let handle = match object.get("handle") {
            None | Some(Value::Null) => None,
            Some(h) => Some(as_handle(h, "handle")?),
        };
        let values = match object.get("values") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| read_value(v, &format!("values[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(_) => return Err(wrong("values", "an array")),
        };
        let message = match object.get("message") {
            None | Some(Value::Null) => None,
            Some(m) => Some(as_str(m, "message")?.to_string()),
        };
        Ok(Self {
            code,
            handle,
            values,
            message,
        })
    }

    /// The response as the proxy writes it, on one line.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a response always serializes")
    }

    /// The response pretty-printed, as the proxy writes it for `?pretty`.
    #[must_use]
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a response always serializes")
    }

    /// The response as JSONP for `callback` (R5): `callback(<json>);`.
    ///
    /// # Errors
    ///
    /// A [`RecordError`] of kind [`RecordErrorKind::Shape`] when `callback` is not a
    /// JavaScript name or a dotted path of names (`f`, `app.handlers.done`): anything else
    /// would let a request write script into the response.
    pub fn to_jsonp(&self, callback: &str) -> Result<String, RecordError> {
        if !is_callback(callback) {
            return Err(RecordError::new(
                RecordErrorKind::Shape,
                "callback",
                "not a JavaScript name or dotted path of names (SPEC R5)",
            ));
        }
        Ok(format!("{callback}({});", self.to_json()))
    }
}

/// Whether `name` is a JSONP callback this crate writes and reads: names of ASCII letters,
/// digits, `_` and `$`, not starting with a digit, joined by `.`.
fn is_callback(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 256
        && name.split('.').all(|part| {
            part.bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        })
}

/// The JSON inside `callback(<json>);` (R5), when `text` is JSONP.
fn strip_jsonp(text: &str) -> Option<&str> {
    let text = text.trim();
    let open = text.find('(')?;
    if !is_callback(text[..open].trim_end()) {
        return None;
    }
    let rest = text[open + 1..].trim_end();
    let rest = rest.strip_suffix(';').unwrap_or(rest).trim_end();
    rest.strip_suffix(')')
}

fn missing(at: &str, field: &str) -> RecordError {
    let path = join(at, field);
    RecordError::new(RecordErrorKind::Shape, path, "missing (SPEC R1, R2)")
}

fn wrong(at: &str, expected: &str) -> RecordError {
    RecordError::new(
        RecordErrorKind::Shape,
        at,
        format!("expected {expected} (SPEC R1, R2)"),
    )
}

fn join(at: &str, field: &str) -> String {
    if at.is_empty() {
        field.to_string()
    } else {
        format!("{at}.{field}")
    }
}

fn as_object<'v>(value: &'v Value, at: &str) -> Result<&'v Map<String, Value>, RecordError> {
    value
        .as_object()
        .ok_or_else(|| wrong(if at.is_empty() { "response" } else { at }, "an object"))
}

fn as_str<'v>(value: &'v Value, at: &str) -> Result<&'v str, RecordError> {
    value.as_str().ok_or_else(|| wrong(at, "a string"))
}

fn as_u32(value: &Value, at: &str) -> Result<u32, RecordError> {
    match value {
        Value::Number(n) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                RecordError::new(
                    RecordErrorKind::Number,
                    at,
                    format!("{n} is not an unsigned 32-bit integer (SPEC R2)"),
                )
            }),
        _ => Err(wrong(at, "an integer")),
    }
}

fn as_handle(value: &Value, at: &str) -> Result<Handle, RecordError> {
    Handle::parse(as_str(value, at)?).map_err(|e| RecordError::handle(at, &e))
}

fn field<'v>(
    object: &'v Map<String, Value>,
    at: &str,
    name: &str,
) -> Result<&'v Value, RecordError> {
    object.get(name).ok_or_else(|| missing(at, name))
}

fn read_value(value: &Value, at: &str) -> Result<HandleValue, RecordError> {
    let object = as_object(value, at)?;
    let index = as_u32(field(object, at, "index")?, &join(at, "index"))?;
    let value_type = as_str(field(object, at, "type")?, &join(at, "type"))?.to_string();
    let data_at = join(at, "data");
    let data = read_data(field(object, at, "data")?, &data_at)?;
    let ttl = match object.get("ttl") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Ttl::Until(s.clone())),
        Some(Value::Number(n)) => Some(Ttl::Seconds(n.as_i64().ok_or_else(|| {
            RecordError::new(
                RecordErrorKind::Number,
                join(at, "ttl"),
                format!("{n} is not a whole number of seconds (SPEC R2)"),
            )
        })?)),
        Some(_) => return Err(wrong(&join(at, "ttl"), "seconds or an ISO 8601 time")),
    };
    let timestamp = match object.get("timestamp") {
        None | Some(Value::Null) => None,
        Some(t) => Some(as_str(t, &join(at, "timestamp"))?.to_string()),
    };
    let permissions = match object.get("permissions") {
        None | Some(Value::Null) => None,
        Some(p) => Some(as_str(p, &join(at, "permissions"))?.to_string()),
    };
    let references = match object.get("references") {
        None | Some(Value::Null) => None,
        Some(r) => Some(read_references(r, &join(at, "references"))?),
    };
    Ok(HandleValue {
        index,
        value_type,
        data,
        ttl,
        timestamp,
        permissions,
        references,
    })
}

fn read_reference(value: &Value, at: &str) -> Result<ValueReference, RecordError> {
    let object = as_object(value, at)?;
    Ok(ValueReference {
        handle: as_handle(field(object, at, "handle")?, &join(at, "handle"))?,
        index: as_u32(field(object, at, "index")?, &join(at, "index"))?,
    })
}

fn read_references(value: &Value, at: &str) -> Result<Vec<ValueReference>, RecordError> {
    let items = value.as_array().ok_or_else(|| wrong(at, "an array"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, r)| read_reference(r, &format!("{at}[{i}]")))
        .collect()
}

fn read_data(value: &Value, at: &str) -> Result<Data, RecordError> {
    let object = as_object(value, at)?;
    let format = as_str(field(object, at, "format")?, &join(at, "format"))?;
    let value_at = join(at, "value");
    let value = field(object, at, "value")?;
    Ok(match format {
        "string" => Data::String(as_str(value, &value_at)?.to_string()),
        "base64" => {
            let text = as_str(value, &value_at)?;
            Data::Base64 {
                bytes: base64_decode(text).map_err(|i| {
                    RecordError::new(
                        RecordErrorKind::Base64,
                        value_at.clone(),
                        format!("invalid base64 at byte {i} (SPEC R3)"),
                    )
                })?,
                text: text.to_string(),
            }
        }
        "hex" => {
            let text = as_str(value, &value_at)?;
            Data::Hex {
                bytes: hex_decode(text).map_err(|i| {
                    RecordError::new(
                        RecordErrorKind::Hex,
                        value_at.clone(),
                        format!("invalid hex at byte {i} (SPEC R3)"),
                    )
                })?,
                text: text.to_string(),
            }
        }
        "admin" => {
            let object = as_object(value, &value_at)?;
            let admin = ValueReference {
                handle: as_handle(
                    field(object, &value_at, "handle")?,
                    &join(&value_at, "handle"),
                )?,
                index: as_u32(
                    field(object, &value_at, "index")?,
                    &join(&value_at, "index"),
                )?,
            };
            let perm_at = join(&value_at, "permissions");
            let text = as_str(field(object, &value_at, "permissions")?, &perm_at)?;
            let permissions = AdminPermissions::parse(text).ok_or_else(|| {
                RecordError::new(
                    RecordErrorKind::Permissions,
                    perm_at,
                    "expected 1 to 16 characters, each '0' or '1' (SPEC R3)",
                )
            })?;
            Data::Admin(Admin { admin, permissions })
        }
        "vlist" => Data::Vlist(read_references(value, &value_at)?),
        "site" => Data::Site(value.clone()),
        other => Data::Other {
            format: other.to_string(),
            value: value.clone(),
        },
    })
}

/// The standard base64 alphabet's value of `b`.
fn base64_digit(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Standard base64 (RFC 4648 §4), padding optional; `Err` holds the index of the first
/// byte that cannot be there.
pub(crate) fn base64_decode(text: &str) -> Result<Vec<u8>, usize> {
    let b = text.as_bytes();
    let end = b.len() - b.iter().rev().take_while(|&&c| c == b'=').count();
    if b.len() - end > 2 || (b.len() != end && b.len() % 4 != 0) {
        return Err(end);
    }
    if end % 4 == 1 {
        return Err(end);
    }
    let mut out = Vec::with_capacity(end / 4 * 3 + 2);
    let mut acc = 0_u32;
    for (i, &c) in b[..end].iter().enumerate() {
        acc = (acc << 6) | u32::from(base64_digit(c).ok_or(i)?);
        if i % 4 == 3 {
            out.extend_from_slice(&acc.to_be_bytes()[1..]);
            acc = 0;
        }
    }
    match end % 4 {
        2 => out.push((acc >> 4) as u8),
        3 => out.extend_from_slice(&((acc >> 2) as u16).to_be_bytes()),
        _ => {}
    }
    Ok(out)
}

/// Hex digits in pairs, either case; `Err` holds the index of the first byte that cannot
/// be there.
pub(crate) fn hex_decode(text: &str) -> Result<Vec<u8>, usize> {
    let b = text.as_bytes();
    let digit = |i: usize| char::from(b[i]).to_digit(16).ok_or(i);
    let mut out = Vec::with_capacity(b.len() / 2);
    let mut i = 0;
    while i < b.len() {
        if i + 1 == b.len() {
            digit(i)?;
            return Err(b.len());
        }
        out.push(((digit(i)? << 4) | digit(i + 1)?) as u8);
        i += 2;
    }
    Ok(out)
}

impl Serialize for Response {
    /// The proxy's order: `responseCode`, `handle`, `values` or `message`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("responseCode", &self.code.as_u32())?;
        if let Some(h) = &self.handle {
            map.serialize_entry("handle", h.as_str())?;
        }
        if let Some(values) = &self.values {
            map.serialize_entry("values", values)?;
        }
        if let Some(m) = &self.message {
            map.serialize_entry("message", m)?;
        }
        map.end()
    }
}

impl Serialize for HandleValue {
    /// The proxy's order: `index`, `type`, `data`, `ttl`, `timestamp`, then what the
    /// reference server may add.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("index", &self.index)?;
        map.serialize_entry("type", &self.value_type)?;
        map.serialize_entry("data", &self.data)?;
        match &self.ttl {
            Some(Ttl::Seconds(n)) => map.serialize_entry("ttl", n)?,
            Some(Ttl::Until(t)) => map.serialize_entry("ttl", t)?,
            None => {}
        }
        if let Some(t) = &self.timestamp {
            map.serialize_entry("timestamp", t)?;
        }
        if let Some(p) = &self.permissions {
            map.serialize_entry("permissions", p)?;
        }
        if let Some(r) = &self.references {
            map.serialize_entry("references", r)?;
        }
        map.end()
    }
}

impl Serialize for Data {
    /// `{"format": …, "value": …}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("format", self.format())?;
        match self {
            Data::String(text) | Data::Base64 { text, .. } | Data::Hex { text, .. } => {
                map.serialize_entry("value", text)?;
            }
            Data::Admin(admin) => map.serialize_entry("value", admin)?,
            Data::Vlist(list) => map.serialize_entry("value", list)?,
            Data::Site(value) | Data::Other { value, .. } => map.serialize_entry("value", value)?,
        }
        map.end()
    }
}

impl Serialize for Admin {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("handle", self.admin.handle.as_str())?;
        map.serialize_entry("index", &self.admin.index)?;
        map.serialize_entry("permissions", &self.permissions.to_string())?;
        map.end()
    }
}

impl Serialize for ValueReference {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("handle", self.handle.as_str())?;
        map.serialize_entry("index", &self.index)?;
        map.end()
    }
}
