//! How lines are read: which forms, which resolvers (the options the subcommands share),
//! and a line's bytes as text.

use std::borrow::Cow;

use clap::{Args, ValueEnum};
use handle_id::{recognize, Form, HandleRef, HdlUri, Options, ParseError, ProxyBase};

/// The reading options of the subcommands that read one identifier a line.
#[derive(Args, Clone, Debug)]
pub struct ReadArgs {
    /// How each line is read: `auto` recognises every written form (hdl:, hdl://, info:,
    /// doi:, urn:, proxy and REST API URLs, bare handles); `handle` takes the line as a bare
    /// handle, exactly as written (SPEC D5).
    #[arg(long, value_enum, default_value_t = FormArg::Auto)]
    pub form: FormArg,
    #[command(flatten)]
    pub options: OptionArgs,
}

/// How written forms are read (SPEC P1, U3, U5): for every command that reads them.
#[derive(Args, Clone, Debug)]
pub struct OptionArgs {
    /// A resolver whose URLs hold handles, besides hdl.handle.net and the doi.org hosts;
    /// with a fixed first segment if it has one (https://resolver.example/hdl). Repeatable.
    #[arg(long = "proxy-base", value_name = "URL")]
    pub proxy_bases: Vec<String>,
    /// Read repository pages of the DSpace kind (https://repo.example/handle/<handle>) on any host.
    #[arg(long)]
    pub repository_urls: bool,
    /// Read hdl://<server>/<handle> as the resolution form (SPEC U3) instead of the handle
    /// <server>/<handle> (SPEC D4).
    #[arg(long)]
    pub resolution_form: bool,
    /// Apply CORDRA's profile to hdl: URIs and URLs (SPEC U5).
    #[arg(long)]
    pub cordra: bool,
}

/// `--form`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum FormArg {
    /// Recognise every written form, and report which.
    Auto,
    /// A bare handle, `<naming authority>/<local name>`, taken exactly as written.
    Handle,
}

impl OptionArgs {
    /// The options, and the first `--proxy-base` (for writing URLs).
    ///
    /// # Errors
    ///
    /// A `--proxy-base` that is not an HTTP(S) base URL, as a usage message.
    pub fn options(&self) -> Result<(Options, Option<ProxyBase>), String> {
        let mut options = Options::new()
            .repository_urls(self.repository_urls)
            .resolution_form(self.resolution_form)
            .cordra(self.cordra);
        let mut first_base = None;
        for url in &self.proxy_bases {
            let base = ProxyBase::parse(url).map_err(|e| format!("--proxy-base {url:?}: {e}"))?;
            first_base.get_or_insert_with(|| base.clone());
            options = options.proxy_base(base);
        }
        Ok((options, first_base))
    }
}

/// Reads lines as `ReadArgs` say.
pub struct Reader {
    form: FormArg,
    options: Options,
    /// The first `--proxy-base`, for writing URLs.
    pub first_base: Option<ProxyBase>,
}

impl Reader {
    /// The reader `args` describe.
    ///
    /// # Errors
    ///
    /// A `--proxy-base` that is not an HTTP(S) base URL, as a usage message.
    pub fn new(args: &ReadArgs) -> Result<Self, String> {
        let (options, first_base) = args.options.options()?;
        Ok(Self {
            form: args.form,
            options,
            first_base,
        })
    }

    /// The reader of every written form under `options` (`--form auto`).
    pub fn auto(options: Options, first_base: Option<ProxyBase>) -> Self {
        Self {
            form: FormArg::Auto,
            options,
            first_base,
        }
    }

    /// The options lines are read under.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// What a line holds: the line as text, the form it is in (or is meant to be in), and
    /// the identifier or why it is none. A line that is not UTF-8 is an error at its first
    /// bad byte (H5), judged on the bytes.
    pub fn read<'a>(&self, raw: &'a [u8]) -> Reading<'a> {
        match text(raw) {
            (_, Ok(line)) => {
                let (form, result) = match self.form {
                    FormArg::Handle => (
                        Some(Form::Handle),
                        HandleRef::parse(line).map(HdlUri::from_handle),
                    ),
                    FormArg::Auto => {
                        let result = recognize(line, &self.options);
                        let form = match &result {
                            Ok(uri) => Some(uri.form()),
                            Err(_) => self.form_of(line),
                        };
                        (form, result)
                    }
                };
                Reading {
                    input: Cow::Borrowed(line),
                    form,
                    result,
                }
            }
            (input, Err(e)) => Reading {
                input,
                form: None,
                result: Err(e),
            },
        }
    }

    /// The form a line that holds no identifier appears to be written in, if any: what
    /// every subcommand reports as the `form` of an invalid line.
    pub fn form_of(&self, line: &str) -> Option<Form> {
        match self.form {
            FormArg::Handle => Some(Form::Handle),
            FormArg::Auto => handle_id::detect(line, &self.options),
        }
    }
}

/// A line's bytes as text: shown (with U+FFFD for bytes that are not UTF-8), and as it is
/// or the error at its first byte that is not UTF-8 (H5), as every subcommand says it.
pub fn text(raw: &[u8]) -> (Cow<'_, str>, Result<&str, ParseError>) {
    match std::str::from_utf8(raw) {
        Ok(line) => (Cow::Borrowed(line), Ok(line)),
        Err(_) => (
            String::from_utf8_lossy(raw),
            Err(HandleRef::parse_bytes(raw).expect_err("not UTF-8")),
        ),
    }
}

/// A line, read.
pub struct Reading<'a> {
    /// The line as text (bytes that are not UTF-8 shown as U+FFFD).
    pub input: Cow<'a, str>,
    /// The form it is in, or appears to be in.
    pub form: Option<Form>,
    /// The identifier, or why the line holds none.
    pub result: Result<HdlUri<'a>, ParseError>,
}
