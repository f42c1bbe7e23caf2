//! The store answered over the Handle protocol (`hdl serve --handle-bind`): its records as
//! the values the protocol carries (`handle_proto::rest`, one model), and the site record
//! of the server that answers.

use std::net::SocketAddr;
use std::sync::Arc;

use handle_net::Records;
use handle_proto::{rest, Interface, Protocol, ServerInfo, SiteInfo, WireValue};

use crate::store::Store;

/// The store as a source of values for the protocol server.
pub struct StoreRecords(pub Arc<Store>);

impl Records for StoreRecords {
    fn values(&self, handle: &str) -> Result<Option<Vec<WireValue>>, String> {
        // Not a handle (H1): no record has it.
        let Ok(h) = handle_id::HandleRef::parse(handle) else {
            return Ok(None);
        };
        let Some(response) = self.0.get(h).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        // A stored record is a success (with or without values): its values, as they travel.
        response
            .values()
            .iter()
            .map(|v| rest::from_rest(v).map_err(|e| format!("{handle}: value {}: {e}", v.index())))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    fn generation(&self) -> u64 {
        self.0.generation()
    }
}

/// The site record of one server answering at `address` over TCP and UDP: a primary site of
/// protocol 2.11, handles hashed by the whole handle (one server holds them all), serial 1,
/// with `key` (`HS_PUBKEY` data; empty for none).
#[must_use]
pub fn site(address: SocketAddr, key: Vec<u8>) -> SiteInfo {
    SiteInfo {
        format_version: 1,
        protocol: handle_proto::VERSION,
        serial: 1,
        primary_mask: 0x80,
        hash_option: 2,
        hash_filter: Vec::new(),
        attributes: vec![(b"desc".to_vec(), b"hdl serve".to_vec())],
        servers: vec![ServerInfo {
            id: 1,
            address: ServerInfo::address_bytes(address.ip()),
            public_key: key,
            interfaces: vec![
                Interface::query(Protocol::Tcp, address.port()),
                Interface::query(Protocol::Udp, address.port()),
            ],
        }],
    }
}
