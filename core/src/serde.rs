//! `serde` support (feature `serde`): handles and URIs serialise as their text and
//! deserialise through the validating parsers; the borrowed types borrow from the input.

use alloc::string::String;
use core::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::form::Form;
use crate::handle::{Handle, HandleRef};
use crate::uri::HdlUri;

impl Serialize for HandleRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl Serialize for Handle {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl Serialize for HdlUri<'_> {
    /// The text as it was read.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl Serialize for Form {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// Deserialises a borrowed string with `parse`: the error names the byte index and the
/// grammar element, as the parser's does.
struct Borrowed<F>(F, &'static str);

impl<'de, T, F: FnOnce(&'de str) -> Result<T, crate::ParseError>> Visitor<'de> for Borrowed<F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a string borrowed from the input that is {}", self.1)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<T, E> {
        (self.0)(v).map_err(E::custom)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for HandleRef<'a> {
    /// Borrows from the input, which must hold the text unescaped (a JSON string without
    /// escapes, for example); deserialise a [`Handle`] otherwise.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(Borrowed(HandleRef::parse, "a handle"))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for HdlUri<'a> {
    /// An `hdl:` URI ([`HdlUri::parse`]), borrowed from the input.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(Borrowed(HdlUri::parse, "an hdl: URI"))
    }
}

impl<'de> Deserialize<'de> for Handle {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Owned;
        impl Visitor<'_> for Owned {
            type Value = Handle;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a handle")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Handle, E> {
                Handle::parse(v).map_err(E::custom)
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Handle, E> {
                Handle::try_from(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_string(Owned)
    }
}

impl<'de> Deserialize<'de> for Form {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Form;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the name of a form (handle, hdl, hdl-host, info-hdl, proxy …)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Form, E> {
                v.parse()
                    .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
        deserializer.deserialize_str(Name)
    }
}
