//! Handle records as the proxy's REST API writes them (SPEC R1–R5), and the `10320/loc`
//! values the proxy redirects by (L1–L4). Behind the `json` feature.
//!
//! ```
//! use handle_id::record::{Response, ResponseCode};
//! let text = r#"{"responseCode":1,"handle":"4263537/4000","values":[
//!   {"index":1,"type":"URL","data":{"format":"string","value":"https://www.handle.net/index.html"},
//!    "ttl":86400,"timestamp":"2001-11-21T16:21:35Z"}]}"#;
//! let response = Response::parse(text)?;
//! assert_eq!(response.code(), ResponseCode::Success);
//! assert_eq!(response.code().http_status(), 200);
//! assert_eq!(response.handle().map(|h| h.as_str()), Some("4263537/4000"));
//! assert_eq!(response.values()[0].as_text(), Some("https://www.handle.net/index.html"));
//! // What it writes, it reads back.
//! assert_eq!(Response::parse(&response.to_json())?, response);
//! # Ok::<(), handle_id::record::RecordError>(())
//! ```

mod conneg;
mod error;
mod json;
mod lax;
mod linked;
mod links;
mod loc;
mod markup;
mod random;
mod response;
mod select;
mod tree;
mod value;

pub use error::{RecordError, RecordErrorKind};
pub use json::{base64, base64_decode, jsonp};
pub use linked::{Linked, MAX_INCLUDE_DEPTH, MAX_LINKED, MAX_LINKED_VALUES, NAMESPACE_TYPE};
pub use links::{HEADERS_TYPE, LINKS_TYPE};
pub use loc::{ChooseBy, ClientContext, Location, Locations, LOC_TYPE};
pub use markup::escape_markup;
pub use random::{RandomSource, SplitMix64};
pub use response::{Response, ResponseCode};
pub use select::{Filter, ProxyCandidate, ProxyRedirect, Redirect, ALIAS_TYPE, URL_TYPE};
pub use value::{Admin, AdminPermissions, Data, HandleValue, Ttl, ValueReference};
