//! `serde`: handles and URIs as their text, through the validating parsers.

#![cfg(feature = "serde")]

use handle_id::{Form, Handle, HandleRef, HdlUri};

#[test]
fn round_trips() {
    let h = Handle::parse("10.1000/a b").unwrap();
    let json = serde_json::to_string(&h).unwrap();
    assert_eq!(json, r#""10.1000/a b""#);
    assert_eq!(serde_json::from_str::<Handle>(&json).unwrap(), h);
    // Borrowed: no copy of the text.
    let text = r#"["20.1000/5555","hdl:10.1045/april%202006"]"#;
    let (h, uri): (HandleRef<'_>, HdlUri<'_>) = serde_json::from_str(text).unwrap();
    assert_eq!(h.prefix(), "20.1000");
    assert!(std::ptr::eq(h.as_str().as_ptr(), text[2..].as_ptr()));
    assert_eq!(uri.handle().as_str(), "10.1045/april 2006");
    assert_eq!(serde_json::to_string(&(h, &uri)).unwrap(), text);
    assert_eq!(
        serde_json::to_string(&Form::InfoDoi).unwrap(),
        r#""info-doi""#
    );
    assert_eq!(
        serde_json::from_str::<Form>(r#""proxy""#).unwrap(),
        Form::Proxy
    );
    // An escaped JSON string cannot be borrowed; the owned type reads it.
    assert!(serde_json::from_str::<HandleRef<'_>>(r#""10.1000\/x""#).is_err());
    assert_eq!(
        serde_json::from_str::<Handle>(r#""10.1000\/x""#)
            .unwrap()
            .as_str(),
        "10.1000/x"
    );
}

#[test]
fn errors_keep_the_rule_and_index() {
    let e = serde_json::from_str::<Handle>(r#""10@x/y""#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("'@' (U+0040) is not allowed in a naming authority segment at byte 2"),
        "{e}"
    );
    let e = serde_json::from_str::<HdlUri<'_>>(r#""hdl:1/a b""#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not allowed in the local name at byte 7"), "{e}");
    assert!(serde_json::from_str::<Form>(r#""nonsense""#).is_err());
}
