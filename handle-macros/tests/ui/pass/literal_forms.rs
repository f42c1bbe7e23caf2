// Every way of writing a string literal, and a literal handed on by another macro.
use handle_id::{hdl, hdl_uri, HandleRef};

macro_rules! through_expr {
    ($e:expr) => {
        hdl!($e)
    };
}

macro_rules! through_literal {
    ($l:literal) => {
        hdl_uri!($l)
    };
}

fn main() {
    assert_eq!(hdl!(r#"a"b/c"#).prefix(), "a\"b");
    assert_eq!(hdl!(r##"x/"#"##).local_name(), "\"#");
    assert_eq!(hdl!("10.1000/a\
                     b").as_str(), "10.1000/ab");
    assert_eq!(hdl!("\u{1_F600}/\x7f\"").prefix(), "😀");
    assert_eq!(through_expr!("20.1000/5555"), HandleRef::parse("20.1000/5555").unwrap());
    assert_eq!(through_literal!("hdl:20.1000/5555%23x").handle().local_name(), "5555#x");
}
