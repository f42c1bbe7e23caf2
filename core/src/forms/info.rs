//! `info:hdl/` and `info:doi/` URIs (U8, RFC 4452): reading and writing.

use alloc::string::String;

use crate::error::ParseError;
use crate::escape::{self, decode};
use crate::form::Form;
use crate::generated as g;
use crate::handle::HandleRef;
use crate::parts::{check, query_and_fragment};
use crate::uri::HdlUri;
use crate::validate::parse_handle;

/// `info:hdl/` and `info:doi/` (U8): the identifier, percent-decoded, is the handle.
/// `start`: where the form's prefix (`info:hdl/`) ends, as the prefix rules found it.
pub(super) fn read_info(text: &str, form: Form, start: usize) -> Result<HdlUri<'_>, ParseError> {
    check(&g::INFO_URI, text)?;
    let end = crate::bytes::find(b'#', text.as_bytes()).unwrap_or(text.len());
    let raw = &text[start..end];
    let handle = decode(raw, start)?;
    let slash =
        parse_handle(&handle).map_err(|e| escape::relocate(e, text, start, raw, e.index()))?;
    let (_, fragment) = query_and_fragment(text, end);
    Ok(HdlUri::assemble(
        text, form, handle, slash, start, None, None, fragment,
    ))
}

impl HandleRef<'_> {
    /// The handle as an `info:` URI (U8): `info:doi/` for a DOI (H8), `info:hdl/` otherwise.
    ///
    /// ```
    /// use handle_id::HandleRef;
    /// assert_eq!(HandleRef::parse("10.1000/1#2")?.to_info_uri(), "info:doi/10.1000/1%232");
    /// assert_eq!(HandleRef::parse("20.1000/5555")?.to_info_uri(), "info:hdl/20.1000/5555");
    /// # Ok::<(), handle_id::ParseError>(())
    /// ```
    #[must_use]
    pub fn to_info_uri(self) -> String {
        let ns = if self.is_doi() { "doi" } else { "hdl" };
        alloc::format!(
            "info:{ns}/{}",
            escape::INFO_IDENTIFIER.encode(self.as_str())
        )
    }
}
