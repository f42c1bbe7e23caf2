//! `hdl serve` and `hdl serve import` as a user runs them, on what goes wrong: clients that
//! do not read, imports that stop half-way or never end, loads that fail, records too
//! large, a port in use, and what the store file is left as.
#![cfg(unix)]

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use support::{hdl, refused, text, Running, TempDir};

/// `GET target` on a connection of its own: the whole answer (empty when the connection
/// was closed before one: a server at its limit answers 503 and closes without reading).
fn get(addr: &str, target: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = write!(
        s,
        "GET {target} HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n"
    );
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The body of an answer.
fn body(answer: &str) -> &str {
    answer.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

/// A record of `handle` redirecting to `url`.
fn record(handle: &str, url: &str) -> String {
    format!(
        r#"{{"responseCode":1,"handle":"{handle}","values":[{{"index":1,"type":"URL","data":{{"format":"string","value":"{url}"}}}}]}}"#
    )
}

/// A record of `handle` with `n` values.
fn record_of(handle: &str, n: u32) -> String {
    let values: Vec<String> = (1..=n)
        .map(|i| {
            format!(r#"{{"index":{i},"type":"URL","data":{{"format":"string","value":"https://example.org/{i}/{}"}}}}"#, "x".repeat(60))
        })
        .collect();
    format!(
        r#"{{"responseCode":1,"handle":"{handle}","values":[{}]}}"#,
        values.join(",")
    )
}

fn write(path: &Path, lines: impl IntoIterator<Item = String>) {
    let mut text = String::new();
    for line in lines {
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

fn import(records: &Path, store: &Path) -> std::process::Output {
    hdl(
        &[
            "serve",
            "import",
            "--records",
            records.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
        b"",
    )
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Clients that pipeline requests for a large answer and never read hold their connection
/// until the write timeout, no longer: the server's slots come free for others.
#[test]
fn clients_that_never_read_are_dropped_after_the_write_timeout() {
    let dir = TempDir::new("serve-slow-readers");
    let (records, store) = (dir.path().join("r.jsonl"), dir.path().join("s.redb"));
    write(
        &records,
        [
            record("20.1000/small", "https://example.org/"),
            record_of("20.1000/large", 1000),
        ],
    );
    let server = Running::start(
        &store,
        &[
            "--records",
            records.to_str().unwrap(),
            "--max-connections",
            "2",
            "--write-timeout",
            "1",
        ],
    );
    // Two clients ask for the large record 300 times each (40 MB) and read nothing.
    let asks = "GET /api/handles/20.1000/large HTTP/1.1\r\nhost: t\r\n\r\n".repeat(300);
    let hogs: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.write_all(asks.as_bytes()).unwrap();
            s
        })
        .collect();
    // Every slot is held…
    let answer = get(&server.addr, "/20.1000/small");
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 503 "),
        "the slots are held: {answer:?}"
    );
    // …until the write timeout closes them.
    let started = Instant::now();
    loop {
        let answer = get(&server.addr, "/20.1000/small");
        if answer.starts_with("HTTP/1.1 302 ") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "still {answer:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(hogs);
    let (status, _) = server.stop_within(Duration::from_secs(20));
    assert_eq!(status.code(), Some(0));
    // The flag is documented, with its default.
    let help = text(&hdl(&["serve", "--help"], b"").stdout);
    assert!(help.contains("--write-timeout <SECS>"), "{help}");
    assert!(help.contains("[default: 60]"), "{help}");
}

/// SIGTERM while an import client is connected and silent: the server stops at once (the
/// import ends, importing nothing, and the client is told), and a restart opens the store.
#[test]
fn sigterm_ends_a_silent_import() {
    let dir = TempDir::new("serve-silent-import");
    let (records, store) = (dir.path().join("r.jsonl"), dir.path().join("s.redb"));
    write(&records, [record("20.1000/1", "https://example.org/1")]);
    let server = Running::start(&store, &["--records", records.to_str().unwrap()]);
    let socket = handle_serve_socket(&store);
    let mut client = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    // A greeting and part of a chunk, then silence.
    client
        .write_all(b"hdl-import 2 silent\n40\n{\"responseCode\":1,")
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let (status, rest) = server.stop_within(Duration::from_secs(5));
    assert_eq!(status.code(), Some(0), "{rest}");
    assert!(rest.contains("hdl serve: stopped"), "{rest}");
    let mut answer = String::new();
    client
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = client.read_to_string(&mut answer);
    assert!(
        answer.starts_with("{\"error\":\"the server is stopping"),
        "{answer}"
    );
    let server = Running::start(&store, &[]);
    assert!(
        server.said.contains("hdl serve: 1 records in"),
        "{}",
        server.said
    );
    server.stop_within(Duration::from_secs(10));
}

fn handle_serve_socket(store: &Path) -> PathBuf {
    let mut socket = store.as_os_str().to_owned();
    socket.push(".import.sock");
    PathBuf::from(socket)
}

/// A line longer than a record may be is refused when it passes the bound, not read whole;
/// a record of more values than the reference server sends is refused; both with their
/// line, directly and through a running server, and nothing of the import is stored.
#[test]
fn records_too_large_are_refused() {
    let dir = TempDir::new("serve-too-large");
    let store = dir.path().join("s.redb");
    let first = dir.path().join("first.jsonl");
    write(&first, [record("20.1000/first", "https://example.org/")]);
    assert_eq!(import(&first, &store).status.code(), Some(0));
    let long = dir.path().join("long.jsonl");
    write(
        &long,
        [
            record("20.1000/ok", "https://example.org/"),
            record("20.1000/long", &"x".repeat(2 << 20)),
        ],
    );
    let many = dir.path().join("many.jsonl");
    write(
        &many,
        [
            record("20.1000/ok", "https://example.org/"),
            record_of("20.1000/many", 2049),
        ],
    );
    let at_most = dir.path().join("at-most.jsonl");
    write(&at_most, [record_of("20.1000/at-most", 2048)]);
    for through_server in [false, true] {
        let server = through_server.then(|| Running::start(&store, &[]));
        let out = import(&long, &store);
        assert_eq!(out.status.code(), Some(2));
        let said = text(&out.stderr);
        assert!(
            said.contains("long.jsonl: line 2: longer than 1048576 bytes: a record is at most 1 MiB; nothing was imported"),
            "{said}"
        );
        let out = import(&many, &store);
        assert_eq!(out.status.code(), Some(2));
        let said = text(&out.stderr);
        assert!(
            said.contains("many.jsonl: line 2: 2049 values: a record holds at most 2048"),
            "{said}"
        );
        let out = import(&at_most, &store);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        if let Some(server) = server {
            assert!(get(&server.addr, "/api/handles/20.1000/ok").starts_with("HTTP/1.1 404 "));
            assert!(get(&server.addr, "/api/handles/20.1000/at-most").starts_with("HTTP/1.1 200 "));
            server.stop_within(Duration::from_secs(10));
        }
    }
    let server = Running::start(&store, &[]);
    assert!(
        server.said.contains("hdl serve: 2 records in"),
        "{}",
        server.said
    );
}

/// A first load with a bad line past the first ten thousand records leaves no store (and
/// no half-made file); the corrected file then loads whole. An import with a bad line
/// stores nothing of it, directly or through the server, and says so.
#[test]
fn a_load_is_all_or_nothing() {
    let dir = TempDir::new("serve-all-or-nothing");
    let (records, store) = (dir.path().join("r.jsonl"), dir.path().join("s.redb"));
    let lines = |bad: Option<usize>| {
        (0..12_000).map(move |i| {
            if Some(i) == bad {
                "{\"responseCode\":1,\"values\":[]}".to_owned()
            } else {
                record(&format!("20.1000/{i}"), &format!("https://example.org/{i}"))
            }
        })
    };
    write(&records, lines(Some(11_000)));
    let out = hdl(
        &[
            "serve",
            "--records",
            records.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
            "--bind",
            "127.0.0.1:0",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stderr);
    assert!(
        said.contains(
            "r.jsonl: line 11001: not a record: no handle (SPEC R1); nothing was imported"
        ),
        "{said}"
    );
    assert!(!store.exists(), "a store was left");
    let loading = PathBuf::from(format!("{}.loading", store.display()));
    assert!(!loading.exists(), "a half-made store was left");
    write(&records, lines(None));
    let server = Running::start(&store, &["--records", records.to_str().unwrap()]);
    assert!(
        server
            .said
            .contains("hdl serve: 12000 records imported into"),
        "{}",
        server.said
    );
    assert_eq!(mode(&store), 0o600, "the store is its owner's only");
    assert_eq!(mode(&handle_serve_socket(&store)), 0o600);

    // An update with a bad line, through the server: nothing of it.
    let update = dir.path().join("update.jsonl");
    write(
        &update,
        (0..12_000).map(|i| {
            if i == 11_500 {
                "not a record".to_owned()
            } else {
                record(&format!("20.1000/{i}"), "https://moved.example/")
            }
        }),
    );
    let out = import(&update, &store);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stderr);
    assert!(
        said.contains("update.jsonl: line 11501, column 2: not JSON")
            && said.contains("nothing was imported"),
        "{said}"
    );
    assert!(get(&server.addr, "/20.1000/3").contains("location: https://example.org/3\r\n"));
    server.stop_within(Duration::from_secs(10));
    // The same, into the file directly.
    let out = import(&update, &store);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nothing was imported"));
    let server = Running::start(&store, &[]);
    assert!(
        server.said.contains("hdl serve: 12000 records in"),
        "{}",
        server.said
    );
    assert!(get(&server.addr, "/20.1000/3").contains("location: https://example.org/3\r\n"));
    server.stop_within(Duration::from_secs(10));
    // A store `hdl serve import` makes is its owner's only too.
    let made = dir.path().join("made.redb");
    assert_eq!(import(&records, &made).status.code(), Some(0));
    assert_eq!(mode(&made), 0o600);
}

/// The address is bound before anything is imported: in use, the start fails at once and
/// leaves no store.
#[test]
fn a_port_in_use_leaves_no_store() {
    let dir = TempDir::new("serve-port-in-use");
    let (records, store) = (dir.path().join("r.jsonl"), dir.path().join("s.redb"));
    write(&records, [record("20.1000/1", "https://example.org/1")]);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = hdl(
        &[
            "serve",
            "--records",
            records.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
            "--bind",
            &addr,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stderr);
    assert!(said.starts_with(&format!("hdl: {addr}: ")), "{said}");
    assert!(!said.contains("imported"), "{said}");
    assert!(!store.exists());
    assert!(!PathBuf::from(format!("{}.loading", store.display())).exists());
}

/// `--max-connections 0` would answer every request 503: refused at start.
#[test]
fn no_connections_at_all_is_refused() {
    refused(
        &["serve", "--max-connections", "0", "--store", "none.redb"],
        "invalid value '0' for '--max-connections <N>': must be at least 1",
    );
    refused(
        &[
            "serve",
            "--max-connections-per-client",
            "0",
            "--store",
            "none.redb",
        ],
        "'--max-connections-per-client <N>': must be at least 1",
    );
}

/// A success that lists no values: the server answers what `hdl record --json` prints
/// (code 200, as the reference server answers a handle without values), byte for byte.
#[test]
fn the_rest_api_agrees_with_hdl_record() {
    let dir = TempDir::new("serve-agrees");
    let (records, store) = (dir.path().join("r.jsonl"), dir.path().join("s.redb"));
    let empty = r#"{"responseCode":1,"handle":"20.1000/empty","values":[]}"#;
    let plain = record("20.1000/plain", "https://example.org/");
    write(&records, [empty.to_owned(), plain.clone()]);
    let server = Running::start(&store, &["--records", records.to_str().unwrap()]);
    for (handle, line) in [("20.1000/empty", empty), ("20.1000/plain", &plain)] {
        let printed = text(&hdl(&["record", "--json"], line.as_bytes()).stdout);
        let answer = get(&server.addr, &format!("/api/handles/{handle}"));
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
        assert_eq!(body(&answer), printed, "{handle}");
    }
    assert!(body(&get(&server.addr, "/api/handles/20.1000/empty"))
        .starts_with("{\"responseCode\":200,"));
    server.stop_within(Duration::from_secs(10));
}

/// A `10320/loc` value that does not read: the import warns, with its line, and the handle
/// redirects to its URL value.
#[test]
fn an_unreadable_location_value_is_warned_of() {
    let dir = TempDir::new("serve-bad-loc");
    let (records, store) = (dir.path().join("r.jsonl"), dir.path().join("s.redb"));
    let bad = r#"{"responseCode":1,"handle":"20.1000/bad-loc","values":[{"index":1,"type":"10320/loc","data":{"format":"string","value":"<locations"}},{"index":2,"type":"URL","data":{"format":"string","value":"https://fallback.example/"}}]}"#;
    write(
        &records,
        [record("20.1000/1", "https://example.org/1"), bad.to_owned()],
    );
    let warning = "hdl serve: warning: ";
    let said_of = |line: &str| {
        format!("r.jsonl: line {line}: values[0] (10320/loc, index 1) does not read, and redirects pass it over: end of the value: the value ends inside a tag")
    };
    let server = Running::start(&store, &["--records", records.to_str().unwrap()]);
    assert!(
        server.said.contains(warning) && server.said.contains(&said_of("2")),
        "{}",
        server.said
    );
    assert!(
        get(&server.addr, "/20.1000/bad-loc").contains("location: https://fallback.example/\r\n")
    );
    // Through the server, the same warning.
    let out = import(&records, &store);
    assert_eq!(out.status.code(), Some(0));
    let said = text(&out.stderr);
    assert!(
        said.contains(warning) && said.contains(&said_of("2")),
        "{said}"
    );
    server.stop_within(Duration::from_secs(10));
}

/// The source document's response for `4263537/4000` (PROXY §4), with a 10320/loc value
/// added as L4's example writes it.
const SERVED_RECORD: &str = r#"{"responseCode":1,"handle":"4263537/4000","values":[
{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/4263537","index":200,"permissions":"011111111111"}},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"},
{"index":1,"type":"URL","data":{"format":"string","value":"https://www.handle.net/index.html"},"ttl":86400,"timestamp":"2001-11-21T16:21:35Z"},
{"index":2,"type":"EMAIL","data":{"format":"string","value":"hdladmin@cnri.reston.va.us"},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"}]}"#;

/// `hdl serve` as a user runs it: records loaded into a new store at first start, a
/// redirect over HTTP, SIGTERM stops it cleanly, a restart reuses the store, `hdl serve
/// import` updates it.
#[cfg(unix)]
#[test]
fn serve_and_import() {
    let dir = TempDir::new("serve-and-import");
    let records = dir.path().join("records.jsonl");
    let store = dir.path().join("store.redb");
    std::fs::write(&records, format!("{}\n", SERVED_RECORD.replace('\n', ""))).unwrap();
    let stop = |server: Running| server.stop_within(Duration::from_secs(20));

    let server = Running::start(&store, &["--records", records.to_str().unwrap()]);
    assert!(
        server.said.contains("1 records imported into"),
        "{}",
        server.said
    );
    let answer = get(&server.addr, "/4263537/4000");
    assert!(answer.starts_with("HTTP/1.1 302 Found\r\n"), "{answer}");
    assert!(
        answer.contains("location: https://www.handle.net/index.html\r\n"),
        "{answer}"
    );
    let (status, rest) = stop(server);
    assert_eq!(status.code(), Some(0), "{rest}");
    assert!(rest.contains("hdl serve: stopped"), "{rest}");

    // Restart: the store is reused, nothing reloaded; an access log line per request.
    let server = Running::start_logged(&store, &[]);
    assert!(
        server.said.contains("hdl serve: 1 records in"),
        "{}",
        server.said
    );
    assert!(get(&server.addr, "/api/handles/4263537/4000").starts_with("HTTP/1.1 200 OK"));
    let (status, rest) = stop(server);
    assert_eq!(status.code(), Some(0));
    assert!(
        rest.contains("\"target\":\"/api/handles/4263537/4000\",\"status\":200"),
        "{rest}"
    );

    // Import while the server runs: a new record and a replaced one, answered at once.
    let server = Running::start(&store, &[]);
    assert!(
        server.said.contains("imports while running through"),
        "{}",
        server.said
    );
    let update = dir.path().join("update.jsonl");
    std::fs::write(
        &update,
        "{\"responseCode\":1,\"handle\":\"20.1000/new\",\"values\":[]}\n{\"responseCode\":1,\"handle\":\"4263537/4000\",\"values\":[{\"index\":1,\"type\":\"URL\",\"data\":{\"format\":\"string\",\"value\":\"https://moved.example/\"}}]}\n",
    )
    .unwrap();
    let out = import(&update, &store);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("2 records into")
            && text(&out.stderr).contains("through its server (2 in all)"),
        "{}",
        text(&out.stderr)
    );
    assert!(get(&server.addr, "/4263537/4000").contains("location: https://moved.example/\r\n"));
    assert!(get(&server.addr, "/api/handles/20.1000/new").starts_with("HTTP/1.1 200 OK"));
    // A line that is no record: refused by the server with its line, status 2.
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"responseCode\":1,\"values\":[]}\n").unwrap();
    let out = import(&bad, &store);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("bad.jsonl: line 1: not a record: no handle"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(stop(server).0.code(), Some(0));
    // With the server stopped, into the file directly; the next start serves it.
    std::fs::write(
        &update,
        "{\"responseCode\":1,\"handle\":\"4263537/4000\",\"values\":[{\"index\":1,\"type\":\"URL\",\"data\":{\"format\":\"string\",\"value\":\"https://again.example/\"}}]}\n",
    )
    .unwrap();
    let out = import(&update, &store);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("1 records into") && !text(&out.stderr).contains("through"),
        "{}",
        text(&out.stderr)
    );
    let server = Running::start(&store, &[]);
    assert!(get(&server.addr, "/4263537/4000").contains("location: https://again.example/\r\n"));
    stop(server);
    // A crash (SIGKILL: the store left open, unclean): the next start repairs the store and
    // has lost nothing committed.
    let mut server = Running::start(&store, &[]);
    assert!(get(&server.addr, "/api/handles/20.1000/new").starts_with("HTTP/1.1 200 OK"));
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let server = Running::start(&store, &[]);
    assert!(
        server.said.contains("hdl serve: 2 records in"),
        "{}",
        server.said
    );
    assert!(get(&server.addr, "/4263537/4000").contains("location: https://again.example/\r\n"));
    stop(server);
    // No store at the path and no records: a clear error, status 2, and no file made.
    let empty = dir.path().join("empty.redb");
    refused(
        &["serve", "--store", empty.to_str().unwrap()],
        "empty.redb: no store there: give --records FILE",
    );
    assert!(!empty.exists());
    // A store that holds no records (an import of nothing made it), without records: the
    // same, said of the store.
    let nothing = dir.path().join("nothing.jsonl");
    std::fs::write(&nothing, "\n").unwrap();
    let out = import(&nothing, &empty);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    refused(
        &["serve", "--store", empty.to_str().unwrap()],
        "holds no records",
    );
}

#[test]
fn an_upstream_root_that_does_not_read_is_said_before_a_store_is_made() {
    let dir = TempDir::new("serve-root-info");
    let store = dir.path().join("s.redb");
    let (bad, missing) = (dir.path().join("bad"), dir.path().join("missing"));
    std::fs::write(&bad, b"\x00\x00\x00\x08not root").unwrap();
    let store_arg = store.to_str().unwrap();
    for (root, said) in [
        (&bad, "the root info does not read"),
        (&missing, "missing: "),
    ] {
        let args = ["serve", "--upstream", "--root-info", root.to_str().unwrap()];
        refused(
            &[&args[..], &["--store", store_arg, "--bind", "127.0.0.1:0"]].concat(),
            said,
        );
        assert!(!store.exists());
    }
    // One server or a root, not both.
    refused(
        &[
            "serve",
            "--upstream",
            "--server",
            "127.0.0.1:1",
            "--root-info",
            "x",
        ],
        "cannot be used with",
    );
}
