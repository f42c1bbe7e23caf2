// hdl! is a constant expression: usable in `const` and `static` items.
use handle_id::{hdl, HandleRef};

const PASKIN: HandleRef<'static> = hdl!("10.1045/april2006-paskin");
static PREFIX_HANDLE: HandleRef<'static> = hdl!("0.NA/10.1045");
const ALL: [HandleRef<'static>; 2] = [hdl!("20.1000/5555"), hdl!("20.1000/5555/")];

fn main() {
    assert_eq!(PASKIN.prefix(), "10.1045");
    assert_eq!(PASKIN.local_name(), "april2006-paskin");
    assert!(PREFIX_HANDLE.is_prefix_handle());
    assert_ne!(ALL[0], ALL[1]);
    // The slash offset is that of the unescaped text.
    let escaped = hdl!("\u{e9}\u{e9}/\x41");
    assert_eq!((escaped.prefix(), escaped.local_name()), ("éé", "A"));
    let raw = hdl!(r"a\b/c\d");
    assert_eq!(raw.local_name(), r"c\d");
    assert_eq!(raw, HandleRef::parse(r"a\b/c\d").unwrap());
}
