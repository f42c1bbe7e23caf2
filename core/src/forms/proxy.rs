//! Proxy and resolver URLs (P1, P3), REST API URLs (P5) and repository pages: reading, and
//! writing (`ProxyBase::url` and the others, and `HdlUri`'s `Display`).

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use core::fmt::{self, Write};

use crate::base::{is_https, is_known_host, ProxyBase, API_PATH, PATH_PREFIXES};
use crate::error::{ParseError, ParseErrorKind};
use crate::escape::decode_path;
use crate::escape::PROXY_PATH;
use crate::form::{Form, Options};
use crate::generated::{self as g, Rule};
use crate::handle::HandleRef;
use crate::parts::{check, query_and_fragment, url_parts};
use crate::uri::HdlUri;
use crate::validate::parse_handle;

use super::textual::urn_handle;

/// Reads an HTTP(S) URL of a known or named proxy (P1, P3), a REST API URL (P5), or with
/// `repository_urls` a repository page.
pub(super) fn read_url<'a>(text: &'a str, options: &Options) -> Result<HdlUri<'a>, ParseError> {
    if options.cordra {
        check(&g::CORDRA_HTTP, text)?;
    }
    let parts = url_parts(text)?;
    let (host_start, host_end) = parts.host;
    let path_end = parts.path_end;
    let host = &text[host_start..host_end];
    let path = &text[host_end..path_end];

    let https = is_https(text.as_bytes());
    let named = options
        .bases
        .iter()
        .find_map(|base| base.holds(host, https, path))
        .map(|n| host_end + n);
    let known = || is_known_host(host, https).then_some(host_end);
    // The base ends where the handle's path begins, after one '/' (or "/handle/").
    let (form, base_end, start) = match named.or_else(known) {
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
    let at = (start, path_end);
    read_path(text, options, form, Some((0, base_end)), at, parts.percent)
}

impl<'a> HdlUri<'a> {
    /// Reads what a server at a proxy's base is asked: the path and query of a request,
    /// `/<handle>[?query]` (form [`Form::Proxy`]) or `/api/handles/<handle>[?query]`
    /// ([`Form::Api`]), exactly as [`recognize`](crate::recognize) reads them after a base
    /// (P3, P5). The value has no [`base`](Self::base); `Display` writes the path back.
    ///
    /// ```
    /// use handle_id::{Form, HdlUri, Options};
    /// let uri = HdlUri::from_request_path("/api/handles/20.1000/5555%23x?pretty", &Options::new())?;
    /// assert_eq!((uri.form(), uri.handle().as_str(), uri.query()), (Form::Api, "20.1000/5555#x", Some("pretty")));
    /// assert_eq!(uri.to_string(), "/api/handles/20.1000/5555%23x?pretty");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As `recognize` for a proxy URL's path: a text that is no path (it starts without
    /// `/`), a handle that is not one (H1 …), decoded bytes that are not UTF-8.
    pub fn from_request_path(text: &'a str, options: &Options) -> Result<Self, ParseError> {
        check(&g::PROXY_PATH, text)?;
        let b = text.as_bytes();
        let path_end = crate::bytes::find2(b'?', b'#', b).unwrap_or(b.len());
        let percent = crate::bytes::find(b'%', &b[..path_end]);
        read_path(
            text,
            options,
            Form::Proxy,
            None,
            (1.min(path_end), path_end),
            percent,
        )
    }
}

/// The handle in `text[start..path_end]`, a proxy URL's path after its base (`base`, when
/// the text holds one), or the REST API's under `api/handles/`. `percent`: where the
/// path's first `%` is, as the caller found it (`None`: it holds none).
fn read_path<'a>(
    text: &'a str,
    options: &Options,
    mut form: Form,
    base: Option<(usize, usize)>,
    (mut start, path_end): (usize, usize),
    percent: Option<usize>,
) -> Result<HdlUri<'a>, ParseError> {
    if form == Form::Proxy && text[start..path_end].starts_with(API_PATH) {
        if options.cordra {
            // CORDRA's HTTP encoding is the handle's two segments after the base (U5): a
            // REST API path is not one of its URLs.
            return Err(
                ParseError::new(start, ParseErrorKind::NotAHandleForm, Some('a'))
                    .in_rule(Rule::CordraHttp),
            );
        }
        form = Form::Api;
        start += API_PATH.len();
    }
    let raw = &text[start..path_end];
    // (A '%' before the handle's start, in a repository's path, is not the handle's.)
    let first = match percent {
        Some(p) if p >= start => Some(p - start),
        Some(_) => crate::bytes::find(b'%', raw.as_bytes()),
        None => None,
    };
    let (decoded, literal_percent) = decode_path(raw, start, first)?;
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
        start + crate::escape::original_index(raw, prefix),
        base,
        query,
        fragment,
    );
    // A '%' the path holds as itself: a warning at its place in the text (P3).
    Ok(match literal_percent {
        Some(i) => uri.with_literal_percent(start + i),
        None => uri,
    })
}

impl ProxyBase {
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
        let mut s = String::new();
        write_url(&mut s, self.as_str(), Form::Proxy, handle, false)
            .expect("a String takes any text");
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
        let form = if api { Form::Api } else { Form::Proxy };
        let mut s = String::new();
        write_url(&mut s, "", form, handle, false).expect("a String takes any text");
        s
    }

    /// The REST API URL of `handle` (P5): the base, `/api/handles/`, the encoded handle.
    #[must_use]
    pub fn api_url(&self, handle: HandleRef<'_>) -> String {
        let mut s = String::new();
        write_url(&mut s, self.as_str(), Form::Api, handle, false)
            .expect("a String takes any text");
        s
    }
}

/// Writes the URL of `handle` in `form` (proxy, REST API, repository page) after `base`
/// (`scheme://host[/segment]`, scheme and host written in lower case; empty: the path of a
/// request to the proxy, from its `/`).
pub(crate) fn write_url(
    out: &mut impl Write,
    base: &str,
    form: Form,
    handle: HandleRef<'_>,
    cordra: bool,
) -> fmt::Result {
    if !base.is_empty() {
        let (scheme, rest) = base.split_once("://").unwrap_or(("https", base));
        let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
        write!(
            out,
            "{}://{}",
            scheme.to_ascii_lowercase(),
            host.to_ascii_lowercase()
        )?;
        if !path.is_empty() {
            write!(out, "/{path}")?;
        }
    }
    out.write_str("/")?;
    out.write_str(match form {
        Form::Api => API_PATH,
        Form::Repository => "handle/",
        _ => "",
    })?;
    write_proxy_path(out, handle, cordra)
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
fn write_proxy_path(out: &mut impl Write, handle: HandleRef<'_>, cordra: bool) -> fmt::Result {
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
