//! Resolution from the global root, as the reference resolver goes about it (N11): a
//! global handle (`0.…`, or one without `/`) at the root's sites; any other at the sites of
//! its prefix handle `0.NA/<PREFIX>` (asked at the root, following service handles and
//! prefix referrals); within a site the server its hash option picks (N10); UDP on every
//! site before TCP on any; an authoritative request at primary sites only; referrals
//! followed to a bounded depth.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use handle_proto::{Body, Message, OpFlags, Protocol, ResponseCode, SiteInfo, WireValue};

use crate::client::{ask, ClientError, Timeouts, Transport};
use crate::hash::server_index;

/// The types asked of a prefix handle to find its sites (the reference's set).
const SITE_TYPES: [&[u8]; 4] = [b"HS_SITE", b"HS_SITE.6", b"HS_SERV", b"HS_NAMESPACE"];
/// The types of a prefix referral's sites.
const PREFIX_TYPES: [&[u8]; 3] = [b"HS_SITE.PREFIX", b"HS_NA_DELEGATE", b"HS_SERV.PREFIX"];
/// Hops (prefix lookups, service handles, referrals) before giving up: the reference's 40.
const MAX_HOPS: u8 = 40;
/// Prefixes whose sites are kept at once (more: the kept ones are forgotten).
const PREFIXES_KEPT: usize = 4096;
/// The longest a prefix's sites are kept, whatever the TTLs of the values they came from.
const PREFIX_MAX_TTL: Duration = Duration::from_secs(3600);

/// The sites found for prefixes, each until its values' shortest TTL ends: a prefix's next
/// handle asks its sites at once, not the root first. Shared by a resolver's clones.
type PrefixSites = Arc<Mutex<HashMap<Vec<u8>, (Instant, Vec<SiteInfo>)>>>;

/// Why a handle could not be resolved.
#[derive(Debug)]
pub enum ResolveError {
    /// No site to ask: the prefix is not registered at the root, or its sites are none
    /// this resolver can reach.
    NoService(String),
    /// Every server that could answer failed; the last failure.
    Unreachable(ClientError),
    /// Referrals or service handles went deeper than the bound.
    TooManyHops,
    /// A certified answer that does not verify by the answering server's key (N13).
    Unverified(SocketAddr, crate::key::VerifyError),
}

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoService(why) => f.write_str(why),
            Self::Unreachable(e) => write!(f, "no server answered: {e}"),
            Self::TooManyHops => write!(f, "more than {MAX_HOPS} referrals or service handles"),
            Self::Unverified(server, e) => {
                write!(f, "the certified answer of {server} does not verify: {e}")
            }
        }
    }
}

impl std::error::Error for ResolveError {}

/// A resolver: the root's sites and how long to wait.
#[derive(Clone, Debug)]
pub struct Resolver {
    root: Vec<SiteInfo>,
    timeouts: Timeouts,
    transports: Vec<Transport>,
    prefixes: PrefixSites,
}

impl Resolver {
    /// A resolver whose root is the sites among `root_values` (the values of `0.NA/0.NA`,
    /// as a root info file holds them: `HS_SITE` values; a type written otherwise, such as
    /// `#HS_SITE`, is a site turned off).
    #[must_use]
    pub fn new(root_values: &[WireValue], timeouts: Timeouts) -> Self {
        Self {
            root: sites(root_values, &[b"HS_SITE", b"HS_SITE.6"]),
            timeouts,
            transports: vec![Transport::Udp, Transport::Tcp],
            prefixes: PrefixSites::default(),
        }
    }

    /// A resolver whose root is the sites a root info file holds (as HANDLE.NET writes
    /// it), or HANDLE.NET 9.2's built in when `None`.
    ///
    /// # Errors
    ///
    /// The bytes do not read as root info: why.
    pub fn from_root_info(bytes: Option<&[u8]>, timeouts: Timeouts) -> Result<Self, String> {
        let values = handle_proto::root::read(bytes.unwrap_or(handle_proto::root::BUILT_IN))
            .map_err(|e| format!("the root info does not read: {e}"))?;
        Ok(Self::new(&values, timeouts))
    }

    /// The same resolver using only `transports`, in that order.
    #[must_use]
    pub fn with_transports(mut self, transports: Vec<Transport>) -> Self {
        self.transports = transports;
        self
    }

    /// The root's sites.
    #[must_use]
    pub fn root(&self) -> &[SiteInfo] {
        &self.root
    }

    /// The answer of the server that holds `request`'s handle.
    ///
    /// # Errors
    ///
    /// [`ResolveError`]: no site for the handle, no server answered, too many hops.
    pub async fn resolve(&self, request: &Message) -> Result<Message, ResolveError> {
        let handle = request.handle().unwrap_or_default().to_vec();
        let sites = self.sites_for(&handle, 0).await?;
        self.send(&sites, request.clone(), 0).await
    }

    /// The sites that hold `handle`.
    fn sites_for<'a>(
        &'a self,
        handle: &'a [u8],
        hops: u8,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<SiteInfo>, ResolveError>> + Send + 'a>> {
        Box::pin(async move {
            if hops > MAX_HOPS {
                return Err(ResolveError::TooManyHops);
            }
            if is_global(handle) {
                return Ok(self.root.clone());
            }
            let slash = handle.iter().position(|&b| b == b'/').expect("not global");
            let mut prefix = b"0.NA/".to_vec();
            prefix.extend(handle[..slash].iter().map(u8::to_ascii_uppercase));
            let kept = self
                .prefixes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&prefix)
                .cloned();
            if let Some((_, sites)) = kept.filter(|(until, _)| *until > Instant::now()) {
                return Ok(sites);
            }
            let mut lookup = Message::resolution(&prefix, &SITE_TYPES, &[], expiration());
            lookup.header.recursion = hops;
            let answer = self.send(&self.root, lookup, hops + 1).await?;
            let found = self.sites_of(&answer, hops + 1).await?;
            if !found.is_empty() {
                self.keep(prefix.clone(), &answer, found.clone());
            }
            if found.is_empty() {
                return Err(ResolveError::NoService(format!(
                    "no service for the prefix {}: {} answered {}",
                    String::from_utf8_lossy(&handle[..slash]),
                    String::from_utf8_lossy(&prefix),
                    answer.header.response_code
                )));
            }
            Ok(found)
        })
    }

    /// Keeps `sites`, found for `prefix` in `answer`, until the shortest TTL of the answer's
    /// values ends (at most [`PREFIX_MAX_TTL`]).
    fn keep(&self, prefix: Vec<u8>, answer: &Message, sites: Vec<SiteInfo>) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let ttl = match &answer.body {
            Body::Resolution { values, .. }
            | Body::Referral {
                values: Some(values),
                ..
            } => values
                .iter()
                .map(|v| match v.ttl {
                    handle_proto::Ttl::Relative(s) => u64::try_from(s).unwrap_or(0),
                    handle_proto::Ttl::Absolute(at) => {
                        u64::try_from(at).unwrap_or(0).saturating_sub(now)
                    }
                })
                .min(),
            _ => None,
        };
        let ttl = ttl
            .map_or(PREFIX_MAX_TTL, Duration::from_secs)
            .min(PREFIX_MAX_TTL);
        let mut kept = self.prefixes.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= PREFIXES_KEPT {
            kept.clear();
        }
        kept.insert(prefix, (Instant::now() + ttl, sites));
    }

    /// The sites an answer names: its `HS_SITE` values, and those of the service handles
    /// its `HS_SERV` values name (`0.NA/0.NA`: the root's).
    async fn sites_of(&self, answer: &Message, hops: u8) -> Result<Vec<SiteInfo>, ResolveError> {
        let (values, site_types, serv_type): (&[WireValue], &[&[u8]], &[u8]) = match &answer.body {
            Body::Resolution { values, .. } => (values, &[b"HS_SITE", b"HS_SITE.6"], b"HS_SERV"),
            Body::Referral {
                values: Some(values),
                ..
            } if answer.header.response_code == ResponseCode::PREFIX_REFERRAL => {
                (values, &PREFIX_TYPES[..2], PREFIX_TYPES[2])
            }
            Body::Referral {
                values: Some(values),
                ..
            } => (values, &[b"HS_SITE", b"HS_SITE.6"], b"HS_SERV"),
            _ => return Ok(Vec::new()),
        };
        let mut found = sites(values, site_types);
        for v in values.iter().filter(|v| v.value_type == serv_type) {
            if v.data.eq_ignore_ascii_case(b"0.NA/0.NA") {
                found.extend(self.root.iter().cloned());
                continue;
            }
            let mut lookup = Message::resolution(
                &v.data,
                &[b"HS_SITE", b"HS_SITE.6", b"HS_SERV"],
                &[],
                expiration(),
            );
            lookup.header.recursion = hops;
            let sites = self.sites_for(&v.data, hops + 1).await?;
            let service = self.send(&sites, lookup, hops + 1).await?;
            for s in Box::pin(self.sites_of(&service, hops + 1)).await? {
                if !found.contains(&s) {
                    found.push(s);
                }
            }
        }
        Ok(found)
    }

    /// Sends `request` to `sites` (primaries only when authoritative): each transport on
    /// every site before the next transport; the first answer but `RC_ERROR` wins; a
    /// service referral is followed.
    fn send<'a>(
        &'a self,
        sites: &'a [SiteInfo],
        request: Message,
        hops: u8,
    ) -> Pin<Box<dyn Future<Output = Result<Message, ResolveError>> + Send + 'a>> {
        Box::pin(async move {
            if hops > MAX_HOPS {
                return Err(ResolveError::TooManyHops);
            }
            let handle = request.handle().unwrap_or_default().to_vec();
            let authoritative = request.header.flags.has(OpFlags::AUTH);
            let candidates: Vec<&SiteInfo> = sites
                .iter()
                .filter(|s| !authoritative || s.is_primary())
                .collect();
            if candidates.is_empty() {
                return Err(ResolveError::NoService("no primary site to ask".into()));
            }
            let mut last = ClientError::Timeout;
            for &transport in &self.transports {
                let protocol = match transport {
                    Transport::Udp => Protocol::Udp,
                    Transport::Tcp => Protocol::Tcp,
                };
                for site in &candidates {
                    let Some(server) = server_index(site, &handle).map(|i| &site.servers[i]) else {
                        continue;
                    };
                    let Some(port) = server.port(protocol) else {
                        continue;
                    };
                    let addr = SocketAddr::new(address(server.ip()), port);
                    let mut sent = request.clone();
                    sent.header.site_serial = site.serial;
                    match ask(
                        addr,
                        transport,
                        &sent,
                        crate::client::request_id(),
                        &self.timeouts,
                    )
                    .await
                    {
                        Ok((_, answer)) if answer.header.response_code == ResponseCode::ERROR => {
                            last = ClientError::Io(std::io::Error::other(format!(
                                "{addr} answered {}",
                                answer.header.response_code
                            )));
                        }
                        Ok((_, answer))
                            if answer.header.response_code == ResponseCode::SERVICE_REFERRAL =>
                        {
                            let referred = self.sites_of(&answer, hops + 1).await?;
                            return self.send(&referred, request, hops + 1).await;
                        }
                        Ok((envelope, answer)) => {
                            // A certified request's answer counts only when it verifies by
                            // the key its site gives the server (N13).
                            if request.header.flags.has(OpFlags::CERT) {
                                crate::key::verify_answer(&envelope, &answer, &server.public_key)
                                    .map_err(|e| ResolveError::Unverified(addr, e))?;
                            }
                            return Ok(answer);
                        }
                        Err(e) => last = e,
                    }
                }
            }
            Err(ResolveError::Unreachable(last))
        })
    }
}

/// Whether a handle is resolved at the root: a `0.` prefix, or no `/` at all.
fn is_global(handle: &[u8]) -> bool {
    !handle.contains(&b'/')
        || (handle.len() >= 2 && handle[0] == b'0' && (handle[1] == b'.' || handle[1] == b'/'))
}

/// The site records among `values` of one of `types` (the type exactly: HDLNET).
fn sites(values: &[WireValue], types: &[&[u8]]) -> Vec<SiteInfo> {
    values
        .iter()
        .filter(|v| types.contains(&&v.value_type[..]))
        .filter_map(|v| SiteInfo::decode(&v.data).ok())
        .collect()
}

/// An IPv4-mapped address as plain IPv4, so that a socket of either family reaches it.
fn address(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// When a request stops being valid: 12 hours from now, as the reference's.
#[must_use]
pub fn expiration() -> u32 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX));
    now.saturating_add(crate::answer::ANSWER_LIFETIME)
}
