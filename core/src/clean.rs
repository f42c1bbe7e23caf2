//! Cleaning (SPEC C2): from one messy string, as catalogues and reference lists hold them,
//! to the handle it most likely holds, with the fixes that got there. What it cannot clean
//! is an error, never a guess.

use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::base::KNOWN_PROXY_HOSTS;
use crate::error::{ParseError, ParseErrorKind};
use crate::form::{Form, Options};
use crate::forms::recognize;
use crate::generated as g;
use crate::handle::{Handle, ReadHandle};
use crate::lint::Warning;

/// What a fix did. Each has a stable [`code`](FixCode::code), a one-line
/// [`explanation`](FixCode::explanation) and the rule it follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum FixCode {
    /// `surrounding-whitespace`: white space around the identifier, no-break and zero-width
    /// spaces and the byte order mark included.
    SurroundingWhitespace,
    /// `wrapping-pair`: a pair of brackets or quotes around the identifier.
    WrappingPair,
    /// `label`: a label before it, `doi:`, `DOI `, `hdl: ` in any case.
    Label,
    /// `resolver-url`: a resolver's URL around the handle, with or without its scheme (P1).
    ResolverUrl,
    /// `query-or-fragment`: a URL's query or fragment, which is not part of the handle (P3).
    QueryOrFragment,
    /// `percent-decoded`: percent-encoding of a URI or URL form, decoded (U1, U8, P3).
    PercentDecoded,
    /// `trailing-punctuation`: `.`, `,`, `;`, `:`, `…` or a closing bracket or quote without
    /// a partner inside the identifier, after it.
    TrailingPunctuation,
    /// `case-folded`: a DOI written in ASCII lowercase, its canonical form (C1).
    CaseFolded,
}

impl FixCode {
    /// Every code, in the order cleaning applies them.
    pub const ALL: [FixCode; 8] = [
        FixCode::SurroundingWhitespace,
        FixCode::WrappingPair,
        FixCode::Label,
        FixCode::ResolverUrl,
        FixCode::QueryOrFragment,
        FixCode::PercentDecoded,
        FixCode::TrailingPunctuation,
        FixCode::CaseFolded,
    ];

    /// The stable code, as `hdl clean --json` writes it.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            FixCode::SurroundingWhitespace => "surrounding-whitespace",
            FixCode::WrappingPair => "wrapping-pair",
            FixCode::Label => "label",
            FixCode::ResolverUrl => "resolver-url",
            FixCode::QueryOrFragment => "query-or-fragment",
            FixCode::PercentDecoded => "percent-decoded",
            FixCode::TrailingPunctuation => "trailing-punctuation",
            FixCode::CaseFolded => "case-folded",
        }
    }

    /// What the fix removed or changed, in one line.
    #[must_use]
    pub const fn explanation(self) -> &'static str {
        match self {
            FixCode::SurroundingWhitespace => "white space around the identifier removed",
            FixCode::WrappingPair => "a pair of brackets or quotes around the identifier removed",
            FixCode::Label => "a label before the identifier removed",
            FixCode::ResolverUrl => "the handle read from a resolver's URL",
            FixCode::QueryOrFragment => "the URL's query or fragment dropped",
            FixCode::PercentDecoded => "percent-encoding decoded",
            FixCode::TrailingPunctuation => "punctuation after the identifier removed",
            FixCode::CaseFolded => "a DOI written in ASCII lowercase",
        }
    }

    /// The rule the fix follows.
    #[must_use]
    pub const fn rule(self) -> &'static str {
        match self {
            FixCode::ResolverUrl => "SPEC C2, P1",
            FixCode::QueryOrFragment => "SPEC C2, P3",
            FixCode::PercentDecoded => "SPEC C2, U8, P3",
            FixCode::CaseFolded => "SPEC C1",
            _ => "SPEC C2",
        }
    }
}

impl fmt::Display for FixCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for FixCode {
    type Err = ();

    /// The fix of a stable code.
    fn from_str(s: &str) -> Result<Self, ()> {
        FixCode::ALL.into_iter().find(|c| c.code() == s).ok_or(())
    }
}

/// A fix, and the byte index in the input where it applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fix {
    code: FixCode,
    index: usize,
}

impl Fix {
    /// What the fix did.
    #[must_use]
    pub const fn code(&self) -> FixCode {
        self.code
    }

    /// The byte index into the input of the first place it applied.
    #[must_use]
    pub const fn index(&self) -> usize {
        self.index
    }
}

impl fmt::Display for Fix {
    /// `label at byte 0: a label before the identifier removed (SPEC C2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {}: {} ({})",
            self.code.code(),
            self.index,
            self.code.explanation(),
            self.code.rule()
        )
    }
}

/// What [`clean`] found: the handle in its canonical form, the handle as the input wrote
/// it, the form it was written in, and the fixes, in the order they were applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cleaned {
    handle: Handle,
    as_written: Handle,
    form: Form,
    fixes: Vec<Fix>,
    warnings: Vec<Warning>,
}

/// What cleaning read, before the canonical form: the handle as written, its form, the
/// fixes so far, and where in the input the text that was read begins.
pub(crate) struct Read<'a> {
    pub(crate) handle: ReadHandle<'a>,
    pub(crate) form: Form,
    pub(crate) fixes: Vec<Fix>,
    read_from: usize,
    /// The warnings of what was read, at their places in the input, when asked for.
    warnings: Vec<Warning>,
}

impl Cleaned {
    /// The handle in its canonical form (C1: a DOI in ASCII lowercase).
    #[must_use]
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// The handle with its case as written.
    #[must_use]
    pub fn as_written(&self) -> &Handle {
        &self.as_written
    }

    /// The form the identifier was written in (a `doi:` or `hdl:` label counts as its form).
    #[must_use]
    pub fn form(&self) -> Form {
        self.form
    }

    /// The fixes, in the order they were applied; empty for an identifier that was clean.
    #[must_use]
    pub fn fixes(&self) -> &[Fix] {
        &self.fixes
    }

    /// The warnings for the handle as written (what [`HdlUri::lint`](crate::HdlUri::lint)
    /// says of the identifier cleaning read), each at its byte index in the input, found
    /// during the one read.
    ///
    /// ```
    /// use handle_id::{clean, LintCode, Options};
    /// let c = clean("  hdl:20.1000/5555/ ", &Options::new())?;
    /// let w = c.lint()[0];
    /// assert_eq!((w.code(), w.index()), (LintCode::TrailingSlash, 18));
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn lint(&self) -> &[Warning] {
        &self.warnings
    }
}

/// White space cleaning removes around an identifier: Unicode's (no-break spaces
/// included), and the zero-width space, joiners and the byte order mark, which text
/// extraction leaves behind.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}'
        )
}

/// Brackets and quotes, opening and closing, that wrap identifiers in real text.
pub(crate) const PAIRS: [(char, char); 10] = [
    ('(', ')'),
    ('[', ']'),
    ('{', '}'),
    ('<', '>'),
    ('"', '"'),
    ('\'', '\''),
    ('\u{201C}', '\u{201D}'),
    ('\u{2018}', '\u{2019}'),
    ('\u{AB}', '\u{BB}'),
    ('\u{300C}', '\u{300D}'),
];

/// Whether `s` is `open … close` with that `open` and that `close` a pair: the bracket
/// opened first is the one closed last (brackets in between balance).
fn wrapped(s: &str) -> Option<(char, char)> {
    let first = s.chars().next()?;
    let last = s.chars().next_back()?;
    let (open, close) = PAIRS.into_iter().find(|&(o, c)| o == first && c == last)?;
    if s.len() < open.len_utf8() + close.len_utf8() {
        return None;
    }
    if open == close {
        return Some((open, close));
    }
    let inner = &s[open.len_utf8()..s.len() - close.len_utf8()];
    let mut depth = 0_i64;
    for c in inner.chars() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth < 0 {
                return None;
            }
        }
    }
    (depth == 0).then_some((open, close))
}

/// Whether the last character of `s` is punctuation that ends a sentence rather than an
/// identifier: `.`, `,`, `;`, `:`, the ellipsis `…` (what word processors make of `...`),
/// or a closing bracket or quote whose partner is not in `s`.
pub(crate) fn trailing_punctuation(s: &str) -> Option<char> {
    // Most identifiers end in a letter or digit.
    if s.as_bytes().last().is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    let last = s.chars().next_back()?;
    if matches!(last, '.' | ',' | ';' | ':' | '\u{2026}') {
        return Some(last);
    }
    let (open, _) = PAIRS.into_iter().find(|&(_, c)| c == last)?;
    let rest = &s[..s.len() - last.len_utf8()];
    let unpartnered = if open == last {
        // A quote: its partner is an odd one out before it.
        rest.matches(open).count() % 2 == 0
    } else {
        rest.matches(last).count() >= rest.matches(open).count()
    };
    unpartnered.then_some(last)
}

/// The handle a messy string most likely holds (SPEC C2), with the fixes that got there:
/// surrounding white space, a wrapping pair of brackets or quotes, a label (`doi:`, `DOI `,
/// `hdl: `), a resolver's URL with or without its scheme (`doi.org/…`, `dx.doi.org/…`,
/// `hdl.handle.net/…`) and its query and fragment, percent-encoding, and punctuation after
/// the identifier; then the canonical form (C1). Every written form [`recognize`] reads is
/// read, under `options`.
///
/// ```
/// use handle_id::{clean, FixCode, Form, Options};
/// let o = Options::new();
/// let c = clean(" doi: 10.1045/APRIL2006-PASKIN. ", &o)?;
/// assert_eq!(c.handle().as_str(), "10.1045/april2006-paskin");
/// assert_eq!(c.form(), Form::Doi);
/// let codes: Vec<_> = c.fixes().iter().map(|f| f.code()).collect();
/// assert_eq!(
///     codes,
///     [FixCode::SurroundingWhitespace, FixCode::Label, FixCode::TrailingPunctuation, FixCode::CaseFolded]
/// );
/// assert_eq!(clean("(doi.org/10.1000/182)", &o)?.handle().as_str(), "10.1000/182");
/// // Brackets that balance inside the identifier stay.
/// let sici = clean("10.3319/TAO.2009.05.25.02(IWNOP)", &o)?;
/// assert_eq!(sici.as_written().as_str(), "10.3319/TAO.2009.05.25.02(IWNOP)");
/// // No identifier, no guess.
/// assert!(clean("See https://example.com/10.1000/182 for details", &o).is_err());
/// # Ok::<(), handle_id::ParseError>(())
/// ```
///
/// # Errors
///
/// A [`ParseError`] with the byte index into `text` when what is left after the fixes is
/// no handle in any form: no `/`, a URL of a site that is not a resolver
/// ([`ParseErrorKind::UnknownResolver`]), a form that holds no handle, or a naming authority
/// with white space in it, which is running text rather than one identifier
/// ([`ParseErrorKind::NotOneIdentifier`]).
pub fn clean(text: &str, options: &Options) -> Result<Cleaned, ParseError> {
    let Read {
        handle,
        form,
        mut fixes,
        read_from,
        warnings,
    } = read(text, options, true)?;
    let handle = handle.into_handle();
    let canonical = handle.canonical();
    if canonical != handle {
        fixes.push(Fix {
            code: FixCode::CaseFolded,
            index: read_from,
        });
    }
    Ok(Cleaned {
        handle: canonical,
        as_written: handle,
        form,
        fixes,
        warnings,
    })
}

/// [`clean`] without the canonical form: `handle` is the handle as written (for
/// extraction, which reports it so).
pub(crate) fn clean_as_written<'a>(
    text: &'a str,
    options: &Options,
) -> Result<Read<'a>, ParseError> {
    read(text, options, false)
}

/// [`clean_as_written`], with the warnings of what was read when `lint`.
fn read<'a>(text: &'a str, options: &Options, lint: bool) -> Result<Read<'a>, ParseError> {
    let mut warnings = Vec::new();
    let mut fixes: Vec<Fix> = Vec::new();
    let mut note = |code: FixCode, index: usize| {
        if !fixes.iter().any(|f| f.code == code) {
            fixes.push(Fix { code, index });
        }
    };
    // The part of `text` left, as offsets: every textual fix takes something off an end.
    let (mut start, mut end) = (0, text.len());
    let mut label = None;
    loop {
        let s = &text[start..end];
        let trimmed = s.trim_start_matches(is_space);
        if trimmed.len() < s.len() {
            note(FixCode::SurroundingWhitespace, start);
            start += s.len() - trimmed.len();
            continue;
        }
        let trimmed = s.trim_end_matches(is_space);
        if trimmed.len() < s.len() {
            note(FixCode::SurroundingWhitespace, start + trimmed.len());
            end = start + trimmed.len();
            continue;
        }
        if let Some((open, close)) = wrapped(s) {
            note(FixCode::WrappingPair, start);
            start += open.len_utf8();
            end -= close.len_utf8();
            continue;
        }
        if let Some(p) = g::LABEL_FORM.accepted_prefix(s.as_bytes()) {
            note(FixCode::Label, start);
            label.get_or_insert(if s.as_bytes()[0].eq_ignore_ascii_case(&b'd') {
                Form::Doi
            } else {
                Form::Hdl
            });
            start += p;
            continue;
        }
        if let Some(c) = trailing_punctuation(s) {
            note(FixCode::TrailingPunctuation, end - c.len_utf8());
            end -= c.len_utf8();
            continue;
        }
        break;
    }
    let s = &text[start..end];
    // A resolver's host without its scheme reads as the URL with it.
    let b = s.as_bytes();
    let host = KNOWN_PROXY_HOSTS.iter().find(|host| {
        b.get(host.len()) == Some(&b'/') && b[..host.len()].eq_ignore_ascii_case(host.as_bytes())
    });
    let (handle, form) = match host {
        Some(_) => {
            let with_scheme = alloc::format!("https://{s}");
            let lint = lint.then_some(&mut warnings);
            let (handle, form) = read_uri(text, start, -8, &with_scheme, options, &mut note, lint)?;
            // Read from a copy with the scheme: owned.
            (ReadHandle::Owned(handle.into_handle()), form)
        }
        None => read_uri(
            text,
            start,
            0,
            s,
            options,
            &mut note,
            lint.then_some(&mut warnings),
        )?,
    };
    let form = match (label, form) {
        (Some(label), Form::Handle) => label,
        (_, form) => form,
    };
    Ok(Read {
        handle,
        form,
        fixes,
        read_from: start,
        warnings,
    })
}

/// The handle in `s`, what cleaning left of `text` from `start` (`s` is that text with
/// `shift` bytes more before it), in any written form, with the fixes reading it took, and
/// its warnings at their places in `text` into `lint` when given.
fn read_uri<'s>(
    text: &str,
    start: usize,
    shift: isize,
    s: &'s str,
    options: &Options,
    note: &mut impl FnMut(FixCode, usize),
    lint: Option<&mut Vec<Warning>>,
) -> Result<(ReadHandle<'s>, Form), ParseError> {
    let at = |i: usize| start.saturating_add_signed(i as isize + shift);
    let uri = recognize(s, options).map_err(|e| {
        // Where what was left ends, the error names what cleaning took off there.
        if e.found().is_none() && e.kind() != ParseErrorKind::InvalidUtf8 {
            e.at_in(text, at(e.index()))
        } else {
            e.at(at(e.index()))
        }
    })?;
    let handle = uri.handle();
    if handle.prefix().contains(is_space) {
        // White space inside a naming authority: running text, not one identifier.
        let i = at(s.find(is_space).unwrap_or(0));
        return Err(ParseError::new(
            i,
            ParseErrorKind::NotOneIdentifier,
            text[i..].chars().next(),
        ));
    }
    if matches!(uri.form(), Form::Proxy | Form::Api | Form::Repository) {
        note(FixCode::ResolverUrl, start);
    }
    if let Some(q) = uri.query().or(uri.fragment()) {
        let i = q.as_ptr() as usize - uri.as_str().as_ptr() as usize;
        note(FixCode::QueryOrFragment, at(i - 1));
    }
    // Decoded: the handle is not a slice of the text (a `urn:` form's ':' made '/' is
    // not decoding).
    let h = handle.as_str();
    let (here, there) = (s.as_ptr() as usize, h.as_ptr() as usize);
    let sliced = there >= here && there + h.len() <= here + s.len();
    if !sliced && s.contains('%') {
        note(FixCode::PercentDecoded, start);
    }
    if let Some(warnings) = lint {
        warnings.extend(uri.lint().into_iter().map(|w| w.at(at(w.index()))));
    }
    let form = uri.form();
    Ok((uri.into_read_handle(), form))
}
