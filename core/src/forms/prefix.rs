//! Which form a text is written in, by the prefix rules of grammar/forms.pest alone.

use crate::dfa::Dfa;
use crate::form::{Form, Options};
use crate::generated as g;

/// The prefix rules of grammar/forms.pest, in the order they are tried, and the form each
/// recognises; `None` for the forms that hold no handle. Every HTTP(S) URL is `Proxy` here.
static FORM_PREFIXES: [(&Dfa, Option<Form>); 11] = [
    (&g::HDL_HOST_FORM, Some(Form::HdlHost)),
    (&g::HDL_FORM, Some(Form::Hdl)),
    (&g::INFO_HDL_FORM, Some(Form::InfoHdl)),
    (&g::INFO_DOI_FORM, Some(Form::InfoDoi)),
    (&g::DOI_FORM, Some(Form::Doi)),
    (&g::URN_HDL_FORM, Some(Form::UrnHdl)),
    (&g::URN_DOI_FORM, Some(Form::UrnDoi)),
    (&g::HTTP_FORM, Some(Form::Proxy)),
    (&g::INFO_OTHER_FORM, None),
    (&g::URN_OTHER_FORM, None),
    (&g::OTHER_URL_FORM, None),
];

/// The form the prefix rules give (`Some(Form::Handle)` when none applies: U9), and where
/// the prefix ends.
pub(super) fn prefix_form_at(text: &str, options: &Options) -> (Option<Form>, usize) {
    let b = text.as_bytes();
    let found = FORM_PREFIXES
        .iter()
        .find_map(|(dfa, form)| dfa.accepted_prefix(b).map(|end| (*form, end)));
    match found {
        Some((Some(Form::HdlHost), end)) if options.resolution_form => {
            (Some(Form::HdlResolution), end)
        }
        Some(found) => found,
        None => (Some(Form::Handle), 0),
    }
}

/// The form the prefix rules give; every HTTP(S) URL is `Proxy` here.
pub(super) fn prefix_form(text: &str, options: &Options) -> Option<Form> {
    prefix_form_at(text, options).0
}
