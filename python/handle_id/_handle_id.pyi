"""Type stubs of the native module (handle_id._handle_id); handle_id re-exports it."""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any, Iterable, Literal, Optional, Sequence, final

__all__ = [
    "HandleError",
    "ResolveError",
    "FORMS",
    "FIX_CODES",
    "__version__",
    "Handle",
    "Uri",
    "Cleaned",
    "Fix",
    "LintWarning",
    "Found",
    "validate",
    "is_valid",
    "parse",
    "recognize",
    "detect",
    "clean",
    "extract",
    "lint",
    "Record",
    "HandleValue",
    "Redirect",
    "ProxyRedirect",
    "Locations",
    "Location",
    "resolve",
    "resolve_many",
    "arrow_is_valid",
    "arrow_recognize",
    "arrow_clean",
    "arrow_canonical",
    "arrow_to_form",
    "arrow_extract",
    "plugin_check",
]

FORMS: tuple[str, ...]
"""The written forms' names: handle, hdl, hdl-host, hdl-resolution, info-hdl, info-doi,
doi, urn-hdl, urn-doi, proxy, api, repository."""
FIX_CODES: tuple[str, ...]
"""The fixes' codes, in the order cleaning applies them: surrounding-whitespace,
wrapping-pair, label, resolver-url, query-or-fragment, percent-decoded,
trailing-punctuation, leading-punctuation, split-joined, case-folded."""
__version__: str
"""The package's version (the Rust crate's)."""

class HandleError(ValueError):
    """Every input the library rejects. `index` is a Python string offset into the text
    the error is about (None for a record error); `byte_index` the same in UTF-8 bytes, as
    `message` gives it. One made by hand (`HandleError("x")`) has `message` its first
    argument's text, `kind` and `rule` empty, and the others None."""

    index: Optional[int]
    byte_index: Optional[int]
    kind: str
    @cached_property
    def message(self) -> str: ...
    rule: str
    found: Optional[str]
    at: Optional[str]

class ResolveError(ConnectionError):
    """No handle server answered `resolve` (each transport failed or timed out, no site
    for the handle's prefix, referrals too deep), or a certified answer did not verify."""

@final
class Handle:
    """A handle (SPEC H1): naming authority (prefix), '/', local name. Compared by its
    exact text (and equal to that str); hashable; immutable."""

    def __new__(cls, text: str) -> Handle: ...
    @property
    def text(self) -> str: ...
    @property
    def prefix(self) -> str: ...
    @property
    def local_name(self) -> str: ...
    @property
    def segments(self) -> list[str]: ...
    @property
    def parent_prefix(self) -> Optional[str]: ...
    @property
    def prefix_ancestors(self) -> list[str]: ...
    @property
    def is_doi(self) -> bool: ...
    @property
    def is_prefix_handle(self) -> bool: ...
    @property
    def is_canonical(self) -> bool: ...
    def prefix_handle(self) -> Handle: ...
    def canonical(self) -> Handle: ...
    def is_derived_from(self, prefix: str) -> bool: ...
    def eq_ignore_ascii_case(self, other: Handle | str) -> bool: ...
    def to_form(self, form: str, base: Optional[str] = None) -> str: ...
    def lint(self) -> list[LintWarning]: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __reduce__(self) -> tuple[type[Handle], tuple[str]]: ...
    def __lt__(self, other: Handle | str, /) -> bool: ...
    def __le__(self, other: Handle | str, /) -> bool: ...
    def __gt__(self, other: Handle | str, /) -> bool: ...
    def __ge__(self, other: Handle | str, /) -> bool: ...

@final
class Uri:
    """An identifier read by `recognize`; str() is the canonical text of its form.
    Pickles as `recognize(text, **options)`."""

    @property
    def text(self) -> str: ...
    @property
    def form(self) -> str: ...
    @property
    def handle(self) -> Handle: ...
    @property
    def base(self) -> Optional[str]: ...
    @property
    def handle_span(self) -> tuple[int, int]: ...
    @property
    def query(self) -> Optional[str]: ...
    @property
    def fragment(self) -> Optional[str]: ...
    def lint(self) -> list[LintWarning]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Fix:
    """A fix `clean` applied. Pickles; made by hand with a code of `FIX_CODES` (its rule
    the code's)."""

    def __new__(cls, code: str, index: int, byte_index: int, held: bool, message: str) -> Fix: ...

    @property
    def code(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def byte_index(self) -> int: ...
    @property
    def held(self) -> bool:
        """Made in the handle a URL or URI holds, cleaned again as a string of its own (SPEC C2)."""
    @property
    def message(self) -> str: ...
    @property
    def rule(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class LintWarning:
    """A warning for a valid handle rarely meant as written. Pickles; made by hand with
    a warning's code (its rule the code's)."""

    def __new__(cls, code: str, index: int, byte_index: int, message: str) -> LintWarning: ...

    @property
    def code(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def byte_index(self) -> int: ...
    @property
    def message(self) -> str: ...
    @property
    def rule(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Cleaned:
    """What `clean` found; str() is the canonical handle. Equal to another cleaning of
    the same text to the same handle, form and fixes; pickles as `clean(text, **options)`."""

    @property
    def handle(self) -> Handle: ...
    @property
    def as_written(self) -> Handle: ...
    @property
    def form(self) -> str: ...
    @property
    def fixes(self) -> list[Fix]: ...
    @property
    def warnings(self) -> list[LintWarning]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Found:
    """An identifier `extract` found; `text[start:end]` is `.text`. Pickles; made by hand
    with a form of `FORMS` and a `Handle` or its text."""

    def __new__(cls, start: int, end: int, text: str, form: str, handle: Handle | str) -> Found: ...

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def form(self) -> str: ...
    @property
    def handle(self) -> Handle: ...
    @property
    def span(self) -> tuple[int, int]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def validate(text: str) -> None: ...
def is_valid(text: str) -> bool: ...
def parse(text: str) -> Handle: ...
def recognize(
    text: str,
    *,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
) -> Uri: ...
def detect(
    text: str,
    *,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
) -> Optional[str]: ...
def clean(
    text: str,
    *,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
) -> Cleaned: ...
def extract(
    text: str,
    *,
    handle_prefixes: Optional[Iterable[str]] = None,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
) -> list[Found]: ...
def lint(
    text: str,
    *,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
) -> list[LintWarning]: ...

def resolve(
    handle: str | Handle,
    *,
    server: Optional[str] = None,
    root_info: Optional[str | os.PathLike[str]] = None,
    types: Optional[Iterable[str]] = None,
    indexes: Optional[Sequence[int]] = None,
    transport: Optional[Literal["udp", "tcp"]] = None,
    authoritative: bool = False,
    certified: bool = False,
    timeout: float = 10.0,
) -> Record: ...
def resolve_many(
    handles: Iterable[str | Handle],
    *,
    server: Optional[str] = None,
    root_info: Optional[str | os.PathLike[str]] = None,
    types: Optional[Iterable[str]] = None,
    indexes: Optional[Sequence[int]] = None,
    transport: Optional[Literal["udp", "tcp"]] = None,
    authoritative: bool = False,
    certified: bool = False,
    timeout: float = 10.0,
    jobs: int = 64,
) -> list[Record]: ...

@final
class Record:
    """A REST API response: the response code, the handle and its values. Compared and
    hashed by value; pickles as its JSON."""

    def __new__(cls, text: str | bytes | dict[str, Any]) -> Record: ...
    @staticmethod
    def parse(text: str | bytes | dict[str, Any]) -> Record: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    @property
    def handle(self) -> Optional[Handle]: ...
    @property
    def code(self) -> int: ...
    @property
    def code_meaning(self) -> str: ...
    @property
    def http_status(self) -> int: ...
    @property
    def message(self) -> Optional[str]: ...
    @property
    def values(self) -> list[HandleValue]: ...
    def to_json(self, pretty: bool = False) -> str: ...
    def filtered(
        self, types: Optional[Iterable[str]] = None, indexes: Optional[Sequence[int]] = None
    ) -> Record: ...
    def alias(self) -> Optional[Handle]: ...
    def locations(self) -> list[tuple[HandleValue, Locations]]: ...
    def redirect(
        self,
        *,
        locatt: Optional[Iterable[str]] = None,
        client_ip: Optional[str] = None,
        country: Optional[str] = None,
        seed: Optional[int] = None,
    ) -> Optional[Redirect]: ...
    def proxy_redirect(
        self,
        *,
        locatt: Optional[Iterable[str]] = None,
        client_ip: Optional[str] = None,
        country: Optional[str] = None,
        seed: Optional[int] = None,
    ) -> Optional[ProxyRedirect]: ...
    def show_urls(self) -> str: ...

@final
class HandleValue:
    """One value of a record. Compared and hashed by value; pickles as its JSON."""

    def __new__(cls, json: str) -> HandleValue: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

    @property
    def index(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def data(self) -> Any: ...
    @property
    def text(self) -> Optional[str]: ...
    @property
    def ttl(self) -> int | str | None: ...
    @property
    def timestamp(self) -> Optional[str]: ...
    def has_type(self, filter: str) -> bool: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class Redirect:
    """Where the proxy redirects. Compared and hashed by value; pickles as its value and location."""

    def __new__(cls, value: HandleValue, location: Optional[Location] = None) -> Redirect: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    @property
    def url(self) -> str: ...
    @property
    def value(self) -> HandleValue: ...
    @property
    def location(self) -> Optional[Location]: ...

@final
class ProxyRedirect:
    """A redirect as the reference proxy sends it. Compared and hashed by value; pickles."""

    def __new__(cls, url: str, status: int = 302, headers: Sequence[tuple[str, str]] = ...) -> ProxyRedirect: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    @property
    def url(self) -> str: ...
    @property
    def status(self) -> int: ...
    @property
    def headers(self) -> list[tuple[str, str]]: ...

@final
class Locations:
    """A 10320/loc value. Compared and hashed by value; pickles as its XML."""

    def __new__(cls, xml: str) -> Locations: ...
    @staticmethod
    def parse(xml: str) -> Locations: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    @property
    def choose_by(self) -> list[str]: ...
    @property
    def locations(self) -> list[Location]: ...
    def choose(
        self,
        *,
        locatt: Optional[Iterable[str]] = None,
        client_ip: Optional[str] = None,
        country: Optional[str] = None,
        seed: Optional[int] = None,
    ) -> Optional[Location]: ...
    def to_xml(self) -> str: ...

@final
class Location:
    """One location of a 10320/loc value. Compared and hashed by value; pickles as its attributes."""

    def __new__(cls, attributes: Sequence[tuple[str, str]]) -> Location: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

    @property
    def href(self) -> str: ...
    @property
    def attributes(self) -> list[tuple[str, str]]: ...
    @property
    def weight(self) -> float: ...
    @property
    def score(self) -> Optional[float]: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def country(self) -> Optional[str]: ...
    def attribute(self, name: str) -> Optional[str]: ...

def arrow_is_valid(array: Any, *, threads: Optional[int] = None) -> Any: ...
def arrow_recognize(
    array: Any,
    *,
    string_view: bool = False,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
    threads: Optional[int] = None,
) -> Any: ...
def arrow_clean(
    array: Any,
    *,
    keep_case: bool = False,
    string_view: bool = False,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
    threads: Optional[int] = None,
) -> Any: ...
def arrow_canonical(
    array: Any,
    *,
    string_view: bool = False,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
    threads: Optional[int] = None,
) -> Any: ...
def arrow_to_form(
    array: Any,
    form: str,
    *,
    base: Optional[str] = None,
    string_view: bool = False,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
    threads: Optional[int] = None,
) -> Any: ...
def arrow_extract(
    array: Any,
    *,
    handle_prefixes: Optional[Iterable[str]] = None,
    string_view: bool = False,
    proxy_bases: Optional[Iterable[str]] = None,
    repository_urls: bool = False,
    resolution_form: bool = False,
    cordra: bool = False,
    threads: Optional[int] = None,
) -> Any: ...
def plugin_check(name: str, kwargs: bytes) -> None: ...
