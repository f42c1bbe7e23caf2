//! pest's parsers of the grammar files, derived from the same files the library's validators
//! are generated from: the reference the validators are held to.

#![allow(missing_docs)]

use pest::Parser;

pub mod handle {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/handle.pest"]
    pub struct G;
}
pub mod hdl {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/hdl-uri.pest"]
    pub struct G;
}
pub mod cordra {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/cordra-uri.pest"]
    pub struct G;
}
pub mod info {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/info-uri.pest"]
    pub struct G;
}
pub mod proxy {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/proxy-url.pest"]
    pub struct G;
}
pub mod forms {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/forms.pest"]
    pub struct G;
}

/// pest's verdict for entry rule `rule` on `text`.
///
/// # Panics
///
/// For a rule that is not an entry rule of the grammars.
#[must_use]
pub fn accepts(rule: &str, text: &str) -> bool {
    macro_rules! try_rules {
        ($($module:ident: $($rule:ident),+;)+) => {
            match rule {
                $($(stringify!($rule) => $module::G::parse($module::Rule::$rule, text).is_ok(),)+)+
                _ => panic!("no pest rule {rule}"),
            }
        };
    }
    try_rules! {
        handle: handle;
        hdl: hdl_host, hdl_path, hdl_resolution;
        cordra: cordra_host, cordra_path, cordra_http;
        info: info_uri;
        proxy: http_url, proxy_path;
        forms: hdl_host_form, hdl_form, info_hdl_form, info_doi_form, doi_form, urn_hdl_form,
            urn_doi_form, http_form, info_other_form, urn_other_form, other_url_form,
            label_form, bare_doi_form, doi_start_form, doi_prefix_form, glued_word_form,
            identifier_end_form, url_view_form;
    }
}

/// Every entry rule with a generated validator.
pub fn entry_rules() -> impl Iterator<Item = &'static str> {
    handle_id::__reference::rules()
}

/// The generated validator of `rule` and pest's parser agree on `text`.
#[track_caller]
pub fn agree(rule: &str, text: &str) {
    let ours = handle_id::__reference::generated(rule, text).expect("a generated rule");
    assert_eq!(
        ours.is_ok(),
        accepts(rule, text),
        "rule {rule}: the generated validator and pest disagree on {text:?}"
    );
}
