//! Reading and writing the REST API's JSON (R1–R3, R5). Reading goes through a tree that
//! borrows from the text ([`Node`]) so that every error names the path it is at; writing
//! keeps the proxy's field order.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::error::{RecordError, RecordErrorKind};
use super::response::{Response, ResponseCode};
use super::select::Filter;
use super::tree::{Node, DUPLICATE_KEY};
use super::value::{Admin, AdminPermissions, Data, HandleValue, Ttl, ValueReference};
use crate::handle::Handle;

impl Response {
    /// Reads a REST API response: JSON, or JSONP (`callback(<json>);`, R5).
    ///
    /// # Errors
    ///
    /// A [`RecordError`] naming where: the line and column of text that is not JSON, or the
    /// JSON path of a field that is missing, of the wrong type, out of range, a `handle`
    /// that is not a handle, or data that its format does not allow (bad base64 or hex,
    /// admin permissions that are not bits). JSON nested deeper than 128 levels is an error,
    /// and so is a name written twice in one object, or two values with one index
    /// ([`RecordErrorKind::Duplicate`]: which was meant cannot be known). A byte order mark
    /// before the text is ignored.
    pub fn parse(text: &str) -> Result<Self, RecordError> {
        Self::from_node(&tree(text)?, None)
    }

    /// Reads a REST API response keeping only the values `filter` selects: what
    /// `Response::parse(text)?.filtered(filter)` gives, without building (or checking past
    /// their index and type) the values it drops. A server that redirects reads its
    /// records so: the URL and `10320/loc` values, not the administrators'.
    ///
    /// # Errors
    ///
    /// As [`Response::parse`], but for the values the filter drops: only their index
    /// (one of its own) and type are read.
    pub fn parse_selected(text: &str, filter: &Filter) -> Result<Self, RecordError> {
        Self::from_node(&tree(text)?, Some(filter))
    }

    /// Reads a response from JSON already parsed.
    ///
    /// # Errors
    ///
    /// As [`Response::parse`], without the syntax errors.
    pub fn from_json(value: &Value) -> Result<Self, RecordError> {
        Self::from_node(&Node::of(value), None)
    }

    fn from_node(value: &Node<'_>, filter: Option<&Filter>) -> Result<Self, RecordError> {
        let root = At::Root;
        let object = as_object(value, &root)?;
        let (code, code_at) = field(object, &root, "responseCode")?;
        let code = ResponseCode::from_u32(as_u32(code, &code_at)?);
        let handle = match optional(object, "handle") {
            None => None,
            Some(h) => Some(as_handle(h, &root.field("handle"))?),
        };
        let values_at = root.field("values");
        let values = match optional(object, "values") {
            None => None,
            Some(Node::Array(items)) => {
                let mut values = Vec::with_capacity(items.len());
                // Every value's index, those the filter drops too: (index, position).
                let mut indexes = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    let at = values_at.item(i);
                    if let Some(filter) = filter {
                        let object = as_object(v, &at)?;
                        let (index, index_at) = field(object, &at, "index")?;
                        let (kind, kind_at) = field(object, &at, "type")?;
                        let index = as_u32(index, &index_at)?;
                        indexes.push((index, i));
                        if !filter.selects_parts(index, as_str(kind, &kind_at)?) {
                            continue;
                        }
                        values.push(read_value(v, &at)?);
                    } else {
                        let value = read_value(v, &at)?;
                        indexes.push((value.index, i));
                        values.push(value);
                    }
                }
                if let Some((index, first, again)) = repeated_index(&mut indexes) {
                    return Err(RecordError::new(
                        RecordErrorKind::Duplicate,
                        values_at.item(again).field("index").to_string(),
                        format!(
                            "{index} is the index of {} too (SPEC R2: an index names one value of a record)",
                            values_at.item(first)
                        ),
                    ));
                }
                Some(values)
            }
            Some(_) => return Err(wrong(&values_at, "an array")),
        };
        // As `filtered` answers: a success whose every value is filtered out finds none.
        let code = match (&values, filter) {
            (Some(v), Some(_)) if v.is_empty() && code == ResponseCode::Success => {
                ResponseCode::ValuesNotFound
            }
            _ => code,
        };
        let message = match optional(object, "message") {
            None => None,
            Some(m) => Some(as_str(m, &root.field("message"))?.to_string()),
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
        jsonp(callback, &self.to_json())
    }
}

/// `json` (a response as [`Response::to_json`] or [`Response::to_json_pretty`] wrote it)
/// as JSONP (R5): `callback(json);`.
///
/// # Errors
///
/// As [`Response::to_jsonp`]: a `callback` that is not a JavaScript name or dotted path
/// of names.
pub fn jsonp(callback: &str, json: &str) -> Result<String, RecordError> {
    if !is_callback(callback) {
        return Err(RecordError::new(
            RecordErrorKind::Shape,
            "callback",
            "not a JavaScript name or dotted path of names (SPEC R5)",
        ));
    }
    Ok(format!("{callback}({json});"))
}

impl HandleValue {
    /// Reads one value as the REST API writes it in a response's `values` (R2), and as its
    /// `Serialize` writes it: what reads back as the same value.
    ///
    /// ```
    /// use handle_id::record::{HandleValue, Response};
    /// let r = Response::parse(r#"{"responseCode":1,"handle":"20.1000/5555","values":[
    ///   {"index":1,"type":"URL","data":{"format":"string","value":"https://example.org/"}}]}"#)?;
    /// let json = serde_json::to_string(&r.values()[0]).unwrap();
    /// assert_eq!(HandleValue::parse(&json)?, r.values()[0]);
    /// assert!(HandleValue::parse(r#"{"index":1,"type":"URL"}"#).is_err());
    /// # Ok::<(), handle_id::record::RecordError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Response::parse`], its paths from the value (`data.value`).
    pub fn parse(text: &str) -> Result<Self, RecordError> {
        read_value(&tree(text)?, &At::Value)
    }
}

/// The JSON tree of `text`, JSON or JSONP (R5), or where it is not JSON. A byte order mark
/// before it is ignored (RFC 8259 §8.1 lets a reader ignore it; editors on Windows write
/// one).
fn tree(text: &str) -> Result<Node<'_>, RecordError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let json = strip_jsonp(text).unwrap_or(text);
    serde_json::from_str(json).map_err(|e| {
        let at = format!("line {}, column {}", e.line(), e.column());
        let full = e.to_string();
        // serde_json's message ends with the place, which `at` says: a message states it once.
        let message = full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(m, _)| m);
        if message.starts_with(DUPLICATE_KEY) {
            return RecordError::new(
                RecordErrorKind::Duplicate,
                at,
                format!("{message} in one object (SPEC R1, R2)"),
            );
        }
        RecordError::new(RecordErrorKind::Json, at, format!("not JSON: {message}"))
    })
}

/// An index two values have, as (index, the first's position, the second's): of several,
/// the smallest index. `indexes` holds (index, position) in the order of positions.
fn repeated_index(indexes: &mut [(u32, usize)]) -> Option<(u32, usize, usize)> {
    // A record has a handful of values: a scan; beyond that, sorted (positions stay in
    // order within an index, so the first two positions of an index are adjacent).
    if indexes.len() <= 16 {
        let mut found = None;
        for (k, &(index, again)) in indexes.iter().enumerate() {
            if let Some(&(_, first)) = indexes[..k].iter().find(|(i, _)| *i == index) {
                if found.map_or(true, |(smallest, _, _)| index < smallest) {
                    found = Some((index, first, again));
                }
            }
        }
        return found;
    }
    indexes.sort_unstable();
    indexes
        .windows(2)
        .find(|pair| pair[0].0 == pair[1].0)
        .map(|pair| (pair[0].0, pair[0].1, pair[1].1))
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

/// Where in the JSON a value is, built as the reader descends and written out only for an
/// error: `values[2].data.value`.
#[derive(Clone, Copy)]
enum At<'p> {
    Root,
    /// A value read alone ([`HandleValue::parse`]).
    Value,
    Field(&'p At<'p>, &'static str),
    Item(&'p At<'p>, usize),
}

impl At<'_> {
    fn field(&self, name: &'static str) -> At<'_> {
        At::Field(self, name)
    }

    fn item(&self, i: usize) -> At<'_> {
        At::Item(self, i)
    }
}

impl core::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            At::Root => f.write_str("response"),
            At::Value => f.write_str("value"),
            At::Field(At::Root | At::Value, name) => f.write_str(name),
            At::Field(parent, name) => write!(f, "{parent}.{name}"),
            At::Item(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

fn wrong(at: &At<'_>, expected: &str) -> RecordError {
    RecordError::new(
        RecordErrorKind::Shape,
        at.to_string(),
        format!("expected {expected} (SPEC R1, R2)"),
    )
}

/// `value`, when it is an object: its fields are read with [`field`] and [`optional`].
fn as_object<'v, 'a>(value: &'v Node<'a>, at: &At<'_>) -> Result<&'v Node<'a>, RecordError> {
    match value {
        Node::Object(_) => Ok(value),
        _ => Err(wrong(at, "an object")),
    }
}

fn as_str<'v>(value: &'v Node<'_>, at: &At<'_>) -> Result<&'v str, RecordError> {
    value.as_str().ok_or_else(|| wrong(at, "a string"))
}

fn as_u32(value: &Node<'_>, at: &At<'_>) -> Result<u32, RecordError> {
    match value {
        Node::Number(n) => n.parse::<u32>().ok().ok_or_else(|| {
            RecordError::new(
                RecordErrorKind::Number,
                at.to_string(),
                format!("{n} is not an unsigned 32-bit integer (SPEC R2)"),
            )
        }),
        _ => Err(wrong(at, "an integer")),
    }
}

fn as_handle(value: &Node<'_>, at: &At<'_>) -> Result<Handle, RecordError> {
    Handle::parse(as_str(value, at)?).map_err(|e| RecordError::handle(at.to_string(), &e))
}

/// The field `name` of `object`, which is at `at`, and where it is.
fn field<'v, 'a, 'p>(
    object: &'v Node<'a>,
    at: &'p At<'p>,
    name: &'static str,
) -> Result<(&'v Node<'a>, At<'p>), RecordError> {
    let here = at.field(name);
    match object.get(name) {
        Some(v) => Ok((v, here)),
        None => Err(RecordError::new(
            RecordErrorKind::Shape,
            here.to_string(),
            "missing (SPEC R1, R2)",
        )),
    }
}

/// The field `name` when present and not `null`.
fn optional<'v, 'a>(object: &'v Node<'a>, name: &str) -> Option<&'v Node<'a>> {
    object.get(name).filter(|v| !matches!(v, Node::Null))
}

fn read_value(value: &Node<'_>, at: &At<'_>) -> Result<HandleValue, RecordError> {
    let object = as_object(value, at)?;
    let (v, here) = field(object, at, "index")?;
    let index = as_u32(v, &here)?;
    let (v, here) = field(object, at, "type")?;
    let value_type = as_str(v, &here)?.to_string();
    let (v, here) = field(object, at, "data")?;
    let data = read_data(v, &here)?;
    let ttl = match optional(object, "ttl") {
        None => None,
        Some(Node::String(s)) => Some(Ttl::Until(s.to_string())),
        Some(Node::Number(n)) => Some(Ttl::Seconds(n.parse::<i64>().map_err(|_| {
            // (A whole number too large for 64 bits reads as a float: `1e+23`.)
            let why = match n.parse::<f64>() {
                Ok(f) if f.is_finite() && f % 1.0 == 0.0 => {
                    "is past the seconds a signed 64-bit number holds"
                }
                _ => "is not a whole number of seconds",
            };
            RecordError::new(
                RecordErrorKind::Number,
                at.field("ttl").to_string(),
                format!("{n} {why} (SPEC R2)"),
            )
        })?)),
        Some(_) => return Err(wrong(&at.field("ttl"), "seconds or an ISO 8601 time")),
    };
    let timestamp = match optional(object, "timestamp") {
        None => None,
        Some(t) => Some(as_str(t, &at.field("timestamp"))?.to_string()),
    };
    let permissions = match optional(object, "permissions") {
        None => None,
        Some(p) => Some(as_str(p, &at.field("permissions"))?.to_string()),
    };
    let references = match optional(object, "references") {
        None => None,
        Some(r) => Some(read_references(r, &at.field("references"))?),
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

fn read_reference(value: &Node<'_>, at: &At<'_>) -> Result<ValueReference, RecordError> {
    let object = as_object(value, at)?;
    let (h, h_at) = field(object, at, "handle")?;
    let (i, i_at) = field(object, at, "index")?;
    Ok(ValueReference {
        handle: as_handle(h, &h_at)?,
        index: as_u32(i, &i_at)?,
    })
}

fn read_references(value: &Node<'_>, at: &At<'_>) -> Result<Vec<ValueReference>, RecordError> {
    let Node::Array(items) = value else {
        return Err(wrong(at, "an array"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, r)| read_reference(r, &at.item(i)))
        .collect()
}

fn read_data(value: &Node<'_>, at: &At<'_>) -> Result<Data, RecordError> {
    let object = as_object(value, at)?;
    let (f, f_at) = field(object, at, "format")?;
    let format = as_str(f, &f_at)?;
    let (value, value_at) = field(object, at, "value")?;
    let value_at = &value_at;
    Ok(match format {
        "string" => Data::String(as_str(value, value_at)?.to_string()),
        "base64" => {
            let text = as_str(value, value_at)?;
            Data::Base64 {
                bytes: base64_decode(text).map_err(|i| {
                    RecordError::new(
                        RecordErrorKind::Base64,
                        value_at.to_string(),
                        format!("invalid base64 at byte {i} (SPEC R3)"),
                    )
                })?,
                text: text.to_string(),
            }
        }
        "hex" => {
            let text = as_str(value, value_at)?;
            Data::Hex {
                bytes: hex_decode(text).map_err(|i| {
                    RecordError::new(
                        RecordErrorKind::Hex,
                        value_at.to_string(),
                        format!("invalid hex at byte {i} (SPEC R3)"),
                    )
                })?,
                text: text.to_string(),
            }
        }
        "admin" => {
            let object = as_object(value, value_at)?;
            let admin = read_reference(value, value_at)?;
            let (p, perm_at) = field(object, value_at, "permissions")?;
            let text = as_str(p, &perm_at)?;
            let permissions = AdminPermissions::parse(text).ok_or_else(|| {
                RecordError::new(
                    RecordErrorKind::Permissions,
                    perm_at.to_string(),
                    "expected 1 to 16 characters, each '0' or '1' (SPEC R3)",
                )
            })?;
            Data::Admin(Admin { admin, permissions })
        }
        "vlist" => Data::Vlist(read_references(value, value_at)?),
        "site" => Data::Site(value.to_value()),
        other => Data::Other {
            format: other.to_string(),
            value: value.to_value(),
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

/// `text` read as standard base64 (RFC 4648 §4), padding optional: what [`base64`]
/// writes; `Err` holds the index of the first byte that cannot be there.
///
/// ```
/// assert_eq!(handle_id::record::base64_decode("aGVsbG8"), Ok(b"hello".to_vec()));
/// assert_eq!(handle_id::record::base64_decode("a*"), Err(1));
/// ```
pub fn base64_decode(text: &str) -> Result<Vec<u8>, usize> {
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

/// `bytes` in standard base64 with padding (RFC 4648 §4): the REST API's `base64` data, as
/// the reference writes binary data (and HTTP Basic credentials are written).
///
/// ```
/// assert_eq!(handle_id::record::base64(b"hello"), "aGVsbG8=");
/// ```
#[must_use]
pub fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(DIGITS[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
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
