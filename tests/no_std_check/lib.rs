//! handle-id in a `#![no_std]` crate with `alloc`.

#![no_std]

extern crate alloc;

use alloc::string::String;

/// Validates, parses, recognises a written form and writes a proxy URL.
pub fn exercise(text: &str) -> Option<String> {
    handle_id::validate(text).ok()?;
    let h = handle_id::HandleRef::parse(text).ok()?;
    let uri = handle_id::recognize(text, &handle_id::Options::new()).ok()?;
    let _ = (h.lint(), uri.form(), handle_id::hdl!("10.1000/182"));
    h.to_form(handle_id::Form::Proxy, None).ok()
}

/// Reads a REST API response and chooses where to redirect.
pub fn resolve(json: &str) -> Option<String> {
    use handle_id::record::{ClientContext, Response, SplitMix64};
    let response = Response::parse(json).ok()?;
    let redirect = response.redirect(&ClientContext::new(), &mut SplitMix64::new(1))?;
    Some(redirect.url().into())
}
