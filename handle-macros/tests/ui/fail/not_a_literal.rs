const TEXT: &str = "10.1000/182";

fn main() {
    let _ = handle_id::hdl!(TEXT);
    let _ = handle_id::hdl!(42);
    let _ = handle_id::hdl!(b"10.1000/182");
    let _ = handle_id::hdl!();
}
