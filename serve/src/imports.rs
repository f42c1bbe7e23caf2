//! Imports into a running server. A store is open in one process at a time (redb locks the
//! file), so while `hdl serve` runs, `hdl serve import` hands its records to the server:
//! the server listens on a Unix socket beside its store ([`socket_path`]), readable and
//! writable by its owner only (a connection from another user but root is refused), and
//! imports what it is sent exactly as [`Store::import`] does (all or nothing, the records
//! replaced at once while requests are answered).
//!
//! The exchange: the client sends the name of its source on one line, then the records
//! (one REST API response per line), then closes its writing half; the server answers one
//! JSON line, `{"records":N,"empty_lines":M,"held":T,"warning_count":W,"warnings":[…]}` or
//! `{"error":"…"}`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use crate::store::{Imported, Store, StoreError};

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

/// Imports `input` from one connection: the source's name, the records, an answer line.
fn import_from(store: &Store, connection: impl Read, mut answer: impl Write) {
    let mut input = BufReader::new(connection);
    let mut name = String::new();
    let outcome = match input.read_line(&mut name) {
        Ok(_) => {
            let name = name.trim_end_matches(['\r', '\n']);
            let name = if name.is_empty() { "import" } else { name };
            store
                .import(&mut input, name)
                .and_then(|imported| Ok((imported, store.len()?)))
        }
        Err(e) => Err(StoreError(format!("import: {e}"))),
    };
    let line = match outcome {
        Ok((imported, held)) => serde_json::json!({
            "records": imported.records,
            "empty_lines": imported.empty_lines,
            "held": held,
            "warning_count": imported.warning_count,
            "warnings": imported.warnings,
        })
        .to_string(),
        Err(e) => serde_json::json!({ "error": e.to_string() }).to_string(),
    };
    // The client may be gone: nothing to tell it then.
    let _ = writeln!(answer, "{line}");
}

#[cfg(unix)]
pub use unix::{import_through, listen, Listening};

#[cfg(unix)]
mod unix {
    use std::io::{self, BufRead, BufReader, Read, Write};
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::net::UnixStream;
    use std::path::Path;
    use std::sync::Arc;

    use super::{import_from, ImportedThrough};
    use crate::store::{Imported, Store, StoreError};

    /// Listens for imports on `socket` for the server of `store`: the caller holds the
    /// store open, so a socket file left there is a stopped server's and is replaced.
    ///
    /// # Errors
    ///
    /// The socket cannot be made (its path is too long for a Unix socket, or its directory
    /// is not writable).
    pub fn listen(store: Arc<Store>, socket: &Path) -> io::Result<Listening> {
        match std::fs::remove_file(socket) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let listener = tokio::net::UnixListener::bind(socket)?;
        std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
        // The file's mode is set a moment after it is made (under the umask's mode until
        // then): each connection's peer is checked too, the owner or root only.
        let owner = std::fs::metadata(socket)?.uid();
        let task = tokio::spawn(async move {
            loop {
                let Ok((connection, _)) = listener.accept().await else {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                };
                let peer = connection.peer_cred().map(|c| c.uid());
                let store = store.clone();
                // An import is blocking work (the store's writes): off the request threads.
                tokio::task::spawn_blocking(move || {
                    let Ok(connection) = connection.into_std() else {
                        return;
                    };
                    if connection.set_nonblocking(false).is_err() {
                        return;
                    }
                    if !peer.is_ok_and(|uid| may_import(uid, owner)) {
                        let _ = writeln!(
                            &connection,
                            "{{\"error\":\"only the server's owner may import through its socket\"}}"
                        );
                        return;
                    }
                    import_from(&store, &connection, &connection);
                });
            }
        });
        Ok(Listening {
            task,
            socket: socket.to_owned(),
        })
    }

    /// Whether a peer with user id `uid` may import into the store of the server run by
    /// `owner`: the owner itself, or root.
    fn may_import(uid: u32, owner: u32) -> bool {
        uid == owner || uid == 0
    }

    /// A server's import socket: closed and removed when dropped.
    pub struct Listening {
        task: tokio::task::JoinHandle<()>,
        socket: std::path::PathBuf,
    }

    impl Drop for Listening {
        fn drop(&mut self) {
            self.task.abort();
            let _ = std::fs::remove_file(&self.socket);
        }
    }

    /// Sends `input`'s records (named `name` in errors) to the server listening on
    /// `socket`. `None`: no server listens there (import into the store directly).
    ///
    /// # Errors
    ///
    /// The server refused a record (with its line; nothing is stored), or the exchange
    /// failed.
    pub fn import_through(
        socket: &Path,
        mut input: impl Read,
        name: &str,
    ) -> Result<Option<ImportedThrough>, StoreError> {
        let mut connection = match UnixStream::connect(socket) {
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
        let sent = writeln!(connection, "{}", name.replace(['\r', '\n'], " "))
            .and_then(|()| io::copy(&mut input, &mut connection))
            .and_then(|_| connection.shutdown(std::net::Shutdown::Write));
        // A server that refused a record stops reading: its answer says why.
        let mut answer = String::new();
        let read = BufReader::new(&connection).read_line(&mut answer);
        if answer.is_empty() {
            let e = sent.err().or(read.err()).map_or_else(
                || "the server closed the connection".to_owned(),
                |e| e.to_string(),
            );
            return Err(StoreError(format!(
                "import through {}: {e}",
                socket.display()
            )));
        }
        let answer: serde_json::Value = serde_json::from_str(&answer)
            .map_err(|e| StoreError(format!("import through {}: {e}", socket.display())))?;
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
            _ => Err(StoreError(format!(
                "import through {}: an answer without counts: {answer}",
                socket.display()
            ))),
        }
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

    #[test]
    fn the_answer_is_one_json_line() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb")).unwrap();
        let mut answer = Vec::new();
        import_from(
            &store,
            &b"mine\n{\"responseCode\":1,\"handle\":\"20.1000/1\",\"values\":[]}\n\n"[..],
            &mut answer,
        );
        let answer = String::from_utf8(answer).unwrap();
        assert_eq!(answer.lines().count(), 1, "{answer}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&answer).unwrap(),
            serde_json::json!({"records": 1, "empty_lines": 1, "held": 1, "warning_count": 0, "warnings": []})
        );
        let mut answer = Vec::new();
        import_from(&store, &b"mine\n{}\n"[..], &mut answer);
        let answer = String::from_utf8(answer).unwrap();
        assert!(
            answer.starts_with("{\"error\":\"mine: line 1: "),
            "{answer}"
        );
        assert_eq!(
            socket_path(Path::new("/a/s.redb")),
            Path::new("/a/s.redb.import.sock")
        );
    }
}
