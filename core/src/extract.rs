//! Extraction (SPEC C3): the identifiers in running text, each with its span as written.
//!
//! Where an identifier may start is the forms grammar's (its prefix rules, `label_form`,
//! `bare_doi_form`) and the known resolvers'. Where it ends: ASCII white space, `"` and a tag
//! are the grammar's too (`identifier_end_form`); Unicode white space, brackets (a closing
//! one with no partner inside it, an opening one with none after it, more than
//! [`MAX_OPEN`] open at once), and then sentence punctuation are said here and in cleaning
//! (C2, C3), since the generator reads non-ASCII characters as one symbol and balance is
//! not a regular language.
//!
//! Linear time on every input: each start is tried once, and what a try reads is either
//! taken (the search goes on after it) or bounded by what earlier tries left behind. The
//! scan of an identifier's end is kept for the starts inside it (`Ends`), where the next
//! `/`, `?` or `#` is, is remembered as the starts move forward (`Next`), and a reading that
//! failed at bytes no reading of its form gets past is remembered for the starts before it
//! (`Extract::fails`). `Extract::work` counts the bytes read, and the tests hold it to a
//! constant factor of the text.

use crate::base::{is_https, is_known_host, KNOWN_PROXY_HOSTS, PATH_PREFIXES};
use crate::clean::{
    breaks_identifier, clean_as_written, is_space, label_prefix, read_written, resolver_prefix,
    split_end, without_space, FixCode, PAIRS, URI_PREFIXES,
};
use crate::dfa::Dfa;
use crate::escape::PROXY_PATH;
use crate::form::{Form, Options};
use crate::generated as g;
use crate::handle::{HandleRef, ReadHandle};
use crate::pairs::{PairTable, Rows};
use alloc::vec::Vec;

/// An identifier found in a text: where, as written, in which form, and the handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found<'a> {
    start: usize,
    text: &'a str,
    form: Form,
    handle: ReadHandle<'a>,
}

impl<'a> Found<'a> {
    /// The byte span in the text, as written: `start..end`.
    #[must_use]
    pub fn span(&self) -> core::ops::Range<usize> {
        self.start..self.start + self.text.len()
    }

    /// The identifier as written.
    #[must_use]
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The form it is written in (a `doi:` label counts as the `doi:` form).
    #[must_use]
    pub fn form(&self) -> Form {
        self.form
    }

    /// The handle, as written (see [`HandleRef::canonical`] for the canonical form):
    /// borrowed from the text unless it was percent-decoded.
    #[must_use]
    pub fn handle(&self) -> HandleRef<'_> {
        self.handle.as_handle_ref()
    }
}

/// The identifiers in `text`, in order: DOIs written bare anywhere (`10.` digits `/` a
/// suffix, not inside a longer number), also inside another site's URL; every labelled and URI form
/// (`doi:`, `DOI `, `hdl:`, `info:doi/`, `info:hdl/`, `urn:doi:`, `urn:hdl:`); URLs of the
/// known resolvers and of the bases `options` names, with or without their scheme (the
/// query and fragment are not part of the handle, percent-encoding is decoded); and bare
/// handles under the prefixes `options` names ([`Options::handle_prefix`]). A bare `1234/567`
/// in prose is not evidence of a handle.
///
/// Time is linear in the length of `text`, whatever it holds.
///
/// ```
/// use handle_id::{extract, Form, Options};
/// let text = "See doi:10.1000/182 and (https://doi.org/10.3319/TAO.2009.05.25.02(IWNOP)).";
/// let found: Vec<_> = extract(text, &Options::new()).collect();
/// assert_eq!(found.len(), 2);
/// assert_eq!(found[0].handle().as_str(), "10.1000/182");
/// assert_eq!((found[0].text(), found[0].form()), ("doi:10.1000/182", Form::Doi));
/// assert_eq!(found[1].handle().as_str(), "10.3319/TAO.2009.05.25.02(IWNOP)");
/// assert_eq!(&text[found[1].span()], "https://doi.org/10.3319/TAO.2009.05.25.02(IWNOP)");
/// ```
#[must_use]
pub fn extract<'a, 'o>(text: &'a str, options: &'o Options) -> Extract<'a, 'o> {
    Extract {
        text,
        options,
        at: 0,
        tried: 0,
        token: (0, 0),
        ends: Ends::default(),
        decoded_ends: Ends {
            decoded: true,
            ..Ends::default()
        },
        scheme_sep: (0, None),
        slash: Next::NONE,
        query: Next::NONE,
        hash: Next::NONE,
        second_hash: Next::NONE,
        unkept: Next::NONE,
        urn_sep: Next::NONE,
        space: Next::NONE,
        fails: [None; Form::ALL.len()],
        last_kept: (usize::MAX, 0, 0),
        last_piece: None,
        next_piece: None,
        repository: Next::NONE,
        failed_chain: 0,
        none_mark: usize::MAX,
        empty_local: (usize::MAX, 0),
        relabelled: None,
        work: 0,
    }
}

/// The iterator of [`extract`]. Besides the text and a position it keeps what makes every
/// input cost time linear in its length: the scans of identifiers' ends that starts inside
/// them reuse (at most [`MAX_OPEN`]` + 1` nested), where the next delimiters are, and where
/// readings of each form failed; a fixed size, nothing per identifier.
#[derive(Clone, Debug)]
pub struct Extract<'a, 'o> {
    text: &'a str,
    options: &'o Options,
    /// Where the search goes on: after the last identifier found, or the last anchor.
    at: usize,
    /// Positions before this one were tried as starts already: each is tried once.
    tried: usize,
    /// The last anchor and where its token starts: the next anchor in the same token
    /// finds its start without looking back again.
    token: (usize, usize),
    /// Identifiers' ends, for the starts that follow inside them: as written (a bare
    /// handle, a label's, a `urn:` form's), and where cleaning decodes the text (a URL's
    /// path, an `hdl:` or `info:` URI), whose escaped closing brackets close.
    ends: Ends,
    decoded_ends: Ends,
    /// How far `://` was looked for, and where it was last seen.
    scheme_sep: (usize, Option<usize>),
    /// The next `/`; `?` or `#`; `#`; the `#` after that; a byte a proxy path does not keep
    /// as it is (`escape::PROXY_PATH`); `/` or `:`.
    slash: Next,
    query: Next,
    hash: Next,
    second_hash: Next,
    unkept: Next,
    urn_sep: Next,
    /// The next ASCII white space.
    space: Next,
    /// Per form (by [`Form::ALL`] index): a reading of that form that failed at bytes that
    /// no reading of the form gets past, `(window start, last byte)`. A later start of the
    /// form before the window, whose identifier would hold the window, fails too.
    fails: [Option<Failure>; Form::ALL.len()],
    /// The last end sentence punctuation was taken off: `(end, start, kept)`.
    last_kept: (usize, usize, usize),
    /// Where the last piece of the DOI split by white space last found starts.
    last_piece: Option<usize>,
    /// Where the first piece of a DOI split by white space last ended, and whether the
    /// piece after it goes on with it (`split_end`).
    next_piece: Option<(usize, bool)>,
    /// The next `/handle/` (a repository page's path).
    repository: Next,
    /// The innermost of resolvers' URLs pasted one before another that held no handle:
    /// the starts before it, inside the others, fail too.
    failed_chain: usize,
    /// The `?` or `#` a resolver's URL was last read up to alone (`holds_none_up_to`).
    none_mark: usize,
    /// The '/' and end of the last `hdl:` URI whose local name cleaning left empty, its
    /// naming authority starting with no other form (`uri`).
    empty_local: (usize, usize),
    /// A resolver's URL after a label (`doi:https://…`) read where the two did not read
    /// as one: where it starts, and what it read, for its own start to give without reading
    /// again (its ends were asked for from inside it since: they move forward only).
    relabelled: Option<Relabelled<'a>>,
    /// The bytes read so far, over every pass: what the linear bound is checked on.
    work: usize,
}

/// A reading of one form that failed on the bytes `from..=last` whatever came before them
/// (with `exact`, when they ended it): a later start of that form before `from` whose
/// identifier holds them (ends there) fails too.
#[derive(Clone, Copy, Debug)]
struct Failure {
    from: usize,
    last: usize,
    exact: bool,
}

/// The texts on which a debug build checks that a start passed over without its whole
/// reading would indeed not read (the fuzzer's and the tests' texts; on longer ones the
/// check would cost time quadratic in them).
const VERIFIED: usize = 1 << 12;

/// How far back from an anchor a start is looked for: the token itself up to this many
/// bytes (an identifier's first anchor the scan stops at is at most this far from its start).
const LOOK_BACK: usize = 512;

/// How far before the anchor's token a start is looked for: a label and its space
/// (`DOI: `, `DOI ： ` with CJK text's full-width colon).
const SPACED_LABEL: usize = 8;

/// How far before a token that may be a split DOI's later piece a start is looked for: a
/// label and the pieces before its first anchor (`DOI 10. 1093/…`, `doi 10 .1073 /pnas…`).
const LABEL_BACK: usize = 24;

/// Whether a token (up to its anchor, included) may be a later piece of a DOI split by white space:
/// it starts with a digit, '.' or '/' but not with a DOI's `10.`.
fn goes_on_a_split(token: &[u8]) -> bool {
    token
        .first()
        .is_some_and(|&b| b.is_ascii_digit() || b == b'.' || b == b'/')
        && !token.starts_with(b"10.")
}

/// The most brackets an identifier holds open at once (SPEC C3): an opening bracket beyond
/// these ends it. No registered DOI nests brackets deeper than two; the bound keeps what a
/// start nested inside brackets costs to a constant.
pub const MAX_OPEN: usize = 8;

impl<'a> Iterator for Extract<'a, '_> {
    type Item = Found<'a>;

    fn next(&mut self) -> Option<Found<'a>> {
        let bytes = self.text.as_bytes();
        // The anchors' search and the words before them read each position once, as `at`
        // and `tried` only move forward: counted as two passes over what this call covers.
        let entry = self.at;
        // Every identifier holds a '/' or a ':' (a handle's '/', a label's or scheme's ':';
        // `urn:doi:10.123:456` has only ':'), and text holds few: they are the anchors,
        // found by memchr, and a start is looked for in the token before each.
        while let Some(k) = memchr::memchr2(b'/', b':', &bytes[self.at..]).map(|k| self.at + k) {
            // An identifier whose first anchor is a ':' is a written form, and every byte
            // before the first ':' of a written form is a letter (`doi:`, `urn:doi:`,
            // `https:`; a bare handle's first anchor is its '/'): a ':' after anything
            // else (`"DOI":`, `12:30`), or after a word no written form starts with
            // (`Note:`), starts nothing (tested against the grammar below).
            // But a DOI label whose ':' has a space before it (`doi :10.…`), or glued after
            // a full stop (`2459.doi:10.…`), as text taken from PDFs writes them: the one
            // start tried.
            let mut glued = None;
            if bytes[k] == b':' && !may_end_scheme(&bytes[..k]) {
                glued = glued_label(&bytes[..k]).filter(|&d| d >= self.at);
                if glued.is_none() {
                    self.at = k + 1;
                    continue;
                }
            }
            // An anchor right after where an identifier ends (`</a>`, `"/`, ` /`;
            // `identifier_end_form`) is in none: one through the byte before would end
            // there, and none starts at a '/' or ':'. (But for a '/' that starts a piece of
            // a DOI split by white space, `doi 10 .1073 /pnas…`, looked back from below.)
            if k > 0
                && glued.is_none()
                && g::IDENTIFIER_END_FORM
                    .accepted_prefix(&bytes[k - 1..])
                    .is_some()
                && !(bytes[k] == b'/' && crate::bytes::is_ascii_space(&bytes[k - 1]))
            {
                self.at = k + 1;
                continue;
            }
            let (last, last_token) = self.token;
            let token = match bytes[last.min(k)..k]
                .iter()
                .rposition(|&b| crate::bytes::is_ascii_space(&b))
            {
                Some(w) => last.min(k) + w + 1,
                // No white space since the last anchor: the same token.
                None if last > 0 && last <= k => last_token,
                None => bytes[..last.min(k)]
                    .iter()
                    .rposition(|&b| crate::bytes::is_ascii_space(&b))
                    .map_or(0, |w| w + 1),
            };
            self.token = (k, token);
            // A label written with a space (`DOI 10.1/x`, `doi: 10.1/x`) stands before
            // the token; before a token that may go on from the pieces of a split DOI (it
            // starts with no DOI's `10.`, but with a digit, '.' or '/'), so may they.
            let back = if goes_on_a_split(&bytes[token..=k]) {
                LABEL_BACK
            } else {
                SPACED_LABEL
            };
            let from = token
                .saturating_sub(back)
                .max(k.saturating_sub(LOOK_BACK))
                .max(self.tried)
                .max(self.at);
            // Each word's start (a letter or digit after no letter, digit or '.') is tried;
            // the rest of the word is passed over.
            let mut i = from;
            if let Some(d) = glued {
                i = d;
            } else if from > 0 && CONTINUES_WORD[usize::from(bytes[from - 1])] {
                i = crate::dfa::skip(&bytes[..k], from, &CONTINUES_WORD, 1);
            }
            while i < k {
                if !bytes[i].is_ascii_alphanumeric() {
                    if !CONTINUES_WORD[usize::from(bytes[i])] {
                        i += 1;
                        continue;
                    }
                    // A '.' starts no word, but continues one: what follows it is no start.
                } else if let Some((found, label)) = self.candidate(i, token) {
                    self.at = found.span().end;
                    self.tried = self.at;
                    let token = self.token_after(i, label, token);
                    self.token = (self.at, token);
                    self.work += 2 * self.at.saturating_sub(entry);
                    return Some(found);
                }
                i = crate::dfa::skip(&bytes[..k], i + 1, &CONTINUES_WORD, 1);
            }
            self.tried = self.tried.max(k);
            self.at = k + 1;
        }
        self.work += 2 * (bytes.len() - entry);
        self.at = bytes.len();
        None
    }
}

impl Extract<'_, '_> {
    /// The next handle's '/' in `bytes` from `h` (for a `urn:` form a ':' may be it, P3),
    /// as remembered while the starts move forward.
    fn separator(&mut self, bytes: &[u8], h: usize, urn: bool) -> usize {
        if urn {
            self.urn_sep
                .at(bytes, h, |b| memchr::memchr2(b'/', b':', b), &mut self.work)
        } else {
            self.slash
                .at(bytes, h, |b| memchr::memchr(b'/', b), &mut self.work)
        }
    }

    /// Where the token an identifier found at `i` ends in starts (it started at `token`):
    /// an identifier ends at white space (`identifier_end_form`), and holds none but after
    /// its label (`label` bytes) or between the pieces of a split DOI; the next anchor looks
    /// back no further than that.
    fn token_after(&mut self, i: usize, label: usize, token: usize) -> usize {
        self.last_piece.take().unwrap_or_else(|| {
            self.text.as_bytes()[i..i + label]
                .iter()
                .rposition(crate::bytes::is_ascii_space)
                .map_or(token, |w| i + w + 1)
        })
    }

    /// The bytes read so far, over every pass: for the tests that hold extraction to time
    /// linear in its input (it stays within a constant factor of the text's length).
    #[doc(hidden)]
    #[must_use]
    pub fn work(&self) -> usize {
        self.work
    }
}

/// The most blanks between a label's word and its ':' extraction looks back over
/// (`hdl   :`, as justified text from PDFs spaces it; cleaning reads any number).
const LABEL_BLANKS: usize = 8;

/// Where a label that `before` (the text before a ':') ends with starts, when the scan
/// passes over its ':' otherwise: `doi` or `hdl` and white space (`doi :`, `hdl :`; the
/// space or tab of forms.pest's `label_space`, at most [`LABEL_BLANKS`]), as cleaning reads
/// them, or `doi` right after a full stop (`2459.doi`), as text taken from PDFs writes them.
fn glued_label(before: &[u8]) -> Option<usize> {
    let word = before.len()
        - before
            .iter()
            .rev()
            .take(LABEL_BLANKS)
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
    let d = word.checked_sub(3)?;
    let doi = before[d..word].eq_ignore_ascii_case(b"doi");
    if !doi && !before[d..word].eq_ignore_ascii_case(b"hdl") {
        return None;
    }
    let after = before.get(d.wrapping_sub(1)).copied();
    let glued = doi && after == Some(b'.');
    let starts = d == 0 || glued || !CONTINUES_WORD[usize::from(after?)];
    (starts && (word < before.len() || glued)).then_some(d)
}

/// Whether `before` (the text before a ':') may end in the letters of a written form
/// before its first ':': a word of ASCII letters that a written form may start with.
fn may_end_scheme(before: &[u8]) -> bool {
    let letters = before
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    let word = &before[before.len() - letters..];
    // The word starts where an identifier may: not inside a longer word or a number.
    let starts =
        letters == before.len() || !CONTINUES_WORD[usize::from(before[before.len() - letters - 1])];
    match word {
        [] => false,
        [_] => starts,
        [a, b, ..] => starts && WRITTEN_STARTS.get(*a, *b),
    }
}

/// `p` (the length of a label, `DOI: `, `hdl `, C2) and the white space that follows it in
/// `rest`.
fn with_space(rest: &str, p: usize) -> usize {
    p + rest[p..].len() - rest[p..].trim_start_matches(is_space).len()
}

/// Whether `text` starts with `pattern` (lower-case ASCII) ignoring ASCII case, eight
/// bytes at a time: a letter of the pattern is compared with the case bit set, anything
/// else as it is.
#[inline]
fn starts_with_ci(text: &[u8], pattern: &[u8]) -> bool {
    if text.len() < pattern.len() {
        return false;
    }
    text[..pattern.len()]
        .chunks(8)
        .zip(pattern.chunks(8))
        .all(|(t, p)| {
            let (mut tw, mut pw, mut case) = ([0_u8; 8], [0_u8; 8], [0_u8; 8]);
            tw[..t.len()].copy_from_slice(t);
            pw[..p.len()].copy_from_slice(p);
            for (c, &b) in case.iter_mut().zip(p) {
                *c = if b.is_ascii_lowercase() { 0x20 } else { 0 };
            }
            let case = u64::from_le_bytes(case);
            u64::from_le_bytes(tw) | case == u64::from_le_bytes(pw)
        })
}

/// The prefix rules of the written forms found in text (C3), besides URLs and labels, in
/// the order `recognize` tries them, and the form each gives.
static WRITTEN_FORMS: [(&Dfa, Form); 6] = [
    (&g::HDL_HOST_FORM, Form::HdlHost),
    (&g::HDL_FORM, Form::Hdl),
    (&g::INFO_HDL_FORM, Form::InfoHdl),
    (&g::INFO_DOI_FORM, Form::InfoDoi),
    (&g::URN_HDL_FORM, Form::UrnHdl),
    (&g::URN_DOI_FORM, Form::UrnDoi),
];

/// The schemes of the URLs read as resolvers' URLs (with the known resolvers' hosts
/// without a scheme, `KNOWN_PROXY_HOSTS`).
const URL_SCHEMES: [&str; 2] = ["http://", "https://"];

/// The rules of the written forms and labels, by their two-byte starts, with the URLs'
/// schemes and the known resolvers' hosts: what [`WRITTEN_STARTS`] holds. (The same forms
/// as [`WRITTEN_FORMS`] and `label_form`: a test holds the tables to their validators.)
const WRITTEN_RULES: [Rows; 7] = [
    g::PAIRS_HDL_HOST_FORM,
    g::PAIRS_HDL_FORM,
    g::PAIRS_INFO_HDL_FORM,
    g::PAIRS_INFO_DOI_FORM,
    g::PAIRS_URN_HDL_FORM,
    g::PAIRS_URN_DOI_FORM,
    g::PAIRS_LABEL_FORM,
];

/// Whether a word whose first two bytes are these may start an identifier: a written form
/// or a bare DOI. Asked of every word before an anchor.
static STARTS: PairTable = PairTable::new(
    &[&WRITTEN_RULES, &[g::PAIRS_BARE_DOI_FORM]],
    &[&URL_SCHEMES, &KNOWN_PROXY_HOSTS],
);

/// Whether a word whose first two bytes are these may start a written form: a URL, a known
/// resolver's host, a label or a URI.
static WRITTEN_STARTS: PairTable =
    PairTable::new(&[&WRITTEN_RULES], &[&URL_SCHEMES, &KNOWN_PROXY_HOSTS]);

/// What [`STARTS`] holds, asked of the validators themselves (for the test that holds the
/// tables to them).
#[cfg(test)]
fn may_start_identifier(pair: [u8; 2]) -> bool {
    may_start_written(pair) || g::BARE_DOI_FORM.may_start(&pair)
}

/// What [`WRITTEN_STARTS`] holds, asked of the validators themselves.
#[cfg(test)]
fn may_start_written(pair: [u8; 2]) -> bool {
    let starts = |s: &str| s.as_bytes()[..2].eq_ignore_ascii_case(&pair);
    URL_SCHEMES.iter().any(|s| starts(s))
        || KNOWN_PROXY_HOSTS.iter().any(|h| starts(h))
        || g::LABEL_FORM.may_start(&pair)
        || WRITTEN_FORMS.iter().any(|(dfa, _)| dfa.may_start(&pair))
}

/// The bytes after which an identifier does not start (it would continue a word or a
/// number): ASCII letters, digits and `.`. An identifier starts at a letter or digit after
/// any other byte.
static CONTINUES_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b as u8 == b'.';
        b += 1;
    }
    table
};

/// The bytes of a plain local name ([`Extract::plain_end`]): ASCII letters, digits, `-`
/// and `_`.
static PLAIN_LOCAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b as u8 == b'-' || b as u8 == b'_';
        b += 1;
    }
    table
};

/// What may start at a word: the kind of identifier, read by its own steps.
#[derive(Clone, Copy, Debug)]
enum Start {
    /// A DOI written bare (`bare_doi_form`), its local name's first byte `local` bytes in.
    Bare { local: usize },
    /// A handle under a prefix the caller named.
    Named,
    /// A label and the white space after it (`DOI: `, `hdl `, `doi:`), then a handle (for
    /// a DOI label, a DOI's prefix up to its '/', where it is).
    Label {
        len: usize,
        doi: bool,
        slash: Option<usize>,
    },
    /// A URI of `form` whose handle begins `prefix` bytes in (`hdl:`, `info:doi/`, …).
    Uri { form: Form, prefix: usize },
    /// An HTTP(S) URL of a resolver, or a known resolver's host without its scheme.
    Url { scheme: usize },
    /// A label (`len` bytes with its white space) before another written form.
    Relabelled { len: usize },
}

/// What a resolver's URL after a label read (`Extract::relabelled`): where it starts, what
/// it found, and where the last piece of a split DOI it joined starts.
#[derive(Clone, Debug)]
struct Relabelled<'a> {
    at: usize,
    read: Option<(Found<'a>, usize)>,
    last_piece: Option<usize>,
}

impl<'a> Extract<'a, '_> {
    /// The identifier that starts at `i`, if one does, in the token (the text since the
    /// last white space) that starts at `token`, and the length of its label (`DOI: `).
    fn candidate(&mut self, i: usize, token: usize) -> Option<(Found<'a>, usize)> {
        self.last_piece = None;
        // (Looked at in place: most starts have none, and what it holds is large to move.)
        if self.relabelled.as_ref().is_some_and(|r| r.at <= i) {
            if let Some(r) = self.relabelled.take() {
                if r.at == i {
                    self.last_piece = r.last_piece;
                    return r.read;
                }
            }
        }
        let r = &self.text.as_bytes()[i..];
        // Most words start nothing: their first two bytes tell, from a table.
        if r.len() >= 2 && !STARTS.get(r[0], r[1]) && self.options.prefixes.is_empty() {
            return None;
        }
        match self.start_at(i, true)? {
            // A local name that ends at its first byte (`10.1000/)`, `10.1000/"`) is empty:
            // nothing, without the scan (a DOI's prefix holds no bracket that a closing one
            // could be the partner of).
            Start::Bare { local } if ends_at_once(&r[local..]) => None,
            Start::Bare { local } => self.bare(i, Some(i + local), token),
            Start::Named => self.bare(i, None, token),
            Start::Label { len, doi, slash } => self.labelled(i, len, doi, slash),
            Start::Uri { form, prefix } => self.uri(i, form, prefix),
            Start::Url { scheme } => self.url(i, scheme),
            Start::Relabelled { len } => {
                let (inner, url) = match self.start_at(i + len, false)? {
                    Start::Label { len: l, doi, slash } => {
                        (self.labelled(i + len, l, doi, slash), false)
                    }
                    Start::Uri { form, prefix } => (self.uri(i + len, form, prefix), false),
                    Start::Url { scheme } => (self.url(i + len, scheme), true),
                    _ => return None,
                };
                let last_piece = self.last_piece;
                // Read whole, label and all, as cleaning reads it.
                let whole = inner
                    .as_ref()
                    .and_then(|(f, _)| self.read(i, &self.text[i..f.span().end]));
                // (Where the two do not read as one, a URL's own start gives what it read.)
                if whole.is_none() && url {
                    self.relabelled = Some(Relabelled {
                        at: i + len,
                        read: inner,
                        last_piece,
                    });
                }
                whole.map(|f| (f, len))
            }
        }
    }

    /// What starts at `i`, by its first bytes alone (a bounded look: prefixes, a host, a
    /// DOI's prefix of digits).
    fn start_at(&mut self, i: usize, outer: bool) -> Option<Start> {
        let rest = &self.text[i..];
        let r = rest.as_bytes();
        let starts = |p: &str| starts_with_ci(r, p.as_bytes());
        if r.len() < 2 || WRITTEN_STARTS.get(r[0], r[1]) {
            let label = g::LABEL_FORM
                .may_start(r)
                .then(|| label_prefix(r))
                .flatten();
            if let Some(p) = label {
                let len = with_space(rest, p);
                // A label before anything but an identifier's first character is not one.
                if !r.get(len).is_some_and(u8::is_ascii_alphanumeric) {
                    return None;
                }
                // A label before another written form (`doi:https://doi.org/…`, `DOI: hdl:…`)
                // is part of it.
                if outer
                    && r[len].is_ascii_alphabetic()
                    && matches!(
                        self.start_at(i + len, false),
                        Some(Start::Uri { .. } | Start::Url { .. } | Start::Label { .. })
                    )
                {
                    return Some(Start::Relabelled { len });
                }
                let doi = r[0].eq_ignore_ascii_case(&b'd');
                // After a DOI label, the start of a DOI's prefix (C3), or its pieces split by
                // white space; a shortDOI's '/'. (`doi.` before anything else is no label:
                // `doi.org/` is a resolver's host.)
                let mut slash = None;
                let start = if doi {
                    g::DOI_START_FORM.accepted_prefix(&r[len..]).map(|p| {
                        slash = (r[len + p - 1] == b'/').then_some(i + len + p - 1);
                    })
                } else {
                    Some(())
                };
                if start.is_some() || self.split_end(i + len, None).is_some() {
                    return Some(Start::Label { len, doi, slash });
                }
                if r[p - 1] != b'.' {
                    return None;
                }
            }
            if let Some(s) = URL_SCHEMES.iter().find(|s| starts(s)) {
                return Some(Start::Url { scheme: s.len() });
            }
            if KNOWN_PROXY_HOSTS
                .iter()
                .any(|h| starts(h) && r.get(h.len()) == Some(&b'/'))
            {
                return Some(Start::Url { scheme: 0 });
            }
            if let Some((dfa, form)) = WRITTEN_FORMS
                .iter()
                .find(|(dfa, _)| dfa.may_start(r) && dfa.accepted_prefix(r).is_some())
            {
                let prefix = dfa.accepted_prefix(r)?;
                let form = match form {
                    Form::HdlHost if self.options.resolution_form => Form::HdlResolution,
                    form => *form,
                };
                // A DOI URI holds a DOI (C3): `10` and `.` or its '/' first.
                if matches!(form, Form::InfoDoi | Form::UrnDoi)
                    && g::DOI_START_FORM.accepted_prefix(&r[prefix..]).is_none()
                {
                    return None;
                }
                return Some(Start::Uri { form, prefix });
            }
        }
        if self
            .options
            .prefixes
            .iter()
            .any(|p| r.len() > p.len() && r[..p.len()] == *p.as_bytes() && r[p.len()] == b'/')
        {
            return Some(Start::Named);
        }
        g::BARE_DOI_FORM
            .accepted_prefix(r)
            .map(|p| Start::Bare { local: p - 1 })
    }

    /// A bare DOI or a handle under a named prefix at `i`: what cleaning reads there is the
    /// text as a bare handle (it starts with a digit or letter, holds no white space and
    /// ends in no punctuation cleaning would take off), without the detour. In another
    /// site's URL it ends before the URL's query and fragment and a view's segment (C3).
    /// For a DOI, `doi_local` is where its local name begins: glued words are looked for
    /// from there on (its prefix, digits and dots, starts none).
    fn bare(
        &mut self,
        i: usize,
        doi_local: Option<usize>,
        token: usize,
    ) -> Option<(Found<'a>, usize)> {
        // Its scan is kept for the starts after it only in a URL, where the query ends it
        // short of where the scan ended; elsewhere it is taken whole or is punctuation
        // alone (its local name empty), which holds no other start.
        let in_url = self.in_url(token, i);
        if let Some((local, end)) = doi_local
            .filter(|_| !in_url)
            .and_then(|l| Some((l, self.plain_end(l)?)))
        {
            // (On short texts a debug build checks that the whole reading agrees.)
            #[cfg(debug_assertions)]
            if self.text.len() <= VERIFIED {
                let whole = self.clone().scanned(i, doi_local, in_url);
                debug_assert_eq!(whole.map(|(f, _)| f.span()), Some(i..end), "{}", self.text);
            }
            // A handle as it stands: `bare_doi_form`'s prefix (digits and dots) is a naming
            // authority, its '/' the one before `local`, and any local name is one (a debug
            // build asks the grammar).
            let text = &self.text[i..end];
            let h = HandleRef::__from_validated_parts(text, local - 1 - i);
            debug_assert_eq!(HandleRef::parse(text), Ok(h));
            self.work += text.len();
            let found = Found {
                start: i,
                text,
                form: Form::Handle,
                handle: ReadHandle::Slice(h),
            };
            return Some((found, 0));
        }
        self.scanned(i, doi_local, in_url)
    }

    /// [`bare`](Self::bare) read by the scan of its end.
    fn scanned(
        &mut self,
        i: usize,
        doi_local: Option<usize>,
        in_url: bool,
    ) -> Option<(Found<'a>, usize)> {
        let local = doi_local.unwrap_or(i);
        let (_, cut, _) = self
            .ends
            .query_kept(self.text, i, in_url, false, &mut self.work);
        let mut kept = self.kept(i, local, cut);
        if in_url {
            let q = self.query.at(
                &self.text.as_bytes()[..kept],
                i,
                |b| memchr::memchr2(b'?', b'#', b),
                &mut self.work,
            );
            kept = self.kept(i, local, kept.min(q));
            let text = &self.text[i..kept];
            self.work += text.len();
            let first = text.find('/').unwrap_or(text.len());
            if let Some(last) = text.rfind('/').filter(|&l| l > first) {
                if g::URL_VIEW_FORM.run(&text.as_bytes()[last..]).is_ok() {
                    kept = self.kept(i, local, i + last);
                }
            }
        }
        let text = &self.text[i..kept];
        let h = self.parse(i, kept)?;
        // Its local name is not empty (C3).
        if h.local_name().is_empty() {
            return None;
        }
        let found = Found {
            start: i,
            text,
            form: Form::Handle,
            handle: ReadHandle::Slice(h),
        };
        Some((found, 0))
    }

    /// Where a DOI whose local name starts at `local` ends, when that name is plain: letters,
    /// digits, `-` and `_`, ending in a letter or digit, up to where an identifier ends
    /// whatever came before (white space, a `"`, a tag, a closing bracket: none partners a
    /// bracket inside) or the text does. What the scan, the glued words and the sentence
    /// punctuation would give it (no byte of it ends, opens, glues or is taken off), without
    /// them: most DOIs in dense text are such.
    fn plain_end(&mut self, local: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let end = crate::dfa::skip(bytes, local, &PLAIN_LOCAL, 1);
        self.work += end - local;
        if end == local || !bytes[end - 1].is_ascii_alphanumeric() {
            return None;
        }
        (end == bytes.len() || ends_at_once(&bytes[end..])).then_some(end)
    }

    /// A label and the handle after it (`doi:10.1/x`, `DOI: 10.1/x`, `hdl: 20.1/x`).
    fn labelled(
        &mut self,
        i: usize,
        label: usize,
        doi: bool,
        slash: Option<usize>,
    ) -> Option<(Found<'a>, usize)> {
        let h = i + label;
        let (end, cut, _) = self
            .ends
            .query_kept(self.text, h, true, false, &mut self.work);
        // Split by white space, as text taken from a PDF splits DOIs (C3, `split_end`); where
        // the pieces joined are no identifier (a bracket with no partner cuts it before the
        // gap: `doi:10.1016/S0005-7967( 99`), the first piece is read as written.
        if let Some(raw_end) = self.split_end(h, Some(end)) {
            if let Some(found) = self.joined(i, h, raw_end) {
                return Some((found, label));
            }
        }
        let kept = self.kept(h, h, cut);
        // Its handle's '/' and a local name after it (the naming authority of a DOI is
        // digits, C3; of a handle, read up to its '/' alone).
        let slash = slash.unwrap_or_else(|| {
            self.slash.at(
                &self.text.as_bytes()[..kept],
                h,
                |b| memchr::memchr(b'/', b),
                &mut self.work,
            )
        });
        if slash + 1 >= kept {
            return None;
        }
        if !doi {
            self.parse(h, slash + 1)?;
        }
        let text = &self.text[i..kept];
        let form = if doi { Form::Doi } else { Form::Hdl };
        // A handle that starts with a digit is no other form, no label, no host and no
        // bracket, so cleaning reads it as a bare handle.
        if self.text.as_bytes()[h].is_ascii_digit() {
            // (A DOI label's naming authority that fails on its own bytes fails every later
            // one's that holds them: remembered. `doi:10.%2F%3Aurn:` repeated before a far
            // `./` read each start's up to there.)
            if doi && self.failed_from(Form::Doi, i, h, kept) {
                return None;
            }
            let Some(handle) = self.parse(h, kept) else {
                if doi {
                    let na = &self.text.as_bytes()[h..slash];
                    if let Err(Some((from, last))) =
                        naming_authority(na, Written::AsIs, &mut self.work)
                    {
                        self.remember(Form::Doi, h + from, h + last, false);
                    }
                }
                return None;
            };
            if !labels_a_doi(form, handle) {
                return None;
            }
            return Some((self.found(i, text, form, ReadHandle::Slice(handle)), label));
        }
        self.read(i, text).map(|f| (f, label))
    }

    /// A DOI split by white space from `h` to `raw_end` (after a label or a resolver's host:
    /// `split_end`), read as one: its pieces joined, then the ends C3 gives an identifier
    /// (brackets, sentence punctuation, a glued word) found in the joined text. The span,
    /// from `i`, ends where the last byte kept is written.
    fn joined(&mut self, i: usize, h: usize, raw_end: usize) -> Option<Found<'a>> {
        let raw = &self.text.as_bytes()[h..raw_end];
        self.work += 2 * raw.len();
        let joined = without_space(&self.text[h..raw_end]);
        let scan = Scan::from(&joined, 0, false, false, None, &mut self.work);
        let mut end = glued_at(&joined.as_bytes()[..scan.cut]).unwrap_or(scan.cut);
        while let Some(c) = sentence_end(&joined[..end]) {
            end -= c.len_utf8();
        }
        // Read as cleaning reads it: after a label, as it is; in a resolver's URL or a URI,
        // its handle percent-decoded (P2, U6), the prefixes P3 takes off taken off, and a
        // bracket opened before the DOI taken off the handle a URL holds (C2).
        let written = alloc::format!("{}{}", &self.text[i..h], &joined[..end]);
        let read = clean_as_written(&written, self.options).ok()?;
        let (handle, form) = (read.handle.into_handle(), read.form);
        if handle.local_name().is_empty() || !labels_a_doi(form, handle.as_handle_ref()) {
            return None;
        }
        // Where the joined text's last byte kept is written.
        let mut left = end;
        let mut kept = h;
        for (k, b) in raw.iter().enumerate() {
            if left == 0 {
                break;
            }
            if !crate::bytes::is_ascii_space(b) {
                left -= 1;
                kept = h + k + 1;
            }
        }
        let text = &self.text[i..kept];
        // The evidence that joined the pieces is what the found text itself gives (the
        // piece after a gap was looked at to the next white space, past where the text
        // found may end), as cleaning it will ask.
        if split_end(text, h - i, None, &mut 0, &mut None) != Some(text.len()) {
            return None;
        }
        let found = self.found(i, text, form, ReadHandle::Owned(handle));
        self.last_piece = raw[..kept - h]
            .iter()
            .rposition(crate::bytes::is_ascii_space)
            .map(|w| h + w + 1);
        Some(found)
    }

    /// A URI (`hdl:`, `hdl://`, `info:hdl/`, `info:doi/`, `urn:hdl:`, `urn:doi:`).
    fn uri(&mut self, i: usize, form: Form, prefix: usize) -> Option<(Found<'a>, usize)> {
        let bytes = self.text.as_bytes();
        let urn = matches!(form, Form::UrnHdl | Form::UrnDoi);
        // (A `urn:` form's handle is read as written, any other's decoded.)
        let ends = if urn {
            &mut self.ends
        } else {
            &mut self.decoded_ends
        };
        let (end, cut, _) = ends.query_kept(self.text, i, true, false, &mut self.work);
        // A DOI split by white space after an `hdl:` or `info:` URI's prefix, as after a
        // label (C3, `split_end`; cleaning's `URI_PREFIXES`; `hdl://` read as the resolution
        // form is another form). (Right after the prefix: a gap may come first only after a
        // host.)
        if URI_PREFIXES.iter().any(|&(_, f)| f == form)
            && !bytes
                .get(i + prefix)
                .is_some_and(crate::bytes::is_ascii_space)
        {
            if let Some(raw_end) = self.split_end(i + prefix, Some(end)) {
                if let Some(found) = self.joined(i, i + prefix, raw_end) {
                    return Some((found, 0));
                }
            }
        }
        let mut kept = self.kept(i, i + prefix, cut);
        if !urn {
            // A fragment holds no '#' (RFC 3986): a second one ends the URI.
            let first = self.hash.at(
                &bytes[..kept],
                i,
                |b| memchr::memchr(b'#', b),
                &mut self.work,
            );
            if first < kept {
                let second = self.second_hash.at(
                    &bytes[..kept],
                    first + 1,
                    |b| memchr::memchr(b'#', b),
                    &mut self.work,
                );
                if second < kept {
                    kept = self.kept(i, i + prefix, second);
                }
            }
        }
        // The handle's '/' (for `urn:` forms a ':' may be it), read up to there alone: a
        // naming authority no reading of the whole accepts fails here, at its own cost.
        let mut h = i + prefix;
        let mut sep = self.separator(&bytes[..kept], h, urn);
        if form == Form::HdlResolution && sep < kept {
            // (The server first: the handle begins after its '/'.)
            h = sep + 1;
            sep = self.slash.at(
                &bytes[..kept],
                h,
                |b| memchr::memchr(b'/', b),
                &mut self.work,
            );
        }
        // (A failure remembered holds from where this reading decodes: its handle. A server
        // is not decoded, and where one ends moves with the start: `hdl://=/d/hdl://%9d/2/d`
        // decodes `%9d` from the first start, not from the second.)
        if self.failed_from(form, i, h, kept) {
            return None;
        }
        if (sep, kept) == self.empty_local && h < sep && self.plain_hdl(form, h) {
            debug_assert!(
                self.text.len() > VERIFIED || self.reads(&self.text[i..kept]).is_none(),
                "{:?} reads, though an earlier one's local name was left empty",
                &self.text[i..kept]
            );
            return None;
        }
        let info = validator_is_info(form);
        let mut mark = kept;
        if !urn && !info {
            // An `hdl:` URI's handle holds its '/' raw (U11), before any query or fragment.
            mark = self.query.at(
                &bytes[..kept],
                i,
                |b| memchr::memchr2(b'?', b'#', b),
                &mut self.work,
            );
            if sep + 1 >= kept.min(mark) {
                return None;
            }
        }
        if urn && sep + 1 >= kept {
            return None;
        }
        // A handle that is itself a URL is not one found here (C2).
        if info && self.decoded_prefix(&g::OTHER_URL_FORM, h, kept).is_some() {
            return None;
        }
        // (An `info:` URI's '/' may be escaped: then there is nothing to read alone. Where
        // the '/' is far and the form's validator refuses a byte before it, the walk below
        // fails there, at its own cost: starts that share a distant '/',
        // `hdl:hdl:…hdl://`, each read only up to their own refused byte. The naming
        // authority's grammar walks beside it, and where it refuses a byte first, the part
        // alone fails there: `hdl:@:hdl:@:…/` under CORDRA, whose validator takes '@'.
        // Where neither refuses, what the part alone reads costs as much again.)
        // (An `info:` URI is decoded before its handle is read, U8; an `hdl:` URI's
        // handle holds its '/' as written, U11.)
        let written = match form {
            _ if urn => Written::AsIs,
            _ if info => Written::Decoded,
            _ => Written::Escaped,
        };
        let na = (sep < kept).then_some((h, written));
        let refused = sep.min(kept) - i > NEAR
            && validator(form, self.options)
                .is_some_and(|dfa| self.refuses_up_to(dfa, i, sep.min(kept - 1), na));
        // (An `hdl:` URI's naming authority starts after a ':', so that every start inside
        // it reads its escapes as the first did: what fails it on its own bytes is
        // remembered.)
        let memo = (form == Form::Hdl).then_some(form);
        if sep < kept && !refused && self.fails_alone(i, sep, na, kept, memo) {
            return None;
        }
        // (An `hdl:` URI's query or fragment is no part of its handle: read up to its mark
        // alone, the handle may be none a found identifier holds, as for a resolver's URL;
        // looked at before the validator walks the query. `%20?hdl://10.1000/` repeated
        // walked and cleaned the rest of the text, which each query held, from every start:
        // the space decoded is taken off the local name, which is left empty.)
        // (`mark` is `kept` for the other URIs.)
        if self.holds_none_up_to(i, mark, kept) {
            return None;
        }
        // The form's validator walks the text, and its handle is percent-decoded (not the
        // query and fragment: an `info:` URI's `?` is the identifier's, U7, U8), in one
        // pass that stops at the first byte either refuses.
        if let Some(dfa) = validator(form, self.options) {
            let end = if info {
                self.hash.at(
                    &bytes[..kept],
                    i,
                    |b| memchr::memchr(b'#', b),
                    &mut self.work,
                )
            } else {
                self.query.at(
                    &bytes[..kept],
                    i,
                    |b| memchr::memchr2(b'?', b'#', b),
                    &mut self.work,
                )
            };
            let start = usize::from(dfa.start);
            // (An `hdl:` URI's validator reads the handle's first '/' into one state, whatever
            // came before it: `reads_a_first_slash_into_one_state`. What it refuses after
            // that '/', it refuses from every start that shares it.)
            let shared =
                (form == Form::Hdl && sep < kept && !bytes[i..h].contains(&b'/')).then_some(sep);
            let dfa = Some((dfa, start));
            if !self.walk(form, dfa, i, kept, (h, end.min(kept)), shared) {
                return None;
            }
        }
        // An `hdl:` URI whose local name is a few bytes cleaning takes off its end (white
        // space, sentence punctuation, closing brackets; decoded), which it leaves empty:
        // so it leaves every later one's whose handle ends there after the same '/' (the
        // same bytes, with no more partners before them), where both are read as they
        // are, their naming authorities starting with no other form (`plain`).
        // Remembered for that end: under CORDRA, whose validator takes those bytes,
        // `29urn:hdl:` repeated before a far `hdl.handle.net/%20` read each start to there.
        if sep < kept && taken_off_whole(&bytes[sep + 1..kept]) && self.plain_hdl(form, h) {
            self.work += kept - i;
            let text = &self.text[i..kept];
            let empty = clean_as_written(text, self.options)
                .is_ok_and(|read| read.handle.as_handle_ref().local_name().is_empty());
            if empty {
                self.empty_local = (sep, kept);
                return None;
            }
        }
        self.read(i, &self.text[i..kept]).map(|f| (f, 0))
    }

    /// A resolver's URL, with or without its scheme. Each step of `forms/proxy.rs` that may
    /// refuse it is taken first on the least text that tells (the host, the path's first
    /// segment and prefix, the first bad escape, the validator's walk up to where it
    /// refuses), so that the whole is read only to be taken.
    fn url(&mut self, i: usize, scheme: usize) -> Option<(Found<'a>, usize)> {
        let bytes = self.text.as_bytes();
        let o = self.options;
        // Its host: a known resolver's or a base the caller named (or any, for repository
        // pages).
        let ends_host =
            |b: &u8| matches!(b, b'/' | b'?' | b'#' | b'\\') || crate::bytes::is_ascii_space(b);
        let at = i + scheme;
        // (A known resolver's host, with what follows it ending a host, is one: the
        // common case looks no further.)
        let known_end = KNOWN_PROXY_HOSTS
            .iter()
            .find(|h| {
                starts_with_ci(&bytes[at..], h.as_bytes())
                    && bytes.get(at + h.len()).map_or(true, ends_host)
            })
            .map(|h| at + h.len());
        let host_end = known_end.unwrap_or_else(|| {
            at + bytes[at..]
                .iter()
                .position(ends_host)
                .unwrap_or(bytes.len() - at)
        });
        let host = &self.text[at..host_end];
        self.work += host.len();
        // (With a scheme, a known host's default port is the host: `https://doi.org:443/`.)
        let https = scheme > 0 && is_https(&bytes[i..]);
        let known = known_end.is_some() || (scheme > 0 && is_known_host(host, https));
        let base = o.bases.iter().find(|b| match scheme {
            0 => host.eq_ignore_ascii_case(b.host()),
            _ => b.names_host(host, https),
        });
        if !(known || base.is_some() || (o.repository_urls && scheme > 0))
            || bytes.get(host_end) != Some(&b'/')
        {
            return None;
        }
        // (A start inside resolvers' URLs pasted one before another whose innermost holds
        // no handle: it reaches the same innermost.)
        if i < self.failed_chain {
            return None;
        }
        let (end, cut, unkept) =
            self.decoded_ends
                .query_kept(self.text, i, true, true, &mut self.work);
        // A DOI in a resolver's URL split by white space, as text taken from a PDF splits
        // them (C3, `split_end`; after the host too: `dx.doi.org/ 10.1061/…`), after the
        // prefix cleaning reads (`resolver_prefix`: a known resolver's host, with its
        // default port or none, or a base the caller named, its segment and all).
        // (A known host no base names ends where that prefix does, its port and all.)
        let split_from = if o.cordra {
            None
        } else if known && base.is_none() {
            Some(host_end + 1)
        } else {
            resolver_prefix(&self.text[i..], o).map(|p| i + p)
        };
        if let Some(from) = split_from {
            // (Where the pieces joined are no identifier, the first piece is read as written,
            // as after a label: `https://doi.org/10.1000/x: ab]2`.)
            if let Some(found) = self
                .split_end(from, Some(end))
                .and_then(|raw_end| self.joined(i, from, raw_end))
            {
                return Some((found, 0));
            }
            // A bracket with no partner right after the host (`doi.org/(10.1093/ molbev
            // /msu300`) cuts the URL there (C3); the DOI split after it is joined on the
            // host's evidence all the same where cleaning joins it in the handle the URL
            // holds (C2: not a naming authority with white space, nor a handle decoded), and
            // found with the URL that gives that evidence.
            let opener = self.text[cut..]
                .chars()
                .next()
                .filter(|&c| bracket(c).is_some_and(|(_, opens)| opens));
            if let Some(opener) = opener.filter(|_| cut == from) {
                let after = cut + opener.len_utf8();
                // (Its first piece ends at the next white space, as remembered while the
                // starts move forward: `[10.1000/%>https://doi.org/` repeated read the rest
                // of the text from each start.)
                let first_end = self.space.at(
                    bytes,
                    after,
                    |b| b.iter().position(crate::bytes::is_ascii_space),
                    &mut self.work,
                );
                if let Some(raw_end) = self.split_end(after, Some(first_end)) {
                    return self
                        .joined(i, after, raw_end)
                        .filter(|f| {
                            self.reads(f.text()).is_some_and(|(_, h)| {
                                h.as_handle_ref().as_str() == f.handle().as_str()
                            })
                        })
                        .map(|f| (f, 0));
                }
            }
        }
        let kept = self.kept(i, host_end, cut);
        let path = host_end + 1;
        // Where the handle begins (`forms/proxy.rs`): after a named base and its segment,
        // or a known resolver's host, then `api/handles/` (P5); or, where neither is, after
        // a repository page's `/handle/`.
        let based = base.and_then(|b| match b.fixed_segment() {
            None => Some(path),
            Some(seg) => {
                let after = path + seg.len();
                (bytes.get(path..after) == Some(seg.as_bytes())
                    && matches!(bytes.get(after), None | Some(b'/' | b'?' | b'#')))
                .then_some(after + 1)
            }
        });
        let resolver = based.or(known.then_some(path));
        // (A repository page's failures are its own: it reads only what follows its
        // `/handle/`, looked at below.)
        if host_end >= kept || (resolver.is_some() && self.failed_before(Form::Proxy, i, kept)) {
            return None;
        }
        // A resolver's URL pasted before another's (`https://doi.org/https://doi.org/…`):
        // the innermost holds the handle, and what it reads is what the whole reads (C2).
        // (Every resolver's URL starts with a letter; a handle seldom does.)
        // (Where the handle begins: after a named base's segment, `…/123/https://…`.)
        let chain = bytes
            .get(resolver.unwrap_or(path))
            .is_some_and(u8::is_ascii_alphabetic);
        if let Some(first) = chain
            .then(|| resolver_prefix(&self.text[i..kept], o))
            .flatten()
        {
            let mut inner = i;
            let mut p = first;
            while let Some(next) = resolver_prefix(&self.text[inner + p..kept], o) {
                self.work += p;
                inner += p;
                p = next;
            }
            if inner > i {
                let scheme = URL_SCHEMES
                    .iter()
                    .find(|s| {
                        bytes.len() >= inner + s.len()
                            && bytes[inner..inner + s.len()].eq_ignore_ascii_case(s.as_bytes())
                    })
                    .map_or(0, |s| s.len());
                return match self.url(inner, scheme) {
                    Some((f, _)) => self.read(i, &self.text[i..f.span().end]).map(|f| (f, 0)),
                    None => {
                        self.failed_chain = inner;
                        None
                    }
                };
            }
        }
        // The plain case: a known resolver's URL whose path needs no decoding, its path a
        // bare handle that starts with a digit.
        if known && base.is_none() && !o.cordra && path < kept && bytes[path].is_ascii_digit() {
            let unkept = unkept.unwrap_or_else(|| {
                self.unkept.at(
                    &bytes[..kept],
                    i,
                    |b| Some(crate::dfa::skip(b, 0, &BYTE_CLASSES, u64::from(KEPT))),
                    &mut self.work,
                )
            });
            if unkept >= kept {
                let h = self.parse(path, kept)?;
                if h.local_name().is_empty() {
                    return None;
                }
                let text = &self.text[i..kept];
                return Some((self.found(i, text, Form::Proxy, ReadHandle::Slice(h)), 0));
            }
        }
        let mut h = match resolver {
            Some(mut h) => {
                if bytes.get(h..h + 12) == Some(b"api/handles/".as_slice()) {
                    if o.cordra {
                        return None;
                    }
                    h += 12;
                }
                h
            }
            None if o.repository_urls && scheme > 0 => {
                let page = self.repository.at(
                    &bytes[..kept],
                    host_end,
                    |b| memchr::memmem::find(b, b"/handle/"),
                    &mut self.work,
                );
                let h = page + "/handle/".len();
                if page >= kept || self.failed_from(Form::Repository, i, h, kept) {
                    return None;
                }
                h
            }
            None => return None,
        };
        let query = self.query.at(
            &bytes[..kept],
            host_end,
            |b| memchr::memchr2(b'?', b'#', b),
            &mut self.work,
        );
        let path_end = query.min(kept);
        h = h.min(path_end);
        // What is decoded, and must be UTF-8 decoded (P3): a resolver's whole path, a
        // repository page's after its `/handle/` alone. A failure is remembered for the
        // readings of the same kind only: a page does not read what comes before its
        // `/handle/`, where a resolver's URL around it may have failed.
        let (memo, decoded) = match resolver {
            Some(_) => (Form::Proxy, host_end),
            None => (Form::Repository, h),
        };
        // The prefix P3 takes off a decoded path (`hdl:`, `doi:`, `urn:hdl:` …), and a handle
        // that is itself a URL, not one found here (C2: a resolver's would have been read as
        // the innermost above).
        let mut urn = false;
        if let Some((p, u)) = PATH_PREFIXES
            .iter()
            .find_map(|(dfa, u)| self.decoded_prefix(dfa, h, path_end).map(|p| (p, *u)))
        {
            (h, urn) = (p, u);
        }
        if self
            .decoded_prefix(&g::OTHER_URL_FORM, h, path_end)
            .is_some()
        {
            return None;
        }
        // Up to the handle's first '/' (a `urn:` form's ':' may be it, P3) alone: a naming
        // authority no reading of the whole accepts fails at its own cost.
        let sep = self.separator(&bytes[..kept], h, urn);
        if sep >= path_end {
            // None as written: the handle's is escaped, or there is no handle. With no '/'
            // or ':' in it, no other identifier starts inside: the path up to its query,
            // read alone, says.
            let part = &bytes[h..path_end];
            self.work += part.len();
            let escaped = memchr::memmem::find(part, b"%2F").is_some()
                || memchr::memmem::find(part, b"%2f").is_some()
                || (urn
                    && (memchr::memmem::find(part, b"%3A").is_some()
                        || memchr::memmem::find(part, b"%3a").is_some()));
            if !escaped {
                return None;
            }
            self.work += path_end - i;
            let read = read_written(&self.text[i..path_end], o);
            if read.is_err() || read.is_ok_and(|(h, _)| h.as_handle_ref().local_name().is_empty()) {
                return None;
            }
        } else if sep + 1 >= path_end || {
            // (A `urn:` form's handle is read from the decoded path: a ':' decoded there may
            // be its '/', P3.)
            let written = if urn {
                Written::DecodedUrn
            } else {
                Written::Decoded
            };
            self.fails_alone(i, sep, Some((h, written)), kept, None)
        } {
            // (Nothing after the '/': its local name would be empty.)
            return None;
        }
        // Its path, percent-decoded, is UTF-8 (P3); under the CORDRA profile its validator
        // walks it too (from where the URL starts: a host without its scheme reads as with
        // `https://`; `http_url` refuses nothing after a host): one pass, up to the first
        // byte either refuses.
        let dfa = if o.cordra {
            let dfa = &g::CORDRA_HTTP;
            let start = match scheme {
                0 => dfa.walk_from(usize::from(dfa.start), b"https://").ok()?,
                _ => usize::from(dfa.start),
            };
            Some((dfa, start))
        } else {
            None
        };
        // (A query or fragment past its mark: the handle, read up to the mark alone, may be
        // none a found identifier holds; looked at before the CORDRA validator walks the
        // query.)
        if self.holds_none_up_to(i, path_end, kept) {
            return None;
        }
        if !self.walk(memo, dfa, i, kept, (decoded, path_end), None) {
            return None;
        }
        self.read(i, &self.text[i..kept]).map(|f| (f, 0))
    }

    /// Whether a reading of `form` is an `hdl:` URI whose naming authority, from `h`,
    /// starts with a digit or ':', which starts no other form (no base is named whose host
    /// might): read as it is (`empty_local`).
    fn plain_hdl(&self, form: Form, h: usize) -> bool {
        form == Form::Hdl
            && self.options.bases.is_empty()
            && self
                .text
                .as_bytes()
                .get(h)
                .is_some_and(|&b| b.is_ascii_digit() || b == b':')
    }

    /// Whether the resolver's URL (or `hdl:` URI) that starts at `i` (and runs to `kept`),
    /// read up to the `?` or `#` at `mark` that ends its path, holds a handle that no
    /// identifier found is (its local name empty, or itself a URL): the query and fragment
    /// after that mark are no part of the handle (P3, U7), and the text up to it starts as
    /// the whole does and ends in no punctuation cleaning takes off, so the whole, where
    /// cleaning reads it, holds that handle too. Each start of a text of such URLs one
    /// after another reads its own path, not the rest of the text its query holds
    /// (`https://doi.org/10.1000/%3A?` repeated: cleaning takes the ':' off the handle).
    /// `false`, nothing read, where nothing follows the mark, and for a part longer than
    /// `NEAR` after the first start whose part ends at that mark: a later one lies inside
    /// the part read, and reading it again from each would cost the square of the text
    /// (`doi.org/&` repeated before one `?` under CORDRA); the walk, whose failures are
    /// remembered, reads such a start.
    fn holds_none_up_to(&mut self, i: usize, mark: usize, kept: usize) -> bool {
        if mark + 1 >= kept || (mark - i > NEAR && mark == self.none_mark) {
            return false;
        }
        self.none_mark = mark;
        let part = &self.text[i..=mark];
        self.work += part.len();
        let none = clean_as_written(part, self.options).is_ok_and(|read| {
            let h = read.handle.as_handle_ref();
            h.local_name().is_empty() || is_url(h.as_str())
        });
        debug_assert!(
            !none || self.text.len() > VERIFIED || self.reads(&self.text[i..kept]).is_none(),
            "{:?} reads, though {part:?} holds no handle found",
            &self.text[i..kept]
        );
        none
    }

    /// Where the prefix that the form rule `dfa` recognises ends, if the percent-decoded
    /// text from `h` (up to `end`) starts with one (walked by the rule's tables).
    fn decoded_prefix(&mut self, dfa: &Dfa, h: usize, end: usize) -> Option<usize> {
        let bytes = &self.text.as_bytes()[..end];
        let (mut state, mut i) = (usize::from(dfa.start), h);
        while i < end {
            let (byte, next) = decoded_byte(bytes, i);
            self.work += next - i;
            state = dfa.step(state, byte);
            if state == 0 {
                return None;
            }
            if dfa.accepting[state] {
                return Some(next);
            }
            i = next;
        }
        None
    }

    /// Where the identifier that starts at `i` (its handle at `from`) and ends at `end` is
    /// kept to: before a glued word, without the sentence punctuation after it (C3).
    #[inline]
    fn kept(&mut self, i: usize, from: usize, end: usize) -> usize {
        // A word a PDF's text glued to it ends it before that word (looked for from where
        // its handle begins: a resolver's host holds `.doi`).
        let end = glued_at(&self.text.as_bytes()[from.min(end)..end]).map_or(end, |g| from + g);
        // Most identifiers end in a letter or digit.
        if self.text.as_bytes()[i..end]
            .last()
            .map_or(true, u8::is_ascii_alphanumeric)
        {
            return end;
        }
        // Starts that share an end share what is taken off it.
        let (last_end, last_from, last_kept) = self.last_kept;
        if last_end == end && last_from <= i {
            return last_kept.max(i);
        }
        let mut kept = end;
        while let Some(c) = sentence_end(&self.text[i..kept]) {
            kept -= c.len_utf8();
        }
        self.work += end - kept;
        self.last_kept = (end, i, kept);
        kept
    }

    /// Whether `://` is in the token before `i`: a bare DOI there is in another site's URL.
    fn in_url(&mut self, token: usize, i: usize) -> bool {
        let (searched, mut last) = self.scheme_sep;
        // Only the token matters, and each byte is looked at once: from where the last
        // look ended (two bytes back, for a `://` that straddles it) or the token's start.
        let from = searched.saturating_sub(2).max(token);
        if from < i {
            let bytes = &self.text.as_bytes()[..i];
            // (Most are a few bytes, where memchr's setup costs more than a look at each.)
            let mut scheme = |colon: usize| {
                if bytes.get(from + colon + 1..from + colon + 3) == Some(b"//".as_slice()) {
                    last = Some(from + colon);
                }
            };
            if i - from < 32 {
                let mut x = 0;
                while let Some(k) = bytes[from + x..].iter().position(|&b| b == b':') {
                    scheme(x + k);
                    x += k + 1;
                }
            } else {
                memchr::memchr_iter(b':', &bytes[from..]).for_each(scheme);
            }
            self.work += i - from;
        }
        self.scheme_sep = (i.max(searched), last);
        last.is_some_and(|s| s >= token && s + 3 <= i)
    }

    /// Whether a reading of `form` that failed earlier holds for the start `i`, whose
    /// identifier would run to `kept`: it starts before the failed bytes and reads them all.
    fn failed_before(&self, form: Form, i: usize, kept: usize) -> bool {
        self.failed_from(form, i, i, kept)
    }

    /// [`failed_before`](Self::failed_before) for a reading that starts at `i` and reads
    /// what it checks from `from` on (a repository page, its handle after `/handle/`).
    /// (No lower bound is asked: a form's starts are read in order, so that every start
    /// asked comes after the one whose reading left the memo, and what a memo says holds
    /// for each of those before its bytes; one left after a shared '/' was left by a start
    /// with no '/' between it and that one, nor has any start after it.)
    fn failed_from(&self, form: Form, i: usize, from: usize, kept: usize) -> bool {
        let failed = self.fails[form.index()].is_some_and(|f| {
            from < f.from
                && if f.exact {
                    kept == f.last + 1
                } else {
                    f.last < kept
                }
        });
        // What the shortcut passes over, read in full, fails too.
        debug_assert!(
            !failed || self.text.len() > VERIFIED || self.reads(&self.text[i..kept]).is_none(),
            "{form:?} at {i}: {:?} reads, though an earlier failure said it would not",
            &self.text[i..kept]
        );
        failed
    }

    /// Whether the identifier that starts at `i` (and runs to `kept`) fails when read up
    /// to its handle's first '/' (at `sep`) alone: a failure inside that part is a failure
    /// of the whole. With `na`, where the handle's naming authority starts (and how its
    /// form writes it), that naming authority is checked as cleaning checks it (a handle's, H1–H3, with
    /// no white space, C2): where a profile wants more than one segment after it (CORDRA),
    /// reading up to the '/' alone says nothing. With `memo`, a naming authority that fails
    /// on its own bytes fails every later start of that form whose naming authority holds
    /// them (`naming_authority`), and that is remembered.
    fn fails_alone(
        &mut self,
        i: usize,
        sep: usize,
        na: Option<(usize, Written)>,
        kept: usize,
        memo: Option<Form>,
    ) -> bool {
        // The naming authority first: where starts share a distant '/' (`hdl:hdl:…hdl://`),
        // each is refused within its own few bytes, and reads no further.
        let text = self.text;
        let fails = na.is_some_and(|(na, written)| {
            match naming_authority(&text.as_bytes()[na..sep], written, &mut self.work) {
                Ok(()) => false,
                Err(window) => {
                    if let (Some((from, last)), Some(form)) = (window, memo) {
                        self.remember(form, na + from, na + last, false);
                    }
                    true
                }
            }
        }) || {
            self.work += sep + 1 - i;
            // (Read as written, not cleaned: cleaning would take a `urn:` form's last ':'
            // off.)
            read_written(&self.text[i..=sep], self.options).is_err_and(|e| e.index() <= sep - i)
        };
        debug_assert!(
            !fails || self.text.len() > VERIFIED || self.reads(&self.text[i..kept]).is_none(),
            "{:?} reads, though {:?} alone does not",
            &self.text[i..kept],
            &self.text[i..=sep]
        );
        fails
    }

    /// Where a DOI split by white space from `at` ends (cleaning's `split_end`), what it
    /// reads counted.
    fn split_end(&mut self, at: usize, first_end: Option<usize>) -> Option<usize> {
        split_end(
            self.text,
            at,
            first_end,
            &mut self.work,
            &mut self.next_piece,
        )
    }

    /// Whether the validator `dfa`, walking from `i` as [`Self::walk`] does, refuses a byte
    /// up to `last`, the handle's first '/', before the grammar of a naming authority (from
    /// where `na` says, written as it says, as [`naming_authority`] reads it) refuses one; the
    /// bytes read are counted.
    fn refuses_up_to(
        &mut self,
        dfa: &Dfa,
        i: usize,
        last: usize,
        na: Option<(usize, Written)>,
    ) -> bool {
        let bytes = &self.text.as_bytes()[..=last];
        let mut state = usize::from(dfa.start);
        // The naming authority's next byte to read (none once a decoded '/' ends it), and
        // its grammar's state.
        let (mut next, written) = na.map_or((usize::MAX, Written::AsIs), |(h, w)| (h, w));
        let mut na_state = usize::from(g::HANDLE.start);
        for (p, &b) in bytes.iter().enumerate().skip(i) {
            state = iri_step(dfa, state, b);
            if state == 0 {
                self.work += p + 1 - i;
                return true;
            }
            if p == next && p < last {
                // (Its bytes end before the '/': an escape is decoded only before it.)
                let (byte, after) = if written == Written::AsIs {
                    (b, p + 1)
                } else {
                    decoded_byte(&bytes[..last], p)
                };
                if written.ends(byte) {
                    // An `hdl:` URI's naming authority that holds an escaped '/' (U11) fails
                    // alone at its own cost (`fails_alone`): the validator walks no further
                    // (`hdl:hdl:%2F` repeated to a '/' under CORDRA walked each start to
                    // that '/').
                    if written == Written::Escaped {
                        self.work += after - i;
                        return false;
                    }
                    next = usize::MAX;
                    continue;
                }
                na_state = g::HANDLE.step(na_state, byte);
                // (A byte no naming authority holds, white space, C2, an escaped '.' of an
                // `hdl:` URI's, U11, or one no UTF-8 holds, fails it alone too:
                // `hdl:%20urn:hdl:`, `%2E,hdl:hdl:`, `hdl:%FF` repeated to a '/' under
                // CORDRA walked each start there.)
                if na_state == 0
                    || (after - p == 3 && escape_fails_every_naming_authority(byte, written))
                {
                    self.work += p + 1 - i;
                    return false;
                }
                next = after;
            }
        }
        self.work += last + 1 - i;
        false
    }

    /// Remembers that a reading of `form` refused the byte at `at`, if the bytes up to it
    /// are refused from every state of its validator `dfa`, or are after `shared`, a '/'
    /// the validator reads into one state whatever came before it: every start before
    /// that '/' and after the one before it reaches the same refusal.
    fn remember_failure(&mut self, form: Form, dfa: &Dfa, at: usize, shared: Option<usize>) {
        let bytes = self.text.as_bytes();
        // A window of up to three bytes (an escape's `%` and two digits).
        let window = (at.saturating_sub(2)..=at)
            .rev()
            .find(|&from| refused_from_everywhere(dfa, &bytes[from..=at]));
        let after = shared.filter(|&s| s < at).map(|s| s + 1);
        // (The one that holds for more starts.)
        if let Some(from) = window.max(after) {
            self.remember(form, from, at, false);
        }
    }

    /// Remembers that a reading of `form` failed on `from..=last` (with `exact`, on those
    /// bytes at its end), whatever it read before them.
    fn remember(&mut self, form: Form, from: usize, last: usize, exact: bool) {
        // (A sentence's last character may be taken off: a window ending in one is not.)
        let mut char_start = last;
        while !self.text.is_char_boundary(char_start) {
            char_start -= 1;
        }
        if self.text[char_start..].starts_with(['.', ',', ';', ':', '\'', '\u{2026}']) {
            return;
        }
        let slot = &mut self.fails[form.index()];
        if slot.map_or(true, |f| f.last <= last) {
            *slot = Some(Failure { from, last, exact });
        }
    }

    /// One pass over `text[i..kept]`: a validator's walk (from the given state; it must
    /// end in an accepting one), and the percent-decoding of `decode` (a range of it),
    /// whose bytes must be UTF-8. Whether both hold; where one fails on bytes every reading
    /// of `form` that holds them fails on, that is remembered. (The text itself is UTF-8:
    /// only an escape can start a bad sequence. A '%' that starts no escape is itself, P3;
    /// where escapes must be whole, the validator says.)
    fn walk(
        &mut self,
        form: Form,
        dfa: Option<(&Dfa, usize)>,
        i: usize,
        kept: usize,
        decode: (usize, usize),
        shared: Option<usize>,
    ) -> bool {
        let bytes = &self.text.as_bytes()[..kept];
        let (from, to) = decode;
        let mut state = dfa.map_or(0, |(_, s)| s);
        // The next byte to decode, the sequence being read (its first byte's place, its
        // bytes, how many are due).
        let mut unit = from;
        let (mut lead, mut seq, mut n, mut due) = (from, [0_u8; 4], 0, 0);
        let mut p = i;
        // (Without a validator, nothing to read before the first escape.)
        if dfa.is_none() {
            p = memchr::memchr(b'%', &bytes[from..to]).map_or(to, |e| from + e);
            unit = p;
        }
        let end = if dfa.is_some() { kept } else { to };
        while p < end {
            // A sequence the query cuts: every reading of that path fails, whatever the
            // validator makes of the query (`hdl:29/doi%C3?` repeated read each start's
            // query, the rest of the text, to the end).
            if p == to && due > 0 {
                break;
            }
            if let Some((dfa, _)) = dfa {
                state = iri_step(dfa, state, bytes[p]);
                if state == 0 {
                    self.work += p + 1 - i;
                    self.remember_failure(form, dfa, p, shared);
                    return false;
                }
            }
            if p == unit && p < to {
                let (byte, next) = decoded_byte(bytes, p);
                unit = next;
                let bad = if due == 0 {
                    lead = p;
                    seq[0] = byte;
                    n = 1;
                    match byte {
                        0..=0x7F => None,
                        0xC2..=0xDF => {
                            due = 1;
                            None
                        }
                        0xE0..=0xEF => {
                            due = 2;
                            None
                        }
                        0xF0..=0xF4 => {
                            due = 3;
                            None
                        }
                        _ => Some(next - 1),
                    }
                } else {
                    seq[n] = byte;
                    n += 1;
                    due -= 1;
                    let wrong = if due == 0 {
                        core::str::from_utf8(&seq[..n]).is_err()
                    } else {
                        !(0x80..=0xBF).contains(&byte)
                    };
                    wrong.then_some(next - 1)
                };
                if let Some(bad) = bad {
                    self.work += next - i;
                    self.remember(form, lead, bad, false);
                    return false;
                }
            }
            p += 1;
        }
        self.work += p - i;
        // A sequence the end cuts: a reading that ends there too fails (a longer one may
        // complete it); if the query cuts it, every reading of that path does.
        if due > 0 {
            self.remember(form, lead, to - 1, to == kept);
            return false;
        }
        // A walk that stops short of accepting: so does every reading that ends there on
        // bytes that leave each state of the validator short of it.
        if let Some((dfa, _)) = dfa.filter(|(dfa, _)| !dfa.accepting[state]) {
            if let Some(from) = (kept.saturating_sub(3).max(i)..kept)
                .rev()
                .find(|&from| short_from_everywhere(dfa, &bytes[from..kept]))
            {
                self.remember(form, from, kept - 1, true);
            }
            return false;
        }
        true
    }

    /// `text[from..to]` as a bare handle (the handle grammar's walk stops where it refuses).
    fn parse(&mut self, from: usize, to: usize) -> Option<HandleRef<'a>> {
        let parsed = HandleRef::parse(&self.text[from..to]);
        self.work += parsed
            .as_ref()
            .map_or_else(|e| e.index() + 1, |_| to - from);
        parsed.ok()
    }

    /// What cleaning reads in `text` (from `i`), as written (with its case: no canonical
    /// form is made), if it is one identifier that needed nothing but a label taken off.
    fn read(&mut self, i: usize, text: &'a str) -> Option<Found<'a>> {
        self.work += text.len();
        let (form, handle) = self.reads(text)?;
        Some(self.found(i, text, form, handle))
    }

    /// What [`read`](Self::read) finds in `text`.
    fn reads(&self, text: &'a str) -> Option<(Form, ReadHandle<'a>)> {
        let read = clean_as_written(text, self.options).ok()?;
        if read.fixes.iter().any(|f| {
            // (White space cleaning takes off can only be after a label: the span starts
            // at a letter or digit and ends before white space. What is taken off the
            // handle a form holds is inside the identifier: C2.)
            matches!(
                f.code(),
                FixCode::WrappingPair | FixCode::LeadingPunctuation | FixCode::TrailingPunctuation
            ) && !f.held()
        }) {
            return None;
        }
        let h = read.handle.as_handle_ref();
        if !labels_a_doi(read.form, h) || h.local_name().is_empty() || is_url(h.as_str()) {
            return None;
        }
        Some((read.form, read.handle))
    }

    fn found(&self, i: usize, text: &'a str, form: Form, handle: ReadHandle<'a>) -> Found<'a> {
        Found {
            start: i,
            text,
            form,
            handle,
        }
    }
}

/// The byte at `i` percent-decoded (an escape, or the byte itself: a '%' that starts no
/// escape is itself, P3), and where the next begins.
fn decoded_byte(bytes: &[u8], i: usize) -> (u8, usize) {
    match bytes.get(i..i + 3) {
        Some(&[b'%', hi, lo]) if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit() => {
            (hex(hi) << 4 | hex(lo), i + 3)
        }
        _ => (bytes[i], i + 1),
    }
}

/// Whether `raw` (written as `written` says) is a handle's naming authority as
/// cleaning reads one: UTF-8, the handle grammar's (H2, H3), with no white space (C2). A
/// '/' it decodes to ends it, as it does where a form decodes before the handle is read
/// (`info:`, U8; a resolver's path, P3): what follows is the local name's; so does a ':'
/// it decodes to in a `urn:` form's handle in a resolver's path, whose first ':' P3 makes
/// its '/' once the path is decoded; in an `hdl:` URI, it fails it (U11). The grammar's
/// validator walks the bytes as they are decoded, so a naming authority it refuses is read
/// no further than where it refuses it; `work` counts the bytes read.
///
/// Where it fails on bytes that fail every naming authority that holds them (and ends
/// where it does), whatever comes before them, the error is those bytes' place in `raw`,
/// `(from, last)`: a byte none holds (`@`, H2, or ASCII white space, C2, as written or
/// escaped; an `hdl:` URI's escaped '/' or '.', U11; an escaped byte no UTF-8 holds), a
/// `.` it ends with (before the '/' at `last`: an empty segment, H3), or the last sequence
/// that is no UTF-8, up to its end.
#[inline(always)]
fn naming_authority(
    raw: &[u8],
    written: Written,
    work: &mut usize,
) -> Result<(), Option<(usize, usize)>> {
    let decode = written != Written::AsIs;
    // (Room for most naming authorities at once; one far longer grows as it is read.)
    let mut decoded = Vec::with_capacity(raw.len().min(NEAR) + 1);
    let mut state = usize::from(g::HANDLE.start);
    let (mut i, mut last) = (0, 0);
    while i < raw.len() {
        let (byte, next) = if decode {
            decoded_byte(raw, i)
        } else {
            (raw[i], i + 1)
        };
        if written.ends(byte) {
            // (An `hdl:` URI's escaped '/' fails it, wherever its naming authority starts
            // before it.)
            if written == Written::Escaped {
                *work += next;
                return Err(Some((i, next - 1)));
            }
            break;
        }
        // A byte no naming authority holds, whatever comes before it (as written, white
        // space ends the identifier before it).
        if next - i == 3 && escape_fails_every_naming_authority(byte, written) {
            *work += next;
            return Err(Some((i, next - 1)));
        }
        state = g::HANDLE.step(state, byte);
        if state == 0 {
            *work += next;
            return Err((byte == b'@').then_some((i, next - 1)));
        }
        decoded.push(byte);
        last = i;
        i = next;
    }
    *work += i;
    let dot = decoded.last() == Some(&b'.');
    decoded.push(b'/');
    let na = match core::str::from_utf8(&decoded) {
        Ok(na) => na,
        // From the last bad sequence to its end: a naming authority that starts at an
        // ASCII byte before it (after a form's ':') decodes it alike, as UTF-8 starts
        // afresh at each ASCII byte. (The last, not the first: the first is often in the
        // start's own bytes, which no later start holds.)
        Err(_) => {
            let (mut at, mut bad) = (0, 0);
            for chunk in decoded.utf8_chunks() {
                at += chunk.valid().len();
                if !chunk.invalid().is_empty() {
                    bad = at;
                }
                at += chunk.invalid().len();
            }
            let from = decoded_place(raw, decode, bad);
            *work += from;
            return Err(Some((from, i)));
        }
    };
    if HandleRef::parse(na).is_ok() && !na.contains(is_space) {
        Ok(())
    } else {
        Err(dot.then_some((last, i)))
    }
}

/// Whether `local`, a local name as written (at most a few bytes), decodes to bytes
/// cleaning may take off an identifier's end alone: ASCII white space, sentence
/// punctuation and closing brackets.
fn taken_off_whole(local: &[u8]) -> bool {
    let mut i = 0;
    while i < local.len() && local.len() <= 12 {
        let (byte, next) = decoded_byte(local, i);
        if !(byte.is_ascii_whitespace() || b".,;:')]}>".contains(&byte)) {
            return false;
        }
        i = next;
    }
    !local.is_empty() && local.len() <= 12
}

/// Whether a byte an escape in a naming authority written as `written` decodes to fails
/// every naming authority that holds it, whatever comes before it: ASCII white space as
/// cleaning reads it (`is_space`, C2; as written, it ends the identifier before), a `.` in
/// an `hdl:` URI (U11: escapes never make a segment's end), or a byte no UTF-8 holds.
fn escape_fails_every_naming_authority(byte: u8, written: Written) -> bool {
    (byte <= b' ' && is_space(char::from(byte)))
        || (byte == b'.' && written == Written::Escaped)
        || matches!(byte, 0xC0 | 0xC1 | 0xF5..=0xFF)
}

/// How a naming authority is written where a form holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    /// As it is (a `urn:` form's).
    AsIs,
    /// Percent-encoded, and decoded before the handle is read (an `info:` URI's, U8; a
    /// resolver's path's, P3): a '/' it decodes to ends it.
    Decoded,
    /// Percent-encoded in a `urn:` form's handle in a resolver's path, which P3 decodes
    /// before its first ':' becomes the '/': a ':' it decodes to ends it too.
    DecodedUrn,
    /// Percent-encoded in an `hdl:` URI, whose handle's '/' is written as it is (U11): a
    /// '/' it decodes to is one the naming authority cannot hold.
    Escaped,
}

impl Written {
    /// Whether `byte`, as read (decoded where escapes are), ends the naming authority.
    fn ends(self, byte: u8) -> bool {
        byte == b'/' || (self == Written::DecodedUrn && byte == b':')
    }
}

/// Where in `raw` its `n`th byte as decoded (with `decode`) is written.
fn decoded_place(raw: &[u8], decode: bool, n: usize) -> usize {
    (0..n).fold(0, |i, _| {
        if decode {
            decoded_byte(raw, i).1
        } else {
            i + 1
        }
    })
}

/// How far from a start its handle's first '/' may be and be read alone at once: past
/// it, the form's validator walks up to the '/' first (most handles' '/' is nearer).
const NEAR: usize = 64;

/// How far from an identifier's end a glued word is looked for: the words glued to a DOI
/// are near the end of what the scan took (`…151502,arXiv :hep-ph/0502182`), and the look
/// costs no more than this whatever the identifier's length.
const GLUED_WINDOW: usize = 48;

/// The bytes no glued word starts with: all but `.`, `,`, `;` and `[` (`glued_word_form`;
/// a test checks it against the form's tables).
static NO_GLUED_WORD: [bool; 256] = {
    let mut table = [true; 256];
    table[b'.' as usize] = false;
    table[b',' as usize] = false;
    table[b';' as usize] = false;
    table[b'[' as usize] = false;
    table
};

/// Where in `s` (an identifier up to its end) a word that text taken from a PDF glues to a
/// DOI begins, after a `.`, `,` or `;` or in brackets (`glued_word_form`), if one does in
/// its last [`GLUED_WINDOW`] bytes: a word the form names, not going on into more letters
/// or digits.
fn glued_at(s: &[u8]) -> Option<usize> {
    let from = s.len().saturating_sub(GLUED_WINDOW);
    let window = &s[from..];
    let dfa = &g::GLUED_WORD_FORM;
    let mut p = crate::dfa::skip(window, 0, &NO_GLUED_WORD, 1);
    while p + 1 < window.len() {
        if window[p + 1].is_ascii_alphabetic() && dfa.may_start(&window[p..]) {
            if let Some(len) = dfa.accepted_prefix(&window[p..]) {
                // (Ends where the word does: its last byte is no letter or digit, or the next
                // is not.)
                if !window[p + len - 1].is_ascii_alphanumeric()
                    || !window.get(p + len).is_some_and(u8::is_ascii_alphanumeric)
                {
                    return Some(from + p);
                }
            }
        }
        p = crate::dfa::skip(window, p + 1, &NO_GLUED_WORD, 1);
    }
    None
}

/// The value of a hex digit (one `is_ascii_hexdigit` accepts).
fn hex(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        _ => (b | 0x20) - b'a' + 10,
    }
}

/// Whether a handle's text is itself a URL (`scheme://…`): never an identifier found in
/// text (a resolver's URL inside another is read by cleaning, C2).
fn is_url(h: &str) -> bool {
    g::OTHER_URL_FORM.accepted_prefix(h.as_bytes()).is_some()
}

/// Whether a URI of `form` is an `info:` URI, whose `?` belongs to the identifier (U8).
fn validator_is_info(form: Form) -> bool {
    matches!(form, Form::InfoHdl | Form::InfoDoi)
}

/// The validator that `recognize` walks over a URI of `form` under `options`, which stops
/// at the first byte it refuses.
fn validator(form: Form, options: &Options) -> Option<&'static Dfa> {
    Some(match form {
        Form::HdlResolution => &g::HDL_RESOLUTION,
        Form::HdlHost if options.cordra => &g::CORDRA_HOST,
        Form::Hdl if options.cordra => &g::CORDRA_PATH,
        Form::HdlHost => &g::HDL_HOST,
        Form::Hdl => &g::HDL_PATH,
        Form::InfoHdl | Form::InfoDoi => &g::INFO_URI,
        _ => return None,
    })
}

/// Whether `dfa`, from every one of its states, ends `window` (stepped as [`iri_step`]
/// steps) in a state that does not accept (or refuses it): a text that ends with these
/// bytes is not in its language.
fn short_from_everywhere(dfa: &Dfa, window: &[u8]) -> bool {
    (1..dfa.labels.len()).all(|start| {
        let end = window.iter().fold(start, |s, &b| iri_step(dfa, s, b));
        !dfa.accepting[end]
    })
}

/// Whether `dfa` refuses `window` (stepped as [`iri_step`] steps) from every one of its
/// states: whatever came before, a text that holds these bytes is not in its language.
fn refused_from_everywhere(dfa: &Dfa, window: &[u8]) -> bool {
    (1..dfa.labels.len()).all(|start| {
        let mut state = start;
        for &b in window {
            state = iri_step(dfa, state, b);
            if state == 0 {
                return true;
            }
        }
        false
    })
}

/// One step of a validator (whose grammar is ASCII: a URI's) over a byte of the text, a
/// byte beyond ASCII as its escape, `%` and two hex digits: an IRI read as its URI (RFC
/// 3987 §3.1, C2), as cleaning reads it. (Byte by byte: a window that starts inside a
/// character steps as its URI's bytes do.)
#[inline]
fn iri_step(dfa: &Dfa, state: usize, byte: u8) -> usize {
    if byte.is_ascii() {
        return dfa.step(state, byte);
    }
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    [
        b'%',
        DIGITS[usize::from(byte >> 4)],
        DIGITS[usize::from(byte & 0xF)],
    ]
    .into_iter()
    .try_fold(state, |s, b| match dfa.step(s, b) {
        0 => None,
        next => Some(next),
    })
    .unwrap_or(0)
}

/// Whether a handle written as a DOI (a `doi:` label or URI, `info:doi/`, `urn:doi:`) is
/// one (H8): text that says "DOI" of something else holds no identifier there (this
/// project's decision for C3; a DOI may still be found bare inside it).
fn labels_a_doi(form: Form, handle: HandleRef<'_>) -> bool {
    !matches!(form, Form::Doi | Form::InfoDoi | Form::UrnDoi) || handle.is_doi()
}

/// The last character of an identifier in running text if it ends a sentence rather than
/// the identifier (C3): `.`, `,`, `;`, `:`, `…`, or a `'` (a closing quote). Brackets and
/// other quotes need no look here: the end's scan keeps only those that balance; but one
/// that opens a pair and closes another (`‘`, `«`, `‹`: German quotes and guillemets close
/// with them) left last by a cut before its partner, which cleaning takes for the closing
/// one.
fn sentence_end(s: &str) -> Option<char> {
    let last = *s.as_bytes().last()?;
    match last {
        b'.' | b',' | b';' | b':' | b'\'' => Some(char::from(last)),
        0x80.. => {
            let c = s.chars().next_back()?;
            let opens_and_closes = bracket(c).is_some_and(|(_, opens)| opens)
                && PAIRS.iter().any(|&(o, cl)| cl == c && o != c);
            (c == '\u{2026}' || opens_and_closes).then_some(c)
        }
        _ => None,
    }
}

/// Per ASCII byte: whether it continues an identifier whatever came before (`CONTINUES`:
/// letters, digits and the punctuation that neither ends one nor opens or closes a pair),
/// and whether a proxy path holds it as itself (`KEPT`, `escape::PROXY_PATH`).
static BYTE_CLASSES: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        let continues = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'.' | b'/'
                    | b'-'
                    | b'_'
                    | b';'
                    | b':'
                    | b'='
                    | b'&'
                    | b'?'
                    | b'#'
                    | b'+'
                    | b'~'
                    | b'!'
                    | b'*'
                    | b','
                    | b'@'
                    | b'$'
            );
        if continues {
            table[b] |= CONTINUES;
        }
        if PROXY_PATH.keeps(c as char) {
            table[b] |= KEPT;
            if continues {
                table[b] |= CONTINUES_KEPT;
            }
        }
        b += 1;
    }
    table
};
const CONTINUES: u8 = 1;
const KEPT: u8 = 2;
/// Both: the bytes the scan passes over while all so far were kept.
const CONTINUES_KEPT: u8 = 4;

/// The double quotes typesetting writes for `"`, which ends an identifier as `"` does
/// (C3): English `“…”`, German `„…“`, Swedish `”…”`, and the reversed `‟`. (As brackets,
/// a German closing one would open an English pair that a `”` after it closes:
/// `“„10.1000/abc“”`.)
const TYPOGRAPHIC_DOUBLE_QUOTES: [char; 4] = ['\u{201C}', '\u{201D}', '\u{201E}', '\u{201F}'];

/// Whether an identifier ends at the start of `rest` whatever came before it in a DOI's
/// prefix (no bracket): where `identifier_end_form` ends one (white space, a `"`, a tag),
/// or at a closing bracket.
fn ends_at_once(rest: &[u8]) -> bool {
    rest.first()
        .is_some_and(|&b| b.is_ascii() && matches!(bracket(char::from(b)), Some((_, false))))
        || g::IDENTIFIER_END_FORM.accepted_prefix(rest).is_some()
}

/// The bracket of `PAIRS` the character at `i` of `text` is, or (where escapes are read,
/// `open`) the closing one an escape there writes while `open` counts its pair open
/// ([`escaped_close`]), and its length (an escape read only before `end`).
#[inline]
fn bracket_at(
    text: &str,
    i: usize,
    end: usize,
    open: Option<&[u8; PAIRS.len()]>,
) -> (Option<(usize, bool)>, usize) {
    let bytes = &text.as_bytes()[..end];
    if let (b'%', Some(open)) = (bytes[i], open) {
        return match escaped_close(bytes, i, open) {
            Some(k) => (Some((k, false)), 3),
            None => (None, 1),
        };
    }
    let c = text[i..].chars().next().expect("a character starts here");
    (bracket(c), c.len_utf8())
}

/// The pair whose closing bracket an escape at `i` writes (`%29` a `)`), when `open`
/// counts that pair open: a URL's path is read decoded, so an escaped bracket closes a
/// written one (`(84%2980474-5`, and Markdown's links, which escape a `)` alone). One with
/// nothing open to close is any character of the identifier: cleaning takes it off as
/// punctuation; nor does an escaped opening bracket count (an identifier is not cut at one).
#[inline]
fn escaped_close(bytes: &[u8], i: usize, open: &[u8; PAIRS.len()]) -> Option<usize> {
    match *bytes.get(i..i + 3)? {
        [b'%', hi, lo] if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit() => {
            let d = hex(hi) << 4 | hex(lo);
            match d.is_ascii().then(|| bracket(char::from(d))).flatten()? {
                (k, false) if open[k] > 0 => Some(k),
                _ => None,
            }
        }
        _ => None,
    }
}

/// [`bracket`] of each ASCII character, worked out from `PAIRS` at compile time: 0 for none,
/// else `2 + 2 * pair + opens`.
const ASCII_BRACKETS: [u8; 128] = {
    let mut table = [0_u8; 128];
    let mut k = 0;
    while k < PAIRS.len() {
        let (o, c) = PAIRS[k];
        if o != c {
            if (o as u32) < 128 {
                table[o as usize] = 2 + 2 * k as u8 + 1;
            }
            if (c as u32) < 128 {
                table[c as usize] = 2 + 2 * k as u8;
            }
        }
        k += 1;
    }
    table
};

/// A bracket or quote of `PAIRS` that is not its own partner: which, and whether it opens.
#[inline]
fn bracket(c: char) -> Option<(usize, bool)> {
    if c.is_ascii() {
        return match ASCII_BRACKETS[c as usize] {
            0 => None,
            v => Some((usize::from((v - 2) / 2), (v - 2) % 2 == 1)),
        };
    }
    // (Its first place among the pairs': `“` opens English quotes before it closes German
    // ones, `»` closes French guillemets before it opens German ones.)
    PAIRS
        .iter()
        .enumerate()
        .filter(|&(_, &(o, cl))| o != cl)
        .find_map(|(k, &(o, cl))| {
            if o == c {
                Some((k, true))
            } else {
                (cl == c).then_some((k, false))
            }
        })
}

/// One scan of an identifier's end from `start` (C3), kept for the starts after it: `end`,
/// where white space, a `"`, a tag, a closing bracket with no partner inside or an opening
/// bracket beyond [`MAX_OPEN`] ends it, and `cut`, the first opening bracket with no
/// partner before `end` (or `end`). With them, how many brackets of each pair were open
/// from `start` to `at`, counted as the starts move forward.
#[derive(Clone, Copy, Debug, Default)]
struct Scan {
    end: usize,
    cut: usize,
    /// The first byte from the start on that a proxy path does not keep as it is, when
    /// looked for and known; else `usize::MAX` (a word, not an `Option`: `Ends` holds
    /// `MAX_OPEN + 1` scans, made for each extraction, which the command starts a line).
    unkept: usize,
    at: usize,
    open: [u8; PAIRS.len()],
    total: u8,
    /// Escaped closing brackets close ([`escaped_close`]).
    decoded: bool,
}

/// The brackets a scan holds open, each pair's and in all, as [`Scan::from`] counts them
/// (its own, and an earlier scan's beside them).
#[derive(Clone, Copy, Debug, Default)]
struct Open {
    open: [u8; PAIRS.len()],
    total: u8,
}

impl Open {
    /// Counts the bracket `k` (as [`bracket_at`] gives it) in; false where it ends the
    /// scan: one bracket too many open, or a closing one with no partner.
    #[inline]
    fn step(&mut self, k: Option<(usize, bool)>) -> bool {
        match k {
            Some((_, true)) if usize::from(self.total) == MAX_OPEN => false,
            Some((k, true)) => {
                self.open[k] += 1;
                self.total += 1;
                true
            }
            Some((k, false)) if self.open[k] == 0 => false,
            Some((k, false)) => {
                self.open[k] -= 1;
                self.total -= 1;
                true
            }
            None => true,
        }
    }
}

/// Where the first bracket left open in `start..end` is (where its pair's count last rose
/// from nothing), or `end`.
fn first_unpartnered(text: &str, start: usize, end: usize, decoded: bool) -> usize {
    let mut count = [0_u8; PAIRS.len()];
    let mut outer = [end; PAIRS.len()];
    let mut at = start;
    while at < end {
        let (k, len) = bracket_at(text, at, end, decoded.then_some(&count));
        match k {
            Some((k, true)) => {
                if count[k] == 0 {
                    outer[k] = at;
                }
                count[k] += 1;
            }
            Some((k, false)) => count[k] -= 1,
            None => {}
        }
        at += len;
    }
    (0..PAIRS.len())
        .filter(|&k| count[k] > 0)
        .map(|k| outer[k])
        .min()
        .unwrap_or(end)
}

/// The scans still ahead, each started inside brackets opened after the one below it
/// began: at most [`MAX_OPEN`]` + 1` kept.
#[derive(Clone, Copy, Debug, Default)]
struct Ends {
    scans: [Scan; MAX_OPEN + 1],
    len: usize,
    /// Its scans read escaped closing brackets ([`escaped_close`]).
    decoded: bool,
}

impl Ends {
    /// Where the identifier that starts at `q` ends (C3), where an opening bracket with no
    /// partner cuts it, and (with `unkept`) where the first byte a proxy path does not keep
    /// lies when a scan from `q` told (`None` when a kept scan answered); `q` moves forward
    /// from call to call. A start with no bracket open since a kept scan's start ends where
    /// that scan ends. With `keep`, a scan from `q` is kept for the starts after it.
    #[inline]
    fn query_kept(
        &mut self,
        text: &str,
        q: usize,
        keep: bool,
        unkept: bool,
        work: &mut usize,
    ) -> (usize, usize, Option<usize>) {
        // (A start inside an escape reads its digits as characters, where a kept scan read
        // the escape whole: a scan of its own, neither kept nor asked, so that no count
        // stops inside one. A word starts no decoded form inside an escape of a closing
        // bracket today; a bare handle's, which may, is read as written.)
        let bytes = text.as_bytes();
        if self.decoded
            && (1..=2).any(|d| {
                q >= d
                    && bytes[q - d] == b'%'
                    && bytes
                        .get(q - d + 1..q - d + 3)
                        .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
            })
        {
            let scan = Scan::from(text, q, unkept, true, None, work);
            return (scan.end, scan.cut, scan.unkept());
        }
        let mut len = self.len;
        while len > 0 && self.scans[len - 1].end <= q {
            len -= 1;
        }
        if len > 0 {
            let top = &mut self.scans[len - 1];
            if top.at <= q {
                top.advance(text, q, work);
                if top.total == 0 {
                    debug_assert!(top.cut >= q);
                    self.len = len;
                    return (top.end, top.cut, None);
                }
            } else {
                debug_assert!(false, "a start before the last one ({q} < {})", top.at);
                len -= 1;
            }
        }
        // (The kept scan below, counted up to `q`, is where this one may fall in step.)
        let beside = self.scans[..len].last().filter(|top| top.at == q);
        let scan = Scan::from(text, q, unkept, self.decoded, beside, work);
        if keep {
            if len == self.scans.len() {
                // Full: the oldest goes (each kept scan is a bracket deeper than the one
                // below where it starts, and brackets open at most MAX_OPEN deep, so this
                // is rare).
                self.scans.copy_within(1.., 0);
                len -= 1;
            }
            self.scans[len] = scan;
            len += 1;
        }
        self.len = len;
        (scan.end, scan.cut, scan.unkept())
    }
}

impl Scan {
    /// Where the first byte a proxy path does not keep lies, when looked for and known.
    fn unkept(&self) -> Option<usize> {
        (self.unkept != usize::MAX).then_some(self.unkept)
    }

    /// The scan of the identifier that starts at `start` (and, with `track_unkept`, where
    /// its first byte a proxy path does not keep lies). `beside` is a kept scan from an
    /// earlier start, counted up to `start`: where an escape it reads as a closing bracket
    /// closes nothing here (`hdl:%29`), the two may come to hold the same brackets open,
    /// and from there on they read alike: this one ends where that one does, read no
    /// further.
    #[inline]
    fn from(
        text: &str,
        start: usize,
        track_unkept: bool,
        decoded: bool,
        beside: Option<&Scan>,
        work: &mut usize,
    ) -> Scan {
        let bytes = text.as_bytes();
        let mut own = Open::default();
        let mut i = start;
        // (Looked for only when asked: `Some(end)` from the start otherwise.)
        let mut unkept = (!track_unkept).then_some(usize::MAX);
        // The earlier scan's brackets open, while it goes on (it holds at least as many of
        // each pair open as this one: an escape that closes here closes there).
        let mut shadow = beside
            .filter(|b| decoded && b.at == start && b.end > start)
            .map(|b| Open {
                open: b.open,
                total: b.total,
            });
        let mut in_step = None;
        let end = loop {
            // Most bytes are ASCII letters, digits and punctuation that neither end an
            // identifier nor open or close a pair: one look at each byte, which also tells
            // where the first byte a proxy path does not keep as it is lies.
            let mask = if unkept.is_none() {
                CONTINUES_KEPT
            } else {
                CONTINUES
            };
            i = crate::dfa::skip(bytes, i, &BYTE_CLASSES, u64::from(mask));
            let Some(&b) = bytes.get(i) else {
                break bytes.len();
            };
            if unkept.is_none() && BYTE_CLASSES[usize::from(b)] & KEPT == 0 {
                unkept = Some(i);
            }
            if BYTE_CLASSES[usize::from(b)] & CONTINUES != 0 {
                continue;
            }
            if b != b'%' {
                // ASCII white space, '"' and a tag end it (forms.pest, `identifier_end_form`).
                if b.is_ascii()
                    && g::IDENTIFIER_END_FORM
                        .accepted_prefix(&bytes[i..])
                        .is_some()
                {
                    break i;
                }
                let c = text[i..].chars().next().expect("a character starts here");
                if breaks_identifier(c) || TYPOGRAPHIC_DOUBLE_QUOTES.contains(&c) {
                    break i;
                }
            }
            // (An escape is read as the earlier scan reads it, and closes here only what
            // is open here.)
            let counts = shadow.as_ref().map_or(&own.open, |s| &s.open);
            let (mut k, len) = bracket_at(text, i, bytes.len(), decoded.then_some(counts));
            if let Some(s) = &mut shadow {
                if !s.step(k) {
                    shadow = None;
                } else if let (Some((j, false)), b'%') = (k, b) {
                    if own.open[j] == 0 {
                        k = None;
                    }
                }
            }
            if !own.step(k) {
                break i;
            }
            i += len;
            // In step with the earlier scan: its end is this one's.
            if let (Some(s), Some(b)) = (&shadow, beside) {
                if s.total == own.total {
                    in_step = Some(i);
                    break b.end;
                }
            }
        };
        let read = in_step.unwrap_or(end);
        *work += read - start;
        // Brackets left open (seldom): the first of them, where its pair's count last
        // rose from nothing, cuts the identifier. In step with an earlier scan whose cut is
        // its end, or after where the two fell in step, this one's is the same.
        let cut = match (in_step, beside) {
            (Some(_), Some(b)) if b.cut == b.end => end,
            (Some(s), Some(b)) if b.cut >= s => b.cut,
            _ if in_step.is_none() && own.total == 0 => end,
            _ => {
                *work += end - start;
                first_unpartnered(text, start, end, decoded)
            }
        };
        // (On short texts a debug build checks that the scan read whole agrees.)
        #[cfg(debug_assertions)]
        if in_step.is_some() && text.len() <= VERIFIED {
            let whole = Scan::from(text, start, false, decoded, None, &mut 0);
            debug_assert_eq!((whole.end, whole.cut), (end, cut), "{start} in {text}");
        }
        Scan {
            end,
            cut,
            unkept: match unkept {
                Some(usize::MAX) => usize::MAX,
                Some(u) => u.min(end),
                None if in_step.is_some() => usize::MAX,
                None => end,
            },
            at: start,
            open: [0; PAIRS.len()],
            total: 0,
            decoded,
        }
    }

    /// Counts the brackets opened and closed from `at` to `to` (before `end`).
    fn advance(&mut self, text: &str, to: usize, work: &mut usize) {
        let bytes = text.as_bytes();
        *work += to - self.at;
        let mut i = self.at;
        while i < to {
            i = crate::dfa::skip(&bytes[..to], i, &BYTE_CLASSES, u64::from(CONTINUES));
            if i >= to {
                break;
            }
            let (k, len) = bracket_at(text, i, to, self.decoded.then_some(&self.open));
            match k {
                Some((k, true)) => {
                    self.open[k] += 1;
                    self.total += 1;
                }
                Some((k, false)) => {
                    self.open[k] -= 1;
                    self.total -= 1;
                }
                None => {}
            }
            i += len;
        }
        self.at = to;
    }
}

/// Where the next byte of a kind is, for positions that move forward, looked for no
/// further than each asker's limit: the answer for one position holds for every position up
/// to it, and a later one is looked for from there.
#[derive(Clone, Copy, Debug)]
struct Next {
    /// No byte of the kind lies in `from..found`; `found` is one if `matched`, else as far
    /// as the last look went.
    from: usize,
    found: usize,
    matched: bool,
}

impl Next {
    const NONE: Next = Next {
        from: 1,
        found: 0,
        matched: false,
    };

    /// The first byte at or after `x` that `find` finds, before the end of `bytes` (the
    /// asker's limit: its end when none).
    #[inline]
    fn at(
        &mut self,
        bytes: &[u8],
        x: usize,
        find: impl Fn(&[u8]) -> Option<usize>,
        work: &mut usize,
    ) -> usize {
        let limit = bytes.len();
        if x >= limit {
            return limit;
        }
        let from = if self.from <= x && x <= self.found {
            if self.matched || self.found >= limit {
                return self.found.min(limit);
            }
            self.found
        } else {
            self.from = x;
            x
        };
        let found = find(&bytes[from..]).map(|p| from + p);
        *work += found.map_or(limit, |f| f + 1) - from;
        self.found = found.unwrap_or(limit);
        self.matched = found.is_some();
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// A validator stepped over an IRI by [`iri_step`] ends where it ends over the URI
    /// cleaning writes of it (`iri_as_uri`): one mapping, in two shapes.
    #[test]
    fn iri_steps_as_cleaning_writes_the_uri() {
        let texts = [
            "hdl:20.1000/Ü",
            "hdl:20.1000/日本語?x=é#ü",
            "info:doi/10.1000/a%C3%9Cb€",
            "hdl://Ü/x",
            "https://hdl.handle.net/20.1000/\u{10FFFF}/y",
            "hdl:20.1000/%C3Ü",
        ];
        for dfa in [
            &g::HDL_PATH,
            &g::HDL_HOST,
            &g::INFO_URI,
            &g::HDL_RESOLUTION,
            &g::CORDRA_HTTP,
        ] {
            for text in texts {
                let start = usize::from(dfa.start);
                let stepped = text.bytes().fold(start, |s, b| iri_step(dfa, s, b));
                let uri = crate::clean::iri_as_uri(text);
                let written = uri.bytes().fold(start, |s, b| dfa.step(s, b));
                assert_eq!(stepped, written, "{text:?}");
            }
        }
        // (Not only refusals: the reading of an `hdl:` IRI is accepted.)
        let dfa = &g::HDL_PATH;
        let end = "hdl:20.1000/Ü"
            .bytes()
            .fold(usize::from(dfa.start), |s, b| iri_step(dfa, s, b));
        assert!(dfa.accepting[end]);
    }

    /// The validators of `hdl:` URIs (the form whose prefix holds no '/') read the first
    /// '/' after their start into one state, whatever came before it: a refusal after the
    /// handle's first '/' is one for every start that shares it (`remember_failure`).
    #[test]
    fn reads_a_first_slash_into_one_state() {
        for dfa in [&g::HDL_PATH, &g::CORDRA_PATH] {
            // The states reached from the start on any bytes but '/'.
            let mut seen = vec![usize::from(dfa.start)];
            let mut todo = seen.clone();
            while let Some(s) = todo.pop() {
                for b in (0..=255_u8).filter(|&b| b != b'/') {
                    let t = iri_step(dfa, s, b);
                    if t != 0 && !seen.contains(&t) {
                        seen.push(t);
                        todo.push(t);
                    }
                }
            }
            let mut after: Vec<usize> = seen
                .iter()
                .map(|&s| iri_step(dfa, s, b'/'))
                .filter(|&t| t != 0)
                .collect();
            after.sort_unstable();
            after.dedup();
            assert_eq!(after.len(), 1, "{}", dfa.rule.name());
        }
    }

    /// The bytes a glued word starts with are those `glued_word_form` starts with.
    #[test]
    fn no_glued_word_as_the_form_says() {
        let dfa = &g::GLUED_WORD_FORM;
        // (Not a UTF-8 continuation byte, which starts no character: every state of a
        // generated machine steps over one.)
        for b in (0..=255_u8).filter(|b| !(0x80..0xc0).contains(b)) {
            let starts = dfa.step(usize::from(dfa.start), b) != 0;
            assert_eq!(NO_GLUED_WORD[usize::from(b)], !starts, "{b}");
        }
    }

    /// What lets the scan pass over a ':' after anything but a word a written form starts
    /// with: in every form it looks for, the first anchor of the form's prefix (a '/' or a
    /// ':') is a '/', or a ':' with only ASCII letters before it, and a prefix with no
    /// anchor (`DOI `) is followed by a handle, which holds a '/' (a later anchor in the
    /// same token). Every path of UTF-8 through each form's state machine, up to its first
    /// anchor or the end of its prefix.
    #[test]
    fn the_first_colon_of_every_form_follows_letters_only() {
        for dfa in WRITTEN_FORMS.iter().map(|(dfa, _)| *dfa).chain([
            &g::LABEL_FORM,
            &g::HTTP_FORM,
            &g::BARE_DOI_FORM,
        ]) {
            let next = |s: usize, b: u8| {
                usize::from(
                    dfa.transitions[(s << dfa.shift) | usize::from(dfa.classes[usize::from(b)])],
                )
            };
            let classes = usize::from(*dfa.classes.iter().max().unwrap()) + 1;
            let states = dfa.labels.len();
            // The prefix is over in the states every continuation is accepted from (`ANY*`):
            // the greatest set of live states whose every move stays in it.
            let mut accepts_all: Vec<bool> = (0..states).map(|s| s != 0).collect();
            loop {
                let out: Vec<usize> = (1..states)
                    .filter(|&s| {
                        accepts_all[s]
                            && (0..classes).any(|c| {
                                !accepts_all[usize::from(dfa.transitions[(s << dfa.shift) | c])]
                            })
                    })
                    .collect();
                if out.is_empty() {
                    break;
                }
                for s in out {
                    accepts_all[s] = false;
                }
            }
            let over = |s: usize| accepts_all[s];
            // (state, whether every byte so far was a letter and there was one, continuation
            // bytes still due)
            let mut seen: Vec<(usize, bool, u8)> = Vec::new();
            let mut todo = vec![(usize::from(dfa.start), false, 0_u8)];
            let mut first = true;
            while let Some((s, letters, due)) = todo.pop() {
                if over(s) {
                    continue;
                }
                for b in 0..=255_u8 {
                    let due = match (due, b) {
                        (0, 0..=0x7F) => 0,
                        (0, 0xC2..=0xDF) => 1,
                        (0, 0xE0..=0xEF) => 2,
                        (0, 0xF0..=0xF4) => 3,
                        (1.., 0x80..=0xBF) => due - 1,
                        _ => continue, // not UTF-8 here
                    };
                    let t = next(s, b);
                    if t == 0 {
                        continue;
                    }
                    if b == b':' {
                        assert!(letters, "{}: a ':' after a non-letter", dfa.rule.name());
                    }
                    if b == b'/' || b == b':' {
                        continue; // the first anchor: the scan finds the form there.
                    }
                    let key = (t, (letters || first) && b.is_ascii_alphabetic(), due);
                    if !seen.contains(&key) {
                        seen.push(key);
                        todo.push(key);
                    }
                }
                first = false;
            }
            assert!(!seen.is_empty(), "{}", dfa.rule.name());
        }
    }

    /// A plain DOI ends where the whole reading ends it: at each end that needs no scan (its
    /// bytes checked in a debug build against that reading), and past the plain bytes at
    /// the rest.
    #[test]
    fn plain_dois_end_as_the_whole_reading_says() {
        let cases: [(&str, &[&str]); 12] = [
            ("10.1000/abc", &["10.1000/abc"]),
            ("see 10.1000/a-b_c9 and", &["10.1000/a-b_c9"]),
            ("(10.1000/abc)", &["10.1000/abc"]),
            ("[10.1000/abc]", &["10.1000/abc"]),
            ("\"10.1000/abc\"", &["10.1000/abc"]),
            ("<a>10.1000/abc</a>", &["10.1000/abc"]),
            ("10.1000/abc>x", &["10.1000/abc"]),
            ("10.1000/a)10.1000/b}", &["10.1000/a", "10.1000/b"]),
            // Not plain: the scan, glued words and punctuation decide.
            ("10.1000/abc.", &["10.1000/abc"]),
            ("10.1000/abc(1)", &["10.1000/abc(1)"]),
            ("10.1000/abc.Available", &["10.1000/abc"]),
            ("https://x.org/10.1000/abc?q", &["10.1000/abc"]),
        ];
        for (text, want) in cases {
            let got: Vec<&str> = extract(text, &Options::new()).map(|f| f.text()).collect();
            assert_eq!(got, want, "{text}");
        }
        // `10.1000/)` repeated finds nothing, its local name ending at its first byte.
        assert_eq!(
            extract(&"10.1000/)".repeat(100), &Options::new()).count(),
            0
        );
    }

    /// The start tables built when the crate is compiled say of every two bytes a
    /// character can start with what the validators themselves say.
    #[test]
    fn the_start_tables_are_the_validators() {
        for a in (0..=255_u8).filter(|a| !(0x80..0xc0).contains(a)) {
            for b in 0..=255_u8 {
                assert_eq!(STARTS.get(a, b), may_start_identifier([a, b]), "{a} {b}");
                assert_eq!(
                    WRITTEN_STARTS.get(a, b),
                    may_start_written([a, b]),
                    "{a} {b}"
                );
            }
        }
    }
}
