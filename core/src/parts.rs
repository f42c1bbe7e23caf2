//! Where a URI or URL holds the parts of a handle: running a form's generated validator,
//! locating the naming authority, local name, query and fragment it accepted, and decoding
//! the handle from them. Shared by every form's reader (`forms/`) and by `ProxyBase`.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::dfa::{Dfa, Reject, Sink};
use crate::error::{ParseError, ParseErrorKind};
use crate::escape::{self, original_index};
use crate::generated::{self as g, Rule};
use crate::validate::parse_handle;

/// A byte range `start..end` of the input.
pub(crate) type Span = (usize, usize);

/// Runs a generated validator; a rejection becomes a [`ParseError`] naming the rule.
pub(crate) fn check(dfa: &Dfa, text: &str) -> Result<(), ParseError> {
    dfa.run(text.as_bytes())
        .map_err(|r| uri_error(dfa, text, r))
}

/// The [`ParseError`] of the rejection `r` of `text` by the validator `dfa`, naming the rule.
pub(crate) fn uri_error(dfa: &Dfa, text: &str, r: Reject) -> ParseError {
    let found = text[r.index..].chars().next();
    if r.rule == Rule::PctEncoded {
        // Point at the '%' that started the escape.
        let at = text[..r.index].rfind('%').unwrap_or(r.index);
        let whole = text
            .as_bytes()
            .get(at + 1..at + 3)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
        if whole && r.index == at + 3 {
            // The escape was whole, and what follows it is refused: as it is after any
            // character the escape stands for (`z`, which every rule taking an escape takes).
            let plain = [&text[..at], "z", &text[at + 3..]].concat();
            if let Err(p) = dfa.run(plain.as_bytes()) {
                if p.index == at + 1 {
                    return uri_error(dfa, &plain, p).shifted(2);
                }
            }
        }
        ParseError::new(at, ParseErrorKind::PercentEncoding, Some('%')).in_rule(r.rule)
    } else {
        // A naming authority that the text, its query or its fragment ends: no '/' after it,
        // as a bare handle's error says (H1).
        let kind = match (r.rule, found) {
            (Rule::UNaSegment, None | Some('?' | '#')) => ParseErrorKind::MissingSlash,
            _ => ParseErrorKind::UriSyntax,
        };
        ParseError::new(r.index, kind, found).in_rule(r.rule)
    }
}

/// Where an HTTP(S) URL's host (`authority`) and path are, as the validator of
/// proxy-url.pest (`http_url`) walks past them: the URL taken apart by its grammar, not by
/// hand. (The walk ends once every continuation is accepted, at the host's end: the path
/// then runs to the first `?` or `#`, as `path_char` says; tests/uri_grammar.rs holds both
/// to pest's parse tree.)
#[derive(Default)]
pub(crate) struct UrlParts {
    /// The authority: `host[:port]`, maybe with userinfo.
    pub(crate) host: Span,
    /// Where the path ends: at the `?` or `#` after it, or the end.
    pub(crate) path_end: usize,
    /// Where the path's first `%` is, if it holds one (found in the same look as its end).
    pub(crate) percent: Option<usize>,
}

impl Sink<Rule> for UrlParts {
    #[inline(always)]
    fn enter(&mut self, rule: Rule, at: usize, _: u8) {
        match rule {
            Rule::Authority if self.host.0 == 0 => self.host = (at, at),
            // What follows the authority: its path, or the entry rule's "?" or "#".
            Rule::Path | Rule::HttpUrl if self.host.0 != 0 && self.host.1 == self.host.0 => {
                self.host.1 = at;
            }
            _ => {}
        }
    }
}

/// The parts of the HTTP(S) URL `text` (grammar/proxy-url.pest), in the pass that checks it.
pub(crate) fn url_parts(text: &str) -> Result<UrlParts, ParseError> {
    let mut parts = UrlParts::default();
    g::scan_http_url(text.as_bytes(), &mut parts).map_err(|r| uri_error(&g::HTTP_URL, text, r))?;
    if parts.host.1 == parts.host.0 {
        // Neither a path nor a query nor a fragment: the authority runs to the end.
        parts.host.1 = text.len();
    }
    let from = parts.host.1;
    let rest = &text.as_bytes()[from..];
    // The path's end and its first '%', in one look where it holds none.
    let end = match crate::bytes::find3(b'?', b'#', b'%', rest) {
        Some(i) if rest[i] == b'%' => {
            parts.percent = Some(from + i);
            crate::bytes::find2(b'?', b'#', &rest[i + 1..]).map(|j| i + 1 + j)
        }
        found => found,
    };
    parts.path_end = end.map_or(text.len(), |i| from + i);
    Ok(parts)
}

/// Where a URI holds the parts of a handle.
pub(crate) struct Parts {
    /// The naming authority, raw.
    pub(crate) na: Span,
    /// The local name, raw.
    pub(crate) local: Span,
    /// Whether each holds a `%`.
    pub(crate) escaped: (bool, bool),
    /// The naming authority was validated by hdl-uri.pest's `u_naming_authority`, so that
    /// without escapes it is a handle's naming authority as it is.
    pub(crate) na_is_u_naming_authority: bool,
}

/// The handle whose parts `parts` locates in `text`, percent-decoded and checked with the
/// handle grammar; error indices point into `text`.
pub(crate) fn handle_from_parts<'a>(
    text: &'a str,
    parts: &Parts,
) -> Result<(Cow<'a, str>, usize), ParseError> {
    let (na, local) = (parts.na, parts.local);
    let contiguous = na.1 + 1 == local.0;
    // A naming authority as written that `u_na_segment` allowed is a handle's: every
    // character it allows raw, `na_segment` allows too; and a local name allows anything.
    // tests/uri_grammar.rs checks both against the grammars. With such a naming authority,
    // the handle grammar has nothing to say about the handle.
    let na_as_written = !parts.escaped.0 && parts.na_is_u_naming_authority;
    if na_as_written && !parts.escaped.1 && contiguous {
        // Nothing to decode either: the text is the handle, split at its '/'.
        return Ok((Cow::Borrowed(&text[na.0..local.1]), na.1 - na.0));
    }
    let (na_raw, local_raw) = (&text[na.0..na.1], &text[local.0..local.1]);
    if parts.escaped.0 {
        if let Some(e) = escaped_outside_segment(na_raw, na.0) {
            return Err(e);
        }
    }
    let (handle, na_len) = if parts.escaped == (false, false) && contiguous {
        (Cow::Borrowed(&text[na.0..local.1]), na_raw.len())
    } else {
        // One buffer: the decoded naming authority, '/', the decoded local name.
        let mut bytes = Vec::with_capacity(na_raw.len() + 1 + local_raw.len());
        let append = |bytes: &mut Vec<u8>, raw: &str, at: usize, escaped: bool| {
            if escaped {
                escape::decode_into(raw, at, bytes)
            } else {
                bytes.extend_from_slice(raw.as_bytes());
                Ok(())
            }
        };
        append(&mut bytes, na_raw, na.0, parts.escaped.0)?;
        let na_len = bytes.len();
        bytes.push(b'/');
        append(&mut bytes, local_raw, local.0, parts.escaped.1)?;
        let handle = escape::utf8(bytes, |valid| {
            if valid <= na_len {
                na.0 + original_index(na_raw, valid)
            } else {
                local.0 + original_index(local_raw, valid - na_len - 1)
            }
        })?;
        (Cow::Owned(handle), na_len)
    };
    if na_as_written {
        return Ok((handle, na_len));
    }
    match parse_handle(&handle) {
        // No escape made a '/' in the naming authority (checked above): the first '/' is
        // the one between the parts.
        Ok(slash) => Ok((handle, slash)),
        Err(e) => {
            let d = e.index();
            Err(if d <= na_len {
                escape::relocate(e, text, na.0, na_raw, d)
            } else {
                escape::relocate(e, text, local.0, local_raw, d - na_len - 1)
            })
        }
    }
}

/// U11: an escaped character of a naming authority (`na_raw`, at `at` in the text) is a
/// character of its segment, never a '.' or '/' that starts a new one; the handle grammar
/// says which a segment may hold (H3). The error at the first escape of one it may not.
pub(crate) fn escaped_outside_segment(na_raw: &str, at: usize) -> Option<ParseError> {
    let (i, c) =
        escape::ascii_escapes(na_raw).find(|&(_, c)| !g::HANDLE.leads_to(c, &[Rule::NaSegment]))?;
    Some(
        ParseError::new(at + i, ParseErrorKind::InvalidCharacter, Some(c))
            .written_escaped()
            .in_rule(Rule::NaSegment),
    )
}

/// The query and fragment that may follow at `from` (U7): `?query` up to `#`, `#fragment`
/// to the end.
pub(crate) fn query_and_fragment(text: &str, from: usize) -> (Option<Span>, Option<Span>) {
    let b = text.as_bytes();
    let hash = crate::bytes::find(b'#', &b[from..]).map(|i| from + i);
    let query_end = hash.unwrap_or(b.len());
    let query = (b.get(from) == Some(&b'?')).then_some((from + 1, query_end));
    let fragment = hash.map(|h| (h + 1, b.len()));
    (query, fragment)
}
