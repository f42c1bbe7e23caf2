//! `10320/loc` values (SPEC L1–L4): XML that lists several places to redirect to, and how
//! the proxy chooses among them for a client.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;
use core::net::IpAddr;
use core::str::FromStr;

use super::error::{RecordError, RecordErrorKind};
use super::lax::{Most, Unread};
use super::markup::escape_markup;
use super::random::RandomSource;

/// The type of the values that hold locations.
pub const LOC_TYPE: &str = "10320/loc";

/// The selection methods when `chooseby` is absent (L1).
const DEFAULT_CHOOSE_BY: &str = "locatt,address,country,score,weighted";

/// The most locations one value holds before it is refused (and XML nodes: ten per
/// location): a bound on the memory and time one value costs.
const MAX_LOCATIONS: usize = 10_000;

/// The children of `<locations>` that name other handles (L9).
const LINKED: [&str; 2] = ["include", "includeNamespace"];

/// The deepest nesting of elements read: a `<locations>` value is two levels deep, and the
/// XML reader recurses on depth (a deep document would exhaust the stack).
const MAX_DEPTH: usize = 64;

/// The most attributes an element may have: a location has a handful, and the XML reader
/// looks for each among those before it (time in the square of their number).
const MAX_ATTRIBUTES: usize = 256;

/// Where elements of well-formed XML first nest deeper than [`MAX_DEPTH`], or an element
/// has more than [`MAX_ATTRIBUTES`] attributes (each `=` outside quotes in a start tag),
/// if they do, and which: start and end tags counted, quoted attribute values, comments,
/// CDATA sections and processing instructions skipped. (Malformed XML is the reader's to
/// refuse.)
fn too_large(b: &[u8]) -> Option<(usize, String)> {
    let find = |from: usize, what: &[u8]| {
        b.get(from..)
            .and_then(|rest| memchr::memmem::find(rest, what))
            .map_or(b.len(), |i| from + i + what.len())
    };
    let mut depth = 0_usize;
    let mut i = 0;
    while let Some(k) = b
        .get(i..)
        .and_then(|r| memchr::memchr(b'<', r))
        .map(|k| i + k)
    {
        let rest = &b[k..];
        i = if rest.starts_with(b"<!--") {
            find(k + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            find(k + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            find(k + 2, b"?>")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            find(k + 2, b">")
        } else {
            // A start tag: to its '>', past quoted values; "/>" closes it at once.
            let mut j = k + 1;
            let mut quote = None;
            let mut attributes = 0;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, q @ (b'"' | b'\'')) => quote = Some(q),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    (None, b'=') => attributes += 1,
                    _ => {}
                }
                j += 1;
            }
            if attributes > MAX_ATTRIBUTES {
                return Some((k, format!("more than {MAX_ATTRIBUTES} attributes")));
            }
            if j > k + 1 && b[j - 1] != b'/' {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some((k, format!("elements nested deeper than {MAX_DEPTH} levels")));
                }
            }
            j + 1
        };
    }
    None
}

/// A selection method of `chooseby` (L2).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChooseBy {
    /// `locatt`: the locations whose attributes match the link's `locatt=key:value`.
    Locatt,
    /// `address`: the locations whose `addresses` hold the client's IP address.
    Address,
    /// `country`: the locations of the client's country, or else those of no country.
    Country,
    /// `score`: the locations of the highest `score`.
    Score,
    /// `weighted`: one location at random, by `weight`.
    Weighted,
    /// A method this crate does not know, kept and skipped.
    Other(String),
}

impl ChooseBy {
    fn parse(name: &str) -> Self {
        // The reference lower-cases each method's name (L7).
        match name.to_ascii_lowercase().as_str() {
            "locatt" => Self::Locatt,
            "address" => Self::Address,
            "country" => Self::Country,
            "score" => Self::Score,
            "weighted" => Self::Weighted,
            other => Self::Other(other.to_string()),
        }
    }

    /// The method's name, as `chooseby` writes it.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::Locatt => "locatt",
            Self::Address => "address",
            Self::Country => "country",
            Self::Score => "score",
            Self::Weighted => "weighted",
            Self::Other(name) => name,
        }
    }
}

/// One `<location>`: its attributes in document order; `href` is always there.
#[derive(Clone, Debug, PartialEq)]
pub struct Location {
    /// The element's name as written where it is not `location` (the reference's proxy
    /// takes `<Location>` and `<loc_template>` too, and lists them so: L5).
    element: Option<String>,
    attributes: Vec<(String, String)>,
    weight: f64,
    score: Option<f64>,
    networks: Vec<(IpAddr, u8)>,
}

impl Location {
    /// A location of these attributes, named as written, read as [`Locations::parse`]
    /// reads a `<location>` element that has them (L1).
    ///
    /// ```
    /// use handle_id::record::Location;
    /// let a = |n: &str, v: &str| (n.to_string(), v.to_string());
    /// let l = Location::from_attributes(vec![a("href", "http://example.org/"), a("weight", "0.5")])?;
    /// assert_eq!((l.href(), l.weight()), ("http://example.org/", 0.5));
    /// assert!(Location::from_attributes(vec![a("weight", "2")]).is_err());
    /// # Ok::<(), handle_id::record::RecordError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`RecordError`] at `attribute NAME` for a name that is not an XML attribute's
    /// (a namespace declaration included) or is given twice, and as [`Locations::parse`]
    /// for the values: no `href`, a `weight` that is not a number from 0 to 1, and so on.
    pub fn from_attributes(attributes: Vec<(String, String)>) -> Result<Self, RecordError> {
        for (i, (name, _)) in attributes.iter().enumerate() {
            let refuse = |message: &str| {
                Err(RecordError::new(
                    RecordErrorKind::Locations,
                    format!("attribute {name:?}"),
                    format!("{message} (SPEC L1)"),
                ))
            };
            if attributes[..i].iter().any(|(n, _)| n == name) {
                return refuse("an attribute given twice");
            }
            if !is_attribute_name(name) {
                return refuse("not the name of an XML attribute");
            }
        }
        read_location(attributes, false)
            .map_err(|m| RecordError::new(RecordErrorKind::Locations, "location", m))
    }

    /// Where to redirect.
    #[must_use]
    pub fn href(&self) -> &str {
        self.attribute("href").unwrap_or_default()
    }

    /// The attribute `name`, as written.
    #[must_use]
    pub fn attribute(&self, name: &str) -> Option<&str> {
        attribute(&self.attributes, name)
    }

    /// Every attribute, in document order.
    #[must_use]
    pub fn attributes(&self) -> &[(String, String)] {
        &self.attributes
    }

    /// The weight, 0 to 1 (1 when not given).
    #[must_use]
    pub fn weight(&self) -> f64 {
        self.weight
    }

    /// The score, when given.
    #[must_use]
    pub fn score(&self) -> Option<f64> {
        self.score
    }

    /// The `id` attribute.
    #[must_use]
    pub fn id(&self) -> Option<&str> {
        self.attribute("id")
    }

    /// The `country` attribute.
    #[must_use]
    pub fn country(&self) -> Option<&str> {
        self.attribute("country")
    }

    /// Whether `ip` is in one of the location's `addresses` ranges.
    #[must_use]
    pub fn serves(&self, ip: IpAddr) -> bool {
        self.networks
            .iter()
            .any(|&(net, bits)| in_network(ip, net, bits))
    }
}

/// Whether `ip` is in `net/bits` (same address family only).
fn in_network(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let (a, b, width) = match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => (
            u128::from(u32::from(a)) << 96,
            u128::from(u32::from(b)) << 96,
            32,
        ),
        (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), 128),
        _ => return false,
    };
    let bits = u32::from(bits.min(width));
    if bits == 0 {
        return true;
    }
    let mask = u128::MAX << (128 - bits);
    a & mask == b & mask
}

/// Whether `ip` is in `net/bits` as the reference proxy compares (L7): each address as
/// the number its bytes write (4 for IPv4, 16 for IPv6; an IPv4-mapped IPv6 address,
/// `::ffff:a.b.c.d`, is IPv4, as Java reads it), the range from the network's first to
/// its last address, whatever the families (`::/0` holds every IPv4 address).
fn in_range_as_proxy(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let java = |a: IpAddr| match a {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    let x = match java(ip) {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => u128::from(a),
    };
    let (start, width) = match java(net) {
        IpAddr::V4(b) => (u128::from(u32::from(b)), 32),
        IpAddr::V6(b) => (u128::from(b), 128),
    };
    let bits = u32::from(bits).min(width);
    // The host part's bits, within the network's width.
    let host = if width - bits == 128 {
        u128::MAX
    } else {
        (1_u128 << (width - bits)) - 1
    };
    let first = start & !host;
    (first..=first | host).contains(&x)
}

/// `addr/bits` or `addr` (all of its bits).
fn parse_network(text: &str) -> Option<(IpAddr, u8)> {
    let (addr, bits) = match text.split_once('/') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let ip = IpAddr::from_str(addr.trim()).ok()?;
    let width = if ip.is_ipv4() { 32 } else { 128 };
    let bits = match bits {
        Some(b) => b.trim().parse::<u8>().ok().filter(|&b| b <= width)?,
        None => width,
    };
    Some((ip, bits))
}

/// What the proxy knows of the client when it chooses (L2): the `locatt` pairs of the
/// link, the client's IP address, its country (ISO 3166 code).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientContext {
    /// `locatt=key:value` pairs, in the order the link gives them.
    pub locatt: Vec<(String, String)>,
    /// The client's address.
    pub ip: Option<IpAddr>,
    /// The client's country, as a two-letter code.
    pub country: Option<String>,
}

impl ClientContext {
    /// No `locatt`, no address, no country.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The same context with a `locatt` pair from a link's `key:value`.
    ///
    /// # Errors
    ///
    /// A [`RecordError`] of kind [`RecordErrorKind::Shape`] when `pair` has no `:`.
    pub fn with_locatt(mut self, pair: &str) -> Result<Self, RecordError> {
        let (k, v) = pair.split_once(':').ok_or_else(|| {
            RecordError::new(
                RecordErrorKind::Shape,
                "locatt",
                "expected key:value (SPEC L2)",
            )
        })?;
        self.locatt.push((k.to_string(), v.to_string()));
        Ok(self)
    }
}

/// A `10320/loc` value (L1): how to choose, and the locations.
#[derive(Clone, Debug, PartialEq)]
pub struct Locations {
    /// The root's name as written where it is not `locations` (the reference's proxy reads
    /// any root, and lists the locations under the first value's: L5).
    root: Option<String>,
    choose_by: Vec<ChooseBy>,
    locations: Vec<Location>,
    /// The attributes of `<locations>` itself, in document order (`http_sc`, …).
    attributes: Vec<(String, String)>,
    /// The text of its `<include>` and `<includeNamespace>` children (L9), named.
    linked: Vec<(String, String)>,
    /// The namespaces the prefixed attribute names use (prefix, URI), in order of first
    /// use: declared again where the value is written, so that its XML reads again.
    namespaces: Vec<(String, String)>,
}

impl Locations {
    /// Reads a `10320/loc` value (L1).
    ///
    /// ```
    /// use handle_id::record::{ClientContext, Locations, SplitMix64};
    /// let loc = Locations::parse(r#"<locations>
    ///   <location id="0" href="http://uk.example/a" country="gb" weight="0"/>
    ///   <location id="1" href="http://example.org/a"/>
    /// </locations>"#)?;
    /// let here = ClientContext::new().with_locatt("id:0")?;
    /// assert_eq!(loc.choose(&here, &mut SplitMix64::new(7)).unwrap().id(), Some("0"));
    /// # Ok::<(), handle_id::record::RecordError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`RecordError`] with the line and column: XML that is not well-formed or has a DTD
    /// (entities are refused, so a "billion laughs" document costs nothing), a root that is
    /// not `<locations>`, a `<location>` without `href`, a `weight` that is not a number
    /// from 0 to 1, a `score` that is not a number, `addresses` that are not IP ranges,
    /// more than 10,000 locations, elements nested deeper than 64 levels, or an element of
    /// more than 256 attributes.
    pub fn parse(xml: &str) -> Result<Self, RecordError> {
        Self::parse_with(xml, false)
    }

    /// Reads a `10320/loc` value as the reference proxy reads it (L5): as
    /// [`Locations::parse`], but the markup is read as the reference's own reader reads it
    /// (D8: a bare `&`, unquoted or repeated attributes, a root never closed, prefixes never
    /// declared, a `<location>` inside another one as the next one), any root is taken, and
    /// a `<location>` without `href` is kept (it is listed, and never redirected to), a
    /// `weight` that is not a number is 1 and any other number is kept (a negative one
    /// weighs 0), and a `score` that is not a number is no score.
    ///
    /// # Errors
    ///
    /// As [`Locations::parse`], but for those: markup that neither reader takes (one that
    /// ends inside a tag), with the XML reader's error.
    pub fn parse_as_proxy(xml: &str) -> Result<Self, RecordError> {
        Self::parse_with(xml, true)
    }

    fn parse_with(xml: &str, lenient: bool) -> Result<Self, RecordError> {
        let options = roxmltree::ParsingOptions {
            allow_dtd: false,
            nodes_limit: u32::try_from(MAX_LOCATIONS * 10).unwrap_or(u32::MAX),
        };
        let mut written = None;
        // (The text read: as the reference's reader's tree writes it, on the proxy's path.)
        let (xml, doc) = if lenient {
            read_as_reference(xml, options, &mut written).map_err(unread)?
        } else {
            if let Some((at, what)) = too_large(xml.as_bytes()) {
                return Err(RecordError::new(
                    RecordErrorKind::TooLarge,
                    format!("byte {at}"),
                    what,
                ));
            }
            let doc = roxmltree::Document::parse_with_options(xml, options).map_err(|e| {
                let pos = e.pos();
                RecordError::new(
                    RecordErrorKind::Xml,
                    format!("line {}, column {}", pos.row, pos.col),
                    format!("not well-formed XML: {e} (SPEC L1)"),
                )
            })?;
            (xml, doc)
        };
        // (On the proxy's path the document is the XML the reference's reader's tree
        // writes, whose places are not the value's: a location is named by its place.)
        let at = |node: roxmltree::Node<'_, '_>, nth: usize| {
            if lenient {
                format!("location {}", nth + 1)
            } else {
                let pos = doc.text_pos_at(node.range().start);
                format!("line {}, column {}", pos.row, pos.col)
            }
        };
        let root = doc.root_element();
        // (The reference's proxy reads any root; L1 names it, as written.)
        if !lenient && element_name(xml, root) != "locations" {
            return Err(RecordError::new(
                RecordErrorKind::Locations,
                at(root, 0),
                format!(
                    "the root is <{}>, not <locations> (SPEC L1)",
                    element_name(xml, root)
                ),
            ));
        }
        let choose_by = methods(
            root.attribute("choose_by")
                .or_else(|| root.attribute("chooseby")),
        );
        let mut locations = Vec::new();
        let mut linked = Vec::new();
        let mut namespaces = Vec::new();
        for node in root.children().filter(roxmltree::Node::is_element) {
            // (Named as written, as the reference names elements: `<x:location>` and
            // `<x:include>` are other elements.)
            let name = element_name(xml, node);
            if LINKED.contains(&name) && linked.len() < MAX_LOCATIONS {
                if let Some(text) = linked_text(node) {
                    linked.push((name.to_string(), text.to_string()));
                }
                continue;
            }
            // (The reference's proxy takes `<location>` in any case Java ignores, and
            // `<loc_template>`, whose `href_template` gives its `href`: L5.)
            let location = if lenient {
                java_eq_ignore_case(name, "location") || java_eq_ignore_case(name, "loc_template")
            } else {
                name == "location"
            };
            if !location {
                // Other elements are the XML's business, not the choice's.
                continue;
            }
            if locations.len() == MAX_LOCATIONS {
                return Err(RecordError::new(
                    RecordErrorKind::TooLarge,
                    at(node, locations.len()),
                    format!("more than {MAX_LOCATIONS} locations"),
                ));
            }
            let attributes = attributes(xml, node, &mut namespaces);
            let mut location = read_location(attributes, lenient).map_err(|m| {
                RecordError::new(RecordErrorKind::Locations, at(node, locations.len()), m)
            })?;
            location.element = (name != "location").then(|| name.to_string());
            locations.push(location);
        }
        let attributes = attributes(xml, root, &mut namespaces);
        let (name, uri) = (element_name(xml, root), root.tag_name().namespace());
        if let (Some((prefix, _)), Some(uri)) = (name.split_once(':'), uri) {
            // (A root read by the proxy's reader may be prefixed: declared where written.)
            if !namespaces.iter().any(|(p, _)| p == prefix) {
                namespaces.push((prefix.to_string(), uri.to_string()));
            }
        }
        let root = name;
        Ok(Self {
            root: (root != "locations").then(|| root.to_string()),
            choose_by,
            locations,
            attributes,
            linked,
            namespaces,
        })
    }

    /// An attribute of `<locations>` itself (`http_sc`, `chooseby`, …).
    #[must_use]
    pub fn attribute(&self, name: &str) -> Option<&str> {
        attribute(&self.attributes, name)
    }

    /// The handles `name` (`include` or `includeNamespace`) gives, as the reference reads
    /// them (L9): the attribute's, then each child element's of that name.
    pub(crate) fn linked(&self, name: &'static str) -> impl Iterator<Item = &str> {
        self.attribute(name).into_iter().chain(
            self.linked
                .iter()
                .filter(move |(n, _)| n == name)
                .map(|(_, t)| t.as_str()),
        )
    }

    /// The location the reference proxy redirects `client` to, as its `10320/loc`
    /// handler chooses (L5): one of [`Locations::survivors_as_proxy`], by weight.
    pub fn choose_as_proxy(
        &self,
        client: &ClientContext,
        random: &mut impl RandomSource,
    ) -> Option<&Location> {
        let left = self.survivors_as_proxy(client);
        match left.len() {
            0 => None,
            1 => Some(left[0]),
            _ if total_weight(&left) > 0.0 => Some(weighted(&left, random)),
            n => Some(left[rounded_index(random.next_f64(), n)]),
        }
    }

    /// The locations the reference proxy's `10320/loc` handler picks from for `client`,
    /// each with the chance that [`Locations::choose_as_proxy`] picks it (L5, L7): the same
    /// selection, then each location's share of the weights; when none is positive, the
    /// reference's rounded index: the first `1/2n`, the last `3/2n`, each other `1/n`. A
    /// location listed twice (L7's `address`) is there twice.
    #[must_use]
    pub fn candidates_as_proxy(&self, client: &ClientContext) -> Vec<(&Location, f64)> {
        let left = self.survivors_as_proxy(client);
        let n = left.len();
        if n == 1 {
            return alloc::vec![(left[0], 1.0)];
        }
        let total = total_weight(&left);
        left.into_iter()
            .enumerate()
            .map(|(i, l)| {
                let p = if total > 0.0 {
                    l.weight.max(0.0) / total
                } else {
                    // The share of [0, 1) that `rounded_index` maps to i.
                    let share = if i == 0 {
                        0.5
                    } else if i == n - 1 {
                        1.5
                    } else {
                        1.0
                    };
                    share / n as f64
                };
                (l, p)
            })
            .collect()
    }

    /// The locations left after the reference proxy's selection methods (L5, L7): each
    /// method in order, while more than one location is left; `locatt` narrows by each
    /// pair in turn, each only when some location matches it; `address` and `country` keep
    /// the matching locations when there are any; `score` keeps the highest (a location
    /// without one scores 0); `weighted` ends the methods.
    #[must_use]
    pub fn survivors_as_proxy(&self, client: &ClientContext) -> Vec<&Location> {
        let mut left: Vec<&Location> = self.locations.iter().collect();
        for method in &self.choose_by {
            if left.len() == 1 {
                break;
            }
            match method {
                ChooseBy::Locatt => {
                    for (k, v) in &client.locatt {
                        // The name trimmed (as Java trims), the value as given (L7).
                        let k = java_trim(k);
                        let kept: Vec<&Location> = left
                            .iter()
                            .copied()
                            .filter(|l| l.attribute(k) == Some(v.as_str()))
                            .collect();
                        if !kept.is_empty() {
                            left = kept;
                        }
                    }
                }
                ChooseBy::Address => {
                    if let Some(ip) = client.ip {
                        // Once per range that holds the client (L7): the reference adds
                        // a location for each, which weighs it more.
                        let kept: Vec<&Location> = left
                            .iter()
                            .flat_map(|&l| {
                                l.networks
                                    .iter()
                                    .filter(move |&&(net, bits)| in_range_as_proxy(ip, net, bits))
                                    .map(move |_| l)
                            })
                            .collect();
                        if !kept.is_empty() {
                            left = kept;
                        }
                    }
                }
                ChooseBy::Country => {
                    if let Some(country) = &client.country {
                        let kept: Vec<&Location> = left
                            .iter()
                            .copied()
                            .filter(|l| {
                                l.country()
                                    .is_some_and(|c| java_eq_ignore_case(java_trim(c), country))
                            })
                            .collect();
                        if !kept.is_empty() {
                            left = kept;
                        }
                    }
                }
                ChooseBy::Score => {
                    let mut best = 0.0_f64;
                    let mut kept: Vec<&Location> = Vec::new();
                    for l in &left {
                        let s = l.score.unwrap_or(0.0);
                        if s > best {
                            best = s;
                            kept.clear();
                        }
                        if s == best {
                            kept.push(l);
                        }
                    }
                    left = kept;
                }
                ChooseBy::Weighted => break,
                ChooseBy::Other(_) => {}
            }
        }
        left
    }

    /// The selection methods, in order.
    #[must_use]
    pub fn choose_by(&self) -> &[ChooseBy] {
        &self.choose_by
    }

    /// The locations, in document order.
    #[must_use]
    pub fn locations(&self) -> &[Location] {
        &self.locations
    }

    /// The location the proxy redirects `client` to (L2, L3): each method of `chooseby` in
    /// order narrows the locations until one is left; a method that would leave none, or
    /// that the client gives nothing for, is skipped; when methods run out with several
    /// left, one is chosen at random by weight (uniformly when no weight is positive).
    /// `None` only when there are no locations.
    pub fn choose(
        &self,
        client: &ClientContext,
        random: &mut impl RandomSource,
    ) -> Option<&Location> {
        let mut left: Vec<&Location> = self.locations.iter().collect();
        for method in &self.choose_by {
            if left.len() <= 1 {
                break;
            }
            let kept: Vec<&Location> = match method {
                ChooseBy::Locatt if !client.locatt.is_empty() => left
                    .iter()
                    .copied()
                    .filter(|l| {
                        client
                            .locatt
                            .iter()
                            .all(|(k, v)| l.attribute(k) == Some(v.as_str()))
                    })
                    .collect(),
                ChooseBy::Address => match client.ip {
                    Some(ip) => left.iter().copied().filter(|l| l.serves(ip)).collect(),
                    None => continue,
                },
                ChooseBy::Country => match &client.country {
                    Some(country) => {
                        let here: Vec<&Location> = left
                            .iter()
                            .copied()
                            .filter(|l| {
                                l.country().is_some_and(|c| c.eq_ignore_ascii_case(country))
                            })
                            .collect();
                        if here.is_empty() {
                            left.iter()
                                .copied()
                                .filter(|l| l.country().is_none())
                                .collect()
                        } else {
                            here
                        }
                    }
                    None => continue,
                },
                ChooseBy::Score => {
                    let Some(best) = left.iter().filter_map(|l| l.score).reduce(f64::max) else {
                        continue;
                    };
                    left.iter()
                        .copied()
                        .filter(|l| l.score == Some(best))
                        .collect()
                }
                ChooseBy::Weighted => return Some(weighted(&left, random)),
                ChooseBy::Locatt | ChooseBy::Other(_) => continue,
            };
            if !kept.is_empty() {
                left = kept;
            }
        }
        match left.len() {
            0 => None,
            1 => Some(left[0]),
            _ => Some(weighted(&left, random)),
        }
    }

    /// The locations as XML: `<locations>` with its attributes, each `<location>` with
    /// its attributes, then each `<include>` and `<includeNamespace>` child (L9), each kind
    /// in document order: what reads back as the same value.
    #[must_use]
    pub fn to_xml(&self) -> String {
        let root = self.root.as_deref().unwrap_or("locations");
        let mut out = format!("<{root}");
        for (prefix, uri) in &self.namespaces {
            let _ = write!(out, " xmlns:{prefix}=\"{}\"", escape_markup(uri));
        }
        for (name, value) in &self.attributes {
            let _ = write!(out, " {name}=\"{}\"", escape_markup(value));
        }
        out.push_str(">\n");
        for l in &self.locations {
            write_element(&mut out, l, "  ", " />\n");
        }
        for (name, text) in &self.linked {
            let _ = writeln!(out, "  <{name}>{}</{name}>", escape_markup(text));
        }
        let _ = writeln!(out, "</{root}>");
        out
    }

    /// The locations as the reference proxy's `action=showurls` writes them, in its layout
    /// (a value whose prefixes are undeclared is no XML, and is read as text): the root as
    /// it was named, bare, and each location with its attributes, a line each.
    #[must_use]
    pub fn to_xml_as_proxy(&self) -> String {
        let root = self.root.as_deref().unwrap_or("locations");
        let mut out = format!("<{root}>\n");
        for l in &self.locations {
            write_element(&mut out, l, "", "/>\n");
        }
        let _ = writeln!(out, "</{root}>");
        out
    }

    /// Locations of URLs, one each, as a `<locations>` value would list them.
    pub(crate) fn of_urls<'u>(urls: impl Iterator<Item = &'u str>) -> Self {
        Self {
            root: None,
            choose_by: DEFAULT_CHOOSE_BY.split(',').map(ChooseBy::parse).collect(),
            locations: urls
                .map(|u| Location {
                    element: None,
                    attributes: alloc::vec![("href".to_string(), u.to_string())],
                    weight: 1.0,
                    score: None,
                    networks: Vec::new(),
                })
                .collect(),
            attributes: Vec::new(),
            linked: Vec::new(),
            namespaces: Vec::new(),
        }
    }

    /// No locations, chosen by the default methods.
    pub(crate) fn empty() -> Self {
        Self::of_urls(core::iter::empty())
    }

    /// One more location: a URL value of the handle, as the reference proxy lists it beside
    /// the `10320/loc` locations (`mode="legacy"` and its weight, written as Java writes a
    /// double).
    pub(crate) fn push_legacy(&mut self, href: &str, weight: f64) {
        self.locations.push(Location {
            element: None,
            attributes: alloc::vec![
                ("mode".to_string(), "legacy".to_string()),
                ("weight".to_string(), java_double(weight)),
                ("href".to_string(), href.to_string()),
            ],
            weight,
            score: None,
            networks: Vec::new(),
        });
    }

    /// The `href` of each location that has none, from its `href_template` (L5): `{hdl}`
    /// is `handle` as a URL component, `{hdl:path}` as a URL path (P2).
    pub(crate) fn apply_templates(&mut self, handle: &str) {
        for l in &mut self.locations {
            if !l.href().is_empty() {
                continue;
            }
            let Some(template) = l.attribute("href_template") else {
                continue;
            };
            let href = fill_template(template, handle);
            l.attributes.retain(|(n, _)| n != "href");
            l.attributes.push(("href".to_string(), href));
        }
    }

    /// The attributes of `<locations>`, for the first of several values that has them;
    /// the methods are then those of the first that has `choose_by`, else `chooseby` (L5).
    pub(crate) fn inherit_attributes(&mut self, other: &Locations) {
        for (n, v) in &other.attributes {
            if self.attribute(n).is_none() {
                self.attributes.push((n.clone(), v.clone()));
            }
        }
        self.choose_by = methods(
            self.attribute("choose_by")
                .or_else(|| self.attribute("chooseby")),
        );
    }

    pub(crate) fn extend(&mut self, other: Locations) {
        self.locations.extend(other.locations);
    }
}

/// `text` without what Java's `String.trim` takes off its ends: every character up to
/// U+0020 (controls included), and no other white space.
pub(crate) fn java_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= ' ')
}

/// Whether `a` and `b` are equal as Java's `String.equalsIgnoreCase` finds them: character
/// by character, equal, or their upper cases equal, or the lower cases of those (each by
/// Java's one-character mappings): `locatıon` (a dotless `ı`) and `LOCATİON` are
/// `location` to the reference.
pub(crate) fn java_eq_ignore_case(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.chars(), b.chars());
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                let (ux, uy) = (java_upper(x), java_upper(y));
                if x != y && ux != uy && java_lower(ux) != java_lower(uy) {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// Java's `Character.toUpperCase` of one character: its simple mapping, the character
/// itself where the full mapping is more than one (but for the Greek letters with a
/// subscript iota, whose simple mapping is their title case).
fn java_upper(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => match u32::from(c) {
            0x1f80..=0x1f87 | 0x1f90..=0x1f97 | 0x1fa0..=0x1fa7 => {
                char::from_u32(u32::from(c) + 8).unwrap_or(c)
            }
            0x1fb3 | 0x1fc3 | 0x1ff3 => char::from_u32(u32::from(c) + 9).unwrap_or(c),
            _ => c,
        },
    }
}

/// Java's `Character.toLowerCase` of one character (`İ` is `i`, its simple mapping).
fn java_lower(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ if c == '\u{130}' => 'i',
        _ => c,
    }
}

/// A number as the reference reads an attribute (`XTag.getDoubleAttribute`, L7): Java's
/// `Double.parseDouble` of the text trimmed of control characters and spaces, which takes
/// a type suffix (`2f`, `1d`) too.
pub(crate) fn parse_java_double(text: &str) -> Option<f64> {
    let t = java_trim(text);
    let t = t
        .strip_suffix(['f', 'F', 'd', 'D'])
        .filter(|t| t.ends_with(|c: char| c.is_ascii_digit() || c == '.'))
        .unwrap_or(t);
    // Rust reads `inf` and `nan` in any case, Java only `Infinity` and `NaN`: neither is
    // a weight or score anyway.
    t.parse::<f64>().ok()
}

/// A number as Java's `Double.toString` writes the usual ones: `0.0`, `1.0`, `0.25`.
fn java_double(x: f64) -> String {
    // A whole number (`fract` is not in `core`).
    if x.abs() < 1e7 && x == (x as i64) as f64 {
        alloc::format!("{x:.1}")
    } else {
        alloc::format!("{x}")
    }
}

/// The methods of a `choose_by` (or `chooseby`) attribute; the default without one.
fn methods(attribute: Option<&str>) -> Vec<ChooseBy> {
    attribute
        .unwrap_or(DEFAULT_CHOOSE_BY)
        .split(',')
        .map(java_trim)
        .filter(|m| !m.is_empty())
        .map(ChooseBy::parse)
        .collect()
}

/// Location `l` as an element of its attributes, after `indent` and closed by `end`.
fn write_element(out: &mut String, l: &Location, indent: &str, end: &str) {
    let _ = write!(
        out,
        "{indent}<{}",
        l.element.as_deref().unwrap_or("location")
    );
    for (name, value) in &l.attributes {
        let _ = write!(out, " {name}=\"{}\"", escape_markup(value));
    }
    out.push_str(end);
}

/// The sum of the weights, a negative one counting 0.
fn total_weight(left: &[&Location]) -> f64 {
    left.iter().map(|l| l.weight.max(0.0)).sum()
}

/// The index the reference proxy picks among `n` locations of no positive weight for a
/// random `u` in [0, 1) (L7): `Math.round(u * n)` kept within the list, which gives the
/// first half a share and the last one and a half.
fn rounded_index(u: f64, n: usize) -> usize {
    // Math.round: the nearest integer, halves up (the cast floors: the number is not
    // negative; `floor` is not in `core`).
    ((u * n as f64 + 0.5) as usize).min(n - 1)
}

/// One location at random by weight (L2); uniformly when no weight is positive.
fn weighted<'l>(left: &[&'l Location], random: &mut impl RandomSource) -> &'l Location {
    let total: f64 = left.iter().map(|l| l.weight.max(0.0)).sum();
    if total <= 0.0 {
        return left[random.below(left.len())];
    }
    let mut r = random.next_f64() * total;
    for l in left {
        let w = l.weight.max(0.0);
        if r < w {
            return l;
        }
        r -= w;
    }
    // Rounding: the last location of positive weight.
    left.iter()
        .rev()
        .find(|l| l.weight > 0.0)
        .unwrap_or(&left[0])
}

/// The name of element `node` as written in `xml` (`x:location`, `location`): the reference
/// names elements so, not by their namespace.
pub(crate) fn element_name<'x>(xml: &'x str, node: roxmltree::Node<'_, '_>) -> &'x str {
    let rest = xml.get(node.range().start + 1..).unwrap_or_default();
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The most prefixes [`read_as_reference`] declares: each costs a reading of the text.
const MAX_UNDECLARED: usize = 8;

/// `xml` read as the reference's reader reads it (L5, L8, L9): that reader ([`lax`]) takes
/// markup XML does not and knows no namespaces, and its tree is what the XML it writes says
/// (D8), read here with the prefixes it leaves undeclared declared on the root (as
/// `urn:undeclared:<prefix>`), up to [`MAX_UNDECLARED`]. Gives the XML read (kept in
/// `written`), which the document's ranges are in, and the document; where that reader
/// finds nothing, why.
///
/// [`lax`]: super::lax
pub(crate) fn read_as_reference<'t>(
    xml: &str,
    options: roxmltree::ParsingOptions,
    written: &'t mut Option<String>,
) -> Result<(&'t str, roxmltree::Document<'t>), Unread> {
    let (text, prefixed) = super::lax::as_xml(
        xml,
        Most {
            depth: MAX_DEPTH,
            attributes: MAX_ATTRIBUTES,
            tags: MAX_LOCATIONS * 10,
        },
    )?;
    let text = if prefixed {
        declare_prefixes(text, options)
    } else {
        text
    };
    let text: &'t str = written.insert(text);
    roxmltree::Document::parse_with_options(text, options)
        .map(|doc| (text, doc))
        .map_err(Unread::Xml)
}

/// `text` with the prefixes the XML reader finds undeclared declared on its root, one at a
/// time, up to [`MAX_UNDECLARED`].
fn declare_prefixes(mut text: String, options: roxmltree::ParsingOptions) -> String {
    let mut last = None;
    for _ in 0..MAX_UNDECLARED {
        let Err(roxmltree::Error::UnknownNamespace(prefix, _)) =
            roxmltree::Document::parse_with_options(&text, options)
        else {
            break;
        };
        let Some(at) = root_name_end(&text).filter(|_| last.as_ref() != Some(&prefix)) else {
            break;
        };
        // (`xml` is bound to its namespace only.)
        let uri = if prefix == "xml" {
            "http://www.w3.org/XML/1998/namespace".to_string()
        } else {
            format!("urn:undeclared:{prefix}")
        };
        text.insert_str(at, &format!(" xmlns:{prefix}=\"{uri}\""));
        last = Some(prefix);
    }
    text
}

/// The error of a value the reference's reader finds nothing in (D8).
fn unread(e: Unread) -> RecordError {
    let (kind, at, message) = match e {
        Unread::Unfinished => (
            RecordErrorKind::Xml,
            "end of the value".to_string(),
            "the value ends inside a tag or a tag's text (which runs to a `<`), where the \
             reference's reader fails (SPEC D8)"
                .into(),
        ),
        Unread::Empty => (
            RecordErrorKind::Xml,
            "the value".to_string(),
            "no element in it (SPEC D8)".into(),
        ),
        Unread::TooDeep => (
            RecordErrorKind::TooLarge,
            "the value".to_string(),
            format!("elements nested deeper than {MAX_DEPTH} levels"),
        ),
        Unread::TooManyAttributes => (
            RecordErrorKind::TooLarge,
            "the value".to_string(),
            format!("an element with more than {MAX_ATTRIBUTES} attributes"),
        ),
        Unread::TooManyTags | Unread::Xml(roxmltree::Error::NodesLimitReached) => (
            RecordErrorKind::TooLarge,
            "the value".to_string(),
            format!("more than {} tags", MAX_LOCATIONS * 10),
        ),
        Unread::Xml(e) => {
            let pos = e.pos();
            (
                RecordErrorKind::Xml,
                format!(
                    "line {}, column {} as its reader writes it",
                    pos.row, pos.col
                ),
                format!("not XML as the reference's reader reads it: {e} (SPEC D8)"),
            )
        }
    };
    RecordError::new(kind, at, message)
}

/// Where the root element's name ends in `xml`, XML the reference's reader's tree wrote
/// ([`super::lax`]): it starts with the root's tag, whose name holds neither white space
/// nor `>`.
fn root_name_end(xml: &str) -> Option<usize> {
    xml.strip_prefix('<')?.find([' ', '>']).map(|end| 1 + end)
}

/// Whether `name` names an attribute of an element, as the XML reader judges it (its
/// prefix bound for the test); a namespace declaration (`xmlns`, `xmlns:p`) is none.
fn is_attribute_name(name: &str) -> bool {
    let declare = match name.split_once(':') {
        _ if name == "xmlns" => return false,
        Some(("xmlns", _)) => return false,
        // (An empty prefix, `:a`, is no prefix to the reader, and none may be declared.)
        Some((prefix, _)) if prefix != "xml" && !prefix.is_empty() => {
            alloc::format!(" xmlns:{prefix}=\"urn:p\"")
        }
        _ => String::new(),
    };
    let xml = alloc::format!("<location{declare} {name}=\"\"/>");
    // (One attribute, named as given: white space around a name is no part of it.)
    let local = name.split_once(':').map_or(name, |(_, local)| local);
    roxmltree::Document::parse(&xml).is_ok_and(|d| {
        let mut all = d.root_element().attributes();
        matches!((all.next(), all.next()), (Some(a), None) if a.name() == local)
    })
}

/// The attributes of `node`, each named as written in `xml` (`x:href` is not `href`, as
/// the reference reads them), the namespaces of the prefixed ones noted in `namespaces`.
fn attributes(
    xml: &str,
    node: roxmltree::Node<'_, '_>,
    namespaces: &mut Vec<(String, String)>,
) -> Vec<(String, String)> {
    node.attributes()
        .map(|a| {
            let name = attribute_name(xml, &a);
            if let (Some((prefix, _)), Some(uri)) = (name.split_once(':'), a.namespace()) {
                // (`xml:` is bound without a declaration, and may not be declared again.)
                if prefix != "xml" && !namespaces.iter().any(|(p, _)| p == prefix) {
                    namespaces.push((prefix.to_string(), uri.to_string()));
                }
            }
            (name.to_string(), a.value().to_string())
        })
        .collect()
}

/// The name of attribute `a` of `xml` as written (`x:href`), as the reference names it:
/// from where its range starts to the `=` or white space after it (the range's end falls
/// short of a name past 65,535 bytes).
pub(crate) fn attribute_name<'a>(xml: &'a str, a: &roxmltree::Attribute<'a, '_>) -> &'a str {
    let rest = xml.get(a.range_qname().start..).unwrap_or_default();
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '=')
        .unwrap_or(rest.len());
    Some(&rest[..end])
        .filter(|q| q.rsplit_once(':').map_or(*q, |(_, local)| local) == a.name())
        .unwrap_or(a.name())
}

/// The handle an `<include>`, `<includeNamespace>` or namespace's `<locs>` element names,
/// as the reference's reader takes its text (L9): up to the first markup in it, trimmed as
/// Java trims; none where it holds an element, or a comment without white space (which that
/// reader takes for an element), whose parent's text that reader does not keep.
pub(crate) fn linked_text<'a>(node: roxmltree::Node<'a, '_>) -> Option<&'a str> {
    let holds_element = node.children().any(|c| {
        c.is_element()
            || (c.is_comment() && !c.text().unwrap_or_default().contains(char::is_whitespace))
    });
    (!holds_element).then(|| java_trim(node.text().unwrap_or_default()))
}

fn read_location(attributes: Vec<(String, String)>, lenient: bool) -> Result<Location, String> {
    let get = |name: &str| {
        attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if !lenient && get("href").map_or(true, str::is_empty) {
        return Err("a <location> without href (SPEC L1)".to_string());
    }
    let weight = match get("weight") {
        None => 1.0,
        Some(w) if lenient => parse_java_double(w)
            .filter(|w| w.is_finite())
            .unwrap_or(1.0),
        Some(w) => w
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|w| (0.0..=1.0).contains(w))
            .ok_or_else(|| format!("weight {w:?} is not a number from 0 to 1 (SPEC L1)"))?,
    };
    let score = match get("score") {
        None => None,
        Some(s) if lenient => parse_java_double(s).filter(|s| s.is_finite()),
        Some(s) => Some(
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite())
                .ok_or_else(|| format!("score {s:?} is not a number (SPEC L1)"))?,
        ),
    };
    let networks = match get("addresses") {
        None => Vec::new(),
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| {
                parse_network(a)
                    .ok_or_else(|| format!("address {a:?} is not an IP range (SPEC L1)"))
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(Location {
        element: None,
        attributes,
        weight,
        score,
        networks,
    })
}

/// `{hdl}` and `{hdl:path}` in `text` replaced by `handle` as a URL component and as a
/// URL path (L5, P2): the reference's templates, in `href_template`, links and headers.
pub(crate) fn fill_template(text: &str, handle: &str) -> String {
    if !text.contains("{hdl") {
        return text.to_string();
    }
    let component = alloc::format!("{}", crate::escape::URL_COMPONENT.encode(handle));
    let path = alloc::format!("{}", crate::escape::PROXY_PATH.encode(handle));
    text.replace("{hdl}", &component)
        .replace("{hdl:path}", &path)
}

/// The value of attribute `name` among `attributes`, as written.
fn attribute<'a>(attributes: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_compared_as_java_compares_them_without_case() {
        for (a, b) in [
            ("locatıon", "location"),
            ("LOCATİON", "location"),
            ("Location", "LOCATION"),
            ("\u{212a}", "k"),
            ("ſ", "S"),
            ("ᾳ", "ᾼ"),
            ("", ""),
        ] {
            assert!(java_eq_ignore_case(a, b), "{a} {b}");
            assert!(java_eq_ignore_case(b, a), "{b} {a}");
        }
        for (a, b) in [
            ("locations", "location"),
            ("lokation", "location"),
            ("ß", "ss"),
            ("", "a"),
        ] {
            assert!(!java_eq_ignore_case(a, b), "{a} {b}");
        }
    }
}
