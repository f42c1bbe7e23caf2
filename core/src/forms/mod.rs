//! Every written form of a handle: which form a text is in (`recognize`, `detect`, by the
//! prefix rules of grammar/forms.pest), and a reader and a writer per form, each in a module
//! of its own: `hdl` (`hdl:`, `hdl://`, the resolution form, the CORDRA profile), `info`
//! (`info:hdl/`, `info:doi/`), `textual` (`doi:`, `urn:hdl:`, `urn:doi:`), `proxy` (proxy,
//! REST API and repository URLs).
//!
//! Each form's grammar (grammar/hdl-uri.pest, cordra-uri.pest, info-uri.pest,
//! proxy-url.pest) decides through its generated validator. What is left to the readers is
//! finding the parts of the validated text (for `hdl:` URIs, from the rules the validator
//! reports entering as it walks; for the other forms, at their delimiters; both checked
//! against the grammars' parse trees in tests/uri_grammar.rs), percent-decoding, and the
//! handle grammar on the decoded handle.

mod hdl;
mod info;
mod prefix;
mod proxy;
mod textual;

use alloc::string::String;
use core::fmt;

use crate::base::ProxyBase;
use crate::error::{ParseError, ParseErrorKind};
use crate::escape;
use crate::form::{Form, Options};
use crate::generated::{self as g, Rule};
use crate::handle::HandleRef;
use crate::uri::HdlUri;

use self::hdl::{read_hdl, read_hdl_uri, HdlEncoded};
use self::info::read_info;
use self::prefix::prefix_form;
pub(crate) use self::prefix::{may_start_form, prefix_form_at};
use self::proxy::read_url;
use self::textual::read_textual;

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
    // (Where the prefix ends is given to the readers that need it: each would find it
    // again by the same rules.)
    let (Some(form), prefix) = prefix_form_at(text, options) else {
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
        Form::InfoHdl | Form::InfoDoi => read_info(text, form, prefix),
        Form::Doi | Form::UrnHdl | Form::UrnDoi => read_textual(text, form, prefix),
        Form::Proxy | Form::Api | Form::Repository => read_url(text, options),
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

impl fmt::Display for HdlUri<'_> {
    /// The canonical text of the form: the handle encoded as the form's rules say (U6, U8,
    /// P2), after the scheme or base in lower case, then the query and fragment as read.
    /// It reads back as the same handle under the options it was read with: under the
    /// CORDRA profile (U5), a `/` in the local name of the `hdl:` and HTTP forms is written
    /// `%2F`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = self.handle();
        let hdl = HdlEncoded(h, self.is_cordra());
        match self.form() {
            Form::Handle => f.write_str(h.as_str())?,
            Form::Hdl => write!(f, "hdl:{hdl}")?,
            Form::HdlHost => write!(f, "hdl://{hdl}")?,
            Form::HdlResolution => {
                write!(f, "hdl://{}/{hdl}", self.base().unwrap_or(""))?;
            }
            Form::InfoHdl | Form::InfoDoi => {
                let ns = if self.form() == Form::InfoHdl {
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
                let ns = if self.form() == Form::UrnHdl {
                    "hdl"
                } else {
                    "doi"
                };
                write!(f, "urn:{ns}:{}:{}", h.prefix(), h.local_name())?;
            }
            Form::Proxy | Form::Api | Form::Repository => {
                proxy::write_url(
                    f,
                    self.base().unwrap_or(""),
                    self.form(),
                    h,
                    self.is_cordra(),
                )?;
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

impl HandleRef<'_> {
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
    /// `:` (at its index); and a repository URL without the repository's base, or at a
    /// known resolver's host, which reads its path, `handle/` and all, as the handle (P1; at
    /// index 0). Every other form writes every handle.
    ///
    /// ```
    /// use handle_id::{Form, HandleRef, ParseErrorKind, ProxyBase};
    /// let h = HandleRef::parse("10986/36154")?;
    /// let repo = ProxyBase::parse("https://repository.example.org")?;
    /// assert_eq!(
    ///     h.to_form(Form::Repository, Some(&repo))?,
    ///     "https://repository.example.org/handle/10986/36154"
    /// );
    /// let err = h.to_form(Form::Repository, None).unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::Unwritable);
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    pub fn to_form(self, form: Form, base: Option<&ProxyBase>) -> Result<String, ParseError> {
        let at_a_resolver = |b: &ProxyBase| {
            crate::base::KNOWN_PROXY_HOSTS
                .iter()
                .any(|k| b.host().eq_ignore_ascii_case(k))
        };
        if form == Form::Repository && !base.is_some_and(|b| !at_a_resolver(b)) {
            return Err(ParseError::new(0, ParseErrorKind::Unwritable, None).in_rule(Rule::HttpUrl));
        }
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
                let rule = if form == Form::UrnHdl {
                    Rule::UrnHdlForm
                } else {
                    Rule::UrnDoiForm
                };
                return Err(
                    ParseError::new(colon, ParseErrorKind::Unwritable, Some(':')).in_rule(rule),
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
            Form::Proxy | Form::Api | Form::Repository => {
                let mut s = String::new();
                proxy::write_url(&mut s, base.as_str(), form, self, false)
                    .expect("a String takes any text");
                s
            }
        })
    }
}
