//! Cleaning (SPEC C2): from one messy string, as catalogues and reference lists hold them,
//! to the handle it most likely holds, with the fixes that got there. What it cannot clean
//! is an error, never a guess.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::base::{API_PATH, KNOWN_PROXY_HOSTS};
use crate::error::{ParseError, ParseErrorKind};
use crate::escape::{self, EscapeSet};
use crate::form::{Form, Options};
use crate::forms::{self, recognize};
use crate::generated as g;
use crate::handle::{Handle, HandleRef, ReadHandle};
use crate::lint::{LintCode, Warning};
use crate::uri::HdlUri;

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
    /// `leading-punctuation`: an opening bracket or quote without a partner inside the
    /// identifier, before it (a pair whose closing half was lost: `(10.1000/182`), where
    /// nothing else is at either end.
    LeadingPunctuation,
    /// `split-joined`: white space inside a DOI written after a label or a resolver's host,
    /// which text taken from a PDF splits DOIs with, taken out.
    SplitJoined,
    /// `case-folded`: a DOI written in ASCII lowercase, its canonical form (C1).
    CaseFolded,
}

impl FixCode {
    /// Every code, in the order cleaning applies them.
    pub const ALL: [FixCode; 10] = [
        FixCode::SurroundingWhitespace,
        FixCode::WrappingPair,
        FixCode::Label,
        FixCode::ResolverUrl,
        FixCode::QueryOrFragment,
        FixCode::PercentDecoded,
        FixCode::TrailingPunctuation,
        FixCode::LeadingPunctuation,
        FixCode::SplitJoined,
        FixCode::CaseFolded,
    ];

    /// The fix's place in [`FixCode::ALL`] (a column of codes keeps it, one byte a row,
    /// with the codes once).
    ///
    /// ```
    /// use handle_id::FixCode;
    /// assert_eq!(FixCode::ALL[FixCode::Label.index()], FixCode::Label);
    /// ```
    #[must_use]
    pub const fn index(self) -> usize {
        // (`ALL` lists the variants in their order: a test holds it.)
        self as usize
    }

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
            FixCode::LeadingPunctuation => "leading-punctuation",
            FixCode::SplitJoined => "split-joined",
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
            FixCode::LeadingPunctuation => "an opening bracket or quote without a partner removed",
            FixCode::SplitJoined => "white space inside a DOI taken out",
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
    held: bool,
}

impl Fix {
    /// A fix to the text itself, not to the handle a form holds.
    const fn new(code: FixCode, index: usize) -> Self {
        Self {
            code,
            index,
            held: false,
        }
    }

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

    /// Whether it was made to the handle a written form holds (a resolver's URL's path, an
    /// `hdl:` or `info:` URI's handle), cleaned as a string of its own (SPEC C2), rather than
    /// to the text around the form: `https://doi.org/(10.1000/182`'s `leading-punctuation`.
    ///
    /// ```
    /// use handle_id::{clean, FixCode, Options};
    /// let c = clean("https://doi.org/(10.1000/182", &Options::new())?;
    /// let f = c.fixes().iter().find(|f| f.code() == FixCode::LeadingPunctuation).unwrap();
    /// assert!(f.held() && f.index() == 16);
    /// assert!(!clean("(10.1000/182", &Options::new())?.fixes()[0].held());
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub const fn held(&self) -> bool {
        self.held
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
    /// The handle as written where it is not the canonical one (`None`: the same), so that
    /// a clean handle is held once.
    as_written: Option<Handle>,
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
        self.as_written.as_ref().unwrap_or(&self.handle)
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

/// Brackets and quotes, opening and closing, that wrap identifiers in real text: CJK
/// text's too (full-width brackets, `【…】`, `《…》`, corner brackets), which it writes
/// with no white space around them.
pub(crate) const PAIRS: [(char, char); 27] = [
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
    ('\u{300E}', '\u{300F}'),
    ('\u{FF08}', '\u{FF09}'),
    ('\u{FF3B}', '\u{FF3D}'),
    ('\u{FF5B}', '\u{FF5D}'),
    ('\u{3010}', '\u{3011}'),
    ('\u{3014}', '\u{3015}'),
    ('\u{3008}', '\u{3009}'),
    ('\u{300A}', '\u{300B}'),
    // German quotes open low and close high: `„…“`, `‚…‘` (the closing ones open English
    // quotes above, and are found there first).
    ('\u{201E}', '\u{201C}'),
    ('\u{201A}', '\u{2018}'),
    // German and Danish guillemets point inwards, `»…«`, `›…‹` (the closing ones open
    // French ones above, found there first), and French single ones outwards, `‹…›`;
    // Swedish and Finnish quotes close on both sides, `”…”`, `»…»`.
    ('\u{BB}', '\u{AB}'),
    ('\u{2039}', '\u{203A}'),
    ('\u{203A}', '\u{2039}'),
    ('\u{201D}', '\u{201D}'),
    ('\u{BB}', '\u{BB}'),
    // The reversed 9s are the English opening quotes as some typefaces draw them: `‟…”`,
    // `‛…’` (their closing ones close English quotes above, found there first).
    ('\u{201F}', '\u{201D}'),
    ('\u{201B}', '\u{2019}'),
];

/// Whether `s` is `open … close` with that `open` and that `close` a pair: the bracket
/// opened first is the one closed last (brackets in between balance).
#[inline(always)]
fn wrapped(s: &str) -> Option<(char, char)> {
    // (No pair opens with a letter or digit, what most texts start with.)
    if s.as_bytes().first().is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
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
    let balanced = if open.is_ascii() && close.is_ascii() {
        // (An ASCII byte is never part of a longer character's: the bytes tell; most texts
        // wrapped hold none of the pair's.)
        let (open, close) = (open as u8, close as u8);
        !crate::bytes::has_any(inner.as_bytes(), &[open, close])
            || balances(inner.bytes(), open, close)
    } else {
        quotes_balance(inner, open, close)
    };
    balanced.then_some((open, close))
}

/// Whether `inner` balances `open` and `close` ([`balances`]) where one of them is also a
/// quote of another language's pair: German quotes close with the English opening one, so
/// that `“„…“”` and `„“…”“` each nest one pair in the other. Inside English quotes a `„`
/// opens a German pair, which the next `“` closes; inside German ones a `“` that would
/// close none opens an English pair, which a `”` closes.
fn quotes_balance(inner: &str, open: char, close: char) -> bool {
    // (Only where the other pair's other character is not this pair's: guillemets, which
    // point either way, balance as written.)
    let low = PAIRS
        .iter()
        .find(|&&(o, c)| c == open && o != open && o != close)
        .map(|&(o, _)| o);
    let high = PAIRS
        .iter()
        .find(|&&(o, c)| o == close && c != close && c != open)
        .map(|&(_, c)| c);
    if low.is_none() && high.is_none() {
        return balances(inner.chars(), open, close);
    }
    let (mut depth, mut lows, mut highs) = (0_usize, 0_usize, 0_usize);
    for c in inner.chars() {
        if Some(c) == low {
            lows += 1;
        } else if c == open {
            match lows.checked_sub(1) {
                Some(l) => lows = l,
                None => depth += 1,
            }
        } else if c == close {
            match depth.checked_sub(1) {
                Some(d) => depth = d,
                None if high.is_some() => highs += 1,
                None => return false,
            }
        } else if Some(c) == high {
            highs = highs.saturating_sub(1);
        }
    }
    depth == 0
}

/// Whether every `close` in `items` closes an `open` before it, and every `open` is closed.
fn balances<T: PartialEq>(items: impl Iterator<Item = T>, open: T, close: T) -> bool {
    let mut depth = 0_i64;
    for c in items {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth < 0 {
                return false;
            }
        }
    }
    depth == 0
}

/// [`PairCounts::slot`] of each ASCII character, made from [`PAIRS`] at compile time
/// (`NO_SLOT`: none).
const ASCII_SLOTS: [u8; 128] = {
    assert!(2 * PAIRS.len() < NO_SLOT as usize);
    let mut slots = [NO_SLOT; 128];
    let mut i = 2 * PAIRS.len();
    // (From the last place to the first: a character's first place is the one kept.)
    while i > 0 {
        i -= 1;
        let (open, close) = PAIRS[i / 2];
        let c = if i % 2 == 0 { open } else { close };
        if c.is_ascii() {
            slots[c as usize] = i as u8;
        }
    }
    slots
};
const NO_SLOT: u8 = u8::MAX;

/// The characters of [`PAIRS`] and how many of each a text holds, so that whether a
/// closing one has its partner is known without counting the text again each time one is
/// taken off its end.
struct PairCounts([usize; 2 * PAIRS.len()]);

impl PairCounts {
    /// Where `c` is counted: each character of `PAIRS` at its first place there (an ASCII
    /// one by `ASCII_SLOTS`, made from `PAIRS`).
    fn slot(c: char) -> Option<usize> {
        if c.is_ascii() {
            let slot = ASCII_SLOTS[c as usize];
            return (slot != NO_SLOT).then_some(usize::from(slot));
        }
        PAIRS
            .iter()
            .flat_map(|&(o, cl)| [o, cl])
            .position(|p| p == c)
    }

    fn of(s: &str) -> Self {
        let mut counts = PairCounts([0; 2 * PAIRS.len()]);
        counts.add(s, 1);
        counts
    }

    /// Counts the characters of `s` in (`sign` 1) or out (`sign` -1).
    fn add(&mut self, s: &str, sign: isize) {
        for c in s.chars() {
            if let Some(k) = Self::slot(c) {
                self.0[k] = self.0[k].saturating_add_signed(sign);
            }
        }
    }

    fn count(&self, c: char) -> usize {
        Self::slot(c).map_or(0, |k| self.0[k])
    }
}

/// The punctuation CJK text ends a clause or sentence with, or writes a label's colon
/// with (`DOI：`), full-width: the ideographic comma and full stop, and the full-width
/// comma, full stop, colon and semicolon. No DOI holds one; running text writes them with
/// no white space after them, so that an identifier ends at one (C3) and cleaning takes one
/// off its end (C2).
pub(crate) const FULL_WIDTH_STOPS: [char; 6] = [
    '\u{3001}', '\u{3002}', '\u{FF0C}', '\u{FF0E}', '\u{FF1A}', '\u{FF1B}',
];

/// The full-width colon (`FULL_WIDTH_STOPS`), as CJK text writes a label's: `DOI：`.
const FULL_WIDTH_COLON: &str = "\u{FF1A}";

/// Whether the last character of `s` is punctuation that ends a sentence rather than an
/// identifier: `.`, `,`, `;`, `:`, the ellipsis `…` (what word processors make of `...`),
/// one of `FULL_WIDTH_STOPS`,
/// or a closing bracket or quote whose partner is not in `s` (whose pair characters
/// `counts` counts; the caller counts them whenever `s` ends with one).
fn trailing_punctuation(s: &str, counts: Option<&PairCounts>) -> Option<char> {
    // Most identifiers end in a letter or digit.
    if s.as_bytes().last().is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    let last = s.chars().next_back()?;
    if matches!(last, '.' | ',' | ';' | ':' | '\u{2026}') || FULL_WIDTH_STOPS.contains(&last) {
        return Some(last);
    }
    let (open, _) = PAIRS.into_iter().find(|&(_, c)| c == last)?;
    let counts = counts.expect("the pair characters counted");
    // (The counts hold `last` itself too.)
    let before = counts.count(last) - 1;
    let unpartnered = if open == last {
        // A quote: its partner is an odd one out before it.
        before % 2 == 0
    } else {
        before >= counts.count(open)
    };
    unpartnered.then_some(last)
}

/// Whether the first character of `s` is an opening bracket or quote with no partner after
/// it: what a line keeps of a pair whose closing half it lost (`(10.1/x`, `[doi:10.1/x`),
/// the mirror of a closing one without a partner at the end. A bracket's partner is the
/// closing one that brings the brackets after it back to none open (`(10.1/x)(y` keeps
/// its first); a quote's, the same quote anywhere after it (`''10.1/x` keeps both).
/// (A look over `s`: the caller takes off at most `MAX_WRAPPING`, as it does pairs.)
pub(crate) fn leading_punctuation(s: &str) -> Option<char> {
    // Most identifiers start with a letter or digit.
    if s.as_bytes().first().is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    let first = s.chars().next()?;
    let (_, close) = PAIRS.into_iter().find(|&(o, _)| o == first)?;
    let rest = &s[first.len_utf8()..];
    let partnered = if close == first {
        rest.contains(first)
    } else {
        let mut open = 1_usize;
        rest.chars().any(|c| {
            if c == first {
                open += 1;
            } else if c == close {
                open -= 1;
            }
            open == 0
        })
    };
    (!partnered).then_some(first)
}

/// How many wrapping pairs of brackets cleaning takes off at most (C2): no catalogue wraps
/// an identifier deeper, and each is checked over the whole of what it wraps.
pub(crate) const MAX_WRAPPING: usize = 8;

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
/// ([`ParseErrorKind::UnknownResolver`]), a form that holds no handle, or white space
/// inside (as written, or decoded in a naming authority) that no split DOI's evidence joins,
/// which is running text rather than one identifier ([`ParseErrorKind::NotOneIdentifier`]).
pub fn clean(text: &str, options: &Options) -> Result<Cleaned, ParseError> {
    let mut fixes = Vec::new();
    let Read {
        handle,
        form,
        read_from,
        warnings,
        ..
    } = read_with(text, options, true, &mut fixes, Within::TEXT)?;
    let handle = handle.into_handle();
    // (A handle already canonical is not copied again.)
    let (canonical, as_written) = if handle.as_handle_ref().is_canonical() {
        (handle, None)
    } else {
        fixes.push(Fix::new(FixCode::CaseFolded, read_from));
        (handle.canonical(), Some(handle))
    };
    Ok(Cleaned {
        handle: canonical,
        as_written,
        form,
        fixes,
        warnings,
    })
}

/// [`clean`] without the warnings and without a [`Cleaned`], into buffers the caller
/// keeps: for a column of values, where the same two buffers serve every value and each
/// value costs no allocation once they have grown. `handle` gets the handle in its
/// canonical form, or as written with `keep_case`; `fixes` the same fixes [`clean`] gives
/// (`case-folded` included with `keep_case` too). Both are cleared first, and left empty
/// on an error. Returns the form, as [`Cleaned::form`].
///
/// ```
/// use handle_id::{clean, clean_into, FixCode, Form, Options};
/// let (o, text) = (Options::new(), "(DOI: 10.1045/APRIL2006-Paskin).");
/// let (mut handle, mut fixes) = (String::new(), Vec::new());
/// assert_eq!(clean_into(text, &o, false, &mut handle, &mut fixes)?, Form::Doi);
/// assert_eq!(handle, "10.1045/april2006-paskin");
/// assert_eq!(fixes, clean(text, &o)?.fixes());
/// clean_into(text, &o, true, &mut handle, &mut fixes)?;
/// assert_eq!(handle, "10.1045/APRIL2006-Paskin");
/// assert_eq!(fixes.last().map(|f| f.code()), Some(FixCode::CaseFolded));
/// # Ok::<(), handle_id::ParseError>(())
/// ```
///
/// # Errors
///
/// The [`ParseError`] [`clean`] gives for `text`.
pub fn clean_into(
    text: &str,
    options: &Options,
    keep_case: bool,
    handle: &mut String,
    fixes: &mut Vec<Fix>,
) -> Result<Form, ParseError> {
    clean_to(text, options, keep_case, true, handle, fixes).map(|(form, _)| form)
}

/// Where [`clean_in_place`] left the handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// In the text cleaned, as it is there (`text[span]`): a handle written in its canonical
    /// form, or kept as written. Nothing was written into the buffer.
    Text(core::ops::Range<usize>),
    /// In the buffer: the handle case-folded into its canonical form, or decoded.
    Buffer,
}

impl Written {
    /// The handle's text: of `text` (the text cleaned) or of `buffer` (the buffer
    /// [`clean_in_place`] was given), as this says.
    ///
    /// ```
    /// use handle_id::{clean_in_place, Options};
    /// let (mut buffer, mut fixes) = (String::new(), Vec::new());
    /// for text in ["(10.1000/abc)", "DOI: 10.1000/ABC"] {
    ///     let (_, at) = clean_in_place(text, &Options::new(), false, &mut buffer, &mut fixes)?;
    ///     assert_eq!(at.handle_in(text, &buffer), "10.1000/abc");
    /// }
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn handle_in<'a>(&self, text: &'a str, buffer: &'a str) -> &'a str {
        match self {
            Written::Text(span) => &text[span.clone()],
            Written::Buffer => buffer,
        }
    }
}

/// [`clean_into`] that writes the handle only where it differs from the text: most handles
/// are written in the text as they are cleaned, and a caller that keeps the text (a value
/// that holds its input, a column builder) need not copy them twice. `buffer` gets the
/// handle where [`Written::Buffer`] says so, and is cleared first; `fixes` as
/// [`clean_into`].
///
/// ```
/// use handle_id::{clean_in_place, Options, Written};
/// let o = Options::new();
/// let (mut buffer, mut fixes) = (String::new(), Vec::new());
/// let text = "doi:10.1045/april2006-paskin.";
/// let (_, at) = clean_in_place(text, &o, false, &mut buffer, &mut fixes)?;
/// assert_eq!(at, Written::Text(4..28));
/// assert_eq!(&text[4..28], "10.1045/april2006-paskin");
/// let (_, at) = clean_in_place("doi:10.1045/APRIL2006-Paskin", &o, false, &mut buffer, &mut fixes)?;
/// assert_eq!((at, buffer.as_str()), (Written::Buffer, "10.1045/april2006-paskin"));
/// # Ok::<(), handle_id::ParseError>(())
/// ```
///
/// # Errors
///
/// The [`ParseError`] [`clean`] gives for `text`.
pub fn clean_in_place(
    text: &str,
    options: &Options,
    keep_case: bool,
    buffer: &mut String,
    fixes: &mut Vec<Fix>,
) -> Result<(Form, Written), ParseError> {
    clean_to(text, options, keep_case, false, buffer, fixes)
}

/// [`clean_in_place`], or [`clean_into`] when `copy` (the handle always into `buffer`):
/// one body, inlined into each, so that the copy is made where the handle is found.
#[inline(always)]
fn clean_to(
    text: &str,
    options: &Options,
    keep_case: bool,
    copy: bool,
    buffer: &mut String,
    fixes: &mut Vec<Fix>,
) -> Result<(Form, Written), ParseError> {
    buffer.clear();
    fixes.clear();
    // (`clean` reads these through the loop, with the lint: the two are held to each other,
    // in tests and by the `clean` fuzz target.)
    let b = text.as_bytes();
    let lead = if plain_ends(b) {
        // A bare handle (what most values of a column are); else the loop's first turn
        // would take nothing off, and leave the whole to `read_rest` (which says why white
        // space inside makes it no handle).
        match bare_between_plain_ends(text, options) {
            Some(h) => {
                let at = written(text, h, 0, keep_case, copy, buffer, fixes);
                return Ok((Form::Handle, at));
            }
            None => Lead::Whole,
        }
    } else {
        match (b.first(), b.last()) {
            (Some(f), Some(l)) if f.is_ascii_alphanumeric() && l.is_ascii_alphanumeric() => {
                lead_before_plain(text, options, fixes)
            }
            (Some(_), Some(_)) => around_bare(text, options, fixes),
            _ => Lead::Other,
        }
    };
    // (Taken apart at once: read back whole from the value returned, the handle's fields
    // were loaded as one 16-byte word just stored as two, which stalls the load.)
    let read = match lead {
        Lead::Read(h, form, read_from) => {
            let at = written(text, h, read_from, keep_case, copy, buffer, fixes);
            return Ok((form, at));
        }
        // (An `hdl:` or `info:` URI of a plain handle first, without the URI's walk.)
        Lead::Whole => match plain_uri(text, options) {
            Some((h, form)) => {
                let at = written(text, h, 0, keep_case, copy, buffer, fixes);
                return Ok((form, at));
            }
            // (White space inside: a DOI split after a URI's prefix, which the loop's last
            // step joins, `hdl:10.1021/ es030360x`.)
            None if crate::bytes::has_ascii_whitespace(b) => read_in_loop(text, options, fixes),
            None => read_rest(
                text,
                0,
                text.len(),
                None,
                options,
                &mut |code, index| note_once(fixes, code, index),
                None,
                Within::TEXT,
            )
            .map(|(handle, form, held)| {
                for fix in held {
                    note_fix_once(fixes, fix);
                }
                (handle, form, 0)
            }),
        },
        Lead::Other => read_in_loop(text, options, fixes),
    };
    let (read, form, read_from) = match read {
        Ok(read) => read,
        Err(e) => {
            fixes.clear();
            return Err(e);
        }
    };
    let at = match read {
        ReadHandle::Slice(h) => written(text, h, read_from, keep_case, copy, buffer, fixes),
        ReadHandle::Owned(h) => written(
            text,
            h.as_handle_ref(),
            read_from,
            keep_case,
            copy,
            buffer,
            fixes,
        ),
    };
    Ok((form, at))
}

/// What cleaning's loop reads in `text` without the lint: the handle, its form and where
/// it was read from.
#[inline]
fn read_in_loop<'a>(
    text: &'a str,
    options: &Options,
    fixes: &mut Vec<Fix>,
) -> Result<(ReadHandle<'a>, Form, usize), ParseError> {
    read_with(text, options, false, fixes, Within::TEXT).map(
        |Read {
             handle,
             form,
             read_from,
             ..
         }| (handle, form, read_from),
    )
}

/// Where `h`, read from `read_from`, is in its canonical form (or as written with
/// `keep_case`): in `text` where it is written so there, else written into `buffer` (a
/// handle decoded is not in `text` as it is; and any handle when `copy`); and
/// `case-folded` into `fixes` where the canonical form differs from it. (Inlined: the place
/// it returns, written as words and read back whole, stalled the load.)
#[inline(always)]
fn written(
    text: &str,
    h: HandleRef<'_>,
    read_from: usize,
    keep_case: bool,
    copy: bool,
    buffer: &mut String,
    fixes: &mut Vec<Fix>,
) -> Written {
    // (Its DOI question asked once.)
    let doi = h.is_doi();
    if !h.is_canonical_of(doi) {
        fixes.push(Fix::new(FixCode::CaseFolded, read_from));
        if !keep_case {
            h.write_canonical_of(doi, buffer);
            return Written::Buffer;
        }
    }
    if !copy {
        if let Some(span) = span_in(text, h.as_str()) {
            return Written::Text(span);
        }
    }
    buffer.push_str(h.as_str());
    Written::Buffer
}

/// Where `part` is in `text`, when it is a slice of it (the addresses compared).
fn span_in(text: &str, part: &str) -> Option<core::ops::Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= text.len()).then_some(start..end)
}

/// [`clean`] without the canonical form: `handle` is the handle as written (for
/// extraction, which reports it so).
pub(crate) fn clean_as_written<'a>(
    text: &'a str,
    options: &Options,
) -> Result<Read<'a>, ParseError> {
    let mut fixes = Vec::new();
    let read = read_with(text, options, false, &mut fixes, Within::TEXT)?;
    Ok(Read { fixes, ..read })
}

/// `code` into `fixes` at `index`, unless it is there already (each fix is noted where it
/// was first applied).
#[inline]
fn note_once(fixes: &mut Vec<Fix>, code: FixCode, index: usize) {
    note_fix_once(fixes, Fix::new(code, index));
}

/// `fix` into `fixes`, unless a fix of its code is there already.
#[inline]
fn note_fix_once(fixes: &mut Vec<Fix>, fix: Fix) {
    if !fixes.iter().any(|f| f.code == fix.code) {
        fixes.push(fix);
    }
}

/// The reading of `text` ([`Within`] says which), its fixes into `fixes` (the caller's
/// buffer: [`clean_into`]) rather than into the `Read`, whose own are left empty.
fn read_with<'a>(
    text: &'a str,
    options: &Options,
    lint: bool,
    fixes: &mut Vec<Fix>,
    within: Within,
) -> Result<Read<'a>, ParseError> {
    read_within(text, options, lint, fixes, within, false)
}

/// [`read_with`] of a handle `within` written forms, one inside another ([`Within`])
/// ([`clean_held`]); `after_host` where the form is a resolver's URL, whose host is the
/// evidence a DOI split by white space needs (`split_end`), as it is outside the handle.
fn read_within<'a>(
    text: &'a str,
    options: &Options,
    lint: bool,
    fixes: &mut Vec<Fix>,
    within: Within,
    after_host: bool,
) -> Result<Read<'a>, ParseError> {
    let mut warnings = Vec::new();
    let mut note = |code: FixCode, index: usize| note_once(fixes, code, index);
    // The part of `text` left, as offsets: every textual fix takes something off an end.
    let (mut start, mut end) = (0, text.len());
    let mut label = None;
    // Each step takes something off an end, and looks at no more than that, but for the
    // wrapping pairs and the opening brackets or quotes without a partner (at most
    // MAX_WRAPPING each), and the first count of the pairs' characters.
    let (mut wrapping, mut leading) = (0, 0);
    let mut counts: Option<PairCounts> = None;
    // The resolver's URL prefix of what is left, as the last step looked for it, and what
    // that step saw.
    let mut resolver;
    let mut left = Left::Other;
    let taken = |counts: &mut Option<PairCounts>, gone: &str| {
        if let Some(counts) = counts {
            counts.add(gone, -1);
        }
    };
    loop {
        let s = &text[start..end];
        // Nothing to take off either end, nor a resolver's URL to look for (what most lines
        // leave after a label, a pair or white space): the steps below, seen from the ends.
        if plain_ends(s.as_bytes()) {
            resolver = None;
            left = Left::PlainEnds;
            break;
        }
        // (An end that is an ASCII letter or digit is no white space: most are.)
        let ends = |b: Option<&u8>| b.is_some_and(u8::is_ascii_alphanumeric);
        if !ends(s.as_bytes().first()) {
            let trimmed = s.trim_start_matches(is_space);
            if trimmed.len() < s.len() {
                note(FixCode::SurroundingWhitespace, start);
                start += s.len() - trimmed.len();
                continue;
            }
        }
        if !ends(s.as_bytes().last()) {
            let trimmed = s.trim_end_matches(is_space);
            if trimmed.len() < s.len() {
                note(FixCode::SurroundingWhitespace, start + trimmed.len());
                end = start + trimmed.len();
                continue;
            }
        }
        if let Some((open, close)) = wrapped(s).filter(|&(o, c)| o == c || wrapping < MAX_WRAPPING)
        {
            note(FixCode::WrappingPair, start);
            // (A pair of quotes is checked at its ends alone.)
            wrapping += usize::from(open != close);
            taken(&mut counts, &s[..open.len_utf8()]);
            taken(&mut counts, &s[s.len() - close.len_utf8()..]);
            start += open.len_utf8();
            end -= close.len_utf8();
            continue;
        }
        if let Some(p) = label_prefix(s.as_bytes()) {
            note(FixCode::Label, start);
            label.get_or_insert(label_form(s.as_bytes()[0]));
            taken(&mut counts, &s[..p]);
            start += p;
            continue;
        }
        let last_is_pair = s
            .chars()
            .next_back()
            .is_some_and(|c| PairCounts::slot(c).is_some());
        if last_is_pair && counts.is_none() {
            counts = Some(PairCounts::of(s));
        }
        if let Some(c) = trailing_punctuation(s, counts.as_ref()) {
            note(FixCode::TrailingPunctuation, end - c.len_utf8());
            taken(&mut counts, &s[s.len() - c.len_utf8()..]);
            end -= c.len_utf8();
            continue;
        }
        // (Last: where nothing else is taken off either end, `(doi:10.1/x).` looks at no
        // pair it never needed.)
        if let Some(c) = (leading < MAX_WRAPPING)
            .then(|| leading_punctuation(s))
            .flatten()
        {
            leading += 1;
            note(FixCode::LeadingPunctuation, start);
            taken(&mut counts, &s[..c.len_utf8()]);
            start += c.len_utf8();
            continue;
        }
        // A resolver's URL pasted before another's (`https://doi.org/https://doi.org/10.1/x`):
        // the inner is the one that holds the handle.
        resolver = resolver_prefix(s, options);
        if let Some(p) = resolver.filter(|&p| resolver_prefix(&s[p..], options).is_some()) {
            note(FixCode::ResolverUrl, start);
            taken(&mut counts, &s[..p]);
            start += p;
            continue;
        }
        break;
    }
    // A DOI split by white space after a label or a resolver's host, as PDFs split them,
    // is read whole (`split_end` says on what evidence).
    let s = &text[start..end];
    // (The loop's last step looked for the resolver's prefix of `s`.)
    // Where an `hdl:` or `info:` URI's prefix ends, when `s` starts with one and a DOI split
    // after it may be joined: looked for only with white space inside and where a URI may
    // start (most texts left here are a DOI); right after the prefix (a gap may come first
    // only after a host); not `hdl://` read as the resolution form, whose server comes
    // first (U3).
    let uri_at = || {
        (matches!(s.as_bytes().first(), Some(b'h' | b'H' | b'i' | b'I'))
            && crate::bytes::has_ascii_whitespace(s.as_bytes()))
        .then(|| uri_prefix(s))
        .flatten()
        .filter(|&(p, form)| {
            let gap = s
                .as_bytes()
                .get(p)
                .is_some_and(crate::bytes::is_ascii_space);
            !(gap || (options.resolution_form && form == Form::HdlHost))
        })
        .map(|(p, _)| p)
    };
    // After a label, right there; but after a label before a URI, after the URI's prefix
    // (`DOI: hdl:10.1021/ es030360x`).
    let doi_at = match label.map(|_| uri_at()) {
        Some(None) => Some(0),
        Some(at) => at,
        None => {
            // (Right after the host of the form around: as `split_end` reads a host, one or
            // two bytes of white space at most before the DOI.)
            let lead = text.as_bytes()[..start]
                .iter()
                .filter(|b| crate::bytes::is_ascii_space(b))
                .count();
            resolver
                .or((after_host && lead <= 2).then_some(0))
                .or_else(uri_at)
        }
    };
    // (ASCII white space is never part of a longer character's bytes. Decoded, white space
    // is a character the form means: nothing is joined, as after the host of a URL that
    // writes it `%20`.)
    let doi_at = doi_at.filter(|_| !within.decoded);
    if let Some(at) = doi_at.filter(|&at| crate::bytes::has_ascii_whitespace(&s.as_bytes()[at..])) {
        if split_end(s, at, None, &mut 0, &mut None) == Some(s.len()) {
            let joined = alloc::format!("{}{}", &s[..at], without_space(&s[at..]));
            let mut quiet = |_: FixCode, _: usize| {};
            let mut joined_warnings = Vec::new();
            if let Ok((handle, form, _)) = read_rest(
                &joined,
                0,
                joined.len(),
                label,
                options,
                &mut quiet,
                lint.then_some(&mut joined_warnings),
                within,
            ) {
                // (Each warning at its place in the text as written, white space and all.)
                warnings.extend(
                    joined_warnings
                        .into_iter()
                        .map(|w| w.at(start + as_written_index(s, at, w.index()))),
                );
                note(FixCode::SplitJoined, start + at);
                if matches!(form, Form::Proxy | Form::Api | Form::Repository) {
                    note(FixCode::ResolverUrl, start);
                }
                return Ok(Read {
                    handle: ReadHandle::Owned(handle.into_handle()),
                    form,
                    fixes: Vec::new(),
                    read_from: start,
                    warnings,
                });
            }
        }
    }
    // What most lines leave, read without the reading of a form (not with the lint: `clean`
    // reads it through `read_rest`, and the two are held to each other in tests and by the
    // `clean` fuzz target); white space left inside is for `read_rest` to refuse.
    if !lint && one_identifier(s) {
        let left = match resolver {
            Some(p) => Left::Resolver(p),
            None => left,
        };
        if let Some((handle, form)) = plain_rest(s, left, options) {
            if form == Form::Proxy {
                note_url(&mut note, s, handle.as_str(), start);
            }
            return Ok(Read {
                handle: ReadHandle::Slice(handle),
                form: label.filter(|_| form == Form::Handle).unwrap_or(form),
                fixes: Vec::new(),
                read_from: start,
                warnings,
            });
        }
    }
    let lint = lint.then_some(&mut warnings);
    let (handle, form, held) =
        read_rest(text, start, end, label, options, &mut note, lint, within)?;
    // (Noted after the text's own: each code once, where it was first applied.)
    for fix in held {
        note_fix_once(fixes, fix);
    }
    Ok(Read {
        handle,
        form,
        fixes: Vec::new(),
        read_from: start,
        warnings,
    })
}

/// Where in `s` the byte at `index` of `s` joined (its ASCII white space after `at` taken
/// out, [`without_space`]) was written.
fn as_written_index(s: &str, at: usize, index: usize) -> usize {
    if index <= at {
        return index;
    }
    let mut left = index - at;
    for (i, b) in s.bytes().enumerate().skip(at) {
        if !crate::bytes::is_ascii_space(&b) {
            if left == 0 {
                return i;
            }
            left -= 1;
        }
    }
    s.len()
}

/// What cleaning reads in `text[start..end]`, what its textual fixes left (after a label
/// of `label`'s form, if one was taken off): the handle in any written form, a resolver's
/// host without its scheme read as its URL, a handle that is itself a URL read as the
/// resolver's it is, or refused, and the handle a written form holds cleaned as a string
/// of its own ([`clean_held`]; where, [`Within`]); its warnings into `lint` when
/// given.
#[allow(clippy::too_many_arguments)]
fn read_rest<'a>(
    text: &'a str,
    start: usize,
    end: usize,
    label: Option<Form>,
    options: &Options,
    note: &mut impl FnMut(FixCode, usize),
    lint: Option<&mut Vec<Warning>>,
    within: Within,
) -> Result<(ReadHandle<'a>, Form, Vec<Fix>), ParseError> {
    let mut lint = lint;
    let warned = lint.as_ref().map_or(0, |w| w.len());
    let s = &text[start..end];
    // A resolver's host without its scheme reads as the URL with it.
    let b = s.as_bytes();
    let host = KNOWN_PROXY_HOSTS.iter().find(|host| {
        b.get(host.len()) == Some(&b'/')
            && crate::bytes::eq_ignore_ascii_case_lower(&b[..host.len()], host.as_bytes())
    });
    let (handle, form) = match host {
        Some(_) => {
            // The copy with the scheme on the stack where it fits (most lines), else on
            // the heap.
            let mut stack = [0u8; SCHEMELESS_ON_STACK];
            let heap;
            let with_scheme = if 8 + s.len() <= stack.len() {
                stack[..8].copy_from_slice(b"https://");
                stack[8..8 + s.len()].copy_from_slice(b);
                core::str::from_utf8(&stack[..8 + s.len()]).expect("ASCII and a str are UTF-8")
            } else {
                heap = alloc::format!("https://{s}");
                heap.as_str()
            };
            let lint = lint.as_deref_mut();
            let (handle, form) = read_uri(text, (start, -8), with_scheme, options, note, lint)?;
            (same_bytes_of(handle, with_scheme, s), form)
        }
        None => read_uri(text, (start, 0), s, options, note, lint.as_deref_mut())?,
    };
    // A handle that is itself a URL (`info:hdl/https://x/y`, a resolver's URL whose path
    // decodes to one): a resolver's is read as its handle; another site's holds none.
    let (handle, form) = if url_shaped(handle.as_handle_ref().as_str()) {
        let h = handle.as_handle_ref().as_str();
        // The error names the inner URL's host where the text holds it as written, else
        // where the handle begins, percent-encoded, after the form's prefix.
        let at = (h.as_ptr() as usize)
            .checked_sub(text.as_ptr() as usize)
            .filter(|&at| at + h.len() <= text.len())
            .map_or_else(
                || start + held_from(s, options),
                |at| at + h.find("://").map_or(0, |s| s + 3),
            );
        let refused = || {
            ParseError::new(
                at,
                ParseErrorKind::UnknownResolver,
                text[at..].chars().next(),
            )
        };
        if resolver_prefix(h, options).is_none() {
            return Err(refused());
        }
        note(FixCode::ResolverUrl, start);
        let inner = recognize(h, options).map_err(|_| refused())?;
        if url_shaped(inner.handle().as_str()) {
            return Err(refused());
        }
        if let Some(warnings) = lint.as_deref_mut() {
            // The warnings are the inner URL's, at their places where the text holds it as
            // written, else where the handle begins.
            let written = (h.as_ptr() as usize)
                .checked_sub(text.as_ptr() as usize)
                .filter(|&i| i + h.len() <= text.len());
            warnings.truncate(warned);
            warnings.extend(
                inner
                    .lint()
                    .into_iter()
                    .map(|w| w.at(written.map_or(at, |i| i + w.index()))),
            );
        }
        (ReadHandle::Owned(inner.handle().to_handle()), form)
    } else {
        (handle, form)
    };
    // (What most forms hold, a handle cleaning reads as it is, is left.)
    let (handle, held) =
        if form == Form::Handle || bare(handle.as_handle_ref().as_str(), options).is_some() {
            (handle, Vec::new())
        } else {
            let held = Held {
                text,
                at: start + held_from(s, options),
                within,
                host_end: resolver_prefix(s, options).map(|p| start + p),
            };
            clean_held(held, handle, options, lint, warned)
        };
    // White space inside, as written, is running text (C2), where neither the evidence a
    // split DOI is joined on nor the cleaning of the handle a form holds took it out.
    // Decoded (`%20`), it is a character the form means (but in a naming authority).
    if !within.decoded && !one_identifier(s) && !one_identifier(handle.as_handle_ref().as_str()) {
        let i = start + s.find(breaks_identifier).expect("white space in it");
        return Err(running_text(text, i));
    }
    let form = match (label, form) {
        (Some(label), Form::Handle) => label,
        (_, form) => form,
    };
    Ok((handle, form, held))
}

/// Where a reading is: inside how many written forms ([`MAX_HELD`]), and whether its text
/// is the handle a form holds decoded, in which white space is a character the form means.
/// (Every reading reads a URI form written with characters beyond ASCII as the URI with
/// their UTF-8 bytes percent-encoded, an IRI, C2: cleaning's and extraction's alike.)
#[derive(Clone, Copy, Debug)]
struct Within {
    depth: usize,
    decoded: bool,
}

impl Within {
    /// The reading of a text: cleaning's, and extraction's of a text it found.
    const TEXT: Within = Within {
        depth: 0,
        decoded: false,
    };

    /// The reading of the handle a form holds (`decoded`: as the form decoded it), one form
    /// deeper.
    fn held(self, decoded: bool) -> Within {
        Within {
            depth: self.depth + 1,
            decoded,
        }
    }
}

/// How many times the handle a written form holds is cleaned again as a string of its own
/// ([`clean_held`]), a form inside another each time: `https://hdl.handle.net/info:hdl/(20.1000/5`
/// is `20.1000/5`; the handle a third form inside holds is left as read.
const MAX_HELD: usize = 2;

/// Cleaning's limits, `MAX_WRAPPING` and [`MAX_HELD`]: what the `clean` fuzz target's
/// fixed-point check stays within.
#[doc(hidden)]
pub const __CLEANING_LIMITS: (usize, usize) = (MAX_WRAPPING, MAX_HELD);

/// Where in `s`, a resolver's URL or an `hdl:` or `info:` URI, the handle it holds begins,
/// percent-encoded or not: after the resolver's host (and the REST API's path, P5) or the
/// URI's prefix (0 where neither is found).
fn held_from(s: &str, options: &Options) -> usize {
    resolver_prefix(s, options)
        .map(|p| p + usize::from(s[p..].starts_with(API_PATH)) * API_PATH.len())
        .or_else(|| uri_prefix(s).map(|(p, _)| p))
        .unwrap_or(0)
}

/// The `hdl:` and `info:` URIs' prefix rules and their forms: where the handle such a URI
/// holds begins, and after which a DOI split by white space is joined (C2, C3).
pub(crate) const URI_PREFIXES: [(&crate::dfa::Dfa, Form); 4] = [
    (&g::HDL_HOST_FORM, Form::HdlHost),
    (&g::HDL_FORM, Form::Hdl),
    (&g::INFO_HDL_FORM, Form::InfoHdl),
    (&g::INFO_DOI_FORM, Form::InfoDoi),
];

/// The length of the `hdl:` or `info:` URI's prefix `s` starts with ([`URI_PREFIXES`]), and
/// its form.
fn uri_prefix(s: &str) -> Option<(usize, Form)> {
    URI_PREFIXES
        .iter()
        .find_map(|&(dfa, form)| dfa.accepted_prefix(s.as_bytes()).map(|p| (p, form)))
}

/// Where a handle that a written form holds was read: in `text`, at `at` where the text
/// does not hold it as written (a decoded handle: where the form's prefix ends,
/// `held_from`), `within` other forms ([`Within`]); `host_end`, where the text's resolver's host
/// ends when the form is a resolver's URL.
struct Held<'a> {
    text: &'a str,
    at: usize,
    within: Within,
    host_end: Option<usize>,
}

/// The handle a written form holds (an `hdl:` or `info:` URI's, a resolver's URL's path), as
/// decoded, cleaned as a string of its own (C2), where cleaning would not read it as it is:
/// `https://doi.org/(10.1/x` holds `10.1/x`, `hdl:10.1/x.?q` holds `10.1/x`,
/// `info:hdl/info:hdl/10.1/x` holds `10.1/x`; so that cleaning what cleaning gives gives it
/// again. Its fixes are given back marked held ([`Fix::held`]), for the caller to note after
/// the text's own, and its warnings replace the handle's (the form's literal `%`s kept:
/// `warned` is how many `lint` held before the form was read), each at its place where the
/// text holds the handle as written, else where the form's prefix ends. Where the
/// handle, cleaned as a string of its own, is none (`info:hdl/urn:10.1000/182`, whose
/// handle alone reads as a URN of no handle), it is left as the form holds it; and inside
/// [`MAX_HELD`] forms: each form is read again inside the one around it, so that forms
/// nested without end would cost the square of the text. (Out of line: few handles need
/// it, and the loop that calls it again is not inlined around it.)
#[cold]
#[inline(never)]
fn clean_held<'a>(
    held: Held<'a>,
    handle: ReadHandle<'a>,
    options: &Options,
    lint: Option<&mut Vec<Warning>>,
    warned: usize,
) -> (ReadHandle<'a>, Vec<Fix>) {
    let Held {
        text,
        at: start,
        within,
        host_end,
    } = held;
    if within.depth >= MAX_HELD {
        return (handle, Vec::new());
    }
    let mut fixes = Vec::new();
    let lint_too = lint.is_some();
    // Where the text holds the handle as written; else where the form's prefix ends.
    let span = match &handle {
        ReadHandle::Slice(h) => span_in(text, h.as_str()),
        ReadHandle::Owned(_) => None,
    };
    // A DOI split by white space is joined on the evidence of the host right before it, as
    // written: not where the form holds it decoded (`%20` is a character the URL means) nor
    // inside another form (`…/info:doi/(10.1/ x`), as neither is joined outside a pair.
    let after_host = span
        .as_ref()
        .is_some_and(|span| Some(span.start) == host_end);
    let (read, at) = match span {
        Some(span) => match read_within(
            &text[span.clone()],
            options,
            lint_too,
            &mut fixes,
            within.held(false),
            after_host,
        ) {
            Ok(read) => (read, Some(span.start)),
            Err(_) => return (handle, Vec::new()),
        },
        None => {
            let h = handle.as_handle_ref();
            // (Decoded: white space in it is a character the form means.)
            let within = within.held(true);
            match read_within(h.as_str(), options, lint_too, &mut fixes, within, false) {
                Ok(read) => (
                    Read {
                        handle: ReadHandle::Owned(read.handle.into_handle()),
                        ..read
                    },
                    None,
                ),
                Err(_) => return (handle, Vec::new()),
            }
        }
    };
    // (Read as it was, with nothing taken off: left as it was, its warnings too.)
    if fixes.is_empty() && read.handle.as_handle_ref().as_str() == handle.as_handle_ref().as_str() {
        return (handle, Vec::new());
    }
    let place = |index: usize| at.map_or(start, |at| at + index);
    let fixes = fixes
        .into_iter()
        .map(|f| Fix {
            index: place(f.index),
            held: true,
            ..f
        })
        .collect();
    if let Some(warnings) = lint {
        let percents: Vec<Warning> = warnings
            .drain(warned..)
            .filter(|w| w.code() == LintCode::LiteralPercent)
            .collect();
        warnings.extend(percents);
        warnings.extend(read.warnings.into_iter().map(|w| {
            let i = place(w.index());
            w.at(i)
        }));
    }
    (read.handle, fixes)
}

/// The most bytes of a resolver's host without its scheme (and what follows it) that
/// cleaning reads from a copy with the scheme on the stack.
const SCHEMELESS_ON_STACK: usize = 256;

/// `handle`, read from `copy` (`https://` and `s`), as the same bytes of `s` where it is a
/// slice of the copy after its scheme (a handle not decoded: no copy of its own); else
/// owned. (A handle that is itself a URL stays owned: where its errors and warnings are
/// placed depends on it not being a slice of the text.)
fn same_bytes_of<'s>(handle: ReadHandle<'_>, copy: &str, s: &'s str) -> ReadHandle<'s> {
    if let ReadHandle::Slice(h) = &handle {
        let text = h.as_str();
        let at = (text.as_ptr() as usize)
            .checked_sub(copy.as_ptr() as usize)
            .and_then(|at| at.checked_sub(copy.len() - s.len()))
            .filter(|&at| at + text.len() <= s.len());
        if let Some(at) = at.filter(|_| !url_shaped(text)) {
            let same = &s[at..at + text.len()];
            debug_assert_eq!(same, text);
            return ReadHandle::Slice(HandleRef::__from_validated_parts(same, h.prefix().len()));
        }
    }
    ReadHandle::Owned(handle.into_handle())
}

/// The handle `text` holds as cleaning reads it when written as it is (no textual fix to
/// `text`: no label, trailing punctuation or white space taken off; the handle a form holds
/// cleaned as C2 says), and its form; or where not.
pub(crate) fn read_written<'a>(
    text: &'a str,
    options: &Options,
) -> Result<(ReadHandle<'a>, Form), ParseError> {
    read_rest(
        text,
        0,
        text.len(),
        None,
        options,
        &mut |_, _| {},
        None,
        Within::TEXT,
    )
    .map(|(handle, form, _)| (handle, form))
}

/// The length of the label `s` starts with (`label_form`): with the `:` of a `doi :` or an
/// `hdl :` (the form's shortest reading ends at the space), or a full-width one
/// ([`full_width_label`]), and a `doi.` only before a DOI (`doi_start_form`; `doi.org/` is
/// a resolver's host), as a `doi` glued to one is ([`glued_doi_label`]).
pub(crate) fn label_prefix(s: &[u8]) -> Option<usize> {
    let Some(p) = g::LABEL_FORM.accepted_prefix(s) else {
        return full_width_label(s).or_else(|| glued_doi_label(s));
    };
    match s[p - 1] {
        b' ' | b'\t' => Some(colon_after(s, p).unwrap_or(p)),
        b'.' => g::DOI_START_FORM.accepted_prefix(&s[p..]).map(|_| p),
        _ => Some(p),
    }
}

/// The length of a label written with a full-width colon, as CJK text writes it (`DOI：`,
/// `hdl ：`): `label_form` cannot say it, since the generator reads every non-ASCII
/// character as one symbol.
fn full_width_label(s: &[u8]) -> Option<usize> {
    // (Most texts have no such byte after their third: a full-width colon's first, or a
    // blank.)
    if !matches!(s.get(3), Some(0xEF | b' ' | b'\t')) {
        return None;
    }
    let word = &s[..3];
    if !(word.eq_ignore_ascii_case(b"doi") || word.eq_ignore_ascii_case(b"hdl")) {
        return None;
    }
    colon_after(s, 3)
}

/// The length of a `doi` glued to the DOI after it, as text taken from a PDF leaves a
/// label whose colon or space it lost (`DOI10.1038/nature123`): 3 before a DOI's prefix as
/// it is found bare (`glued_doi_form`; no handle's naming authority starts `doi10.`).
fn glued_doi_label(s: &[u8]) -> Option<usize> {
    (s.get(..3).is_some_and(|w| w.eq_ignore_ascii_case(b"doi"))
        && g::GLUED_DOI_FORM.accepted_prefix(&s[3..]).is_some())
    .then_some(3)
}

/// Where a colon after `s[at..]`'s blanks ends, ASCII or full-width: a label's, after its
/// word (`doi :`, `hdl：`).
fn colon_after(s: &[u8], at: usize) -> Option<usize> {
    let colon = at + s[at..].iter().take_while(|&&b| is_blank(b)).count();
    if s.get(colon) == Some(&b':') {
        Some(colon + 1)
    } else {
        s[colon..]
            .starts_with(FULL_WIDTH_COLON.as_bytes())
            .then_some(colon + FULL_WIDTH_COLON.len())
    }
}

/// The most pieces a split DOI is joined from (C2, C3).
pub(crate) const MAX_PIECES: usize = 6;

/// Where a DOI split by white space ends, as text taken from a PDF splits DOIs (C2, C3):
/// `text[at..]` starts with the DOI's first piece, right after a label or a resolver's host,
/// where the text says a DOI comes (after a resolver's host, one or two bytes of white
/// space may come first). Each piece runs to white space; the next, after one or two bytes
/// of it, is joined on this evidence:
/// - the DOI's prefix is not whole yet (`10.` `1093/`, `10` `.1073` `/pnas…`): the next piece
///   goes on with it (`doi_prefix_form`, walked by its tables);
/// - the prefix is whole and nothing follows its `/` (`10.1021/` `es030360x`);
/// - the piece ends with a character no DOI ends with, `-`, `<`, `(` or `_`, and the next
///   starts with a letter or digit (`npg-` `19-227-2012`);
/// - the piece ends with `:` and the next starts with six digits or more, or with an issue
///   before its page's bracket ([`issue_word`]: `nss:` `2005018`, `…128:` `11(1056)`,
///   `46:` `4/5<493::…`; a number of prose, `…/182:` `12 items`, does not), or with a
///   letter and holds a digit or a `/` in the word it starts with, before a `.`
///   ([`sici_word`]: `<69::` `aid-ajpa5>`, `<1395:` `TIOSOT>2.0…`, `acprof:` `oso/9780…`):
///   after a colon in prose a word comes, `…/456:` `here`, `…:` `pp.12-15`, `…: see"2"`;
/// - the piece ends with `.` and the next starts with a digit (`ldr.` `1091`), starts with
///   a lower-case letter and holds a digit (`j.` `ces.2012.05.033`), or is the check
///   character `x` of Wiley's DOIs, with nothing after it but the marks cleaning takes off
///   its end (`.,;)]`: `…00401.` `x.`, `…01138.` `x).`; another letter alone is a word of
///   prose, `…/182.` `a second copy`);
/// - the next piece starts with `/`, or with `.` and a letter or digit (`10.1093/molbev`
///   `/msu300`, `…PhysRevLett` `.100.228502`).
///
/// A piece that is a DOI of its own (`bare_doi_form`) is the next identifier, never a piece
/// (`…/182.` `10.1000/183`). At most [`MAX_PIECES`]. `first_end`, where the first piece
/// ends if the caller knows it.
/// The end of the last piece joined, when two or more are; `None` when the text there does
/// not start with a DOI's prefix or is not split. `read` counts the bytes it reads (for
/// extraction's count). `seen` remembers, for a `first_end`, whether the piece after it
/// goes on with a DOI whose prefix is whole: every start whose first piece ends there asks
/// the same of the same piece, which is read once.
pub(crate) fn split_end(
    text: &str,
    at: usize,
    first_end: Option<usize>,
    read: &mut usize,
    seen: &mut Option<(usize, bool)>,
) -> Option<usize> {
    let furthest = core::cell::Cell::new(at);
    let mut beyond = 0;
    let found = split_end_reading(text.as_bytes(), at, first_end, &furthest, seen, &mut beyond);
    *read += furthest.get() - at + beyond;
    found
}

/// [`split_end`], raising `furthest` to each end of a piece it finds and to where it
/// leaves the prefix; the piece after `first_end` (its first piece not read), counted in
/// `beyond` where it is read.
fn split_end_reading(
    b: &[u8],
    at: usize,
    first_end: Option<usize>,
    furthest: &core::cell::Cell<usize>,
    seen: &mut Option<(usize, bool)>,
    beyond: &mut usize,
) -> Option<usize> {
    // Where a piece that starts at `from` ends: at white space, or the text's end.
    let end_of = |from: usize| {
        b[from..]
            .iter()
            .position(crate::bytes::is_ascii_space)
            .map_or(b.len(), |p| from + p)
    };
    let piece_end = |from: usize| {
        let end = end_of(from);
        furthest.set(furthest.get().max(end));
        end
    };
    // The white space after a piece that ends at `end`, when a next piece follows it.
    let gap = |end: usize| {
        let n = b[end..]
            .iter()
            .take(3)
            .take_while(|c| crate::bytes::is_ascii_space(c))
            .count();
        ((1..=2).contains(&n) && end + n < b.len()).then_some(n)
    };
    // (After a resolver's host, the DOI may start after a gap too: `dx.doi.org/ 10.1061/…`.)
    let lead = b[at..]
        .iter()
        .take(3)
        .take_while(|c| crate::bytes::is_ascii_space(c))
        .count();
    if lead > 2 {
        return None;
    }
    let at = at + lead;
    if at >= b.len() {
        return None;
    }
    let dfa = &g::DOI_PREFIX_FORM;
    // The prefix walked first, so that a text that holds no DOI's prefix there is left at
    // its first byte that says so.
    let mut state = usize::from(dfa.start);
    let mut p = at;
    while p < b.len() && !crate::bytes::is_ascii_space(&b[p]) && !dfa.accepting[state] {
        state = dfa.step(state, b[p]);
        if state == 0 {
            furthest.set(furthest.get().max(p + 1));
            return None;
        }
        p += 1;
    }
    furthest.set(furthest.get().max(p));
    // Most DOIs are not split: the first piece ends at no white space, or what follows it
    // could not go on with it (and the piece is not a prefix unfinished, of digits and
    // dots only). (Looked at after the prefix, which is short, where the next piece is read
    // whole: starts in extraction that share where their first piece ends, and hold no
    // prefix, read it no more: `doi.org/%20:` repeated before a long word was quadratic.)
    // (Whether the next piece goes on is the same for every start whose first piece ends
    // at `e`: remembered in `seen`, so that a long next piece is read once for them all.)
    if let Some(e) = first_end.filter(|_| lead == 0) {
        let next = e + gap(e)?;
        let goes = match *seen {
            Some((end, goes)) if end == e => goes,
            _ => {
                // (Counted in `beyond`, not as the furthest byte read.)
                let next_end = end_of(next);
                *beyond += next_end - e;
                let goes = goes_on(b[e - 1], &b[next..next_end]);
                *seen = Some((e, goes));
                goes
            }
        };
        if !goes && !b[at..e].iter().all(|&c| c.is_ascii_digit() || c == b'.') {
            return None;
        }
    }
    let mut end = match first_end.filter(|_| lead == 0) {
        Some(e) => e,
        None if dfa.accepting[state] => piece_end(p),
        None => p,
    };
    let mut pieces = 1 + usize::from(lead > 0);
    while pieces < MAX_PIECES {
        let Some(gap) = gap(end) else { break };
        let next = end + gap;
        let next_end = piece_end(next);
        let piece = &b[next..next_end];
        let join = if dfa.accepting[state] {
            goes_on(b[end - 1], piece)
        } else {
            // The prefix is not whole yet: the next piece goes on with it.
            match dfa.walk_from(state, piece) {
                Ok(s) => {
                    state = s;
                    true
                }
                Err(_) => false,
            }
        };
        if !join {
            break;
        }
        end = next_end;
        pieces += 1;
    }
    (pieces > 1 && dfa.accepting[state]).then_some(end)
}

/// Whether `piece` goes on with a DOI whose prefix is whole and whose last piece ends
/// with `last` (the evidence `split_end` lists after the prefix's).
fn goes_on(last: u8, piece: &[u8]) -> bool {
    // A piece that is a DOI of its own starts the next identifier (`…/182.` `10.1000/183`).
    if g::BARE_DOI_FORM.accepted_prefix(piece).is_some() {
        return false;
    }
    let first = piece[0];
    match last {
        b'/' => first.is_ascii_alphanumeric() || first == b'(',
        b'-' | b'<' | b'(' | b'_' => first.is_ascii_alphanumeric(),
        b':' => issue_word(piece) || (first.is_ascii_alphabetic() && sici_word(piece)),
        b'.' => {
            first.is_ascii_digit()
                || (first.is_ascii_lowercase() && piece.iter().any(u8::is_ascii_digit))
                || (first == b'x' && piece[1..].iter().all(|c| b".,;)]".contains(c)))
        }
        _ => {
            first == b'/' || (first == b'.' && piece.get(1).is_some_and(u8::is_ascii_alphanumeric))
        }
    }
}

/// Whether a piece of digits first, after a colon, goes on with a DOI: six digits or more
/// (EDP Sciences' year and number, `nss:` `2005018`), or an issue (digits, `-` and `/`: a
/// double one, `4/5`) up to the bracket that opens its page, `(` or `<`, escaped or not
/// (`%3C`, HTML's `&lt;`): ASCE's `128:` `11(1056)`, a SICI's `49:` `8<693::…` and `46:`
/// `4/5<493::…`. A number of prose is neither (`…/182: 12 items`, `: 2012`, `: 123-145`).
fn issue_word(piece: &[u8]) -> bool {
    let digits = piece.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits >= 6 {
        return true;
    }
    let issue = digits
        + piece[digits..]
            .iter()
            .take_while(|c| c.is_ascii_digit() || matches!(c, b'-' | b'/'))
            .count();
    digits > 0
        && match &piece[issue..] {
            [b'(' | b'<', ..] => true,
            [b'%', a, b, ..] => {
                matches!((a, b.to_ascii_uppercase()), (b'2', b'8') | (b'3', b'C'))
            }
            rest => rest.len() >= 4 && rest[..4].eq_ignore_ascii_case(b"&lt;"),
        }
}

/// Whether a piece of letters first, after a colon, goes on with a DOI: a digit or a `/` in
/// the word it starts with, before a `.` (`aid-ajpa5>3.0…`, `TIOSOT>2.0…`, `oso/9780…`, and
/// the escaped `EDAWPO%3E2.0…` and bracketed `tiopma]2.0…`); a word of prose has none
/// there (`here`, `pp.12-15`). The word ends where an identifier in running text may: at a
/// quote or an opening bracket (`see"2"`).
fn sici_word(piece: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&c) = piece.get(i) {
        match c {
            b'0'..=b'9' | b'/' => return true,
            // (An escape is the character it writes, not its hex digits: `%3E` is the `>` of
            // a SICI's `<…>`, `%2F` a '/', `%2E` a '.'.)
            b'%' if piece
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
            {
                match &piece[i + 1..i + 3] {
                    b"2F" | b"2f" => return true,
                    b"2E" | b"2e" => return false,
                    _ => i += 3,
                }
            }
            c if c.is_ascii_alphabetic() || b"-_;>]".contains(&c) => i += 1,
            _ => return false,
        }
    }
    false
}

/// `text` without its ASCII white space.
pub(crate) fn without_space(text: &str) -> alloc::string::String {
    text.chars()
        .filter(|&c| u8::try_from(c).map_or(true, |b| !crate::bytes::is_ascii_space(&b)))
        .collect()
}

/// The length of the resolver's URL prefix `s` starts with, its '/' included: a known
/// resolver's host with or without its scheme, or a base `options` names (P1).
pub(crate) fn resolver_prefix(s: &str, options: &Options) -> Option<usize> {
    let b = s.as_bytes();
    if !resolver_may_start(*b.first()?) {
        return None;
    }
    // (The schemes and hosts are lower case: the hosts' checked where they are written.)
    let starts_lower = |at: usize, p: &str| {
        b.len() >= at + p.len()
            && crate::bytes::eq_ignore_ascii_case_lower(&b[at..at + p.len()], p.as_bytes())
    };
    let scheme = ["https://", "http://"]
        .into_iter()
        .find(|p| starts_lower(0, p))
        .map_or(0, str::len);
    // A base the caller named first: on a known resolver's host, its path segment is the
    // base's (`https://doi.org/123/10.1000/x` under the base `https://doi.org/123`), as
    // `recognize` reads it (`ProxyBase::holds`), the '/' after it included.
    if scheme > 0 && !options.bases.is_empty() {
        let host_end = b[scheme..]
            .iter()
            .position(|&c| c == b'/')
            .map(|p| scheme + p);
        if let Some(host_end) = host_end {
            let https = scheme == "https://".len();
            let named = options
                .bases
                .iter()
                .find_map(|base| base.holds(&s[scheme..host_end], https, &s[host_end..]))
                .map(|n| host_end + n)
                .filter(|&end| b.get(end) == Some(&b'/'));
            if let Some(end) = named {
                return Some(end + 1);
            }
        }
    }
    // (The '/' after a host first: it tells most hosts apart by their length alone.)
    KNOWN_PROXY_HOSTS
        .iter()
        .find(|h| b.get(scheme + h.len()) == Some(&b'/') && starts_lower(scheme, h))
        .map(|h| scheme + h.len() + 1)
        .or_else(|| (scheme > 0).then(|| known_with_port(b, scheme)).flatten())
}

/// The length of a known resolver's URL prefix that `b` starts with, whose host has its
/// scheme's default port or an empty one (`https://doi.org:443/`, P1), its '/' included;
/// `scheme`, the length of its scheme and `//` (a port needs one). Out of line: few texts
/// are such URLs.
#[cold]
#[inline(never)]
fn known_with_port(b: &[u8], scheme: usize) -> Option<usize> {
    KNOWN_PROXY_HOSTS.iter().find_map(|h| {
        let at = scheme + h.len();
        let port = crate::base::default_port_len(b.get(at..)?, crate::base::is_https(b));
        (port > 0 && crate::bytes::eq_ignore_ascii_case_lower(b.get(scheme..at)?, h.as_bytes()))
            .then_some(at + port + 1)
    })
}

/// Whether a resolver's URL prefix ([`resolver_prefix`]) may start with `first`: every one
/// starts with a scheme (`http`; the bases of `options` have one) or a known host, so that
/// most texts (a bare handle, `10.…`) are told apart by their first byte.
#[inline]
fn resolver_may_start(first: u8) -> bool {
    /// For every byte, made from the hosts' first letters at compile time.
    const STARTS: [bool; 256] = {
        let mut starts = [false; 256];
        starts[b'h' as usize] = true;
        let mut i = 0;
        while i < KNOWN_PROXY_HOSTS.len() {
            let first = KNOWN_PROXY_HOSTS[i].as_bytes()[0];
            starts[first.to_ascii_lowercase() as usize] = true;
            i += 1;
        }
        let mut b = b'a';
        while b <= b'z' {
            starts[b.to_ascii_uppercase() as usize] = starts[b as usize];
            b += 1;
        }
        starts
    };
    STARTS[usize::from(first)]
}

/// The handle `text` is when it is a bare handle that the loop of [`read_with`] would take
/// nothing off and `read_rest` would read as it is, seen from its two ends: what most values
/// of a column of identifiers are. Its ends are ASCII letters or digits, so there is no
/// white space, pair or mark to take off, and it starts with a byte that no label, resolver's
/// URL or other written form starts with (their grammars' first steps). `None` where
/// anything else may apply: the loop decides, and places any error.
#[inline]
fn bare<'a>(text: &'a str, options: &Options) -> Option<HandleRef<'a>> {
    if !plain_ends(text.as_bytes()) {
        return None;
    }
    bare_between_plain_ends(text, options)
}

/// [`bare`] of a text whose ends [`plain_ends`] has said are plain. (Inlined: its
/// `HandleRef` returned through memory was loaded back as the caller's stall, as in
/// [`clean_into`].)
#[inline]
fn bare_between_plain_ends<'a>(text: &'a str, options: &Options) -> Option<HandleRef<'a>> {
    // (White space inside: the loop says why it is no handle.)
    if !one_identifier(text) {
        return None;
    }
    bare_of_one(text, options)
}

/// [`bare`] of a text with no white space in it.
fn bare_of_one_plain<'a>(text: &'a str, options: &Options) -> Option<HandleRef<'a>> {
    if !plain_ends(text.as_bytes()) {
        return None;
    }
    bare_of_one(text, options)
}

/// [`bare_between_plain_ends`] of a text with no white space in it.
#[inline]
fn bare_of_one<'a>(text: &'a str, options: &Options) -> Option<HandleRef<'a>> {
    if options.cordra || forms::may_start_form(text.as_bytes()[0]) {
        return None;
    }
    if let Some(slash) = crate::bytes::digits_and_dots_to_slash(text.as_bytes()) {
        return Some(HandleRef::__from_validated_parts(text, slash));
    }
    HandleRef::parse(text).ok()
}

/// What [`lead_before_plain`] found.
enum Lead<'a> {
    /// The handle, its form, and where it was read from (its fixes noted).
    Read(HandleRef<'a>, Form, usize),
    /// No label and no resolver's URL: the loop of [`read_with`] takes nothing off, and
    /// leaves the text whole to `read_rest` (or to [`plain_uri`], where it applies).
    Whole,
    /// Anything else: the loop decides.
    Other,
}

/// What [`read_with`] reads (without the lint) where `text`, whose ends are ASCII letters or
/// digits, is a label or a resolver's URL before what [`plain_rest`] reads, and nothing else
/// is taken off: a catalogue's `doi:…`, `DOI: …` and `https://doi.org/…`. Its ends leave
/// no white space, pair or mark to take off, and it is read in the loop's order: a label
/// (`label_prefix`), then ASCII white space after it, as the loop's next turn takes it;
/// else a resolver's URL (`resolver_prefix`), not one pasted before another's. Its fixes
/// into `fixes`, as the loop notes them. [`Lead::Whole`] where neither starts it (an `hdl:`
/// or `info:` URI): the loop's first turn would take nothing off. [`Lead::Other`] where
/// anything else may apply (white space inside, where a split DOI may be joined; what
/// `plain_rest` does not read): the loop decides, and places any error. Held to the loop
/// by tests and by the `clean` fuzz target (through `clean_into`), as `bare` is.
#[inline(never)]
fn lead_before_plain<'a>(text: &'a str, options: &Options, fixes: &mut Vec<Fix>) -> Lead<'a> {
    let b = text.as_bytes();
    debug_assert!(!plain_ends(b));
    if let Some(p) = label_prefix(b) {
        let space = b[p..].iter().take_while(|&&c| is_blank(c)).count();
        let rest = &text[p + space..];
        if crate::bytes::may_hold_space(rest.as_bytes()) {
            return Lead::Other;
        }
        let Some(h) = bare_of_one_plain(rest, options) else {
            return Lead::Other;
        };
        fixes.push(Fix::new(FixCode::Label, 0));
        if space > 0 {
            fixes.push(Fix::new(FixCode::SurroundingWhitespace, p));
        }
        return Lead::Read(h, label_form(b[0]), p + space);
    }
    let Some(p) = resolver_prefix(text, options) else {
        return Lead::Whole;
    };
    if resolver_prefix(&text[p..], options).is_some() || crate::bytes::may_hold_space(&b[p..]) {
        return Lead::Other;
    }
    let Some((h, form)) = plain_rest(text, Left::Resolver(p), options) else {
        return Lead::Other;
    };
    note_url(
        &mut |code, index| fixes.push(Fix::new(code, index)),
        text,
        h.as_str(),
        0,
    );
    Lead::Read(h, form, 0)
}

/// The bytes an `hdl:` URI's handle (grammar/hdl-uri.pest `u_local_name`: `pchar` and
/// `/`) and an `info:` URI's identifier (grammar/info-uri.pest: the same and `?`) hold as
/// they are: ASCII letters and digits, `-._~!$&'()*+,;=:@/`. Not `%`, which is decoded, nor
/// `?` and `#`, which may end the handle. (A test holds it to both grammars' readers.)
const URI_PLAIN: [bool; 256] = {
    let mut plain = [false; 256];
    let marks = b"-._~!$&'()*+,;=:@/";
    let mut i = 0;
    while i < marks.len() {
        plain[marks[i] as usize] = true;
        i += 1;
    }
    let mut b = 0;
    while b < 128 {
        if (b as u8).is_ascii_alphanumeric() {
            plain[b] = true;
        }
        b += 1;
    }
    plain
};

/// What `read_rest` reads where `text` (no label, no resolver's URL, nothing to take off)
/// is an `hdl:`, `info:hdl/` or `info:doi/` URI (the form the prefix rules give, as
/// `recognize` takes it) of a handle whose naming authority is digits and dots, every byte
/// after the prefix [`URI_PLAIN`]: the handle is those bytes as they are, with no fix.
/// `None` where anything else may apply (a `%` to decode, a query or fragment, the CORDRA
/// profile, another form): `read_rest` reads it. Held to it by tests and by the `clean`
/// fuzz target, as [`lead_before_plain`] is.
#[inline]
fn plain_uri<'a>(text: &'a str, options: &Options) -> Option<(HandleRef<'a>, Form)> {
    if options.cordra {
        return None;
    }
    let (form, at) = match forms::prefix_form_at(text, options) {
        (Some(form @ (Form::Hdl | Form::InfoHdl | Form::InfoDoi)), at) => (form, at),
        _ => return None,
    };
    let rest = &text.as_bytes()[at..];
    if !rest.iter().all(|&b| URI_PLAIN[usize::from(b)]) {
        return None;
    }
    let slash = crate::bytes::digits_and_dots_to_slash(rest)?;
    Some((HandleRef::__from_validated_parts(&text[at..], slash), form))
}

/// What [`read_with`] reads (without the lint) where `text` is a bare handle with one thing
/// around it that the loop's first turn takes off: ASCII white space before it, after it or
/// both (`\t10.1/x`, ` 10.1/x `), a pair of ASCII brackets or quotes (`(10.1/x)`,
/// `"10.1/x"`: `wrapped`), or a mark after it that ends a sentence (`10.1/x.`:
/// `trailing_punctuation`, where no label comes first). Its fix into `fixes`, as the loop
/// notes it. [`Lead::Other`] where anything else may apply (what is left no bare handle
/// whose ends are plain): the loop decides, and places any error. Held to the loop as
/// [`lead_before_plain`] is.
#[inline(never)]
fn around_bare<'a>(text: &'a str, options: &Options, fixes: &mut Vec<Fix>) -> Lead<'a> {
    let b = text.as_bytes();
    let (before, after) = (
        b.iter().take_while(|&&c| is_blank(c)).count(),
        b.iter().rev().take_while(|&&c| is_blank(c)).count(),
    );
    let (fix, index, start, end) = if before + after > 0 {
        // (All of it white space: the loop's turn takes it whole.)
        if before == b.len() {
            return Lead::Other;
        }
        let index = if before > 0 { 0 } else { b.len() - after };
        let fix = FixCode::SurroundingWhitespace;
        (fix, index, before, b.len() - after)
    } else if b[0].is_ascii_alphanumeric() {
        if !matches!(b[b.len() - 1], b'.' | b',' | b';' | b':') || label_prefix(b).is_some() {
            return Lead::Other;
        }
        let fix = FixCode::TrailingPunctuation;
        (fix, b.len() - 1, 0, b.len() - 1)
    } else {
        match wrapped(text) {
            Some((open, close)) if open.is_ascii() && close.is_ascii() => {
                (FixCode::WrappingPair, 0, 1, b.len() - 1)
            }
            _ => return Lead::Other,
        }
    };
    let Some(h) = bare(&text[start..end], options) else {
        return Lead::Other;
    };
    fixes.push(Fix::new(fix, index));
    Lead::Read(h, Form::Handle, start)
}

/// Whether `b` is a space or a tab: the white space a label's form holds
/// (grammar/forms.pest `label_space`), and what the readers that pass by the loop take off.
#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The form a label that starts with `first` gives (`label_prefix`: `doi…` or `hdl…`).
fn label_form(first: u8) -> Form {
    if first.eq_ignore_ascii_case(&b'd') {
        Form::Doi
    } else {
        Form::Hdl
    }
}

/// The fixes of a resolver's URL `s` (what was left of the text from `start`) read as its
/// `handle`, a slice of it: `resolver-url`, and `query-or-fragment` where the handle ends
/// before `s` does (a URL's handle is the whole of its path: where it ends, a query or
/// fragment starts).
fn note_url(note: &mut impl FnMut(FixCode, usize), s: &str, handle: &str, start: usize) {
    note(FixCode::ResolverUrl, start);
    if let Some(end) = span_in(s, handle).map(|span| span.end) {
        if end < s.len() {
            note(FixCode::QueryOrFragment, start + end);
        }
    }
}

/// What the loop of [`read_with`] left, as its last step saw it.
#[derive(Clone, Copy)]
enum Left {
    /// Both ends plain ([`plain_ends`]).
    PlainEnds,
    /// A resolver's URL, its prefix this long.
    Resolver(usize),
    /// Anything else.
    Other,
}

/// Whether the loop of [`read_with`] takes nothing off `b` and finds no resolver's URL
/// there, seen from its two ends: they are ASCII letters or digits (no white space, pair
/// or mark to take off), and it starts with a byte that starts no label or resolver's URL.
/// (Every byte a label may start with may start a resolver's URL: a test holds the two
/// grammars to it, so the label's is not asked.)
#[inline]
fn plain_ends(b: &[u8]) -> bool {
    let plain = match (b.first(), b.last()) {
        (Some(&first), Some(&last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && !resolver_may_start(first)
        }
        _ => false,
    };
    debug_assert!(!plain || !g::LABEL_FORM.may_start(b), "{b:?}");
    plain
}

/// What `read_rest` reads in `s`, what the loop of [`read_with`] left, where that needs no
/// reading of a form: `s` a bare handle ([`bare`]), or a known resolver's URL (its prefix
/// `resolver` long, with or without its scheme) whose path is one, with nothing to decode or
/// drop from it: no `%`, and none of the prefixes P3 and P5 take off the path (what most
/// resolver URLs in a catalogue are), and its query or fragment, if any, dropped (where the
/// handle ends in `s`). `None` where anything else may apply, and under options that name
/// bases (a named base may claim a known host's paths). `s` holds no white space nor
/// full-width stop (its callers look, once: `one_identifier`).
#[inline(always)]
fn plain_rest<'a>(s: &'a str, left: Left, options: &Options) -> Option<(HandleRef<'a>, Form)> {
    let p = match left {
        Left::PlainEnds => return bare_of_one(s, options).map(|h| (h, Form::Handle)),
        Left::Resolver(p) => p,
        Left::Other => return None,
    };
    if !options.bases.is_empty() {
        return None;
    }
    let mut path = &s[p..];
    // (Most URLs hold none of these.)
    if crate::bytes::has_any(path.as_bytes(), b"%?#") {
        // The path ends at its first `?` or `#` (grammar/proxy-url.pest): the rest is the
        // query and fragment, read as they are. A `%` before them is the path's.
        match crate::bytes::find3(b'%', b'?', b'#', path.as_bytes()) {
            Some(q) if path.as_bytes()[q] != b'%' => path = &path[..q],
            _ => return None,
        }
    }
    // (`bare` refuses a path that starts with a prefix P3 takes off: each is a written
    // form's, whose first bytes `may_start_form` knows.)
    if path.starts_with(API_PATH) {
        return None;
    }
    bare_of_one_plain(path, options).map(|h| (h, Form::Proxy))
}

/// Whether `text` (a handle, a naming authority, a form as written) holds no white space:
/// white space inside is running text, not one identifier (C2). (Most are ASCII and
/// graphic: no character to decode.)
#[inline]
fn one_identifier(text: &str) -> bool {
    !crate::bytes::may_hold_space(text.as_bytes()) || !text.contains(breaks_identifier)
}

/// The error of running text at `i` in `text`: white space or a full-width stop there.
fn running_text(text: &str, i: usize) -> ParseError {
    ParseError::new(
        i,
        ParseErrorKind::NotOneIdentifier,
        text[i..].chars().next(),
    )
}

/// A character that makes a string running text rather than one identifier when it is
/// inside (C2): white space, or one of CJK text's full-width stops, which no DOI holds (an
/// identifier in running text ends at either, C3).
pub(crate) fn breaks_identifier(c: char) -> bool {
    is_space(c) || FULL_WIDTH_STOPS.contains(&c)
}

/// Whether a handle's text is a URL, `scheme://…` (grammar/forms.pest `other_url_form`).
fn url_shaped(h: &str) -> bool {
    g::OTHER_URL_FORM.accepted_prefix(h.as_bytes()).is_some()
}

/// The handle in `s`, what cleaning left of `text` from `start` (`s` is that text with
/// `shift` bytes more before it), in any written form, with the fixes reading it took, and
/// its warnings at their places in `text` into `lint` when given.
fn read_uri<'s>(
    text: &str,
    (start, shift): (usize, isize),
    s: &'s str,
    options: &Options,
    note: &mut impl FnMut(FixCode, usize),
    lint: Option<&mut Vec<Warning>>,
) -> Result<(ReadHandle<'s>, Form), ParseError> {
    let at = |i: usize| start.saturating_add_signed(i as isize + shift);
    let refused = |e: ParseError, at: &dyn Fn(usize) -> usize| {
        // White space as written, which a URI's grammar refuses, is running text to
        // cleaning as anywhere else (C2).
        if !e.escaped() && e.found().is_some_and(breaks_identifier) {
            return running_text(text, at(e.index()));
        }
        // Where what was left ends, the error names what cleaning took off there.
        if e.found().is_none() && e.kind() != ParseErrorKind::InvalidUtf8 {
            e.at_in(text, at(e.index()))
        } else {
            e.at(at(e.index()))
        }
    };
    match recognize(s, options) {
        Ok(uri) => {
            let form = uri_read((text, start), s, &uri, (&at, &at), options, note, lint)?;
            Ok((uri.into_read_handle(), form))
        }
        // An IRI (RFC 3987, C2): a URI written with characters beyond ASCII, each read as
        // its UTF-8 bytes percent-encoded, as a browser reads a resolver's URL (P3).
        Err(e) if e.found().is_some_and(|c| !c.is_ascii()) => {
            let encoded = iri_as_uri(s);
            let in_s = |i: usize| at(index_before_encoding(s, i));
            let uri = recognize(&encoded, options).map_err(|again| {
                // Refused at one of the characters written as escapes: refused as written.
                let i = index_before_encoding(s, again.index());
                if s[i..].starts_with(|c: char| !c.is_ascii()) {
                    refused(e, &at)
                } else {
                    refused(again, &in_s)
                }
            })?;
            let form = uri_read((text, start), s, &uri, (&at, &in_s), options, note, lint)?;
            Ok((ReadHandle::Owned(uri.into_handle()), form))
        }
        Err(e) => Err(refused(e, &at)),
    }
}

/// What reading a URI form (`uri`, read from `s` at `start` in `text`, or from `s`
/// written as a URI) notes, checks and warns of; `at` places an index of `s`, and one of
/// `uri`'s text, in `text`.
fn uri_read(
    (text, start): (&str, usize),
    s: &str,
    uri: &HdlUri<'_>,
    (at, at_uri): (&dyn Fn(usize) -> usize, &dyn Fn(usize) -> usize),
    options: &Options,
    note: &mut impl FnMut(FixCode, usize),
    lint: Option<&mut Vec<Warning>>,
) -> Result<Form, ParseError> {
    let handle = uri.handle();
    let running = |i: usize| running_text(text, i);
    if !one_identifier(handle.prefix()) {
        // At the white space as written; else, decoded, at the escape that writes it.
        if let Some(i) = s.find(breaks_identifier) {
            return Err(running(at(i)));
        }
        let from = held_from(s, options);
        let written = &s[from..];
        let escaped = escape::decode(written, 0).ok().and_then(|decoded| {
            let (d, c) = decoded
                .char_indices()
                .find(|&(_, c)| breaks_identifier(c))?;
            Some((escape::original_index(written, d), c))
        });
        return Err(match escaped {
            Some((i, c)) => {
                ParseError::new(at(from + i), ParseErrorKind::NotOneIdentifier, Some(c))
                    .written_escaped()
            }
            None => running(at(from)),
        });
    }
    if matches!(uri.form(), Form::Proxy | Form::Api | Form::Repository) {
        note(FixCode::ResolverUrl, start);
    }
    if let Some(q) = uri.query().or(uri.fragment()) {
        let i = at_uri(q.as_ptr() as usize - uri.as_str().as_ptr() as usize);
        // White space in a query or fragment, as written, or right before one, is running
        // text too (C2): no cleaning of the handle takes it out.
        let before = text[..i - 1]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| breaks_identifier(c))
            .last()
            .map(|(b, _)| b);
        if let Some(b) = before {
            return Err(running(b));
        }
        if let Some(w) = text[i..at(s.len())].find(breaks_identifier) {
            return Err(running(i + w));
        }
        note(FixCode::QueryOrFragment, i - 1);
    }
    // Decoded: the handle is not a slice of the text (a `urn:` form's ':' made '/' is
    // not decoding, nor an IRI's characters read as their bytes, and a `urn:` form decodes
    // nothing: U8).
    let h = handle.as_str();
    let (here, there) = (s.as_ptr() as usize, h.as_ptr() as usize);
    let sliced = there >= here && there + h.len() <= here + s.len();
    let textual = matches!(uri.form(), Form::UrnHdl | Form::UrnDoi);
    if !sliced && !textual && s.contains('%') {
        note(FixCode::PercentDecoded, start);
    }
    if let Some(warnings) = lint {
        warnings.extend(uri.lint().into_iter().map(|w| w.at(at_uri(w.index()))));
    }
    Ok(uri.form())
}

/// An IRI written as a URI (RFC 3987 §3.1): each character beyond ASCII as its UTF-8
/// bytes, percent-encoded.
pub(crate) fn iri_as_uri(s: &str) -> String {
    const ASCII: EscapeSet = EscapeSet::NONE.range(0, 0x7F);
    alloc::format!("{}", ASCII.encode(s))
}

/// The index in `s` of index `i` of `s` written as a URI by [`iri_as_uri`] (the start of
/// the character whose escapes it falls in).
fn index_before_encoding(s: &str, i: usize) -> usize {
    let mut written = 0;
    for (at, c) in s.char_indices() {
        written += if c.is_ascii() { 1 } else { 3 * c.len_utf8() };
        if written > i {
            return at;
        }
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::FixCode;
    use super::{
        balances, is_blank, resolver_may_start, resolver_prefix, wrapped, KNOWN_PROXY_HOSTS, PAIRS,
    };
    use crate::form::Options;
    use crate::generated as g;

    /// Every byte `URI_PLAIN` holds is read as it is in an `hdl:` URI's and an `info:`
    /// URI's handle, first, last and alone in its local name; every other byte is not
    /// (decoded, or a query or fragment, or refused).
    #[test]
    fn a_uri_plain_byte_is_read_as_it_is_by_each_uri_reader() {
        let o = Options::new();
        for b in 0..=u8::MAX {
            let Ok(c) = core::str::from_utf8(&[b]).map(alloc::string::String::from) else {
                continue;
            };
            for local in [alloc::format!("{c}x"), alloc::format!("x{c}"), c.clone()] {
                for prefix in ["hdl:", "info:hdl/", "info:doi/", "HDL:", "INFO:DOI/"] {
                    let text = alloc::format!("{prefix}10.1/{local}");
                    let read = crate::forms::recognize(&text, &o);
                    let same = read
                        .as_ref()
                        .is_ok_and(|u| u.handle().as_str() == &text[prefix.len()..]);
                    if super::URI_PLAIN[usize::from(b)] {
                        assert!(same, "{text:?}: {read:?}");
                        assert!(read.unwrap().query().is_none());
                        assert_eq!(
                            super::plain_uri(&text, &o).map(|(h, _)| h.as_str()),
                            Some(&text[prefix.len()..])
                        );
                    } else if !matches!(b, b'?' | b'#' | b'%') {
                        assert!(!same, "{text:?}: {read:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_fixs_index_is_its_place_among_all() {
        for (i, code) in FixCode::ALL.into_iter().enumerate() {
            assert_eq!(code.index(), i, "{}", code.code());
        }
    }

    /// `is_blank` is grammar/forms.pest's `label_space`: `hdl` and one character is a whole
    /// label exactly where that character is a label's space (every ASCII byte; a
    /// non-ASCII character is one symbol to the automaton, and none is a label's space).
    #[test]
    fn a_blank_is_what_the_grammar_calls_a_labels_space() {
        for b in 0..0x80_u8 {
            let label = g::LABEL_FORM.accepted_prefix(&[b'h', b'd', b'l', b]) == Some(4);
            assert_eq!(is_blank(b), label, "{b:#x}");
        }
        for c in ['\u{a0}', '\u{2009}', '\u{3000}', '\u{85}'] {
            let mut text = [0_u8; 7];
            let len = 3 + c.encode_utf8(&mut text[3..]).len();
            text[..3].copy_from_slice(b"hdl");
            assert_eq!(g::LABEL_FORM.accepted_prefix(&text[..len]), None, "{c:?}");
            assert!(c.to_string().bytes().all(|b| !is_blank(b)));
        }
    }

    /// Every first two bytes a label may start with, the first an ASCII letter or digit (as
    /// `plain_ends` asks first), start with a byte a resolver's URL may start with (what
    /// `plain_ends` counts on).
    #[test]
    fn a_label_starts_where_a_resolver_url_may() {
        for first in (0..=u8::MAX).filter(u8::is_ascii_alphanumeric) {
            for second in 0..=u8::MAX {
                if crate::generated::LABEL_FORM.may_start(&[first, second]) {
                    assert!(resolver_may_start(first), "{first:#x} {second:#x}");
                }
            }
        }
    }

    /// The table of ASCII slots says what a search of `PAIRS` says, for every ASCII
    /// character.
    #[test]
    fn an_ascii_characters_slot_is_its_first_place_in_the_pairs() {
        for c in (0..128u8).map(char::from) {
            let searched = PAIRS
                .iter()
                .flat_map(|&(o, cl)| [o, cl])
                .position(|p| p == c);
            assert_eq!(super::PairCounts::slot(c), searched, "{c:?}");
        }
    }

    /// An ASCII pair balanced over the bytes is balanced over the characters, among
    /// characters whose bytes hold no ASCII; and each pair wraps what it balances around.
    #[test]
    fn ascii_pairs_balance_by_their_bytes_as_by_their_characters() {
        let pieces = [
            "(", ")", "[", "]", "a", "é", "\u{FF08}", "\u{201D}", "(x)", ")(",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            texts = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| alloc::format!("{t}{p}")))
                .collect();
        }
        for t in &texts {
            for (open, close) in PAIRS
                .into_iter()
                .filter(|(o, c)| o.is_ascii() && c.is_ascii())
            {
                let by_chars = balances(t.chars(), open, close);
                assert_eq!(
                    balances(t.bytes(), open as u8, close as u8),
                    by_chars,
                    "{t}"
                );
                let whole = alloc::format!("{open}{t}{close}");
                let expected = (by_chars || open == close).then_some((open, close));
                if !whole.as_bytes()[0].is_ascii_alphanumeric() {
                    assert_eq!(wrapped(&whole), expected, "{whole}");
                }
            }
        }
    }

    /// The first-byte table says yes for every byte a resolver's URL prefix starts with
    /// (`http`, `https` and every known host, in either case), and no other.
    #[test]
    fn every_resolver_prefix_starts_with_a_byte_the_table_says_may() {
        let o = Options::new();
        for host in KNOWN_PROXY_HOSTS {
            for text in [format!("https://{host}/1/2"), format!("{host}/1/2")] {
                for t in [text.to_ascii_lowercase(), text.to_ascii_uppercase()] {
                    assert!(resolver_prefix(&t, &o).is_some(), "{t}");
                    assert!(resolver_may_start(t.as_bytes()[0]), "{t}");
                }
            }
        }
        // And no other: `h` (the schemes) and the hosts' first letters, in either case.
        let firsts: Vec<u8> = KNOWN_PROXY_HOSTS.iter().map(|h| h.as_bytes()[0]).collect();
        for b in 0..=u8::MAX {
            let lower = b.to_ascii_lowercase();
            assert_eq!(
                resolver_may_start(b),
                lower == b'h' || firsts.contains(&lower),
                "{b}"
            );
        }
    }
}
