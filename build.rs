//! Generates the fast validators from the grammar files (see codegen/ and src/dfa.rs).

fn main() {
    handle_id_codegen::build_script(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
}
