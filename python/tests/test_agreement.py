"""The package agrees with the `hdl` command on the same inputs: the corpus the
repository carries and lines of our own (non-ASCII among them). The command's offsets are
UTF-8 byte offsets into the line; the package's are Python string offsets, and its
`byte_index` attributes are the command's."""

from __future__ import annotations

import pytest

import handle_id
from conftest import EXTRA_LINES, TEXT_LINES, char_offset, corpus_lines, run_hdl

LINES = corpus_lines() + EXTRA_LINES


def test_the_corpus_is_there():
    assert len(corpus_lines()) > 1000


def check_error(err: handle_id.HandleError, line: str, record_error: dict) -> None:
    assert err.message == record_error["message"] == str(err)
    assert err.byte_index == record_error["index"]
    assert err.index == char_offset(line, record_error["index"])
    assert isinstance(err, ValueError)
    assert err.kind and err.kind == err.kind.lower()


def test_clean_agrees_with_hdl_clean(hdl):
    records = run_hdl(hdl, ["clean"], LINES)
    assert len(records) == len(LINES)
    cleaned = 0
    for line, r in zip(LINES, records):
        assert r["input"] == line
        if r["valid"]:
            c = handle_id.clean(line)
            cleaned += 1
            assert c.handle.text == r["handle"] == r["output"], line
            assert c.form == r["form"], line
            assert [(f.code, f.byte_index, f.held) for f in c.fixes] == [
                (f["code"], f["index"], f["held"]) for f in r["fixes"]
            ], line
            assert [f.message for f in c.fixes] == [f["message"] for f in r["fixes"]]
            for f in c.fixes:
                assert f.index == char_offset(line, f.byte_index)
            assert [(w.code, w.byte_index, w.message) for w in c.warnings] == [
                (w["code"], w["index"], w["message"]) for w in r["warnings"]
            ], line
        else:
            with pytest.raises(handle_id.HandleError) as e:
                handle_id.clean(line)
            check_error(e.value, line, r["error"])
    assert cleaned > 900


def test_recognize_and_lint_agree_with_hdl_check(hdl):
    records = run_hdl(hdl, ["check"], LINES)
    for line, r in zip(LINES, records):
        assert handle_id.detect(line) == r["form"], line
        if r["valid"]:
            u = handle_id.recognize(line)
            assert (u.form, u.handle.text) == (r["form"], r["handle"]), line
            assert (u.handle.prefix, u.handle.local_name) == (
                r["prefix"],
                r["local_name"],
            )
            expected = [(w["code"], w["index"], w["message"]) for w in r["warnings"]]
            assert [(w.code, w.byte_index, w.message) for w in u.lint()] == expected
            assert [(w.code, w.byte_index) for w in handle_id.lint(line)] == [
                e[:2] for e in expected
            ]
            start, end = u.handle_span
            assert 0 <= start <= end <= len(line)
        else:
            with pytest.raises(handle_id.HandleError) as e:
                handle_id.recognize(line)
            check_error(e.value, line, r["error"])


def test_validate_and_parse_agree_with_hdl_parse_of_bare_handles(hdl):
    records = run_hdl(hdl, ["parse", "--form", "handle"], LINES)
    for line, r in zip(LINES, records):
        assert handle_id.is_valid(line) == r["valid"], line
        if r["valid"]:
            handle_id.validate(line)
            h = handle_id.parse(line)
            assert h.text == line == str(h)
            assert h.prefix == r["prefix"] and h.local_name == r["local_name"]
            assert h.segments == r["prefix_segments"]
            assert h.prefix_ancestors[:16] == r["parent_prefixes"]
            assert h.is_doi == r["is_doi"]
            assert h.is_prefix_handle == r["is_prefix_handle"]
            assert h.prefix_handle().text == r["prefix_handle"]
            assert [(w.code, w.byte_index) for w in h.lint()] == [
                (w["code"], w["index"]) for w in r["warnings"]
            ], line
        else:
            for call in (handle_id.validate, handle_id.parse, handle_id.Handle):
                with pytest.raises(handle_id.HandleError) as e:
                    call(line)
                check_error(e.value, line, r["error"])


# The forms `hdl convert --to` writes under the same names (the others are held to
# reading back as the same handle in test_api.py).
@pytest.mark.parametrize("form", ["handle", "hdl", "hdl-host", "proxy", "api"])
def test_to_form_agrees_with_hdl_convert(hdl, form):
    records = run_hdl(hdl, ["convert", "--to", form], LINES)
    for line, r in zip(LINES, records):
        if not r["valid"] and r["handle"] is None:
            continue
        h = handle_id.recognize(line).handle
        if r["valid"]:
            assert h.to_form(form) == r["output"], line
        else:
            with pytest.raises(handle_id.HandleError) as e:
                h.to_form(form)
            assert e.value.message == r["error"]["message"]


def test_extract_agrees_with_hdl_extract(hdl):
    texts = TEXT_LINES + LINES
    records = run_hdl(hdl, ["extract"], texts)
    by_line: dict[int, list[dict]] = {}
    for r in records:
        by_line.setdefault(r["line"], []).append(r)
    found_any = 0
    for number, text in enumerate(texts, start=1):
        if any(c.isprintable() is False and c not in "\t" for c in text):
            # The command cuts a line at control characters; the library reads the
            # text whole.
            continue
        expected = by_line.get(number, [])
        found = handle_id.extract(text)
        assert [(f.text, f.form, f.handle.text) for f in found] == [
            (r["text"], r["form"], r["handle"]) for r in expected
        ], text
        for f, r in zip(found, expected):
            assert f.start == char_offset(text, r["start"])
            assert f.end == char_offset(text, r["end"])
            assert text[f.start : f.end] == f.text
            assert f.span == (f.start, f.end)
        found_any += len(found)
    assert found_any > 900


def test_non_ascii_offsets_are_string_offsets():
    text = TEXT_LINES[1]
    found = handle_id.extract(text)
    assert [f.text for f in found] == ["https://doi.org/10.1000/日本", "hdl:20.1000/5555"]
    for f in found:
        assert text[f.start : f.end] == f.text
        # Not byte offsets: the text before is not ASCII.
        assert len(text[: f.start].encode()) != f.start
    c = handle_id.clean("  «doi:10.1000/ÄBC»  ")
    assert [(f.code, f.index, f.byte_index) for f in c.fixes][:2] == [
        ("surrounding-whitespace", 0, 0),
        ("wrapping-pair", 2, 2),
    ]
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.validate("日本@x/y")
    assert (e.value.index, e.value.byte_index, e.value.found) == (2, 6, "@")
    url = "https://doi.org/10.1000/日本?x"
    u = handle_id.recognize(url)
    assert u.handle_span == (16, 26) and url[16:26] == "10.1000/日本" == u.handle.text
