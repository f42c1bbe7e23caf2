//! What the protocol's tests share: the reference's vectors.
#![allow(dead_code)]

/// Every vector of `data/vectors.jsonl`: its name and bytes.
pub fn vectors() -> Vec<(String, Vec<u8>)> {
    include_str!("../../data/vectors.jsonl")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let hex = v["hex"].as_str().unwrap();
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            (v["name"].as_str().unwrap().to_owned(), bytes)
        })
        .collect()
}

/// The bytes of the vector `name`.
pub fn vector(name: &str) -> Vec<u8> {
    vectors()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no vector {name}"))
        .1
}
