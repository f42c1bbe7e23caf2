fn main() {
    let _ = handle_id::hdl!("10.1000/182" "x");
}
