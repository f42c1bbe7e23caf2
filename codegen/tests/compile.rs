//! The generator on small grammars and on the project's own: what it accepts, what it
//! refuses, and that the automata it builds accept the right strings.

use handle_id_codegen::{generate, Grammar};

#[track_caller]
fn dfa(grammar: &str, entry: &str) -> handle_id_codegen::Dfa {
    Grammar::parse(grammar).unwrap().compile(entry).unwrap()
}

#[track_caller]
fn refused(grammar: &str, entry: &str) -> String {
    match Grammar::parse(grammar).unwrap().compile(entry) {
        Ok(_) => panic!("{grammar} should be refused"),
        Err(e) => e,
    }
}

#[test]
fn handle_grammar() {
    let source = include_str!("../../grammar/handle.pest");
    let d = dfa(source, "handle");
    for ok in ["a/b", "10.1045/x", "é.ü/", "1/@", "a:b\u{1}/x/y", "𝕏.y/z"] {
        assert_eq!(d.run(ok), Ok(()), "{ok:?}");
    }
    for (bad, at) in [
        ("", 0),
        ("a", 1),
        ("a.", 2),
        (".a/b", 0),
        ("a..b/c", 2),
        ("a@/b", 1),
        ("é@/x", 2),
    ] {
        assert_eq!(d.run(bad), Err(at), "{bad:?}");
    }
    // Dead, start, inside a segment, after '.', after '/' and inside the local name: the
    // start and the state after '.' act alike but carry different labels (what an error
    // was inside), and so do the states after '/' and inside the local name.
    assert_eq!(d.accepting.len(), 6);
    assert_eq!(
        d.label_names[usize::from(d.labels[usize::from(d.start)])],
        "handle"
    );
    let code = generate("grammar/handle.pest", source, &["handle"]).unwrap();
    assert!(code.contains("pub(crate) static HANDLE: crate::dfa::Dfa"));
    // The walker: inside a segment, '.' moves on (to the code that follows), '/' is
    // reported and accepts everything after it, '@' is rejected, and any other byte stays
    // and starts a run, skipped at once (tested by the run table before the match).
    assert!(code.contains("pub(crate) fn run_handle(input: &[u8])"));
    assert!(code.contains("0x2e => { sink.enter(Rule::Dot, i, b); i += 1; break; },"));
    assert!(code.contains("0x2f => { sink.enter(Rule::Slash, i, b); return Ok(i + 1) },"));
    assert!(code.contains(
        "if SETS_HANDLE[usize::from(b)] & (1 << 0) != 0 { i = crate::dfa::skip(input, i + 1, &SETS_HANDLE, 1 << 0); continue; }"
    ));
    // After '.', a segment's first character (one byte of a set, by the table; any other is
    // rejected) goes back to the segment's code.
    assert!(code.contains("{ sink.enter(Rule::NaSegment, i, b); i += 1; continue 's2; };"));
    // Past the run test, what is neither '.' nor '/' ('@') is rejected inside the segment.
    assert!(
        code.contains("_ => return Err(crate::dfa::Reject { index: i, rule: Rule::NaSegment }),")
    );
    assert!(d.accepts_all.iter().any(|&a| a));
}

#[test]
fn constructs() {
    let g = r#"
        hex = { ASCII_HEX_DIGIT }
        pct = { "%" ~ hex{2} }
        word = { (^"ab" | 'x'..'z')+ }
        not_dot = { !"." ~ ANY }
        e = { SOI ~ pct? ~ word{1,2} ~ "-"{,2} ~ not_dot* ~ EOI }
    "#;
    let d = dfa(g, "e");
    for ok in ["ab", "%4fAb", "xyAB--é", "aB-x", "zz--q"] {
        assert_eq!(d.run(ok), Ok(()), "{ok:?}");
    }
    for bad in ["", "%4", "%4g", "a", "ab.x"] {
        assert!(d.run(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn refusals_name_the_rule() {
    let e = refused("a = { \"x\" ~ a? }\ne = { SOI ~ a ~ EOI }", "e");
    assert!(e.contains("rule `a`") && e.contains("recursive"), "{e}");
    let e = refused("e = { SOI ~ &\"x\" ~ ANY ~ EOI }", "e");
    assert!(e.contains("positive lookahead"), "{e}");
    let e = refused("e = { SOI ~ 'é'..'ü' ~ EOI }", "e");
    assert!(e.contains("non-ASCII"), "{e}");
    let e = refused("e = { SOI ~ \"é\" ~ EOI }", "e");
    assert!(e.contains("non-ASCII"), "{e}");
    let e = refused("e = { \"x\" }", "e");
    assert!(e.contains("SOI ~ … ~ EOI"), "{e}");
    let e = refused("e = { SOI ~ !\"ab\" ~ ANY ~ EOI }", "e");
    assert!(e.contains("negative lookahead"), "{e}");
    let e = refused("e = { SOI ~ PUSH(\"a\") ~ EOI }", "e");
    assert!(e.contains("rule `e`"), "{e}");
    assert!(Grammar::parse("e = { ").is_err());
}
