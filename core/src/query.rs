//! The proxy's query parameters (P4): reading and writing.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::error::{ParseError, ParseErrorKind};
use crate::escape::{decode, QUERY_VALUE};

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

    /// Reads a query string (without its `?`) as the reference proxy reads it (P4):
    /// parameters separated by `&` or `;`, names and values percent-decoded with `+` kept
    /// as it is; of `urlappend`, `action` and `callback` the first counts; `action` is read
    /// without ASCII case.
    ///
    /// # Errors
    ///
    /// An `index` that is not an unsigned 32-bit number or a `locatt` without `:`
    /// ([`ParseErrorKind::InvalidParameter`]), more than [`ProxyQuery::MAX_PARAMETERS`]
    /// parameters ([`ParseErrorKind::TooManyParameters`], at the first one over), a bad `%`
    /// escape, or decoded bytes that are not UTF-8, with the byte index into `query`.
    pub fn parse(query: &str) -> Result<Self, ParseError> {
        Self::parse_with(query, &['&', ';'], false)
    }

    /// Reads a REST API request's query (without its `?`) as the reference's REST servlet
    /// reads it (P8): parameters separated by `&` only, and `+` a space, as a servlet
    /// container reads a query; otherwise as [`ProxyQuery::parse`].
    ///
    /// # Errors
    ///
    /// As [`ProxyQuery::parse`].
    pub fn parse_rest(query: &str) -> Result<Self, ParseError> {
        Self::parse_with(query, &['&'], true)
    }

    fn parse_with(
        query: &str,
        separators: &[char],
        plus_is_space: bool,
    ) -> Result<Self, ParseError> {
        let form_decode = |s: &str, at: usize| -> Result<String, ParseError> {
            if plus_is_space && s.contains('+') {
                decode(&s.replace('+', " "), at).map(Cow::into_owned)
            } else {
                decode(s, at).map(Cow::into_owned)
            }
        };
        let mut q = Self::new();
        let mut offset = 0;
        let mut count = 0;
        for piece in query.split(separators) {
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
                ("urlappend", Some(v)) => {
                    q.urlappend.get_or_insert(v);
                }
                ("locatt", Some(v)) => {
                    let (k, v) = v.split_once(':').ok_or_else(bad)?;
                    q.locatt.push((k.to_string(), v.to_string()));
                }
                ("action", Some(_)) if q.action.is_some() => {}
                ("action", Some(v)) => {
                    q.action = Some(match v.to_ascii_lowercase().as_str() {
                        "showurls" => Action::ShowUrls,
                        "showvalues" => Action::ShowValues,
                        "redirect" => Action::Redirect,
                        "api" => Action::Api,
                        "metadata" => Action::Metadata,
                        _ => Action::Other(v),
                    });
                }
                ("callback", Some(v)) => {
                    q.callback.get_or_insert(v);
                }
                ("index" | "type" | "locatt" | "action", None) => return Err(bad()),
                (_, value) => q.other.push((name, value)),
            }
        }
        Ok(q)
    }
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
