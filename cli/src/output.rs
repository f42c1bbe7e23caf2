//! What the subcommands write: JSON records and readable text.

use std::fmt;

use handle_id::{Form, HdlUri, ParseError};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// One `hdl check --json` record.
pub struct CheckRecord<'a> {
    /// The line as read (invalid UTF-8 shown with replacement characters).
    pub input: &'a str,
    /// The form the line is in, if it is in one.
    pub form: Option<Form>,
    /// What the line holds, or why it is not a handle.
    pub result: &'a Result<HdlUri<'a>, ParseError>,
}

impl Serialize for CheckRecord<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let uri = self.result.as_ref().ok();
        let handle = uri.map(HdlUri::handle);
        let mut r = s.serialize_struct("CheckRecord", 8)?;
        r.serialize_field("input", self.input)?;
        r.serialize_field("valid", &uri.is_some())?;
        r.serialize_field("form", &self.form.map(Form::name))?;
        r.serialize_field("handle", &handle.map(|h| h.as_str()))?;
        r.serialize_field("prefix", &handle.map(|h| h.prefix()))?;
        r.serialize_field("local_name", &handle.map(|h| h.local_name()))?;
        r.serialize_field("error", &self.result.as_ref().err().map(|e| JsonError(*e)))?;
        r.serialize_field("warnings", &[] as &[&str])?;
        r.end()
    }
}

/// A [`ParseError`] as JSON: `{"index": n, "message": "..."}`.
pub struct JsonError(pub ParseError);

impl Serialize for JsonError {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut r = s.serialize_struct("Error", 2)?;
        r.serialize_field("index", &self.0.index())?;
        r.serialize_field("message", &Message(self.0))?;
        r.end()
    }
}

/// The error's message, composed straight into the output.
struct Message(ParseError);

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// Text for a terminal: control characters escaped (`\t`, `\u{1b}`), so that a line
/// cannot move the cursor or hide what follows.
pub struct Visible<'a>(pub &'a str);

impl fmt::Display for Visible<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}
