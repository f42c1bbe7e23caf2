//! What a redirect carries besides its target (L8): the `Link` headers of the `10320/links`
//! values and of the locations with `rel` in `10320/loc` values, and the header lines of
//! `10320/headers` values, as the reference proxy writes them (its `Location` handler's
//! `writeLinks` and `writeHttpHeaders`).

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write as _;

use super::loc::{
    attribute_name, element_name, fill_template, java_eq_ignore_case, java_trim, read_as_reference,
};
use crate::escape::{LINK_TARGET, URL_COMPONENT};

/// The type whose values are `Link` headers.
pub const LINKS_TYPE: &str = "10320/links";

/// The type whose values are header lines.
pub const HEADERS_TYPE: &str = "10320/headers";

/// The `Link` header values of one value's XML (`10320/links`, or `10320/loc` for its
/// locations with `rel`), added to `out`: each `<location>` (or `<loc_template>`) child of
/// the root with `rel` and an `href` (or an `href_template`, filled for `handle`), its
/// `anchor-id` turned into the `anchor` of the location with that `id`. XML that does not
/// read adds nothing.
pub(crate) fn link_headers(xml: &str, handle: &str, out: &mut Vec<String>) {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: 100_000,
    };
    let mut written = None;
    let Ok((xml, doc)) = read_as_reference(xml, options, &mut written) else {
        return;
    };
    let mut links: Vec<BTreeMap<&str, String>> = Vec::new();
    let mut anchors: BTreeMap<String, String> = BTreeMap::new();
    for node in doc
        .root_element()
        .children()
        .filter(roxmltree::Node::is_element)
    {
        // (Elements and attributes named as written, as the reference names them: an
        // `<x:location>` is another element, an `x:href` another attribute.)
        let name = element_name(xml, node);
        if !java_eq_ignore_case(name, "location") && !java_eq_ignore_case(name, "loc_template") {
            continue;
        }
        let mut attributes: BTreeMap<&str, String> = node
            .attributes()
            .map(|a| (attribute_name(xml, &a), a.value().to_string()))
            .collect();
        if !attributes.contains_key("rel") {
            continue;
        }
        if !attributes.contains_key("href") {
            if let Some(template) = attributes.get("href_template") {
                let href = fill_template(template, handle);
                attributes.insert("href", href);
            }
        }
        let Some(href) = attributes.get("href") else {
            continue;
        };
        if let Some(id) = attributes.get("id") {
            anchors.insert(id.clone(), href.clone());
        }
        links.push(attributes);
    }
    for mut link in links {
        if !link.contains_key("anchor") {
            if let Some(anchor) = link
                .get("anchor-id")
                .and_then(|id| anchors.get(id.as_str()))
            {
                let anchor = anchor.clone();
                link.insert("anchor", anchor);
            }
        }
        out.push(link_value(&link));
    }
}

/// One `Link` header value: the target, then `anchor`, `rel`, `type` (the location's
/// `media-type`), `target-type`, `media`, `hreflang` and `title` (as `title*` when it is not
/// printable ASCII or has a `titlelang`), in that order.
fn link_value(link: &BTreeMap<&str, String>) -> String {
    let get = |name: &str| link.get(name).map(String::as_str);
    let mut out = String::new();
    let _ = write!(out, "<{}>", LINK_TARGET.encode(get("href").unwrap_or("")));
    if let Some(anchor) = get("anchor") {
        let _ = write!(out, "; anchor=\"{}\"", LINK_TARGET.encode(anchor));
    }
    for (attribute, parameter) in [
        ("rel", "rel"),
        ("media-type", "type"),
        ("target-type", "target-type"),
        ("media", "media"),
        ("hreflang", "hreflang"),
    ] {
        if let Some(v) = get(attribute) {
            let _ = write!(out, "; {parameter}=\"{v}\"");
        }
    }
    if let Some(title) = get("title") {
        let lang = get("titlelang");
        if lang.is_none() && title.chars().all(|c| (' '..'\u{7f}').contains(&c)) {
            let quoted = title.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = write!(out, "; title=\"{quoted}\"");
        } else {
            let _ = write!(
                out,
                "; title*=UTF-8'{}'{}",
                lang.unwrap_or(""),
                URL_COMPONENT.encode(title)
            );
        }
    }
    out
}

/// The header lines of a `10320/headers` value, added to `fields` (`Name: value`, each
/// trimmed, the value's templates filled for `handle`; a line with no `:` is none) and to
/// `head` (a line that starts with `<` goes into the redirect page's head, as written,
/// its templates filled).
pub(crate) fn header_lines(
    text: &str,
    handle: &str,
    fields: &mut Vec<(String, String)>,
    head: &mut Vec<String>,
) {
    for line in text.split('\n') {
        let trimmed = java_trim(line);
        if trimmed.starts_with('<') {
            head.push(fill_template(line, handle));
            continue;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            let value = fill_template(java_trim(value), handle);
            fields.push((java_trim(name).to_string(), value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn links_as_the_reference_writes_them() {
        let mut out = Vec::new();
        link_headers(
            r#"<links>
                 <location id="a" href="http://x.example/a b" rel="describedby" media-type="text/html" title="A &quot;t&quot;"/>
                 <location href_template="http://x.example/{hdl}" rel="alternate" anchor-id="a" title="é" titlelang="fr"/>
                 <location href="http://x.example/no-rel"/>
                 <other rel="x" href="http://x.example/other"/>
               </links>"#,
            "10.1/a b",
            &mut out,
        );
        assert_eq!(
            out,
            vec![
                r#"<http://x.example/a%20b>; rel="describedby"; type="text/html"; title="A \"t\"""#,
                r#"<http://x.example/10.1%2Fa%20b>; anchor="http://x.example/a%20b"; rel="alternate"; title*=UTF-8'fr'%C3%A9"#,
            ]
        );
        link_headers("<not xml", "h", &mut out);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn header_lines_and_the_page_head() {
        let (mut fields, mut head) = (Vec::new(), Vec::new());
        header_lines(
            "X-Handle: {hdl}\n  <meta name=\"h\" content=\"{hdl:path}\">\nno colon\n\n Cache-Control : no-store \n",
            "10.1/a b",
            &mut fields,
            &mut head,
        );
        assert_eq!(
            fields,
            vec![
                ("X-Handle".to_string(), "10.1%2Fa%20b".to_string()),
                ("Cache-Control".to_string(), "no-store".to_string()),
            ]
        );
        assert_eq!(head, vec!["  <meta name=\"h\" content=\"10.1/a%20b\">"]);
        // A line may name any header, `Link` too (the fuzzer's find: it is the line's own);
        // trimmed as Java trims, controls off and a no-break space kept.
        let mut fields = Vec::new();
        header_lines("Link:{{hdhd\0l\0\n X:\u{a0}y ", "h", &mut fields, &mut head);
        assert_eq!(
            fields,
            vec![
                ("Link".to_string(), "{{hdhd\0l".to_string()),
                ("X".to_string(), "\u{a0}y".to_string())
            ]
        );
    }
}
