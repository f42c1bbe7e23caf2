fn main() {
    let _ = handle_id::hdl!("10./x");
}
