//! `hdl resolve` as a user runs it, against `hdl serve --handle-bind` on loopback: each
//! handle's values as the REST API writes them, in input order with many in flight, type
//! filters, handles not found, a server that is not there.
#![cfg(unix)]

mod support;

use std::time::{Duration, Instant};

use support::{hdl, refused, text, Running, TempDir};

fn record(handle: &str, n: u32) -> String {
    let values: Vec<String> = (1..=n)
        .map(|i| {
            format!(
                r#"{{"index":{i},"type":"{}","data":{{"format":"string","value":"https://example.org/{handle}/{i}"}},"ttl":86400,"timestamp":"2020-01-01T00:00:00Z"}}"#,
                if i == 1 { "URL" } else { "DESC" }
            )
        })
        .collect();
    format!(
        r#"{{"responseCode":1,"handle":"{handle}","values":[{}]}}"#,
        values.join(",")
    )
}

/// Where a server answers the Handle protocol, as it says.
fn protocol_address(server: &Running) -> String {
    server
        .said
        .lines()
        .find_map(|l| l.strip_prefix("hdl serve: handle protocol on "))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_else(|| panic!("{}", server.said))
        .to_owned()
}

/// A public server's limits (the defaults) and a client asking for more than its budget
/// and for answers too large for UDP: every answer all the same, over TCP after UDP.
#[test]
fn resolve_past_the_udp_limits() {
    let dir = TempDir::new("resolve-limited");
    let records = dir.path().join("records.jsonl");
    let lines: Vec<String> = (0..300)
        .map(|i| record(&format!("TEST/{i}"), 1 + i % 40))
        .collect();
    std::fs::write(&records, lines.join("\n") + "\n").unwrap();
    let server = Running::start(
        &dir.path().join("store.redb"),
        &[
            "--records",
            records.to_str().unwrap(),
            "--handle-bind",
            "127.0.0.1:0",
            "--udp-answers-per-second",
            "50",
            "--udp-burst",
            "1",
            "--udp-limit-loopback",
        ],
    );
    let native = protocol_address(&server);
    let input: String = (0..300).map(|i| format!("TEST/{i}\n")).collect();
    let out = hdl(
        &["resolve", "--server", &native, "--json", "--jobs", "32"],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answers: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(answers, lines);
    // Over UDP alone, what is too large is said so.
    let out = hdl(
        &[
            "resolve", "--server", &native, "--udp", "--json", "-i", "TEST/39",
        ],
        b"",
    );
    assert_eq!(
        text(&out.stdout).trim(),
        r#"{"responseCode":2,"handle":"TEST/39","message":"too large for UDP: ask over TCP"}"#
    );
    let (_, said) = server.stop_within(Duration::from_secs(10));
    assert!(
        said.contains("too large for UDP sent to TCP"),
        "the limits are logged: {said}"
    );
}

#[test]
fn resolve_from_hdl_serve() {
    let dir = TempDir::new("resolve");
    let records = dir.path().join("records.jsonl");
    let lines: Vec<String> = (0..300)
        .map(|i| record(&format!("TEST/{i}"), 1 + i % 40))
        .collect();
    std::fs::write(&records, lines.join("\n") + "\n").unwrap();
    let store = dir.path().join("store.redb");
    // No cap on UDP answers, so that UDP alone answers them all (loopback is not held to
    // a network's budget: N14).
    let server = Running::start(
        &store,
        &[
            "--records",
            records.to_str().unwrap(),
            "--handle-bind",
            "127.0.0.1:0",
            "--udp-max-datagrams",
            "0",
        ],
    );
    let native = protocol_address(&server);
    for transport in ["--udp", "--tcp"] {
        // Every record, as the REST API writes it, in input order, 32 in flight.
        let input: String = (0..300).map(|i| format!("TEST/{i}\n")).collect();
        let out = hdl(
            &[
                "resolve", "--server", &native, transport, "--json", "--jobs", "32",
            ],
            input.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let answers: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
        assert_eq!(answers, lines, "{transport}");
    }
    // A type filter, and a handle that is not there: status 1, its code in the JSON.
    let out = hdl(
        &[
            "resolve",
            "--server",
            &native,
            "--json",
            "--type",
            "URL",
            "-i",
            "TEST/7",
            "-i",
            "TEST/none",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let answers: Vec<&str> = stdout.lines().collect();
    assert_eq!(answers[0], record("TEST/7", 1));
    assert_eq!(answers[1], r#"{"responseCode":100,"handle":"TEST/none"}"#);
    // Under --json the records say it all: nothing on standard error.
    assert_eq!(text(&out.stderr), "");
    // The table `hdl record` prints.
    let out = hdl(&["resolve", "--server", &native, "-i", "TEST/1"], b"");
    assert!(text(&out.stdout).starts_with("handle    TEST/1\nresponse  1 (success, HTTP 200)\n"));
    // What `hdl resolve --json` prints, `hdl record` reads.
    let out = hdl(
        &["resolve", "--server", &native, "--json", "-i", "TEST/3"],
        b"",
    );
    let url = hdl(&["record", "--url"], &out.stdout);
    assert_eq!(text(&url.stdout), "https://example.org/TEST/3/1\n");
    // An import while the server runs: the answers kept for what changed are not given
    // again (the protocol's cache of answers follows the store's commits).
    let update = dir.path().join("update.jsonl");
    std::fs::write(&update, format!("{}\n", record("TEST/3", 2))).unwrap();
    let out = hdl(
        &[
            "serve",
            "import",
            "--records",
            update.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for transport in ["--udp", "--tcp"] {
        let out = hdl(
            &[
                "resolve", "--server", &native, transport, "--json", "-i", "TEST/3",
            ],
            b"",
        );
        assert_eq!(
            text(&out.stdout).trim_end(),
            record("TEST/3", 2),
            "{transport}"
        );
    }
    drop(server);
    // A server that is not there: status 2, said, within the timeouts.
    let started = Instant::now();
    refused(
        &[
            "resolve",
            "--server",
            &native,
            "--timeout",
            "1",
            "-i",
            "TEST/1",
        ],
        "TEST/1: ",
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}
