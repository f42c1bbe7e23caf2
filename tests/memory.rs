//! Memory stays within a constant factor of the input, for every entry point that reads
//! text, on the shapes that cost the most per byte (a counting allocator measures the peak
//! of what is allocated during the call).

use std::sync::Mutex;

use handle_id::{recognize, HandleRef, HdlUri, Options, ProxyBase, ProxyQuery};
use handle_id_fuzz::memory::bounded;

// The fuzz targets' counting allocator (fuzz/src/memory.rs).
#[global_allocator]
static ALLOCATOR: handle_id_fuzz::memory::Counting = handle_id_fuzz::memory::Counting;

/// The tests share the counters: one runs at a time, from its first allocation to its last.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn proxy_queries() {
    let _alone = alone();
    // The shape that cost 40 bytes a byte: many short parameters the reader keeps.
    for query in [
        "a&".repeat(5_000_000),
        "a=b&".repeat(1000),
        "index=1&".repeat(999),
    ] {
        bounded(query.len(), 8, || {
            let _ = ProxyQuery::parse(&query);
        });
    }
    let over = "a&".repeat(ProxyQuery::MAX_PARAMETERS + 1);
    let e = ProxyQuery::parse(&over).unwrap_err();
    assert_eq!(e.kind(), handle_id::ParseErrorKind::TooManyParameters);
    assert_eq!(e.index(), 2 * ProxyQuery::MAX_PARAMETERS);
    assert!(ProxyQuery::parse(&"a&".repeat(ProxyQuery::MAX_PARAMETERS)).is_ok());
}

#[test]
fn readers_of_long_texts() {
    let _alone = alone();
    let long_local = format!("10.1000/{}", "%C3%A9".repeat(200_000));
    let long_prefix = format!("{}/x", vec!["1"; 200_000].join("."));
    let base = ProxyBase::parse("http://h").unwrap();
    let options = Options::new().proxy_base(base);
    for text in [
        format!("hdl:{long_local}"),
        format!("https://doi.org/{long_local}?{}", "a&".repeat(200_000)),
        format!("info:doi/{long_local}"),
        format!("hdl:{long_prefix}"),
        long_prefix.clone(),
        format!("http://h/{long_local}"),
    ] {
        bounded(text.len(), 4, || {
            let uri = recognize(&text, &options);
            let _ = uri
                .as_ref()
                .map(|u| (u.lint(), u.to_string(), u.proxy_query()));
        });
        bounded(text.len(), 4, || {
            let _ = HdlUri::parse(&text);
        });
    }
    bounded(long_prefix.len(), 4, || {
        let _ = HandleRef::parse(&long_prefix).unwrap().lint();
    });
}

/// Cleaning holds the handle once when it is canonical as written, twice when not (the
/// canonical form and the text as written): on a long line, nothing else of its size.
/// Extraction allocates nothing of the text's size.
#[test]
fn cleaning_and_extraction_of_a_long_line() {
    let _alone = alone();
    let o = Options::new();
    for (text, per_byte) in [
        (format!("10.1000/{}", "a".repeat(4_000_000)), 1),
        (format!(" doi: 10.1000/{}. ", "A".repeat(4_000_000)), 2),
        (
            format!("https://doi.org/10.1000/{}", "a".repeat(4_000_000)),
            1,
        ),
    ] {
        bounded(text.len(), per_byte, || {
            handle_id::clean(&text, &o).unwrap();
        });
        bounded(text.len(), 0, || {
            assert_eq!(handle_id::extract(&text, &o).count(), 1);
        });
    }
}
