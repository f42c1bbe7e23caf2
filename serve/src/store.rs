//! The embedded store: handle records in a redb file, keyed by the handle in ASCII lower
//! case (H6, P6: handles are found without ASCII case), each record the REST API JSON of
//! its response, as one writer writes it.

use std::borrow::Cow;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use handle_id::record::{Filter, Locations, Response, ResponseCode, LOC_TYPE};
use handle_id::{Handle, HandleRef};
use redb::{Database, ReadOnlyTable, ReadableTable, ReadableTableMetadata, TableDefinition};

use crate::limits::{MAX_RECORD_BYTES, MAX_RECORD_VALUES};

/// Handle (canonical, its UTF-8 bytes) → the record's REST API JSON (`Response::to_json`).
/// Keys are bytes, not `&str`: redb checks a `&str` key's UTF-8 at every comparison, and
/// the keys are checked handles already.
const RECORDS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("records");

/// The page cache of [`Store::open`]: 64 MiB.
pub const DEFAULT_CACHE: usize = 64 << 20;

/// The warnings an import keeps to tell (it counts them all).
pub const KEPT_WARNINGS: usize = 20;

/// An error of the store or of an import, with where it happened.
#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

fn err(context: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("{context}: {e}"))
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    /// Records written (new or replaced).
    pub records: u64,
    /// Lines skipped: empty.
    pub empty_lines: u64,
    /// Records imported with something redirects pass over (a `10320/loc` value that does
    /// not read), each said with its line: the first [`KEPT_WARNINGS`].
    pub warnings: Vec<String>,
    /// How many warnings there were in all.
    pub warning_count: u64,
}

impl Imported {
    fn warn(&mut self, warning: String) {
        self.warning_count += 1;
        if self.warnings.len() < KEPT_WARNINGS {
            self.warnings.push(warning);
        }
    }
}

/// Handle records on disk, read by many at once and written by one import at a time.
pub struct Store {
    /// The records as the last commit left them: one read transaction shared by every
    /// read until the next commit replaces it (a reader holds the snapshot it took, so it
    /// sees each record whole, old or new). Beginning a transaction and finding the table
    /// for every request cost more than the lookup itself. (Dropped before the database.)
    snapshot: RwLock<Arc<Records>>,
    /// Whether a handle is found only in the case it was stored in (P6).
    case_sensitive: bool,
    /// How many commits have replaced the snapshot: what a cache of answers made from the
    /// records checks that they are still the records'.
    generation: std::sync::atomic::AtomicU64,
    db: Database,
}

type Records = ReadOnlyTable<&'static [u8], &'static [u8]>;

impl Store {
    /// Opens the store at `path`, creating it if it does not exist.
    ///
    /// # Errors
    ///
    /// The file cannot be created or opened (another process holds it open, or it is not a
    /// store).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with_cache(path, DEFAULT_CACHE)
    }

    /// Opens the store at `path` with at most `cache_bytes` of pages cached in memory (the
    /// rest is read from the file, through the operating system's cache): the bound on
    /// what the store holds in memory, whatever the number of records. A store it creates
    /// is readable and writable by its owner only (it will hold secret keys), and a store
    /// it opens that others may read or write (one made before stores were so) is made so.
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub fn open_with_cache(path: &Path, cache_bytes: usize) -> Result<Self, StoreError> {
        let here = |e: &dyn std::fmt::Display| err(&path.display().to_string(), e);
        let mut file = std::fs::OpenOptions::new();
        file.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut file, 0o600);
        let file = file.open(path).map_err(|e| here(&e))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = file.metadata().map_err(|e| here(&e))?.permissions().mode();
            // (Where this process may not change it, not its owner, its owner's choice
            // stands.)
            if mode & 0o077 != 0 {
                let _ = file.set_permissions(std::fs::Permissions::from_mode(mode & 0o700));
            }
        }
        let db = Database::builder()
            .set_cache_size(cache_bytes)
            .create_file(file)
            .map_err(|e| here(&e))?;
        // The table exists from the start, so that a reader never finds it missing.
        let txn = db.begin_write().map_err(|e| err("store", e))?;
        txn.open_table(RECORDS).map_err(|e| err("store", e))?;
        txn.commit().map_err(|e| err("store", e))?;
        let snapshot = RwLock::new(Arc::new(Self::begin(&db)?));
        Ok(Self {
            snapshot,
            case_sensitive: false,
            generation: std::sync::atomic::AtomicU64::new(0),
            db,
        })
    }

    /// Makes a new store at `path` holding the records of `input`, or nothing at all: the
    /// records go into a file beside it (`path` with `.loading` after it), which becomes
    /// `path` only once every record is in; on a failure it is removed, and `path` was
    /// never made. (A crash leaves the `.loading` file, which the next attempt empties and
    /// reuses.)
    ///
    /// # Errors
    ///
    /// `path` exists already, a line is not a record (as [`Store::import`]), or the store
    /// cannot be written.
    pub fn create(
        path: &Path,
        cache_bytes: usize,
        input: impl BufRead,
        name: &str,
    ) -> Result<(Self, Imported), StoreError> {
        let here = |e: &dyn std::fmt::Display| err(&path.display().to_string(), e);
        if path.exists() {
            return Err(here(&"exists already"));
        }
        let loading = loading_path(path);
        let filled = Self::open_with_cache(&loading, cache_bytes).and_then(|store| {
            // Left by a crash: emptied in the import's transaction.
            let done = store.import_into_empty(input, name)?;
            Ok((store, done))
        });
        let done = match filled {
            Ok((store, done)) => {
                drop(store);
                done
            }
            Err(e) => {
                // Ours, unless another process holds it open (then it is not ours to remove).
                if !e.0.contains("already open") {
                    let _ = std::fs::remove_file(&loading);
                }
                return Err(e);
            }
        };
        // Not over a store made meanwhile (another import or server).
        if path.exists() {
            let _ = std::fs::remove_file(&loading);
            return Err(here(
                &"made by another process meanwhile; nothing was imported",
            ));
        }
        std::fs::rename(&loading, path).map_err(|e| here(&e))?;
        Ok((Self::open_with_cache(path, cache_bytes)?, done))
    }

    /// The same store, finding handles only in the ASCII case they were stored in when
    /// `yes` (a case-sensitive service, H6; a DOI is found in any case all the same), or
    /// in any ASCII case (the default, as the reference proxy finds them: P6).
    #[must_use]
    pub fn case_sensitive(mut self, yes: bool) -> Self {
        self.case_sensitive = yes;
        self
    }

    /// A read of the records as last committed.
    fn begin(db: &Database) -> Result<Records, StoreError> {
        let txn = db.begin_read().map_err(|e| err("store", e))?;
        txn.open_table(RECORDS).map_err(|e| err("store", e))
    }

    /// How many imports have been committed since the store was opened: a cache of what
    /// was made from the records holds while it is the same.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The snapshot reads use.
    fn records(&self) -> Arc<Records> {
        Arc::clone(&self.snapshot.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// How many records the store holds.
    ///
    /// # Errors
    ///
    /// A read of the store failed.
    pub fn len(&self) -> Result<u64, StoreError> {
        self.records().len().map_err(|e| err("store", e))
    }

    /// Whether the store holds no record.
    ///
    /// # Errors
    ///
    /// A read of the store failed.
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.len()? == 0)
    }

    /// `f` of the stored JSON of `handle`'s record (found without ASCII case unless the
    /// store is [`Store::case_sensitive`]), read in place; `None` when there is no record.
    ///
    /// # Errors
    ///
    /// A read of the store failed.
    pub fn with_json<T>(
        &self,
        handle: HandleRef<'_>,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Result<Option<T>, StoreError> {
        let table = self.records();
        let mut found = table
            .get(key(handle).as_bytes())
            .map_err(|e| err("store", e))?;
        if found.is_none() && !handle.is_canonical() {
            // A store written before keys were lower case: its keys are canonical (C1).
            found = table
                .get(handle.canonical().as_str().as_bytes())
                .map_err(|e| err("store", e))?;
        }
        let found = found.filter(|bytes| {
            !self.case_sensitive
                || handle.is_doi()
                || stored_handle(bytes.value()).is_some_and(|(_, h)| h == handle.as_str())
        });
        Ok(found.map(|bytes| f(bytes.value())))
    }

    /// The record of `handle` as stored: the REST API JSON `Response::to_json` wrote when
    /// it was imported.
    ///
    /// # Errors
    ///
    /// A read of the store failed.
    pub fn get_json(&self, handle: HandleRef<'_>) -> Result<Option<Vec<u8>>, StoreError> {
        self.with_json(handle, <[u8]>::to_vec)
    }

    /// The record of `handle` (compared by its canonical form: a DOI in any case).
    ///
    /// # Errors
    ///
    /// A read of the store failed, or what it holds is not a record (a damaged store).
    pub fn get(&self, handle: HandleRef<'_>) -> Result<Option<Response>, StoreError> {
        self.with_json(handle, |bytes| parse_stored(handle.as_str(), bytes, None))?
            .transpose()
    }

    /// The record of `handle` with every value, those that deny public read too (keys):
    /// for deciding who a request is from and what it may do (SPEC W3), never for an
    /// answer.
    ///
    /// # Errors
    ///
    /// As [`Store::get`].
    pub fn get_whole(&self, handle: HandleRef<'_>) -> Result<Option<Response>, StoreError> {
        self.with_json(handle, |bytes| parse_whole(handle.as_str(), bytes, None))?
            .transpose()
    }

    /// The record of `handle` with only the values `filter` selects
    /// (`Response::parse_selected`: the others are not built).
    ///
    /// # Errors
    ///
    /// As [`Store::get`].
    pub fn get_selected(
        &self,
        handle: HandleRef<'_>,
        filter: &Filter,
    ) -> Result<Option<Response>, StoreError> {
        self.with_json(handle, |bytes| {
            parse_stored(handle.as_str(), bytes, Some(filter))
        })?
        .transpose()
    }

    /// The handles under `prefix` (`20.1000` lists `20.1000/…`, in any ASCII case, as the
    /// store keys them), in the store's order: how many there are, and those from the
    /// `skip`th, at most `take` (each as its record writes it). The keys are counted, and
    /// only the records listed are read.
    ///
    /// # Errors
    ///
    /// A read of the store failed.
    pub fn list_prefix(
        &self,
        prefix: &str,
        skip: u64,
        take: usize,
    ) -> Result<(u64, Vec<String>), StoreError> {
        let table = self.records();
        let start = format!("{}/", prefix.to_ascii_lowercase());
        // The keys after every `prefix/…`: `/` is followed by `0`.
        let end = format!("{}0", prefix.to_ascii_lowercase());
        let range = table
            .range(start.as_bytes()..end.as_bytes())
            .map_err(|e| err("store", e))?;
        let (mut total, mut listed) = (0_u64, Vec::new());
        for entry in range {
            let (k, v) = entry.map_err(|e| err("store", e))?;
            if total >= skip && listed.len() < take {
                let handle = stored_handle(v.value()).map_or_else(
                    || String::from_utf8_lossy(k.value()).into_owned(),
                    |(_, h)| h,
                );
                listed.push(handle);
            }
            total += 1;
        }
        Ok((total, listed))
    }

    /// Imports records: one REST API response per line (the format `hdl record` reads),
    /// each a success with a handle, at most [`MAX_RECORD_VALUES`] values and
    /// [`MAX_RECORD_BYTES`] of JSON. A record replaces the stored record of the same
    /// handle. All or nothing: the records are written in one transaction, committed once
    /// every line is read, so that readers see all of them at once, or, on an error,
    /// nothing of them. A success that lists no values is stored as code 200, the code the
    /// reference server answers for it (and `hdl record --json` writes).
    ///
    /// # Errors
    ///
    /// A line that is not a record, or too large, with its line number (nothing is
    /// stored), or a write that failed.
    pub fn import(&self, input: impl BufRead, name: &str) -> Result<Imported, StoreError> {
        self.write(input, name, false)
    }

    /// [`Store::import`] into a store emptied first, in the same transaction.
    fn import_into_empty(&self, input: impl BufRead, name: &str) -> Result<Imported, StoreError> {
        self.write(input, name, true)
    }

    fn write(&self, input: impl BufRead, name: &str, empty: bool) -> Result<Imported, StoreError> {
        let txn = self.db.begin_write().map_err(|e| err("store", e))?;
        if empty {
            txn.delete_table(RECORDS).map_err(|e| err("store", e))?;
        }
        let read = txn
            .open_table(RECORDS)
            .map_err(|e| err("store", e))
            .and_then(|mut table| {
                read_records(input, name, |key, json| {
                    table
                        .insert(key.as_bytes(), json.as_bytes())
                        .map(|old| old.and_then(|o| stored_handle(o.value()).map(|(_, h)| h)))
                        .map_err(|e| err("store", e))
                })
            });
        let done = match read {
            Ok(done) => done,
            Err(e) => {
                // Nothing of it stays.
                let _ = txn.abort();
                return Err(e);
            }
        };
        txn.commit().map_err(|e| err("store", e))?;
        self.publish()?;
        Ok(done)
    }

    /// After a commit: reads from now on see it; those under way finish on the snapshot
    /// they hold. The new snapshot is begun under the lock: of two commits at once, the
    /// one that replaces the snapshot last begins it after both. The generation moves on,
    /// so that every cache of answers (the protocol server's) lets go of the old records.
    fn publish(&self) -> Result<(), StoreError> {
        let mut snapshot = self
            .snapshot
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        *snapshot = Arc::new(Self::begin(&self.db)?);
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// One write of one handle's record, atomic and durable: `decide` is given a reader of
    /// the records as this write transaction sees them (for the admins, keys and groups
    /// it checks) and the record of `handle`, and says what becomes of it. redb has one
    /// write transaction at a time, so an import and a write never lose each other's
    /// changes: whichever comes second reads what the first committed. Committed (and
    /// synced) before this returns; readers see it from then on.
    ///
    /// # Errors
    ///
    /// A read or the write failed, or a stored record does not read.
    pub fn change<T>(
        &self,
        handle: HandleRef<'_>,
        decide: impl FnOnce(&Lookup<'_>, Option<Response>) -> (Change, T),
    ) -> Result<T, StoreError> {
        let txn = self.db.begin_write().map_err(|e| err("store", e))?;
        let outcome = {
            let mut table = txn.open_table(RECORDS).map_err(|e| err("store", e))?;
            let (change, outcome) = {
                let read = |h: HandleRef<'_>| -> Result<Option<Response>, StoreError> {
                    let found = table.get(key(h).as_bytes()).map_err(|e| err("store", e))?;
                    let found = found.filter(|bytes| {
                        !self.case_sensitive
                            || h.is_doi()
                            || stored_handle(bytes.value()).is_some_and(|(_, s)| s == h.as_str())
                    });
                    found
                        .map(|bytes| parse_whole(h.as_str(), bytes.value(), None))
                        .transpose()
                };
                let current = read(handle)?;
                decide(&read, current)
            };
            match change {
                Change::Keep => (false, outcome),
                Change::Put(record) => {
                    let stored = record_json(&record);
                    if stored.len() > MAX_RECORD_BYTES {
                        return Err(err(
                            handle.as_str(),
                            format!(
                                "the record would be {} bytes: at most {MAX_RECORD_BYTES}",
                                stored.len()
                            ),
                        ));
                    }
                    table
                        .insert(key(handle).as_bytes(), stored.as_bytes())
                        .map_err(|e| err("store", e))?;
                    (true, outcome)
                }
                Change::Delete => {
                    table
                        .remove(key(handle).as_bytes())
                        .map_err(|e| err("store", e))?;
                    (true, outcome)
                }
            }
        };
        let (changed, outcome) = outcome;
        if changed {
            txn.commit().map_err(|e| err("store", e))?;
            self.publish()?;
        } else {
            let _ = txn.abort();
        }
        Ok(outcome)
    }
}

/// A reader of records by handle: `None` where there is none.
pub type Lookup<'a> = dyn Fn(HandleRef<'_>) -> Result<Option<Response>, StoreError> + 'a;

/// What a write does to a record.
#[derive(Debug)]
pub enum Change {
    /// Nothing: the request is refused, or changes nothing.
    Keep,
    /// The record becomes this one.
    Put(Response),
    /// The record is removed.
    Delete,
}

/// The JSON a record is stored as, as an import stores it (R6): data by what it is, no
/// timestamp 0; a success without values as code 200.
fn record_json(record: &Response) -> String {
    let served = record.as_reference_writes();
    if record.code() == ResponseCode::Success && record.values().is_empty() {
        served.filtered(&Filter::new()).to_json()
    } else {
        served.to_json()
    }
}

/// The file a new store is filled in before it takes its name: `path` and `.loading`.
#[must_use]
pub fn loading_path(path: &Path) -> PathBuf {
    let mut loading = path.as_os_str().to_owned();
    loading.push(".loading");
    PathBuf::from(loading)
}

/// A stored record read from its bytes (only the values `filter` selects, when there is
/// one), as anyone may read it: without the values whose `permissions` deny public read
/// (an `HS_SECKEY` written `1100`), as the reference answers a request that is not
/// authenticated (SPEC W3).
pub(crate) fn parse_stored(
    handle: &str,
    bytes: &[u8],
    filter: Option<&Filter>,
) -> Result<Response, StoreError> {
    let record = parse_whole(handle, bytes, filter)?;
    if !record.values().iter().any(|v| !public_read(v)) {
        return Ok(record);
    }
    let Some(h) = record.handle().cloned() else {
        return Ok(record);
    };
    let kept = record
        .values()
        .iter()
        .filter(|v| public_read(v))
        .cloned()
        .collect();
    Ok(Response::new(h, kept))
}

/// Whether anyone may read the value: its `permissions` (admin read, admin write,
/// public read, public write, read from the right as the reference reads them) say so,
/// or it has none.
pub fn public_read(v: &handle_id::record::HandleValue) -> bool {
    v.permissions()
        .and_then(|p| p.as_bytes().iter().rev().nth(1))
        .is_none_or(|&b| b == b'1')
}

/// Whether stored JSON may hold a value anyone may not read (then it is not served as
/// it is): a `permissions` whose public-read flag (the second from the right, as
/// [`public_read`] reads it) is not `1`, or one written in another shape than the one
/// `Response::to_json` writes (looked at closer, by reading the record).
#[must_use]
pub fn may_restrict(json: &[u8]) -> bool {
    const KEY: &[u8] = b"\"permissions\":\"";
    memchr::memmem::find_iter(json, b"\"permissions\"").any(|at| {
        let Some(value) = json[at..].strip_prefix(KEY) else {
            return true;
        };
        let end = memchr::memchr(b'"', value).unwrap_or(value.len());
        value[..end].iter().rev().nth(1).is_some_and(|&b| b != b'1')
    })
}

/// A stored record read from its bytes, every value of it.
fn parse_whole(
    handle: &str,
    bytes: &[u8],
    filter: Option<&Filter>,
) -> Result<Response, StoreError> {
    let text = std::str::from_utf8(bytes).map_err(|e| err(handle, e))?;
    match filter {
        None => Response::parse(text),
        Some(filter) => Response::parse_selected(text, filter),
    }
    .map_err(|e| err(&format!("stored record of {handle}"), e))
}

/// Reads the records of `input` (named `name` in errors and warnings), each checked, and
/// hands each to `put` as its key and the JSON to store.
fn read_records(
    mut input: impl BufRead,
    name: &str,
    mut put: impl FnMut(&str, &str) -> Result<Option<String>, StoreError>,
) -> Result<Imported, StoreError> {
    let mut done = Imported::default();
    let mut line = Vec::new();
    for number in 1_u64.. {
        let at = || format!("{name}: line {number}");
        line.clear();
        if !read_line(&mut input, &mut line, MAX_RECORD_BYTES).map_err(|e| err(&at(), e))? {
            break;
        }
        let text = std::str::from_utf8(&line)
            .map_err(|e| err(&at(), format!("not UTF-8 at byte {}", e.valid_up_to())))?;
        if text.trim().is_empty() {
            done.empty_lines += 1;
            continue;
        }
        let record = Response::parse(text).map_err(|e| {
            // A line of JSON is the JSON's line 1: its column joins the import's line, so
            // that the message states one place.
            match e.at().strip_prefix("line 1, column ") {
                Some(column) => err(
                    &format!("{name}: line {number}, column {column}"),
                    e.message(),
                ),
                None => err(&at(), e),
            }
        })?;
        let handle = check(&record).map_err(|e| err(&at(), e))?;
        if record.values().len() > MAX_RECORD_VALUES {
            return Err(err(
                &at(),
                format!(
                    "{} values: a record holds at most {MAX_RECORD_VALUES} (the reference server's bound)",
                    record.values().len()
                ),
            ));
        }
        for (i, v) in record.values().iter().enumerate() {
            if !v.has_type("10320/loc.") {
                continue;
            }
            let problem = match v.as_text() {
                None => Some(format!("its data is {}, not text", v.data().format())),
                Some(xml) => Locations::parse_as_proxy(xml).err().map(|e| e.to_string()),
            };
            if let Some(problem) = problem {
                done.warn(format!(
                    "{}: values[{i}] ({LOC_TYPE}, index {}) does not read, and redirects pass it over: {problem}",
                    at(),
                    v.index()
                ));
            }
        }
        let json = record_json(&record);
        if let Some(old) = put(&key(handle.as_handle_ref()), &json)? {
            if old != handle.as_str() {
                done.warn(format!(
                    "{}: {} replaces {old}: handles are found without ASCII case, so a store holds one of them (SPEC P6)",
                    at(),
                    handle.as_str()
                ));
            }
        }
        done.records += 1;
    }
    Ok(done)
}

/// Reads one line into `line` without its line end (`\n` or `\r\n`, as `BufRead::lines`
/// reads them): `false` at the end of `input`. A line of more than `max` bytes is an
/// error, read no further than that: the memory a line takes is bounded.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<bool> {
    loop {
        let buffer = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            if line.len() > max {
                return Err(too_long(max));
            }
            return Ok(!line.is_empty());
        }
        let (take, end) = match memchr::memchr(b'\n', buffer) {
            Some(i) => (i + 1, true),
            None => (buffer.len(), false),
        };
        // Room for the line end besides `max`.
        if line.len() + take > max + 2 {
            return Err(too_long(max));
        }
        line.extend_from_slice(&buffer[..take]);
        input.consume(take);
        if end {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > max {
                return Err(too_long(max));
            }
            return Ok(true);
        }
    }
}

fn too_long(max: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "longer than {max} bytes: a record is at most {} MiB",
            max >> 20
        ),
    )
}

/// What makes a response a record to store: a success with the handle it is of.
fn check(record: &Response) -> Result<&Handle, &'static str> {
    if !matches!(
        record.code(),
        ResponseCode::Success | ResponseCode::ValuesNotFound
    ) {
        return Err("not a record: its responseCode is not 1 or 200 (SPEC R1)");
    }
    record.handle().ok_or("not a record: no handle (SPEC R1)")
}

/// The key of a handle: the handle in ASCII lower case (P6), so that it is found in any
/// ASCII case (a DOI's canonical form, C1, is the same).
fn key(handle: HandleRef<'_>) -> Cow<'_, str> {
    let h = handle.as_str();
    if h.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(h.to_ascii_lowercase())
    } else {
        Cow::Borrowed(h)
    }
}

/// Where the handle of a stored record is in its JSON (the byte range of its JSON
/// string, quotes included) and what it is: the writer puts it right after the response
/// code.
pub fn stored_handle(json: &[u8]) -> Option<(std::ops::Range<usize>, String)> {
    const AFTER: &[u8] = b",\"handle\":";
    let start = memchr::memmem::find(json.get(..64.min(json.len()))?, AFTER)? + AFTER.len();
    let mut strings = serde_json::Deserializer::from_slice(&json[start..]).into_iter::<String>();
    let handle = strings.next()?.ok()?;
    Some((start..start + strings.byte_offset(), handle))
}

#[cfg(test)]
mod tests {
    /// `may_restrict` says so of every record that `parse_stored` would serve with fewer
    /// values, and passes over the usual ones (`1110`, none) without reading them.
    #[test]
    fn restricted_records_are_told_by_their_bytes() {
        let record = |perms: &str| {
            format!(
                r#"{{"responseCode":1,"handle":"20.1000/k","values":[{{"index":1,"type":"URL","data":{{"format":"string","value":"http://x/\"permissions\":\"1100\""}}{perms}}}]}}"#
            )
        };
        for (perms, restricted) in [
            ("", false),
            (r#","permissions":"1110""#, false),
            (r#","permissions":"1111""#, false),
            (r#","permissions":"1100""#, true),
            (r#","permissions":"0""#, false),
        ] {
            let json = record(perms);
            let read = parse_stored("20.1000/k", json.as_bytes(), None).unwrap();
            assert_eq!(read.values().is_empty(), restricted, "{json}");
            assert_eq!(may_restrict(json.as_bytes()), restricted, "{json}");
        }
        // Another shape than the one written: looked at closer.
        assert!(may_restrict(br#"{"permissions" : "1110"}"#));
    }

    use super::*;

    /// Imports two at a time: once both return, reads see both records (each commit puts
    /// a new snapshot in place; that the last one is begun after both commits, under the
    /// lock, is too narrow a race to provoke here).
    #[test]
    fn reads_see_every_import_once_it_returns() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb")).unwrap();
        for round in 0..50 {
            let record = |i: u32| {
                format!("{{\"responseCode\":1,\"handle\":\"20.1000/{round}-{i}\",\"values\":[]}}\n")
            };
            std::thread::scope(|s| {
                for i in 0..2 {
                    let (store, line) = (&store, record(i));
                    s.spawn(move || store.import(line.as_bytes(), "test").unwrap());
                }
            });
            for i in 0..2 {
                let handle = format!("20.1000/{round}-{i}");
                let handle = HandleRef::parse(&handle).unwrap();
                assert!(store.get(handle).unwrap().is_some(), "{handle}");
            }
        }
        assert_eq!(store.len().unwrap(), 100);
    }

    fn record(handle: &str) -> String {
        format!("{{\"responseCode\":1,\"handle\":\"{handle}\",\"values\":[{{\"index\":1,\"type\":\"URL\",\"data\":{{\"format\":\"string\",\"value\":\"http://x/\"}}}}]}}\n")
    }

    /// An import with a bad line, however far in, stores nothing of it: readers see the
    /// store as it was.
    #[test]
    fn an_import_is_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb")).unwrap();
        store
            .import(record("20.1000/kept").as_bytes(), "first")
            .unwrap();
        let mut lines: String = (0..25_000)
            .map(|i| record(&format!("20.1000/{i}")))
            .collect();
        lines.push_str("{\"responseCode\":1}\n");
        let e = store.import(lines.as_bytes(), "big").unwrap_err();
        assert_eq!(
            e.to_string(),
            "big: line 25001: not a record: no handle (SPEC R1)"
        );
        assert_eq!(store.len().unwrap(), 1);
        assert!(store
            .get(HandleRef::parse("20.1000/0").unwrap())
            .unwrap()
            .is_none());
        // The store takes the next import as ever.
        let done = store
            .import(lines.as_bytes().split_at(lines.len() - 20).0, "big")
            .unwrap();
        assert_eq!(done.records, 25_000);
        assert_eq!(store.len().unwrap(), 25_001);
    }

    /// A new store is made whole or not at all: on a failure neither it nor its
    /// `.loading` file is left; a `.loading` file a crash left is emptied and reused.
    /// A store that others may read (made before stores were their owner's only) is made
    /// its owner's only when it is opened, its records kept.
    #[cfg(unix)]
    #[test]
    fn a_store_others_may_read_is_made_its_owners_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.redb");
        Store::open(&path)
            .unwrap()
            .import(record("20.1000/1").as_bytes(), "one")
            .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let store = Store::open(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(store.len().unwrap(), 1);
    }

    #[test]
    fn a_new_store_is_made_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.redb");
        let loading = loading_path(&path);
        let bad = format!("{}not a record\n", record("20.1000/1"));
        assert!(Store::create(&path, 1 << 20, bad.as_bytes(), "bad").is_err());
        assert!(!path.exists() && !loading.exists());
        // What a crash leaves: a loading file with records in it.
        Store::open(&loading)
            .unwrap()
            .import(record("20.1000/stale").as_bytes(), "stale")
            .unwrap();
        let (store, done) =
            Store::create(&path, 1 << 20, record("20.1000/1").as_bytes(), "good").unwrap();
        assert_eq!((done.records, store.len().unwrap()), (1, 1));
        assert!(path.exists() && !loading.exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Not over a store that is there.
        drop(store);
        let e = Store::create(&path, 1 << 20, &b""[..], "again")
            .err()
            .unwrap();
        assert!(e.0.ends_with("exists already"), "{e}");
    }

    /// A line is read to its bound and no further, however long it goes on.
    #[test]
    fn lines_are_bounded() {
        let mut endless = io::BufReader::new(io::repeat(b'x'));
        let mut line = Vec::new();
        let e = read_line(&mut endless, &mut line, 1000).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(line.len() <= 1002 + 8192, "{}", line.len());
        // At the bound, with either line end or none, a line is read.
        for input in [&b"xxxx\r\nyy"[..], b"xxxx\nyy", b"xxxx"] {
            let mut input = input;
            let mut line = Vec::new();
            assert!(read_line(&mut input, &mut line, 4).unwrap());
            assert_eq!(line, b"xxxx");
        }
        for input in [&b"xxxxx\n"[..], b"xxxxx"] {
            let mut input = input;
            assert!(read_line(&mut input, &mut Vec::new(), 4).is_err());
        }
    }

    /// A success without values is stored as code 200; a 10320/loc value that does not
    /// read is stored and warned of, the warnings counted and the first kept.
    #[test]
    fn what_an_import_stores_and_warns_of() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb")).unwrap();
        store
            .import(&b"{\"responseCode\":1,\"handle\":\"20.1000/e\",\"values\":[]}\n{\"responseCode\":1,\"handle\":\"20.1000/n\"}"[..], "r")
            .unwrap();
        assert_eq!(
            store
                .get_json(HandleRef::parse("20.1000/e").unwrap())
                .unwrap()
                .unwrap(),
            b"{\"responseCode\":200,\"handle\":\"20.1000/e\",\"values\":[]}"
        );
        assert_eq!(
            store
                .get_json(HandleRef::parse("20.1000/n").unwrap())
                .unwrap()
                .unwrap(),
            b"{\"responseCode\":1,\"handle\":\"20.1000/n\"}"
        );
        let bad_loc = |i: usize| {
            format!("{{\"responseCode\":1,\"handle\":\"20.1000/l{i}\",\"values\":[{{\"index\":7,\"type\":\"10320/loc\",\"data\":{{\"format\":\"hex\",\"value\":\"00\"}}}}]}}\n")
        };
        let lines: String = (0..30).map(bad_loc).collect();
        let done = store.import(lines.as_bytes(), "w").unwrap();
        assert_eq!((done.records, done.warning_count), (30, 30));
        assert_eq!(done.warnings.len(), KEPT_WARNINGS);
        assert_eq!(
            done.warnings[1],
            "w: line 2: values[0] (10320/loc, index 7) does not read, and redirects pass it over: its data is hex, not text"
        );
    }
}
