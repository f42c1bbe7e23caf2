//! What the subcommands write: JSON records and readable text.

use std::fmt;
use std::io::{self, Write};

use handle_id::{Fix, Form, HandleRef, HdlUri, ParseError, Warning};
use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};

use crate::input::Position;

/// Standard error as the commands write diagnostics to it: a write that fails (standard
/// error closed or full) is dropped, never an error of the run, so that losing the
/// diagnostics loses neither the output nor the exit status that tells what was read.
pub struct Diagnostics<W: Write>(pub W);

impl<W: Write> Write for Diagnostics<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

/// Writes a line of diagnostics on standard error, for the few messages outside a run's
/// tally (`eprintln!` would panic when standard error cannot be written).
pub fn report(args: fmt::Arguments<'_>) {
    let _ = writeln!(Diagnostics(io::stderr().lock()), "{args}");
}

/// Why a line is invalid: it holds no identifier (or none the form asked for can write),
/// or, under `--strict`, its first warning.
#[derive(Clone, Copy, Debug)]
pub enum Problem {
    Error(ParseError),
    Strict(Warning),
}

/// What one subcommand adds to the record of a line.
pub enum Extra<'a> {
    /// `check`: nothing more.
    None,
    /// `parse`: the handle's parts, the query and fragment.
    Parts(Option<&'a HdlUri<'a>>),
    /// `convert`: the handle in the form asked for.
    Output(Option<&'a str>),
    /// `clean`: the handle in the form asked for, and the fixes that got there.
    Cleaned(Option<&'a str>, &'a [Fix]),
    /// `dedupe`: where the handle was first seen, for a line that repeats it.
    Repeat(Option<Position<'a>>),
}

/// The record every line-reading subcommand writes of a line under `--json`: the same
/// fields in the same order for all (the README documents them, and
/// `cli/hdl-records.schema.json` states them), with what the subcommand adds before the
/// warnings.
pub struct LineRecord<'a> {
    pub position: Position<'a>,
    /// The line as read (bytes that are not UTF-8 shown as U+FFFD).
    pub input: &'a str,
    /// The form the line is written in, or appears to be, if any.
    pub form: Option<Form>,
    /// The handle the line holds.
    pub handle: Option<HandleRef<'a>>,
    /// Its warnings, each at its byte index in the input.
    pub warnings: &'a [Warning],
    pub problem: Option<Problem>,
    pub extra: Extra<'a>,
}

impl Serialize for LineRecord<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut r = s.serialize_map(None)?;
        if let Some(source) = self.position.source {
            r.serialize_entry("file", source)?;
        }
        r.serialize_entry("line", &self.position.line)?;
        r.serialize_entry("input", self.input)?;
        r.serialize_entry("valid", &self.problem.is_none())?;
        r.serialize_entry("form", &self.form.map(Form::name))?;
        let h = self.handle;
        r.serialize_entry("handle", &h.map(|h| h.as_str()))?;
        r.serialize_entry("prefix", &h.map(|h| h.prefix()))?;
        r.serialize_entry("local_name", &h.map(|h| h.local_name()))?;
        match &self.extra {
            Extra::None => {}
            Extra::Parts(uri) => {
                r.serialize_entry(
                    "prefix_segments",
                    &h.map(|h| h.prefix_segments().collect::<Vec<_>>()),
                )?;
                r.serialize_entry(
                    "parent_prefixes",
                    &h.map(|h| h.prefix_ancestors().take(SHOWN_PARENTS).collect::<Vec<_>>()),
                )?;
                r.serialize_entry(
                    "parent_prefix_count",
                    &h.map(|h| h.prefix_ancestors().count()),
                )?;
                r.serialize_entry("is_doi", &h.map(|h| h.is_doi()))?;
                r.serialize_entry("is_prefix_handle", &h.map(|h| h.is_prefix_handle()))?;
                r.serialize_entry("prefix_handle", &h.map(|h| h.prefix_handle().into_string()))?;
                r.serialize_entry("query", &uri.and_then(|u| u.query()))?;
                r.serialize_entry("fragment", &uri.and_then(|u| u.fragment()))?;
            }
            Extra::Output(output) => r.serialize_entry("output", output)?,
            Extra::Cleaned(output, fixes) => {
                r.serialize_entry("output", output)?;
                let fixes: Vec<_> = fixes.iter().map(|f| JsonFix(*f)).collect();
                r.serialize_entry("fixes", &fixes)?;
            }
            Extra::Repeat(first) => {
                if let Some(source) = first.and_then(|f| f.source) {
                    r.serialize_entry("first_file", source)?;
                }
                r.serialize_entry("first_line", &first.map(|f| f.line))?;
            }
        }
        let warnings: Vec<_> = self
            .warnings
            .iter()
            .map(|w| JsonWarning(*w, false))
            .collect();
        r.serialize_entry("warnings", &warnings)?;
        match self.problem {
            Some(Problem::Error(e)) => r.serialize_entry("error", &JsonError(e))?,
            Some(Problem::Strict(w)) => r.serialize_entry("error", &JsonWarning(w, true))?,
            None => r.serialize_entry("error", &None::<()>)?,
        }
        r.end()
    }
}

/// The parent prefixes shown, nearest first: each is a prefix of the one before, so showing
/// all of them would make the output grow with the square of the prefix's segments.
pub const SHOWN_PARENTS: usize = 16;

/// The record `hdl extract --json` writes of an identifier found: where (its line, and its
/// byte span there as written), its text, form and handle.
pub struct FoundRecord<'a> {
    pub position: Position<'a>,
    pub span: std::ops::Range<usize>,
    pub text: &'a str,
    pub form: Form,
    pub handle: HandleRef<'a>,
}

impl Serialize for FoundRecord<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut r = s.serialize_map(None)?;
        if let Some(source) = self.position.source {
            r.serialize_entry("file", source)?;
        }
        r.serialize_entry("line", &self.position.line)?;
        r.serialize_entry("start", &self.span.start)?;
        r.serialize_entry("end", &self.span.end)?;
        r.serialize_entry("text", self.text)?;
        r.serialize_entry("form", self.form.name())?;
        r.serialize_entry("handle", self.handle.as_str())?;
        r.end()
    }
}

/// A [`Fix`] as JSON: `{"code": "...", "index": n, "held": false, "message": "..."}`
/// (`held`: made in the handle a URL or URI holds, cleaned as a string of its own).
pub struct JsonFix(pub Fix);

impl Serialize for JsonFix {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut r = s.serialize_struct("Fix", 4)?;
        r.serialize_field("code", self.0.code().code())?;
        r.serialize_field("index", &self.0.index())?;
        r.serialize_field("held", &self.0.held())?;
        r.serialize_field("message", &Message(&self.0))?;
        r.end()
    }
}

/// A [`ParseError`] as JSON: `{"index": n, "message": "..."}`.
pub struct JsonError(pub ParseError);

impl Serialize for JsonError {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut r = s.serialize_struct("Error", 2)?;
        r.serialize_field("index", &self.0.index())?;
        r.serialize_field("message", &Message(&self.0))?;
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

/// A message, composed straight into the output.
struct Message<T>(T);

impl<T: fmt::Display> Serialize for Message<T> {
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
        while let Some(at) = first_control(rest) {
            f.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().expect("found");
            write!(f, "{}", c.escape_debug())?;
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

/// Writes `s` as [`Visible`] does, without going through `fmt` when there is nothing to
/// escape.
pub fn write_visible(out: &mut impl io::Write, s: &str) -> io::Result<()> {
    if first_control(s).is_none() {
        out.write_all(s.as_bytes())
    } else {
        write!(out, "{}", Visible(s))
    }
}

/// Writes a line of data (a handle, a URI): as it is, but for a line break inside it,
/// written `%0A` or `%0D` (its percent-encoding) so that output lines stay one per input
/// line. (Text for a person goes through [`Visible`] instead.)
pub fn write_data(out: &mut impl io::Write, s: &str) -> io::Result<()> {
    if !s.bytes().any(|b| b == b'\n' || b == b'\r') {
        return out.write_all(s.as_bytes());
    }
    out.write_all(s.replace('\n', "%0A").replace('\r', "%0D").as_bytes())
}

/// The byte index of the first control character (`char::is_control`: U+0000–U+001F and
/// U+007F–U+009F) in `s`, found on the bytes: C0 and DEL are single bytes, and C1 is 0xC2
/// followed by 0x80–0x9F.
pub fn first_control(s: &str) -> Option<usize> {
    first_special::<false>(s)
}

/// [`first_control`], or of the first U+FFFD (0xEF 0xBF 0xBD: what a decoder leaves of
/// bytes it could not read), whichever comes first.
pub fn first_control_or_replacement(s: &str) -> Option<usize> {
    first_special::<true>(s)
}

fn first_special<const REPLACEMENT: bool>(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let ef: u8 = if REPLACEMENT { 0xef } else { 0x7f };
    // Thirty-two bytes at a time, skip those with no byte below 0x20 and no 0x7F or 0xC2
    // (nor 0xEF): a fold with no early exit, which the compiler turns into vector compares.
    let special = |x: u8| (x < 0x20) | (x == 0x7f) | (x == 0xc2) | (x == ef);
    let mut from = 0;
    for chunk in b.chunks_exact(32) {
        if chunk
            .iter()
            .fold(0_u8, |any, &x| any | u8::from(special(x)))
            != 0
        {
            break;
        }
        from += 32;
    }
    while let Some(k) = b[from..].iter().position(|&x| special(x)) {
        let i = from + k;
        let found = match b[i] {
            0xc2 => b.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)),
            0xef => b[i + 1..].starts_with(&[0xbf, 0xbd]),
            _ => true,
        };
        if found {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_found_on_the_bytes_as_char_is_control_finds_them() {
        for c in (0..=0x2FF_u32)
            .chain([0xFFFD, 0xFFFC, 0xEFBF, 0xFEFF])
            .filter_map(char::from_u32)
        {
            // (Before, across and after the first chunks of 32 bytes.)
            for pad in (0..10).chain(28..36).chain(60..68) {
                let s = format!("{}{c}é", "a".repeat(pad));
                assert_eq!(first_control(&s), s.find(char::is_control), "{c:?}");
                assert_eq!(
                    first_control_or_replacement(&s),
                    s.find(|c: char| c.is_control() || c == '\u{FFFD}'),
                    "{c:?}"
                );
            }
        }
        assert_eq!(Visible("a\tb\u{85}c").to_string(), "a\\tb\\u{85}c");
    }
}
