//! A site record, the data of `HS_SITE` values (RFC 3651 §3.2.2 as the reference encodes
//! it: N5): the servers of one handle service site, their addresses, keys and interfaces,
//! and how handles are spread over them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::wire::{DecodeError, Reader, Write};

/// One site: a set of servers that together hold the handles of a service.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SiteInfo {
    /// The record's format version: 1, as the reference writes it (the RFC says 0).
    pub format_version: u16,
    /// The protocol version the site's servers speak.
    pub protocol: (u8, u8),
    /// Changes when the record changes; servers echo it in their answers.
    pub serial: u16,
    /// The primary bits (0x80 primary, 0x40 multi-primary), the byte as written.
    pub primary_mask: u8,
    /// How handles are spread over the servers, the byte as written.
    pub hash_option: u8,
    /// Reserved, empty.
    pub hash_filter: Vec<u8>,
    /// Named attributes (`desc`, `alt_addr`, `domain`, `path` …), in order.
    pub attributes: Vec<(Vec<u8>, Vec<u8>)>,
    /// The servers.
    pub servers: Vec<ServerInfo>,
}

/// One server of a site.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ServerInfo {
    /// Its number within the site.
    pub id: u32,
    /// Its address, 16 bytes: an IPv4 address is 12 zero bytes and its four.
    pub address: [u8; 16],
    /// Its public key (`HS_PUBKEY` data), empty when none is given.
    pub public_key: Vec<u8>,
    /// Where it listens, for what.
    pub interfaces: Vec<Interface>,
}

/// One interface of a server: a port, a transport and what it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interface {
    /// What it serves, the byte as written (see [`Interface::kind`]).
    pub service: u8,
    /// Its transport, the byte as written (see [`Interface::protocol`]).
    pub transport: u8,
    /// The port.
    pub port: u32,
}

/// What an interface serves (the reference's enumeration, not the RFC's bit mask: N5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServiceKind {
    /// 0: out of service.
    OutOfService,
    /// 1: administration only.
    Admin,
    /// 2: resolution only.
    Query,
    /// 3: both.
    AdminAndQuery,
}

/// An interface's transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// 0: UDP.
    Udp,
    /// 1: TCP.
    Tcp,
    /// 2: HTTP.
    Http,
    /// 3: HTTPS.
    Https,
}

/// How a site spreads handles over its servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashOption {
    /// 0: by the prefix (the naming authority).
    ByPrefix,
    /// 1: by the local name.
    BySuffix,
    /// 2: by the whole handle.
    ByHandle,
}

impl Interface {
    /// What it serves, when the byte is one the reference knows.
    #[must_use]
    pub fn kind(&self) -> Option<ServiceKind> {
        Some(match self.service {
            0 => ServiceKind::OutOfService,
            1 => ServiceKind::Admin,
            2 => ServiceKind::Query,
            3 => ServiceKind::AdminAndQuery,
            _ => return None,
        })
    }

    /// Its transport, when the byte is one the reference knows.
    #[must_use]
    pub fn protocol(&self) -> Option<Protocol> {
        Some(match self.transport {
            0 => Protocol::Udp,
            1 => Protocol::Tcp,
            2 => Protocol::Http,
            3 => Protocol::Https,
            _ => return None,
        })
    }

    /// Whether it answers resolutions (and site info requests).
    #[must_use]
    pub fn resolves(&self) -> bool {
        matches!(
            self.kind(),
            Some(ServiceKind::Query | ServiceKind::AdminAndQuery)
        )
    }

    /// An interface that resolves, over `protocol`, at `port`.
    #[must_use]
    pub fn query(protocol: Protocol, port: u16) -> Self {
        Self {
            service: 2,
            transport: protocol as u8,
            port: u32::from(port),
        }
    }
}

impl ServerInfo {
    /// The address, as an IP address (IPv4 when the first 12 bytes are zero).
    #[must_use]
    pub fn ip(&self) -> IpAddr {
        if self.address[..12].iter().all(|&b| b == 0) {
            let [a, b, c, d] = [
                self.address[12],
                self.address[13],
                self.address[14],
                self.address[15],
            ];
            IpAddr::V4(Ipv4Addr::new(a, b, c, d))
        } else {
            IpAddr::V6(Ipv6Addr::from(self.address))
        }
    }

    /// The 16 bytes of an address as a site record holds it.
    #[must_use]
    pub fn address_bytes(ip: IpAddr) -> [u8; 16] {
        match ip {
            IpAddr::V4(v4) => {
                let mut a = [0; 16];
                a[12..].copy_from_slice(&v4.octets());
                a
            }
            IpAddr::V6(v6) => v6.octets(),
        }
    }

    /// The port of its first interface that resolves over `protocol`.
    #[must_use]
    pub fn port(&self, protocol: Protocol) -> Option<u16> {
        self.interfaces
            .iter()
            .find(|i| i.resolves() && i.protocol() == Some(protocol))
            .and_then(|i| u16::try_from(i.port).ok())
    }
}

impl SiteInfo {
    /// Whether the site is a primary one (bit 0x80: N5; the RFC has the bits the other
    /// way round).
    #[must_use]
    pub fn is_primary(&self) -> bool {
        self.primary_mask & 0x80 != 0
    }

    /// Whether the site is one of several primaries (bit 0x40).
    #[must_use]
    pub fn is_multi_primary(&self) -> bool {
        self.primary_mask & 0x40 != 0
    }

    /// How handles are spread over the servers, when the byte is one the reference knows.
    #[must_use]
    pub fn hash(&self) -> Option<HashOption> {
        Some(match self.hash_option {
            0 => HashOption::ByPrefix,
            1 => HashOption::BySuffix,
            2 => HashOption::ByHandle,
            _ => return None,
        })
    }

    /// The value of attribute `name`, if the record has it.
    #[must_use]
    pub fn attribute(&self, name: &str) -> Option<&[u8]> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name.as_bytes())
            .map(|(_, v)| v.as_slice())
    }

    /// Reads a site record that fills `bytes` exactly.
    ///
    /// # Errors
    ///
    /// Lengths or counts past the end, bytes left over (the reference refuses them too).
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let format_version = r.u16()?;
        let protocol = (r.u8()?, r.u8()?);
        let serial = r.u16()?;
        let primary_mask = r.u8()?;
        let hash_option = r.u8()?;
        let hash_filter = r.bytes()?.to_vec();
        let n = r.count(8)?;
        let attributes = (0..n)
            .map(|_| Ok((r.bytes()?.to_vec(), r.bytes()?.to_vec())))
            .collect::<Result<_, DecodeError>>()?;
        // A server: id, address, key length, interface count.
        let n = r.count(4 + 16 + 4 + 4)?;
        let servers = (0..n)
            .map(|_| {
                let id = r.u32()?;
                let address = r.take(16)?.try_into().expect("16 bytes");
                let public_key = r.bytes()?.to_vec();
                let k = r.count(6)?;
                let interfaces = (0..k)
                    .map(|_| {
                        Ok(Interface {
                            service: r.u8()?,
                            transport: r.u8()?,
                            port: r.u32()?,
                        })
                    })
                    .collect::<Result<_, DecodeError>>()?;
                Ok(ServerInfo {
                    id,
                    address,
                    public_key,
                    interfaces,
                })
            })
            .collect::<Result<_, DecodeError>>()?;
        r.end()?;
        Ok(Self {
            format_version,
            protocol,
            serial,
            primary_mask,
            hash_option,
            hash_filter,
            attributes,
            servers,
        })
    }

    /// Writes the record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.format_version.to_be_bytes());
        out.extend_from_slice(&[self.protocol.0, self.protocol.1]);
        out.extend_from_slice(&self.serial.to_be_bytes());
        out.extend_from_slice(&[self.primary_mask, self.hash_option]);
        out.bytes(&self.hash_filter);
        out.count(self.attributes.len());
        for (name, value) in &self.attributes {
            out.bytes(name);
            out.bytes(value);
        }
        out.count(self.servers.len());
        for s in &self.servers {
            out.u32(s.id);
            out.extend_from_slice(&s.address);
            out.bytes(&s.public_key);
            out.count(s.interfaces.len());
            for i in &s.interfaces {
                out.extend_from_slice(&[i.service, i.transport]);
                out.u32(i.port);
            }
        }
    }

    /// The record as bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }
}
