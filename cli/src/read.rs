//! How lines are read: which forms, which resolvers (the options `check` and `convert`
//! share).

use clap::{Args, ValueEnum};
use handle_id::{recognize, Form, HandleRef, HdlUri, Options, ParseError, ProxyBase};

/// The reading options of `check` and `convert`.
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

    /// The form the line is in (or is meant to be in), and what it holds.
    pub fn read<'a>(&self, line: &'a str) -> (Option<Form>, Result<HdlUri<'a>, ParseError>) {
        match self.form {
            FormArg::Handle => (
                Some(Form::Handle),
                HandleRef::parse(line).map(HdlUri::from_handle),
            ),
            FormArg::Auto => {
                let result = recognize(line, &self.options);
                let form = match &result {
                    Ok(uri) => Some(uri.form()),
                    Err(_) => handle_id::detect(line, &self.options),
                };
                (form, result)
            }
        }
    }
}
