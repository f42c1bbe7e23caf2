//! The Handle protocol over the network, on tokio: [`server`] answers resolution and site
//! info requests over UDP and TCP from any source of [`Records`] (the answers themselves
//! are [`answer`]'s, with no I/O); [`client`] asks one server; [`resolver`] finds the
//! server that holds a handle from the global root, as the reference resolver does, and
//! asks it; [`lookup`] asks for one handle either way, as a resolving client does; [`hash`]
//! is the choice of a server within a site.
//!
//! The messages are `handle-proto`'s; what this crate adds is sockets, timeouts, retries
//! and bounds.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod answer;
mod batch;
pub mod client;
pub mod hash;
#[doc(hidden)]
pub mod invariants;
pub mod key;
pub mod limit;
pub mod lookup;
pub mod resolver;
pub mod server;

pub use answer::Records;
