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
    let forms = handle_id_fuzz::FORM_PREFIXES;
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
    let records = fuzz.join("../tests/records");
    let full = std::fs::read_to_string(records.join("4263537-4000.json"))?;
    let jsonp = std::fs::read_to_string(records.join("4263537-4000-url-email.jsonp"))?;
    let loc = r#"<locations chooseby="locatt,address,country,score,weighted"><location id="0" href="http://uk.example/" country="gb" weight="0" addresses="192.0.2.0/24,2001:db8::/32" score="1"/><location id="1" href="http://a.example/"/></locations>"#;
    let mut targets = targets.to_vec();
    targets.push((
        "record",
        ids.iter()
            .take(200)
            .map(|id| full.replace("4263537/4000", id).replace("0.NA/4263537", id))
            .chain([full.clone(), jsonp, full.replace("\"string\"", "\"hex\"")])
            .chain([format!(
                r#"{{"responseCode":1,"handle":"1/2","values":[{{"index":1,"type":"10320/loc","data":{{"format":"string","value":{}}}}},{{"index":2,"type":"B","data":{{"format":"base64","value":"aGVsbG8="}}}},{{"index":3,"type":"HS_VLIST","data":{{"format":"vlist","value":[{{"handle":"1/3","index":1}}]}}}}]}}"#,
                serde_json::Value::from(loc)
            )])
            .collect(),
    ));
    targets.push(("locations", vec![loc.to_owned()]));
    // Import streams: a few records a stream, a handle repeated, an empty line.
    let one_line = full.replace('\n', "");
    targets.push((
        "import",
        ids.iter()
            .take(60)
            .collect::<Vec<_>>()
            .chunks(3)
            .map(|ids| {
                let mut lines: Vec<String> = ids
                    .iter()
                    .map(|id| one_line.replace("4263537/4000", id))
                    .collect();
                lines.push(String::new());
                lines.push(one_line.clone());
                lines.push(one_line.replace("www.handle.net", "moved.example"));
                lines.join("\n")
            })
            .collect(),
    ));
    targets.push((
        "serve",
        ids.iter()
            .take(200)
            .flat_map(|id| {
                [
                    format!("/{id}?noredirect"),
                    format!("/api/handles/{id}?type=URL&callback=f"),
                ]
            })
            .chain(["/20.1000/loc?locatt=id:1".to_owned(), "/1/a".to_owned()])
            .collect(),
    ));
    for (target, inputs) in targets {
        let dir = fuzz.join("corpus").join(target);
        std::fs::create_dir_all(&dir)?;
        for (i, input) in inputs.iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i:05}")), input)?;
        }
        println!("{target}: {} seeds", inputs.len());
    }
    // The Polars plugin's keyword arguments as the namespace passes them, pickled.
    use handle_id_fuzz::kwargs::{write, Kwarg};
    let text = |s: &str| Kwarg::Str(s.to_owned());
    let dir = fuzz.join("corpus/plugin_kwargs");
    std::fs::create_dir_all(&dir)?;
    let seeds = [
        vec![("threads".to_owned(), Kwarg::Int(2))],
        vec![
            ("keep_case".to_owned(), Kwarg::Bool(true)),
            (
                "proxy_bases".to_owned(),
                Kwarg::List(vec![text("https://resolver.example/")]),
            ),
            ("repository_urls".to_owned(), Kwarg::Bool(false)),
            ("threads".to_owned(), Kwarg::None),
        ],
        vec![
            ("form".to_owned(), text("proxy")),
            ("base".to_owned(), text("https://hdl.handle.net/")),
            (
                "handle_prefixes".to_owned(),
                Kwarg::List(vec![text("20.1000"), text("1")]),
            ),
        ],
    ];
    for (i, seed) in seeds.into_iter().enumerate() {
        std::fs::write(dir.join(format!("seed-{i:05}")), write(&Kwarg::Dict(seed)))?;
    }
    println!("plugin_kwargs: 3 seeds");
    Ok(())
}
