//! `hdl create`, `hdl modify`, `hdl delete`: writes through a HANDLE.NET REST API (ours
//! or the reference's), authenticated as it takes them (SPEC W1–W7): HTTP Basic with
//! `index:handle`, URL-encoded, and the secret key; or, with `--key`, the `Handle`
//! scheme: a session opened (`POST /api/sessions`), its nonce and the client's signed by
//! the private key of the identity's `HS_PUBKEY` value, the write sent with the answer,
//! and the session ended.
//!
//! HTTP or HTTPS (rustls; the public roots, or `--ca-cert`, or `--insecure` for a
//! server's self-signed certificate, as HANDLE.NET servers make by default). A server's
//! answer says what it did, and this prints it.

use std::io::{Read, Write as _};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::Duration;

use std::sync::Arc;

use handle_id::record::base64;
use handle_id::Handle;
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::crypto::{ring, verify_tls12_signature, verify_tls13_signature};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use tokio_rustls::rustls::{
    ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, SignatureScheme,
    StreamOwned,
};

use crate::Status;

/// What every write is asked with: where, as whom.
#[derive(clap::Args, Clone, Debug)]
pub struct Connection {
    /// The REST API's server: `https://HOST[:PORT]` or `http://HOST[:PORT]`;
    /// `/api/handles/` is added.
    #[arg(long, value_name = "URL")]
    pub server: String,
    /// Trust the certificates of this PEM file (a server's own self-signed one) instead of
    /// the public roots.
    #[arg(long, value_name = "FILE", conflicts_with = "insecure")]
    pub ca_cert: Option<PathBuf>,
    /// Accept any certificate the server shows (a test server's): the key still travels
    /// encrypted, but to whoever answers.
    #[arg(long)]
    pub insecure: bool,
    /// Who writes: `INDEX:HANDLE` of a secret key (`300:0.NA/20.5000`), or with --key of
    /// a public key (`HS_PUBKEY`).
    #[arg(long, value_name = "INDEX:HANDLE")]
    pub user: String,
    /// A file holding the secret key (one line; its line end is not part of the key).
    /// Without it (and without --key) the key is read from the environment variable
    /// HDL_PASSWORD, never from the command line, where other users could see it.
    #[arg(long, value_name = "FILE", conflicts_with = "key")]
    pub password_file: Option<PathBuf>,
    /// Authenticate with a private key instead of a secret key: an unencrypted RSA key
    /// file (PKCS #8 or PKCS #1, PEM or DER, as `openssl genpkey` writes it) whose public
    /// key is the `HS_PUBKEY` value of --user. It signs the server's challenge (the
    /// `Handle` scheme, SHA-256); the key itself is never sent.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Seconds to wait for the server.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub timeout: u64,
}

/// The values a write sends.
#[derive(clap::Args, Clone, Debug)]
pub struct Values {
    /// A value with text data: `INDEX:TYPE=TEXT` (`1:URL=https://example.org/`).
    /// Repeatable.
    #[arg(long = "value", value_name = "INDEX:TYPE=TEXT")]
    pub values: Vec<String>,
    /// An admin value: `INDEX:ADMIN_INDEX:ADMIN_HANDLE[:PERMISSIONS]` (permissions as the
    /// REST API writes them, `011111111111` when not given). Repeatable.
    #[arg(long = "admin", value_name = "INDEX:ADMIN_INDEX:HANDLE[:PERMS]")]
    pub admins: Vec<String>,
    /// Values as the REST API writes them: a JSON array of values, or a record (`-` for
    /// standard input). Taken before --value and --admin.
    #[arg(long, value_name = "FILE")]
    pub values_file: Option<PathBuf>,
}

/// One write, its arguments resolved.
pub struct Write {
    server: Server,
    /// TLS, for an `https://` server.
    tls: Option<Arc<ClientConfig>>,
    auth: Auth,
    method: &'static str,
    /// Path and query, encoded.
    target: String,
    body: Option<String>,
    timeout: Duration,
}

/// Where the server is.
#[derive(Debug)]
struct Server {
    https: bool,
    host: String,
    port: u16,
    /// The path before `/api/handles/` (empty, or `/something`).
    base: String,
}

impl Server {
    fn parse(url: &str) -> Result<Self, String> {
        let (https, rest) = if let Some(rest) = url.strip_prefix("http://") {
            (false, rest)
        } else if let Some(rest) = url.strip_prefix("https://") {
            (true, rest)
        } else {
            return Err(format!("--server {url}: not an https:// or http:// URL"));
        };
        let (authority, base) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
                h,
                p.parse()
                    .map_err(|_| format!("--server {url}: the port {p:?} is not a number"))?,
            ),
            _ => (authority, if https { 443 } else { 80 }),
        };
        if host.is_empty() {
            return Err(format!("--server {url}: no host"));
        }
        Ok(Self {
            https,
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port,
            base: base.trim_end_matches('/').to_owned(),
        })
    }
}

/// Percent-encodes all but unreserved characters (RFC 3986 §2.3), and `/` where `slash`.
fn encode(text: &str, slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (slash && b == b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// How a write is authenticated.
enum Auth {
    /// This `Authorization` header: Basic.
    Basic(String),
    /// The `Handle` scheme: `id` (`INDEX:HANDLE`) proved by this key's signature.
    Key {
        id: String,
        key: Box<handle_net::key::ServerKey>,
    },
}

/// How `user` (`INDEX:HANDLE`) is authenticated, as the reference reads it (SPEC W3):
/// with a private key (`--key`), or Basic with the secret key.
fn authorization(connection: &Connection) -> Result<Auth, String> {
    let (index, handle) = connection
        .user
        .split_once(':')
        .filter(|(i, _)| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("--user {}: not INDEX:HANDLE", connection.user))?;
    Handle::parse(handle).map_err(|e| format!("--user {}: {e}", connection.user))?;
    if let Some(path) = &connection.key {
        let here = |e: &dyn std::fmt::Display| format!("--key {}: {e}", path.display());
        let bytes = std::fs::read(path).map_err(|e| here(&e))?;
        let key = handle_net::key::ServerKey::read(&bytes).map_err(|e| here(&e))?;
        return Ok(Auth::Key {
            id: format!("{index}:{handle}"),
            key: Box::new(key),
        });
    }
    let key = match &connection.password_file {
        Some(path) => {
            let text = std::fs::read(path)
                .map_err(|e| format!("--password-file {}: {e}", path.display()))?;
            let end = text.iter().position(|&b| b == b'\n').unwrap_or(text.len());
            let mut key = text[..end].to_vec();
            if key.last() == Some(&b'\r') {
                key.pop();
            }
            key
        }
        None => std::env::var_os("HDL_PASSWORD")
            .ok_or("no key: give --password-file, or set HDL_PASSWORD")?
            .into_encoded_bytes(),
    };
    let mut credentials = encode(&format!("{index}:{handle}"), false).into_bytes();
    credentials.push(b':');
    credentials.extend_from_slice(&key);
    Ok(Auth::Basic(format!("Basic {}", base64(&credentials))))
}

/// The `Handle` scheme's answer to a session's `nonce` (SPEC W3): a fresh client nonce,
/// and the signature of the server's nonce followed by it (`SHA256withRSA`).
fn handle_answer(
    session: &str,
    nonce: &[u8],
    id: &str,
    key: &handle_net::key::ServerKey,
) -> String {
    let mut cnonce = [0_u8; 16];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut cnonce);
    let signature = key.sign(&[nonce, &cnonce[..]].concat());
    format!(
        "Handle version=\"0\", sessionId=\"{session}\", cnonce=\"{}\", id=\"{}\", type=\"HS_PUBKEY\", alg=\"SHA256\", signature=\"{}\"",
        base64(&cnonce),
        encode(id, false),
        base64(&signature)
    )
}

/// The values of `values` as a JSON array.
fn values_json(values: &Values) -> Result<Vec<serde_json::Value>, String> {
    let mut out = Vec::new();
    if let Some(path) = &values.values_file {
        let text = if path.as_os_str() == "-" {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("standard input: {e}"))?;
            s
        } else {
            std::fs::read_to_string(path)
                .map_err(|e| format!("--values-file {}: {e}", path.display()))?
        };
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("--values-file {}: {e}", path.display()))?;
        match json {
            serde_json::Value::Array(values) => out.extend(values),
            serde_json::Value::Object(mut o) => match o.remove("values") {
                Some(serde_json::Value::Array(values)) => out.extend(values),
                _ => {
                    return Err(format!(
                        "--values-file {}: a record without a list of values",
                        path.display()
                    ))
                }
            },
            _ => {
                return Err(format!(
                    "--values-file {}: neither a list of values nor a record",
                    path.display()
                ))
            }
        }
    }
    for v in &values.values {
        let bad = || format!("--value {v}: not INDEX:TYPE=TEXT");
        let (index, rest) = v.split_once(':').ok_or_else(bad)?;
        let (kind, text) = rest.split_once('=').ok_or_else(bad)?;
        let index: u32 = index.parse().map_err(|_| bad())?;
        if kind.is_empty() {
            return Err(bad());
        }
        out.push(serde_json::json!({"index": index, "type": kind, "data": {"format": "string", "value": text}}));
    }
    for a in &values.admins {
        let bad = || format!("--admin {a}: not INDEX:ADMIN_INDEX:HANDLE[:PERMISSIONS]");
        let mut parts = a.splitn(3, ':');
        let (Some(index), Some(admin_index), Some(rest)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let (handle, permissions) = match rest.rsplit_once(':') {
            Some((h, p)) if p.len() == 12 && p.bytes().all(|b| b == b'0' || b == b'1') => (h, p),
            _ => (rest, "011111111111"),
        };
        Handle::parse(handle).map_err(|e| format!("--admin {a}: {e}"))?;
        let index: u32 = index.parse().map_err(|_| bad())?;
        let admin_index: u32 = admin_index.parse().map_err(|_| bad())?;
        out.push(serde_json::json!({"index": index, "type": "HS_ADMIN", "data": {"format": "admin", "value": {"handle": handle, "index": admin_index, "permissions": permissions}}}));
    }
    Ok(out)
}

fn timeout(connection: &Connection) -> Duration {
    Duration::from_secs(connection.timeout.max(1))
}

impl Write {
    fn new(
        connection: &Connection,
        handle: &str,
        method: &'static str,
        query: Vec<String>,
        body: Option<Vec<serde_json::Value>>,
    ) -> Result<Self, String> {
        let server = Server::parse(&connection.server)?;
        Handle::parse(handle).map_err(|e| format!("{handle}: {e}"))?;
        let tls = if server.https {
            Some(client_config(connection)?)
        } else {
            None
        };
        let mut target = format!("{}/api/handles/{}", server.base, encode(handle, true));
        if !query.is_empty() {
            target.push('?');
            target.push_str(&query.join("&"));
        }
        Ok(Self {
            server,
            tls,
            auth: authorization(connection)?,
            method,
            target,
            body: body.map(|values| serde_json::json!({ "values": values }).to_string()),
            timeout: timeout(connection),
        })
    }

    /// `hdl create`: the handle with these values; with `mint`, a new handle under it.
    pub fn create(
        connection: &Connection,
        handle: &str,
        values: &Values,
        mint: bool,
        overwrite: bool,
    ) -> Result<Self, String> {
        let values = values_json(values)?;
        let mut query = vec![format!("overwrite={overwrite}")];
        if mint {
            query.push("mintNewSuffix=true".to_owned());
        }
        Self::new(connection, handle, "PUT", query, Some(values))
    }

    /// `hdl modify`: these values added, or replacing those at their indices.
    pub fn modify(
        connection: &Connection,
        handle: &str,
        values: &Values,
        overwrite: bool,
    ) -> Result<Self, String> {
        let values = values_json(values)?;
        if values.is_empty() {
            return Err("no values to write: give --value, --admin or --values-file".to_owned());
        }
        let mut query: Vec<String> = Vec::new();
        for v in &values {
            let index = v
                .get("index")
                .and_then(serde_json::Value::as_u64)
                .ok_or("a value without an index")?;
            query.push(format!("index={index}"));
        }
        query.push(format!("overwrite={overwrite}"));
        Self::new(connection, handle, "PUT", query, Some(values))
    }

    /// `hdl delete`: the handle, or the values at `indices`.
    pub fn delete(connection: &Connection, handle: &str, indices: &[u32]) -> Result<Self, String> {
        let query = indices.iter().map(|i| format!("index={i}")).collect();
        Self::new(connection, handle, "DELETE", query, None)
    }
}

/// Sends the write and prints the server's JSON answer on standard output: exit status 0
/// on a success (`responseCode` 1), 1 when the server refused (its answer says why), 2
/// when it could not be asked or its answer is not the REST API's.
pub fn run(write: &Write) -> std::io::Result<Status> {
    let (status, body) = match authenticated(write) {
        Ok(answer) => answer,
        Err(e) => {
            crate::output::report(format_args!(
                "hdl: {}:{}: {e}",
                write.server.host, write.server.port
            ));
            return Ok(Status::Failed);
        }
    };
    let json: Option<serde_json::Value> = serde_json::from_slice(&body).ok();
    let Some(code) = json
        .as_ref()
        .and_then(|j| j.get("responseCode"))
        .and_then(serde_json::Value::as_u64)
    else {
        if status == 401 {
            // The reference's authentication answers 401 with no body.
            crate::output::report(format_args!(
                "hdl: refused: HTTP 401 (authentication failed: the user or key is wrong)"
            ));
            return Ok(Status::SomeInvalid);
        }
        crate::output::report(format_args!(
            "hdl: HTTP {status} without a REST API answer: {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        ));
        return Ok(Status::Failed);
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", json.unwrap_or_default())?;
    if code == 1 && (200..300).contains(&status) {
        Ok(Status::AllValid)
    } else {
        crate::output::report(format_args!(
            "hdl: refused: HTTP {status}, responseCode {code}{}",
            match code {
                100 => " (handle not found)",
                101 => " (handle already exists)",
                102 => " (invalid handle)",
                200 => " (values not found)",
                201 => " (a value at that index exists)",
                202 => " (invalid value)",
                301 => " (the server is not responsible for the handle)",
                400 => " (not an admin of the handle with that permission)",
                402 => " (authentication needed)",
                403 => " (authentication failed: the user or key is wrong)",
                _ => "",
            }
        ));
        Ok(Status::SomeInvalid)
    }
}

/// The answer is at most this long: a REST answer to a write is a line.
const MAX_ANSWER: u64 = 1 << 20;

/// The write sent as its authentication asks: Basic at once; with a key, a session
/// opened, the write sent with the signed answer to its nonce, and the session ended.
fn authenticated(write: &Write) -> std::io::Result<(u16, Vec<u8>)> {
    let (id, key) = match &write.auth {
        Auth::Basic(header) => {
            return send(
                write,
                write.method,
                &write.target,
                header,
                write.body.as_deref(),
            )
        }
        Auth::Key { id, key } => (id, key),
    };
    let sessions = format!("{}/api/sessions", write.server.base);
    let (status, body) = send(write, "POST", &sessions, "", None)?;
    let opened: Option<(String, Vec<u8>)> = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|j| {
            let id = j.get("sessionId")?.as_str()?.to_owned();
            let nonce = handle_id::record::base64_decode(j.get("nonce")?.as_str()?).ok()?;
            Some((id, nonce))
        });
    let opened = match opened {
        Some(opened) => Some(opened),
        // A REST API without /api/sessions: the challenge of the 401 that an answer
        // without its signature gets, asked by a read of the handle (nothing written).
        None => {
            let path = write.target.split('?').next().unwrap_or(&write.target);
            let incomplete = format!("Handle version=\"0\", id=\"{}\"", encode(id, false));
            let raw = exchange_raw(write, "GET", path, &incomplete, None)?;
            challenge_in(&raw)
        }
    };
    let Some((session, nonce)) = opened else {
        return Err(std::io::Error::other(format!(
            "POST {sessions}: HTTP {status}, and no session nor Handle challenge offered (the Handle scheme needs TLS, or a loopback server)"
        )));
    };
    let answer = handle_answer(&session, &nonce, id, key);
    let result = send(
        write,
        write.method,
        &write.target,
        &answer,
        write.body.as_deref(),
    );
    // Ended whatever the write did: it is no use to anyone after.
    let _ = send(
        write,
        "DELETE",
        &format!("{sessions}/this"),
        &format!("Handle sessionId=\"{session}\""),
        None,
    );
    result
}

/// The session and nonce of a `WWW-Authenticate: Handle` challenge in an answer, if any.
fn challenge_in(raw: &[u8]) -> Option<(String, Vec<u8>)> {
    let end = memchr::memmem::find(raw, b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    head.lines().skip(1).find_map(|line| {
        let (name, value) = line.split_once(':')?;
        let value = value.trim();
        if !name.trim().eq_ignore_ascii_case("www-authenticate")
            || !value.get(..7)?.eq_ignore_ascii_case("Handle ")
        {
            return None;
        }
        let field = |key: &str| {
            let start = value.find(&format!("{key}=\""))? + key.len() + 2;
            let len = value[start..].find('"')?;
            Some(value[start..start + len].to_owned())
        };
        let nonce = handle_id::record::base64_decode(&field("nonce")?).ok()?;
        Some((field("sessionId")?, nonce))
    })
}

/// One request on its own connection: the status and the body. An empty
/// `authorization` sends none.
fn send(
    write: &Write,
    method: &str,
    target: &str,
    authorization: &str,
    body: Option<&str>,
) -> std::io::Result<(u16, Vec<u8>)> {
    parse_answer(&exchange_raw(write, method, target, authorization, body)?)
}

/// One request on its own connection: the answer's bytes, head and body.
fn exchange_raw(
    write: &Write,
    method: &str,
    target: &str,
    authorization: &str,
    body: Option<&str>,
) -> std::io::Result<Vec<u8>> {
    use std::net::ToSocketAddrs;
    let addr = (write.server.host.as_str(), write.server.port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::other("no address"))?;
    let stream = TcpStream::connect_timeout(&addr, write.timeout)?;
    stream.set_read_timeout(Some(write.timeout))?;
    stream.set_write_timeout(Some(write.timeout))?;
    let host = if write.server.host.contains(':') {
        format!("[{}]:{}", write.server.host, write.server.port)
    } else {
        format!("{}:{}", write.server.host, write.server.port)
    };
    let has_body = body.is_some();
    let body = body.unwrap_or("");
    let mut request = format!(
        "{method} {target} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\naccept: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    if !authorization.is_empty() {
        request.push_str(&format!("authorization: {authorization}\r\n"));
    }
    if has_body {
        request.push_str("content-type: application/json\r\n");
    }
    request.push_str("\r\n");
    let mut raw = Vec::new();
    match &write.tls {
        None => exchange(stream, &request, body, &mut raw)?,
        Some(config) => {
            let name = ServerName::try_from(write.server.host.clone())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
            let tls = ClientConnection::new(config.clone(), name).map_err(std::io::Error::other)?;
            exchange(StreamOwned::new(tls, stream), &request, body, &mut raw)?;
        }
    }
    Ok(raw)
}

/// The request sent on `stream`, and the answer read into `raw` to the close, at most
/// [`MAX_ANSWER`] bytes.
fn exchange(
    mut stream: impl std::io::Read + std::io::Write,
    head: &str,
    body: &str,
    raw: &mut Vec<u8>,
) -> std::io::Result<()> {
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()?;
    match stream.take(MAX_ANSWER).read_to_end(raw) {
        // A server that closes without TLS's close_notify (many do) has said all it said.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty() => Ok(()),
        other => other.map(drop),
    }
}

/// The TLS client: the public roots (webpki-roots), or the certificates of `--ca-cert`, or
/// with `--insecure` any certificate (its signature on the handshake still checked).
fn client_config(connection: &Connection) -> Result<Arc<ClientConfig>, String> {
    let provider = Arc::new(ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let config = if connection.insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
            .with_no_client_auth()
    } else {
        let mut roots = RootCertStore::empty();
        match &connection.ca_cert {
            Some(path) => {
                let here = |e: &dyn std::fmt::Display| format!("--ca-cert {}: {e}", path.display());
                for cert in CertificateDer::pem_file_iter(path).map_err(|e| here(&e))? {
                    roots
                        .add(cert.map_err(|e| here(&e))?)
                        .map_err(|e| here(&e))?;
                }
                if roots.is_empty() {
                    return Err(here(&"no PEM certificate in it"));
                }
            }
            None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        }
        builder.with_root_certificates(roots).with_no_client_auth()
    };
    Ok(Arc::new(config))
}

/// `--insecure`: whatever certificate the server shows, as long as it signs the handshake.
#[derive(Debug)]
struct AnyCertificate(Arc<tokio_rustls::rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, tokio_rustls::rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// An HTTP/1.1 answer's status and body (`Content-Length`, chunked, or to the close).
fn parse_answer(raw: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let end = memchr::memmem::find(raw, b"\r\n\r\n").ok_or_else(|| bad("no HTTP answer"))?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("no HTTP status"))?;
    let header = |name: &str| {
        head.lines().skip(1).find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    let body = &raw[end + 4..];
    if header("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        let mut out = Vec::new();
        let mut rest = body;
        loop {
            let line_end =
                memchr::memmem::find(rest, b"\r\n").ok_or_else(|| bad("a chunk cut short"))?;
            let size = std::str::from_utf8(&rest[..line_end])
                .ok()
                .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok())
                .ok_or_else(|| bad("a chunk size that is no number"))?;
            rest = &rest[line_end + 2..];
            if size == 0 {
                return Ok((status, out));
            }
            let chunk = rest.get(..size).ok_or_else(|| bad("a chunk cut short"))?;
            out.extend_from_slice(chunk);
            rest = rest.get(size + 2..).unwrap_or_default();
        }
    }
    let len = header("content-length")
        .and_then(|l| l.parse::<usize>().ok())
        .map_or(body.len(), |l| l.min(body.len()));
    Ok((status, body[..len].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_read_with_any_framing() {
        let plain = b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\n{}";
        assert_eq!(parse_answer(plain).unwrap(), (201, b"{}".to_vec()));
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=y\r\n\":1}\r\n0\r\n\r\n";
        assert_eq!(parse_answer(chunked).unwrap(), (200, b"{\"a\":1}".to_vec()));
        assert!(parse_answer(b"nothing").is_err());
        assert!(
            parse_answer(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n").is_err()
        );
    }

    #[test]
    fn challenges_are_found_among_the_headers() {
        let raw = b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"handle\"\r\nwww-authenticate: Handle sessionId=\"node01x\", nonce=\"AAEC\", error=\"Missing fields\"\r\n\r\n";
        assert_eq!(
            challenge_in(raw),
            Some(("node01x".to_owned(), vec![0, 1, 2]))
        );
        assert_eq!(
            challenge_in(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"handle\"\r\n\r\n"
            ),
            None
        );
        assert_eq!(challenge_in(b"HTTP/1.1 401"), None);
    }

    #[test]
    fn servers_read_as_urls() {
        let s = Server::parse("http://127.0.0.1:8000/").unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.base.as_str()),
            ("127.0.0.1", 8000, "")
        );
        let s = Server::parse("http://[::1]:8080/handle").unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.base.as_str()),
            ("::1", 8080, "/handle")
        );
        let s = Server::parse("http://example.org").unwrap();
        assert_eq!((s.host.as_str(), s.port), ("example.org", 80));
        let s = Server::parse("https://example.org").unwrap();
        assert_eq!((s.https, s.port), (true, 443));
        assert!(Server::parse("ftp://x").is_err());
        assert!(Server::parse("http://x:port").is_err());
    }

    #[test]
    fn values_from_the_command_line() {
        let values = Values {
            values: vec!["1:URL=https://example.org/a=b".into()],
            admins: vec![
                "100:300:0.NA/20.5000".into(),
                "101:1:20.5000/g:000000000001".into(),
            ],
            values_file: None,
        };
        let json = values_json(&values).unwrap();
        assert_eq!(json[0]["data"]["value"], "https://example.org/a=b");
        assert_eq!(json[1]["data"]["value"]["permissions"], "011111111111");
        assert_eq!(json[2]["data"]["value"]["handle"], "20.5000/g");
        assert_eq!(json[2]["data"]["value"]["permissions"], "000000000001");
        for bad in ["URL=x", "x:URL=y", "1:=y", "1:URL"] {
            let v = Values {
                values: vec![bad.into()],
                admins: Vec::new(),
                values_file: None,
            };
            assert!(values_json(&v).is_err(), "{bad}");
        }
    }
}
