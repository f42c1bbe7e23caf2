//! The written forms of a handle (SPEC D5) and the options that say which to read.

use alloc::string::String;
use core::fmt;
use core::str::FromStr;

use crate::base::ProxyBase;
use crate::error::{ParseError, ParseErrorKind};

/// The written forms of a handle (SPEC D5), as [`recognize`](crate::recognize) reports them.
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

    /// The form's place in [`Form::ALL`] (a column of forms keeps it, one byte a row,
    /// with the names once).
    ///
    /// ```
    /// use handle_id::Form;
    /// assert_eq!(Form::ALL[Form::Doi.index()], Form::Doi);
    /// ```
    #[must_use]
    pub const fn index(self) -> usize {
        // (`ALL` lists the variants in their order: a test holds it.)
        self as usize
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

/// What [`recognize`](crate::recognize) reads besides the forms it always reads.
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

    /// [`handle_prefix`](Self::handle_prefix), checked: `prefix` is a naming authority (H2,
    /// H3: `20.500.12345`, `0.NA`), as a caller's list of them may not be.
    ///
    /// ```
    /// use handle_id::Options;
    /// assert!(Options::new().try_handle_prefix("20.500.12345").is_ok());
    /// // A '/' ends a naming authority: `a/b/c`'s is `a`, not `a/b`.
    /// assert_eq!(Options::new().try_handle_prefix("a/b").unwrap_err().index(), 1);
    /// assert!(Options::new().try_handle_prefix("").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// The [`ParseError`] at the first byte of `prefix` that a naming authority cannot
    /// hold there.
    pub fn try_handle_prefix(self, prefix: &str) -> Result<Self, ParseError> {
        let mut handle = String::with_capacity(prefix.len() + 2);
        handle.push_str(prefix);
        handle.push_str("/x");
        let read = crate::HandleRef::parse(&handle)?.prefix().len();
        if read < prefix.len() {
            return Err(ParseError::new(
                read,
                ParseErrorKind::InvalidCharacter,
                Some('/'),
            ));
        }
        Ok(self.handle_prefix(prefix))
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

    /// The resolvers' bases given with [`proxy_base`](Self::proxy_base), in order (the
    /// known ones are read besides them).
    ///
    /// ```
    /// use handle_id::{Options, ProxyBase};
    /// let base = ProxyBase::parse("https://resolver.example/hdl")?;
    /// let o = Options::new().proxy_base(base.clone()).repository_urls(true);
    /// assert_eq!(o.proxy_bases(), [base]);
    /// assert!(o.reads_repository_urls() && !o.reads_resolution_form() && !o.is_cordra());
    /// assert!(o.handle_prefixes().is_empty());
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn proxy_bases(&self) -> &[ProxyBase] {
        &self.bases
    }

    /// Whether repository pages are read ([`repository_urls`](Self::repository_urls)).
    #[must_use]
    pub fn reads_repository_urls(&self) -> bool {
        self.repository_urls
    }

    /// Whether `hdl://a/b/c` is the resolution form
    /// ([`resolution_form`](Self::resolution_form)).
    #[must_use]
    pub fn reads_resolution_form(&self) -> bool {
        self.resolution_form
    }

    /// Whether CORDRA's profile applies ([`cordra`](Self::cordra)).
    #[must_use]
    pub fn is_cordra(&self) -> bool {
        self.cordra
    }

    /// The prefixes given with [`handle_prefix`](Self::handle_prefix), in order.
    #[must_use]
    pub fn handle_prefixes(&self) -> &[String] {
        &self.prefixes
    }
}

#[cfg(test)]
mod tests {
    use super::Form;

    #[test]
    fn a_forms_index_is_its_place_among_all() {
        for (i, form) in Form::ALL.into_iter().enumerate() {
            assert_eq!(form.index(), i, "{form}");
        }
    }
}
