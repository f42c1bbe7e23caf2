//! What the subcommands write: JSON records and readable text.

use std::fmt;
use std::io::{self, Write};

use handle_id::{Form, HdlUri, ParseError, Warning};
use serde::ser::{Serialize, SerializeStruct, Serializer};

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

/// The byte index of the first control character (`char::is_control`: U+0000–U+001F and
/// U+007F–U+009F) in `s`, found on the bytes: C0 and DEL are single bytes, and C1 is 0xC2
/// followed by 0x80–0x9F.
fn first_control(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    // Eight bytes at a time, skip those with no byte below 0x20 and no 0x7F or 0xC2 (the
    // usual bit tricks: a byte below n, a byte equal to v).
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGHS: u64 = ONES * 0x80;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut from = 0;
    for chunk in b.chunks_exact(8) {
        let x = u64::from_ne_bytes(chunk.try_into().expect("eight bytes"));
        if below(x, 0x20) | zero(x ^ (ONES * 0x7f)) | zero(x ^ (ONES * 0xc2)) != 0 {
            break;
        }
        from += 8;
    }
    while let Some(k) = b[from..]
        .iter()
        .position(|&x| x < 0x20 || x == 0x7f || x == 0xc2)
    {
        let i = from + k;
        if b[i] != 0xc2 || b.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)) {
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
        for c in (0..=0x2FF_u32).filter_map(char::from_u32) {
            for pad in 0..10 {
                let s = format!("{}{c}é", "a".repeat(pad));
                assert_eq!(first_control(&s), s.find(char::is_control), "{c:?}");
            }
        }
        assert_eq!(Visible("a\tb\u{85}c").to_string(), "a\\tb\\u{85}c");
    }
}
