//! `cargo run -p handle-id-codegen`: regenerates the committed validators
//! (`core/src/generated/`) from the grammar files, and says which files changed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use handle_id_codegen::{generate_all, OUTPUT_DIR};

fn main() -> ExitCode {
    // The repository root: the parent of this crate's folder, unless given.
    let root = std::env::args_os().nth(1).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        PathBuf::from,
    );
    let files = match generate_all(&root) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("handle-id-codegen: {e}");
            return ExitCode::from(2);
        }
    };
    let dir = root.join(OUTPUT_DIR);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("handle-id-codegen: {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    for (name, code) in &files {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).is_ok_and(|old| old == *code) {
            println!("unchanged  {OUTPUT_DIR}/{name}");
            continue;
        }
        if let Err(e) = std::fs::write(&path, code) {
            eprintln!("handle-id-codegen: {}: {e}", path.display());
            return ExitCode::from(2);
        }
        println!("written    {OUTPUT_DIR}/{name}");
    }
    // A file of a grammar that is gone would otherwise stay, compiled but never fresh.
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !files.iter().any(|(f, _)| *f == name) {
                match std::fs::remove_file(entry.path()) {
                    Ok(()) => println!("removed    {OUTPUT_DIR}/{name}"),
                    Err(e) => eprintln!("handle-id-codegen: {name}: {e}"),
                }
            }
        }
    }
    ExitCode::SUCCESS
}
