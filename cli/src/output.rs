//! What the subcommands write: JSON records and readable text.

use std::fmt;

use handle_id::{Form, HdlUri, ParseError, Warning};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// One `hdl check --json` record.
pub struct CheckRecord<'a> {
    /// The line as read (invalid UTF-8 shown with replacement characters).
    pub input: &'a str,
    /// The form the line is in, if it is in one.
    pub form: Option<Form>,
    /// What the line holds, or why it is not a handle.
    pub result: &'a Result<HdlUri<'a>, ParseError>,
    /// The handle's warnings (SPEC D2, D3, H9, H10 …).
    pub warnings: &'a [Warning],
    /// `--strict`: the first warning, which made the line invalid.
    pub strict_error: Option<Warning>,
}

impl Serialize for CheckRecord<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let uri = self.result.as_ref().ok();
        let handle = uri.map(HdlUri::handle);
        let mut r = s.serialize_struct("CheckRecord", 8)?;
        r.serialize_field("input", self.input)?;
        r.serialize_field("valid", &(uri.is_some() && self.strict_error.is_none()))?;
        r.serialize_field("form", &self.form.map(Form::name))?;
        r.serialize_field("handle", &handle.map(|h| h.as_str()))?;
        r.serialize_field("prefix", &handle.map(|h| h.prefix()))?;
        r.serialize_field("local_name", &handle.map(|h| h.local_name()))?;
        match (self.result, self.strict_error) {
            (Err(e), _) => r.serialize_field("error", &JsonError(*e))?,
            (Ok(_), Some(w)) => r.serialize_field("error", &JsonWarning(w, true))?,
            (Ok(_), None) => r.serialize_field("error", &None::<()>)?,
        }
        let warnings: Vec<_> = self
            .warnings
            .iter()
            .map(|w| JsonWarning(*w, false))
            .collect();
        r.serialize_field("warnings", &warnings)?;
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

/// A [`Warning`] as JSON: `{"code": "...", "index": n, "message": "..."}` (as an error under
/// `--strict`, without the code).
pub struct JsonWarning(pub Warning, pub bool);

impl Serialize for JsonWarning {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut r = s.serialize_struct("Warning", 3)?;
        if !self.1 {
            r.serialize_field("code", self.0.code().code())?;
        }
        r.serialize_field("index", &self.0.index())?;
        r.serialize_field("message", &Displayed(&self.0, self.1))?;
        r.end()
    }
}

/// A warning's text, as a message of its own or as a `--strict` error.
struct Displayed<'a>(&'a Warning, bool);

impl Serialize for Displayed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.1 {
            s.collect_str(&format_args!(
                "{} (a warning, an error under --strict)",
                self.0
            ))
        } else {
            s.collect_str(self.0)
        }
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
        let mut rest = self.0;
        while let Some(at) = rest.find(char::is_control) {
            f.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().expect("found");
            write!(f, "{}", c.escape_debug())?;
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}
