//! `hdl create`, `hdl modify` and `hdl delete` against `hdl serve`, as a user runs them:
//! the values written and read back, the server's refusals as exit status 1 with the
//! reason, and the mistakes a user makes said clearly.
#![cfg(unix)]

mod support;

use std::process::{Command, Output};

use support::{text, Running, TempDir};

const KEY: &str = "the-prefix-key";

/// The prefix 20.5000, whose admin is `300:0.NA/20.5000` with the key [`KEY`].
fn records() -> String {
    let admin = r#"{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/20.5000","index":300,"permissions":"111111111111"}}}"#;
    format!(
        r#"{{"responseCode":1,"handle":"0.NA/20.5000","values":[{admin},{{"index":300,"type":"HS_SECKEY","data":{{"format":"string","value":"{KEY}"}},"permissions":"1100"}}]}}"#
    )
}

fn hdl_with_key<S: AsRef<std::ffi::OsStr>>(args: &[S], key: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hdl"))
        .args(args)
        .env("HDL_PASSWORD", key)
        .env("NO_COLOR", "1")
        .output()
        .expect("hdl runs")
}

fn get(addr: &str, handle: &str) -> serde_json::Value {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /api/handles/{handle} HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    serde_json::from_str(raw.split_once("\r\n\r\n").unwrap().1).unwrap()
}

#[test]
fn create_modify_and_delete_through_the_rest_api() {
    let dir = TempDir::new("write-cli");
    let records_file = dir.path().join("records.jsonl");
    std::fs::write(&records_file, records()).unwrap();
    let server = Running::start(
        &dir.path().join("s.redb"),
        &["--records", records_file.to_str().unwrap()],
    );
    let url = format!("http://{}", server.addr);
    let conn = ["--server", &url, "--user", "300:0.NA/20.5000"];
    let with = |args: &[&str]| -> Vec<String> {
        args.iter()
            .chain(conn.iter())
            .map(|s| (*s).to_owned())
            .collect()
    };

    let out = hdl_with_key(
        &with(&[
            "create",
            "20.5000/r7",
            "--value",
            "1:URL=https://example.org/7",
            "--admin",
            "100:300:0.NA/20.5000",
        ]),
        KEY,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "{\"responseCode\":1,\"handle\":\"20.5000/r7\"}\n"
    );
    let record = get(&server.addr, "20.5000/r7");
    assert_eq!(
        record["values"][0]["data"]["value"],
        "https://example.org/7"
    );
    assert_eq!(record["values"][1]["type"], "HS_ADMIN");

    // Again without overwriting: refused, and why.
    let out = hdl_with_key(
        &with(&[
            "create",
            "20.5000/r7",
            "--no-overwrite",
            "--value",
            "1:URL=x",
        ]),
        KEY,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("HTTP 409, responseCode 101 (handle already exists)"),
        "{}",
        text(&out.stderr)
    );

    // Values from a file; a minted handle.
    let values = dir.path().join("values.json");
    std::fs::write(&values, r#"[{"index":1,"type":"URL","data":{"format":"string","value":"https://example.org/m"}},{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/20.5000","index":300,"permissions":"011111110011"}}}]"#).unwrap();
    let out = hdl_with_key(
        &with(&[
            "create",
            "20.5000/",
            "--mint",
            "--values-file",
            values.to_str().unwrap(),
        ]),
        KEY,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let minted = answer["handle"].as_str().unwrap();
    assert!(
        minted.starts_with("20.5000/") && minted.len() == 44,
        "{minted}"
    );
    assert_eq!(
        get(&server.addr, minted)["values"][0]["data"]["value"],
        "https://example.org/m"
    );

    let out = hdl_with_key(
        &with(&[
            "modify",
            "20.5000/r7",
            "--value",
            "1:URL=https://example.org/moved",
            "--value",
            "2:EMAIL=a@example.org",
        ]),
        KEY,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let record = get(&server.addr, "20.5000/r7");
    assert_eq!(
        record["values"][0]["data"]["value"],
        "https://example.org/moved"
    );
    assert_eq!(record["values"][1]["type"], "EMAIL");

    let out = hdl_with_key(&with(&["delete", "20.5000/r7", "--index", "2"]), KEY);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        get(&server.addr, "20.5000/r7")["values"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // A wrong key: refused by the server.
    let out = hdl_with_key(&with(&["delete", "20.5000/r7"]), "wrong");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("HTTP 401, responseCode 403 (authentication failed"),
        "{}",
        text(&out.stderr)
    );

    // The key from a file (its line end is not part of it).
    let key_file = dir.path().join("key.txt");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hdl"))
        .args(with(&[
            "delete",
            "20.5000/r7",
            "--password-file",
            key_file.to_str().unwrap(),
        ]))
        .env_remove("HDL_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(get(&server.addr, "20.5000/r7")["responseCode"], 100);
}

#[test]
fn mistakes_are_said_before_anything_is_sent() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "delete",
                "20.5000/x",
                "--server",
                "ftp://x",
                "--user",
                "300:0.NA/1",
            ],
            "not an https:// or http:// URL",
        ),
        (
            &[
                "delete",
                "20.5000/x",
                "--server",
                "http://127.0.0.1:9",
                "--user",
                "0.NA/1",
            ],
            "--user 0.NA/1: not INDEX:HANDLE",
        ),
        (
            &[
                "delete",
                "no-slash",
                "--server",
                "http://127.0.0.1:9",
                "--user",
                "300:0.NA/1",
            ],
            "no-slash:",
        ),
        (
            &[
                "modify",
                "20.5000/x",
                "--server",
                "http://127.0.0.1:9",
                "--user",
                "300:0.NA/1",
            ],
            "no values to write",
        ),
        (
            &[
                "create",
                "20.5000/x",
                "--value",
                "URL=x",
                "--server",
                "http://127.0.0.1:9",
                "--user",
                "300:0.NA/1",
            ],
            "--value URL=x: not INDEX:TYPE=TEXT",
        ),
    ];
    for (args, said) in cases {
        let out = hdl_with_key(args, KEY);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(said),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_hdl"))
        .args([
            "delete",
            "20.5000/x",
            "--server",
            "http://127.0.0.1:9",
            "--user",
            "300:0.NA/1",
        ])
        .env_remove("HDL_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no key: give --password-file, or set HDL_PASSWORD"),
        "{}",
        text(&out.stderr)
    );
    // Nothing listening: said, exit status 2.
    let out = hdl_with_key(
        &[
            "delete",
            "20.5000/x",
            "--server",
            "http://127.0.0.1:9",
            "--user",
            "300:0.NA/1",
        ],
        KEY,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("127.0.0.1:9"),
        "{}",
        text(&out.stderr)
    );
}

/// Over HTTPS: `hdl serve --tls-cert --tls-key`, and the client trusting that certificate
/// with --ca-cert, or any with --insecure; a certificate it does not trust is said.
#[test]
fn writes_over_https() {
    let dir = TempDir::new("write-cli-tls");
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.key_pair.serialize_pem()).unwrap();
    let other = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let other_cert = dir.path().join("other.pem");
    std::fs::write(&other_cert, other.cert.pem()).unwrap();
    let records_file = dir.path().join("records.jsonl");
    std::fs::write(&records_file, records()).unwrap();
    let server = Running::start(
        &dir.path().join("s.redb"),
        &[
            "--records",
            records_file.to_str().unwrap(),
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    assert!(
        server.said.contains("listening on https://"),
        "{}",
        server.said
    );
    let url = format!("https://{}", server.addr);
    let base = ["--server", url.as_str(), "--user", "300:0.NA/20.5000"];
    let run = |extra: &[&str]| {
        let args: Vec<&str> = [
            "create",
            "20.5000/tls",
            "--value",
            "1:URL=https://example.org/tls",
        ]
        .iter()
        .chain(base.iter())
        .chain(extra.iter())
        .copied()
        .collect();
        hdl_with_key(&args, KEY)
    };
    let out = run(&["--ca-cert", cert.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "{\"responseCode\":1,\"handle\":\"20.5000/tls\"}\n"
    );
    let out = run(&["--insecure"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Trusting another certificate, or only the public roots: refused before anything is sent.
    for extra in [&["--ca-cert", other_cert.to_str().unwrap()][..], &[]] {
        let out = run(extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(
            text(&out.stderr).to_lowercase().contains("certificate"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// `--key`: the Handle scheme against `hdl serve` (SPEC W3): a private key whose public
/// key is an admin's `HS_PUBKEY` value creates, changes and deletes; another key is
/// refused, and nothing is written.
#[test]
fn writes_with_a_private_key() {
    let key = handle_net::key::ServerKey::generate().unwrap();
    let other = handle_net::key::ServerKey::generate().unwrap();
    let pubkey = handle_id::record::base64(&key.public_key());
    let record = format!(
        r#"{{"responseCode":1,"handle":"0.NA/20.6000","values":[{{"index":100,"type":"HS_ADMIN","data":{{"format":"admin","value":{{"handle":"0.NA/20.6000","index":301,"permissions":"111111111111"}}}}}},{{"index":301,"type":"HS_PUBKEY","data":{{"format":"base64","value":"{pubkey}"}}}}]}}"#
    );
    let dir = TempDir::new("write-cli-key");
    let records_file = dir.path().join("records.jsonl");
    std::fs::write(&records_file, record).unwrap();
    let server = Running::start(
        &dir.path().join("s.redb"),
        &["--records", records_file.to_str().unwrap()],
    );
    // The key as PEM (PKCS #8), the other as DER.
    let pem = dir.path().join("key.pem");
    std::fs::write(
        &pem,
        format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            handle_id::record::base64(&key.to_pkcs8().unwrap())
        ),
    )
    .unwrap();
    let der = dir.path().join("other.der");
    std::fs::write(&der, other.to_pkcs8().unwrap()).unwrap();
    let url = format!("http://{}", server.addr);
    let run = |args: &[&str], key: &std::path::Path| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend([
            "--server",
            &url,
            "--user",
            "301:0.NA/20.6000",
            "--key",
            key.to_str().unwrap(),
        ]);
        // No secret key anywhere: the private key alone authenticates.
        hdl_with_key(&all, "")
    };
    let out = run(
        &[
            "create",
            "20.6000/k",
            "--value",
            "1:URL=https://example.org/k",
            "--admin",
            "100:301:0.NA/20.6000",
        ],
        &pem,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        get(&server.addr, "20.6000/k")["values"][0]["data"]["value"],
        "https://example.org/k"
    );
    let out = run(
        &["modify", "20.6000/k", "--value", "2:EMAIL=k@example.org"],
        &pem,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Another key: authentication failed, nothing changed.
    let out = run(&["delete", "20.6000/k"], &der);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("HTTP 401, responseCode 403"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(get(&server.addr, "20.6000/k")["values"][1]["type"], "EMAIL");
    let out = run(&["delete", "20.6000/k"], &pem);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(get(&server.addr, "20.6000/k")["responseCode"], 100);
    // A file that is no key is said before anything is sent.
    let out = run(&["delete", "20.6000/k"], &records_file);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--key"), "{}", text(&out.stderr));
}
