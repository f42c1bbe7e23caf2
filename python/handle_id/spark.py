"""Spark: the functions of :mod:`handle_id.arrow` over a DataFrame column, in Spark's
Python workers, batch by batch through Arrow (``DataFrame.mapInArrow``, Spark 3.3 and
later): no Python object per value, on every executor, for catalogues that outgrow one
machine. The workers need ``handle_id`` and ``pyarrow`` installed.

>>> from pyspark.sql import SparkSession                    # doctest: +SKIP
>>> import handle_id.spark
>>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
>>> df = spark.createDataFrame([("DOI: 10.1000/ABC.",), ("nothing",)], ["doi"])  # doctest: +SKIP
>>> handle_id.spark.clean(df, "doi").select("doi", "handle_id.handle").collect()  # doctest: +SKIP
[Row(doi='DOI: 10.1000/ABC.', handle='10.1000/abc'), Row(doi='nothing', handle=None)]

Each function returns ``df`` with one more column, ``output`` (``"handle_id"`` unless
named), of the type the Arrow function returns, its forms' names and fixes' codes as
strings (Spark reads no Arrow dictionary: :func:`plain`); keyword options are those of the
scalar functions.
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_valid", "canonical", "recognize", "clean", "to_form", "extract", "spark_type", "plain"]


def spark_type(function: str) -> Any:
    """The Spark SQL type of the column ``function`` adds."""
    from pyspark.sql.types import (
        ArrayType,
        BooleanType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    def struct(*names: str, fixes: bool = False) -> StructType:
        fields = [StructField(n, StringType(), True) for n in names]
        if fixes:
            fields.insert(2, StructField("fixes", ArrayType(StringType(), True), True))
        return StructType(fields)

    return {
        "is_valid": BooleanType(),
        "canonical": StringType(),
        "recognize": struct("handle", "form", "error"),
        "clean": struct("handle", "form", "error", fixes=True),
        "to_form": struct("handle", "form", "output", "error"),
        "extract": ArrayType(
            StructType(
                [
                    StructField("start", LongType(), False),
                    StructField("end", LongType(), False),
                    StructField("text", StringType(), False),
                    StructField("form", StringType(), False),
                    StructField("handle", StringType(), False),
                ]
            ),
            True,
        ),
    }[function]


def plain(array: Any) -> Any:
    """``array`` with its ``dictionary`` columns (a form's name, a fix's code), at any depth,
    made ``string`` columns: Spark reads no Arrow dictionary."""
    import pyarrow as pa

    def decoded(t: Any) -> Any:
        if pa.types.is_dictionary(t):
            return t.value_type
        if pa.types.is_struct(t):
            return pa.struct([f.with_type(decoded(f.type)) for f in t])
        if pa.types.is_list(t):
            return pa.list_(t.value_field.with_type(decoded(t.value_type)))
        return t

    want = decoded(array.type)
    return array if want == array.type else array.cast(want)


def _with(df: Any, function: str, column: str, output: str, args: tuple, options: dict) -> Any:
    from pyspark.sql.types import StructField, StructType

    schema = StructType(df.schema.fields + [StructField(output, spark_type(function), True)])

    def run(batches):
        import pyarrow as pa

        import handle_id.arrow

        fn = getattr(handle_id.arrow, function)
        # (A Spark task has its core: the column's work stays on its thread unless the
        # options say otherwise.)
        kwargs = {"threads": 1, **options}
        for batch in batches:
            out = plain(fn(batch.column(column), *args, **kwargs))
            yield pa.RecordBatch.from_arrays(
                list(batch.columns) + [out], names=list(batch.schema.names) + [output]
            )

    return df.mapInArrow(run, schema)


def is_valid(df: Any, column: str, *, output: str = "handle_id") -> Any:
    """``df`` with ``output``: whether each value of ``column`` is a bare handle."""
    return _with(df, "is_valid", column, output, (), {})


def canonical(df: Any, column: str, *, output: str = "handle_id", **options: Any) -> Any:
    """``df`` with ``output``: each value's handle, canonical (null where none)."""
    return _with(df, "canonical", column, output, (), options)


def recognize(df: Any, column: str, *, output: str = "handle_id", **options: Any) -> Any:
    """``df`` with ``output``: a struct of ``handle``, ``form``, ``error``."""
    return _with(df, "recognize", column, output, (), options)


def clean(df: Any, column: str, *, output: str = "handle_id", **options: Any) -> Any:
    """``df`` with ``output``: a struct of ``handle``, ``form``, ``fixes``, ``error``."""
    return _with(df, "clean", column, output, (), options)


def to_form(df: Any, column: str, form: str, *, output: str = "handle_id", **options: Any) -> Any:
    """``df`` with ``output``: a struct of ``handle``, ``form``, ``output``, ``error``."""
    return _with(df, "to_form", column, output, (form,), options)


def extract(df: Any, column: str, *, output: str = "handle_id", **options: Any) -> Any:
    """``df`` with ``output``: the identifiers found in each value (a list of structs)."""
    return _with(df, "extract", column, output, (), options)
