fn main() {
    let _ = handle_id::hdl_uri!("hdl:10.1000/a b");
    let _ = handle_id::hdl_uri!("hdl:10%2F1000/x");
    let _ = handle_id::hdl_uri!("https://doi.org/10.1000/182");
    let _ = handle_id::hdl_uri!(PATH);
}
