//! Datagrams in batches (`recvmmsg` and `sendmmsg`, through nix, where the system has
//! them: Linux, Android, FreeBSD, NetBSD): a UDP thread takes every request waiting on the
//! socket, up to [`BATCH`], in one system call, and sends the answers to them in one more,
//! rather than two calls a request. Elsewhere (macOS, Windows), [`single::Batch`]: the same
//! calls, a datagram each.

use std::io;
use std::net::{SocketAddr, UdpSocket};

#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd"
))]
pub use self::mmsg::Batch;
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd"
)))]
pub use self::single::Batch;

/// The most datagrams taken or sent in one call.
pub const BATCH: usize = 32;

/// The largest datagram read: a request is at most 512 bytes, and one cut by the buffer is
/// refused.
pub const DATAGRAM: usize = 1024;

#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd"
))]
mod mmsg {
    use std::io;
    use std::io::{IoSlice, IoSliceMut};
    use std::net::{SocketAddr, UdpSocket};
    use std::os::fd::AsRawFd;

    use nix::sys::socket::{recvmmsg, sendmmsg, MsgFlags, MultiHeaders, SockaddrStorage};

    use super::{BATCH, DATAGRAM};

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
        pub fn queue(
            &mut self,
            socket: &UdpSocket,
            peer: SocketAddr,
            fill: impl FnOnce(&mut Vec<u8>),
        ) {
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
}

/// [`Batch`] a datagram a call (`recv_from`, `send_to`), where the system has no calls for
/// many: the same interface, built and tested everywhere.
#[cfg_attr(
    any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "netbsd"
    ),
    allow(dead_code)
)]
pub mod single {
    use super::{io, SocketAddr, UdpSocket, BATCH, DATAGRAM};

    /// A thread's buffers, made once.
    pub struct Batch {
        buffer: Box<[u8; DATAGRAM]>,
        received: Option<(usize, SocketAddr)>,
        out: Vec<(Vec<u8>, SocketAddr)>,
        queued: usize,
    }

    impl Default for Batch {
        fn default() -> Self {
            Self {
                buffer: Box::new([0; DATAGRAM]),
                received: None,
                out: Vec::with_capacity(BATCH),
                queued: 0,
            }
        }
    }

    impl Batch {
        /// Waits for a datagram (as long as the socket's read timeout) and takes it: 1, or
        /// 0 for one longer than the buffer, which Windows refuses with an error of its own
        /// (elsewhere it is cut, and the cut request refused when read).
        ///
        /// # Errors
        ///
        /// The socket's: `WouldBlock` or `TimedOut` when none came in time.
        pub fn receive(&mut self, socket: &UdpSocket) -> io::Result<usize> {
            self.received = None;
            match socket.recv_from(&mut self.buffer[..]) {
                Ok((n, peer)) => {
                    self.received = Some((n, peer));
                    Ok(1)
                }
                // (WSAEMSGSIZE: a datagram longer than the buffer, dropped.)
                Err(e) if cfg!(windows) && e.raw_os_error() == Some(10040) => Ok(0),
                Err(e) => Err(e),
            }
        }

        /// The datagram taken (`k` is 0), and who sent it.
        #[must_use]
        pub fn datagram(&self, k: usize) -> (&[u8], SocketAddr) {
            assert_eq!(k, 0, "one datagram a call");
            let (n, peer) = self.received.expect("a datagram taken");
            (&self.buffer[..n.min(DATAGRAM)], peer)
        }

        /// A buffer for a datagram to `peer`, sent by the next [`Batch::send`] (sooner when
        /// [`BATCH`] are waiting).
        pub fn queue(
            &mut self,
            socket: &UdpSocket,
            peer: SocketAddr,
            fill: impl FnOnce(&mut Vec<u8>),
        ) {
            if self.queued == BATCH {
                self.send(socket);
            }
            if self.out.len() == self.queued {
                self.out.push((Vec::with_capacity(512), peer));
            }
            let (out, to) = &mut self.out[self.queued];
            out.clear();
            *to = peer;
            fill(out);
            self.queued += 1;
        }

        /// Sends the datagrams queued, a call each. A client that is gone, or a full buffer:
        /// that one is lost, as UDP loses.
        pub fn send(&mut self, socket: &UdpSocket) {
            for (out, to) in &self.out[..self.queued] {
                let _ = socket.send_to(out, to);
            }
            self.queued = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::UdpSocket;
    use std::time::Duration;

    /// Both batches, the system's and the one a datagram a call, take what a client sends
    /// and send it what is queued, in order.
    #[test]
    fn a_batch_takes_datagrams_and_sends_what_is_queued() {
        fn round<B: Default>(
            receive: impl Fn(&mut B, &UdpSocket) -> std::io::Result<usize>,
            datagram: impl for<'b> Fn(&'b B, usize) -> (&'b [u8], std::net::SocketAddr),
            queue: impl Fn(&mut B, &UdpSocket, std::net::SocketAddr, &[u8]),
            send: impl Fn(&mut B, &UdpSocket),
        ) {
            let server = UdpSocket::bind("127.0.0.1:0").unwrap();
            server
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let client = UdpSocket::bind("127.0.0.1:0").unwrap();
            client
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            client
                .send_to(b"ping", server.local_addr().unwrap())
                .unwrap();
            let mut batch = B::default();
            let n = receive(&mut batch, &server).unwrap();
            assert!(n >= 1);
            let (bytes, peer) = datagram(&batch, 0);
            assert_eq!((bytes, peer), (&b"ping"[..], client.local_addr().unwrap()));
            for answer in [&b"one"[..], b"two"] {
                queue(&mut batch, &server, peer, answer);
            }
            send(&mut batch, &server);
            let mut buffer = [0; 16];
            for answer in [&b"one"[..], b"two"] {
                let (n, from) = client.recv_from(&mut buffer).unwrap();
                assert_eq!((&buffer[..n], from), (answer, server.local_addr().unwrap()));
            }
        }
        round::<super::single::Batch>(
            |b, s| b.receive(s),
            |b, k| b.datagram(k),
            |b, s, p, a| b.queue(s, p, |out| out.extend_from_slice(a)),
            |b, s| b.send(s),
        );
        round::<super::Batch>(
            |b, s| b.receive(s),
            |b, k| b.datagram(k),
            |b, s, p, a| b.queue(s, p, |out| out.extend_from_slice(a)),
            |b, s| b.send(s),
        );
    }
}
