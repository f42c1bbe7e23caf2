//! Cleaning (SPEC C1, C2): the messy strings catalogues hold, the corpus in every context
//! cleaning undoes, and generated DOIs in the same contexts.

mod support;

use support::contexts::doi;

use handle_id::{
    clean, clean_in_place, clean_into, FixCode, Form, HandleRef, LintCode, Options, ParseErrorKind,
    ProxyBase, Written,
};
use proptest::prelude::*;

/// The handle, the form and the fixes `clean` gives `text`.
#[track_caller]
fn cleaned(text: &str) -> (String, Form, Vec<&'static str>) {
    let c = clean(text, &Options::new()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let fixes = c.fixes().iter().map(|f| f.code().code()).collect();
    (c.handle().as_str().to_owned(), c.form(), fixes)
}

#[test]
fn messy_strings_as_catalogues_hold_them() {
    for (text, handle, form, fixes) in [
        (
            "doi: 10.1000/182",
            "10.1000/182",
            Form::Doi,
            &["label", "surrounding-whitespace"][..],
        ),
        ("DOI:10.1000/182", "10.1000/182", Form::Doi, &["label"]),
        (
            "DOI 10.1038/nature12373",
            "10.1038/nature12373",
            Form::Doi,
            &["label"],
        ),
        ("HDL: 20.1000/5555", "20.1000/5555", Form::Hdl, &["label"]),
        (
            "(10.1016/j.cell.2009.01.002)",
            "10.1016/j.cell.2009.01.002",
            Form::Handle,
            &["wrapping-pair"],
        ),
        (
            "10.1016/j.cell.2009.01.002.",
            "10.1016/j.cell.2009.01.002",
            Form::Handle,
            &["trailing-punctuation"],
        ),
        // An opening bracket or quote whose closing half the line lost (C2, this project's
        // decision), where nothing else is at either end.
        (
            "[doi:10.1010/ABC.10.",
            "10.1010/abc.10",
            Form::Doi,
            &[
                "trailing-punctuation",
                "leading-punctuation",
                "label",
                "case-folded",
            ][..],
        ),
        (
            "(10.1016/j.cell.2009.01.002",
            "10.1016/j.cell.2009.01.002",
            Form::Handle,
            &["leading-punctuation"],
        ),
        (
            "<https://doi.org/10.1000/182",
            "10.1000/182",
            Form::Proxy,
            &["leading-punctuation", "resolver-url"],
        ),
        (
            "((10.1000/182)",
            "10.1000/182",
            Form::Handle,
            &["leading-punctuation", "wrapping-pair"],
        ),
        (
            "\u{201C}10.1000/182",
            "10.1000/182",
            Form::Handle,
            &["leading-punctuation"],
        ),
        // Partners inside: kept (a bracket's closes the brackets after it, a quote's is the
        // same quote anywhere after it).
        ("(10.1/x)(y", "(10.1/x)(y", Form::Handle, &[]),
        ("''10.1/x", "''10.1/x", Form::Handle, &[]),
        ("'''10.1/x", "'''10.1/x", Form::Handle, &[]),
        // No partner for the first, whatever follows it.
        (
            "(10.1/x(y)",
            "10.1/x(y)",
            Form::Handle,
            &["leading-punctuation"],
        ),
        // At most eight taken off, as pairs: the ninth stays (each code noted once).
        (
            "[[[[[[[[[10.1/x",
            "[10.1/x",
            Form::Handle,
            &["leading-punctuation"],
        ),
        (
            "(10.1000/182).",
            "10.1000/182",
            Form::Handle,
            &["trailing-punctuation", "wrapping-pair"],
        ),
        ("\"a\"10.1000/182", "\"a\"10.1000/182", Form::Handle, &[]),
        (
            "doi.org/10.1000/182",
            "10.1000/182",
            Form::Proxy,
            &["resolver-url"],
        ),
        (
            "DX.DOI.ORG/10.1000/182",
            "10.1000/182",
            Form::Proxy,
            &["resolver-url"],
        ),
        (
            "www.doi.org/10.1000/182",
            "10.1000/182",
            Form::Proxy,
            &["resolver-url"],
        ),
        (
            "hdl.handle.net/20.1000/5555",
            "20.1000/5555",
            Form::Proxy,
            &["resolver-url"],
        ),
        (
            "10.1045/APRIL2006-PASKIN",
            "10.1045/april2006-paskin",
            Form::Handle,
            &["case-folded"],
        ),
        (
            "<https://doi.org/10.1000/182>",
            "10.1000/182",
            Form::Proxy,
            &["wrapping-pair", "resolver-url"],
        ),
        (
            "\"10.1000/182\",",
            "10.1000/182",
            Form::Handle,
            &["trailing-punctuation", "wrapping-pair"],
        ),
        (
            "[10.1000/182];",
            "10.1000/182",
            Form::Handle,
            &["trailing-punctuation", "wrapping-pair"],
        ),
        (
            "\u{201C}10.1000/182\u{201D}",
            "10.1000/182",
            Form::Handle,
            &["wrapping-pair"],
        ),
        (
            "\u{A0}10.1000/182\u{200B}",
            "10.1000/182",
            Form::Handle,
            &["surrounding-whitespace"],
        ),
        (
            "\u{FEFF}10.1000/182",
            "10.1000/182",
            Form::Handle,
            &["surrounding-whitespace"],
        ),
        (
            "https://hdl.handle.net/20.1000/5555?noredirect",
            "20.1000/5555",
            Form::Proxy,
            &["resolver-url", "query-or-fragment"],
        ),
        (
            "https://doi.org/10.1000/182#top",
            "10.1000/182",
            Form::Proxy,
            &["resolver-url", "query-or-fragment"],
        ),
        (
            "hdl:20.1000/5555%23x",
            "20.1000/5555#x",
            Form::Hdl,
            &["percent-decoded"],
        ),
        (
            "info:doi/10.1000%2F182",
            "10.1000/182",
            Form::InfoDoi,
            &["percent-decoded"],
        ),
        (
            "doi: https://doi.org/10.1000/ABC.",
            "10.1000/abc",
            Form::Proxy,
            &[
                "label",
                "surrounding-whitespace",
                "trailing-punctuation",
                "resolver-url",
                "case-folded",
            ],
        ),
        (
            "https://dx.doi.org/10.1002/(SICI)1097-4636(199709)36:4%3C538::AID-JBM12%3E3.0.CO;2-B",
            "10.1002/(sici)1097-4636(199709)36:4<538::aid-jbm12>3.0.co;2-b",
            Form::Proxy,
            &["resolver-url", "percent-decoded", "case-folded"],
        ),
        // Brackets that balance inside the identifier stay; one that does not, goes.
        (
            "10.3319/TAO.2009.05.25.02(IWNOP)",
            "10.3319/tao.2009.05.25.02(iwnop)",
            Form::Handle,
            &["case-folded"],
        ),
        (
            "10.1000/a(b))",
            "10.1000/a(b)",
            Form::Handle,
            &["trailing-punctuation"],
        ),
        // Handles other than DOIs keep their case (H6).
        ("20.1000/ABC", "20.1000/ABC", Form::Handle, &[]),
    ] {
        assert_eq!(
            cleaned(text),
            (handle.to_owned(), form, fixes.to_vec()),
            "{text:?}"
        );
    }
}

#[test]
fn no_identifier_no_guess() {
    let o = Options::new();
    for (text, kind) in [
        ("no identifier here", ParseErrorKind::MissingSlash),
        ("", ParseErrorKind::Empty),
        ("   ", ParseErrorKind::Empty),
        ("()", ParseErrorKind::Empty),
        (
            "https://example.com/10.1000/182",
            ParseErrorKind::UnknownResolver,
        ),
        (
            "See https://doi.org/10.1000/182 for details",
            ParseErrorKind::NotOneIdentifier,
        ),
        ("urn:isbn:0451450523", ParseErrorKind::NotAHandleForm),
    ] {
        let e = clean(text, &o).expect_err(text);
        assert_eq!(e.kind(), kind, "{text:?}: {e}");
        assert!(text.is_char_boundary(e.index()), "{text:?}: {e:?}");
    }
}

/// A resolver's URL pasted before another's, as catalogues that prepend a resolver to
/// what is already a URL hold them: the innermost is read (C2); a handle that is itself
/// another site's URL is refused, saying which host.
#[test]
fn nested_resolver_urls() {
    let o = Options::new();
    for (text, fixes) in [
        (
            "https://doi.org/https://doi.org/10.1000/182",
            &["resolver-url"][..],
        ),
        (
            "doi.org/http://dx.doi.org/10.1000/182.",
            &["trailing-punctuation", "resolver-url"],
        ),
        (
            "https://dx.doi.org/https%3A%2F%2Fdoi.org%2F10.1000%2F182",
            &["resolver-url", "percent-decoded"],
        ),
    ] {
        let (h, form, got) = cleaned(text);
        assert_eq!(
            (h.as_str(), form, &got[..]),
            ("10.1000/182", Form::Proxy, fixes),
            "{text:?}"
        );
    }
    let chain = format!("{}10.1000/182", "https://doi.org/".repeat(100_000));
    assert_eq!(cleaned(&chain).0, "10.1000/182");
    for (text, at) in [
        ("https://doi.org/https://example.com/10.1000/182", 24),
        ("info:hdl/https://example.com/x", 17),
        ("https://doi.org/https%3A%2F%2Fexample.com%2Fx", 16),
    ] {
        let e = clean(text, &o).expect_err(text);
        assert_eq!(
            (e.kind(), e.index()),
            (ParseErrorKind::UnknownResolver, at),
            "{text:?}: {e}"
        );
    }
}

/// The handle a written form holds, as decoded, is cleaned as a string of its own (C2):
/// what is taken off it is noted where the text holds it (where the form's prefix ends,
/// when decoded), and cleaning what cleaning gives gives it again.
#[test]
fn the_handle_a_form_holds_is_cleaned_as_a_string_of_its_own() {
    let o = Options::new();
    for (text, handle, form, fixes) in [
        (
            "https://doi.org/(10.1000/182",
            "10.1000/182",
            Form::Proxy,
            &[
                ("resolver-url", 0, false),
                ("leading-punctuation", 16, true),
            ][..],
        ),
        (
            "https://doi.org/10.1000/182%20",
            "10.1000/182",
            Form::Proxy,
            &[
                ("resolver-url", 0, false),
                ("percent-decoded", 0, false),
                ("surrounding-whitespace", 16, true),
            ],
        ),
        (
            "https://doi.org/%2210.1000/182%22",
            "10.1000/182",
            Form::Proxy,
            &[
                ("resolver-url", 0, false),
                ("percent-decoded", 0, false),
                ("wrapping-pair", 16, true),
            ],
        ),
        (
            "doi.org/10.1000/182%29",
            "10.1000/182",
            Form::Proxy,
            &[
                ("resolver-url", 0, false),
                ("percent-decoded", 0, false),
                ("trailing-punctuation", 8, true),
            ],
        ),
        (
            "info:hdl/20.1000/5.#frag",
            "20.1000/5",
            Form::InfoHdl,
            &[
                ("query-or-fragment", 19, false),
                ("trailing-punctuation", 18, true),
            ],
        ),
        (
            "info:hdl/info:hdl/20.1000/5",
            "20.1000/5",
            Form::InfoHdl,
            &[],
        ),
        (
            "https://hdl.handle.net/info:hdl/(20.1000/5",
            "20.1000/5",
            Form::Proxy,
            &[
                ("resolver-url", 0, false),
                ("leading-punctuation", 32, true),
            ],
        ),
        // Decoded: noted where the REST API's path ends.
        (
            "https://hdl.handle.net/api/handles/%2820.1000/5",
            "20.1000/5",
            Form::Api,
            &[
                ("resolver-url", 0, false),
                ("percent-decoded", 0, false),
                ("leading-punctuation", 35, true),
            ],
        ),
        // A DOI split by white space right after the host, as written, joined as it is
        // without the bracket (`dois_as_pdfs_write_them`)...
        (
            "https://doi.org/(10.1093/ molbev /msu300",
            "10.1093/molbev/msu300",
            Form::Proxy,
            &[
                ("resolver-url", 0, false),
                ("leading-punctuation", 16, true),
                ("split-joined", 17, true),
            ],
        ),
        (
            "dx.doi.org/[10.1000/ 182]",
            "10.1000/182",
            Form::Proxy,
            &[
                ("resolver-url", 0, false),
                ("wrapping-pair", 11, true),
                ("split-joined", 12, true),
            ],
        ),
        // ... but not where the URL holds it decoded (`%20` is a character it means), nor
        // inside another form: neither is joined without the bracket either.
        (
            "https://doi.org/%2810.1000/%20182",
            "10.1000/ 182",
            Form::Proxy,
            &[
                ("resolver-url", 0, false),
                ("percent-decoded", 0, false),
                ("leading-punctuation", 16, true),
            ],
        ),
    ] {
        let c = clean(text, &o).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let got: Vec<_> = c
            .fixes()
            .iter()
            .map(|f| (f.code().code(), f.index(), f.held()))
            .collect();
        assert_eq!(
            (c.handle().as_str(), c.form(), &got[..]),
            (handle, form, fixes),
            "{text:?}"
        );
        // Cleaning what cleaning gives gives it again: written bare, or, with white space in
        // it (running text, written bare: C2), as its resolver's URL writes it.
        let again = if handle.contains(' ') {
            ProxyBase::doi_org().url(HandleRef::parse(handle).unwrap())
        } else {
            handle.to_owned()
        };
        assert_eq!(cleaned(&again).0, handle, "{text:?}: cleaned again");
        // (The fast reader of a column agrees.)
        let (mut into, mut codes) = (String::new(), Vec::new());
        clean_into(text, &o, false, &mut into, &mut codes).unwrap();
        assert_eq!((into.as_str(), &codes[..]), (handle, c.fixes()), "{text:?}");
    }
    // Decoded, white space is a character the form means: a DOI after a label the form
    // holds is not joined across it, a glued `doi` as any other label.
    for text in [
        "https://doi.org/DOI10.1000/%20x",
        "hdl:DOI10.1000/%20x",
        "info:hdl/doi:10.1000/%20x",
        "https://doi.org/doi:10.1000/%20x",
    ] {
        assert_eq!(cleaned(text).0, "10.1000/ x", "{text:?}");
    }
    // Where what a form holds is no handle as a string of its own, it is the handle as the
    // form holds it; and a third form inside is left as read (MAX_HELD): each form is read
    // again inside the one around it.
    for (text, handle) in [
        ("info:hdl/urn:10.1000/182", "urn:10.1000/182"),
        ("info:hdl/info:hdl/info:hdl/(20.1000/5", "(20.1000/5"),
    ] {
        assert_eq!(cleaned(text).0, handle, "{text:?}");
    }
    // White space before or in the naming authority, as a URL holds it, is running text
    // before the second cleaning reads the handle (SPEC C2): refused with a bracket, where
    // without it the split rule joins one or two bytes of it after the host.
    assert_eq!(cleaned("https://doi.org/  10.1000/ 182").0, "10.1000/182");
    for text in [
        "https://doi.org/(  10.1000/ 182",
        "https://doi.org/   10.1000/ 182",
        "https://doi.org/(10. 1000/182",
        // Nor, as written, anywhere else that no evidence joins (inside another form, the
        // split rule does not join).
        "https://hdl.handle.net/info:doi/(10.1000/ 182",
        "(10.1/x (y)",
    ] {
        let e = clean(text, &o).unwrap_err();
        assert_eq!(
            e.kind(),
            handle_id::ParseErrorKind::NotOneIdentifier,
            "{text}"
        );
    }
    // White space in the naming authority, decoded, is running text (C2): refused at its
    // escape, as the text holds no white space to point at. (Before it too: the second
    // cleaning does not run on a handle refused so.)
    for (text, at) in [
        ("https://doi.org/10.%201000/X", 19),
        ("https://doi.org/%2010.1000/X", 16),
    ] {
        let e = clean(text, &o).unwrap_err();
        assert_eq!(
            (e.kind(), e.index()),
            (handle_id::ParseErrorKind::NotOneIdentifier, at),
            "{text}"
        );
    }
    // Forms nested without end: three taken off, the text read three times over.
    let chain = format!("{}(20.1000/5", "info:hdl/".repeat(100_000));
    assert_eq!(cleaned(&chain).0.len(), chain.len() - 3 * 9);
}

/// What text taken from PDFs does to DOIs, undone (C2): a DOI split by white space after a
/// label or a resolver's host is joined on the evidence extraction joins it on; a label with
/// a space before its colon, or a full stop for one; German quotes around it.
#[test]
fn dois_as_pdfs_write_them() {
    for (text, handle, form, fixes) in [
        (
            "doi: 10. 1093/jb/mvg083",
            "10.1093/jb/mvg083",
            Form::Doi,
            &["label", "surrounding-whitespace", "split-joined"][..],
        ),
        (
            "https://dx.doi.org/10.1021/ es030360x.",
            "10.1021/es030360x",
            Form::Proxy,
            &["trailing-punctuation", "split-joined", "resolver-url"],
        ),
        ("doi :10.1000/182", "10.1000/182", Form::Doi, &["label"]),
        ("doi.10.1000/182", "10.1000/182", Form::Doi, &["label"]),
        ("DOI10.1000/182", "10.1000/182", Form::Doi, &["label"]),
        // A glued `doi` is a label before a DOI's prefix split after its '/', as any label
        // is, and before one with nothing after it.
        (
            "DOI10.1038/ nature06958",
            "10.1038/nature06958",
            Form::Doi,
            &["label", "split-joined"],
        ),
        ("doi10.1000/", "10.1000/", Form::Doi, &["label"]),
        // After an `hdl:` or `info:` URI's prefix, as after a label.
        (
            "hdl:10.1021/ es030360x",
            "10.1021/es030360x",
            Form::Hdl,
            &["split-joined"],
        ),
        (
            "info:doi/10. 1093/jb/mvg083",
            "10.1093/jb/mvg083",
            Form::InfoDoi,
            &["split-joined"],
        ),
        (
            "(doi10.1038/nature06958).",
            "10.1038/nature06958",
            Form::Doi,
            &["trailing-punctuation", "wrapping-pair", "label"],
        ),
        // Not before what is no DOI found bare: a handle.
        ("doi10.x/y", "doi10.x/y", Form::Handle, &[]),
        (
            "doi.org/10.1000/182",
            "10.1000/182",
            Form::Proxy,
            &["resolver-url"],
        ),
        (
            "\u{201E}10.1055/s-2005-951641\u{201C}",
            "10.1055/s-2005-951641",
            Form::Handle,
            &["wrapping-pair"],
        ),
    ] {
        let (h, f, got) = cleaned(text);
        assert_eq!((h.as_str(), f, &got[..]), (handle, form, fixes), "{text:?}");
    }
    // Without the evidence, white space inside is running text: no identifier.
    let e = clean("10. 1093/jb/mvg083", &Options::new()).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::NotOneIdentifier, "{e}");
    // After a colon, a piece of letters alone is prose; one with a digit or a '/' goes on.
    let e = clean("https://doi.org/10.1000/456: here", &Options::new()).unwrap_err();
    assert_eq!(
        (e.kind(), e.index()),
        (ParseErrorKind::NotOneIdentifier, 28),
        "{e}"
    );
    assert_eq!(
        cleaned("doi: 10.1002/(sici)1096-8644(199705)103:1<69:: aid-ajpa5>3.0.co;2-8").0,
        "10.1002/(sici)1096-8644(199705)103:1<69::aid-ajpa5>3.0.co;2-8"
    );
    assert_eq!(
        cleaned("doi:10.1093/med: psych/9780199380183.001.0001").0,
        "10.1093/med:psych/9780199380183.001.0001"
    );
    assert_eq!(
        cleaned("doi: 10.1175/1520-0469(1998)055<1395: TIOSOT>2.0.CO;2").0,
        "10.1175/1520-0469(1998)055<1395:tiosot>2.0.co;2"
    );
    // The digit looked for in the word: not past a quote, nor past a `.` (an abbreviation).
    for text in ["doi:10.1000/182: see\"2\"", "doi:10.1000/182: pp.12-15"] {
        let e = clean(text, &Options::new()).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::NotOneIdentifier, "{text:?}: {e}");
    }
    // Digits after a colon go on where they are six or more (EDP Sciences' year and number)
    // or an issue before the bracket of its page (ASCE's `(…)`, a SICI's `<…>`, escaped or
    // not); a number of prose does not.
    for (text, handle) in [
        ("doi: 10.1051/nss: 2005018", "10.1051/nss:2005018"),
        (
            "doi:10.1061/(ASCE)0733-9445(2002)128: 11(1056)",
            "10.1061/(asce)0733-9445(2002)128:11(1056)",
        ),
        (
            "doi: 10.1002/(SICI)1097-4571(199806)49: 8<693::AID-ASI4>3.0.CO;2-O",
            "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o",
        ),
        (
            "https://doi.org/10.1002/(SICI)1097-4571(199806)49: 8%3c693::AID-ASI4%3E3.0.CO;2-O",
            "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o",
        ),
        ("doi:10.1000/x: 3-4(5)", "10.1000/x:3-4(5)"),
        (
            "doi:10.1002/(SICI)1521-3978(199806)46: 4/5<493::AID-PROP493>3.0.CO;2-P",
            "10.1002/(sici)1521-3978(199806)46:4/5<493::aid-prop493>3.0.co;2-p",
        ),
        (
            "doi: 10.1002/(sici)1522-2683(19991001)20: 15/16%3C3156::aid-elps3156%3E3.0.co;2-q",
            "10.1002/(sici)1522-2683(19991001)20:15/16%3c3156::aid-elps3156%3e3.0.co;2-q",
        ),
        (
            "doi: 10.1002/(SICI)1097-4636(199707)36: 1&lt;43::AID-JBM6&gt;3.0.CO;2-K",
            "10.1002/(sici)1097-4636(199707)36:1&lt;43::aid-jbm6&gt;3.0.co;2-k",
        ),
    ] {
        assert_eq!(cleaned(text).0, handle, "{text:?}");
    }
    for text in [
        "doi:10.1000/182: 12 items",
        "doi:10.1000/182: 2012",
        "hdl:10.1000/182: 123-145",
        "doi:10.1000/182: 12345",
        "https://doi.org/10.1000/182: 12, (3)",
    ] {
        let e = clean(text, &Options::new()).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::NotOneIdentifier, "{text:?}: {e}");
    }
    // After a full stop, Wiley's check character `x` goes on, a mark after it at most;
    // another letter alone is prose.
    assert_eq!(
        cleaned("doi: 10.1111/j.0012-155X.2005.00401. x.").0,
        "10.1111/j.0012-155x.2005.00401.x"
    );
    assert_eq!(
        cleaned("(doi: 10.1111/j.1365-2656.2006.01138. x).").0,
        "10.1111/j.1365-2656.2006.01138.x"
    );
    for text in ["doi:10.1000/182. a", "doi:10.1000/182. x-ray"] {
        let e = clean(text, &Options::new()).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::NotOneIdentifier, "{text:?}: {e}");
    }
    // A SICI's `<…>` escaped, or written `[…]`: an escape's hex digits are no evidence, the
    // digit after it is.
    assert_eq!(
        cleaned("https://doi.org/10.1175/1520-0493(2002)130%3C1913: EDAWPO%3E2.0.CO;2").0,
        "10.1175/1520-0493(2002)130<1913:edawpo>2.0.co;2"
    );
    assert_eq!(
        cleaned("doi: 10.1890/0012-9658(2006)87[2832: tiopma]2.0.co;2").0,
        "10.1890/0012-9658(2006)87[2832:tiopma]2.0.co;2"
    );
    let e = clean("https://doi.org/10.1000/182: x%20y", &Options::new()).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::NotOneIdentifier, "{e}");
    // An escape is the character it writes: `%2E` a '.', `%2F` a '/'.
    let e = clean("doi: 10.1000/x: pp%2E12", &Options::new()).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::NotOneIdentifier, "{e}");
    assert_eq!(cleaned("doi: 10.1000/x: ab%2F12").0, "10.1000/x:ab%2f12");
    // A label before a URI: the DOI split after the URI's prefix.
    assert_eq!(
        cleaned("DOI: info:doi/10.1021/ es030360x"),
        (
            "10.1021/es030360x".to_owned(),
            Form::InfoDoi,
            vec!["label", "surrounding-whitespace", "split-joined"]
        )
    );
    // No gap right after a URI's prefix (only after a host), nor a piece that is a DOI of
    // its own.
    for text in [
        "info:doi/ 10.1000/abc",
        "hdl:// 10/gf4gb",
        "doi:10.1000/182. 10.1000/183",
    ] {
        let e = clean(text, &Options::new()).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::NotOneIdentifier, "{text:?}: {e}");
    }
    // `hdl://` read as the resolution form holds a server first (U3): no DOI is joined.
    let resolution = Options::new().resolution_form(true);
    let e = clean("hdl://10. 1093/jb/mvg083", &resolution).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::NotOneIdentifier, "{e}");
}

/// The quotes European languages write are wrapping pairs (C2): guillemets pointing either
/// way, French single ones, Swedish and Finnish quotes that close on both sides; and quotes
/// of two languages nested one in the other balance. A quote of these on one side alone is
/// punctuation. None is left in the handle as its naming authority's first character.
#[test]
fn every_languages_quotes_are_pairs() {
    for text in [
        "«10.1000/abc»",
        "»10.1000/abc«",
        "‹10.1000/abc›",
        "›10.1000/abc‹",
        "”10.1000/abc”",
        "»10.1000/abc»",
        "„10.1000/abc“",
        "‚10.1000/abc‘",
        // English quotes opened with a reversed 9, as some typefaces draw them.
        "‟10.1000/abc”",
        "‛10.1000/abc’",
        // Nested: English around German, German around English, French around German.
        "“„10.1000/abc“”",
        "„“10.1000/abc”“",
        "«„10.1000/abc“»",
        "“‚10.1000/abc‘”",
    ] {
        let (h, _, fixes) = cleaned(text);
        assert_eq!(
            (h.as_str(), &fixes[..]),
            ("10.1000/abc", &["wrapping-pair"][..]),
            "{text:?}"
        );
    }
    for (text, fix) in [
        ("»10.1000/abc", "leading-punctuation"),
        ("”10.1000/abc", "leading-punctuation"),
        ("›10.1000/abc", "leading-punctuation"),
        ("‟10.1000/abc", "leading-punctuation"),
        ("‛10.1000/abc", "leading-punctuation"),
        ("10.1000/abc«", "trailing-punctuation"),
        ("10.1000/abc›", "trailing-punctuation"),
        ("10.1000/abc‹", "trailing-punctuation"),
    ] {
        let (h, _, fixes) = cleaned(text);
        assert_eq!(
            (h.as_str(), &fixes[..]),
            ("10.1000/abc", &[fix][..]),
            "{text:?}"
        );
    }
    // Inside, a pair balanced is the handle's (`10.1000/a«b»` ends in no punctuation).
    assert_eq!(cleaned("«10.1000/a«b»»").0, "10.1000/a«b»");
}

/// A known resolver's host with its scheme's default port is the host to every step of
/// cleaning (P1, C2): a URL pasted before another, one inside another form, and a split
/// DOI's evidence.
#[test]
fn a_default_port_is_the_host_to_every_step() {
    for (text, handle) in [
        // Peeled off as text, as without the port: its path is not decoded twice.
        (
            "https://doi.org:443/https://doi.org/10.1002/x%2541",
            "10.1002/x%41",
        ),
        (
            "https://doi.org:443/https://doi.org/10.1002/x%23y",
            "10.1002/x#y",
        ),
        (
            "https://doi.org/https://doi.org:443/10.1000/182",
            "10.1000/182",
        ),
        ("info:doi/https://doi.org:443/10.1000/182", "10.1000/182"),
        (
            "https://doi.org:443/10.1021/ es030360x",
            "10.1021/es030360x",
        ),
        ("http://dx.doi.org:/10.1021/ es030360x", "10.1021/es030360x"),
        (
            "http://dx.doi.org:080/10.1021/ es030360x",
            "10.1021/es030360x",
        ),
        (
            "https://doi.org:0443/https://doi.org/10.1002/x%2541",
            "10.1002/x%41",
        ),
    ] {
        assert_eq!(cleaned(text).0, handle, "{text:?}");
    }
}

/// Every ASCII white space splits a DOI's pieces alike, the vertical tab as the form feed
/// (each is white space to `char::is_whitespace`, which running text is refused by).
#[test]
fn every_ascii_white_space_splits_alike() {
    for space in ['\t', '\n', '\u{B}', '\u{C}', '\r', ' '] {
        for (text, handle) in [
            ("https://doi.org/10.1000/{}182", "10.1000/182"),
            ("doi: 10.{}1093/jb/mvg083", "10.1093/jb/mvg083"),
        ] {
            let text = text.replace("{}", &space.to_string());
            assert_eq!(cleaned(&text).0, handle, "{text:?}");
        }
        let text = format!("10.1000/a{space}b");
        let e = clean(&text, &Options::new()).unwrap_err();
        assert_eq!(
            (e.kind(), e.index()),
            (ParseErrorKind::NotOneIdentifier, 9),
            "{text:?}"
        );
    }
}

/// Ways a catalogue writes an identifier, which cleaning undoes.
const CONTEXTS: &[&str] = &[
    "{}",
    " {} ",
    "\u{A0}{}\u{200B}",
    "({})",
    "[{}]",
    "<{}>",
    "\"{}\"",
    "'{}'",
    "\u{201C}{}\u{201D}",
    "{}.",
    "{},",
    "{};",
    "({}).",
    "doi:{}",
    "doi: {}",
    "DOI {}",
    "DOI:\t{}",
    "https://doi.org/{}",
    "http://dx.doi.org/{}",
    "doi.org/{}",
    "www.doi.org/{}?via=x",
    "<https://doi.org/{}>.",
    "info:doi/{}",
    // CJK text's labels, brackets and stops, full-width.
    "DOI\u{FF1A}{}",
    "doi \u{FF1A} {}\u{3002}",
    "\u{FF08}{}\u{FF09}",
    "\u{3010}DOI\u{FF1A}{}\u{3011}\u{FF0C}",
    "\u{300A}https://doi.org/{}\u{300B}\u{3001}",
];

/// The warnings of a DOI read whole from pieces, or from the resolver's URL inside another
/// form, are at their places in the text as written (white space and all).
#[test]
fn warnings_at_their_places_in_the_text() {
    for (text, code, index) in [
        ("doi: 10. 1093/jb/mvg083/", LintCode::TrailingSlash, 23),
        (
            "https://doi.org/10.1021/ es030360x/",
            LintCode::TrailingSlash,
            34,
        ),
        (
            "info:doi/https://doi.org/10.1234/",
            LintCode::EmptyLocalName,
            33,
        ),
    ] {
        let c = clean(text, &Options::new()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let found: Vec<_> = c.lint().iter().map(|w| (w.code(), w.index())).collect();
        assert_eq!(found, [(code, index)], "{text:?}");
    }
}

/// A URI form written with characters beyond ASCII (an IRI, RFC 3987) reads as the URI
/// with those characters' UTF-8 bytes percent-encoded: the handle of `hdl:10.1000/Ü` is that
/// of `hdl:10.1000/%C3%9C`, as a resolver's URL and a `doi:` label give it, with no fix
/// (no character changed), and extraction finds it in running text (SPEC C2).
#[test]
fn an_iri_reads_as_its_uri() {
    let o = Options::new();
    for form in [
        "hdl:",
        "HDL:",
        "hdl://",
        "info:hdl/",
        "info:doi/",
        "INFO:DOI/",
    ] {
        for (local, encoded) in [
            ("Ü", "%C3%9C"),
            ("caf\u{e9}-\u{1F600}", "caf%C3%A9-%F0%9F%98%80"),
            ("a\u{200e}b", "a%E2%80%8Eb"),
        ] {
            let iri = format!("{form}10.1000/{local}");
            let uri = format!("{form}10.1000/{encoded}");
            let (handle, read_as, fixes) = cleaned(&iri);
            let (same, uri_form, _) = cleaned(&uri);
            assert_eq!(
                (handle.as_str(), read_as),
                (same.as_str(), uri_form),
                "{iri:?}"
            );
            assert_eq!(handle, format!("10.1000/{local}"), "{iri:?}");
            assert!(fixes.is_empty(), "{iri:?}: {fixes:?}");
            let found: Vec<_> = handle_id::extract(&format!("see {iri}."), &o)
                .map(|f| f.handle().as_str().to_owned())
                .collect();
            assert_eq!(found, [handle.as_str()], "{iri:?}");
        }
    }
    // Fixes, warnings and errors at their places in the text as written.
    let c = clean("(hdl:10.1000/caf\u{e9}?x\u{e9}=1).", &o).unwrap();
    let fixes: Vec<_> = c.fixes().iter().map(|f| (f.code(), f.index())).collect();
    assert_eq!(
        fixes,
        [
            (FixCode::TrailingPunctuation, 25),
            (FixCode::WrappingPair, 0),
            (FixCode::QueryOrFragment, 18)
        ]
    );
    let c = clean("hdl:10.1000/\u{e9}\u{200e}x", &o).unwrap();
    let found: Vec<_> = c.lint().iter().map(|w| (w.code(), w.index())).collect();
    assert_eq!(found, [(LintCode::BidiControl, 14)]);
    let e = clean("hdl:10.1000/\u{dc} b", &o).unwrap_err();
    assert_eq!((e.index(), e.found()), (14, Some(' ')), "{e}");
    let e = clean("info:hdl/10.\u{dc}.%2E/x", &o).unwrap_err();
    assert_eq!(e.index(), 15, "{e}");
    // Refused at a character the IRI's reading wrote as escapes: that character, as
    // written (found by fuzzing: the error named the '%' of its escape).
    let e = clean("(https:/\u{31b}x.o)", &o).unwrap_err();
    assert_eq!((e.index(), e.found()), (8, Some('\u{31b}')), "{e}");
}

/// White space inside, as written, is running text wherever it is (C2), where no split
/// DOI's evidence joins it and no cleaning of the handle a form holds takes it out; so is a
/// full-width stop of CJK text, which no DOI holds: the error at the first of them.
#[test]
fn running_text_is_no_identifier() {
    let o = Options::new();
    for (text, at) in [
        ("doi: 10.1000/182. The next", 17),
        ("10.1000/182, 2012", 12),
        ("20.1000/a b", 9),
        ("10.1000/a\u{A0}b", 9),
        ("https://doi.org/10.1000/182 for details", 27),
        ("(https://doi.org/10.1000/abc) b", 29),
        // In a query or fragment too.
        ("https://doi.org/10.1000/ab?x=1 2", 30),
        ("https://doi.org/10.1000/182#see the next page", 31),
        ("hdl:10.1000/a?x=1\u{A0}2", 17),
        // CJK text: its stops inside.
        ("DOI\u{FF1A}10.1000/182\u{3002}\u{89C1}", 17),
        ("10.1000/182\u{3001}10.1000/183", 11),
        ("https://doi.org/10.1000/182 #x", 27),
        ("hdl:10.1000/182\u{A0}#x", 15),
        ("hdl:10.1000/182\u{3001}#x", 15),
        // Where a URI's grammar refuses it, too.
        ("hdl:10.1000/18 2", 14),
        // Decoded in a naming authority: at the escape.
        ("hdl:10%201000/x", 6),
        ("hdl:10%C2%A01000/x", 6),
        ("hdl:10%E3%80%821000/x", 6),
    ] {
        let e = clean(text, &o).unwrap_err();
        assert_eq!(
            (e.kind(), e.index()),
            (ParseErrorKind::NotOneIdentifier, at),
            "{text:?}: {e}"
        );
        // The fast reader of a column agrees.
        let (mut into, mut codes) = (String::new(), Vec::new());
        assert_eq!(
            clean_into(text, &o, false, &mut into, &mut codes).unwrap_err(),
            e,
            "{text:?}"
        );
    }
    // Taken out: joined on a resolver's host's evidence, or around what a form holds; and
    // decoded in a local name, a character the URL means.
    for (text, handle) in [
        ("https://doi.org/ 10.1000/182", "10.1000/182"),
        ("https://doi.org/10.1021/ es030360x", "10.1021/es030360x"),
        ("https://doi.org/10.1000/%20182", "10.1000/ 182"),
        ("DOI\u{FF1A}10.1000/182\u{3002}", "10.1000/182"),
    ] {
        assert_eq!(cleaned(text).0, handle, "{text:?}");
    }
}

/// A label's colon may be full-width, after `doi` or `hdl`, white space before it or not
/// (CJK text's, C2); a `urn:` form decodes nothing (U8), so notes no decoding.
#[test]
fn full_width_labels_and_textual_forms() {
    for (text, handle, form, fixes) in [
        (
            "hdl \u{FF1A}20.1000/5",
            "20.1000/5",
            Form::Hdl,
            &["label"][..],
        ),
        (
            "HDL\u{FF1A} 20.1000/5",
            "20.1000/5",
            Form::Hdl,
            &["label", "surrounding-whitespace"],
        ),
        (
            "doi \u{FF1A} 10.1000/182",
            "10.1000/182",
            Form::Doi,
            &["label", "surrounding-whitespace"],
        ),
        ("hdl :20.1000/5", "20.1000/5", Form::Hdl, &["label"]),
        ("urn:hdl:a:b%C3%A9", "a/b%C3%A9", Form::UrnHdl, &[]),
    ] {
        assert_eq!(
            cleaned(text),
            (handle.to_owned(), form, fixes.to_vec()),
            "{text:?}"
        );
    }
}

/// Whether a handle is what cleaning leaves alone but for case: no white space, no end a
/// fix would take off, characters a URL or URI writer encodes that the contexts write raw.
fn clean_already(h: &str) -> bool {
    clean(h, &Options::new()).is_ok_and(|c| {
        c.as_written().as_str() == h && c.fixes().iter().all(|f| f.code() == FixCode::CaseFolded)
    }) && !h.contains(|c: char| c.is_whitespace() || "%?#\"'<>{}[]\\".contains(c))
}

/// `h` written in `context`: raw for the textual contexts, encoded as the form's writer
/// encodes it for URLs and URIs.
fn in_context(context: &str, h: &str) -> String {
    let written = if context.contains("doi.org/") {
        // The path a proxy URL writes (P2).
        let url = handle_id::ProxyBase::doi_org().url(HandleRef::parse(h).unwrap());
        url["https://doi.org/".len()..].to_owned()
    } else if context.starts_with("info:") {
        handle_id::escape::INFO_IDENTIFIER.encode(h).to_string()
    } else {
        h.to_owned()
    };
    context.replace("{}", &written)
}

#[track_caller]
fn cleans_back_in_every_context(h: &str) {
    let expected = HandleRef::parse(h).unwrap().canonical();
    for context in CONTEXTS {
        let text = in_context(context, h);
        let c = clean(&text, &Options::new()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(c.handle(), &expected, "{text:?}");
    }
}

#[test]
fn the_corpus_in_every_context() {
    let dois: Vec<String> = support::corpus_identifiers()
        .into_iter()
        .filter(|id| HandleRef::parse(id).is_ok_and(|h| h.is_doi()) && clean_already(id))
        .collect();
    assert!(
        dois.len() > 500,
        "{} DOIs of the corpus are clean",
        dois.len()
    );
    for doi in &dois {
        cleans_back_in_every_context(doi);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_dois_in_every_context(d in doi()) {
        cleans_back_in_every_context(&d);
    }

    /// Cleaning what cleaning gave changes nothing: the canonical form is a fixed point.
    #[test]
    fn cleaning_is_idempotent(d in doi(), context in prop::sample::select(CONTEXTS)) {
        let once = clean(&in_context(context, &d), &Options::new()).unwrap();
        let twice = clean(once.handle().as_str(), &Options::new()).unwrap();
        prop_assert_eq!(twice.handle(), once.handle());
        prop_assert!(twice.fixes().is_empty(), "{:?}", twice.fixes());
    }
}

/// How catalogues and spreadsheets hold an identifier: the corpus's own messes (labels,
/// URLs, trailing dots) and these around them.
const MESSES: &[&str] = &[
    "{}",
    " {} ",
    "doi: {}.",
    "({})",
    "\u{201C}{}\u{201D},",
    "<{}>",
    "DOI {};",
    "\u{FEFF}{}\u{200B}",
    "[{}].",
];

/// Every identifier of the corpus (spec examples, peers' vectors, real identifiers), in one
/// mess after another: what cleaning makes of it, or why it cannot. Read with the corpus
/// snapshots: a change here is a change in what `hdl clean` writes.
#[test]
fn corpus_in_messes() {
    let options = Options::new();
    let mut ids = support::corpus_identifiers();
    ids.dedup();
    let mut out = String::new();
    for (k, id) in ids.iter().enumerate() {
        let text = MESSES[k % MESSES.len()].replacen("{}", id, 1);
        out.push_str(&format!("{text:?}\n"));
        match clean(&text, &options) {
            Ok(c) => {
                let fixes: Vec<_> = c.fixes().iter().map(|f| f.code().code()).collect();
                out.push_str(&format!(
                    "  {} {:?} [{}]\n",
                    c.form(),
                    c.handle().as_str(),
                    fixes.join(" ")
                ));
            }
            Err(e) => out.push_str(&format!("  error: {e}\n")),
        }
    }
    insta::assert_snapshot!(out);
}

/// `clean_into` (no warnings, the caller's buffers) gives what `clean` gives, errors
/// included: the corpus bare, in every context and mess, the messy lines of data/, under
/// the default options and with every opt-in form, into buffers that held the last value.
#[test]
fn clean_into_agrees_with_clean() {
    let messy =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/messy-dois.txt"))
            .unwrap();
    let ids = support::corpus_identifiers();
    let mut texts: Vec<String> = messy.lines().map(str::to_owned).collect();
    for id in &ids {
        for context in CONTEXTS.iter().chain(MESSES) {
            texts.push(context.replacen("{}", id, 1));
        }
    }
    texts.extend(
        [
            "",
            " ",
            "doi:",
            "dx.doi.org/ 10.1061/ (ASCE)0733-9445",
            "hdl.handle.net/20.1000/5555",
            // A resolver's URL read without its form's reading where its path is a bare
            // handle with nothing to decode or drop, and with it where not.
            "https://doi.org/api/handles/10.1/X",
            "doi.org/hdl:10.1/X",
            "https://hdl.handle.net/urn:doi:10.1:x",
            "https://doi.org/info:doi/10.1/x",
            "https://doi.org/10.1/x%41",
            "HTTPS://DX.DOI.ORG/10.1/X#f",
            "doi: https://doi.org/10.1/X.",
            "[doi:10.1010/ABC.10.",
            "(10.1/x",
            " (10.1/x",
            "doi:(10.1/x",
            "((10.1/x)",
            "(10.1/x (y)",
            "\u{201E}10.1/x",
            "\"a\"10.1/x",
            "((((",
            "https://doi.org/ 10.1/x",
            "https://doi.org/10.1 2/x",
            "https://doi.org/123/10.1/X",
            "https://doi.org/10.1/x/",
            // Its query or fragment dropped without the reading too, where the path before
            // it holds no '%'.
            "https://doi.org/10.1/X?via=x",
            // A DOI split after a URI's prefix, in a text with plain ends.
            "hdl:// 10/gf4gb",
            "hdl:10.1021/ es030360x",
            "info:doi/10. 1093/jb/mvg083",
            "doi.org/10.1/x#f?g",
            "https://hdl.handle.net/20.1000/5555?noredirect#x",
            "https://doi.org/10.1/x?",
            "https://doi.org/10.1/x#",
            "https://doi.org/10.1/x.?a",
            "https://doi.org/10.1/x%3F?a",
            "https://doi.org/10.1/x?a%zz",
            "https://doi.org/api/handles/10.1/x?a",
            "https://doi.org/10.1/x y?a",
            "https://doi.org/?a",
            "(https://doi.org/10.1/x?via=x).",
            "https://doi.org/10.1000/abcdefghijklmnopqrstuvwxyz0123456789?q#f",
            // An `info:` URI and a `doi:` form read after the prefix the form's rules found.
            "info:doi/10.1/X#f",
            "INFO:HDL/20.1000/a%2Fb",
            "info:doi/10.1/x y",
            "urn:doi:10.1:x",
            // An `hdl:` or `info:` URI of a plain handle read without the URI's walk, and
            // with it where anything may need it.
            "hdl:10.1/X",
            "HDL:20.1000/5555",
            "info:doi/10.1000/ABC",
            "Info:Hdl/20.1000/a:b@c/d",
            "info:doi/20.1/x",
            "hdl:10.1/x'(y)*+,;=!$&~_-.",
            "hdl:10.1/",
            "hdl:10.1/x?q",
            "info:doi/10.1/x?y",
            "hdl:10.1/x#f",
            "hdl:10.1/x%41",
            "hdl:10.1/x y",
            "hdl:10.1/x<y>",
            "hdl:10..1/x",
            "hdl:.10/x",
            "hdl:abc/x",
            "hdl://10.1/x",
            "hdl:/10.1/x",
            "info:hdl/10.1/x\\y",
            // A label or a resolver's URL before a bare handle, read without the loop of
            // steps, and with it where anything else may apply.
            "DOI: 10.1/X",
            "doi:\t 10.1/x",
            "DOI 10.1/x",
            "hdl: 20.1000/5555",
            "doi:\u{a0}10.1/x",
            "doi: \u{2003}10.1/x",
            "doi:\n10.1/x",
            "doi: 10.1/x y",
            "DOI: 10. 1093/x",
            "doi:10.1/x.",
            "doi:10.1/(x)",
            "doi: doi:10.1/x",
            "doi:hdl.handle.net/20.1000/5555",
            "doi.10.1/x",
            "doi.org10.1/x",
            "DOI:",
            "doi:https://doi.org/10.1/x",
            "https://doi.org/https://doi.org/10.1/x",
            "https://doi.org/doi.org/10.1/x",
            "dx.doi.org/10.1/x\u{a0}y",
            "hdl.handle.net/api/handles/20.1000/5555",
            "https://doi.org/10.1/x%20y",
            "hdl:20.1000/5555",
            "hdl:20.1000/a%2Fb",
            "HDL://20.1000/5555",
            "hdl:20.1000/5555?x#y",
            "info:hdl/20.1000/5555",
            "urn:hdl:20.1000:5555",
            "ftp://example.com/10.1/x",
            "a1",
            "1",
            // A bare handle with one thing around it, read without the loop of steps, and
            // with it where anything else may apply.
            " 10.1/x",
            "10.1/x\t",
            " \t10.1/X\t ",
            "\u{a0}10.1/x",
            " \n10.1/x",
            "10.1/x \u{2003}",
            "  ",
            "\t",
            " 10.1/x y ",
            " doi:10.1/x",
            "(10.1/x)",
            "((10.1/x))",
            "(10.1/x",
            "10.1/x)",
            "(10.1/(x))",
            "(10.1/x))",
            "(10.1/x)(y)",
            "\"10.1/X\"",
            "'10.1/x'",
            "\u{201c}10.1/x\u{201d}",
            "<10.1/x>",
            "{10.1/x}",
            "( 10.1/x )",
            "()",
            "(x)",
            "(",
            "10.1/x.",
            "10.1/x..",
            "10.1/X,",
            "10.1/x;",
            "10.1/x:",
            "10.1/x\u{2026}",
            "doi:10.1/x:",
            "hdl:20.1000/x.",
            "d10.1/x.",
            "10.1/x .",
            "[10.1/x].",
            "x.",
            ".",
        ]
        .map(String::from),
    );
    // Long runs of opening brackets, quotes and labels before a closing one: each is taken
    // off in one look over the text, at most eight of them (a look each turn was
    // quadratic: 100,000 of them took seconds; 20,000 here).
    for run in ["[", "((", "\u{201C}", "[doi:"] {
        let close = if run == "\u{201C}" { "\u{201D}" } else { "]" };
        texts.push(format!("{}10.1/x{close}", run.repeat(20_000)));
    }
    let all = Options::new()
        .repository_urls(true)
        .resolution_form(true)
        .cordra(true);
    // (A named base may claim a known host's paths.)
    let named = Options::new().proxy_base(ProxyBase::parse("https://doi.org/123").unwrap());
    let (mut handle, mut fixes) = (String::from("left over"), Vec::new());
    let (mut buffer, mut placed) = (String::from("left over"), Vec::new());
    let (mut cleaned, mut refused, mut in_text) = (0, 0, 0);
    for options in [Options::new(), all, named] {
        for text in &texts {
            for keep_case in [false, true] {
                let into = clean_into(text, &options, keep_case, &mut handle, &mut fixes);
                // The same handle where `clean_in_place` says it is, and the same fixes.
                let put = clean_in_place(text, &options, keep_case, &mut buffer, &mut placed);
                match (&into, put) {
                    (Ok(form), Ok((f, at))) => {
                        let h = match at {
                            Written::Text(span) => {
                                assert!(buffer.is_empty(), "{text:?}");
                                in_text += 1;
                                &text[span]
                            }
                            Written::Buffer => buffer.as_str(),
                        };
                        assert_eq!(
                            (h, f, &placed[..]),
                            (handle.as_str(), *form, &fixes[..]),
                            "{text:?}"
                        );
                    }
                    (Err(a), Err(b)) => assert_eq!(*a, b, "{text:?}"),
                    (a, b) => panic!("{text:?}: clean_into {a:?}, clean_in_place {b:?}"),
                }
                match clean(text, &options) {
                    Ok(c) => {
                        let h = if keep_case {
                            c.as_written()
                        } else {
                            c.handle()
                        };
                        assert_eq!(into, Ok(c.form()), "{text:?}");
                        assert_eq!(handle, h.as_str(), "{text:?}");
                        assert_eq!(fixes, c.fixes(), "{text:?}");
                        cleaned += 1;
                    }
                    Err(e) => {
                        assert_eq!(into, Err(e), "{text:?}");
                        assert!(handle.is_empty() && fixes.is_empty(), "{text:?}");
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(
        cleaned > 10_000 && refused > 100,
        "{cleaned} cleaned, {refused} refused"
    );
    // Most handles are in the text as they are, not copied.
    assert!(in_text > cleaned / 2, "{in_text} of {cleaned} in the text");
}

/// A resolver's host without its scheme cleans as its URL with `https://` does (read from a
/// copy with the scheme, on the stack where it fits, the handle borrowed from the text
/// where it was not decoded): the handle, form, fixes and warnings, and the error's kind and
/// place (but for a handle that is itself a URL). The corpus after each known host, percent-encoded, and long enough for the heap.
#[test]
fn resolver_hosts_without_scheme_read_as_their_urls() {
    let ids = support::corpus_identifiers();
    let long = format!("10.1000/{}", "a".repeat(300));
    let mut paths: Vec<String> = Vec::new();
    for id in ids.iter().map(String::as_str).chain([
        long.as_str(),
        "10.1000/a%20b",
        "10.1000/%E2%82%AC",
        "10.1000/%FF",
        "https://doi.org/10.1000/182",
        "https%3A%2F%2Fdoi.org%2F10.1000%2F182",
        "https://example.com/10.1000/182",
        "10.1000/182?x=1#y",
        "api/handles/10.1000/182",
        "hdl:1234/5",
        "",
        "/",
    ]) {
        paths.push(id.to_owned());
        paths.push(id.replace('/', "%2F"));
    }
    let options = Options::new();
    let mut compared = 0;
    for host in [
        "doi.org",
        "dx.doi.org",
        "www.doi.org",
        "hdl.handle.net",
        "DX.DOI.ORG",
    ] {
        for path in &paths {
            let text = format!("{host}/{path}");
            let url = format!("https://{text}");
            let codes = |c: &handle_id::Cleaned| {
                let fixes: Vec<_> = c.fixes().iter().map(|f| f.code()).collect();
                let lints: Vec<_> = c.lint().iter().map(|w| (w.code(), w.index())).collect();
                (c.handle().clone(), c.form(), fixes, lints)
            };
            match (clean(&text, &options), clean(&url, &options)) {
                (Ok(a), Ok(b)) => {
                    let (ha, fa, xa, la) = codes(&a);
                    let (hb, fb, xb, lb) = codes(&b);
                    assert_eq!((ha, fa, xa), (hb, fb, xb), "{text:?}");
                    let shifted: Vec<_> =
                        lb.iter().map(|&(c, i)| (c, i.saturating_sub(8))).collect();
                    assert_eq!(la, shifted, "{text:?}");
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.kind(), b.kind(), "{text:?}");
                    // (A handle that is itself a URL is refused at a place found otherwise
                    // after a host without its scheme.)
                    let inner_url =
                        path.contains("://") || path.to_ascii_lowercase().contains("%3a");
                    if !inner_url {
                        assert_eq!(a.index() + 8, b.index(), "{text:?}");
                    }
                }
                (a, b) => panic!("{text:?}: {a:?} but {url:?}: {b:?}"),
            }
            compared += 1;
        }
    }
    assert!(compared > 1_000, "{compared}");
}
