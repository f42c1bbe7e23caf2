//! One handle's values asked for as a resolving client asks: of one server, over its
//! transports in turn (an `RC_ERROR` answer passing to the next, as the reference client
//! goes on), or from the global root through a [`Resolver`]; a certified answer taken
//! only when it verifies. What `hdl resolve` and the Python package's `resolve` share.

use std::net::{SocketAddr, ToSocketAddrs};

use handle_proto::{Message, OpFlags, ResponseCode};

use crate::client::{ask, own_key, request_id, ClientError, Timeouts, Transport, UdpClient};
use crate::resolver::{expiration, Resolver};

/// What is asked of a handle, beyond the handle.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// Only values of these types (a type ending in '.' selects its subtypes too); all when
    /// empty.
    pub types: Vec<String>,
    /// Only the values at these indexes; all when empty.
    pub indexes: Vec<u32>,
    /// An authoritative answer: primary sites only, no cache.
    pub authoritative: bool,
    /// A certified answer, taken only when its signature verifies by the answering
    /// server's key.
    pub certified: bool,
}

impl Query {
    /// The resolution request for `handle`.
    #[must_use]
    pub fn request(&self, handle: &str) -> Message {
        let types: Vec<&[u8]> = self.types.iter().map(String::as_bytes).collect();
        let mut request =
            Message::resolution(handle.as_bytes(), &types, &self.indexes, expiration());
        request.header.flags = request
            .header
            .flags
            .with(OpFlags::AUTH, self.authoritative)
            .with(OpFlags::CERT, self.certified);
        request
    }
}

/// Where handles are asked.
pub enum Target {
    /// One server: its address, its transports in the order tried, one UDP socket shared by
    /// every request (when UDP is among them), and its key for certified answers.
    Server {
        /// The server.
        addr: SocketAddr,
        /// Tried in this order.
        transports: Vec<Transport>,
        /// The shared UDP client.
        udp: Option<UdpClient>,
        /// The key a certified answer must verify by (its own site info's).
        key: Option<Vec<u8>>,
    },
    /// The servers the global root leads to.
    Root(Resolver),
}

impl Target {
    /// One server asked over `transports`: its UDP socket bound (inside the tokio runtime
    /// that will ask), and with `certified` its key taken from its own site info (what
    /// that proves is the answers' integrity, not the server's standing).
    ///
    /// # Errors
    ///
    /// The socket cannot be bound, or with `certified` no key came.
    pub async fn server(
        addr: SocketAddr,
        transports: Vec<Transport>,
        certified: bool,
        timeouts: &Timeouts,
    ) -> Result<Self, ClientError> {
        let key = match certified {
            true => Some(own_key(addr, timeouts).await?),
            false => None,
        };
        let udp = match transports.contains(&Transport::Udp) {
            true => Some(UdpClient::connect(addr).await?),
            false => None,
        };
        Ok(Self::Server {
            addr,
            transports,
            udp,
            key,
        })
    }

    /// The answer to `query` of `handle`: the server's message, whatever its response code.
    ///
    /// # Errors
    ///
    /// No server answered (each transport's failure, the last one's said), or a certified
    /// answer that does not verify: why, in one line.
    pub async fn ask(
        &self,
        handle: &str,
        query: &Query,
        timeouts: &Timeouts,
    ) -> Result<Message, String> {
        let request = query.request(handle);
        match self {
            Self::Server {
                addr,
                transports,
                udp,
                key,
            } => {
                let mut last = String::from("no transport to ask over");
                // (An `RC_ERROR` answer is kept, for when no transport answers better.)
                let mut answer = None;
                for &transport in transports {
                    let asked = match (transport, udp) {
                        (Transport::Udp, Some(client)) => client.ask(&request, timeouts).await,
                        _ => ask(*addr, transport, &request, request_id(), timeouts).await,
                    };
                    match asked {
                        Ok((envelope, m)) => {
                            let failed = m.header.response_code == ResponseCode::ERROR;
                            if let Some(key) = key {
                                if let Err(e) = crate::key::verify_answer(&envelope, &m, key) {
                                    let why = format!(
                                        "{addr}: the certified answer does not verify: {e}"
                                    );
                                    // (An error the server does not sign, as its "too large for
                                    // UDP", says nothing: the next transport is asked.)
                                    if failed {
                                        last = why;
                                        continue;
                                    }
                                    return Err(why);
                                }
                            }
                            answer = Some(m);
                            if !failed {
                                break;
                            }
                        }
                        Err(e) => last = format!("{addr} over {}: {e}", name(transport)),
                    }
                }
                answer.ok_or(last)
            }
            Self::Root(resolver) => resolver.resolve(&request).await.map_err(|e| e.to_string()),
        }
    }
}

/// `HOST:PORT` as the address of a server to ask (its host looked up: this may wait for
/// the system's resolver), or why not, in words to follow the text.
///
/// # Errors
///
/// Not `HOST:PORT`, a host with no address, or port 0.
pub fn server_address(text: &str) -> Result<SocketAddr, String> {
    let addr = text
        .to_socket_addrs()
        .map_err(|e| format!("not HOST:PORT: {e}"))?
        .next()
        .ok_or("no address")?;
    if addr.port() == 0 {
        return Err("port 0 is no server's".into());
    }
    Ok(addr)
}

/// A transport's name in a message.
fn name(transport: Transport) -> &'static str {
    match transport {
        Transport::Udp => "UDP",
        Transport::Tcp => "TCP",
    }
}
