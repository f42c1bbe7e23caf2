"""The scalar functions over whole columns, through the Arrow C data interface.

Each function takes an Arrow array of strings or binary (``string``, ``large_string``,
``string_view``, ``binary``, ``large_binary``, ``binary_view``, or a ``dictionary`` of
them: pandas' and Polars' categorical columns, each row read as its value, each value
worked on once where they are fewer than half the rows; a ``pyarrow.Array``, a
``pyarrow.ChunkedArray``, or anything with ``__arrow_c_array__`` or
``__arrow_c_stream__`` such as a Polars Series), and returns a ``pyarrow`` array of the
same length: no Python object is made per value, and the work runs without the GIL. A
long column is cut into parts (16,384 values or more each) worked on at once, one thread
each: as many as the machine has cores, or at most ``threads`` (``threads=1``: the calling
thread alone, as in a Spark task, which has its core already). By default, calls made at
once (Polars' streaming engine, a thread pool) share the machine's spare threads: each
takes what the others leave, down to the calling thread alone, rather than each starting a
thread per core. The result is the same
rows in the same order however the column is cut. A null stays null. A binary value that
is not UTF-8 is an error (``invalid-utf8``, H5), as the ``hdl`` command says of such a
line. The columns of strings in a result are ``string``; with ``string_view=True`` they are
``string_view`` (pyarrow 16 or later), the layout Polars keeps its strings in, which Polars
then takes without copying them (the Polars namespace asks for it). A view points where its
bytes already are: a handle that is a slice of its value (``clean``, ``recognize``,
``canonical``, ``to_form``) points into the input's buffer rather than being copied, so that
the result holds the input's buffers while it lives, as an Arrow slice does (of a ``string``
column, the bytes its values span), and shares their bytes: written to an IPC file or sent
over Flight, each of its view columns carries them. A ``string`` result (the default, or one
``cast`` to it) holds its own. A form's name and a fix's code are a ``dictionary`` column
(``int8`` keys into the names, a byte a row): pandas reads it as categorical, Polars as
``Categorical``, ``to_pylist()`` as the names, and ``cast(pa.string())`` makes it a
``string`` column. A ``string``
column holds 2 GiB of text at most (its offsets are 32-bit): a result that would hold more in
one column raises ``OverflowError`` (give the column in parts, as a ``ChunkedArray`` of
smaller chunks, or ask for ``string_view=True``), as does a ``string_view`` value of more
than 4 GiB (a view's length is 32-bit).

>>> import pyarrow as pa, handle_id.arrow
>>> out = handle_id.arrow.clean(pa.array(["DOI: 10.1000/ABC.", "nothing", None]))
>>> out.field("handle").to_pylist()
['10.1000/abc', None, None]
>>> out.field("fixes").to_pylist()[0]
['label', 'surrounding-whitespace', 'trailing-punctuation', 'case-folded']
"""

from __future__ import annotations

from typing import Any, Callable

import pyarrow as pa

from . import _handle_id as _native

__all__ = ["is_valid", "recognize", "canonical", "clean", "to_form", "extract"]


def _apply(fn: Callable[..., Any], array: Any, *args: Any, **kwargs: Any) -> Any:
    """Runs ``fn`` on each chunk of ``array`` and gathers the results."""
    if isinstance(array, pa.ChunkedArray):
        chunks = [fn(c, *args, **kwargs) for c in array.chunks]
        if not chunks:
            # The result type, from an empty chunk of the input's type.
            empty = fn(pa.array([], type=array.type), *args, **kwargs)
            return pa.chunked_array([], type=empty.type)
        return pa.chunked_array(chunks)
    if not hasattr(array, "__arrow_c_array__"):
        if hasattr(array, "__arrow_c_stream__"):
            return _apply(fn, pa.chunked_array(array), *args, **kwargs)
        if isinstance(array, (str, bytes)):
            # (pyarrow would read one text as a column of its characters.)
            raise TypeError(
                f"expected an array of strings or binary, not {type(array).__name__}: "
                "for one value, the functions of handle_id itself"
            )
        # (A NaN among the values, as pandas writes a missing one in a list or an object
        # array, is a null, as pyarrow reads a pandas Series.)
        array = pa.array(array, from_pandas=True)
    return fn(array, *args, **kwargs)


def is_valid(array: Any, *, threads: int | None = None) -> Any:
    """Whether each value is a bare handle (``handle_id.is_valid``): a ``bool`` array."""
    return _apply(_native.arrow_is_valid, array, threads=threads)


def recognize(
    array: Any, *, string_view: bool = False, threads: int | None = None, **options: Any
) -> Any:
    """``handle_id.recognize`` over a column: a struct array of ``handle`` (decoded),
    ``form`` and ``error`` (the library's message; null when the value holds a handle).
    ``form`` is the form the value appears to be written in even when it is invalid.
    Options as for ``handle_id.recognize``."""
    return _apply(
        _native.arrow_recognize, array, string_view=string_view, threads=threads, **options
    )


def canonical(
    array: Any, *, string_view: bool = False, threads: int | None = None, **options: Any
) -> Any:
    """Each value read in any written form (as ``handle_id.recognize`` reads it), as its
    handle's canonical text (a DOI in ASCII lowercase): a ``string`` array (``string_view``
    with ``string_view=True``), null where the value holds no handle. Options as for
    ``handle_id.recognize``."""
    return _apply(
        _native.arrow_canonical, array, string_view=string_view, threads=threads, **options
    )


def clean(
    array: Any,
    *,
    keep_case: bool = False,
    string_view: bool = False,
    threads: int | None = None,
    **options: Any,
) -> Any:
    """``handle_id.clean`` over a column: a struct array of ``handle`` (canonical, or as
    written with ``keep_case``), ``form``, ``fixes`` (the fixes' codes, in order) and
    ``error`` (the library's message; null when the value was cleaned). Where a value
    cannot be cleaned, ``form`` is still the form it appears to be written in
    (``handle_id.detect``), as for ``recognize``."""
    return _apply(
        _native.arrow_clean,
        array,
        keep_case=keep_case,
        string_view=string_view,
        threads=threads,
        **options,
    )


def to_form(
    array: Any,
    form: str,
    *,
    base: str | None = None,
    string_view: bool = False,
    threads: int | None = None,
    **options: Any,
) -> Any:
    """Each value read in any written form and written in ``form`` (one of
    ``handle_id.FORMS``): a struct array of ``handle``, ``form`` (the form read),
    ``output`` and ``error`` (where the handle read has no text in ``form``, the ``urn:``
    forms of a naming authority that holds ``:`` or ``repository`` without a ``base``, its
    ``handle`` and ``form`` with a null ``output`` and the error saying why)."""
    return _apply(
        _native.arrow_to_form,
        array,
        form,
        base=base,
        string_view=string_view,
        threads=threads,
        **options,
    )


def extract(
    array: Any, *, string_view: bool = False, threads: int | None = None, **options: Any
) -> Any:
    """``handle_id.extract`` over a column: for each value a list of structs ``start``,
    ``end``, ``text``, ``form``, ``handle``. Offsets are Python string offsets for a
    string column and byte offsets for a binary one (bytes that are not UTF-8 are never
    part of an identifier)."""
    return _apply(
        _native.arrow_extract, array, string_view=string_view, threads=threads, **options
    )
