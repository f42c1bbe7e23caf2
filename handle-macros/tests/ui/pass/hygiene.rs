// User items that share names with what the expansion might use do not change it.
#![allow(dead_code, non_camel_case_types)]

struct Ok;
struct Err;
struct Some;
struct Handle;
struct HandleRef;
struct usize;
struct str;
mod core {}
mod handle_macros {}
mod __private {}
const HANDLE: u8 = 0;

fn main() {
    let h = handle_id::hdl!("10.1000/182");
    assert_eq!(h.prefix(), "10.1000");
    let _ = (Ok, Err, Some, Handle, HandleRef, HANDLE);
}
