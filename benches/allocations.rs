//! Allocations per call of each approach, counted by a global allocator: `cargo bench --bench
//! allocations` prints the table BENCHMARKS.md quotes.

mod support;
#[path = "../tests/support/mod.rs"]
mod test_support;

use handle_id::{HandleRef, HdlUri, Options};

#[global_allocator]
static GLOBAL: support::counting::Counting = support::counting::Counting;

fn measure(name: &str, inputs: &[String], f: impl Fn(&str) -> bool) {
    let (c0, b0) = support::counting::counts();
    let mut ok = 0;
    for s in inputs {
        ok += usize::from(f(s));
    }
    let (c1, b1) = support::counting::counts();
    let calls = (c1 - c0) as f64 / inputs.len() as f64;
    let bytes = (b1 - b0) as f64 / inputs.len() as f64;
    println!(
        "| {name} | {calls:.2} | {bytes:.0} | {ok} / {} |",
        inputs.len()
    );
}

fn main() {
    let mut inputs = support::realistic(100_000, 42);
    inputs.extend(test_support::corpus_identifiers());
    let valid: Vec<String> = inputs
        .iter()
        .filter(|s| support::hand_validate(s))
        .cloned()
        .collect();
    let invalid: Vec<String> = inputs
        .iter()
        .filter(|s| !support::hand_validate(s))
        .cloned()
        .collect();
    let with_scheme: Vec<String> = inputs.iter().map(|s| format!("hdl:{s}")).collect();
    let uris: Vec<String> = valid
        .iter()
        .map(|s| HandleRef::parse(s).unwrap().to_hdl_uri())
        .collect();
    let urls: Vec<String> = valid
        .iter()
        .map(|s| {
            let h = HandleRef::parse(s).unwrap();
            handle_id::ProxyBase::default_for(h).url(h)
        })
        .collect();
    let regex = regex::Regex::new(r"(?s)^[^./@]+(\.[^./@]+)*/.*$").unwrap();
    let options = Options::new();

    println!("| approach | allocations per call | bytes per call | accepted |");
    println!("|---|---|---|---|");
    measure("hand-written byte loop", &inputs, support::hand_validate);
    measure("handle-id validate (valid inputs)", &valid, |s| {
        handle_id::validate(s).is_ok()
    });
    measure(
        "handle-id validate (invalid inputs, detailed error)",
        &invalid,
        |s| handle_id::validate(s).is_ok(),
    );
    measure("handle-id HandleRef::parse (valid inputs)", &valid, |s| {
        HandleRef::parse(s).is_ok()
    });
    measure("regex", &inputs, |s| regex.is_match(s));
    measure("fluent-uri (hdl: + handle)", &with_scheme, |s| {
        fluent_uri::Uri::parse(s).is_ok()
    });
    measure("url (hdl: + handle)", &with_scheme, |s| {
        url::Url::parse(s).is_ok()
    });
    measure("pest parser", &inputs, |s| {
        test_support::reference::pest_handle(s).is_ok()
    });
    measure("handle-id HdlUri::parse (hdl: URIs)", &uris, |s| {
        HdlUri::parse(s).is_ok()
    });
    measure("handle-id recognize (proxy URLs)", &urls, |s| {
        handle_id::recognize(s, &options).is_ok()
    });
}
