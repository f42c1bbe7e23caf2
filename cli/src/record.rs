//! `hdl record`: one REST API response (JSON or JSONP), validated, shown as a table or as
//! normalised JSON, filtered like the proxy, or the URL the proxy would redirect to.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use handle_id::record::{
    ClientContext, Data, Filter, HandleValue, Linked, Locations, Response, SplitMix64, Ttl,
    LOC_TYPE,
};

use crate::output::{report, Visible};
use crate::Status;

/// What `hdl record` was asked.
#[derive(clap::Args)]
pub struct RecordArgs {
    /// Print the response as normalised JSON (the proxy's field order).
    #[arg(long)]
    pub json: bool,
    /// With --json: pretty-printed, as the proxy's `pretty` parameter.
    #[arg(long, requires = "json")]
    pub pretty: bool,
    /// Only values of this type; a type ending in '.' selects its subtypes too.
    #[arg(long = "type", value_name = "TYPE")]
    pub types: Vec<String>,
    /// Only the value at this index.
    #[arg(long = "index", value_name = "INDEX")]
    pub indexes: Vec<u32>,
    /// Print only the URL the proxy would redirect to.
    #[arg(long, conflicts_with = "json")]
    pub url: bool,
    /// With --url: a locatt pair of the link, KEY:VALUE (10320/loc).
    #[arg(long, value_name = "KEY:VALUE", requires = "url")]
    pub locatt: Vec<String>,
    /// With --url: the client's IP address (10320/loc `addresses`).
    #[arg(long, value_name = "IP", requires = "url")]
    pub client_ip: Option<std::net::IpAddr>,
    /// With --url: the client's country, a two-letter code (10320/loc `country`).
    #[arg(long, value_name = "CC", requires = "url")]
    pub country: Option<String>,
    /// With --url: the seed of the random choices, to repeat them.
    #[arg(long, value_name = "N", requires = "url")]
    pub seed: Option<u64>,
    /// With --url: the request's Accept header (content negotiation, SPEC P11).
    #[arg(long, value_name = "HEADER", requires = "url")]
    pub accept: Option<String>,
    /// With --url: the request's Accept-Language header (SPEC P11).
    #[arg(long, value_name = "HEADER", requires = "url")]
    pub accept_language: Option<String>,
    /// With --url: the request's User-Agent header (SPEC P11).
    #[arg(long, value_name = "HEADER", requires = "url")]
    pub user_agent: Option<String>,
    /// With --url: the link's urlappend, appended to the URL.
    #[arg(long, value_name = "TEXT", requires = "url")]
    pub urlappend: Option<String>,
    /// With --url: every location the proxy may redirect to, one per line: its
    /// probability and its URL, tab-separated; nothing random (SPEC L7).
    #[arg(long, requires = "url", conflicts_with = "seed")]
    pub candidates: bool,
    /// The response; standard input when absent or `-`.
    pub file: Option<PathBuf>,
}

/// The most a response may hold: far beyond any handle record, short of exhausting memory.
const MAX_RESPONSE: u64 = 256 << 20;

/// Runs `hdl record`. A response that cannot be read or is malformed is one line on
/// standard error and exit status 2 (the `Err` of the caller's report); `--url` without a
/// redirect is status 1.
///
/// # Errors
///
/// An I/O error reading or writing, or a malformed response (as `InvalidData`).
pub fn run(args: &RecordArgs) -> io::Result<Status> {
    let (name, text) = read_input(args.file.as_ref())?;
    let response = Response::parse(&text)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{name}: {e}")))?;
    let mut filter = Filter::new();
    for t in &args.types {
        filter = filter.value_type(t);
    }
    for &i in &args.indexes {
        filter = filter.index(i);
    }
    let response = response.filtered(&filter);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if args.url {
        let mut client = ClientContext::new();
        for pair in &args.locatt {
            client = client
                .with_locatt(pair)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        }
        let mut client = client.with_headers(
            args.accept.as_deref(),
            args.accept_language.as_deref(),
            args.user_agent.as_deref(),
            false,
        );
        client.ip = args.client_ip;
        client.country.clone_from(&args.country);
        let append = args.urlappend.as_deref().unwrap_or("");
        let mut random = SplitMix64::new(args.seed.unwrap_or_else(SplitMix64::seed_from_clock));
        // A 10320/loc value that does not read is passed over, as the proxy passes it
        // over; the user is told which.
        for (i, v) in response.values().iter().enumerate() {
            if !v.has_type("10320/loc.") {
                continue;
            }
            if let Some(e) = v
                .as_text()
                .and_then(|xml| Locations::parse_as_proxy(xml).err())
            {
                report(format_args!(
                    "hdl record: {name}: values[{i}] ({LOC_TYPE}, index {}) is passed over: {e}",
                    v.index()
                ));
            }
        }
        if args.candidates {
            // The chances the redirect picks by (SPEC L7); a location without a URL is
            // left out: a pick of it is no redirect.
            let candidates = response
                .proxy_candidates(&client, &Linked::new())
                .unwrap_or_default();
            // A location the reference lists once per address range that holds the
            // client (L7) is one line, its chances summed.
            let mut lines: Vec<(&str, f64)> = Vec::new();
            for c in &candidates {
                let Some(url) = c.url.as_deref() else {
                    continue;
                };
                match lines.last_mut() {
                    Some((last, p)) if *last == url => *p += c.probability,
                    _ => lines.push((url, c.probability)),
                }
            }
            for (url, p) in &lines {
                writeln!(out, "{p:.6}\t{}{}", Visible(url), Visible(append))?;
            }
            return Ok(if !lines.is_empty() {
                Status::AllValid
            } else {
                Status::SomeInvalid
            });
        }
        // Where the reference proxy (and hdl serve) redirects: SPEC L5, P7.
        return match response.proxy_redirect(&client, &mut random, &Linked::new()) {
            Some(r) => {
                writeln!(out, "{}{}", Visible(&r.url), Visible(append))?;
                Ok(Status::AllValid)
            }
            None => Ok(Status::SomeInvalid),
        };
    }
    if args.json {
        let json = if args.pretty {
            response.to_json_pretty()
        } else {
            response.to_json()
        };
        writeln!(out, "{json}")?;
        return Ok(Status::AllValid);
    }
    write_table(&mut out, &response)?;
    Ok(Status::AllValid)
}

/// The file's name for messages and its text; standard input for none or `-`.
fn read_input(file: Option<&PathBuf>) -> io::Result<(String, String)> {
    let mut bytes = Vec::new();
    let name = match file.filter(|f| f.as_os_str() != "-") {
        Some(path) => {
            std::fs::File::open(path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?
                .take(MAX_RESPONSE + 1)
                .read_to_end(&mut bytes)?;
            path.display().to_string()
        }
        None => {
            io::stdin()
                .lock()
                .take(MAX_RESPONSE + 1)
                .read_to_end(&mut bytes)?;
            "standard input".to_owned()
        }
    };
    if bytes.len() as u64 > MAX_RESPONSE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{name}: more than {} MiB", MAX_RESPONSE >> 20),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{name}: not UTF-8 at byte {}", e.utf8_error().valid_up_to()),
        )
    })?;
    Ok((name, text))
}

/// The response as a person reads it: the handle and code, then one line per value.
pub(crate) fn write_table(out: &mut impl Write, r: &Response) -> io::Result<()> {
    if let Some(h) = r.handle() {
        writeln!(out, "handle    {}", Visible(h.as_str()))?;
    }
    let code = r.code();
    writeln!(
        out,
        "response  {} ({}, HTTP {})",
        code.as_u32(),
        code.meaning(),
        code.http_status()
    )?;
    if let Some(m) = r.message() {
        writeln!(out, "message   {}", Visible(m))?;
    }
    let values = r.values();
    if values.is_empty() {
        return Ok(());
    }
    let index_width = values
        .iter()
        .map(|v| v.index().to_string().len())
        .max()
        .unwrap_or(0)
        .max(5);
    let type_width = values
        .iter()
        .map(|v| v.value_type().chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    writeln!(
        out,
        "\n{:<index_width$}  {:<type_width$}  {:<8}  {:<20}  data",
        "index", "type", "ttl", "timestamp"
    )?;
    for v in values {
        writeln!(
            out,
            "{:<index_width$}  {:<type_width$}  {:<8}  {:<20}  {}",
            v.index(),
            Visible(v.value_type()).to_string(),
            ttl(v),
            Visible(v.timestamp().unwrap_or("-")).to_string(),
            data(v)
        )?;
    }
    Ok(())
}

fn ttl(v: &HandleValue) -> String {
    match v.ttl() {
        Some(Ttl::Seconds(s)) => s.to_string(),
        Some(Ttl::Until(t)) => format!("until {}", Visible(t)),
        None => "-".to_owned(),
    }
}

/// A value's data on one line, by its format.
fn data(v: &HandleValue) -> String {
    match v.data() {
        Data::String(s) => Visible(s).to_string(),
        Data::Base64 { bytes, text } => format!("base64 {} ({} bytes)", Visible(text), bytes.len()),
        Data::Hex { bytes, text } => format!("hex {} ({} bytes)", Visible(text), bytes.len()),
        Data::Admin(a) => format!(
            "admin {} index {}, permissions {} ({})",
            Visible(a.admin.handle.as_str()),
            a.admin.index,
            a.permissions,
            a.permissions.names().collect::<Vec<_>>().join(", ")
        ),
        Data::Vlist(list) => {
            let refs: Vec<String> = list
                .iter()
                .map(|r| format!("{}:{}", r.index, Visible(r.handle.as_str())))
                .collect();
            format!("vlist {}", refs.join(" "))
        }
        Data::Site(value) => format!("site {}", Visible(&value.to_string())),
        Data::Other { format, value } => {
            format!("{} {}", Visible(format), Visible(&value.to_string()))
        }
        other => Visible(other.format()).to_string(),
    }
}
