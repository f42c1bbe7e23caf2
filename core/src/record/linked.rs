//! Locations from other handles (L9). The reference proxy adds to a handle's `10320/loc`
//! locations those of the handles its `<locations>` name (`include`, `includeNamespace`,
//! `nshdl`, `overridePrefix`), and those its prefix's namespace names (`<locs>` in the
//! `HS_NAMESPACE` value of the prefix's handle `0.NA/<prefix>`). The walk here runs over
//! values already looked up, in a [`Linked`], and says which handles it still needs: the
//! looking up is the caller's (a store, a resolver), so that choosing does no I/O.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::links::{HEADERS_TYPE, LINKS_TYPE};
use super::loc::{
    element_name, linked_text, parse_java_double, read_as_reference, Locations, LOC_TYPE,
};
use super::value::{is_type_or_subtype, HandleValue};

/// The type of a prefix handle's value that describes its namespace.
pub const NAMESPACE_TYPE: &str = "HS_NAMESPACE";

/// How deep `include` and `includeNamespace` are followed: the reference's bound.
pub const MAX_INCLUDE_DEPTH: usize = 20;

/// How many other handles one choice reads at most (L9: each is a look-up, and a record
/// must not make the server ask for more than this; the reference has no such bound).
pub const MAX_LINKED: usize = 32;

/// How many values of other handles one choice reads at most (L9: a handle may include
/// itself several times over, and each level multiplies what the one before read).
pub const MAX_LINKED_VALUES: usize = 256;

/// Other handles' values, as far as they were looked up for one choice.
#[derive(Clone, Debug, Default)]
pub struct Linked {
    handles: BTreeMap<String, Option<Vec<HandleValue>>>,
}

impl Linked {
    /// Nothing looked up yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `handle`'s values, as looked up: `None` when it does not resolve (or its look-up
    /// failed: the reference passes over either).
    pub fn insert(&mut self, handle: &str, values: Option<Vec<HandleValue>>) {
        self.handles.insert(handle.to_string(), values);
    }

    /// `handle`'s values, if it was looked up and resolves.
    #[must_use]
    pub fn values(&self, handle: &str) -> Option<&[HandleValue]> {
        self.handles.get(handle)?.as_deref()
    }

    /// Whether `handle` was looked up.
    #[must_use]
    pub fn holds(&self, handle: &str) -> bool {
        self.handles.contains_key(handle)
    }

    /// How many handles were looked up.
    #[must_use]
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    /// Whether none was.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.handles.is_empty()
    }
}

/// The walk over the links: what it read, and what it wanted and did not find in
/// [`Linked`] (at most [`MAX_LINKED`] handles in all).
pub(crate) struct Walk<'a> {
    linked: &'a Linked,
    pub(crate) wanted: Vec<String>,
    /// Values read so far, at most [`MAX_LINKED_VALUES`].
    read: usize,
}

impl<'a> Walk<'a> {
    pub(crate) fn new(linked: &'a Linked) -> Self {
        Self {
            linked,
            wanted: Vec::new(),
            read: 0,
        }
    }

    /// `handle`'s values, if they were looked up and it resolves.
    fn values(&mut self, handle: &str) -> Option<&'a [HandleValue]> {
        match self.linked.handles.get(handle) {
            Some(values) => values.as_deref(),
            None => {
                if self.linked.len() + self.wanted.len() < MAX_LINKED
                    && !self.wanted.iter().any(|w| w == handle)
                {
                    self.wanted.push(handle.to_string());
                }
                None
            }
        }
    }
}

/// One `10320/loc` value read: the value, its XML and its locations.
pub(crate) type LocValue<'a> = (&'a HandleValue, &'a str, Locations);

/// What some handles hold for the proxy (the reference's `HandleLocationInfo`): their
/// `10320/loc` values that read, and the text of their `10320/links` and `10320/headers`.
#[derive(Default)]
pub(crate) struct Found<'a> {
    pub(crate) loc: Vec<LocValue<'a>>,
    /// The XML whose locations with `rel` are links, in the reference's order.
    pub(crate) loc_links: Vec<&'a str>,
    pub(crate) links: Vec<&'a str>,
    pub(crate) headers: Vec<&'a str>,
    /// The links and headers values (for their times to live).
    pub(crate) others: Vec<&'a HandleValue>,
}

impl<'a> Found<'a> {
    fn any(&self) -> bool {
        !(self.loc.is_empty() && self.links.is_empty() && self.headers.is_empty())
    }

    fn append(&mut self, other: Found<'a>) {
        self.loc.extend(other.loc);
        self.loc_links.extend(other.loc_links);
        self.links.extend(other.links);
        self.headers.extend(other.headers);
        self.others.extend(other.others);
    }
}

/// The settings the `<locations>` elements give, each from the first that has it, in the
/// order the reference reads them: the handle's own, those it includes, its namespace's.
#[derive(Default)]
pub(crate) struct Settings {
    pub(crate) no_legacy: Option<bool>,
    pub(crate) no_nslocs: Option<bool>,
    pub(crate) url_weight: Option<f64>,
    pub(crate) url_subtype_weight: Option<f64>,
    suppress_ns_headers: Option<bool>,
    suppress_ns_headers_if_local: Option<bool>,
    override_prefixes: Vec<String>,
}

impl Settings {
    pub(crate) fn adjust(&mut self, locations: &Locations) {
        let flag = |slot: &mut Option<bool>, name: &str| {
            if slot.is_none() {
                *slot = locations.attribute(name).map(is_true);
            }
        };
        flag(&mut self.no_nslocs, "no_nslocs");
        flag(&mut self.no_legacy, "no_legacy");
        flag(&mut self.suppress_ns_headers, "suppressNsHeaders");
        flag(
            &mut self.suppress_ns_headers_if_local,
            "suppressNsHeadersIfLocalHeaders",
        );
        let number = |slot: &mut Option<f64>, name: &str| {
            if slot.is_none() {
                *slot = locations
                    .attribute(name)
                    .map(|t| parse_java_double(t).unwrap_or(0.0));
            }
        };
        number(&mut self.url_weight, "urlWeight");
        number(&mut self.url_subtype_weight, "urlSubtypeWeight");
        if let Some(p) = locations.attribute("overridePrefix") {
            self.override_prefixes.push(p.to_string());
        }
    }

    fn adjust_all(&mut self, loc: &[LocValue<'_>]) {
        for (_, _, l) in loc {
            self.adjust(l);
        }
    }
}

/// A boolean attribute as the reference reads one (`XTag.getBoolAttribute`): `true`,
/// `yes` or `1`, in any case.
pub(crate) fn is_true(value: &str) -> bool {
    ["true", "yes", "1"]
        .iter()
        .any(|t| value.eq_ignore_ascii_case(t))
}

/// The values' `10320/loc` (that read), `10320/links` and `10320/headers` (the
/// reference's `resolveLocations`).
pub(crate) fn found_in(values: &[HandleValue]) -> Found<'_> {
    let mut found = Found::default();
    for v in values {
        let Some(text) = v.as_text() else { continue };
        if is_type_or_subtype(&v.value_type, LOC_TYPE) {
            if let Ok(l) = Locations::parse_as_proxy(text) {
                found.loc.push((v, text, l));
            }
        } else if is_type_or_subtype(&v.value_type, LINKS_TYPE) {
            found.links.push(text);
            found.others.push(v);
        } else if is_type_or_subtype(&v.value_type, HEADERS_TYPE) {
            found.headers.push(text);
            found.others.push(v);
        }
    }
    found
}

impl<'a> Walk<'a> {
    /// What the handles hold, together (`resolveLocationsForMultipleHandles`).
    fn of_handles<'h>(&mut self, handles: impl IntoIterator<Item = &'h str>) -> Found<'a> {
        let mut all = Found::default();
        for h in handles {
            if self.read >= MAX_LINKED_VALUES {
                break;
            }
            if let Some(values) = self.values(h) {
                let found = found_in(values);
                self.read += found.loc.len() + found.links.len() + found.headers.len();
                all.append(found);
            }
        }
        all
    }

    /// The `<locs>` handles of the namespace of the handle whose values are `values`: its
    /// `HS_NAMESPACE` value of the lowest index that reads (`Util.getNamespaceFromValues`).
    fn namespace_handles(values: &[HandleValue]) -> Vec<String> {
        let mut best: Option<(u32, Vec<String>)> = None;
        for v in values {
            if !v.value_type.eq_ignore_ascii_case(NAMESPACE_TYPE) {
                continue;
            }
            let Some(xml) = v.as_text().filter(|t| !t.is_empty()) else {
                continue;
            };
            if best.as_ref().is_some_and(|(i, _)| *i <= v.index) {
                continue;
            }
            if let Some(locs) = namespace_locs(xml) {
                best = Some((v.index, locs));
            }
        }
        best.map(|(_, l)| l).unwrap_or_default()
    }

    /// What the namespaces these handles describe name (`resolveLocationsViaNamespace`).
    fn via_namespaces<'h>(&mut self, handles: impl IntoIterator<Item = &'h str>) -> Found<'a> {
        let mut all = Found::default();
        for h in handles {
            if let Some(values) = self.values(h) {
                let locs = Self::namespace_handles(values);
                all.append(self.of_handles(locs.iter().map(String::as_str)));
            }
        }
        all
    }

    /// `include` and `includeNamespace` of `loc`, followed to [`MAX_INCLUDE_DEPTH`]
    /// (`processIncludes`): what they hold added to `into`, settings adjusted. As the
    /// reference lists them, a level's locations come before the next level's, and its
    /// links and headers after.
    pub(crate) fn includes(
        &mut self,
        loc: &[LocValue<'_>],
        into: &mut Found<'a>,
        settings: &mut Settings,
        depth: usize,
    ) {
        if depth > MAX_INCLUDE_DEPTH {
            return;
        }
        let mut level = Found::default();
        for (_, _, l) in loc {
            let ns = self.via_namespaces(l.linked("includeNamespace"));
            level.append(ns);
            let inc = self.of_handles(l.linked("include"));
            level.append(inc);
        }
        if !level.any() {
            return;
        }
        settings.adjust_all(&level.loc);
        let mut deeper = Found::default();
        self.includes(&level.loc, &mut deeper, settings, depth + 1);
        into.loc_links.extend(deeper.loc_links);
        into.loc_links
            .extend(level.loc.iter().map(|(_, xml, _)| *xml));
        into.links.extend(deeper.links);
        into.links.extend(level.links);
        into.headers.extend(deeper.headers);
        into.headers.extend(level.headers);
        into.others.extend(deeper.others);
        into.others.extend(level.others);
        into.loc.extend(level.loc);
        into.loc.extend(deeper.loc);
    }

    /// The namespace's locations (`resolveNamespaceLocations`): those of `overridePrefix`
    /// namespaces; else those the namespace of the prefix's handle names; else those of
    /// the `nshdl` handles of the handle's own `<locations>`.
    pub(crate) fn namespace(
        &mut self,
        prefix_handle: Option<&str>,
        own: &[LocValue<'_>],
        settings: &Settings,
    ) -> Found<'a> {
        if !settings.override_prefixes.is_empty() {
            let prefixes = settings.override_prefixes.clone();
            return self.via_namespaces(prefixes.iter().map(String::as_str));
        }
        let mut handles = prefix_handle
            .and_then(|p| self.values(p))
            .map(Self::namespace_handles)
            .unwrap_or_default();
        if handles.is_empty() {
            handles = own
                .iter()
                .filter_map(|(_, _, l)| l.attribute("nshdl"))
                .map(ToString::to_string)
                .collect();
        }
        self.of_handles(handles.iter().map(String::as_str))
    }
}

/// Whether the namespace's headers are left out (`suppressNsHeaders`, or
/// `suppressNsHeadersIfLocalHeaders` when the handle has its own).
pub(crate) fn suppress_ns_headers(settings: &Settings, local_headers: bool) -> bool {
    settings.suppress_ns_headers == Some(true)
        || (local_headers && settings.suppress_ns_headers_if_local == Some(true))
}

/// The `<locs>` texts of a namespace's XML (`NamespaceInfo.getLocationTemplateHandles`,
/// this namespace only); `None` when it does not read.
fn namespace_locs(xml: &str) -> Option<Vec<String>> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: 10_000,
    };
    let mut written = None;
    let (xml, doc) = read_as_reference(xml, options, &mut written).ok()?;
    Some(
        doc.root_element()
            .children()
            .filter(|n| n.is_element() && element_name(xml, *n) == "locs")
            .filter_map(|n| linked_text(n).map(str::to_string))
            .collect(),
    )
}

/// The handle of the prefix of `handle` (`0.NA/<prefix>`), whose namespace it is in.
pub(crate) fn prefix_handle(handle: &str) -> Option<String> {
    let (prefix, _) = handle.split_once('/')?;
    (!prefix.eq_ignore_ascii_case("0.NA") && !prefix.is_empty())
        .then(|| alloc::format!("0.NA/{prefix}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{ClientContext, Response};

    fn record(handle: &str, loc: &str) -> Response {
        let json = serde_json::json!({"responseCode": 1, "handle": handle, "values": [
            {"index": 1, "type": "10320/loc", "data": {"format": "string", "value": loc}}]});
        Response::parse(&json.to_string()).unwrap()
    }

    /// Asks for what `record` wants until it wants nothing, answering every handle with
    /// `values`; the number of rounds.
    fn fill(record: &Response, linked: &mut Linked, values: &[HandleValue]) -> usize {
        let mut rounds = 0;
        loop {
            let wanted = record.linked_wanted(linked);
            if wanted.is_empty() {
                return rounds;
            }
            rounds += 1;
            for h in wanted {
                linked.insert(&h, Some(values.to_vec()));
            }
        }
    }

    #[test]
    fn a_handle_that_includes_itself_three_times_over_reads_a_bounded_number_of_values() {
        let r = record(
            "20.1000/x",
            r#"<locations include="20.1000/x" no_nslocs="true"><include>20.1000/x</include><include>20.1000/x</include><location href="http://x.example/"/></locations>"#,
        );
        let mut linked = Linked::new();
        assert_eq!(fill(&r, &mut linked, r.values()), 1);
        let candidates = r.proxy_candidates(&ClientContext::new(), &linked).unwrap();
        // 3^20 copies unbounded; here the own location and MAX_LINKED_VALUES more at most.
        assert!(
            candidates.len() <= MAX_LINKED_VALUES + 1,
            "{}",
            candidates.len()
        );
        assert!(candidates.len() > 100);
    }

    #[test]
    fn at_most_max_linked_handles_are_asked_for() {
        let includes: String = (0..100)
            .map(|i| alloc::format!("<include>20.1000/{i}</include>"))
            .collect();
        let r = record(
            "20.1000/x",
            &alloc::format!(
                "<locations>{includes}<location href=\"http://x.example/\"/></locations>"
            ),
        );
        let mut linked = Linked::new();
        fill(&r, &mut linked, &[]);
        assert_eq!(linked.len(), MAX_LINKED);
        // The includes in order, as the reference reads them (the namespace after them,
        // and here past the bound).
        assert!(
            (0..MAX_LINKED).all(|i| linked.handles.contains_key(&alloc::format!("20.1000/{i}")))
        );
        assert!(!linked.handles.contains_key("0.NA/20.1000"));
    }

    /// The short cut for a record that names no handle wants what the walk wants.
    #[test]
    fn a_record_that_names_no_handle_wants_its_namespace_only() {
        let r = record(
            "20.1000/x",
            r#"<locations><location href="http://x.example/"/></locations>"#,
        );
        let mut linked = Linked::new();
        assert_eq!(r.linked_wanted(&linked), ["0.NA/20.1000"]);
        linked.insert("0.NA/20.1000", None);
        assert!(r.linked_wanted(&linked).is_empty());
        let ns = record(
            "0.NA/20.1000",
            r#"<locations><location href="http://ns.example/"/></locations>"#,
        );
        linked.insert("0.NA/20.1000", Some(ns.values().to_vec()));
        assert!(r.linked_wanted(&linked).is_empty(), "no HS_NAMESPACE");
        let json = serde_json::json!({"responseCode": 1, "handle": "0.NA/20.1000", "values": [
            {"index": 1, "type": "HS_NAMESPACE", "data": {"format": "string",
             "value": "<namespace><locs>20.1000/locs</locs></namespace>"}}]});
        let ns = Response::parse(&json.to_string()).unwrap();
        linked.insert("0.NA/20.1000", Some(ns.values().to_vec()));
        assert_eq!(r.linked_wanted(&linked), ["20.1000/locs"]);
        // A record without location values wants nothing.
        let plain = serde_json::json!({"responseCode": 1, "handle": "20.1000/x", "values": [
            {"index": 1, "type": "URL", "data": {"format": "string", "value": "http://x/"}}]});
        let plain = Response::parse(&plain.to_string()).unwrap();
        assert!(plain.linked_wanted(&Linked::new()).is_empty());
    }

    #[test]
    fn the_prefix_handle_of_a_handle() {
        assert_eq!(prefix_handle("10.1000/1").as_deref(), Some("0.NA/10.1000"));
        assert_eq!(prefix_handle("0.NA/10.1000"), None);
        assert_eq!(prefix_handle("no-slash"), None);
    }
}
