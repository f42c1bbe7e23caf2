//! The base of a proxy or resolver URL (P1) and the writer of a handle as its path (P2,
//! P3, P5).

use alloc::string::String;

use crate::error::{ParseError, ParseErrorKind};
use crate::generated::{self as g, Rule};
use crate::handle::HandleRef;
use crate::parts::{uri_error, url_parts};

/// The path of the REST API under a proxy's base (P5): `api/handles/`, then the handle.
pub const API_PATH: &str = "api/handles/";

/// The proxies every reading knows (P1): the Handle.Net proxy and the DOI resolvers.
pub const KNOWN_PROXY_HOSTS: [&str; 4] = ["hdl.handle.net", "doi.org", "dx.doi.org", "www.doi.org"];

/// Whether a URL's host and port as written (of an `https` URL or not) is a known
/// resolver's: the port its scheme names by default, or an empty one, left out (RFC 3986
/// §6.2.3: `https://doi.org:443/` is `https://doi.org/`).
pub(crate) fn is_known_host(host: &str, https: bool) -> bool {
    let host = without_default_port(host, https);
    KNOWN_PROXY_HOSTS
        .iter()
        .any(|known| host.eq_ignore_ascii_case(known))
}

/// How long the port its scheme names by default (`https`: `:443`, else `:80`), or an empty
/// one, is at the start of `after_host` (the bytes after a URL's host), when one is there
/// before a '/': 0 when none is.
pub(crate) fn default_port_len(after_host: &[u8], https: bool) -> usize {
    match default_port_at(after_host, https) {
        Some(n) if after_host.get(n) == Some(&b'/') => n,
        _ => 0,
    }
}

/// `host` (a URL's host and port as written) without the port its scheme names by default,
/// or an empty one.
fn without_default_port(host: &str, https: bool) -> &str {
    match host.rfind(':') {
        Some(colon)
            if default_port_at(&host.as_bytes()[colon..], https) == Some(host.len() - colon) =>
        {
            &host[..colon]
        }
        _ => host,
    }
}

/// How long the port `b` starts with (`:` and its digits) is, when it is the one its scheme
/// names by default (RFC 9110 §4.2: `:443` for `https`, `:80` for `http`), by its value
/// (RFC 3986 §6.2.3: `:0443` too), or empty.
fn default_port_at(b: &[u8], https: bool) -> Option<usize> {
    let digits = b.strip_prefix(b":")?;
    let n = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    let value = &digits[digits[..n].iter().take_while(|&&c| c == b'0').count()..n];
    let default: &[u8] = if https { b"443" } else { b"80" };
    (n == 0 || value == default).then_some(1 + n)
}

/// Whether the URL `text` (`http://` or `https://`, in any case) is an `https` one.
pub(crate) fn is_https(text: &[u8]) -> bool {
    text.get(4).is_some_and(|b| b.eq_ignore_ascii_case(&b's'))
}

// Cleaning compares hosts to them as lower case (`bytes::eq_ignore_ascii_case_lower`).
const _: () = {
    let mut i = 0;
    while i < KNOWN_PROXY_HOSTS.len() {
        let host = KNOWN_PROXY_HOSTS[i].as_bytes();
        let mut j = 0;
        while j < host.len() {
            assert!(!host[j].is_ascii_uppercase(), "a known host in lower case");
            j += 1;
        }
        i += 1;
    }
};

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
        // (An error before the `://`, or before any `:` where there is none, is the
        // scheme's: a base written `hdl://…` or without a scheme is told what one starts
        // with.)
        let scheme_end = url
            .find("://")
            .or_else(|| url.find(':'))
            .unwrap_or(url.len());
        let (host_start, host_end) = url_parts(url)
            .map_err(|e| {
                if e.index() < scheme_end && e.found().is_some() {
                    e.in_rule(Rule::HttpScheme)
                } else {
                    e
                }
            })?
            .host;
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
            let rule = if c == '/' {
                Rule::BaseSegment
            } else {
                Rule::BaseUrl
            };
            return Err(ParseError::new(at, ParseErrorKind::UriSyntax, Some(c)).in_rule(rule));
        }
        // What is written after a base must read back as written (P2's test of truth): the
        // base's own grammar, stricter than a URL read from text; then what a WHATWG parser
        // tells past a grammar, an IP address and a port of 16 bits.
        g::BASE_URL
            .run(url.as_bytes())
            .map_err(|r| uri_error(&g::BASE_URL, url, r))?;
        let host = &url[host_start..host_end];
        // (The port after an IPv6 address's brackets, if any.)
        let name_end = host.rfind(']').map_or(0, |i| i + 1);
        let (name, port) = match host[name_end..].rfind(':') {
            Some(colon) => (&host[..name_end + colon], Some(name_end + colon + 1)),
            None => (host, None),
        };
        if let Some(at) = not_the_address_it_reads_as(name) {
            let found = name[at..].chars().next();
            let error = ParseError::new(host_start + at, ParseErrorKind::UriSyntax, found);
            return Err(error.in_rule(Rule::BaseHost));
        }
        if let Some(at) = port {
            if host[at..]
                .parse::<u32>()
                .is_ok_and(|p| p > u32::from(u16::MAX))
            {
                let found = host[at..].chars().next();
                let error = ParseError::new(host_start + at, ParseErrorKind::UriSyntax, found);
                return Err(error.in_rule(Rule::BasePort));
            }
        }
        let scheme = &url[..host_start - 3];
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

    /// Whether a URL's host and port as written, `host` (of an `https` URL or not), is this
    /// base's: as written, or with the port its scheme names by default or an empty one left
    /// out on either side (RFC 3986 §6.2.3: `http://h:80/` is `http://h/`).
    #[must_use]
    pub(crate) fn names_host(&self, host: &str, https: bool) -> bool {
        host.eq_ignore_ascii_case(self.host())
            || without_default_port(host, https).eq_ignore_ascii_case(without_default_port(
                self.host(),
                self.text.starts_with("https"),
            ))
    }

    /// The resolver's fixed first path segment, if it has one.
    #[must_use]
    pub fn fixed_segment(&self) -> Option<&str> {
        self.fixed.map(|s| &self.text[s..])
    }

    /// How many bytes of a URL's path from its host's end, `path` (its query and fragment
    /// left out or not), this base holds, where the URL's host and port, `host` (of an
    /// `https` URL or not), are this base's: none, or its fixed segment as written after a
    /// '/', then the path's end, a '/', a '?' or a '#'.
    #[must_use]
    pub(crate) fn holds(&self, host: &str, https: bool, path: &str) -> Option<usize> {
        if !self.names_host(host, https) {
            return None;
        }
        let Some(segment) = self.fixed_segment() else {
            return Some(0);
        };
        let after = path.strip_prefix('/')?.strip_prefix(segment)?;
        matches!(after.as_bytes().first(), None | Some(b'/' | b'?' | b'#'))
            .then_some(1 + segment.len())
    }
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

/// Where a base's host `name` (as `base_host` reads it) is no address where a WHATWG
/// parser reads one (the address, or its last label): an IPv6 address in brackets, and a
/// name whose last label is a number (decimal digits, or `0x` and hexadecimal ones), which
/// such a parser reads as an IPv4 address. (Of the IPv4 forms a parser reads, only four decimal
/// numbers are taken.)
fn not_the_address_it_reads_as(name: &str) -> Option<usize> {
    if let Some(inner) = name.strip_prefix('[') {
        let inner = inner.strip_suffix(']').unwrap_or(inner);
        return inner.parse::<core::net::Ipv6Addr>().is_err().then_some(1);
    }
    let name = name.strip_suffix('.').unwrap_or(name);
    let last = name.rfind('.').map_or(0, |dot| dot + 1);
    let label = &name[last..];
    let hex = label
        .get(..2)
        .filter(|x| x.eq_ignore_ascii_case("0x"))
        .map(|_| &label[2..]);
    let number = (!label.is_empty() && label.bytes().all(|b| b.is_ascii_digit()))
        || hex.is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    (number && name.parse::<core::net::Ipv4Addr>().is_err()).then_some(last)
}
