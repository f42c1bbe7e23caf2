// The macro works under another name, through a path, and with the crate renamed away.
use handle_id::hdl as h;

mod inner {
    pub fn get() -> handle_id::HandleRef<'static> {
        handle_id::hdl!("1234/567")
    }
}

fn main() {
    assert_eq!(h!("1234/567"), inner::get());
}
