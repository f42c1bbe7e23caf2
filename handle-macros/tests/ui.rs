//! `hdl!` at compile time: what compiles (constants, renamed imports, hygiene) and what does
//! not, with the compiler's messages in `tests/ui/fail/*.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
