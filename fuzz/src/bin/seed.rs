//! `cargo run --manifest-path fuzz/Cargo.toml --bin seed`: writes the seed corpora of the
//! fuzz targets (`fuzz/corpus/<target>/`) from the project's corpus (tests/corpus), each
//! identifier as written and in the written forms the targets read.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut ids = Vec::new();
    for file in ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"] {
        let text = std::fs::read_to_string(fuzz.join("../tests/corpus").join(file))?;
        for line in text.lines() {
            let row: serde_json::Value = serde_json::from_str(line)?;
            if let Some(id) = row
                .get("input")
                .or_else(|| row.get("id"))
                .and_then(|v| v.as_str())
            {
                ids.push(id.to_owned());
            }
        }
    }
    let forms = [
        "",
        "hdl:",
        "hdl://",
        "info:doi/",
        "doi:",
        "urn:hdl:",
        "https://doi.org/",
    ];
    let queries = [
        "noredirect",
        "index=1&type=URL",
        "locatt=id:1&action=showurls",
        "a=%41+b",
    ];
    let targets: [(&str, Vec<String>); 8] = [
        ("handle", ids.clone()),
        (
            "recognize",
            ids.iter()
                .flat_map(|id| forms.map(|f| format!("{f}{id}")))
                .collect(),
        ),
        (
            "hdl_uri",
            ids.iter()
                .flat_map(|id| [format!("hdl:{id}"), format!("hdl://{id}")])
                .collect(),
        ),
        (
            "proxy",
            ids.iter()
                .map(|id| format!("http://resolver.example:8080/hdl/{id}"))
                .collect(),
        ),
        ("query", queries.iter().map(|q| (*q).to_owned()).collect()),
        (
            "grammars",
            ids.iter()
                .flat_map(|id| forms.map(|f| format!("{f}{id}")))
                .collect(),
        ),
        (
            "extract",
            ids.iter()
                .map(|id| format!("See doi:{id}, or <a href=\"https://doi.org/{id}\">({id})</a>."))
                .collect(),
        ),
        (
            "clean",
            ids.iter()
                .flat_map(|id| {
                    [
                        format!(" doi: {id}."),
                        format!("({id})"),
                        format!("doi.org/{id}"),
                    ]
                })
                .collect(),
        ),
    ];
    for (target, inputs) in targets {
        let dir = fuzz.join("corpus").join(target);
        std::fs::create_dir_all(&dir)?;
        for (i, input) in inputs.iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i:05}")), input)?;
        }
        println!("{target}: {} seeds", inputs.len());
    }
    Ok(())
}
