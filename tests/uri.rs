//! Reading every form through the public API: what each gives, the options, the errors and
//! their indices (also inside percent-encoded parts), and the proxy query parameters.

use handle_id::{
    detect, recognize, Action, Form, HdlUri, Options, ParseErrorKind, ProxyBase, ProxyQuery,
};

#[track_caller]
fn read(text: &str) -> HdlUri<'_> {
    recognize(text, &Options::new()).unwrap_or_else(|e| panic!("{text:?}: {}", e.render(text)))
}

#[track_caller]
fn rejected(text: &str, options: &Options) -> (ParseErrorKind, usize, &'static str) {
    match recognize(text, options) {
        Ok(u) => panic!("{text:?} should be rejected, got {u:?}"),
        Err(e) => (e.kind(), e.index(), e.rule()),
    }
}

#[test]
fn forms_and_handles() {
    let cases = [
        // U1, U4: path form, scheme in any case.
        ("hdl:1234/567", Form::Hdl, "1234/567"),
        ("HDL:1234/567", Form::Hdl, "1234/567"),
        ("hdl:10.1045/a%20b%2Fc", Form::Hdl, "10.1045/a b/c"),
        // U2, D4: host form; hdl://a/b/c is the handle a/b/c.
        ("hdl://a/b/c", Form::HdlHost, "a/b/c"),
        (
            "hdl://100.102/F58FB49EB1F848f0A606E84CEF294BE5",
            Form::HdlHost,
            "100.102/F58FB49EB1F848f0A606E84CEF294BE5",
        ),
        // U8: info:, with '?' part of the identifier and '#' starting a fragment.
        ("info:hdl/1234/567", Form::InfoHdl, "1234/567"),
        ("INFO:DOI/10.1000/a?b#c", Form::InfoDoi, "10.1000/a?b"),
        // U8: textual prefixes, taken as they are; urn: turns the first ':' into '/'.
        ("doi:10.1000/a b#c", Form::Doi, "10.1000/a b#c"),
        ("urn:doi:10.123:456", Form::UrnDoi, "10.123/456"),
        ("urn:hdl:1234/5:6", Form::UrnHdl, "1234/5:6"),
        // P1, P3: proxies, decoded, prefixes stripped, '+' kept.
        (
            "https://hdl.handle.net/20.1000/5555%23resolve",
            Form::Proxy,
            "20.1000/5555#resolve",
        ),
        ("http://dx.doi.org/10.1000/a+b", Form::Proxy, "10.1000/a+b"),
        (
            "https://WWW.DOI.ORG/doi:10.1000/182",
            Form::Proxy,
            "10.1000/182",
        ),
        (
            "https://doi.org/info:doi/10.1000%2F182",
            Form::Proxy,
            "10.1000/182",
        ),
        (
            "https://doi.org/urn:doi:10.123:456",
            Form::Proxy,
            "10.123/456",
        ),
        (
            "https://hdl.handle.net/hdl:20.1000/5555",
            Form::Proxy,
            "20.1000/5555",
        ),
        // P5: REST API.
        (
            "https://hdl.handle.net/api/handles/4263537/4000?type=URL",
            Form::Api,
            "4263537/4000",
        ),
        // U9: no scheme, a bare handle.
        ("10.1000/182", Form::Handle, "10.1000/182"),
        ("doi.org/10.1000/182", Form::Handle, "doi.org/10.1000/182"),
    ];
    for (text, form, handle) in cases {
        let uri = read(text);
        assert_eq!(
            (uri.form(), uri.handle().as_str()),
            (form, handle),
            "{text:?}"
        );
        assert_eq!(detect(text, &Options::new()), Some(form), "{text:?}");
    }
}

#[test]
fn query_fragment_and_base() {
    let uri = read("hdl://10.1000/x?a%20b=1&c#frag%21");
    assert_eq!(uri.query(), Some("a%20b=1&c"));
    assert_eq!(uri.query_decoded().unwrap().unwrap(), "a b=1&c");
    assert_eq!(uri.fragment(), Some("frag%21"));
    assert_eq!(uri.fragment_decoded().unwrap().unwrap(), "frag!");
    assert_eq!(uri.base(), None);
    let uri = read("https://hdl.handle.net/20.1000/5555?noredirect#x");
    assert_eq!(uri.base(), Some("https://hdl.handle.net"));
    assert_eq!(
        (uri.query(), uri.fragment()),
        (Some("noredirect"), Some("x"))
    );
    assert!(uri.proxy_query().unwrap().unwrap().noredirect);
    assert_eq!(read("hdl:1/2").query(), None);
    assert_eq!(read("hdl:1/2?").query(), Some(""));
    // A proxy URL's query is read as browsers send it, and decoded on request.
    let uri = read("https://hdl.handle.net/1/2?%zz");
    assert_eq!(uri.query_decoded().unwrap().unwrap_err().index(), 27);
    assert!(recognize("hdl:1/2?%zz", &Options::new()).is_err());
}

#[test]
fn options() {
    // U3: the resolution form only on request.
    let o = Options::new().resolution_form(true);
    let uri = recognize("hdl://190.12.34.56/1234/567", &o).unwrap();
    assert_eq!(
        (uri.form(), uri.base(), uri.handle().as_str()),
        (Form::HdlResolution, Some("190.12.34.56"), "1234/567")
    );
    assert_eq!(
        read("hdl://190.12.34.56/1234/567").handle().as_str(),
        "190.12.34.56/1234/567"
    );
    // U5: CORDRA's profile.
    let cordra = Options::new().cordra(true);
    assert!(recognize("hdl://100.102/F58FB49E", &cordra).is_ok());
    assert!(recognize("hdl:100.102/F58FB49E", &cordra).is_ok());
    assert!(recognize("hdl:100.102/a%2Fb", &cordra).is_ok());
    assert_eq!(
        rejected("hdl:100.102/a/b", &cordra).0,
        ParseErrorKind::UriSyntax
    );
    assert_eq!(
        rejected("hdl://100.102/a/b", &cordra).0,
        ParseErrorKind::UriSyntax
    );
    assert_eq!(
        rejected("hdl:100.102/", &cordra).0,
        ParseErrorKind::UriSyntax
    );
    assert!(recognize("hdl:100.102/", &Options::new()).is_ok());
    // P1: a named base, with and without a fixed first segment.
    let named =
        Options::new().proxy_base(ProxyBase::parse("https://resolver.example/hdl/").unwrap());
    assert_eq!(
        recognize("https://resolver.example/hdl/1/2", &named)
            .unwrap()
            .handle()
            .as_str(),
        "1/2"
    );
    assert_eq!(
        rejected("https://resolver.example/other/1/2", &Options::new()).0,
        ParseErrorKind::UnknownResolver
    );
    // Repository pages only on request.
    let text = "http://publications.jrc.ec.europa.eu/repository/handle/111111111/29540";
    assert_eq!(
        rejected(text, &Options::new()),
        (ParseErrorKind::UnknownResolver, 7, "")
    );
    let uri = recognize(text, &Options::new().repository_urls(true)).unwrap();
    assert_eq!(
        (uri.form(), uri.handle().as_str()),
        (Form::Repository, "111111111/29540")
    );
    assert_eq!(
        uri.base(),
        Some("http://publications.jrc.ec.europa.eu/repository")
    );
}

#[test]
fn errors_point_into_the_original_text() {
    let o = Options::new();
    // A raw character the URI grammar does not allow, with the rule it was in.
    assert_eq!(
        rejected("hdl:1234/a b", &o),
        (ParseErrorKind::UriSyntax, 10, "u_local_name")
    );
    assert_eq!(
        rejected("hdl:12@34/x", &o),
        (ParseErrorKind::UriSyntax, 6, "u_na_segment")
    );
    assert_eq!(
        rejected("hdl://1/x?a b", &o),
        (ParseErrorKind::UriSyntax, 11, "query")
    );
    // Percent-encoding: a bad escape points at its '%'.
    assert_eq!(rejected("hdl:1/a%2", &o).0, ParseErrorKind::PercentEncoding);
    assert_eq!(rejected("hdl:1/a%2", &o).1, 7);
    // A whole escape is not what is wrong with the character after it: that is refused as
    // it is after the character the escape stands for.
    for (text, without) in [
        ("hdl:1234/%41 b", "hdl:1234/A b"),
        ("hdl:%41@34/x", "hdl:A@34/x"),
        ("hdl://%41 b/x", "hdl://A b/x"),
        ("info:hdl/%41 b/x", "info:hdl/A b/x"),
        ("hdl:1234/%41%42<", "hdl:1234/AB<"),
        ("hdl:1234/%41\u{dc}", "hdl:1234/A\u{dc}"),
    ] {
        let (kind, at, rule) = rejected(without, &o);
        let escaped = text.len() - without.len();
        assert_eq!(rejected(text, &o), (kind, at + escaped, rule), "{text}");
        assert_eq!(kind, ParseErrorKind::UriSyntax, "{text}");
    }
    assert_eq!(
        rejected("hdl:1234/%41%4", &o),
        (ParseErrorKind::PercentEncoding, 12, "pct_encoded")
    );
    // In a proxy URL's path, a '%' that starts no escape is a '%', as browsers read it (P3),
    // with a warning; the CORDRA profile's HTTP encoding keeps RFC 3986's rule.
    let read = recognize("https://doi.org/10.1/100%", &o).unwrap();
    assert_eq!(read.handle().as_str(), "10.1/100%");
    let warnings: Vec<_> = read.lint().iter().map(|w| (w.code(), w.index())).collect();
    assert_eq!(warnings, [(handle_id::LintCode::LiteralPercent, 24)]);
    assert_eq!(read.to_string(), "https://doi.org/10.1/100%25");
    let read = recognize("https://doi.org/10.1006/rwei.1999%.0001%41", &o).unwrap();
    assert_eq!(read.handle().as_str(), "10.1006/rwei.1999%.0001A");
    assert_eq!(read.lint()[0].index(), 33);
    assert_eq!(
        rejected("https://doi.org/10.1/100%", &Options::new().cordra(true)),
        (ParseErrorKind::PercentEncoding, 24, "pct_encoded")
    );
    // Decoded bytes that are not UTF-8: at the '%' of the first bad byte.
    assert_eq!(
        rejected("hdl:1/ab%C3%28", &o),
        (ParseErrorKind::InvalidUtf8, 8, "")
    );
    assert_eq!(
        rejected("info:hdl/1/%FF", &o),
        (ParseErrorKind::InvalidUtf8, 11, "")
    );
    // An escaped '.' is a '.' inside its segment, which H3 excludes, not a new segment (U11),
    // like an escaped '/'.
    assert_eq!(
        rejected("hdl:1%2E%2E2/x", &o),
        (ParseErrorKind::InvalidCharacter, 5, "na_segment")
    );
    assert_eq!(
        rejected("hdl:a%2Eb/x", &o),
        (ParseErrorKind::InvalidCharacter, 5, "na_segment")
    );
    assert_eq!(
        rejected("hdl:ab%2Fc/x", &o),
        (ParseErrorKind::InvalidCharacter, 6, "na_segment")
    );
    // With no '/' after it, the escape is what is wrong too, not the text's end or what
    // follows it (the walk for a handle's '/' fails later).
    for (text, at) in [
        ("hdl:10.1000%2F182", 11),
        ("hdl:10.1000%2f182?x", 11),
        ("hdl://10.1000%2F182#f", 13),
    ] {
        assert_eq!(
            rejected(text, &o),
            (ParseErrorKind::InvalidCharacter, at, "na_segment"),
            "{text}"
        );
    }
    assert_eq!(
        rejected("hdl:a%40b/x", &o),
        (ParseErrorKind::InvalidCharacter, 5, "na_segment")
    );
    assert_eq!(
        rejected("https://doi.org/%C3%A9%C3%A9%40/x", &o),
        (ParseErrorKind::InvalidCharacter, 28, "na_segment")
    );
    assert_eq!(
        rejected("info:doi/%C3%A9.", &o),
        (ParseErrorKind::EmptySegment, 16, "dot")
    );
    assert_eq!(
        rejected("doi:10.1000", &o),
        (ParseErrorKind::MissingSlash, 11, "na_segment")
    );
    assert_eq!(
        rejected("https://doi.org/api/handles/x", &o),
        (ParseErrorKind::MissingSlash, 29, "na_segment")
    );
    // A URI's naming authority that the text, a query or a fragment ends: no '/' after it,
    // as a bare handle's error says (H1), inside the URI grammar's rule.
    for (text, at) in [
        ("hdl:10.1000", 11),
        ("hdl://10.1000?x", 13),
        ("hdl:10.1000#x", 11),
    ] {
        assert_eq!(
            rejected(text, &o),
            (ParseErrorKind::MissingSlash, at, "u_na_segment"),
            "{text}"
        );
    }
    assert!(recognize("hdl:10.1000", &o)
        .unwrap_err()
        .to_string()
        .starts_with("no '/' after the naming authority (end of input at byte 11)"));
    // Forms that hold no handle (D5).
    for text in [
        "ftp://doi.org/10.1/x",
        "urn:isbn:0451450523",
        "info:ark/1/2",
        "mailto://a/b",
    ] {
        assert_eq!(
            rejected(text, &o),
            (ParseErrorKind::NotAHandleForm, 0, ""),
            "{text}"
        );
        assert_eq!(detect(text, &o), None);
    }
    // Messages name the part and cite the rule.
    let e = recognize("hdl:1234/a b", &o).unwrap_err();
    assert_eq!(
        e.to_string(),
        "' ' (U+0020) is not allowed in the local name at byte 10; write it percent-encoded (SPEC U6, P2)"
    );
    let e = recognize("https://example.com/10.1/x", &o).unwrap_err();
    assert!(e
        .to_string()
        .contains("not a known handle proxy or resolver"));
}

#[test]
fn hdl_uri_parse_reads_hdl_forms_only() {
    assert_eq!(HdlUri::parse("hdl:1/2").unwrap().form(), Form::Hdl);
    assert_eq!(HdlUri::parse("hdl://1/2").unwrap().form(), Form::HdlHost);
    assert!(HdlUri::parse("1/2").is_err());
    assert!(HdlUri::parse("info:hdl/1/2").is_err());
    let uri = HdlUri::parse("hdl:1/%C3%A9").unwrap();
    assert_eq!(uri.clone().into_handle().as_str(), "1/é");
    assert_eq!(uri.as_str(), "hdl:1/%C3%A9");
    assert_eq!(
        HdlUri::from_handle(handle_id::hdl!("1/2")).form(),
        Form::Handle
    );
}

#[test]
fn display_writes_canonical_text() {
    for (text, canonical) in [
        ("HDL:10.1000/a%20b", "hdl:10.1000/a%20b"),
        ("hdl:10.1000/%41", "hdl:10.1000/A"),
        ("hdl://10.1000/x?q#f", "hdl://10.1000/x?q#f"),
        ("info:HDL/1234/a%20b", "info:hdl/1234/a%20b"),
        ("urn:doi:10.123:456", "urn:doi:10.123:456"),
        (
            "HTTPS://DX.DOI.ORG/10.1000/a%2Fb",
            "https://dx.doi.org/10.1000/a/b",
        ),
        ("https://doi.org/doi:10.1000/x", "https://doi.org/10.1000/x"),
        (
            "https://hdl.handle.net/api/handles/1/2?pretty",
            "https://hdl.handle.net/api/handles/1/2?pretty",
        ),
    ] {
        assert_eq!(read(text).to_string(), canonical, "{text:?}");
    }
}

#[test]
fn forms_by_name() {
    for form in Form::ALL {
        assert_eq!(form.name().parse::<Form>().unwrap(), form);
        assert_eq!(form.to_string(), form.name());
    }
    assert!("nonsense".parse::<Form>().is_err());
}

/// A resolver's host with the port its scheme names by default, or an empty one, is the
/// host (RFC 3986 §6.2.3), for the known resolvers and a base named alike, written either
/// way on either side (P1); another port is another server.
#[test]
fn a_default_port_is_the_host() {
    for (text, handle, written) in [
        ("https://hdl.handle.net:443/20.1000/5", "20.1000/5", None),
        (
            "HTTP://DX.DOI.ORG:80/10.1000/ABC",
            "10.1000/ABC",
            Some("http://dx.doi.org:80/10.1000/ABC"),
        ),
        ("https://doi.org:/10.1000/x", "10.1000/x", None),
        // By its value (RFC 3986 §6.2.3): leading zeros are the same port.
        ("https://doi.org:0443/10.1000/x", "10.1000/x", None),
        ("http://hdl.handle.net:080/20.1000/5", "20.1000/5", None),
    ] {
        let u = read(text);
        assert_eq!((u.form(), u.handle().as_str()), (Form::Proxy, handle));
        // Written back with its port, the scheme and host in lower case.
        assert_eq!(u.to_string(), written.unwrap_or(text));
    }
    for text in [
        "https://doi.org:80/10.1000/x",
        "http://doi.org:443/10.1000/x",
        "https://doi.org:8443/10.1000/x",
        "https://doi.org:4430/10.1000/x",
        "https://doi.org:0/10.1000/x",
    ] {
        assert_eq!(
            rejected(text, &Options::new()).0,
            ParseErrorKind::UnknownResolver
        );
    }
    let named = |base: &str| Options::new().proxy_base(ProxyBase::parse(base).unwrap());
    for (base, text) in [
        ("http://h.example", "http://h.example:80/20.1000/5"),
        ("http://h.example:80", "http://h.example/20.1000/5"),
        ("http://h.example:0080", "http://h.example:80/20.1000/5"),
        (
            "https://h.example:443/hdl",
            "https://h.example/hdl/20.1000/5",
        ),
    ] {
        let u = recognize(text, &named(base)).unwrap();
        assert_eq!(u.handle().as_str(), "20.1000/5", "{base} {text}");
    }
    // A port written as the base writes it is the base's, whatever the scheme.
    let u = recognize(
        "https://h.example:80/20.1000/5",
        &named("http://h.example:80"),
    )
    .unwrap();
    assert_eq!(u.handle().as_str(), "20.1000/5");
    let (kind, _, _) = rejected(
        "https://h.example:80/20.1000/5",
        &named("https://h.example"),
    );
    assert_eq!(kind, ParseErrorKind::UnknownResolver);
}

#[test]
fn proxy_bases() {
    let b = ProxyBase::parse("HTTP://Resolver.Example:8080/hdl/").unwrap();
    assert_eq!(
        (b.as_str(), b.host(), b.fixed_segment()),
        (
            "http://resolver.example:8080/hdl",
            "resolver.example:8080",
            Some("hdl")
        )
    );
    assert_eq!(
        ProxyBase::parse("https://doi.org").unwrap().fixed_segment(),
        None
    );
    for bad in [
        "doi.org",
        "https://doi.org/a/b",
        "https://doi.org/?x",
        "https://doi.org#x",
        "https://",
    ] {
        assert!(ProxyBase::parse(bad).is_err(), "{bad}");
    }
    let h = handle_id::hdl!("10.1000/182");
    assert_eq!(
        ProxyBase::default_for(h).url(h),
        "https://doi.org/10.1000/182"
    );
    assert_eq!(
        ProxyBase::default_for(handle_id::hdl!("20.1000/1")).as_str(),
        "https://hdl.handle.net"
    );
    assert_eq!(
        ProxyBase::handle_net().api_url(h),
        "https://hdl.handle.net/api/handles/10.1000/182"
    );
}

#[test]
fn proxy_query_parameters_p4() {
    let q = ProxyQuery::parse(
        "noredirect&ignore_aliases=&auth&cert&index=1&index=300&type=URL&type=HS_SITE.\
         &urlappend=%3Fx%3D1&locatt=country:gb&action=showurls&callback=f&pretty&foo=b+ar&bare",
    )
    .unwrap();
    assert!(q.noredirect && q.ignore_aliases && q.auth && q.cert && q.pretty);
    assert_eq!(q.index, [1, 300]);
    assert_eq!(q.types, ["URL", "HS_SITE."]);
    assert_eq!(q.urlappend.as_deref(), Some("?x=1"));
    assert_eq!(q.locatt, [("country".to_owned(), "gb".to_owned())]);
    assert_eq!(q.action, Some(Action::ShowUrls));
    assert_eq!(q.callback.as_deref(), Some("f"));
    assert_eq!(
        q.other,
        [
            ("foo".to_owned(), Some("b+ar".to_owned())),
            ("bare".to_owned(), None)
        ]
    );
    // R4: a type ending in '.' selects its subtypes.
    assert!(q.selects_type("HS_SITE.PREFIX") && q.selects_type("HS_SITE") && q.selects_type("URL"));
    assert!(!q.selects_type("EMAIL") && ProxyQuery::new().selects_type("EMAIL"));
    // Written and read back.
    assert_eq!(ProxyQuery::parse(&q.to_string()).unwrap(), q);
    let built = ProxyQuery::new()
        .auth()
        .cert()
        .ignore_aliases()
        .urlappend("&a=b c")
        .action(Action::Other("custom".into()))
        .callback("cb")
        .pretty()
        .param("k", Some("v=1"));
    assert_eq!(ProxyQuery::parse(&built.to_string()).unwrap(), built);
    assert_eq!(
        ProxyQuery::parse("action=metadata").unwrap().action,
        Some(Action::Metadata)
    );
    // As the reference proxy reads a query: `;` separates too, `+` stays, the first
    // urlappend, action and callback count, action without case.
    let q = ProxyQuery::parse(
        "type=URL;noredirect&urlappend=a+b&urlappend=c&action=ShowURLs&action=api",
    )
    .unwrap();
    assert!(q.noredirect);
    assert_eq!(q.types, ["URL"]);
    assert_eq!(q.urlappend.as_deref(), Some("a+b"));
    assert_eq!(q.action, Some(Action::ShowUrls));
    // What P4 does not allow, with the index into the query.
    let e = ProxyQuery::parse("type=URL&index=-1").unwrap_err();
    assert_eq!((e.kind(), e.index()), (ParseErrorKind::InvalidParameter, 9));
    assert_eq!(
        ProxyQuery::parse("index=4294967296").unwrap_err().index(),
        0
    );
    assert_eq!(
        ProxyQuery::parse("a&locatt=nocolon").unwrap_err().index(),
        2
    );
    assert_eq!(
        ProxyQuery::parse("x=%zz").unwrap_err().kind(),
        ParseErrorKind::PercentEncoding
    );
    // Through a URL: the index is into the whole text.
    let uri = read("https://hdl.handle.net/1/2?index=x");
    assert_eq!(uri.proxy_query().unwrap().unwrap_err().index(), 27);
}

/// An error names the character at its index: as written, or, where it was written
/// percent-encoded, the character the escape decodes to, marked `escaped` and said so in the
/// message (U11). Where the handle of a URI ends early, the character that ended it.
#[test]
fn errors_name_the_character_at_their_index() {
    let o = Options::new();
    let error = |text: &str| recognize(text, &o).unwrap_err();
    let e = error("hdl:a%2Fb/c");
    assert_eq!((e.index(), e.found(), e.escaped()), (5, Some('/'), true));
    assert_eq!(
        e.to_string(),
        "'/' (U+002F) written percent-encoded is not allowed in a naming authority segment at \
         byte 5; the ABNF excludes %x2F (SPEC H3, U11)"
    );
    let e = error("hdl:a%40b/c");
    assert_eq!((e.index(), e.found(), e.escaped()), (5, Some('@'), true));
    // Not escaped: the character as written.
    let e = error("https://doi.org/10@1/x");
    assert_eq!((e.index(), e.found(), e.escaped()), (18, Some('@'), false));
    // info:hdl/#frag: no handle before the '#'.
    let e = error("info:hdl/#frag");
    assert_eq!(
        (e.kind(), e.index(), e.found()),
        (ParseErrorKind::Empty, 9, Some('#'))
    );
    assert_eq!(
        e.to_string(),
        "no handle at byte 9 ('#' (U+0023) found); a handle is <naming authority>/<local name> \
         (SPEC H1)"
    );
    // The identifier ends at the '#': no '/' before it.
    let e = error("info:hdl/10.1000#x");
    assert_eq!(
        (e.kind(), e.index(), e.found()),
        (ParseErrorKind::MissingSlash, 16, Some('#'))
    );
    // A urn: form's ':' stands for its '/': the error shows the ':' as written.
    let e = error("urn:hdl:a.:x");
    assert_eq!(
        (e.kind(), e.index(), e.found()),
        (ParseErrorKind::EmptySegment, 10, Some(':'))
    );
    // Every one of these names the character at its index.
    for text in [
        "hdl:a%2Fb/c",
        "https://doi.org/10@1/x",
        "info:hdl/#frag",
        "urn:hdl:a.:x",
    ] {
        let e = error(text);
        let at = text[e.index()..].chars().next();
        if e.escaped() {
            assert_eq!(at, Some('%'), "{text}");
        } else {
            assert_eq!(at, e.found(), "{text}");
        }
    }
}

/// A base reads back from its own text, and an empty fixed segment (`http://h//`) is not a
/// segment: an error at its '/', not a base whose text reads as another.
#[test]
fn proxy_base_reads_back_from_its_text() {
    for text in [
        "http://h",
        "http://h/",
        "HTTP://H:8080/x/",
        "https://resolver.example/hdl",
    ] {
        let base = ProxyBase::parse(text).unwrap();
        assert_eq!(ProxyBase::parse(base.as_str()).unwrap(), base, "{text}");
    }
    for (text, at) in [("http://h//", 9), ("http://h///", 9), ("http://h//x", 9)] {
        let e = ProxyBase::parse(text).unwrap_err();
        assert_eq!((e.index(), e.found()), (at, Some('/')), "{text}");
    }
    // A base of another scheme, or of none, is told what a resolver's URL starts with.
    for (text, at) in [
        ("hdl://srv.example:2641", 1),
        ("ftp://a.example", 0),
        ("resolver.example", 0),
    ] {
        let e = ProxyBase::parse(text).unwrap_err();
        assert_eq!(e.index(), at, "{text}");
        assert!(
            e.to_string()
                .ends_with("a resolver's URL starts http:// or https:// (SPEC P1)"),
            "{text}: {e}"
        );
    }
    // Past a scheme's `:`, an error is not the scheme's.
    let e = ProxyBase::parse("http:/x.example").unwrap_err();
    assert!(!e.to_string().contains("scheme"), "{e}");
}

/// A base is what URLs are written from, and they must read back as written (P2's test of
/// truth): its own grammar (`base_url`), stricter than a URL read from text. What a WHATWG
/// parser refuses or changes is refused where it is.
#[test]
fn a_base_is_one_a_url_parser_reads_as_written() {
    for (text, at, hint) in [
        // Forbidden domain code points, and user information.
        ("https://a b", 9, "the base's host"),
        ("https://a<b.example", 9, "the base's host"),
        ("https://a^b/x", 9, "the base's host"),
        ("https://a%41", 9, "the base's host"),
        ("https://user@h.example", 12, "the base's host"),
        // A port of more than 16 bits.
        ("https://h:65536", 10, "a port is a number from 0 to 65535"),
        (
            "https://[::1]:70000",
            14,
            "a port is a number from 0 to 65535",
        ),
        ("https://h:123456", 15, "a port is a number from 0 to 65535"),
        // A segment of what P2 would escape, or a dot segment a parser takes away.
        ("https://h/a b", 11, "the base's path segment"),
        ("https://h/a%20b", 11, "the base's path segment"),
        ("https://h/..", 12, "the base's path segment"),
        ("https://h/./", 11, "the base's path segment"),
        ("https://h/a/b", 11, "at most one path segment"),
        // What a parser would map (IDNA) or read as an address that is none.
        ("https://résolveur.example", 9, "in its xn-- form"),
        ("http://a\u{FF03}b", 8, "in its xn-- form"),
        ("http://example.1", 15, "four decimal numbers"),
        ("http://1.2.3.999", 13, "four decimal numbers"),
        ("http://0x100", 7, "four decimal numbers"),
        ("http://[1]", 8, "an IPv6 address in brackets"),
        // An empty port (a parser drops it: the URL would not be the base's).
        ("https://h:", 10, "the text ends"),
    ] {
        let e = ProxyBase::parse(text).unwrap_err();
        assert_eq!(e.index(), at, "{text}: {e}");
        assert!(e.to_string().contains(hint), "{text}: {e}");
        assert!(!e.to_string().contains("percent-encoded"), "{text}: {e}");
    }
    for text in [
        "https://h:65535",
        "https://[::1]:8080/hdl/",
        "https://xn--rsolveur-b1a.example",
        "http://127.0.0.1:8080/hdl",
        "http://localhost:8000",
        "http://h/...",
        "http://a.0xg",
        "http://h/.well-known",
        "http://h/a:b@c;d=e!$()*,~_",
    ] {
        let base = ProxyBase::parse(text).unwrap();
        assert_eq!(ProxyBase::parse(base.as_str()).unwrap(), base, "{text}");
    }
}

/// The writers of proxy, REST API and repository URLs give URLs that read back as the same
/// handle (P2's test of truth), also for handles that look like a REST API path (P5) or
/// start with a prefix the proxy removes (P3).
#[test]
fn proxy_urls_of_handles_that_look_like_api_urls_or_labels_read_back() {
    let repository = ProxyBase::parse("https://repo.example/xmlui").unwrap();
    let options = Options::new().repository_urls(true);
    for text in [
        "api/handles/10.1/x",
        "api/handles/",
        "api/handlesx/1",
        "hdl:1234/5",
        "HDL:1234/5",
        "doi:10.1/x",
        "info:doi/10.1/x",
        "urn:hdl:1/2",
        "hdl:hdl:1/2",
    ] {
        let h = handle_id::HandleRef::parse(text).unwrap();
        for (form, base) in [
            (Form::Proxy, None),
            (Form::Api, None),
            (Form::Repository, Some(&repository)),
        ] {
            let url = h.to_form(form, base).unwrap();
            let read = recognize(&url, &options).unwrap();
            assert_eq!((read.form(), read.handle()), (form, h), "{url}");
            // And what Display writes of it, too.
            let again = read.to_string();
            assert_eq!(recognize(&again, &options).unwrap().handle(), h, "{again}");
        }
    }
    // Read as written, such a URL gives the handle P3 and P5 say, and writes it back so.
    let read = recognize("https://doi.org/api%2Fhandles/10.1/x", &Options::new()).unwrap();
    assert_eq!(read.handle().as_str(), "api/handles/10.1/x");
    assert_eq!(read.to_string(), "https://doi.org/api%2Fhandles/10.1/x");
}

/// `Display` writes what the options a URI was read with read back: under the CORDRA
/// profile, a `/` in the local name is `%2F` (U5), in the `hdl:` and HTTP forms.
#[test]
fn display_reads_back_under_the_options_it_was_read_with() {
    let cordra = Options::new().cordra(true);
    for text in [
        "hdl:0/%2F",
        "hdl://0/a%2Fb%2F",
        "HDL:10.1000/x%2Fy?q#f",
        "http://resolver.example:2641/hdl/10.1000/a%2Fb",
        "https://hdl.handle.net/20.1000/5555%2F",
    ] {
        let options = if text.starts_with("http://resolver") {
            cordra
                .clone()
                .proxy_base(ProxyBase::parse("http://resolver.example:2641/hdl").unwrap())
        } else {
            cordra.clone()
        };
        let read = recognize(text, &options).unwrap();
        let shown = read.to_string();
        let again = recognize(&shown, &options)
            .unwrap_or_else(|e| panic!("{text} -> {shown}: {}", e.render(&shown)));
        assert_eq!(again.handle(), read.handle(), "{text} -> {shown}");
        assert_eq!(again.to_string(), shown);
    }
    assert_eq!(
        recognize("hdl:0/%2F", &cordra).unwrap().to_string(),
        "hdl:0/%2F"
    );
    // Without the profile, the '/' is written as it is.
    assert_eq!(
        recognize("hdl:0/%2F", &Options::new()).unwrap().to_string(),
        "hdl:0//"
    );
}
