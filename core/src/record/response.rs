//! A REST API response (R1) and its response codes.

use alloc::string::String;
use alloc::vec::Vec;

use crate::handle::Handle;

use super::value::HandleValue;

/// A REST API response (R1): the response code, the handle it echoes, and the values or an
/// error message.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub(crate) code: ResponseCode,
    pub(crate) handle: Option<Handle>,
    pub(crate) values: Option<Vec<HandleValue>>,
    pub(crate) message: Option<String>,
}

impl Response {
    /// A success (code 1) for `handle` with `values`; code 200 when there are none.
    #[must_use]
    pub fn new(handle: Handle, values: Vec<HandleValue>) -> Self {
        let code = if values.is_empty() {
            ResponseCode::ValuesNotFound
        } else {
            ResponseCode::Success
        };
        Self {
            code,
            handle: Some(handle),
            values: Some(values),
            message: None,
        }
    }

    /// An error response: `code`, the handle asked for if there is one, and a message.
    #[must_use]
    pub fn error(code: ResponseCode, handle: Option<Handle>, message: Option<&str>) -> Self {
        Self {
            code,
            handle,
            values: None,
            message: message.map(Into::into),
        }
    }

    /// The same response about `handle` instead (the handle as a request asked for it,
    /// where the service compares handles without ASCII case).
    #[must_use]
    pub fn with_handle(mut self, handle: Handle) -> Self {
        self.handle = Some(handle);
        self
    }

    /// The response code.
    #[must_use]
    pub fn code(&self) -> ResponseCode {
        self.code
    }

    /// The handle the response is about, when it says.
    #[must_use]
    pub fn handle(&self) -> Option<&Handle> {
        self.handle.as_ref()
    }

    /// The values, in the order the response lists them (empty for an error).
    #[must_use]
    pub fn values(&self) -> &[HandleValue] {
        self.values.as_deref().unwrap_or_default()
    }

    /// The error message, when there is one.
    #[must_use]
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
}

/// A REST API response code (R1): the Handle protocol's code, its meaning and the HTTP
/// status the proxy answers with. Codes this crate does not name are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResponseCode {
    /// 1: success (HTTP 200).
    Success,
    /// 2: something unexpected went wrong during resolution (HTTP 500).
    Error,
    /// 100: handle not found (HTTP 404).
    HandleNotFound,
    /// 101: handle already exists (HTTP 409; the reference server).
    HandleAlreadyExists,
    /// 102: invalid handle (HTTP 400; the reference server).
    InvalidHandle,
    /// 200: the handle exists but has no values, or none the filters select (HTTP 200).
    ValuesNotFound,
    /// 301: the server is not responsible for the handle (HTTP 400; the reference server).
    ServerNotResponsible,
    /// Any other code, as written.
    Other(u32),
}

impl ResponseCode {
    /// The code of this number.
    #[must_use]
    pub const fn from_u32(code: u32) -> Self {
        match code {
            1 => Self::Success,
            2 => Self::Error,
            100 => Self::HandleNotFound,
            101 => Self::HandleAlreadyExists,
            102 => Self::InvalidHandle,
            200 => Self::ValuesNotFound,
            301 => Self::ServerNotResponsible,
            other => Self::Other(other),
        }
    }

    /// The number, as the JSON writes it.
    #[must_use]
    pub const fn as_u32(self) -> u32 {
        match self {
            Self::Success => 1,
            Self::Error => 2,
            Self::HandleNotFound => 100,
            Self::HandleAlreadyExists => 101,
            Self::InvalidHandle => 102,
            Self::ValuesNotFound => 200,
            Self::ServerNotResponsible => 301,
            Self::Other(code) => code,
        }
    }

    /// The HTTP status the proxy answers with (R1); 500 for a code it does not document.
    #[must_use]
    pub const fn http_status(self) -> u16 {
        match self {
            Self::Success | Self::ValuesNotFound => 200,
            Self::HandleNotFound => 404,
            Self::HandleAlreadyExists => 409,
            Self::InvalidHandle | Self::ServerNotResponsible => 400,
            Self::Error | Self::Other(_) => 500,
        }
    }

    /// What the code means, in a few words.
    #[must_use]
    pub const fn meaning(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Error => "error",
            Self::HandleNotFound => "handle not found",
            Self::HandleAlreadyExists => "handle already exists",
            Self::InvalidHandle => "invalid handle",
            Self::ValuesNotFound => "values not found",
            Self::ServerNotResponsible => "server not responsible for handle",
            Self::Other(_) => "unknown response code",
        }
    }
}
