//! `hdl record` and `hdl serve`, run as a user runs them.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{hdl, text};

/// The source document's response for `4263537/4000` (PROXY §4), with a 10320/loc value
/// added as L4's example writes it.
const RECORD: &str = r#"{"responseCode":1,"handle":"4263537/4000","values":[
{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/4263537","index":200,"permissions":"011111111111"}},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"},
{"index":1,"type":"URL","data":{"format":"string","value":"https://www.handle.net/index.html"},"ttl":86400,"timestamp":"2001-11-21T16:21:35Z"},
{"index":2,"type":"EMAIL","data":{"format":"string","value":"hdladmin@cnri.reston.va.us"},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"}]}"#;

const LOC: &str = r#"{"responseCode":1,"handle":"1/2","values":[
{"index":1,"type":"10320/loc","data":{"format":"string","value":"<locations><location id=\"0\" href=\"http://uk/\" country=\"gb\" weight=\"0\"/><location id=\"1\" href=\"http://one/\"/><location id=\"2\" href=\"http://two/\"/></locations>"}}]}"#;

#[test]
fn record() {
    let out = hdl(&["record"], RECORD.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("record_table", text(&out.stdout));
    let out = hdl(
        &["record", "--json", "--type", "URL", "--type", "EMAIL", "-"],
        RECORD.as_bytes(),
    );
    insta::assert_snapshot!("record_json_filtered", text(&out.stdout));
    // The URL the proxy redirects to; none when the filter leaves no URL: status 1.
    let out = hdl(&["record", "--url"], RECORD.as_bytes());
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("https://www.handle.net/index.html\n", Some(0))
    );
    let out = hdl(&["record", "--url", "--type", "EMAIL"], RECORD.as_bytes());
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("", Some(1))
    );
    // 10320/loc: L4's example.
    let url = |args: &[&str]| {
        let out = hdl(&[&["record", "--url"], args].concat(), LOC.as_bytes());
        text(&out.stdout)
    };
    assert_eq!(url(&["--locatt", "id:1"]), "http://one/\n");
    assert_eq!(url(&["--locatt", "id:0"]), "http://uk/\n");
    assert_eq!(url(&["--country", "gb"]), "http://uk/\n");
    for seed in 0..20 {
        let seed = seed.to_string();
        let chosen = url(&["--country", "us", "--seed", &seed]);
        assert!(
            chosen == "http://one/\n" || chosen == "http://two/\n",
            "{chosen}"
        );
        assert_eq!(
            url(&["--country", "us", "--seed", &seed]),
            chosen,
            "a seed repeats"
        );
    }
    // A malformed response: one line on standard error, status 2.
    let out = hdl(
        &["record"],
        br#"{"responseCode":1,"values":[{"index":"1"}]}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "hdl: standard input: values[0].index: expected an integer (SPEC R1, R2)\n"
    );
    let out = hdl(&["record", "no-such-file.json"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("hdl: no-such-file.json: "),
        "{}",
        text(&out.stderr)
    );
}

/// `hdl serve` as a user runs it: records loaded into a new store at first start, a
/// redirect over HTTP, SIGTERM stops it cleanly, a restart reuses the store, `hdl serve
/// import` updates it.
#[cfg(unix)]
#[test]
fn serve_and_import() {
    /// A server the test started: killed if the test fails before it stops it.
    struct Running(std::process::Child);
    impl Drop for Running {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    use std::io::{BufRead, BufReader, Read};
    use std::net::TcpStream;

    let dir = std::env::temp_dir().join(format!("hdl-serve-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("records.jsonl");
    let store = dir.join("store.redb");
    let _ = std::fs::remove_file(&store);
    std::fs::write(&records, format!("{}\n", RECORD.replace('\n', ""))).unwrap();
    let start = |extra: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hdl"))
            .args([
                "serve",
                "--store",
                store.to_str().unwrap(),
                "--bind",
                "127.0.0.1:0",
            ])
            .args(extra)
            .stderr(Stdio::piped())
            .spawn()
            .expect("hdl serve runs");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let child = Running(child);
        let mut said = String::new();
        let addr = loop {
            let mut line = String::new();
            assert!(
                err.read_line(&mut line).unwrap() > 0,
                "hdl serve ended: {said}"
            );
            said.push_str(&line);
            if let Some(addr) = line.trim().strip_prefix("hdl serve: listening on http://") {
                break addr.to_owned();
            }
        };
        (child, err, said, addr)
    };
    let get = |addr: &str, target: &str| {
        let mut s = TcpStream::connect(addr).unwrap();
        write!(
            s,
            "GET {target} HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        answer
    };
    let stop = |mut child: Running, mut err: BufReader<std::process::ChildStderr>| {
        let killed = Command::new("kill")
            .args(["-TERM", &child.0.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let mut rest = String::new();
        err.read_to_string(&mut rest).unwrap();
        (child.0.wait().unwrap(), rest)
    };

    let (child, err, said, addr) = start(&["--records", records.to_str().unwrap(), "--quiet"]);
    assert!(said.contains("1 records imported into"), "{said}");
    let answer = get(&addr, "/4263537/4000");
    assert!(answer.starts_with("HTTP/1.1 302 Found\r\n"), "{answer}");
    assert!(
        answer.contains("location: https://www.handle.net/index.html\r\n"),
        "{answer}"
    );
    let (status, rest) = stop(child, err);
    assert_eq!(status.code(), Some(0), "{rest}");
    assert!(rest.contains("hdl serve: stopped"), "{rest}");

    // Restart: the store is reused, nothing reloaded; an access log line per request.
    let (child, err, said, addr) = start(&[]);
    assert!(said.contains("hdl serve: 1 records in"), "{said}");
    assert!(get(&addr, "/api/handles/4263537/4000").starts_with("HTTP/1.1 200 OK"));
    let (status, rest) = stop(child, err);
    assert_eq!(status.code(), Some(0));
    assert!(
        rest.contains("\"target\":\"/api/handles/4263537/4000\",\"status\":200"),
        "{rest}"
    );

    // Import while the server runs: a new record and a replaced one, answered at once.
    let (child, err, said, addr) = start(&["--quiet"]);
    assert!(said.contains("imports while running through"), "{said}");
    let update = dir.join("update.jsonl");
    std::fs::write(
        &update,
        "{\"responseCode\":1,\"handle\":\"20.1000/new\",\"values\":[]}\n{\"responseCode\":1,\"handle\":\"4263537/4000\",\"values\":[{\"index\":1,\"type\":\"URL\",\"data\":{\"format\":\"string\",\"value\":\"https://moved.example/\"}}]}\n",
    )
    .unwrap();
    let import_into = |records: &std::path::Path, store: &std::path::Path| {
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
    };
    let import = |records: &std::path::Path| import_into(records, &store);
    let out = import(&update);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("2 records into")
            && text(&out.stderr).contains("through its server (2 in all)"),
        "{}",
        text(&out.stderr)
    );
    assert!(get(&addr, "/4263537/4000").contains("location: https://moved.example/\r\n"));
    assert!(get(&addr, "/api/handles/20.1000/new").starts_with("HTTP/1.1 200 OK"));
    // A line that is no record: refused by the server with its line, status 2.
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"responseCode\":1,\"values\":[]}\n").unwrap();
    let out = import(&bad);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("bad.jsonl: line 1: not a record: no handle"),
        "{}",
        text(&out.stderr)
    );
    let (status, _) = stop(child, err);
    assert_eq!(status.code(), Some(0));
    // With the server stopped, into the file directly; the next start serves it.
    std::fs::write(
        &update,
        "{\"responseCode\":1,\"handle\":\"4263537/4000\",\"values\":[{\"index\":1,\"type\":\"URL\",\"data\":{\"format\":\"string\",\"value\":\"https://again.example/\"}}]}\n",
    )
    .unwrap();
    let out = import(&update);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("1 records into") && !text(&out.stderr).contains("through"),
        "{}",
        text(&out.stderr)
    );
    let (child, err, _, addr) = start(&["--quiet"]);
    assert!(get(&addr, "/4263537/4000").contains("location: https://again.example/\r\n"));
    stop(child, err);
    // A crash (SIGKILL: the store left open, unclean): the next start repairs the store and
    // has lost nothing committed.
    let (mut child, _err, _, addr) = start(&["--quiet"]);
    assert!(get(&addr, "/api/handles/20.1000/new").starts_with("HTTP/1.1 200 OK"));
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let (child, err, said, addr) = start(&["--quiet"]);
    assert!(said.contains("hdl serve: 2 records in"), "{said}");
    assert!(get(&addr, "/4263537/4000").contains("location: https://again.example/\r\n"));
    stop(child, err);
    // No store at the path and no records: a clear error, status 2, and no file made.
    let empty = dir.join("empty.redb");
    let _ = std::fs::remove_file(&empty);
    let out = hdl(&["serve", "--store", empty.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("empty.redb: no store there: give --records FILE"),
        "{}",
        text(&out.stderr)
    );
    assert!(!empty.exists());
    // A store that holds no records (an import of nothing made it), without records: the
    // same, said of the store.
    let nothing = dir.join("nothing.jsonl");
    std::fs::write(&nothing, "\n").unwrap();
    let out = import_into(&nothing, &empty);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = hdl(&["serve", "--store", empty.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("holds no records"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
