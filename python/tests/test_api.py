"""The Python API itself: the README's tour, types, round trips, errors, options."""

from __future__ import annotations


import sys

import pytest

import handle_id
from conftest import corpus_lines


def test_tour():
    h = handle_id.parse("10.978.8896471/foo/bar")
    assert h.prefix == "10.978.8896471"
    assert h.local_name == "foo/bar"
    assert h.prefix_ancestors == ["10.978", "10"]
    assert h.prefix_handle().text == "0.NA/10.978.8896471"
    assert h.is_doi
    assert handle_id.parse("10.1000/ABC").eq_ignore_ascii_case(handle_id.parse("10.1000/abc"))
    err = pytest.raises(handle_id.HandleError, handle_id.validate, "10@x/y").value
    assert (err.index, err.found, err.kind) == (2, "@", "invalid-character")

    uri = handle_id.recognize(
        "https://hdl.handle.net/20.1000/5555%23resolve?noredirect",
        proxy_bases=["https://resolver.example/hdl"],
    )
    assert uri.form == "proxy"
    assert uri.handle.text == "20.1000/5555#resolve"
    assert uri.query == "noredirect"
    assert uri.handle.to_form("hdl") == "hdl:20.1000/5555%23resolve"
    assert uri.handle.to_form("proxy") == "https://hdl.handle.net/20.1000/5555%23resolve"
    assert handle_id.recognize("urn:doi:10.123:456").handle.text == "10.123/456"
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.recognize("https://example.com/10.1000/182")
    assert e.value.kind == "unknown-resolver"

    c = handle_id.clean(" DOI: https://dx.doi.org/10.1045/APRIL2006-PASKIN. ")
    assert c.handle.text == "10.1045/april2006-paskin"
    assert c.as_written.text == "10.1045/APRIL2006-PASKIN"
    with pytest.raises(ValueError):
        handle_id.clean("See https://example.com/10.1000/182 for details")
    text = "Cited as doi:10.1000/182, and (https://doi.org/10.3319/TAO.2009.05.25.02(IWNOP))."
    assert [f.handle.text for f in handle_id.extract(text)] == [
        "10.1000/182",
        "10.3319/TAO.2009.05.25.02(IWNOP)",
    ]


def test_a_recognized_values_parts_are_where_they_are_written():
    # A `Uri` keeps its text and where its parts are in it (the handle a copy only where it
    # was decoded), and makes its canonical text when asked for: the same parts as read.
    cases = [
        ('hdl:10.1000/x?q#f', {}, ('hdl', '10.1000/x', None, 'q', 'f', (4, 13), 'hdl:10.1000/x?q#f', "Uri(form='hdl', handle='10.1000/x')", 'hdl:10.1000/x?q#f')),
        ('https://doi.org/10.1/x%2Fy?a=b#c', {}, ('proxy', '10.1/x/y', 'https://doi.org', 'a=b', 'c', (16, 26), 'https://doi.org/10.1/x/y?a=b#c', "Uri(form='proxy', handle='10.1/x/y')", 'https://doi.org/10.1/x%2Fy?a=b#c')),
        ('info:doi/10.1/X#f', {}, ('info-doi', '10.1/X', None, None, 'f', (9, 15), 'info:doi/10.1/X#f', "Uri(form='info-doi', handle='10.1/X')", 'info:doi/10.1/X#f')),
        ('urn:doi:10.1:x', {}, ('urn-doi', '10.1/x', None, None, None, (8, 14), 'urn:doi:10.1:x', "Uri(form='urn-doi', handle='10.1/x')", 'urn:doi:10.1:x')),
        ('hdl://a/b/c', {"resolution_form": True}, ('hdl-resolution', 'b/c', 'a', None, None, (8, 11), 'hdl://a/b/c', "Uri(form='hdl-resolution', handle='b/c')", 'hdl://a/b/c')),
        ('https://doi.org/10.1000/日本?x#y', {}, ('proxy', '10.1000/日本', 'https://doi.org', 'x', 'y', (16, 26), 'https://doi.org/10.1000/%E6%97%A5%E6%9C%AC?x#y', "Uri(form='proxy', handle='10.1000/日本')", 'https://doi.org/10.1000/日本?x#y')),
        ('doi:10.1000/ABC', {}, ('doi', '10.1000/ABC', None, None, None, (4, 15), 'doi:10.1000/ABC', "Uri(form='doi', handle='10.1000/ABC')", 'doi:10.1000/ABC')),
        ('10.1000/é', {}, ('handle', '10.1000/é', None, None, None, (0, 9), '10.1000/é', "Uri(form='handle', handle='10.1000/é')", '10.1000/é')),
    ]
    for text, options, want in cases:
        u = handle_id.recognize(text, **options)
        got = (u.form, u.handle.text, u.base, u.query, u.fragment, u.handle_span, str(u), repr(u), u.text)
        assert got == want, text


def test_options():
    page = "https://repo.example/handle/10986/36154"
    with pytest.raises(handle_id.HandleError):
        handle_id.recognize(page)
    assert handle_id.recognize(page, repository_urls=True).form == "repository"
    assert handle_id.recognize("hdl://a/b/c").handle.text == "a/b/c"
    u = handle_id.recognize("hdl://a/b/c", resolution_form=True)
    assert (u.form, u.base, u.handle.text) == ("hdl-resolution", "a", "b/c")
    own = handle_id.recognize("https://resolver.example/hdl/1/2", proxy_bases=["https://resolver.example/hdl"])
    assert own.handle.text == "1/2"
    assert handle_id.recognize("hdl:1/2/3").handle.text == "1/2/3"
    with pytest.raises(handle_id.HandleError):
        handle_id.recognize("hdl:1/2/3", cordra=True)
    with pytest.raises(handle_id.HandleError):
        handle_id.recognize("x", proxy_bases=["not a url"])
    assert handle_id.extract("see 20.500.12345/abc") == []
    [f] = handle_id.extract("see 20.500.12345/abc", handle_prefixes=["20.500.12345"])
    assert f.handle.text == "20.500.12345/abc"
    # Each prefix a naming authority (H2, H3): `a/b/c`'s is `a`.
    for prefix, index in [("a/b", 1), ("", 0), ("1..2", 2)]:
        with pytest.raises(handle_id.HandleError) as e:
            handle_id.extract("see a/b/c", handle_prefixes=[prefix])
        assert e.value.index == index, prefix
    with pytest.raises(ValueError):
        handle_id.parse("1/2").to_form("no-such-form")
    # A repository URL at the repository's base; at a resolver's host (the default base
    # too) its path, handle/ and all, would read as the handle (P1).
    h = handle_id.parse("10986/36154")
    page = h.to_form("repository", base="https://repository.example.org")
    assert page == "https://repository.example.org/handle/10986/36154"
    assert handle_id.recognize(page, repository_urls=True).handle == h
    for base in (None, "https://hdl.handle.net"):
        with pytest.raises(handle_id.HandleError) as e:
            h.to_form("repository", base=base)
        assert e.value.kind == "unwritable" and "repository's base" in e.value.message


def test_round_trips_on_the_corpus():
    forms = [f for f in handle_id.FORMS if f not in ("hdl-resolution", "repository")]
    for line in corpus_lines():
        try:
            u = handle_id.recognize(line)
        except handle_id.HandleError:
            continue
        h = u.handle
        assert handle_id.parse(h.text) == h
        assert handle_id.recognize(str(u)).handle == h
        for form in forms:
            try:
                written = h.to_form(form)
            except handle_id.HandleError as e:
                assert e.kind == "unwritable"
                continue
            # A bare handle is read back as one (D5: `urn:10.1000/182` is a handle, and
            # recognize reads it as a urn: form).
            read = handle_id.parse if form == "handle" else (lambda t: handle_id.recognize(t).handle)
            assert read(written) == h, (line, form, written)
        assert h.canonical().canonical() == h.canonical()
        assert h.canonical().is_canonical
        try:
            c = handle_id.clean(line)
        except handle_id.HandleError:
            continue
        # Cleaning is idempotent, given the handle in a form that says it is one (the
        # bare text `urn:10.1000/182` is read as a urn: form, D5).
        assert handle_id.clean(c.handle.to_form("hdl")).handle == c.handle


def test_handle_is_a_value():
    a, b = handle_id.parse("10.1000/x"), handle_id.Handle("10.1000/x")
    assert a == b and hash(a) == hash(b) and a == "10.1000/x" and a != "10.1000/X"
    assert len({a, b, handle_id.parse("10.1000/X")}) == 2
    assert sorted([handle_id.parse("2/b"), handle_id.parse("1/a")])[0].text == "1/a"
    assert repr(a) == "Handle('10.1000/x')"
    assert a.is_derived_from("10") and not a.is_derived_from("11")
    with pytest.raises(AttributeError):
        a.prefix = "x"  # immutable


def test_errors_carry_where_and_why():
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.parse("10.1000")
    err = e.value
    assert isinstance(err, ValueError)
    assert (err.index, err.byte_index, err.kind, err.found) == (7, 7, "missing-slash", None)
    assert "SPEC H1" in err.message and str(err) == err.message
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.parse("")
    assert (e.value.kind, e.value.rule) == ("empty", "handle")
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.validate("10..1000/x")
    assert (e.value.kind, e.value.index, e.value.rule) == ("empty-segment", 3, "dot")
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.parse("a:b/c").to_form("urn-hdl")
    assert (e.value.kind, e.value.index) == ("unwritable", 1)
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.recognize("hdl:10.1000/a b")
    assert e.value.rule  # the grammar rule it was inside
    with pytest.raises(TypeError):
        handle_id.validate(b"10.1000/x")  # text only; columns take binary



def test_text_is_read_as_python_holds_it():
    # ASCII, text whose UTF-8 Python makes and keeps, and a `str` subclass: each read as
    # the same text, and what a cleaned value keeps of it still there after the call.
    class Sub(str):
        pass

    for text in ["DOI: 10.1000/ABC.", "doi:10.1000/Café·ü.", "(10.1000/日本語)", Sub("10.1000/x")]:
        copy = "".join(list(text))
        c, expected = handle_id.clean(text), handle_id.clean(copy)
        del text
        assert (c.handle, c.as_written, str(c)) == (expected.handle, expected.as_written, str(expected))
        assert [repr(f) for f in c.fixes] == [repr(f) for f in expected.fixes]
        assert [repr(w) for w in c.warnings] == [repr(w) for w in expected.warnings]
    assert handle_id.parse("10.1000/é").local_name == "é"
    assert handle_id.is_valid("10.1000/é") and not handle_id.is_valid("é")
    # A lone surrogate has no UTF-8: no handle (H5), as `test_a_lone_surrogate_is_no_handle`.
    for fn in (handle_id.clean, handle_id.parse, handle_id.validate):
        with pytest.raises(handle_id.HandleError):
            fn("10.1000/\ud800")
    assert not handle_id.is_valid("10.1000/\ud800")

def outcome(fn, *args, **kwargs):
    """What a call gives: its value's repr, or its exception's type and message."""
    try:
        return ("value", repr(fn(*args, **kwargs)))
    except Exception as e:  # noqa: BLE001 (any error is an outcome to compare)
        return (type(e).__name__, str(e))


def test_one_argument_calls_are_the_full_calls():
    # `clean(text)` and the other functions of one text take a quick way in
    # (python/src/fastcall.rs) when given one `str` alone; with keywords, or anything else,
    # the full function is called. The two give the same, values and errors alike.
    from conftest import EXTRA_LINES

    defaults = {"proxy_bases": None, "repository_urls": False, "resolution_form": False, "cordra": False}
    values = corpus_lines() + EXTRA_LINES + ["10.1000/\ud800", 5, None, b"10.1000/x"]
    with_options = ("clean", "recognize", "detect", "lint", "extract")
    for text in values:
        for name in with_options:
            fn = getattr(handle_id, name)
            assert outcome(fn, text) == outcome(fn, text, **defaults), (name, text)
        assert outcome(handle_id.extract, text) == outcome(handle_id.extract, text, handle_prefixes=None)
        for name in with_options + ("is_valid", "validate", "parse"):
            # (By keyword, the full function.)
            fn = getattr(handle_id, name)
            assert outcome(fn, text) == outcome(fn, text=text), (name, text)
    assert outcome(handle_id.clean, "10.1000/x", "y")[0] == "TypeError"
    assert outcome(handle_id.clean, "10.1000/x", bogus=1)[0] == "TypeError"
    assert outcome(handle_id.is_valid)[0] == "TypeError"
    # They are the module's functions, with its signatures, and pickle by name.
    import inspect
    import pickle

    assert str(inspect.signature(handle_id.clean)).startswith("(text, *, proxy_bases=None")
    assert pickle.loads(pickle.dumps(handle_id.clean)) is handle_id.clean
    assert handle_id.clean.__doc__.startswith("The handle a messy string")


def everything(c):
    """All a cleaned value answers."""
    return (
        c.handle, c.as_written, c.form, str(c), repr(c),
        [(f.code, f.index, f.byte_index, f.message, f.rule) for f in c.fixes],
        [(w.code, w.index, w.byte_index, w.message, w.rule) for w in c.warnings],
    )


def test_a_cleaned_value_reads_again_with_its_own_options():
    # A value cleaned with the default options keeps none (the quick call's, and a call
    # that names the defaults); one cleaned with others keeps them, for what is read again
    # when asked for (the handle as written, the warnings).
    from conftest import EXTRA_LINES

    defaults = {"proxy_bases": [], "repository_urls": False, "resolution_form": False, "cordra": False}
    for text in corpus_lines() + EXTRA_LINES:
        try:
            c = handle_id.clean(text)
        except handle_id.HandleError:
            continue
        assert everything(handle_id.clean(text, **defaults)) == everything(c), text
    base = "https://resolver.example/hdl"
    c = handle_id.clean(f"{base}/10.1000/ABC/.", proxy_bases=[base])
    assert (c.handle.text, c.as_written.text, c.form) == ("10.1000/abc/", "10.1000/ABC/", "proxy")
    assert [f.code for f in c.fixes] == ["trailing-punctuation", "resolver-url", "case-folded"]
    assert [(w.code, w.index) for w in c.warnings] == [("trailing-slash", 40)]
    c = handle_id.clean(" hdl://a/B/c ", resolution_form=True)
    assert (c.handle.text, c.as_written.text, c.form, c.warnings) == ("B/c", "B/c", "hdl-resolution", [])
    assert handle_id.clean(" hdl://a/B/c ").form == "hdl-host"


def test_one_argument_calls_hold_nothing_back():
    # Each quick call releases its argument when it ends, whatever it returns or raises:
    # those made inside PyO3's trampoline count the interpreter's attachment as PyO3 counts
    # it; those made outside it (`clean`, `parse`, `is_valid`) take no reference they could
    # not give back there, and raise the input's error themselves.
    import sys

    calls = [
        (handle_id.is_valid, "10.1000/abc"), (handle_id.validate, "10.1000/abc"),
        (handle_id.detect, "x"), (handle_id.extract, "nothing here"), (handle_id.lint, "10.1000/abc"),
        (handle_id.clean, "DOI: 10.1000/ABC."), (handle_id.parse, "10.1000/abc"),
        (handle_id.recognize, "hdl:10.1000/abc"), (handle_id.is_valid, "10.1000/é"),
        (handle_id.clean, "10.1000/é"), (handle_id.clean, "no identifier"),
        (handle_id.validate, "no identifier"), (handle_id.is_valid, "no identifier"),
        (handle_id.clean, "10.1000/\ud800"), (handle_id.is_valid, "10.1000/\ud800"),
        (handle_id.parse, "no identifier"), (handle_id.parse, "10.1000/\ud800"), (handle_id.parse, "10.1000/é"),
    ]
    for fn, text in calls:
        text = "".join(list(text))  # (a string of its own)
        before = sys.getrefcount(text)
        for _ in range(1000):
            try:
                fn(text)
            except (handle_id.HandleError, UnicodeEncodeError):
                pass
        assert sys.getrefcount(text) == before, (fn.__name__, text)


def test_errors_raised_by_the_quick_calls_are_those_of_the_full_calls():
    # `clean(text)` and `parse(text)` raise their input's error before PyO3's trampoline; a
    # call with a keyword goes through it: the same exception either way.
    attributes = ["args", "message", "index", "byte_index", "kind", "rule", "found", "at"]
    texts = ["no identifier", "", "10.1000", "https://example.com/10.1/x", "hdl:x", " . ", "é . é", "10.1000/x"]
    raised = 0
    for text in texts:
        for quick, full in [
            (lambda t: handle_id.clean(t), lambda t: handle_id.clean(t, cordra=False)),
            (lambda t: handle_id.parse(t), lambda t: handle_id.parse(text=t)),
        ]:
            outcomes = []
            for call in (quick, full):
                try:
                    outcomes.append(("made", str(call(text))))
                except handle_id.HandleError as e:
                    assert type(e) is handle_id.HandleError and e.args[0] is e.message
                    outcomes.append(("raised", [getattr(e, n) for n in attributes]))
            assert outcomes[0] == outcomes[1], text
            raised += outcomes[0][0] == "raised"
    assert raised >= 12


def test_the_text_of_a_value_cleaned_as_it_was_is_its_input():
    # A value already clean gives its input back as its text, not a copy (where the module
    # makes the values: not on Windows); any other, its canonical text.
    text = "".join(["10.1000/", "abc"])
    assert str(handle_id.clean(text)) == text
    if handle_id.Cleaned.__base__ is not object:
        assert str(handle_id.clean(text)) is text

    class Text(str):
        pass

    assert type(str(handle_id.clean(Text(text)))) is str
    assert [str(handle_id.clean(t)) for t in ["10.1000/ABC", " 10.1000/abc", "doi:10.1000/abc"]] == [text] * 3


def test_cleaned_values_are_of_one_class_and_hold_their_text_while_they_live():
    # `clean`'s values are made and freed by the module itself (not PyO3): the same class
    # whichever way the call came in, not one to make or derive from, holding a reference
    # to the text as long as they live and giving it back when freed. (Where PyO3 makes
    # them, on Windows, its class may be derived from, and the text is kept as UTF-8
    # `bytes` there, not as the `str`.)
    import sys

    own = handle_id.Cleaned.__base__ is not object

    class Text(str):
        pass

    made = [
        handle_id.clean("DOI: 10.1000/ABC."),
        handle_id.clean("DOI: 10.1000/ABC.", cordra=False),
        handle_id.clean(Text("10.1000/abc")),
        handle_id.clean("https://doi.org/10.1000/" + "X" * 100),
    ]
    for c in made:
        assert type(c) is handle_id.Cleaned, type(c).__mro__
    assert [str(c) for c in made] == ["10.1000/abc"] * 3 + ["10.1000/" + "x" * 100]
    assert "handle in its canonical form" in handle_id.Cleaned.__doc__
    with pytest.raises(TypeError):
        handle_id.Cleaned()
    with pytest.raises(TypeError):
        object.__new__(handle_id.Cleaned)
    if own:
        with pytest.raises(TypeError):
            type("Mine", (handle_id.Cleaned,), {})
    for kwargs in ({}, {"cordra": False}):
        text = "".join(list("(doi:10.1000/XYZ)."))
        before = sys.getrefcount(text)
        kept = [handle_id.clean(text, **kwargs) for _ in range(100)]
        if own:
            assert sys.getrefcount(text) == before + 100, kwargs
        assert {str(c) for c in kept} == {"10.1000/xyz"}
        del kept
        assert sys.getrefcount(text) == before, kwargs


def test_handles_are_of_one_class_however_they_are_made():
    # `Handle`'s objects are made and freed by the module itself (not PyO3) wherever one is
    # made: the same class from every function and attribute that gives one, and from the
    # class itself. (Where PyO3 makes them, on Windows, the class is PyO3's own.)
    c = handle_id.clean("DOI: 10.1000/ABC.")
    made = [
        handle_id.parse("10.1000/ABC"),
        handle_id.parse(" 10.1000/x"[1:]),
        handle_id.Handle("10.1000/ABC"),
        handle_id.parse("10.1000/ABC").canonical(),
        handle_id.parse("10.1045/x").prefix_handle(),
        c.handle,
        c.as_written,
        handle_id.recognize("hdl:10.1000/ABC").handle,
        handle_id.extract("see doi:10.1000/ABC here")[0].handle,
    ]
    for h in made:
        assert type(h) is handle_id.Handle, type(h).__mro__
        assert str(h) == h.text and isinstance(h, handle_id.Handle)
    assert [str(h) for h in made] == [
        "10.1000/ABC", "10.1000/x", "10.1000/ABC", "10.1000/abc", "0.NA/10.1045",
        "10.1000/abc", "10.1000/ABC", "10.1000/ABC", "10.1000/ABC",
    ]
    assert made[0] == made[2] and hash(made[0]) == hash(made[2]) and made[0] != made[3]
    assert made[0].eq_ignore_ascii_case(made[3])
    assert {made[0]: 1}[made[2]] == 1
    with pytest.raises(handle_id.HandleError):
        handle_id.Handle("no slash")
    with pytest.raises(TypeError):
        handle_id.Handle()
    if handle_id.Handle.__base__ is not object:
        with pytest.raises(TypeError):
            type("Mine", (handle_id.Handle,), {})


def test_a_str_subclass_that_holds_its_result_is_collected():
    # A cleaned value keeps its text; given an instance of a subclass of str, which may hold
    # the result itself, it keeps a str of the same text instead, so that no cycle outlives
    # its last reference.
    import gc

    freed = []

    class DOI(str):
        def __del__(self):
            freed.append(1)

    for i in range(100):
        s = DOI(f"10.1000/x{i}")
        s.cleaned = handle_id.clean(s)
        assert str(s.cleaned) == f"10.1000/x{i}"
    del s
    gc.collect()
    assert len(freed) == 100


def test_fix_and_warning_objects():
    c = handle_id.clean("  hdl:20.1000/5555/ ")
    [w] = c.warnings
    assert (w.code, w.index, w.rule) == ("trailing-slash", 18, "SPEC H10")
    assert w.message.startswith("trailing-slash at byte 18")
    # The `hdl:` label is the form it was written in, not a fix.
    assert [f.code for f in c.fixes] == ["surrounding-whitespace"] and c.form == "hdl"
    assert "Fix(" in repr(c.fixes[0]) and "Cleaned(" in repr(c)
    assert not c.fixes[0].held and "held" not in repr(c.fixes[0])
    # A fix made in the handle a URL holds, cleaned as a string of its own (SPEC C2).
    c = handle_id.clean("https://doi.org/(10.1000/182")
    assert [(f.code, f.index, f.held) for f in c.fixes] == [
        ("resolver-url", 0, False),
        ("leading-punctuation", 16, True),
    ]
    assert "held=True" in repr(c.fixes[1])


def test_the_root_readme_python_example_runs():
    from conftest import ROOT

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = text.split("```python\n")[1:]
    assert blocks, "the README has a Python example"
    for block in blocks:
        exec(compile(block.split("```", 1)[0], "README.md", "exec"), {})


def test_the_version_is_the_packages():
    from importlib.metadata import version

    assert handle_id.__version__ == version("handle-id")


def test_a_handle_hashes_as_its_text_and_pickles():
    import copy
    import pickle

    h = handle_id.parse("20.1000/5555")
    # Equal to its text, so hashed alike: a set or dict holds one of the two.
    assert h == "20.1000/5555" and hash(h) == hash("20.1000/5555")
    assert "20.1000/5555" in {h} and len({h, "20.1000/5555"}) == 1
    assert h.eq_ignore_ascii_case("20.1000/5555") and not h.eq_ignore_ascii_case("20.1000/5556")
    with pytest.raises(TypeError):
        h.eq_ignore_ascii_case(5)
    # To another process and back: read again from its text.
    for again in (pickle.loads(pickle.dumps(h)), copy.copy(h), copy.deepcopy(h)):
        assert type(again) is handle_id.Handle and again == h and again.prefix == "20.1000"


def test_a_lone_surrogate_is_no_handle():
    # What decoding with errors="surrogateescape" leaves: text with no UTF-8 (H5).
    text = "10.1000/x\udcff"
    assert handle_id.is_valid(text) is False
    assert handle_id.is_valid(text=text) is False
    for call in (handle_id.validate, handle_id.parse, handle_id.clean, handle_id.extract, handle_id.recognize):
        with pytest.raises(handle_id.HandleError) as e:
            call(text)
        assert (e.value.kind, e.value.index, e.value.byte_index) == ("invalid-utf8", 9, 9), call
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.recognize("日本 \ud800", proxy_bases=["https://r.example"])
    assert (e.value.index, e.value.byte_index) == (3, 7)
    with pytest.raises(TypeError):
        handle_id.is_valid(5)
    # No handle's text, as for `==`.
    h = handle_id.parse("10.1000/x")
    assert h != text and not h.eq_ignore_ascii_case(text)


def test_results_compare_by_value():
    text = "see doi:10.1000/182 and hdl:20.1000/5555"
    a, b = handle_id.extract(text), handle_id.extract(text)
    assert a == b and not (a != b) and len(set(a + b)) == 2
    assert a[0] != a[1] and a[0] != "doi:10.1000/182"
    c, d = handle_id.clean(" (doi:10.1000/ABC). "), handle_id.clean(" (doi:10.1000/ABC). ")
    assert c.fixes == d.fixes and len(set(c.fixes)) == len(c.fixes)
    u = handle_id.recognize("https://doi.org/10.1000/182")
    assert u == handle_id.recognize("https://doi.org/10.1000/182") and len({u, handle_id.recognize(str(u))}) == 1
    assert u != handle_id.recognize("doi:10.1000/182") and u != str(u)
    w = handle_id.lint("20.1000/5555/")
    assert w == handle_id.lint("20.1000/5555/") and hash(w[0]) == hash(handle_id.lint("20.1000/5555/")[0])


def test_results_pickle_and_copy_as_the_calls_that_made_them():
    import copy
    import multiprocessing
    import pickle

    def again(value):
        for other in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
            assert type(other) is type(value) and other == value and hash(other) == hash(value)
        return pickle.loads(pickle.dumps(value))

    c = again(handle_id.clean(" (doi:10.1000/ABC). "))
    assert str(c) == "10.1000/abc" and c.as_written == "10.1000/ABC"
    assert c.fixes == handle_id.clean(" (doi:10.1000/ABC). ").fixes and len(c.fixes) == 5
    # The options go with it: the copy reads what its text needs them for.
    based = "https://r.example/hdl/20.1000/ABC"
    c = again(handle_id.clean(based, proxy_bases=["https://r.example/hdl"]))
    assert (c.form, c.as_written, c.warnings) == ("proxy", "20.1000/ABC", [])
    u = again(handle_id.recognize("hdl://srv.example/20.1000/5", resolution_form=True))
    assert (u.form, u.base, u.handle) == ("hdl-resolution", "srv.example", "20.1000/5")
    found = handle_id.extract("see 20.500.1/x and doi:10.1000/182", handle_prefixes=["20.500.1"])
    assert [again(f) for f in found] == found and again(found[0]).handle.prefix == "20.500.1"
    assert again(handle_id.lint("20.1000/5555/")[0]).code == "trailing-slash"
    for fix in handle_id.clean(" (doi:10.1000/ABC). ").fixes:
        assert again(fix).rule == fix.rule
    # Equal cleanings: the same text to the same handle, form and fixes.
    assert handle_id.clean("doi:10.1000/x") != handle_id.clean("10.1000/x")
    assert len({handle_id.clean("10.1000/x"), handle_id.clean("10.1000/x")}) == 1
    # Back from another process, as a pool gives its results.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        lines = ["doi:10.1000/ABC", "https://hdl.handle.net/20.1000/5555"]
        assert pool.map(handle_id.clean, lines) == [handle_id.clean(l) for l in lines]


def test_results_made_by_hand():
    fix = handle_id.Fix("label", 3, 3, False, "a label taken off")
    assert (fix.code, fix.rule, fix.held) == ("label", handle_id.clean("doi:10.1/x").fixes[0].rule, False)
    w = handle_id.LintWarning("trailing-slash", 12, 12, "m")
    assert w.rule == handle_id.lint("20.1000/5555/")[0].rule
    f = handle_id.Found(4, 19, "doi:10.1000/182", "doi", "10.1000/182")
    assert f == handle_id.extract("see doi:10.1000/182")[0]
    assert handle_id.Found(4, 19, "doi:10.1000/182", "doi", handle_id.parse("10.1000/182")) == f
    for make, what in (
        (lambda: handle_id.Fix("labels", 0, 0, False, ""), 'unknown fix code "labels": one of surrounding-whitespace'),
        (lambda: handle_id.LintWarning("x", 0, 0, ""), 'unknown warning code "x": one of '),
        (lambda: handle_id.Found(0, 1, "x", "bare", "10.1/x"), 'unknown form "bare": one of handle, hdl'),
    ):
        with pytest.raises(ValueError, match=what):
            make()
    with pytest.raises(handle_id.HandleError):
        handle_id.Found(0, 1, "x", "doi", "10.1")


def test_the_names_are_tuples_and_a_handle_error_made_by_hand_has_every_attribute():
    assert isinstance(handle_id.FORMS, tuple) and isinstance(handle_id.FIX_CODES, tuple)
    assert "proxy" in handle_id.FORMS and "label" in handle_id.FIX_CODES
    e = handle_id.HandleError("not a handle")
    assert (e.message, e.index, e.byte_index, e.kind, e.rule, e.found, e.at) == ("not a handle", None, None, "", "", None, None)
    assert handle_id.HandleError().message == ""
    with pytest.raises(handle_id.HandleError) as raised:
        handle_id.validate("20.1000")
    assert raised.value.message == str(raised.value) and raised.value.kind != "" and raised.value.index is not None


def test_the_stubs_are_the_module():
    # The type stubs (`_handle_id.pyi`) say what the compiled module has, signature by
    # signature, as mypy's stubtest reads both.
    import subprocess
    import sys

    from conftest import ROOT

    pytest.importorskip("mypy", reason="mypy is not installed: the stubs are not checked")
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "handle_id",
         "--mypy-config-file", str(ROOT / "python" / "pyproject.toml")],
        capture_output=True, text=True, cwd=ROOT / "python" / "tests",
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_reprs_read_as_python():
    # A result's repr writes its text as Python writes a str: what lint warns of (a control,
    # a zero-width space) escaped as Python escapes it, and the repr of a handle evaluates
    # to the handle.
    h = handle_id.parse("10.1/\x00\u200b'\"")
    assert repr(h) == "Handle('10.1/\\x00\\u200b\\'\"')"
    assert eval(repr(h), {"Handle": handle_id.Handle}) == h
    c = handle_id.clean("doi: 10.1/\u00e9.")
    assert repr(c) == "Cleaned(handle='10.1/\u00e9', form='doi', fixes=['label', 'surrounding-whitespace', 'trailing-punctuation'])"
    assert repr(c.fixes[0]) == "Fix(code='label', index=0)"
    assert repr(handle_id.recognize("hdl:1/%09")) == "Uri(form='hdl', handle='1/\\t')"
    record = handle_id.Record.parse('{"responseCode": 100, "values": []}')
    assert repr(record) == "Record(handle=None, code=100, values=0)"


def test_a_list_argument_given_one_str_or_another_type_is_refused_by_name():
    # One str would be read as its characters: refused, the argument named in the error's
    # note (PyO3 adds one, on Python 3.11 and later); any iterable of str is taken.
    cases = [
        lambda v: handle_id.recognize("10.1/x", proxy_bases=v),
        lambda v: handle_id.extract("10.1/x", handle_prefixes=v),
        lambda v: handle_id.Record.parse('{"responseCode": 1, "handle": "1/2", "values": []}').filtered(types=v),
        lambda v: handle_id.Record.parse('{"responseCode": 1, "handle": "1/2", "values": []}').redirect(locatt=v),
    ]
    names = ["proxy_bases", "handle_prefixes", "types", "locatt"]
    for call, name in zip(cases, names):
        with pytest.raises(TypeError, match="a list of str, not one str") as refused:
            call("x:y")
        if sys.version_info >= (3, 11):
            assert refused.value.__notes__ == [f"while processing '{name}'"]
        with pytest.raises(TypeError, match="a list of str, not int"):
            call(3)
        with pytest.raises(TypeError, match="a list of str, not dict"):
            call({"x:y": 1})
        with pytest.raises(TypeError, match="a list of str, not bytes"):
            call(b"x:y")
    assert handle_id.recognize("https://x.org/10.1/x", proxy_bases=(b for b in ["https://x.org/"])).form == "proxy"
