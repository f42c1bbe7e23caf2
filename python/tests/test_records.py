"""Records: the package reads REST API responses and 10320/loc values as `hdl record`
does, on the responses the repository carries and on ones made here."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess

import pytest

import handle_id
from conftest import ROOT

RESPONSES = sorted((ROOT / "tests" / "records").glob("*.json*")) + [
    ROOT / "data" / "response.json"
]

LOC = """<locations chooseby="locatt,country,weighted">
  <location id="0" href="http://uk.example/a" country="gb" weight="0"/>
  <location id="1" href="http://example.org/a" weight="1"/>
  <location id="2" href="http://example.org/b" weight="1"/>
</locations>"""

WITH_LOC = {
    "responseCode": 1,
    "handle": "20.1000/loc",
    "values": [
        {"index": 1, "type": "URL", "data": {"format": "string", "value": "https://fallback.example/"}},
        {"index": 2, "type": "10320/loc", "data": {"format": "string", "value": LOC}},
        {"index": 3, "type": "HS_ALIAS", "data": {"format": "string", "value": "20.1000/other"}},
        {"index": 4, "type": "BYTES", "data": {"format": "base64", "value": "aGVsbG8="}},
        {"index": 5, "type": "HEX", "data": {"format": "hex", "value": "00ff"}},
    ],
}


def hdl_record(hdl, args: list[str], text: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(hdl), "record", *args, "-"], input=text.encode(), capture_output=True
    )


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_record_reads_as_hdl_record_reads(hdl, path):
    text = path.read_text(encoding="utf-8")
    record = handle_id.Record.parse(text)
    out = hdl_record(hdl, ["--json"], text)
    assert out.returncode == 0, out.stderr
    assert record.to_json() == out.stdout.decode().strip()
    assert handle_id.Record.parse(record.to_json()).to_json() == record.to_json()
    # Compared by value, and pickled as its JSON (so a pool's workers can return it).
    again = pickle.loads(pickle.dumps(record))
    assert again == record == handle_id.Record(text) and again.values == record.values
    assert copy.deepcopy(record) == record and record != handle_id.Record.parse(json.dumps(WITH_LOC))
    assert len({record, again}) == 1 and len(set(record.values) | set(again.values)) == len(record.values)
    for v in record.values:
        assert pickle.loads(pickle.dumps(v)) == v == handle_id.HandleValue(json.dumps(v.to_dict()))
    url = hdl_record(hdl, ["--url", "--seed", "7"], text)
    redirect = record.redirect(seed=7)
    if url.returncode == 0:
        assert redirect is not None and redirect.url == url.stdout.decode().strip()
    else:
        assert redirect is None
    assert record.code == 1 and record.http_status == 200
    assert record.handle.text == "4263537/4000"
    for v in record.values:
        assert v.to_dict()["index"] == v.index
        assert v.to_dict()["type"] == v.type


def test_values_locations_and_redirects(hdl):
    text = json.dumps(WITH_LOC)
    record = handle_id.Record.parse(text)
    assert [v.format for v in record.values] == ["string", "string", "string", "base64", "hex"]
    assert record.values[3].data == b"hello" and record.values[4].data == b"\x00\xff"
    assert record.values[0].data == record.values[0].text == "https://fallback.example/"
    assert record.alias().text == "20.1000/other"
    [(value, locations)] = record.locations()
    assert value.index == 2
    assert locations.choose_by == ["locatt", "country", "weighted"]
    assert [l.href for l in locations.locations] == [
        "http://uk.example/a",
        "http://example.org/a",
        "http://example.org/b",
    ]
    assert locations.choose(locatt=["id:0"]).id == "0"
    assert locations.choose(country="GB", seed=1).href == "http://uk.example/a"
    # The chosen location, as the command chooses it for the same client and seed.
    for seed in range(5):
        out = hdl_record(hdl, ["--url", "--seed", str(seed)], text)
        assert out.returncode == 0, out.stderr
        r = record.redirect(seed=seed)
        assert r.url == out.stdout.decode().strip()
        assert r.location is not None and r.value.index == 2
    out = hdl_record(hdl, ["--url", "--locatt", "id:0"], text)
    assert record.redirect(locatt=["id:0"]).url == out.stdout.decode().strip()
    only_urls = record.filtered(types=["URL"])
    assert [v.index for v in only_urls.values] == [1]
    # Types are matched without ASCII case, by the filter and by `locations` alike (R4, L1).
    cased = json.loads(text)
    for v in cased["values"]:
        v["type"] = v["type"].upper()
    cased = handle_id.Record.parse(json.dumps(cased))
    assert [v.index for v, _ in cased.locations()] == [2]
    assert [v.index for v in cased.filtered(types=["10320/loc"]).values] == [2]
    assert cased.redirect(seed=0).url == record.redirect(seed=0).url
    # An index is the protocol's, 32 bits unsigned, as `resolve` takes it.
    for index in (-1, 2**32):
        with pytest.raises(ValueError, match=f"indexes: {index} is no index"):
            record.filtered(indexes=[index])
    assert only_urls.redirect(seed=1).location is None
    # A seed is 64 bits unsigned; one out of range names the argument wherever it is taken.
    for seed in (-1, 2**64):
        for choose in (record.redirect, record.proxy_redirect, locations.choose):
            with pytest.raises(OverflowError, match=f"seed {seed} is not from 0 to 2"):
                choose(seed=seed)
    with pytest.raises(TypeError, match="seed"):
        record.redirect(seed="1")
    assert "<locations" in record.show_urls()
    assert handle_id.Locations.parse(locations.to_xml()).to_xml() == locations.to_xml()
    assert pickle.loads(pickle.dumps(locations)) == locations == handle_id.Locations(LOC)
    assert len({locations, handle_id.Locations(LOC)}) == 1
    # With the handles it includes (L9), which its XML writes too.
    including = handle_id.Locations(LOC.replace("</locations>", "<include>20.1000/x</include></locations>"))
    assert pickle.loads(pickle.dumps(including)) == including != locations
    assert locations != handle_id.Locations(LOC.replace('weight="0"', 'weight="0.5"'))
    # A redirect and a location pickle (a pool's workers return them) and compare by value.
    for seed in range(5):
        r = record.redirect(seed=seed)
        assert pickle.loads(pickle.dumps(r)) == r == handle_id.Redirect(r.value, r.location)
        assert pickle.loads(pickle.dumps(r.location)) == r.location == handle_id.Location(r.location.attributes)
        assert hash(handle_id.Location(r.location.attributes)) == hash(r.location)
        assert handle_id.Redirect(r.value, r.location).url == r.url
    plain = only_urls.redirect(seed=1)
    assert pickle.loads(pickle.dumps(plain)) == plain == handle_id.Redirect(plain.value)
    assert plain.url == "https://fallback.example/" and len({plain, handle_id.Redirect(plain.value)}) == 1
    assert plain != record.redirect(seed=0)
    # Without a location, a redirect is to a URL value's text: a 10320/loc value's is XML.
    for other, type_ in [(record.values[1], "10320/loc"), (record.values[3], "BYTES")]:
        with pytest.raises(ValueError, match=f"to a URL value's text, not a {type_} value's"):
            handle_id.Redirect(other)
    url_bytes = handle_id.Record.parse(json.dumps({"responseCode": 1, "handle": "1/2", "values": [
        {"index": 1, "type": "URL.x", "data": {"format": "base64", "value": "aGVsbG8="}}]})).values[0]
    with pytest.raises(ValueError, match="has none"):
        handle_id.Redirect(url_bytes)
    # A location made by hand is read as its element would be.
    made = handle_id.Location([("href", "http://a.example/"), ("x:href", "http://b.example/"), ("weight", "0.5")])
    assert (made.href, made.weight, made.attribute("x:href")) == ("http://a.example/", 0.5, "http://b.example/")
    for attributes, at in [([("weight", "0.5")], "location"), ([("href", "a"), ("href", "b")], 'attribute "href"'),
                           ([("href", "a"), ("a b", "c")], 'attribute "a b"'), ([("href", "a"), ("xmlns:x", "u")], 'attribute "xmlns:x"')]:
        with pytest.raises(handle_id.HandleError) as e:
            handle_id.Location(attributes)
        assert e.value.at == at, (attributes, e.value.at)


def test_record_errors_are_handle_errors(hdl):
    bad = '{"responseCode":1,"handle":"20.1000/x","values":[{"index":"one"}]}'
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.Record.parse(bad)
    out = hdl_record(hdl, [], bad)
    assert out.returncode == 2
    assert e.value.message in out.stderr.decode()
    assert e.value.at and e.value.index is None and e.value.kind
    with pytest.raises(ValueError) as e:
        handle_id.Locations.parse("<locations><location/></locations>")
    assert isinstance(e.value, handle_id.HandleError)
    # Equal as written, so hashed alike: -0.0 and 0.0 in data kept as JSON are two values.
    zero, negative = (handle_id.HandleValue('{"index":1,"type":"X","data":{"format":"x","value":%s}}' % n) for n in ("0.0", "-0.0"))
    assert zero != negative and len({zero, negative, handle_id.HandleValue(json.dumps(zero.to_dict()))}) == 2
    # A value read alone says where from the value.
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.HandleValue('{"index": 1, "type": "URL", "data": {"format": "string"}}')
    assert e.value.at == "data.value", e.value.at
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.Record.parse(json.dumps(WITH_LOC)).redirect(locatt=["no colon"])


def test_proxy_redirect_is_where_the_command_and_the_reference_proxy_redirect(hdl):
    # L5, as `hdl record --url` (and `hdl serve`) redirect, where L2's `redirect` may not:
    # the first URL value of several, types in any case and subtypes, a location's weight
    # above 1 beside a URL value, a template, any root.
    def value(index, type_, data):
        return {"index": index, "type": type_, "data": {"format": "string", "value": data}}

    records = [
        [value(1, "URL", "http://a.example/"), value(2, "URL", "http://b.example/")],
        [value(1, "url", "http://lower.example/")],
        [value(1, "URL.alt", "http://sub.example/")],
        [value(1, "URL", "http://u.example/"),
         value(2, "10320/loc", '<locations><location href="http://w.example/" weight="2"/></locations>')],
        [value(1, "10320/LOC", '<foo><loc_template href_template="http://t.example/{hdl}"/></foo>')],
        [value(1, "10320/loc", '<locations><location href="http://x.example/?a=1&b=2"/>'
                               '<location href=http://y.example/ weight=0.5></locations>'),
         value(2, "10320/headers", "X-Note: yes")],
        [value(1, "EMAIL", "a@example.org")],
    ]
    for values in records:
        text = json.dumps({"responseCode": 1, "handle": "20.1000/r", "values": values})
        record = handle_id.Record.parse(text)
        for seed in range(4):
            out = hdl_record(hdl, ["--url", "--seed", str(seed)], text)
            r = record.proxy_redirect(seed=seed)
            if out.returncode == 0:
                assert r is not None and r.url == out.stdout.decode().strip(), (values, seed)
                assert pickle.loads(pickle.dumps(r)) == r == handle_id.ProxyRedirect(r.url, r.status, r.headers)
            else:
                assert r is None, values
    headed = handle_id.Record.parse(json.dumps({"responseCode": 1, "handle": "20.1000/r", "values": records[5]}))
    r = headed.proxy_redirect(seed=1)
    assert r.status == 302 and ("X-Note", "yes") in r.headers
    assert repr(r).startswith("ProxyRedirect(url='http://")


def test_a_response_is_read_from_str_bytes_or_its_dict():
    # What a client hands over: the body's text, its bytes, or `resp.json()`.
    text = json.dumps(WITH_LOC)
    record = handle_id.Record.parse(text)
    assert handle_id.Record.parse(text.encode()) == record == handle_id.Record(WITH_LOC)
    assert handle_id.Record.parse(json.loads(text)) == record
    with pytest.raises(ValueError, match="byte 1 is not UTF-8"):
        handle_id.Record.parse(b"{\xff}")
    with pytest.raises(TypeError, match="not int"):
        handle_id.Record.parse(3)
    # A str that is no text (a lone surrogate) says so; a NaN, which JSON has not, too.
    with pytest.raises(UnicodeEncodeError):
        handle_id.Record.parse('{"handle": "1/\\ud800"}'.encode().decode("unicode_escape"))
    with pytest.raises(ValueError, match="not JSON compliant"):
        handle_id.Record.parse({"responseCode": float("nan")})


def test_a_found_span_holds_its_text():
    found = handle_id.Found(4, 19, "doi:10.1000/182", "doi", "10.1000/182")
    assert found.span == (4, 19)
    for start, end in [(5, 1), (4, 18), (0, 19)]:
        with pytest.raises(ValueError, match="holds no text of 15"):
            handle_id.Found(start, end, "doi:10.1000/182", "doi", "10.1000/182")
