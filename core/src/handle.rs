//! Typed handles: [`HandleRef`] borrowed from its text, [`Handle`] owned. Both are the
//! text plus the offset of the separating `/` (H1); every accessor is a slice of it.

use core::borrow::Borrow;
use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::str::FromStr;

use crate::alloc::{borrow::ToOwned, format, string::String};
use crate::error::ParseError;
use crate::validate::parse_handle;

/// The naming authority of every prefix handle (H7, RFC 3651 §3).
const PREFIX_HANDLE_AUTHORITY: &str = "0.NA";
/// The root of the DOI prefixes (H8).
const DOI_ROOT: &str = "10";

/// A validated handle borrowed from its text.
///
/// `Copy`, two words, and constructible in `const` context through `handle_id::hdl!`.
/// Equality, ordering and hashing are those of the exact text (case-sensitive, H6, D6); see
/// [`Caseless`] for the ASCII-case-insensitive comparison DOIs need.
///
/// ```
/// use handle_id::HandleRef;
///
/// let h = HandleRef::parse("10.978.8896471/foo/bar")?;
/// assert_eq!(h.prefix(), "10.978.8896471");
/// assert_eq!(h.local_name(), "foo/bar");
/// assert_eq!(h.prefix_segments().collect::<Vec<_>>(), ["10", "978", "8896471"]);
/// assert!(h.is_doi());
/// # Ok::<(), handle_id::ParseError>(())
/// ```
#[derive(Clone, Copy)]
pub struct HandleRef<'a> {
    text: &'a str,
    slash: usize,
}

/// A validated handle that owns its text. The owned form of [`HandleRef`], with the same
/// accessors; [`Handle::as_handle_ref`] borrows it as one.
///
/// ```
/// use handle_id::Handle;
///
/// let h: Handle = "20.1000/5555".parse()?;
/// assert_eq!(h.prefix(), "20.1000");
/// assert_eq!(h.to_string(), "20.1000/5555");
/// # Ok::<(), handle_id::ParseError>(())
/// ```
#[derive(Clone)]
pub struct Handle {
    text: String,
    slash: usize,
}

impl<'a> HandleRef<'a> {
    /// Parses a bare handle (H1–H4). No form is recognised here: `hdl:1234/567` is the
    /// handle with naming authority `hdl:1234` (D5), and nothing is trimmed or decoded.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] with the byte index and the grammar element that failed when `text`
    /// is not a handle: no `/`, an empty naming authority segment, or a character the naming
    /// authority excludes (`@`, D1).
    pub fn parse(text: &'a str) -> Result<Self, ParseError> {
        let slash = parse_handle(text)?;
        Ok(Self { text, slash })
    }

    /// Parses bytes as a bare handle: first as UTF-8 (H5), then as [`HandleRef::parse`]
    /// does. For input read from files and streams, where bytes that are not UTF-8 are an
    /// error with their index, never a panic or a replacement character.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] of kind [`InvalidUtf8`](crate::ParseErrorKind::InvalidUtf8) at the
    /// first byte that is not UTF-8, or any error of [`HandleRef::parse`].
    ///
    /// ```
    /// use handle_id::{HandleRef, ParseErrorKind};
    /// assert_eq!(HandleRef::parse_bytes(b"10.1000/x")?.local_name(), "x");
    /// let err = HandleRef::parse_bytes(b"10.1000/\xff").unwrap_err();
    /// assert_eq!((err.index(), err.kind()), (8, ParseErrorKind::InvalidUtf8));
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    pub fn parse_bytes(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let text = core::str::from_utf8(bytes).map_err(|e| {
            ParseError::new(
                e.valid_up_to(),
                crate::error::ParseErrorKind::InvalidUtf8,
                None,
            )
        })?;
        Self::parse(text)
    }

    /// Builds a handle from parts that were validated elsewhere. For `handle_id::hdl!`
    /// only: the proc macro checked the literal and computed `slash`.
    #[doc(hidden)]
    #[must_use]
    pub const fn __from_validated_parts(text: &'a str, slash: usize) -> Self {
        Self { text, slash }
    }

    /// The exact text.
    #[must_use]
    pub const fn as_str(&self) -> &'a str {
        self.text
    }

    /// The naming authority, also called the prefix: the text before the first `/` (H1).
    #[must_use]
    pub fn prefix(&self) -> &'a str {
        &self.text[..self.slash]
    }

    /// The local name, also called the suffix: the text after the first `/`, which may hold
    /// more `/` and may be empty (H4, D2).
    #[must_use]
    pub fn local_name(&self) -> &'a str {
        &self.text[self.slash + 1..]
    }

    /// The segments of the naming authority, from the root: `10.978.8896471` gives `10`,
    /// `978`, `8896471` (H2). Never empty, and no segment is empty.
    pub fn prefix_segments(&self) -> core::str::Split<'a, char> {
        self.prefix().split('.')
    }

    /// The prefix this handle's prefix is derived from (H7): `10.978` for
    /// `10.978.8896471/x`, `10` for `10.978/x`, and `None` for a primary prefix such as `10`.
    ///
    /// ```
    /// let h = handle_id::HandleRef::parse("10.978.8896471/x")?;
    /// assert_eq!(h.parent_prefix(), Some("10.978"));
    /// assert_eq!(h.prefix_ancestors().collect::<Vec<_>>(), ["10.978", "10"]);
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn parent_prefix(&self) -> Option<&'a str> {
        parent_of(self.prefix())
    }

    /// Every prefix this handle's prefix is derived from, nearest first (H7).
    pub fn prefix_ancestors(&self) -> impl Iterator<Item = &'a str> + Clone {
        core::iter::successors(self.parent_prefix(), |p| parent_of(p))
    }

    /// The prefix handle of this handle's prefix: `0.NA/<prefix>` (H7), where the prefix is
    /// registered.
    ///
    /// ```
    /// let h = handle_id::HandleRef::parse("10.1045/april2006-paskin")?;
    /// assert_eq!(h.prefix_handle().as_str(), "0.NA/10.1045");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn prefix_handle(&self) -> Handle {
        let text = format!("{PREFIX_HANDLE_AUTHORITY}/{}", self.prefix());
        Handle {
            text,
            slash: PREFIX_HANDLE_AUTHORITY.len(),
        }
    }

    /// Whether this handle's prefix is derived from `prefix` (H7): `12345.1/x` is derived
    /// from `12345`, and so is `12345.1.7/x`. A prefix is not derived from itself, nor is
    /// `123456/x` from `12345`. Prefixes compare ignoring ASCII case, as the global
    /// service declares (H6).
    ///
    /// ```
    /// let h = handle_id::HandleRef::parse("12345.1/x")?;
    /// assert!(h.is_derived_from("12345"));
    /// assert!(!h.is_derived_from("12345.1"));
    /// assert!(!h.is_derived_from("1234"));
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn is_derived_from(&self, prefix: &str) -> bool {
        // An ancestor is the prefix cut before one of its dots: `prefix` then a '.'.
        let own = self.prefix_bytes();
        own.len() > prefix.len()
            && own[prefix.len()] == b'.'
            && own[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
    }

    /// Whether this is a DOI: its prefix is `10` or derived from `10` (H8).
    ///
    /// ```
    /// use handle_id::HandleRef;
    /// assert!(HandleRef::parse("10.1000/182")?.is_doi());
    /// assert!(!HandleRef::parse("20.1000/5555")?.is_doi());
    /// assert!(!HandleRef::parse("100.1/x")?.is_doi());
    /// assert!(HandleRef::parse("10/x")?.is_doi() && !HandleRef::parse("1/x")?.is_doi());
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn is_doi(&self) -> bool {
        // (Of the bytes, and the root's digits compared as they are, having no case:
        // cleaning asks it of every handle. A test holds it to `is_derived_from`.)
        let (own, root) = (self.prefix_bytes(), DOI_ROOT.as_bytes());
        own.starts_with(root) && (own.len() == root.len() || own[root.len()] == b'.')
    }

    /// The naming authority's bytes, without a look for a character's boundary.
    fn prefix_bytes(&self) -> &'a [u8] {
        &self.text.as_bytes()[..self.slash]
    }

    /// The canonical form (C1): a DOI (H8) in ASCII lowercase, as DOIs are case-insensitive
    /// and Crossref's and DataCite's APIs write them; any other handle as it is, since
    /// handles are case-sensitive unless a service declares otherwise (H6). Non-ASCII
    /// characters are never case-folded.
    ///
    /// ```
    /// use handle_id::HandleRef;
    /// let doi = HandleRef::parse("10.1045/APRIL2006-Paskin")?;
    /// assert_eq!(doi.canonical().as_str(), "10.1045/april2006-paskin");
    /// let other = HandleRef::parse("20.1000/ABC")?;
    /// assert_eq!(other.canonical().as_str(), "20.1000/ABC");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn canonical(&self) -> Handle {
        let mut text = String::with_capacity(self.text.len());
        self.write_canonical(&mut text);
        // ASCII lowercase keeps every byte's place: the '/' stays where it was.
        Handle {
            text,
            slash: self.slash,
        }
    }

    /// The canonical text ([`HandleRef::canonical`]) appended to `out`, for a caller
    /// that keeps one buffer for many handles.
    pub(crate) fn write_canonical(&self, out: &mut String) {
        self.write_canonical_of(self.is_doi(), out);
    }

    /// [`write_canonical`](Self::write_canonical), whether it is a DOI known.
    pub(crate) fn write_canonical_of(&self, doi: bool, out: &mut String) {
        let from = out.len();
        out.push_str(self.text);
        if doi {
            out[from..].make_ascii_lowercase();
        }
    }

    /// Whether the handle is written in its canonical form ([`HandleRef::canonical`] would
    /// give the same text): what a caller that only needs the canonical text can check
    /// before building it.
    ///
    /// ```
    /// use handle_id::HandleRef;
    /// assert!(HandleRef::parse("10.1045/april2006-paskin")?.is_canonical());
    /// assert!(!HandleRef::parse("10.1045/APRIL2006-Paskin")?.is_canonical());
    /// assert!(HandleRef::parse("20.1000/ABC")?.is_canonical());
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn is_canonical(&self) -> bool {
        self.is_canonical_of(self.is_doi())
    }

    /// [`is_canonical`](Self::is_canonical), whether it is a DOI known.
    pub(crate) fn is_canonical_of(&self, doi: bool) -> bool {
        !doi || !crate::bytes::has_ascii_uppercase(self.text.as_bytes())
    }

    /// Whether this is a prefix handle, `0.NA/<prefix>` (H7). `0.NA` compares ignoring ASCII
    /// case, as prefixes do in the global service (H6).
    #[must_use]
    pub fn is_prefix_handle(&self) -> bool {
        self.prefix().eq_ignore_ascii_case(PREFIX_HANDLE_AUTHORITY)
    }

    /// Whether two handles are equal ignoring ASCII case (H6): what a service that declares
    /// case-insensitivity, and every DOI, means by "the same handle". No Unicode folding.
    #[must_use]
    pub fn eq_ignore_ascii_case(&self, other: &HandleRef<'_>) -> bool {
        self.text.eq_ignore_ascii_case(other.text)
    }

    /// An owned copy.
    #[must_use]
    pub fn to_handle(self) -> Handle {
        Handle {
            text: self.text.to_owned(),
            slash: self.slash,
        }
    }
}

/// The prefix `prefix` is derived from, if any: everything before its last `.` (H7).
fn parent_of(prefix: &str) -> Option<&str> {
    prefix.rfind('.').map(|dot| &prefix[..dot])
}

/// A handle read from a text: a slice of it where it is written as it is, owned where it
/// was decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReadHandle<'a> {
    Slice(HandleRef<'a>),
    Owned(Handle),
}

impl ReadHandle<'_> {
    pub(crate) fn as_handle_ref(&self) -> HandleRef<'_> {
        match self {
            ReadHandle::Slice(h) => *h,
            ReadHandle::Owned(h) => h.as_handle_ref(),
        }
    }

    pub(crate) fn into_handle(self) -> Handle {
        match self {
            ReadHandle::Slice(h) => h.to_handle(),
            ReadHandle::Owned(h) => h,
        }
    }
}

impl Handle {
    /// A handle of `text`, validated elsewhere, its `/` at `slash` (a decoded handle
    /// kept, not copied again).
    pub(crate) fn from_validated_parts(text: String, slash: usize) -> Self {
        Self { text, slash }
    }

    /// Parses a bare handle; see [`HandleRef::parse`].
    ///
    /// # Errors
    ///
    /// A [`ParseError`] when `text` is not a handle.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        HandleRef::parse(text).map(|h| h.to_handle())
    }

    /// Borrows this handle as a [`HandleRef`].
    #[must_use]
    pub fn as_handle_ref(&self) -> HandleRef<'_> {
        HandleRef {
            text: &self.text,
            slash: self.slash,
        }
    }

    /// The exact text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The text, giving up the handle.
    #[must_use]
    pub fn into_string(self) -> String {
        self.text
    }

    /// The naming authority; see [`HandleRef::prefix`].
    #[must_use]
    pub fn prefix(&self) -> &str {
        self.as_handle_ref().prefix()
    }

    /// The local name; see [`HandleRef::local_name`].
    #[must_use]
    pub fn local_name(&self) -> &str {
        self.as_handle_ref().local_name()
    }

    /// The naming authority's segments; see [`HandleRef::prefix_segments`].
    pub fn prefix_segments(&self) -> core::str::Split<'_, char> {
        self.as_handle_ref().prefix_segments()
    }

    /// The parent prefix; see [`HandleRef::parent_prefix`].
    #[must_use]
    pub fn parent_prefix(&self) -> Option<&str> {
        self.as_handle_ref().parent_prefix()
    }

    /// The prefixes this one is derived from; see [`HandleRef::prefix_ancestors`].
    pub fn prefix_ancestors(&self) -> impl Iterator<Item = &str> + Clone {
        self.as_handle_ref().prefix_ancestors()
    }

    /// The prefix handle `0.NA/<prefix>`; see [`HandleRef::prefix_handle`].
    #[must_use]
    pub fn prefix_handle(&self) -> Handle {
        self.as_handle_ref().prefix_handle()
    }

    /// See [`HandleRef::is_derived_from`].
    #[must_use]
    pub fn is_derived_from(&self, prefix: &str) -> bool {
        self.as_handle_ref().is_derived_from(prefix)
    }

    /// See [`HandleRef::is_doi`].
    #[must_use]
    pub fn is_doi(&self) -> bool {
        self.as_handle_ref().is_doi()
    }

    /// The canonical form (C1); see [`HandleRef::canonical`].
    #[must_use]
    pub fn canonical(&self) -> Handle {
        self.as_handle_ref().canonical()
    }

    /// See [`HandleRef::is_prefix_handle`].
    #[must_use]
    pub fn is_prefix_handle(&self) -> bool {
        self.as_handle_ref().is_prefix_handle()
    }

    /// See [`HandleRef::eq_ignore_ascii_case`].
    #[must_use]
    pub fn eq_ignore_ascii_case(&self, other: &Handle) -> bool {
        self.text.eq_ignore_ascii_case(&other.text)
    }
}

// Equality, ordering and hashing: those of the exact text, so that a `Handle` can be looked
// up by `&str` (`Borrow<str>`) and the two types agree.

impl PartialEq for HandleRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}
impl Eq for HandleRef<'_> {}
impl PartialOrd for HandleRef<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for HandleRef<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.text.cmp(other.text)
    }
}
impl Hash for HandleRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl PartialEq for Handle {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}
impl Eq for Handle {}
impl PartialOrd for Handle {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Handle {
    fn cmp(&self, other: &Self) -> Ordering {
        self.text.cmp(&other.text)
    }
}
impl Hash for Handle {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl PartialEq<HandleRef<'_>> for Handle {
    fn eq(&self, other: &HandleRef<'_>) -> bool {
        self.text == other.text
    }
}
impl PartialEq<Handle> for HandleRef<'_> {
    fn eq(&self, other: &Handle) -> bool {
        self.text == other.text
    }
}
impl PartialEq<str> for HandleRef<'_> {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}
impl PartialEq<&str> for HandleRef<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}
impl PartialEq<str> for Handle {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}
impl PartialEq<&str> for Handle {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl Borrow<str> for Handle {
    fn borrow(&self) -> &str {
        &self.text
    }
}
impl AsRef<str> for Handle {
    fn as_ref(&self) -> &str {
        &self.text
    }
}
impl AsRef<str> for HandleRef<'_> {
    fn as_ref(&self) -> &str {
        self.text
    }
}

impl fmt::Display for HandleRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text)
    }
}
impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
impl fmt::Debug for HandleRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("HandleRef").field(&self.text).finish()
    }
}
impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Handle").field(&self.text).finish()
    }
}

impl FromStr for Handle {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}
impl<'a> TryFrom<&'a str> for HandleRef<'a> {
    type Error = ParseError;
    fn try_from(s: &'a str) -> Result<Self, Self::Error> {
        Self::parse(s)
    }
}
impl TryFrom<&str> for Handle {
    type Error = ParseError;
    fn try_from(s: &str) -> Result<Self, Self::Error> {
        Self::parse(s)
    }
}
impl TryFrom<String> for Handle {
    type Error = ParseError;
    /// Takes the string without copying it.
    fn try_from(text: String) -> Result<Self, Self::Error> {
        let slash = parse_handle(&text)?;
        Ok(Self { text, slash })
    }
}
impl From<HandleRef<'_>> for Handle {
    fn from(h: HandleRef<'_>) -> Self {
        h.to_handle()
    }
}
impl<'a> From<&'a Handle> for HandleRef<'a> {
    fn from(h: &'a Handle) -> Self {
        h.as_handle_ref()
    }
}
impl From<Handle> for String {
    fn from(h: Handle) -> Self {
        h.text
    }
}

/// A key that compares, orders and hashes its text ignoring ASCII case (H6, D6), for
/// services that declare case-insensitivity and for DOIs. No Unicode case folding.
///
/// ```
/// use std::collections::HashSet;
/// use handle_id::{Caseless, HandleRef};
///
/// let mut seen = HashSet::new();
/// assert!(seen.insert(Caseless(HandleRef::parse("10.1000/ABC")?)));
/// assert!(!seen.insert(Caseless(HandleRef::parse("10.1000/abc")?)));
/// # Ok::<(), handle_id::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Caseless<T>(pub T);

impl<T: AsRef<str>> Caseless<T> {
    fn folded(&self) -> impl Iterator<Item = u8> + '_ {
        self.0.as_ref().bytes().map(|b| b.to_ascii_lowercase())
    }
}
impl<T: AsRef<str>> PartialEq for Caseless<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_ref().eq_ignore_ascii_case(other.0.as_ref())
    }
}
impl<T: AsRef<str>> Eq for Caseless<T> {}
impl<T: AsRef<str>> PartialOrd for Caseless<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: AsRef<str>> Ord for Caseless<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.folded().cmp(other.folded())
    }
}
impl<T: AsRef<str>> Hash for Caseless<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for b in self.folded() {
            state.write_u8(b);
        }
        // The terminator that `str`'s own `Hash` writes, so that prefixes differ.
        state.write_u8(0xff);
    }
}
