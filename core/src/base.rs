//! The base of a proxy or resolver URL (P1) and the writer of a handle as its path (P2,
//! P3, P5).

use alloc::string::String;
use core::fmt::{self, Write};

use crate::error::{ParseError, ParseErrorKind};
use crate::escape::PROXY_PATH;
use crate::generated as g;
use crate::handle::HandleRef;
use crate::parts::check;

/// The path of the REST API under a proxy's base (P5): `api/handles/`, then the handle.
pub const API_PATH: &str = "api/handles/";

/// The proxies every reading knows (P1): the Handle.Net proxy and the DOI resolvers.
pub const KNOWN_PROXY_HOSTS: [&str; 4] = ["hdl.handle.net", "doi.org", "dx.doi.org", "www.doi.org"];

/// The base of a proxy or resolver: `scheme://host[:port]`, with an optional fixed first
/// path segment (CORDRA's `http://host:2641/hdl/<na>/<local>`, P1).
///
/// ```
/// use handle_id::{HandleRef, ProxyBase};
///
/// let base = ProxyBase::parse("http://arrow.resolver.au.gov:2641/hdl")?;
/// assert_eq!(base.host(), "arrow.resolver.au.gov:2641");
/// assert_eq!(base.fixed_segment(), Some("hdl"));
/// let h = HandleRef::parse("100.102/F58FB49E")?;
/// assert_eq!(base.url(h), "http://arrow.resolver.au.gov:2641/hdl/100.102/F58FB49E");
/// # Ok::<(), handle_id::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProxyBase {
    /// `scheme://host[:port][/segment]`, scheme and host in lower case, no trailing '/'.
    text: String,
    host: (usize, usize),
    fixed: Option<usize>,
}

impl ProxyBase {
    /// Reads a base: an HTTP(S) URL with a path of at most one non-empty segment, and no
    /// query or fragment. A trailing `/` is dropped: `ProxyBase::parse(base.as_str())` gives
    /// `base` back.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] when `url` is not an HTTP(S) URL (grammar/proxy-url.pest) or has more
    /// than one path segment, an empty one (`http://h//`), a query or a fragment
    /// ([`ParseErrorKind::UriSyntax`] at it).
    pub fn parse(url: &str) -> Result<Self, ParseError> {
        check(&g::HTTP_URL, url)?;
        let b = url.as_bytes();
        let host_start = crate::bytes::find(b':', b).expect("validated") + 3;
        let host_end = crate::bytes::find3(b'/', b'?', b'#', &b[host_start..])
            .map_or(b.len(), |i| host_start + i);
        let path = url[host_end..]
            .strip_suffix('/')
            .unwrap_or(&url[host_end..]);
        // One segment at most, and not an empty one (`http://h//`): what is left after the
        // trailing '/' is `/segment` or nothing, so that `as_str` reads back the same base.
        let empty_segment = path == "/";
        let extra = path
            .char_indices()
            .find(|&(i, c)| matches!(c, '?' | '#') || (c == '/' && (i > 0 || empty_segment)))
            .map(|(i, c)| (host_end + i + usize::from(empty_segment), c));
        if let Some((at, c)) = extra {
            return Err(ParseError::new(at, ParseErrorKind::UriSyntax, Some(c)).in_rule("path"));
        }
        let scheme = &url[..host_start - 3];
        let host = &url[host_start..host_end];
        let text = alloc::format!(
            "{}://{}{path}",
            scheme.to_ascii_lowercase(),
            host.to_ascii_lowercase()
        );
        let host = (scheme.len() + 3, scheme.len() + 3 + host.len());
        let fixed = (!path.is_empty()).then_some(host.1 + 1);
        Ok(Self { text, host, fixed })
    }

    /// `https://hdl.handle.net`, the Handle.Net proxy (P1).
    #[must_use]
    pub fn handle_net() -> Self {
        Self::parse("https://hdl.handle.net").expect("a valid base")
    }

    /// `https://doi.org`, the DOI resolver (P1).
    #[must_use]
    pub fn doi_org() -> Self {
        Self::parse("https://doi.org").expect("a valid base")
    }

    /// The base P1 names for `handle`: `https://doi.org` for a DOI (H8),
    /// `https://hdl.handle.net` otherwise.
    #[must_use]
    pub fn default_for(handle: HandleRef<'_>) -> Self {
        if handle.is_doi() {
            Self::doi_org()
        } else {
            Self::handle_net()
        }
    }

    /// The base as text, `scheme://host[:port][/segment]`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The host and port.
    #[must_use]
    pub fn host(&self) -> &str {
        &self.text[self.host.0..self.host.1]
    }

    /// The resolver's fixed first path segment, if it has one.
    #[must_use]
    pub fn fixed_segment(&self) -> Option<&str> {
        self.fixed.map(|s| &self.text[s..])
    }

    /// The proxy URL of `handle`: the base, `/`, and the handle encoded as P2 says, so that
    /// reading the URL gives `handle` back (a handle that starts with a prefix P3 removes, or
    /// with `api/handles/`, is written so that it does).
    ///
    /// ```
    /// use handle_id::{HandleRef, ProxyBase};
    /// let h = HandleRef::parse("20.1000/5555#resolve")?;
    /// assert_eq!(ProxyBase::handle_net().url(h), "https://hdl.handle.net/20.1000/5555%23resolve");
    /// let h = HandleRef::parse("10.1000/a/./b/..")?;
    /// assert_eq!(ProxyBase::doi_org().url(h), "https://doi.org/10.1000/a/.%2Fb%2F..");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    ///
    /// ```
    /// use handle_id::{recognize, HandleRef, Options, ProxyBase};
    /// // Not the REST API URL of 10.1/x, and not 1234/5 with its `hdl:` removed (P3, P5).
    /// let api = HandleRef::parse("api/handles/10.1/x")?;
    /// assert_eq!(ProxyBase::doi_org().url(api), "https://doi.org/api%2Fhandles/10.1/x");
    /// let labelled = HandleRef::parse("hdl:1234/5")?;
    /// let url = ProxyBase::handle_net().url(labelled);
    /// assert_eq!(url, "https://hdl.handle.net/hdl:hdl:1234/5");
    /// assert_eq!(recognize(&url, &Options::new())?.handle(), labelled);
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn url(&self, handle: HandleRef<'_>) -> String {
        let mut s = alloc::format!("{}/", self.text);
        write_proxy_path(&mut s, handle, false).expect("a String takes any text");
        s
    }

    /// What a server at a proxy's base is asked for `handle`: `/` and the encoded handle,
    /// or with `api` `/api/handles/` and it (P3, P5); what
    /// [`HdlUri::from_request_path`](crate::HdlUri::from_request_path) reads back.
    ///
    /// ```
    /// use handle_id::{HandleRef, ProxyBase};
    /// let h = HandleRef::parse("20.1000/5555#x")?;
    /// assert_eq!(ProxyBase::request_path(h, false), "/20.1000/5555%23x");
    /// assert_eq!(ProxyBase::request_path(h, true), "/api/handles/20.1000/5555%23x");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn request_path(handle: HandleRef<'_>, api: bool) -> String {
        let mut s = String::from("/");
        if api {
            s.push_str(API_PATH);
        }
        write_proxy_path(&mut s, handle, false).expect("a String takes any text");
        s
    }

    /// The REST API URL of `handle` (P5): the base, `/api/handles/`, the encoded handle.
    #[must_use]
    pub fn api_url(&self, handle: HandleRef<'_>) -> String {
        let mut s = alloc::format!("{}/{API_PATH}", self.text);
        write_proxy_path(&mut s, handle, false).expect("a String takes any text");
        s
    }
}

/// Writes `handle` as the path of a proxy, REST API or repository URL after its base (P2,
/// P3, P5), so that reading the URL gives `handle` back:
///
/// - a proxy removes one of the prefixes of P3 (`hdl:`, `doi:`, `info:hdl/` …) from the
///   decoded path, so a handle that starts with one (`hdl:1234/5`, whose naming authority is
///   `hdl:1234`) is written after a `hdl:` of its own, which the reader removes instead;
/// - a path that starts with `api/handles/` is a REST API URL (P5), so a handle that starts
///   so is written with its first `/` as `%2F`.
///
/// Under the CORDRA profile (`cordra`), the path is two segments, naming authority and local
/// name, with a `/` in the local name written `%2F` (U5).
pub(crate) fn write_proxy_path(
    out: &mut impl Write,
    handle: HandleRef<'_>,
    cordra: bool,
) -> fmt::Result {
    let text = handle.as_str();
    let labelled = PATH_PREFIXES
        .iter()
        .any(|(dfa, _)| dfa.accepted_prefix(text.as_bytes()).is_some());
    if labelled {
        out.write_str("hdl:")?;
    }
    if cordra {
        return write!(
            out,
            "{}/{}",
            PROXY_PATH.encode(handle.prefix()),
            crate::escape::CORDRA_LOCAL_NAME.encode(handle.local_name())
        );
    }
    if labelled {
        return write_path(out, text);
    }
    if let Some(rest) = text
        .strip_prefix("api/")
        .filter(|rest| rest.starts_with("handles/"))
    {
        // The first segment, `api%2Fhandles`, is not a dot segment: `rest` starts as any
        // path does for `write_path`.
        out.write_str("api%2F")?;
        return write_path(out, rest);
    }
    write_path(out, text)
}

/// Writes `handle` as a URL path (P2): every byte outside [`PROXY_PATH`] percent-encoded,
/// and dot segments protected: a `/` after a `.` or `..` segment is written `%2F`, and a
/// final `.` or `..` segment gets the `/` before it written `%2F` instead (WHATWG parsers
/// read `%2E` as a dot, so encoding the dots would not help).
fn write_path(out: &mut impl Write, handle: &str) -> fmt::Result {
    /// What the output's current segment (since the last raw '/') is.
    #[derive(Clone, Copy, PartialEq)]
    enum Seg {
        Empty,
        Dot,
        DotDot,
        Other,
    }
    let mut buf = String::with_capacity(handle.len() + 8);
    let mut current = Seg::Other;
    let mut last_raw_slash = None;
    for (i, segment) in handle.split('/').enumerate() {
        if i > 0 {
            if matches!(current, Seg::Dot | Seg::DotDot) {
                buf.push_str("%2F");
                current = Seg::Other;
            } else {
                last_raw_slash = Some(buf.len());
                buf.push('/');
                current = Seg::Empty;
            }
        }
        write!(buf, "{}", PROXY_PATH.encode(segment))?;
        current = match (current, segment) {
            (Seg::Empty, ".") => Seg::Dot,
            (Seg::Empty, "..") => Seg::DotDot,
            (Seg::Empty, "") => Seg::Empty,
            _ => Seg::Other,
        };
    }
    if let (Seg::Dot | Seg::DotDot, Some(at)) = (current, last_raw_slash) {
        buf.replace_range(at..=at, "%2F");
    }
    out.write_str(&buf)
}

/// The prefixes P3 removes from a decoded proxy path (at most one), and whether the form is
/// a `urn:` one, whose first ':' becomes '/'.
pub(crate) const PATH_PREFIXES: [(&crate::dfa::Dfa, bool); 6] = [
    (&g::INFO_HDL_FORM, false),
    (&g::INFO_DOI_FORM, false),
    (&g::HDL_FORM, false),
    (&g::DOI_FORM, false),
    (&g::URN_HDL_FORM, true),
    (&g::URN_DOI_FORM, true),
];
