//! `hdl:` and `hdl://` URIs (U1, U2, U7), the resolution form (U3) and the CORDRA profile
//! (U5): reading and writing.

use alloc::string::String;
use core::fmt::{self, Write};

use crate::dfa::{Dfa, Reject, Sink};
use crate::error::ParseError;
use crate::escape;
use crate::form::Form;
use crate::generated::{self as g, Rule};
use crate::handle::HandleRef;
use crate::parts::{
    check, escaped_outside_segment, handle_from_parts, query_and_fragment, uri_error, Parts,
};
use crate::uri::HdlUri;

/// Where the parts of an `hdl:` or `hdl://` URI (U1, U2, U7) are, as the validator of
/// hdl-uri.pest walks past them: where `u_handle` starts and its `/`, whether
/// `pct_encoded` appears in the naming authority or local name, and where the entry
/// rule's `?` and `#` are. tests/uri_grammar.rs checks the parts against pest's parse trees.
#[derive(Default)]
struct HdlParts {
    na_start: usize,
    slash: usize,
    escaped: (bool, bool),
    query: Option<usize>,
    fragment: Option<usize>,
}

impl Sink<Rule> for HdlParts {
    #[inline(always)]
    fn enter(&mut self, label: Rule, at: usize, byte: u8) {
        // Every call passes a constant label: the compiler keeps one arm at each.
        match label {
            Rule::UNaSegment | Rule::PctEncoded if self.na_start == 0 => {
                self.na_start = at;
                self.escaped.0 = label == Rule::PctEncoded;
            }
            Rule::PctEncoded if self.slash == 0 => self.escaped.0 = true,
            Rule::PctEncoded if self.query.is_none() && self.fragment.is_none() => {
                self.escaped.1 = true;
            }
            Rule::UHandle => self.slash = at,
            // After the handle, the entry rule itself reads only "?" and "#".
            Rule::HdlPath | Rule::HdlHost if self.slash != 0 => {
                if byte == b'?' {
                    self.query = Some(at);
                } else {
                    self.fragment = Some(at);
                }
            }
            _ => {}
        }
    }
}

/// `hdl:` and `hdl://` (U1, U2): one walk of the form's validator checks the text and
/// finds its parts.
pub(super) fn read_hdl_uri(text: &str, form: Form) -> Result<HdlUri<'_>, ParseError> {
    let mut parts = HdlParts::default();
    scan_hdl(text, form, &mut parts).map_err(|r| walk_error(text, form, &parts, r))?;
    read_hdl_parts(text, form, &parts)
}

/// The error of a walk of `form`'s validator that noted `parts` up to where it refused at
/// `r`. Refused before the handle's '/', an escaped '/' in the naming authority before that
/// (`hdl:10.1000%2F182`) is what is wrong, as it is where a '/' follows it (U11).
fn walk_error(text: &str, form: Form, parts: &HdlParts, r: Reject) -> ParseError {
    let na = parts.na_start;
    let refused_in_na = parts.slash == 0 && na != 0 && r.index > na;
    refused_in_na
        .then(|| escaped_outside_segment(&text[na..r.index.min(text.len())], na))
        .flatten()
        .unwrap_or_else(|| uri_error(validator(form), text, r))
}

/// The validator of `hdl:` (`hdl_path`) or `hdl://` (`hdl_host`).
fn validator(form: Form) -> &'static crate::dfa::Dfa {
    if form == Form::HdlHost {
        &g::HDL_HOST
    } else {
        &g::HDL_PATH
    }
}

/// The walk of the validator of `hdl:` (`hdl_path`) or `hdl://` (`hdl_host`), noting the
/// parts in `parts`.
fn scan_hdl(text: &str, form: Form, parts: &mut HdlParts) -> Result<(), Reject> {
    let walked = if form == Form::HdlHost {
        g::scan_hdl_host(text.as_bytes(), parts)
    } else {
        g::scan_hdl_path(text.as_bytes(), parts)
    };
    walked.map(|_| ())
}

/// The value of an `hdl:` or `hdl://` URI whose validator found `parts`.
fn read_hdl_parts<'a>(
    text: &'a str,
    form: Form,
    parts: &HdlParts,
) -> Result<HdlUri<'a>, ParseError> {
    let len = text.len();
    let local_end = parts.query.or(parts.fragment).unwrap_or(len);
    let located = Parts {
        na: (parts.na_start, parts.slash),
        local: (parts.slash + 1, local_end),
        escaped: parts.escaped,
        na_is_u_naming_authority: true,
    };
    let (handle, slash) = handle_from_parts(text, &located)?;
    let query = parts.query.map(|q| (q + 1, parts.fragment.unwrap_or(len)));
    let fragment = parts.fragment.map(|f| (f + 1, len));
    Ok(HdlUri::assemble(
        text,
        form,
        handle,
        slash,
        parts.na_start,
        None,
        query,
        fragment,
    ))
}

/// The resolution form (U3) and the CORDRA profile (U5), after their validator accepted
/// the text.
pub(super) fn read_hdl<'a>(text: &'a str, dfa: &Dfa, form: Form) -> Result<HdlUri<'a>, ParseError> {
    check(dfa, text)?;
    let b = text.as_bytes();
    // Past `hdl:` (the scheme holds no ':') and, for the host forms, `//`.
    let mut at = crate::bytes::find(b':', b).expect("validated") + 1;
    if form != Form::Hdl {
        at += 2;
    }
    let mut base = None;
    if form == Form::HdlResolution {
        let end = at + crate::bytes::find(b'/', &b[at..]).expect("validated");
        base = Some((at, end));
        at = end + 1;
    }
    // A naming authority holds no raw '/', a local name no raw '?' or '#', a query no raw
    // '#' (the validator accepted the text). One pass finds the ends and any escape.
    let (mut i, mut na_escaped, mut local_escaped) = (at, false, false);
    while b[i] != b'/' {
        na_escaped |= b[i] == b'%';
        i += 1;
    }
    let na_end = i;
    i += 1;
    while i < b.len() && b[i] != b'?' && b[i] != b'#' {
        local_escaped |= b[i] == b'%';
        i += 1;
    }
    let local_end = i;
    let parts = Parts {
        na: (at, na_end),
        local: (na_end + 1, local_end),
        escaped: (na_escaped, local_escaped),
        na_is_u_naming_authority: !matches!(dfa.rule, Rule::CordraHost | Rule::CordraPath),
    };
    let (handle, slash) = handle_from_parts(text, &parts)?;
    let (query, fragment) = query_and_fragment(text, local_end);
    Ok(HdlUri::assemble(
        text, form, handle, slash, at, base, query, fragment,
    ))
}

impl<'a> HdlUri<'a> {
    /// Reads an `hdl:` URI: the path form `hdl:<handle>` (U1) or the host form
    /// `hdl://<handle>` (U2, D4), with optional query and fragment (U7). The scheme is
    /// case-insensitive (U4). Use [`recognize`](crate::recognize) for every other form.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] with the byte index into `text`, also inside percent-encoded parts:
    /// a character the URI grammar does not allow ([`ParseErrorKind::UriSyntax`](crate::ParseErrorKind::UriSyntax), naming
    /// the rule), a bad `%` escape, decoded bytes that are not UTF-8, or a decoded handle
    /// that is not a handle.
    pub fn parse(text: &'a str) -> Result<Self, ParseError> {
        // No string is in both forms (hdl-uri.pest): try the common one first, and let the
        // forms grammar say whose rejection to report when neither reads the text.
        let mut parts = HdlParts::default();
        let form = match scan_hdl(text, Form::Hdl, &mut parts) {
            Ok(()) => Form::Hdl,
            Err(path) => {
                let path_parts = core::mem::take(&mut parts);
                match scan_hdl(text, Form::HdlHost, &mut parts) {
                    Ok(()) => Form::HdlHost,
                    Err(host) => {
                        let host_form = g::run_hdl_host_form(text.as_bytes()).is_ok();
                        return Err(if host_form {
                            walk_error(text, Form::HdlHost, &parts, host)
                        } else {
                            walk_error(text, Form::Hdl, &path_parts, path)
                        });
                    }
                }
            }
        };
        read_hdl_parts(text, form, &parts)
    }
}

/// A handle written for an `hdl:` URI: segments and local name escaped as U6 says, and, for
/// the CORDRA profile (`true`), a `/` in the local name too (U5).
pub(super) struct HdlEncoded<'a>(pub(super) HandleRef<'a>, pub(super) bool);

impl fmt::Display for HdlEncoded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.prefix_segments().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            write!(f, "{}", escape::NA_SEGMENT.encode(segment))?;
        }
        let local = if self.1 {
            escape::CORDRA_LOCAL_NAME
        } else {
            escape::LOCAL_NAME
        };
        write!(f, "/{}", local.encode(self.0.local_name()))
    }
}

impl HandleRef<'_> {
    /// The handle in `hdl:` path form (U1), escaped as U6 says.
    ///
    /// ```
    /// let h = handle_id::HandleRef::parse("10.1000/a b#c")?;
    /// assert_eq!(h.to_hdl_uri(), "hdl:10.1000/a%20b%23c");
    /// assert_eq!(h.to_hdl_host_uri(), "hdl://10.1000/a%20b%23c");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn to_hdl_uri(self) -> String {
        alloc::format!("hdl:{}", HdlEncoded(self, false))
    }

    /// The handle in `hdl://` host form (U2), escaped as U6 says.
    #[must_use]
    pub fn to_hdl_host_uri(self) -> String {
        alloc::format!("hdl://{}", HdlEncoded(self, false))
    }
}
