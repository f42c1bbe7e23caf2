//! Proxy and resolver URLs (P1, P3), REST API URLs (P5) and repository pages: reading.
//! (Their writer is `ProxyBase`'s, in base.rs.)

use alloc::borrow::Cow;
use alloc::string::ToString;

use crate::base::{API_PATH, KNOWN_PROXY_HOSTS, PATH_PREFIXES};
use crate::error::{ParseError, ParseErrorKind};
use crate::escape::decode_path;
use crate::form::{Form, Options};
use crate::generated as g;
use crate::parts::{check, query_and_fragment};
use crate::uri::HdlUri;
use crate::validate::parse_handle;

use super::textual::urn_handle;

/// Reads an HTTP(S) URL of a known or named proxy (P1, P3), a REST API URL (P5), or with
/// `repository_urls` a repository page.
pub(super) fn read_url<'a>(text: &'a str, options: &Options) -> Result<HdlUri<'a>, ParseError> {
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
    read_path(text, options, form, Some((0, base_end)), start, path_end)
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
        read_path(text, options, Form::Proxy, None, 1.min(path_end), path_end)
    }
}

/// The handle in `text[start..path_end]`, a proxy URL's path after its base (`base`, when
/// the text holds one), or the REST API's under `api/handles/`.
fn read_path<'a>(
    text: &'a str,
    options: &Options,
    mut form: Form,
    base: Option<(usize, usize)>,
    mut start: usize,
    path_end: usize,
) -> Result<HdlUri<'a>, ParseError> {
    if form == Form::Proxy && text[start..path_end].starts_with(API_PATH) {
        if options.cordra {
            // CORDRA's HTTP encoding is the handle's two segments after the base (U5): a
            // REST API path is not one of its URLs.
            return Err(
                ParseError::new(start, ParseErrorKind::NotAHandleForm, Some('a'))
                    .in_rule("cordra_http"),
            );
        }
        form = Form::Api;
        start += API_PATH.len();
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
