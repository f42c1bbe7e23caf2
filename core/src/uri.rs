//! Every written form of a handle: reading (`recognize`, `HdlUri::parse`) and writing.
//!
//! Each form's grammar (grammar/hdl-uri.pest, cordra-uri.pest, info-uri.pest,
//! proxy-url.pest) decides through its generated validator; which form a string is in is
//! decided by the prefix rules of grammar/forms.pest. What is left here is finding the
//! parts of the validated text (for `hdl:` URIs, from the rules the validator reports
//! entering as it walks; for the other forms, at their delimiters; both checked against the
//! grammars' parse trees in tests/uri_grammar.rs), percent-decoding, and the handle grammar
//! on the decoded handle.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};
use core::str::FromStr;

use crate::dfa::{Dfa, Reject, Sink};
use crate::error::{ParseError, ParseErrorKind};
use crate::escape::{self, decode, original_index};
use crate::generated::{self as g, Label};
use crate::handle::{Handle, HandleRef, ReadHandle};
use crate::proxy::{self, ProxyBase, ProxyQuery};
use crate::validate::parse_handle;

/// A byte range `start..end` of the input.
type Span = (usize, usize);

/// The written forms of a handle (SPEC D5), as [`recognize`] reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Form {
    /// A bare handle, `10.1000/182` (H1, U9).
    Handle,
    /// The `hdl:` path form, `hdl:10.1000/182` (U1).
    Hdl,
    /// The `hdl://` host form, `hdl://10.1000/182` (U2, D4).
    HdlHost,
    /// The resolution form `hdl://<server>/<handle>`, read only on request (U3).
    HdlResolution,
    /// `info:hdl/<handle>` (U8, RFC 4452).
    InfoHdl,
    /// `info:doi/<doi>` (U8, RFC 4452).
    InfoDoi,
    /// `doi:<doi>`, a textual prefix (U8).
    Doi,
    /// `urn:hdl:<na>:<local>`, a textual prefix (U8).
    UrnHdl,
    /// `urn:doi:<na>:<local>`, a textual prefix (U8).
    UrnDoi,
    /// A proxy or resolver URL, `https://hdl.handle.net/<handle>` (P1, P3).
    Proxy,
    /// A REST API URL, `https://hdl.handle.net/api/handles/<handle>` (P5).
    Api,
    /// A repository page of the DSpace kind, `https://repo.example/handle/<handle>`, read
    /// only on request.
    Repository,
}

impl Form {
    /// Every form, in the order of the variants.
    pub const ALL: [Form; 12] = [
        Form::Handle,
        Form::Hdl,
        Form::HdlHost,
        Form::HdlResolution,
        Form::InfoHdl,
        Form::InfoDoi,
        Form::Doi,
        Form::UrnHdl,
        Form::UrnDoi,
        Form::Proxy,
        Form::Api,
        Form::Repository,
    ];

    /// The form's name, as the `hdl` command's JSON and `--to` write it: `handle`, `hdl`,
    /// `hdl-host`, `hdl-resolution`, `info-hdl`, `info-doi`, `doi`, `urn-hdl`, `urn-doi`,
    /// `proxy`, `api`, `repository`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Form::Handle => "handle",
            Form::Hdl => "hdl",
            Form::HdlHost => "hdl-host",
            Form::HdlResolution => "hdl-resolution",
            Form::InfoHdl => "info-hdl",
            Form::InfoDoi => "info-doi",
            Form::Doi => "doi",
            Form::UrnHdl => "urn-hdl",
            Form::UrnDoi => "urn-doi",
            Form::Proxy => "proxy",
            Form::Api => "api",
            Form::Repository => "repository",
        }
    }

    /// The form with index `i` in [`Form::ALL`]; for the macros.
    #[doc(hidden)]
    #[must_use]
    pub const fn __from_index(i: u8) -> Self {
        Self::ALL[i as usize]
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Form {
    type Err = ParseError;
    /// A form by its [`name`](Form::name).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Form::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or(ParseError::new(
                0,
                ParseErrorKind::NotAHandleForm,
                s.chars().next(),
            ))
    }
}

/// What [`recognize`] reads besides the forms it always reads.
///
/// ```
/// use handle_id::{recognize, Form, Options, ProxyBase};
///
/// let options = Options::new()
///     .proxy_base(ProxyBase::parse("http://arrow.resolver.au.gov:2641/hdl")?)
///     .repository_urls(true);
/// let uri = recognize(
///     "http://arrow.resolver.au.gov:2641/hdl/100.102/F58FB49EB1F848f0A606E84CEF294BE5",
///     &options,
/// )?;
/// assert_eq!(uri.form(), Form::Proxy);
/// assert_eq!(uri.handle().prefix(), "100.102");
/// let page = recognize("https://repo.example/handle/10986/36154", &options)?;
/// assert_eq!((page.form(), page.handle().as_str()), (Form::Repository, "10986/36154"));
/// # Ok::<(), handle_id::ParseError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub(crate) bases: alloc::vec::Vec<ProxyBase>,
    pub(crate) repository_urls: bool,
    pub(crate) resolution_form: bool,
    pub(crate) cordra: bool,
    /// Prefixes under which extraction reads bare handles (C3).
    pub(crate) prefixes: alloc::vec::Vec<String>,
}

impl Options {
    /// The defaults: the known proxies (`hdl.handle.net`, `doi.org`, `dx.doi.org`,
    /// `www.doi.org`) and nothing else.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// For [`extract`](crate::extract): also find bare handles under `prefix`
    /// (`20.500.12345` finds `20.500.12345/abc` written bare in a text). DOIs written bare
    /// are found without it; a bare `1234/567` in prose is otherwise no evidence of a handle.
    #[must_use]
    pub fn handle_prefix(mut self, prefix: &str) -> Self {
        self.prefixes.push(String::from(prefix));
        self
    }

    /// Also read URLs of the resolver at `base` (P1).
    #[must_use]
    pub fn proxy_base(mut self, base: ProxyBase) -> Self {
        self.bases.push(base);
        self
    }

    /// Read repository pages of the DSpace kind (`…/handle/<handle>`) on any host. Off by
    /// default: any site may use such a path.
    #[must_use]
    pub fn repository_urls(mut self, on: bool) -> Self {
        self.repository_urls = on;
        self
    }

    /// Read `hdl://a/b/c` as the resolution form, server `a` and handle `b/c` (U3), instead
    /// of the handle `a/b/c` (D4).
    #[must_use]
    pub fn resolution_form(mut self, on: bool) -> Self {
        self.resolution_form = on;
        self
    }

    /// Apply CORDRA's profile (U5): `hdl://` host not empty and one path segment, `hdl:`
    /// exactly two non-empty segments (a `/` in the local name written `%2F`), and CORDRA's
    /// HTTP encoding for URLs.
    #[must_use]
    pub fn cordra(mut self, on: bool) -> Self {
        self.cordra = on;
        self
    }
}

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
    /// The resolution form's server, or a URL's base (`scheme://host[/fixed segment]`).
    base: Option<Span>,
    query: Option<Span>,
    fragment: Option<Span>,
    /// Read under the CORDRA profile (U5): `Display` writes what the profile reads.
    cordra: bool,
    /// Where the handle holds a `%` that the URL wrote as itself (P3), if it does.
    literal_percent: Option<usize>,
}

impl<'a> HdlUri<'a> {
    /// Reads an `hdl:` URI: the path form `hdl:<handle>` (U1) or the host form
    /// `hdl://<handle>` (U2, D4), with optional query and fragment (U7). The scheme is
    /// case-insensitive (U4). Use [`recognize`] for every other form.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] with the byte index into `text`, also inside percent-encoded parts:
    /// a character the URI grammar does not allow ([`ParseErrorKind::UriSyntax`], naming
    /// the rule), a bad `%` escape, decoded bytes that are not UTF-8, or a decoded handle
    /// that is not a handle.
    pub fn parse(text: &'a str) -> Result<Self, ParseError> {
        // No string is in both forms (hdl-uri.pest): try the common one first, and let the
        // forms grammar say whose rejection to report when neither reads the text.
        let mut parts = HdlParts::default();
        let form = match scan_hdl(text, Form::Hdl, &mut parts) {
            Ok(()) => Form::Hdl,
            Err(path) => {
                parts = HdlParts::default();
                match scan_hdl(text, Form::HdlHost, &mut parts) {
                    Ok(()) => Form::HdlHost,
                    Err(host) => {
                        let host_form = g::run_hdl_host_form(text.as_bytes()).is_ok();
                        return Err(uri_error(text, if host_form { host } else { path }));
                    }
                }
            }
        };
        read_hdl_parts(text, form, &parts)
    }

    /// A bare handle as a value of this type, of form [`Form::Handle`].
    #[must_use]
    pub fn from_handle(handle: HandleRef<'a>) -> Self {
        let text = handle.as_str();
        Self::assemble(
            text,
            Form::Handle,
            Cow::Borrowed(text),
            handle.prefix().len(),
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
        base: Option<Span>,
        query: Option<Span>,
        fragment: Option<Span>,
    ) -> Self {
        Self::assemble(
            text,
            Form::__from_index(form),
            Cow::Borrowed(handle),
            slash,
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
            Cow::Owned(text) => {
                ReadHandle::Owned(HandleRef::__from_validated_parts(&text, self.slash).to_handle())
            }
        }
    }

    /// The resolution form's server (U3), or the base a URL was read against
    /// (`https://hdl.handle.net`, with a resolver's fixed first segment if it has one).
    #[must_use]
    pub fn base(&self) -> Option<&'a str> {
        self.base.map(|(s, e)| &self.text[s..e])
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

impl fmt::Display for HdlUri<'_> {
    /// The canonical text of the form: the handle encoded as the form's rules say (U6, U8,
    /// P2), after the scheme or base in lower case, then the query and fragment as read.
    /// It reads back as the same handle under the options it was read with: under the
    /// CORDRA profile (U5), a `/` in the local name of the `hdl:` and HTTP forms is written
    /// `%2F`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = self.handle();
        let hdl = HdlEncoded(h, self.cordra);
        match self.form {
            Form::Handle => f.write_str(h.as_str())?,
            Form::Hdl => write!(f, "hdl:{hdl}")?,
            Form::HdlHost => write!(f, "hdl://{hdl}")?,
            Form::HdlResolution => {
                write!(f, "hdl://{}/{hdl}", self.base().unwrap_or(""))?;
            }
            Form::InfoHdl | Form::InfoDoi => {
                let ns = if self.form == Form::InfoHdl {
                    "hdl"
                } else {
                    "doi"
                };
                write!(
                    f,
                    "info:{ns}/{}",
                    escape::INFO_IDENTIFIER.encode(h.as_str())
                )?;
            }
            Form::Doi => write!(f, "doi:{}", h)?,
            Form::UrnHdl | Form::UrnDoi => {
                let ns = if self.form == Form::UrnHdl {
                    "hdl"
                } else {
                    "doi"
                };
                write!(f, "urn:{ns}:{}:{}", h.prefix(), h.local_name())?;
            }
            Form::Proxy | Form::Api | Form::Repository => {
                let base = self.base().unwrap_or("");
                let (scheme, rest) = base.split_once("://").unwrap_or(("https", base));
                let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
                write!(
                    f,
                    "{}://{}",
                    scheme.to_ascii_lowercase(),
                    host.to_ascii_lowercase()
                )?;
                if !path.is_empty() {
                    write!(f, "/{path}")?;
                }
                f.write_str(match self.form {
                    Form::Api => "/api/handles/",
                    Form::Repository => "/handle/",
                    _ => "/",
                })?;
                proxy::write_proxy_path(f, h, self.cordra)?;
            }
        }
        if let Some(q) = self.query() {
            write!(f, "?{q}")?;
        }
        if let Some(fr) = self.fragment() {
            write!(f, "#{fr}")?;
        }
        Ok(())
    }
}

/// A handle written for an `hdl:` URI: segments and local name escaped as U6 says, and, for
/// the CORDRA profile (`true`), a `/` in the local name too (U5).
struct HdlEncoded<'a>(HandleRef<'a>, bool);

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

    /// The handle as an `info:` URI (U8): `info:doi/` for a DOI (H8), `info:hdl/` otherwise.
    ///
    /// ```
    /// use handle_id::HandleRef;
    /// assert_eq!(HandleRef::parse("10.1000/1#2")?.to_info_uri(), "info:doi/10.1000/1%232");
    /// assert_eq!(HandleRef::parse("20.1000/5555")?.to_info_uri(), "info:hdl/20.1000/5555");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn to_info_uri(self) -> String {
        let ns = if self.is_doi() { "doi" } else { "hdl" };
        alloc::format!(
            "info:{ns}/{}",
            escape::INFO_IDENTIFIER.encode(self.as_str())
        )
    }

    /// The handle in `form`, with `base` for the URL forms (the default base of
    /// [`ProxyBase::default_for`] when `None`). The server of the resolution form is the
    /// base's host. Reading the text under the same options gives the handle back.
    ///
    /// ```
    /// use handle_id::{Form, HandleRef, ParseErrorKind};
    /// let h = HandleRef::parse("10.1000/182")?;
    /// assert_eq!(h.to_form(Form::UrnDoi, None)?, "urn:doi:10.1000:182");
    /// // A urn: form turns its first ':' into '/': `a:b/c` has none (U8).
    /// let colon = HandleRef::parse("a:b/c")?;
    /// let err = colon.to_form(Form::UrnHdl, None).unwrap_err();
    /// assert_eq!((err.kind(), err.index()), (ParseErrorKind::Unwritable, 1));
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ParseError`] of kind [`ParseErrorKind::Unwritable`] when no text in `form` reads
    /// back as this handle: the `urn:` forms of a handle whose naming authority holds a
    /// `:` (at its index). Every other form writes every handle.
    pub fn to_form(self, form: Form, base: Option<&ProxyBase>) -> Result<String, ParseError> {
        let default;
        let base = match base {
            Some(b) => b,
            None => {
                default = ProxyBase::default_for(self);
                &default
            }
        };
        if matches!(form, Form::UrnHdl | Form::UrnDoi) {
            if let Some(colon) = self.prefix().find(':') {
                return Err(
                    ParseError::new(colon, ParseErrorKind::Unwritable, Some(':')).in_rule("urn"),
                );
            }
        }
        Ok(match form {
            Form::Handle => String::from(self.as_str()),
            Form::Hdl => self.to_hdl_uri(),
            Form::HdlHost => self.to_hdl_host_uri(),
            Form::HdlResolution => {
                alloc::format!("hdl://{}/{}", base.host(), HdlEncoded(self, false))
            }
            Form::InfoHdl => {
                alloc::format!("info:hdl/{}", escape::INFO_IDENTIFIER.encode(self.as_str()))
            }
            Form::InfoDoi => {
                alloc::format!("info:doi/{}", escape::INFO_IDENTIFIER.encode(self.as_str()))
            }
            Form::Doi => alloc::format!("doi:{}", self.as_str()),
            Form::UrnHdl => alloc::format!("urn:hdl:{}:{}", self.prefix(), self.local_name()),
            Form::UrnDoi => alloc::format!("urn:doi:{}:{}", self.prefix(), self.local_name()),
            Form::Proxy => base.url(self),
            Form::Api => base.api_url(self),
            Form::Repository => {
                let mut s = alloc::format!("{}/handle/", base.as_str());
                proxy::write_proxy_path(&mut s, self, false).expect("a String takes any text");
                s
            }
        })
    }
}

/// Reads any written form of a handle and says which it found (D5): `hdl:` and `hdl://`
/// URIs, `info:hdl/`, `info:doi/`, `doi:`, `urn:hdl:`, `urn:doi:`, URLs of the known
/// proxies and of the bases `options` names, REST API URLs, and bare handles. A string with
/// no scheme is a bare handle (U9); a URL of another site, or a URI of another scheme, is
/// not a handle.
///
/// # Errors
///
/// A [`ParseError`] with the byte index into `text`, also inside percent-encoded parts.
///
/// ```
/// use handle_id::{recognize, Form, Options};
///
/// let o = Options::new();
/// let uri = recognize("https://hdl.handle.net/20.1000/5555%23resolve?noredirect", &o)?;
/// assert_eq!(uri.form(), Form::Proxy);
/// assert_eq!(uri.handle().as_str(), "20.1000/5555#resolve");
/// assert!(uri.proxy_query().unwrap()?.noredirect);
///
/// assert_eq!(recognize("urn:doi:10.123:456", &o)?.handle().as_str(), "10.123/456");
/// assert_eq!(recognize("info:hdl/1234/567", &o)?.form(), Form::InfoHdl);
/// assert!(recognize("https://example.com/10.1000/182", &o).is_err());
/// # Ok::<(), handle_id::ParseError>(())
/// ```
pub fn recognize<'a>(text: &'a str, options: &Options) -> Result<HdlUri<'a>, ParseError> {
    let Some(form) = prefix_form(text, options) else {
        return Err(ParseError::new(
            0,
            ParseErrorKind::NotAHandleForm,
            text.chars().next(),
        ));
    };
    let read = match form {
        Form::HdlResolution => read_hdl(text, &g::HDL_RESOLUTION, form),
        Form::HdlHost | Form::Hdl if !options.cordra => read_hdl_uri(text, form),
        Form::HdlHost => read_hdl(text, &g::CORDRA_HOST, form),
        Form::Hdl => read_hdl(text, &g::CORDRA_PATH, form),
        Form::InfoHdl | Form::InfoDoi => read_info(text, form),
        Form::Doi | Form::UrnHdl | Form::UrnDoi => read_textual(text, form),
        Form::Proxy | Form::Api | Form::Repository => proxy::read_url(text, options),
        Form::Handle => HandleRef::parse(text).map(HdlUri::from_handle),
    };
    if options.cordra {
        read.map(HdlUri::in_cordra_profile)
    } else {
        read
    }
}

/// The form `text` is written in, judged by its prefix alone (grammar/forms.pest): what
/// [`recognize`] will read it as, whether or not the rest is right. `None` for a URI or URL
/// of a form that holds no handle.
///
/// ```
/// use handle_id::{detect, Form, Options};
/// let o = Options::new();
/// assert_eq!(detect("hdl:1234/a b", &o), Some(Form::Hdl));
/// assert_eq!(detect("HTTPS://doi.org/10.1/x", &o), Some(Form::Proxy));
/// assert_eq!(detect("https://doi.org/api/handles/10.1/x", &o), Some(Form::Api));
/// assert_eq!(detect("urn:isbn:0451450523", &o), None);
/// assert_eq!(detect("1234/567", &o), Some(Form::Handle));
/// ```
#[must_use]
pub fn detect(text: &str, options: &Options) -> Option<Form> {
    match prefix_form(text, options)? {
        // Which of the URL forms it is depends on the base and the path.
        Form::Proxy => Some(recognize(text, options).map_or(Form::Proxy, |u| u.form())),
        form => Some(form),
    }
}

/// The prefix rules of grammar/forms.pest, in the order they are tried, and the form each
/// recognises; `None` for the forms that hold no handle. Every HTTP(S) URL is `Proxy` here.
static FORM_PREFIXES: [(&Dfa, Option<Form>); 11] = [
    (&g::HDL_HOST_FORM, Some(Form::HdlHost)),
    (&g::HDL_FORM, Some(Form::Hdl)),
    (&g::INFO_HDL_FORM, Some(Form::InfoHdl)),
    (&g::INFO_DOI_FORM, Some(Form::InfoDoi)),
    (&g::DOI_FORM, Some(Form::Doi)),
    (&g::URN_HDL_FORM, Some(Form::UrnHdl)),
    (&g::URN_DOI_FORM, Some(Form::UrnDoi)),
    (&g::HTTP_FORM, Some(Form::Proxy)),
    (&g::INFO_OTHER_FORM, None),
    (&g::URN_OTHER_FORM, None),
    (&g::OTHER_URL_FORM, None),
];

/// The form the prefix rules give (`Some(Form::Handle)` when none applies: U9), and where
/// the prefix ends.
fn prefix_form_at(text: &str, options: &Options) -> (Option<Form>, usize) {
    let b = text.as_bytes();
    let found = FORM_PREFIXES
        .iter()
        .find_map(|(dfa, form)| dfa.accepted_prefix(b).map(|end| (*form, end)));
    match found {
        Some((Some(Form::HdlHost), end)) if options.resolution_form => {
            (Some(Form::HdlResolution), end)
        }
        Some(found) => found,
        None => (Some(Form::Handle), 0),
    }
}

/// The form the prefix rules give; every HTTP(S) URL is `Proxy` here.
fn prefix_form(text: &str, options: &Options) -> Option<Form> {
    prefix_form_at(text, options).0
}

/// Runs a generated validator; a rejection becomes a [`ParseError`] naming the rule.
pub(crate) fn check(dfa: &Dfa, text: &str) -> Result<(), ParseError> {
    dfa.run(text.as_bytes()).map_err(|r| uri_error(text, r))
}

/// The [`ParseError`] of a URI grammar's rejection, naming the rule.
fn uri_error(text: &str, r: Reject) -> ParseError {
    let found = text[r.index..].chars().next();
    if r.rule == "pct_encoded" {
        // Point at the '%' that started the escape.
        let at = text[..r.index].rfind('%').unwrap_or(r.index);
        ParseError::new(at, ParseErrorKind::PercentEncoding, Some('%')).in_rule(r.rule)
    } else {
        ParseError::new(r.index, ParseErrorKind::UriSyntax, found).in_rule(r.rule)
    }
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
        // U11: an escaped character is a character of its segment, never a '.' or '/' that
        // starts a new one. The handle grammar says which a segment may hold (H3).
        let excluded =
            escape::ascii_escapes(na_raw).find(|&(_, c)| !g::HANDLE.leads_to(c, &["na_segment"]));
        if let Some((i, c)) = excluded {
            return Err(
                ParseError::new(na.0 + i, ParseErrorKind::InvalidCharacter, Some(c))
                    .written_escaped(),
            );
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

impl Sink for HdlParts {
    #[inline(always)]
    fn enter(&mut self, label: Label, at: usize, byte: u8) {
        // Every call passes a constant label: the compiler keeps one arm at each.
        match label {
            Label::UNaSegment | Label::PctEncoded if self.na_start == 0 => {
                self.na_start = at;
                self.escaped.0 = label == Label::PctEncoded;
            }
            Label::PctEncoded if self.slash == 0 => self.escaped.0 = true,
            Label::PctEncoded if self.query.is_none() && self.fragment.is_none() => {
                self.escaped.1 = true;
            }
            Label::UHandle => self.slash = at,
            // After the handle, the entry rule itself reads only "?" and "#".
            Label::HdlPath | Label::HdlHost if self.slash != 0 => {
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
fn read_hdl_uri(text: &str, form: Form) -> Result<HdlUri<'_>, ParseError> {
    let mut parts = HdlParts::default();
    scan_hdl(text, form, &mut parts).map_err(|r| uri_error(text, r))?;
    read_hdl_parts(text, form, &parts)
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
        text, form, handle, slash, None, query, fragment,
    ))
}

/// The resolution form (U3) and the CORDRA profile (U5), after their validator accepted
/// the text.
fn read_hdl<'a>(text: &'a str, dfa: &Dfa, form: Form) -> Result<HdlUri<'a>, ParseError> {
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
        na_is_u_naming_authority: !matches!(dfa.rule, "cordra_host" | "cordra_path"),
    };
    let (handle, slash) = handle_from_parts(text, &parts)?;
    let (query, fragment) = query_and_fragment(text, local_end);
    Ok(HdlUri::assemble(
        text, form, handle, slash, base, query, fragment,
    ))
}

/// `info:hdl/` and `info:doi/` (U8): the identifier, percent-decoded, is the handle.
fn read_info(text: &str, form: Form) -> Result<HdlUri<'_>, ParseError> {
    check(&g::INFO_URI, text)?;
    let (_, start) = prefix_form_at(text, &Options::new());
    let end = crate::bytes::find(b'#', text.as_bytes()).unwrap_or(text.len());
    let raw = &text[start..end];
    let handle = decode(raw, start)?;
    let slash =
        parse_handle(&handle).map_err(|e| escape::relocate(e, text, start, raw, e.index()))?;
    let (_, fragment) = query_and_fragment(text, end);
    Ok(HdlUri::assemble(
        text, form, handle, slash, None, None, fragment,
    ))
}

/// The handle a `urn:hdl:` or `urn:doi:` form holds after its prefix: a ':' before any '/'
/// becomes the '/' (U8, P3, as the reference proxy does).
pub(crate) fn urn_handle(rest: Cow<'_, str>) -> Cow<'_, str> {
    match rest.find([':', '/']) {
        Some(i) if rest.as_bytes()[i] == b':' => {
            let mut owned = rest.into_owned();
            owned.replace_range(i..=i, "/");
            Cow::Owned(owned)
        }
        _ => rest,
    }
}

/// `doi:`, `urn:hdl:` and `urn:doi:` (U8): the text after the prefix, taken as it is; for
/// the `urn:` forms a ':' before any '/' becomes the '/' (as the reference proxy does).
fn read_textual(text: &str, form: Form) -> Result<HdlUri<'_>, ParseError> {
    let (_, prefix) = prefix_form_at(text, &Options::new());
    let rest = Cow::Borrowed(&text[prefix..]);
    let handle = match form {
        Form::UrnHdl | Form::UrnDoi => urn_handle(rest),
        _ => rest,
    };
    // The handle is the rest of the text; a urn: form's ':' may be its '/' (at_in names
    // the character as written).
    let slash = parse_handle(&handle).map_err(|e| e.at_in(text, prefix + e.index()))?;
    Ok(HdlUri::assemble(
        text, form, handle, slash, None, None, None,
    ))
}

impl<'a> HdlUri<'a> {
    /// Assembles a value from parts its readers (this module, `proxy.rs`, the `hdl_uri!`
    /// macro) have checked.
    pub(crate) const fn assemble(
        text: &'a str,
        form: Form,
        handle: Cow<'a, str>,
        slash: usize,
        base: Option<Span>,
        query: Option<Span>,
        fragment: Option<Span>,
    ) -> Self {
        Self {
            text,
            form,
            handle,
            slash,
            base,
            query,
            fragment,
            cordra: false,
            literal_percent: None,
        }
    }

    /// The same value, whose handle holds at `index` a `%` the URL wrote as itself.
    pub(crate) const fn with_literal_percent(mut self, index: usize) -> Self {
        self.literal_percent = Some(index);
        self
    }

    /// Where the handle holds a `%` that the URL wrote as itself (P3).
    pub(crate) const fn literal_percent(&self) -> Option<usize> {
        self.literal_percent
    }

    /// The same value, read under the CORDRA profile.
    const fn in_cordra_profile(mut self) -> Self {
        self.cordra = true;
        self
    }
}
