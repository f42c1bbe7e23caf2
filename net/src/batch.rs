//! Datagrams in batches (Linux's `recvmmsg` and `sendmmsg`, through nix): a UDP thread
//! takes every request waiting on the socket, up to [`BATCH`], in one system call, and
//! sends the answers to them in one more, rather than two calls a request.

use std::io;
use std::io::{IoSlice, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;

use nix::sys::socket::{recvmmsg, sendmmsg, MsgFlags, MultiHeaders, SockaddrStorage};

/// The most datagrams taken or sent in one call.
pub const BATCH: usize = 32;

/// The largest datagram read: a request is at most 512 bytes, and one cut by the buffer is
/// refused.
pub const DATAGRAM: usize = 1024;

/// A thread's buffers for [`Batch::receive`] and [`Batch::send`], made once.
pub struct Batch {
    buffers: Vec<[u8; DATAGRAM]>,
    received: Vec<(usize, SocketAddr)>,
    receive_headers: MultiHeaders<SockaddrStorage>,
    out: Vec<Vec<u8>>,
    to: Vec<Option<SockaddrStorage>>,
    queued: usize,
    send_headers: MultiHeaders<SockaddrStorage>,
}

impl Default for Batch {
    fn default() -> Self {
        Self {
            buffers: vec![[0; DATAGRAM]; BATCH],
            received: Vec::with_capacity(BATCH),
            receive_headers: MultiHeaders::preallocate(BATCH, None),
            out: (0..BATCH).map(|_| Vec::with_capacity(512)).collect(),
            to: vec![None; BATCH],
            queued: 0,
            send_headers: MultiHeaders::preallocate(BATCH, None),
        }
    }
}

impl Batch {
    /// Waits for a datagram (as long as the socket's read timeout), then takes it and every
    /// other one waiting, up to [`BATCH`]: how many.
    ///
    /// # Errors
    ///
    /// The socket's: `WouldBlock` or `TimedOut` when none came in time.
    pub fn receive(&mut self, socket: &UdpSocket) -> io::Result<usize> {
        self.received.clear();
        let mut buffers = self.buffers.iter_mut();
        let mut slices: [[IoSliceMut<'_>; 1]; BATCH] =
            std::array::from_fn(|_| [IoSliceMut::new(buffers.next().expect("BATCH buffers"))]);
        let results = recvmmsg(
            socket.as_raw_fd(),
            &mut self.receive_headers,
            slices.iter_mut(),
            MsgFlags::MSG_WAITFORONE,
            None,
        )
        .map_err(io::Error::from)?;
        for message in results {
            if let Some(peer) = message.address.as_ref().and_then(socket_addr) {
                self.received.push((message.bytes, peer));
            }
        }
        Ok(self.received.len())
    }

    /// The `k`th datagram taken, and who sent it.
    #[must_use]
    pub fn datagram(&self, k: usize) -> (&[u8], SocketAddr) {
        let (n, peer) = self.received[k];
        (&self.buffers[k][..n.min(DATAGRAM)], peer)
    }

    /// A buffer for a datagram to `peer`, sent by the next [`Batch::send`] (sooner when
    /// [`BATCH`] are waiting).
    pub fn queue(&mut self, socket: &UdpSocket, peer: SocketAddr, fill: impl FnOnce(&mut Vec<u8>)) {
        if self.queued == BATCH {
            self.send(socket);
        }
        let k = self.queued;
        fill(&mut self.out[k]);
        self.to[k] = Some(SockaddrStorage::from(peer));
        self.queued += 1;
    }

    /// Sends the datagrams queued, in one call. A client that is gone, or a full buffer: the
    /// rest is lost, as UDP loses.
    pub fn send(&mut self, socket: &UdpSocket) {
        let n = self.queued;
        if n == 0 {
            return;
        }
        let slices: Vec<[IoSlice<'_>; 1]> =
            self.out[..n].iter().map(|o| [IoSlice::new(o)]).collect();
        let _ = sendmmsg(
            socket.as_raw_fd(),
            &mut self.send_headers,
            slices.iter(),
            &self.to[..n],
            [],
            MsgFlags::empty(),
        );
        self.queued = 0;
    }
}

fn socket_addr(s: &SockaddrStorage) -> Option<SocketAddr> {
    if let Some(v4) = s.as_sockaddr_in() {
        return Some(SocketAddr::V4((*v4).into()));
    }
    s.as_sockaddr_in6().map(|v6| SocketAddr::V6((*v6).into()))
}
