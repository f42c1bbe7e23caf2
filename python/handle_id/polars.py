"""Polars: an expression namespace ``handle_id`` over the Arrow path.

Importing this module registers ``pl.col(...).handle_id``:

>>> import polars as pl, handle_id.polars
>>> df = pl.DataFrame({"doi": ["DOI: 10.1000/ABC.", "https://doi.org/10.1000/X", "nothing", None]})
>>> df.select(pl.col("doi").handle_id.canonical())["doi"].to_list()
[' 10.1000/ABC.', '10.1000/x', None, None]
>>> df.select(pl.col("doi").handle_id.is_valid())["doi"].to_list()  # bare handles (D5)
[True, True, False, None]
>>> df.select(pl.col("doi").handle_id.clean().struct.field("handle"))["handle"].to_list()
['10.1000/abc', '10.1000/x', None, None]
>>> df.select(pl.col("doi").handle_id.to_form("hdl"))["doi"].to_list()
['hdl:%2010.1000/ABC.', 'hdl:10.1000/X', None, None]

``canonical`` and ``to_form`` read each value as ``handle_id.recognize`` does (a
``doi:`` label followed by a space holds the handle `` 10.1000/ABC.``, not a DOI, SPEC U8);
``clean`` is the one for messy values.

Each method is a compiled expression: Polars calls the package's native module itself,
through its plugin interface (``polars.plugins.register_plugin_function``), on its own
threads and without Python, with the column's Arrow data (no copy); the results' strings
are views, Polars' own layout, taken without a copy. A long chunk is worked on in parts on
as many threads as the machine has cores (``threads=`` limits them), unless Polars says it
already runs calls in parallel. The interface is the one Polars 2.1 defines (version 0.1),
written in the module with the Arrow C data interface's types alone (the crates of Polars
are not built into it). Where the running Polars does not take it (checked once, when this
module is imported, on a frame of one row: :data:`COMPILED`), each method is a
``map_batches`` call over :mod:`handle_id.arrow` instead, which gives the same columns and
calls into Python once per batch.
"""

from __future__ import annotations

import operator
import pickle
from pathlib import Path
from typing import Any, Callable, Iterable

import polars as pl

from . import _handle_id as _native

__all__ = ["COMPILED", "HandleIdNamespace"]

# (A form's name and a fix's code are categorical: one byte a row, the names once.)
_CLEANED = pl.Struct(
    {
        "handle": pl.String,
        "form": pl.Categorical,
        "fixes": pl.List(pl.Categorical),
        "error": pl.String,
    }
)
_RECOGNIZED = pl.Struct({"handle": pl.String, "form": pl.Categorical, "error": pl.String})
_FOUND = pl.List(
    pl.Struct(
        {
            "start": pl.Int64,
            "end": pl.Int64,
            "text": pl.String,
            "form": pl.Categorical,
            "handle": pl.String,
        }
    )
)


def _plain(value: Any) -> Any:
    """``value`` as the built-in type the plugin reads, as handle_id.arrow takes it: an int
    (an ``IntEnum``, a NumPy integer) as an ``int``, a ``str`` subclass's as a ``str``, a
    sequence or any other iterable (a set, a generator) as a new ``list`` (pickle writes a
    list given twice as a reference to the first, which the plugin does not read); anything
    else as it is, for the plugin to refuse."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray, memoryview, dict)):
        return [_plain(v) for v in value]
    try:
        return operator.index(value)
    except TypeError:
        return value


def _compiled(name: str, expr: pl.Expr, **kwargs: Any) -> pl.Expr:
    """The plugin's function ``name`` over ``expr`` (elementwise), with ``kwargs``."""
    from polars.plugins import register_plugin_function

    kwargs = {k: _plain(v) for k, v in kwargs.items()}
    # Checked now, as Polars will write them, and raised as handle_id.arrow raises them: a
    # frame's run would tell a ComputeError, and later.
    _native.plugin_check(name, pickle.dumps(kwargs, protocol=5) if kwargs else b"")
    return register_plugin_function(
        plugin_path=Path(_native.__file__),
        function_name=name,
        args=expr,
        kwargs=kwargs or None,
        is_elementwise=True,
        use_abs_path=True,
    )


def _takes_the_plugin() -> bool:
    """Whether the running Polars takes the compiled plugin: one row through it."""
    try:
        frame = pl.DataFrame({"v": ["doi:10.1000/X"]})
        out = frame.select(_compiled("clean", pl.col("v")).struct.field("handle"))
        return out["handle"].to_list() == ["10.1000/x"]
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # (Polars raises a panic of its own where a symbol is missing.)
        return False


#: Whether the namespace's methods are the compiled plugin (the running Polars takes it),
#: or ``map_batches`` calls over :mod:`handle_id.arrow`.
COMPILED: bool = _takes_the_plugin()


def _on_series(fn: Callable[..., Any], field: str | None = None, **options: Any):
    # (Taken once: a generator is read here, not by the first batch alone.)
    options = {k: _plain(v) for k, v in options.items()}

    def run(s: pl.Series) -> pl.Series:
        out = fn(s, **options)
        if field is not None:
            out = out.field(field) if hasattr(out, "field") else _field(out, field)
        return pl.Series(s.name, out)

    return run


def _field(chunked: Any, name: str) -> Any:
    import pyarrow as pa

    return pa.chunked_array([c.field(name) for c in chunked.chunks], type=chunked.type.field(name).type)


@pl.api.register_expr_namespace("handle_id")
class HandleIdNamespace:
    """``pl.col(...).handle_id``: the functions of :mod:`handle_id.arrow` as expressions.
    Keyword options are those of the scalar functions (``proxy_bases``,
    ``repository_urls``, ``resolution_form``, ``cordra``; ``handle_prefixes`` for
    ``extract``), and ``threads``, as :mod:`handle_id.arrow` takes it."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def _run(
        self,
        name: str,
        dtype: Any,
        *args: Any,
        field: str | None = None,
        strings: bool = True,
        **options: Any,
    ) -> pl.Expr:
        if COMPILED:
            # (`to_form`'s is its output column alone, as the plugin gives it.)
            if args:
                options["form"] = args[0]
            return _compiled(name, self._expr, **options)
        # (pyarrow only here: the compiled plugin needs none.)
        from . import arrow

        call = getattr(arrow, name)

        def fn(array: Any, **o: Any) -> Any:
            return call(array, *args, **o)

        if strings:
            # Strings come back as views, Polars' own layout: Polars takes them without a copy.
            options["string_view"] = True
        return self._expr.map_batches(
            _on_series(fn, field, **options), return_dtype=dtype, is_elementwise=True
        )

    def is_valid(self, *, threads: int | None = None) -> pl.Expr:
        """Whether each value is a bare handle (``handle_id.is_valid``)."""
        return self._run("is_valid", pl.Boolean, strings=False, threads=threads)

    def canonical(self, **options: Any) -> pl.Expr:
        """Each value read in any written form, as its handle's canonical text; null where
        it holds none."""
        return self._run("canonical", pl.String, **options)

    def recognize(self, **options: Any) -> pl.Expr:
        """A struct of ``handle``, ``form``, ``error`` (``handle_id.arrow.recognize``)."""
        return self._run("recognize", _RECOGNIZED, **options)

    def clean(self, **options: Any) -> pl.Expr:
        """A struct of ``handle``, ``form``, ``fixes``, ``error``
        (``handle_id.arrow.clean``)."""
        return self._run("clean", _CLEANED, **options)

    def to_form(self, form: str, **options: Any) -> pl.Expr:
        """Each value's handle written in ``form``; null where it holds none or has no text
        in that form."""
        return self._run("to_form", pl.String, form, field="output", **options)

    def extract(self, **options: Any) -> pl.Expr:
        """A list of structs ``start``, ``end``, ``text``, ``form``, ``handle`` per value
        (``handle_id.arrow.extract``)."""
        return self._run("extract", _FOUND, **options)
