//! Every subcommand's `--json` records hold to the documented schema
//! (`cli/hdl-records.schema.json`), field by field and in the documented order, and the
//! schema's lists of codes and forms are the library's.

mod support;

use serde_json::{Map, Value};

use support::{hdl, text, MIXED};

fn schema() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/hdl-records.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Fails the validation with a message unless `cond`.
macro_rules! ensure {
    ($cond:expr, $($message:tt)*) => {
        if !$cond {
            return Err(format!($($message)*));
        }
    };
}

/// The part of JSON Schema (2020-12) the file uses: `type`, `enum`, `minimum`,
/// `properties`, `required`, `items`, `additionalProperties: false`, `anyOf`, `allOf`,
/// `$ref` into `$defs`, `unevaluatedProperties: false`. Returns the properties it
/// evaluated, for `unevaluatedProperties`, or why `value` does not hold to `schema`.
fn check(root: &Value, schema: &Value, value: &Value, at: &str) -> Result<Vec<String>, String> {
    let mut evaluated = Vec::new();
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference
            .strip_prefix("#/$defs/")
            .expect("a local reference");
        evaluated.extend(check(root, &root["$defs"][name], value, at)?);
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
            _ => panic!("type {types}"),
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        ensure!(
            types.contains(&actual),
            "{at}: {value} is not of type {types:?}"
        );
    }
    if let Some(options) = schema["enum"].as_array() {
        ensure!(
            options.contains(value),
            "{at}: {value} is not one of {options:?}"
        );
    }
    if let (Some(min), Some(n)) = (schema["minimum"].as_i64(), value.as_i64()) {
        ensure!(n >= min, "{at}: {n} < {min}");
    }
    if let Some(any) = schema["anyOf"].as_array() {
        let ok = any.iter().any(|s| check(root, s, value, at).is_ok());
        ensure!(ok, "{at}: {value} matches none of {any:?}");
    }
    for s in schema["allOf"].as_array().into_iter().flatten() {
        evaluated.extend(check(root, s, value, at)?);
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            check(root, items, item, &format!("{at}[{i}]"))?;
        }
    }
    if let Some(object) = value.as_object() {
        for name in schema["required"].as_array().into_iter().flatten() {
            let name = name.as_str().unwrap();
            ensure!(object.contains_key(name), "{at}: no {name:?} in {value}");
        }
        let properties = schema["properties"].as_object();
        for (name, v) in object {
            if let Some(s) = properties.and_then(|p| p.get(name)) {
                check(root, s, v, &format!("{at}.{name}"))?;
                evaluated.push(name.clone());
            }
        }
        let closed = |key: &str| schema[key] == Value::Bool(false);
        for name in object.keys() {
            if closed("additionalProperties") {
                ensure!(
                    properties.is_some_and(|p| p.contains_key(name)),
                    "{at}: {name:?} is not in the schema"
                );
            }
            if closed("unevaluatedProperties") {
                ensure!(
                    evaluated.contains(name),
                    "{at}: {name:?} is not in the schema"
                );
            }
        }
    }
    Ok(evaluated)
}

/// [`check`], failing the test.
#[track_caller]
fn validate(root: &Value, schema: &Value, value: &Value, at: &str) {
    if let Err(why) = check(root, schema, value, at) {
        panic!("{why}");
    }
}

/// The record's keys are in the documented order: the line fields as the schema lists
/// them, with the subcommand's own (in its schema's order) before `warnings`.
fn in_order(root: &Value, def: &str, record: &Map<String, Value>) {
    let names = |s: &Value| -> Vec<String> {
        s["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    let mut order = names(&root["$defs"]["line"]);
    let warnings = order.iter().position(|k| k == "warnings").unwrap();
    order.splice(warnings..warnings, names(&root["$defs"][def]));
    let keys: Vec<&String> = record.keys().collect();
    let expected: Vec<&String> = order.iter().filter(|k| record.contains_key(*k)).collect();
    assert_eq!(keys, expected, "{def}");
}

/// Runs `hdl` and checks each line of its standard output against `$defs/<def>`.
fn records_hold(def: &str, args: &[&str], stdin: &[u8]) -> usize {
    let root = schema();
    let out = hdl(args, stdin);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        text(&out.stderr)
    );
    // Under --json, standard error says nothing about lines.
    assert_eq!(text(&out.stderr), "", "{args:?}");
    let stdout = text(&out.stdout);
    for (i, line) in stdout.lines().enumerate() {
        let record: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        validate(
            &root,
            &root["$defs"][def],
            &record,
            &format!("{args:?} record {i}"),
        );
        if def != "extract" {
            in_order(&root, def, record.as_object().unwrap());
        }
    }
    stdout.lines().count()
}

const MESSY: &[u8] = b"doi: 10.1000/182\n(10.1016/j.cell.2009.01.002)\n hdl:20.1000/5555/ \n\
See https://doi.org/10.1000/182 for details\nhttps://doi.org/10.1/100%\n\xff/x\n\
https://doi.org/(10.1000/182\n";

#[test]
fn every_subcommand_writes_records_of_the_documented_shape() {
    assert_eq!(records_hold("check", &["check", "--json"], MIXED), 11);
    records_hold("check", &["check", "--json", "--strict"], MIXED);
    records_hold("check", &["check", "--json", "--form", "handle"], MIXED);
    assert_eq!(
        records_hold("convert", &["convert", "--json", "--to", "info"], MIXED),
        11
    );
    assert_eq!(records_hold("clean", &["clean", "--json"], MESSY), 7);
    records_hold("clean", &["clean", "--json", "--to", "proxy"], MIXED);
    assert_eq!(records_hold("parse", &["parse", "--json"], MIXED), 11);
    let repeats = b"10.1000/ABC\nhttps://doi.org/10.1000/abc\nx\n10.1000/abc\n";
    // Two repeats and the invalid line.
    assert_eq!(records_hold("dedupe", &["dedupe", "--json"], repeats), 3);
    assert_eq!(
        records_hold("dedupe", &["dedupe", "--json", "--unique"], repeats),
        2
    );
    let text = b"See doi:10.1000/182 and https://hdl.handle.net/20.1000/5555.\n\xff 10.1234/x\n";
    assert_eq!(records_hold("extract", &["extract", "--json"], text), 3);
    // Several sources: every record names its own.
    let dir = support::scratch("schema");
    let file = dir.join("ids.txt");
    std::fs::write(&file, "10.1000/182\n10.1000/182\n").unwrap();
    let file = file.to_str().unwrap();
    for (def, args) in [
        ("check", &["check", "--json", "--id", "1/2", file][..]),
        ("dedupe", &["dedupe", "--json", file, file]),
        ("extract", &["extract", "--json", file, "-"]),
    ] {
        records_hold(def, args, b"10.1/x\n");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The schema's lists are the library's: a code or form added there must be documented.
#[test]
fn the_schema_lists_every_code_and_form() {
    let root = schema();
    let list = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    let forms: Vec<_> = handle_id::Form::ALL
        .iter()
        .map(|f| f.name().to_owned())
        .collect();
    assert_eq!(list(&root["$defs"]["form"]["enum"]), forms);
    let lints: Vec<_> = handle_id::LintCode::ALL
        .iter()
        .map(|c| c.code().to_owned())
        .collect();
    assert_eq!(
        list(&root["$defs"]["warning"]["properties"]["code"]["enum"]),
        lints
    );
    let fixes: Vec<_> = handle_id::FixCode::ALL
        .iter()
        .map(|c| c.code().to_owned())
        .collect();
    assert_eq!(
        list(&root["$defs"]["fix"]["properties"]["code"]["enum"]),
        fixes
    );
}

/// The validator says no where the schema does: a check that passes proves something.
#[test]
fn the_validator_refuses_what_the_schema_does_not_allow() {
    let root = schema();
    let good: Value = serde_json::from_str(
        r#"{"line":1,"input":"1/2","valid":true,"form":"handle","handle":"1/2","prefix":"1","local_name":"2","warnings":[],"error":null}"#,
    )
    .unwrap();
    validate(&root, &root["$defs"]["check"], &good, "good");
    let bad = |change: &dyn Fn(&mut Map<String, Value>)| {
        let mut record = good.as_object().unwrap().clone();
        change(&mut record);
        let record = Value::Object(record);
        assert!(
            check(&root, &root["$defs"]["check"], &record, "bad").is_err(),
            "{record}"
        );
    };
    bad(&|r| {
        r.insert("extra".into(), Value::Null);
    });
    bad(&|r| {
        r.remove("error");
    });
    bad(&|r| {
        r.insert("line".into(), Value::from(0));
    });
    bad(&|r| {
        r.insert("form".into(), Value::from("ftp"));
    });
    bad(&|r| {
        r.insert("valid".into(), Value::from("yes"));
    });
    bad(&|r| {
        let w = serde_json::json!([{"code": "no-such-code", "index": 0, "message": ""}]);
        r.insert("warnings".into(), w);
    });
    // A convert field in a check record.
    bad(&|r| {
        r.insert("output".into(), Value::Null);
    });
}
