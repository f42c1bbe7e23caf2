//! The textual prefixes `doi:`, `urn:hdl:` and `urn:doi:` (U8): reading. (Their writers
//! are one `format!` each, in `to_form`.)

use alloc::borrow::Cow;

use crate::error::ParseError;
use crate::form::Form;
use crate::uri::HdlUri;
use crate::validate::parse_handle;

/// The handle a `urn:hdl:` or `urn:doi:` form holds after its prefix: a ':' before any '/'
/// becomes the '/' (U8, P3, as the reference proxy does).
pub(super) fn urn_handle(rest: Cow<'_, str>) -> Cow<'_, str> {
    match rest.find([':', '/']) {
        Some(i) if rest.as_bytes()[i] == b':' => {
            let mut owned = rest.into_owned();
            owned.replace_range(i..=i, "/");
            Cow::Owned(owned)
        }
        _ => rest,
    }
}

/// `doi:`, `urn:hdl:` and `urn:doi:` (U8): the text after the prefix, taken as it is; for
/// the `urn:` forms a ':' before any '/' becomes the '/' (as the reference proxy does).
/// `prefix`: where the form's prefix ends, as the prefix rules found it.
pub(super) fn read_textual(
    text: &str,
    form: Form,
    prefix: usize,
) -> Result<HdlUri<'_>, ParseError> {
    let rest = Cow::Borrowed(&text[prefix..]);
    let handle = match form {
        Form::UrnHdl | Form::UrnDoi => urn_handle(rest),
        _ => rest,
    };
    // The handle is the rest of the text; a urn: form's ':' may be its '/' (at_in names
    // the character as written).
    let slash = parse_handle(&handle).map_err(|e| e.at_in(text, prefix + e.index()))?;
    Ok(HdlUri::assemble(
        text, form, handle, slash, prefix, None, None, None,
    ))
}
