//! Proxy and resolver URLs (SPEC P1–P5): bases, reading, writing with dot-segment
//! protection, and the proxy's query parameters.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write};

use crate::error::{ParseError, ParseErrorKind};
use crate::escape::{decode, decode_path, decoded_index, PROXY_PATH, QUERY_VALUE};
use crate::generated as g;
use crate::handle::HandleRef;
use crate::uri::{check, query_and_fragment, urn_handle, Form, HdlUri, Options};
use crate::validate::parse_handle;

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

    /// The REST API URL of `handle` (P5): the base, `/api/handles/`, the encoded handle.
    #[must_use]
    pub fn api_url(&self, handle: HandleRef<'_>) -> String {
        let mut s = alloc::format!("{}/api/handles/", self.text);
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
const PATH_PREFIXES: [(&crate::dfa::Dfa, bool); 6] = [
    (&g::INFO_HDL_FORM, false),
    (&g::INFO_DOI_FORM, false),
    (&g::HDL_FORM, false),
    (&g::DOI_FORM, false),
    (&g::URN_HDL_FORM, true),
    (&g::URN_DOI_FORM, true),
];

/// Reads an HTTP(S) URL of a known or named proxy (P1, P3), a REST API URL (P5), or with
/// `repository_urls` a repository page.
pub(crate) fn read_url<'a>(text: &'a str, options: &Options) -> Result<HdlUri<'a>, ParseError> {
    if options.cordra {
        check(&g::CORDRA_HTTP, text)?;
    }
    check(&g::HTTP_URL, text)?;
    let b = text.as_bytes();
    let host_start = crate::bytes::find(b':', b).expect("validated") + 3;
    let host_end =
        crate::bytes::find3(b'/', b'?', b'#', &b[host_start..]).map_or(b.len(), |i| host_start + i);
    let path_end =
        crate::bytes::find2(b'?', b'#', &b[host_end..]).map_or(b.len(), |i| host_end + i);
    let host = &text[host_start..host_end];
    let path = &text[host_end..path_end];

    let named = options.bases.iter().find_map(|base| {
        if !host.eq_ignore_ascii_case(base.host()) {
            return None;
        }
        match base.fixed_segment() {
            None => Some(host_end),
            Some(seg) => {
                let fixed = path.strip_prefix('/')?.strip_prefix(seg)?;
                (fixed.is_empty() || fixed.starts_with('/')).then_some(host_end + 1 + seg.len())
            }
        }
    });
    let known = || {
        KNOWN_PROXY_HOSTS
            .iter()
            .any(|k| host.eq_ignore_ascii_case(k))
            .then_some(host_end)
    };
    // The base ends where the handle's path begins, after one '/' (or "/handle/").
    let (mut form, base_end, mut start) = match named.or_else(known) {
        Some(end) => (Form::Proxy, end, (end + 1).min(path_end)),
        None => match path.find("/handle/").filter(|_| options.repository_urls) {
            Some(i) => (
                Form::Repository,
                host_end + i,
                host_end + i + "/handle/".len(),
            ),
            None => {
                let found = host.chars().next();
                return Err(ParseError::new(
                    host_start,
                    ParseErrorKind::UnknownResolver,
                    found,
                ));
            }
        },
    };
    if form == Form::Proxy && text[start..path_end].starts_with("api/handles/") {
        if options.cordra {
            // CORDRA's HTTP encoding is the handle's two segments after the base (U5): a
            // REST API path is not one of its URLs.
            return Err(
                ParseError::new(start, ParseErrorKind::NotAHandleForm, Some('a'))
                    .in_rule("cordra_http"),
            );
        }
        form = Form::Api;
        start += "api/handles/".len();
    }
    let raw = &text[start..path_end];
    let (decoded, literal_percent) = decode_path(raw, start)?;
    let (prefix, urn) = PATH_PREFIXES
        .iter()
        .find_map(|(dfa, urn)| dfa.accepted_prefix(decoded.as_bytes()).map(|p| (p, *urn)))
        .unwrap_or((0, false));
    let handle: Cow<'a, str> = match decoded {
        Cow::Borrowed(s) => Cow::Borrowed(&s[prefix..]),
        Cow::Owned(s) => Cow::Owned(s[prefix..].to_string()),
    };
    let handle = if urn { urn_handle(handle) } else { handle };
    let slash = parse_handle(&handle)
        .map_err(|e| crate::escape::relocate(e, text, start, raw, prefix + e.index()))?;
    let (query, fragment) = query_and_fragment(text, path_end);
    let uri = HdlUri::assemble(
        text,
        form,
        handle,
        slash,
        Some((0, base_end)),
        query,
        fragment,
    );
    // A '%' the path holds as itself: a warning at its place in the handle (P3).
    Ok(match literal_percent {
        Some(i) => uri.with_literal_percent(decoded_index(raw, i) - prefix),
        None => uri,
    })
}

/// The `action` parameter (P4).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Action {
    /// `showurls`: the possible redirect locations, as XML.
    ShowUrls,
    /// `showvalues`: the handle values, no redirect.
    ShowValues,
    /// `redirect`: the default.
    Redirect,
    /// `api`: forward to the REST API.
    Api,
    /// `metadata`: `redirect` with `locatt=role:metadata`.
    Metadata,
    /// Another value, kept as it was.
    Other(String),
}

impl Action {
    fn name(&self) -> &str {
        match self {
            Action::ShowUrls => "showurls",
            Action::ShowValues => "showvalues",
            Action::Redirect => "redirect",
            Action::Api => "api",
            Action::Metadata => "metadata",
            Action::Other(s) => s,
        }
    }
}

/// The proxy's query parameters (P4), read from a query or built for a URL. Unknown
/// parameters are kept, in order, not dropped.
///
/// ```
/// use handle_id::{Action, ProxyQuery};
///
/// let q = ProxyQuery::new().index(1).index(100).value_type("URL").locatt("id", "1").noredirect();
/// assert_eq!(q.to_string(), "noredirect&index=1&index=100&type=URL&locatt=id%3A1");
///
/// let read = ProxyQuery::parse("type=HS_SITE.&action=showurls&x=1&auth")?;
/// assert!(read.auth && read.selects_type("HS_SITE.PREFIX"));
/// assert_eq!(read.action, Some(Action::ShowUrls));
/// assert_eq!(read.other, [("x".to_owned(), Some("1".to_owned()))]);
/// # Ok::<(), handle_id::ParseError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProxyQuery {
    /// `noredirect`: show the values instead of redirecting.
    pub noredirect: bool,
    /// `ignore_aliases`: do not follow `HS_ALIAS` values.
    pub ignore_aliases: bool,
    /// `auth`: an authoritative query, bypassing the proxy's cache.
    pub auth: bool,
    /// `cert`: require an authenticated response.
    pub cert: bool,
    /// `index` (repeatable): only these value indices.
    pub index: Vec<u32>,
    /// `type` (repeatable): only these value types; a type ending in `.` selects its subtypes.
    pub types: Vec<String>,
    /// `urlappend`: appended to the redirect URL.
    pub urlappend: Option<String>,
    /// `locatt=key:value` (repeatable): selects among `10320/loc` locations.
    pub locatt: Vec<(String, String)>,
    /// `action`.
    pub action: Option<Action>,
    /// `callback` (REST API): JSONP.
    pub callback: Option<String>,
    /// `pretty` (REST API): pretty-printed JSON.
    pub pretty: bool,
    /// Every other parameter, name and value (`None` for a name alone), decoded.
    pub other: Vec<(String, Option<String>)>,
}

impl ProxyQuery {
    /// The most parameters [`ProxyQuery::parse`] reads, as a servlet container bounds them:
    /// what a query costs in memory stays within a constant factor of its length (each
    /// parameter kept costs a few dozen bytes however short it is written).
    pub const MAX_PARAMETERS: usize = 1000;

    /// No parameters.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// With `noredirect`.
    #[must_use]
    pub fn noredirect(mut self) -> Self {
        self.noredirect = true;
        self
    }

    /// With `ignore_aliases`.
    #[must_use]
    pub fn ignore_aliases(mut self) -> Self {
        self.ignore_aliases = true;
        self
    }

    /// With `auth`.
    #[must_use]
    pub fn auth(mut self) -> Self {
        self.auth = true;
        self
    }

    /// With `cert`.
    #[must_use]
    pub fn cert(mut self) -> Self {
        self.cert = true;
        self
    }

    /// With one more `index`.
    #[must_use]
    pub fn index(mut self, index: u32) -> Self {
        self.index.push(index);
        self
    }

    /// With one more `type`.
    #[must_use]
    pub fn value_type(mut self, t: &str) -> Self {
        self.types.push(t.to_string());
        self
    }

    /// With `urlappend`.
    #[must_use]
    pub fn urlappend(mut self, s: &str) -> Self {
        self.urlappend = Some(s.to_string());
        self
    }

    /// With one more `locatt=key:value`.
    #[must_use]
    pub fn locatt(mut self, key: &str, value: &str) -> Self {
        self.locatt.push((key.to_string(), value.to_string()));
        self
    }

    /// With `action`.
    #[must_use]
    pub fn action(mut self, action: Action) -> Self {
        self.action = Some(action);
        self
    }

    /// With `callback` (REST API).
    #[must_use]
    pub fn callback(mut self, name: &str) -> Self {
        self.callback = Some(name.to_string());
        self
    }

    /// With `pretty` (REST API).
    #[must_use]
    pub fn pretty(mut self) -> Self {
        self.pretty = true;
        self
    }

    /// With another parameter, kept as given.
    #[must_use]
    pub fn param(mut self, name: &str, value: Option<&str>) -> Self {
        self.other
            .push((name.to_string(), value.map(str::to_string)));
        self
    }

    /// Whether a value of type `t` is selected by the `type` parameters: no `type` selects
    /// all; a type ending in `.` selects its subtypes (P4, R4).
    #[must_use]
    pub fn selects_type(&self, t: &str) -> bool {
        self.types.is_empty()
            || self.types.iter().any(|s| {
                s == t
                    || (s.ends_with('.') && (t.starts_with(s.as_str()) || t == &s[..s.len() - 1]))
            })
    }

    /// Reads a query string (without its `?`). Names and values are percent-decoded, and
    /// `+` is a space, as the proxy's servlet reads them.
    ///
    /// # Errors
    ///
    /// An `index` that is not an unsigned 32-bit number or a `locatt` without `:`
    /// ([`ParseErrorKind::InvalidParameter`]), more than [`ProxyQuery::MAX_PARAMETERS`]
    /// parameters ([`ParseErrorKind::TooManyParameters`], at the first one over), a bad `%`
    /// escape, or decoded bytes that are not UTF-8, with the byte index into `query`.
    pub fn parse(query: &str) -> Result<Self, ParseError> {
        let mut q = Self::new();
        let mut offset = 0;
        let mut count = 0;
        for piece in query.split('&') {
            let at = offset;
            offset += piece.len() + 1;
            if piece.is_empty() {
                continue;
            }
            count += 1;
            if count > Self::MAX_PARAMETERS {
                return Err(ParseError::new(
                    at,
                    ParseErrorKind::TooManyParameters,
                    piece.chars().next(),
                ));
            }
            let (name, value) = match piece.split_once('=') {
                Some((n, v)) => (n, Some((v, at + n.len() + 1))),
                None => (piece, None),
            };
            let name = form_decode(name, at)?;
            let value = match value {
                Some((v, at)) => Some(form_decode(v, at)?),
                None => None,
            };
            let bad =
                || ParseError::new(at, ParseErrorKind::InvalidParameter, piece.chars().next());
            match (name.as_str(), value) {
                ("noredirect", _) => q.noredirect = true,
                ("ignore_aliases", _) => q.ignore_aliases = true,
                ("auth", _) => q.auth = true,
                ("cert", _) => q.cert = true,
                ("pretty", _) => q.pretty = true,
                ("index", Some(v)) => q.index.push(v.parse().map_err(|_| bad())?),
                ("type", Some(v)) => q.types.push(v),
                ("urlappend", Some(v)) => q.urlappend = Some(v),
                ("locatt", Some(v)) => {
                    let (k, v) = v.split_once(':').ok_or_else(bad)?;
                    q.locatt.push((k.to_string(), v.to_string()));
                }
                ("action", Some(v)) => {
                    q.action = Some(match v.as_str() {
                        "showurls" => Action::ShowUrls,
                        "showvalues" => Action::ShowValues,
                        "redirect" => Action::Redirect,
                        "api" => Action::Api,
                        "metadata" => Action::Metadata,
                        _ => Action::Other(v),
                    });
                }
                ("callback", Some(v)) => q.callback = Some(v),
                ("index" | "type" | "locatt" | "action", None) => return Err(bad()),
                (_, value) => q.other.push((name, value)),
            }
        }
        Ok(q)
    }
}

/// `application/x-www-form-urlencoded` decoding: `+` is a space, then percent-decoding.
fn form_decode(s: &str, offset: usize) -> Result<String, ParseError> {
    let spaced = s.replace('+', " ");
    decode(&spaced, offset).map(Cow::into_owned)
}

impl fmt::Display for ProxyQuery {
    /// The query string, without `?`: flags, then `index`, `type`, `locatt`, `urlappend`,
    /// `action`, `callback`, then the other parameters in their order; values encoded so
    /// that they read back the same.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        let mut put =
            |f: &mut fmt::Formatter<'_>, name: &str, value: Option<&str>| -> fmt::Result {
                write!(f, "{sep}{}", QUERY_VALUE.encode(name))?;
                sep = "&";
                match value {
                    Some(v) => write!(f, "={}", QUERY_VALUE.encode(v)),
                    None => Ok(()),
                }
            };
        for (on, name) in [
            (self.noredirect, "noredirect"),
            (self.ignore_aliases, "ignore_aliases"),
            (self.auth, "auth"),
            (self.cert, "cert"),
        ] {
            if on {
                put(f, name, None)?;
            }
        }
        for i in &self.index {
            put(f, "index", Some(&i.to_string()))?;
        }
        for t in &self.types {
            put(f, "type", Some(t))?;
        }
        for (k, v) in &self.locatt {
            put(f, "locatt", Some(&alloc::format!("{k}:{v}")))?;
        }
        if let Some(u) = &self.urlappend {
            put(f, "urlappend", Some(u))?;
        }
        if let Some(a) = &self.action {
            put(f, "action", Some(a.name()))?;
        }
        if let Some(c) = &self.callback {
            put(f, "callback", Some(c))?;
        }
        if self.pretty {
            put(f, "pretty", None)?;
        }
        for (name, value) in &self.other {
            put(f, name, value.as_deref())?;
        }
        Ok(())
    }
}
