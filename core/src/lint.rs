//! Lints: valid handles that are rarely meant as they are written. Real data is full of
//! them: pasted URLs, text extraction debris, invisible characters.

use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::error::{ParseError, ParseErrorKind};
use crate::form::{Form, Options};
use crate::forms::detect;
use crate::handle::HandleRef;

/// What a warning is about. Each has a stable [`code`](LintCode::code), a one-line
/// [`explanation`](LintCode::explanation) and the [`rule`](LintCode::rule) or source it
/// cites.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LintCode {
    /// `empty-local-name`: `10.1000/` (D2).
    EmptyLocalName,
    /// `trailing-slash`: `20.1000/5555/` (H10).
    TrailingSlash,
    /// `control-character`: a C0 or C1 control character (D3).
    ControlCharacter,
    /// `unprintable-character`: a noncharacter, a private-use character or U+FFFD (D3).
    UnprintableCharacter,
    /// `zero-width-character`: U+200B, U+200C, U+200D, U+2060, U+FEFF, U+180E, and the soft
    /// hyphen U+00AD, which text taken from PDFs leaves inside words (D3).
    ZeroWidthCharacter,
    /// `bidi-control`: a bidirectional formatting character (D3).
    BidiControl,
    /// `outside-bmp`: a character above U+FFFF (D3: SYNTAX asks for UCS-2).
    OutsideBmp,
    /// `surrounding-whitespace`: white space at the start or the end.
    SurroundingWhitespace,
    /// `not-nfc`: the text is not in Unicode Normalization Form C.
    NotNfc,
    /// `percent-encoded`: a `%XX` escape in a bare handle.
    PercentEncoded,
    /// `query-or-fragment`: a `?` or `#` in a bare handle.
    QueryOrFragment,
    /// `uri-prefix`: a bare handle that starts like a URI or URL (`hdl:`, `doi:`, `https:` …).
    UriPrefix,
    /// `trailing-punctuation`: `.`, `,`, `;` or an unbalanced `)` at the end.
    TrailingPunctuation,
    /// `leading-punctuation`: an opening bracket or quote at the start that nothing after it
    /// closes (what cleaning takes off, C2).
    LeadingPunctuation,
    /// `symbol-first`: the naming authority starts with a character that is no letter or
    /// digit (`*10.1000/abc`, `•10.1000/abc`): no handle's prefix does (D14).
    SymbolFirst,
    /// `over-2048-bytes`: longer than the reference server accepts (H9).
    Over2048Bytes,
    /// `literal-percent`: a proxy URL's `%` not followed by two hex digits, read as a `%`
    /// as browsers read it (P3).
    LiteralPercent,
}

impl LintCode {
    /// Every code, in a stable order.
    pub const ALL: [LintCode; 17] = [
        LintCode::EmptyLocalName,
        LintCode::TrailingSlash,
        LintCode::ControlCharacter,
        LintCode::UnprintableCharacter,
        LintCode::ZeroWidthCharacter,
        LintCode::BidiControl,
        LintCode::OutsideBmp,
        LintCode::SurroundingWhitespace,
        LintCode::NotNfc,
        LintCode::PercentEncoded,
        LintCode::QueryOrFragment,
        LintCode::UriPrefix,
        LintCode::TrailingPunctuation,
        LintCode::LeadingPunctuation,
        LintCode::SymbolFirst,
        LintCode::Over2048Bytes,
        LintCode::LiteralPercent,
    ];

    /// The stable code, as `--allow` takes it.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            LintCode::EmptyLocalName => "empty-local-name",
            LintCode::TrailingSlash => "trailing-slash",
            LintCode::ControlCharacter => "control-character",
            LintCode::UnprintableCharacter => "unprintable-character",
            LintCode::ZeroWidthCharacter => "zero-width-character",
            LintCode::BidiControl => "bidi-control",
            LintCode::OutsideBmp => "outside-bmp",
            LintCode::SurroundingWhitespace => "surrounding-whitespace",
            LintCode::NotNfc => "not-nfc",
            LintCode::PercentEncoded => "percent-encoded",
            LintCode::QueryOrFragment => "query-or-fragment",
            LintCode::UriPrefix => "uri-prefix",
            LintCode::TrailingPunctuation => "trailing-punctuation",
            LintCode::LeadingPunctuation => "leading-punctuation",
            LintCode::SymbolFirst => "symbol-first",
            LintCode::Over2048Bytes => "over-2048-bytes",
            LintCode::LiteralPercent => "literal-percent",
        }
    }

    /// Why it matters, in one line.
    #[must_use]
    pub const fn explanation(self) -> &'static str {
        match self {
            LintCode::EmptyLocalName => "the local name is empty: valid, but rarely meant",
            LintCode::TrailingSlash => {
                "a trailing '/' makes a different handle: valid, but rarely meant"
            }
            LintCode::ControlCharacter => "a control character: valid, but not printable",
            LintCode::UnprintableCharacter => {
                "a noncharacter, private-use character or U+FFFD (often damage from decoding)"
            }
            LintCode::ZeroWidthCharacter => {
                "an invisible zero-width character: two handles that look the same differ"
            }
            LintCode::BidiControl => {
                "a bidirectional control character: the text may display in another order"
            }
            LintCode::OutsideBmp => {
                "a character outside the Basic Multilingual Plane, which UCS-2 cannot hold"
            }
            LintCode::SurroundingWhitespace => {
                "white space at the start or end: the reference proxy trims it, so the handle \
                 cannot be resolved through it"
            }
            LintCode::NotNfc => {
                "not in Unicode NFC: a handle that looks the same may be written differently"
            }
            LintCode::PercentEncoded => "a %XX escape: probably still percent-encoded",
            LintCode::QueryOrFragment => {
                "a '?' or '#': probably a pasted URL with its query or fragment"
            }
            LintCode::UriPrefix => {
                "starts like a URI or URL: read as a bare handle, the prefix is part of it"
            }
            LintCode::TrailingPunctuation => {
                "ends in punctuation typical of text extraction ('.', ',', ';', ')')"
            }
            LintCode::LeadingPunctuation => {
                "starts with an opening bracket or quote that nothing closes, as text \
                 extraction leaves a pair whose end it lost"
            }
            LintCode::SymbolFirst => {
                "the naming authority starts with a character that is no letter or digit, as \
                 no handle's prefix does: probably text set before the handle (a footnote's \
                 mark, a bullet)"
            }
            LintCode::Over2048Bytes => {
                "longer than 2048 bytes: the reference server refuses it on the wire"
            }
            LintCode::LiteralPercent => {
                "a '%' not followed by two hex digits in the URL, read as a '%' as browsers \
                 read it; written properly it is %25"
            }
        }
    }

    /// Whether the warning is about how a bare handle was written (`percent-encoded`,
    /// `query-or-fragment`, `uri-prefix`): a handle read from a written form was decoded on
    /// purpose, and [`HdlUri::lint`](crate::HdlUri::lint) leaves these out for it.
    #[must_use]
    pub const fn bare_only(self) -> bool {
        matches!(
            self,
            LintCode::PercentEncoded | LintCode::QueryOrFragment | LintCode::UriPrefix
        )
    }

    /// The rule or source the warning cites.
    #[must_use]
    pub const fn rule(self) -> &'static str {
        match self {
            LintCode::EmptyLocalName => "SPEC D2",
            LintCode::TrailingSlash => "SPEC H10",
            LintCode::ControlCharacter
            | LintCode::UnprintableCharacter
            | LintCode::ZeroWidthCharacter
            | LintCode::BidiControl
            | LintCode::OutsideBmp => "SPEC D3",
            LintCode::SurroundingWhitespace => "PROXY",
            LintCode::NotNfc => "Unicode UAX #15",
            LintCode::PercentEncoded | LintCode::QueryOrFragment => "SPEC P2, U7",
            LintCode::UriPrefix => "SPEC D5",
            LintCode::TrailingPunctuation | LintCode::LeadingPunctuation => "text extraction",
            LintCode::SymbolFirst => "SPEC D14",
            LintCode::Over2048Bytes => "SPEC H9",
            LintCode::LiteralPercent => "SPEC P3",
        }
    }
}

impl fmt::Display for LintCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for LintCode {
    type Err = ParseError;
    /// A code by its [`code`](LintCode::code) text.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LintCode::ALL
            .into_iter()
            .find(|c| c.code() == s)
            .ok_or(ParseError::new(
                0,
                ParseErrorKind::InvalidParameter,
                s.chars().next(),
            ))
    }
}

/// A warning: what, and the byte index of the first place it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Warning {
    code: LintCode,
    index: usize,
}

impl Warning {
    /// What the warning is about.
    #[must_use]
    pub const fn code(&self) -> LintCode {
        self.code
    }

    /// The same warning at another index (of a larger text).
    pub(crate) const fn at(mut self, index: usize) -> Self {
        self.index = index;
        self
    }

    /// The byte index of the first place it applies to, in the text that was linted: the
    /// handle for [`HandleRef::lint`], the written form for
    /// [`HdlUri::lint`](crate::HdlUri::lint), the input for
    /// [`Cleaned::lint`](crate::Cleaned::lint).
    #[must_use]
    pub const fn index(&self) -> usize {
        self.index
    }
}

impl fmt::Display for Warning {
    /// `trailing-slash at byte 12: a trailing '/' makes a different handle … (SPEC H10)`.
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

/// Whether `c`, first in a naming authority, is punctuation or a symbol: no letter or digit,
/// nor what another warning says (white space, a control, invisible or unprintable
/// character).
fn is_symbol(c: char) -> bool {
    !(c.is_alphanumeric()
        || c.is_whitespace()
        || c.is_control()
        || is_zero_width(c)
        || is_bidi_control(c)
        || is_unprintable(c))
}

fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}' | '\u{AD}'
    )
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn is_unprintable(c: char) -> bool {
    let u = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&u)
        || u & 0xFFFE == 0xFFFE
        || (0xE000..=0xF8FF).contains(&u)
        || u >= 0xF0000
        || c == '\u{FFFD}'
}

/// What a byte says to [`HandleRef::lint`]'s scan.
const QUIET: u8 = 0;
const CONTROL: u8 = 1;
const QUERY_OR_FRAGMENT: u8 = 2;
const PERCENT: u8 = 3;
const LEAD: u8 = 4;

/// Per byte: a C0 control or DEL, `?` or `#`, `%`, the lead byte of a non-ASCII character,
/// or nothing to note (every other ASCII byte, and continuation bytes).
static NOTABLE: [u8; 256] = {
    let mut table = [QUIET; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = match b as u8 {
            0..=0x1f | 0x7f => CONTROL,
            b'?' | b'#' => QUERY_OR_FRAGMENT,
            b'%' => PERCENT,
            0xc0..=0xff => LEAD,
            _ => QUIET,
        };
        b += 1;
    }
    table
};

/// Whether `text` has a `%` followed by two hex digits at `i`.
fn escape_at(text: &[u8], i: usize) -> bool {
    text[i] == b'%'
        && text
            .get(i + 1..i + 3)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
}

impl HandleRef<'_> {
    /// The warnings for this handle, in the order of [`LintCode::ALL`], each once with the
    /// first place it applies to.
    ///
    /// ```
    /// use handle_id::{HandleRef, LintCode};
    ///
    /// let h = HandleRef::parse("10.1000/abc.")?;
    /// let codes: Vec<_> = h.lint().iter().map(|w| w.code()).collect();
    /// assert_eq!(codes, [LintCode::TrailingPunctuation]);
    /// assert!(HandleRef::parse("10.1000/abc")?.lint().is_empty());
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn lint(self) -> Vec<Warning> {
        let text = self.as_str();
        let local = self.local_name();
        let local_start = text.len() - local.len();
        let mut found: [Option<usize>; LintCode::ALL.len()] = [None; LintCode::ALL.len()];
        let mut note = |code: LintCode, index: usize| {
            let slot = &mut found[code as usize];
            if slot.is_none() {
                *slot = Some(index);
            }
        };
        if local.is_empty() {
            note(LintCode::EmptyLocalName, local_start);
        } else if local.ends_with('/') {
            note(LintCode::TrailingSlash, text.len() - 1);
        }
        // One pass over the bytes: most are ASCII and draw no warning (a table says which
        // do); a non-ASCII character is decoded at its lead byte and asked the Unicode
        // questions.
        let bytes = text.as_bytes();
        let mut non_ascii = false;
        for (i, &b) in bytes.iter().enumerate() {
            let notable = NOTABLE[usize::from(b)];
            if notable == QUIET {
                continue;
            }
            match notable {
                CONTROL => note(LintCode::ControlCharacter, i),
                QUERY_OR_FRAGMENT => note(LintCode::QueryOrFragment, i),
                PERCENT if escape_at(bytes, i) => note(LintCode::PercentEncoded, i),
                PERCENT => {}
                _ => {
                    non_ascii = true;
                    let c = text[i..].chars().next().expect("a lead byte starts a char");
                    if c.is_control() {
                        note(LintCode::ControlCharacter, i);
                    }
                    if is_unprintable(c) {
                        note(LintCode::UnprintableCharacter, i);
                    }
                    if is_zero_width(c) {
                        note(LintCode::ZeroWidthCharacter, i);
                    }
                    if is_bidi_control(c) {
                        note(LintCode::BidiControl, i);
                    }
                    if u32::from(c) > 0xFFFF {
                        note(LintCode::OutsideBmp, i);
                    }
                }
            }
        }
        if non_ascii && !unicode_normalization::is_nfc(text) {
            note(LintCode::NotNfc, 0);
        }
        if text.starts_with(char::is_whitespace) {
            note(LintCode::SurroundingWhitespace, 0);
        } else if let Some(last) = text.chars().next_back().filter(|c| c.is_whitespace()) {
            note(
                LintCode::SurroundingWhitespace,
                text.len() - last.len_utf8(),
            );
        }
        // The forms grammar says whether the text starts like a written form (D5). Every
        // form's prefix holds a ':' (tests/lint.rs checks it on the corpus written in every
        // form), so a naming authority without one needs no look.
        if self.prefix().contains(':') && detect(text, &Options::new()) != Some(Form::Handle) {
            note(LintCode::UriPrefix, 0);
        }
        let unbalanced = |s: &str| s.matches(')').count() > s.matches('(').count();
        match local.chars().next_back() {
            Some('.' | ',' | ';') => note(LintCode::TrailingPunctuation, text.len() - 1),
            Some(')') if unbalanced(local) => note(LintCode::TrailingPunctuation, text.len() - 1),
            _ => {}
        }
        // (What cleaning takes off: the same look.)
        if crate::clean::leading_punctuation(text).is_some() {
            note(LintCode::LeadingPunctuation, 0);
        } else if text.chars().next().is_some_and(is_symbol) {
            note(LintCode::SymbolFirst, 0);
        }
        if text.len() > 2048 {
            // The first character that does not fit in 2048 bytes (its start: an index is
            // always on a character boundary).
            let first_over = (0..=2048).rev().find(|&i| text.is_char_boundary(i));
            note(LintCode::Over2048Bytes, first_over.unwrap_or(0));
        }
        if found.iter().all(Option::is_none) {
            // Most handles: nothing to collect.
            return Vec::new();
        }
        LintCode::ALL
            .into_iter()
            .zip(found)
            .filter_map(|(code, index)| {
                Some(Warning {
                    code,
                    index: index?,
                })
            })
            .collect()
    }
}

impl crate::uri::HdlUri<'_> {
    /// The warnings for the handle it holds, each at its place in the text as written
    /// (the `%` of an escape); for a written form other than a bare handle, without those
    /// about how a bare handle was written ([`LintCode::bare_only`]).
    ///
    /// ```
    /// use handle_id::{recognize, LintCode, Options};
    /// let o = Options::new();
    /// let pasted = recognize("10.1000/456#789", &o)?;
    /// assert_eq!(pasted.lint()[0].code(), LintCode::QueryOrFragment);
    /// let encoded = recognize("https://doi.org/10.1000/456%23789", &o)?;
    /// assert!(encoded.lint().is_empty());
    /// let slash = recognize("hdl:20.1000/5555/", &o)?;
    /// assert_eq!((slash.lint()[0].code(), slash.lint()[0].index()), (LintCode::TrailingSlash, 16));
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn lint(&self) -> Vec<Warning> {
        let mut warnings = self.handle().lint();
        if self.form() != Form::Handle {
            warnings.retain(|w| !w.code().bare_only());
            for w in &mut warnings {
                w.index = self.text_index(w.index);
            }
        }
        if let Some(index) = self.literal_percent() {
            // Last in LintCode::ALL: the order stays.
            warnings.push(Warning {
                code: LintCode::LiteralPercent,
                index,
            });
        }
        warnings
    }
}

impl crate::handle::Handle {
    /// The warnings for this handle; see [`HandleRef::lint`].
    #[must_use]
    pub fn lint(&self) -> Vec<Warning> {
        self.as_handle_ref().lint()
    }
}
