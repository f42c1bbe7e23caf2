"""Handle System identifiers (handles such as ``20.1000/5555``; every DOI is one).

The Python face of the Rust library handle-id: every rule is the library's, generated
from the grammar files of the specifications; this package converts arguments, results
and errors. Offsets are Python string offsets (code points), never bytes.

>>> import handle_id
>>> h = handle_id.parse("10.978.8896471/foo/bar")
>>> h.prefix, h.local_name, h.is_doi
('10.978.8896471', 'foo/bar', True)
>>> handle_id.clean(" DOI: https://dx.doi.org/10.1045/APRIL2006-PASKIN. ").handle.text
'10.1045/april2006-paskin'

Scalar functions: :func:`validate`, :func:`is_valid`, :func:`parse`, :func:`recognize`,
:func:`detect`, :func:`clean`, :func:`extract`, :func:`lint`; records:
:class:`Record` and :class:`Locations`, and over the Handle protocol :func:`resolve` and
:func:`resolve_many`; columns: :mod:`handle_id.arrow`. Every error of the input is a
:class:`HandleError` (a ``ValueError``); no server answering :func:`resolve` is a
:class:`ResolveError` (a ``ConnectionError``).
"""

from ._handle_id import (
    FIX_CODES,
    FORMS,
    __version__,
    Cleaned,
    Fix,
    Found,
    Handle,
    HandleError,
    HandleValue,
    LintWarning,
    Location,
    Locations,
    ProxyRedirect,
    Record,
    Redirect,
    ResolveError,
    Uri,
    clean,
    detect,
    extract,
    is_valid,
    lint,
    parse,
    recognize,
    resolve,
    resolve_many,
    validate,
)

__all__ = [
    "__version__",
    "FIX_CODES",
    "FORMS",
    "Cleaned",
    "Fix",
    "Found",
    "Handle",
    "HandleError",
    "HandleValue",
    "LintWarning",
    "Location",
    "Locations",
    "ProxyRedirect",
    "Record",
    "Redirect",
    "ResolveError",
    "Uri",
    "clean",
    "detect",
    "extract",
    "is_valid",
    "lint",
    "parse",
    "recognize",
    "resolve",
    "resolve_many",
    "validate",
]
