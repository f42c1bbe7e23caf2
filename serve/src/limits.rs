//! What the server refuses and how long it waits, in one place (besides the request's own
//! bounds in [`crate::app`]: [`MAX_TARGET`](crate::app::MAX_TARGET) and
//! [`MAX_ALIASES`](crate::app::MAX_ALIASES)).

use std::time::Duration;

/// The most values a record may hold: the reference server's own bound (HANDLE.NET's
/// `Common.MAX_HANDLE_VALUES`), past which no message of the Handle protocol carries a
/// record, so no handle server answers it. Real records hold a handful.
pub const MAX_RECORD_VALUES: usize = 2048;

/// The longest record, as the line of JSON it is imported from: 1 MiB. A message of the
/// reference server is at most 256 KiB (`Common.MAX_MESSAGE_LENGTH`); the same record as
/// REST JSON (binary data in base64, each value's field names) stays well within 1 MiB.
/// It bounds an import's memory (a line is read whole) and the work of reading a record
/// for a request (tens of milliseconds at most).
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// Records whose stored JSON is longer than this are read, and their requests answered,
/// on the blocking threads, [`large_at_once`] at a time, so that the async workers go on
/// answering the others: reading 16 KiB costs about a third of a millisecond; real
/// records are under 2 KiB and are answered where they are asked.
pub const LARGE_RECORD: usize = 16 << 10;

/// Requests for large records answered at once (the others wait their turn without a
/// thread): one per core, which bounds the memory they take together (reading a record
/// takes up to about 40 times its size).
#[must_use]
pub fn large_at_once() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
}

/// How long a client may take to take an answer once it stops taking it (the connection's
/// buffers are full): then the connection is closed. A client that pipelines requests and
/// never reads holds its slot no longer. The default of `hdl serve --write-timeout`.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long an import connection may send nothing before it is dropped (and nothing it
/// sent is imported).
pub const IMPORT_READ_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a stopping server waits for the imports under way to end once their
/// connections are closed (each ends at its next read; a commit under way finishes).
pub const IMPORT_STOP_WAIT: Duration = Duration::from_secs(10);

/// The longest name an import gives its source (a file name), in bytes.
pub const MAX_IMPORT_NAME: usize = 4096;

/// How long a client may take to send a write's body, once its headers are read.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// Writes whose bodies are read and carried out at once: the rest wait their turn, so that
/// the memory bodies take is at most this many times [`crate::writes::MAX_BODY`] (34 MiB),
/// whatever the number of connections. The store takes one write at a time anyway.
pub const WRITES_AT_ONCE: usize = 32;
