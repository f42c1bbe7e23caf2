//! The embedded store: handle records in a redb file, keyed by the canonical handle (C1),
//! each record the REST API JSON of its response, as one writer writes it.

use std::borrow::Cow;
use std::io::BufRead;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use handle_id::record::{Filter, RecordError, Response, ResponseCode};
use handle_id::{Handle, HandleRef};
use redb::{Database, ReadOnlyTable, ReadableTableMetadata, TableDefinition};

/// Handle (canonical, its UTF-8 bytes) → the record's REST API JSON (`Response::to_json`).
/// Keys are bytes, not `&str`: redb checks a `&str` key's UTF-8 at every comparison, and
/// the keys are checked handles already.
const RECORDS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("records");

/// Records written per transaction on import: each record is replaced atomically (a reader
/// sees the old one or the new one), and a crash loses at most the batch being written,
/// never what was committed.
const BATCH: usize = 10_000;

/// The page cache of [`Store::open`]: 64 MiB.
pub const DEFAULT_CACHE: usize = 64 << 20;

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    /// Records written (new or replaced).
    pub records: u64,
    /// Lines skipped: empty.
    pub empty_lines: u64,
}

/// Handle records on disk, read by many at once and written by one import at a time.
pub struct Store {
    /// The records as the last commit left them: one read transaction shared by every
    /// read until the next commit replaces it (a reader holds the snapshot it took, so it
    /// sees each record whole, old or new). Beginning a transaction and finding the table
    /// for every request cost more than the lookup itself. (Dropped before the database.)
    snapshot: RwLock<Arc<Records>>,
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
    /// what the store holds in memory, whatever the number of records.
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub fn open_with_cache(path: &Path, cache_bytes: usize) -> Result<Self, StoreError> {
        let db = Database::builder()
            .set_cache_size(cache_bytes)
            .create(path)
            .map_err(|e| err(&path.display().to_string(), e))?;
        // The table exists from the start, so that a reader never finds it missing.
        let txn = db.begin_write().map_err(|e| err("store", e))?;
        txn.open_table(RECORDS).map_err(|e| err("store", e))?;
        txn.commit().map_err(|e| err("store", e))?;
        let snapshot = RwLock::new(Arc::new(Self::begin(&db)?));
        Ok(Self { snapshot, db })
    }

    /// A read of the records as last committed.
    fn begin(db: &Database) -> Result<Records, StoreError> {
        let txn = db.begin_read().map_err(|e| err("store", e))?;
        txn.open_table(RECORDS).map_err(|e| err("store", e))
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

    /// The record of `handle` as stored: the REST API JSON `Response::to_json` wrote when
    /// it was imported.
    ///
    /// # Errors
    ///
    /// A read of the store failed.
    pub fn get_json(&self, handle: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let key = key(handle);
        Ok(self
            .records()
            .get(key.as_bytes())
            .map_err(|e| err("store", e))?
            .map(|bytes| bytes.value().to_vec()))
    }

    /// The record of `handle` (compared by its canonical form: a DOI in any case).
    ///
    /// # Errors
    ///
    /// A read of the store failed, or what it holds is not a record (a damaged store).
    pub fn get(&self, handle: &str) -> Result<Option<Response>, StoreError> {
        self.read(handle, Response::parse)
    }

    /// The record of `handle` with only the values `filter` selects
    /// (`Response::parse_selected`: the others are not built).
    ///
    /// # Errors
    ///
    /// As [`Store::get`].
    pub fn get_selected(
        &self,
        handle: &str,
        filter: &Filter,
    ) -> Result<Option<Response>, StoreError> {
        self.read(handle, |text| Response::parse_selected(text, filter))
    }

    /// The record of `handle` read by `parse` from the stored bytes, without a copy.
    fn read(
        &self,
        handle: &str,
        parse: impl FnOnce(&str) -> Result<Response, RecordError>,
    ) -> Result<Option<Response>, StoreError> {
        let key = key(handle);
        let table = self.records();
        let Some(bytes) = table.get(key.as_bytes()).map_err(|e| err("store", e))? else {
            return Ok(None);
        };
        let text = std::str::from_utf8(bytes.value()).map_err(|e| err(handle, e))?;
        parse(text)
            .map(Some)
            .map_err(|e| err(&format!("stored record of {handle}"), e))
    }

    /// Imports records: one REST API response per line (the format `hdl record` reads),
    /// each a success with a handle. A record replaces the stored record of the same
    /// handle. Every line is checked before its batch is written.
    ///
    /// # Errors
    ///
    /// A line that is not a record, with its line number (the batches before it are
    /// stored), or a write that failed.
    pub fn import(&self, input: impl BufRead, name: &str) -> Result<Imported, StoreError> {
        let mut done = Imported::default();
        let mut batch: Vec<(String, String)> = Vec::with_capacity(BATCH);
        for (i, line) in input.lines().enumerate() {
            let line = line.map_err(|e| err(&format!("{name}: line {}", i + 1), e))?;
            if line.trim().is_empty() {
                done.empty_lines += 1;
                continue;
            }
            let record =
                Response::parse(&line).map_err(|e| err(&format!("{name}: line {}", i + 1), e))?;
            let handle = check(&record).map_err(|e| err(&format!("{name}: line {}", i + 1), e))?;
            batch.push((key(handle.as_str()).into_owned(), record.to_json()));
            if batch.len() == BATCH {
                done.records += self.write(&mut batch)?;
            }
        }
        done.records += self.write(&mut batch)?;
        Ok(done)
    }

    /// Writes `records` in one transaction, and empties the list.
    fn write(&self, records: &mut Vec<(String, String)>) -> Result<u64, StoreError> {
        if records.is_empty() {
            return Ok(0);
        }
        let txn = self.db.begin_write().map_err(|e| err("store", e))?;
        {
            let mut table = txn.open_table(RECORDS).map_err(|e| err("store", e))?;
            for (k, v) in records.iter() {
                table
                    .insert(k.as_bytes(), v.as_bytes())
                    .map_err(|e| err("store", e))?;
            }
        }
        txn.commit().map_err(|e| err("store", e))?;
        // Reads from now on see this batch; those under way finish on the snapshot they hold.
        // The new snapshot is begun under the lock: of two imports committing at once, the
        // one that replaces the snapshot last begins it after both commits.
        let mut snapshot = self
            .snapshot
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        *snapshot = Arc::new(Self::begin(&self.db)?);
        drop(snapshot);
        let n = records.len() as u64;
        records.clear();
        Ok(n)
    }
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

/// The key of a handle: its canonical form (C1), so that a DOI is found in any case.
fn key(handle: &str) -> Cow<'_, str> {
    match HandleRef::parse(handle) {
        Ok(h) if h.is_canonical() => Cow::Borrowed(handle),
        Ok(h) => Cow::Owned(h.canonical().into_string()),
        // Not a handle: a key no record has (records' handles are validated).
        Err(_) => Cow::Borrowed(handle),
    }
}

#[cfg(test)]
mod tests {
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
                assert!(store.get(&handle).unwrap().is_some(), "{handle}");
            }
        }
        assert_eq!(store.len().unwrap(), 100);
    }
}
