//! The proxy server system of the HDL.NET proxy page (PROXY §1–4, a source SPEC.md lists),
//! on an embedded store: `hdl serve`.
//!
//! - [`store`]: handle records in a redb file, keyed by the canonical handle, imported
//!   from REST API responses (one per line, the format `hdl record` reads).
//! - [`app`]: what a request is answered: a redirect (a URL value, or the `10320/loc`
//!   location chosen for the client), the values (HTML, or the REST JSON), `showurls`,
//!   the REST API (`/api/handles/<handle>`), "Handle Not Found", or a clear error.
//! - [`imports`]: imports into a running server, through a Unix socket beside its store.
//! - [`server`]: hyper on tokio, with a connection limit (and one per client address,
//!   [`clients`]), header and write timeouts, an access log and graceful shutdown.
//! - [`limits`]: what the server refuses and how long it waits.
//! - [`native`]: the store answered over the Handle protocol (`handle-net`'s server).
//! - [`writes`]: `PUT` and `DELETE` through the REST API, authorised by [`auth`]: HTTP
//!   Basic against `HS_SECKEY` or the `Handle` challenge-response against `HS_PUBKEY`
//!   (its [`sessions`], `/api/sessions`), permissions by `HS_ADMIN` and `HS_VLIST` (SPEC
//!   W1–W8).
//!
//! The library's parsers read every request: a request's path and query are read exactly
//! as `handle_id::recognize` reads a proxy URL (P3), and the JSON is the one writer of
//! `handle_id::record`.

#![forbid(unsafe_code)]

pub mod app;
pub mod auth;
pub mod clients;
pub mod imports;
#[doc(hidden)]
pub mod invariants;
pub mod limits;
pub mod native;
pub mod server;
pub mod sessions;
pub mod store;
pub mod tls;
pub mod upstream;
pub mod writes;

pub use server::{serve, Config};
pub use store::{Imported, Store, StoreError, DEFAULT_CACHE};
