//! Choosing from a record as the proxy does: values by index and type (R4), the URL to
//! redirect to (URL values, `10320/loc`), and `HS_ALIAS`.

use alloc::string::String;
use alloc::vec::Vec;

use super::error::RecordError;
use super::linked::{
    found_in, prefix_handle, suppress_ns_headers, Found, Linked, Settings, Walk, NAMESPACE_TYPE,
};
use super::links::{header_lines, link_headers, HEADERS_TYPE, LINKS_TYPE};
use super::loc::{ClientContext, Location, Locations, LOC_TYPE};
use super::random::RandomSource;
use super::response::{Response, ResponseCode};
use super::value::{is_type_or_subtype, type_matches, Data, HandleValue, Ttl};
use crate::handle::Handle;

/// The type of the values the proxy redirects to.
pub const URL_TYPE: &str = "URL";

/// The type of a value that names the handle to resolve instead.
pub const ALIAS_TYPE: &str = "HS_ALIAS";

/// Which values a request asks for, as the proxy's `index` and `type` parameters say (R4):
/// a value is selected when it matches any index or any type; with neither, every value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Indexes asked for.
    pub indexes: Vec<u32>,
    /// Types asked for; one that ends in `.` asks for its subtypes too.
    pub types: Vec<String>,
}

impl Filter {
    /// Every value.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The same filter, also selecting `index`.
    #[must_use]
    pub fn index(mut self, index: u32) -> Self {
        self.indexes.push(index);
        self
    }

    /// The same filter, also selecting `value_type` (and its subtypes if it ends in `.`).
    #[must_use]
    pub fn value_type(mut self, value_type: &str) -> Self {
        self.types.push(value_type.into());
        self
    }

    /// Whether this filter selects `value`.
    #[must_use]
    pub fn selects(&self, value: &HandleValue) -> bool {
        self.selects_parts(value.index, &value.value_type)
    }

    /// Whether this filter selects a value of this index and type.
    pub(crate) fn selects_parts(&self, index: u32, value_type: &str) -> bool {
        (self.indexes.is_empty() && self.types.is_empty())
            || self.indexes.contains(&index)
            || self.types.iter().any(|t| type_matches(t, value_type))
    }
}

/// Where the proxy redirects, and why.
#[derive(Clone, Debug, PartialEq)]
pub enum Redirect<'r> {
    /// A `10320/loc` value's location, chosen for the client (L2, L3).
    Location(&'r HandleValue, Location),
    /// A `URL` value, chosen at random among the URL values.
    Url(&'r HandleValue),
}

impl Redirect<'_> {
    /// The URL to redirect to.
    #[must_use]
    pub fn url(&self) -> &str {
        match self {
            Redirect::Location(_, l) => l.href(),
            Redirect::Url(v) => v.as_text().unwrap_or_default(),
        }
    }

    /// The value it came from.
    #[must_use]
    pub fn value(&self) -> &HandleValue {
        match self {
            Redirect::Location(v, _) | Redirect::Url(v) => v,
        }
    }
}

impl Response {
    /// The response with only the values `filter` selects (R4), as the proxy answers
    /// `?type=…&index=…`: code 200 (values not found) when none is left.
    #[must_use]
    pub fn filtered(&self, filter: &Filter) -> Self {
        let mut out = self.clone();
        if let Some(values) = &mut out.values {
            values.retain(|v| filter.selects(v));
            if values.is_empty() && out.code == ResponseCode::Success {
                out.code = ResponseCode::ValuesNotFound;
            }
        }
        out
    }

    /// The handle an `HS_ALIAS` value names, which the proxy resolves instead (unless asked
    /// to ignore aliases): the first such value whose text is a handle.
    #[must_use]
    pub fn alias(&self) -> Option<Handle> {
        self.values()
            .iter()
            .filter(|v| v.value_type.eq_ignore_ascii_case(ALIAS_TYPE))
            .find_map(|v| Handle::parse(v.as_text()?.trim()).ok())
    }

    /// The `10320/loc` values, read (L1). A type is matched without ASCII case, as a filter
    /// matches it (R4).
    ///
    /// # Errors
    ///
    /// The first value whose XML is not a `<locations>` value, with its path.
    pub fn locations(&self) -> Result<Vec<(&HandleValue, Locations)>, RecordError> {
        self.values()
            .iter()
            .enumerate()
            .filter(|(_, v)| v.has_type(LOC_TYPE))
            .filter_map(|(i, v)| v.as_text().map(|xml| (i, v, xml)))
            .map(|(i, v, xml)| {
                Locations::parse(xml)
                    .map(|l| (v, l))
                    .map_err(|e| e.within(&alloc::format!("values[{i}].data.value")))
            })
            .collect()
    }

    /// The `10320/loc` values that read, in order. One that does not is passed over, as
    /// the reference proxy passes over a value its XML reader gives nothing for: the
    /// handle's other values still redirect ([`Response::locations`] says what is wrong).
    fn readable_locations(&self) -> impl Iterator<Item = (&HandleValue, Locations)> {
        self.values()
            .iter()
            .filter(|v| v.has_type(LOC_TYPE))
            .filter_map(|v| Some((v, Locations::parse(v.as_text()?).ok()?)))
    }

    /// Where the proxy redirects `client` (PROXY §1, L2–L4): a location chosen from the
    /// `10320/loc` values that read, in their order, when one of them has any; else one of
    /// the URL values at random; `None` when there is neither, and the proxy shows the
    /// values.
    #[must_use]
    pub fn redirect(
        &self,
        client: &ClientContext,
        random: &mut impl RandomSource,
    ) -> Option<Redirect<'_>> {
        for (value, locations) in self.readable_locations() {
            if let Some(l) = locations.choose(client, random) {
                return Some(Redirect::Location(value, l.clone()));
            }
        }
        let urls: Vec<&HandleValue> = self
            .values()
            .iter()
            .filter(|v| v.has_type(URL_TYPE) && v.as_text().is_some())
            .collect();
        match urls.len() {
            0 => None,
            n => Some(Redirect::Url(urls[random.below(n)])),
        }
    }

    /// What `action=showurls` answers: every location of the `10320/loc` values that
    /// read, or, when there are none, the URL values as locations, as one `<locations>`
    /// document.
    #[must_use]
    pub fn show_urls(&self) -> String {
        let mut all: Option<Locations> = None;
        for (_, l) in self.readable_locations() {
            match &mut all {
                Some(a) => a.extend(l),
                None => all = Some(l),
            }
        }
        let all = all.unwrap_or_else(|| {
            Locations::of_urls(
                self.values()
                    .iter()
                    .filter(|v| v.has_type(URL_TYPE))
                    .filter_map(HandleValue::as_text),
            )
        });
        all.to_xml()
    }

    /// Where the reference proxy redirects `client` (PROXY §1, L5): with `10320/loc` values
    /// that read, one location chosen from all of their locations together, beside which
    /// the URL values stand as locations of weight 0 (`mode="legacy"`); without, the first
    /// `URL` value, else the first of its subtypes. `None` when there is nowhere to go.
    /// The locations of other handles (L9) are those `linked` holds (see
    /// [`Response::linked_wanted`]).
    #[must_use]
    pub fn proxy_redirect(
        &self,
        client: &ClientContext,
        random: &mut impl RandomSource,
        linked: &Linked,
    ) -> Option<ProxyRedirect> {
        match self.expand(&mut Walk::new(linked)) {
            Some(expanded) => {
                let locations = &expanded.all;
                let chosen = locations
                    .choose_as_proxy(client, random)
                    .filter(|l| !l.href().is_empty())?;
                let (headers, page_head) = self.redirect_headers(&expanded);
                let used = &expanded.used;
                Some(ProxyRedirect {
                    url: chosen.href().into(),
                    status: location_status(locations, chosen),
                    vary_accept: locations.locations().iter().any(|l| {
                        l.attribute("http_role")
                            .is_some_and(|r| r.contains("conneg"))
                    }),
                    ttls: used.iter().filter_map(|v| v.ttl().cloned()).collect(),
                    headers,
                    page_head,
                })
            }
            None => {
                let v = self.legacy_url()?;
                Some(ProxyRedirect {
                    url: v.as_text()?.into(),
                    status: 302,
                    vary_accept: false,
                    ttls: v.ttl().cloned().into_iter().collect(),
                    headers: Vec::new(),
                    page_head: Vec::new(),
                })
            }
        }
    }

    /// Every location the reference proxy may redirect `client` to, each with its chance
    /// (L5, L7): the locations [`Response::proxy_redirect`] picks from, by the same
    /// selection, in their order; without `10320/loc` values, the one `URL` value it
    /// redirects to. `None` when there is nowhere to go; empty when the selection leaves
    /// nothing (a `score` where every location scores below 0).
    #[must_use]
    pub fn proxy_candidates(
        &self,
        client: &ClientContext,
        linked: &Linked,
    ) -> Option<Vec<ProxyCandidate>> {
        match self.expand(&mut Walk::new(linked)).map(|e| e.all) {
            Some(locations) => Some(
                locations
                    .candidates_as_proxy(client)
                    .into_iter()
                    .map(|(l, p)| ProxyCandidate {
                        url: Some(l.href()).filter(|h| !h.is_empty()).map(String::from),
                        probability: p,
                        status: location_status(&locations, l),
                    })
                    .collect(),
            ),
            None => {
                let v = self.legacy_url()?;
                Some(alloc::vec![ProxyCandidate {
                    url: Some(v.as_text()?.into()),
                    probability: 1.0,
                    status: 302,
                }])
            }
        }
    }

    /// What the reference proxy's `action=showurls` lists (L5): every location of the
    /// `10320/loc` values that read, with the URL values after them as `mode="legacy"`
    /// locations; without such values, the URL values (the first of weight 1, the others
    /// 0; their subtypes only when there is no plain `URL`). `None` when there is no
    /// location at all (the proxy shows the values instead).
    #[must_use]
    pub fn proxy_show_urls(&self, linked: &Linked) -> Option<String> {
        if let Some(expanded) = self.expand(&mut Walk::new(linked)) {
            return Some(expanded.all.to_xml_as_proxy());
        }
        let plain = self
            .values()
            .iter()
            .any(|v| v.value_type.eq_ignore_ascii_case(URL_TYPE));
        let mut all = Locations::empty();
        let mut first = true;
        for v in self.values() {
            let fits = if plain {
                v.value_type.eq_ignore_ascii_case(URL_TYPE)
            } else {
                is_type_or_subtype(&v.value_type, URL_TYPE)
            };
            if let (true, Some(href)) = (fits, v.as_text()) {
                all.push_legacy(href, if first { 1.0 } else { 0.0 });
                first = false;
            }
        }
        (!first).then(|| all.to_xml_as_proxy())
    }

    /// The first `URL` value, else the first of its subtypes.
    fn legacy_url(&self) -> Option<&HandleValue> {
        let urls = || self.values().iter().filter(|v| v.as_text().is_some());
        urls()
            .find(|v| v.value_type.eq_ignore_ascii_case(URL_TYPE))
            .or_else(|| urls().find(|v| is_type_or_subtype(&v.value_type, URL_TYPE)))
    }

    /// The headers a redirect carries besides its target (L8), and the lines of its page's
    /// head: each `10320/headers` value's lines, then a `Link` for each link of the
    /// `10320/links` values and each location with `rel` of the `10320/loc` values, the
    /// handle's own, then those it includes and its namespace's (L9).
    fn redirect_headers(&self, expanded: &Expanded<'_>) -> (Vec<(String, String)>, Vec<String>) {
        let handle = self.handle.as_ref().map_or("", Handle::as_str);
        let (mut fields, mut head, mut links) = (Vec::new(), Vec::new(), Vec::new());
        for text in &expanded.headers {
            header_lines(text, handle, &mut fields, &mut head);
        }
        // (A value without `rel` anywhere has no link: its XML is not read again.)
        for xml in &expanded.links {
            if xml.contains("rel") {
                link_headers(xml, handle, &mut links);
            }
        }
        fields.extend(links.into_iter().map(|l| (String::from("Link"), l)));
        (fields, head)
    }

    /// The handles a choice among this record's locations would read that `linked` does
    /// not hold yet (L9): those its `<locations>` include or name, and the handle of its
    /// prefix (for its namespace), at most [`MAX_LINKED`](super::linked::MAX_LINKED) in
    /// all. Look them up, add them to `linked`, and ask again until none is left.
    #[must_use]
    pub fn linked_wanted(&self, linked: &Linked) -> Vec<String> {
        let typed = |v: &&HandleValue| {
            [LOC_TYPE, LINKS_TYPE, HEADERS_TYPE]
                .iter()
                .any(|t| is_type_or_subtype(&v.value_type, t))
        };
        let mut texts = self.values().iter().filter(typed).peekable();
        if texts.peek().is_none() {
            return Vec::new();
        }
        // Most records name no other handle: then only the namespace is wanted, known
        // without reading their XML (the walk reads it, and the choice once more). (A
        // location value that does not read may have its prefix's handle asked for where
        // the walk would not: one look-up more, no other difference.)
        let names_none = !texts.any(|v| {
            v.as_text().is_some_and(|t| {
                ["include", "nshdl", "overridePrefix", "no_nslocs"]
                    .iter()
                    .any(|w| t.contains(w))
            })
        });
        let prefix = self.handle.as_ref().and_then(|h| prefix_handle(h.as_str()));
        if let (true, Some(prefix)) = (names_none, prefix) {
            match linked.values(&prefix) {
                None if !linked.holds(&prefix) => return alloc::vec![prefix],
                Some(values)
                    if values
                        .iter()
                        .any(|v| v.value_type.eq_ignore_ascii_case(NAMESPACE_TYPE)) => {}
                _ => return Vec::new(),
            }
        }
        let mut walk = Walk::new(linked);
        let _ = self.expand(&mut walk);
        walk.wanted
    }

    /// The locations the reference proxy chooses among (L5, L7, L9): the handle's own
    /// `10320/loc` locations, those of the handles they include, the URL values as legacy
    /// locations, then its namespace's; with the values they came from and the headers
    /// and links the redirect carries. `None` when no `10320/loc` value reads, there is no
    /// `10320/links` or `10320/headers` value, and the namespace adds nothing (L8: with
    /// one, the URL values are the locations, a plain `URL` of weight 1 by default).
    fn expand<'s>(&'s self, walk: &mut Walk<'s>) -> Option<Expanded<'s>> {
        let values = self.values();
        let own = found_in(values);
        let typed = !own.loc.is_empty() || !own.links.is_empty() || !own.headers.is_empty();
        let mut settings = Settings::default();
        for (_, _, l) in &own.loc {
            settings.adjust(l);
        }
        let mut included = Found::default();
        walk.includes(&own.loc, &mut included, &mut settings, 0);
        let local_headers = !(own.links.is_empty()
            && own.headers.is_empty()
            && included.links.is_empty()
            && included.headers.is_empty());
        // The namespace is read for a handle with location values only (L9).
        let (mut ns, mut ns_included) = (Found::default(), Found::default());
        if typed && settings.no_nslocs != Some(true) {
            let prefix = self.handle.as_ref().and_then(|h| prefix_handle(h.as_str()));
            ns = walk.namespace(prefix.as_deref(), &own.loc, &settings);
            for (_, _, l) in &ns.loc {
                settings.adjust(l);
            }
            walk.includes(&ns.loc, &mut ns_included, &mut settings, 0);
        }
        let ns_locations = ns.loc.iter().chain(&ns_included.loc);
        if !typed
            && ns_locations
                .clone()
                .all(|(_, _, l)| l.locations().is_empty())
        {
            return None;
        }
        let mut used: Vec<&HandleValue> = Vec::new();
        let mut all: Option<Locations> = None;
        for (v, _, l) in own.loc.iter().chain(&included.loc) {
            used.push(v);
            match &mut all {
                Some(a) => a.extend(l.clone()),
                None => all = Some(l.clone()),
            }
        }
        // (A plain `URL` weighs 1 by default when the handle has no `<locations>` of its own.)
        let default_weight = if own.loc.is_empty() { 1.0 } else { 0.0 };
        let mut all = all.unwrap_or_else(Locations::empty);
        // The attributes of `<locations>` are the handle's own, else its namespace's.
        for (_, _, l) in own.loc.iter().skip(1).chain(&ns.loc) {
            all.inherit_attributes(l);
        }
        used.extend(own.others.iter().chain(&included.others));
        // The URL values join as locations (L7): `no_legacy` leaves them out; `urlWeight`
        // weighs a plain `URL`, `urlSubtypeWeight` its subtypes, 0 by default; without a
        // plain `URL`, the subtypes weigh `urlWeight` (the reference's `extractLegacyURLs`).
        if settings.no_legacy != Some(true) {
            let has_plain = values
                .iter()
                .any(|v| v.value_type.eq_ignore_ascii_case(URL_TYPE));
            let plain = settings.url_weight.unwrap_or(default_weight);
            let subtype = if has_plain {
                settings.url_subtype_weight.unwrap_or(0.0)
            } else {
                plain
            };
            for v in values {
                if is_type_or_subtype(&v.value_type, URL_TYPE) {
                    if let Some(href) = v.as_text() {
                        let w = if v.value_type.eq_ignore_ascii_case(URL_TYPE) {
                            plain
                        } else {
                            subtype
                        };
                        all.push_legacy(href, w);
                        used.push(v);
                    }
                }
            }
        }
        for (v, _, l) in ns_locations {
            used.push(v);
            all.extend(l.clone());
        }
        if let Some(handle) = &self.handle {
            all.apply_templates(handle.as_str());
        }
        // Headers and links: the handle's own (every value of their types, as L8 reads
        // them), those it includes, then its namespace's unless suppressed.
        let of_type = |t: &'static str| {
            values
                .iter()
                .filter(move |v| is_type_or_subtype(&v.value_type, t))
                .filter_map(HandleValue::as_text)
        };
        let mut headers: Vec<&str> = of_type(HEADERS_TYPE).chain(included.headers).collect();
        let mut links: Vec<&str> = of_type(LINKS_TYPE).chain(included.links).collect();
        let mut loc_links: Vec<&str> = of_type(LOC_TYPE).chain(included.loc_links).collect();
        if !suppress_ns_headers(&settings, local_headers) {
            loc_links.extend(ns.loc.iter().map(|(_, xml, _)| *xml));
            links.extend(ns.links);
            headers.extend(ns.headers);
            loc_links.extend(ns_included.loc_links);
            links.extend(ns_included.links);
            headers.extend(ns_included.headers);
            used.extend(ns.others.iter().chain(&ns_included.others));
        }
        links.extend(loc_links);
        Some(Expanded {
            all,
            used,
            headers,
            links,
        })
    }
}

/// The locations a choice is made among, and what else it reads (L5, L7–L9).
struct Expanded<'s> {
    all: Locations,
    /// The values they came from (the redirect expires with the first of them).
    used: Vec<&'s HandleValue>,
    /// `10320/headers` texts, in order.
    headers: Vec<&'s str>,
    /// `10320/links` texts, then the `10320/loc` XML whose locations with `rel` are links.
    links: Vec<&'s str>,
}

impl Response {
    /// The record as the reference server holds and writes it (R6): data that is UTF-8
    /// text without control characters (but white space) is `string` whatever format it
    /// was given in, other bytes are `base64`; a timestamp of 0 and the usual permissions
    /// (`1110`) are left out. `admin`, `vlist`, `site` and other formats stay as they are.
    #[must_use]
    pub fn as_reference_writes(&self) -> Self {
        let mut out = self.clone();
        if let Some(values) = &mut out.values {
            for v in values {
                let bytes: Option<&[u8]> = match &v.data {
                    Data::String(s) => Some(s.as_bytes()),
                    Data::Base64 { bytes, .. } | Data::Hex { bytes, .. } => Some(bytes),
                    _ => None,
                };
                if let Some(bytes) = bytes {
                    let text = core::str::from_utf8(bytes).ok().filter(|t| {
                        !t.bytes()
                            .any(|b| (b < 0x20 && !(0x09..=0x13).contains(&b)) || b == 0x7f)
                    });
                    let data = match text {
                        Some(t) => Data::String(t.into()),
                        None => Data::Base64 {
                            bytes: bytes.to_vec(),
                            text: super::json::base64(bytes),
                        },
                    };
                    v.data = data;
                }
                if v.timestamp.as_deref().is_some_and(is_epoch) {
                    v.timestamp = None;
                }
                if v.permissions.as_deref() == Some("1110") {
                    v.permissions = None;
                }
            }
        }
        out
    }
}

/// An ISO 8601 time that is the Unix epoch (the reference's timestamp 0).
fn is_epoch(t: &str) -> bool {
    matches!(
        t,
        "1970-01-01T00:00:00Z" | "1970-01-01T00:00:00.000Z" | "1970-01-01T00:00:00+00:00"
    )
}

/// A location the reference proxy may redirect a client to, and the chance that it does.
#[derive(Clone, Debug, PartialEq)]
pub struct ProxyCandidate {
    /// The URL (after `href_template`, before `urlappend`); `None` for a location without
    /// one, which is never redirected to (a pick of it shows the values instead).
    pub url: Option<String>,
    /// The chance of this pick, 0 to 1.
    pub probability: f64,
    /// The status of a redirect to it (as [`ProxyRedirect::status`]).
    pub status: u16,
}

/// A redirect as the reference proxy sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProxyRedirect {
    /// The URL, as the value holds it (not yet encoded for a header).
    pub url: String,
    /// The HTTP status: 302, or the `http_sc` of the location or of its `<locations>`
    /// (301, 303, 307, 308).
    pub status: u16,
    /// Some location does content negotiation (`http_role` holding `conneg`): the answer
    /// varies with `Accept`.
    pub vary_accept: bool,
    /// The times to live of the values used (the redirect expires at the earliest).
    pub ttls: Vec<Ttl>,
    /// Headers besides `Location`, in order (L8): `10320/headers` lines, then `Link`s.
    pub headers: Vec<(String, String)>,
    /// Lines of `10320/headers` values that go into the redirect page's head (L8).
    pub page_head: Vec<String>,
}

/// The status of a redirect to `l`: its `http_sc`, else its `<locations>`'s.
fn location_status(locations: &Locations, l: &Location) -> u16 {
    redirect_status(
        l.attribute("http_sc")
            .or_else(|| locations.attribute("http_sc")),
    )
}

/// The status an `http_sc` asks for: 301, 302, 303, 307 or 308; anything else is 302.
fn redirect_status(http_sc: Option<&str>) -> u16 {
    match http_sc.map(str::trim) {
        Some("301") => 301,
        Some("303") => 303,
        Some("307") => 307,
        Some("308") => 308,
        _ => 302,
    }
}
