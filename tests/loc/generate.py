#!/usr/bin/env python3
"""Makes tests/loc/cases.jsonl: 10320/loc values, queries, headers and client addresses,
each with the reference proxy's surviving locations and their probabilities, as
LocOracle (../shared/reference/cnri) computes them with the reference's own handler; then
cases with 10320/links and 10320/headers values, with the headers and page head of the
reference's redirect (L8).

Run where Java and the reference are present (its README's set-up):
    python3 tests/loc/generate.py [--reference DIR] [--out FILE]
tests/loc_oracle.rs reads the file; it needs no Java. The cases come from a fixed seed:
running this again writes the same file unless the reference answers otherwise.
"""
import argparse
import html
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = 480
LINKS_CASES = 60
LINKED_CASES = 80
# Children that name other handles as the reference's reader takes them: by the name as
# written (a prefixed <x:include> or <x:locs> is another element), with white space around
# the handle, and with markup inside the text (which ends the reference's text there).
WRITTEN_CHILDREN = [
    ('<x:include xmlns:x="urn:x">10.9/inc1</x:include><include>10.9/inc2</include>', None),
    ('<include>\n 10.9/inc1 \n</include>', None),
    ('<include>10.9/<!-- a comment -->inc1</include><include>10.9/inc2</include>', None),
    ('<x:includeNamespace xmlns:x="urn:x">0.NA/ns2</x:includeNamespace><includeNamespace>0.NA/ns1</includeNamespace>', None),
    ('<includeNamespace>0.NA/ns2</includeNamespace>',
     '<namespace xmlns:x="urn:x"><x:locs>10.9/nsloc</x:locs><locs>10.9/inc2</locs></namespace>'),
    # (Java trims what is up to U+0020, not a no-break space.)
    ('<include>10.9/inc1\u00a0</include><include> 10.9/inc2\t</include>', None),
    # Prefixes no element declares, which the reference's reader does not ask for.
    ('<x:include>10.9/inc1</x:include><include y:a="1">10.9/inc2</include>',
     '<namespace><x:locs>10.9/nsloc</x:locs><locs>10.9/inc1</locs></namespace>'),
    ('<includeNamespace>0.NA/ns2</includeNamespace>',
     '<namespace><x:locs>10.9/nsloc</x:locs><locs>10.9/inc1</locs></namespace>'),
    # An element, or a comment without white space, inside the text: the reference's reader
    # keeps no text of an element that holds one; a comment first leaves it none.
    ('<include>10.9/inc1<b/></include><include>10.9/inc2<!--c--></include><include><!-- c -->10.9/inc1</include>'
     '<includeNamespace>0.NA/ns2</includeNamespace>',
     '<namespace><locs>10.9/nsloc<b/></locs><locs>10.9/inc2</locs></namespace>'),
    # Markup XML refuses, in a value that includes and in a namespace's value (D8).
    ('<include>10.9/inc1</include><location href=http://unq-own.example/ weight=1 />', None),
    ('<includeNamespace>0.NA/ns2</includeNamespace>',
     '<namespace flag=1><locs>10.9/inc2</locs><locs>10.9/a&b</locs></namespace>'),
]
# Values as the reference's reader names what is in them: elements and attributes as
# written (an <x:location> is another element, x:href another attribute), in 10320/loc a
# <location> in any case, a <loc_template>, and any root; each beside a URL value.
WRITTEN_VALUES = [
    ("10320/loc", '<locations><Location href="http://upper.example/" weight="0.5" />'
                  '<loc_template href_template="http://t.example/{hdl}" /></locations>'),
    ("10320/loc", '<Locations><location href="http://rootcase.example/" /></Locations>'),
    ("10320/loc", '<x:locations xmlns:x="urn:x"><location href="http://xroot.example/" /></x:locations>'),
    ("10320/loc", '<foo><location href="http://foo.example/" weight="0.5" /><location href="http://bar.example/" weight="0" /></foo>'),
    ("10320/links", '<links xmlns:x="urn:x"><x:location href="http://prefixed.example/" rel="alternate" />'
                    '<location x:href="http://xhref.example/" rel="alternate" />'
                    '<LOCATION href="http://up.example/" rel="describedby" x:title="T" title="t" x:anchor="http://anc/" />'
                    '<Loc_Template href_template="http://t.example/{hdl}" rel="alternate" x:rel="x" /></links>'),
    # Prefixes no element declares, which the reference's reader does not ask for.
    ("10320/loc", '<locations><location x:href="http://a.example/" href="http://b.example/" weight="0.5" />'
                  '<x:location href="http://x.example/" /><location y:weight="1" weight="0" z:href="http://z.example/" /></locations>'),
    ("10320/loc", '<p:locations><location href="http://p.example/" /></p:locations>'),
    ("10320/links", '<links><x:location href="http://prefixed.example/" rel="alternate" />'
                    '<location x:href="http://xhref.example/" href="http://h.example/" rel="alternate" /></links>'),
    # Markup XML refuses, which the reference's reader takes (D8): a bare `&`, entities it
    # keeps as written, unquoted and repeated attributes, a root never closed; and markup
    # XML reads otherwise: a <location> inside a <location>, a new line in a value.
    ("10320/loc", '<locations><location href="http://amp.example/?a=1&b=2" /></locations>'),
    ("10320/loc", "<locations><location href=http://unq.example/ weight=0 weight=1 />"
                  "<location href='http://zero.example/' weight=\"0\" /></locations>"),
    ("10320/loc", '<locations><location href="http://ent.example/a&nbsp;b&AMP;c&#x41;" weight="0.5" />'
                  '<location href="http://ent2.example/" weight="0.5" /></locations>'),
    ("10320/loc", '<locations><location href="http://open.example/" />'),
    ("10320/loc", '<locations><location href="http://outer.example/" weight="0">'
                  '<location href="http://inner.example/" /></location></locations>'),
    ("10320/links", '<links><location href="http://l.example/?a&b" rel="alternate" title="a\nb" />'
                    '<location href=http://m.example/ rel=describedby /></links>'),
    ("10320/links", '<links><location href="http://n.example/" rel="alternate" title="a\nb" /></links>'),
    # Names compared as Java compares them without case: a dotless i, a dotted capital I.
    ("10320/loc", '<locations><locat\u0131on href="http://dotless.example/" weight="0.5" />'
                  '<LOCAT\u0130ON href="http://dotted.example/" weight="0.5" /></locations>'),
    ("10320/links", '<links><locat\u0131on href="http://dl.example/" rel="alternate" /></links>'),
    # Tags never closed, as HTML writes them, are no nesting, however many; entities as Java
    # reads them (a name upper-cased whole, the halves of a character joined).
    ("10320/loc", "<locations>" + "".join(f'<location href="http://u{i}.example/" weight="0">' for i in range(70))
                  + '<location href="http://last.example/" /></locations>'),
    ("10320/loc", '<locations><location href="http://e.example/&apo\u017f;x&#xD83D;&#xDE00;" /></locations>'),
    # A tag's text trimmed as Java trims (controls at its ends go), none kept by a root
    # left open that gathers the rest; a method's name trimmed as Java trims (not a
    # no-break space).
    ("10320/loc", '<locations><location href="http://ta.example/">\x0c<location href="http://tb.example/" weight="0" />'
                  '</locations>'),
    ("10320/loc", '<locations>\x0c<location href="http://oa.example/" weight="0" /><location href="http://ob.example/" />'),
    ("10320/loc", '<locations chooseby="\u00a0score"><location href="http://s1.example/" score="1" />'
                  '<location href="http://s2.example/" /></locations>'),
]

JARS = ["oracle-harness.jar", "handle-ref-9.2.0.jar", "cnriutil-2.0.jar"]
SYSTEM_JARS = ["gson", "commons-codec", "bcprov", "bcpkix", "servlet-api"]

# LocOracle reads one case from standard input; this runs it on each line of a file, in
# one JVM (a JVM per case would take minutes).
BATCH = r"""
import java.io.*;
import java.nio.charset.StandardCharsets;
public class LocBatch {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = System.out;
        String line;
        while ((line = in.readLine()) != null) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            System.setIn(new ByteArrayInputStream(line.getBytes(StandardCharsets.UTF_8)));
            System.setOut(new PrintStream(buf, true, "UTF-8"));
            try { LocOracle.main(new String[0]); }
            catch (Throwable t) { buf.reset(); buf.write(("{\"error\":" + new com.google.gson.JsonPrimitive(String.valueOf(t)) + "}").getBytes(StandardCharsets.UTF_8)); }
            System.setOut(out);
            out.println(buf.toString("UTF-8").replace("\n", " "));
        }
        out.flush();
    }
}
"""

# As a request path: percent-encoded, as a client sends it.
HANDLES = ["10.1000/1", "10.1000/a%20b", "TEST/x%3Fy", "10.5555/%C3%BC-1", "4263537/4000", "10.1000/a+b%26c",
           "10.1000/%25x%23y", "10.1000/(1)~x;y=z", "10.1000/a/b:c@d"]
CHOOSE_BY = [
    None, None, None,
    "locatt,address,country,score,weighted",
    "locatt,country,weighted", "score,weighted", "address,weighted", "country",
    "weighted,locatt", " locatt , score ", "bogus,locatt,score", "LOCATT,Score,Weighted",
    "address,score", "score", "", "country,address,locatt",
]
WEIGHTS = [None, None, None, "1", "0", "0.5", "0.25", "-1", "2", "abc", "", "0.0", "-0.5", "1e0", " 0.5 ", "1d", "+1", ".5"]
SCORES = [None, None, None, "1", "2", "-1", "-3", "0", "0.5", "x", "10", "2f", " 2 ", "1e1"]
COUNTRIES = [None, None, "US", "gb", "GB", "de", " us "]
ADDRESSES = [None, None, None, "10.0.0.0/8", "192.0.2.0/24, 10.1.0.0/16", "2001:db8::/32",
             "192.0.2.7", "0.0.0.0/0", "::/0", "192.0.2.0/25,192.0.2.0/24", "10.1.0.0/16, 2001:db8:1::/48",
             "::ffff:10.1.0.0/112", "::ffff:192.0.2.7"]
VIEWS = [None, None, "html", "json", "xml"]
CTYPES = [None, None, "application/json", "text/html", "application/xml", "application/x-research-info-systems"]
LANGS = [None, None, None, "en", "fr", "de-ch"]
ROLES = [None, None, None, "conneg", "browser", "no_conneg", "metadata"]
HTTP_SC = [None, None, None, None, "301", "303", "307", "308", "200", "abc"]
ACCEPTS = [None, None, "*/*", "application/json", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
           "application/x-research-info-systems;q=1, text/html;q=0.5", "application/xml;q=0.9, application/json",
           "image/png", "text/*", "application/json;q=0.5, application/xml", "application/rdf+xml, */*;q=0.1",
           "Application/JSON", "application/json; charset=utf-8", "text/html;q=0.2, application/json;q=0.9",
           "application/json;q=0", "application/json ; Q=0.5, application/xml;q=0.50", "text/html;level=1",
           "application/xml, application/json;q=1.0, */*;q=0", "application/json,", "application/json,,application/xml", "application/json, ", ",", ""]
LANGUAGES = [None, None, "en", "fr;q=0.5, en", "de-CH, de;q=0.9", "FR", "*", "en-US,en;q=0.9", "fr;q=0", " en , fr "]
AGENTS = [None, "Mozilla/5.0 (X11)", "curl/8.0", "Opera/9.80", "python-requests/2", "mozilla/5.0", " Mozilla/5.0"]
IPS = ["192.0.2.7", "10.1.2.3", "203.0.113.9", "2001:db8::1", "2001:db8:1::5", "127.0.0.1", "::ffff:10.1.2.3"]
LOC_TYPES = ["10320/loc", "10320/loc", "10320/loc", "10320/LOC", "10320/Loc", "10320/loc.extra"]
URL_TYPES = ["URL", "URL", "url", "Url", "URL.alt", "url.mirror", "URL.x.y"]


def maybe(rng, attrs, name, pool):
    v = rng.choice(pool)
    if v is not None:
        attrs.append((name, v))


def location(rng, n):
    attrs = [("id", str(n))]
    kind = rng.random()
    if kind < 0.65:
        attrs.append(("href", f"http://h{n}.example/p{n}"))
    elif kind < 0.9:
        attrs.append(("href_template", rng.choice([
            "http://t.example/{hdl}", "http://t.example/r?h={hdl}&p={hdl:path}",
            "https://t.example/x/{hdl:path}/y", "http://t.example/noslot"])))
    elif kind < 0.96:
        attrs.append(("href", f"http://both.example/{n}"))
        attrs.append(("href_template", "http://t.example/{hdl}"))
    # else: no href at all (listed, never redirected to)
    maybe(rng, attrs, "weight", WEIGHTS)
    maybe(rng, attrs, "score", SCORES)
    maybe(rng, attrs, "country", COUNTRIES)
    maybe(rng, attrs, "addresses", ADDRESSES)
    maybe(rng, attrs, "view", VIEWS)
    ct = rng.choice(CTYPES)
    if ct:
        attrs.append(("ctype", ct))
        if rng.random() < 0.6:
            attrs.append(("media-type", ct))
    maybe(rng, attrs, "language", LANGS)
    maybe(rng, attrs, "http_role", ROLES)
    maybe(rng, attrs, "http_sc", HTTP_SC)
    return attrs


def locations_value(rng, first, shape):
    attrs = []
    cb = rng.choice(CHOOSE_BY)
    if shape == "negative-scores":
        cb = rng.choice([None, "score", "score,weighted", "country,score"])
    elif shape in ("zero-weights", "weighted"):
        cb = rng.choice(["weighted", "address,weighted", "score,weighted"])
    if cb is not None:
        attrs.append((rng.choice(["choose_by", "chooseby"]), cb))
        if rng.random() < 0.15:
            attrs.append(("chooseby" if attrs[-1][0] == "choose_by" else "choose_by", "weighted"))
    if rng.random() < 0.2:
        attrs.append(("http_sc", rng.choice(["301", "303", "307", "308", "302", "999"])))
    if rng.random() < 0.2:
        attrs.append(("urlWeight", rng.choice(["1", "0.5", "0", "2", "-1"])))
    if rng.random() < 0.2:
        attrs.append(("urlSubtypeWeight", rng.choice(["1", "0.5", "0", "3"])))
    if rng.random() < 0.1:
        attrs.append(("no_legacy", rng.choice(["true", "false", "1"])))
    locs = [location(rng, first + i) for i in range(0 if shape == "no-locations" else rng.randint(1, 5))]
    for l in locs:
        if shape == "negative-scores":
            l[:] = [(k, v) for k, v in l if k != "score"] + [("score", rng.choice(["-1", "-2.5", "-0.1"]))]
        elif shape == "zero-weights":
            l[:] = [(k, v) for k, v in l if k != "weight"] + [("weight", rng.choice(["0", "0.0", "-1"]))]
    xml = "<locations" + "".join(f" {k}={quoteattr(v)}" for k, v in attrs) + ">"
    for l in locs:
        xml += "<location" + "".join(f" {k}={quoteattr(v)}" for k, v in l) + " />"
    return xml + "</locations>", len(locs)


def query(rng):
    parts = []
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        parts.append("locatt=" + rng.choice([
            "view:json", "view:html", "country:gb", "id:1", "id:2", "language:fr", "ctype:application/json",
            "http_role:conneg", "view:nothing", "score:2", "http_sc:303", "VIEW:json", "view:JSON",
            "id:1:2", "view:", "%20view%20:json", "view:%20json"]))
    if rng.random() < 0.3:
        parts.append("country=" + rng.choice(["US", "gb", "de", "fr", "Gb", " us"]))
    if rng.random() < 0.15:
        parts.append("urlappend=" + rng.choice(["%3Fx%3D1", "/more", "%23frag"]))
    if rng.random() < 0.08:
        parts.append("action=metadata")
    rng.shuffle(parts)
    return rng.choice(["&", "&", ";"]).join(parts)


# Every eighth case or so is shaped to reach what random values rarely do: every score
# below 0 (nothing left), every weight 0 or less (a uniform pick), a weighted pick among
# many; every sixteenth has values of no location at all.
SHAPES = ["negative-scores", "zero-weights", "weighted", None, None, None, None, None,
          "negative-scores", "zero-weights", "weighted", None, None, None, None, "no-locations"]


def case(rng, n):
    shape = SHAPES[n % len(SHAPES)]
    values = []
    index = 1
    with_loc = rng.random() < 0.92
    if with_loc:
        first = 0
        for _ in range(1 if rng.random() < 0.85 else 2):
            xml, count = locations_value(rng, first, shape)
            first += count
            values.append({"index": index, "type": rng.choice(LOC_TYPES), "data": xml, "ttl": 86400})
            index += 1
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3]) if with_loc else rng.choice([1, 2, 3])):
        values.append({"index": index, "type": rng.choice(URL_TYPES), "data": f"http://legacy{index}.example/", "ttl": 86400})
        index += 1
    rng.shuffle(values)
    headers = {}
    for name, pool in (("Accept", ACCEPTS), ("Accept-Language", LANGUAGES), ("User-Agent", AGENTS)):
        v = rng.choice(pool)
        if v is not None:
            headers[name] = [v]
    return {
        "handle": rng.choice(HANDLES),
        "values": values,
        "query": query(rng),
        "ip": rng.choice(IPS),
        "headers": headers,
        "protocol": "HTTP/1.0" if rng.random() < 0.1 else "HTTP/1.1",
        "seed": n + 1,
        "redirect_trials": 2000,
    }


TITLES = [None, None, "Plain", 'With "quotes" and \\ back', "Caf\u00e9", "tab\tin"]
LINK_HREFS = ["http://l.example/a", "http://l.example/a b", "http://l.example/\u00fc?x=1&y=<2>", "mailto:x@y.example",
              "http://l.example/%41%zz|{}", None]


def link(rng, n, ids):
    attrs = [("id", f"l{n}")] if rng.random() < 0.6 else []
    href = rng.choice(LINK_HREFS)
    if href is None:
        attrs.append(("href_template", rng.choice(["http://t.example/{hdl}", "http://t.example/p/{hdl:path}"])))
    else:
        attrs.append(("href", href))
    if rng.random() < 0.85:
        attrs.append(("rel", rng.choice(["describedby", "alternate", "cite-as", "item license"])))
    if ids and rng.random() < 0.4:
        attrs.append(("anchor-id", rng.choice(ids + ["missing"])))
    if rng.random() < 0.15:
        attrs.append(("anchor", "http://anchor.example/x y"))
    maybe(rng, attrs, "media-type", [None, "text/html", "application/json"])
    maybe(rng, attrs, "target-type", [None, None, "x"])
    maybe(rng, attrs, "media", [None, None, "screen"])
    maybe(rng, attrs, "hreflang", [None, None, "fr"])
    maybe(rng, attrs, "title", TITLES)
    maybe(rng, attrs, "titlelang", [None, None, None, "en"])
    return attrs


def links_value(rng):
    root = rng.choice(["links", "locations", "Links"])
    xml, ids = f"<{root}>", []
    for n in range(rng.randint(1, 4)):
        tag = rng.choice(["location", "location", "location", "Location", "loc_template", "other"])
        attrs = link(rng, n, ids)
        ids += [v for k, v in attrs if k == "id"]
        xml += f"<{tag}" + "".join(f" {k}={quoteattr(v)}" for k, v in attrs) + " />"
    return xml + f"</{root}>"


HEADER_LINES = ["X-Handle: {hdl}", "X-Path: {hdl:path}", "Cache-Control: no-store", "  X-Spaced  :  value  ",
                "no colon here", "", "<meta name=\"handle\" content=\"{hdl}\">", "  <link rel=\"x\" href=\"y\">",
                "X-Empty:", "X-Colons: a:b:c"]


def links_case(rng, n):
    """A case with 10320/links or 10320/headers values (and maybe 10320/loc and URL ones)."""
    values, index = [], 1
    kinds = rng.choice([["links"], ["headers"], ["links", "headers"], ["links", "loc"], ["headers", "loc"],
                        ["links", "links"], ["loc-rel"]])
    for kind in kinds:
        if kind == "links":
            data, vtype = links_value(rng), rng.choice(["10320/links", "10320/LINKS", "10320/links.x"])
        elif kind == "headers":
            data = "\n".join(rng.choice(HEADER_LINES) for _ in range(rng.randint(1, 4)))
            vtype = rng.choice(["10320/headers", "10320/Headers"])
        else:
            xml, _ = locations_value(rng, 0, None)
            if kind == "loc-rel":
                xml = xml.replace("<location ", '<location rel="alternate" ', 1)
            data, vtype = xml, "10320/loc"
        values.append({"index": index, "type": vtype, "data": data, "ttl": 86400})
        index += 1
    for _ in range(rng.choice([0, 1, 1, 2])):
        values.append({"index": index, "type": rng.choice(URL_TYPES), "data": f"http://legacy{index}.example/", "ttl": 86400})
        index += 1
    rng.shuffle(values)
    return plain_request(rng, n, rng.choice(HANDLES), values)


def plain_request(rng, n, handle, values):
    """A GET of `handle` with `values`, no query and no headers, from a random address; the
    reference's redirect headers recorded ("links")."""
    return {
        "handle": handle,
        "values": values,
        "query": "",
        "ip": rng.choice(IPS),
        "headers": {},
        "protocol": "HTTP/1.1",
        "seed": n + 1,
        "redirect_trials": 2000,
        "links": True,
    }


def linked_locations(rng, name, count, attrs=(), subtags=()):
    """A <locations> of `count` locations named after `name`, with `attrs` and child `subtags`."""
    xml = "<locations" + "".join(f" {k}={quoteattr(v)}" for k, v in attrs) + ">"
    for i in range(count):
        w = rng.choice([None, None, "1", "0", "0.5", "2"])
        rel = ' rel="alternate"' if rng.random() < 0.2 else ""
        xml += f'<location href="http://{name}{i}.example/"' + (f' weight="{w}"' if w else "") + rel + " />"
    for tag, text in subtags:
        xml += f"<{tag}>{text}</{tag}>"
    return xml + "</locations>"


def linked_case(rng, n):
    """A case whose <locations> name other handles (L9): include, includeNamespace, nshdl and
    overridePrefix, followed through other_handles, and the prefix's namespace. The handles'
    names are the case's own: the reference keeps the locations it read of a handle between
    requests (its locationsCache), and one JVM runs every case."""
    spec = linked_spec(rng, n)
    text = json.dumps(spec).replace("10.9/", f"10.9/c{n}-").replace("0.NA/ns", f"0.NA/c{n}-ns")
    return json.loads(text)


def written_case(n, children, namespace):
    """A linked case whose own <locations> is one location and `children`; `namespace`, where
    given, is the HS_NAMESPACE value of 0.NA/ns2."""
    spec = linked_spec(random.Random(10323 + n), n)
    spec["values"] = [{"index": 1, "type": "10320/loc", "ttl": 86400,
                       "data": '<locations no_nslocs="true"><location href="http://own-0.example/" weight="0" />'
                               + children + "</locations>"}]
    if namespace is not None:
        spec["other_handles"]["0.NA/ns2"][0]["data"] = namespace
    text = json.dumps(spec).replace("10.9/", f"10.9/c{n}-").replace("0.NA/ns", f"0.NA/c{n}-ns")
    return json.loads(text)


def linked_spec(rng, n):
    loc = lambda name, count, attrs=(), subtags=(), ttl=86400: {"index": 1, "type": "10320/loc", "ttl": ttl,
                                                                 "data": linked_locations(rng, name, count, attrs, subtags)}
    others = {}
    deeper = rng.random() < 0.4
    inc1_attrs = [("include", "10.9/inc2")] if deeper else []
    if rng.random() < 0.2:
        inc1_attrs.append(("urlWeight", rng.choice(["1", "0.25"])))
    if rng.random() < 0.15:
        inc1_attrs.append(("chooseby", "score"))
    others["10.9/inc1"] = [loc("inc1-", rng.randint(1, 3), inc1_attrs, [("include", "10.9/self")] if rng.random() < 0.15 else [])]
    others["10.9/inc2"] = [loc("inc2-", rng.randint(1, 2))]
    if rng.random() < 0.5:
        others["10.9/inc2"].append({"index": 2, "type": "10320/headers", "data": "X-Included: {hdl}", "ttl": 86400})
    others["10.9/self"] = [loc("self-", 1, [], [("include", "10.9/self")])]
    others["10.9/nsh"] = [loc("nshdl-", rng.randint(1, 2))]
    ns_loc_attrs = []
    if rng.random() < 0.3:
        ns_loc_attrs.append(("http_sc", rng.choice(["301", "303"])))
    if rng.random() < 0.2:
        ns_loc_attrs.append(("no_legacy", "true"))
    others["10.9/nsloc"] = [loc("nsloc-", rng.randint(1, 2), ns_loc_attrs)]
    if rng.random() < 0.5:
        others["10.9/nsloc"].append({"index": 2, "type": "10320/links", "ttl": 86400,
                                    "data": '<links><location href="http://nslink.example/" rel="describedby" /></links>'})
    others["10.9/nsloc2"] = [loc("nsloc2-", 1)]
    others["0.NA/ns1"] = [{"index": 1, "type": "HS_NAMESPACE", "ttl": 86400,
                           "data": "<namespace><locs>10.9/nsloc2</locs></namespace>"}]
    others["0.NA/ns2"] = [{"index": 1, "type": "HS_NAMESPACE", "ttl": 86400,
                           "data": "<namespace><locs>10.9/nsloc</locs><locs>10.9/inc2</locs></namespace>"}]
    attrs, subtags = [], []
    for name, pool in (("include", [None, None, "10.9/inc1", "10.9/inc2", "10.9/missing"]),
                       ("includeNamespace", [None, None, None, "0.NA/ns1", "0.NA/ns2"]),
                       ("nshdl", [None, None, "10.9/nsh"]),
                       ("overridePrefix", [None, None, None, None, "0.NA/ns1", "0.NA/ns2"]),
                       ("no_nslocs", [None, None, None, None, "true", "false", "yes"]),
                       ("no_legacy", [None, None, None, "true"]),
                       ("urlWeight", [None, None, None, "0.5"]),
                       ("suppressNsHeaders", [None, None, None, "true"]),
                       ("suppressNsHeadersIfLocalHeaders", [None, None, "true"])):
        v = rng.choice(pool)
        if v is not None:
            attrs.append((name, v))
    for _ in range(rng.choice([0, 0, 1, 2])):
        subtags.append(rng.choice([("include", "10.9/inc1"), ("include", "10.9/inc2"), ("includeNamespace", "0.NA/ns2")]))
    values = [loc("own-", rng.randint(0, 2), attrs, subtags)]
    if rng.random() < 0.3:
        values.append({"index": 2, "type": "10320/headers", "data": "X-Own: yes", "ttl": 86400})
    for i in range(rng.choice([0, 1, 2])):
        values.append({"index": 3 + i, "type": rng.choice(["URL", "URL", "URL.alt"]), "data": f"http://legacy{i}.example/",
                       "ttl": 86400})
    spec = plain_request(rng, n, rng.choice(["10.1000/1", "10.5555/linked", "TEST/x"]), values)
    spec["other_handles"] = others
    ns = rng.choice([None, None, "<namespace><locs>10.9/nsloc</locs></namespace>",
                     "<namespace><locs>10.9/nsloc</locs><locs>10.9/nsloc2</locs></namespace>",
                     "<namespace><status>active</status></namespace>"])
    if ns is not None:
        spec["namespace"] = ns
    return spec


def read_xml(text):
    """XML as the reference writes it, whose prefixes it leaves undeclared where the value
    declared them: read with each prefix declared on the root; and whose names it writes
    with character references for what is not ASCII (`<locat&#305;on`): read as the
    characters."""
    try:
        return ET.fromstring(text)
    except ET.ParseError:
        text = re.sub(r"<(/?)([^\s/>]+)", lambda m: "<" + m.group(1) + html.unescape(m.group(2)), text)
        # (And a character beyond U+FFFF as references to its UTF-16 halves.)
        text = re.sub(r"&#(\d+);&#(\d+);", lambda m: chr(0x10000 + ((int(m.group(1)) - 0xD800) << 10)
                                                        + int(m.group(2)) - 0xDC00)
                      if 0xD800 <= int(m.group(1)) < 0xDC00 <= int(m.group(2)) < 0xE000 else m.group(0), text)
        prefixes = sorted(set(re.findall(r"[<\s]([A-Za-z_][\w.-]*):[A-Za-z_]", text)) - {"xml", "xmlns"})
        declared = "".join(f' xmlns:{p}="urn:{p}"' for p in prefixes)
        return ET.fromstring(re.sub(r"^(\s*<[^\s/>]+)", lambda m: m.group(1) + declared, text, count=1))


def attrs_of(elem):
    return {k: v for k, v in elem.attrib.items()}


def answer(spec, out):
    """What the test compares: the reference's survivors (URL after href_template, before
    urlappend, weight as it counts, and probability as LocOracle computes it) and the
    redirects its handler made, 2000 with a seeded Random (status and Location: count)."""
    ref = {"hdl": out["hdl_after_normalize"],
           "locatt": out["params_after_request_processing"].get("locatt", []),
           "mode": out.get("mode")}
    if out.get("mode") == "10320/loc":
        shown = []
        if out.get("showurls_xml"):
            shown = [attrs_of(e) for e in read_xml(out["showurls_xml"])]
        survivors = []
        for s in out["survivors"]:
            a = attrs_of(read_xml(s["xml"]))
            url = a.get("href")
            if url is None:
                # href_template: the href the reference computes for it, from showurls.
                for b in shown:
                    if "href" in b and {k: v for k, v in b.items() if k != "href"} == a:
                        url = b["href"]
                        break
            survivors.append({"url": url, "weight": s["effective_weight"], "probability": s["probability"]})
        ref["survivors"] = survivors
    ref["redirects"] = out.get("redirect_histogram", {})
    if spec.get("links"):
        seeded = out["redirect_seeded"]
        ref["redirect_headers"] = {k: v for k, v in seeded["headers"].items() if k not in ("Location", "Expires")}
        body = seeded["body"] or ""
        ref["page_head"] = body.split("<title>Handle Redirect</title>", 1)[-1].split("</head>", 1)[0] if seeded["returned"] else None
    return ref


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--reference", default=os.path.join(ROOT, "..", "shared", "reference", "cnri"))
    args.add_argument("--out", default=os.path.join(ROOT, "tests", "loc", "cases.jsonl"))
    args = args.parse_args()
    REF, OUT = args.reference, args.out
    rng = random.Random(10320)
    specs = [case(rng, n) for n in range(CASES)]
    rng = random.Random(10321)
    specs += [links_case(rng, n) for n in range(LINKS_CASES)]
    rng = random.Random(10322)
    specs += [linked_case(rng, n) for n in range(LINKED_CASES)]
    specs += [written_case(LINKED_CASES + i, c, ns) for i, (c, ns) in enumerate(WRITTEN_CHILDREN)]
    rng = random.Random(10324)
    specs += [plain_request(rng, i, f"10.5555/written-{i}",
                            [{"index": 1, "type": t, "ttl": 86400, "data": d},
                             {"index": 2, "type": "URL", "ttl": 86400, "data": "http://url.example/"}])
              for i, (t, d) in enumerate(WRITTEN_VALUES)]
    cp = [os.path.join(REF, j) for j in JARS] + [f"/usr/share/java/{j}.jar" for j in SYSTEM_JARS]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "LocBatch.java"), "w") as f:
            f.write(BATCH)
        classpath = ":".join([tmp] + cp)
        subprocess.run(["javac", "-cp", classpath, "-d", tmp, os.path.join(tmp, "LocBatch.java")], check=True)
        run = subprocess.run(["java", "-cp", classpath, "LocBatch"], input="\n".join(json.dumps(s) for s in specs) + "\n",
                             capture_output=True, text=True, check=True)
    outs = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
    assert len(outs) == len(specs), (len(outs), run.stderr[-2000:])
    with open(OUT, "w") as f:
        for n, (spec, out) in enumerate(zip(specs, outs)):
            if "error" in out:
                sys.exit(f"case {n}: LocOracle failed: {out['error']}")
            reference = answer(spec, out)
            del spec["redirect_trials"]
            spec.pop("links", None)
            f.write(json.dumps({"case": n, "input": spec, "reference": reference}, ensure_ascii=False) + "\n")
    print(f"{len(specs)} cases written to {OUT}")


if __name__ == "__main__":
    main()
