//! Content negotiation among `10320/loc` locations (P11): the request headers the
//! reference proxy reads, turned into `locatt` pairs as it turns them.

use alloc::string::String;
use alloc::vec::Vec;

use super::loc::ClientContext;
use crate::query::{Action, ProxyQuery};

impl ClientContext {
    /// The client a proxy request describes (L5, P11): the query's `locatt`, the
    /// `role:metadata` of `action=metadata`, then the pairs content negotiation makes of
    /// the request's `Accept`, `Accept-Language` and `User-Agent`; the query's `country`;
    /// and `ip`, the connection's address (a query's `ip=` is not read, as the reference's
    /// address choice reads none).
    #[must_use]
    pub fn of_request(
        query: &ProxyQuery,
        accept: Option<&str>,
        accept_language: Option<&str>,
        user_agent: Option<&str>,
        ip: Option<core::net::IpAddr>,
    ) -> Self {
        let mut client = ClientContext::new();
        client.locatt.clone_from(&query.locatt);
        let metadata = query.action == Some(Action::Metadata);
        if metadata {
            client.locatt.push(("role".into(), "metadata".into()));
        }
        let mut client = client.with_headers(accept, accept_language, user_agent, metadata);
        client.ip = ip;
        client.country = query
            .other
            .iter()
            // (The first, as a servlet's `getParameter` gives it.)
            .find(|(name, _)| name == "country")
            .and_then(|(_, value)| value.clone());
        client
    }

    /// The same context with the `locatt` pairs that `Accept`, `Accept-Language` and
    /// `User-Agent` give (P11), after those it has. `metadata` is `action=metadata`, whose
    /// `role:metadata` takes the place of the `http_role` pairs.
    #[must_use]
    pub fn with_headers(
        mut self,
        accept: Option<&str>,
        accept_language: Option<&str>,
        user_agent: Option<&str>,
        metadata: bool,
    ) -> Self {
        negotiate(&mut self.locatt, accept, user_agent, metadata);
        for (language, _) in sorted_entries(accept_language) {
            self.locatt.push(("language".into(), language));
        }
        self
    }
}

/// The entries of an `Accept`-like header, lower case, with their quality, highest first
/// (a stable sort: equal qualities keep their order).
fn sorted_entries(header: Option<&str>) -> Vec<(String, f32)> {
    let mut entries = entries(header);
    entries.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(core::cmp::Ordering::Equal));
    entries
}

fn entries(header: Option<&str>) -> Vec<(String, f32)> {
    let Some(header) = header else {
        return Vec::new();
    };
    // Java's String.split, as the reference splits: trailing empty entries dropped
    // (`application/json,` is one entry), unless there is no comma at all.
    let mut split: Vec<&str> = header.split(',').collect();
    if split.len() > 1 {
        while split.last() == Some(&"") {
            split.pop();
        }
    }
    split
        .into_iter()
        .map(|entry| {
            let mut fields = entry.split(';');
            let value = fields.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = fields
                .filter_map(|f| f.trim().strip_prefix("q="))
                .find_map(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            // An empty entry stays empty: the reference reads it as a media type of its own.
            (value, q)
        })
        .collect()
}

/// What a browser shows itself: such an `Accept` entry does not ask for other content.
fn browser_content(media: &str) -> bool {
    media.contains('*')
        || matches!(
            media,
            "text/html"
                | "text/xhtml"
                | "application/xhtml+xml"
                | "application/pdf"
                | "application/vnd.wap.xhtml+xml"
                | "text/vnd.wap.wml"
        )
        || media.starts_with("image/")
        || media.starts_with("audio/")
        || media.starts_with("video/")
}

/// `Accept` (and, for `*/*`, `User-Agent`) as `locatt` pairs (P11).
fn negotiate(
    locatt: &mut Vec<(String, String)>,
    accept: Option<&str>,
    user_agent: Option<&str>,
    metadata: bool,
) {
    let role = |locatt: &mut Vec<(String, String)>, r: &str| {
        if !metadata {
            locatt.push(("http_role".into(), r.into()));
        }
    };
    let html = |locatt: &mut Vec<(String, String)>| {
        locatt.push(("ctype".into(), "text/html".into()));
        locatt.push(("media-type".into(), "text/html".into()));
    };
    let accepts = entries(accept);
    if accepts.iter().all(|(v, _)| v == "*/*") {
        let ua = user_agent.map(|u| u.trim().to_ascii_lowercase());
        if ua.is_some_and(|u| u.starts_with("mozilla/") || u.starts_with("opera/")) {
            role(locatt, "browser");
            html(locatt);
        } else {
            role(locatt, "no_conneg");
        }
        return;
    }
    let max = accepts.iter().map(|e| e.1).fold(0.0_f32, f32::max);
    let html_score = accepts
        .iter()
        .filter(|(v, _)| browser_content(v))
        .map(|e| e.1)
        .fold(0.0_f32, f32::max);
    if html_score < max {
        for (media, _) in sorted_entries(accept) {
            if media.contains('*') {
                break;
            }
            locatt.push(("ctype".into(), media.clone()));
            locatt.push(("media-type".into(), media));
        }
        role(locatt, "conneg");
    } else {
        role(locatt, "browser");
        if accepts
            .iter()
            .any(|(v, _)| matches!(v.as_str(), "text/html" | "text/*" | "*/*"))
        {
            html(locatt);
        }
    }
}
