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

Each method hands the column's Arrow data (no copy) to the functions of
:mod:`handle_id.arrow`, which run without the GIL, and takes their Arrow result back, its
strings as views (``string_view=True``: Polars' own layout, so no copy). It is a
namespace of ``map_batches`` calls (elementwise), not a compiled expression plugin: Polars
calls into Python once per batch. A compiled plugin (pyo3-polars) would put
the Rust crates of Polars itself into this package: about 250 crates to build (more than
ten minutes of one core before the largest of them were reached, on the machine the
package is tested on), a wheel several times larger, and a build tied to one Polars
version's plugin interface; the Arrow columns this namespace hands over work with any
Polars that speaks the Arrow C data interface, and a long column is worked on in parts on
as many threads as the machine has cores (:mod:`handle_id.arrow`; ``threads=`` limits
them), without the GIL.
"""

from __future__ import annotations

from typing import Any, Callable

import polars as pl

from . import arrow as _arrow

__all__ = ["HandleIdNamespace"]

_CLEANED = pl.Struct(
    {"handle": pl.String, "form": pl.String, "fixes": pl.List(pl.String), "error": pl.String}
)
_RECOGNIZED = pl.Struct({"handle": pl.String, "form": pl.String, "error": pl.String})
_FOUND = pl.List(
    pl.Struct(
        {
            "start": pl.Int64,
            "end": pl.Int64,
            "text": pl.String,
            "form": pl.String,
            "handle": pl.String,
        }
    )
)


def _on_series(fn: Callable[..., Any], field: str | None = None, **options: Any):
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

    def _map(self, fn: Callable[..., Any], dtype: Any, field: str | None = None, **options: Any) -> pl.Expr:
        return self._expr.map_batches(
            _on_series(fn, field, **options), return_dtype=dtype, is_elementwise=True
        )

    def _strings(self, fn: Callable[..., Any], dtype: Any, field: str | None = None, **options: Any) -> pl.Expr:
        # Strings come back as views, Polars' own layout: Polars takes them without a copy.
        return self._map(fn, dtype, field, string_view=True, **options)

    def is_valid(self, *, threads: int | None = None) -> pl.Expr:
        """Whether each value is a bare handle (``handle_id.is_valid``)."""
        return self._map(_arrow.is_valid, pl.Boolean, threads=threads)

    def canonical(self, **options: Any) -> pl.Expr:
        """Each value read in any written form, as its handle's canonical text; null where
        it holds none."""
        return self._strings(_arrow.canonical, pl.String, **options)

    def recognize(self, **options: Any) -> pl.Expr:
        """A struct of ``handle``, ``form``, ``error`` (``handle_id.arrow.recognize``)."""
        return self._strings(_arrow.recognize, _RECOGNIZED, **options)

    def clean(self, **options: Any) -> pl.Expr:
        """A struct of ``handle``, ``form``, ``fixes``, ``error``
        (``handle_id.arrow.clean``)."""
        return self._strings(_arrow.clean, _CLEANED, **options)

    def to_form(self, form: str, **options: Any) -> pl.Expr:
        """Each value's handle written in ``form``; null where it holds none or has no text
        in that form."""
        return self._strings(
            lambda a, **o: _arrow.to_form(a, form, **o), pl.String, field="output", **options
        )

    def extract(self, **options: Any) -> pl.Expr:
        """A list of structs ``start``, ``end``, ``text``, ``form``, ``handle`` per value
        (``handle_id.arrow.extract``)."""
        return self._strings(_arrow.extract, _FOUND, **options)
