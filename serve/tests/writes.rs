//! Writes through the REST API end to end (SPEC W1–W8): `hdl serve` on a loopback port,
//! spoken to over HTTP, one test for each row of who may do what.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use handle_id::HandleRef;
use handle_serve::{Config, Store};

const PREFIX_PW: &str = "prefix-pw";

/// The records every test starts from: the prefix's handle with its admin (300, a key)
/// and a group (200); a handle of users, each a key; groups; and `20.5000/t`, the handle
/// the rows write to, whose one admin value gives `20.5000/users:7` the permissions of
/// the row (and the group `20.5000/group:200` the same).
fn records(perms: &str) -> String {
    let admin = |index: u32, handle: &str, at: u32, perms: &str| {
        format!(
            r#"{{"index":{index},"type":"HS_ADMIN","data":{{"format":"admin","value":{{"handle":"{handle}","index":{at},"permissions":"{perms}"}}}}}}"#
        )
    };
    let seckey = |index: u32, key: &str| {
        format!(
            r#"{{"index":{index},"type":"HS_SECKEY","data":{{"format":"string","value":"{key}"}},"permissions":"1100"}}"#
        )
    };
    let vlist = |index: u32, members: &[(&str, u32)]| {
        let m: Vec<String> = members
            .iter()
            .map(|(h, i)| format!(r#"{{"handle":"{h}","index":{i}}}"#))
            .collect();
        format!(
            r#"{{"index":{index},"type":"HS_VLIST","data":{{"format":"vlist","value":[{}]}}}}"#,
            m.join(",")
        )
    };
    let pubkey = |index: u32, key: &[u8]| {
        format!(
            r#"{{"index":{index},"type":"HS_PUBKEY","data":{{"format":"base64","value":"{}"}}}}"#,
            handle_id::record::base64(key)
        )
    };
    let url =
        r#"{"index":1,"type":"URL","data":{"format":"string","value":"https://example.org/t"}}"#;
    let record = |h: &str, values: &[String]| {
        format!(
            r#"{{"responseCode":1,"handle":"{h}","values":[{}]}}"#,
            values.join(",")
        )
    };
    [
        record(
            "0.NA/20.5000",
            &[
                admin(100, "0.NA/20.5000", 300, "111111111111"),
                seckey(300, PREFIX_PW),
            ],
        ),
        record(
            "20.5000/users",
            &[
                admin(100, "0.NA/20.5000", 300, "111111111111"),
                seckey(7, "pw7"),
                seckey(8, "pw8"),
                seckey(9, "pw9"),
                seckey(99, "pw99"),
            ],
        ),
        // Group 200 holds user 8; group2's 201 holds group 200 (user 9 through it is not
        // a member: only 8 is); group3 holds user 9 through two levels; a loop.
        record(
            "20.5000/group",
            &[vlist(200, &[("20.5000/users", 8), ("20.5000/keys", 300)])],
        ),
        // Public keys: 300 is a member of the group above (so an admin of `20.5000/t`),
        // 301 is in no admin value, and not public (it authenticates all the same, as the
        // reference lets a key that is not public authenticate).
        record(
            "20.5000/keys",
            &[
                pubkey(300, &keys().0.public_key()),
                pubkey(301, &keys().1.public_key()).replacen(
                    r#""type""#,
                    r#""permissions":"1100","type""#,
                    1,
                ),
            ],
        ),
        record("20.5000/group2", &[vlist(201, &[("20.5000/group3", 202)])]),
        record(
            "20.5000/group3",
            &[vlist(202, &[("20.5000/loop", 203), ("20.5000/users", 9)])],
        ),
        record("20.5000/loop", &[vlist(203, &[("20.5000/group3", 202)])]),
        record(
            "20.5000/t",
            &[
                admin(100, "20.5000/users", 7, perms),
                admin(101, "20.5000/group", 200, perms),
                admin(102, "20.5000/group2", 201, perms),
                url.to_owned(),
            ],
        ),
    ]
    .join("\n")
}

struct Server {
    addr: SocketAddr,
    store: Arc<Store>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start(perms: &str) -> Self {
        Self::start_with(perms, None)
    }

    fn start_with(perms: &str, tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.redb")).unwrap();
        store.import(records(perms).as_bytes(), "records").unwrap();
        let store = Arc::new(store);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (tx, rx) = std::sync::mpsc::channel();
        let shared = store.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                let config = Config {
                    access_log: false,
                    tls,
                    ..Config::default()
                };
                handle_serve::serve(shared, listener, config, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            });
        });
        Self {
            addr: rx.recv().unwrap(),
            store,
            stop: Some(stop),
            thread: Some(thread),
            _dir: dir,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
            let _ = self.thread.take().unwrap().join();
        }
    }
}

#[derive(Debug)]
struct Answer {
    status: u16,
    /// Lowercased, to look for in any case.
    headers: String,
    /// As sent.
    head: String,
    body: serde_json::Value,
}

impl Answer {
    fn code(&self) -> u64 {
        self.body["responseCode"].as_u64().unwrap_or(0)
    }
}

fn base64(s: &str) -> String {
    handle_id::record::base64(s.as_bytes())
}

/// The `Authorization` header of `index:handle` (URL-encoded, as PYHANDLE sends it) and
/// `password`.
fn basic(index: u32, handle: &str, password: &str) -> String {
    let user = format!("{index}:{handle}")
        .replace(':', "%3A")
        .replace('/', "%2F");
    format!(
        "authorization: Basic {}\r\n",
        base64(&format!("{user}:{password}"))
    )
}

/// [`request`], whose answer must have `status` and response code `code`: the answer.
#[track_caller]
fn answered(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &str,
    body: &str,
    (status, code): (u16, u64),
) -> Answer {
    let a = request(addr, method, target, headers, body);
    assert_eq!((a.status, a.code()), (status, code), "{a:?}");
    a
}

fn request(addr: SocketAddr, method: &str, target: &str, headers: &str, body: &str) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nhost: test\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{headers}\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    // A server that refuses the body answers before taking it all: the write may fail.
    let _ = s.write_all(body.as_bytes());
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Answer {
        status: head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        headers: head.to_ascii_lowercase(),
        head: head.to_owned(),
        body: serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
    }
}

const USER7: (u32, &str, &str) = (7, "20.5000/users", "pw7");

fn as_user((i, h, pw): (u32, &str, &str)) -> String {
    basic(i, h, pw)
}

/// The values of `handle` through the REST API: (index, type, data value) each.
fn values(addr: SocketAddr, handle: &str) -> Vec<(u64, String, String)> {
    let a = request(addr, "GET", &format!("/api/handles/{handle}"), "", "");
    a.body["values"]
        .as_array()
        .map(|vs| {
            vs.iter()
                .map(|v| {
                    (
                        v["index"].as_u64().unwrap(),
                        v["type"].as_str().unwrap().to_owned(),
                        v["data"]["value"].to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

const NEW_URL: &str = r#"{"values":[{"index":1,"type":"URL","data":{"format":"string","value":"https://example.org/new"}}]}"#;
const ADD_EMAIL: &str =
    r#"[{"index":2,"type":"EMAIL","data":{"format":"string","value":"a@example.org"}}]"#;
const ADD_ADMIN: &str = r#"[{"index":110,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"20.5000/users","index":99,"permissions":"011111111111"}}}]"#;
const MOD_ADMIN: &str = r#"[{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"20.5000/users","index":7,"permissions":"000000000001"}}}]"#;
const MOD_URL: &str = r#"[{"index":1,"type":"URL","data":{"format":"string","value":"https://example.org/changed"}}]"#;

/// One row: user 7 holds `perms` on `20.5000/t`; the request is answered `status` with
/// `code`, and a refusal changes nothing.
fn row(perms: &str, method: &str, target: &str, body: &str, status: u16, code: u64) {
    let s = Server::start(perms);
    let before = values(s.addr, "20.5000/t");
    let a = request(s.addr, method, target, &as_user(USER7), body);
    assert_eq!(
        (a.status, a.code()),
        (status, code),
        "{perms} {method} {target}: {a:?}"
    );
    assert!(
        a.headers.contains("content-type: application/json"),
        "{a:?}"
    );
    if status >= 400 {
        assert_eq!(
            values(s.addr, "20.5000/t"),
            before,
            "a refused write changed the record"
        );
    } else {
        assert_ne!(
            values(s.addr, "20.5000/t"),
            before,
            "{method} {target} changed nothing"
        );
    }
}

// Each permission bit, with the operation it allows and one it does not.
const ADD_VALUE_BIT: &str = "000001000000";
const MODIFY_VALUE_BIT: &str = "000000010000";
const REMOVE_VALUE_BIT: &str = "000000100000";
const ADD_ADMIN_BIT: &str = "001000000000";
const MODIFY_ADMIN_BIT: &str = "000010000000";
const REMOVE_ADMIN_BIT: &str = "000100000000";
const DELETE_HANDLE_BIT: &str = "000000000010";

#[test]
fn add_value_is_allowed_by_add_value() {
    row(
        ADD_VALUE_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        ADD_EMAIL,
        201,
        1,
    );
}

#[test]
fn add_value_is_refused_without_add_value() {
    row(
        MODIFY_VALUE_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        ADD_EMAIL,
        403,
        400,
    );
}

#[test]
fn modify_value_is_allowed_by_modify_value() {
    row(
        MODIFY_VALUE_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=1",
        MOD_URL,
        200,
        1,
    );
}

#[test]
fn modify_value_is_refused_with_add_value_only() {
    row(
        ADD_VALUE_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=1",
        MOD_URL,
        403,
        400,
    );
}

#[test]
fn overwrite_false_refuses_an_index_in_use() {
    row(
        MODIFY_VALUE_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=1&overwrite=false",
        MOD_URL,
        409,
        201,
    );
}

#[test]
fn remove_value_is_allowed_by_remove_value() {
    row(
        REMOVE_VALUE_BIT,
        "DELETE",
        "/api/handles/20.5000/t?index=1",
        "",
        200,
        1,
    );
}

#[test]
fn remove_value_is_refused_without_remove_value() {
    row(
        ADD_VALUE_BIT,
        "DELETE",
        "/api/handles/20.5000/t?index=1",
        "",
        403,
        400,
    );
}

#[test]
fn removing_a_value_not_there_is_code_200() {
    row(
        REMOVE_VALUE_BIT,
        "DELETE",
        "/api/handles/20.5000/t?index=55",
        "",
        400,
        200,
    );
}

#[test]
fn add_admin_is_allowed_by_add_admin() {
    row(
        ADD_ADMIN_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=110",
        ADD_ADMIN,
        201,
        1,
    );
}

#[test]
fn add_admin_is_refused_with_add_value_only() {
    row(
        ADD_VALUE_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=110",
        ADD_ADMIN,
        403,
        400,
    );
}

#[test]
fn modify_admin_is_allowed_by_modify_admin() {
    row(
        MODIFY_ADMIN_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=100",
        MOD_ADMIN,
        200,
        1,
    );
}

#[test]
fn modify_admin_is_refused_with_modify_value_only() {
    row(
        MODIFY_VALUE_BIT,
        "PUT",
        "/api/handles/20.5000/t?index=100",
        MOD_ADMIN,
        403,
        400,
    );
}

#[test]
fn remove_admin_is_allowed_by_remove_admin() {
    row(
        REMOVE_ADMIN_BIT,
        "DELETE",
        "/api/handles/20.5000/t?index=101",
        "",
        200,
        1,
    );
}

#[test]
fn remove_admin_is_refused_with_remove_value_only() {
    row(
        REMOVE_VALUE_BIT,
        "DELETE",
        "/api/handles/20.5000/t?index=101",
        "",
        403,
        400,
    );
}

#[test]
fn delete_handle_is_allowed_by_delete_handle() {
    let s = Server::start(DELETE_HANDLE_BIT);
    let a = answered(
        s.addr,
        "DELETE",
        "/api/handles/20.5000/t",
        &as_user(USER7),
        "",
        (200, 1),
    );
    assert_eq!(a.body["handle"], "20.5000/t");
    let gone = request(s.addr, "GET", "/api/handles/20.5000/t", "", "");
    assert_eq!((gone.status, gone.code()), (404, 100));
    // Seen at once by every reader of the store (the protocol server's too).
    assert!(s
        .store
        .get(HandleRef::parse("20.5000/t").unwrap())
        .unwrap()
        .is_none());
}

#[test]
fn delete_handle_is_refused_with_every_value_permission() {
    row(
        "111111111101",
        "DELETE",
        "/api/handles/20.5000/t",
        "",
        403,
        400,
    );
}

#[test]
fn replacing_a_handle_needs_the_permissions_of_its_changes() {
    // Replacing values and dropping the admin values needs remove-admin too.
    row(
        MODIFY_VALUE_BIT,
        "PUT",
        "/api/handles/20.5000/t",
        NEW_URL,
        403,
        400,
    );
    // Add-admin alone allows any replacement, as the reference allows it.
    row(
        ADD_ADMIN_BIT,
        "PUT",
        "/api/handles/20.5000/t",
        NEW_URL,
        200,
        1,
    );
}

#[test]
fn a_group_member_may_do_what_the_group_may() {
    let s = Server::start(ADD_VALUE_BIT);
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &basic(8, "20.5000/users", "pw8"),
        ADD_EMAIL,
        (201, 1),
    );
    assert_eq!(values(s.addr, "20.5000/t").len(), 5);
}

#[test]
fn a_member_of_a_group_in_a_group_may_too_and_loops_end() {
    let s = Server::start(ADD_VALUE_BIT);
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &basic(9, "20.5000/users", "pw9"),
        ADD_EMAIL,
        (201, 1),
    );
}

#[test]
fn a_key_not_in_hs_admin_is_refused() {
    let s = Server::start("111111111111");
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &basic(99, "20.5000/users", "pw99"),
        ADD_EMAIL,
        (403, 400),
    );
}

#[test]
fn a_wrong_password_is_refused_before_anything_is_read() {
    let s = Server::start("111111111111");
    let a = answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &basic(7, "20.5000/users", "pw8"),
        ADD_EMAIL,
        (401, 403),
    );
    assert!(
        a.headers
            .contains("www-authenticate: basic realm=\"handle\""),
        "{a:?}"
    );
    // Another user's index with this user's key: not this identity either.
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &basic(8, "20.5000/users", "pw7"),
        ADD_EMAIL,
        (401, 403),
    );
}

#[test]
fn no_credentials_is_authentication_needed() {
    let s = Server::start("111111111111");
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        "",
        ADD_EMAIL,
        (401, 402),
    );
    answered(
        s.addr,
        "DELETE",
        "/api/handles/20.5000/t",
        "",
        "",
        (401, 402),
    );
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        "authorization: Handle sessionId=\"x\"\r\n",
        ADD_EMAIL,
        (401, 403),
    );
}

fn prefix_admin() -> String {
    basic(300, "0.NA/20.5000", PREFIX_PW)
}

const CREATE: &str = r#"{"handle":"20.5000/new","values":[{"index":1,"type":"URL","data":{"format":"string","value":"https://example.org/new"}},{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/20.5000","index":300,"permissions":"011111110011"}}}]}"#;

#[test]
fn a_prefix_admin_creates_a_handle_under_the_prefix() {
    let s = Server::start("000000000000");
    let a = answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/new",
        &prefix_admin(),
        CREATE,
        (201, 1),
    );
    assert_eq!(a.body["handle"], "20.5000/new");
    let got = request(s.addr, "GET", "/api/handles/20.5000/new", "", "");
    assert_eq!(got.status, 200);
    assert_eq!(
        got.body["values"][0]["data"]["value"],
        "https://example.org/new"
    );
    // Stamped when written.
    assert!(
        got.body["values"][0]["timestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "{got:?}"
    );
    // And redirected to at once.
    let r = request(s.addr, "GET", "/20.5000/new", "", "");
    assert_eq!(r.status, 302);
    assert!(
        r.headers.contains("location: https://example.org/new"),
        "{r:?}"
    );
    // Again, with overwrite=false: it exists.
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/new?overwrite=false",
        &prefix_admin(),
        CREATE,
        (409, 101),
    );
    // Again, replacing: the handle's own admin (the prefix admin) may; 200, not 201.
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/new",
        &prefix_admin(),
        CREATE,
        (200, 1),
    );
}

#[test]
fn only_a_prefix_admin_creates_handles() {
    let s = Server::start("111111111111");
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/new",
        &as_user(USER7),
        CREATE,
        (403, 400),
    );
    // A prefix this server does not hold: not responsible.
    let other = CREATE.replace("20.5000/new", "20.6000/new");
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.6000/new",
        &prefix_admin(),
        &other,
        (400, 301),
    );
    // A derived prefix needs add-derived-prefix, which the prefix admin has.
    answered(
        s.addr,
        "PUT",
        "/api/handles/0.NA/20.5000.1",
        &prefix_admin(),
        "[]",
        (201, 1),
    );
}

#[test]
fn mint_new_suffix_makes_a_new_handle() {
    let s = Server::start("000000000000");
    let body = CREATE.replace(r#""handle":"20.5000/new","#, "");
    let a = answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/?mintNewSuffix=true",
        &prefix_admin(),
        &body,
        (201, 1),
    );
    let minted = a.body["handle"].as_str().unwrap().to_owned();
    assert!(
        minted.starts_with("20.5000/") && minted.len() == 8 + 36,
        "{minted}"
    );
    assert_eq!(values(s.addr, &minted).len(), 2);
}

#[test]
fn bad_requests_are_answered_in_json() {
    let s = Server::start("111111111111");
    let cases: &[(&str, &str, &str, u16, u64)] = &[
        ("PUT", "/api/handles/20.5000/t", "{", 400, 4),
        ("PUT", "/api/handles/20.5000/t", r#"{"x":1}"#, 400, 4),
        (
            "PUT",
            "/api/handles/20.5000/t",
            r#"{"handle":"20.5000/other","values":[]}"#,
            400,
            4,
        ),
        ("PUT", "/api/handles/20.5000/t?index=3", ADD_EMAIL, 400, 4),
        ("PUT", "/api/handles/20.5000/t?index=x", ADD_EMAIL, 400, 4),
        (
            "PUT",
            "/api/handles/20.5000/t",
            r#"[{"index":0,"type":"URL","data":"x"}]"#,
            400,
            202,
        ),
        (
            "PUT",
            "/api/handles/20.5000/t",
            r#"[{"index":1,"type":"URL","data":"x"},{"index":1,"type":"URL","data":"y"}]"#,
            409,
            201,
        ),
        ("PUT", "/api/handles/", "[]", 400, 102),
        ("PUT", "/api/handles/20.5000/%FF", "[]", 400, 102),
        ("DELETE", "/api/handles/20.5000/none", "", 404, 100),
        ("PATCH", "/api/handles/20.5000/t", "", 501, 4),
        ("TRACE", "/api/handles/20.5000/t", "", 405, 4),
        ("BREW", "/api/handles/20.5000/t", "", 501, 4),
    ];
    for &(method, target, body, status, code) in cases {
        let a = request(s.addr, method, target, &as_user(USER7), body);
        assert_eq!(
            (a.status, a.code()),
            (status, code),
            "{method} {target} {body}: {a:?}"
        );
        assert!(a.body["message"].is_string() || code == 100, "{a:?}");
        // A request the reference cannot read is answered without the handle (W7).
        assert_eq!(
            a.body["handle"].is_string(),
            ![4, 102].contains(&code),
            "{a:?}"
        );
    }
    // Not JSON: refused before the body is read as values.
    let mut s2 = TcpStream::connect(s.addr).unwrap();
    s2.write_all(b"PUT /api/handles/20.5000/t HTTP/1.1\r\nhost: t\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\n[]").unwrap();
    let mut raw = String::new();
    let _ = s2.read_to_string(&mut raw);
    assert!(raw.starts_with("HTTP/1.1 400"), "{raw}");
    assert!(raw.contains("Unsupported media type text/plain"), "{raw}");
    let o = request(s.addr, "OPTIONS", "/api/handles/20.5000/t", "", "");
    assert_eq!(o.status, 200);
    assert!(
        o.headers
            .contains("allow: get, head, post, put, delete, options"),
        "{o:?}"
    );
}

#[test]
fn a_body_past_the_bound_is_not_read() {
    let s = Server::start("111111111111");
    let big = "x".repeat(handle_serve::writes::MAX_BODY + 1);
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t",
        &as_user(USER7),
        &big,
        (413, 4),
    );
}

#[test]
fn imports_and_writes_keep_each_others_changes() {
    let s = Server::start(ADD_VALUE_BIT);
    let a = request(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &as_user(USER7),
        ADD_EMAIL,
    );
    assert_eq!(a.status, 201, "{a:?}");
    s.store
        .import(
            &br#"{"responseCode":1,"handle":"20.5000/imported","values":[]}"#[..],
            "later",
        )
        .unwrap();
    assert_eq!(values(s.addr, "20.5000/t").len(), 5);
    let i = request(s.addr, "GET", "/api/handles/20.5000/imported", "", "");
    assert_eq!(i.status, 200);
}

/// The keys writes are authenticated with are not public (`permissions` `1100`): the REST
/// API and the values page leave them out, as the reference leaves them out of an
/// answer to anyone (SPEC W3); the other values are there.
#[test]
fn secret_keys_are_not_served() {
    let s = Server::start("111111111111");
    let users = values(s.addr, "20.5000/users");
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0].1, "HS_ADMIN");
    let page = request(s.addr, "GET", "/20.5000/users?noredirect", "", "");
    assert_eq!(page.status, 200);
    let only = request(s.addr, "GET", "/api/handles/20.5000/users?index=7", "", "");
    assert_eq!((only.status, only.code()), (200, 200), "{only:?}");
    assert!(s
        .store
        .get(HandleRef::parse("20.5000/users").unwrap())
        .unwrap()
        .unwrap()
        .values()
        .iter()
        .all(|v| v.value_type() != "HS_SECKEY"));
}

/// `--tls-cert`/`--tls-key` (SPEC W4): writes over HTTPS with the server's certificate
/// trusted, and nothing answered to plain HTTP on that port.
#[test]
fn writes_over_tls() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_rustls::rustls;
    let dir = tempfile::tempdir().unwrap();
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.key_pair.serialize_pem()).unwrap();
    // The key of another certificate is said, with both files.
    let other = rcgen::generate_simple_self_signed(vec!["x".to_owned()]).unwrap();
    let other_key = dir.path().join("other.pem");
    std::fs::write(&other_key, other.key_pair.serialize_pem()).unwrap();
    let e = handle_serve::tls::config(&cert, &other_key).unwrap_err();
    assert!(e.contains("--tls-cert") && e.contains("other.pem"), "{e}");
    let e = handle_serve::tls::config(&key, &key).unwrap_err();
    assert!(e.contains("no PEM certificate"), "{e}");

    let s = Server::start_with(
        ADD_VALUE_BIT,
        Some(handle_serve::tls::config(&cert, &key).unwrap()),
    );
    let mut roots = rustls::RootCertStore::empty();
    roots.add(made.cert.der().clone()).unwrap();
    let client = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(client));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (head, body) = rt.block_on(async {
        let tcp = tokio::net::TcpStream::connect(s.addr).await.unwrap();
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        let mut tls = connector.connect(name, tcp).await.unwrap();
        let request = format!(
            "PUT /api/handles/20.5000/t?index=2 HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{}\r\n{ADD_EMAIL}",
            ADD_EMAIL.len(),
            as_user(USER7)
        );
        tls.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let _ = tls.read_to_end(&mut raw).await;
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (h, b) = text.split_once("\r\n\r\n").unwrap();
        (h.to_owned(), b.to_owned())
    });
    assert!(head.starts_with("HTTP/1.1 201"), "{head}");
    assert_eq!(body.trim(), r#"{"responseCode":1,"handle":"20.5000/t"}"#);
    assert!(s
        .store
        .get(HandleRef::parse("20.5000/t").unwrap())
        .unwrap()
        .unwrap()
        .values()
        .iter()
        .any(|v| v.value_type() == "EMAIL"));
    // Plain HTTP to the TLS port: no HTTP answer.
    let a = request(s.addr, "GET", "/api/handles/20.5000/t", "", "");
    assert_eq!(a.status, 0, "{a:?}");
}

/// Writes and imports at once, on other handles of one store: every one of each is there
/// afterwards (one writer at a time, each reading what the other committed: SPEC W8), and
/// the protocol server's view of the store follows each write.
#[test]
fn concurrent_imports_and_writes_lose_nothing() {
    use handle_net::Records;
    let s = Server::start("111111111111");
    let records = handle_serve::native::StoreRecords(s.store.clone());
    let generation = records.generation();
    std::thread::scope(|scope| {
        let store = &s.store;
        scope.spawn(move || {
            for i in 0..40 {
                let line =
                    format!(r#"{{"responseCode":1,"handle":"20.5000/imported-{i}","values":[]}}"#);
                store.import(line.as_bytes(), "concurrent").unwrap();
            }
        });
        for i in 0..40 {
            let value = format!(
                r#"[{{"index":{},"type":"EMAIL","data":"{i}@example.org"}}]"#,
                1000 + i
            );
            let a = request(
                s.addr,
                "PUT",
                &format!("/api/handles/20.5000/t?index={}", 1000 + i),
                &as_user(USER7),
                &value,
            );
            assert_eq!(a.status, 201, "{a:?}");
        }
    });
    for i in 0..40 {
        let h = format!("20.5000/imported-{i}");
        assert!(
            s.store
                .get(HandleRef::parse(&h).unwrap())
                .unwrap()
                .is_some(),
            "{h}"
        );
    }
    let over_protocol = records.values("20.5000/t").unwrap().unwrap();
    assert_eq!(over_protocol.len(), 4 + 40);
    assert!(records.generation() >= generation + 80);
}

/// Two RSA keys (made once: a second each).
fn keys() -> &'static (handle_net::key::ServerKey, handle_net::key::ServerKey) {
    static KEYS: std::sync::OnceLock<(handle_net::key::ServerKey, handle_net::key::ServerKey)> =
        std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        (
            handle_net::key::ServerKey::generate().unwrap(),
            handle_net::key::ServerKey::generate().unwrap(),
        )
    })
}

/// `POST /api/sessions`: a new session's id and nonce.
fn open_session(addr: SocketAddr) -> (String, Vec<u8>) {
    let a = request(addr, "POST", "/api/sessions", "", "");
    assert_eq!(a.status, 201, "{a:?}");
    assert!(a.headers.contains("location: /api/sessions/this"), "{a:?}");
    let id = a.body["sessionId"].as_str().unwrap().to_owned();
    let nonce = handle_id::record::base64_decode(a.body["nonce"].as_str().unwrap()).unwrap();
    assert_eq!(nonce.len(), 16);
    (id, nonce)
}

/// The `Authorization: Handle` answer of `id` to the session's nonce, signed by `key`.
fn signed(session: &str, nonce: &[u8], id: &str, key: &handle_net::key::ServerKey) -> String {
    let cnonce = b"client nonce 123";
    let signature = key.sign(&[nonce, &cnonce[..]].concat());
    format!(
        "authorization: Handle version=\"0\", sessionId=\"{session}\", cnonce=\"{}\", id=\"{}\", type=\"HS_PUBKEY\", alg=\"SHA256\", signature=\"{}\"\r\n",
        handle_id::record::base64(cnonce),
        id.replace(':', "%3A").replace('/', "%2F"),
        handle_id::record::base64(&signature)
    )
}

fn session_only(session: &str) -> String {
    format!("authorization: Handle sessionId=\"{session}\"\r\n")
}

/// The `Handle` challenge of an answer: its session id and nonce.
fn challenge_of(a: &Answer) -> Option<(String, Vec<u8>)> {
    let line = a.head.lines().find(|l| {
        l.to_ascii_lowercase()
            .starts_with("www-authenticate: handle ")
    })?;
    let field = |name: &str| {
        let start = line.find(&format!("{name}=\""))? + name.len() + 2;
        let end = start + line[start..].find('"')?;
        Some(line[start..end].to_owned())
    };
    let nonce = handle_id::record::base64_decode(&field("nonce")?).ok()?;
    Some((field("sessionId")?, nonce))
}

/// The Handle scheme (SPEC W3): an answer signed by a key that is an admin's (through a
/// group) is taken, and the session keeps the identity for the requests after it.
#[test]
fn the_right_key_is_taken_and_its_session_kept() {
    let s = Server::start("111111111111");
    // Key 301 is not served (it denies public read), and authenticates below all the same.
    assert_eq!(values(s.addr, "20.5000/keys").len(), 1);
    let (session, nonce) = open_session(s.addr);
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &signed(&session, &nonce, "300:20.5000/keys", &keys().0),
        ADD_EMAIL,
        (201, 1),
    );
    // The session alone now: the identity it proved.
    answered(
        s.addr,
        "DELETE",
        "/api/handles/20.5000/t?index=2",
        &session_only(&session),
        "",
        (200, 1),
    );
    let a = request(
        s.addr,
        "GET",
        "/api/sessions/this",
        &session_only(&session),
        "",
    );
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(a.body["authenticated"], true, "{a:?}");
    assert_eq!(a.body["id"], "300:20.5000/keys", "{a:?}");
    assert_eq!(a.body["sessionId"], session.as_str());
    // Index 0: any key of the handle; the one that verifies is the identity's index.
    let (session, nonce) = open_session(s.addr);
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &signed(&session, &nonce, "20.5000/keys", &keys().0),
        ADD_EMAIL,
        (201, 1),
    );
    // Ended: the session no longer authenticates, and the answer says so.
    let a = request(
        s.addr,
        "DELETE",
        "/api/sessions/this",
        &session_only(&session),
        "",
    );
    assert_eq!(a.status, 204, "{a:?}");
    let a = request(
        s.addr,
        "DELETE",
        "/api/sessions/this",
        &session_only(&session),
        "",
    );
    assert_eq!(a.status, 403, "{a:?}");
    let a = answered(
        s.addr,
        "DELETE",
        "/api/handles/20.5000/t?index=2",
        &session_only(&session),
        "",
        (401, 403),
    );
    let (fresh, _) = challenge_of(&a).expect("a new challenge");
    assert_ne!(fresh, session);
}

/// The rows the Handle scheme adds to the authorisation table: a wrong key, a key not in
/// `HS_ADMIN`, an unknown session, an answer replayed in another session, a digest not
/// taken; each refused and nothing changed.
#[test]
fn wrong_keys_sessions_and_replays_are_refused() {
    let s = Server::start("111111111111");
    let before = values(s.addr, "20.5000/t");
    let put = |headers: &str| {
        request(
            s.addr,
            "PUT",
            "/api/handles/20.5000/t?index=2",
            headers,
            ADD_EMAIL,
        )
    };
    // A key that is not the identity's: 401, and the same session challenged again, with why.
    let (session, nonce) = open_session(s.addr);
    let a = put(&signed(&session, &nonce, "300:20.5000/keys", &keys().1));
    assert_eq!((a.status, a.code()), (401, 403), "{a:?}");
    assert_eq!(
        challenge_of(&a),
        Some((session.clone(), nonce.clone())),
        "{a:?}"
    );
    assert!(a.headers.contains("error=\"identity not verified"), "{a:?}");
    assert!(!a.headers.contains("basic realm"), "{a:?}");
    // The right key of an identity that is in no admin value: 403, code 400.
    let a = put(&signed(&session, &nonce, "301:20.5000/keys", &keys().1));
    assert_eq!((a.status, a.code()), (403, 400), "{a:?}");
    // A session this server never opened.
    let a = put(&signed(
        "0123456789abcdef0123456789abcdef",
        &nonce,
        "300:20.5000/keys",
        &keys().0,
    ));
    assert_eq!((a.status, a.code()), (401, 403), "{a:?}");
    // An answer to the first session's nonce, sent in another session.
    let (other, _) = open_session(s.addr);
    let replay = signed(&session, &nonce, "300:20.5000/keys", &keys().0).replace(&session, &other);
    let a = put(&replay);
    assert_eq!((a.status, a.code()), (401, 403), "{a:?}");
    // MD5, which the reference takes, is not; nor a SHA-1 name on a SHA-256 signature.
    for alg in ["MD5", "SHA1"] {
        let h = signed(&other, &nonce, "300:20.5000/keys", &keys().0)
            .replace("alg=\"SHA256\"", &format!("alg=\"{alg}\""));
        assert_eq!(put(&h).status, 401, "{alg}");
    }
    // An answer without a session to sign.
    let h = signed(&session, &nonce, "300:20.5000/keys", &keys().0)
        .replace(&format!("sessionId=\"{session}\", "), "");
    assert_eq!(put(&h).status, 401);
    // A session that proved nothing is no identity: authentication needed.
    let a = put(&session_only(&other));
    assert_eq!((a.status, a.code()), (401, 402), "{a:?}");
    assert_eq!(values(s.addr, "20.5000/t"), before);
}

/// The flow of a client that starts without a session: the 401 of a write without
/// credentials offers Basic and a Handle challenge, whose nonce, signed, is taken.
#[test]
fn the_challenge_of_a_401_is_answered() {
    let s = Server::start("111111111111");
    let a = answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        "",
        ADD_EMAIL,
        (401, 402),
    );
    assert!(
        a.headers
            .contains("www-authenticate: basic realm=\"handle\""),
        "{a:?}"
    );
    let (session, nonce) = challenge_of(&a).expect("a Handle challenge");
    answered(
        s.addr,
        "PUT",
        "/api/handles/20.5000/t?index=2",
        &signed(&session, &nonce, "300:20.5000/keys", &keys().0),
        ADD_EMAIL,
        (201, 1),
    );
    // The same answer again in its session is the same identity (as the reference takes a
    // header it has seen in the session).
    answered(
        s.addr,
        "DELETE",
        "/api/handles/20.5000/t?index=2",
        &signed(&session, &nonce, "300:20.5000/keys", &keys().0),
        "",
        (200, 1),
    );
    // PUT /api/sessions/this authenticates a session without a write; a wrong key is 401.
    let (session, nonce) = open_session(s.addr);
    let a = request(
        s.addr,
        "PUT",
        "/api/sessions/this",
        &signed(&session, &nonce, "301:20.5000/keys", &keys().0),
        "",
    );
    assert_eq!(a.status, 401, "{a:?}");
    assert!(a.body["error"].as_str().is_some(), "{a:?}");
    let a = request(
        s.addr,
        "PUT",
        "/api/sessions/this",
        &signed(&session, &nonce, "301:20.5000/keys", &keys().1),
        "",
    );
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(a.body["id"], "301:20.5000/keys");
    // No session named: {"authenticated":false}; one not known: 403; other paths 403;
    // a new session asked with a sessionId: 400.
    let a = request(s.addr, "GET", "/api/sessions/this", "", "");
    assert_eq!(
        (a.status, a.body.clone()),
        (200, serde_json::json!({"authenticated": false}))
    );
    let a = request(
        s.addr,
        "GET",
        "/api/sessions/this",
        &session_only("nope"),
        "",
    );
    assert_eq!(a.status, 403);
    assert_eq!(
        request(s.addr, "GET", "/api/sessions/other", "", "").status,
        403
    );
    assert_eq!(request(s.addr, "GET", "/api/sessions", "", "").status, 405);
    let a = request(s.addr, "POST", "/api/sessions", &session_only(&session), "");
    assert_eq!(a.status, 400);
    let a = request(s.addr, "OPTIONS", "/api/sessions", "", "");
    assert!(a.headers.contains("allow: post, trace, options"), "{a:?}");
}

/// `GET /api/handles?prefix=…` (SPEC W9): the prefix's handles, to an admin of its prefix
/// handle with list-handles; by pages; refused as the reference refuses it.
#[test]
fn a_prefix_admin_lists_its_handles() {
    let s = Server::start("111111111111");
    let all = [
        "20.5000/group",
        "20.5000/group2",
        "20.5000/group3",
        "20.5000/keys",
        "20.5000/loop",
        "20.5000/t",
        "20.5000/users",
    ];
    let a = answered(
        s.addr,
        "GET",
        "/api/handles?prefix=20.5000",
        &prefix_admin(),
        "",
        (200, 1),
    );
    assert_eq!(
        a.body,
        serde_json::json!({"responseCode": 1, "prefix": "20.5000", "totalCount": "7", "handles": all})
    );
    let a = request(
        s.addr,
        "GET",
        "/api/handles/?prefix=0.NA%2F20.5000&page=1&pageSize=3",
        &prefix_admin(),
        "",
    );
    assert_eq!(
        a.body,
        serde_json::json!({"responseCode": 1, "prefix": "0.NA/20.5000", "totalCount": "7",
            "page": 1, "pageSize": 3, "handles": &all[3..6]})
    );
    // Not an admin of the prefix; no credentials; a prefix this server does not hold.
    answered(
        s.addr,
        "GET",
        "/api/handles?prefix=20.5000",
        &as_user(USER7),
        "",
        (403, 400),
    );
    let a = answered(
        s.addr,
        "GET",
        "/api/handles?prefix=20.5000",
        "",
        "",
        (401, 402),
    );
    assert!(challenge_of(&a).is_some(), "{a:?}");
    answered(
        s.addr,
        "GET",
        "/api/handles?prefix=20.9999",
        &prefix_admin(),
        "",
        (400, 301),
    );
    answered(
        s.addr,
        "GET",
        "/api/handles?prefix=20.5000/t",
        &prefix_admin(),
        "",
        (400, 301),
    );
}

/// A read with credentials (SPEC W10): the values that deny public read too, to an
/// identity with read-value on the handle; else as any read, or refused.
#[test]
fn an_admin_reads_the_values_that_are_not_public() {
    let s = Server::start("111111111111");
    let types = |a: &Answer| -> Vec<String> {
        a.body["values"]
            .as_array()
            .map(|vs| {
                vs.iter()
                    .map(|v| v["type"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let a = answered(
        s.addr,
        "GET",
        "/api/handles/20.5000/users",
        &prefix_admin(),
        "",
        (200, 1),
    );
    assert_eq!(
        types(&a),
        [
            "HS_ADMIN",
            "HS_SECKEY",
            "HS_SECKEY",
            "HS_SECKEY",
            "HS_SECKEY"
        ]
    );
    assert_eq!(a.body["values"][1]["data"]["value"], "pw7");
    let a = request(
        s.addr,
        "GET",
        "/api/handles/20.5000/users?index=8",
        &prefix_admin(),
        "",
    );
    assert_eq!(types(&a), ["HS_SECKEY"]);
    // Without credentials, or asking for public values only: the public ones.
    let a = request(s.addr, "GET", "/api/handles/20.5000/users", "", "");
    assert_eq!(types(&a), ["HS_ADMIN"]);
    let a = request(
        s.addr,
        "GET",
        "/api/handles/20.5000/users?publicOnly=true",
        &prefix_admin(),
        "",
    );
    assert_eq!(types(&a), ["HS_ADMIN"]);
    // An identity without read-value on the handle; a wrong password.
    answered(
        s.addr,
        "GET",
        "/api/handles/20.5000/users",
        &as_user(USER7),
        "",
        (403, 400),
    );
    answered(
        s.addr,
        "GET",
        "/api/handles/20.5000/users",
        &basic(300, "0.NA/20.5000", "wrong"),
        "",
        (401, 403),
    );
    // A record of public values only reads as it does for anyone.
    answered(
        s.addr,
        "GET",
        "/api/handles/20.5000/t",
        &as_user(USER7),
        "",
        (200, 1),
    );
}

/// The Handle scheme with a secret key (SPEC W3): the HMAC-SHA256 of the nonces by the
/// identity's HS_SECKEY proves it, as the reference's server checks it; a wrong one does not.
#[test]
fn a_secret_key_answers_the_challenge_too() {
    let s = Server::start("111111111111");
    let answer = |session: &str, nonce: &[u8], secret: &[u8]| {
        let cnonce = b"cn0123";
        let mac = handle_serve::auth::mac(
            handle_serve::auth::Mac::HmacSha256,
            secret,
            &[nonce, &cnonce[..]].concat(),
        );
        format!(
            "authorization: Handle sessionId=\"{session}\", cnonce=\"{}\", id=\"7%3A20.5000%2Fusers\", type=\"HS_SECKEY\", alg=\"HMAC-SHA256\", signature=\"{}\"\r\n",
            handle_id::record::base64(cnonce),
            handle_id::record::base64(&mac)
        )
    };
    let (session, nonce) = open_session(s.addr);
    let put = |h: &str| {
        request(
            s.addr,
            "PUT",
            "/api/handles/20.5000/t?index=2",
            h,
            ADD_EMAIL,
        )
    };
    let a = put(&answer(&session, &nonce, b"pw8"));
    assert_eq!((a.status, a.code()), (401, 403), "{a:?}");
    let a = put(&answer(&session, &nonce, b"pw7"));
    assert_eq!((a.status, a.code()), (201, 1), "{a:?}");
}
