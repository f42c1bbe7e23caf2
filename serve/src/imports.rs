//! Imports into a running server. A store is open in one process at a time (redb locks the
//! file), so while `hdl serve` runs, `hdl serve import` hands its records to the server:
//! the server listens on a Unix socket beside its store ([`socket_path`]), readable and
//! writable by its owner only (a connection from another user but root is refused), and
//! imports what it is sent exactly as [`Store::import`] does: all or nothing, the records
//! replaced at once while requests are answered.
//!
//! The exchange: the client sends `hdl-import 2 <name of its source>` on one line, then the
//! records (one REST API response per line) in chunks, each its length in hexadecimal on a
//! line and that many bytes, and a chunk of length 0 to end them; the server answers one
//! JSON line, `{"records":N,"empty_lines":M,"held":T,"warning_count":W,"warnings":[…]}` or
//! `{"error":"…"}`. A connection that closes before the last chunk (a client that died)
//! imports nothing: the end is said, never guessed from the connection's end.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::limits::MAX_IMPORT_NAME;
use crate::store::{Imported, Store, StoreError};

/// The first word of an import's first line, and the version of the exchange.
const GREETING: &str = "hdl-import 2 ";

/// The longest chunk a client may send (it sends at most 64 KiB).
const MAX_CHUNK: usize = 1 << 20;

/// The socket a server of the store at `store` takes imports on: the store's path with
/// `.import.sock` after it.
#[must_use]
pub fn socket_path(store: &Path) -> PathBuf {
    let mut path = store.as_os_str().to_owned();
    path.push(".import.sock");
    PathBuf::from(path)
}

/// What an import through a server did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedThrough {
    /// What the import did.
    pub imported: Imported,
    /// Records the store holds after it.
    pub held: u64,
}

/// The records of a chunked stream (see the module's documentation): its end is the chunk
/// of length 0; the input's end before it is an error.
struct Chunks<R> {
    input: R,
    /// Bytes left in the chunk being read.
    left: usize,
    ended: bool,
}

impl<R: BufRead> Chunks<R> {
    fn new(input: R) -> Self {
        Self {
            input,
            left: 0,
            ended: false,
        }
    }

    /// The length line of the next chunk.
    fn length(&mut self) -> io::Result<usize> {
        let mut line = Vec::new();
        (&mut self.input).take(17).read_until(b'\n', &mut line)?;
        if line.last() != Some(&b'\n') {
            return Err(if line.len() < 17 {
                cut_short()
            } else {
                bad_chunk()
            });
        }
        let digits = std::str::from_utf8(&line[..line.len() - 1]).map_err(|_| bad_chunk())?;
        match usize::from_str_radix(digits, 16) {
            Ok(n) if n <= MAX_CHUNK => Ok(n),
            _ => Err(bad_chunk()),
        }
    }
}

fn cut_short() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the connection ended before the end of the records",
    )
}

fn bad_chunk() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "not a chunk of the import exchange (is hdl serve import of another version?)",
    )
}

impl<R: BufRead> Read for Chunks<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ended || buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            self.left = self.length()?;
            if self.left == 0 {
                self.ended = true;
                return Ok(0);
            }
        }
        let n = buf.len().min(self.left);
        let n = self.input.read(&mut buf[..n])?;
        if n == 0 {
            return Err(cut_short());
        }
        self.left -= n;
        Ok(n)
    }
}

/// Imports from one connection: the greeting and the source's name, the records, an
/// answer line. `stopping`: the server is stopping (a read that fails is then its doing).
fn import_from(
    store: &Store,
    connection: impl Read,
    mut answer: impl Write,
    stopping: &AtomicBool,
) {
    let mut input = BufReader::new(connection);
    let outcome = greeting(&mut input).and_then(|name| {
        let name = if name.is_empty() { "import" } else { &name };
        store
            .import(BufReader::new(Chunks::new(&mut input)), name)
            .and_then(|imported| Ok((imported, store.len()?)))
    });
    let line = match outcome {
        Ok((imported, held)) => serde_json::json!({
            "records": imported.records,
            "empty_lines": imported.empty_lines,
            "held": held,
            "warning_count": imported.warning_count,
            "warnings": imported.warnings,
        })
        .to_string(),
        Err(e) => {
            let e = if stopping.load(Ordering::SeqCst) {
                format!("the server is stopping ({e})")
            } else {
                e.to_string()
            };
            serde_json::json!({ "error": e }).to_string()
        }
    };
    // The client may be gone: nothing to tell it then.
    let _ = writeln!(answer, "{line}");
}

/// The name of the source an import's first line gives.
fn greeting(input: &mut impl BufRead) -> Result<String, StoreError> {
    let mut line = Vec::new();
    input
        .take((GREETING.len() + MAX_IMPORT_NAME + 2) as u64)
        .read_until(b'\n', &mut line)
        .map_err(|e| StoreError(format!("import: {e}")))?;
    let line = String::from_utf8_lossy(&line);
    let Some(name) = line.strip_suffix('\n') else {
        return Err(StoreError(
            "import: no greeting line, or one too long".to_owned(),
        ));
    };
    match name.strip_prefix(GREETING) {
        Some(name) => Ok(name.trim_end_matches('\r').to_owned()),
        None => Err(StoreError(format!(
            "import: this server speaks the import exchange {}; use the hdl serve import of its version",
            GREETING.trim_end()
        ))),
    }
}

#[cfg(unix)]
pub use unix::{import_through, listen, Listening};

#[cfg(unix)]
mod unix {
    use std::collections::HashMap;
    use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::net::UnixStream;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Condvar, Mutex, PoisonError};
    use std::time::{Duration, Instant};

    use super::{import_from, ImportedThrough, GREETING};
    use crate::limits::IMPORT_STOP_WAIT;
    use crate::store::{Imported, Store, StoreError};

    /// The imports under way, so that a stopping server can end them.
    #[derive(Default)]
    struct Underway {
        stopping: AtomicBool,
        /// Each import's connection, by a number of its own.
        connections: Mutex<HashMap<u64, UnixStream>>,
        ended: Condvar,
    }

    impl Underway {
        /// Takes `connection` on as an import under way (`None` when stopping).
        fn begin(&self, number: u64, connection: &UnixStream) -> Option<()> {
            let mut all = self.lock();
            if self.stopping.load(Ordering::SeqCst) {
                return None;
            }
            all.insert(number, connection.try_clone().ok()?);
            Some(())
        }

        fn end(&self, number: u64) {
            self.lock().remove(&number);
            self.ended.notify_all();
        }

        fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, UnixStream>> {
            self.connections
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        }

        /// Ends every import: no more are begun, the reading half of each connection is
        /// closed (its next read ends, and it imports nothing), and the imports are waited
        /// for, `wait` at most.
        fn stop(&self, wait: Duration) {
            let until = Instant::now() + wait;
            let mut all = self.lock();
            self.stopping.store(true, Ordering::SeqCst);
            for connection in all.values() {
                let _ = connection.shutdown(std::net::Shutdown::Read);
            }
            while !all.is_empty() {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return;
                }
                all = self
                    .ended
                    .wait_timeout(all, left)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
        }
    }

    /// Listens for imports on `socket` for the server of `store`: the caller holds the
    /// store open, so a socket file left there is a stopped server's and is replaced. An
    /// import connection that sends nothing for `read_timeout` is dropped (and imports
    /// nothing).
    ///
    /// # Errors
    ///
    /// The socket cannot be made (its path is too long for a Unix socket, or its directory
    /// is not writable).
    pub fn listen(
        store: Arc<Store>,
        socket: &Path,
        read_timeout: Duration,
    ) -> io::Result<Listening> {
        match std::fs::remove_file(socket) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let listener = tokio::net::UnixListener::bind(socket)?;
        std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
        // The file's mode is set a moment after it is made (under the umask's mode until
        // then): each connection's peer is checked too, the owner or root only.
        let owner = std::fs::metadata(socket)?.uid();
        let underway = Arc::new(Underway::default());
        let imports = underway.clone();
        let task = tokio::spawn(async move {
            for number in 0_u64.. {
                let Ok((connection, _)) = listener.accept().await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let peer = connection.peer_cred().map(|c| c.uid());
                let Ok(connection) = connection.into_std() else {
                    continue;
                };
                // Blocking reads, each `read_timeout` at most: a silent client is dropped.
                let timeouts = connection.set_nonblocking(false).and_then(|()| {
                    connection.set_read_timeout(Some(read_timeout))?;
                    connection.set_write_timeout(Some(read_timeout))
                });
                if timeouts.is_err() || imports.begin(number, &connection).is_none() {
                    continue;
                }
                let (store, imports) = (store.clone(), imports.clone());
                // An import is blocking work (the store's writes): off the request threads.
                tokio::task::spawn_blocking(move || {
                    if peer.is_ok_and(|uid| may_import(uid, owner)) {
                        import_from(&store, &connection, &connection, &imports.stopping);
                    } else {
                        let _ = writeln!(
                            &connection,
                            "{{\"error\":\"only the server's owner may import through its socket\"}}"
                        );
                    }
                    imports.end(number);
                });
            }
        });
        Ok(Listening {
            task,
            socket: socket.to_owned(),
            underway,
        })
    }

    /// Whether a peer with user id `uid` may import into the store of the server run by
    /// `owner`: the owner itself, or root.
    fn may_import(uid: u32, owner: u32) -> bool {
        uid == owner || uid == 0
    }

    /// A server's import socket: closed and removed when dropped, the imports under way
    /// ended (they import nothing) and waited for, a bounded time
    /// ([`IMPORT_STOP_WAIT`]).
    pub struct Listening {
        task: tokio::task::JoinHandle<()>,
        socket: std::path::PathBuf,
        underway: Arc<Underway>,
    }

    impl Drop for Listening {
        fn drop(&mut self) {
            self.task.abort();
            let _ = std::fs::remove_file(&self.socket);
            self.underway.stop(IMPORT_STOP_WAIT);
        }
    }

    /// Sends `input`'s records (named `name` in errors) to the server listening on
    /// `socket`. `None`: no server listens there (import into the store directly).
    ///
    /// # Errors
    ///
    /// The server refused a record (with its line; nothing is stored), `input` could not
    /// be read (nothing is stored), or the exchange failed.
    pub fn import_through(
        socket: &Path,
        input: impl Read,
        name: &str,
    ) -> Result<Option<ImportedThrough>, StoreError> {
        let connection = match UnixStream::connect(socket) {
            Ok(c) => c,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
                ) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(StoreError(format!("{}: {e}", socket.display()))),
        };
        let through = |e: &dyn std::fmt::Display| {
            StoreError(format!("import through {}: {e}", socket.display()))
        };
        let sent = send(&connection, input, name);
        if let Err(Sent::Input(e)) = &sent {
            // The server imports nothing without the last chunk.
            return Err(StoreError(format!("{name}: {e}")));
        }
        // A server that refused a record stops reading: its answer says why.
        let mut answer = String::new();
        let read = BufReader::new(&connection).read_line(&mut answer);
        if answer.is_empty() {
            let e = match (sent, read) {
                (Err(Sent::Connection(e)), _) | (_, Err(e)) => e.to_string(),
                _ => "the server closed the connection".to_owned(),
            };
            return Err(through(&e));
        }
        let answer: serde_json::Value = serde_json::from_str(&answer).map_err(|e| through(&e))?;
        if let Some(e) = answer.get("error").and_then(serde_json::Value::as_str) {
            return Err(StoreError(e.to_owned()));
        }
        let count = |k: &str| answer.get(k).and_then(serde_json::Value::as_u64);
        let warnings = answer
            .get("warnings")
            .and_then(serde_json::Value::as_array)
            .map(|w| {
                w.iter()
                    .filter_map(|w| w.as_str().map(str::to_owned))
                    .collect()
            });
        match (
            count("records"),
            count("empty_lines"),
            count("held"),
            count("warning_count"),
            warnings,
        ) {
            (Some(records), Some(empty_lines), Some(held), Some(warning_count), Some(warnings)) => {
                Ok(Some(ImportedThrough {
                    imported: Imported {
                        records,
                        empty_lines,
                        warnings,
                        warning_count,
                    },
                    held,
                }))
            }
            _ => Err(through(&format!("an answer without counts: {answer}"))),
        }
    }

    /// What went wrong sending records.
    enum Sent {
        /// Reading the records.
        Input(io::Error),
        /// Writing to the server.
        Connection(io::Error),
    }

    /// Sends the greeting, `input` in chunks, and the last chunk.
    fn send(connection: &UnixStream, mut input: impl Read, name: &str) -> Result<(), Sent> {
        let mut out = BufWriter::with_capacity(64 * 1024 + 32, connection);
        let name = name.replace(['\r', '\n'], " ");
        writeln!(out, "{GREETING}{name}").map_err(Sent::Connection)?;
        let mut buffer = vec![0; 64 * 1024];
        loop {
            let n = match input.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Sent::Input(e)),
            };
            writeln!(out, "{n:x}")
                .and_then(|()| out.write_all(&buffer[..n]))
                .map_err(Sent::Connection)?;
        }
        out.write_all(b"0\n")
            .and_then(|()| out.flush())
            .map_err(Sent::Connection)?;
        drop(out);
        connection
            .shutdown(std::net::Shutdown::Write)
            .map_err(Sent::Connection)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn only_the_owner_or_root_may_import() {
            assert!(may_import(1000, 1000));
            assert!(may_import(0, 1000));
            assert!(!may_import(1001, 1000));
        }

        #[test]
        fn nothing_listening_is_none() {
            let dir = tempfile::tempdir().unwrap();
            let socket = dir.path().join("s.import.sock");
            assert_eq!(import_through(&socket, &b""[..], "x").unwrap(), None);
            // A socket file left by a stopped server: nobody listens.
            drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
            assert!(socket.exists());
            assert_eq!(import_through(&socket, &b""[..], "x").unwrap(), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(name: &str, records: &[u8], end: bool) -> Vec<u8> {
        let mut s = format!("{GREETING}{name}\n").into_bytes();
        for chunk in records.chunks(7) {
            s.extend_from_slice(format!("{:x}\n", chunk.len()).as_bytes());
            s.extend_from_slice(chunk);
        }
        if end {
            s.extend_from_slice(b"0\n");
        }
        s
    }

    fn exchange(store: &Store, input: &[u8]) -> String {
        let mut answer = Vec::new();
        import_from(store, input, &mut answer, &AtomicBool::new(false));
        String::from_utf8(answer).unwrap()
    }

    #[test]
    fn the_answer_is_one_json_line() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb")).unwrap();
        let one = b"{\"responseCode\":1,\"handle\":\"20.1000/1\",\"values\":[]}\n\n";
        let answer = exchange(&store, &stream("mine", one, true));
        assert_eq!(answer.lines().count(), 1, "{answer}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&answer).unwrap(),
            serde_json::json!({"records": 1, "empty_lines": 1, "held": 1, "warning_count": 0, "warnings": []})
        );
        let answer = exchange(&store, &stream("mine", b"{}\n", true));
        assert!(
            answer.starts_with("{\"error\":\"mine: line 1: "),
            "{answer}"
        );
        assert_eq!(
            socket_path(Path::new("/a/s.redb")),
            Path::new("/a/s.redb.import.sock")
        );
    }

    /// A stream that ends before its last chunk (a client that died, or a server that
    /// stops) imports nothing, however many records came before; so does one that is not
    /// of this exchange.
    #[test]
    fn nothing_without_the_last_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb")).unwrap();
        let records: String = (0..100)
            .map(|i| format!("{{\"responseCode\":1,\"handle\":\"20.1000/{i}\",\"values\":[]}}\n"))
            .collect();
        let answer = exchange(&store, &stream("cut", records.as_bytes(), false));
        assert!(
            answer.contains("the connection ended before the end of the records"),
            "{answer}"
        );
        assert_eq!(store.len().unwrap(), 0);
        let answer = exchange(&store, format!("cut\n{records}").as_bytes());
        assert!(
            answer.contains("the import exchange hdl-import 2"),
            "{answer}"
        );
        let answer = exchange(&store, format!("{GREETING}old\n{records}").as_bytes());
        assert!(
            answer.contains("not a chunk of the import exchange"),
            "{answer}"
        );
        assert_eq!(store.len().unwrap(), 0);
        let mut answer = Vec::new();
        import_from(
            &store,
            &stream("cut", records.as_bytes(), false)[..],
            &mut answer,
            &AtomicBool::new(true),
        );
        assert!(String::from_utf8(answer)
            .unwrap()
            .starts_with("{\"error\":\"the server is stopping (cut: line "),);
        // The whole stream: every record.
        let answer = exchange(&store, &stream("whole", records.as_bytes(), true));
        assert!(answer.contains("\"records\":100"), "{answer}");
        assert_eq!(store.len().unwrap(), 100);
    }

    /// The greeting's name is bounded: a first line without end is not read on.
    #[test]
    fn the_greeting_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb")).unwrap();
        let long = format!("{GREETING}{}\n0\n", "n".repeat(MAX_IMPORT_NAME + 10));
        let answer = exchange(&store, long.as_bytes());
        assert!(
            answer.contains("no greeting line, or one too long"),
            "{answer}"
        );
    }
}
