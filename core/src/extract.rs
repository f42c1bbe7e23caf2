//! Extraction (SPEC C3): the identifiers in running text, each with its span as written.
//!
//! Where an identifier may start is the forms grammar's (its prefix rules, `label_form`,
//! `bare_doi_form`) and the known resolvers'. Where it ends: ASCII white space, `"` and a tag
//! are the grammar's too (`identifier_end_form`); Unicode white space, a closing bracket
//! with no partner inside it, and then sentence punctuation are said here and in cleaning
//! (C2, C3), since the generator reads non-ASCII characters as one symbol and balance is
//! not a regular language.

use crate::base::KNOWN_PROXY_HOSTS;
use crate::clean::{clean_as_written, is_space, trailing_punctuation, FixCode, PAIRS};
use crate::dfa::Dfa;
use crate::escape::PROXY_PATH;
use crate::form::{Form, Options};
use crate::generated as g;
use crate::handle::{HandleRef, ReadHandle};
use crate::pairs::PairTable;

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
    }
}

/// The iterator of [`extract`]; it holds the text and a position, nothing per identifier.
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
}

/// How far back from an anchor a start is looked for: a label and its space (`DOI: `)
/// before a token, and the token itself up to this many bytes (an identifier's first
/// anchor the scan stops at is at most this far from its start).
const LOOK_BACK: usize = 512;

/// The longest identifier extraction reads (a longer one is not read): so that a hostile
/// text costs time linear in its length.
pub const MAX_IDENTIFIER: usize = 8192;

impl<'a> Iterator for Extract<'a, '_> {
    type Item = Found<'a>;

    fn next(&mut self) -> Option<Found<'a>> {
        let bytes = self.text.as_bytes();
        // Every identifier holds a '/' or a ':' (a handle's '/', a label's or scheme's ':';
        // `urn:doi:10.123:456` has only ':'), and text holds few: they are the anchors,
        // found by memchr, and a start is looked for in the token before each.
        while let Some(k) = memchr::memchr2(b'/', b':', &bytes[self.at..]).map(|k| self.at + k) {
            // An identifier whose first anchor is a ':' is a written form, and every byte
            // before the first ':' of a written form is a letter (`doi:`, `urn:doi:`,
            // `https:`; a bare handle's first anchor is its '/'): a ':' after anything
            // else (`"DOI":`, `12:30`), or after a word no written form starts with
            // (`Note:`), starts nothing (tested against the grammar below).
            if bytes[k] == b':' && !may_end_scheme(&bytes[..k]) {
                self.at = k + 1;
                continue;
            }
            // An anchor right after where an identifier ends (`</a>`, `"/`, ` /`;
            // `identifier_end_form`) is in none: one through the byte before would end
            // there, and none starts at a '/' or ':'.
            if k > 0
                && g::IDENTIFIER_END_FORM
                    .accepted_prefix(&bytes[k - 1..])
                    .is_some()
            {
                self.at = k + 1;
                continue;
            }
            let (last, last_token) = self.token;
            let token = match bytes[last.min(k)..k]
                .iter()
                .rposition(|&b| b.is_ascii_whitespace())
            {
                Some(w) => last.min(k) + w + 1,
                // No white space since the last anchor: the same token.
                None if last > 0 && last <= k => last_token,
                None => bytes[..last.min(k)]
                    .iter()
                    .rposition(|&b| b.is_ascii_whitespace())
                    .map_or(0, |w| w + 1),
            };
            self.token = (k, token);
            // A label written with a space (`DOI 10.1/x`, `doi: 10.1/x`) stands before
            // the token.
            let from = token
                .saturating_sub(6)
                .max(k.saturating_sub(LOOK_BACK))
                .max(self.tried)
                .max(self.at);
            // Each word's start (a letter or digit after no letter, digit or '.') is tried;
            // the rest of the word is passed over.
            let mut i = from;
            if from > 0 && CONTINUES_WORD[usize::from(bytes[from - 1])] {
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
                    // An identifier ends at white space (`identifier_end_form`), and holds
                    // none after its label: the token runs on from there to its end, and
                    // the next anchor looks back no further than that.
                    let label = &bytes[i..i + label];
                    let token = label
                        .iter()
                        .rposition(u8::is_ascii_whitespace)
                        .map_or(token, |w| i + w + 1);
                    debug_assert!(!bytes[token..self.at].iter().any(u8::is_ascii_whitespace));
                    self.token = (self.at, token);
                    return Some(found);
                }
                i = crate::dfa::skip(&bytes[..k], i + 1, &CONTINUES_WORD, 1);
            }
            self.tried = self.tried.max(k);
            self.at = k + 1;
        }
        self.at = bytes.len();
        None
    }
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

/// The length of the label (`DOI: `, `hdl `, C2) that `rest` starts with, with the white
/// space after it; 0 without one.
fn label_len(rest: &str) -> usize {
    g::LABEL_FORM
        .accepted_prefix(rest.as_bytes())
        .map_or(0, |p| {
            p + rest[p..].len() - rest[p..].trim_start_matches(is_space).len()
        })
}

/// The prefix rules of the written forms found in text (C3), besides URLs.
static WRITTEN_FORMS: [&Dfa; 7] = [
    &g::DOI_FORM,
    &g::HDL_FORM,
    &g::INFO_HDL_FORM,
    &g::INFO_DOI_FORM,
    &g::URN_HDL_FORM,
    &g::URN_DOI_FORM,
    &g::LABEL_FORM,
];

/// The schemes of the URLs read as resolvers' URLs (with the known resolvers' hosts
/// without a scheme, `KNOWN_PROXY_HOSTS`).
const URL_SCHEMES: [&str; 2] = ["http://", "https://"];

/// Whether a word whose first two bytes are these may start an identifier: a written form
/// or a bare DOI. Asked of every word before an anchor.
static STARTS: PairTable = PairTable::new(may_start_identifier);

/// Whether a word whose first two bytes are these may start a written form: a URL, a known
/// resolver's host, a label or a URI.
static WRITTEN_STARTS: PairTable = PairTable::new(may_start_written);

fn may_start_identifier(pair: [u8; 2]) -> bool {
    may_start_written(pair) || g::BARE_DOI_FORM.may_start(&pair)
}

fn may_start_written(pair: [u8; 2]) -> bool {
    let starts = |s: &str| s.as_bytes()[..2].eq_ignore_ascii_case(&pair);
    URL_SCHEMES.iter().any(|s| starts(s))
        || KNOWN_PROXY_HOSTS.iter().any(|h| starts(h))
        || WRITTEN_FORMS.iter().any(|dfa| dfa.may_start(&pair))
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

impl<'a> Extract<'a, '_> {
    /// The identifier that starts at `i`, if one does, in the token (the text since the
    /// last white space) that starts at `token`, and the length of its label (`DOI: `).
    fn candidate(&self, i: usize, token: usize) -> Option<(Found<'a>, usize)> {
        let rest = &self.text[i..];
        let r = rest.as_bytes();
        // Most words start nothing: their first two bytes tell, from a table.
        if r.len() >= 2 && !STARTS.get(r[0], r[1]) && self.options.prefixes.is_empty() {
            return None;
        }
        let starts =
            |p: &str| r.len() >= p.len() && r[..p.len()].eq_ignore_ascii_case(p.as_bytes());
        let written = (r.len() < 2 || WRITTEN_STARTS.get(r[0], r[1]))
            && (URL_SCHEMES.iter().any(|s| starts(s))
                || KNOWN_PROXY_HOSTS
                    .iter()
                    .any(|h| starts(h) && r.get(h.len()) == Some(&b'/'))
                || WRITTEN_FORMS
                    .iter()
                    .any(|dfa| dfa.may_start(r) && dfa.accepted_prefix(r).is_some()));
        let named =
            !written
                && self.options.prefixes.iter().any(|p| {
                    r.len() > p.len() && r[..p.len()] == *p.as_bytes() && r[p.len()] == b'/'
                });
        if !(written || named || g::BARE_DOI_FORM.accepted_prefix(r).is_some()) {
            return None;
        }
        // A label written with a space (`DOI 10.1/x`) is part of the identifier: its end is
        // looked for after the label and the space. (A label is a written form.)
        let label = if written { label_len(rest) } else { 0 };
        if label > 0 && !r.get(label).is_some_and(u8::is_ascii_alphanumeric) {
            // A label before anything but an identifier's first character: not one here.
            return None;
        }
        let (len, kept_in_path) = identifier_end(&rest[label..]);
        let end = i + label + len;
        if end - i > MAX_IDENTIFIER {
            return None;
        }
        // Sentence punctuation after it is not part of it (C3).
        let mut kept = end;
        while let Some(c) = trailing_punctuation(&self.text[i..kept]) {
            kept -= c.len_utf8();
        }
        let mut text = &self.text[i..kept];
        if !written {
            if self.text.as_bytes()[token..i]
                .windows(3)
                .any(|w| w == b"://")
            {
                text = in_url_path(text);
            }
            // A bare DOI or a handle under a named prefix: what cleaning reads there is the
            // text as a bare handle (it starts with a digit or letter, holds no white space
            // and ends in no punctuation cleaning would take off), without the detour. Its
            // local name is not empty (C3).
            let h = HandleRef::parse(text).ok()?;
            if h.local_name().is_empty() {
                return None;
            }
            // (Not under a named prefix, it starts as `bare_doi_form` says: `10.` and digits
            // before its '/', a DOI's prefix.)
            debug_assert!(named || h.is_doi());
            let found = Found {
                start: i,
                text,
                form: Form::Handle,
                handle: ReadHandle::Slice(h),
            };
            return Some((found, 0));
        }
        if let Some((form, h)) = self.plain_written(text, label, label + kept_in_path) {
            if !labels_a_doi(form, h) {
                return None;
            }
            let found = Found {
                start: i,
                text,
                form,
                handle: ReadHandle::Slice(h),
            };
            return Some((found, label));
        }
        // The identifier is what cleaning reads in the text kept, as it stands there (with
        // its case: no canonical form is made).
        let read = clean_as_written(text, self.options).ok()?;
        if read.fixes.iter().any(|f| {
            // (White space cleaning takes off can only be after a label: the span starts
            // at a letter or digit and ends before white space.)
            matches!(
                f.code(),
                FixCode::WrappingPair | FixCode::TrailingPunctuation
            )
        }) {
            return None;
        }
        if !labels_a_doi(read.form, read.handle.as_handle_ref()) {
            return None;
        }
        let found = Found {
            start: i,
            text,
            form: read.form,
            handle: read.handle,
        };
        Some((found, label))
    }
}

impl<'a> Extract<'a, '_> {
    /// The handle of the written forms most text holds, read without cleaning's general
    /// loop: a label and a bare handle (`doi:10.1/x`, `DOI: 10.1/x`, `hdl:20.1/x`), and a
    /// known resolver's URL, with or without its scheme, whose path is a bare handle that
    /// needs no decoding (every character one the proxy path keeps, `escape::PROXY_PATH`).
    /// What cleaning would read there, and no more: the extraction invariants hold the two
    /// to the same handle and form. `text[..kept]` holds only bytes the proxy path keeps.
    fn plain_written(
        &self,
        text: &'a str,
        label: usize,
        kept: usize,
    ) -> Option<(Form, HandleRef<'a>)> {
        // A handle that starts with a digit is no other form, no label, no host and no
        // bracket, so cleaning reads it as a bare handle.
        let bare = |rest: &'a str| {
            rest.as_bytes()
                .first()
                .is_some_and(u8::is_ascii_digit)
                .then(|| HandleRef::parse(rest).ok())
                .flatten()
        };
        if label > 0 {
            let form = if text.as_bytes()[0].eq_ignore_ascii_case(&b'd') {
                Form::Doi
            } else {
                Form::Hdl
            };
            return Some((form, bare(&text[label..])?));
        }
        if self.options.cordra {
            return None;
        }
        let b = text.as_bytes();
        let starts = |at: usize, p: &str| {
            b.len() >= at + p.len() && b[at..at + p.len()].eq_ignore_ascii_case(p.as_bytes())
        };
        let scheme = if starts(0, "https://") {
            8
        } else if starts(0, "http://") {
            7
        } else {
            0
        };
        let host = KNOWN_PROXY_HOSTS
            .iter()
            .find(|h| starts(scheme, h) && b.get(scheme + h.len()) == Some(&b'/'))?;
        // A base the caller names on a known host may have a fixed segment: cleaning's.
        if self
            .options
            .bases
            .iter()
            .any(|base| base.host().eq_ignore_ascii_case(host))
        {
            return None;
        }
        // (The scheme and host are bytes the proxy path keeps too.)
        if kept < text.len() {
            return None;
        }
        Some((Form::Proxy, bare(&text[scheme + host.len() + 1..])?))
    }
}

/// Whether a handle written as a DOI (a `doi:` label or URI, `info:doi/`, `urn:doi:`) is
/// one (H8): text that says "DOI" of something else holds no identifier there (this
/// project's decision for C3; a DOI may still be found bare inside it).
fn labels_a_doi(form: Form, handle: HandleRef<'_>) -> bool {
    !matches!(form, Form::Doi | Form::InfoDoi | Form::UrnDoi) || handle.is_doi()
}

/// A bare DOI inside another site's URL is in its path (C3): the query and fragment are not
/// part of it, nor a last segment that names a view of the article (`url_view_form`).
fn in_url_path(text: &str) -> &str {
    let mut text = text.find(['?', '#']).map_or(text, |q| &text[..q]);
    let first = text.find('/').unwrap_or(text.len());
    if let Some(last) = text.rfind('/').filter(|&l| l > first) {
        if g::URL_VIEW_FORM.run(&text.as_bytes()[last..]).is_ok() {
            text = &text[..last];
        }
    }
    while let Some(c) = trailing_punctuation(text) {
        text = &text[..text.len() - c.len_utf8()];
    }
    text
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
                    | b'%'
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

/// Where the identifier that starts `rest` ends (C3): at white space, a `"`, an HTML tag,
/// or a closing bracket with no partner inside it. Sentence punctuation at the end is
/// cleaning's to take off. With it, where the first byte a proxy path does not keep as it
/// is lies (the end when there is none): the same pass tells whether a resolver's URL
/// needs decoding.
fn identifier_end(rest: &str) -> (usize, usize) {
    let mut open: [usize; PAIRS.len()] = [0; PAIRS.len()];
    let bytes = rest.as_bytes();
    let mut i = 0;
    let mut unkept = None;
    // Past the longest identifier read, the caller refuses it: no need to look further.
    let limited = &bytes[..bytes.len().min(MAX_IDENTIFIER + 1)];
    loop {
        // Most bytes are ASCII letters, digits and punctuation that neither end an
        // identifier nor open or close a pair: one look at each byte.
        let mask = if unkept.is_none() {
            CONTINUES_KEPT
        } else {
            CONTINUES
        };
        i = crate::dfa::skip(limited, i, &BYTE_CLASSES, u64::from(mask));
        if i >= limited.len() {
            return (limited.len(), unkept.unwrap_or(limited.len()));
        }
        let b = bytes[i];
        if unkept.is_none() && BYTE_CLASSES[usize::from(b)] & KEPT == 0 {
            unkept = Some(i);
        }
        if BYTE_CLASSES[usize::from(b)] & CONTINUES != 0 {
            continue;
        }
        // ASCII white space, '"' and a tag end it (forms.pest, `identifier_end_form`).
        if b.is_ascii()
            && g::IDENTIFIER_END_FORM
                .accepted_prefix(&bytes[i..])
                .is_some()
        {
            return (i, unkept.unwrap_or(i));
        }
        let c = rest[i..].chars().next().expect("a character starts here");
        if is_space(c) {
            return (i, unkept.unwrap_or(i));
        }
        if let Some(k) = PAIRS.iter().position(|&(o, cl)| o == c && o != cl) {
            open[k] += 1;
        } else if let Some(k) = PAIRS.iter().position(|&(o, cl)| cl == c && o != cl) {
            if open[k] == 0 {
                return (i, unkept.unwrap_or(i));
            }
            open[k] -= 1;
        }
        i += c.len_utf8();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// What lets the scan pass over a ':' after anything but a word a written form starts
    /// with: in every form it looks for, the first anchor of the form's prefix (a '/' or a
    /// ':') is a '/', or a ':' with only ASCII letters before it, and a prefix with no
    /// anchor (`DOI `) is followed by a handle, which holds a '/' (a later anchor in the
    /// same token). Every path of UTF-8 through each form's state machine, up to its first
    /// anchor or the end of its prefix.
    #[test]
    fn the_first_colon_of_every_form_follows_letters_only() {
        for dfa in WRITTEN_FORMS
            .iter()
            .chain([&&g::HTTP_FORM, &&g::BARE_DOI_FORM])
        {
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
                        assert!(letters, "{}: a ':' after a non-letter", dfa.rule);
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
            assert!(!seen.is_empty(), "{}", dfa.rule);
        }
    }
}
