//! The vectorised API (`handle_id.arrow`): the scalar functions over a whole Arrow array,
//! taken and returned through the Arrow C data interface (no Python object per value).
//! The work runs without the GIL; a long column in parts on as many threads as the machine
//! has cores, or as the call says (`parts`).

use std::sync::Arc;
use std::thread;

use arrow_array::builder::{ArrayBuilder, BooleanBuilder, Int64Builder};
use arrow_array::cast::AsArray;
use arrow_array::{make_array, Array, ArrayRef, ListArray, StructArray};
use arrow_buffer::{Buffer, NullBuffer, NullBufferBuilder, OffsetBuffer};
use arrow_data::ArrayData;
use arrow_pyarrow::{FromPyArrowUnchecked, ToPyArrow};
use arrow_schema::{DataType, Field, Fields};
use handle_id::{Form, HandleRef, Options, ParseError, ProxyBase, Written};
use pyo3::prelude::*;

use crate::cores;
use crate::failure::Failure;
use crate::names::{self, Names};
use crate::offsets::CharIndex;
use crate::options::{self, options};
use crate::strings::{self, Strings};
use crate::validity;

/// One value of the input column.
#[derive(Clone, Copy)]
enum Value<'a> {
    /// A string column's value: offsets are Python string offsets into it.
    Text(&'a str),
    /// A binary column's value: offsets are byte offsets into it.
    Bytes(&'a [u8]),
}

impl<'a> Value<'a> {
    /// The value as text, or the error at its first byte that is not UTF-8 (H5), as the
    /// `hdl` command says it of a line.
    fn text(&self) -> Result<&'a str, ParseError> {
        match *self {
            Value::Text(s) => Ok(s),
            Value::Bytes(b) => std::str::from_utf8(b)
                .map_err(|_| HandleRef::parse_bytes(b).expect_err("not UTF-8")),
        }
    }
}

/// Calls `f` with each value of `array` (None for a null), in order. A dictionary's
/// values (pyarrow's and pandas' categorical columns, Polars' `Categorical`) are read once
/// and given for each row by its key.
fn for_each<'a>(array: &'a dyn Array, mut f: impl FnMut(Option<Value<'a>>)) -> Result<(), Failure> {
    match array.data_type() {
        DataType::Utf8 => array
            .as_string::<i32>()
            .iter()
            .for_each(|v| f(v.map(Value::Text))),
        DataType::LargeUtf8 => array
            .as_string::<i64>()
            .iter()
            .for_each(|v| f(v.map(Value::Text))),
        DataType::Utf8View => array
            .as_string_view()
            .iter()
            .for_each(|v| f(v.map(Value::Text))),
        DataType::Binary => array
            .as_binary::<i32>()
            .iter()
            .for_each(|v| f(v.map(Value::Bytes))),
        DataType::LargeBinary => array
            .as_binary::<i64>()
            .iter()
            .for_each(|v| f(v.map(Value::Bytes))),
        DataType::BinaryView => array
            .as_binary_view()
            .iter()
            .for_each(|v| f(v.map(Value::Bytes))),
        DataType::Dictionary(_, _) => {
            let dictionary = array.as_any_dictionary();
            let values = values_of(dictionary.values().as_ref())?;
            if values.is_empty() {
                // (Every row null, as the check of the keys holds: arrow-rs finds no key of
                // a dictionary without values.)
                (0..array.len()).for_each(|_| f(None));
                return Ok(());
            }
            let nulls = array.nulls();
            for (row, key) in dictionary.normalized_keys().into_iter().enumerate() {
                // (A null row's key may be anything.)
                f(if nulls.is_some_and(|n| n.is_null(row)) {
                    None
                } else {
                    values.get(key).copied().flatten()
                });
            }
        }
        DataType::Null => (0..array.len()).for_each(|_| f(None)),
        other => {
            return Err(Failure::Type(format!(
                "expected an array of strings or binary, not {other}"
            )))
        }
    }
    Ok(())
}

/// The input column, checked as arrow-rs checks an import (`validate_full`): its layout
/// here; the values of a `string`, `binary` or `string_view` column (each one's bounds and,
/// for strings, its UTF-8: a pass over every value) by each part on its own thread
/// (`parts`, through `check_part`), before anything reads them; a `string_view` column's
/// UTF-8 as `views_valid` says.
pub(crate) struct Input {
    array: ArrayRef,
    /// The values are left to the parts to check.
    values_unchecked: bool,
}

/// A dictionary's values, each once (not a dictionary itself: `for_each` reads them).
fn values_of(values: &dyn Array) -> Result<Vec<Option<Value<'_>>>, Failure> {
    if let DataType::Dictionary(_, _) = values.data_type() {
        return Err(Failure::Type("a dictionary of dictionaries".into()));
    }
    let mut out = Vec::with_capacity(values.len());
    for_each(values, |v| out.push(v))?;
    Ok(out)
}

/// The input array, from any object that has `__arrow_c_array__` (pyarrow, and what
/// speaks the Arrow PyCapsule interface).
fn input(array: &Bound<'_, PyAny>) -> PyResult<Input> {
    // SAFETY: nothing reads the data before `Input::of` checks it.
    let data = unsafe { ArrayData::from_pyarrow_bound_unchecked(array)? };
    Ok(Input::of(data)?)
}

impl Input {
    /// `data`, taken as it came (its layout and values not yet checked), checked: all of it
    /// here, or (the values of a `string`, `binary` or `string_view` column, whose layout is
    /// checked here) by `check_part`, before the part's work. What `parts` reads before that
    /// is the first and last offsets, which the layout's check holds within the values, or
    /// the views' lengths.
    pub(crate) fn of(data: ArrayData) -> Result<Self, Failure> {
        if let DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::Utf8View = data.data_type()
        {
            data.validate().map_err(Failure::value)?;
            return Ok(Input {
                array: make_array(data),
                values_unchecked: true,
            });
        }
        data.validate_full().map_err(Failure::value)?;
        Ok(Input {
            array: make_array(data),
            values_unchecked: false,
        })
    }
}

/// `data`'s values checked as `validate_full` checks them (each one's bounds, and UTF-8
/// where they are strings), its layout checked already. (A string array's in bulk where
/// its bytes are ASCII, `ascii_in_order`; a string view array's in one pass over its views,
/// `views_valid`; else, or where those cannot tell, one by one, which also says where.)
fn check_values(data: &ArrayData) -> Result<(), arrow_schema::ArrowError> {
    let bulk = match data.data_type() {
        DataType::Utf8 => ascii_in_order::<i32>(data),
        DataType::LargeUtf8 => ascii_in_order::<i64>(data),
        DataType::Utf8View => views_valid(data),
        _ => false,
    };
    if bulk {
        return data.validate_nulls();
    }
    data.validate_data()
}

/// Whether a string array's offsets (its layout checked already) never go back and the
/// bytes from the first to the last are ASCII: then every value is UTF-8 and starts and
/// ends on a character's boundary, what arrow-rs checks value by value (a tenth of a
/// column's cleaning). `false` where not, or where the buffers are not as that needs: the
/// caller checks value by value, and says where.
fn ascii_in_order<O: arrow_array::OffsetSizeTrait>(data: &ArrayData) -> bool {
    let (Some(offsets), Some(values)) = (data.buffers().first(), data.buffers().get(1)) else {
        return false;
    };
    let Some(offsets) = offsets
        .typed_data::<O>()
        .get(data.offset()..=data.offset() + data.len())
    else {
        return false;
    };
    // (A negative offset has no `usize`.)
    let (Some(first), Some(last)) = (offsets[0].to_usize(), offsets[offsets.len() - 1].to_usize())
    else {
        return false;
    };
    offsets.windows(2).all(|w| w[0] <= w[1])
        && values
            .as_slice()
            .get(first..last)
            .is_some_and(<[u8]>::is_ascii)
}

/// `part` of `input`'s column checked where `input` left its values to the parts: what
/// `validate_full` checks of them. An error names the value by its place in the whole
/// column (the whole checked again to say where, as one check of it would have).
fn check_part(input: &Input, part: &dyn Array) -> Result<(), Failure> {
    if !input.values_unchecked {
        return Ok(());
    }
    let Err(e) = check_values(&part.to_data()) else {
        return Ok(());
    };
    Err(Failure::value(
        input.array.to_data().validate_full().err().unwrap_or(e),
    ))
}

/// Whether every view of a string view array (its layout checked) is as arrow-rs checks
/// each one (`validate_string_view`), told in bulk: an inline view's padding zero and its
/// bytes UTF-8; any other's buffer there, its bytes within it and starting with its prefix;
/// and in each data buffer, the bytes from the first view's start to the last view's end
/// UTF-8 as a whole, each view's ends on characters' boundaries there (looked at only where
/// those bytes are not all ASCII). (Only the bytes the views cover are looked at: a slice of
/// a long column keeps the whole column's buffers.) `false` where any of that fails (bytes
/// no view holds may be anything): the caller checks view by view, and says where.
/// (arrow-rs's look, a call per value, and a second pass for the UTF-8 cost a twentieth of
/// a Polars column's cleaning.)
fn views_valid(data: &ArrayData) -> bool {
    /// The high bit of each byte an inline view holds.
    const HIGH: u128 = 0x8080_8080_8080_8080_8080_8080 << 32;
    let inline = arrow_data::MAX_INLINE_VIEW_LEN as usize;
    let Some(views) = data.buffers()[0]
        .typed_data::<u128>()
        .get(data.offset()..data.offset() + data.len())
    else {
        return false;
    };
    let buffers = &data.buffers()[1..];
    // What the views cover of each buffer, from the first start to the last end.
    let mut spans: Vec<Option<(usize, usize)>> = vec![None; buffers.len()];
    for &v in views {
        let len = v as u32 as usize;
        if len <= inline {
            // (Padding zero, the bytes ASCII: what most short values are.)
            if len < inline && v >> (32 + 8 * len) != 0 {
                return false;
            }
            if v & HIGH != 0 && std::str::from_utf8(&v.to_le_bytes()[4..4 + len]).is_err() {
                return false;
            }
            continue;
        }
        let view = arrow_data::ByteView::from(v);
        let index = view.buffer_index as usize;
        let (start, end) = (view.offset as usize, view.offset as usize + len);
        let Some(b) = buffers
            .get(index)
            .and_then(|b| b.as_slice().get(start..end))
        else {
            return false;
        };
        if b[..4] != view.prefix.to_le_bytes() {
            return false;
        }
        let span = spans[index].get_or_insert((start, end));
        *span = (span.0.min(start), span.1.max(end));
    }
    let mut ascii = true;
    for (span, buffer) in spans.iter().zip(buffers) {
        let Some((start, end)) = *span else { continue };
        let bytes = &buffer.as_slice()[start..end];
        if !bytes.is_ascii() {
            ascii = false;
            if std::str::from_utf8(bytes).is_err() {
                return false;
            }
        }
    }
    // (Bytes that are all ASCII start a character at each.)
    ascii
        || views.iter().all(|&v| {
            let len = v as u32 as usize;
            if len <= inline {
                return true;
            }
            let view = arrow_data::ByteView::from(v);
            let b = buffers[view.buffer_index as usize].as_slice();
            // (A byte that starts no character is a continuation, 0b10xx_xxxx.)
            let boundary = |i: usize| b.get(i).is_none_or(|&c| (c as i8) >= -0x40);
            boundary(view.offset as usize) && boundary(view.offset as usize + len)
        })
}

fn output(py: Python<'_>, array: ArrayRef) -> PyResult<Py<PyAny>> {
    Ok(array.to_data().to_pyarrow(py)?.unbind())
}

/// The buffers that hold `array`'s values' bytes (the values buffer, or a view column's
/// data buffers), for a `string_view` result to point into (`Strings::over`) where a value
/// out is a slice of a value in: no copy of it made, the input held while the result lives.
/// A values buffer is cut to the bytes the array's values span (a slice of a long column
/// keeps the whole column's buffer), so that the result holds no more of it than that.
fn shared_buffers(array: &dyn Array) -> Arc<[Buffer]> {
    let data = array.to_data();
    match array.data_type() {
        DataType::Utf8View | DataType::BinaryView => data.buffers()[1..].iter().cloned().collect(),
        DataType::Dictionary(_, _) => shared_buffers(array.as_any_dictionary().values().as_ref()),
        _ => match (data.buffers().get(1), value_ends(array)) {
            (Some(values), Some((start, end))) if start <= end && end <= values.len() => {
                Arc::from(vec![values.slice_with_length(start, end - start)])
            }
            _ => Arc::from(Vec::new()),
        },
    }
}

/// Where the values of an array of offsets (`string`, `binary` and their large kinds)
/// start and end in its values buffer: its first and last offsets.
fn value_ends(array: &dyn Array) -> Option<(usize, usize)> {
    fn ends<O: Copy + TryInto<usize>>(offsets: &[O]) -> Option<(usize, usize)> {
        Some((
            (*offsets.first()?).try_into().ok()?,
            (*offsets.last()?).try_into().ok()?,
        ))
    }
    match array.data_type() {
        DataType::Utf8 => ends(array.as_string::<i32>().value_offsets()),
        DataType::LargeUtf8 => ends(array.as_string::<i64>().value_offsets()),
        DataType::Binary => ends(array.as_binary::<i32>().value_offsets()),
        DataType::LargeBinary => ends(array.as_binary::<i64>().value_offsets()),
        _ => None,
    }
}

/// The fewest values a part of a column is worked on in, on a thread of its own (a thread
/// costs tens of microseconds; a value a few hundred nanoseconds).
const PART_FROM: usize = 1 << 14;

/// How many threads a column's work may use: `threads`, or as many as the machine runs at
/// once.
pub(crate) fn thread_count(threads: Option<isize>) -> Result<usize, Failure> {
    match threads.map(usize::try_from) {
        None => Ok(cores::count()),
        Some(Ok(n)) if n > 0 => Ok(n),
        Some(_) => Err(Failure::Value(format!(
            "threads must be 1 or more, or None for as many as the machine has cores, not {}",
            threads.unwrap_or_default()
        ))),
    }
}

/// How much a part's builders hold from the start: the rows and value bytes of the whole
/// column for the first part, which the others are joined into, so that neither its work
/// nor the join grows a buffer (a grown buffer is copied into pages the kernel must find
/// and zero first, which costs more than the copy). Room never written is never touched.
#[derive(Clone, Copy)]
struct Room<'a> {
    rows: usize,
    /// The input's value bytes: what a column of values read out of them holds at most
    /// (cleaning takes away; a value that grows grows the buffer, as before).
    bytes: usize,
    /// The whole input's buffers, for `string_view` results to point into
    /// (`shared_buffers`).
    shared: &'a Arc<[Buffer]>,
}

impl<'a> Room<'a> {
    fn of(array: &dyn Array, shared: &'a Arc<[Buffer]>) -> Self {
        let bytes = match array.data_type() {
            DataType::Utf8View => array.as_string_view().total_bytes_len(),
            DataType::BinaryView => array.as_binary_view().total_bytes_len(),
            _ => value_ends(array).map_or(0, |(start, end)| end.saturating_sub(start)),
        };
        // (Read before the offsets or views are checked: never more than the input's
        // buffers hold, whatever they say, so that a column that lies asks for no more.)
        let held: usize = array.to_data().buffers().iter().map(Buffer::len).sum();
        Self {
            rows: array.len(),
            bytes: bytes.min(held),
            shared,
        }
    }
}

/// `work` over `input`'s column, as parts in the column's order: over `threads` parts at
/// most (the caller's `threads`, `thread_count`; by default, as many as other calls at once
/// leave free, `cores`), each of `PART_FROM` values or more, all but the first on a thread
/// of its own (one part, the whole, for a short column or one thread), each part's values
/// checked first where `input` left them to the parts (`check_part`).
/// Each value is worked on as it would be alone, and the parts are joined in order: the
/// result is the same however the column is cut. Each part is given the room its builders
/// start with: the first, which the others are joined into, the whole column's.
fn parts<P: Send>(
    input: &Input,
    threads: Option<isize>,
    work: impl Fn(&dyn Array, Room<'_>) -> Result<P, Failure> + Sync,
) -> Result<Vec<P>, Failure> {
    let array = &input.array;
    // (Each part's values checked first, on its thread.)
    let work = |part: &dyn Array, room: Room<'_>| {
        check_part(input, part)?;
        work(part, room)
    };
    let len = array.len();
    let shared = shared_buffers(array.as_ref());
    let whole = Room::of(array.as_ref(), &shared);
    let wanted = thread_count(threads)?.min(len / PART_FROM).max(1);
    // (Held until the parts are done.)
    let spare = threads.is_none().then(|| cores::SPARE.take(wanted - 1));
    let n = spare.as_ref().map_or(wanted, |taken| 1 + taken.count());
    if n == 1 {
        return Ok(vec![work(array.as_ref(), whole)?]);
    }
    // Part `i` runs from `len * i / n`: sizes differ by one value at most.
    let cut = |i: usize| len * i / n;
    let slices: Vec<ArrayRef> = (0..n)
        .map(|i| array.slice(cut(i), cut(i + 1) - cut(i)))
        .collect();
    let work = &work;
    thread::scope(|s| {
        // (A part whose thread cannot be made, the system out of them or of memory, is
        // worked on here after the first.)
        let others: Vec<_> = slices[1..]
            .iter()
            .map(|part| {
                // (No more than the whole's: a part's offsets are read here before its
                // values are checked.)
                let mut room = Room::of(part.as_ref(), &shared);
                room.bytes = room.bytes.min(whole.bytes);
                thread::Builder::new()
                    .spawn_scoped(s, move || work(part.as_ref(), room))
                    .map_err(|_| (part, room))
            })
            .collect();
        let mut done = vec![work(slices[0].as_ref(), whole)];
        done.extend(others.into_iter().map(|other| {
            match other {
                Ok(thread) => thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err((part, room)) => work(part.as_ref(), room),
            }
        }));
        done.into_iter().collect()
    })
}

/// `parts` (at least one) joined in order, by `join`, into the first.
fn joined<P>(
    parts: Vec<P>,
    mut join: impl FnMut(&mut P, P) -> Result<(), Failure>,
) -> Result<P, Failure> {
    let mut parts = parts.into_iter();
    let mut all = parts.next().expect("a part");
    for part in parts {
        join(&mut all, part)?;
    }
    Ok(all)
}

/// `a` and `b`, on two threads where the call may use a second (`threads` as `parts` reads
/// it, and the column was worked on in parts: a short one is not worth a thread), else one
/// after the other: the joins of a result's columns, which no part can do.
fn both<A: Send, B>(
    threads: Option<isize>,
    in_parts: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B,
) -> (A, B) {
    let allowed = in_parts && !matches!(threads, Some(n) if n < 2);
    // (Held until both are done.)
    let spare = (allowed && threads.is_none()).then(|| cores::SPARE.take(1));
    if !allowed || spare.as_ref().is_some_and(|taken| taken.count() == 0) {
        return (a(), b());
    }
    // (Where the system cannot make the thread now, `a` is taken back and run here.)
    let a = std::sync::Mutex::new(Some(a));
    let run_a = || a.lock().ok().and_then(|mut a| a.take()).map(|a| a());
    thread::scope(|s| {
        let thread = thread::Builder::new().spawn_scoped(s, run_a);
        let b = b();
        let a = match thread {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => run_a(),
        };
        (a.expect("`a` run once"), b)
    })
}

/// `other`'s strings after `b`'s.
fn append_strings(b: &mut Strings, other: Strings) -> Result<(), Failure> {
    b.append(other);
    Ok(())
}

/// A function over a column and its arguments, resolved once (from a Python function's
/// keyword arguments, or from the Polars plugin's): what both run.
pub(crate) enum Call {
    IsValid,
    Recognize(Options),
    Canonical(Options),
    Clean {
        options: Options,
        keep_case: bool,
    },
    ToForm {
        options: Options,
        form: Form,
        base: Option<ProxyBase>,
    },
    Extract(Options),
    /// `arrow_columns_floor`'s.
    #[cfg(feature = "bench-floor")]
    Floor,
}

impl Call {
    /// The column of this function over `data`'s, its strings as views where `views`,
    /// worked on by `threads` threads at most (`parts`). A dictionary column whose values
    /// are fewer than half its rows (repeated identifiers: the DOIs a table of citations
    /// cites) is worked on once per value, each row then taking its value's result (the
    /// same, as each value's result is its own); any other, row by row.
    pub(crate) fn run(
        &self,
        data: &Input,
        views: bool,
        threads: Option<isize>,
    ) -> Result<ArrayRef, Failure> {
        if let Some(dictionary) = data.array.as_any_dictionary_opt() {
            let values = dictionary.values();
            let nested = matches!(values.data_type(), DataType::Dictionary(_, _));
            if !nested && 2 * values.len() <= dictionary.keys().len() {
                // (Checked with the whole, keys and values, by `Input::of`.)
                let values = Input {
                    array: values.clone(),
                    values_unchecked: false,
                };
                let once = self.rows(&values, views, threads)?;
                return arrow_select::take::take(once.as_ref(), dictionary.keys(), None)
                    .map_err(Failure::value);
            }
        }
        self.rows(data, views, threads)
    }

    /// [`Call::run`] row by row.
    fn rows(&self, data: &Input, views: bool, threads: Option<isize>) -> Result<ArrayRef, Failure> {
        match self {
            Call::IsValid => is_valid(data, threads),
            Call::Recognize(o) => recognize(data, o, views, threads),
            Call::Canonical(o) => canonical(data, o, views, threads),
            Call::Clean { options, keep_case } => {
                cleaned_columns(data, options, views, threads, |text, handle, fixes| {
                    handle_id::clean_in_place(text, options, *keep_case, handle, fixes)
                })
            }
            Call::ToForm {
                options,
                form,
                base,
            } => to_form(data, options, *form, base, views, threads),
            Call::Extract(o) => extract(data, o, views, threads),
            #[cfg(feature = "bench-floor")]
            Call::Floor => {
                cleaned_columns(data, &Options::new(), views, threads, |text, _, fixes| {
                    fixes.clear();
                    Ok((Form::Handle, Written::Text(0..text.len())))
                })
            }
        }
    }
}

/// `call` over `array`'s column, without the GIL, returned as a pyarrow array.
fn column(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    call: &Call,
    views: bool,
    threads: Option<isize>,
) -> PyResult<Py<PyAny>> {
    let data = input(array)?;
    let out = py.detach(|| call.run(&data, views, threads))?;
    output(py, out)
}

/// `is_valid` over a column: whether each value is a bare handle (null for null).
#[pyfunction]
#[pyo3(signature = (array, *, threads = None))]
fn arrow_is_valid(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    threads: Option<isize>,
) -> PyResult<Py<PyAny>> {
    column(py, array, &Call::IsValid, false, threads)
}

fn is_valid(data: &Input, threads: Option<isize>) -> Result<ArrayRef, Failure> {
    let parts = parts(data, threads, |array, room| {
        let mut b = BooleanBuilder::with_capacity(room.rows);
        for_each(array, |v| {
            b.append_option(v.map(|v| match v {
                Value::Text(s) => handle_id::validate(s).is_ok(),
                Value::Bytes(b) => HandleRef::parse_bytes(b).is_ok(),
            }));
        })?;
        Ok(b)
    })?;
    let mut b = joined(parts, |b, mut other| {
        b.append_array(&other.finish());
        Ok(())
    })?;
    Ok(Arc::new(b.finish()))
}

/// The column of forms `form` holds: each row a form's place among them all.
fn form_column(form: &mut Names) -> Result<ArrayRef, Failure> {
    form.finish(&Form::ALL.map(Form::name))
}

/// The columns of a struct result, and its rows' validity (null where the input is).
struct Rows {
    nulls: NullBufferBuilder,
    handle: Strings,
    form: Names,
    /// The rows that hold an error (few), with its message: the column, null elsewhere, is
    /// made at `finish` (a null written for each row as it came cost a sixth of the rows'
    /// columns).
    errors: Vec<(usize, String)>,
    /// How many rows.
    len: usize,
    /// The strings as views (`string_view`).
    views: bool,
}

impl Rows {
    /// Room for `room`'s rows; as views where `views`, handles found in the input's
    /// buffers pointing there.
    fn new(room: Room<'_>, views: bool) -> Self {
        Self {
            nulls: NullBufferBuilder::new(room.rows),
            handle: Strings::over(views, room.rows, room.bytes, room.shared),
            form: Names::with_capacity(room.rows),
            errors: Vec::new(),
            len: 0,
            views,
        }
    }

    fn null(&mut self) {
        self.nulls.append_null();
        self.handle.append_null();
        self.form.append_null();
        self.len += 1;
    }

    #[inline(always)]
    fn row(&mut self, handle: Result<&str, &ParseError>, form: Option<Form>) {
        self.nulls.append_non_null();
        match form {
            Some(form) => self.form.append(form.index()),
            None => self.form.append_null(),
        }
        match handle {
            Ok(h) => self.handle.append_found(h),
            Err(e) => {
                self.handle.append_null();
                self.errors.push((self.len, e.to_string()));
            }
        }
        self.len += 1;
    }

    /// The last row's error: why it has no value in a column beside these (`to_form`'s
    /// output), where it has a handle.
    fn error_on_last(&mut self, e: &ParseError) {
        debug_assert!(self.errors.last().is_none_or(|(row, _)| row + 1 < self.len));
        self.errors.push((self.len - 1, e.to_string()));
    }

    /// `other`'s rows after these.
    fn append(&mut self, other: Self) -> Result<(), Failure> {
        validity::append(&mut self.nulls, other.nulls);
        append_strings(&mut self.handle, other.handle)?;
        self.form.join(other.form);
        let len = self.len;
        self.errors
            .extend(other.errors.into_iter().map(|(row, e)| (len + row, e)));
        self.len += other.len;
        Ok(())
    }

    /// The error column: each row's message, null where there is none.
    fn error_column(&self) -> Result<ArrayRef, Failure> {
        let bytes = self.errors.iter().map(|(_, e)| e.len()).sum();
        let mut column = Strings::with_capacity(self.views, self.len, bytes);
        let mut at = 0;
        for (row, e) in &self.errors {
            column.append_nulls(row - at);
            column.append_value(e);
            at = row + 1;
        }
        column.append_nulls(self.len - at);
        column.finish()
    }

    fn finish(mut self, extra: Vec<(Field, ArrayRef)>) -> Result<ArrayRef, Failure> {
        let mut fields = vec![
            strings::field("handle", self.views),
            Field::new("form", names::data_type(), true),
        ];
        let mut arrays: Vec<ArrayRef> = vec![self.handle.finish()?, form_column(&mut self.form)?];
        for (f, a) in extra {
            fields.push(f);
            arrays.push(a);
        }
        fields.push(strings::field("error", self.views));
        arrays.push(self.error_column()?);
        let nulls: Option<NullBuffer> = self.nulls.finish();
        StructArray::try_new(Fields::from(fields), arrays, nulls)
            .map(|s| Arc::new(s) as ArrayRef)
            .map_err(Failure::value)
    }
}

/// `recognize` over a column: struct rows of `handle` (decoded), `form` and `error` (the
/// message, null when the value holds a handle).
#[pyfunction]
#[pyo3(signature = (array, *, string_view = false, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false, threads = None))]
#[allow(clippy::too_many_arguments)]
fn arrow_recognize(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    string_view: bool,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
    threads: Option<isize>,
) -> PyResult<Py<PyAny>> {
    let o = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        None,
    )?;
    column(py, array, &Call::Recognize(o), string_view, threads)
}

fn recognize(
    data: &Input,
    o: &Options,
    string_view: bool,
    threads: Option<isize>,
) -> Result<ArrayRef, Failure> {
    let parts = parts(data, threads, |array, room| {
        let mut rows = Rows::new(room, string_view);
        for_each(array, |v| match v {
            None => rows.null(),
            Some(v) => match v.text().and_then(|t| handle_id::recognize(t, o)) {
                Ok(u) => rows.row(Ok(u.handle().as_str()), Some(u.form())),
                Err(e) => {
                    let form = v.text().ok().and_then(|t| handle_id::detect(t, o));
                    rows.row(Err(&e), form);
                }
            },
        })?;
        Ok(rows)
    })?;
    joined(parts, Rows::append)?.finish(vec![])
}

/// Each value read in any written form (as `recognize` reads it), as its handle's
/// canonical text (SPEC C1: a DOI in ASCII lowercase); null where the value is null or
/// holds no handle.
#[pyfunction]
#[pyo3(signature = (array, *, string_view = false, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false, threads = None))]
#[allow(clippy::too_many_arguments)]
fn arrow_canonical(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    string_view: bool,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
    threads: Option<isize>,
) -> PyResult<Py<PyAny>> {
    let o = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        None,
    )?;
    column(py, array, &Call::Canonical(o), string_view, threads)
}

fn canonical(
    data: &Input,
    o: &Options,
    string_view: bool,
    threads: Option<isize>,
) -> Result<ArrayRef, Failure> {
    let parts = parts(data, threads, |array, room| {
        let mut b = Strings::over(string_view, room.rows, room.bytes, room.shared);
        for_each(array, |v| {
            let read = v.map(|v| v.text().and_then(|t| handle_id::recognize(t, o)));
            match read {
                // (A handle already canonical, most of them, is not copied first.)
                Some(Ok(u)) if u.handle().is_canonical() => b.append_found(u.handle().as_str()),
                Some(Ok(u)) => b.append_value(u.handle().canonical().as_str()),
                _ => b.append_null(),
            }
        })?;
        Ok(b)
    })?;
    joined(parts, append_strings)?.finish()
}

/// The `fixes` column of `clean`: for each value its fixes' codes, in order, or null.
/// Where each value of a list column ends among the list's items.
struct Ends {
    offsets: Vec<i32>,
    /// More items than a list array holds (2^31).
    overflow: bool,
}

impl Ends {
    fn new(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Self {
            offsets,
            overflow: false,
        }
    }

    /// The next value ends where the items are `items` long.
    fn end(&mut self, items: usize) {
        let at = i32::try_from(items).unwrap_or_else(|_| {
            self.overflow = true;
            i32::MAX
        });
        self.offsets.push(at);
    }

    /// `other`'s ends after these, its items after the `items` these have.
    fn append(&mut self, other: Self, items: usize) {
        for &at in &other.offsets[1..] {
            // (Offsets are never negative.)
            self.end(items + at as usize);
        }
        self.overflow |= other.overflow;
    }

    /// The offsets of a list array, or why there can be none (`what`: the items).
    fn finish(self, what: &str) -> Result<OffsetBuffer<i32>, Failure> {
        if self.overflow {
            return Err(Failure::Overflow(format!(
                "more {what} than a list array holds"
            )));
        }
        Ok(OffsetBuffer::new(self.offsets.into()))
    }
}

struct Codes {
    /// Where each value's codes end in `codes`.
    offsets: Ends,
    codes: Names,
    /// How many codes (counted here: the builder's count is a call away).
    items: usize,
    nulls: NullBufferBuilder,
}

impl Codes {
    fn new(room: Room<'_>) -> Self {
        Self {
            offsets: Ends::new(room.rows),
            // (Most values have a fix or two; more grows the keys.)
            codes: Names::with_capacity(room.rows * 2),
            items: 0,
            nulls: NullBufferBuilder::new(room.rows),
        }
    }

    /// The next value's: its fixes' codes, or null.
    #[inline(always)]
    fn push(&mut self, fixes: Option<&[handle_id::Fix]>) {
        match fixes {
            Some(fixes) => {
                for f in fixes {
                    self.codes.append(f.code().index());
                }
                self.items += fixes.len();
                self.nulls.append_non_null();
            }
            None => self.nulls.append_null(),
        }
        self.offsets.end(self.items);
    }

    /// `other`'s values after these.
    fn append(&mut self, other: Self) -> Result<(), Failure> {
        self.offsets.append(other.offsets, self.items);
        validity::append(&mut self.nulls, other.nulls);
        self.codes.join(other.codes);
        self.items += other.items;
        Ok(())
    }

    fn finish(mut self) -> Result<ArrayRef, Failure> {
        let offsets = self.offsets.finish("fixes")?;
        let codes = self
            .codes
            .finish(&handle_id::FixCode::ALL.map(handle_id::FixCode::code))?;
        let item = Arc::new(Field::new_list_field(names::data_type(), true));
        let list = ListArray::try_new(item, offsets, codes, self.nulls.finish())
            .map_err(Failure::value)?;
        Ok(Arc::new(list))
    }
}

/// `clean` over a column: struct rows of `handle` (canonical), `form`, `fixes` (their
/// codes, in order) and `error` (the message, null when the value was cleaned).
#[pyfunction]
#[pyo3(signature = (array, *, keep_case = false, string_view = false, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false, threads = None))]
#[allow(clippy::too_many_arguments)]
fn arrow_clean(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    keep_case: bool,
    string_view: bool,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
    threads: Option<isize>,
) -> PyResult<Py<PyAny>> {
    let o = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        None,
    )?;
    let call = Call::Clean {
        options: o,
        keep_case,
    };
    column(py, array, &call, string_view, threads)
}

/// The columns of `clean` over `array`, each value's handle, form and fixes from `clean`
/// (`clean_in_place`, into one buffer and one list of fixes for every value: it neither
/// lints, as there is no column for warnings, nor allocates once they have grown, and it
/// copies no handle that is in the value as it is).
fn cleaned_columns(
    data: &Input,
    o: &Options,
    string_view: bool,
    threads: Option<isize>,
    clean: impl Fn(&str, &mut String, &mut Vec<handle_id::Fix>) -> Result<(Form, Written), ParseError>
        + Sync,
) -> Result<ArrayRef, Failure> {
    let parts = parts(data, threads, |array, room| {
        let mut rows = Rows::new(room, string_view);
        let mut codes = Codes::new(room);
        let (mut buffer, mut fixed) = (String::new(), Vec::new());
        for_each(array, |v| match v {
            None => {
                rows.null();
                codes.push(None);
            }
            Some(v) => match v
                .text()
                .and_then(|t| Ok((t, clean(t, &mut buffer, &mut fixed)?)))
            {
                Ok((text, (form, at))) => {
                    rows.row(Ok(at.handle_in(text, &buffer)), Some(form));
                    codes.push(Some(&fixed));
                }
                Err(e) => {
                    let form = v.text().ok().and_then(|t| handle_id::detect(t, o));
                    rows.row(Err(&e), form);
                    codes.push(None);
                }
            },
        })?;
        Ok((rows, codes))
    })?;
    let in_parts = parts.len() > 1;
    let (rows, codes): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    let (fixes, rows) = both(
        threads,
        in_parts,
        || joined(codes, Codes::append)?.finish(),
        || joined(rows, Rows::append),
    );
    let fixes = fixes?;
    let field = Field::new("fixes", fixes.data_type().clone(), true);
    rows?.finish(vec![(field, fixes)])
}

/// What `arrow_clean` costs without the cleaning, for the benchmark (`python/bench.py`):
/// the same columns, each value copied as its handle with no fixes. Only in a build with
/// the `bench-floor` feature.
#[cfg(feature = "bench-floor")]
#[pyfunction]
#[pyo3(signature = (array, *, string_view = false, threads = None))]
fn arrow_columns_floor(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    string_view: bool,
    threads: Option<isize>,
) -> PyResult<Py<PyAny>> {
    column(py, array, &Call::Floor, string_view, threads)
}

/// Each value read in any written form and written in `form`: struct rows of `handle`,
/// `form` (the form read), `output` and `error`.
#[pyfunction]
#[pyo3(signature = (array, form, *, base = None, string_view = false, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false, threads = None))]
#[allow(clippy::too_many_arguments)]
fn arrow_to_form(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    form: &str,
    base: Option<&str>,
    string_view: bool,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
    threads: Option<isize>,
) -> PyResult<Py<PyAny>> {
    let o = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        None,
    )?;
    let call = Call::ToForm {
        options: o,
        form: options::form(form)?,
        base: options::base(py, base)?,
    };
    column(py, array, &call, string_view, threads)
}

fn to_form(
    data: &Input,
    o: &Options,
    to: Form,
    base: &Option<ProxyBase>,
    string_view: bool,
    threads: Option<isize>,
) -> Result<ArrayRef, Failure> {
    let parts = parts(data, threads, |array, room| {
        let mut rows = Rows::new(room, string_view);
        // (A form's prefix or a resolver's base comes before most values: 30 bytes
        // covers the longest known ones.)
        let mut written =
            Strings::with_capacity(string_view, room.rows, room.bytes + room.rows * 30);
        for_each(array, |v| match v {
            None => {
                rows.null();
                written.append_null();
            }
            Some(v) => {
                let read = v.text().and_then(|t| handle_id::recognize(t, o));
                let out = read
                    .as_ref()
                    .map_err(|e| *e)
                    .and_then(|u| u.handle().to_form(to, base.as_ref()));
                match (&read, &out) {
                    (Ok(u), Ok(text)) => {
                        rows.row(Ok(u.handle().as_str()), Some(u.form()));
                        written.append_value(text);
                    }
                    // (The value holds a handle that has no text in `to`: the handle and
                    // form read, and why there is no output.)
                    (Ok(u), Err(e)) => {
                        rows.row(Ok(u.handle().as_str()), Some(u.form()));
                        rows.error_on_last(e);
                        written.append_null();
                    }
                    (Err(e), _) => {
                        let form = v.text().ok().and_then(|t| handle_id::detect(t, o));
                        rows.row(Err(e), form);
                        written.append_null();
                    }
                }
            }
        })?;
        Ok((rows, written))
    })?;
    let in_parts = parts.len() > 1;
    let (rows, written): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    let (written, rows) = both(
        threads,
        in_parts,
        || joined(written, append_strings)?.finish(),
        || joined(rows, Rows::append),
    );
    rows?.finish(vec![(strings::field("output", string_view), written?)])
}

/// `extract` over a column: for each value a list of struct rows `start`, `end` (Python
/// string offsets for a string column, byte offsets for a binary one), `text`, `form` and
/// `handle`; null for null. In a binary value, bytes that are not UTF-8 are never part of
/// an identifier.
#[pyfunction]
#[pyo3(signature = (array, *, handle_prefixes = None, string_view = false, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false, threads = None))]
#[allow(clippy::too_many_arguments)]
fn arrow_extract(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    handle_prefixes: Option<crate::texts::Texts>,
    string_view: bool,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
    threads: Option<isize>,
) -> PyResult<Py<PyAny>> {
    let o: Options = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        handle_prefixes,
    )?;
    column(py, array, &Call::Extract(o), string_view, threads)
}

fn extract(
    data: &Input,
    o: &Options,
    string_view: bool,
    threads: Option<isize>,
) -> Result<ArrayRef, Failure> {
    let parts = parts(data, threads, |array, room| {
        let mut found = Founds::new(room, string_view);
        for_each(array, |v| {
            match v {
                None => found.nulls.append_null(),
                Some(Value::Text(t)) => {
                    found.nulls.append_non_null();
                    let mut at = CharIndex::new(t);
                    for f in handle_id::extract(t, o) {
                        let span = f.span();
                        found.push(at.at(span.start), at.at(span.end), &f);
                    }
                }
                Some(Value::Bytes(b)) => {
                    found.nulls.append_non_null();
                    let mut offset = 0;
                    for chunk in b.utf8_chunks() {
                        let valid = chunk.valid();
                        for f in handle_id::extract(valid, o) {
                            let span = f.span();
                            found.push(offset + span.start, offset + span.end, &f);
                        }
                        offset += valid.len() + chunk.invalid().len();
                    }
                }
            }
            found.end_value();
        })?;
        Ok(found)
    })?;
    joined(parts, Founds::append)?.finish()
}

/// The columns of `extract`: each value's identifiers found, as a list of struct rows.
struct Founds {
    /// Where each value's identifiers end in the rows.
    offsets: Ends,
    nulls: NullBufferBuilder,
    start: Int64Builder,
    end: Int64Builder,
    text: Strings,
    form: Names,
    handle: Strings,
    /// The strings as views (`string_view`).
    views: bool,
}

impl Founds {
    /// Room for `room`'s rows, as views where `views`. (What is found is copied, not
    /// pointed at in the input: a text's identifiers are a small part of it, whose buffer
    /// a result would hold whole.)
    fn new(room: Room<'_>, views: bool) -> Self {
        // Room for an identifier a value, of 64 bytes at most (a column of identifiers, the
        // messy lines of a catalogue); a column of running text grows the buffers instead.
        let items = room.rows;
        let bytes = room.bytes.min(room.rows.saturating_mul(64));
        Self {
            offsets: Ends::new(room.rows),
            nulls: NullBufferBuilder::new(room.rows),
            start: Int64Builder::with_capacity(items),
            end: Int64Builder::with_capacity(items),
            text: Strings::with_capacity(views, items, bytes),
            form: Names::with_capacity(items),
            handle: Strings::with_capacity(views, items, bytes),
            views,
        }
    }

    /// One identifier of the value being read, found at `start..end`.
    fn push(&mut self, start: usize, end: usize, f: &handle_id::Found<'_>) {
        self.start
            .append_value(i64::try_from(start).unwrap_or(i64::MAX));
        self.end
            .append_value(i64::try_from(end).unwrap_or(i64::MAX));
        self.text.append_value(f.text());
        self.form.append(f.form().index());
        self.handle.append_value(f.handle().as_str());
    }

    /// The end of a value's identifiers (its validity appended by the caller).
    fn end_value(&mut self) {
        self.offsets.end(self.start.len());
    }

    /// `other`'s values after these.
    fn append(&mut self, other: Self) -> Result<(), Failure> {
        self.offsets.append(other.offsets, self.start.len());
        validity::append(&mut self.nulls, other.nulls);
        self.start.append_slice(other.start.values_slice());
        self.end.append_slice(other.end.values_slice());
        self.text.append(other.text);
        self.form.join(other.form);
        self.handle.append(other.handle);
        Ok(())
    }

    fn finish(mut self) -> Result<ArrayRef, Failure> {
        let offsets = self.offsets.finish("identifiers")?;
        let string = strings::data_type(self.views);
        let fields = Fields::from(vec![
            Field::new("start", DataType::Int64, false),
            Field::new("end", DataType::Int64, false),
            Field::new("text", string.clone(), false),
            Field::new("form", names::data_type(), false),
            Field::new("handle", string, false),
        ]);
        let values = StructArray::try_new(
            fields.clone(),
            vec![
                Arc::new(self.start.finish()),
                Arc::new(self.end.finish()),
                self.text.finish()?,
                form_column(&mut self.form)?,
                self.handle.finish()?,
            ],
            None,
        )
        .map_err(Failure::value)?;
        let item = Arc::new(Field::new_struct("item", fields, false));
        let list = ListArray::try_new(item, offsets, Arc::new(values), self.nulls.finish())
            .map_err(Failure::value)?;
        Ok(Arc::new(list))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(arrow_is_valid, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_recognize, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_clean, m)?)?;
    #[cfg(feature = "bench-floor")]
    m.add_function(wrap_pyfunction!(arrow_columns_floor, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_canonical, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_to_form, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_extract, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each of the two is run once and its result given back, whether the call may use a
    /// second thread or not; `a` on another thread only where it may.
    #[test]
    fn both_runs_each_once_on_a_second_thread_only_where_the_call_may() {
        let here = thread::current().id();
        for (threads, in_parts, elsewhere) in [
            (Some(1), true, false),
            (Some(2), false, false),
            (Some(2), true, true),
            (Some(8), true, true),
        ] {
            let b_ran = std::cell::Cell::new(0);
            let (a, b) = both(
                threads,
                in_parts,
                || (thread::current().id() != here, vec![1, 2]),
                || {
                    b_ran.set(b_ran.get() + 1);
                    thread::current().id() == here
                },
            );
            assert_eq!(
                (a, b),
                ((elsewhere, vec![1, 2]), true),
                "threads {threads:?}"
            );
            assert_eq!(b_ran.get(), 1);
        }
        // (By default, on a second thread where no other call holds the spare ones: which
        // the tests running beside this one may.)
        assert_eq!(both(None, true, || 1, || 2), (1, 2));
    }

    /// The room a column's builders start with is never more than its buffers hold, however
    /// far its offsets or views, not yet checked, say its values run.
    #[test]
    fn room_is_no_more_than_the_buffers_hold() {
        let shared = shared_buffers(&arrow_array::StringArray::from(vec!["a"]));
        // Offsets that say 2 GiB of values over a buffer of three bytes.
        let offsets = Buffer::from_slice_ref([0_i32, 3, i32::MAX]);
        let data = ArrayData::builder(DataType::Utf8)
            .len(2)
            .add_buffer(offsets)
            .add_buffer(Buffer::from_slice_ref(b"abc"));
        // SAFETY: only its offsets are read (`Room::of`): they are in the buffer.
        let lying = make_array(unsafe { data.build_unchecked() });
        let room = Room::of(lying.as_ref(), &shared);
        assert_eq!(room.bytes, 3 + 3 * 4, "the buffers' bytes");
        // Views that say 4 GiB each, over no data buffer.
        let mut views = Vec::new();
        for _ in 0..2 {
            views.push(u128::from(u32::MAX) | (1_u128 << 64));
        }
        let data = ArrayData::builder(DataType::Utf8View)
            .len(2)
            .add_buffer(Buffer::from_vec(views))
            .add_buffer(Buffer::from_slice_ref(b"x"));
        // SAFETY: only its views' lengths are read (`Room::of`).
        let lying = make_array(unsafe { data.build_unchecked() });
        assert_eq!(Room::of(lying.as_ref(), &shared).bytes, 2 * 16 + 1);
    }

    #[test]
    fn a_slice_spans_the_bytes_between_its_first_and_last_offsets() {
        // (A slice of a column keeps the offsets of the whole: they need not start at 0.)
        let column: ArrayRef =
            Arc::new(arrow_array::StringArray::from(vec!["abcde", "fghi", "jk"]));
        let slice = column.slice(1, 2);
        assert_eq!(value_ends(slice.as_ref()), Some((5, 11)));
        let shared = shared_buffers(slice.as_ref());
        assert_eq!(shared[0].as_slice(), b"fghijk");
        let room = Room::of(slice.as_ref(), &shared);
        assert_eq!((room.rows, room.bytes), (2, 6));
        let empty = column.slice(3, 0);
        assert_eq!(Room::of(empty.as_ref(), &shared).bytes, 0);
        let views: ArrayRef = Arc::new(arrow_array::StringViewArray::from(vec!["a", "bc"]));
        assert_eq!(value_ends(views.as_ref()), None);
        assert_eq!(Room::of(views.as_ref(), &shared).bytes, 3);
    }

    #[test]
    fn views_told_valid_in_bulk_are_valid_view_by_view() {
        // Random buffers (ASCII, two- to four-byte characters, a byte of no character) and
        // views anywhere in them, some of them broken (out of their buffer, in no buffer,
        // a wrong prefix, padding after an inline value): where the one pass says valid,
        // arrow-rs's look at each view says so too.
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let pieces: [&[u8]; 6] = [
            b"10.1000/",
            b"a",
            "\u{e9}".as_bytes(),
            "\u{65e5}".as_bytes(),
            "\u{1F600}".as_bytes(),
            &[0xFF],
        ];
        let (mut told, mut cases) = (0, 0);
        while cases < 20_000 {
            // (One buffer in four may hold a byte of no character, one in four is ASCII.)
            let kinds = [6, 2, 5, 5][next(4)];
            let mut data = Vec::new();
            while data.len() < 40 {
                data.extend_from_slice(pieces[next(kinds)]);
            }
            let views: Vec<u128> = (0..4)
                .map(|_| {
                    let len = next(30);
                    let offset = next(data.len() - len + 1);
                    let bytes = &data[offset..][..len];
                    // (One view in eight of each column broken, one way or another.)
                    let broken = if next(8) == 0 { 1 + next(3) } else { 0 };
                    if len <= 12 {
                        let mut v = [0_u8; 16];
                        v[..4].copy_from_slice(&(len as u32).to_le_bytes());
                        v[4..4 + len].copy_from_slice(bytes);
                        if broken > 0 && len < 12 {
                            v[15] = b'x';
                        }
                        u128::from_le_bytes(v)
                    } else {
                        let mut prefix: [u8; 4] = bytes[..4].try_into().expect("four bytes");
                        let (mut index, mut offset) = (0, offset as u32);
                        match broken {
                            1 => prefix[0] ^= 1,
                            2 => index = 1,
                            3 => offset += data.len() as u32,
                            _ => {}
                        }
                        arrow_data::ByteView::new(len as u32, &prefix)
                            .with_buffer_index(index)
                            .with_offset(offset)
                            .as_u128()
                    }
                })
                .collect();
            let buffers = [arrow_buffer::Buffer::from_vec(data)];
            // SAFETY: only its layout is read before it is checked (the views and buffers
            // are there, as a string view array's layout needs).
            let strings = unsafe {
                ArrayData::builder(DataType::Utf8View)
                    .len(views.len())
                    .add_buffer(arrow_buffer::Buffer::from_vec(views.clone()))
                    .add_buffer(buffers[0].clone())
                    .build_unchecked()
            };
            strings
                .validate()
                .expect("the layout of a string view array");
            cases += 1;
            if views_valid(&strings) {
                told += 1;
                strings.validate_data().expect("valid view by view");
            }
        }
        // (Both answers were given.)
        assert!(told > 500 && told < cases, "{told} of {cases}");
    }
}
