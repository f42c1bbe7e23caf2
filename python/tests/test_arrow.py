"""handle_id.arrow against the scalar functions on the same data (the corpus, nulls, empty
strings), every string and binary type, chunked arrays, and binary values that are not
UTF-8 against the `hdl` command, which reads bytes."""

from __future__ import annotations

import pytest

pa = pytest.importorskip("pyarrow")

import handle_id
import handle_id.arrow as ha
from conftest import EXTRA_LINES, TEXT_LINES, corpus_lines, run_hdl

VALUES = corpus_lines() + EXTRA_LINES + TEXT_LINES + [None, "", None]
TYPES = [pa.string(), pa.large_string(), pa.string_view(), pa.binary(), pa.large_binary()]


def scalar_clean(v):
    if v is None:
        return None
    try:
        c = handle_id.clean(v)
    except handle_id.HandleError as e:
        return {"handle": None, "form": handle_id.detect(v), "fixes": None, "error": e.message}
    return {"handle": c.handle.text, "form": c.form, "fixes": [f.code for f in c.fixes], "error": None}


def scalar_recognize(v):
    if v is None:
        return None
    try:
        u = handle_id.recognize(v)
    except handle_id.HandleError as e:
        return {"handle": None, "form": handle_id.detect(v), "error": e.message}
    return {"handle": u.handle.text, "form": u.form, "error": None}


def scalar_extract(v):
    if v is None:
        return None
    return [
        {"start": f.start, "end": f.end, "text": f.text, "form": f.form, "handle": f.handle.text}
        for f in handle_id.extract(v)
    ]


def column(values, type_):
    if pa.types.is_binary(type_) or pa.types.is_large_binary(type_):
        values = [None if v is None else v.encode("utf-8") for v in values]
    return pa.array(values, type=type_)


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_clean_column_is_the_scalar_clean(type_):
    out = ha.clean(column(VALUES, type_))
    assert isinstance(out, pa.StructArray) and len(out) == len(VALUES)
    assert [f.name for f in out.type] == ["handle", "form", "fixes", "error"]
    assert out.to_pylist() == [scalar_clean(v) for v in VALUES]
    assert out.null_count == VALUES.count(None)


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_is_valid_and_recognize_columns(type_):
    col = column(VALUES, type_)
    assert ha.is_valid(col).to_pylist() == [
        None if v is None else handle_id.is_valid(v) for v in VALUES
    ]
    assert ha.recognize(col).to_pylist() == [scalar_recognize(v) for v in VALUES]


def test_extract_column_is_the_scalar_extract():
    out = ha.extract(pa.array(VALUES))
    assert out.to_pylist() == [scalar_extract(v) for v in VALUES]
    # A binary column: byte offsets, the same identifiers.
    raw = ha.extract(column(VALUES, pa.binary())).to_pylist()
    for v, found in zip(VALUES, raw):
        if v is None:
            assert found is None
            continue
        b = v.encode()
        assert [f["text"] for f in found] == [f.text for f in handle_id.extract(v)]
        for f in found:
            assert b[f["start"] : f["end"]].decode() == f["text"]


def test_a_handle_prefix_is_a_naming_authority():
    with pytest.raises(handle_id.HandleError) as e:
        ha.extract(pa.array(["see a/b/c"]), handle_prefixes=["a/b"])
    assert e.value.index == 1


def test_to_form_column():
    values = ["hdl:1/2", "a:b/c", None, "nothing", "https://doi.org/10.1000/X"]
    out = ha.to_form(pa.array(values), "urn-hdl").to_pylist()
    assert [r and r["output"] for r in out] == ["urn:hdl:1:2", None, None, None, "urn:hdl:10.1000:X"]
    # A handle read that has no text in the form: the handle and form read, and why.
    assert (out[1]["handle"], out[1]["form"]) == ("a:b/c", "handle")
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.parse("a:b/c").to_form("urn-hdl")
    assert out[1]["error"] == e.value.message
    # A value that holds no handle: neither.
    assert (out[3]["handle"], out[3]["output"]) == (None, None) and out[3]["error"]
    for v, r in zip(values, ha.to_form(pa.array(values), "proxy").to_pylist()):
        if r and r["output"]:
            assert r["output"] == handle_id.recognize(v).handle.to_form("proxy")


def test_chunked_arrays_and_sequences():
    chunked = pa.chunked_array([["10.1000/A", None], [], ["x"]])
    out = ha.clean(chunked)
    assert isinstance(out, pa.ChunkedArray)
    assert [r and r["handle"] for r in out.to_pylist()] == ["10.1000/a", None, None]
    empty = ha.clean(pa.chunked_array([], type=pa.string()))
    assert len(empty) == 0 and pa.types.is_struct(empty.type)
    assert ha.is_valid(["1/2", "x"]).to_pylist() == [True, False]
    assert ha.clean(pa.array([], type=pa.string())).to_pylist() == []
    assert ha.clean(pa.array([None, None])).to_pylist() == [None, None]
    with pytest.raises(TypeError):
        ha.clean(pa.array([1, 2]))
    # One text is not a column of its characters.
    for one in ("hdl:1/2", b"hdl:1/2"):
        with pytest.raises(TypeError, match="not (str|bytes)"):
            ha.clean(one)
    # A NaN in a list is a null, as pandas writes a missing value there (`series.tolist()`;
    # an object array, `series.values`, in the test after this one).
    values = ["doi:10.1/A", float("nan"), None]
    assert ha.canonical(values).to_pylist() == ["10.1/a", None, None]
    # A field of a chunked result, as the README takes it.
    import pyarrow.compute as pc

    assert pc.struct_field(out, "handle").to_pylist() == ["10.1000/a", None, None]


def test_a_nan_in_an_object_array_is_a_null():
    np = pytest.importorskip("numpy", reason="no NumPy here (pyarrow runs without it)")
    values = np.array(["doi:10.1/A", float("nan"), None], dtype=object)
    assert ha.canonical(values).to_pylist() == ["10.1/a", None, None]


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_string_view_results_hold_the_same_values(type_):
    col = column(VALUES, type_)
    calls = [(ha.clean, ()), (ha.recognize, ()), (ha.canonical, ()), (ha.to_form, ("proxy",)), (ha.extract, ())]
    for fn, args in calls:
        plain, viewed = fn(col, *args), fn(col, *args, string_view=True)
        viewed.validate(full=True)
        assert viewed.to_pylist() == plain.to_pylist(), fn.__name__
        # Every column of strings, at any depth, is a view column; nothing else changes (a
        # dictionary's few names stay a string column).
        want = str(plain.type).replace("string", "string_view").replace("values=string_view", "values=string")
        assert str(viewed.type) == want, fn.__name__


NAMES = pa.dictionary(pa.int8(), pa.string())


def test_forms_and_fix_codes_are_dictionaries_of_every_name():
    # A byte a row, the names once, in the order the library lists them: the same
    # dictionary for any input, so that columns of two calls compare and concatenate.
    out = ha.clean(pa.array(["DOI: 10.1000/ABC.", "hdl:20.1000/5555", "nothing", None]))
    form, fixes = out.field("form"), out.field("fixes")
    assert form.type == NAMES and fixes.type.value_type == NAMES
    assert form.dictionary.to_pylist() == list(handle_id.FORMS)
    assert fixes.values.dictionary.to_pylist() == list(handle_id.FIX_CODES)
    assert form.to_pylist() == ["doi", "hdl", "handle", None]
    assert fixes.to_pylist()[:3] == [
        ["label", "surrounding-whitespace", "trailing-punctuation", "case-folded"], [], None
    ]
    for fn, args in [(ha.recognize, ()), (ha.to_form, ("proxy",))]:
        assert fn(pa.array(["doi:10.1/x"]), *args).field("form").dictionary.to_pylist() == list(handle_id.FORMS)
    found = ha.extract(pa.array(["see doi:10.1000/182"])).values.field("form")
    assert found.type == NAMES and found.to_pylist() == ["doi"]
    # Read back as strings, by a cast.
    assert form.cast(pa.string()).to_pylist() == form.to_pylist()


def test_the_spark_recipe_gives_its_names_as_strings():
    from handle_id.spark import plain

    col = pa.array(["DOI: 10.1000/ABC.", None, "x", "see hdl:20.1000/5555"])
    for fn, args in [(ha.clean, ()), (ha.recognize, ()), (ha.to_form, ("proxy",)), (ha.extract, ())]:
        for views in (False, True):
            out = fn(col, *args, string_view=views)
            decoded = plain(out)
            assert "dictionary" in str(out.type) and "dictionary" not in str(decoded.type)
            assert decoded.to_pylist() == out.to_pylist()
    valid = ha.is_valid(col)
    assert plain(valid) is valid


def test_string_views_out_point_into_the_column_in():
    # A handle that is a slice of its value (most are) is not copied: its view points into
    # the input's buffer, which the result holds while it lives.
    col = pa.array(["doi:10.1000/abcdefghijklmnop", " (https://doi.org/10.1000/ABCDEFGHIJKLMNOP). "] * 3)
    out = ha.clean(col, string_view=True)
    handles = out.field("handle")
    values = col.buffers()[2]
    assert handles.buffers()[2].address == values.address
    assert handles.to_pylist() == ["10.1000/abcdefghijklmnop"] * 6
    del col, values
    assert handles.to_pylist() == ["10.1000/abcdefghijklmnop"] * 6
    # A slice of a long column: the result holds the bytes the slice's values span, not the
    # whole column's buffer.
    long = pa.array([f"doi:10.1000/{i:030d}" for i in range(10_000)])
    tail = ha.canonical(long.slice(9_990, 10), string_view=True)
    assert tail.to_pylist() == [f"10.1000/{i:030d}" for i in range(9_990, 10_000)]
    assert tail.get_total_buffer_size() < 1_000
    # What extraction finds is copied: a text's identifiers are a small part of it.
    prose = pa.array(["See doi:10.1000/abcdefghijklmnop, then " + "words " * 2_000])
    found = ha.extract(prose, string_view=True)
    assert found.to_pylist()[0][0]["handle"] == "10.1000/abcdefghijklmnop"
    assert found.get_total_buffer_size() < 2_000 < prose.get_total_buffer_size()
    # A fix's code is written once, however many rows have it.
    codes = out.field("fixes").flatten()
    assert codes.to_pylist()[:6] == [
        "label", "surrounding-whitespace", "trailing-punctuation", "wrapping-pair", "resolver-url", "case-folded"
    ]
    assert len(codes) == 18 and sum(b.size for b in codes.buffers()[2:]) < 64


def test_invalid_utf8_in_binary_columns_as_hdl_reads_it(hdl):
    lines = [b"10.1000/\xff", b"\xfe", b"doi:10.1000/ok", b"hdl:1/\xc3\x28x", b"\xff doi:10.1/x \xfe 10.1000/y"]
    col = pa.array(lines, type=pa.binary())
    cleaned = ha.clean(col).to_pylist()
    for line, r, record in zip(lines, cleaned, run_hdl(hdl, ["clean"], lines)):
        assert r["handle"] == record["output"] or (r["handle"] is None and record["output"] is None), line
        if not record["valid"]:
            assert r["error"] == record["error"]["message"], line
    assert cleaned[0]["error"] and "UTF-8" in cleaned[0]["error"]
    found = ha.extract(col).to_pylist()
    records = run_hdl(hdl, ["extract"], lines)
    flat = [
        (n, f["start"], f["end"], f["text"], f["handle"])
        for n, fs in enumerate(found, start=1)
        for f in fs
    ]
    assert flat == [(r["line"], r["start"], r["end"], r["text"], r["handle"]) for r in records]
    # `doi:10.1000/ok` is a bare handle whose naming authority is `doi:10.1000` (D5).
    assert ha.is_valid(col).to_pylist() == [False, False, True, False, False]


def test_polars_series_through_the_capsule_interface():
    pl = pytest.importorskip("polars")
    s = pl.Series("doi", ["DOI: 10.1000/ABC.", None])
    out = ha.clean(s)
    assert [r and r["handle"] for r in out.to_pylist()] == ["10.1000/abc", None]


def test_slices_of_arrays():
    col = pa.array(VALUES)
    whole = ha.clean(col).to_pylist()
    for start, length in [(0, 3), (5, 40), (len(VALUES) - 4, 4)]:
        assert ha.clean(col.slice(start, length)).to_pylist() == whole[start : start + length]
        assert ha.extract(col.slice(start, length)).to_pylist() == ha.extract(col).to_pylist()[start : start + length]


@pytest.mark.parametrize("threads", [None, 1, 2, 5])
@pytest.mark.parametrize("type_", [pa.string(), pa.string_view(), pa.binary()], ids=str)
def test_long_columns_worked_on_in_parts_give_what_short_ones_give(type_, threads):
    # A long column is cut into parts of 16,384 values or more, one thread each (as many as
    # the machine has cores, or `threads`): the same rows, in the same order, as value by
    # value. A length that five parts do not divide, and a slice, so that parts split
    # anywhere.
    length = 5 * 16_384 + 3
    times = length // len(VALUES) + 1
    values = (VALUES * times)[:length]
    col = column(values, type_)
    short = column(VALUES, type_)

    def repeated(out):
        return pa.concat_arrays([out] * times).slice(0, len(values))

    # (Compared as Arrow arrays: Python values for every row of every call would take most
    # of the test's time.)
    assert_same(ha.clean(col, threads=threads), repeated(ha.clean(short)))
    assert_same(ha.clean(col, keep_case=True, threads=threads), repeated(ha.clean(short, keep_case=True)))
    assert_same(ha.recognize(col, threads=threads), repeated(ha.recognize(short)))
    assert_same(ha.is_valid(col, threads=threads), repeated(ha.is_valid(short)))
    assert_same(ha.canonical(col, threads=threads), repeated(ha.canonical(short)))
    assert_same(ha.to_form(col, "doi", threads=threads), repeated(ha.to_form(short, "doi")))
    assert_same(ha.extract(col, threads=threads), repeated(ha.extract(short)))
    # The later parts' views joined to the first's (their blocks taken as they are), with
    # the values the `string` columns hold.
    for fn, args in [(ha.clean, ()), (ha.recognize, ()), (ha.canonical, ()), (ha.to_form, ("doi",)), (ha.extract, ())]:
        views = fn(short, *args, string_view=True)
        assert views.to_pylist() == fn(short, *args).to_pylist(), fn.__name__
        assert_same(fn(col, *args, string_view=True, threads=threads), repeated(views))
    sliced = col.slice(7, len(values) - 9)
    assert_same(ha.clean(sliced, threads=threads), ha.clean(col, threads=threads).slice(7, len(values) - 9))
    assert ha.clean(sliced, threads=threads).null_count == values[7 : len(values) - 2].count(None)
    assert_same(ha.extract(sliced, threads=threads), ha.extract(col, threads=threads).slice(7, len(values) - 9))


def assert_same(got, want):
    """`got` holds `want`'s rows, of its type (the Python values compared where they
    differ, for a readable failure)."""
    assert got.type == want.type
    if not got.equals(want):
        assert got.to_pylist() == want.to_pylist()
        pytest.fail("the same Python values, but not the same Arrow array")


def test_calls_at_once_give_what_one_call_gives():
    # Calls made at once (as Polars' streaming engine makes them, each without the GIL)
    # share the machine's spare threads: each works on as many parts as others leave it,
    # down to its own thread alone, with the same rows in the same order.
    from concurrent.futures import ThreadPoolExecutor

    length = 4 * 16_384 + 5
    values = (VALUES * (length // len(VALUES) + 1))[:length]
    col = pa.array(values)
    alone = ha.clean(col)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: ha.clean(col), range(12)))
    for r in results:
        assert_same(r, alone)


def test_threads_are_one_or_more():
    col = pa.array(["10.1000/x"])
    for fn in [ha.clean, ha.recognize, ha.canonical, ha.is_valid, ha.extract]:
        for bad in [0, -1, False]:
            with pytest.raises(ValueError, match="threads must be 1 or more"):
                fn(col, threads=bad)
        with pytest.raises(TypeError):
            fn(col, threads="2")
        assert fn(col, threads=64).to_pylist() == fn(col).to_pylist()
    with pytest.raises(ValueError, match="threads must be 1 or more"):
        ha.to_form(col, "doi", threads=0)


def _string_views(data: bytes, views: list[tuple[int, int]], inline: list[bytes] = ()) -> pa.Array:
    """A string_view array built from its buffers, unchecked: one data buffer `data`, a view
    (offset, length) into it for each of `views` (longer than 12 bytes), then inline views."""
    import struct

    raw = b""
    for offset, length in views:
        raw += struct.pack("<I4sII", length, data[offset : offset + 4], 0, offset)
    for value in inline:
        raw += struct.pack("<I12s", len(value), value)
    n = len(views) + len(inline)
    return pa.Array.from_buffers(pa.string_view(), n, [None, pa.py_buffer(raw), pa.py_buffer(data)])


def test_a_long_columns_values_are_checked_whatever_part_holds_them():
    # A string, binary or string_view column's values are checked by each part on its
    # thread: what is refused is refused on one thread or two, named by its place in the whole column.
    import itertools
    import struct

    n = 40_000  # two parts of 16,384 values or more
    values = [b"10.1000/%d" % i for i in range(n)]

    def column(kind, values, offsets=None):
        if offsets is None:
            offsets = [0, *itertools.accumulate(len(v) for v in values)]
        raw = struct.pack(f"<{n + 1}i", *offsets)
        return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(raw), pa.py_buffer(b"".join(values))])

    bad = list(values)
    bad[30_000] = b"10.1000/\xff"
    ends = [0, *itertools.accumulate(len(v) for v in values)]
    backwards = list(ends)
    backwards[35_000] = ends[35_000] - 20
    refused = [
        ("UTF8 sequence at string index 30000", column(pa.string(), bad)),
        ("non-monotonic offset at slot 34999", column(pa.string(), values, backwards)),
        ("non-monotonic offset at slot 34999", column(pa.binary(), values, backwards)),
    ]
    for said, array in refused:
        for threads in (1, 2):
            for fn in [ha.is_valid, ha.clean, ha.canonical, ha.recognize, ha.extract]:
                with pytest.raises(ValueError, match=said):
                    fn(array, threads=threads)
    # Bytes that are not UTF-8 are a binary column's to have.
    assert ha.is_valid(column(pa.binary(), bad), threads=2).to_pylist()[30_000] is False
    assert ha.is_valid(column(pa.string(), values), threads=2).to_pylist() == [True] * n
    # A string_view column's the same, its views checked part by part.
    long = [b"10.1000/view-%06d" % i for i in range(n)]
    width, data = len(long[0]), b"".join(long)
    spans = [(i * width, width) for i in range(n)]
    assert ha.is_valid(_string_views(data, spans), threads=2).to_pylist() == [True] * n
    bad_data = bytearray(data)
    bad_data[30_000 * width + 10] = 0xFF
    outside = list(spans)
    outside[35_000] = (len(data) - 4, width)
    refused = [
        ("non-UTF-8 data at index 30000", _string_views(bytes(bad_data), spans)),
        ("Invalid buffer slice at 35000", _string_views(data, outside)),
    ]
    for said, array in refused:
        for threads in (1, 2):
            for fn in [ha.is_valid, ha.clean, ha.extract]:
                with pytest.raises(ValueError, match=said):
                    fn(array, threads=threads)


def test_string_views_are_checked_to_be_utf8():
    # A string_view column's UTF-8 is told in bulk (each data buffer whole, each view's ends
    # on character boundaries there), else view by view: what is not UTF-8 is refused, what
    # is passes, whatever bytes no view holds.
    text = "10.1000/é-è-à-ü".encode()
    good = _string_views(text, [(0, len(text))], [b"10.1/x", "1/é".encode()])
    assert ha.is_valid(good).to_pylist() == [True, True, True]
    assert ha.clean(good).field("handle").to_pylist() == ["10.1000/é-è-à-ü", "10.1/x", "1/é"]
    # Bytes no view holds that are not UTF-8 (around what the views cover, and between
    # two views): passed.
    padded = _string_views(b"\xff" + text + b"\xfe", [(1, len(text))])
    assert ha.is_valid(padded).to_pylist() == [True]
    apart = _string_views(text + b"\xff" + text, [(0, len(text)), (len(text) + 1, len(text))])
    assert ha.is_valid(apart).to_pylist() == [True, True]
    # A slice: the views it keeps (the bytes of those it drops are not UTF-8).
    sliced = _string_views(text + b"\xff" * 20, [(0, len(text)), (len(text), 20)]).slice(0, 1)
    assert ha.clean(sliced).field("handle").to_pylist() == ["10.1000/é-è-à-ü"]
    refused = {
        "a value's bytes": _string_views(b"10.1000/abc\xffdef", [(0, 15)]),
        "an inline value": _string_views(b"", [], [b"10.1/\xff"]),
        # The buffer is UTF-8, the view starts inside a character.
        "a start inside a character": _string_views(text, [(9, len(text) - 9)]),
        "an end inside a character": _string_views(text, [(0, 15)]),
    }
    for what, array in refused.items():
        for fn in [ha.is_valid, ha.clean, ha.canonical, ha.recognize, ha.extract]:
            with pytest.raises(ValueError, match="UTF-8"):
                fn(array)


@pytest.mark.parametrize("type_", [pa.string(), pa.large_string(), pa.string_view(), pa.binary()], ids=str)
def test_a_dictionary_is_read_as_its_values(type_):
    # pandas' and Polars' categorical columns: each row read as its value, the result the
    # same as of the values written out. (Each value worked on once where they are fewer
    # than half the rows, as here; else row by row, below.)
    values = (VALUES + [None]) * 3
    plain = column(values, type_)
    dictionary = plain.dictionary_encode()
    assert pa.types.is_dictionary(dictionary.type)
    for fn, args in [(ha.clean, ()), (ha.recognize, ()), (ha.canonical, ()), (ha.to_form, ("doi",)), (ha.extract, ()), (ha.is_valid, ())]:
        assert_same(fn(dictionary, *args), fn(plain, *args))
    for fn in [ha.clean, ha.canonical]:
        assert_same(fn(dictionary, string_view=True), fn(plain, string_view=True))
    # Values the rows do not use, more of them than rows: row by row, the same.
    few = pa.DictionaryArray.from_arrays(pa.array([3, None, 0, 3], pa.int32()), column(VALUES, type_))
    decoded = column([VALUES[3], None, VALUES[0], VALUES[3]], type_)
    for fn, args in [(ha.clean, ()), (ha.to_form, ("proxy",)), (ha.extract, ()), (ha.is_valid, ())]:
        assert_same(fn(few, *args), fn(decoded, *args))
    # A long column of a few values, in parts on threads either way.
    many = pa.DictionaryArray.from_arrays(pa.array([i % 7 for i in range(50_000)], pa.int16()), column(VALUES[:7], type_))
    written = column([VALUES[i % 7] for i in range(50_000)], type_)
    assert_same(ha.clean(many, threads=2), ha.clean(written, threads=2))
    # A null among the dictionary's values, and a slice of the keys.
    keyed = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 1, 0], pa.int8()), pa.array(["DOI: 10.1000/A", None], type_))
    assert ha.clean(keyed).field("handle").to_pylist() == ["10.1000/a", None, None, None, "10.1000/a"]
    assert ha.clean(keyed.slice(3)).field("handle").to_pylist() == [None, "10.1000/a"]
    # A dictionary of no values: its rows all null.
    empty = pa.DictionaryArray.from_arrays(pa.array([None, None], pa.int8()), pa.array([], type_))
    assert ha.clean(empty).to_pylist() == [None, None]
    assert len(ha.extract(empty.slice(0, 0))) == 0
    with pytest.raises(TypeError, match="not Int64"):
        ha.clean(pa.DictionaryArray.from_arrays(pa.array([0], pa.int8()), pa.array([1])))
