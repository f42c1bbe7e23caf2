//! The error of every parser in the crate: small plain data, composed into a message only
//! when displayed.
//!
//! `handle-macros` shows the same messages for a rejected `hdl!` literal. It depends on
//! `core` only.

use core::fmt;

use crate::generated::Rule;

/// Why a string is not a handle: where, what, and which part of the grammar said no.
///
/// The error is `Copy` and holds no text: the byte index into the input, a [`ParseErrorKind`]
/// naming the grammar element that failed, and the offending character. The message is
/// composed by `Display`; [`ParseError::render`] adds the input with a caret under the
/// offending character.
///
/// ```
/// let err = handle_id::validate("10@x/y").unwrap_err();
/// assert_eq!(err.index(), 2);
/// assert_eq!(err.kind(), handle_id::ParseErrorKind::InvalidCharacter);
/// assert_eq!(err.found(), Some('@'));
/// assert_eq!(
///     err.to_string(),
///     "'@' (U+0040) is not allowed in a naming authority segment at byte 2; \
///      the ABNF excludes %x40 (SPEC H3, D1)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseError {
    index: usize,
    kind: ParseErrorKind,
    found: Option<char>,
    escaped: bool,
    rule: Option<Rule>,
}

/// The grammar element that failed. New kinds may be added as new forms are parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input is empty: a handle needs at least `<segment>/` (H1, H2).
    Empty,
    /// A naming authority segment has no characters: a leading `.` or `/`, `..`, or `./`
    /// (H2: every segment has at least one character).
    EmptySegment,
    /// A character the naming authority excludes (H3; `@` by D1).
    InvalidCharacter,
    /// The input ends inside the naming authority: no `/` separates it from a local name (H1).
    MissingSlash,
    /// The bytes at the index are not UTF-8 (H5): in input read as bytes, or after
    /// percent-decoding.
    InvalidUtf8,
    /// A character the grammar of a URI or URL form does not allow where it stands, or the
    /// text ends too early; [`ParseError::rule`] names the grammar rule it was inside.
    UriSyntax,
    /// A `%` that does not start a percent-encoded octet (`%` and two hex digits, RFC 3986).
    PercentEncoding,
    /// An HTTP(S) URL whose host is not a known proxy or resolver, nor one the caller named
    /// (P1); the index is that of the host.
    UnknownResolver,
    /// A URL or URI of a form that holds no handle: another scheme, `urn:` or `info:`
    /// namespace (D5).
    NotAHandleForm,
    /// A proxy query parameter whose value is not what P4 allows (an `index` that is not an
    /// unsigned 32-bit number, a `locatt` without `key:value`); the index is into the query.
    InvalidParameter,
    /// A handle that has no text in the written form asked for: what a writer would write
    /// reads back as another handle (a `urn:` form of a naming authority with a `:`, U8; a
    /// repository URL without the repository's base, or at a resolver's host, P1). The
    /// index is into the handle.
    Unwritable,
    /// Cleaning found white space inside what would be one identifier (as written, or
    /// decoded in a naming authority) that no split DOI's evidence joins: running text, not
    /// one identifier (C2); the index is that of the white space (of the escape that writes
    /// it, when decoded).
    NotOneIdentifier,
    /// A query with more parameters than [`ProxyQuery::MAX_PARAMETERS`](crate::ProxyQuery::MAX_PARAMETERS);
    /// the index is that of the first one over.
    TooManyParameters,
}

impl ParseErrorKind {
    /// The part of the grammar this kind is about, as the messages name it.
    #[must_use]
    pub const fn element(self) -> &'static str {
        match self {
            Self::Empty | Self::InvalidUtf8 => "handle",
            Self::EmptySegment | Self::InvalidCharacter => "naming authority segment",
            Self::MissingSlash => "naming authority",
            Self::UriSyntax | Self::NotAHandleForm => "URI",
            Self::PercentEncoding => "percent-encoded octet",
            Self::UnknownResolver => "resolver host",
            Self::InvalidParameter => "query parameter",
            Self::Unwritable => "written form",
            Self::TooManyParameters => "query",
            Self::NotOneIdentifier => "identifier",
        }
    }
}

impl ParseError {
    /// Builds an error. Parsers in this crate are the only callers.
    pub(crate) const fn new(index: usize, kind: ParseErrorKind, found: Option<char>) -> Self {
        Self {
            index,
            kind,
            found,
            escaped: false,
            rule: None,
        }
    }

    /// The same error for a character written percent-encoded at its index: `found` is
    /// what the escape there decodes to.
    pub(crate) const fn written_escaped(mut self) -> Self {
        self.escaped = true;
        self
    }

    /// The same error at `index` of `text`, where `found` is now the character at that
    /// index (or `None` at the end): for an error of a part of a larger text, such as a
    /// handle in a URI that a `#` or `?` ends.
    pub(crate) fn at_in(mut self, text: &str, index: usize) -> Self {
        self.index = index;
        self.found = text.get(index..).and_then(|rest| rest.chars().next());
        self.escaped = false;
        self
    }

    /// An error inside grammar rule `rule`.
    pub(crate) const fn in_rule(mut self, rule: Rule) -> Self {
        self.rule = Some(rule);
        self
    }

    /// The same error, `offset` bytes further into a larger input.
    #[must_use]
    pub(crate) const fn shifted(mut self, offset: usize) -> Self {
        self.index += offset;
        self
    }

    /// The same error at another index: for a caller that read a text made of the input
    /// and more (a server reads a request's path after a base of its own), to say where
    /// in the input it is.
    ///
    /// ```
    /// let e = handle_id::HandleRef::parse("10.1000").unwrap_err();
    /// assert_eq!(e.at(3).index(), 3);
    /// ```
    #[must_use]
    pub const fn at(mut self, index: usize) -> Self {
        self.index = index;
        self
    }

    /// The grammar rule the error was found in, as the grammar files name it: for example
    /// `u_local_name` in grammar/hdl-uri.pest for a URI's syntax, or `na_segment` in
    /// grammar/handle.pest for a handle's own rules (H1–H3), bare or held by a form. Empty
    /// where no grammar rule was being read (invalid UTF-8, a resolver that is not known,
    /// running text).
    #[must_use]
    pub const fn rule(&self) -> &'static str {
        match self.rule {
            Some(rule) => rule.name(),
            None => "",
        }
    }

    /// The byte index into the input where the input stops being a handle.
    #[must_use]
    pub const fn index(&self) -> usize {
        self.index
    }

    /// What failed.
    #[must_use]
    pub const fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// The character at [`index`](Self::index), or `None` at the end of the input (and for
    /// invalid UTF-8). When [`escaped`](Self::escaped), the character that the
    /// percent-encoded octets at the index decode to.
    #[must_use]
    pub const fn found(&self) -> Option<char> {
        self.found
    }

    /// Whether the character at the index is written percent-encoded (`%2F` for `/`), and
    /// [`found`](Self::found) is the character it decodes to: the grammar judged the
    /// decoded character.
    #[must_use]
    pub const fn escaped(&self) -> bool {
        self.escaped
    }

    /// The message followed by the input on its own line and a caret under the offending
    /// character. Control characters in the input are shown escaped (`\t`, `\u{1b}`), and
    /// the caret follows them. Of a long input, only the [`Rendered::CONTEXT`] characters
    /// on each side of the error are shown, with `…` where the rest is left out.
    ///
    /// ```
    /// let input = "10.1045..x/y";
    /// let err = handle_id::validate(input).unwrap_err();
    /// assert_eq!(
    ///     err.render(input).to_string(),
    ///     "the naming authority segment at byte 8 is empty ('.' (U+002E) found); \
    ///      a segment needs at least one character (SPEC H2)\n  \
    ///      10.1045..x/y\n          ^"
    /// );
    /// ```
    #[must_use]
    pub fn render<'a>(&'a self, input: &'a str) -> Rendered<'a> {
        Rendered { error: self, input }
    }
}

/// A character as messages show it: `'@' (U+0040)`.
struct Shown(char);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' (U+{:04X})",
            self.0.escape_debug(),
            u32::from(self.0)
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.index;
        // A character written as an escape is named with what it decodes to, and says so.
        let written = if self.escaped {
            " written percent-encoded"
        } else {
            ""
        };
        match (self.kind, self.found) {
            (ParseErrorKind::Empty, None) if at == 0 => f.write_str(
                "the input is empty; a handle is <naming authority>/<local name> (SPEC H1)",
            ),
            (ParseErrorKind::Empty, None) => write!(
                f,
                "no handle at byte {at} (end of input); a handle is \
                 <naming authority>/<local name> (SPEC H1)"
            ),
            (ParseErrorKind::Empty, Some(c)) => write!(
                f,
                "no handle at byte {at} ({} found); a handle is \
                 <naming authority>/<local name> (SPEC H1)",
                Shown(c)
            ),
            (ParseErrorKind::EmptySegment, Some(c)) => write!(
                f,
                "the naming authority segment at byte {at} is empty ({}{written} found); \
                 a segment needs at least one character (SPEC H2)",
                Shown(c)
            ),
            (ParseErrorKind::EmptySegment, None) => write!(
                f,
                "the naming authority segment at byte {at} is empty (end of input); \
                 a segment needs at least one character (SPEC H2)"
            ),
            (ParseErrorKind::InvalidCharacter, Some(c)) => write!(
                f,
                "{}{written} is not allowed in a naming authority segment at byte {at}; \
                 the ABNF excludes %x{:02X} (SPEC H3{}{})",
                Shown(c),
                u32::from(c),
                if c == '@' { ", D1" } else { "" },
                if self.escaped { ", U11" } else { "" }
            ),
            (ParseErrorKind::MissingSlash, None) => write!(
                f,
                "no '/' after the naming authority (end of input at byte {at}); \
                 a handle is <naming authority>/<local name> (SPEC H1)"
            ),
            (ParseErrorKind::MissingSlash, Some(c)) => write!(
                f,
                "no '/' after the naming authority ({} at byte {at} ends the handle); \
                 a handle is <naming authority>/<local name> (SPEC H1)",
                Shown(c)
            ),
            (ParseErrorKind::InvalidUtf8, _) => write!(
                f,
                "invalid UTF-8 at byte {at}; a handle is UTF-8 text (SPEC H5)"
            ),
            (ParseErrorKind::UriSyntax, Some(c)) => {
                let (part, encodable) = part(self.rule);
                write!(
                    f,
                    "{}{written} is not allowed in {part} at byte {at}",
                    Shown(c)
                )?;
                if encodable {
                    f.write_str("; write it percent-encoded (SPEC U6, P2)")?;
                }
                if self.rule == Some(Rule::HttpScheme) {
                    f.write_str("; a resolver's URL starts http:// or https:// (SPEC P1)")?;
                }
                f.write_str(base_hint(self.rule))
            }
            (ParseErrorKind::UriSyntax, None) => {
                write!(f, "the text ends inside {} at byte {at}", part(self.rule).0)?;
                f.write_str(base_hint(self.rule))
            }
            (ParseErrorKind::PercentEncoding, _) => write!(
                f,
                "'%' at byte {at} does not start a percent-encoded octet; write '%' followed by \
                 two hex digits, and a '%' itself as %25 (RFC 3986)"
            ),
            (ParseErrorKind::UnknownResolver, _) => write!(
                f,
                "the URL's host at byte {at} is not a known handle proxy or resolver; name its \
                 base to read it (SPEC P1)"
            ),
            (ParseErrorKind::NotAHandleForm, _) => f.write_str(
                "a URI or URL of a form that holds no handle (SPEC D5); \
                 to take the text itself as a handle, parse it as a bare handle",
            ),
            (ParseErrorKind::InvalidParameter, _) => write!(
                f,
                "the query parameter at byte {at} has a value the proxy does not accept (SPEC P4)"
            ),
            (ParseErrorKind::NotOneIdentifier, Some(c))
                if crate::clean::FULL_WIDTH_STOPS.contains(&c) =>
            {
                write!(
                    f,
                    "{} at byte {at}, a full-width stop: running text, not one identifier \
                     (SPEC C2)",
                    Shown(c)
                )
            }
            (ParseErrorKind::NotOneIdentifier, _) => write!(
                f,
                "white space at byte {at}: running text, not one identifier (SPEC C2)"
            ),
            (ParseErrorKind::TooManyParameters, _) => write!(
                f,
                "the query has more than {} parameters: the one at byte {at} is over (SPEC P4)",
                crate::ProxyQuery::MAX_PARAMETERS
            ),
            (ParseErrorKind::Unwritable, _) if self.rule == Some(Rule::HttpUrl) => f.write_str(
                "a repository URL is written at the repository's base: a known resolver's \
                 host reads its path, handle/ and all, as the handle (SPEC P1)",
            ),
            (ParseErrorKind::Unwritable, _) => write!(
                f,
                "the naming authority holds ':' at byte {at}, and a urn: form turns its first \
                 ':' into '/': this handle has no urn: form (SPEC U8)"
            ),
            (kind, None) => write!(
                f,
                "unexpected end of input in a {} at byte {at}",
                kind.element()
            ),
        }
    }
}

/// What a resolver's base must be, said after an error inside one (`base_url`, SPEC P1):
/// empty for any other rule.
fn base_hint(rule: Option<Rule>) -> &'static str {
    match rule {
        Some(Rule::BaseHost) => {
            "; a base's host is written in ASCII (an internationalised name in its xn-- \
             form), without white space, '%', '@' and the like, and an IP address as four \
             decimal numbers or an IPv6 address in brackets (SPEC P1, P2)"
        }
        Some(Rule::BasePort) => "; a port is a number from 0 to 65535 (SPEC P1)",
        Some(Rule::BaseUrl | Rule::BaseSegment) => {
            "; a base is written into every URL as it is: after its host, at most one path \
             segment, not '.' or '..', of the characters P2 leaves unescaped (SPEC P1, P2)"
        }
        _ => "",
    }
}

/// Words for a grammar rule in messages, what the rule is as a reader knows it, and
/// whether a character it does not allow could be written there percent-encoded.
fn part(rule: Option<Rule>) -> (&'static str, bool) {
    let Some(rule) = rule else {
        return ("the text", false);
    };
    match rule {
        Rule::HdlHost
        | Rule::HdlPath
        | Rule::HdlResolution
        | Rule::CordraHost
        | Rule::CordraPath => ("the hdl: URI", false),
        Rule::Scheme | Rule::HttpScheme | Rule::InfoScheme => ("the scheme", false),
        Rule::InfoUri => ("the info: URI", false),
        Rule::Namespace => ("the info: namespace", false),
        Rule::HttpUrl | Rule::CordraHttp => ("the URL", false),
        Rule::PctEncoded => ("a percent-encoded octet", false),
        Rule::Server => ("the server", true),
        Rule::UHandle => ("the handle", true),
        Rule::UNamingAuthority => ("the naming authority", true),
        Rule::UNaSegment => ("a naming authority segment", true),
        Rule::ULocalName => ("the local name", true),
        Rule::Query => ("the query", true),
        Rule::Fragment => ("the fragment", true),
        Rule::Identifier => ("the info: identifier", true),
        Rule::Authority | Rule::RegName | Rule::Userinfo => ("the host", true),
        Rule::Path | Rule::Segment | Rule::SegmentNz => ("the path", true),
        // (A base is written into URLs as it is: nothing in it is escaped.)
        Rule::BaseUrl => ("the resolver's base", false),
        Rule::BaseHost => ("the base's host", false),
        Rule::BasePort => ("the base's port", false),
        Rule::BaseSegment => ("the base's path segment", false),
        // Rules no URI or URL error is inside (the bare handle's, the written forms', the
        // character sets'), named as the grammar names them.
        Rule::AsciiSpace
        | Rule::BareDoiForm
        | Rule::BareDoiPrefix
        | Rule::BracketedWord
        | Rule::DoiForm
        | Rule::DoiPrefixForm
        | Rule::DoiStartForm
        | Rule::Dot
        | Rule::ForbiddenDomain
        | Rule::GluedDoiForm
        | Rule::GluedWord
        | Rule::GluedWordForm
        | Rule::Handle
        | Rule::HdlForm
        | Rule::HdlHostForm
        | Rule::HttpForm
        | Rule::IdentifierEndForm
        | Rule::InfoDoiForm
        | Rule::InfoHdlForm
        | Rule::InfoOtherForm
        | Rule::LabelForm
        | Rule::LabelSpace
        | Rule::LocalName
        | Rule::NaSegment
        | Rule::NamingAuthority
        | Rule::OtherUrlForm
        | Rule::PathChar
        | Rule::Pchar
        | Rule::ProxyPath
        | Rule::SegmentChar
        | Rule::Slash
        | Rule::SubDelims
        | Rule::ULocalNameKept
        | Rule::UNaSegmentKept
        | Rule::UUnreserved
        | Rule::Unreserved
        | Rule::UrlViewForm
        | Rule::UrnDoiForm
        | Rule::UrnHdlForm
        | Rule::UrnOtherForm => (rule.name(), false),
    }
}

impl core::error::Error for ParseError {}

/// [`ParseError::render`]: the message, the input, and a caret under the offending character.
#[derive(Clone, Copy, Debug)]
pub struct Rendered<'a> {
    error: &'a ParseError,
    input: &'a str,
}

impl Rendered<'_> {
    /// How many characters of the input are shown on each side of the caret: a long input
    /// is shown as the part around the error, with `…` for what is left out.
    pub const CONTEXT: usize = 40;
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.error)?;
        // The index on a character boundary at or before it (the error's index is one).
        let mut at = self.error.index.min(self.input.len());
        while !self.input.is_char_boundary(at) {
            at -= 1;
        }
        let (before, after) = self.input.split_at(at);
        let start = before
            .char_indices()
            .rev()
            .nth(Self::CONTEXT - 1)
            .map_or(0, |(i, _)| i);
        let end = after
            .char_indices()
            .nth(Self::CONTEXT)
            .map_or(self.input.len(), |(i, _)| at + i);
        f.write_str("  ")?;
        let mut column = 0;
        if start > 0 {
            f.write_str("…")?;
            column += 1;
        }
        column += shown(f, &self.input[start..at])?;
        let caret = column;
        shown(f, &self.input[at..end])?;
        if end < self.input.len() {
            f.write_str("…")?;
        }
        // The caret's column, written a space at a time: a width given to `format!` is at
        // most `u16::MAX`.
        f.write_str("\n  ")?;
        for _ in 0..caret {
            f.write_str(" ")?;
        }
        f.write_str("^")
    }
}

/// Writes `text` as a message shows it (control characters escaped) and says in how many
/// columns.
fn shown(f: &mut fmt::Formatter<'_>, text: &str) -> Result<usize, fmt::Error> {
    let mut columns = 0;
    for c in text.chars() {
        if c.is_control() {
            let escaped = c.escape_debug();
            columns += escaped.len();
            write!(f, "{escaped}")?;
        } else {
            columns += 1;
            write!(f, "{c}")?;
        }
    }
    Ok(columns)
}
