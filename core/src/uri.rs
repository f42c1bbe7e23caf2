//! A handle as written in one of its forms: [`HdlUri`], the text, the form, the handle it
//! holds and the query and fragment. Each form's reader and writer is in `forms/`.

use alloc::borrow::Cow;

use crate::error::ParseError;
use crate::escape::decode;
use crate::form::Form;
use crate::handle::{Handle, HandleRef, ReadHandle};
use crate::parts::Span;
use crate::query::ProxyQuery;

/// A handle as written in one of its forms: the text, the form, the handle it holds
/// (percent-decoded), and the query and fragment, raw and decoded on request.
///
/// ```
/// use handle_id::{Form, HdlUri};
///
/// let uri = HdlUri::parse("hdl:10.1045/april%202006?locatt=id:1#top")?;
/// assert_eq!(uri.form(), Form::Hdl);
/// assert_eq!(uri.handle().as_str(), "10.1045/april 2006");
/// assert_eq!(uri.query(), Some("locatt=id:1"));
/// assert_eq!(uri.fragment(), Some("top"));
/// assert_eq!(uri.to_string(), "hdl:10.1045/april%202006?locatt=id:1#top");
/// # Ok::<(), handle_id::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HdlUri<'a> {
    text: &'a str,
    form: Form,
    handle: Cow<'a, str>,
    slash: usize,
    /// Where in the text the handle is written.
    handle_start: usize,
    /// The resolution form's server, or a URL's base (`scheme://host[/fixed segment]`).
    base: Option<Span>,
    query: Option<Span>,
    fragment: Option<Span>,
    /// Read under the CORDRA profile (U5): `Display` writes what the profile reads.
    cordra: bool,
    /// Where the text holds a `%` that the URL wrote as itself in the handle (P3), if it
    /// does.
    literal_percent: Option<usize>,
}

impl<'a> HdlUri<'a> {
    /// A bare handle as a value of this type, of form [`Form::Handle`].
    #[must_use]
    pub fn from_handle(handle: HandleRef<'a>) -> Self {
        let text = handle.as_str();
        Self::assemble(
            text,
            Form::Handle,
            Cow::Borrowed(text),
            handle.prefix().len(),
            0,
            None,
            None,
            None,
        )
    }

    /// Builds a value whose parts the `hdl_uri!` macro checked; not part of the API.
    #[doc(hidden)]
    #[must_use]
    #[allow(clippy::too_many_arguments)]
    pub const fn __from_validated_parts(
        text: &'a str,
        form: u8,
        handle: &'a str,
        slash: usize,
        handle_start: usize,
        base: Option<Span>,
        query: Option<Span>,
        fragment: Option<Span>,
    ) -> Self {
        Self::assemble(
            text,
            Form::__from_index(form),
            Cow::Borrowed(handle),
            slash,
            handle_start,
            base,
            query,
            fragment,
        )
    }

    /// The text as read.
    #[must_use]
    pub fn as_str(&self) -> &'a str {
        self.text
    }

    /// The form it was written in.
    #[must_use]
    pub fn form(&self) -> Form {
        self.form
    }

    /// The handle, percent-decoded.
    #[must_use]
    pub fn handle(&self) -> HandleRef<'_> {
        HandleRef::__from_validated_parts(&self.handle, self.slash)
    }

    /// The handle, owned.
    #[must_use]
    pub fn into_handle(self) -> Handle {
        self.handle().to_handle()
    }

    /// The handle, borrowed from the text where it is a slice of it.
    pub(crate) fn into_read_handle(self) -> ReadHandle<'a> {
        match self.handle {
            Cow::Borrowed(text) => {
                ReadHandle::Slice(HandleRef::__from_validated_parts(text, self.slash))
            }
            Cow::Owned(text) => ReadHandle::Owned(Handle::from_validated_parts(text, self.slash)),
        }
    }

    /// The resolution form's server (U3), or the base a URL was read against
    /// (`https://hdl.handle.net`, with a resolver's fixed first segment if it has one).
    #[must_use]
    pub fn base(&self) -> Option<&'a str> {
        self.base.map(|(s, e)| &self.text[s..e])
    }

    /// Where the handle is written in the text: a byte span of [`as_str`](Self::as_str),
    /// percent-encoded as written.
    ///
    /// ```
    /// use handle_id::{recognize, Options};
    /// let uri = recognize("https://doi.org/10.1000/a%20b?x", &Options::new())?;
    /// assert_eq!(&uri.as_str()[uri.handle_span()], "10.1000/a%20b");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn handle_span(&self) -> core::ops::Range<usize> {
        self.handle_start..self.text_index(self.handle.len())
    }

    /// The byte index in the text of byte `index` of the handle: where the character is
    /// written (the `%` of an escape).
    pub(crate) fn text_index(&self, index: usize) -> usize {
        let rest = &self.text[self.handle_start..];
        // Only these forms percent-decode; in the others the handle is the text as written
        // (a `urn:` form's ':' that becomes the '/' is one byte for one).
        let decodes = !matches!(
            self.form,
            Form::Handle | Form::Doi | Form::UrnHdl | Form::UrnDoi
        );
        self.handle_start
            + if decodes {
                crate::escape::original_index(rest, index)
            } else {
                index.min(rest.len())
            }
    }

    /// The query, raw, without its `?` (U7).
    #[must_use]
    pub fn query(&self) -> Option<&'a str> {
        self.query.map(|(s, e)| &self.text[s..e])
    }

    /// The fragment, raw, without its `#` (U7).
    #[must_use]
    pub fn fragment(&self) -> Option<&'a str> {
        self.fragment.map(|(s, e)| &self.text[s..e])
    }

    /// The query, percent-decoded.
    ///
    /// # Errors
    ///
    /// A bad `%` escape, or decoded bytes that are not UTF-8, with the index into the text.
    pub fn query_decoded(&self) -> Option<Result<Cow<'a, str>, ParseError>> {
        self.query.map(|(s, e)| decode(&self.text[s..e], s))
    }

    /// The fragment, percent-decoded.
    ///
    /// # Errors
    ///
    /// A bad `%` escape, or decoded bytes that are not UTF-8, with the index into the text.
    pub fn fragment_decoded(&self) -> Option<Result<Cow<'a, str>, ParseError>> {
        self.fragment.map(|(s, e)| decode(&self.text[s..e], s))
    }

    /// The query as proxy parameters (P4).
    ///
    /// # Errors
    ///
    /// A parameter the proxy would not accept, with the index into the text.
    pub fn proxy_query(&self) -> Option<Result<ProxyQuery, ParseError>> {
        self.query
            .map(|(s, e)| ProxyQuery::parse(&self.text[s..e]).map_err(|err| err.shifted(s)))
    }
}

impl<'a> HdlUri<'a> {
    /// Assembles a value from parts its readers (`forms/`, the `hdl_uri!`
    /// macro) have checked. `handle_start` is where the handle's text begins in `text`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) const fn assemble(
        text: &'a str,
        form: Form,
        handle: Cow<'a, str>,
        slash: usize,
        handle_start: usize,
        base: Option<Span>,
        query: Option<Span>,
        fragment: Option<Span>,
    ) -> Self {
        Self {
            text,
            form,
            handle,
            slash,
            handle_start,
            base,
            query,
            fragment,
            cordra: false,
            literal_percent: None,
        }
    }

    /// Whether it was read under the CORDRA profile (U5), which its writer follows.
    pub(crate) const fn is_cordra(&self) -> bool {
        self.cordra
    }

    /// The same value, whose text holds at `index` a `%` of the handle that the URL wrote as
    /// itself.
    pub(crate) const fn with_literal_percent(mut self, index: usize) -> Self {
        self.literal_percent = Some(index);
        self
    }

    /// Where the text holds a `%` of the handle that the URL wrote as itself (P3).
    pub(crate) const fn literal_percent(&self) -> Option<usize> {
        self.literal_percent
    }

    /// The same value, read under the CORDRA profile.
    pub(crate) const fn in_cordra_profile(mut self) -> Self {
        self.cordra = true;
        self
    }
}
