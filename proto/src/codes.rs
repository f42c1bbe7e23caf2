//! The numbers of the protocol: operation codes, response codes and the header's flags,
//! with the reference's names (`hdllib/AbstractMessage.java`).

use std::fmt;

/// What a message asks for (the header's `opCode`). Any number travels; the constants
/// are those the reference knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpCode(pub u32);

impl OpCode {
    /// Reserved: refused by a server.
    pub const RESERVED: Self = Self(0);
    /// Resolve a handle: its values, by type or index.
    pub const RESOLUTION: Self = Self(1);
    /// The answering server's own site record.
    pub const GET_SITE_INFO: Self = Self(2);
    /// Administration: create a handle.
    pub const CREATE_HANDLE: Self = Self(100);
    /// Administration: delete a handle.
    pub const DELETE_HANDLE: Self = Self(101);
    /// Administration: add values.
    pub const ADD_VALUE: Self = Self(102);
    /// Administration: remove values.
    pub const REMOVE_VALUE: Self = Self(103);
    /// Administration: modify values.
    pub const MODIFY_VALUE: Self = Self(104);
    /// Administration: list the handles under a prefix.
    pub const LIST_HANDLES: Self = Self(105);
    /// Authentication: the answer to a challenge.
    pub const RESPONSE_TO_CHALLENGE: Self = Self(200);
    /// Authentication: ask a server to verify a challenge's answer.
    pub const VERIFY_CHALLENGE: Self = Self(201);
    /// Administration: home a prefix on a server.
    pub const HOME_NA: Self = Self(300);
    /// Administration: unhome a prefix.
    pub const UNHOME_NA: Self = Self(301);
    /// Administration: the prefixes homed on a server.
    pub const LIST_HOMED_NAS: Self = Self(302);
    /// Sessions: set one up.
    pub const SESSION_SETUP: Self = Self(400);
    /// Sessions: end one.
    pub const SESSION_TERMINATE: Self = Self(401);
    /// Sessions: exchange a key.
    pub const SESSION_EXCHANGE_KEY: Self = Self(402);
    /// Replication: the next transaction id (no longer supported by the reference).
    pub const GET_NEXT_TXN_ID: Self = Self(1000);
    /// Replication: the transaction log.
    pub const RETRIEVE_TXN_LOG: Self = Self(1001);
    /// Replication: every handle.
    pub const DUMP_HANDLES: Self = Self(1002);
    /// Replication: back a server up.
    pub const BACKUP_SERVER: Self = Self(1003);

    /// Whether a request of this opcode has a body of one handle (the reference's
    /// `GenericRequest`).
    #[must_use]
    pub fn has_handle_body(self) -> bool {
        matches!(self.0, 2 | 300 | 301 | 401 | 1000 | 1003)
    }
}

impl fmt::Display for OpCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.0 {
            0 => "OC_RESERVED",
            1 => "OC_RESOLUTION",
            2 => "OC_GET_SITE_INFO",
            100 => "OC_CREATE_HANDLE",
            101 => "OC_DELETE_HANDLE",
            102 => "OC_ADD_VALUE",
            103 => "OC_REMOVE_VALUE",
            104 => "OC_MODIFY_VALUE",
            105 => "OC_LIST_HANDLES",
            200 => "OC_RESPONSE_TO_CHALLENGE",
            201 => "OC_VERIFY_CHALLENGE",
            300 => "OC_HOME_NA",
            301 => "OC_UNHOME_NA",
            302 => "OC_LIST_HOMED_NAS",
            400 => "OC_SESSION_SETUP",
            401 => "OC_SESSION_TERMINATE",
            402 => "OC_SESSION_EXCHANGEKEY",
            1000 => "OC_GET_NEXT_TXN_ID",
            1001 => "OC_RETRIEVE_TXN_LOG",
            1002 => "OC_DUMP_HANDLES",
            1003 => "OC_BACKUP_SERVER",
            n => return write!(f, "opcode {n}"),
        };
        f.write_str(name)
    }
}

/// How a server answered (the header's `responseCode`; 0 in every request).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResponseCode(pub u32);

impl ResponseCode {
    /// 0: a request.
    pub const RESERVED: Self = Self(0);
    /// 1: success.
    pub const SUCCESS: Self = Self(1);
    /// 2: this server failed; the reference client tries another.
    pub const ERROR: Self = Self(2);
    /// 3: too busy.
    pub const SERVER_TOO_BUSY: Self = Self(3);
    /// 4: a message the server could not read.
    pub const PROTOCOL_ERROR: Self = Self(4);
    /// 5: an operation this server does not do.
    pub const OPERATION_NOT_SUPPORTED: Self = Self(5);
    /// 6: too many hops.
    pub const RECURSION_COUNT_TOO_HIGH: Self = Self(6);
    /// 7: the server is a backup, or disabled.
    pub const SERVER_BACKUP: Self = Self(7);
    /// 100: no such handle.
    pub const HANDLE_NOT_FOUND: Self = Self(100);
    /// 101: the handle exists already.
    pub const HANDLE_ALREADY_EXISTS: Self = Self(101);
    /// 102: not a handle the operation accepts.
    pub const INVALID_HANDLE: Self = Self(102);
    /// 200: the handle has no value the request selects (or may read).
    pub const VALUES_NOT_FOUND: Self = Self(200);
    /// 201: a value with that index exists already.
    pub const VALUE_ALREADY_EXISTS: Self = Self(201);
    /// 202: a value the operation does not accept.
    pub const INVALID_VALUE: Self = Self(202);
    /// 300: the client's site information is out of date.
    pub const OUT_OF_DATE_SITE_INFO: Self = Self(300);
    /// 301: this server is not responsible for the handle.
    pub const SERVER_NOT_RESP: Self = Self(301);
    /// 302: ask the service the body names.
    pub const SERVICE_REFERRAL: Self = Self(302);
    /// 303: ask the sites of a derived prefix the body names.
    pub const PREFIX_REFERRAL: Self = Self(303);
    /// 400: not an administrator.
    pub const INVALID_ADMIN: Self = Self(400);
    /// 401: not allowed.
    pub const INSUFFICIENT_PERMISSIONS: Self = Self(401);
    /// 402: a challenge: authenticate first.
    pub const AUTHENTICATION_NEEDED: Self = Self(402);
    /// 403: the answer to the challenge was wrong.
    pub const AUTHENTICATION_FAILED: Self = Self(403);
    /// 404: a credential the server does not accept.
    pub const INVALID_CREDENTIAL: Self = Self(404);
    /// 405: the challenge was answered too late.
    pub const AUTHEN_TIMEOUT: Self = Self(405);
    /// 406: authentication failed for another reason.
    pub const AUTHEN_ERROR: Self = Self(406);
    /// 500: no such session, or it timed out.
    pub const SESSION_TIMEOUT: Self = Self(500);
    /// 501: the session failed.
    pub const SESSION_FAILED: Self = Self(501);

    /// The reference's name (`RC_HANDLE_NOT_FOUND`).
    #[must_use]
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "RC_RESERVED",
            1 => "RC_SUCCESS",
            2 => "RC_ERROR",
            3 => "RC_SERVER_TOO_BUSY",
            4 => "RC_PROTOCOL_ERROR",
            5 => "RC_OPERATION_NOT_SUPPORTED",
            6 => "RC_RECURSION_COUNT_TOO_HIGH",
            7 => "RC_SERVER_BACKUP",
            100 => "RC_HANDLE_NOT_FOUND",
            101 => "RC_HANDLE_ALREADY_EXISTS",
            102 => "RC_INVALID_HANDLE",
            200 => "RC_VALUES_NOT_FOUND",
            201 => "RC_VALUE_ALREADY_EXISTS",
            202 => "RC_INVALID_VALUE",
            300 => "RC_OUT_OF_DATE_SITE_INFO",
            301 => "RC_SERVER_NOT_RESP",
            302 => "RC_SERVICE_REFERRAL",
            303 => "RC_PREFIX_REFERRAL",
            400 => "RC_INVALID_ADMIN",
            401 => "RC_INSUFFICIENT_PERMISSIONS",
            402 => "RC_AUTHENTICATION_NEEDED",
            403 => "RC_AUTHENTICATION_FAILED",
            404 => "RC_INVALID_CREDENTIAL",
            405 => "RC_AUTHEN_TIMEOUT",
            406 => "RC_AUTHEN_ERROR",
            500 => "RC_SESSION_TIMEOUT",
            501 => "RC_SESSION_FAILED",
            502 => "RC_INVALID_SESSION_KEY",
            503 => "RC_NEED_RSAKEY_FOR_SESSIONEXCHANGE",
            504 => "RC_INVALID_SESSIONSETUP_REQUEST",
            505 => "RC_SESSION_MESSAGE_REJECTED",
            _ => return None,
        })
    }

    /// Whether a response of this code is a referral: its body names a handle and may
    /// carry site values.
    #[must_use]
    pub fn is_referral(self) -> bool {
        matches!(self, Self::SERVICE_REFERRAL | Self::PREFIX_REFERRAL)
    }
}

impl fmt::Display for ResponseCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// The header's flags (`opFlags`), as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OpFlags(pub u32);

impl OpFlags {
    /// Authoritative: ask a primary site, bypass caches; set on answers from a primary.
    pub const AUTH: u32 = 0x8000_0000;
    /// Certified: the answer must be signed.
    pub const CERT: u32 = 0x4000_0000;
    /// Encrypt the answer (sessions only).
    pub const ENCRYPT: u32 = 0x2000_0000;
    /// Recursive: a server may resolve for the client.
    pub const RECURSIVE: u32 = 0x1000_0000;
    /// A caching server should certify answers itself.
    pub const CACHE_CERTIFY: u32 = 0x0800_0000;
    /// More messages follow for this request.
    pub const CONTINUOUS: u32 = 0x0400_0000;
    /// Keep the connection open.
    pub const KEEP_ALIVE: u32 = 0x0200_0000;
    /// Public only: values without public read are left out, never challenged for.
    pub const PUBLIC_ONLY: u32 = 0x0100_0000;
    /// The answer starts with a digest of the request.
    pub const RETURN_REQUEST_DIGEST: u32 = 0x0080_0000;
    /// Create or add: overwrite what exists.
    pub const OVERWRITE: u32 = 0x0040_0000;
    /// Create: the server mints the suffix.
    pub const MINT_NEW_SUFFIX: u32 = 0x0020_0000;
    /// Do not answer with a prefix referral.
    pub const DO_NOT_REFER: u32 = 0x0010_0000;

    /// What the reference client sends with a resolution: recursive, cache-certify and
    /// public only (0x19000000).
    pub const DEFAULT_REQUEST: Self =
        Self(Self::RECURSIVE | Self::CACHE_CERTIFY | Self::PUBLIC_ONLY);

    /// Whether every bit of `bits` is set.
    #[must_use]
    pub fn has(self, bits: u32) -> bool {
        self.0 & bits == bits
    }

    /// The same flags with `bits` set or cleared.
    #[must_use]
    pub fn with(self, bits: u32, on: bool) -> Self {
        Self(if on { self.0 | bits } else { self.0 & !bits })
    }
}
