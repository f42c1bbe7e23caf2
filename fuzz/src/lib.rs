//! The invariants of every public entry point that reads text, checked on one input: what
//! the fuzz targets (`fuzz_targets/`, `cargo +nightly fuzz run <target>`) run on every input
//! libFuzzer makes, and what the test suite runs on seeded property strings
//! (`tests/invariants.rs`). A broken invariant panics with what broke.
//!
//! - The generated validators agree with pest's parsers of the same grammar files.
//! - On success, every writer's output reads back as the same value under the same options.
//! - An error's index lies inside the input, on a character boundary, and points at the
//!   character the error names (or at the `%` of the escape that decodes to it).
//! - A warning's index lies inside the handle, on a character boundary.
//! - Memory stays within a constant factor of the input; so does the work extraction does.

#![deny(unsafe_code)]

pub mod inputs;

/// The written forms the seeds and the stable invariant tests put every corpus identifier
/// in: bare, and after each of these prefixes.
pub const FORM_PREFIXES: [&str; 7] = [
    "",
    "hdl:",
    "hdl://",
    "info:doi/",
    "doi:",
    "urn:hdl:",
    "https://doi.org/",
];
pub mod memory;
// The Polars plugin's reader of keyword arguments, taken as it is (it depends on `std`
// alone): the Python crate links libpython, which the fuzz targets do not.
#[path = "../../python/src/kwargs.rs"]
pub mod kwargs;
pub mod reference;

use handle_id::{
    clean, detect, extract, recognize, validate, FixCode, Form, Handle, HandleRef, HdlUri,
    LintCode, Options, ParseError, ParseErrorKind, ProxyBase, ProxyQuery,
};

/// Bytes a call may allocate per byte of input, besides [`memory::SLACK`].
const BYTES_PER_BYTE: usize = 64;

/// Bytes extraction may read per byte of its text, over all its passes (`Extract::work`),
/// besides [`WORK_SLACK`]: the constant of its linear time. The costliest shapes known read
/// about 20 (tests/extract.rs `work_is_linear_on_every_shape`).
pub const WORK_PER_BYTE: usize = 48;

/// Bytes extraction may read besides [`WORK_PER_BYTE`] per byte.
pub const WORK_SLACK: usize = 4096;

/// The option sets form recognition is checked under: each option alone, and a named base
/// with a fixed segment.
pub fn option_sets() -> Vec<(&'static str, Options)> {
    let base = ProxyBase::parse("http://resolver.example:8080/hdl").expect("a valid base");
    // (A named base on a known resolver's host claims its paths: cleaning's plain resolver
    // URL must not read them as the known one's.)
    let known = ProxyBase::parse("https://doi.org/123").expect("a valid base");
    vec![
        ("default", Options::new()),
        ("resolution form", Options::new().resolution_form(true)),
        ("cordra", Options::new().cordra(true)),
        ("repository urls", Options::new().repository_urls(true)),
        ("named base", Options::new().proxy_base(base)),
        (
            "named base on a known host",
            Options::new().proxy_base(known),
        ),
    ]
}

/// Whether cleaning `text` may stop at one of its limits (`handle_id::__CLEANING_LIMITS`),
/// past which what it gives may be cleaned further: so many pairs, or marks without a
/// partner, taken off either end, or so many forms read inside the form that holds them.
/// Told by counting, more often than it is so: the marks that may pair, and what may start
/// a form (a scheme's or URI's `:`, written or encoded, and a resolver's host without its
/// scheme).
pub fn past_cleanings_limits(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let forms = [":", "%3a", "doi.org/", "handle.net/"]
        .iter()
        .map(|f| lower.matches(f).count())
        .sum::<usize>();
    let marks = text
        .chars()
        .filter(|&c| c.is_ascii_punctuation() || !c.is_ascii())
        .count();
    let (pairs, held) = handle_id::__CLEANING_LIMITS;
    forms > held || marks > pairs
}

/// An error of reading `text`: its index inside `text`, on a character boundary, at the
/// character it names (or the `%` of the escape that decodes to it); its messages render.
#[track_caller]
pub fn error_names_its_character(text: &str, e: &ParseError) {
    let at = e.index();
    assert!(at <= text.len(), "{e:?}: index past the end of {text:?}");
    assert!(
        text.is_char_boundary(at),
        "{e:?}: index inside a character of {text:?}"
    );
    let there = text[at..].chars().next();
    if e.escaped() {
        assert_eq!(
            there,
            Some('%'),
            "{e:?} in {text:?}: escaped, but no '%' there"
        );
        assert!(
            e.found().is_some(),
            "{e:?}: escaped, but names no character"
        );
    } else if e.kind() == ParseErrorKind::InvalidUtf8 {
        assert_eq!(e.found(), None, "{e:?}");
    } else {
        assert_eq!(
            e.found(),
            there,
            "{e:?} in {text:?}: names another character"
        );
    }
    let _ = (e.to_string(), e.render(text).to_string());
}

/// The warnings of `h`: inside it, on character boundaries.
#[track_caller]
fn warnings_lie_inside(h: &str, warnings: &[handle_id::Warning]) {
    for w in warnings {
        assert!(
            w.index() <= h.len() && h.is_char_boundary(w.index()),
            "{w:?} in {h:?}"
        );
        let _ = w.to_string();
    }
}

/// `uri.handle_span()` is where the handle is written: its text, percent-decoded as the
/// form decodes (a `%` that starts no escape is itself, P3), is the handle, but for a
/// `urn:` form's ':' that stands for the '/'.
#[track_caller]
fn handle_span_holds_the_handle(text: &str, uri: &handle_id::HdlUri<'_>) {
    let written = &text.as_bytes()[uri.handle_span()];
    let decodes = !matches!(
        uri.form(),
        Form::Handle | Form::Doi | Form::UrnHdl | Form::UrnDoi
    );
    let hex = |b: Option<&u8>| b.and_then(|b| char::from(*b).to_digit(16));
    let mut decoded = Vec::new();
    let mut i = 0;
    while i < written.len() {
        match (
            decodes && written[i] == b'%',
            hex(written.get(i + 1)),
            hex(written.get(i + 2)),
        ) {
            (true, Some(hi), Some(lo)) => {
                decoded.push(u8::try_from(hi << 4 | lo).expect("a byte"));
                i += 3;
            }
            _ => {
                decoded.push(written[i]);
                i += 1;
            }
        }
    }
    let handle = uri.handle().as_str().as_bytes();
    assert_eq!(decoded.len(), handle.len(), "{text:?}: {written:?}");
    for (d, h) in decoded.iter().zip(handle) {
        assert!(d == h || (*d, *h) == (b':', b'/'), "{text:?}: {written:?}");
    }
}

/// Every form `h` can be written in reads back as `h`, in that form, under the options that
/// read the form; and what `Display` writes of what was read reads back the same.
#[track_caller]
pub fn writers_read_back(h: HandleRef<'_>) {
    let repository = ProxyBase::parse("https://repo.example/xmlui").expect("a valid base");
    for form in Form::ALL {
        let (options, base) = match form {
            Form::HdlResolution => (Options::new().resolution_form(true), None),
            Form::Repository => (Options::new().repository_urls(true), Some(&repository)),
            _ => (Options::new(), None),
        };
        let written = match h.to_form(form, base) {
            Ok(written) => written,
            Err(e) => {
                // Only a urn: form of a naming authority with a ':' (U8).
                assert!(
                    matches!(form, Form::UrnHdl | Form::UrnDoi) && h.prefix().contains(':'),
                    "{form} of {h:?}: {e}"
                );
                assert_eq!(e.kind(), ParseErrorKind::Unwritable);
                assert_eq!(h.as_str()[e.index()..].chars().next(), e.found());
                continue;
            }
        };
        if form == Form::Handle {
            // A bare handle is read bare (D5).
            assert_eq!(
                HandleRef::parse(&written).map(|r| r.as_str()),
                Ok(h.as_str())
            );
            continue;
        }
        let read = recognize(&written, &options)
            .unwrap_or_else(|e| panic!("{form} of {h:?}: {written:?}: {e}"));
        assert_eq!((read.form(), read.handle()), (form, h), "{written:?}");
        let shown = read.to_string();
        let again = recognize(&shown, &options)
            .unwrap_or_else(|e| panic!("{written:?} displayed as {shown:?}: {e}"));
        assert_eq!(again.handle(), h, "{written:?} displayed as {shown:?}");
    }
}

/// `text` as a bare handle: the validator agrees with pest; parsing agrees with validating;
/// a handle's parts, owned form, warnings and every writer; an error names its character.
pub fn handle(text: &str) {
    let verdict = validate(text);
    assert_eq!(
        verdict.is_ok(),
        reference::accepts("handle", text),
        "handle: the generated validator and pest disagree on {text:?}"
    );
    let parsed = memory::bounded(text.len(), BYTES_PER_BYTE, || HandleRef::parse(text));
    match parsed {
        Ok(h) => {
            // (`parse` reads a naming authority of digits and dots without the validator.)
            assert!(
                verdict.is_ok(),
                "parse accepts what validate refuses: {text:?}"
            );
            assert_eq!(h.as_str(), text);
            assert_eq!(text.find('/'), Some(h.prefix().len()), "H1: the first '/'");
            let owned: Handle = text.parse().expect("parses as HandleRef did");
            assert_eq!(owned.as_handle_ref(), h);
            let warnings = memory::bounded(text.len(), BYTES_PER_BYTE, || h.lint());
            warnings_lie_inside(text, &warnings);
            writers_read_back(h);
        }
        Err(e) => {
            assert_eq!(verdict, Err(e), "validate and parse disagree on {text:?}");
            error_names_its_character(text, &e);
        }
    }
}

/// `text` as a prefix extraction finds bare handles under (`Options::try_handle_prefix`):
/// taken exactly when it is the naming authority of a handle (`text/x`'s), and else
/// refused at a place inside it.
pub fn handle_prefix(text: &str) {
    let taken = Options::new().try_handle_prefix(text);
    let is_prefix = HandleRef::parse(&format!("{text}/x")).is_ok_and(|h| h.prefix() == text);
    assert_eq!(taken.is_ok(), is_prefix, "{text:?}");
    if let Err(e) = taken {
        assert!(
            e.index() <= text.len() && text.is_char_boundary(e.index()),
            "{text:?}: {e:?}"
        );
    }
}

/// `data` as bytes of a handle: UTF-8 first (an error at the first byte that is not), then
/// [`handle`] and [`handle_prefix`].
pub fn handle_bytes(data: &[u8]) {
    match std::str::from_utf8(data) {
        Ok(text) => {
            assert_eq!(
                HandleRef::parse_bytes(data).map(|h| h.as_str()),
                HandleRef::parse(text).map(|h| h.as_str())
            );
            handle(text);
            handle_prefix(text);
        }
        Err(utf8) => {
            let e = HandleRef::parse_bytes(data).expect_err("not UTF-8");
            assert_eq!(
                (e.kind(), e.index()),
                (ParseErrorKind::InvalidUtf8, utf8.valid_up_to())
            );
        }
    }
}

/// `text` read as any written form, under each option set: what `recognize` reads is a
/// handle, in the form `detect` says, and `Display` writes text that reads back as it;
/// query parameters and warnings; an error names its character.
pub fn recognize_forms(text: &str) {
    for (name, options) in option_sets() {
        let read = memory::bounded(text.len(), BYTES_PER_BYTE, || recognize(text, &options));
        match read {
            Ok(uri) => {
                let h = uri.handle();
                assert_eq!(
                    HandleRef::parse(h.as_str()).map(|r| r.as_str()),
                    Ok(h.as_str())
                );
                assert_eq!(detect(text, &options), Some(uri.form()), "{name}: {text:?}");
                for part in [uri.base(), uri.query(), uri.fragment()]
                    .into_iter()
                    .flatten()
                {
                    let start = part.as_ptr() as usize - text.as_ptr() as usize;
                    assert!(
                        start + part.len() <= text.len(),
                        "{name}: a part outside {text:?}"
                    );
                }
                let shown = uri.to_string();
                let again = recognize(&shown, &options)
                    .unwrap_or_else(|e| panic!("{name}: {text:?} displayed as {shown:?}: {e}"));
                assert_eq!(
                    (again.form(), again.handle()),
                    (uri.form(), h),
                    "{name}: {text:?} displayed as {shown:?}"
                );
                let warnings = memory::bounded(text.len(), BYTES_PER_BYTE, || uri.lint());
                handle_span_holds_the_handle(text, &uri);
                let span = uri.handle_span();
                warnings_lie_inside(text, &warnings);
                for w in &warnings {
                    // (At its end for an empty local name.)
                    assert!(
                        (span.start..=span.end).contains(&w.index()),
                        "{name}: {w:?} outside {span:?} of {text:?}"
                    );
                }
                if let Some(Err(e)) = uri.proxy_query() {
                    error_names_its_character(text, &e);
                }
            }
            Err(e) => error_names_its_character(text, &e),
        }
    }
}

/// `text` as an `hdl:` URI: the generated validators agree with pest; `HdlUri::parse`
/// agrees with `recognize` on the `hdl:` forms; `Display` reads back.
pub fn hdl_uri(text: &str) {
    for rule in ["hdl_path", "hdl_host", "hdl_resolution"] {
        reference::agree(rule, text);
    }
    let parsed = memory::bounded(text.len(), BYTES_PER_BYTE, || HdlUri::parse(text));
    let recognized = recognize(text, &Options::new());
    match &parsed {
        Ok(uri) => {
            assert_eq!(recognized.as_ref(), Ok(uri), "{text:?}");
            let shown = uri.to_string();
            let again = HdlUri::parse(&shown).unwrap_or_else(|e| panic!("{shown:?}: {e}"));
            assert_eq!(
                again.handle(),
                uri.handle(),
                "{text:?} displayed as {shown:?}"
            );
        }
        Err(e) => {
            error_names_its_character(text, e);
            if matches!(
                detect(text, &Options::new()),
                Some(Form::Hdl | Form::HdlHost)
            ) {
                assert_eq!(recognized.as_ref().err(), Some(e), "{text:?}");
            }
        }
    }
}

/// Handles a base's URLs are checked with.
const HANDLES: [&str; 5] = [
    "10.1000/182",
    "20.1000/5555#x",
    "hdl:1/2",
    "api/handles/1/2",
    "a/.",
];

/// `text` as a proxy base and as a proxy URL: a base reads back from its text and its URLs
/// read back as their handles; the URL grammar's validator agrees with pest.
pub fn proxy(text: &str) {
    reference::agree("http_url", text);
    reference::agree("cordra_http", text);
    match memory::bounded(text.len(), BYTES_PER_BYTE, || ProxyBase::parse(text)) {
        Ok(base) => {
            assert_eq!(
                ProxyBase::parse(base.as_str()).as_ref(),
                Ok(&base),
                "{text:?}"
            );
            let options = Options::new().proxy_base(base.clone());
            for h in HANDLES {
                let h = HandleRef::parse(h).expect("a valid handle");
                for url in [base.url(h), base.api_url(h)] {
                    let read = recognize(&url, &options)
                        .unwrap_or_else(|e| panic!("{url:?} of base {text:?}: {e}"));
                    assert_eq!(read.handle(), h, "{url:?} of base {text:?}");
                }
            }
        }
        Err(e) => error_names_its_character(text, &e),
    }
    recognize_forms(text);
}

/// `text` as a proxy query: what is read writes back to a query that reads the same; an
/// error names its character; memory stays within a constant factor.
pub fn query(text: &str) {
    match memory::bounded(text.len(), BYTES_PER_BYTE, || ProxyQuery::parse(text)) {
        Ok(q) => {
            let written = q.to_string();
            let again = ProxyQuery::parse(&written)
                .unwrap_or_else(|e| panic!("{text:?} written as {written:?}: {e}"));
            assert_eq!(again, q, "{text:?} written as {written:?}");
        }
        Err(e) => error_names_its_character(text, &e),
    }
}

/// `text` cleaned (C2) under each option set: the result is a handle in its canonical form
/// (C1) whose text as written is a handle too; each fix and warning lies inside `text`, on
/// a character boundary, once; an error names its character.
pub fn clean_text(text: &str) {
    for (name, options) in option_sets() {
        // `clean_into` (the same reader, without the lint) gives what `clean` gives, in
        // either case.
        let (mut into, mut fixes) = (String::new(), Vec::new());
        let kept = handle_id::clean_into(text, &options, true, &mut into, &mut fixes);
        match (clean(text, &options), kept) {
            (Ok(c), Ok(form)) => {
                assert_eq!(
                    (into.as_str(), form, &fixes[..]),
                    (c.as_written().as_str(), c.form(), c.fixes()),
                    "{name}: {text:?}"
                );
                handle_id::clean_into(text, &options, false, &mut into, &mut fixes).unwrap();
                assert_eq!(into, c.handle().as_str(), "{name}: {text:?}");
                // `clean_in_place` says where the same handle is: a span of the text on
                // character boundaries, or its buffer.
                for keep_case in [false, true] {
                    let (mut buffer, mut placed) = (String::new(), Vec::new());
                    let (form, at) = handle_id::clean_in_place(
                        text,
                        &options,
                        keep_case,
                        &mut buffer,
                        &mut placed,
                    )
                    .unwrap();
                    let h = match at {
                        handle_id::Written::Text(span) => {
                            assert!(buffer.is_empty(), "{name}: {text:?}");
                            text.get(span).expect("a span on character boundaries")
                        }
                        handle_id::Written::Buffer => buffer.as_str(),
                    };
                    let want = if keep_case {
                        c.as_written()
                    } else {
                        c.handle()
                    };
                    assert_eq!(
                        (h, form, &placed[..]),
                        (want.as_str(), c.form(), c.fixes()),
                        "{name}: {text:?}"
                    );
                }
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{name}: {text:?}"),
            (a, b) => panic!("{name}: {text:?}: clean {a:?}, clean_into {b:?}"),
        }
        match memory::bounded(text.len(), BYTES_PER_BYTE, || clean(text, &options)) {
            Ok(c) => {
                let h = c.handle();
                assert_eq!(&c.as_written().canonical(), h, "{name}: {text:?}");
                assert_eq!(&h.canonical(), h, "{name}: {text:?}");
                for (i, fix) in c.fixes().iter().enumerate() {
                    assert!(
                        fix.index() <= text.len() && text.is_char_boundary(fix.index()),
                        "{name}: {fix:?} in {text:?}"
                    );
                    assert!(!c.fixes()[..i].iter().any(|f| f.code() == fix.code()));
                }
                // Cleaning what cleaning gives gives it again, within cleaning's limits; or
                // nothing, where a form held what alone is no handle (`info:hdl/urn:1/2`).
                if !past_cleanings_limits(text) {
                    if let Ok(again) = clean(h.as_str(), &options) {
                        assert_eq!(again.handle(), h, "{name}: {text:?} cleaned again");
                    }
                }
                // The warnings are the handle's as written (and a URL's literal '%', P3), at
                // places in the input.
                warnings_lie_inside(text, c.lint());
                let of_handle = c.as_written().lint();
                for w in c
                    .lint()
                    .iter()
                    .filter(|w| w.code() != LintCode::LiteralPercent)
                {
                    assert!(
                        of_handle.iter().any(|h| h.code() == w.code()),
                        "{name}: {w:?} of {text:?}"
                    );
                }
            }
            Err(e) => error_names_its_character(text, &e),
        }
    }
}

/// Identifiers extracted from `text` (C3), under each option set and a named prefix: in
/// order, not overlapping, each span on character boundaries with its text as written; the
/// handle is what cleaning that text gives (as written); none missed: an identifier read
/// from any start outside a URL is within one found in the whole text; and what was read to
/// find them, over every pass, within a constant factor of the text (linear time).
pub fn extract_text(text: &str) {
    for (name, options) in option_sets() {
        // (And `29`, whose handles may start inside an escape of a `)`, `%29`.)
        let options = options.handle_prefix("20.500.1").handle_prefix("29");
        let (found, work) = memory::bounded(text.len(), BYTES_PER_BYTE, || {
            let mut found = extract(text, &options);
            (found.by_ref().collect::<Vec<_>>(), found.work())
        });
        // Time linear in the text: the bytes read over every pass, counted.
        assert!(
            work <= WORK_PER_BYTE * text.len() + WORK_SLACK,
            "{name}: {work} bytes read for {} bytes of {text:?}",
            text.len()
        );
        let mut end = 0;
        for f in &found {
            let span = f.span();
            assert!(
                span.start >= end && span.start < span.end,
                "{name}: {f:?} in {text:?}"
            );
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            assert_eq!(&text[span.clone()], f.text(), "{name}: {text:?}");
            // An identifier starts a word: not after a letter, digit or '.' (inside a longer
            // word or number); but a DOI label may follow a full stop (`2459.doi:10.…`, as
            // text taken from PDFs glues them: C3).
            let before = text[..span.start].bytes().next_back();
            let glued_label = before == Some(b'.')
                && f.text()
                    .get(..3)
                    .is_some_and(|w| w.eq_ignore_ascii_case("doi"));
            assert!(
                glued_label || !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.'),
                "{name}: {f:?} inside a word in {text:?}"
            );
            let cleaned = clean(f.text(), &options)
                .unwrap_or_else(|e| panic!("{name}: {f:?} in {text:?} does not clean: {e}"));
            assert_eq!(
                (cleaned.as_written().as_handle_ref(), cleaned.form()),
                (f.handle(), f.form()),
                "{name}: {text:?}"
            );
            // Cleaning took nothing off but a label and the space after it (and the white
            // space inside a split DOI, which it joins as extraction does, and what it takes
            // off the handle a form holds): the span is the identifier.
            assert!(
                !cleaned.fixes().iter().any(|fix| !fix.held()
                    && (matches!(
                        fix.code(),
                        FixCode::WrappingPair
                            | FixCode::LeadingPunctuation
                            | FixCode::TrailingPunctuation
                    ) || (fix.code() == FixCode::SurroundingWhitespace && fix.index() == 0))),
                "{name}: {f:?} in {text:?}: {:?}",
                cleaned.fixes()
            );
            end = span.end;
        }
        // Nothing is missed: where an identifier starts when the text is read from there on,
        // the whole text's reading has one too (which may start before, at a label, or run
        // past it), unless the start is in a URL's path, where the URL's query and fragment
        // end it (C3). Every start, so only short texts.
        if text.len() <= 512 {
            let bytes = text.as_bytes();
            for (i, c) in text.char_indices() {
                let in_word =
                    i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.');
                let token = bytes[..i]
                    .iter()
                    .rposition(u8::is_ascii_whitespace)
                    .map_or(0, |w| w + 1);
                if !c.is_ascii_alphanumeric() || in_word || text[token..i].contains("://") {
                    continue;
                }
                if let Some(alone) = extract(&text[i..], &options).next() {
                    if alone.span().start == 0 {
                        assert!(
                            found
                                .iter()
                                .any(|f| f.span().start <= i && i < f.span().end),
                            "{name}: {:?} at {i} missed in {text:?} (found {found:?})",
                            alone.text()
                        );
                    }
                }
            }
        }
    }
}

/// Every generated validator agrees with pest's parser of its grammar on `text`.
pub fn grammars(text: &str) {
    for rule in reference::entry_rules() {
        reference::agree(rule, text);
    }
    proxy_base(text);
}

/// A resolver's base read from `text` (P1): taken only where its grammar (`base_url`)
/// accepts the text; its own text reads back as it; and a URL written from it, of a handle
/// whose path needs escapes, reads back as that handle under it (P2's test of truth). An
/// error is on a character boundary of the text.
pub fn proxy_base(text: &str) {
    match ProxyBase::parse(text) {
        Ok(base) => {
            assert!(reference::accepts("base_url", text), "{text:?}");
            assert_eq!(
                ProxyBase::parse(base.as_str()).as_ref(),
                Ok(&base),
                "{text:?}"
            );
            let h = HandleRef::parse("20.1000/a b?c#d/./%").expect("a handle");
            let url = base.url(h);
            let read = recognize(&url, &Options::new().proxy_base(base.clone()));
            assert_eq!(
                read.as_ref().map(|u| u.handle().as_str()),
                Ok(h.as_str()),
                "{text:?}: {url}"
            );
        }
        Err(e) => assert!(text.is_char_boundary(e.index()), "{text:?}: {e}"),
    }
}

/// A REST API response costs at most this many bytes per byte of its text: the JSON tree
/// it is read through (`record/tree.rs`: lists of fields, numbers as their text) and the
/// typed response built from it, and for data kept as JSON a serde_json `Value` (a small
/// object is a map node of several hundred bytes).
const RECORD_BYTES_PER_BYTE: usize = 1024;

/// A value as the REST API writes it (its `Serialize`).
fn value_json(v: &handle_id::record::HandleValue) -> String {
    serde_json::to_string(v).expect("a value writes")
}

/// The REST API's base64 data, both ways; and a REST API response (R1–R5), JSON or JSONP:
/// reading never panics and stays within
/// [`RECORD_BYTES_PER_BYTE`]; an error says where; reading with a filter is reading and
/// then filtering; what is read is written back (compact,
/// pretty, JSONP) and read again as the same response; filtering and choosing a redirect
/// never panic, and a redirect is one of the response's own values.
pub fn record_text(text: &str) {
    use handle_id::record::{
        base64, base64_decode, ClientContext, Filter, HandleValue, Response, SplitMix64,
    };
    // The REST API's base64: the bytes any text reads as are read again from their own
    // text (unused low bits of a last digit may differ), an error is inside the text, and
    // any bytes come back from their text.
    match base64_decode(text) {
        Ok(bytes) => assert_eq!(base64_decode(&base64(&bytes)), Ok(bytes), "{text:?}"),
        Err(at) => assert!(at <= text.len(), "{text:?}: {at}"),
    }
    assert_eq!(
        base64_decode(&base64(text.as_bytes())).as_deref(),
        Ok(text.as_bytes())
    );
    // One value read alone: never a panic, within the same bound, an error that says what.
    match memory::bounded(text.len(), RECORD_BYTES_PER_BYTE, || {
        HandleValue::parse(text)
    }) {
        Ok(v) => assert_eq!(
            HandleValue::parse(&value_json(&v)).as_ref(),
            Ok(&v),
            "{text:?}"
        ),
        Err(e) => assert!(!e.message().is_empty(), "{text:?}: {e:?}"),
    }
    let read = memory::bounded(text.len(), RECORD_BYTES_PER_BYTE, || Response::parse(text));
    // Reading with a filter: never a panic, and for a response that reads, what reading
    // and then filtering gives.
    let filters = [
        Filter::new().value_type("URL").value_type("10320/loc"),
        Filter::new().index(1).value_type("HS_SITE."),
    ];
    let selected: Vec<_> = filters
        .iter()
        .map(|f| {
            memory::bounded(text.len(), RECORD_BYTES_PER_BYTE, || {
                Response::parse_selected(text, f)
            })
        })
        .collect();
    let response = match read {
        Ok(r) => r,
        Err(e) => {
            assert!(!e.message().is_empty(), "{text:?}: {e:?}");
            return;
        }
    };
    for (f, s) in filters.iter().zip(selected) {
        assert_eq!(s, Ok(response.filtered(f)), "{text:?} with {f:?}");
    }
    // Each value, written alone, reads back alone as itself.
    for v in response.values() {
        assert_eq!(
            HandleValue::parse(&value_json(v)).as_ref(),
            Ok(v),
            "{text:?}"
        );
    }
    for written in [
        response.to_json(),
        response.to_json_pretty(),
        response.to_jsonp("cb").expect("a name"),
    ] {
        assert_eq!(
            Response::parse(&written).as_ref(),
            Ok(&response),
            "{text:?} as {written}"
        );
    }
    let only_urls = response.filtered(&Filter::new().value_type("URL").index(1));
    assert!(only_urls.values().len() <= response.values().len());
    if let Some(r) = response.redirect(&ClientContext::new(), &mut SplitMix64::new(1)) {
        assert!(response.values().contains(r.value()), "{text:?}");
    }
    // showurls never fails: a 10320/loc value that does not read is passed over.
    let _ = response.show_urls();
}

/// A `10320/loc` value (L1–L4): reading never panics and stays within
/// [`RECORD_BYTES_PER_BYTE`]; what is read is written as `showurls` XML and read back as
/// the same value; a choice, for any client, is one of its locations.
pub fn locations_text(text: &str) {
    use handle_id::record::{
        escape_markup, ClientContext, Linked, Locations, SplitMix64, MAX_LINKED,
    };
    // The markup escape: nothing of markup is left in it, and an XML reader gives the text
    // back from an attribute in either quote (wherever XML can hold the text at all).
    // The text as an attribute's name: taken or refused, never a panic; a name taken
    // is a name, as the reader judged it (no markup in it).
    let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
    if handle_id::record::Location::from_attributes(vec![pair("href", "x"), pair(text, "v")])
        .is_ok()
    {
        assert!(!text.contains(['<', '>', '"', '\'', '=', ' ']), "{text:?}");
    }
    let escaped = escape_markup(text);
    assert!(
        !escaped.contains(['<', '>', '"', '\'', '\t', '\n', '\r']),
        "{text:?}: {escaped:?}"
    );
    for quote in ['"', '\''] {
        let xml = format!("<locations><location a={quote}{escaped}{quote} /></locations>");
        if let Ok(loc) = Locations::parse(&xml) {
            assert_eq!(
                loc.locations().first().and_then(|l| l.attribute("a")),
                Some(text),
                "{xml:?}"
            );
        }
    }
    // The text as a record's `10320/links` and `10320/headers` values beside a URL (L8): a
    // redirect to the URL, whose headers hold no line break and are trimmed as Java trims
    // (a header line may name itself `Link`: no more is said of a `Link`'s value).
    let value = |i: u32, t: &str, v: &str| serde_json::json!({"index": i, "type": t, "data": {"format": "string", "value": v}});
    let json = serde_json::json!({"responseCode": 1, "handle": "20.1000/f", "values": [
        value(1, "URL", "http://x.example/"), value(2, "10320/links", text),
        value(3, "10320/headers", text)]});
    let record = handle_id::record::Response::parse(&json.to_string()).expect("a record");
    let to = record
        .proxy_redirect(
            &ClientContext::new(),
            &mut SplitMix64::new(1),
            &Linked::new(),
        )
        .expect("the URL weighs 1");
    for (name, value) in &to.headers {
        assert!(!name.contains('\n') && !value.contains('\n'), "{text:?}");
        let trimmed = |s: &str| s.trim_matches(|c: char| c <= ' ').len() == s.len();
        assert!(
            trimmed(name) && trimmed(value),
            "{text:?}: {name:?} {value:?}"
        );
    }
    // The text as a `10320/loc` and an `HS_NAMESPACE` value of a handle every link of
    // which (L9) leads back to itself: the walk ends, having asked for at most MAX_LINKED
    // handles, and the choice is among the locations it bounded.
    let json = serde_json::json!({"responseCode": 1, "handle": "20.1000/f", "values": [
        value(1, "10320/loc", text), value(2, "HS_NAMESPACE", text)]});
    let record = handle_id::record::Response::parse(&json.to_string()).expect("a record");
    let mut linked = Linked::new();
    loop {
        let wanted = record.linked_wanted(&linked);
        if wanted.is_empty() {
            break;
        }
        for h in wanted {
            linked.insert(&h, Some(record.values().to_vec()));
        }
        assert!(linked.len() <= MAX_LINKED, "{text:?}");
    }
    let _ = record.proxy_candidates(&ClientContext::new(), &linked);
    // The proxy's reading (the reference's reader's tree, written as XML and read: D8)
    // costs memory in proportion to the text.
    let as_proxy = memory::bounded(text.len(), RECORD_BYTES_PER_BYTE, || {
        Locations::parse_as_proxy(text)
    });
    let read = memory::bounded(text.len(), RECORD_BYTES_PER_BYTE, || Locations::parse(text));
    let Ok(loc) = read else { return };
    // (What L1's reader takes, the proxy's may not: the reference's reader fails on some
    // XML, `<a><a/></a><!---->`, D8.)
    drop(as_proxy);
    assert_eq!(
        Locations::parse(&loc.to_xml()).as_ref(),
        Ok(&loc),
        "{text:?}"
    );
    // The proxy reads what is written of a value as L1's reader reads it: the same
    // locations, each with the same attributes.
    let proxy = Locations::parse_as_proxy(&loc.to_xml()).expect("written XML");
    let attributes = |l: &Locations| {
        l.locations()
            .iter()
            .map(|l| l.attributes().to_vec())
            .collect::<Vec<_>>()
    };
    assert_eq!(attributes(&proxy), attributes(&loc), "{text:?}");
    // Each location is the one made of its attributes.
    for l in loc.locations() {
        let made = handle_id::record::Location::from_attributes(l.attributes().to_vec());
        assert_eq!(made.as_ref(), Ok(l), "{text:?}");
    }
    let clients = [
        ClientContext::new(),
        ClientContext::new().with_locatt("id:1").expect("a pair"),
        ClientContext {
            ip: "192.0.2.1".parse().ok(),
            country: Some("gb".into()),
            ..ClientContext::new()
        },
    ];
    for (seed, client) in clients.iter().enumerate() {
        match loc.choose(client, &mut SplitMix64::new(seed as u64)) {
            Some(l) => assert!(loc.locations().contains(l), "{text:?}"),
            None => assert!(loc.locations().is_empty(), "{text:?}"),
        }
    }
    // As the proxy chooses, for a client whose headers (and query) are the same text:
    // the pick is a candidate, and the candidates' probabilities are each within [0, 1]
    // and together at most 1.
    let query = handle_id::ProxyQuery::parse(text).unwrap_or_default();
    let ip = "192.0.2.1".parse().ok();
    for client in [
        ClientContext::of_request(&query, Some(text), Some(text), Some(text), ip),
        ClientContext::of_request(&handle_id::ProxyQuery::new(), Some(text), None, None, None),
    ] {
        let candidates = loc.candidates_as_proxy(&client);
        let total: f64 = candidates.iter().map(|(_, p)| p).sum();
        assert!(total <= 1.0 + 1e-9, "{text:?}: {total}");
        for (l, p) in &candidates {
            assert!((0.0..=1.0).contains(p), "{text:?}: {p}");
            assert!(loc.locations().contains(l), "{text:?}");
        }
        if let Some(l) = loc.choose_as_proxy(&client, &mut SplitMix64::new(7)) {
            assert!(
                candidates.iter().any(|(c, _)| core::ptr::eq(*c, l)),
                "{text:?}"
            );
        }
    }
}

/// `data` as the Polars plugin's keyword arguments (python/src/kwargs.rs): any bytes give a
/// value or an error, within a constant factor of their length in memory; a value read
/// writes back to bytes that read the same; and a value made from `data` (keys unique, as
/// in a Python `dict`) reads back from what is written of it.
pub fn plugin_kwargs(data: &[u8]) {
    use kwargs::Kwarg;
    if let Ok(value) = memory::bounded(data.len(), 4 * BYTES_PER_BYTE, || kwargs::read(data)) {
        assert_eq!(
            kwargs::read(&kwargs::write(&value)),
            Ok(value.clone()),
            "{data:?}"
        );
    }
    // A value made of the bytes, one to three at a time.
    fn make(data: &mut std::slice::Iter<'_, u8>, depth: usize) -> Kwarg {
        let Some(&b) = data.next() else {
            return Kwarg::None;
        };
        fn word(data: &mut std::slice::Iter<'_, u8>, n: usize) -> u64 {
            data.take(n).fold(0_u64, |w, &b| w << 8 | u64::from(b))
        }
        match b % 7 {
            0 => Kwarg::None,
            1 => Kwarg::Bool(b & 8 != 0),
            2 if b & 64 != 0 => Kwarg::Big,
            2 => Kwarg::Int(word(data, 8) as i64),
            3 => {
                let n = word(data, 1) as usize % 300;
                Kwarg::Str("é".repeat(n / 2) + &"k".repeat(n % 2))
            }
            4 if depth < 8 => Kwarg::List(
                (0..word(data, 1) % 4)
                    .map(|_| make(data, depth + 1))
                    .collect(),
            ),
            5 if depth < 8 => {
                let mut items: Vec<(String, Kwarg)> = Vec::new();
                for _ in 0..word(data, 1) % 4 {
                    let key = format!("k{}", word(data, 1) % 5);
                    let value = make(data, depth + 1);
                    if !items.iter().any(|(k, _)| *k == key) {
                        items.push((key, value));
                    }
                }
                Kwarg::Dict(items)
            }
            _ => Kwarg::Str(String::from_utf8_lossy(&[b]).into_owned()),
        }
    }
    let made = make(&mut data.iter(), 0);
    assert_eq!(
        kwargs::read(&kwargs::write(&made)),
        Ok(made.clone()),
        "{data:?}"
    );
}
