//! Which form a text is written in, by the prefix rules of grammar/forms.pest alone.

use core::sync::atomic::{AtomicBool, AtomicU16, Ordering};

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
pub(crate) fn prefix_form_at(text: &str, options: &Options) -> (Option<Form>, usize) {
    let b = text.as_bytes();
    // Only the rules the first byte leaves alive are tried, in their order (most texts, a
    // bare handle's digits, leave none).
    let mut alive = b.first().map_or(u16::MAX, |&first| may_start(first));
    let mut found = None;
    while alive != 0 {
        let i = alive.trailing_zeros() as usize;
        alive &= alive - 1;
        let Some((dfa, form)) = FORM_PREFIXES.get(i) else {
            break;
        };
        if let Some(end) = dfa.accepted_prefix(b) {
            found = Some((*form, end));
            break;
        }
    }
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

/// Whether a text that starts with `first` may be in a written form other than a bare
/// handle (U9): whether any of the prefix rules of grammar/forms.pest may match it.
pub(crate) fn may_start_form(first: u8) -> bool {
    may_start(first) != 0
}

/// Which rules of `FORM_PREFIXES` a text that starts with `first` may match (bit `i` for the
/// `i`th): each rule's first step by its tables (what `Dfa::accepted_prefix` looks at
/// first), taken for every byte once, on the first call, rather than by every rule for
/// every text.
#[inline]
fn may_start(first: u8) -> u16 {
    if !READY.load(Ordering::Acquire) {
        fill_alive();
    }
    ALIVE[usize::from(first)].load(Ordering::Relaxed)
}

/// [`may_start`]'s answer for each first byte, once [`READY`].
static ALIVE: [AtomicU16; 256] = [const { AtomicU16::new(0) }; 256];
static READY: AtomicBool = AtomicBool::new(false);

/// [`ALIVE`] filled, on the first call. (Apart, so that the look-up is inlined.)
#[cold]
#[inline(never)]
fn fill_alive() {
    // (Threads that get here at once store the same values.)
    for (byte, alive) in (0..=u8::MAX).zip(&ALIVE) {
        let mask = FORM_PREFIXES
            .iter()
            .enumerate()
            .filter(|(_, (dfa, _))| dfa.may_start(&[byte]))
            .fold(0, |mask, (i, _)| mask | (1 << i));
        alive.store(mask, Ordering::Relaxed);
    }
    READY.store(true, Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first byte leaves out only rules that refuse the text: for every first byte
    /// before the rest of each form's prefix, the rules tried in order give what every
    /// rule tried in order gives.
    #[test]
    fn the_first_byte_leaves_out_only_rules_that_refuse() {
        assert!(FORM_PREFIXES.len() <= 16);
        let rests: [&[u8]; 13] = [
            b"",
            b"dl:1/2",
            b"dl://1/2",
            b"nfo:hdl/1/2",
            b"nfo:doi/10.1/2",
            b"oi:10.1/2",
            b"rn:hdl:1:2",
            b"rn:doi:10.1:2",
            b"ttps://doi.org/10.1/2",
            b"ttp://x/1/2",
            b"nfo:x/y",
            b"rn:x:y",
            b"x+y://z",
        ];
        for first in 0..=u8::MAX {
            for rest in rests {
                let mut text = alloc::vec![first];
                text.extend_from_slice(rest);
                let every = FORM_PREFIXES
                    .iter()
                    .find_map(|(dfa, form)| dfa.accepted_prefix(&text).map(|e| (*form, e)));
                let Ok(text) = core::str::from_utf8(&text) else {
                    continue;
                };
                let (form, end) = prefix_form_at(text, &Options::new());
                assert_eq!(
                    every.unwrap_or((Some(Form::Handle), 0)),
                    (form, end),
                    "{text:?}"
                );
            }
        }
        assert_eq!(prefix_form_at("", &Options::new()), (Some(Form::Handle), 0));
    }

    /// Cleaning's plain resolver URL (`clean::plain_rest`) leaves it to `may_start_form` to
    /// refuse a path that starts with a prefix P3 takes off: each is a written form's.
    #[test]
    fn every_prefix_a_proxy_path_drops_is_a_written_form() {
        for (dfa, _) in crate::base::PATH_PREFIXES {
            assert!(FORM_PREFIXES.iter().any(|(f, _)| core::ptr::eq(*f, dfa)));
        }
    }
}
