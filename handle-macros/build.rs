//! The same validators as the library's, from the same grammar files: the macros judge a
//! literal with the library's own code (see src/lib.rs).

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    handle_id_codegen::build_script(&root);
}
