//! A JSON tree that borrows from the text it was read from: what the record reader walks.
//! `serde_json::Value` would allocate every key and string and hash every object's keys;
//! a record's objects are small and its strings rarely escaped, so here keys and strings
//! are borrowed and an object is a list of its fields.

use alloc::borrow::Cow;
use alloc::collections::BTreeSet;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value, its strings borrowed where the text holds them unescaped.
#[derive(Debug)]
pub(crate) enum Node<'a> {
    Null,
    Bool(bool),
    /// The number as serde_json reads it, as text: an integer exactly (within 64 bits),
    /// any other number as the nearest `f64`.
    Number(Cow<'a, str>),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    /// The fields in the order written, each name once (a name written twice is an
    /// error: [`DUPLICATE_KEY`]).
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl<'a> Node<'a> {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of the field `name`, when this is an object that has it.
    pub(crate) fn get(&self, name: &str) -> Option<&Node<'a>> {
        match self {
            Node::Object(fields) => fields.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The tree of `value`, borrowing its strings.
    pub(crate) fn of(value: &'a Value) -> Self {
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(Cow::Owned(n.to_string())),
            Value::String(s) => Node::String(Cow::Borrowed(s)),
            Value::Array(items) => Node::Array(items.iter().map(Node::of).collect()),
            Value::Object(fields) => Node::Object(
                fields
                    .iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Node::of(v)))
                    .collect(),
            ),
        }
    }

    /// The same value as a `serde_json::Value` (for data kept as JSON).
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => n.parse::<Number>().map_or(Value::Null, Value::Number),
            Node::String(s) => Value::String(s.to_string()),
            Node::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Object(fields) => {
                let mut map = Map::new();
                for (k, v) in fields {
                    map.insert(k.to_string(), v.to_value());
                }
                Value::Object(map)
            }
        }
    }
}

/// How the error of a name written twice in one object begins. serde_json's `Value` keeps
/// the last and says nothing; a record whose `handle` or `index` is written twice is
/// ambiguous, so it is refused, where it is.
pub(crate) const DUPLICATE_KEY: &str = "duplicate key ";

/// Objects with more fields than this find a repeated name in a set rather than by a scan
/// of the fields before it (a record's objects have a handful; a hostile one, any number).
const SCANNED_FIELDS: usize = 16;

impl<'de> Deserialize<'de> for Node<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

/// A key, borrowed when the text holds it unescaped.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor).map(Key)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s))
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Node<'de>, E> {
        Ok(Node::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Node<'de>, E> {
        Ok(Node::Number(Cow::Owned(n.to_string())))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Node<'de>, E> {
        Ok(Node::Number(Cow::Owned(n.to_string())))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Node<'de>, E> {
        Ok(Number::from_f64(n).map_or(Node::Null, |n| Node::Number(Cow::Owned(n.to_string()))))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(s.to_string())))
    }

    fn visit_string<E>(self, s: String) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(s)))
    }

    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node<'de>, D::Error> {
        Node::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let Some(Key(first)) = map.next_key()? else {
            return Ok(Node::Object(Vec::new()));
        };
        let mut fields: Vec<(Cow<'de, str>, Node<'de>)> = Vec::with_capacity(8);
        fields.push((first, map.next_value()?));
        let mut names: Option<BTreeSet<Cow<'de, str>>> = None;
        while let Some(Key(k)) = map.next_key()? {
            let repeated = match &mut names {
                Some(names) => !names.insert(k.clone()),
                None if fields.len() < SCANNED_FIELDS => fields.iter().any(|(name, _)| *name == k),
                None => {
                    let set: &mut BTreeSet<_> =
                        names.insert(fields.iter().map(|(name, _)| name.clone()).collect());
                    !set.insert(k.clone())
                }
            };
            if repeated {
                return Err(A::Error::custom(format_args!("{DUPLICATE_KEY}{k:?}")));
            }
            fields.push((k, map.next_value()?));
        }
        Ok(Node::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_serde_json_does() {
        let text = r#"{"a":[1,-2,3.5,1e300,18446744073709551615],"b":{"c":null,"d":true},"e":"x\"y","f":"last"}"#;
        let node: Node<'_> = serde_json::from_str(text).unwrap();
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(node.to_value(), value);
        assert_eq!(node.get("f").and_then(Node::as_str), Some("last"));
        assert!(matches!(node.get("e"), Some(Node::String(Cow::Owned(_)))));
        assert_eq!(Node::of(&value).to_value(), value);
        // Unescaped strings are borrowed.
        let node: Node<'_> = serde_json::from_str(r#"{"k":"v"}"#).unwrap();
        assert!(matches!(
            node.get("k"),
            Some(Node::String(Cow::Borrowed("v")))
        ));
    }

    /// A name twice in one object is an error at the second (where serde_json's `Value`
    /// keeps the last), in a small object and a large one, also when one of the two is
    /// written with an escape.
    #[test]
    fn a_name_twice_is_refused() {
        for text in [
            r#"{"a":1,"b":2,"a":3}"#.to_string(),
            r#"{"a":1,"\u0061":3}"#.to_string(),
            format!(
                "{{{},\"k7\":0}}",
                (0..40)
                    .map(|i| format!("\"k{i}\":{i}"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        ] {
            let e = serde_json::from_str::<Node<'_>>(&text).unwrap_err();
            assert!(e.to_string().starts_with(DUPLICATE_KEY), "{text}: {e}");
        }
        let e = serde_json::from_str::<Node<'_>>(r#"{"x":{"a":1},"y":{"a":1,"a":2}}"#).unwrap_err();
        assert_eq!(e.to_string(), "duplicate key \"a\" at line 1 column 27");
        // The same name in different objects is no repetition.
        assert!(
            serde_json::from_str::<Node<'_>>(r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#)
                .is_ok()
        );
    }

    #[test]
    fn nesting_is_bounded_as_serde_json_bounds_it() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(serde_json::from_str::<Node<'_>>(&deep).is_err());
    }
}
