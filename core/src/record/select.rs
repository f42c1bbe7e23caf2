//! Choosing from a record as the proxy does: values by index and type (R4), the URL to
//! redirect to (URL values, `10320/loc`), and `HS_ALIAS`.

use alloc::string::String;
use alloc::vec::Vec;

use super::error::RecordError;
use super::loc::{ClientContext, Location, Locations, LOC_TYPE};
use super::random::RandomSource;
use super::response::{Response, ResponseCode};
use super::value::{type_matches, HandleValue};
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
            .filter(|v| v.value_type == ALIAS_TYPE)
            .find_map(|v| Handle::parse(v.as_text()?.trim()).ok())
    }

    /// The `10320/loc` values, read (L1).
    ///
    /// # Errors
    ///
    /// The first value whose XML is not a `<locations>` value, with its path.
    pub fn locations(&self) -> Result<Vec<(&HandleValue, Locations)>, RecordError> {
        self.values()
            .iter()
            .enumerate()
            .filter(|(_, v)| v.value_type == LOC_TYPE)
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
            .filter(|v| v.value_type == LOC_TYPE)
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
            .filter(|v| v.value_type == URL_TYPE && v.as_text().is_some())
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
                    .filter(|v| v.value_type == URL_TYPE)
                    .filter_map(HandleValue::as_text),
            )
        });
        all.to_xml()
    }
}
